"""What a user can do about a node TIDL did not take, where TI documents a way.

Sources (TI's public documentation; facts only): the runtime options ``deny_list:layer_type`` /
``deny_list:layer_name`` (keep nodes off TIDL on purpose) and ``max_num_subgraphs`` (default
16: the subgraphs TIDL offloads, the rest runs on the ARM); TI's ``tidl-onnx-model-optimizer``
(edgeai-tidl-tools, ``scripts/osrt_model_tools/onnx_tools``) rewrites some ONNX ops into forms
TIDL supports, one rule (flag of ``optimize``) per rewrite.
"""

from __future__ import annotations

from .graphviz import Status

__all__ = ["DEFAULT_MAX_SUBGRAPHS", "advice_for", "subgraph_advice"]

DEFAULT_MAX_SUBGRAPHS = 16  # runtime option max_num_subgraphs, TI's default

# ONNX op -> tidl-onnx-model-optimizer rules that rewrite it (their README's table)
_OPTIMIZER_RULES = {
    "LayerNormalization": ("expand_layernorm_to_component_ops",),
    "Gemm": ("convert_gemm_to_matmul_and_add",),
    "MatMul": ("convert_matmul_to_conv_1x1s1",),
    "ReduceMean": ("convert_reducemean_to_matmul",),
    "Softmax": ("convert_softmax_axis_channel_to_width", "convert_softmax_axis_height_to_width"),
    "Gather": ("convert_gather_with_single_index_to_slice",),
    "MaxPool": ("convert_maxpool_to_cascaded_maxpool",),
    "Concat": ("convert_concat_axis_width_to_channel",),
    "Resize": ("convert_resize_params_size_to_scale",),
    "BatchNormalization": ("convert_batchnorm_input_to_4D",),
    "GlobalAveragePool": ("convert_large_global_avg_pooling_to_matmul",),
    "Conv": ("convert_conv_large_pad_to_smaller_kernel",),
}


def advice_for(status: Status, op: str, reason: str) -> str | None:
    """One sentence for a group of nodes (same status, op and reason), or None when there is
    nothing to do."""
    low = reason.lower()
    if status is Status.SUPPORTED:
        if "post-processing" in low or "post processing" in low:
            return ("nothing to do: TIDL replaces these nodes by its own detection post-processing (the "
                    "meta-architecture of object_detection:meta_arch_type), which runs on the C7x")
        return None
    rules = _OPTIMIZER_RULES.get(op)
    fix = (f"TI's tidl-onnx-model-optimizer may rewrite it: rule(s) {', '.join(rules)}; "
           if rules else "rewrite it with ops TIDL supports (TI's supported-operator list for your release); ")
    if op == "Div":
        fix = "a Div by a constant is a Mul by its inverse, which TIDL supports; "
    if status is Status.UNSUPPORTED:
        return (f"{fix}else it runs on the ARM and cuts the graph there; at the start or end of the model "
                f"that costs one copy, in the middle it splits the model into subgraphs")
    return None


def subgraph_advice(count: int, limit: int) -> str | None:
    """Text when the model has more subgraphs than TIDL offloads (or is at the limit)."""
    if count > limit:
        return (f"{count} subgraphs, but TIDL offloads at most {limit} (runtime option max_num_subgraphs): "
                f"the rest run on the ARM")
    if count == limit:
        return f"{count} subgraphs: at TIDL's limit (max_num_subgraphs {limit})"
    return None
