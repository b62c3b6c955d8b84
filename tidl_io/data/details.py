"""TFLite-style tensor details (``get_input_details`` / ``get_output_details``), with TIDL's
own keys beside TFLite's, for code written against TFLite's interpreter."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base.check import check_kind
from ..iodesc.descriptor import Descriptor, ElementType, Tensor
from .plan import out_shape

__all__ = ["get_input_details", "get_output_details"]


def get_input_details(desc: Descriptor) -> list[dict[str, Any]]:
    """One dict per input in TFLite's ``get_input_details()`` shape, plus TIDL's own keys.

    TFLite's keys: ``name``, ``index``, ``shape`` and ``shape_signature`` (np.int32 arrays,
    squeezed, in the tensor's ``layout``: NHWC tensors, as TFLite models have, read
    ``[1, H, W, C]`` as TFLite users expect), ``dtype`` (the numpy type),
    ``quantization`` = TFLite's ``(step, zero_point)`` with ``step = 1 / tidl_scale``
    (``(0.0, 0)`` for float tensors, like TFLite), ``quantization_parameters``,
    ``sparsity_parameters`` (empty).

    TIDL's keys: ``layout`` (the buffer layout, "NCHW" or "NHWC"; ``shape`` is what
    ``unpack(t, buf, layout=d["layout"])`` returns and :func:`pack` accepts with that
    layout), ``shape_nchw`` (the same tensor channels first: what pack/unpack take by
    default; equal to ``shape`` for NCHW tensors), ``tidl_scale`` (TIDL's multiplier,
    ``q = x * tidl_scale + tidl_zero_point``: do not use it as a TFLite scale),
    ``tidl_zero_point``, ``buffer_size`` (the padded buffer's length in elements).
    """
    return [_details(t) for t in check_kind(desc, Descriptor, "get_input_details", "desc").inputs]


def get_output_details(desc: Descriptor) -> list[dict[str, Any]]:
    """One dict per output; see :func:`get_input_details`. Real values are
    ``(q - zero_point) * step``, i.e. ``(q - tidl_zero_point) / tidl_scale``."""
    return [_details(t) for t in check_kind(desc, Descriptor, "get_output_details", "desc").outputs]


def _details(t: Tensor) -> dict[str, Any]:
    element = t.element
    nchw = np.array(out_shape(t, True, False), dtype=np.int32)
    shape = np.array(out_shape(t, True, True), dtype=np.int32) if t.layout == "NHWC" else nchw
    if element is ElementType.SinglePrecFloat or element is None:
        quantization: tuple[float, int] = (0.0, 0)
        scales, zero_points = np.zeros(0, np.float32), np.zeros(0, np.int32)
    else:
        quantization = (float(t.quant_step), int(t.zero_point))
        with np.errstate(over="ignore"):  # the step of a subnormal scale is beyond float32: inf
            scales = np.array([t.quant_step], np.float32)
        zero_points = np.array([t.zero_point], np.int32)
    return {
        "name": t.name,
        "index": t.index,
        "shape": shape,
        "shape_signature": shape.copy(),
        "dtype": element.dtype.type if element is not None else None,
        "quantization": quantization,
        "quantization_parameters": {"scales": scales, "zero_points": zero_points, "quantized_dimension": 0},
        "sparsity_parameters": {},
        "tidl_scale": float(t.scale),
        "tidl_zero_point": int(t.zero_point),
        "layout": t.layout,
        "shape_nchw": nchw.copy(),
        "buffer_size": int(t.buffer_size),
    }
