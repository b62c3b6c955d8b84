"""What an emulation gives back: :class:`Emulation` (outputs, every layer's codes, text,
JSON, TIDL-named trace files)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..base.atomic import make_output_folder, write_bytes_atomic
from ..base.check import check_int, check_path
from ..base.errors import OptionError, TensorNotFoundError
from ..base.text import escape, report_repr
from ..net import Layer, Network
from .biases import BiasMoves

__all__ = ["Emulation", "LayerRun", "trace_name"]


def trace_name(subgraph: int, layer: Layer, kind: str) -> str:
    """TIDL's trace file name of ``layer`` (10.x/11.x naming: dataId 4 digits, batch 4, DIM1
    4, DIM2 5, channels 5, width 6 x height 5), ``kind`` ``"y"`` or ``"float"``."""
    n, d1, d2, c, h, w = layer.dims6
    stem = f"tidl_trace_subgraph_{subgraph}_{layer.data_id:04d}_{n:04d}_{d1:04d}_{d2:05d}_{c:05d}_{w:06d}x{h:05d}"
    return stem + (".y" if kind == "y" else "_float.bin")


@dataclass(frozen=True)
class LayerRun:
    """One executed layer: where its codes are (``data_id``), their scale and element type."""

    index: int
    type: str
    name: str | None
    data_id: int | None
    shape: tuple[int, ...]  # per frame: the layer's (N, C, H, W)
    dtype: str
    scale: float

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "type": self.type, "name": self.name, "data_id": self.data_id,
                "shape": list(self.shape), "dtype": self.dtype, "scale": self.scale}


@dataclass(frozen=True, eq=False)
class Emulation:
    """The result of :func:`tidl_io.emulate`: ``outputs`` by name (the io descriptor's names
    when one was given, else the output layers' names), each ``(frames, C, H, W)`` in the
    element type the net's last layer gives (float32 after an output DataConvert, as
    TIDL-RT returns it); every layer's codes by dataId (:meth:`codes`, :meth:`values`);
    :meth:`write_traces` writes them under TIDL's trace names."""

    net: Network = field(repr=False)
    outputs: Mapping[str, np.ndarray] = field(repr=False)
    frames: int
    seconds: float
    layers: tuple[LayerRun, ...] = field(repr=False)
    buffers: Mapping[int, np.ndarray] = field(repr=False)  # dataId -> codes (frames, C, H, W)
    biases: str = "net"  # "net": the net file's (what the board runs); "recovered": TI's last stats run's
    moves: BiasMoves | None = field(default=None, repr=False)  # with "recovered": what moved from the net's

    def __repr__(self) -> str:
        return report_repr(self, self.net.source, frames=self.frames, layers=len(self.layers),
                           outputs=tuple(self.outputs), seconds=round(self.seconds, 3))

    def codes(self, data_id: int) -> np.ndarray:
        """The codes (or float32 values) layer ``data_id`` produced, (frames, C, H, W); a view."""
        check_int(data_id, "Emulation.codes", "data_id")
        if int(data_id) not in self.buffers:
            raise TensorNotFoundError(f"{self.net.source}: the emulation has no buffer dataId {data_id}; it has "
                                      f"{sorted(self.buffers)}")
        return self.buffers[int(data_id)]

    def values(self, data_id: int) -> np.ndarray:
        """Layer ``data_id``'s values as float32, ``q / tensorScale`` (a copy)."""
        codes = self.codes(data_id)
        run = next(r for r in self.layers if r.data_id == int(data_id))
        if codes.dtype == np.float32:
            return codes.copy()
        return (codes.astype(np.float32) / np.float32(run.scale)).astype(np.float32)

    def write_traces(self, folder: str | os.PathLike[str], *, subgraph: int = 0, frame: int = 0) -> list[Path]:
        """Write frame ``frame``'s codes (``.y``, the element type) and values (``_float.bin``,
        float32) of every layer under TIDL's trace names, dense (NCHW; an NHWC buffer in its
        (N, H, W, C) order, as :func:`tidl_io.load_traces` reads it) into ``folder``
        (created if missing), so :func:`tidl_io.load_traces` and ``tidl-io compare`` read them
        as a board's. ``subgraph`` is TIDL's subgraph number (its index in ``onnxrtMetaData.txt``,
        the N of ``tidl_trace_subgraph_N_``; ``tidl-io emulate`` passes the one of the subgraph it
        ran), not its position among the io files. Returns the paths written (each file atomically)."""
        target = Path(check_path(folder, "Emulation.write_traces", "folder"))
        check_int(subgraph, "Emulation.write_traces", "subgraph", 0)
        check_int(frame, "Emulation.write_traces", "frame", 0)
        if frame >= self.frames:
            raise OptionError(f"Emulation.write_traces: frame must be < {self.frames} (the frames emulated), "
                              f"found {frame}")
        make_output_folder(target, "a folder for the traces (Emulation.write_traces)")
        written = []
        by_id = {la.data_id: la for la in self.net.layers if la.num_out > 0}
        for run in self.layers:
            if run.data_id is None:  # an output data layer writes no buffer of its own
                continue
            layer = by_id[run.data_id]
            n = layer.dims6[0]
            codes = self.buffers[run.data_id][frame * n:(frame + 1) * n]
            for kind, arr in (("y", codes), ("float", self.values(run.data_id)[frame * n:(frame + 1) * n])):
                if layer.layout == "NHWC" and arr.ndim == 4:  # a dense trace is in its buffer's order
                    arr = arr.transpose(0, 2, 3, 1)
                path = target / trace_name(subgraph, layer, kind)
                write_bytes_atomic(path, np.ascontiguousarray(arr).tobytes())
                written.append(path)
        return written

    def to_dict(self) -> dict[str, Any]:
        """Strict-JSON-ready summary: net, frames, time, outputs (shape, dtype, min, max),
        layers."""
        outs = {}
        for name, arr in self.outputs.items():
            finite = arr[np.isfinite(arr)] if arr.dtype.kind == "f" else arr
            outs[name] = {"shape": list(arr.shape), "dtype": arr.dtype.name,
                          "min": float(finite.min()) if finite.size else None,
                          "max": float(finite.max()) if finite.size else None}
        return {"net": self.net.source, "release": self.net.release, "frames": self.frames,
                "seconds": self.seconds, "seconds_per_frame": self.seconds / max(self.frames, 1),
                "outputs": outs, "layers": [r.to_dict() for r in self.layers], "biases": self.biases,
                "moved": None if self.moves is None else [
                    {"layer": k, "channels": len(v), "moves": [list(m) for m in v]} for k, v in self.moves.moved.items()],
                "unresolved": None if self.moves is None else [
                    {"layer": k, "channels": list(v)} for k, v in self.moves.unresolved.items() if v]}

    def to_text(self) -> str:
        """A few lines for a terminal (names with control characters escaped)."""
        ms = 1000 * self.seconds / max(self.frames, 1)
        lines = [f"emulated {escape(Path(self.net.source).name)} (TIDL {self.net.release}): {len(self.layers)} "
                 + f"layers, {self.frames} frame(s), {ms:.1f} ms per frame"]
        if self.moves is None:
            lines.append("  biases: the net file's (what the board runs)")
        else:
            moved = sum(len(v) for v in self.moves.moved.values())
            lost = sum(len(v) for v in self.moves.unresolved.values())
            lines.append(f"  biases: recovered from TI's means (TI's last stats run; the board runs the net's): "
                         f"{moved} channel(s) moved in {sum(bool(v) for v in self.moves.moved.values())} layer(s)"
                         + (f", {lost} not recovered (kept as the net's)" if lost else ""))
        for name, arr in self.outputs.items():
            lines.append(f"  output {escape(name)}: {'x'.join(map(str, arr.shape))} {arr.dtype.name}, "
                         f"{float(arr.min()) if arr.size else 0:g} .. {float(arr.max()) if arr.size else 0:g}")
        return "\n".join(lines)

