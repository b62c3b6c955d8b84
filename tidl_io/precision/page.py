"""``tidl-io quant --html`` and the quantization section of ``tidl-io report``: per layer, the
weight and bias error TIDL measured (paramDebug), the activation range, bits, scale and zero
point (the quant-params prototxt) beside the net's own scale; a bar of each layer's weight
error. Inline CSS and SVG, no script."""

from __future__ import annotations

from ..base.text import escape, html_page, html_table, layer_anchor
from ..iodesc.picture import esc
from .report import QuantLayer, QuantReport

__all__ = ["QUANT_CSS", "quant_body", "render_html"]

QUANT_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1a202c;background:#fff}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.5em}
table{border-collapse:collapse;font-size:12px}th,td{border:1px solid #e2e8f0;padding:2px 6px;text-align:right}
th{background:#edf2f7}td{white-space:nowrap}td:nth-child(3),td:nth-child(4){text-align:left}tr.problem td{background:#fed7d7}
tr.bits16 td:nth-child(9){background:#c6f6d5}.note{color:#4a5568}.bad{color:#c53030;font-weight:bold}
.ok{color:#276749;font-weight:bold}.bar{display:inline-block;height:9px;background:#dd6b20;vertical-align:middle}
"""


def _g(x: float | None) -> str:
    return "-" if x is None else f"{x:.6g}"


def _e(text: str) -> str:
    return esc(escape(text))


def _bar(value: float | None, worst: float) -> str:
    if value is None or not worst > 0:
        return ""
    return f'<span class="bar" style="width:{max(1.0, 80.0 * min(value, worst) / worst):.0f}px"></span> '


def _cells(lay: QuantLayer, worst: float) -> list[str]:
    a, w, b = lay.activation, lay.weights, lay.bias
    wmax = w.max_rel_difference if w is not None else None
    return [str(lay.index), _e(lay.subgraph), _e(lay.name or "-"),
            _e((lay.type or "-").replace("TIDL_", "").replace("Layer", "")),
            _bar(wmax, worst) + _g(wmax), _g(w.mean_rel_difference if w else None), _g(w.scale if w else None),
            _g(b.max_rel_difference if b else None), "-" if a is None or a.bits is None else str(a.bits),
            "-" if a is None else f"{_g(a.min)} .. {_g(a.max)}", "-" if a is None else _g(a.scale),
            "-" if a is None or a.zero_point is None else str(a.zero_point), _g(lay.net_scale),
            _e("; ".join(lay.problems))]


def quant_body(r: QuantReport, anchor: str = "") -> str:
    """The page's content without its head, styled by :data:`QUANT_CSS`. ``anchor``: a prefix;
    each layer's row then gets the id ``base.text.layer_anchor(anchor, subgraph, index)``."""
    worst = max((lay.weights.max_rel_difference for lay in r.layers if lay.weights is not None), default=0.0)
    parts = [f'<p class="{"ok" if r.ok else "bad"}">'
             + ("the files agree" if r.ok else f"{len(r.problems)} disagreement(s) between the files") + "</p>",
             f"<p>{len(r.layers)} layer(s), worst weights (paramDebug's maxRelDifference) first</p>"]
    parts += [f'<p class="bad">error: {_e(p)}</p>' for p in r.problems]
    rows = []
    for lay in r.layers:
        cls = "problem" if lay.problems else ("bits16" if lay.activation and lay.activation.bits == 16 else "")
        ident = f' id="{esc(layer_anchor(anchor, lay.subgraph, lay.index))}"' if anchor else ""
        rows.append((f' class="{cls}"{ident}' if cls else ident, _cells(lay, worst)))
    parts.append(html_table(["layer", "subgraph", "name", "type", "w maxRel", "w meanRel", "w scale", "b maxRel",
                             "act bits", "act range", "act scale", "zero point", "net scale", "problems"], rows))
    parts += [f'<p class="note">note: {_e(n)}</p>' for n in r.notes]
    read = [f"{k}: {', '.join(map(str, v)) if isinstance(v, (list, tuple)) else v}" for k, v in r.files.items() if v]
    parts.append(f'<p class="note">read: {_e("; ".join(read) or "-")}</p>')
    return "".join(parts)


def render_html(r: QuantReport) -> str:
    """``tidl-io quant --html``: :func:`quant_body` as one page."""
    return html_page("Which layers lose precision?", QUANT_CSS, quant_body(r))
