"""TI's calibration dumps as the emulator needs them: the float frames TI's import fed its
fixed-point stats runs (``<sg>_calib_raw_data.bin``), where TI leaves its dumps (beside the io
file or in ``tempDir/``), and the frames and per-channel means a net's bias recovery needs
(:func:`recovery_data`). :mod:`tidl_io.trace.calibration` builds its reader on these.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..base.errors import FormatError, OptionError, PathError, PathNotFoundError
from ..iodesc.descriptor import Descriptor, Tensor, load
from ..net import Network
from .means import MEANS_SUFFIX, load_means, mean_layers

__all__ = ["INPUTS_SUFFIX", "OUTPUTS_SUFFIX", "find_dump", "read_frames", "recovery_data", "subgraph_of_net",
           "tensor_nchw"]

INPUTS_SUFFIX = "_calib_raw_data.bin"
OUTPUTS_SUFFIX = "_tidl_io__stats_tool_out.bin"
NET_SUFFIX, IO_SUFFIX = "_tidl_net.bin", "_tidl_io_1.bin"
BIAS_CALIBRATION = 4  # calibrationOption bit: bias calibration on


def tensor_nchw(t: Tensor) -> tuple[int, ...]:
    """The shape frames of ``t`` are given in: (N, C, H, W) when DIM1 = DIM2 = 1, else the
    6-D (N, DIM1, DIM2, C, H, W)."""
    n, d1, d2, c, h, w = t.shape
    return (n, c, h, w) if d1 == d2 == 1 else tuple(t.shape)


def read_frames(path: Path, tensors: Sequence[Tensor], what: str) -> list[dict[str, np.ndarray]]:
    """Per frame, ``tensors``' float32 arrays by name (read-only views of ``path``, dense, in
    order); the file must hold a whole number of frames."""
    sizes = [t.size for t in tensors]
    frame = sum(sizes) * 4
    try:
        found = path.stat().st_size
    except OSError as exc:
        raise PathError(str(path), f"cannot read: {exc.strerror or exc}; expected the {what}", exc.errno) from None
    if frame == 0 or found == 0 or found % frame:
        shapes = ", ".join(f"{t.name} {tensor_nchw(t)}" for t in tensors)
        raise FormatError(str(path), f"{found} bytes is not a whole number of frames of the {what} "
                          f"(float32 {shapes}: {frame} bytes per frame)")
    try:
        data = np.memmap(path, dtype="<f4", mode="r")
    except OSError as exc:  # a mode-000 dump, say
        raise PathError(str(path), f"cannot read: {exc.strerror or exc}; expected the {what}", exc.errno) from None
    frames = []
    for k in range(found // frame):
        start = k * (frame // 4)
        item = {}
        for t, n in zip(tensors, sizes):
            item[t.name] = data[start:start + n].reshape(tensor_nchw(t))
            start += n
        frames.append(item)
    return frames


def find_dump(folder: Path, name: str) -> Path | None:
    """``folder/name`` or ``folder/tempDir/name``, whichever is a file (that order), else None."""
    for where in (folder, folder / "tempDir"):
        if (where / name).is_file():
            return where / name
    return None


def subgraph_of_net(path: Path) -> str:
    """``625`` for ``625_tidl_net.bin``: the subgraph name TI's dumps beside it carry."""
    if not path.name.endswith(NET_SUFFIX) or path.name == NET_SUFFIX:
        raise PathNotFoundError(str(path), f"not named <subgraph>{NET_SUFFIX}: cannot find the subgraph's "
                                "calibration dumps beside it")
    return path.name[:-len(NET_SUFFIX)]


def recovery_data(net: Network, io: Descriptor | None = None
                  ) -> tuple[dict[str, np.ndarray], dict[int, np.ndarray], Path, Path]:
    """What recovering the biases of TI's last stats run needs for ``net`` (read from a
    ``<sg>_tidl_net.bin``): the calibration frames by input name (stacked on axis 0), TI's
    channel means by layer index, and the two files' paths. ``io``: the subgraph's
    descriptor (else ``<sg>_tidl_io_1.bin`` beside the net). Raises
    :class:`~tidl_io.PathNotFoundError` naming a missing file, :class:`~tidl_io.OptionError`
    when the net was compiled without bias calibration (its biases are then TI's own)."""
    source = Path(net.source)
    sg = subgraph_of_net(source)
    if not net.header.get("calibrationOption", 0) & BIAS_CALIBRATION:
        raise OptionError(f"{source}: compiled without bias calibration (calibrationOption "
                          f"{net.header.get('calibrationOption', 0)}): the net's biases are the ones TI's stats runs "
                          "used; nothing to recover (biases='net')")
    ins = find_dump(source.parent, sg + INPUTS_SUFFIX)
    means_file = find_dump(source.parent, sg + MEANS_SUFFIX)
    for name, found in ((sg + INPUTS_SUFFIX, ins), (sg + MEANS_SUFFIX, means_file)):
        if found is None:
            raise PathNotFoundError(str(source.parent / "tempDir" / name),
                                    f"recovered biases need TI's {name} beside {source.name} (or in tempDir/)")
    assert ins is not None and means_file is not None
    if io is None:
        io_file = source.with_name(sg + IO_SUFFIX)
        if not io_file.is_file():
            raise PathNotFoundError(str(io_file), "recovered biases read the calibration frames by the io "
                                    "descriptor beside the net")
        io = load(io_file)
    frames = read_frames(ins, io.inputs, f"inputs of {sg}{IO_SUFFIX}")
    stacked = {name: np.concatenate([f[name] for f in frames]) for name in frames[0]}
    means = load_means(means_file, net)
    ti = {la.index: v for la in mean_layers(net) if (v := means.of(la.index)) is not None}
    return stacked, ti, ins, means_file
