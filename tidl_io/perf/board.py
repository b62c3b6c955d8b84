"""What TIDL-RT measured on the board: ``/tmp/tidl_trace_subgraph_<N>_perf.csv``, written at
debug level >= 1. A header of right-aligned column names each ended by a comma (``Layer,
Layer Cycles, kernelOnlyCycles, coreLoopCycles, LayerSetupCycles, dmaPipeupCycles, ...``;
releases differ in the columns after ``Layer Cycles``, some add ``DDRBWReadInBytes`` and
``DDRBWWriteInBytes``), one row per executed layer (data layers are not executed), then
`` Sum of Layer Cycles N``. The ``Layer`` column is TIDL-RT's ``layerExecId``: the layer's
position in execution order. :func:`parse_board` is a pure function of the text.

A log of several frames or runs holds several blocks, each ended by its own "Sum of Layer
Cycles" line (the header written again before a block, or not): every block is read
(:attr:`BoardRun.blocks`, one per run, in file order); each must measure the same layers as
the first. What is shown per layer is their mean, with min, max and the run count
(:func:`tidl_io.perf.model.board_mean`, joined in :mod:`.load`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePath

from ..base.tilog import MAX_LAYERS, Row, fields, located, split_lines, to_int

__all__ = ["BoardBlock", "BoardLayer", "BoardRun", "board_subgraph", "parse_board"]

_KNOWN = {"Layer Cycles": "cycles", "kernelOnlyCycles": "kernel_cycles", "coreLoopCycles": "core_loop_cycles",
          "LayerSetupCycles": "setup_cycles", "dmaPipeupCycles": "dma_cycles",
          "DDRBWReadInBytes": "ddr_read_bytes", "DDRBWWriteInBytes": "ddr_write_bytes"}
_SUM = re.compile(r"^sum of layer cycles\s*:?\s*(?P<n>\S+)\s*$", re.IGNORECASE)
_NAME = re.compile(r"tidl_trace_subgraph_(?P<n>\d{1,6})_perf\.csv$")
_MAX = (1 << 64) - 1
MAX_ROWS = 1 << 17  # rows over all blocks: 400 runs of a 300-layer net


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
class BoardBlock:
    """One run (frame): its rows, from ``line`` on, and TI's "Sum of Layer Cycles" for it."""

    line: int
    layers: tuple[BoardLayer, ...]
    total_cycles: int  # TI's "Sum of Layer Cycles"


@dataclass(frozen=True)
class BoardRun:
    """A whole perf.csv: its ``columns`` and ``blocks`` (one per run, in file order, at least one)."""

    source: str
    columns: tuple[str, ...]
    blocks: tuple[BoardBlock, ...]

    def by_layer(self) -> dict[int, tuple[BoardLayer, ...]]:
        """``{layerExecId: its row of each block, in block order}`` (every block has every layer)."""
        out: dict[int, list[BoardLayer]] = {}
        for block in self.blocks:
            for lay in block.layers:
                out.setdefault(lay.exec_id, []).append(lay)
        return {k: tuple(v) for k, v in out.items()}


def board_subgraph(name: str) -> int | None:
    """N of ``tidl_trace_subgraph_<N>_perf.csv`` (None for another name)."""
    m = _NAME.search(PurePath(name).name)
    return None if m is None else int(m.group("n"))


def _header(line: str, lineno: int, source: str) -> tuple[str, ...]:
    names = [t for _, t in fields(line)]
    while names and not names[-1]:
        names.pop()
    if not names or names[0] != "Layer" or "Layer Cycles" not in names:
        raise located(source, lineno, "expected TIDL-RT's perf.csv header (Layer, Layer Cycles, kernelOnlyCycles, "
                                      f"...), found {line.strip()[:60]!r}")
    if "" in names:
        raise located(source, lineno, f"column {names.index('') + 1} has no name")
    return tuple(names)


def _row(line: str, k: int, source: str, names: tuple[str, ...]) -> BoardLayer:
    row = Row(line, k, source)
    if len(row) < len(names) or any(row.texts[len(names):]):
        found = len(row) - (row.texts[-1] == "")  # TI ends each row with a comma
        raise located(source, k, f"expected {len(names)} fields as in the header, found {found} "
                                 "(a cut or malformed row)")
    values = {n: row.whole(i, n, maximum=_MAX) for i, n in enumerate(names)}
    exec_id = values["Layer"]
    if exec_id > MAX_LAYERS:
        raise located(source, k, f"expected a layer <= {MAX_LAYERS}, found {exec_id}", 1, "Layer")
    known = {ours: values.get(ti) for ti, ours in _KNOWN.items()}
    return BoardLayer(line=k, exec_id=exec_id, cycles=values["Layer Cycles"], kernel_cycles=known["kernel_cycles"],
                      core_loop_cycles=known["core_loop_cycles"], setup_cycles=known["setup_cycles"],
                      dma_cycles=known["dma_cycles"], ddr_read_bytes=known["ddr_read_bytes"],
                      ddr_write_bytes=known["ddr_write_bytes"], values=values)


def parse_board(text: str, source: str = "perf.csv") -> BoardRun:
    """The measured cycles in ``text`` (``source`` names it in errors), every block of them.
    Raises a located :class:`~tidl_io.FormatError`: a header without ``Layer`` and ``Layer
    Cycles`` (or, written again, not the first one), a cut or malformed row, a number that is
    not one, a layer twice in a block, a block measuring other layers than the first, no
    closing sum (a cut file), more than :data:`MAX_ROWS` rows. The sum is TI's (it counts
    every layer, the rows only the executed ones)."""
    lines = split_lines(text, source, "TIDL-RT's header (Layer, Layer Cycles, kernelOnlyCycles, ...)")
    names = _header(lines[0], 1, source)
    blocks: list[BoardBlock] = []
    layers: list[BoardLayer] = []
    seen: dict[int, int] = {}
    start: int | None = 2  # the line the open block starts on (None: between blocks)
    rows = 0
    for k, line in enumerate(lines[1:], start=2):
        stripped = line.strip()
        if not stripped:
            continue
        m = _SUM.match(stripped)
        if m is not None:
            total = to_int(m.group("n"), source, k, line.index(m.group("n")) + 1, "Sum of Layer Cycles", maximum=_MAX)
            if blocks and set(seen) != {lay.exec_id for lay in blocks[0].layers}:
                first = {lay.exec_id for lay in blocks[0].layers}
                odd = sorted(set(seen) ^ first)[:5]
                raise located(source, k, f"run {len(blocks) + 1} (from line {start}) measures {len(seen)} layer(s), "
                                         f"run 1 {len(first)} (Layer {', '.join(map(str, odd))} differ): runs of "
                                         "two nets in one file?")
            blocks.append(BoardBlock(line=start if start is not None else k, layers=tuple(layers), total_cycles=total))
            layers, seen, start = [], {}, None
            continue
        if start is None and stripped.split(",")[0].strip() == "Layer":  # the header again, before the next run
            if _header(line, k, source) != names:
                raise located(source, k, f"a header of other columns than line 1's ({', '.join(names[:4])}, ...)")
            start = k + 1
            continue
        if rows >= MAX_ROWS or len(layers) >= MAX_LAYERS:
            raise located(source, k, f"more than {MAX_LAYERS} layer rows in a run or {MAX_ROWS} in all")
        lay = _row(line, k, source, names)
        if lay.exec_id in seen:
            raise located(source, k, f"layer {lay.exec_id} again (first on line {seen[lay.exec_id]})", 1, "Layer")
        seen[lay.exec_id] = k
        start = k if start is None else start
        layers.append(lay)
        rows += 1
    if start is not None:
        raise located(source, len(lines), f"the file ends after {len(layers)} row(s), before TIDL-RT's "
                                          "'Sum of Layer Cycles' line (a cut file?)")
    return BoardRun(source=source, columns=names, blocks=tuple(blocks))
