"""``TIDL_DataConvertLayer``: float -> codes (``v = x * scale``, rounded half away from zero,
saturated, all in float32) and codes -> float (``q * float32(1 / scale)``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...net import Layer
from .. import kernels
from .base import FLOAT, Decoding, Op, OpType, check_quant, f32, int_dtype, need, scales

__all__ = ["TYPE", "DataConvertOp"]

_DC_INPUT = 0  # TIDL_DC_TYPE_INPUT


@dataclass(frozen=True)
class DataConvertOp(Op):
    """float -> codes (``scale``: the output's tensorScale) or codes -> float (``scale``:
    1 / the input's tensorScale, in float32 as TIDL computes it)."""

    to_float: bool = False
    scale: float = 1.0  # a float32 value
    dtype: np.dtype = field(default=np.dtype(np.int8))

    def run(self, args: Sequence[np.ndarray], inputs: Mapping[int, np.ndarray]) -> np.ndarray:
        if self.to_float:
            return kernels.dequantize_float32(args[0], self.scale)
        return kernels.quantize_float32(args[0], self.scale, self.dtype)


def decode(d: Decoding, layer: Layer, sources: list[Layer]) -> Op:
    src = sources[0]
    p = need(layer, d, "type")
    check_quant(layer, d, src)
    scales(layer, d, src)
    if layer.shape != src.shape:
        raise d.stop(layer, f"shape {layer.shape} from input shape {src.shape}")
    if src.element_code == FLOAT and layer.element_code != FLOAT:
        if p["type"] != _DC_INPUT:
            raise d.stop(layer, f"float input with type {p['type']}")
        return DataConvertOp(layer, False, float(np.float32(layer.scale)), int_dtype(layer, d))
    if src.element_code != FLOAT and layer.element_code == FLOAT:
        int_dtype(src, d, "input")
        if not src.scale > 0:
            raise d.stop(layer, f"input tensorScale {src.scale}")
        with np.errstate(over="ignore"):
            inverse = f32(layer.scale) / f32(src.scale)
        if not np.isfinite(inverse[0]):
            raise d.stop(layer, f"output scale {layer.scale} / input scale {src.scale} is not a float32")
        return DataConvertOp(layer, True, float(inverse[0]), np.dtype(np.float32))
    raise d.stop(layer, f"conversion from element type {src.element_code} to {layer.element_code}")


TYPE = OpType("TIDL_DataConvertLayer", decode, "float → int8 / uint8 / int16 codes and codes → float",
              "9.0 / 9.1 (9.2 assumed); 10.0 / 10.1 (the 9.0 arithmetic, no 10.0 oracle)",
              "bit for bit against TI's dumps: EAST 9.0 (stats_tool_out, every layer's means), fcnn-cnn5 9.0 (means)")
