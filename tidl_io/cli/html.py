"""The ``tidl-io inspect --html`` report: one self-contained HTML page.

Per descriptor (and per subgraph of a container) the logical and physical tables that
``inspect`` prints, then one inline SVG picture per tensor (:mod:`tidl_io.iodesc.picture`). No
script, no font, no image is fetched: a Content-Security-Policy of ``default-src 'none'``
makes the page open offline and keeps a browser from loading anything, even if a tensor
name held markup (names are escaped anyway).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..base.version import __version__
from ..iodesc.descriptor import Descriptor, Tensor
from ..iodesc.format import tensor_rows
from ..iodesc.picture import descriptor_parts, esc, tensor_svg

if TYPE_CHECKING:
    from ..net import Network

__all__ = ["render_html"]

_LOGICAL_COLUMNS = 6  # "#", name, dtype, shape, layout, quantization: the rest are physical

_CSS = """
body { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; margin: 24px; color: #1a202c;
       background: #fff; }
h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 32px; border-bottom: 2px solid #2b6cb0; }
h3 { font-size: 14px; margin: 18px 0 6px; } h4 { font-size: 13px; margin: 10px 0 4px; color: #4a5568; }
table { border-collapse: collapse; font-size: 12px; margin-bottom: 8px; }
th, td { border: 1px solid #cbd5e0; padding: 2px 8px; text-align: left; white-space: nowrap; }
th { background: #edf2f7; } td.name { max-width: 360px; overflow: hidden; text-overflow: ellipsis; }
figure { margin: 14px 0; } figcaption { font-size: 12px; color: #4a5568; word-break: break-all; }
svg.tidl-io-tensor { border: 1px solid #e2e8f0; max-width: 100%; height: auto; }
figure.net-graph { overflow-x: auto; } svg.tidl-io-net { border: 1px solid #e2e8f0; }
p.note, p.error { font-size: 12px; } p.error { color: #c53030; }
"""


def _table(rows: list[list[str]], columns: list[int], names: list[str]) -> str:
    head = "".join(f"<th>{esc(rows[0][i])}</th>" for i in columns)
    body = []
    for row, name in zip(rows[1:], names):
        cells = []
        for i in columns:
            if i == 1:  # the name: full text on hover, shortened in the cell as in the text table
                cells.append(f'<td class="name" title="{esc(name)}">{esc(row[i])}</td>')
            else:
                cells.append(f"<td>{esc(row[i])}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _group(title: str, tensors: tuple[Tensor, ...]) -> str:
    if not tensors:
        return f"<h3>0 {title}(s)</h3>"
    rows = tensor_rows(tensors, physical=True)
    names = [t.name for t in tensors]
    width = len(rows[0])
    logical = list(range(_LOGICAL_COLUMNS))
    physical = [0, 1] + list(range(_LOGICAL_COLUMNS, width))
    return (f"<h3>{len(tensors)} {title}(s)</h3><h4>logical</h4>{_table(rows, logical, names)}"
            f"<h4>physical (elements unless marked B)</h4>{_table(rows, physical, names)}")


def _section(path: str, desc: Descriptor, counter: list[int]) -> str:
    parts = []
    for suffix, part in descriptor_parts(desc):
        label = path + (f" [subgraph {suffix[3:]}]" if suffix else "")
        hdr = part.header
        extras = ", ".join(f"{k}={v}" for k, v in hdr.items() if k not in ("numInputBuf", "numOutputBuf"))
        parts.append(f'<section class="descriptor" data-path="{esc(label)}">'
                     f"<h2>{esc(label)}</h2><p class=\"note\">{esc(part.layout.description)}"
                     f"{'; ' + esc(extras) if extras else ''}</p>")
        parts.append(_group("Input", part.inputs) + _group("Output", part.outputs))
        if any(t.buf_size is None for t in part.inputs + part.outputs):
            parts.append('<p class="note">* buffer size computed from the geometry (this layout stores none)</p>')
        for t in part.inputs + part.outputs:
            counter[0] += 1
            uid = f"t{counter[0]}"
            parts.append(f'<figure id="{uid}" data-tensor="{esc(t.name)}">{tensor_svg(t, uid)}'
                         f"<figcaption>{esc(label)}: {t.kind} {t.index} <b>{esc(t.name)}</b></figcaption></figure>")
        parts.append("</section>")
    return "".join(parts)


def _net_section(path: str, net: Network, counter: list[int]) -> str:
    """A net: its header line, sections, layer table and a picture of its layer graph."""
    from ..net.format import net_header_line, net_rows, sections_line  # start-up
    from ..net.graph import net_svg  # start-up

    counter[1] += 1
    rows = net_rows(net)
    names = [la.name or "" for la in net.layers]
    columns = list(range(len(rows[0])))
    head = "".join(f"<th>{esc(c)}</th>" for c in rows[0])
    body = []
    for row, name in zip(rows[1:], names):
        cells = [f'<td class="name" title="{esc(name)}">{esc(c)}</td>' if i == 2 else f"<td>{esc(c)}</td>"
                 for i, c in zip(columns, row)]
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<section class="net" data-path="{esc(path)}"><h2>{esc(path)}</h2>'
            f'<p class="note">{esc(net_header_line(net, path))}; {esc(sections_line(net))}</p>'
            f"<h3>{len(net.layers)} layer(s), execution order</h3>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
            f'<h3>layer graph</h3><figure class="net-graph" data-net="{esc(path)}">'
            f"{net_svg(net, f'n{counter[1]}')}<figcaption>{esc(path)}: {len(net.layers)} layers, "
            f"{len(net.edges)} edges (top: inputs)</figcaption></figure></section>")


def render_html(items: Iterable[tuple[str, Descriptor | Network]], errors: Iterable[str] = ()) -> str:
    """The report page for (path, descriptor or net) pairs; ``errors`` are files that could
    not be read, listed at the top."""
    counter = [0, 0]
    body = "".join(_section(path, item, counter) if isinstance(item, Descriptor) else _net_section(path, item, counter)
                   for path, item in items)
    problems = "".join(f'<p class="error">{esc(e)}</p>' for e in errors)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "style-src 'unsafe-inline'\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>tidl-io buffer report</title><style>{_CSS}</style></head>"
            f'<body data-tidl-io-report="{counter[0]}" data-tidl-io-nets="{counter[1]}"><h1>TIDL I/O buffers'
            f"{' and networks' if counter[1] else ''}</h1>"
            f'<p class="note">tidl-io {esc(__version__)} · each picture: channel plane 0 with its pads, '
            "the top-left corner element by element, and the whole buffer to scale; numbers in elements "
            f"and bytes (B).</p>{problems}{body}</body></html>\n")
