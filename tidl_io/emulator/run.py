""":func:`emulate`: run a compiled net on the host in TIDL's integer arithmetic."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np

from ..base.check import as_array, check_int, check_path, nan_found, open_regular, wrong_kind
from ..base.errors import BufferMismatchError, FormatError, OptionError, PathError, TensorNotFoundError
from ..base.limits import check_alloc
from ..iodesc.descriptor import Descriptor
from ..net import Network
from .biases import BiasMoves, recover_biases
from .decode import InputOp, Op, decode
from .dumps import recovery_data
from .result import Emulation, LayerRun

__all__ = ["emulate", "read_net"]

_FUNC = "emulate"


def read_net(net: Any) -> tuple[Network, bytes]:
    """``(Network, the file's bytes)`` from a path, the file's bytes, or a Network read from
    a file (its ``source`` is read again and must be the same size)."""
    from ..net import Network, load_net, parse_net  # start-up

    if isinstance(net, Network):
        if not Path(net.source).is_file():
            raise wrong_kind(_FUNC, "net", net, "a net file's path or bytes, or a Network read from a file",
                             f"; {net.source!r} is no file: pass the bytes instead")
        return net, _read_file(net.source, net.file_size)
    if isinstance(net, (bytes, bytearray, memoryview)):
        data = bytes(net)
        return parse_net(data), data
    if isinstance(net, (str, os.PathLike)):
        path = check_path(net, _FUNC, "net")
        parsed = load_net(path)
        return parsed, _read_file(path, parsed.file_size)
    raise wrong_kind(_FUNC, "net", net, "a *_tidl_net.bin path, its bytes, or a tidl_io.Network")


def _read_file(path: str, size: int) -> bytes:
    check_alloc(size, f"the net file {path}", func=_FUNC)
    with open_regular(path, "a TIDL network file (*_tidl_net.bin)") as fh:
        try:
            data = fh.read(size + 1)
        except OSError as exc:
            raise PathError(path, f"cannot read: {exc.strerror or exc}", exc.errno) from None
    if len(data) != size:
        raise FormatError(path, f"the file is now {len(data)}{'+' if len(data) > size else ''} bytes; it was {size} "
                          "when the net was read")
    return data


def _input_arrays(ops: Sequence[Op], inputs: Any, names: Mapping[int, str]) -> dict[int, np.ndarray]:
    """dataId -> the user's array for each input data layer, in the input layers' order."""
    ins = [cast(InputOp, op) for op in ops if op.layer.is_input]  # ops.data decodes input layers to InputOp
    if isinstance(inputs, Mapping):
        by_name = {names.get(op.data_id, op.layer.name or f"input_{k}"): op for k, op in enumerate(ins)}
        unknown = [k for k in inputs if k not in by_name]
        missing = [k for k in by_name if k not in inputs]
        if unknown or missing:
            raise TensorNotFoundError(f"{_FUNC}: inputs: the net's inputs are {list(by_name)}; "
                                      f"{'unknown ' + repr(unknown) if unknown else ''}"
                                      f"{'; ' if unknown and missing else ''}{'missing ' + repr(missing) if missing else ''}")
        arrays = [inputs[name] for name in by_name]
        ins = list(by_name.values())
    elif isinstance(inputs, (list, tuple)):
        arrays = list(inputs)
    else:
        arrays = [inputs]
    if len(arrays) != len(ins):
        raise BufferMismatchError(f"{_FUNC}: the net has {len(ins)} input(s), {len(arrays)} array(s) given")
    out = {}
    for k, (op, value) in enumerate(zip(ins, arrays)):
        arr = as_array(value, _FUNC, f"inputs[{k}]")
        nan = nan_found(f"{_FUNC}: input {k} ({names.get(op.data_id, op.layer.name or f'input_{k}')})", arr,
                        "the array")  # TIDL's quantization takes no NaN: pack's nan="error"
        if nan is not None:
            raise nan
        out[op.data_id] = _frames(arr, op, k)
    return out


def _frames(arr: np.ndarray, op: InputOp, k: int) -> np.ndarray:
    """The user's array as (frames x N, C, H, W) of the input layer's type."""
    shape = op.layer.shape
    if len(shape) != 4:
        raise BufferMismatchError(f"{_FUNC}: input {k}: layer {op.index} has {len(shape)}-dim shape {shape}; only "
                                  "4-dim (N, C, H, W) inputs")
    n, per = shape[0], tuple(shape[1:])
    if arr.ndim == 3 and arr.shape == per and n == 1:
        arr = arr[None]
    if arr.ndim != 4 or tuple(arr.shape[1:]) != per or arr.shape[0] == 0 or arr.shape[0] % max(n, 1):
        raise BufferMismatchError(f"{_FUNC}: input {k} ({op.layer.name or op.data_id}): expected shape "
                                  f"(frames x {n}, {', '.join(map(str, per))}) in NCHW, found {arr.shape}")
    if arr.dtype.kind not in "biuf":
        raise BufferMismatchError(f"{_FUNC}: input {k}: expected numbers, found dtype {arr.dtype}")
    if op.dtype.kind == "f":
        return arr.astype(np.float32)
    info = np.iinfo(op.dtype)
    if arr.dtype.kind == "f" and not np.array_equal(arr, np.round(arr)) or arr.size and (
            arr.min() < info.min or arr.max() > info.max):
        raise BufferMismatchError(f"{_FUNC}: input {k}: layer {op.index} takes {op.dtype.name} codes; values outside "
                                  f"{info.min}..{info.max} or not whole")
    return arr.astype(op.dtype)


def emulate(net: str | os.PathLike[str] | bytes | Network, inputs: Any, *, io: Descriptor | None = None,
            frame: int | None = None, biases: str = "net") -> Emulation:
    """Run the compiled network ``net`` on ``inputs`` in TIDL's integer arithmetic (the
    reference flow TI's import tool runs on the calibration frames), on the host.

    ``net``: a ``*_tidl_net.bin`` path, its bytes, or a :class:`~tidl_io.Network` read from
    a file. ``inputs``: one array (one-input nets), a list in input-layer order, or a mapping
    by input name; each NCHW, ``(C, H, W)``, ``(N, C, H, W)`` or several frames stacked on
    axis 0; float for float input layers, codes for integer ones. ``io``: the subgraph's io
    descriptor, whose tensor names then name inputs and outputs (else layer_info names).
    ``frame``: a frame the caller will use (:meth:`Emulation.write_traces`'s), checked against
    the inputs' frames before anything is computed (an :class:`~tidl_io.OptionError`).
    ``biases``: ``"net"`` (the default: the net file's biases, what the board runs) or
    ``"recovered"``: the biases TI's last fixed-point stats run used, recovered from TI's
    ``LayerPerChannelMean.bin`` on TI's calibration frames (``<sg>_calib_raw_data.bin``), both
    beside the net or in its ``tempDir/`` (:func:`~tidl_io.emulator.biases.recover_biases`);
    with them the emulation reproduces TI's ``stats_tool_out``. Needs a net file compiled with
    bias calibration; :attr:`Emulation.moves` says what moved.

    Raises :class:`~tidl_io.UnsupportedLayerError` (one located line) at the first layer
    whose arithmetic the emulator does not implement, before computing anything.
    """
    parsed, data = read_net(net)
    names: dict[int, str] = {}
    if io is not None:
        if not isinstance(io, Descriptor):
            raise wrong_kind(_FUNC, "io", io, "a tidl_io.Descriptor (tidl_io.load(io_1.bin))")
        names.update({t.data_id: t.name for t in io.inputs})
        names.update({t.data_id: t.name for t in io.outputs})
    if biases not in ("net", "recovered"):
        raise OptionError(f"{_FUNC}: biases must be 'net' (the net's: what the board runs) or 'recovered' (TI's "
                          f"last stats run's, from its means), found {biases!r}")
    ops = decode(parsed, memoryview(data))
    arrays = _input_arrays(ops, inputs, names)
    moves: BiasMoves | None = None
    if biases == "recovered":
        ops, moves = _recovered(parsed, ops, io)
    counts = {arr.shape[0] // max(parsed.layer_by_data_id(d).shape[0], 1) for d, arr in arrays.items()}
    if len(counts) != 1:
        raise BufferMismatchError(f"{_FUNC}: the inputs hold different numbers of frames: {sorted(counts)}")
    frames = counts.pop()
    if frame is not None:
        check_int(frame, _FUNC, "frame", 0)
        if frame >= frames:
            raise OptionError(f"{_FUNC}: frame must be < {frames} (the frames of the inputs), found {frame}")
    total = sum(frames * int(np.prod(op.layer.shape)) * 8 for op in ops if not op.layer.is_output)
    check_alloc(total, "the emulation's buffers", func=_FUNC)
    buffers: dict[int, np.ndarray] = {}
    runs: list[LayerRun] = []
    outputs: dict[str, np.ndarray] = {}
    start = time.perf_counter()
    for op in ops:  # every type behind one signature: Op.run (emulator/ops/)
        out = op.run([buffers[d] for d in op.inputs], arrays)
        if op.layer.is_output:  # a role, not a type: hands its input back, writes no buffer
            src = op.inputs[0]
            outputs[names.get(src) or op.layer.name or f"output_{len(outputs)}"] = out
            continue
        buffers[op.data_id] = out
        layer = op.layer
        runs.append(LayerRun(layer.index, layer.type, layer.name, layer.data_id, tuple(layer.shape), out.dtype.name,
                             float(layer.scale)))
    seconds = time.perf_counter() - start
    return Emulation(parsed, outputs, frames, seconds, tuple(runs), buffers, biases, moves)


def _recovered(net: Network, ops: tuple[Op, ...], io: Descriptor | None) -> tuple[tuple[Op, ...], BiasMoves]:
    """``ops`` with the biases of TI's last stats run (from the dumps beside the net file)."""
    if not Path(net.source).is_file():
        raise OptionError(f"{_FUNC}: biases='recovered' reads TI's dumps beside the net file; give the net's path "
                          "(bytes have no folder)")
    frames, ti_means, _, _ = recovery_data(net, io)
    names = {t.data_id: t.name for t in io.inputs} if io is not None else {}
    given: Any = frames if io is not None else list(frames.values())  # the dump is in the io's input order
    calib = _input_arrays(ops, given, names)
    out, moves, _ = recover_biases(ops, calib, ti_means)
    return out, moves
