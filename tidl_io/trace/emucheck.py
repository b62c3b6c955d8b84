""":func:`check_emulation`: the emulator against TI's own reference run, layer by layer.

TI's import leaves, for the calibration frames it fed its last fixed-point run, the outputs
(``stats_tool_out``) and, with bias calibration on, every layer's per-channel means
(``LayerPerChannelMean.bin``, :mod:`tidl_io.emulator.means`). :func:`check_emulation` emulates the folder's
own calibration frames (:func:`tidl_io.emulate`) and reports, per layer, the channels whose
mean equals TI's (:func:`tidl_io.emulator.means.means_equal`: relative difference at most 1e-5, or 1e-6
absolute), the worst channel, and per output the values equal to TI's. The report,
:class:`EmulationCheck`, prints itself (text, strict JSON); ``tidl-io emulate --check`` prints it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..artifacts.folder import find_artifacts
from ..base.check import check_path, wrong_kind
from ..base.errors import BufferMismatchError, PathNotFoundError
from ..base.text import escape, report_repr
from ..emulator import decode, emulate
from ..emulator.biases import recover_biases
from ..emulator.means import MEANS_SUFFIX, ChannelMeans, channel_means, mean_layers, means_equal
from ..emulator.run import read_net
from .api import pick_subgraph, subgraphs
from .calibration import Calibration, load_calibration

__all__ = ["EmulationCheck", "LayerCheck", "OutputCheck", "RecoveredRun", "check_emulation"]

_FUNC = "check_emulation"
_BIAS_CALIBRATION = 4  # calibrationOption bit: bias calibration on


@dataclass(frozen=True)
class RecoveredRun:
    """The same check with the biases of TI's last stats run recovered from its means
    (:func:`tidl_io.emulator.biases.recover_biases`): ``moved`` per layer index, (channel,
    codes moved from the net's); ``unresolved`` channels no code made equal."""

    outputs: tuple[OutputCheck, ...]
    layers: tuple[LayerCheck, ...]
    moved: Mapping[int, tuple[tuple[int, int], ...]]
    unresolved: Mapping[int, tuple[int, ...]]

    @property
    def ok(self) -> bool:
        return all(o.ok for o in self.outputs) and all(la.ok for la in self.layers)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "outputs": [o.to_dict() for o in self.outputs],
                "layers": [la.to_dict() for la in self.layers],
                "moved": [{"layer": k, "channels": len(v), "moves": [list(m) for m in v]} for k, v in self.moved.items()],
                "unresolved": [{"layer": k, "channels": list(v)} for k, v in self.unresolved.items()]}


@dataclass(frozen=True)
class LayerCheck:
    """One layer's channel means against TI's: ``equal`` of ``channels``; the ``worst``
    channel (None when all are equal), TI's mean there and ours; ``entry``: where the
    layer's vector starts in TI's file (None: not found)."""

    index: int
    type: str
    name: str | None
    channels: int
    equal: int
    worst: int | None = None
    ti: float | None = None
    mine: float | None = None
    entry: int | None = None
    differing: tuple[int, ...] = field(default=(), repr=False)  # the channels that differ

    @property
    def ok(self) -> bool:
        return self.equal == self.channels

    @property
    def difference(self) -> float | None:
        return None if self.ti is None or self.mine is None else abs(self.mine - self.ti)

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "type": self.type, "name": self.name, "channels": self.channels,
                "equal": self.equal, "differing": list(self.differing), "worst_channel": self.worst,
                "ti_mean": self.ti, "emulated_mean": self.mine, "difference": self.difference,
                "entry": self.entry}


@dataclass(frozen=True)
class OutputCheck:
    """One output against TI's ``stats_tool_out``: ``equal`` of ``values`` bit for bit, the
    largest difference."""

    name: str
    values: int
    equal: int
    max_difference: float | None  # None: a value is not a number on one side

    @property
    def ok(self) -> bool:
        return self.equal == self.values

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "values": self.values, "equal": self.equal, "max_difference": self.max_difference}


@dataclass(frozen=True, eq=False)
class EmulationCheck:
    """The report of :func:`check_emulation`. ``files``: TI's files by kind (``calib_raw_data``,
    ``stats_tool_out``, ``LayerPerChannelMean``), the path found or None; ``layers`` is empty
    without a means file. ``ok``: every output and every layer equal TI's."""

    net: str
    subgraph: str
    release: str
    frames: int
    files: Mapping[str, str | None]
    outputs: tuple[OutputCheck, ...]
    layers: tuple[LayerCheck, ...]
    means_note: str
    seconds: float
    recovered: RecoveredRun | None = None  # with bias calibration on and a means file: the run with TI's last biases

    @property
    def ok(self) -> bool:
        return all(o.ok for o in self.outputs) and all(la.ok for la in self.layers)

    def __repr__(self) -> str:
        return report_repr(self, self.net, subgraph=self.subgraph, frames=self.frames, ok=self.ok,
                           layers=f"{sum(la.ok for la in self.layers)}/{len(self.layers)}")

    def to_dict(self) -> dict[str, Any]:
        """Strict-JSON-ready: numbers or null."""
        return {"net": self.net, "subgraph": self.subgraph, "release": self.release, "frames": self.frames,
                "ok": self.ok, "files": dict(self.files), "means": self.means_note, "seconds": self.seconds,
                "outputs": [o.to_dict() for o in self.outputs], "layers": [la.to_dict() for la in self.layers],
                "layers_equal": sum(la.ok for la in self.layers), "layers_checked": len(self.layers),
                "biases": "net", "recovered": None if self.recovered is None else self.recovered.to_dict()}

    def to_text(self) -> str:
        """A verdict line, TI's files, each output and each layer (names escaped)."""
        n_ok = sum(la.ok for la in self.layers)
        if self.layers:
            verdict = (f"{n_ok} of {len(self.layers)} layers' channel means and "
                       f"{sum(o.ok for o in self.outputs)} of {len(self.outputs)} outputs equal TI's")
        else:
            verdict = f"{sum(o.ok for o in self.outputs)} of {len(self.outputs)} outputs equal TI's (no means file)"
        head = (f"{'OK' if self.ok else 'DIFFERS'}: the emulation of {escape(Path(self.net).name)} (subgraph "
                f"{escape(self.subgraph)}, TIDL {self.release}) on TI's {self.frames} calibration frame(s): {verdict}")
        lines = [head]
        for kind, path in self.files.items():
            lines.append(f"  {kind:<20} {escape(path) if path else 'not there'}")
        if self.layers:
            lines.append(f"  means: {self.means_note}")
        for o in self.outputs:
            lines.append(f"  output {escape(o.name)}: {o.equal} of {o.values} values equal TI's stats_tool_out"
                         + ("" if o.ok else f" (largest difference {o.max_difference if o.max_difference is not None else 'nan'})"))
        if self.layers:
            lines.append("  layer  type                        channels equal  worst channel (TI / emulated)")
        for la in self.layers:
            worst = "-" if la.ok or la.worst is None else f"{la.worst} ({la.ti:.7g} / {la.mine:.7g})"
            if la.entry is None:
                worst = "not found in TI's file"
            lines.append(f"  {la.index:<6} {escape(la.type.replace('TIDL_', '')):<27} {la.channels:<8} "
                         f"{la.equal:<6} {worst}")
        r = self.recovered
        if r is not None:
            lines.append(f"  with the biases of TI's last stats run recovered from its means (the board runs the net's): "
                         f"{sum(la.ok for la in r.layers)} of {len(r.layers)} layers and "
                         f"{sum(o.ok for o in r.outputs)} of {len(r.outputs)} outputs equal TI's")
            for o in r.outputs:
                lines.append(f"    output {escape(o.name)}: {o.equal} of {o.values} values equal")
            for index, moves in r.moved.items():
                sizes = sorted({abs(m) for _, m in moves})
                lost = r.unresolved.get(index, ())
                lines.append(f"    layer {index}: {len(moves)} channel(s) moved"
                             + (f" by {', '.join(map(str, sizes))} code(s)" if sizes else "")
                             + (f"; {len(lost)} channel(s) not recovered" if lost else ""))
        return "\n".join(lines)


def _stack(frames: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {name: np.concatenate([f[name] for f in frames]) for name in frames[0]} if frames else {}


def _layer_check(layer: Any, codes: np.ndarray, means: ChannelMeans, start: int) -> LayerCheck:
    mine = channel_means(codes, layer.scale, layer.zero_point)
    ti = means.of(layer.index)
    entry: int | None = means.spans[layer.index].start if ti is not None else means.locate(mine, start)
    if ti is None and entry is not None:
        ti = means.values[entry:entry + len(mine)]
    if ti is None:
        return LayerCheck(layer.index, layer.type, layer.name, len(mine), 0, entry=None)
    equal = means_equal(mine, ti)
    diff = np.abs(mine.astype(np.float64) - ti.astype(np.float64))
    worst = int(np.argmax(diff)) if not equal.all() else None
    return LayerCheck(layer.index, layer.type, layer.name, len(mine), int(equal.sum()), worst,
                      None if worst is None else float(ti[worst]), None if worst is None else float(mine[worst]),
                      entry, tuple(int(c) for c in np.flatnonzero(~equal)))


def _files(calib: Calibration) -> dict[str, str | None]:
    return {"calib_raw_data": str(calib.inputs_file), "stats_tool_out": str(calib.outputs_file),
            "LayerPerChannelMean": None if calib.means_file is None else str(calib.means_file)}


def check_emulation(art: str | os.PathLike[str], subgraph: int | str | None = None) -> EmulationCheck:
    """Emulate the calibration frames TI left in ``art`` (an artifacts folder, a model folder
    or an io file) and compare with TI's own run: every output with ``stats_tool_out`` bit
    for bit, every layer's channel means with ``LayerPerChannelMean.bin`` (when there).
    ``subgraph``: TIDL's number or the subgraph's name, needed when several have dumps.

    Raises :class:`~tidl_io.PathNotFoundError` naming the missing dump or net,
    :class:`~tidl_io.FormatError` for a dump that does not fit,
    :class:`~tidl_io.UnsupportedLayerError` at a layer the emulator does not implement."""
    path = check_path(art, _FUNC, "art")
    if subgraph is not None and (isinstance(subgraph, bool) or not isinstance(subgraph, (int, str))):
        raise wrong_kind(_FUNC, "subgraph", subgraph, "TIDL's subgraph number (int), its name (str) or None")
    name = None
    if subgraph is not None:
        name = pick_subgraph(subgraphs(find_artifacts(path)), subgraph, (), path).name
    calib = load_calibration(path, name)
    if calib.net_file is None:
        raise PathNotFoundError(str(calib.inputs_file.parent / f"{calib.subgraph}_tidl_net.bin"),
                                "no *_tidl_net.bin beside the io file: the emulator needs the net")
    means = calib.means
    em = emulate(calib.net_file, _stack(calib.inputs), io=calib.descriptor)
    net = em.net
    outputs, layers = _compare(calib, net, em.buffers, means)
    recovered: RecoveredRun | None = None
    if means is not None and net.header.get("calibrationOption", 0) & _BIAS_CALIBRATION:
        ti = {la.index: v for la in mean_layers(net) if (v := means.of(la.index)) is not None}
        inputs = {la.data_id: em.buffers[la.data_id] for la in net.layers if la.is_input and la.data_id is not None}
        _, moves, buffers = recover_biases(decode(*read_net(calib.net_file)), inputs, ti)
        r_outputs, r_layers = _compare(calib, net, buffers, means)
        recovered = RecoveredRun(r_outputs, r_layers, dict(moves.moved), dict(moves.unresolved))
    note = means.note if means is not None else f"no {calib.subgraph}{MEANS_SUFFIX} (compiled without bias calibration)"
    return EmulationCheck(str(calib.net_file), calib.subgraph, net.release, len(calib.inputs), _files(calib),
                          outputs, layers, note, em.seconds, recovered)


def _compare(calib: Calibration, net: Any, buffers: Mapping[int, np.ndarray], means: ChannelMeans | None
             ) -> tuple[tuple[OutputCheck, ...], tuple[LayerCheck, ...]]:
    """Each output against stats_tool_out, each layer's channel means against TI's."""
    want = _stack(calib.outputs)
    names = {t.data_id: t.name for t in calib.descriptor.outputs}
    outputs = []
    for layer in net.output_layers:
        src = net.layer_by_data_id(layer.inputs[0])
        out_name = names.get(src.data_id, layer.name or str(src.data_id))
        codes = buffers[src.data_id]
        mine = codes if codes.dtype == np.float32 else (codes.astype(np.float32) / np.float32(src.scale))
        ti = want.get(out_name)
        if ti is None or ti.size != mine.size:
            raise BufferMismatchError(f"{_FUNC}: {calib.outputs_file}: output {out_name!r} of the net "
                                      f"({mine.shape}) is not among the dump's ({ {k: v.shape for k, v in want.items()} })")
        ti = np.asarray(ti, np.float32).reshape(mine.shape)
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.abs(mine.astype(np.float64) - ti.astype(np.float64))
        outputs.append(OutputCheck(out_name, int(mine.size), int(np.count_nonzero(mine == ti)),
                                   float(diff.max(initial=0.0)) if np.isfinite(diff).all() else None))
    layers = []
    if means is not None:
        start = 0
        for la in mean_layers(net):
            assert la.data_id is not None  # mean layers are computing layers
            check = _layer_check(la, buffers[la.data_id], means, start)
            if check.entry is not None:
                start = check.entry + check.channels
            layers.append(check)
    return tuple(outputs), tuple(layers)

