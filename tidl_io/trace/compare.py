"""Which layer loses accuracy: TIDL's traces against a float reference, layer by layer.

A reference is a golden run (an ``.npz`` of tensors by model name, or the model run in
memory), matched to each layer by its ``layer_info.txt`` name, or a second trace set,
matched by dataId. One layer is in memory at a time: its trace is read, its reference
read, the metrics taken (:mod:`tidl_io.trace.metrics`) and both dropped.

Golden arrays are oriented by shape, never guessed: an array whose shape is the layer's
NCHW shape (or the same with size-1 axes dropped or added) is taken as is; one whose
NHWC->NCHW transpose is the layer's shape is transposed; when both readings fit and they
differ (C, H and W alike), the row says "ambiguous" unless a layout is given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import _native
from .load import ReadBuffer
from .metrics import Accumulator, Metrics, Quantized

__all__ = ["DEFAULT_MIN_SNR_DB", "CompareReport", "Histogram", "Row", "calibration_golden", "compare_calibration",
           "compare_traces", "golden_lookup", "orient", "traces_lookup"]

DEFAULT_MIN_SNR_DB = 20.0
_BINS = 64


@dataclass(frozen=True)
class Histogram:
    """Counts of ``ref`` and ``test`` over the same bin ``edges``."""

    label: str
    edges: tuple[float, ...]
    ref: tuple[int, ...]
    test: tuple[int, ...]


@dataclass
class Row:
    """One traced layer (or calibration output). ``status``: ``"compared"``, or why not:
    ``"no reference"``, ``"ambiguous"``, ``"shape mismatch"``, ``"unreadable"``."""

    index: int | None
    data_id: int | None
    name: str | None
    type: str | None
    shape: tuple[int, ...] | None
    status: str
    metrics: Metrics | None = None
    kind: str | None = None
    note: str = ""
    bad: bool = False


@dataclass
class CompareReport:
    reference: str
    test: str
    min_snr_db: float
    rows: list[Row] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    histograms: list[Histogram] = field(default_factory=list)

    @property
    def compared(self) -> list[Row]:
        return [r for r in self.rows if r.status == "compared"]

    @property
    def unmatched(self) -> list[Row]:
        return [r for r in self.rows if r.status != "compared"]

    @property
    def first_bad(self) -> Row | None:
        return next((r for r in self.rows if r.bad), None)


def _squeezed(shape: Iterable[int]) -> tuple[int, ...]:
    return tuple(int(d) for d in shape if d != 1)


def orient(arr: np.ndarray, shape: tuple[int, ...], layout: str | None = None) -> tuple[np.ndarray | None, str]:
    """``arr`` as an array of ``shape`` (NCHW) and how, or (None, why not). ``layout``
    (``"NCHW"`` / ``"NHWC"``) settles the ambiguous case."""
    shape = tuple(int(d) for d in shape)
    flat = _squeezed(arr.shape) == _squeezed(shape)
    nhwc = False
    if arr.ndim == 4 and len(shape) == 4:
        n, h, w, c = arr.shape
        nhwc = (n, c, h, w) == shape and c > 1 and h * w > 1  # else the transpose is a reshape
    if flat and nhwc and layout is None:
        return None, (f"ambiguous: {arr.shape} reads as NCHW and as NHWC (C = H = W); not guessed "
                      "(give the layout: --golden-layout)")
    if nhwc and layout != "NCHW":  # a view: compare_traces reads it in its own order
        return arr.transpose(0, 3, 1, 2), f"NHWC {arr.shape} transposed to NCHW"
    if flat:
        return arr.reshape(shape), ("" if arr.shape == shape else f"reshaped {arr.shape} -> {shape}")
    return None, f"shape mismatch: reference {arr.shape}, layer {shape} (NCHW)"


def _histograms(label: str, ref: np.ndarray, test: np.ndarray) -> Histogram:
    both = np.concatenate([ref.reshape(-1)[:: max(1, ref.size // 1_000_000)],
                           test.reshape(-1)[:: max(1, test.size // 1_000_000)]])
    both = both[np.isfinite(both)]
    lo, hi = (float(both.min()), float(both.max())) if both.size else (0.0, 1.0)
    if hi <= lo:
        hi = lo + 1.0
    edges = np.linspace(lo, hi, _BINS + 1)
    r, _ = np.histogram(ref[np.isfinite(ref)], edges)
    t, _ = np.histogram(test[np.isfinite(test)], edges)
    return Histogram(label, tuple(float(e) for e in edges), tuple(int(v) for v in r), tuple(int(v) for v in t))


class _Lookup:
    """The reference array of a layer: ``get(layer) -> (array | None, note)``."""

    def __init__(self, getter: Callable[[Any], tuple[np.ndarray | Quantized | None, str]], describe: str) -> None:
        self.get = getter
        self.describe = describe


def golden_lookup(tensors: Mapping[str, Any], describe: str, layout: str | None = None) -> _Lookup:
    """Reference by layer name from a golden mapping (an ``np.load`` NpzFile or a dict: each
    array is read when its layer comes)."""
    keys = set(getattr(tensors, "files", None) or tensors.keys())

    def get(layer: Any) -> tuple[np.ndarray | None, str]:
        name = layer.name
        if name is None:
            return None, "no reference: the layer has no name (layer_info.txt missing?)"
        if name not in keys:
            return None, f"no reference: no golden tensor named {name!r}"
        arr, how = orient(np.asarray(tensors[name]), layer.shape, layout)
        return arr, how

    return _Lookup(get, describe)


def traces_lookup(traces: Any, describe: str) -> _Lookup:
    """Reference by dataId from a second trace set (codes stay codes: the metrics dequantize
    them as they go)."""

    buffer = ReadBuffer()  # one layer at a time: each read reuses it

    def get(layer: Any) -> tuple[np.ndarray | Quantized | None, str]:
        if layer.data_id not in traces.files:
            return None, f"no reference: no trace of dataId {layer.data_id} in {traces.folder}"
        return traces.quantized(layer.data_id, buffer), ""

    return _Lookup(get, describe)


def _row(layer: Any, status: str, note: str = "", kind: str | None = None) -> Row:
    return Row(layer.index, layer.data_id, layer.name, layer.type, tuple(int(d) for d in layer.shape), status,
               kind=kind, note=note)


def compare_traces(traces: Any, reference: _Lookup, *, min_snr_db: float = DEFAULT_MIN_SNR_DB,
                   test: str | None = None, histograms: bool = True) -> CompareReport:
    """Compare every traced layer of ``traces`` (a :class:`~tidl_io.trace.load.Traces`) with
    ``reference``, in execution order; one layer in memory at a time. ``histograms``: also
    histogram the first bad layer (for the HTML report; nothing else shows them)."""
    report = CompareReport(reference.describe, test or str(traces.folder), min_snr_db)
    report.warnings.extend(f"{name}: {msg}" for name, msg in traces.problems.items())
    report.notes.extend(traces.notes)
    if traces.ignored:
        report.notes.append(f"{len(traces.ignored)} file(s) with no trace name ignored: "
                            f"{', '.join(traces.ignored[:6])}{' ...' if len(traces.ignored) > 6 else ''}")
    buffer = ReadBuffer()
    for data_id in traces:
        entry = traces.entry(data_id)
        layer = entry.layer
        ref, note = reference.get(layer)
        if ref is None:
            status = note.split(":", 1)[0]
            report.rows.append(_row(layer, status, note, entry.kind))
            continue
        tested = traces.quantized(data_id, buffer)
        if ref.shape != tested.shape:  # a 6-D layer: compare in its own shape
            ref = ref.reshape(tested.shape) if isinstance(ref, Quantized) else \
                np.ascontiguousarray(ref).reshape(tested.shape)
        axis = 1 if len(tested.shape) == 4 else 3
        if axis == 1 and isinstance(ref, np.ndarray) and not ref.flags.c_contiguous \
                and ref.transpose(0, 2, 3, 1).flags.c_contiguous and _native.active() is None:
            # an NHWC golden on the NumPy path: compare in its order, the tested's codes (4x smaller)
            # transposed instead (the native kernel reads the NHWC view a cache-sized tile at a time)
            ref, axis = ref.transpose(0, 2, 3, 1), 3
            tested = _to_nhwc(tested)
        acc = Accumulator(ref.shape[axis])
        acc.add(ref, tested, axis, saturation=True)
        row = _row(layer, "compared", note, entry.kind)
        row.metrics = acc.result()
        row.bad = row.metrics.below(min_snr_db)
        if row.bad and histograms and not report.histograms:
            whole = tested.dequantize() if isinstance(tested, Quantized) else tested
            _add_histograms(report, row, _values(ref), whole, axis)
        report.rows.append(row)
        del ref, tested
    return report


def _values(x: np.ndarray | Quantized) -> np.ndarray:
    return x.dequantize() if isinstance(x, Quantized) else np.asarray(x)


def _to_nhwc(x: np.ndarray | Quantized) -> np.ndarray | Quantized:
    """A C-contiguous NHWC copy (the native strided copy when loaded)."""
    src = x.codes if isinstance(x, Quantized) else x
    view = src.transpose(0, 2, 3, 1)
    out = np.empty(view.shape, src.dtype)
    if not _native.copy(out, view):
        np.copyto(out, view)
    return Quantized(out, x.scale, x.zero_point) if isinstance(x, Quantized) else out


def _add_histograms(report: CompareReport, row: Row, ref: np.ndarray, test: np.ndarray, axis: int) -> None:
    label = f"layer {row.index} (dataId {row.data_id})" if row.index is not None else str(row.name)
    report.histograms.append(_histograms(f"{label}: all values", ref, test))
    m = row.metrics
    if m is not None and m.worst_channel is not None and ref.shape[axis] > 1:
        c = m.worst_channel
        report.histograms.append(_histograms(f"{label}: channel {c}", np.take(ref, c, axis), np.take(test, c, axis)))


def compare_calibration(calib: Any, reference: Callable[[int, str, tuple[int, ...]], tuple[np.ndarray | None, str]],
                        *, min_snr_db: float = DEFAULT_MIN_SNR_DB, describe: str = "",
                        histograms: bool = True) -> CompareReport:
    """One row per output of ``calib`` (a :class:`~tidl_io.trace.calibration.Calibration`):
    its metrics over all frames (``histograms``: as for :func:`compare_traces`). ``reference(frame, name, shape)`` gives the float value of
    output ``name`` for frame ``frame`` (oriented as :func:`orient` does)."""
    report = CompareReport(describe, f"{calib.outputs_file.name} ({len(calib.outputs)} frame(s))", min_snr_db)
    for i, t in enumerate(calib.descriptor.outputs):
        frames = [f[t.name] for f in calib.outputs]
        shape = frames[0].shape
        data_id = getattr(t, "data_id", None)
        axis = 1 if len(shape) == 4 else 3
        acc = Accumulator(shape[axis])
        notes = set()
        missing = None
        first: tuple[np.ndarray, np.ndarray] | None = None
        for k, test in enumerate(frames):
            ref, note = reference(k, t.name, shape)
            if ref is None:
                missing = note
                break
            if note:
                notes.add(note)
            acc.add(ref, test, axis)
            if first is None and histograms:
                first = (np.array(ref), np.array(test))
        if missing is not None:
            report.rows.append(Row(i, data_id, t.name, "output", shape, missing.split(":", 1)[0], note=missing))
            continue
        row = Row(i, data_id, t.name, "output", shape, "compared", acc.result(), "float", "; ".join(sorted(notes)))
        row.bad = row.metrics is not None and row.metrics.below(min_snr_db)
        if row.bad and not report.histograms and first is not None:
            _add_histograms(report, row, first[0], first[1], axis)
        report.rows.append(row)
    return report


def calibration_golden(tensors: Mapping[str, Any], nframes: int, layout: str | None = None
                       ) -> Callable[[int, str, tuple[int, ...]], tuple[np.ndarray | None, str]]:
    """A :func:`compare_calibration` reference from arrays holding, per output name, the
    frames on a leading axis."""
    keys = set(getattr(tensors, "files", None) or tensors.keys())
    cache: dict[str, np.ndarray] = {}

    def get(frame: int, name: str, shape: tuple[int, ...]) -> tuple[np.ndarray | None, str]:
        if name not in keys:
            return None, f"no reference: no golden array named {name!r}"
        if name not in cache:
            cache.clear()
            cache[name] = np.asarray(tensors[name])
        arr = cache[name]
        if arr.ndim == 0 or arr.shape[0] != nframes:
            return None, (f"shape mismatch: golden {name!r} has shape {arr.shape}, expected the {nframes} "
                          "calibration frames on its leading axis")
        return orient(arr[frame], shape, layout)

    return get

