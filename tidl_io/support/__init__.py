"""Why a model was split: which of its nodes TIDL took, which run on the ARM, and TI's reasons
(``tidl-io why``). Owns the readers of ``tempDir/graphvizInfo.txt`` (:mod:`.graphviz`) and the
compile log's Subgraph Information Summary (:mod:`.runlog`), the join with ``allowedNode.txt`` /
``onnxrtMetaData.txt`` and the report's text (:mod:`.report`), and the advice per reason (:mod:`.advice`).

>>> r = tidl_io.load_support("od-8220-yolox-10.0")       # doctest: +SKIP
>>> r.counts["total"], r.counts["supported"], len(r.subgraphs)   # doctest: +SKIP
(271, 271, 1)
"""

from .graphviz import GraphNode, Status, parse_graphviz
from .report import ReasonGroup, SupportNode, SupportReport, SupportSubgraph, load_support
from .runlog import CoreSummary, parse_subgraph_summary

__all__ = ["CoreSummary", "GraphNode", "ReasonGroup", "Status", "SupportNode", "SupportReport", "SupportSubgraph",
           "load_support", "parse_graphviz", "parse_subgraph_summary"]
