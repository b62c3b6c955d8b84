"""What ``tidl-io compare`` finds, as objects, and how it is shown: :class:`CompareReport`
(one :class:`Row` per layer or output, each with a :class:`Status`) with ``to_dict()`` (the
``--json`` document), ``to_text()`` (a table and summary lines) and ``to_html()`` (one
self-contained page, inline SVG: SNR per layer and, for the first bad layer, histograms of
reference and test; nothing is fetched, as in ``inspect --html``).

JSON holds every metric as a number or null, never a string: null is a value that is not a
finite number. ``identical`` says which: true when test and reference are equal everywhere
(an SNR of +inf, written null); a null SNR of a row that is not identical is -inf (the
reference is all zeros, the test is not) or NaN (NaN in the values), and such a row is below
any threshold. ``channel_snr_db[k]`` null with ``k`` in ``identical_channels`` is +inf too.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Any

from ..base.text import escape, layer_anchor, report_repr, short
from ..base.version import __version__
from ..iodesc.format import document, dumps_json
from ..iodesc.picture import esc
from .metrics import Metrics

__all__ = ["COMPARE_CSS", "CompareReport", "Histogram", "Row", "Status", "compare_body", "format_report", "render_html",
           "report_to_dict"]


class Status(str, enum.Enum):
    """Whether a row was compared, and if not, why (the JSON ``status`` is the value)."""

    COMPARED = "compared"
    NO_REFERENCE = "no reference"  # the reference has nothing for this layer
    AMBIGUOUS = "ambiguous"  # the reference array reads as NCHW and as NHWC
    SHAPE_MISMATCH = "shape mismatch"  # the reference array is not of the layer's shape
    EMPTY = "empty"  # the layer has no element: nothing to compare, never counted as good

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Histogram:
    """Counts of ``ref`` and ``test`` over the same bin ``edges``."""

    label: str
    edges: tuple[float, ...]
    ref: tuple[int, ...]
    test: tuple[int, ...]


@dataclass
class Row:
    """One traced layer (or calibration output) and its :class:`Status`; ``metrics`` when
    compared. ``quiet_channels``: channels whose reference never reaches one quantization step
    of the layer, or whose energy is negligible against the layer's (see
    :func:`tidl_io.trace.compare.quiet_channels`): their SNR does not make the row ``bad``."""

    index: int | None
    data_id: int | None
    name: str | None
    type: str | None
    shape: tuple[int, ...] | None
    status: Status
    metrics: Metrics | None = None
    kind: str | None = None
    note: str = ""
    bad: bool = False
    quiet_channels: tuple[int, ...] = ()
    time_us: float | None = None  # the layer's simulated time (TI's performance simulation), where read

    def __post_init__(self) -> None:
        self.status = Status(self.status)

    @property
    def worst_counted(self) -> tuple[int | None, float | None]:
        """(channel, SNR dB) of the lowest channel SNR among the channels that count (not
        quiet; a NaN counts as lowest), or (None, None)."""
        m = self.metrics
        if m is None:
            return None, None
        quiet = set(self.quiet_channels)
        counted = [k for k in range(len(m.channel_snr_db)) if k not in quiet]
        if not counted:
            return None, None
        snrs = m.channel_snr_db
        k = next((k for k in counted if math.isnan(snrs[k])), None)
        if k is None:
            k = min(counted, key=snrs.__getitem__)
        return k, snrs[k]


@dataclass
class CompareReport:
    """Every row of one comparison, the threshold, and what was seen on the way
    (``warnings``: unusable trace files; ``notes``)."""

    reference: str
    test: str
    min_snr_db: float
    rows: list[Row] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    histograms: list[Histogram] = field(default_factory=list)
    perf: str | None = None  # the performance simulation the rows' time_us come from (None: no times)

    def __repr__(self) -> str:
        bad = self.first_bad
        return report_repr(self, self.test, reference=self.reference, rows=len(self.rows),
                           compared=len(self.compared), first_bad=None if bad is None else bad.index, ok=self.ok)

    @property
    def compared(self) -> list[Row]:
        return [r for r in self.rows if r.status is Status.COMPARED]

    @property
    def unmatched(self) -> list[Row]:
        return [r for r in self.rows if r.status is not Status.COMPARED]

    @property
    def first_bad(self) -> Row | None:
        return next((r for r in self.rows if r.bad), None)

    @property
    def why_nothing_compared(self) -> str:
        """One line saying why no row was compared: the first row not compared and its note
        (which layer or output, what the reference lacks), and how many more there are."""
        rest = self.unmatched
        if not rest:
            return "no layer could be compared: nothing to compare"
        r = rest[0]
        more = f" (and {len(rest) - 1} more: see the rows' notes)" if len(rest) > 1 else ""
        return f"no layer could be compared: {_layer(r)} (dataId {r.data_id}) {r.name!r}: {r.note}{more}"

    @property
    def ok(self) -> bool:
        """Something was compared, no row is bad and no trace file was unusable."""
        return bool(self.compared) and self.first_bad is None and not self.warnings

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` document (see :func:`report_to_dict`)."""
        return report_to_dict(self)

    def to_json(self) -> str:
        """:meth:`to_dict` as strict JSON text (no NaN or Infinity)."""
        return dumps_json(self.to_dict())

    def to_text(self) -> str:
        """The text table and summary lines (see :func:`format_report`)."""
        return format_report(self)

    def to_html(self) -> str:
        """The self-contained HTML page (see :func:`render_html`)."""
        return render_html(self)


def _num(x: float | None) -> float | None:
    """A metric for JSON: the number, or None when it is not finite (see the module text)."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _row_dict(r: Row) -> dict[str, Any]:
    m = r.metrics
    snrs = m.channel_snr_db if m else ()
    return {
        "index": r.index, "data_id": r.data_id, "name": r.name, "type": r.type,
        "shape": list(r.shape) if r.shape is not None else None, "status": r.status.value, "trace": r.kind,
        "max_abs": _num(m.max_abs) if m else None, "mean_abs": _num(m.mean_abs) if m else None,
        "snr_db": _num(m.snr_db) if m else None, "cosine": _num(m.cosine) if m else None,
        "identical": (m.max_abs == 0 and m.count > 0) if m else None,
        "worst_channel": m.worst_channel if m else None,
        "worst_channel_snr_db": _num(m.worst_channel_snr_db) if m else None,
        "saturated": _num(m.saturated) if m else None,
        "channel_snr_db": [_num(v) for v in snrs] if m else None,
        "identical_channels": [k for k, v in enumerate(snrs) if v == math.inf] if m else None,
        "channels_below_one_step": list(r.quiet_channels) if m else None,
        "worst_counted_channel": r.worst_counted[0], "worst_counted_channel_snr_db": _num(r.worst_counted[1]),
        "below_min_snr": r.bad, "note": r.note,
    }


def _time_text(t: float | None) -> str:
    return "-" if t is None else f"{t:.1f}"


def report_to_dict(report: CompareReport) -> dict[str, Any]:
    """The ``--json`` document: ``layers[]`` (every row, compared or not), ``first_bad``
    (``index``, ``data_id``, ``name``, or null), ``unmatched`` (rows not compared),
    ``warnings``, ``notes`` and ``ok``. Strict JSON: metrics are numbers or null."""
    bad = report.first_bad
    doc = document([_row_dict(r) | ({"time_us": _num(r.time_us)} if report.perf else {}) for r in report.rows],
                   key="layers")
    doc.update({
        "reference": report.reference, "test": report.test, "min_snr_db": _num(report.min_snr_db),
        "first_bad": None if bad is None else {"index": bad.index, "data_id": bad.data_id, "name": bad.name},
        "unmatched": [{"index": r.index, "data_id": r.data_id, "name": r.name, "status": r.status.value,
                       "note": r.note} for r in report.unmatched],
        "compared": len(report.compared), "ok": report.ok,
        "warnings": list(report.warnings), "notes": list(report.notes),
    })
    if report.perf:
        doc["perf"] = report.perf
    return doc


def _f(x: float | None, fmt: str = ".2f") -> str:
    if x is None:
        return "-"
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return format(x, fmt)


def _worst_text(r: Row) -> str:
    """The worst channel that counts, and how many channels are below one step."""
    m = r.metrics
    if m is None:
        return "-"
    k, v = r.worst_counted
    text = "-" if k is None else f"{k}: {_f(v, '.1f')}"
    if r.quiet_channels:
        text += f" ({len(r.quiet_channels)} below 1 step)"
    return text


def _cells(r: Row) -> list[str]:
    m = r.metrics
    sat = "-" if m is None or m.saturated is None else f"{100 * m.saturated:.2f}%"
    return [_index(r), str(r.data_id), (r.type or "").removeprefix("TIDL_").removesuffix("Layer"),
            short(r.name or "-", 36), "x".join(map(str, r.shape or ())),
            _f(m.snr_db, ".1f") if m else r.status.value, _worst_text(r), _f(m.cosine, ".5f") if m else "",
            _f(m.max_abs, ".4g") if m else "", _f(m.mean_abs, ".4g") if m else "", sat,
            "BAD" if r.bad else ""]


_HEAD = ["#", "dataId", "type", "name", "shape", "SNR dB", "worst ch: dB", "cosine", "max|d|", "mean|d|",
         "saturated", ""]


def _bad_summary(report: CompareReport, bad: Row) -> str:
    m = bad.metrics
    assert m is not None
    k, v = bad.worst_counted
    quiet = len(bad.quiet_channels)
    return (f"SNR {_f(m.snr_db, '.1f')} dB, worst channel {k} at {_f(v, '.1f')} dB"
            + (f" ({quiet} channel(s) below one step not counted)" if quiet else ""))


def _index(r: Row) -> str:
    """The layer's index in the net (execution order), or ``-`` when no net said it."""
    return "-" if r.index is None else str(r.index)


def _layer(r: Row) -> str:
    """``layer N`` (N: the layer's index in the net), or ``layer ?`` when no net said it."""
    return f"layer {'?' if r.index is None else r.index}"


def format_report(report: CompareReport) -> str:
    """The text table and the summary lines."""
    head = _HEAD[:-1] + ["time µs", ""] if report.perf else _HEAD
    rows = [head] + [_cells(r)[:-1] + [_time_text(r.time_us), _cells(r)[-1]] if report.perf else _cells(r)
                     for r in report.rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = [f"reference: {report.reference}", f"test:      {report.test}"]
    if report.perf:
        lines.append(f"time:      {report.perf} (TI's performance simulation; a board run is the truth)")
    lines.append("")
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    lines.append("")
    bad = report.first_bad
    done = len(report.compared)
    if bad is None:
        lines.append(f"no layer under {report.min_snr_db:g} dB ({done} compared)")
    else:
        lines.append(f"first bad (SNR or a channel's SNR < {report.min_snr_db:g} dB): {_layer(bad)}, dataId "
                     f"{bad.data_id}, {bad.name!r}: {_bad_summary(report, bad)}")
    quiet = sum(len(r.quiet_channels) for r in report.compared)
    if quiet:
        lines.append(f"{quiet} channel(s) below one step in {sum(bool(r.quiet_channels) for r in report.compared)} "
                     "layer(s): their reference never reaches one quantization step of the layer (or holds a "
                     "negligible share of its energy); not counted against --min-snr")
    for r in report.unmatched:
        lines.append(f"not compared: {_layer(r)} (dataId {r.data_id}) {r.name!r}: {r.note}")
    lines += [f"warning: {w}" for w in report.warnings]
    lines += [f"note: {n}" for n in report.notes]
    return "\n".join(escape(line) for line in lines)  # names from files never drive the terminal


# ---- HTML -------------------------------------------------------------------------------

COMPARE_CSS = """
body { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; margin: 24px; color: #1a202c; }
h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 28px; border-bottom: 2px solid #2b6cb0; }
table { border-collapse: collapse; font-size: 12px; } th, td { border: 1px solid #cbd5e0; padding: 2px 8px;
white-space: nowrap; text-align: left; } th { background: #edf2f7; } tr.bad td { background: #fed7d7; }
td.name { max-width: 380px; overflow: hidden; text-overflow: ellipsis; }
p.note { font-size: 12px; word-break: break-all; } p.summary b { word-break: break-all; } p.warn { font-size: 12px; color: #c53030; } svg { max-width: 100%; height: auto; }
"""


def _snr_svg(report: CompareReport) -> str:
    rows = report.compared
    w, h, left, top, bottom = 900, 260, 50, 16, 40
    if not rows:
        return '<p class="note">no layer compared</p>'
    vals = []
    for r in rows:
        m = r.metrics
        assert m is not None
        worst = r.worst_counted[1]
        vals.append((m.snr_db, worst if worst is not None else m.snr_db))
    finite = [v for pair in vals for v in pair if math.isfinite(v)] + [report.min_snr_db, 0.0]
    lo, hi = math.floor(min(finite) / 10) * 10, math.ceil(max(finite) / 10) * 10 + 10
    span = max(hi - lo, 10)
    pw, ph = w - left - 10, h - top - bottom
    step = pw / max(len(rows), 1)

    def y(v: float) -> float:
        v = hi if v == math.inf else (lo if not math.isfinite(v) else v)
        return top + ph * (hi - v) / span

    parts = [(f'<svg xmlns="http://www.w3.org/2000/svg" class="snr" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
             'role="img" aria-label="SNR per layer">'), f'<rect x="0" y="0" width="{w}" height="{h}" fill="#fff"/>']
    for tick in range(int(lo), int(hi) + 1, 10 if span <= 100 else 20):
        parts.append(f'<line x1="{left}" x2="{w - 10}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#e2e8f0"/>'
                     f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" font-size="10" text-anchor="end">{tick}</text>')
    thr = y(report.min_snr_db)
    parts.append(f'<line x1="{left}" x2="{w - 10}" y1="{thr:.1f}" y2="{thr:.1f}" stroke="#c53030" '
                 f'stroke-dasharray="5,4"/><text x="{w - 12}" y="{thr - 4:.1f}" font-size="10" fill="#c53030" '
                 f'text-anchor="end">min {report.min_snr_db:g} dB</text>')
    layer_pts, chan_pts = [], []
    for i, (r, (snr, worst)) in enumerate(zip(rows, vals)):
        x = left + step * (i + 0.5)
        layer_pts.append(f"{x:.1f},{y(snr):.1f}")
        chan_pts.append(f"{x:.1f},{y(worst):.1f}")
        colour = "#c53030" if r.bad else "#2b6cb0"
        parts.append(f'<circle cx="{x:.1f}" cy="{y(snr):.1f}" r="3" fill="{colour}"><title>{_layer(r)} '
                     f'(dataId {r.data_id}) {esc(r.name or "")}: SNR {_f(snr, ".1f")} dB, worst channel '
                     f'{_f(worst, ".1f")} dB</title></circle>')
        if len(rows) <= 80 or i % max(1, len(rows) // 40) == 0:
            parts.append(f'<text x="{x:.1f}" y="{h - bottom + 14}" font-size="9" text-anchor="middle">{_index(r)}</text>')
    parts.append(f'<polyline fill="none" stroke="#2b6cb0" stroke-width="1.5" points="{" ".join(layer_pts)}"/>')
    parts.append(f'<polyline fill="none" stroke="#dd6b20" stroke-width="1" stroke-dasharray="3,2" '
                 f'points="{" ".join(chan_pts)}"/>')
    parts.append(f'<text x="{left}" y="{h - 6}" font-size="11">layer index (execution order) — blue: layer SNR, '
                 'orange: worst channel SNR (dB); +inf drawn at the top</text></svg>')
    return "".join(parts)


def _hist_svg(hist: Histogram) -> str:
    w, h, left, top, bottom = 440, 200, 40, 20, 34
    pw, ph = w - left - 10, h - top - bottom
    peak = max(max(hist.ref, default=0), max(hist.test, default=0), 1)
    n = len(hist.ref)
    bw = pw / n
    parts = [(f'<svg xmlns="http://www.w3.org/2000/svg" class="hist" viewBox="0 0 {w} {h}" width="{w}" '
             f'height="{h}" role="img" aria-label="{esc(hist.label)}">'),
             f'<rect x="0" y="0" width="{w}" height="{h}" fill="#fff"/>',
             f'<text x="{left}" y="13" font-size="11">{esc(hist.label)}</text>']
    for counts, colour, dx in ((hist.ref, "#2b6cb0", 0.0), (hist.test, "#dd6b20", 0.5)):
        for i, c in enumerate(counts):
            if c:
                bh = ph * math.sqrt(c / peak)  # square-root scale: small bins stay visible
                parts.append(f'<rect x="{left + bw * (i + dx):.2f}" y="{top + ph - bh:.2f}" width="{bw / 2:.2f}" '
                             f'height="{bh:.2f}" fill="{colour}"/>')
    parts.append(f'<text x="{left}" y="{h - 18}" font-size="10">{hist.edges[0]:.4g}</text>'
                 f'<text x="{w - 10}" y="{h - 18}" font-size="10" text-anchor="end">{hist.edges[-1]:.4g}</text>'
                 f'<text x="{left}" y="{h - 4}" font-size="10">blue: reference, orange: TIDL (count, square-root '
                 'scale)</text></svg>')
    return "".join(parts)


def compare_body(report: CompareReport, anchor: str = "", subgraph: str = "") -> str:
    """The page's content without its head (summary, SNR per layer, histograms of the first bad
    layer, table), styled by :data:`COMPARE_CSS`: what :func:`render_html` wraps and ``tidl-io
    report`` shows. ``anchor``: a prefix; each row then gets the id
    ``base.text.layer_anchor(anchor, subgraph, index)``."""
    bad = report.first_bad
    if bad is None:
        summary = f"no layer under {report.min_snr_db:g} dB ({len(report.compared)} compared)"
    else:
        summary = (f"first bad layer: {_index(bad)} (dataId {bad.data_id}) <b>{esc(bad.name or '')}</b> — "
                   f"{esc(_bad_summary(report, bad))} (threshold {report.min_snr_db:g} dB)")
    head = "".join(f"<th>{esc(c)}</th>" for c in _HEAD[:-1])
    body = []
    for r in report.rows:
        cells = _cells(r)[:-1]
        tds = "".join(f'<td class="name" title="{esc(r.name or "")}">{esc(c)}</td>' if i == 3 else f"<td>{esc(c)}</td>"
                      for i, c in enumerate(cells))
        ident = f' id="{esc(layer_anchor(anchor, subgraph, r.index))}"' if anchor and r.index is not None else ""
        body.append(f'<tr class="{"bad" if r.bad else ""}" data-index="{_index(r)}"{ident}>{tds}</tr>')
    hists = "".join(_hist_svg(h_) for h_ in report.histograms)
    extra = "".join(f'<p class="warn">not compared: {_layer(r)} (dataId {r.data_id}) {esc(r.name or "")}: '
                    f"{esc(r.note)}</p>" for r in report.unmatched)
    extra += "".join(f'<p class="warn">warning: {esc(w)}</p>' for w in report.warnings)
    extra += "".join(f'<p class="note">note: {esc(n)}</p>' for n in report.notes)
    return (f'<p class="note">tidl-io {esc(__version__)} · reference: {esc(report.reference)} · test: '
            f"{esc(report.test)}</p><p class=\"summary\">{summary}</p><h2>SNR per layer</h2>{_snr_svg(report)}"
            + (f"<h2>First bad layer: reference vs TIDL</h2>{hists}" if hists else "")
            + f"<h2>Layers</h2><table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
            f"{extra}")


def render_html(report: CompareReport) -> str:
    """The report page: summary, SNR per layer, histograms of the first bad layer, table."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>tidl-io compare</title><style>{COMPARE_CSS}</style></head>"
            f'<body data-tidl-io-compare="{len(report.rows)}"><h1>Which layer loses accuracy?</h1>'
            + compare_body(report) + "</body></html>\n")
