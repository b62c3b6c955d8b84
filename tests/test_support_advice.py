"""tidl_io.support.advice: one sentence per reason group where TI documents a way, none otherwise."""

from __future__ import annotations

from tidl_io.support.advice import DEFAULT_MAX_SUBGRAPHS, advice_for, subgraph_advice
from tidl_io.support.graphviz import Status


def test_supported_nodes_need_nothing_but_post_processing_is_explained() -> None:
    assert advice_for(Status.SUPPORTED, "Conv", "SUPPORTED: Layers type supported by TIDL") is None
    text = advice_for(Status.SUPPORTED, "Reshape",
                      "INFORMATION: Not part of backbone network, will be delegated in post-processing")
    assert text is not None and text.startswith("nothing to do")


def test_unsupported_names_the_optimizer_rule_or_the_rewrite() -> None:
    norm = advice_for(Status.UNSUPPORTED, "LayerNormalization", "Layer type not supported by TIDL")
    assert norm is not None and "expand_layernorm_to_component_ops" in norm and "ARM" in norm
    div = advice_for(Status.UNSUPPORTED, "Div", "Layer type not supported by TIDL --- layer type - Div")
    assert div is not None and "Mul by its inverse" in div
    other = advice_for(Status.UNSUPPORTED, "NonMaxSuppression", "Layer type not supported by TIDL")
    assert other is not None and "supported-operator list" in other
    assert advice_for(Status.UNKNOWN, "X", "something new") is None


def test_subgraph_limit() -> None:
    assert DEFAULT_MAX_SUBGRAPHS == 16
    assert subgraph_advice(3, 16) is None
    assert subgraph_advice(16, 16) == "16 subgraphs: at TIDL's limit (max_num_subgraphs 16)"
    over = subgraph_advice(17, 16)
    assert over is not None and over.startswith("17 subgraphs, but TIDL offloads at most 16")
