"""What TIDL-RT measured on the board: ``/tmp/tidl_trace_subgraph_<N>_perf.csv``, written at
debug level >= 1. A header of right-aligned column names each ended by a comma (``Layer,
Layer Cycles, kernelOnlyCycles, coreLoopCycles, LayerSetupCycles, dmaPipeupCycles, ...``;
releases differ in the columns after ``Layer Cycles``, some add ``DDRBWReadInBytes`` and
``DDRBWWriteInBytes``), one row per executed layer (data layers are not executed), then
`` Sum of Layer Cycles N``. The ``Layer`` column is TIDL-RT's ``layerExecId``: the layer's
position in execution order. :func:`parse_board` is a pure function of the text."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePath

from ..base.tilog import MAX_LAYERS, Row, fields, located, split_lines, to_int

__all__ = ["BoardLayer", "BoardRun", "board_subgraph", "parse_board"]

_KNOWN = {"Layer Cycles": "cycles", "kernelOnlyCycles": "kernel_cycles", "coreLoopCycles": "core_loop_cycles",
          "LayerSetupCycles": "setup_cycles", "dmaPipeupCycles": "dma_cycles",
          "DDRBWReadInBytes": "ddr_read_bytes", "DDRBWWriteInBytes": "ddr_write_bytes"}
_SUM = re.compile(r"^sum of layer cycles\s*:?\s*(?P<n>\S+)\s*$", re.IGNORECASE)
_NAME = re.compile(r"tidl_trace_subgraph_(?P<n>\d{1,6})_perf\.csv$")
_MAX = (1 << 64) - 1


@dataclass(frozen=True)
class BoardLayer:
    """A measured row; a column this release does not write is None. ``values``: every column."""

    line: int
    exec_id: int  # the Layer column
    cycles: int
    kernel_cycles: int | None
    core_loop_cycles: int | None
    setup_cycles: int | None
    dma_cycles: int | None
    ddr_read_bytes: int | None
    ddr_write_bytes: int | None
    values: Mapping[str, int] = field(repr=False)


@dataclass(frozen=True)
class BoardRun:
    source: str
    columns: tuple[str, ...]
    layers: tuple[BoardLayer, ...]
    total_cycles: int  # TI's "Sum of Layer Cycles"


def board_subgraph(name: str) -> int | None:
    """N of ``tidl_trace_subgraph_<N>_perf.csv`` (None for another name)."""
    m = _NAME.search(PurePath(name).name)
    return None if m is None else int(m.group("n"))


def parse_board(text: str, source: str = "perf.csv") -> BoardRun:
    """The measured cycles in ``text`` (``source`` names it in errors). Raises a located
    :class:`~tidl_io.FormatError`: a header without ``Layer`` and ``Layer Cycles``, a cut or
    malformed row, a number that is not one, a layer twice, no closing sum (a cut file).
    The sum is TI's (it counts every layer, the rows only the executed ones)."""
    lines = split_lines(text, source, "TIDL-RT's header (Layer, Layer Cycles, kernelOnlyCycles, ...)")
    names = [t for _, t in fields(lines[0])]
    while names and not names[-1]:
        names.pop()
    if not names or names[0] != "Layer" or "Layer Cycles" not in names:
        raise located(source, 1, "expected TIDL-RT's perf.csv header (Layer, Layer Cycles, kernelOnlyCycles, ...), "
                                 f"found {lines[0].strip()[:60]!r}")
    if "" in names:
        raise located(source, 1, f"column {names.index('') + 1} has no name")
    layers: list[BoardLayer] = []
    seen: dict[int, int] = {}
    total = 0
    for k, line in enumerate(lines[1:], start=2):
        stripped = line.strip()
        if not stripped:
            continue
        m = _SUM.match(stripped)
        if m is not None:
            total = to_int(m.group("n"), source, k, line.index(m.group("n")) + 1, "Sum of Layer Cycles", maximum=_MAX)
            break
        if len(layers) >= MAX_LAYERS:
            raise located(source, k, f"more than {MAX_LAYERS} layer rows")
        row = Row(line, k, source)
        if len(row) < len(names) or any(row.texts[len(names):]):
            found = len(row) - (row.texts[-1] == "")  # TI ends each row with a comma
            raise located(source, k, f"expected {len(names)} fields as in the header, found {found} "
                                     "(a cut or malformed row)")
        values = {n: row.whole(i, n, maximum=_MAX) for i, n in enumerate(names)}
        exec_id = values["Layer"]
        if exec_id > MAX_LAYERS:
            raise located(source, k, f"expected a layer <= {MAX_LAYERS}, found {exec_id}", 1, "Layer")
        if exec_id in seen:
            raise located(source, k, f"layer {exec_id} again (first on line {seen[exec_id]})", 1, "Layer")
        seen[exec_id] = k
        known = {ours: values.get(ti) for ti, ours in _KNOWN.items()}
        layers.append(BoardLayer(line=k, exec_id=exec_id, cycles=values["Layer Cycles"],
                                 kernel_cycles=known["kernel_cycles"], core_loop_cycles=known["core_loop_cycles"],
                                 setup_cycles=known["setup_cycles"], dma_cycles=known["dma_cycles"],
                                 ddr_read_bytes=known["ddr_read_bytes"], ddr_write_bytes=known["ddr_write_bytes"],
                                 values=values))
    else:
        raise located(source, len(lines), f"the file ends after {len(layers)} row(s), before TIDL-RT's "
                                          "'Sum of Layer Cycles' line (a cut file?)")
    return BoardRun(source=source, columns=tuple(names), layers=tuple(layers), total_cycles=total)
