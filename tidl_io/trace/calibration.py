"""TIDL's calibration dumps: the float inputs of each calibration image and the outputs of
TIDL's fixed-point run on it, read as frames beside the io descriptor they belong to.

The model importer leaves, in the artifacts folder or its ``tempDir/``, for a subgraph
``<sg>`` (its io file ``<sg>_tidl_io_1.bin``):

- ``<sg>_calib_raw_data.bin``: per calibration image, the network's inputs in order, float32,
  dense (N, C, H, W);
- ``<sg>_tidl_io__stats_tool_out.bin``: per image, the network's outputs as TIDL's
  fixed-point run produced them, dequantized to float32, dense, in order;
- ``<sg>_tidl_io__LayerPerChannelMean.bin`` (only with bias calibration): every layer's
  per-channel means in the same run (:mod:`tidl_io.emulator.means`, :attr:`Calibration.means`).

So a float run of the model on the inputs, compared with the outputs, measures what
quantization did without a board.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from ..artifacts.folder import find_artifacts
from ..base.check import check_path, wrong_kind
from ..base.errors import FormatError, PathNotFoundError
from ..base.text import report_repr
from ..emulator.dumps import INPUTS_SUFFIX, OUTPUTS_SUFFIX, find_dump, read_frames, tensor_nchw
from ..emulator.means import MEANS_SUFFIX, ChannelMeans, load_means
from ..iodesc.descriptor import Descriptor, load

__all__ = ["INPUTS_SUFFIX", "OUTPUTS_SUFFIX", "Calibration", "load_calibration", "tensor_nchw"]

@dataclass(frozen=True)
class Calibration:
    """The calibration frames of one subgraph: ``inputs[i]`` and ``outputs[i]`` map tensor
    names to float32 arrays shaped by :func:`tensor_nchw` (read-only views of the files,
    read on first touch); ``means_file`` TI's per-channel means of every layer when the
    folder has them (read by :attr:`means` on first touch, with the net ``net_file``)."""

    subgraph: str
    descriptor: Descriptor
    inputs: list[dict[str, np.ndarray]]
    outputs: list[dict[str, np.ndarray]]
    inputs_file: Path
    outputs_file: Path
    means_file: Path | None = None
    net_file: Path | None = None

    @cached_property
    def means(self) -> ChannelMeans | None:
        """TI's ``LayerPerChannelMean.bin`` mapped onto the net's layers (:func:`tidl_io.emulator.means.load_means`),
        None when the folder has no such file. Raises :class:`~tidl_io.FormatError` for a
        file that does not fit the net, :class:`~tidl_io.PathNotFoundError` when the net is
        missing."""
        from ..net import load_net  # start-up

        if self.means_file is None:
            return None
        if self.net_file is None or not self.net_file.is_file():
            raise PathNotFoundError(str(self.net_file or self.means_file), "no *_tidl_net.bin beside the io file: "
                                    f"the net is needed to map {self.means_file.name} onto its layers")
        return load_means(self.means_file, load_net(self.net_file))

    def __repr__(self) -> str:
        return report_repr(self, self.outputs_file.parent, subgraph=self.subgraph, frames=len(self.outputs),
                           inputs=tuple(self.inputs[0]) if self.inputs else (),
                           outputs=tuple(self.outputs[0]) if self.outputs else ())


def load_calibration(path: str | os.PathLike[str], subgraph: str | None = None) -> Calibration:
    """The calibration frames of an artifacts folder (or model folder, or io file).

    ``subgraph`` names the io file's subgraph (``625`` for ``625_tidl_io_1.bin``); it may be
    left out when only one subgraph has dumps. Raises :class:`~tidl_io.PathNotFoundError`
    when the dumps are missing and :class:`~tidl_io.FormatError` when a file's size is not a
    whole number of frames or the two files hold different numbers of frames."""
    arts = find_artifacts(check_path(path, "load_calibration", "path"))
    if subgraph is not None and not isinstance(subgraph, str):
        raise wrong_kind("load_calibration", "subgraph", subgraph, "a subgraph name (str) or None")
    found = []
    if subgraph is None and len(arts.subgraph_names) == 1:  # the only one: say which file is missing
        subgraph = arts.subgraph_names[0]
    for io, net, name in zip(arts.io_files, arts.net_files, arts.subgraph_names):
        ins, outs = find_dump(io.parent, name + INPUTS_SUFFIX), find_dump(io.parent, name + OUTPUTS_SUFFIX)
        if subgraph is not None and name != subgraph:
            continue
        if ins is not None and outs is not None:
            found.append((io, name, ins, outs, net))
        elif subgraph is not None:
            missing = [name + suffix for suffix, f in ((INPUTS_SUFFIX, ins), (OUTPUTS_SUFFIX, outs)) if f is None]
            raise PathNotFoundError(str(io.parent / "tempDir" / missing[0]),
                                    f"no calibration dump {' nor '.join(missing)} beside {io.name} (nor in tempDir/)")
    if not found:
        names = ", ".join(arts.subgraph_names)
        if subgraph is not None:
            raise PathNotFoundError(str(path), f"no subgraph {subgraph!r} here; subgraphs: {names}")
        raise PathNotFoundError(str(path), f"no calibration dumps (<subgraph>{INPUTS_SUFFIX} and "
                                f"<subgraph>{OUTPUTS_SUFFIX}, beside the io files or in tempDir/) for "
                                f"subgraph(s) {names}")
    if len(found) > 1:
        raise FormatError(str(path), f"calibration dumps of several subgraphs ({', '.join(f[1] for f in found)}): "
                          "pick one with subgraph= (--subgraph: TIDL's number or the subgraph's name)")
    io, name, ins, outs, net = found[0]
    desc = load(io)
    inputs = read_frames(ins, desc.inputs, f"inputs of {io.name}")
    outputs = read_frames(outs, desc.outputs, f"outputs of {io.name}")
    if len(inputs) != len(outputs):
        raise FormatError(str(outs), f"{len(outputs)} output frame(s), but {ins.name} holds {len(inputs)} "
                          "input frame(s): expected one output frame per calibration image")
    return Calibration(name, desc, inputs, outputs, ins, outs, find_dump(io.parent, name + MEANS_SUFFIX), net)
