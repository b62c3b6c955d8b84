"""The public report of :func:`tidl_io.load_perf`: :class:`Performance`, the numbers of
:class:`~tidl_io.perf.model.PerformanceData` with their text, JSON and HTML page (the
presentation modules read the numbers; this class, above both, shows them)."""

from __future__ import annotations

from typing import Any

from ..base.check import check_int
from .model import PerformanceData
from .page import render_html
from .report import format_perf, perf_to_dict

__all__ = ["Performance"]


class Performance(PerformanceData):
    """Where the time goes, for every subgraph of a compiled model (:func:`tidl_io.load_perf`).

    ``subgraphs`` in TI's order, ``source`` the folder read, ``notes`` what could not be
    joined or was left out. ``to_text()``, ``to_dict()`` (the ``--json`` document) and
    ``to_html()`` (one self-contained page) show it; :meth:`layer_time_us` looks a layer up.
    """

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` document (``schema_version`` 1, ``subgraphs[...]``; null where no file says)."""
        return perf_to_dict(self)

    def to_text(self, top: int | None = None) -> str:
        """The table (execution order, or the ``top`` slowest first), per-type totals, totals."""
        return format_perf(self, top=None if top is None else check_int(top, "to_text", "top", 1))

    def to_html(self) -> str:
        """One self-contained HTML page: a bar per layer stacked by cycle kind, DDR traffic per
        layer, the memory placement, the table."""
        return render_html(self)
