"""Which layer loses accuracy: TIDL layer traces and calibration dumps, read against the
net and compared with a float golden run (see :mod:`tidl_io.trace.compare`)."""

from __future__ import annotations

from .calibration import Calibration, load_calibration
from .load import TraceFile, Traces, load_traces
from .metrics import Metrics
from .names import TraceName, parse_trace_name

__all__ = ["Calibration", "Metrics", "TraceFile", "TraceName", "Traces", "load_calibration", "load_traces",
           "parse_trace_name"]
