"""``tidl-io why``: which nodes TIDL took, which run on the ARM, and TI's reasons.

:func:`load_support` finds the files of one compiled model (the model folder, its artifacts
folder, the ``tempDir`` or ``graphvizInfo.txt`` itself) and joins them:

- ``tempDir/graphvizInfo.txt`` (every node, TI's verdict; :mod:`.graphviz`),
- ``allowedNode.txt`` (which nodes each subgraph took; a node in none runs on the ARM) and
  ``onnxrtMetaData.txt`` (the subgraphs' names),
- ``run.log``'s Subgraph Information Summary where present (:mod:`.runlog`): its C7x node and
  subgraph counts are checked against the nodes the subgraphs took,
- ``param.yaml``'s ``session.runtime_options.max_num_subgraphs`` (TIDL's limit, default 16).

The result is a :class:`SupportReport`; it prints itself (:meth:`~SupportReport.to_text`) and
gives the ``--json`` document (:meth:`~SupportReport.to_dict`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.check import check_path, open_regular, read_limited, wrong_kind
from ..base.errors import FormatError, PathNotFoundError, TensorNotFoundError, TidlIoError
from ..base.findings import read_text
from ..base.numtext import MAX_INT_DIGITS
from ..base.safe_yaml import load_yaml
from ..base.text import closest, escape, report_repr, short_repr
from .advice import DEFAULT_MAX_SUBGRAPHS, advice_for, subgraph_advice
from .graphviz import GraphNode, Status, parse_graphviz
from .runlog import CoreSummary, parse_subgraph_summary

__all__ = ["ReasonGroup", "SupportNode", "SupportReport", "SupportSubgraph", "load_support"]

_GRAPHVIZ = "graphvizInfo.txt"
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class SupportNode:
    """One node of the original model: TI's verdict and where it landed. ``subgraph`` is the
    index of the allowedNode.txt subgraph that took it, None when it runs on the ARM."""

    index: int
    name: str
    op: str
    status: Status
    reason: str  # TI's words, without the stage prefix and source-line suffix
    stage: str | None  # TI's prefix, e.g. "PARSER"
    origin: str | None  # TI's importer source line, e.g. "tidl_onnxRtImport_core.cpp:529"
    subgraph: int | None
    subgraph_name: str | None
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    line: int  # in graphvizInfo.txt

    @property
    def on_arm(self) -> bool:
        return self.subgraph is None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "op": self.op, "status": self.status.value, "reason": self.reason,
                "subgraph": self.subgraph, "index": self.index, "stage": self.stage, "origin": self.origin,
                "subgraph_name": self.subgraph_name, "inputs": list(self.inputs), "outputs": list(self.outputs),
                "line": self.line}


@dataclass(frozen=True)
class ReasonGroup:
    """The nodes of one op type that TI gave one reason for (node names taken out of it)."""

    status: Status
    op: str
    reason: str
    nodes: tuple[str, ...]
    on_arm: int  # how many of them no subgraph took
    advice: str | None

    @property
    def count(self) -> int:
        return len(self.nodes)

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status.value, "op": self.op, "reason": self.reason, "count": self.count,
                "on_arm": self.on_arm, "advice": self.advice, "nodes": list(self.nodes)}


@dataclass(frozen=True)
class SupportSubgraph:
    index: int
    name: str | None  # onnxrtMetaData.txt's subGraphName, when present
    nodes: int


@dataclass(frozen=True)
class SupportReport:
    """The result of :func:`load_support`. ``problems``: located disagreements (run.log's counts
    against allowedNode.txt, nodes outside graphvizInfo.txt) that make ``tidl-io why`` exit 1."""

    source: str  # the graphvizInfo.txt read
    nodes: tuple[SupportNode, ...]
    subgraphs: tuple[SupportSubgraph, ...] | None  # None without allowedNode.txt
    max_subgraphs: int
    summary: tuple[CoreSummary, ...] | None  # run.log's, when found
    files: dict[str, str]  # what was read: kind -> path
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        c = self.counts
        return report_repr(self, self.source, nodes=c["total"], supported=c["supported"],
                           unsupported=c["unsupported"], subgraphs=None if self.subgraphs is None else len(self.subgraphs),
                           problems=len(self.problems))

    @property
    def counts(self) -> dict[str, int]:
        by = {s: sum(1 for n in self.nodes if n.status is s) for s in Status}
        out = {"total": len(self.nodes), "supported": by[Status.SUPPORTED], "unsupported": by[Status.UNSUPPORTED],
               "unknown": by[Status.UNKNOWN]}
        if self.subgraphs is not None:
            out["on_tidl"] = sum(1 for n in self.nodes if n.subgraph is not None)
            out["on_arm"] = len(self.nodes) - out["on_tidl"]
        return out

    @property
    def groups(self) -> tuple[ReasonGroup, ...]:
        """Nodes grouped by (status, op, reason): unsupported first, then the largest."""
        keyed: dict[tuple[Status, str, str], list[SupportNode]] = {}
        for n in self.nodes:
            keyed.setdefault((n.status, n.op, _reason_key(n.reason)), []).append(n)
        order = {Status.UNSUPPORTED: 0, Status.UNKNOWN: 1, Status.SUPPORTED: 2}
        groups = [ReasonGroup(s, op, r, tuple(n.name for n in ns), sum(1 for n in ns if n.on_arm),
                              advice_for(s, op, r)) for (s, op, r), ns in keyed.items()]
        return tuple(sorted(groups, key=lambda g: (order[g.status], -g.count, g.op, g.reason)))

    @property
    def ok(self) -> bool:
        """Every node supported and on TIDL, no more subgraphs than TIDL's limit, no problem."""
        c = self.counts
        return (c["unsupported"] == 0 and c["unknown"] == 0 and c.get("on_arm", 0) == 0 and not self.problems
                and (self.subgraphs is None or len(self.subgraphs) <= self.max_subgraphs))

    def node(self, name: str | int) -> SupportNode:
        """The node named ``name`` (or, for an int or a string of ASCII digits, the node of that
        index); a :class:`~tidl_io.TensorNotFoundError` (a KeyError) naming the closest names when
        there is none, an :class:`~tidl_io.ArgumentTypeError` for another kind of argument."""
        if isinstance(name, bool) or not isinstance(name, (str, int)):
            raise wrong_kind("SupportReport.node", "node", name, "a node name (str) or index (int)")
        if isinstance(name, int):
            if 0 <= name < len(self.nodes):
                return self.nodes[name]
            raise TensorNotFoundError(f"{self.source}: no node with index {name} among its {len(self.nodes)} nodes")
        for n in self.nodes:
            if n.name == name:
                return n
        if len(name) <= MAX_INT_DIGITS and name.isascii() and name.isdigit() and int(name) < len(self.nodes):
            return self.nodes[int(name)]
        close = closest(name, (n.name for n in self.nodes), 3, cutoff=0.5)
        hint = f"; closest: {', '.join(repr(c) for c in close)}" if close else ""
        raise TensorNotFoundError(f"{self.source}: no node named {short_repr(name)} among its {len(self.nodes)} "
                                  f"nodes{hint}")

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` document (strict JSON: no NaN or infinity can occur)."""
        subs = None if self.subgraphs is None else [
            {"index": s.index, "name": s.name, "nodes": s.nodes} for s in self.subgraphs]
        return {
            "schema_version": SCHEMA_VERSION, "source": self.source,
            "nodes": [n.to_dict() for n in self.nodes], "counts": self.counts,
            "groups": [g.to_dict() for g in self.groups], "subgraphs": subs,
            "max_subgraphs": self.max_subgraphs,
            "compile_log_summary": None if self.summary is None else [
                {"core": r.core, "nodes": r.nodes, "subgraphs": r.subgraphs} for r in self.summary],
            "files": dict(self.files), "problems": list(self.problems), "notes": list(self.notes),
        }

    def to_html(self) -> str:
        """One self-contained page (``tidl-io why --html``; :func:`tidl_io.support.page.render_html`)."""
        from .page import render_html  # start-up: the page's module loads for --html only

        return render_html(self)

    def to_text(self, node: str | int | None = None) -> str:
        """The report for people; with ``node``, that node's line only."""
        return node_text(self, self.node(node)) if node is not None else report_text(self)


def _reason_key(reason: str) -> str:
    """TI's reason without the node's own name (so that nodes of one cause group together)."""
    text = re.sub(r",?\s*Node name\s*-.*$", "", reason)
    text = re.sub(r"\s*layer output name\s*---.*$", "", text)
    return text.strip()


# ---- finding and joining the files ---------------------------------------------------------

def _locate(path: Path) -> tuple[Path, Path]:
    """(graphvizInfo.txt, the artifacts folder) for what the user named."""
    if path.is_file():
        tempdir = path.parent
        return path, tempdir.parent if tempdir.name == "tempDir" else tempdir
    if not path.exists():
        raise PathNotFoundError(str(path), f"no such file or folder; expected a model or artifacts folder, or "
                                           f"a {_GRAPHVIZ}")
    candidates = ((path / _GRAPHVIZ, path.parent if path.name == "tempDir" else path),
                  (path / "tempDir" / _GRAPHVIZ, path),
                  (path / "artifacts" / "tempDir" / _GRAPHVIZ, path / "artifacts"))
    for cand, art in candidates:
        if cand.is_file():
            return cand, art
    raise PathNotFoundError(str(path), f"no {_GRAPHVIZ} in tempDir/ or artifacts/tempDir/: TI's importer writes "
                                       f"it when it compiles a model (keep the tempDir folder)")


_MAX_TI_TEXT = 16 << 20  # graphvizInfo.txt at its node cap (32 768) and ~500 bytes a node (TI's run 40 to 210)


def _read_ti_text(path: Path, expected: str) -> str:
    """The text of one of TI's ASCII files (graphvizInfo.txt, allowedNode.txt,
    onnxrtMetaData.txt): a byte that is not UTF-8, or a file past :data:`_MAX_TI_TEXT`, is a
    located :class:`FormatError` (never replaced or cut silently)."""
    with open_regular(str(path), expected) as fh:
        data = read_limited(fh, _MAX_TI_TEXT)
    if len(data) > _MAX_TI_TEXT:
        raise FormatError(str(path), f"larger than {_MAX_TI_TEXT >> 20} MiB; expected {expected}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FormatError(str(path), f"byte {data[exc.start]:#04x} is not UTF-8 text; expected {expected}",
                          offset=exc.start, field=f"line {line}") from None


def _first(folders: Sequence[Path], name: str) -> Path | None:
    return next((f / name for f in folders if (f / name).is_file()), None)


def _max_subgraphs(param: Path | None, notes: list[str]) -> int:
    if param is None:
        return DEFAULT_MAX_SUBGRAPHS

    try:
        doc = load_yaml(read_text(param), str(param))  # the one bounded YAML reader: size, depth, aliases
    except (TidlIoError, OSError) as exc:
        notes.append(f"{param}: not read ({' '.join(str(exc).split())[:120]}); TIDL's default limit of "
                     f"{DEFAULT_MAX_SUBGRAPHS} subgraphs assumed")
        return DEFAULT_MAX_SUBGRAPHS
    sess = doc.get("session") if isinstance(doc, dict) else None
    opts = sess.get("runtime_options") if isinstance(sess, dict) else None
    value = opts.get("max_num_subgraphs") if isinstance(opts, dict) else None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if value is not None:
        notes.append(f"{param}: session.runtime_options.max_num_subgraphs {value!r} is no whole number; "
                     f"TIDL's default {DEFAULT_MAX_SUBGRAPHS} assumed")
    return DEFAULT_MAX_SUBGRAPHS


def load_support(path: str | os.PathLike[str]) -> SupportReport:
    """Read the support files of the compiled model at ``path`` (see the module docstring).

    Raises :class:`~tidl_io.PathNotFoundError` when there is no graphvizInfo.txt and
    :class:`~tidl_io.FormatError` (naming file and line) for a malformed graphvizInfo.txt,
    allowedNode.txt, onnxrtMetaData.txt or run.log summary.
    """
    from ..artifacts.folder import (  # start-up
        parse_allowed_nodes,
        parse_onnxrt_metadata,
        require_one_model,
    )

    given = Path(check_path(path, "load_support", "path"))
    require_one_model(given, "why")  # a net file, a folder of model folders: say so
    gv, art = _locate(given)
    files = {"graphviz": str(gv)}
    nodes = parse_graphviz(_read_ti_text(gv, "TI's graphvizInfo.txt"), str(gv))
    notes: list[str] = []
    problems: list[str] = []

    allowed = _first((art,), "allowedNode.txt")
    groups: tuple[tuple[int, ...], ...] | None = None
    names: dict[int, str] = {}
    if allowed is not None:
        files["allowed_nodes"] = str(allowed)
        groups = parse_allowed_nodes(_read_ti_text(allowed, "TI's allowedNode.txt"), str(allowed))
    else:
        notes.append(f"no allowedNode.txt in {art}: where each node landed is unknown")
    meta = _first((art,), "onnxrtMetaData.txt")
    if meta is not None:
        files["metadata"] = str(meta)
        info = parse_onnxrt_metadata(_read_ti_text(meta, "TI's onnxrtMetaData.txt"), str(meta))
        names = {s.index: s.name for s in info.subgraphs}
        if info.num_graph_nodes is not None and info.num_graph_nodes != len(nodes):
            problems.append(f"{meta}: numGraphNodes={info.num_graph_nodes}, but {gv} has {len(nodes)} nodes")

    where: dict[int, int] = {}
    for k, group in enumerate(groups or ()):
        for v in group:
            if not 0 <= v < len(nodes):
                problems.append(f"{allowed}: subgraph {k} lists node {v}, outside {gv}'s {len(nodes)} nodes")
            elif v in where:
                problems.append(f"{allowed}: node {v} is in subgraph {where[v]} and subgraph {k}")
            else:
                where[v] = k
    out = tuple(_node(n, where.get(n.index) if groups is not None else None, names) for n in nodes)
    subs = None if groups is None else tuple(
        SupportSubgraph(k, names.get(k), len(g)) for k, g in enumerate(groups))
    unknown = [n for n in out if n.status is Status.UNKNOWN]
    if unknown:
        notes.append(_unknown_note(unknown, groups is not None))

    log = _first((art, art.parent), "run.log")
    summary = None
    if log is not None:
        files["run_log"] = str(log)
        summary = parse_subgraph_summary(read_text(log), str(log))
        if summary is not None and subs is not None:
            problems += _against_summary(summary, out, subs, str(log))
    param = _first((art, art.parent), "param.yaml")
    if param is not None:
        files["param"] = str(param)
    limit = _max_subgraphs(param, notes)
    return SupportReport(str(gv), out, subs, limit, summary, files, tuple(problems), tuple(notes))


def _unknown_note(nodes: list[SupportNode], placed: bool) -> str:
    """What ``unknown`` means, with the nodes (a few) and where they landed."""
    shown = ", ".join(f"{n.name!r} ({'runs on the ARM' if n.on_arm else f'subgraph {n.subgraph}'})" if placed
                      else repr(n.name) for n in nodes[:_SHOW]) + (", …" if len(nodes) > _SHOW else "")
    where = ("where each landed is allowedNode.txt's" if placed
             else "without allowedNode.txt, whether TIDL took them is not known")
    return (f"{len(nodes)} node(s) carry a diagInfo of none of TI's forms tidl-io knows (counted unknown, TI's "
            f"text shown verbatim as the reason; {where}): {shown}")


def _node(n: GraphNode, sub: int | None, names: dict[int, str]) -> SupportNode:
    return SupportNode(n.index, n.name, n.op, n.status, n.reason, n.stage, n.origin, sub,
                       names.get(sub) if sub is not None else None, n.inputs, n.outputs, n.line)


def _against_summary(summary: tuple[CoreSummary, ...], nodes: tuple[SupportNode, ...],
                     subs: tuple[SupportSubgraph, ...], source: str) -> list[str]:
    out = []
    on_tidl = sum(1 for n in nodes if n.subgraph is not None)
    for row in summary:
        if row.core.upper().startswith("C7"):
            if row.nodes != on_tidl:
                out.append(f"{source}: line {row.line}: {row.core} {row.nodes} nodes, but allowedNode.txt's "
                           f"subgraphs take {on_tidl}")
            if row.subgraphs is not None and row.subgraphs != len(subs):
                out.append(f"{source}: line {row.line}: {row.core} {row.subgraphs} subgraph(s), but "
                           f"allowedNode.txt has {len(subs)}")
        elif row.core.upper() in ("CPU", "ARM") and row.nodes != len(nodes) - on_tidl:
            out.append(f"{source}: line {row.line}: {row.core} {row.nodes} nodes, but {len(nodes) - on_tidl} "
                       f"node(s) are in no subgraph of allowedNode.txt")
    return out


def subgraph_problem(report: SupportReport) -> str | None:
    """The subgraph count against TIDL's limit, as text (None when under it)."""
    return None if report.subgraphs is None else subgraph_advice(len(report.subgraphs), report.max_subgraphs)


# ---- the report for people (tidl-io why's text) ------------------------------------------

_SHOW = 6  # node names shown per group


def _where(n: SupportNode) -> str:
    if n.subgraph is None:
        return "runs on the ARM"
    name = f" ({escape(n.subgraph_name)})" if n.subgraph_name else ""
    return f"subgraph {n.subgraph}{name}"


def report_text(r: SupportReport) -> str:
    c = r.counts
    lines = [f"{escape(r.source)}: {c['total']} nodes: {c['supported']} supported, {c['unsupported']} unsupported"
             + (f", {c['unknown']} unknown" if c["unknown"] else "")]
    if r.subgraphs is not None:
        lines.append(f"  {c['on_tidl']} on TIDL in {len(r.subgraphs)} subgraph(s) (TIDL's limit "
                     f"{r.max_subgraphs}), {c['on_arm']} on the ARM")
        for s in r.subgraphs:
            name = f" {escape(s.name)}" if s.name else ""
            lines.append(f"    subgraph {s.index}{name}: {s.nodes} nodes")
    else:
        lines.append("  where the nodes landed: unknown (no allowedNode.txt)")
    if r.summary is not None:
        rows = ", ".join(f"{escape(x.core)} {x.nodes} nodes / "
                         f"{'x' if x.subgraphs is None else x.subgraphs} subgraph(s)" for x in r.summary)
        lines.append(f"  compile log summary (line {r.summary[0].line}): {rows}")
    limit = subgraph_problem(r)
    if limit:
        lines.append(f"  ! {limit}")
    lines.append("")
    lines.append("By reason:")
    said: set[str] = set()
    for g in r.groups:
        names = ", ".join(escape(x) for x in g.nodes[:_SHOW]) + (", …" if g.count > _SHOW else "")
        reason = escape(g.reason) or "(TI gave no text)"
        arm = f" [{g.on_arm} on the ARM]" if g.on_arm and r.subgraphs is not None else ""
        mark = "  " if g.status is Status.SUPPORTED else "! "
        lines.append(f"{mark}{g.count} node{'s' if g.count != 1 else ''} {escape(g.op)} ({g.status.value}){arm}: "
                     f"{reason}")
        if g.status is not Status.SUPPORTED or g.count <= _SHOW:
            lines.append(f"      {names}")
        if g.advice:
            lines.append(f"      -> {g.advice}" if g.advice not in said else "      -> (as above)")
            said.add(g.advice)
    arm_nodes = [n for n in r.nodes if n.on_arm and n.status is Status.SUPPORTED] if r.subgraphs is not None else []
    if arm_nodes:
        lines.append("")
        lines.append(f"{len(arm_nodes)} supported node(s) in no subgraph (run on the ARM; e.g. cut off by an "
                     f"unsupported neighbour or a deny_list): "
                     + ", ".join(escape(n.name) for n in arm_nodes[:_SHOW]) + (", …" if len(arm_nodes) > _SHOW
                                                                                    else ""))
    for p in r.problems:
        lines.append(f"error: {escape(p)}")
    for note in r.notes:
        lines.append(f"note: {escape(note)}")
    return "\n".join(lines)


def node_text(r: SupportReport, n: SupportNode) -> str:
    def names(ids: tuple[int, ...]) -> str:
        return ", ".join(escape(r.nodes[i].name) for i in ids) or "-"

    origin = f" [{n.origin}]" if n.origin else ""
    stage = f"[{n.stage}] " if n.stage else ""
    return "\n".join([
        f"{escape(r.source)}: line {n.line}: node {n.index} {escape(n.name)!s} ({escape(n.op)})",
        f"  status:   {n.status.value}",
        f"  TI says:  {stage}{escape(n.reason) or '(nothing)'}{escape(origin)}",
        f"  where:    {_where(n) if r.subgraphs is not None else 'unknown (no allowedNode.txt)'}",
        f"  inputs:   {names(n.inputs)}",
        f"  outputs:  {names(n.outputs)}",
    ])
