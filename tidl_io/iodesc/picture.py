"""Pictures of tensor buffers: one self-contained SVG per tensor (``tidl-io inspect --svg``).

Each picture shows, from the tensor's own derived geometry (:class:`~tidl_io.iodesc.descriptor.Tensor`):

- **the first channel plane**: padded rows × line pitch, pads left/right/top/bottom shaded
  and labelled, the valid W×H region, and where the channel pitch puts the next plane — inside
  this plane's bottom pad rows when the stored channel pitch is smaller than the padded plane
  (TI's importer does that on padded tensors), or after a gap when larger. Drawn to scale when
  every pad is visible at the scale that fits, else as a schematic (pads at a fixed width)
  marked "not to scale"; the numbers are exact either way;
- **the top-left corner** cell by cell with each element's index: the top and left pads and
  the first valid element; NHWC as interleaved pixels (channel c0, c1, … side by side);
- **the whole buffer** as one bar to scale: the channel planes at the channel pitch,
  ``outPadCh`` planes, N/DIM1/DIM2 groups, the extra padded plane TIDL reserves after an
  input's data, the first valid element and the slack at the end;
- **a legend** in elements and bytes.

Every number also sits in a machine-readable attribute: the root ``<svg>`` carries
``data-*`` attributes (``data-line-pitch``, ...), and each legend line is a ``<text>`` with
``data-key`` and ``data-value`` (``data-bytes`` for byte counts), with the same names as the
``physical`` object of ``inspect --json``. Text from the file (tensor names) is escaped.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .descriptor import Descriptor, Tensor, TensorLayout
from .format import shape_in_layout, short_text

__all__ = ["svg_files", "tensor_svg"]

WIDTH = 780
_PLANE_BOX = (10, 58, 430, 210)  # x, y, max width, max height of the plane drawing
_MIN_PAD_PX = 3.0  # a pad thinner than this at scale makes the plane a schematic
_MAX_PLANES = 96  # planes drawn one by one on the buffer bar; more are drawn as groups

# colours: valid data, pads, the next plane's overlap, padCh planes, extra plane, slack, marks
_VALID, _VALID2, _PAD, _NEXT = "#cfe3f7", "#a9cdef", "#d9d9d9", "#f6ad55"
_PADCH, _EXTRA, _SLACK, _MARK, _INK = "#bdbdbd", "#fbd38d", "#f2f2f2", "#c53030", "#1a202c"
_CHANNELS = ("#fc8181", "#68d391", "#63b3ed", "#f6e05e", "#b794f4", "#f687b3")

_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def esc(text: str) -> str:
    """Text from a file, safe in HTML and XML: markup escaped, characters XML forbids
    shown as ``\\xNN``."""
    text = _XML_BAD.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return html.escape(text, quote=True)


@dataclass
class _Svg:
    """Collects SVG elements; coordinates in pixels, rounded to 0.1."""

    parts: list[str]

    def rect(self, x: float, y: float, w: float, h: float, fill: str, stroke: str = "none", extra: str = "") -> None:
        if w <= 0 or h <= 0:
            return
        self.parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="{fill}" '
                          f'stroke="{stroke}"{extra}/>')

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str = _INK, extra: str = "") -> None:
        self.parts.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{stroke}"'
                          f'{extra}/>')

    def text(self, x: float, y: float, text: str, size: float = 11, anchor: str = "start", attrs: str = "",
             fill: str = _INK, weight: str = "normal") -> None:
        self.parts.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
                          f'fill="{fill}" font-weight="{weight}"{attrs}>{esc(text)}</text>')


class _Axis:
    """Piecewise-linear map from element coordinates (0..sum of counts) to pixels."""

    def __init__(self, origin: float, segments: Sequence[tuple[int, float]]):
        self.origin = origin
        self.segments = [(n, px) for n, px in segments if n > 0]

    @property
    def length(self) -> float:
        return sum(px for _, px in self.segments)

    def __call__(self, pos: float) -> float:
        x, start = self.origin, 0
        for n, px in self.segments:
            if pos <= start + n:
                return x + px * (pos - start) / n
            x, start = x + px, start + n
        return x


def _bytes(count: int, itemsize: int | None) -> str:
    return "? B" if itemsize is None else f"{count * itemsize} B"


def _geometry_problem(t: Tensor) -> str | None:
    """Why the planes of ``t`` cannot be drawn, or None."""
    if min(t.width, t.height, t.num_channels) <= 0:
        return f"W, H, C = {t.width}, {t.height}, {t.num_channels}: no element to draw"
    if min(t.pad_l, t.pad_t, t.pad_r, t.pad_b) < 0 or (t.kind == "output" and t.pad_ch < 0):
        return "a negative pad"
    if min(t.num_batches, t.dim1, t.dim2) <= 0:
        return f"N, DIM1, DIM2 = {t.num_batches}, {t.dim1}, {t.dim2}"
    if t.channel_pitch <= 0:
        return f"channel pitch {t.channel_pitch}"
    return None


def tensor_svg(t: Tensor, uid: str = "t") -> str:
    """The picture of one tensor's buffer as an SVG document (a string).

    ``uid`` prefixes the element ids inside (patterns), so that several pictures can sit
    inline in one HTML page.
    """
    element = t.element
    itemsize = None if element is None else element.dtype.itemsize
    svg = _Svg([])
    problem = _geometry_problem(t)
    nhwc = t.layout_code == TensorLayout.NHWC
    dtype = "?" if element is None else element.dtype.name
    shape = "x".join(map(str, shape_in_layout(t)))
    svg.text(10, 20, f"{t.kind} {t.index}  {short_text(t.name, 70)}", 14, weight="bold",
             attrs=' data-key="name"')
    svg.text(10, 38, f"{dtype} {t.layout} {shape}  ·  buffer {t.buffer_size} elements = "
             f"{_bytes(t.buffer_size, itemsize)}"
             + ("" if t.buf_size is not None else " (computed: this layout stores no size)"), 11)
    if problem is None:
        mode = _plane(svg, t, uid, nhwc)
        corner_end = _corner(svg, t, nhwc)
        svg.text(10, 52, f"channel plane 0 ({mode}); on the right, the top-left corner element by element", 10,
                 fill="#4a5568")
        height = _bar(svg, t, nhwc, max(_PLANE_BOX[1] + _PLANE_BOX[3] + 48, corner_end + 14))
    else:
        svg.rect(10, 58, WIDTH - 20, 60, "#fff5f5", _MARK)
        svg.text(20, 92, f"cannot draw the planes: {problem}", 12, fill=_MARK, attrs=' data-key="problem"')
        height = 130
    height = _legend(svg, t, itemsize, height)
    attrs = _data_attrs(t, itemsize)
    title = f"{t.kind} {t.index} {t.name}"
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="tidl-io-tensor" width="{WIDTH}" '
            f'height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="DejaVu Sans, Liberation Sans, '
            f'Arial, sans-serif" role="img"{attrs}><title>{esc(title)}</title>'
            f'<defs><pattern id="{uid}-hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
            f'patternTransform="rotate(45)"><rect width="6" height="6" fill="{_NEXT}" fill-opacity="0.35"/>'
            f'<line x1="0" y1="0" x2="0" y2="6" stroke="{_NEXT}" stroke-width="3"/></pattern></defs>'
            f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>' + "".join(svg.parts) + "</svg>")


def _data_attrs(t: Tensor, itemsize: int | None) -> str:
    """The root element's machine-readable numbers (names as in ``inspect --json``)."""
    values: dict[str, object] = {
        "tensor": t.name, "kind": t.kind, "index": t.index, "layout": t.layout,
        "pad-l": t.pad_l, "pad-t": t.pad_t, "pad-r": t.pad_r, "pad-b": t.pad_b, "pad-ch": t.pad_ch,
        "line-pitch": t.line_pitch, "channel-pitch": t.channel_pitch, "dim2-pitch": t.dim2_pitch,
        "dim1-pitch": t.dim1_pitch, "batch-pitch": t.batch_pitch, "first-offset": t.first_offset,
        "valid-elements": t.size, "required-size": t.required_size, "buffer-size": t.buffer_size,
        "slack-elements": t.slack,
    }
    if itemsize is not None:
        values.update({"first-byte-offset": t.first_offset * itemsize, "buffer-nbytes": t.buffer_size * itemsize,
                       "slack-bytes": t.slack * itemsize})
    return "".join(f' data-{k}="{esc(str(v))}"' for k, v in values.items())


# ---- the first channel plane ------------------------------------------------------------

def _plane(svg: _Svg, t: Tensor, uid: str, nhwc: bool) -> str:
    """Draw channel plane 0 in the plane box; returns "to scale" or "schematic"."""
    x0, y0, max_w, max_h = _PLANE_BOX
    x0, y0 = x0 + 34, y0 + 26  # room for the row labels and the line-pitch arrow
    max_w, max_h = max_w - 34, max_h - 40
    # columns in pixels (NHWC: one column per pixel, each holding C interleaved elements)
    cols = (t.pad_l, t.width, t.pad_r)
    rows = (t.pad_t, t.height, t.pad_b)
    n_cols, n_rows = sum(cols), sum(rows)
    scale = min(max_w / n_cols, max_h / n_rows)
    pads = [p for p in (*cols[::2], *rows[::2]) if p > 0]
    to_scale = n_rows * scale >= 24 and n_cols * scale >= 24 and all(p * scale >= _MIN_PAD_PX for p in pads)
    if to_scale:
        xa = _Axis(x0, [(n, n * scale) for n in cols])
        ya = _Axis(y0, [(n, n * scale) for n in rows])
    else:
        pad_px = 26.0
        xa = _Axis(x0, [(cols[0], pad_px), (cols[1], max_w - pad_px * (cols[0] > 0) - pad_px * (cols[2] > 0)),
                        (cols[2], pad_px)])
        body_h = 36.0 if t.height == 1 else max_h - 2 * pad_px
        ya = _Axis(y0, [(rows[0], pad_px), (rows[1], body_h), (rows[2], pad_px)])
    left, top, right, bottom = xa(0), ya(0), xa(n_cols), ya(n_rows)
    vl, vt, vr, vb = xa(cols[0]), ya(rows[0]), xa(cols[0] + cols[1]), ya(rows[0] + rows[1])
    svg.rect(left, top, right - left, bottom - top, _PAD, "#718096", ' data-part="plane"')
    svg.rect(vl, vt, vr - vl, vb - vt, _VALID, "#2b6cb0", ' data-part="valid"')
    if to_scale and scale >= 6 and n_cols <= 96 and n_rows <= 64:  # one cell per element (pixel for NHWC)
        grid = ' stroke-width="0.5" stroke-opacity="0.6"'
        for k in range(1, n_cols):
            svg.line(xa(k), top, xa(k), bottom, "#ffffff", grid)
        for k in range(1, n_rows):
            svg.line(left, ya(k), right, ya(k), "#ffffff", grid)
    unit = "pixels" if nhwc else "elements"
    svg.text((vl + vr) / 2, (vt + vb) / 2 - 2, f"valid {t.width} x {t.height} {unit}", 12, "middle",
             weight="bold")
    if nhwc:
        svg.text((vl + vr) / 2, (vt + vb) / 2 + 13, f"each pixel = {t.num_channels} interleaved channels", 10,
                 "middle")
    else:
        svg.text((vl + vr) / 2, (vt + vb) / 2 + 13, f"channel 0 of {t.num_channels}", 10, "middle")
    if not nhwc:  # where the channel pitch puts plane 1
        _next_plane(svg, t, uid, xa, ya, n_cols, n_rows)
    # pad labels
    small = 9
    if t.pad_l:
        svg.text(left + (vl - left) / 2 + 3, (vt + vb) / 2, f"pad L {t.pad_l}", small, "middle",
                 attrs=f' transform="rotate(-90 {left + (vl - left) / 2:.1f} {(vt + vb) / 2:.1f})"')
    if t.pad_r:
        svg.text(vr + (right - vr) / 2 + 3, (vt + vb) / 2, f"pad R {t.pad_r}", small, "middle",
                 attrs=f' transform="rotate(-90 {vr + (right - vr) / 2:.1f} {(vt + vb) / 2:.1f})"')
    if t.pad_t:
        svg.text((left + right) / 2, top + (vt - top) / 2 + 3, f"pad T {t.pad_t} row(s)", small, "middle")
    if t.pad_b:
        svg.text((left + right) / 2, vb + (bottom - vb) / 2 + 3, f"pad B {t.pad_b} row(s)", small, "middle")
    # line pitch arrow above, padded height at the left
    line_elems = t.line_pitch
    svg.line(left, top - 10, right, top - 10, extra=' marker-start="none"')
    svg.line(left, top - 14, left, top - 6)
    svg.line(right, top - 14, right, top - 6)
    per = f" = {n_cols} px x {t.num_channels}" if nhwc else ""
    svg.text((left + right) / 2, top - 14, f"line pitch {line_elems} elements{per}", 10, "middle")
    svg.line(left - 10, top, left - 10, bottom)
    svg.text(left - 14, (top + bottom) / 2, f"{n_rows} rows", 10, "middle",
             attrs=f' transform="rotate(-90 {left - 14:.1f} {(top + bottom) / 2:.1f})"')
    # the first valid element
    fx, fy = vl, vt
    svg.parts.append(f'<circle cx="{fx:.1f}" cy="{fy:.1f}" r="3.5" fill="{_MARK}"/>')
    note = "to scale" if to_scale else "schematic, not to scale: pads widened"
    svg.text(right, bottom + 13, note, 9, "end", fill="#4a5568", attrs=f' data-key="scale" data-value="{int(to_scale)}"')
    return note


def _next_plane(svg: _Svg, t: Tensor, uid: str, xa: _Axis, ya: _Axis, n_cols: int, n_rows: int) -> None:
    """Hatch what plane 1 shares with plane 0 (or mark the gap), when there is a plane 1."""
    if t.num_channels > 1:
        nxt = "channel 1"
    elif t.kind == "output" and t.pad_ch > 0:
        nxt = "the first outPadCh plane"
    else:
        return
    plane = n_rows * n_cols  # the padded plane, padded rows x line pitch
    pitch = t.channel_pitch
    row, col = divmod(pitch, n_cols)
    left, right, bottom = xa(0), xa(n_cols), ya(n_rows)
    if pitch < plane:
        # elements [pitch, plane) of this plane are also the first elements of plane 1
        top = min(ya(row), bottom - 4)  # at least 4 px, however thin one row is in a schematic
        row_end = max(ya(row + 1), top + 4)
        svg.rect(xa(col), top, right - xa(col), row_end - top, f"url(#{uid}-hatch)", _NEXT)
        if row_end < bottom:
            svg.rect(left, row_end, right - left, bottom - row_end, f"url(#{uid}-hatch)", _NEXT)
        svg.parts.append(f'<circle cx="{xa(col):.1f}" cy="{top:.1f}" r="3" fill="{_NEXT}" stroke="{_INK}"/>')
        msg = (f"{nxt} starts at element {pitch} = row {row}, col {col} (hatched): "
               f"the planes share {plane - pitch} pad elements")
    elif pitch == plane:
        msg = f"{nxt} starts right after this plane, at element {pitch}"
    else:
        svg.rect(left, bottom + 16, right - left, 8, f"url(#{uid}-hatch)", _NEXT)
        msg = f"{nxt} starts at element {pitch}, after a gap of {pitch - plane} elements"
    svg.text(left, bottom + 36, msg, 10, attrs=' data-key="next_plane"', fill="#9c4221")


# ---- the top-left corner, element by element --------------------------------------------

def _corner(svg: _Svg, t: Tensor, nhwc: bool) -> float:
    """Cells of the top-left corner with their element indices; returns the y below."""
    x0, y0 = 470, 72
    c = t.num_channels if nhwc else 1
    n_rows = min(t.pad_t + t.height + t.pad_b, t.pad_t + 3, 6)
    pix = min(t.pad_l + t.width + t.pad_r, t.pad_l + (3 if nhwc else 6), max(1, 8 // c) if nhwc else 8)
    n_cols = min(pix * c, 12)  # NHWC: at most 12 elements, however many channels
    cw = min(36.0, 290 / max(n_cols, 1))
    ch = 19.0
    svg.text(x0, y0 - 6, "top-left corner: element index in each cell", 10, fill="#4a5568")
    for r in range(n_rows):
        for k in range(n_cols):
            p, ci = divmod(k, c)
            pad = r < t.pad_t or r >= t.pad_t + t.height or p < t.pad_l or p >= t.pad_l + t.width
            fill = _PAD if pad else (_CHANNELS[ci % len(_CHANNELS)] if nhwc else _VALID)
            x, y = x0 + k * cw, y0 + r * ch
            first = (r == t.pad_t and p == t.pad_l and ci == 0)
            svg.rect(x, y, cw, ch, fill, _MARK if first else "#ffffff",
                     (' stroke-width="2"' if first else "") + f' data-part="cell" data-row="{r}" data-col="{k}" '
                     f'data-channel="{ci if nhwc else 0}" data-pad="{int(pad)}"')
            svg.text(x + cw / 2, y + 13, str(r * t.line_pitch + k), 8 if cw < 30 else 9, "middle")
    more_x = t.pad_l + t.width + t.pad_r > pix
    more_y = t.pad_t + t.height + t.pad_b > n_rows
    y_end = y0 + n_rows * ch
    if more_x:
        svg.text(x0 + n_cols * cw + 4, y0 + 13, "…", 12)
    if more_y:
        svg.text(x0 + 4, y_end + 12, "⋮", 12)
    y_end += 14 if more_y else 0
    if nhwc:
        for ci in range(min(c, 6)):
            svg.rect(x0 + ci * 44, y_end + 6, 10, 10, _CHANNELS[ci])
            svg.text(x0 + ci * 44 + 13, y_end + 15, f"c{ci}", 9)
        svg.text(x0 + min(c, 6) * 44, y_end + 15, "one pixel = C consecutive elements", 9)
        y_end += 18
    svg.text(x0, y_end + 16, f"first valid element @ {t.first_offset} (row {t.pad_t}, "
             f"{'pixel' if nhwc else 'col'} {t.pad_l})", 10, fill=_MARK)
    svg.text(x0, y_end + 30, "grey: pad elements; row step = line pitch", 9, fill="#4a5568")
    return y_end + 30


# ---- the whole buffer as one bar ---------------------------------------------------------

def _bar(svg: _Svg, t: Tensor, nhwc: bool, y: float) -> float:
    """The buffer bar with its title at ``y``; returns the y below it."""
    x0, width, bar_h = 10.0, WIDTH - 20.0, 26.0
    end = max(t.buffer_size, t.required_size, 1)

    def X(pos: float) -> float:
        return x0 + width * min(max(pos, 0), end) / end

    svg.text(x0, y, f"whole buffer: elements 0 … {t.buffer_size} (to scale)", 11, weight="bold")
    y += 34
    svg.rect(x0, y, width, bar_h, _SLACK, "#a0aec0")
    pad_ch = t.pad_ch if t.kind == "output" else 0
    per_group = 1 if nhwc else t.num_channels + pad_ch
    groups = t.num_batches * t.dim1 * t.dim2
    step = t.dim2_pitch if nhwc else t.channel_pitch
    data_end = t.num_batches * t.batch_pitch
    if groups * per_group <= _MAX_PLANES:
        for g in range(groups):
            n, rest = divmod(g, t.dim1 * t.dim2)
            d1, d2 = divmod(rest, t.dim2)
            base = n * t.batch_pitch + d1 * t.dim1_pitch + d2 * t.dim2_pitch
            for c in range(per_group):
                start = base + c * step
                valid = nhwc or c < t.num_channels
                fill = (_VALID if c % 2 == 0 else _VALID2) if valid else _PADCH
                svg.rect(X(start), y, X(start + step) - X(start), bar_h, fill, "#ffffff", ' stroke-width="0.5"')
                if X(start + step) - X(start) > 24:
                    label = "HWC" if nhwc else (f"c{c}" if valid else "padCh")
                    svg.text((X(start) + X(start + step)) / 2, y + 17, label, 9, "middle")
    elif groups <= _MAX_PLANES:  # too many planes to draw one by one: per group, channels then padCh
        for g in range(groups):
            n, rest = divmod(g, t.dim1 * t.dim2)
            d1, d2 = divmod(rest, t.dim2)
            base = n * t.batch_pitch + d1 * t.dim1_pitch + d2 * t.dim2_pitch
            mid = base + t.num_channels * step
            for lo, hi, fill, label in ((base, mid, _VALID, f"{t.num_channels} channel planes"),
                                        (mid, base + per_group * step, _PADCH, f"{pad_ch} outPadCh planes")):
                svg.rect(X(lo), y, X(hi) - X(lo), bar_h, fill, "#ffffff", ' stroke-width="0.5"')
                if X(hi) - X(lo) > 6 * len(label):
                    svg.text((X(lo) + X(hi)) / 2, y + 17, label, 9, "middle")
    else:
        svg.rect(X(0), y, X(data_end) - X(0), bar_h, _VALID, "#2b6cb0")
        svg.text((X(0) + X(data_end)) / 2, y + 17, f"{groups * per_group} planes", 9, "middle")
    # after the data: the extra input plane / spare space
    if data_end < t.buffer_size:
        fill = _EXTRA if t.kind == "input" else _SLACK
        svg.rect(X(data_end), y, X(t.buffer_size) - X(data_end), bar_h, fill, "#a0aec0")
        what = "extra input plane" if t.kind == "input" else "spare"
        if X(t.buffer_size) - X(data_end) > 60:
            svg.text((X(data_end) + X(t.buffer_size)) / 2, y + 17, what, 9, "middle")
    # N / DIM1 / DIM2 brackets under the bar
    yb = y + bar_h + 6
    for level, count, total, pitch in (("DIM2", t.dim2, groups, t.dim2_pitch),
                                       ("DIM1", t.dim1, t.num_batches * t.dim1, t.dim1_pitch),
                                       ("n", t.num_batches, t.num_batches, t.batch_pitch)):
        if count <= 1 or total > 32:
            continue
        for i in range(total):
            a, b = X(i * pitch), X((i + 1) * pitch)
            svg.line(a + 1, yb, a + 1, yb + 5)
            svg.line(a + 1, yb + 5, b - 1, yb + 5)
            svg.line(b - 1, yb, b - 1, yb + 5)
            if b - a > 34:
                svg.text((a + b) / 2, yb + 15, f"{level} {i % count}", 8, "middle")
        yb += 18
    # marks: first valid element, end of the valid elements
    for row, (pos, label) in enumerate(((t.first_offset, f"first valid element @ {t.first_offset}"),
                                        (t.required_size, f"last valid element + 1 = {t.required_size}"))):
        svg.line(X(pos), y - 16 + 10 * row, X(pos), y + bar_h + 2, _MARK, ' stroke-width="1.5"')
        right = X(pos) > x0 + width / 2
        svg.text(X(pos) + (-3 if right else 3), y - 18 + 10 * row, label, 9, "end" if right else "start",
                 fill=_MARK)
    if t.required_size > t.buffer_size:
        svg.text(x0 + width, yb + 12, f"valid elements reach {t.required_size - t.buffer_size} beyond "
                 "the buffer size", 10, "end", fill=_MARK)
        yb += 16
    return yb + 6


# ---- the legend ---------------------------------------------------------------------------

def _legend(svg: _Svg, t: Tensor, itemsize: int | None, y: float) -> int:
    ti = t.ti_name
    nhwc = t.layout_code == TensorLayout.NHWC
    pad_ch_note = "" if t.kind == "output" else " (ignored for inputs)"
    plane = t.padded_plane
    extra_planes = 1 if t.kind == "input" else t.pad_ch
    tail = t.buffer_size - t.required_size
    entries: list[tuple[str, str, int, bool]] = [
        ("pad_l", f"pad left ({ti('pad_l')})", t.pad_l, False),
        ("pad_t", f"pad top ({ti('pad_t')})", t.pad_t, False),
        ("pad_r", f"pad right ({ti('pad_r')})", t.pad_r, False),
        ("pad_b", f"pad bottom ({ti('pad_b')})", t.pad_b, False),
        ("pad_ch", f"{ti('pad_ch')}{pad_ch_note}", t.pad_ch, False),
        ("line_pitch", "line pitch" + (" (x C, NHWC)" if nhwc else ""), t.line_pitch, True),
        ("channel_pitch", f"channel pitch ({ti('channel_pitch')})",
         t.channel_pitch, True),
        ("padded_plane", "padded plane (rows x line)", plane, True),
        ("dim2_pitch", f"DIM2 pitch (DIM2 = {t.dim2})", t.dim2_pitch, True),
        ("dim1_pitch", f"DIM1 pitch (DIM1 = {t.dim1})", t.dim1_pitch, True),
        ("batch_pitch", f"batch pitch (N = {t.num_batches})", t.batch_pitch, True),
        ("first_offset", "first valid element @", t.first_offset, True),
        ("valid_elements", "valid elements", t.size, True),
        ("required_size", "last valid element + 1", t.required_size, True),
        ("buffer_size", "buffer size (" + ("stored" if t.buf_size is not None else "computed") + ")",
         t.buffer_size, True),
        ("extra_planes", "extra input plane (in the size)" if t.kind == "input" else "outPadCh x padded plane",
         extra_planes * plane * t.num_batches * t.dim1 * t.dim2, True),
        ("slack_elements", "slack (buffer − valid)", t.slack, True),
        ("tail_elements", "after the last valid element", tail, True),
    ]
    if not nhwc and t.channel_pitch < plane:
        entries.append(("overlap", "plane overlap (plane − ch pitch)", plane - t.channel_pitch, True))
    per_col = (len(entries) + 1) // 2
    col_w = (WIDTH - 20) / 2
    y0 = y + 16
    svg.line(10, y0 - 12, WIDTH - 10, y0 - 12, "#e2e8f0")
    for i, (key, label, value, with_bytes) in enumerate(entries):
        col, row = divmod(i, per_col)
        x = 10 + col * col_w
        yy = y0 + row * 15
        if row % 2 == 0:
            svg.rect(x - 2, yy - 11, col_w - 12, 15, "#f7fafc")
        nbytes = "" if not with_bytes or itemsize is None else f' data-bytes="{value * itemsize}"'
        svg.text(x, yy, label, 10, fill="#4a5568")
        value_text = f"{value}" + (f" el = {_bytes(value, itemsize)}" if with_bytes else "")
        svg.text(x + col_w - 18, yy, value_text, 10, "end", attrs=f' data-key="{key}" data-value="{value}"{nbytes}',
                 weight="bold")
    return int(y0 + per_col * 15)


# ---- files -------------------------------------------------------------------------------

def descriptor_parts(desc: Descriptor) -> list[tuple[str, Descriptor]]:
    """The descriptor and its subgraphs, each with a suffix naming it (``""``, ``".sg0"``...)."""
    return [("", desc)] + [(f".sg{i}", sub) for i, sub in enumerate(desc.subgraphs)]


def svg_files(items: Iterable[tuple[str, Descriptor]]) -> list[tuple[str, str]]:
    """(file name, SVG) for every tensor of every (path, descriptor): ``<stem>[.sgI].inputK.svg``.

    File names come from the path's stem and indices only (tensor names may hold ``/``);
    a stem seen twice gets ``-2``, ``-3``... appended.
    """
    out: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for path, desc in items:
        stem = re.sub(r"[^A-Za-z0-9._-]", "_", path.replace("\\", "/").rsplit("/", 1)[-1])
        stem = stem.removesuffix(".bin")
        seen[stem] = seen.get(stem, 0) + 1
        if seen[stem] > 1:
            stem = f"{stem}-{seen[stem]}"
        for suffix, part in descriptor_parts(desc):
            for t in part.inputs + part.outputs:
                out.append((f"{stem}{suffix}.{t.kind}{t.index}.svg", tensor_svg(t)))
    return out
