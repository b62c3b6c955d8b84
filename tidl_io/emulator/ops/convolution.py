"""``TIDL_ConvolutionLayer``: 8-bit weights, the 16-bit bias split into ``bias x biasB``
(:func:`split_bias`), int64 accumulators, a rounding shift by the output's roundBits and the
output type's saturation (where ReLU happens)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ...base.limits import check_alloc
from ...net import Layer
from .. import kernels
from .base import Decoding, Op, OpType, check_quant, f32, int_dtype, need, read, sat, scales

__all__ = ["TYPE", "ConvOp", "split_bias"]

_ACT_NONE, _ACT_RELU = 0, 1  # TIDL_NoAct, TIDL_RelU
_PER_CHANNEL = 8  # TIDL_CalibOptionPerChannelWeightQuantization


@dataclass(frozen=True)
class ConvOp(Op):
    """A convolution: int8 ``weights`` (out, in / groups, kH, kW), the bias as TIDL adds it
    (``bias`` int64 per output channel, already ``split x biasB``), the output shift and the
    saturation of the output element type (which is where ReLU happens)."""

    weights: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8), repr=False)
    bias: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64), repr=False)
    bias_b: int = 1
    groups: int = 1
    stride: tuple[int, int] = (1, 1)  # (H, W)
    dilation: tuple[int, int] = (1, 1)
    pad: tuple[int, int] = (0, 0)
    shift: int = 0
    sat: tuple[int, int] = (0, 255)
    dtype: np.dtype = field(default=np.dtype(np.uint8))
    raw_bias: np.ndarray | None = field(default=None, repr=False)  # the net's int16 bias codes (None: no bias)
    bias_factor: float = 0.0  # weightScale x inScale / biasScale, float32
    signed_input: bool = True

    def accumulate(self, x: np.ndarray) -> np.ndarray:
        """The int64 accumulators of input codes ``x`` without the bias."""
        _, cin_g, kh, kw = self.weights.shape
        check_alloc(2 * x.shape[0] * (cin_g * kh * kw + 1) * int(np.prod(self.layer.shape[2:])) * 8,
                    f"layer {self.index}'s convolution columns", func="emulate")
        return kernels.conv2d(x, self.weights, np.zeros(len(self.bias), np.int64), groups=self.groups,
                              stride=self.stride, dilation=self.dilation, pad=self.pad,
                              out_hw=(self.layer.shape[2], self.layer.shape[3]))

    def finish(self, acc: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
        """Accumulators plus ``bias`` (default: this op's), shifted and saturated to codes."""
        b = self.bias if bias is None else bias
        return kernels.round_shift_saturate(acc + np.asarray(b, np.int64)[None, :, None, None], self.shift,
                                            self.sat[0], self.sat[1], self.dtype)

    def bias_of(self, codes: np.ndarray) -> np.ndarray:
        """The bias TIDL adds for the int16 bias ``codes`` (split x biasB, stored in int16)."""
        split, bias_b = split_bias(np.asarray(codes), np.float32(self.bias_factor), self.signed_input)
        return (split * bias_b).astype(np.int16).astype(np.int64)

    def with_raw_bias(self, codes: np.ndarray) -> ConvOp:
        """This convolution with the int16 bias ``codes`` instead of the net's."""
        return replace(self, bias=self.bias_of(codes), raw_bias=np.asarray(codes, np.int64))

    def run(self, args: Sequence[np.ndarray], inputs: Mapping[int, np.ndarray]) -> np.ndarray:
        return self.finish(self.accumulate(args[0]))


def split_bias(bias: np.ndarray, factor: np.float32, signed_input: bool) -> tuple[np.ndarray, int]:
    """TIDL's 16-bit bias of an 8-bit convolution as the accumulator gets it: ``(split,
    biasB)`` with ``split x biasB`` added to every output of the channel.

    ``factor`` is ``weightScale x inScale / biasScale`` in float32. Above the largest biasB
    (127 for signed inputs, 255 for unsigned) the bias is rescaled, truncated, divided by it
    (C division) and clipped to -128..127; above 1, biasB is the factor truncated and the bias
    kept; else biasB is 1 and the bias is scaled and truncated. (TIDL_conv2dBiasSplit.)
    """
    b_max = 127 if signed_input else 255
    b = bias.astype(np.float32)
    if factor == 0:
        return np.zeros(len(bias), np.int64), 0
    if factor > b_max:
        scaled = np.clip(np.trunc(b * factor).astype(np.int64), -(1 << 15), (1 << 15) - 1)
        split = np.clip(np.sign(scaled) * (np.abs(scaled) // b_max), -128, 127)
        return split.astype(np.int64), b_max
    if factor > 1:
        return bias.astype(np.int64), int(factor)
    return np.trunc(b * factor).astype(np.int64), 1


def decode(d: Decoding, layer: Layer, sources: list[Layer]) -> Op:
    src, net = sources[0], d.net
    p = need(layer, d, "weights", "bias", "numInChannels", "numOutChannels", "numGroups", "kernelW", "kernelH",
             "strideW", "strideH", "dilationW", "dilationH", "padL", "padR", "padT", "padB", "weightScale",
             "biasScale", "enableBias", "enablePooling", "enableEltWise", "enableDepthToSpace")
    for flag in ("enablePooling", "enableEltWise", "enableDepthToSpace"):
        if p[flag]:
            raise d.stop(layer, f"{flag} {p[flag]} (a fused operation)")
    if layer.raw.get("weightsElementSizeInBits") != 8:
        raise d.stop(layer, f"weightsElementSizeInBits {layer.raw.get('weightsElementSizeInBits')} (only 8-bit "
                            "weights)")
    if (net.header.get("calibrationOption", 0) & _PER_CHANNEL) and p["numGroups"] == p["numInChannels"] \
            == p["numOutChannels"] and p["numGroups"] > 1:
        raise d.stop(layer, "per-channel weight scales (depthwise, calibrationOption 8)")
    act = int(layer.raw["actParams"]["actType"])
    dtype = int_dtype(layer, d)
    in_dtype = int_dtype(src, d, "input")
    if dtype.itemsize != 1 or in_dtype.itemsize != 1:
        raise d.stop(layer, "16-bit input or output codes (mixed precision)")
    if act not in (_ACT_NONE, _ACT_RELU) or (act == _ACT_RELU and dtype.kind != "u"):
        raise d.stop(layer, f"actType {act} with {dtype.name} output (ReLU is done by unsigned saturation)")
    check_quant(layer, d, src)
    scales(layer, d, src)
    cin, cout, groups = int(p["numInChannels"]), int(p["numOutChannels"]), int(p["numGroups"])
    kh, kw = int(p["kernelH"]), int(p["kernelW"])
    values = (cin, cout, groups, kh, kw, p["strideH"], p["strideW"], p["dilationH"], p["dilationW"])
    if min(values) < 1 or cin % groups or cout % groups or max(values) > (1 << 16):
        raise d.stop(layer, f"channels {cin}->{cout}, groups {groups}, kernel {kh}x{kw}, strides and dilations "
                            f"{values[5:]} (expected positive, channels divisible by groups)")
    pad = (max(int(p["padT"]), int(p["padB"])), max(int(p["padL"]), int(p["padR"])))
    stride, dilation = (int(p["strideH"]), int(p["strideW"])), (int(p["dilationH"]), int(p["dilationW"]))
    n, c, h, w = src.shape[:4] if len(src.shape) == 4 else (0, 0, 0, 0)
    want = tuple(((size + 2 * pd - (k - 1) * dl - 1) // st) + 1
                 for size, pd, k, dl, st in ((h, pad[0], kh, dilation[0], stride[0]),
                                             (w, pad[1], kw, dilation[1], stride[1])))
    if len(src.shape) != 4 or len(layer.shape) != 4 or c != cin or layer.shape[1] != cout \
            or tuple(layer.shape[2:]) != want or layer.shape[0] != n or min(pad) < 0:
        raise d.stop(layer, f"geometry: input {src.shape}, output {layer.shape}, kernel {kh}x{kw}, stride {stride}, "
                            f"pad {pad} (expected output {(n, cout) + want})")
    if layer.raw.get("strideOffsetMethod", 0) != 0 and max(stride) > 1:
        raise d.stop(layer, f"strideOffsetMethod {layer.raw.get('strideOffsetMethod')} with stride {stride}")
    shift = int(layer.raw["outData"]["roundBits"])
    if not 0 <= shift < 48:
        raise d.stop(layer, f"roundBits {shift}")
    weights = read(d, int(p["weights"]), cout * (cin // groups) * kh * kw, np.int8, layer, "weights")
    weights = weights.reshape(cout, cin // groups, kh, kw)
    if p["enableBias"]:
        raw_bias = read(d, int(p["bias"]), cout, "<i2", layer, "bias")
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            factor = (f32(p["weightScale"]) * f32(src.scale) / f32(p["biasScale"]))[0] if p["biasScale"] \
                else np.float32(0)
        if not np.isfinite(factor) or factor < 0 or factor >= 2**31:
            raise d.stop(layer, f"weightScale {p['weightScale']}, input scale {src.scale}, biasScale {p['biasScale']}")
        split, bias_b = split_bias(raw_bias, factor, in_dtype.kind == "i")
        bias = (split * bias_b).astype(np.int16).astype(np.int64)  # TIDL stores the product in int16
        return ConvOp(layer, weights, bias, bias_b, groups, stride, dilation, pad, shift, sat(dtype), dtype,
                      raw_bias.astype(np.int64), float(factor), in_dtype.kind == "i")
    return ConvOp(layer, weights, np.zeros(cout, np.int64), 0, groups, stride, dilation, pad, shift, sat(dtype),
                  dtype)


TYPE = OpType("TIDL_ConvolutionLayer", decode,
              "8-bit weights, 16-bit bias (split into bias × biasB), groups, depthwise, stride, dilation, pads, "
              "ReLU by unsigned saturation", "9.0 / 9.1 (9.2 assumed)",
              "against TI's dumps: fcnn-cnn5 9.0's four convolutions (the first's channel means equal in the 61 of "
              "64 channels whose bias TI did not move after the run that wrote the dumps)")
