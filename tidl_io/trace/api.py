"""``tidl_io.compare_traces`` and ``tidl_io.compare_calibration``: a comparison from the
paths a user has, as a :class:`~tidl_io.trace.report.CompareReport` (``to_dict()``,
``to_text()``, ``to_html()``). ``tidl-io compare`` calls exactly these and prints the report.

>>> report = tidl_io.compare_traces("traces/", artifacts="model/artifacts",
...                                 golden="golden.npz")                     # doctest: +SKIP
>>> report.first_bad, report.ok                                             # doctest: +SKIP

Subgraphs are named TIDL's way: the number is the subgraph's index in ``onnxrtMetaData.txt``
(the ``<N>`` of ``tidl_trace_subgraph_<N>_...``; without that file, the position in the
folder's order by name), or the subgraph's name (``625`` for ``625_tidl_io_1.bin``): the one
resolver of :mod:`tidl_io.artifacts.subgraphs` (``Subgraph``, ``subgraphs``, ``pick_subgraph``,
re-exported here).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from ..artifacts.folder import find_artifacts
from ..artifacts.subgraphs import Subgraph, pick_subgraph, subgraphs
from ..base.check import check_flag, check_int, check_path, wrong_kind
from ..base.errors import FormatError, OptionError, PathNotFoundError, TidlIoError
from ..net import Network
from ..perf import load_perf
from ..perf.match import net_simulation, simulated_layer
from .calibration import Calibration, load_calibration
from .compare import (
    DEFAULT_MIN_SNR_DB,
    Found,
    GoldenReference,
    Reference,
    Target,
    TracesReference,
    fit_reference,
)
from .compare import compare_calibration as _compare_calibration
from .compare import compare_traces as _compare_traces
from .golden import fit_input, load_model_inputs, model_inputs, read_meta, run_golden
from .load import load_traces
from .names import parse_trace_name
from .npz import NpzArrays
from .report import CompareReport, Status

__all__ = ["ModelRunReference", "Subgraph", "compare_calibration", "compare_traces", "golden_tensors", "pick_subgraph",
           "subgraphs"]

MODELS = (".onnx", ".tflite")
PathLike = str | os.PathLike[str]


def _subgraph_value(value: object, func: str) -> int | str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    raise wrong_kind(func, "subgraph", value, "TIDL's subgraph number (int), its name (str) or None")


def _path_or_none(value: object, func: str, arg: str) -> str | None:
    return None if value is None else check_path(value, func, arg)


def _layout(value: object, func: str) -> str | None:
    """``golden_layout``: None, or "NCHW" / "NHWC" in any case."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise wrong_kind(func, "golden_layout", value, "'NCHW', 'NHWC' (any case) or None")
    if value.upper() not in ("NCHW", "NHWC"):
        raise OptionError(f"{func}: golden_layout must be one of 'NCHW', 'NHWC' (any case), found {value!r}")
    return value.upper()


def _golden(value: object, func: str, required: bool) -> PathLike | Mapping[str, np.ndarray] | None:
    if value is None and not required or isinstance(value, Mapping):
        return value
    if isinstance(value, (str, os.PathLike)):
        return check_path(value, func, "golden")
    raise wrong_kind(func, "golden", value, "a golden .npz or .onnx/.tflite path, or a mapping name -> array"
                     + ("" if required else ", or None"))


def _threshold(value: object, func: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise wrong_kind(func, "min_snr_db", value, "a number of dB")
    if not math.isfinite(float(value)):
        raise OptionError(f"{func}: min_snr_db must be a finite number of dB, found {value!r}")
    return float(value)


def _inputs(value: object, func: str) -> tuple[str, ...]:
    if isinstance(value, (list, tuple)) and all(isinstance(v, (str, os.PathLike)) for v in value):
        return tuple(os.fspath(v) for v in value)
    raise wrong_kind(func, "inputs", value, "a list of input files ([NAME=]X: .npy, .npz or pictures)")


def _trace_subgraphs(folder: Path) -> list[int]:
    """The subgraph numbers in the trace names of ``folder`` (none when it cannot be listed)."""
    try:
        names = [p.name for p in folder.iterdir()]
    except OSError:
        return []
    found = (parse_trace_name(n) for n in names)
    return sorted({t.subgraph for t in found if t is not None and t.subgraph is not None})


def _net_of(arts_path: PathLike, subgraph: int | str | None, traces: Path) -> tuple[Network, int | None]:
    """The network of the traces' subgraph, and the number to pick traces by (None: any)."""
    from ..net import load_net  # start-up

    arts = find_artifacts(arts_path)
    subs = subgraphs(arts)
    seen = _trace_subgraphs(traces)
    sub = pick_subgraph(subs, subgraph, seen, str(arts_path))
    if sub.net_file is None:
        io = Path(sub.io_file or arts_path)
        raise FormatError(str(io), f"no net file beside {io.name} (subgraph {sub}): traces need the net")
    pick = sub.number if subgraph is not None else None  # else the folder must hold the traces of one run
    return load_net(sub.net_file), pick


# ---- golden sources ----------------------------------------------------------------------

def golden_tensors(golden: PathLike | Mapping[str, np.ndarray], inputs: Sequence[str], params: PathLike | None,
                    ) -> tuple[Mapping[str, np.ndarray], str]:
    """(name -> array, description) of a golden .npz, a model run on ``inputs``, or arrays."""
    if isinstance(golden, Mapping):
        return golden, "golden arrays"
    g = Path(golden)
    if g.suffix.lower() in MODELS:
        if not inputs:
            raise OptionError(f"golden {g.name}: a model needs inputs (--input X)")
        run = run_golden(g, load_model_inputs(g, inputs, params=params))
        return run.tensors, f"golden run of {g.name} ({run.layout}, in memory)"
    z = NpzArrays(g)
    meta = read_meta(z)
    what = f" of {meta['model']} ({meta.get('layout')})" if meta.get("model") else ""
    return z, f"{g.name}{what}"


class ModelRunReference:
    """The float model run on each calibration frame's inputs (the golden run, frame by frame:
    one run in memory at a time)."""

    def __init__(self, model: PathLike, calib: Calibration, layout: str | None = None) -> None:
        self.model = Path(model)
        self.calib = calib
        self.layout = layout
        self.describe = f"{self.model.name} run on the calibration inputs"
        self._inputs = {i.name: i for i in model_inputs(self.model)}
        self._model_layout = "NHWC" if self.model.suffix.lower() == ".tflite" else "NCHW"
        self._runs: dict[int, dict[str, np.ndarray]] = {}

    def get(self, target: Target) -> Found:
        frame = target.frame
        if frame not in self._runs:
            self._runs.clear()
            feeds = {}
            for k, v in self.calib.inputs[frame].items():
                inp = self._inputs.get(k)
                feeds[k] = v if inp is None else fit_input(v, inp, self._model_layout, f"calibration input {k!r}", [])
            self._runs[frame] = run_golden(self.model, feeds).tensors
        tensors = self._runs[frame]
        if target.name not in tensors:
            return Found(None, Status.NO_REFERENCE, f"no reference: {self.model.name} has no tensor named "
                         f"{target.name!r}")
        return fit_reference(np.asarray(tensors[target.name]), target.shape, self.layout)


# ---- the public calls --------------------------------------------------------------------

def compare_traces(traces: PathLike, *, artifacts: PathLike, golden: PathLike | Mapping[str, np.ndarray] | None = None,
                   ref: PathLike | None = None, inputs: Sequence[str] = (), params: PathLike | None = None,
                   golden_layout: str | None = None, subgraph: int | str | None = None, core: int | None = None,
                   min_snr_db: float = DEFAULT_MIN_SNR_DB, histograms: bool = False,
                   perf: PathLike | bool | None = None) -> CompareReport:
    """Compare the TIDL layer traces in folder ``traces`` (of the net in ``artifacts``) with a
    float reference, layer by layer: ``golden`` (a golden ``.npz``, an ``.onnx``/``.tflite``
    run in memory on ``inputs`` with ``params``' preprocessing, or arrays by tensor name,
    matched by layer_info name) or ``ref`` (a second trace folder of the same net, matched by
    dataId). ``subgraph``: TIDL's number or the subgraph's name (see the module text);
    ``core``: the ``C7X_<n>_`` core; ``golden_layout`` settles arrays whose shape reads as
    NCHW and NHWC; ``histograms``: histogram the first bad layer (for ``to_html()``);
    ``perf``: each layer's simulated time beside its SNR, from TI's performance simulation
    (:func:`tidl_io.load_perf`) in ``artifacts`` when it is there (None), in the folder given,
    or none (False), so the costliest accurate and the cheapest inaccurate layers show together.

    Raises :class:`~tidl_io.OptionError` for a missing or doubled reference or an unknown
    subgraph, and the readers' errors (:class:`~tidl_io.PathError`, :class:`~tidl_io.FormatError`)
    for inputs that cannot be compared."""
    func = "compare_traces"
    folder = Path(check_path(traces, func, "traces"))
    artifacts = check_path(artifacts, func, "artifacts")
    golden = _golden(golden, func, False)
    ref = _path_or_none(ref, func, "ref")
    inputs = _inputs(inputs, func)
    params = _path_or_none(params, func, "params")
    golden_layout = _layout(golden_layout, func)
    subgraph = _subgraph_value(subgraph, func)
    if core is not None:
        core = check_int(core, func, "core", 0, "a core number (int) or None")
    min_snr_db = _threshold(min_snr_db, func)
    histograms = check_flag(histograms, func, "histograms")
    if perf is not None and not isinstance(perf, bool):
        perf = check_path(perf, func, "perf")
    if (golden is None) == (ref is None):
        raise OptionError(f"{func}: give one reference: golden= (an .npz, a model with inputs=, or arrays) "
                          "or ref= (a second trace folder)")
    net, pick = _net_of(artifacts, subgraph, folder)
    tested = load_traces(folder, net, subgraph=pick, core=core)
    reference: Reference
    if ref is not None:
        reference = TracesReference(load_traces(ref, net, subgraph=pick, core=core), f"traces in {ref}")
    else:
        assert golden is not None
        tensors, describe = golden_tensors(golden, inputs, params)
        reference = GoldenReference(tensors, describe, golden_layout)
    report = _compare_traces(tested, reference, min_snr_db=min_snr_db, histograms=histograms,
                             test=f"traces in {traces} (net {Path(net.source).name})")
    if perf is not False:
        add_times(report, artifacts if perf is None or perf is True else perf, net, required=perf is not None)
    return report


def add_times(report: CompareReport, folder: PathLike, net: Network, *, required: bool) -> None:
    """Each row's simulated time (``Row.time_us``) from TI's performance simulation in
    ``folder``: the simulation of ``net``'s subgraph (:func:`tidl_io.perf.match.net_simulation`:
    a simulation whose layers are not the net's is a :class:`~tidl_io.FormatError`), each row
    joined to the layer producing its dataId, names agreeing (:func:`~tidl_io.perf.match.simulated_layer`),
    never by its position. A folder without a simulation is no error unless ``required``."""
    try:
        performance = load_perf(folder)
    except PathNotFoundError:
        if required:
            raise
        return
    sg = net_simulation(performance, net)
    if sg is None or all(la.time_us is None for la in sg.layers):
        if required:
            raise PathNotFoundError(str(folder), "no performance simulation for this net (TI's compile writes "
                                                 "tempDir/<subgraph>_tidl_net/*.csv)")
        return
    for row in report.rows:
        lay = simulated_layer(sg, data_id=row.data_id, name=row.name)
        row.time_us = None if lay is None else lay.time_us
    report.perf = f"{performance.source} (subgraph {sg.name})"


def compare_calibration(artifacts: PathLike, *, golden: PathLike | Mapping[str, np.ndarray],
                        subgraph: int | str | None = None, golden_layout: str | None = None,
                        min_snr_db: float = DEFAULT_MIN_SNR_DB, histograms: bool = False) -> CompareReport:
    """Compare the calibration dumps of ``artifacts`` (TIDL's fixed-point outputs of each
    calibration image) with ``golden``: an ``.onnx``/``.tflite`` run on the calibration
    inputs, or an ``.npz`` (or arrays) holding each output's frames on a leading axis.
    ``subgraph``: TIDL's number or the subgraph's name, needed when several subgraphs have
    dumps. Raises as :func:`compare_traces` does."""
    from ..net import load_net  # start-up

    func = "compare_calibration"
    artifacts = check_path(artifacts, func, "artifacts")
    checked = _golden(golden, func, True)
    assert checked is not None
    golden = checked
    subgraph = _subgraph_value(subgraph, func)
    golden_layout = _layout(golden_layout, func)
    min_snr_db = _threshold(min_snr_db, func)
    histograms = check_flag(histograms, func, "histograms")
    arts = find_artifacts(artifacts)
    name = None
    subs = subgraphs(arts)
    if subgraph is not None:
        name = pick_subgraph(subs, subgraph, (), str(artifacts)).name
    calib = load_calibration(artifacts, name)
    sub = next((s for s in subs if s.name == calib.subgraph), None)
    net = None
    if sub is not None and sub.net_file is not None:
        try:  # only for the outputs' layer types: a net that cannot be read leaves them unknown
            net = load_net(sub.net_file)
        except TidlIoError:
            net = None
    reference: Reference
    if not isinstance(golden, Mapping) and Path(golden).suffix.lower() in MODELS:
        reference = ModelRunReference(golden, calib, golden_layout)
    else:
        tensors, describe = golden_tensors(golden, (), None)
        reference = GoldenReference(tensors, describe, golden_layout, frames=len(calib.outputs))
    return _compare_calibration(calib, reference, min_snr_db=min_snr_db, net=net, histograms=histograms)
