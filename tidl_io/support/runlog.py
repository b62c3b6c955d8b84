"""The compile log's "Subgraph Information Summary" (TIDL 10.x, printed when parsing ends)::

    ------------------------- Subgraph Information Summary -------------------------
    |          Core           |      No. of Nodes       |   Number of Subgraphs   |
    | C7x                     |                     271 |                       1 |
    | CPU                     |                       0 |                       x |

:func:`parse_subgraph_summary` is a pure function of the log's text.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..base.errors import FormatError
from ..base.numtext import NumberError, read_int

__all__ = ["CoreSummary", "parse_subgraph_summary"]

_TITLE = "Subgraph Information Summary"
_MAX_ROWS = 64


@dataclass(frozen=True)
class CoreSummary:
    """One row: the core (``C7x``, ``CPU``), its node count and subgraph count (None for TI's ``x``)."""

    core: str
    nodes: int
    subgraphs: int | None
    line: int


def parse_subgraph_summary(text: str, source: str = "run.log") -> tuple[CoreSummary, ...] | None:
    """The rows of the LAST summary in the log (a log of two compilations has two), or None when
    the log has none; a :class:`~tidl_io.FormatError` naming the line for a malformed row or a
    table cut short."""
    lines = text.splitlines()
    start = None
    for i, line in enumerate(lines):
        if _TITLE in line:
            start = i
    if start is None:
        return None
    rows: list[CoreSummary] = []
    header_seen = False
    for i in range(start + 1, min(len(lines), start + 4 + 2 * _MAX_ROWS)):
        line = lines[i].strip()
        if set(line) <= {"-", " "} and line:
            continue
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) != 3:
            raise FormatError(source, f"line {i + 1}: expected 3 columns (core, nodes, subgraphs), found {len(cells)}")
        if not header_seen and not cells[1].isdigit():
            header_seen = True
            continue
        try:
            nodes = read_int(cells[1])
            subgraphs = None if cells[2].lower() == "x" else read_int(cells[2])
        except NumberError as exc:
            raise FormatError(source, f"line {i + 1}: expected whole numbers (or x): {exc.detail}") from None
        if nodes < 0 or (subgraphs is not None and subgraphs < 0):
            raise FormatError(source, f"line {i + 1}: counts must be >= 0, found {line[:80]!r}")
        rows.append(CoreSummary(cells[0], nodes, subgraphs, i + 1))
    if not rows:
        raise FormatError(source, f"line {start + 1}: the {_TITLE} has no rows (log cut short?)")
    return tuple(rows)
