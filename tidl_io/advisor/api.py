"""``tidl_io.advise``: the advice from the paths a user has (see :mod:`tidl_io.advisor.model`
for the model, :mod:`tidl_io.advisor.source` for the measurements).

>>> advice = tidl_io.advise("model/artifacts", compare="compare.json", budget_ms=2)   # doctest: +SKIP
>>> print(advice.option_line)                                                      # doctest: +SKIP
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..artifacts.subgraphs import NET_SUFFIX, Subgraph, net_subgraphs, pick_subgraph
from ..base.check import check_int
from ..base.errors import ArgumentTypeError, FormatError, OptionError, PathNotFoundError
from .model import (
    MIN_SHARE,
    cost_factor,
    pick,
    rank_key,
    relative_noise,
    removable,
    rounding_share,
    snr_after_db,
)
from .report import Advice, Candidate, Skipped
from .source import Measured, compare_document, measured_rows, read_compare

__all__ = ["accepted_names", "advise"]

PathLike = str | os.PathLike[str]
DEFAULT_TOP = 10
_PRECISION_TYPES = ("TIDL_ConvolutionLayer", "TIDL_BatchNormLayer", "TIDL_PoolingLayer", "TIDL_EltWiseLayer")
_POOLING = "TIDL_PoolingLayer"
_MAX_POOLING = 0  # poolingType TIDL_MaxPooling (TI's eTIDL_PoolingType)
_PRECISION_TEXT = ("TIDL changes precision only at Convolution, BatchNorm, Pooling (not max) and EltWise layers")
_FLAG_ADDED = 10.0  # added noise this many times the own rounding noise: flagged


def accepted_names(art: Path, subgraph: str) -> tuple[set[str], str | None]:
    """(names TIDL accepts in a 16-bit list for subgraph ``subgraph`` of artifacts folder
    ``art``, the file they came from): ``layer_info.txt``'s names (TIDL's full output names),
    else the netLog's "Out Data Names" (which TI cuts to their last 50 characters)."""
    from ..net.layerinfo import read_layer_info  # start-up
    from ..net.netlog import load_netlog  # start-up

    for folder in (art, art / "tempDir"):
        info = folder / f"{subgraph}_tidl_net.bin.layer_info.txt"
        if info.is_file():
            return set(read_layer_info(info).names), str(info)
    for folder in (art / "tempDir", art):
        log = folder / f"{subgraph}_tidl_net.bin_netLog.txt"
        if log.is_file():
            return {x.name for x in load_netlog(log).layers}, str(log)
    return set(), None


def _subgraph(subs: list[Subgraph], subgraph: int | str | None, doc: Mapping[str, Any] | None,
              where: str) -> Subgraph:
    """The subgraph to advise on: by TIDL's number or name as every command takes
    ``--subgraph`` (:mod:`tidl_io.artifacts.subgraphs`); without one, the only subgraph, or
    the one whose net the compare report names."""
    if subgraph is None and len(subs) > 1:
        test = str(doc.get("test", "")) if doc is not None else ""
        hits = [s for s in subs if f"(net {s.name}{NET_SUFFIX})" in test]
        if len(hits) == 1:
            return hits[0]
    return pick_subgraph(subs, subgraph, where=where, purpose="to advise on")


def _check_number(value: Any, name: str, minimum: float, strict: bool) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ArgumentTypeError(f"advise: {name}: expected a number, found {type(value).__name__}")
    v = float(value)
    if not math.isfinite(v) or v < minimum or (strict and v == minimum):
        raise OptionError(f"advise: {name}: expected a finite number {'>' if strict else '>='} {minimum:g}, "
                          f"found {value!r}")
    return v


def _producers(net: Any) -> dict[int, tuple[int, ...]]:
    """layer index -> the layer indices producing its inputs."""
    by_data: dict[int, int] = {}
    for lay in net.layers:
        by_data.setdefault(lay.data_id, lay.index)
    return {lay.index: tuple(by_data[d] for d in lay.inputs if d in by_data and by_data[d] != lay.index)
            for lay in net.layers}


def _inherited(index: int, producers: Mapping[int, tuple[int, ...]], noise: Mapping[int, float]) -> float | None:
    """The largest relative noise among the nearest compared producers of layer ``index``
    (None when no producer was compared)."""
    seen: set[int] = set()
    todo = list(producers.get(index, ()))
    found: list[float] = []
    while todo:
        k = todo.pop()
        if k in seen:
            continue
        seen.add(k)
        if k in noise:
            found.append(noise[k])
        else:
            todo.extend(producers.get(k, ()))
    return max(found) if found else None


def _snr(n: float | None) -> float | None:
    if n is None:
        return None
    return math.inf if n <= 0 else -10.0 * math.log10(n)


def advise(artifacts: PathLike, *, compare: Any = None, traces: PathLike | None = None, golden: Any = None,
           inputs: Sequence[str] = (), params: PathLike | None = None, golden_layout: str | None = None,
           subgraph: int | str | None = None, perf: Any = None, budget_ms: float | None = None,
           top: int | None = None, factor: float | None = None) -> Advice:
    """Which layers of the compiled model in ``artifacts`` to put in 16 bits.

    The measurements: ``compare`` (a saved ``tidl-io compare --json`` file, its parsed
    document, or a report object with ``to_dict()``), or ``traces`` (a folder of TIDL traces)
    with ``golden`` (a golden ``.npz``, an ``.onnx``/``.tflite`` run on ``inputs`` with
    ``params``' preprocessing, or arrays by tensor name; ``golden_layout`` settles arrays
    whose shape reads both ways). The time: ``perf`` (a :class:`tidl_io.Performance`; None
    reads TI's simulation in ``artifacts`` when it is there; False: none).

    ``budget_ms``: the extra time the picked layers may cost together; ``top``: at most that
    many (default 10 without a budget; 0: no limit, every layer worth its time); ``factor``: a flat time factor at 16 bits instead of
    the cycle model. ``subgraph``: TIDL's number (its index in ``onnxrtMetaData.txt``, as
    ``compare`` and ``emulate`` take it) or its name, when ``artifacts`` has several.
    Raises :class:`~tidl_io.OptionError` for arguments that do not fit, the readers' errors
    (:class:`~tidl_io.PathError`, :class:`~tidl_io.FormatError`) for inputs that cannot be used."""
    from ..net import load_net  # start-up

    if (compare is None) == (traces is None):
        raise OptionError("advise: give the measurements once: compare= (a 'tidl-io compare --json' report) or "
                          "traces= with golden=")
    if traces is not None and golden is None:
        raise OptionError("advise: traces= needs golden= (a golden .npz, or the .onnx/.tflite with inputs=)")
    budget = _check_number(budget_ms, "budget_ms", 0.0, False)
    flat = _check_number(factor, "factor", 1.0, False)
    if top is not None:
        top = check_int(top, "advise", "top", 0)
    art, subs = net_subgraphs(artifacts, "advise")
    doc = None
    if compare is not None:
        if isinstance(compare, (str, os.PathLike)):
            source_name = str(compare)
            doc = read_compare(compare)
        else:
            source_name = "compare report"
            doc = compare.to_dict() if hasattr(compare, "to_dict") else compare
            if not isinstance(doc, Mapping):
                raise ArgumentTypeError(f"advise: compare: expected a path, a compare document or report, found "
                                        f"{type(compare).__name__}")
    sub = _subgraph(subs, subgraph, doc, str(artifacts))
    name = sub.name
    assert sub.net_file is not None  # net_subgraphs lists nets
    net = load_net(sub.net_file)
    if doc is None:
        assert traces is not None
        doc = compare_document(traces, net, golden=golden, inputs=inputs, params=params, golden_layout=golden_layout,
                               subgraph=subgraph)
        source_name = f"traces in {traces} against {golden if not isinstance(golden, Mapping) else 'golden arrays'}"
    rows = measured_rows(doc, source_name)
    notes: list[str] = []
    performance, perf_text = _performance(perf, art, net, notes)
    if budget is not None and performance is None:
        raise OptionError(f"advise: budget_ms needs the performance simulation of {art} "
                          f"(tempDir/{name}_tidl_net/tempDir_*.csv): none read")
    accepted, names_file = accepted_names(art, name)
    if names_file is None:
        notes.append(f"{art}: no layer_info.txt or netLog for subgraph {name}: names from the net, not checked")
    return _advice(str(artifacts), name, source_name, net, rows, performance, perf_text, accepted, names_file,
                   budget, top, flat, notes)


def _performance(perf: Any, art: Path, net: Any, notes: list[str]) -> tuple[Any, str | None]:
    """(the SubgraphPerf simulating ``net`` or None, its description); a FormatError for a
    simulation of another model (:func:`tidl_io.perf.match.net_simulation`, as compare --perf)."""
    from ..perf import Performance, load_perf  # start-up
    from ..perf.match import net_simulation  # start-up

    name = Path(str(net.source)).name.removesuffix(NET_SUFFIX)
    if perf is False:
        return None, None
    if perf is None:
        try:
            perf = load_perf(art)
        except PathNotFoundError:
            notes.append(f"{art}: no performance files: ranked by removable noise alone, cost unknown")
            return None, None
    if not isinstance(perf, Performance):
        raise ArgumentTypeError(f"advise: perf: expected a tidl_io.Performance, None or False, found "
                                f"{type(perf).__name__}")
    sg = net_simulation(perf, net)
    if sg is None:
        notes.append(f"{perf.source}: no subgraph {name}: ranked by removable noise alone")
        return None, None
    if all(lay.time_us is None for lay in sg.layers):
        notes.append(f"{perf.source}: no simulated times (no tempDir/{name}_tidl_net/tempDir_*.csv): ranked by "
                     "removable noise alone, cost unknown")
        return None, None
    return sg, f"{perf.source} (subgraph {sg.name})"


def _advice(artifacts: str, name: str, source_name: str, net: Any, rows: list[Measured], sg: Any,
            perf_text: str | None, accepted: set[str], names_file: str | None, budget: float | None,
            top: int | None, flat: float | None, notes: list[str]) -> Advice:
    from ..perf.match import simulated_layer  # start-up

    layers = {lay.index: lay for lay in net.layers}
    rows = _resolve(rows, net, source_name)
    noise = {r.index: relative_noise(r.snr_db) for r in rows if r.finite}
    producers = _producers(net)
    cands: list[Candidate] = []
    skipped: list[Skipped] = []
    for r in rows:
        lay = layers[r.index]
        why = _not_candidate(r, lay, accepted, names_file) or _max_pooling(lay, producers, layers)
        if why is not None:
            skipped.append(Skipped(r.index, lay.name or r.name, why))
            continue
        n = noise[r.index]
        n_in = _inherited(r.index, producers, noise)
        step = 1.0 / lay.scale if lay.scale and lay.scale > 0 and math.isfinite(lay.scale) else None
        share = rounding_share(step, r.mean_abs)
        added, g = removable(n, n_in or 0.0, share)
        pl = simulated_layer(sg, data_id=lay.data_id, name=lay.name) if sg is not None else None
        f, where = cost_factor(pl, flat)
        time = pl.time_us if pl is not None else None
        extra = None if time is None else time * (f - 1.0)
        own = []
        if share is not None and added > _FLAG_ADDED * share * n:
            what = (f"adds {added / (share * n):.0f}x the noise of its own 8-bit step" if share * n > 0
                    else "adds noise where its own 8-bit step adds none")
            own.append(f"{what}: 16 bits removes it only if it is quantization noise (weights, step); check its "
                       "range and saturation (tidl-io quant)")
        if r.saturated:
            own.append(f"{100 * r.saturated:.2f}% of its codes saturate: 16 bits keeps the range, not the clipping")
        if lay.type not in _PRECISION_TYPES:
            own.append(f"{_PRECISION_TEXT}; this one follows its producer/consumer, which may then turn 16-bit too")
        elif lay.type == _POOLING and "poolingType" not in lay.params:
            own.append(f"its pooling type is not in this release's net layout: {_PRECISION_TEXT}; if it is a max "
                       "pooling, put its producer in 16 bits instead")
        if sg is not None and time is None:
            own.append("no simulated time: never picked under a budget")
        cands.append(Candidate(r.index, r.data_id, lay.name, lay.type, r.snr_db, _snr(n_in), r.worst_channel,
                               r.worst_channel_snr_db, r.saturated, added, share, g, snr_after_db(n, g), time, f,
                               where, extra, None, tuple(own)))
    total_gain = sum(c.gain for c in cands)
    cands = [replace(c, share=c.gain / total_gain if total_gain > 0 else None) for c in cands]
    cands.sort(key=lambda c: (*rank_key(c.gain, c.extra_us), c.index))
    worth = [c.share is not None and c.share >= MIN_SHARE for c in cands]
    limit = (top or None) if top is not None else (DEFAULT_TOP if budget is None else None)
    chosen = pick([c.extra_us for c in cands], worth, None if budget is None else budget * 1000.0, limit)
    if not rows:
        notes.append(f"{source_name}: no compared layer: nothing to rank (see its unmatched rows)")
    total = sg.total.time_ms if sg is not None else None
    return Advice(artifacts, name, source_name, perf_text, tuple(cands), tuple(chosen), tuple(skipped), budget, top,
                  flat, total, tuple(notes))


def _resolve(rows: list[Measured], net: Any, source_name: str) -> list[Measured]:
    """Each row with ``index`` the net's layer: its own index when the names agree, else the
    layer producing its ``data_id`` when that one has its name (a calibration report numbers
    the outputs, not the layers); a FormatError when neither fits (a report of another model)."""
    layers = {lay.index: lay for lay in net.layers}
    by_data: dict[int, Any] = {}
    for lay in net.layers:
        by_data.setdefault(lay.data_id, lay)
    out = []
    for r in rows:
        lay = layers.get(r.index)
        if lay is not None and (r.name is None or lay.name is None or r.name == lay.name):
            out.append(r)
            continue
        other = by_data.get(r.data_id) if r.data_id is not None else None
        if other is not None and r.name is not None and other.name == r.name:
            out.append(replace(r, index=other.index))
            continue
        if lay is None:
            raise FormatError(source_name, f"layer {r.index} ({r.name!r}): the net {Path(net.source).name} has "
                                           f"{len(layers)} layers: the report is of another model")
        raise FormatError(source_name, f"layer {r.index} is {r.name!r} in the report but {lay.name!r} in "
                                       f"{Path(net.source).name}: the report is of another model")
    return out


def _max_pooling(lay: Any, producers: Mapping[int, tuple[int, ...]], layers: Mapping[int, Any]) -> str | None:
    """Why a max pooling layer is not a candidate (its precision follows its producer's), or None."""
    if lay.type != _POOLING or lay.params.get("poolingType") != _MAX_POOLING:
        return None
    names = [repr(layers[k].name) if layers[k].name else f"layer {k}" for k in producers.get(lay.index, ())]
    instead = f"put its producer {' or '.join(names)} in 16 bits instead" if names else "its producer decides"
    return f"a max pooling keeps its input's precision ({_PRECISION_TEXT}): {instead}"


def _not_candidate(r: Measured, lay: Any, accepted: set[str], names_file: str | None) -> str | None:
    """Why a compared layer is not a candidate, or None."""
    if not r.finite or not math.isfinite(relative_noise(r.snr_db)):
        return "its SNR is not finite (-inf or NaN): not a quantization effect to rank; look at it first"
    if r.snr_db is None:
        return "identical to the reference: no noise to remove"
    if lay.type == "TIDL_DataLayer":
        return "a data layer (the net's input or output): its precision is set by its neighbour and tensor_bits"
    dtype = lay.dtype
    if dtype is None or dtype.kind == "f":
        return "its output is not integer (float or unknown element type): no 8-bit step"
    if dtype.itemsize >= 2:
        return "already 16-bit"
    if lay.name is None:
        return "the net has no name for it (layer_info.txt missing): TIDL's list needs one"
    if "," in lay.name:
        return "its name has a comma: TIDL splits the list at commas"
    if names_file is not None and lay.name not in accepted:
        return f"its name is not in {Path(names_file).name}: TIDL would not accept it"
    return None
