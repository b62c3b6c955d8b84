"""``tidl-io perf --html``: one self-contained page (inline SVG and CSS; no script, nothing
fetched): per subgraph, a bar per layer stacked by cycle kind (kernel, waiting for data in the
core loop, layer setup, DMA pipe-up), the DDR traffic per layer, and the table with each
buffer's memory (L2, MSMC, DDR) coloured."""

from __future__ import annotations

from ..base.text import layer_anchor
from ..base.version import __version__
from ..iodesc.picture import esc
from .model import LayerPerf, PerformanceData, SubgraphPerf
from .report import config_line, fmt, kcycles, short_type, totals_line

__all__ = ["CYCLE_KINDS", "PERF_CSS", "perf_body", "render_html"]

# (class, label, colour): the parts of TI's LayerCycles, in the order they are stacked
CYCLE_KINDS = (("kernel", "kernel", "#3182ce"), ("wait", "core loop waiting for data", "#ed8936"),
               ("setup", "layer setup", "#a0aec0"), ("dma", "DMA pipe-up", "#805ad5"))
_READ, _WRITE = "#38a169", "#e53e3e"
_MEMORY = {"L2": "#c6f6d5", "MSMC": "#fefcbf", "DDR": "#fed7d7", "DDR_PERSIST": "#fbb6ce"}
_ROW, _LABEL, _PLOT = 12, 220, 640

PERF_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1a202c;background:#fff}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em}
table{border-collapse:collapse;font-size:12px}th,td{border:1px solid #e2e8f0;padding:2px 6px;text-align:right}
th{background:#edf2f7}td.t,td.name{text-align:left}td.name{max-width:22em;overflow:hidden;text-overflow:ellipsis;
white-space:nowrap}.note{color:#4a5568}.legend span{display:inline-block;margin-right:1.2em}
.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle}
svg text{font:10px system-ui,sans-serif;fill:#1a202c}
"""


def _parts(lay: LayerPerf) -> list[float]:
    """The stacked widths in cycles: kernel, core loop beyond the kernel, setup, DMA pipe-up."""
    k, c = lay.kernel_cycles or 0.0, lay.core_loop_cycles or 0.0
    return [min(k, c), max(c - k, 0.0), lay.setup_cycles or 0.0, lay.dma_cycles or 0.0]


def _label(lay: LayerPerf) -> str:
    return f"{lay.index} {short_type(lay.type)} {lay.name or ''}"[:40]


def _bars_svg(s: SubgraphPerf) -> str:
    timed = [lay for lay in s.layers if lay.cycles is not None]
    top = max((sum(_parts(lay)) for lay in timed), default=0.0) or 1.0
    height = _ROW * len(timed) + 24
    out = [(f'<svg class="tidl-io-perf-cycles" xmlns="http://www.w3.org/2000/svg" width="{_LABEL + _PLOT + 90}" '
           f'height="{height}" viewBox="0 0 {_LABEL + _PLOT + 90} {height}" role="img" '
           f'aria-label="cycles per layer of {esc(s.name)}">')]
    for row, lay in enumerate(timed):
        y = 4 + row * _ROW
        x = float(_LABEL)
        out.append(f'<g class="layer" data-index="{lay.index}"><title>{esc(_label(lay))}: '
                   f'{esc(fmt(lay.time_us))} µs, {esc(lay.bound or "-")}</title>'
                   f'<text x="{_LABEL - 4}" y="{y + 9}" text-anchor="end">{esc(_label(lay))}</text>')
        for (cls, _, colour), value in zip(CYCLE_KINDS, _parts(lay)):
            w = _PLOT * value / top
            if w > 0:
                out.append(f'<rect class="{cls}" x="{x:.1f}" y="{y}" width="{w:.2f}" height="{_ROW - 3}" '
                           f'fill="{colour}"/>')
            x += w
        out.append(f'<text x="{x + 4:.1f}" y="{y + 9}">{esc(fmt(lay.time_us))} µs</text></g>')
    out.append(f'<text x="{_LABEL}" y="{height - 6}">0</text><text x="{_LABEL + _PLOT}" y="{height - 6}" '
               f'text-anchor="end">{esc(kcycles(top))} cycles</text></svg>')
    return "".join(out)


def _ddr_svg(s: SubgraphPerf) -> str:
    known = [lay for lay in s.layers if lay.ddr_read_mb is not None or lay.ddr_write_mb is not None]
    top = max(((lay.ddr_read_mb or 0.0) + (lay.ddr_write_mb or 0.0) for lay in known), default=0.0) or 1.0
    height = _ROW * len(known) + 24
    out = [(f'<svg class="tidl-io-perf-ddr" xmlns="http://www.w3.org/2000/svg" width="{_LABEL + _PLOT + 90}" '
           f'height="{height}" viewBox="0 0 {_LABEL + _PLOT + 90} {height}" role="img" '
           f'aria-label="DDR traffic per layer of {esc(s.name)}">')]
    for row, lay in enumerate(known):
        y = 4 + row * _ROW
        r, w = lay.ddr_read_mb or 0.0, lay.ddr_write_mb or 0.0
        wr, ww = _PLOT * r / top, _PLOT * w / top
        out.append(f'<g class="layer" data-index="{lay.index}"><title>{esc(_label(lay))}: read {r:.2f} MB, '
                   f'write {w:.2f} MB</title><text x="{_LABEL - 4}" y="{y + 9}" text-anchor="end">'
                   f'{esc(_label(lay))}</text>'
                   f'<rect class="read" x="{_LABEL}" y="{y}" width="{wr:.2f}" height="{_ROW - 3}" fill="{_READ}"/>'
                   f'<rect class="write" x="{_LABEL + wr:.2f}" y="{y}" width="{ww:.2f}" height="{_ROW - 3}" '
                   f'fill="{_WRITE}"/><text x="{_LABEL + wr + ww + 4:.1f}" y="{y + 9}">{r + w:.2f} MB</text></g>')
    out.append(f'<text x="{_LABEL}" y="{height - 6}">0</text><text x="{_LABEL + _PLOT}" y="{height - 6}" '
               f'text-anchor="end">{top:.2f} MB</text></svg>')
    return "".join(out)


def _mem_cell(space: str | None) -> str:
    colour = _MEMORY.get(space or "")
    style = f' style="background:{colour}"' if colour else ""
    return f'<td class="t mem"{style}>{esc(space or "-")}</td>'


def _table(s: SubgraphPerf, anchor: str = "") -> str:
    board = any(lay.board is not None for lay in s.layers)
    head = ["exec", "layer", "type", "name", "time µs", "share", "kernel", "core loop", "setup", "DMA", "bound",
            "DDR R MB", "DDR W MB", "in from", "in to", "out from", "out to", "weights from", "weights to"]
    head += ["board cycles", "board/sim"] if board else []
    rows = []
    for lay in s.layers:
        share = s.share(lay)
        cells = [(f"<td>{lay.position}</td><td>{lay.index}</td><td class=\"t\">{esc(short_type(lay.type))}</td>"
                 f'<td class="name" title="{esc(lay.name or "")}">{esc(lay.name or "-")}</td>'
                 f"<td>{esc(fmt(lay.time_us))}</td><td>{esc(fmt(None if share is None else 100 * share, '.1f'))}</td>")]
        cells += [f"<td>{esc(kcycles(v))}</td>" for v in (lay.kernel_cycles, lay.core_loop_cycles, lay.setup_cycles,
                                                           lay.dma_cycles)]
        cells += [(f'<td class="t">{esc(lay.bound or "-")}</td><td>{esc(fmt(lay.ddr_read_mb))}</td>'
                  f"<td>{esc(fmt(lay.ddr_write_mb))}</td>")]
        cells += [_mem_cell(space) for part in ("in", "out", "weights") for space in lay.memory[part]]
        if board:
            b = lay.board
            cells += [f"<td>{esc(kcycles(b.cycles if b else None))}</td>",
                      f"<td>{esc(fmt(b.ratio if b else None))}</td>"]
        ident = f' id="{esc(layer_anchor(anchor, s.name, lay.index))}"' if anchor else ""
        rows.append(f'<tr data-index="{lay.index}"{ident}>{"".join(cells)}</tr>')
    return (f"<table><thead><tr>{''.join(f'<th>{esc(h)}</th>' for h in head)}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def _legend() -> tuple[str, str, str]:
    kinds = "".join(f'<span><i style="background:{c}"></i>{esc(label)}</span>' for _, label, c in CYCLE_KINDS)
    ddr = f'<span><i style="background:{_READ}"></i>DDR read</span><span><i style="background:{_WRITE}"></i>DDR write</span>'
    mem = "".join(f'<span><i style="background:{c}"></i>{esc(k)}</span>' for k, c in _MEMORY.items())
    return kinds, ddr, mem


def _section(s: SubgraphPerf, anchor: str = "") -> str:
    kinds, ddr, mem = _legend()
    timed = any(lay.cycles is not None for lay in s.layers)
    has_ddr = any(lay.ddr_read_mb is not None for lay in s.layers)
    parts = [(f'<section data-subgraph="{esc(s.name)}" data-layers="{len(s.layers)}"><h2>{esc(s.name)}: '
             f"{len(s.layers)} layers</h2><p class=\"note\">{esc(config_line(s))}</p>"
             f"<p><b>{esc(totals_line(s))}</b></p>")]
    if timed:
        parts.append(f'<h3>Cycles per layer (execution order)</h3><p class="legend">{kinds}</p>{_bars_svg(s)}')
    else:
        parts.append('<p class="note">no simulation: no times (the placement below is the bufinfolog\'s)</p>')
    if has_ddr:
        parts.append(f'<h3>DDR traffic per layer</h3><p class="legend">{ddr}</p>{_ddr_svg(s)}')
    parts.append(f'<h3>Layers and where their buffers live</h3><p class="legend">{mem}</p>{_table(s, anchor)}</section>')
    return "".join(parts)


def perf_body(perf: PerformanceData, anchor: str = "") -> str:
    """The page's content without its head (each subgraph's bars, DDR and table, the notes),
    styled by :data:`PERF_CSS`: what :func:`render_html` wraps and ``tidl-io report`` shows.
    ``anchor``: a prefix; each layer's row then gets the id ``base.text.layer_anchor(anchor,
    subgraph, index)``."""
    notes = "".join(f'<p class="note">note: {esc(n)}</p>' for n in perf.notes)
    return "".join(_section(s, anchor) for s in perf.subgraphs) + notes


def render_html(perf: PerformanceData) -> str:
    """The page (a str); every name from a file is escaped."""
    count = sum(len(s.layers) for s in perf.subgraphs)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>tidl-io perf</title><style>{PERF_CSS}</style></head>"
            f'<body data-tidl-io-perf="{count}"><h1>Where does the time go?</h1>'
            f'<p class="note">tidl-io {esc(__version__)} · {esc(perf.source)} · the times are TI\'s compile-time '
            "simulation at the configuration shown; a board run is the truth</p>"
            + perf_body(perf) + "</body></html>\n")
