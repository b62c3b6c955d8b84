"""A net on a page (the model section of ``tidl-io report``): its header line, the layer graph
(:func:`~tidl_io.net.graph.net_svg`) and the layer table (:func:`~tidl_io.net.format.net_rows`)
with each layer's row anchored and linked to the same layer in other sections."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ..base.text import escape, html_table, layer_anchor
from ..iodesc.picture import esc
from .format import net_header_line, net_rows
from .graph import net_svg
from .model import Network

__all__ = ["NET_CSS", "net_body"]

NET_CSS = """
table{border-collapse:collapse;font-size:12px}th,td{border:1px solid #e2e8f0;padding:2px 6px;text-align:left}
th{background:#edf2f7}.graph{max-height:600px;overflow:auto;border:1px solid #e2e8f0}
td a{margin-right:.4em}
"""


def net_body(net: Network, path: str, subgraph: str, anchor: str = "",
             links: Sequence[tuple[str, str, Collection[str]]] = ()) -> str:
    """``net``'s header, graph and table. ``anchor``: a prefix for each row's id
    (``base.text.layer_anchor(anchor, subgraph, index)``); ``links``: (label, section prefix,
    the ids of that section's rows): each row links to its layer's row there, when there is one."""
    rows = net_rows(net)
    head, body = rows[0], rows[1:]
    out = []
    for la, cells in zip(net.layers, body):
        html_cells = [esc(escape(c)) for c in cells]
        if links:
            html_cells.append(" ".join(f'<a href="#{esc(layer_anchor(prefix, subgraph, la.index))}">{esc(label)}</a>'
                                       for label, prefix, have in links
                                       if layer_anchor(prefix, subgraph, la.index) in have) or "-")
        ident = f' id="{esc(layer_anchor(anchor, subgraph, la.index))}"' if anchor else ""
        out.append((ident, html_cells))
    return (f"<p>{esc(escape(net_header_line(net, path)))}</p>"
            f'<details><summary>the layer graph</summary><div class="graph">{net_svg(net, uid=esc(anchor or "n"))}'
            f"</div></details>"
            + html_table(head + (["in other sections"] if links else []), out))
