"""``tidl-io why --html`` and the support section of ``tidl-io report``: TI's verdict per node,
grouped by reason (with what TI documents a user can do), the subgraphs against TIDL's limit,
run.log's summary, every node with the subgraph it landed in. Inline CSS, no script."""

from __future__ import annotations

from ..base.text import escape, html_page, html_table
from ..iodesc.picture import esc
from .report import SupportReport

__all__ = ["SUPPORT_CSS", "render_html", "support_body"]

SUPPORT_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1a202c;background:#fff}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.5em}
table{border-collapse:collapse;font-size:12px}th,td{border:1px solid #e2e8f0;padding:2px 6px;text-align:left;
vertical-align:top}th{background:#edf2f7}tr.unsupported td{background:#fed7d7}tr.unknown td{background:#fefcbf}
tr.arm td{background:#feebc8}.note{color:#4a5568}.bad{color:#c53030;font-weight:bold}.ok{color:#276749;font-weight:bold}
"""


def _e(text: str) -> str:
    return esc(escape(text))


def support_body(r: SupportReport) -> str:
    """The page's content without its head, styled by :data:`SUPPORT_CSS`."""
    c = r.counts
    subs = "no allowedNode.txt: where each node landed is unknown" if r.subgraphs is None else \
        f"{len(r.subgraphs)} subgraph(s) (TIDL's limit: {r.max_subgraphs})"
    verdict = "every node on TIDL" if r.ok else "a finding: some node is not on TIDL, or the files disagree"
    parts = [f'<p class="{"ok" if r.ok else "bad"}">{_e(verdict)}</p>',
             (f"<p>{c['total']} node(s): {c['supported']} supported, {c['unsupported']} unsupported, "
             f"{c['unknown']} unknown; {_e(subs)}</p>")]
    parts += [f'<p class="bad">error: {_e(p)}</p>' for p in r.problems]
    groups = [g for g in r.groups if g.status.value != "supported" or (r.subgraphs is not None and g.on_arm)]
    if groups:
        rows = [(f' class="{esc(g.status.value)}"', [_e(g.status.value), _e(g.op), _e(g.reason), str(g.count),
                                                      str(g.on_arm), _e(g.advice or "-"),
                                                      _e(", ".join(g.nodes[:8]) + (" …" if len(g.nodes) > 8 else ""))])
                for g in groups]
        parts.append("<h2>Why nodes were split, by reason</h2>"
                     + html_table(["status", "op", "TI's reason", "nodes", "on ARM", "what to do", "nodes"], rows))
    if r.subgraphs is not None:
        rows = [("", [str(s.index), _e(s.name or "-"), str(s.nodes)]) for s in r.subgraphs]
        parts.append("<h2>Subgraphs</h2>" + html_table(["subgraph", "name", "nodes"], rows))
    if r.summary is not None:
        rows = [("", [_e(str(x.core)), str(x.nodes), "x" if x.subgraphs is None else str(x.subgraphs)]) for x in r.summary]
        parts.append("<h2>run.log's Subgraph Information Summary</h2>" + html_table(["core", "nodes", "subgraphs"], rows))
    rows = []
    for n in r.nodes:
        cls = "arm" if r.subgraphs is not None and n.on_arm and n.status.value == "supported" else n.status.value
        where = "-" if r.subgraphs is None else ("ARM" if n.on_arm else _e(n.subgraph_name or str(n.subgraph)))
        rows.append((f' class="{esc(cls)}" id="node-{n.index}"',
                     [str(n.index), _e(n.name), _e(n.op), _e(n.status.value), where, _e(n.reason or "-")]))
    parts.append("<h2>Every node</h2>" + html_table(["#", "node", "op", "status", "runs on", "TI's reason"], rows))
    parts += [f'<p class="note">note: {_e(n)}</p>' for n in r.notes]
    parts.append(f'<p class="note">read: {_e(", ".join(str(v) for v in r.files.values()))}</p>')
    return "".join(parts)


def render_html(r: SupportReport) -> str:
    """``tidl-io why --html``: :func:`support_body` as one page."""
    return html_page("Why was the model split?", SUPPORT_CSS, support_body(r))
