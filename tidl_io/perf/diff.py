"""``tidl-io perf A B``: two compilations of one model (8-bit vs 16-bit, two releases, two
configurations) side by side, layer by layer, within each subgraph (the subgraphs by position).

How the layers are matched (:func:`diff_perf`): by name when both sides name every layer (a
name seen several times is matched in execution order); when a side lacks names (no net,
``layer_info.txt`` or netLog) and both sides have the same layer types in execution order, by
layer number; else by name, the unnamed layers left out (a note says how many). Two
subgraphs with no layer in common (data layers aside) are two models: a
:class:`~tidl_io.FormatError`, not a report where every layer differs.

The differences (B - A: :attr:`DiffRow.delta_time_us`, :attr:`DiffRow.delta_ddr_mb`, the totals')
are computed on TI's decimals, so ``0.54125 - 0.42075`` is ``0.1205``; a layer only one side has
counts 0 on the other (its whole time is the change)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from decimal import Decimal
from typing import Any

from ..base.check import check_int
from ..base.errors import FormatError
from ..base.text import escape
from ..iodesc.format import document
from .model import LayerPerf, PerformanceData, SubgraphPerf, Totals
from .report import fmt, short_type

__all__ = ["DiffRow", "PerfDiff", "SubgraphDiff", "diff_perf"]

BY_NAME, BY_NUMBER = "name", "number"


def _minus(b: float | None, a: float | None) -> float | None:
    """``b - a`` on the decimals the floats print as (None without both)."""
    return None if a is None or b is None else float(Decimal(repr(b)) - Decimal(repr(a)))


def _plus(x: float | None, y: float | None) -> float | None:
    return None if x is None or y is None else float(Decimal(repr(x)) + Decimal(repr(y)))


def _ddr(lay: LayerPerf) -> float | None:
    """A layer's DDR traffic, read + write, in TI's MB (None when the file does not say)."""
    return _plus(lay.ddr_read_mb, lay.ddr_write_mb)


def _change(a: LayerPerf | None, b: LayerPerf | None, value: Callable[[LayerPerf], float | None]) -> float | None:
    """B's ``value`` - A's, a side without the layer counting 0; None when a side that has the
    layer does not have the number."""
    va = 0.0 if a is None else value(a)
    vb = 0.0 if b is None else value(b)
    return _minus(vb, va)


@dataclass(frozen=True)
class DiffRow:
    """A layer of A and its match in B (either None when the other has no such layer);
    ``ratio`` = B's time / A's time (None without both, or when A's is 0)."""

    name: str
    a: LayerPerf | None
    b: LayerPerf | None

    @property
    def ratio(self) -> float | None:
        ta = self.a.time_us if self.a is not None else None
        tb = self.b.time_us if self.b is not None else None
        return None if ta is None or tb is None or ta == 0 else tb / ta

    @property
    def delta_time_us(self) -> float | None:
        """B's time - A's in µs (a side without the layer: 0; None where a side has no time)."""
        return _change(self.a, self.b, lambda x: x.time_us)

    @property
    def delta_ddr_mb(self) -> float | None:
        """B's DDR traffic (read + write) - A's, in TI's MB (as :attr:`delta_time_us`)."""
        return _change(self.a, self.b, _ddr)

    @property
    def changed(self) -> bool:
        """Only in one, or times, cycles, DDR traffic or placement differ."""
        if self.a is None or self.b is None:
            return True
        keys = ("time_us", "cycles", "ddr_read_mb", "ddr_write_mb", "memory")
        return any(getattr(self.a, k) != getattr(self.b, k) for k in keys)

    def size(self) -> tuple[float, float]:
        """How large the change is, for sorting: |Δ µs|, then |Δ DDR MB| (unknown: 0)."""
        return abs(self.delta_time_us or 0.0), abs(self.delta_ddr_mb or 0.0)


@dataclass(frozen=True)
class SubgraphDiff:
    name_a: str
    name_b: str
    total_a: Totals
    total_b: Totals
    rows: tuple[DiffRow, ...]  # A's execution order, then B's layers A does not have
    unnamed: int  # layers without a name (no layer_info, no netLog, no net) that could not be matched
    matched_by: str = BY_NAME  # "name", or "number" (a side without names, the same layer types)

    @property
    def delta(self) -> Totals:
        """B's totals - A's (None where either has none)."""
        return Totals(**{f.name: _minus(getattr(self.total_b, f.name), getattr(self.total_a, f.name))
                         for f in fields(Totals)})

    def by_size(self) -> list[DiffRow]:
        """The rows, the largest change first (|Δ µs|, then |Δ DDR|; ties in :attr:`rows`' order)."""
        return sorted(self.rows, key=lambda r: (-r.size()[0], -r.size()[1]))


@dataclass(frozen=True)
class PerfDiff:
    """Two :class:`~tidl_io.perf.model.PerformanceData` side by side (:func:`diff_perf`)."""

    a: str
    b: str
    subgraphs: tuple[SubgraphDiff, ...]
    notes: tuple[str, ...] = ()
    subgraph_counts: tuple[int, int] | None = None  # (A's, B's); None: as many as compared

    @property
    def changed(self) -> bool:
        """A layer only in one or differing, a layer that could not be matched, or another
        number of subgraphs."""
        counts = self.subgraph_counts
        return any(r.changed for s in self.subgraphs for r in s.rows) or any(s.unnamed for s in self.subgraphs) \
            or (counts is not None and counts[0] != counts[1])

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` document of ``tidl-io perf A B``."""
        return diff_to_dict(self)

    def to_text(self, top: int | None = None) -> str:
        """The layers side by side, the largest change first (at most ``top``), the totals."""
        return format_diff(self, None if top is None else check_int(top, "to_text", "top", 1))


def _by_name(s: SubgraphPerf) -> dict[str, list[LayerPerf]]:
    out: dict[str, list[LayerPerf]] = {}
    for lay in s.layers:
        if lay.name is not None:
            out.setdefault(lay.name, []).append(lay)
    return out


def _pair_by_name(sa: SubgraphPerf, sb: SubgraphPerf) -> tuple[list[DiffRow], int]:
    left = _by_name(sb)
    rows = []
    for lay in sa.layers:
        if lay.name is None:
            continue
        match = left.get(lay.name)
        rows.append(DiffRow(lay.name, lay, match.pop(0) if match else None))
    rest = sorted((x for ls in left.values() for x in ls), key=lambda x: x.position)
    rows += [DiffRow(x.name or "", None, x) for x in rest]
    return rows, sum(1 for x in (*sa.layers, *sb.layers) if x.name is None)


def _pair(sa: SubgraphPerf, sb: SubgraphPerf, source_b: str) -> SubgraphDiff:
    named = all(x.name is not None for x in (*sa.layers, *sb.layers))
    if not named and [x.type for x in sa.layers] == [x.type for x in sb.layers]:
        rows = [DiffRow(x.name or y.name or f"#{x.index}", x, y) for x, y in zip(sa.layers, sb.layers)]
        diff = SubgraphDiff(sa.name, sb.name, sa.total, sb.total, tuple(rows), 0, BY_NUMBER)
    else:
        rows, unnamed = _pair_by_name(sa, sb)
        diff = SubgraphDiff(sa.name, sb.name, sa.total, sb.total, tuple(rows), unnamed)
    executed = any(not x.is_data for x in (*sa.layers, *sb.layers))  # else only data layers can be shared
    if not any(r.a is not None and r.b is not None and not (executed and r.a.is_data) for r in diff.rows):
        how = "no layer name" if named else "no layer name, nor the same layer types in order"
        raise FormatError(source_b, f"subgraph {sb.name} has no layer in common with subgraph {sa.name} of A "
                                    f"({sa.name}: {len(sa.layers)} layers, {sb.name}: {len(sb.layers)}; {how} "
                                    "shared, data layers aside): two different models?")
    same = sum(1 for r in diff.rows if r.a is not None and r.b is not None and not (executed and r.a.is_data)
               and r.a.type == r.b.type)
    smaller = min(sum(1 for x in s.layers if not (executed and x.is_data)) for s in (sa, sb))
    if 2 * same < smaller:  # a few shared names ("1", "3") between two models are not one model
        raise FormatError(source_b, f"subgraph {sb.name} shares only {same} of {smaller} layers (the same name and "
                                    f"type, data layers aside) with subgraph {sa.name} of A: two different models? "
                                    "(two compilations of one model share most)")
    return diff


def diff_perf(a: PerformanceData, b: PerformanceData) -> PerfDiff:
    """A's layers beside B's per subgraph (subgraph i of A with subgraph i of B), matched as the
    module says; a :class:`~tidl_io.FormatError` when a pair of subgraphs has no layer in common."""
    notes = []
    if len(a.subgraphs) != len(b.subgraphs):
        notes.append(f"A has {len(a.subgraphs)} subgraph(s), B {len(b.subgraphs)}: the first "
                     f"{min(len(a.subgraphs), len(b.subgraphs))} compared")
    subs = tuple(_pair(sa, sb, b.source) for sa, sb in zip(a.subgraphs, b.subgraphs))
    for s in subs:
        if s.matched_by == BY_NUMBER:
            notes.append(f"{s.name_a}: a side has no layer names (no net, layer_info.txt or netLog): matched by layer number (the layer types agree)")
        if s.unnamed:
            notes.append(f"{s.name_a}: {s.unnamed} layer(s) without a name (no net, layer_info.txt or netLog): "
                         "not matched")
    return PerfDiff(a.source, b.source, subs, tuple(notes), (len(a.subgraphs), len(b.subgraphs)))


def _side(lay: LayerPerf | None) -> Mapping[str, Any] | None:
    if lay is None:
        return None
    return {"index": lay.index, "type": lay.type, "time_us": lay.time_us, "cycles": lay.cycles,
            "ddr_read_mb": lay.ddr_read_mb, "ddr_write_mb": lay.ddr_write_mb,
            "memory": {k: list(v) for k, v in lay.memory.items()}, "bound": lay.bound}


def _totals(t: Totals) -> dict[str, Any]:
    return {f.name: getattr(t, f.name) for f in fields(Totals)}


def diff_to_dict(d: PerfDiff) -> dict[str, Any]:
    """``{"schema_version": 1, "a", "b", "subgraphs": [{"a", "b", "matched_by", "total": {"a", "b",
    "delta"}, "layers": [{"name", "a", "b", "ratio", "delta_time_us", "delta_ddr_mb", "changed"}]}],
    "notes"}``: layers in A's execution order, then B's layers A does not have."""
    doc = document(({"a": s.name_a, "b": s.name_b, "matched_by": s.matched_by,
                     "total": {"a": _totals(s.total_a), "b": _totals(s.total_b), "delta": _totals(s.delta)},
                     "layers": [{"name": r.name, "a": _side(r.a), "b": _side(r.b), "ratio": r.ratio,
                                 "delta_time_us": r.delta_time_us, "delta_ddr_mb": r.delta_ddr_mb,
                                 "changed": r.changed} for r in s.rows]} for s in d.subgraphs), key="subgraphs")
    doc.update({"a": d.a, "b": d.b, "notes": list(d.notes)})
    return doc


def _cut(name: str, width: int = 32) -> str:
    text = escape(name)
    return text if len(text) <= width else text[: width - 1] + "…"


def _totals_line(s: SubgraphDiff) -> str:
    ta, tb, dt = s.total_a.time_ms, s.total_b.time_ms, s.delta.time_ms
    ratio = f" (B/A {tb / ta:.2f})" if ta and tb is not None else ""
    time = f"A {fmt(ta, 'g')} ms, B {fmt(tb, 'g')} ms, Δ {fmt(dt, '+g')} ms{ratio}"
    ddr = f"DDR A {fmt(s.total_a.ddr_mb)} MB, B {fmt(s.total_b.ddr_mb)} MB, Δ {fmt(s.delta.ddr_mb, '+.2f')} MB"
    return f"total: {time}; {ddr}"


def format_diff(d: PerfDiff, top: int | None = None) -> str:
    """Per subgraph: the layers, the largest change first (|Δ µs|, then |Δ DDR|; at most
    ``top``), A's and B's time, Δ µs, B/A, bound, DDR and Δ DDR; then the totals and their Δ."""
    out = [f"A: {escape(d.a)}", f"B: {escape(d.b)}"]
    for s in d.subgraphs:
        rows = s.by_size()[:top] if top is not None else s.by_size()
        table = [["name", "type", "A µs", "B µs", "Δ µs", "B/A", "A bound", "B bound", "A DDR MB", "B DDR MB",
                  "Δ DDR MB"]]
        for r in rows:
            lay = r.a or r.b
            table.append([_cut(r.name), short_type(lay.type if lay else None),
                          fmt(r.a.time_us if r.a else None, ".2f", "absent" if r.a is None else "-"),
                          fmt(r.b.time_us if r.b else None, ".2f", "absent" if r.b is None else "-"),
                          fmt(r.delta_time_us, "+.2f"), fmt(r.ratio, ".2f"), (r.a.bound if r.a else None) or "-",
                          (r.b.bound if r.b else None) or "-", fmt(_ddr(r.a) if r.a else None),
                          fmt(_ddr(r.b) if r.b else None), fmt(r.delta_ddr_mb, "+.2f")])
        widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
        out.append("")
        by = " (matched by layer number)" if s.matched_by == BY_NUMBER else ""
        out.append(f"{escape(s.name_a)} vs {escape(s.name_b)}{by}, the largest change first:")
        out += ["  " + "  ".join(c.rjust(w) if i in (2, 3, 4, 5, 8, 9, 10) else c.ljust(w)
                                 for i, (c, w) in enumerate(zip(row, widths))).rstrip() for row in table]
        out.append(_totals_line(s))
    out += [f"note: {escape(n)}" for n in d.notes]
    return "\n".join(out)
