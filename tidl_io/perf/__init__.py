"""Where the time goes: TI's compile-time performance simulation, buffer placement log
(bufinfolog), netLog MACs and the board's measured cycles, joined per layer.

This package owns reading those files (one pure reader each: :mod:`.simulation`,
:mod:`.bufinfo`, :mod:`.board`; the netLog and layer_info.txt through the net's readers,
:mod:`tidl_io.net.netlog` and :mod:`tidl_io.net.layerinfo`), finding and joining them (:mod:`.load`),
the objects (:mod:`.model`), their text and JSON (:mod:`.report`), the HTML page
(:mod:`.page`) and the comparison of two compilations (:mod:`.diff`).

>>> perf = tidl_io.load_perf("od-8220-yolox-10.0")                    # doctest: +SKIP
>>> perf.subgraphs[0].total.time_ms, perf.layer_time_us(40)           # doctest: +SKIP
(367.46284, 103836.02)
"""

from __future__ import annotations

from .diff import PerfDiff, diff_perf
from .load import load_perf
from .model import BoardCycles, LayerPerf, PerformanceData, SubgraphPerf, Totals, TypeTotal
from .performance import Performance

__all__ = ["BoardCycles", "LayerPerf", "PerfDiff", "Performance", "PerformanceData", "SubgraphPerf", "Totals", "TypeTotal", "diff_perf",
           "load_perf"]
