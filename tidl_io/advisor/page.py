"""``tidl-io advise --html`` and the advice section of ``tidl-io report``: the ranked layers
(SNR, what 16 bits would remove, the extra time), the picked ones marked, the ready 16-bit
line, the skipped layers and the notes. Inline CSS, no script."""

from __future__ import annotations

from ..base.text import escape, html_page, html_table, layer_anchor
from ..iodesc.picture import esc
from .report import Advice

__all__ = ["ADVICE_CSS", "advice_body", "render_html"]

ADVICE_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1a202c;background:#fff}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.5em}
table{border-collapse:collapse;font-size:12px}th,td{border:1px solid #e2e8f0;padding:2px 6px;text-align:right}
th{background:#edf2f7}td:nth-child(4),td:nth-child(5){text-align:left}tr.picked td{background:#c6f6d5}
.note{color:#4a5568}code{background:#edf2f7;padding:2px 4px;word-break:break-all}
"""


def _f(x: float | None, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def _e(text: str) -> str:
    return esc(escape(text))


def advice_body(a: Advice, anchor: str = "") -> str:
    """The page's content without its head, styled by :data:`ADVICE_CSS`. ``anchor``: a prefix;
    each candidate's row then gets the id ``base.text.layer_anchor(anchor, subgraph, index)``."""
    parts = [(f'<p class="note">measured: {_e(a.compare)} · time: '
             f"{_e(a.perf) if a.perf else 'no performance simulation (ranked by gain only)'}</p>")]
    if a.picked:
        parts.append(f"<p>put these {len(a.picked)} layer(s) in 16 bits (session.runtime_options in param.yaml):</p>"
                     f"<p><code>{_e(a.option_line)}</code></p>")
    else:
        parts.append("<p>nothing to put in 16 bits</p>")
    picked = set(a.picked)
    rows = []
    for k, c in enumerate(a.candidates):
        ident = f' id="{esc(layer_anchor(anchor, a.subgraph, c.index))}"' if anchor else ""
        rows.append((f' class="picked"{ident}' if k in picked else ident,
                     [str(k + 1), "yes" if k in picked else "", str(c.index), _e(c.name),
                      _e((c.type or "-").replace("TIDL_", "").replace("Layer", "")), _f(c.snr_db, ".1f"),
                      _f(c.inherited_snr_db, ".1f"), _f(c.snr_after_db, ".1f"),
                      "-" if c.share is None else f"{100 * c.share:.1f}%", _f(c.time_us, ".1f"),
                      _f(c.factor, ".2f"), _f(c.extra_us, ".1f")]))
    if rows:
        parts.append("<h2>Layers, best accuracy per extra microsecond first</h2>"
                     + html_table(["rank", "picked", "layer", "name", "type", "SNR dB", "input dB", "-> dB", "share",
                                   "time µs", "x", "+µs"], rows))
    if a.skipped:
        parts.append("<h2>Skipped</h2>" + html_table(["layer", "name", "why"], [
            ("", [str(s.index), _e(s.name or "-"), _e(s.reason)]) for s in a.skipped]))
    parts += [f'<p class="note">note: {_e(n)}</p>' for n in a.notes]
    return "".join(parts)


def render_html(a: Advice) -> str:
    """``tidl-io advise --html``: :func:`advice_body` as one page."""
    return html_page("Which layers to put in 16 bits?", ADVICE_CSS, advice_body(a))
