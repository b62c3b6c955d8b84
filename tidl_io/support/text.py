"""How ``tidl-io why`` prints a :class:`~tidl_io.support.report.SupportReport` for people."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .graphviz import Status
from .report import printable, subgraph_problem

if TYPE_CHECKING:
    from .report import SupportNode, SupportReport

__all__ = ["node_text", "report_text"]

_SHOW = 6  # node names shown per group


def _where(n: SupportNode) -> str:
    if n.subgraph is None:
        return "runs on the ARM"
    name = f" ({printable(n.subgraph_name)})" if n.subgraph_name else ""
    return f"subgraph {n.subgraph}{name}"


def report_text(r: SupportReport) -> str:
    c = r.counts
    lines = [f"{printable(r.source)}: {c['total']} nodes: {c['supported']} supported, {c['unsupported']} unsupported"
             + (f", {c['unknown']} unknown" if c["unknown"] else "")]
    if r.subgraphs is not None:
        lines.append(f"  {c['on_tidl']} on TIDL in {len(r.subgraphs)} subgraph(s) (TIDL's limit "
                     f"{r.max_subgraphs}), {c['on_arm']} on the ARM")
        for s in r.subgraphs:
            name = f" {printable(s.name)}" if s.name else ""
            lines.append(f"    subgraph {s.index}{name}: {s.nodes} nodes")
    else:
        lines.append("  where the nodes landed: unknown (no allowedNode.txt)")
    if r.summary is not None:
        rows = ", ".join(f"{printable(x.core)} {x.nodes} nodes / "
                         f"{'x' if x.subgraphs is None else x.subgraphs} subgraph(s)" for x in r.summary)
        lines.append(f"  compile log summary (line {r.summary[0].line}): {rows}")
    limit = subgraph_problem(r)
    if limit:
        lines.append(f"  ! {limit}")
    lines.append("")
    lines.append("By reason:")
    said: set[str] = set()
    for g in r.groups:
        names = ", ".join(printable(x) for x in g.nodes[:_SHOW]) + (", …" if g.count > _SHOW else "")
        reason = printable(g.reason) or "(TI gave no text)"
        arm = f" [{g.on_arm} on the ARM]" if g.on_arm and r.subgraphs is not None else ""
        mark = "  " if g.status is Status.SUPPORTED else "! "
        lines.append(f"{mark}{g.count} node{'s' if g.count != 1 else ''} {printable(g.op)} ({g.status.value}){arm}: "
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
                     + ", ".join(printable(n.name) for n in arm_nodes[:_SHOW]) + (", …" if len(arm_nodes) > _SHOW
                                                                                    else ""))
    for p in r.problems:
        lines.append(f"error: {printable(p)}")
    for note in r.notes:
        lines.append(f"note: {printable(note)}")
    return "\n".join(lines)


def node_text(r: SupportReport, n: SupportNode) -> str:
    def names(ids: tuple[int, ...]) -> str:
        return ", ".join(printable(r.nodes[i].name) for i in ids) or "-"

    origin = f" [{n.origin}]" if n.origin else ""
    stage = f"[{n.stage}] " if n.stage else ""
    return "\n".join([
        f"{printable(r.source)}: line {n.line}: node {n.index} {printable(n.name)!s} ({printable(n.op)})",
        f"  status:   {n.status.value}",
        f"  TI says:  {stage}{printable(n.reason) or '(nothing)'}{printable(origin)}",
        f"  where:    {_where(n) if r.subgraphs is not None else 'unknown (no allowedNode.txt)'}",
        f"  inputs:   {names(n.inputs)}",
        f"  outputs:  {names(n.outputs)}",
    ])
