""":class:`Section` (one part's document, the files it read or what is missing, its page body)
and :class:`ModelReport` (the sections of one model, as text, JSON and one HTML page)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..base.text import PAGE_HEAD, escape, report_repr
from ..base.version import __version__
from ..iodesc.format import SCHEMA_VERSION
from ..iodesc.picture import esc

__all__ = ["ModelReport", "Section", "scope_css"]


@dataclass(frozen=True)
class Section:
    """One part of the report. ``document``: the part's own JSON document, equal to what
    ``command`` prints with ``--json`` on the same folder (None when the part could not be
    made: ``missing`` says which file would fill it); ``files``: what the part read;
    ``finding``: the part found a problem (``tidl-io report`` exits 1); ``body`` / ``css``: the
    part's own HTML renderer of its object (its page without the head) and that page's CSS."""

    key: str
    title: str
    command: str
    document: dict[str, Any] | None
    files: tuple[str, ...] = ()
    missing: str | None = None
    finding: bool = False
    notes: tuple[str, ...] = ()
    body: Callable[[], str] | None = field(default=None, compare=False, repr=False)
    css: str = field(default="", compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"title": self.title, "command": self.command, "files": list(self.files), "missing": self.missing,
                "finding": self.finding, "notes": list(self.notes), "document": self.document}

    def status(self) -> str:
        return "missing" if self.document is None else "finding" if self.finding else "ok"


@dataclass(frozen=True)
class ModelReport:
    """What :func:`tidl_io.report` returns: the model at ``path`` section by section
    (``doctor`` first)."""

    path: str
    sections: tuple[Section, ...]

    def __repr__(self) -> str:
        return report_repr(self, self.path, sections=len(self.sections), ok=self.ok)

    @property
    def ok(self) -> bool:
        """No section found a problem (``tidl-io report`` exits 0)."""
        return not any(s.finding for s in self.sections)

    def section(self, key: str) -> Section:
        """The section ``key`` (``doctor``, ``model``, ``perf``, ``support``, ``quant``,
        ``compare``, ``advise``, ``emulation``); a KeyError otherwise."""
        for s in self.sections:
            if s.key == key:
                return s
        raise KeyError(f"{self.path}: no section {key!r}; the sections: {', '.join(s.key for s in self.sections)}")

    def to_dict(self) -> dict[str, Any]:
        """``tidl-io report --json``: ``sections`` by key, each with its part's own ``document``."""
        return {"schema_version": SCHEMA_VERSION, "path": self.path, "ok": self.ok,
                "sections": {s.key: s.to_dict() for s in self.sections}}

    def to_text(self) -> str:
        """One line per section: its status, what it read or what is missing."""
        lines = [f"{escape(self.path)}: one page per model ({'no finding' if self.ok else 'a finding'})"]
        for s in self.sections:
            lines.append(f"  {s.title}: {s.status()}")
            if s.missing is not None:
                lines.append(f"    missing: {escape(s.missing)}")
            else:
                lines.append(f"    read: {escape(', '.join(s.files) or '-')}")
        return "\n".join(lines)

    def to_html(self) -> str:
        """One self-contained page: a contents line, then each section: its title, what it
        read (or which missing file would fill it) and the part's own body, each part's CSS
        scoped to its section (:func:`scope_css`). No script, nothing fetched."""
        css = _CSS + "".join(scope_css(s.css, f"#{s.key}") for s in self.sections if s.body is not None)
        toc = " · ".join(f'<a href="#{s.key}" class="{s.status()}">{esc(s.title)}</a>' for s in self.sections)
        parts = [f"{PAGE_HEAD}<title>tidl-io report: {esc(escape(self.path))}</title><style>{css}</style></head>",
                 f'<body data-tidl-io-model-report="{len(self.sections)}">',
                 f"<h1>tidl-io report: {esc(escape(self.path))}</h1>",
                 f'<p class="verdict {"ok" if self.ok else "finding"}">'
                 + ("no section found a problem" if self.ok else
                    "found: " + ", ".join(esc(s.title) for s in self.sections if s.finding)) + "</p>",
                 f'<nav class="toc">{toc}</nav>']
        for s in self.sections:
            parts.append(f'<section id="{s.key}" class="part {s.status()}" data-section="{s.key}">'
                         f"<h2>{esc(s.title)}</h2>")
            if s.missing is not None:
                parts.append(f'<p class="missing">nothing to show: {esc(escape(s.missing))}</p>')
            else:
                parts.append(f'<p class="read">read: {esc(escape(", ".join(s.files) or "-"))} · the same as '
                             f"<code>{esc(escape(s.command))}</code></p>")
            parts += [f'<p class="note">note: {esc(escape(n))}</p>' for n in s.notes]
            if s.body is not None:
                parts.append(s.body())
            parts.append("</section>")
        parts.append(f'<p class="note">tidl-io {esc(__version__)}</p></body></html>\n')
        return "".join(parts)


_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1a202c;background:#fff}
h1{font-size:1.5em;word-break:break-all}section.part{border-top:3px solid #2b6cb0;margin-top:2em}
section.part>h2{font-size:1.3em}section.missing{border-top-color:#a0aec0}section.finding{border-top-color:#c53030}
p.missing,p.absent{color:#4a5568;font-style:italic}p.read,p.note{color:#4a5568;font-size:12px;word-break:break-all}
.toc a{margin-right:.3em}.toc a.missing{color:#718096}.toc a.finding{color:#c53030;font-weight:bold}
.verdict.ok{color:#276749;font-weight:bold}.verdict.finding{color:#c53030;font-weight:bold}
:target{outline:2px solid #d69e2e}tr:target td{background:#fefcbf}
"""

_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")


def scope_css(css: str, scope: str) -> str:
    """A part's page CSS (plain rules ``selectors{declarations}``, no at-rule) with every
    selector put under ``scope`` (``body`` becomes ``scope`` itself, ``h1`` ``scope h1``), so
    that one part's table style does not restyle another's. Page-wide rules of ``body``
    (margins, the font) are the report's own: a scoped ``body`` keeps only colours."""
    out = []
    for selectors, decls in _RULE.findall(css):
        scoped = []
        for sel in selectors.split(","):
            sel = sel.strip()
            if not sel:
                continue
            if sel == "body":
                scoped.append(scope)
                decls = ";".join(d for d in decls.split(";") if d.strip().startswith(("color", "background")))
            else:
                scoped.append(f"{scope} {sel.removeprefix('body ')}")
        if scoped:
            out.append(f"{','.join(scoped)}{{{decls.strip()}}}")
    return "\n".join(out) + "\n"
