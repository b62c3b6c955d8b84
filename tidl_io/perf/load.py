"""Finding TI's performance files in a model or artifacts folder and joining them per
subgraph, layer by layer: :func:`load_perf`. The readers are pure functions of the text
(:mod:`.simulation`, :mod:`.bufinfo`, :mod:`.board`; the netLog and layer_info.txt are read by
:mod:`tidl_io.net.netlog` and :mod:`tidl_io.net.layerinfo`); only this module opens perf's files.

Where TI leaves them (``ART`` is the artifacts folder, the one holding ``tempDir/``):

- ``ART/tempDir/<sg>_tidl_net/tempDir_<sg>_tidl_net_*.csv``: the performance simulation;
- ``ART/tempDir/<sg>_tidl_net/bufinfolog_0.csv`` (10.x) or ``bufinfolog.csv`` (8.x, 9.x);
- ``ART/tempDir/<sg>_tidl_net.bin_netLog.txt`` (or in ``ART``): MACs, names;
- ``ART/<sg>_tidl_net.bin`` (the net: type, name, dataId, shape), else
  ``<sg>_tidl_net.bin.layer_info.txt`` beside it or in ``tempDir/`` (names, dataIds).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from ..base.check import check_path, require_folder
from ..base.errors import (
    ArgumentTypeError,
    FormatError,
    OptionError,
    PathError,
    PathNotFoundError,
    TidlIoError,
)
from ..base.numtext import natural_key
from ..base.text import escape
from ..base.tilog import located, read_text
from ..net import load_net
from ..net.layerinfo import read_layer_info
from ..net.model import UNNAMED_TYPE
from ..net.netlog import NetLogLayer, load_netlog
from .board import BoardLayer, BoardRun, board_subgraph, parse_board
from .bufinfo import BufInfoLayer, parse_bufinfolog
from .model import BYTES_PER_TI_MB, BoardCycles, LayerPerf, SubgraphPerf, Totals, board_mean
from .performance import Performance
from .simulation import SimLayer, Simulation, is_simulation_name, parse_simulation

__all__ = ["load_perf"]

_NETLOG = "_tidl_net.bin_netLog.txt"
_INFO = "_tidl_net.bin.layer_info.txt"
_WHAT = ("TI's performance files (tempDir/<sg>_tidl_net/tempDir_*.csv: the simulation, bufinfolog(_0).csv, "
         "<sg>_tidl_net.bin_netLog.txt)")


def _art_folders(root: Path) -> tuple[Path, Path | None]:
    """(artifacts folder, its tempDir or None): ``root`` itself, ``root/artifacts``, or the
    parent of ``root`` when ``root`` is a tempDir."""
    for art in (root, root / "artifacts"):
        if (art / "tempDir").is_dir():
            return art, art / "tempDir"
    if root.name == "tempDir":
        return root.parent, root
    return (root / "artifacts" if (root / "artifacts").is_dir() else root), None


def _subgraph_names(art: Path, temp: Path | None) -> list[str]:
    names: set[str] = set()
    for folder in (f for f in (temp, art) if f is not None):
        for p in folder.iterdir():
            if p.name.endswith("_tidl_net") and p.is_dir():
                names.add(p.name[: -len("_tidl_net")])
            elif p.name.endswith(_NETLOG) and p.is_file():
                names.add(p.name[: -len(_NETLOG)])
    return sorted(names, key=natural_key)


def _first_file(*candidates: Path | None) -> Path | None:
    return next((p for p in candidates if p is not None and p.is_file()), None)


class _Files:
    """Where each of one subgraph's files is (None: not there)."""

    def __init__(self, sg: str, art: Path, temp: Path | None, notes: list[str]):
        folder = temp / f"{sg}_tidl_net" if temp is not None else None
        sims = sorted(p for p in folder.iterdir() if is_simulation_name(p.name) and p.is_file()) \
            if folder is not None and folder.is_dir() else []
        if len(sims) > 1:
            notes.append(f"{sg}: {len(sims)} simulations; read {sims[0].name}")
        self.simulation = sims[0] if sims else None
        self.bufinfo = _first_file(*(folder / n if folder is not None else None
                                     for n in ("bufinfolog_0.csv", "bufinfolog.csv")))
        self.netlog = _first_file(temp / (sg + _NETLOG) if temp is not None else None, art / (sg + _NETLOG))
        self.net = _first_file(art / f"{sg}_tidl_net.bin")
        self.layer_info = _first_file(art / (sg + _INFO), temp / (sg + _INFO) if temp is not None else None)

    def any(self) -> bool:
        return any(p is not None for p in (self.simulation, self.bufinfo, self.netlog))


def _config(sim: Simulation | None) -> dict[str, Any]:
    keys = ("release", "cpu_mhz", "ddr_mhz", "ddr_efficiency", "cores", "msmc_kb", "l2_kb", "width", "height")
    if sim is None:
        return {**dict.fromkeys(keys), "parameters": {}, "file_name": {}}
    p, n = sim.parameters, sim.name_config

    def pick(line_key: str, name_key: str) -> Any:
        return p.get(line_key, n.get(name_key))

    return {"release": sim.summary.release, "cpu_mhz": pick("CPUFREQ_MHZ", "FRQ"), "ddr_mhz": pick("DDRFREQ_MHZ", "DDR"),
            "ddr_efficiency": pick("DDR_EFFICIENCY", "DDRE"), "cores": pick("NUMCORES", "DSP"),
            "msmc_kb": p.get("MSMCSIZE_KB"), "l2_kb": p.get("L2MEMSIZE_KB"), "width": pick("INWIDTH", "width"),
            "height": pick("INHEIGHT", "height"), "parameters": dict(p), "file_name": dict(n)}


def _exact(value: Decimal | None, scale: int = 1) -> float | None:
    """TI's decimal as the nearest float, divided by ``scale`` exactly first (367462.84 us ->
    367.46284 ms, the float a YAML or JSON reader gives for that text)."""
    return None if value is None else float(value / scale)


def _check_same_layers(sg: str, sim: Simulation | None, others: list[tuple[str, dict[int, str]]]) -> None:
    """The net, netLog and simulation of one subgraph must be of one compilation."""
    if sim is None:
        return
    mine = {lay.index: lay.type for lay in sim.layers}
    for what, theirs in others:
        if set(theirs) != set(mine):
            extra = sorted(set(mine) ^ set(theirs))[:5]
            raise FormatError(sim.source, f"{sg}: the simulation has {len(mine)} layers, the {what} {len(theirs)} "
                                          f"(layers {', '.join(map(str, extra))} differ): files of two compilations?")
        for index, kind in theirs.items():
            if kind != mine[index] and not kind.startswith(UNNAMED_TYPE):  # a code the net schema has no name for
                raise FormatError(sim.source, f"{sg}: layer {index} is a {mine[index]} in the simulation, a {kind} "
                                              f"in the {what}: files of two compilations?")


def _subgraph(sg: str, files: _Files, board: BoardRun | None, notes: list[str]) -> SubgraphPerf:
    sim = parse_simulation(read_text(str(files.simulation), "a TIDL performance simulation .csv"),
                           str(files.simulation)) if files.simulation else None
    buf = parse_bufinfolog(read_text(str(files.bufinfo), "a TIDL bufinfolog .csv"),
                           str(files.bufinfo)) if files.bufinfo else None
    log = load_netlog(files.netlog) if files.netlog else None
    net = _load_net(files, notes, sg)
    info: dict[int, tuple[int, str]] = {}
    if net is None and files.layer_info is not None:
        info = _layer_names(files.layer_info, sg, notes)
    others: list[tuple[str, dict[int, str]]] = []
    if net is not None:
        others.append((f"net {Path(str(net.source)).name}", {lay.index: lay.type for lay in net.layers}))
    if log is not None:
        others.append((f"netLog {Path(log.source).name}", {lay.index: lay.type for lay in log.layers}))
    _check_same_layers(sg, sim, others)
    if sim is not None and buf is not None and {b.index for b in buf.layers} != {s.index for s in sim.layers}:
        notes.append(f"{sg}: the bufinfolog's layers are not the simulation's: placement from the simulation only")
        buf = None
    sim_rows = {s.index: s for s in sim.layers} if sim is not None else {}
    buf_rows = {b.index: b for b in buf.layers} if buf is not None else {}
    log_rows = {g.index: g for g in log.layers} if log is not None else {}
    net_rows = {lay.index: lay for lay in net.layers} if net is not None else {}
    order = ([s.index for s in sim.layers] if sim is not None else [b.index for b in buf.layers] if buf is not None
             else [g.index for g in log.layers] if log is not None else [])
    config = _config(sim)
    layers = [_layer(i, pos, sim_rows.get(i), buf_rows.get(i), log_rows.get(i), net_rows.get(i), info.get(i))
              for pos, i in enumerate(order)]
    if board is not None:
        layers = _with_board(sg, layers, board, config.get("cpu_mhz"), notes)
    if sim is None:
        notes.append(f"{sg}: no performance simulation (tempDir/{sg}_tidl_net/tempDir_*.csv): times are null")
    total = Totals(time_ms=_exact(sim.summary.time_us, 1000) if sim else None,
                   ddr_mb=_exact(sim.summary.ddr_mb) if sim else None,
                   ddr_read_mb=_exact(sim.summary.ddr_read_mb) if sim else None,
                   ddr_write_mb=_exact(sim.summary.ddr_write_mb) if sim else None,
                   msmc_mb=_exact(sim.summary.msmc_mb) if sim else None,
                   gmacs=_exact(log.total_gmacs) if log else None)
    sources = {k: str(v) for k, v in (("simulation", files.simulation), ("bufinfolog", files.bufinfo),
                                      ("netlog", files.netlog), ("net", files.net if net is not None else None),
                                      ("layer_info", files.layer_info if info else None),
                                      ("board", board.source if board else None)) if v is not None}
    return SubgraphPerf(name=sg, config=config, total=total, layers=tuple(layers), sources=sources,
                        board_total_cycles=board_mean([b.total_cycles for b in board.blocks]) if board else None,
                        board_runs=len(board.blocks) if board else None)


def _load_net(files: _Files, notes: list[str], sg: str) -> Any:
    if files.net is None:
        return None
    try:
        return load_net(files.net)
    except TidlIoError as exc:
        notes.append(f"{sg}: the net could not be read ({exc}); names from layer_info.txt / the netLog")
        return None


def _layer_names(path: Path, sg: str, notes: list[str]) -> dict[int, tuple[int, str]]:
    """``{layerNum: (dataId, name)}`` of a layer_info.txt; one that cannot be read gives no
    names and a note saying why (the numbers do not need names)."""
    try:
        return {x.index: (x.data_id, x.name) for x in read_layer_info(path)}
    except (FormatError, PathError) as exc:
        notes.append(f"{sg}: layer names not used: {exc}")
        return {}


def _layer(index: int, position: int, s: SimLayer | None, b: BufInfoLayer | None, g: NetLogLayer | None,
           n: Any, info: tuple[int, str] | None) -> LayerPerf:
    shape: tuple[int, ...] | None
    if n is not None:
        kind, name, data_id, shape = n.type, n.name, n.data_id, tuple(n.shape)
    else:
        kind = s.type if s is not None else g.type if g is not None else b.type if b is not None else None
        # an output data layer: layer_info names it after buffer 0, the netLog after what it consumes
        if g is not None and (info is None or g.num_out < 0):
            name, data_id = g.name, (info[0] if info is not None else g.data_id)
        elif info is not None:
            data_id, name = info
        else:
            name, data_id = None, None
        shape = g.shape if g is not None else None
    memory = s.memory if s is not None else b.memory() if b is not None else \
        {"in": (None, None), "out": (None, None), "weights": (None, None)}
    return LayerPerf(index=index, position=position, type=kind, name=name, data_id=data_id, shape=shape,
                     macs=g.macs if g is not None else None, time_us=s.time_us if s else None,
                     cycles=s.cycles if s else None, kernel_cycles=s.kernel_cycles if s else None,
                     core_loop_cycles=s.core_loop_cycles if s else None, setup_cycles=s.setup_cycles if s else None,
                     dma_cycles=s.dma_cycles if s else None, io_cycles=s.io_cycles if s else None,
                     ddr_read_mb=s.ddr_read_mb if s else None, ddr_write_mb=s.ddr_write_mb if s else None,
                     memory=dict(memory), buffers=dict(b.buffers) if b is not None else None)


def _ti_mb(nbytes: float | None) -> float | None:
    return None if nbytes is None else nbytes / BYTES_PER_TI_MB


def _mean(rows: Sequence[BoardLayer], attr: str) -> int | float | None:
    """:func:`~.model.board_mean` of one count over a layer's rows (None: a column the release does not write)."""
    values = [getattr(m, attr) for m in rows]
    return None if values[0] is None else board_mean(values)


def _check_board_of(sg: str, layers: list[LayerPerf], board: BoardRun) -> None:
    """A located :class:`~tidl_io.FormatError` for the first row (of the first run) that cannot
    be of this subgraph: a ``Layer`` (execution position) past its layers, or on a data layer,
    which TIDL-RT never executes (a log of another model)."""
    for row in board.blocks[0].layers:
        if row.exec_id >= len(layers):
            span = f" (0..{len(layers) - 1})" if layers else ""
            why = f"Layer {row.exec_id}: {sg} has {len(layers)} layers{span}"
        elif layers[row.exec_id].is_data:
            lay = layers[row.exec_id]
            why = f"Layer {row.exec_id} is {sg}'s layer {lay.index}, a {lay.type}: TIDL-RT executes no data layer"
        else:
            continue
        raise located(board.source, row.line, f"{why}: a board log of another model?", name="Layer")


def _with_board(sg: str, layers: list[LayerPerf], board: BoardRun, cpu_mhz: Any, notes: list[str]) -> list[LayerPerf]:
    """Each measured layer (every run's row: their mean, min and max) on the layer at its
    execution position (TIDL-RT's layerExecId); a row that cannot be of this subgraph is an
    error (:func:`_check_board_of`)."""
    _check_board_of(sg, layers, board)
    rows = board.by_layer()
    out = []
    missing = []
    for lay in layers:
        ms = rows.pop(lay.position, None)
        if ms is None:
            if not lay.is_data:
                missing.append(lay.position)
            out.append(lay)
            continue

        cycles = board_mean([m.cycles for m in ms])
        measured = BoardCycles(exec_id=ms[0].exec_id, cycles=cycles, kernel_cycles=_mean(ms, "kernel_cycles"),
                               core_loop_cycles=_mean(ms, "core_loop_cycles"), setup_cycles=_mean(ms, "setup_cycles"),
                               dma_cycles=_mean(ms, "dma_cycles"), ddr_read_mb=_ti_mb(_mean(ms, "ddr_read_bytes")),
                               ddr_write_mb=_ti_mb(_mean(ms, "ddr_write_bytes")),
                               time_us=cycles / cpu_mhz if isinstance(cpu_mhz, (int, float)) and cpu_mhz > 0 else None,
                               ratio=cycles / lay.cycles if lay.cycles else None, runs=len(ms),
                               cycles_min=min(m.cycles for m in ms), cycles_max=max(m.cycles for m in ms))
        out.append(dataclasses.replace(lay, board=measured))
    executed = sum(1 for lay in layers if not lay.is_data)
    if 2 * len(missing) > executed:  # TIDL-RT logs every layer it executes: a few rows are another model's log
        raise FormatError(board.source, f"rows for {executed - len(missing)} of the {executed} layers {sg} "
                                        f"executes: a board log of another model?")
    if missing:
        notes.append(f"{sg}: {len(missing)} executed layer(s) without a board row "
                     f"(exec {', '.join(map(str, missing[:8]))}{', ...' if len(missing) > 8 else ''})")
    if len(board.blocks) > 1:
        notes.append(f"{sg}: the board log holds {len(board.blocks)} runs (blocks ending in 'Sum of Layer Cycles'): "
                     "each layer's board cycles are their mean (min and max in --json)")
    return out


_SUBGRAPH_N = re.compile(r"subgraph_(\d{1,6})")


def _log_number(names: list[str], position: int) -> int:
    """N of the board log TIDL-RT writes for ``names[position]``: the N of ``subgraph_<N>``,
    else (``"625"``: a subgraph named after its output) its position."""
    numbered = [_SUBGRAPH_N.fullmatch(x) for x in names]
    if any(numbered):
        m = numbered[position]
        return int(m.group(1)) if m is not None else -1
    return position


def _board_subgraph(path: str, names: list[str]) -> str:
    """The subgraph a board log measures: N of its name ``tidl_trace_subgraph_<N>_perf.csv``
    (:func:`_log_number`); any name for a model of one subgraph. An
    :class:`~tidl_io.OptionError` in one line otherwise."""
    n = board_subgraph(path)
    for i, name in enumerate(names):
        if n is not None and _log_number(names, i) == n:
            return name
    if n is None and len(names) == 1:
        return names[0]
    logs = ", ".join(f"{x}: tidl_trace_subgraph_{_log_number(names, i)}_perf.csv" for i, x in enumerate(names)
                     if _log_number(names, i) >= 0)
    has = f"{len(names)} subgraph{'s' if len(names) > 1 else ''} ({escape(logs)})"
    if n is not None:
        raise OptionError(f"load_perf: board: {escape(path)}: a log of subgraph {n}, but the model has {has}")
    raise OptionError(f"load_perf: board: {escape(path)}: which subgraph does it measure? The model has {has}: "
                      "name the log as TIDL-RT does")


def _boards(paths: Sequence[str], names: list[str]) -> dict[str, BoardRun]:
    out: dict[str, BoardRun] = {}
    for p in paths:
        sg = _board_subgraph(p, names)
        if sg in out:
            raise OptionError(f"load_perf: board: two files for {sg}: {out[sg].source} and {escape(p)}")
        out[sg] = parse_board(read_text(p, "TIDL-RT's tidl_trace_subgraph_<N>_perf.csv"), p)
    return out


def load_perf(path: str | os.PathLike[str], *, board: Sequence[str | os.PathLike[str]] = ()) -> Performance:
    """Where the time goes in the model or artifacts folder ``path``: per subgraph, TI's
    performance simulation, bufinfolog and netLog joined by layer number with the net (or
    ``layer_info.txt`` names), plus the cycles measured on the board in the ``board`` files
    (``tidl_trace_subgraph_<N>_perf.csv``, matched to subgraph N).

    >>> perf = tidl_io.load_perf("od-8220-yolox-10.0")                  # doctest: +SKIP
    >>> perf.subgraphs[0].total.time_ms, len(perf.subgraphs[0].layers)  # doctest: +SKIP
    (367.46284, 122)

    Raises :class:`~tidl_io.PathNotFoundError` for a folder with none of these files, a
    located :class:`~tidl_io.FormatError` for a file that is cut, malformed or of another
    compilation than its neighbours.
    """
    root = Path(check_path(path, "load_perf", "path"))
    if isinstance(board, (str, bytes, os.PathLike)) or not all(isinstance(b, (str, os.PathLike)) for b in board):
        raise ArgumentTypeError("load_perf: board: expected a list of paths (tidl_trace_subgraph_<N>_perf.csv)")
    require_folder(root, f"a model or artifacts folder with {_WHAT}")
    art, temp = _art_folders(root)
    notes: list[str] = []
    found = [(sg, f) for sg in _subgraph_names(art, temp) if (f := _Files(sg, art, temp, notes)).any()]
    if not found:
        raise PathNotFoundError(str(root), f"none of {_WHAT} here or in artifacts/")
    boards = _boards([os.fspath(b) for b in board], [sg for sg, _ in found])
    subgraphs = tuple(_subgraph(sg, f, boards.get(sg), notes) for sg, f in found)
    return Performance(source=str(root), subgraphs=subgraphs, notes=tuple(notes))
