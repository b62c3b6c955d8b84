"""Which layer loses accuracy: TIDL layer traces and calibration dumps, read against the
net and compared with a float reference (:func:`compare_traces`, :func:`compare_calibration`:
a :class:`CompareReport` with ``to_dict()``, ``to_text()``, ``to_html()``; the engine is
:mod:`tidl_io.trace.compare`, the report objects and their presentation
:mod:`tidl_io.trace.report`)."""

from __future__ import annotations

from .api import compare_calibration, compare_traces
from .calibration import Calibration, load_calibration
from .load import TraceFile, Traces, load_traces
from .metrics import Metrics
from .names import TraceName, parse_trace_name
from .report import CompareReport, Row, Status

__all__ = ["Calibration", "CompareReport", "Metrics", "Row", "Status", "TraceFile", "TraceName", "Traces",
           "compare_calibration", "compare_traces", "load_calibration", "load_traces", "parse_trace_name"]
