"""``TIDL_PoolingLayer``: max pooling without padding (codes in, codes out, one scale)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...net import Layer
from .. import kernels
from .base import Decoding, Op, OpType, check_quant, int_dtype, need, scales

__all__ = ["TYPE", "PoolOp"]

_MAX_POOLING = 0  # TIDL_MaxPooling


@dataclass(frozen=True)
class PoolOp(Op):
    """Max pooling (codes in, codes out, one scale)."""

    kernel: tuple[int, int] = (2, 2)
    stride: tuple[int, int] = (2, 2)

    def run(self, args: Sequence[np.ndarray], inputs: Mapping[int, np.ndarray]) -> np.ndarray:
        return kernels.max_pool(args[0], self.kernel, self.stride)


def decode(d: Decoding, layer: Layer, sources: list[Layer]) -> Op:
    src = sources[0]
    p = need(layer, d, "poolingType", "kernelW", "kernelH", "strideW", "strideH", "padT", "padB", "padL", "padR")
    if p["poolingType"] != _MAX_POOLING:
        raise d.stop(layer, f"poolingType {p['poolingType']} (only max pooling)")
    if any(p[k] for k in ("padT", "padB", "padL", "padR", "padW", "padH") if k in p):
        raise d.stop(layer, "padded pooling")
    int_dtype(layer, d)
    check_quant(layer, d, src)
    scales(layer, d, src)
    if layer.element_code != src.element_code or layer.scale != src.scale:
        raise d.stop(layer, f"a change of element type or scale ({src.element_code}, {src.scale} -> "
                            f"{layer.element_code}, {layer.scale})")
    kh, kw, sh, sw = (int(p[k]) for k in ("kernelH", "kernelW", "strideH", "strideW"))
    if min(kh, kw, sh, sw) < 1 or len(src.shape) != 4 or len(layer.shape) != 4:
        raise d.stop(layer, f"kernel {kh}x{kw}, stride {sh}x{sw}, input {src.shape} (global pooling?)")
    n, c, h, w = src.shape
    want = (n, c, (h - kh) // sh + 1, (w - kw) // sw + 1)
    if tuple(layer.shape) != want:
        raise d.stop(layer, f"output {layer.shape} from input {src.shape} (expected {want}; ceil mode?)")
    return PoolOp(layer, (kh, kw), (sh, sw))


TYPE = OpType("TIDL_PoolingLayer", decode, "max pooling without padding", "9.0 / 9.1 (9.2 assumed)",
              "against TI's dumps: fcnn-cnn5 9.0's two max poolings (channel means equal wherever the "
              "convolution before them is)")
