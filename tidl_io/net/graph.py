"""A picture of a net's layer graph: one self-contained SVG (``tidl-io inspect --html NET.bin``).

Layers are boxes ranked top to bottom by their depth from the inputs (a layer sits one rank
below its deepest producer), in execution order within a rank; each edge is a curve from a
producer to a consumer of its buffer, and an edge that skips ranks runs down a lane to the
right of the rows it passes, so no line crosses a box. Every box carries ``data-layer``, ``data-type`` and
``data-data-id``; a ``<title>`` gives the layer's name on hover. Text from the file is escaped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..iodesc.picture import esc
from .format import short_type
from .model import Layer, Network

__all__ = ["net_svg", "net_svg_files"]

_BOX_W, _BOX_H, _GAP_X, _GAP_Y, _MARGIN, _LANE, _LANES = 200, 36, 22, 26, 16, 7, 10
_FILL = {"Data": "#c6f6d5", "Convolution": "#bee3f8", "Deconv2D": "#bee3f8", "InnerProduct": "#bee3f8",
         "EltWise": "#fefcbf", "Concat": "#fed7e2", "DataConvert": "#e2e8f0", "Pooling": "#e9d8fd",
         "Resize": "#feebc8", "BatchNorm": "#fefcbf"}
_OTHER, _INK, _EDGE = "#f7fafc", "#1a202c", "#718096"


def ranks(net: Network) -> list[int]:
    """Per layer, its depth: 0 for layers reading no produced buffer, else one more than the
    deepest producer (producers later in the file than their consumer count as depth 0)."""
    depth = [0] * len(net.layers)
    producers: dict[int, list[int]] = {}
    for p, c, _ in net.edges:
        producers.setdefault(c, []).append(p)
    for layer in net.layers:
        earlier = [depth[p] for p in producers.get(layer.index, []) if p < layer.index]
        depth[layer.index] = 1 + max(earlier) if earlier else 0
    return depth


def _label(layer: Layer) -> tuple[str, str]:
    top = f"{layer.index} {short_type(layer)}"
    if layer.is_output:
        return top + " (output)", f"reads {', '.join(map(str, layer.inputs))}"
    dtype = layer.dtype.name if layer.dtype is not None else "?"
    return top, f"{'x'.join(map(str, layer.shape))} {dtype} · id {layer.data_id}"


def net_svg(net: Network, uid: str = "n") -> str:
    """The SVG markup of ``net``'s layer graph (an ``<svg class="tidl-io-net">`` element)."""
    depth = ranks(net)
    rows: dict[int, list[Layer]] = {}
    for layer in net.layers:
        rows.setdefault(depth[layer.index], []).append(layer)
    widest = max((len(r) for r in rows.values()), default=1)
    edges = list(dict.fromkeys(net.edges))  # a buffer read twice is drawn once
    long_edges = [e for e in edges if depth[e[1]] - depth[e[0]] != 1]
    boxes_w = 2 * _MARGIN + widest * _BOX_W + (widest - 1) * _GAP_X
    row_right = {r: (boxes_w + len(layers) * _BOX_W + (len(layers) - 1) * _GAP_X) / 2 for r, layers in rows.items()}
    lanes: dict[tuple[int, int, int], float] = {}
    for k, (p, c, data_id) in enumerate(long_edges):  # right of the widest row the edge passes, lanes in turn
        lo, hi = sorted((depth[p], depth[c]))
        right = max(row_right.get(r, 0.0) for r in range(lo, hi + 1))
        lanes[(p, c, data_id)] = right + _GAP_X / 2 + _LANE * (k % _LANES)
    width = int(max([boxes_w, *[x + _MARGIN for x in lanes.values()]]))
    height = 2 * _MARGIN + len(rows) * _BOX_H + max(len(rows) - 1, 0) * _GAP_Y
    pos: dict[int, tuple[float, float]] = {}
    for r, layers in rows.items():
        span = len(layers) * _BOX_W + (len(layers) - 1) * _GAP_X
        x0 = (boxes_w - span) / 2
        for k, layer in enumerate(layers):
            pos[layer.index] = (x0 + k * (_BOX_W + _GAP_X), _MARGIN + r * (_BOX_H + _GAP_Y))
    parts = [(f'<svg xmlns="http://www.w3.org/2000/svg" class="tidl-io-net" id="{esc(uid)}" width="{width}" '
              f'height="{height}" viewBox="0 0 {width} {height}" data-layers="{len(net.layers)}" '
              f'data-edges="{len(net.edges)}" font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif">'),
             f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
             (f'<defs><marker id="{esc(uid)}-arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" '
              f'markerHeight="7" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="{_EDGE}"/></marker></defs>')]
    for p, c, data_id in edges:
        (x1, y1), (x2, y2) = pos[p], pos[c]
        ax, ay, bx, by = x1 + _BOX_W / 2, y1 + _BOX_H, x2 + _BOX_W / 2, y2
        if (p, c, data_id) in lanes:  # down its own lane right of the boxes, then into the consumer
            lx = lanes[(p, c, data_id)]
            q = _GAP_Y / 2
            d = (f"M{ax:.1f},{ay:.1f} C{ax:.1f},{ay + q:.1f} {lx:.1f},{ay:.1f} {lx:.1f},{ay + q:.1f} "
                 f"L{lx:.1f},{by - q:.1f} C{lx:.1f},{by:.1f} {bx:.1f},{by - q:.1f} {bx:.1f},{by:.1f}")
        else:
            bend = max(abs(by - ay) / 2, 12)
            d = f"M{ax:.1f},{ay:.1f} C{ax:.1f},{ay + bend:.1f} {bx:.1f},{by - bend:.1f} {bx:.1f},{by:.1f}"
        parts.append(f'<path d="{d}" fill="none" stroke="{_EDGE}" stroke-width="1.2" '
                     f'marker-end="url(#{esc(uid)}-arrow)" data-edge="{p}-{c}" data-data-id="{data_id}"/>')
    for layer in net.layers:
        x, y = pos[layer.index]
        top, bottom = _label(layer)
        fill = _FILL.get(short_type(layer), _OTHER)
        title = f"{layer.index} {layer.type}" + (f": {layer.name}" if layer.name else "")
        made = "" if layer.data_id is None else str(layer.data_id)  # an output data layer makes no buffer
        parts.append(f'<g data-layer="{layer.index}" data-type="{esc(layer.type)}" data-data-id="{made}">'
                     f"<title>{esc(title)}</title>"
                     f'<rect x="{x:.1f}" y="{y:.1f}" width="{_BOX_W}" height="{_BOX_H}" rx="5" fill="{fill}" '
                     f'stroke="{_INK}" stroke-width="0.8"/>'
                     f'<text x="{x + 8:.1f}" y="{y + 15:.1f}" font-size="12" font-weight="bold" fill="{_INK}">'
                     f"{esc(top[:30])}</text>"
                     f'<text x="{x + 8:.1f}" y="{y + 29:.1f}" font-size="10.5" fill="{_INK}">{esc(bottom[:34])}</text>'
                     "</g>")
    parts.append("</svg>")
    return "".join(parts)


def net_svg_files(items: Iterable[tuple[str, Network]]) -> list[tuple[str, str]]:
    """(file name, SVG) of each (path, net)'s layer graph: ``<stem>.graph.svg``."""
    out = []
    seen: dict[str, int] = {}
    for path, net in items:
        stem = re.sub(r"[^A-Za-z0-9._-]", "_", path.replace("\\", "/").rsplit("/", 1)[-1]).removesuffix(".bin")
        seen[stem] = seen.get(stem, 0) + 1
        if seen[stem] > 1:
            stem = f"{stem}-{seen[stem]}"
        out.append((f"{stem}.graph.svg", net_svg(net)))
    return out
