"""``tidl-io doctor``'s report: :class:`Diagnosis` (what :func:`tidl_io.diagnose` returns) and its
text, JSON and one small HTML page (the doctor owns its presentation)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from html import escape as html_escape
from pathlib import Path
from typing import Any

from ..base.findings import ERROR, DoctorFinding
from ..base.releases import releases_text
from ..base.text import escape, report_repr
from ..base.version import __version__
from ..iodesc.format import SCHEMA_VERSION


@dataclass(frozen=True)
class SubgraphReport:
    """What one subgraph's files say: io layout and release, net version and release."""

    name: str
    io_file: str
    net_file: str | None
    io_layout: str | None = None  # e.g. "10.x/c1"
    io_title: str | None = None  # e.g. "TIDL 10.0-11.x"
    io_size: int | None = None
    net_version: int | None = None
    net_release: str | None = None  # as the net reader names it, e.g. "9.0/9.1"
    num_layers: int | None = None
    num_inputs: int | None = None
    num_outputs: int | None = None
    io_missing: bool = False  # only the net is there (io_file: the name TI's tools give it)


@dataclass(frozen=True)
class Diagnosis:
    """The result of :func:`diagnose`: the subgraphs found, the release(s) the artifacts
    need, the library tidl-io would load (a description, or None) and every finding."""

    path: str
    folder: str
    subgraphs: tuple[SubgraphReport, ...]
    releases: tuple[str, ...]
    library: str | None
    findings: tuple[DoctorFinding, ...]

    def __repr__(self) -> str:
        return report_repr(self, self.path, subgraphs=len(self.subgraphs), releases=self.releases,
                           findings=len(self.findings), errors=len(self.errors), ok=self.ok)

    @property
    def errors(self) -> tuple[DoctorFinding, ...]:
        return tuple(f for f in self.findings if f.level == ERROR)

    @property
    def ok(self) -> bool:
        """No error finding (what ``tidl-io doctor`` exits 0 for)."""
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        """The JSON object ``tidl-io doctor --json`` prints (strict JSON: ``json.dumps(...,
        allow_nan=False)`` takes it)."""
        return diagnosis_to_dict(self)

    def to_text(self) -> str:
        """The text ``tidl-io doctor`` prints: one line per subgraph, one per finding, a verdict;
        control characters in names escaped."""
        return format_diagnosis(self)

    def to_html(self) -> str:
        """One small self-contained HTML page (``tidl-io doctor --html``)."""
        return diagnosis_to_html(self)


def format_diagnosis(d: Diagnosis) -> str:
    """``tidl-io doctor``'s text (:meth:`Diagnosis.to_text`): what each subgraph's files say,
    then one line per finding (``error: file, place: message``) and a verdict line. Every
    line is escaped (:func:`tidl_io.base.text.escape`): a name holding ESC or a newline cannot
    drive the terminal or split a finding over two lines."""
    lines = ([f"{d.folder}: TIDL {releases_text(d.releases, 'unknown')}, {len(d.subgraphs)} subgraph(s)"]
             if d.subgraphs else [])
    for s in d.subgraphs:
        io = f"{Path(s.io_file).name} {s.io_title} ({s.io_size} bytes)" if s.io_title else Path(s.io_file).name
        if s.io_missing:
            io = f"no {Path(s.io_file).name}"
        if s.net_version is not None:
            net = f"{Path(s.net_file or '').name} netVersion {s.net_version:#010x} (TIDL {s.net_release}), " \
                  f"{s.num_layers} layers"
        else:
            net = f"{Path(s.net_file).name} (unreadable)" if s.net_file else "no net file"
        io_count = f"; {s.num_inputs} input(s), {s.num_outputs} output(s)" if s.num_inputs is not None else ""
        lines.append(f"  subgraph {s.name!r}: {io}; {net}{io_count}")
    if d.subgraphs:
        lines.append(f"  TIDL-RT: {d.library or 'no library identified (see the notes)'}")
    lines += [str(f) for f in d.findings]
    errors, notes = len(d.errors), len(d.findings) - len(d.errors)
    verdict = "all files agree" if d.ok else f"{errors} problem(s)"
    lines.append(f"{d.folder}: {verdict} ({errors} error(s), {notes} note(s))")
    return "\n".join(escape(line) for line in lines)


def diagnosis_to_dict(d: Diagnosis) -> dict[str, Any]:
    """``tidl-io doctor --json`` (:meth:`Diagnosis.to_dict`): the subgraphs, the releases, the
    library and every finding; names as they are (JSON escapes what needs it)."""
    return {
        "schema_version": SCHEMA_VERSION, "path": d.path, "folder": d.folder, "ok": d.ok,
        "releases": list(d.releases), "library": d.library,
        "subgraphs": [dataclasses.asdict(s) for s in d.subgraphs],
        "findings": [{"level": f.level, "check": f.check, "source": f.source, "where": list(f.where),
                      "subgraph": f.subgraph, "message": f.message} for f in d.findings],
    }


DOCTOR_CSS = """
body { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; margin: 24px; color: #1a202c; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 24px; border-bottom: 2px solid #2b6cb0; }
table { border-collapse: collapse; font-size: 12px; } th { background: #edf2f7; }
th, td { border: 1px solid #cbd5e0; padding: 3px 8px; text-align: left; vertical-align: top; }
td.msg { word-break: break-word; max-width: 900px; } tr.error td.level { color: #c53030; font-weight: bold; }
tr.note td.level { color: #2b6cb0; } p.ok { color: #276749; font-weight: bold; } p.bad { color: #c53030;
font-weight: bold; }
"""


def diagnosis_body(d: Diagnosis) -> str:
    """The page's content without its head (the verdict, the subgraphs, each finding): what
    :func:`diagnosis_to_html` wraps, and what ``tidl-io report`` puts in its doctor section
    (styled by :data:`DOCTOR_CSS`); every name and message is HTML-escaped."""
    def esc(text: str) -> str:  # control characters as Python escapes, then HTML's
        return html_escape(escape(text))

    def row(cells: Iterable[str], cls: str = "") -> str:
        klass = f' class="{cls}"' if cls else ""
        return f"<tr{klass}>" + "".join(cells) + "</tr>"

    subs = [row(f"<td>{esc(str(v))}</td>" for v in (
        s.name, ("missing: " if s.io_missing else "") + Path(s.io_file).name, s.io_title or "-",
        Path(s.net_file).name if s.net_file else "-",
        "-" if s.net_version is None else f"{s.net_version:#010x} (TIDL {s.net_release})",
        "-" if s.num_layers is None else s.num_layers)) for s in d.subgraphs]
    finds = [row((f'<td class="level">{esc(f.level)}</td>', f"<td>{esc(f.check)}</td>",
                  f"<td>{esc(', '.join((f.source, *f.where)))}</td>", f'<td class="msg">{esc(f.message)}</td>'),
                 f.level) for f in d.findings]
    errors, notes = len(d.errors), len(d.findings) - len(d.errors)
    verdict = "all files agree" if d.ok else f"{errors} problem(s)"
    parts = [
        f"<p>TIDL {esc(releases_text(d.releases, 'unknown'))}; TIDL-RT: {esc(d.library or 'no library identified')}</p>",
        f'<p class="{"ok" if d.ok else "bad"}">{esc(verdict)} ({errors} error(s), {notes} note(s))</p>',
    ]
    if subs:
        head = "".join(f"<th>{h}</th>" for h in ("subgraph", "io file", "io layout", "net file", "netVersion",
                                                 "layers"))
        parts.append(f"<h2>Subgraphs</h2><table><thead><tr>{head}</tr></thead><tbody>{''.join(subs)}</tbody></table>")
    if finds:
        head = "".join(f"<th>{h}</th>" for h in ("level", "check", "where", "message"))
        parts.append(f"<h2>Findings</h2><table><thead><tr>{head}</tr></thead><tbody>{''.join(finds)}</tbody></table>")
    return "\n".join(parts)


def diagnosis_to_html(d: Diagnosis) -> str:
    """``tidl-io doctor --html`` (:meth:`Diagnosis.to_html`): one small self-contained page
    (no script, nothing fetched: ``default-src 'none'``) with the subgraphs, each finding and
    the verdict (:func:`diagnosis_body`)."""
    folder = html_escape(escape(d.folder))
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>tidl-io doctor: {folder}</title><style>{DOCTOR_CSS}</style></head><body>",
        f"<h1>tidl-io doctor: {folder}</h1>", diagnosis_body(d),
        f"<p><small>tidl-io {html_escape(__version__)}</small></p></body></html>",
    ]
    return "\n".join(parts) + "\n"
