"""``TIDL_ConcatLayer``: inputs times integer multipliers (``(int32_t)(accScale / inScale)``),
joined along C, H or W, then a rounding shift and saturation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...net import Layer
from .. import kernels
from .base import Decoding, Op, OpType, check_quant, f32, int_dtype, need, sat, scales

__all__ = ["TYPE", "ConcatOp"]

_DIM_NAMES = {4: {1: "C", 2: "H", 3: "W"}, 6: {3: "C", 4: "H", 5: "W"}}  # concat axis -> logical axis


@dataclass(frozen=True)
class ConcatOp(Op):
    """Concatenation along ``axis`` (1 C, 2 H, 3 W of the logical N, C, H, W): each input
    times its integer ``multipliers[j]``, then a rounding shift and saturation."""

    axis: int = 1
    multipliers: tuple[int, ...] = ()
    shift: int = 0
    sat: tuple[int, int] = (0, 255)
    dtype: np.dtype = field(default=np.dtype(np.uint8))

    def run(self, args: Sequence[np.ndarray], inputs: Mapping[int, np.ndarray]) -> np.ndarray:
        return kernels.concat(list(args), self.multipliers, self.axis, self.shift, self.sat[0], self.sat[1],
                              self.dtype)


def decode(d: Decoding, layer: Layer, sources: list[Layer]) -> Op:
    p = need(layer, d, "axis")
    dtype = int_dtype(layer, d)
    check_quant(layer, d, *sources)
    dims = len(layer.dims)
    name = _DIM_NAMES.get(dims, {}).get(int(p["axis"]))
    if name is None or len(layer.shape) != 4:
        raise d.stop(layer, f"axis {p['axis']} of {dims}-dim tensors")
    axis = "NCHW".index(name)
    shift = int(layer.raw["outData"]["roundBits"])
    if not 0 <= shift < 31:
        raise d.stop(layer, f"roundBits {shift}")
    scales(layer, d, *sources)
    multipliers = []
    for s in sources:
        int_dtype(s, d, "input")
        with np.errstate(over="ignore"):
            ratio = (f32(layer.scale) * f32(1 << shift) / f32(s.scale))[0]  # (int32_t)(accScale / inScale)
        if len(s.shape) != 4 or not 0 <= ratio < 2**31:
            raise d.stop(layer, f"input dataId {s.data_id}: tensorScale {s.scale}, shape {s.shape}")
        multipliers.append(int(ratio))
    total = sum(s.shape[axis] for s in sources)
    want = list(sources[0].shape)
    want[axis] = total
    if tuple(layer.shape) != tuple(want) or any(
            tuple(np.delete(s.shape, axis)) != tuple(np.delete(want, axis)) for s in sources):
        raise d.stop(layer, f"output {layer.shape} from inputs {[s.shape for s in sources]} along {name}")
    return ConcatOp(layer, axis, tuple(multipliers), shift, sat(dtype), dtype)


TYPE = OpType("TIDL_ConcatLayer", decode, "along C, H or W (integer multipliers, rounding shift, saturation)",
              "9.0 / 9.1 (9.2 assumed); 10.0 / 10.1 (the 9.0 arithmetic, no 10.0 oracle)",
              "along C bit for bit against TI's dumps (EAST 9.0: stats_tool_out and means); along W against "
              "hand-computed codes; along H unchecked", max_inputs=None)
