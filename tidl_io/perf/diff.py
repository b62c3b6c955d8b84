"""``tidl-io perf A B``: two compilations of one model (8-bit vs 16-bit, two releases, two
configurations) side by side, layer by layer, matched by name within each subgraph (the
subgraphs by position); a name seen several times is matched in execution order."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..base.check import check_int
from ..base.text import escape
from ..iodesc.format import document
from .model import LayerPerf, PerformanceData, SubgraphPerf, Totals
from .report import fmt, short_type

__all__ = ["DiffRow", "PerfDiff", "SubgraphDiff", "diff_perf"]


@dataclass(frozen=True)
class DiffRow:
    """A layer of A and its namesake in B (either None when the other has no such name);
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
    def changed(self) -> bool:
        """Only in one, or times, cycles, DDR traffic or placement differ."""
        if self.a is None or self.b is None:
            return True
        keys = ("time_us", "cycles", "ddr_read_mb", "ddr_write_mb", "memory")
        return any(getattr(self.a, k) != getattr(self.b, k) for k in keys)


@dataclass(frozen=True)
class SubgraphDiff:
    name_a: str
    name_b: str
    total_a: Totals
    total_b: Totals
    rows: tuple[DiffRow, ...]  # A's execution order, then B's layers A does not have
    unnamed: int  # layers without a name (no layer_info, no netLog, no net): not matched


@dataclass(frozen=True)
class PerfDiff:
    """Two :class:`~tidl_io.perf.model.PerformanceData` side by side (:func:`diff_perf`)."""

    a: str
    b: str
    subgraphs: tuple[SubgraphDiff, ...]
    notes: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return any(r.changed for s in self.subgraphs for r in s.rows) or bool(self.notes)

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` document of ``tidl-io perf A B``."""
        return diff_to_dict(self)

    def to_text(self, top: int | None = None) -> str:
        """The layers side by side (A's order, or the ``top`` largest time changes first), the totals."""
        return format_diff(self, None if top is None else check_int(top, "to_text", "top", 1))


def _by_name(s: SubgraphPerf) -> dict[str, list[LayerPerf]]:
    out: dict[str, list[LayerPerf]] = {}
    for lay in s.layers:
        if lay.name is not None:
            out.setdefault(lay.name, []).append(lay)
    return out


def _pair(sa: SubgraphPerf, sb: SubgraphPerf) -> SubgraphDiff:
    left = _by_name(sb)
    rows = []
    for lay in sa.layers:
        if lay.name is None:
            continue
        match = left.get(lay.name)
        rows.append(DiffRow(lay.name, lay, match.pop(0) if match else None))
    rest = sorted((x for ls in left.values() for x in ls), key=lambda x: x.position)
    rows += [DiffRow(x.name or "", None, x) for x in rest]
    unnamed = sum(1 for x in (*sa.layers, *sb.layers) if x.name is None)
    return SubgraphDiff(sa.name, sb.name, sa.total, sb.total, tuple(rows), unnamed)


def diff_perf(a: PerformanceData, b: PerformanceData) -> PerfDiff:
    """A's layers beside B's, matched by name per subgraph (subgraph i of A with subgraph i of B)."""
    notes = []
    if len(a.subgraphs) != len(b.subgraphs):
        notes.append(f"A has {len(a.subgraphs)} subgraph(s), B {len(b.subgraphs)}: the first "
                     f"{min(len(a.subgraphs), len(b.subgraphs))} compared")
    subs = tuple(_pair(sa, sb) for sa, sb in zip(a.subgraphs, b.subgraphs))
    for s in subs:
        if s.unnamed:
            notes.append(f"{s.name_a}: {s.unnamed} layer(s) without a name (no net, layer_info.txt or netLog): "
                         "not matched")
    return PerfDiff(a.source, b.source, subs, tuple(notes))


def _side(lay: LayerPerf | None) -> Mapping[str, Any] | None:
    if lay is None:
        return None
    return {"index": lay.index, "type": lay.type, "time_us": lay.time_us, "cycles": lay.cycles,
            "ddr_read_mb": lay.ddr_read_mb, "ddr_write_mb": lay.ddr_write_mb,
            "memory": {k: list(v) for k, v in lay.memory.items()}, "bound": lay.bound}


def _totals(t: Totals) -> dict[str, Any]:
    return {"time_ms": t.time_ms, "ddr_mb": t.ddr_mb, "ddr_read_mb": t.ddr_read_mb, "ddr_write_mb": t.ddr_write_mb,
            "msmc_mb": t.msmc_mb, "gmacs": t.gmacs}


def diff_to_dict(d: PerfDiff) -> dict[str, Any]:
    """``{"schema_version": 1, "a", "b", "subgraphs": [{"a", "b", "total": {"a", "b"}, "layers":
    [{"name", "a", "b", "ratio", "changed"}]}], "notes"}``."""
    doc = document(({"a": s.name_a, "b": s.name_b, "total": {"a": _totals(s.total_a), "b": _totals(s.total_b)},
                     "layers": [{"name": r.name, "a": _side(r.a), "b": _side(r.b), "ratio": r.ratio,
                                 "changed": r.changed} for r in s.rows]} for s in d.subgraphs), key="subgraphs")
    doc.update({"a": d.a, "b": d.b, "notes": list(d.notes)})
    return doc


def _cut(name: str, width: int = 32) -> str:
    text = escape(name)
    return text if len(text) <= width else text[: width - 1] + "…"


def format_diff(d: PerfDiff, top: int | None = None) -> str:
    """Per subgraph: the layers (A's order, or the ``top`` with the largest time change first),
    A's and B's time, B/A, bound, DDR; then both totals."""
    out = [f"A: {escape(d.a)}", f"B: {escape(d.b)}"]
    for s in d.subgraphs:
        rows = list(s.rows)
        if top is not None:
            def change(r: DiffRow) -> float:
                ta = r.a.time_us if r.a is not None and r.a.time_us is not None else 0.0
                tb = r.b.time_us if r.b is not None and r.b.time_us is not None else 0.0
                return abs(tb - ta)
            rows = sorted(rows, key=change, reverse=True)[:top]
        table = [["name", "type", "A µs", "B µs", "B/A", "A bound", "B bound", "A DDR MB", "B DDR MB"]]
        for r in rows:
            lay = r.a or r.b
            ddr = (lambda x: None if x is None or x.ddr_read_mb is None or x.ddr_write_mb is None
                   else x.ddr_read_mb + x.ddr_write_mb)
            table.append([_cut(r.name), short_type(lay.type if lay else None),
                          fmt(r.a.time_us if r.a else None, ".2f", "absent" if r.a is None else "-"),
                          fmt(r.b.time_us if r.b else None, ".2f", "absent" if r.b is None else "-"),
                          fmt(r.ratio, ".2f"), (r.a.bound if r.a else None) or "-", (r.b.bound if r.b else None) or "-",
                          fmt(ddr(r.a)), fmt(ddr(r.b))])
        widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
        out.append("")
        out.append(f"{escape(s.name_a)} vs {escape(s.name_b)}:")
        out += ["  " + "  ".join(c.rjust(w) if i in (2, 3, 4, 7, 8) else c.ljust(w)
                                 for i, (c, w) in enumerate(zip(row, widths))).rstrip() for row in table]
        ta, tb = s.total_a.time_ms, s.total_b.time_ms
        ratio = f" (B/A {tb / ta:.2f})" if ta and tb is not None else ""
        out.append(f"total: A {fmt(ta, 'g')} ms, DDR {fmt(s.total_a.ddr_mb)} MB; B {fmt(tb, 'g')} ms, DDR "
                   f"{fmt(s.total_b.ddr_mb)} MB{ratio}")
    out += [f"note: {escape(n)}" for n in d.notes]
    return "\n".join(out)
