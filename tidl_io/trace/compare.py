"""Which layer loses accuracy: TIDL's traces against a float reference, layer by layer.

A reference is anything that implements :class:`Reference`: a golden run (an ``.npz`` of
tensors by model name, or the model run in memory: :class:`GoldenReference`), matched to each
layer by its ``layer_info.txt`` name; a second trace set (:class:`TracesReference`), matched
by dataId; calibration dumps (:class:`CalibrationReference`), matched by output name and
frame. One layer is in memory at a time: its trace is read, its reference read, the metrics
taken (:mod:`tidl_io.trace.metrics`) and both dropped.

Golden arrays are oriented by shape through the one layout resolver (:mod:`tidl_io.base.layouts`),
never guessed: an array whose shape is the layer's NCHW shape (or the same with size-1 axes
dropped or added) is taken as is; one whose NHWC->NCHW transpose is the layer's shape is
transposed; when both readings fit and they differ (C, H and W alike), the row says
"ambiguous" unless a layout is given.

A row is bad when its SNR, or the SNR of a channel that counts, is under the threshold. A
channel does not count (:func:`quiet_channels`) when its reference never reaches one
quantization step of the layer (TIDL can only store zeros there: a dead ReLU channel), or
when its test is nowhere more than one step from the reference (the layer's rounding and one
code more: TIDL cannot do better at that scale), or when its reference energy is under
:data:`NEGLIGIBLE_SHARE` of the layer's; the report says how many channels are below one step.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .. import native as _native
from ..base import layouts as _layouts
from ..base.text import short_repr
from ..net import Layer, Network
from .calibration import Calibration
from .load import ReadBuffer, Traces
from .metrics import Accumulator, Metrics, Quantized, Source
from .names import parse_trace_name
from .npz import NpzArrays
from .report import CompareReport, Histogram, Row, Status

__all__ = ["DEFAULT_MIN_SNR_DB", "NEGLIGIBLE_SHARE", "CalibrationReference", "CompareReport", "Found",
           "GoldenReference", "Histogram", "Reference", "Row", "Status", "Target", "TracesReference",
           "calibration_golden", "compare_calibration", "compare_traces", "fit_reference", "golden_lookup", "orient",
           "output_step", "quiet_channels", "traces_lookup"]

DEFAULT_MIN_SNR_DB = 20.0
NEGLIGIBLE_SHARE = 1e-9  # a channel's share of the layer's reference energy that cannot matter (-90 dB)
_BINS = 64
_CONVERT = "TIDL_DataConvertLayer"
_SHOWN = 5  # golden array names a note lists


# ---- the reference protocol ------------------------------------------------------------

@dataclass(frozen=True)
class Target:
    """What a reference is asked for: the tensor of layer ``index`` (dataId ``data_id``, model
    name ``name``) of NCHW ``shape`` (4-D, or 6-D), in calibration frame ``frame``."""

    name: str | None
    data_id: int | None
    shape: tuple[int, ...]
    index: int | None = None
    frame: int = 0

    @classmethod
    def of_layer(cls, layer: Layer) -> Target:
        return cls(layer.name, layer.data_id, tuple(int(d) for d in layer.shape), layer.index)


@dataclass(frozen=True)
class Found:
    """A reference's answer: ``value`` oriented to the target's shape (float array or codes),
    or None and the :class:`Status` saying why; ``note`` tells what was done or why not."""

    value: Source | None
    status: Status
    note: str = ""


class Reference(Protocol):
    """A float reference to compare TIDL's tensors with: golden runs, trace sets and
    calibration dumps implement it. ``describe`` names it in the report."""

    @property
    def describe(self) -> str: ...

    def get(self, target: Target) -> Found: ...


def _squeezed(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(d) for d in shape if d != 1)


def _shape6(shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """(N, DIM1, DIM2, C, H, W) of an NCHW layer shape (4-D or 6-D), else None."""
    if len(shape) == 4:
        n, c, h, w = shape
        return (n, 1, 1, c, h, w)
    return tuple(shape) if len(shape) == 6 else None


def orient(arr: np.ndarray, shape: tuple[int, ...], layout: str | None = None) -> tuple[np.ndarray | None, str]:
    """``arr`` as an array of ``shape`` (NCHW) and how, or (None, why not). ``layout``
    (``"NCHW"`` / ``"NHWC"``) settles the ambiguous case. A view where the shapes allow."""
    shape = tuple(int(d) for d in shape)
    found = fit_reference(arr, shape, layout)
    return found.value if isinstance(found.value, np.ndarray) else None, found.note


def _reading(have: tuple[int, ...], shape: tuple[int, ...], layout: str | None) -> tuple[str | None, Status, str]:
    """How an array of shape ``have`` reads as the NCHW ``shape``, from the shapes alone:
    ("as is" | "reshape" | "nhwc", COMPARED, note), or (None, status, why not)."""
    shape6 = _shape6(shape)
    cf = cl = False
    if shape6 is not None:  # the one resolver: which layouts the array's shape fits
        cf = _layouts.fits(shape6, have, False, False)
        cl = _layouts.fits(shape6, have, True, False) and len(have) >= 4
        c, h, w = shape6[3:]
        if cl and (c == 1 or h * w == 1):  # channels last is then the same order: a reshape
            cf, cl = True, False
    flat = cf or _squeezed(have) == _squeezed(shape)
    if flat and cl and layout is None:
        return None, Status.AMBIGUOUS, (f"ambiguous: {have} reads as NCHW and as NHWC (C = H = W); not guessed "
                                        "(give the layout: --golden-layout)")
    if cl and layout != "NCHW":
        return "nhwc", Status.COMPARED, f"NHWC {have} transposed to NCHW"
    if flat:
        return ("as is", Status.COMPARED, "") if have == shape else \
            ("reshape", Status.COMPARED, f"reshaped {have} -> {shape}")
    return None, Status.SHAPE_MISMATCH, f"shape mismatch: reference {have}, layer {shape} (NCHW)"


def fit_reference(arr: np.ndarray, shape: tuple[int, ...], layout: str | None = None) -> Found:
    """:func:`orient` as a reference's answer (:class:`Found`: the view, or the status saying why not)."""
    how, status, note = _reading(tuple(arr.shape), shape, layout)
    if how is None:
        return Found(None, status, note)
    if how == "nhwc":  # a view: compare_traces reads it in its own order
        shape6 = _shape6(shape)
        assert shape6 is not None
        return Found(_layouts.canonical(arr, shape6, True).reshape(shape), status, note)
    return Found(arr.reshape(shape), status, note)


class GoldenReference:
    """Reference by name from golden arrays (an :class:`~tidl_io.trace.npz.NpzArrays`, an
    ``np.load`` NpzFile or a dict: each array is read when its layer comes). With ``frames``,
    each array holds that many calibration frames on a leading axis."""

    def __init__(self, tensors: Mapping[str, np.ndarray], describe: str, layout: str | None = None,
                 frames: int | None = None) -> None:
        self.tensors = tensors
        self.describe = describe
        self.layout = layout
        self.frames = frames
        self._keys = set(getattr(tensors, "files", None) or tensors.keys())
        self._cache: dict[str, np.ndarray] = {}

    def get(self, target: Target) -> Found:
        name = target.name
        if name is None:
            return Found(None, Status.NO_REFERENCE, "no reference: the layer has no name (layer_info.txt missing?)")
        if name not in self._keys:
            holds = "" if self.frames is None else f" ({self._holds()})"  # an output: say what there is
            return Found(None, Status.NO_REFERENCE, f"no reference: no golden tensor named {name!r}{holds}")
        if isinstance(self.tensors, NpzArrays):  # the shape from the header first: no data read for a mismatch
            have = self.tensors.shape(name)
            if self.frames is not None and (not have or have[0] != self.frames):
                return self._no_frames(name, have)
            how, status, note = _reading(have[1:] if self.frames is not None else have, target.shape, self.layout)
            if how is None:
                return Found(None, status, note)
        if self.frames is None:
            return fit_reference(np.asarray(self.tensors[name]), target.shape, self.layout)
        if name not in self._cache:  # the frames of one output: read once, used frame by frame
            self._cache.clear()
            self._cache[name] = np.asarray(self.tensors[name])
        arr = self._cache[name]
        if arr.ndim == 0 or arr.shape[0] != self.frames:
            return self._no_frames(name, tuple(arr.shape))
        return fit_reference(arr[target.frame], target.shape, self.layout)

    def _holds(self) -> str:
        """What the golden arrays are: "NAME holds 2 array(s): 'a', 'b'" (the first few names)."""
        keys = list(getattr(self.tensors, "files", None) or self.tensors.keys())
        shown = ", ".join(short_repr(k) for k in keys[:_SHOWN])
        return (f"{self.describe or 'the golden'} holds {len(keys)} array(s)" + (f": {shown}" if keys else "")
                + (" ..." if len(keys) > _SHOWN else ""))

    def _no_frames(self, name: str, have: tuple[int, ...]) -> Found:
        return Found(None, Status.SHAPE_MISMATCH, f"shape mismatch: golden {name!r} has shape {have}, "
                     f"expected the {self.frames} calibration frames on its leading axis")


class TracesReference:
    """Reference by dataId from a second trace set (codes stay codes: the metrics dequantize
    them as they go)."""

    def __init__(self, traces: Traces, describe: str) -> None:
        self.traces = traces
        self.describe = describe
        self._buffer = ReadBuffer()  # one layer at a time: each read reuses it
        self._unusable: dict[int, str] = {}  # dataId -> a file of it that could not be used
        for name in traces.problems:
            tn = parse_trace_name(name)
            if tn is not None:
                self._unusable.setdefault(tn.data_id, name)

    @property
    def warnings(self) -> list[str]:
        """The reference folder's unusable trace files, as the tested folder's are reported."""
        return [f"reference {name}: {msg}" for name, msg in self.traces.problems.items()]

    def get(self, target: Target) -> Found:
        if target.data_id not in self.traces.files:
            bad = self._unusable.get(target.data_id) if target.data_id is not None else None
            if bad is not None:
                return Found(None, Status.NO_REFERENCE, f"no reference: the trace of dataId {target.data_id} in "
                             f"{self.traces.folder} ({bad}) could not be used (see the warnings)")
            return Found(None, Status.NO_REFERENCE,
                         f"no reference: no trace of dataId {target.data_id} in {self.traces.folder}")
        return Found(self.traces.quantized(target.data_id, self._buffer), Status.COMPARED)


class CalibrationReference:
    """Reference by output name and frame from calibration dumps (their outputs)."""

    def __init__(self, calib: Calibration, describe: str | None = None) -> None:
        self.calib = calib
        self.describe = describe or f"{calib.outputs_file.name} ({len(calib.outputs)} frame(s))"

    def get(self, target: Target) -> Found:
        if target.frame >= len(self.calib.outputs):
            return Found(None, Status.NO_REFERENCE, f"no reference: no frame {target.frame} in {self.describe}")
        frame = self.calib.outputs[target.frame]
        if target.name not in frame:
            return Found(None, Status.NO_REFERENCE, f"no reference: no output named {target.name!r} in {self.describe}")
        return fit_reference(frame[target.name], target.shape, None)


def golden_lookup(tensors: Mapping[str, np.ndarray], describe: str, layout: str | None = None) -> GoldenReference:
    """A :class:`GoldenReference` of golden arrays by layer name."""
    return GoldenReference(tensors, describe, layout)


def traces_lookup(traces: Traces, describe: str) -> TracesReference:
    """A :class:`TracesReference` of a second trace set, by dataId."""
    return TracesReference(traces, describe)


def calibration_golden(tensors: Mapping[str, np.ndarray], nframes: int, layout: str | None = None,
                       describe: str = "") -> GoldenReference:
    """A :func:`compare_calibration` reference from arrays holding, per output name, the
    frames on a leading axis."""
    return GoldenReference(tensors, describe, layout, frames=nframes)


# ---- which channels count ----------------------------------------------------------------

def _step(dtype: np.dtype | None, scale: float) -> float | None:
    """One quantization step (1 / TIDL's multiplier scale) of integer data, else None."""
    if dtype is None or np.dtype(dtype).kind not in "iu" or not 0 < scale < math.inf:
        return None
    return 1.0 / scale


def output_step(net: Network | None, data_id: int | None) -> float | None:
    """One quantization step of buffer ``data_id`` of ``net``: the step of the layer writing it,
    or, when that is a float DataConvert (TIDL dequantizing its integer result for the user), the
    step of the integer layer it converts (the float values are that layer's codes over its scale).
    None without a net, for a buffer no layer writes, or for a float of no integer layer."""
    if net is None or data_id is None:
        return None
    try:
        layer = net.layer_by_data_id(data_id)
        for _ in range(len(net.layers)):  # through chained converts, never round a cycle
            if layer.dtype is None or np.dtype(layer.dtype).kind != "f" or layer.type != _CONVERT \
                    or len(layer.inputs) != 1:
                break
            layer = net.layer_by_data_id(layer.inputs[0])
    except (KeyError, LookupError, ValueError):
        return None
    return _step(layer.dtype, float(layer.scale))


def quiet_channels(metrics: Metrics, min_snr_db: float, step: float | None,
                   channel_max: Mapping[int, float]) -> tuple[int, ...]:
    """The channels under ``min_snr_db`` that do not make a layer bad: those whose reference
    energy is under :data:`NEGLIGIBLE_SHARE` of the layer's, and, when the layer is quantized
    with ``step``, those whose largest |reference| (``channel_max[k]``) is under one step (TIDL
    can store nothing but zeros or one code there) or whose test is nowhere more than one step
    from the reference (what the layer's own rounding allows, and one code more). A NaN SNR
    always counts."""
    energy = metrics.channel_ref_energy
    errors = metrics.channel_max_abs
    total = math.fsum(energy)
    quiet = []
    for k, snr in enumerate(metrics.channel_snr_db):
        if snr >= min_snr_db or math.isnan(snr):
            continue
        negligible = total > 0 and k < len(energy) and energy[k] < NEGLIGIBLE_SHARE * total
        below_step = step is not None and k in channel_max and channel_max[k] < step
        within_step = step is not None and k < len(errors) and errors[k] <= step
        if negligible or below_step or within_step:
            quiet.append(k)
    return tuple(quiet)


def _suspects(metrics: Metrics, min_snr_db: float) -> list[int]:
    return [k for k, s in enumerate(metrics.channel_snr_db) if not s >= min_snr_db]


def _channel_max(x: Source, channels: list[int], axis: int = 1) -> dict[int, float]:
    """max |x| of each channel in ``channels`` (NaN when it holds a NaN): for one channel a
    slice, for more one max and one min reduction over all of ``x`` (no temporary array)."""
    if not channels:
        return {}
    data = x.codes if isinstance(x, Quantized) else np.asarray(x)
    if len(channels) == 1:
        data = np.take(data, channels[:1], axis)
        picked = [0]
    else:
        picked = channels
    others = tuple(a for a in range(data.ndim) if a != axis)
    hi = data.max(axis=others).astype(np.float64)
    lo = data.min(axis=others).astype(np.float64)
    if isinstance(x, Quantized):
        hi, lo = (hi - x.zero_point) / x.scale, (lo - x.zero_point) / x.scale
    with np.errstate(invalid="ignore"):
        peak = np.maximum(hi, -lo)  # NaN stays NaN
    return {k: float(peak[j]) for k, j in zip(channels, picked)}


def _picked(values: np.ndarray, channels: list[int]) -> dict[int, float]:
    return {k: float(values[k]) for k in channels}


def _judge(row: Row, min_snr_db: float, step: float | None,
           maxima: Callable[[list[int]], dict[int, float]]) -> None:
    """Which channels are quiet, and whether the row is bad. The largest |reference| is looked
    for only where it can matter: channels under the threshold, of a quantized layer (a step),
    whose energy is not already negligible."""
    m = row.metrics
    assert m is not None
    channel_max: dict[int, float] = {}
    if step is not None:
        energy = m.channel_ref_energy
        total = math.fsum(energy)
        errors = m.channel_max_abs
        suspects = [k for k in _suspects(m, min_snr_db) if not (total > 0 and energy[k] < NEGLIGIBLE_SHARE * total)
                    and not (k < len(errors) and errors[k] <= step) and not math.isnan(m.channel_snr_db[k])]
        channel_max = maxima(suspects) if suspects else {}
    row.quiet_channels = quiet_channels(m, min_snr_db, step, channel_max)
    worst = row.worst_counted[1]
    row.bad = not (m.snr_db >= min_snr_db) or (worst is not None and not (worst >= min_snr_db))


# ---- comparing ---------------------------------------------------------------------------

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


def _row(layer: Layer, status: Status, note: str = "", kind: str | None = None) -> Row:
    return Row(layer.index, layer.data_id, layer.name, layer.type, tuple(int(d) for d in layer.shape), status,
               kind=kind, note=note)


def compare_traces(traces: Traces, reference: Reference, *, min_snr_db: float = DEFAULT_MIN_SNR_DB,
                   test: str | None = None, histograms: bool = True) -> CompareReport:
    """Compare every traced layer of ``traces`` with ``reference``, in execution order; one
    layer in memory at a time. ``histograms``: also histogram the first bad layer (for the
    HTML report; nothing else shows them)."""
    report = CompareReport(reference.describe, test or str(traces.folder), min_snr_db)
    report.warnings.extend(f"{name}: {msg}" for name, msg in traces.problems.items())
    report.notes.extend(traces.notes)
    if traces.ignored:
        report.notes.append(f"{len(traces.ignored)} file(s) with no trace name ignored: "
                            f"{', '.join(traces.ignored[:6])}{' ...' if len(traces.ignored) > 6 else ''}")
    if isinstance(reference, TracesReference):  # the reference folder's problems are reported alike
        other = reference.traces
        report.warnings.extend(reference.warnings)
        report.notes.extend(f"reference {n}" for n in other.notes)
        if other.ignored:
            report.notes.append(f"reference: {len(other.ignored)} file(s) with no trace name ignored: "
                                f"{', '.join(other.ignored[:6])}{' ...' if len(other.ignored) > 6 else ''}")
    buffer = ReadBuffer()
    for data_id in traces:
        entry = traces.entry(data_id)
        layer = entry.layer
        if math.prod(layer.shape) == 0:
            report.rows.append(_row(layer, Status.EMPTY, f"empty: the layer has no element (shape {layer.shape})",
                                    entry.kind))
            continue
        found = reference.get(Target.of_layer(layer))
        ref = found.value
        if ref is None:
            report.rows.append(_row(layer, found.status, found.note, entry.kind))
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
        row = _row(layer, Status.COMPARED, found.note, entry.kind)
        row.metrics = acc.result()
        _judge(row, min_snr_db, _step(layer.dtype, float(layer.scale)),
               functools.partial(_channel_max, ref, axis=axis))
        if row.bad and histograms and not report.histograms:
            whole = tested.dequantize() if isinstance(tested, Quantized) else tested
            _add_histograms(report, row, _values(ref), whole, axis)
        report.rows.append(row)
        del ref, tested
    return report


def _values(x: Source) -> np.ndarray:
    return x.dequantize() if isinstance(x, Quantized) else np.asarray(x)


def _to_nhwc(x: Source) -> Source:
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
    c = row.worst_counted[0] if row.metrics is not None else None
    if c is not None and ref.shape[axis] > 1:
        report.histograms.append(_histograms(f"{label}: channel {c}", np.take(ref, c, axis), np.take(test, c, axis)))


def compare_calibration(calib: Calibration, reference: Reference, *, min_snr_db: float = DEFAULT_MIN_SNR_DB,
                        net: Network | None = None, histograms: bool = True) -> CompareReport:
    """One row per output of ``calib``: its metrics over all frames against ``reference``
    (asked per output name and frame). ``net`` (the subgraph's network, when at hand) gives
    each output's TI layer type and the layer's index in the net (a row's ``index``, as in
    trace reports: None without the net); ``histograms`` as for :func:`compare_traces`."""
    report = CompareReport(reference.describe, f"{calib.outputs_file.name} ({len(calib.outputs)} frame(s))",
                           min_snr_db)
    for i, t in enumerate(calib.descriptor.outputs):
        frames = [f[t.name] for f in calib.outputs]
        shape = tuple(int(d) for d in frames[0].shape)
        data_id = getattr(t, "data_id", None)
        kind = _layer_type(net, data_id)
        index = _layer_index(net, data_id)  # the net's layer index, never the output's position
        if math.prod(shape) == 0:
            report.rows.append(Row(index, data_id, t.name, kind, shape, Status.EMPTY,
                                   note=f"empty: the output has no element (shape {shape})"))
            continue
        axis = 1 if len(shape) == 4 else 3
        acc = Accumulator(shape[axis])
        notes = set()
        missing: Found | None = None
        first: tuple[np.ndarray, np.ndarray] | None = None
        element = t.element
        # an integer dump has its tensor's step; a float one (TIDL dequantized it) the step of the
        # net's layer whose codes it holds
        step = _step(None if element is None else element.dtype, float(t.scale)) or output_step(net, data_id)
        peak = np.zeros(shape[axis])  # max |reference| per channel (only needed with a step)
        for k, test in enumerate(frames):
            found = reference.get(Target(t.name, data_id, shape, i, k))
            ref = found.value
            if ref is None:
                missing = found
                break
            if found.note:
                notes.add(found.note)
            acc.add(ref, test, axis)
            values = _values(ref)
            if step is not None:
                np.maximum(peak, np.abs(values).max(axis=tuple(a for a in range(values.ndim) if a != axis)), out=peak)
            if first is None and histograms:
                first = (np.array(values), np.array(test))
        if missing is not None:
            report.rows.append(Row(index, data_id, t.name, kind, shape, missing.status, note=missing.note))
            continue
        row = Row(index, data_id, t.name, kind, shape, Status.COMPARED, acc.result(), "float", "; ".join(sorted(notes)))
        assert row.metrics is not None
        _judge(row, min_snr_db, step, functools.partial(_picked, peak))
        if row.bad and not report.histograms and first is not None:
            _add_histograms(report, row, first[0], first[1], axis)
        report.rows.append(row)
    return report


def _layer_index(net: Network | None, data_id: int | None) -> int | None:
    """The index in ``net`` (execution order) of the layer that writes ``data_id`` (None without one)."""
    if net is None or data_id is None:
        return None
    try:
        return net.layer_by_data_id(data_id).index
    except (KeyError, LookupError, ValueError):
        return None


def _layer_type(net: Network | None, data_id: int | None) -> str | None:
    """TI's type of the layer that writes ``data_id`` in ``net`` (None without one)."""
    if net is None or data_id is None:
        return None
    try:
        return net.layer_by_data_id(data_id).type
    except (KeyError, LookupError, ValueError):
        return None
