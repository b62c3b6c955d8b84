"""Text for terminals and messages, shared by every report: escaping and short values.

- :func:`escape`: a file or folder name (or any text from a file) with the characters that
  would drive a terminal or break a one-line report (ESC, newline, tab, other controls, the
  Unicode line and paragraph separators) written as Python escapes: ``"a\\x1b[2Jb"``;
- :func:`escape_lines`: the same for a report of several lines, each line escaped alone;
- :func:`short`: a name for a table cell, at most ``width`` characters, cut in the middle;
- :func:`short_repr`: a value for an error message, never longer than ``limit`` characters
  (a 25 MB YAML value must not become a 25 MB error line);
- :func:`closest`: the names most like a given one (an unknown node or layer name), in bounded
  work (difflib's ratio is quadratic in the length: a 500 000-character name took seconds);
- :func:`report_repr`: the ``repr()`` of a report object: its class, its source and a few
  counts and headline numbers, never longer than :data:`REPR_LIMIT` characters (a report's
  dataclass repr would print every row: hundreds of kilobytes);
- :func:`layer_anchor`: the HTML id of one layer's row in one section of a page, so that the
  sections of ``tidl-io report`` link a layer across them.
"""

from __future__ import annotations

import reprlib
from collections.abc import Iterable

__all__ = ["CLOSE_CHARS", "CLOSE_NAMES", "PAGE_HEAD", "REPR_LIMIT", "closest", "escape", "escape_lines", "html_page",
           "html_table", "layer_anchor", "report_repr", "short", "short_repr"]

CLOSE_CHARS = 128
"""Characters of a name :func:`closest` compares: its first and last 64 (ONNX names are tens of
characters; TI's netLog keeps the last 50)."""
CLOSE_NAMES = 1 << 15
"""Names :func:`closest` looks at, at most (the first ones given: graphvizInfo.txt's node cap)."""
_CLOSE_EXACT = 200  # names that share the most characters with it, then compared by difflib's ratio

REPR_LIMIT = 300
"""The longest :func:`report_repr`."""


def escape(text: str) -> str:
    """``text`` with every non-printable character (controls, ``\\n``, ``\\t``, ESC, U+2028...)
    as its Python escape; printable text, other scripts included, is unchanged."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text)


def escape_lines(text: str) -> str:
    """A report of several lines with each line escaped (the line breaks between them kept)."""
    return "\n".join(escape(line) for line in text.split("\n"))


def short(name: str, width: int = 40) -> str:
    """``name`` escaped (:func:`escape`) and, when longer than ``width``, cut in the middle
    with "…" so that its start and end both show."""
    name = escape(name)
    if width <= 0 or len(name) <= width:
        return name
    keep = width - 1
    return name[: keep // 2] + "…" + name[len(name) - (keep - keep // 2):]


def _clip(name: str) -> str:
    half = CLOSE_CHARS // 2
    return name if len(name) <= CLOSE_CHARS else name[:half] + name[-half:]


def closest(name: str, names: Iterable[str], n: int = 3, cutoff: float = 0.0) -> list[str]:
    """The ``n`` names of ``names`` most like ``name`` (difflib's ratio, at least ``cutoff``),
    best first, ties in the order given. Bounded work: :data:`CLOSE_CHARS` characters of each
    name, the first :data:`CLOSE_NAMES` names; of those, the 200 sharing the most distinct
    characters with ``name`` get difflib's (quadratic) ratio. Exact for up to 200 names."""
    import difflib  # start-up
    import heapq  # start-up

    key = _clip(name)
    chars = set(key)
    pool = []
    for i, candidate in enumerate(names):
        if i >= CLOSE_NAMES:
            break
        clipped = _clip(candidate)
        theirs = set(clipped)
        pool.append((2 * len(chars & theirs) / (len(chars) + len(theirs) or 1), -i, clipped, candidate))
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(key)
    scored = []
    for _, i, clipped, candidate in heapq.nlargest(_CLOSE_EXACT, pool) if len(pool) > _CLOSE_EXACT else pool:
        matcher.set_seq1(clipped)
        score = matcher.ratio()
        if score >= cutoff:
            scored.append((-score, -i, candidate))
    return [c for _, _, c in sorted(scored)[:n]]


def short_repr(value: object, limit: int = 60) -> str:
    """``repr(value)`` for a message, at most ``limit`` characters ("..." where cut). Built
    with :mod:`reprlib`, so the repr of a huge or deeply nested value is never made whole."""
    try:
        text = _REPR.repr(value)
    except ValueError:  # an int past Python's 4300-digit str() limit
        text = f"an int of {len(format(value, 'x')) if isinstance(value, int) else '?'} hex digits"
    return text if len(text) <= limit else text[: limit - 3] + "..."


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother, _REPR.maxlong = 3, 80, 80, 40
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = _REPR.maxfrozenset = 8


def report_repr(obj: object, source: object, **fields: object) -> str:
    """``ClassName('source', key=value, ...)`` for a report object: ``source`` (a path or a
    description) cut in the middle to 100 characters, each value :func:`short_repr` (at most 60
    characters), the whole at most :data:`REPR_LIMIT` characters ("…)" where cut).

    >>> report_repr(report, "model/artifacts", layers=52, ok=False)   # doctest: +SKIP
    "CompareReport('model/artifacts', layers=52, ok=False)"
    """
    text = str(source)
    if len(text) > 100:
        text = text[:49] + "…" + text[-50:]
    parts = [repr(text)] + [f"{key}={short_repr(value)}" for key, value in fields.items()]
    out = f"{type(obj).__name__}({', '.join(parts)})"
    return out if len(out) <= REPR_LIMIT else out[: REPR_LIMIT - 2] + "…)"


def layer_anchor(section: str, subgraph: str, index: int) -> str:
    """The HTML id of layer ``index`` (the net's layer index) of ``subgraph`` in ``section``:
    ``"perf-subgraph_0-12"``; characters other than ASCII letters, digits, ``_`` and ``.`` in the
    subgraph's name become ``_`` (an id has no spaces; a name from a file can hold anything)."""
    clean = "".join(c if c.isascii() and (c.isalnum() or c in "_.") else "_" for c in subgraph)
    return f"{section}-{clean}-{index}"


PAGE_HEAD = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
             "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
             "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
"""The head every page of tidl-io starts with: nothing fetched, no script (``default-src 'none'``)."""


def html_page(title: str, css: str, body: str, h1: str | None = None) -> str:
    """One self-contained HTML page: :data:`PAGE_HEAD`, ``title`` (escaped), the inline ``css``,
    an ``<h1>`` (``h1``, escaped; default ``title``) and ``body`` (HTML, used as it is)."""
    import html  # start-up: plain inspect loads this module, never a page

    return (f"{PAGE_HEAD}<title>{html.escape(escape(title))}</title><style>{css}</style></head><body>"
            f"<h1>{html.escape(escape(title if h1 is None else h1))}</h1>{body}</body></html>\n")


def html_table(head: list[str], rows: list[tuple[str, list[str]]]) -> str:
    """A table: ``head`` (plain text, escaped) and ``rows``, each ``(attributes, cells)`` where
    ``attributes`` is the ``<tr>``'s attribute text (HTML, e.g. ``' id="x"'``, or "") and each
    cell is HTML (the caller escaped what came from a file)."""
    import html  # start-up: plain inspect loads this module, never a page

    th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join(f"<tr{attrs}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>" for attrs, cells in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"
