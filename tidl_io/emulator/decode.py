"""What each layer of a compiled net computes, decoded from the net file's bytes.

:func:`decode` turns a :class:`~tidl_io.Network` and the bytes of its file into a tuple of
operations (frozen dataclasses, one per layer, execution order). It reads the weights and
biases the parameters say (file offsets, checked against the file), derives the constants
TIDL's reference flow derives at run time (the 16-bit bias split into ``bias x biasB``, the
concat's input multipliers) and refuses, with one located :class:`~tidl_io.UnsupportedLayerError`,
any layer type or parameter it has no established arithmetic for. Nothing here runs a layer.

The arithmetic is TIDL's reference ("NatC") flow, the one TI's import tool runs on the
calibration frames (``tempDir/*_stats_tool_out.bin``), for ``quantizationStyle`` 2
(``TIDL_QuantStyleNP2Fixed``: power-of-two shifts, per-tensor scales, zero points 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..base.errors import FormatError, UnsupportedLayerError
from ..net import Layer, Network

__all__ = ["ConcatOp", "ConvOp", "DataConvertOp", "InputOp", "Op", "OutputOp", "PoolOp", "decode", "split_bias"]

# TI's codes (itidl_ti.h)
_NP2_FIXED = 2  # TIDL_QuantStyleNP2Fixed
_FLOAT, _INT_TYPES = 6, {0: np.uint8, 1: np.int8, 2: np.uint16, 3: np.int16}
_DC_INPUT, _DC_OUTPUT = 0, 1  # TIDL_DC_TYPE_INPUT / _OUTPUT
_MAX_POOLING = 0  # TIDL_MaxPooling
_ACT_NONE, _ACT_RELU = 0, 1  # TIDL_NoAct, TIDL_RelU
_PER_CHANNEL = 8  # TIDL_CalibOptionPerChannelWeightQuantization
_DIM_NAMES = {4: {1: "C", 2: "H", 3: "W"}, 6: {3: "C", 4: "H", 5: "W"}}  # concat axis -> logical axis


@dataclass(frozen=True)
class Op:
    """One layer's operation: the layer, the dataIds it reads and the one it writes."""

    layer: Layer = field(repr=False)

    @property
    def index(self) -> int:
        return self.layer.index

    @property
    def inputs(self) -> tuple[int, ...]:
        return self.layer.inputs

    @property
    def data_id(self) -> int:
        """The dataId of the buffer this operation writes (:func:`decode` refuses a computing
        layer without one; only output data layers, which are :class:`OutputOp`, have none)."""
        data_id = self.layer.data_id
        if data_id is None:
            raise UnsupportedLayerError(f"layer {self.layer.index} ({self.layer.type}) produces no buffer",
                                        index=self.layer.index, layer_type=self.layer.type, name=self.layer.name)
        return data_id


@dataclass(frozen=True)
class InputOp(Op):
    """An input data layer: the user's array, float32 or codes of ``dtype``."""

    dtype: np.dtype = field(default=np.dtype(np.float32))


@dataclass(frozen=True)
class OutputOp(Op):
    """An output data layer: hands its one input buffer back to the caller."""


@dataclass(frozen=True)
class DataConvertOp(Op):
    """float -> codes (``scale``: the output's tensorScale) or codes -> float (``scale``:
    1 / the input's tensorScale, in float32 as TIDL computes it)."""

    to_float: bool = False
    scale: float = 1.0  # a float32 value
    dtype: np.dtype = field(default=np.dtype(np.int8))


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


@dataclass(frozen=True)
class PoolOp(Op):
    """Max pooling (codes in, codes out, one scale)."""

    kernel: tuple[int, int] = (2, 2)
    stride: tuple[int, int] = (2, 2)


@dataclass(frozen=True)
class ConcatOp(Op):
    """Concatenation along ``axis`` (1 C, 2 H, 3 W of the logical N, C, H, W): each input
    times its integer ``multipliers[j]``, then a rounding shift and saturation."""

    axis: int = 1
    multipliers: tuple[int, ...] = ()
    shift: int = 0
    sat: tuple[int, int] = (0, 255)
    dtype: np.dtype = field(default=np.dtype(np.uint8))


class _Stop:
    """Builds the one-line stop for a layer."""

    def __init__(self, net: Network) -> None:
        self.net = net

    def __call__(self, layer: Layer, what: str) -> UnsupportedLayerError:
        name = f" {layer.name!r}" if layer.name else ""
        return UnsupportedLayerError(
            f"{self.net.source}: layer {layer.index} ({layer.type}{name}): {what} (not implemented by tidl-io's "
            f"emulator for TIDL {self.net.release})", index=layer.index, layer_type=layer.type, name=layer.name)


def _int_dtype(layer: Layer, stop: _Stop, what: str = "output") -> np.dtype:
    dtype = _INT_TYPES.get(layer.element_code)
    if dtype is None:
        raise stop(layer, f"{what} element type {layer.element_code} (only 8- and 16-bit integer codes)")
    return np.dtype(dtype)


def _sat(dtype: np.dtype) -> tuple[int, int]:
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _need(layer: Layer, stop: _Stop, *names: str) -> dict[str, Any]:
    p = dict(layer.params)
    missing = [n for n in names if n not in p]
    if missing:
        raise stop(layer, f"the parameter layout of this layer type is not established for this release "
                          f"(missing {', '.join(missing)})")
    return p


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


def _check_quant(layer: Layer, stop: _Stop, *layers: Layer) -> None:
    for la in (layer, *layers):
        if la.zero_point != 0:
            raise stop(layer, f"tensorZeroPoint {la.zero_point} of dataId {la.data_id} (asymmetric quantization)")


def _read(data: bytes | memoryview, offset: int, count: int, dtype: Any, net: Network, layer: Layer,
          member: str) -> np.ndarray:
    size = count * np.dtype(dtype).itemsize
    if offset < 0 or offset + size > len(data):
        raise FormatError(net.source, f"layer {layer.index} ({layer.type}): {member} [{offset}, {offset + size}) lies "
                          f"outside the file (0..{len(data)})", field=f"TIDLLayers[{layer.index}].{member}")
    return np.frombuffer(data, dtype, count, offset)


def _conv(net: Network, layer: Layer, src: Layer, data: bytes | memoryview, stop: _Stop) -> ConvOp:
    p = _need(layer, stop, "weights", "bias", "numInChannels", "numOutChannels", "numGroups", "kernelW", "kernelH",
              "strideW", "strideH", "dilationW", "dilationH", "padL", "padR", "padT", "padB", "weightScale",
              "biasScale", "enableBias", "enablePooling", "enableEltWise", "enableDepthToSpace")
    for flag in ("enablePooling", "enableEltWise", "enableDepthToSpace"):
        if p[flag]:
            raise stop(layer, f"{flag} {p[flag]} (a fused operation)")
    if layer.raw.get("weightsElementSizeInBits") != 8:
        raise stop(layer, f"weightsElementSizeInBits {layer.raw.get('weightsElementSizeInBits')} (only 8-bit weights)")
    if (net.header.get("calibrationOption", 0) & _PER_CHANNEL) and p["numGroups"] == p["numInChannels"] \
            == p["numOutChannels"] and p["numGroups"] > 1:
        raise stop(layer, "per-channel weight scales (depthwise, calibrationOption 8)")
    act = int(layer.raw["actParams"]["actType"])
    dtype = _int_dtype(layer, stop)
    in_dtype = _int_dtype(src, stop, "input")
    if dtype.itemsize != 1 or in_dtype.itemsize != 1:
        raise stop(layer, "16-bit input or output codes (mixed precision)")
    if act not in (_ACT_NONE, _ACT_RELU) or (act == _ACT_RELU and dtype.kind != "u"):
        raise stop(layer, f"actType {act} with {dtype.name} output (ReLU is done by unsigned saturation)")
    _check_quant(layer, stop, src)
    _scales(layer, stop, src)
    cin, cout, groups = int(p["numInChannels"]), int(p["numOutChannels"]), int(p["numGroups"])
    kh, kw = int(p["kernelH"]), int(p["kernelW"])
    values = (cin, cout, groups, kh, kw, p["strideH"], p["strideW"], p["dilationH"], p["dilationW"])
    if min(values) < 1 or cin % groups or cout % groups or max(values) > (1 << 16):
        raise stop(layer, f"channels {cin}->{cout}, groups {groups}, kernel {kh}x{kw}, strides and dilations "
                          f"{values[5:]} (expected positive, channels divisible by groups)")
    pad = (max(int(p["padT"]), int(p["padB"])), max(int(p["padL"]), int(p["padR"])))
    stride, dilation = (int(p["strideH"]), int(p["strideW"])), (int(p["dilationH"]), int(p["dilationW"]))
    n, c, h, w = src.shape[:4] if len(src.shape) == 4 else (0, 0, 0, 0)
    want = tuple(((size + 2 * pd - (k - 1) * dl - 1) // st) + 1
                 for size, pd, k, dl, st in ((h, pad[0], kh, dilation[0], stride[0]), (w, pad[1], kw, dilation[1], stride[1])))
    if len(src.shape) != 4 or len(layer.shape) != 4 or c != cin or layer.shape[1] != cout or tuple(layer.shape[2:]) != want \
            or layer.shape[0] != n or min(pad) < 0:
        raise stop(layer, f"geometry: input {src.shape}, output {layer.shape}, kernel {kh}x{kw}, stride {stride}, "
                          f"pad {pad} (expected output {(n, cout) + want})")
    if layer.raw.get("strideOffsetMethod", 0) != 0 and max(stride) > 1:
        raise stop(layer, f"strideOffsetMethod {layer.raw.get('strideOffsetMethod')} with stride {stride}")
    shift = int(layer.raw["outData"]["roundBits"])
    if not 0 <= shift < 48:
        raise stop(layer, f"roundBits {shift}")
    weights = _read(data, int(p["weights"]), cout * (cin // groups) * kh * kw, np.int8, net, layer, "weights")
    weights = weights.reshape(cout, cin // groups, kh, kw)
    if p["enableBias"]:
        raw_bias = _read(data, int(p["bias"]), cout, "<i2", net, layer, "bias")
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            factor = (_f32(p["weightScale"]) * _f32(src.scale) / _f32(p["biasScale"]))[0] if p["biasScale"] \
                else np.float32(0)
        if not np.isfinite(factor) or factor < 0 or factor >= 2**31:
            raise stop(layer, f"weightScale {p['weightScale']}, input scale {src.scale}, biasScale {p['biasScale']}")
        split, bias_b = split_bias(raw_bias, factor, in_dtype.kind == "i")
        bias = (split * bias_b).astype(np.int16).astype(np.int64)  # TIDL stores the product in int16
    else:
        bias, bias_b = np.zeros(cout, np.int64), 0
    return ConvOp(layer, weights, bias, bias_b, groups, stride, dilation, pad, shift, _sat(dtype), dtype)


def _scales(layer: Layer, stop: _Stop, *layers: Layer) -> None:
    """Every integer tensor's tensorScale must be a positive finite float32."""
    for la in (layer, *layers):
        if la.element_code != _FLOAT and not (0 < la.scale < np.inf):
            raise stop(layer, f"tensorScale {la.scale} of dataId {la.data_id}")


def _f32(*values: float) -> np.ndarray:
    return np.array(values, np.float32)


def _data_convert(net: Network, layer: Layer, src: Layer, stop: _Stop) -> DataConvertOp:
    p = _need(layer, stop, "type")
    _check_quant(layer, stop, src)
    _scales(layer, stop, src)
    if layer.shape != src.shape:
        raise stop(layer, f"shape {layer.shape} from input shape {src.shape}")
    if src.element_code == _FLOAT and layer.element_code != _FLOAT:
        if p["type"] != _DC_INPUT:
            raise stop(layer, f"float input with type {p['type']}")
        return DataConvertOp(layer, False, float(np.float32(layer.scale)), _int_dtype(layer, stop))
    if src.element_code != _FLOAT and layer.element_code == _FLOAT:
        _int_dtype(src, stop, "input")
        if not src.scale > 0:
            raise stop(layer, f"input tensorScale {src.scale}")
        with np.errstate(over="ignore"):
            inverse = _f32(layer.scale) / _f32(src.scale)
        if not np.isfinite(inverse[0]):
            raise stop(layer, f"output scale {layer.scale} / input scale {src.scale} is not a float32")
        return DataConvertOp(layer, True, float(inverse[0]), np.dtype(np.float32))
    raise stop(layer, f"conversion from element type {src.element_code} to {layer.element_code}")


def _pool(layer: Layer, src: Layer, stop: _Stop) -> PoolOp:
    p = _need(layer, stop, "poolingType", "kernelW", "kernelH", "strideW", "strideH", "padT", "padB", "padL", "padR")
    if p["poolingType"] != _MAX_POOLING:
        raise stop(layer, f"poolingType {p['poolingType']} (only max pooling)")
    if any(p[k] for k in ("padT", "padB", "padL", "padR", "padW", "padH") if k in p):
        raise stop(layer, "padded pooling")
    _int_dtype(layer, stop)
    _check_quant(layer, stop, src)
    _scales(layer, stop, src)
    if layer.element_code != src.element_code or layer.scale != src.scale:
        raise stop(layer, f"a change of element type or scale ({src.element_code}, {src.scale} -> "
                          f"{layer.element_code}, {layer.scale})")
    kh, kw, sh, sw = (int(p[k]) for k in ("kernelH", "kernelW", "strideH", "strideW"))
    if min(kh, kw, sh, sw) < 1 or len(src.shape) != 4 or len(layer.shape) != 4:
        raise stop(layer, f"kernel {kh}x{kw}, stride {sh}x{sw}, input {src.shape} (global pooling?)")
    n, c, h, w = src.shape
    want = (n, c, (h - kh) // sh + 1, (w - kw) // sw + 1)
    if tuple(layer.shape) != want:
        raise stop(layer, f"output {layer.shape} from input {src.shape} (expected {want}; ceil mode?)")
    return PoolOp(layer, (kh, kw), (sh, sw))


def _concat(layer: Layer, sources: list[Layer], stop: _Stop) -> ConcatOp:
    p = _need(layer, stop, "axis")
    dtype = _int_dtype(layer, stop)
    _check_quant(layer, stop, *sources)
    dims = len(layer.dims)
    name = _DIM_NAMES.get(dims, {}).get(int(p["axis"]))
    if name is None or len(layer.shape) != 4:
        raise stop(layer, f"axis {p['axis']} of {dims}-dim tensors")
    axis = "NCHW".index(name)
    shift = int(layer.raw["outData"]["roundBits"])
    if not 0 <= shift < 31:
        raise stop(layer, f"roundBits {shift}")
    _scales(layer, stop, *sources)
    multipliers = []
    for s in sources:
        _int_dtype(s, stop, "input")
        with np.errstate(over="ignore"):
            ratio = (_f32(layer.scale) * _f32(1 << shift) / _f32(s.scale))[0]  # (int32_t)(accScale / inScale)
        if len(s.shape) != 4 or not 0 <= ratio < 2**31:
            raise stop(layer, f"input dataId {s.data_id}: tensorScale {s.scale}, shape {s.shape}")
        multipliers.append(int(ratio))
    total = sum(s.shape[axis] for s in sources)
    want = list(sources[0].shape)
    want[axis] = total
    if tuple(layer.shape) != tuple(want) or any(
            tuple(np.delete(s.shape, axis)) != tuple(np.delete(want, axis)) for s in sources):
        raise stop(layer, f"output {layer.shape} from inputs {[s.shape for s in sources]} along {name}")
    return ConcatOp(layer, axis, tuple(multipliers), shift, _sat(dtype), dtype)


def decode(net: Network, data: bytes | memoryview) -> tuple[Op, ...]:
    """The operations of ``net`` (execution order), weights and biases read from ``data``,
    the whole net file. Raises :class:`~tidl_io.UnsupportedLayerError` at the first layer
    whose arithmetic is not implemented, :class:`~tidl_io.FormatError` when a parameter
    points outside the file."""
    stop = _Stop(net)
    if len(data) != net.file_size:
        raise FormatError(net.source, f"the net file is {len(data)} bytes, the parsed net {net.file_size}: not the "
                          "same file")
    producers: dict[int, Layer] = {}
    ops: list[Op] = []
    for layer in net.layers:
        sources = []
        for d in layer.inputs:
            if d not in producers:
                raise stop(layer, f"input dataId {d} is produced by no earlier layer")
            sources.append(producers[d])
        if layer.is_input:
            if layer.element_code == _FLOAT:
                ops.append(InputOp(layer, np.dtype(np.float32)))
            else:
                ops.append(InputOp(layer, _int_dtype(layer, stop)))
        elif layer.is_output:
            if len(sources) != 1:
                raise stop(layer, f"{len(sources)} inputs")
            ops.append(OutputOp(layer))
            continue
        elif net.header.get("quantizationStyle") != _NP2_FIXED:
            raise stop(layer, f"quantizationStyle {net.header.get('quantizationStyle')} (only 2, NP2Fixed)")
        elif layer.type == "TIDL_DataConvertLayer" and len(sources) == 1:
            ops.append(_data_convert(net, layer, sources[0], stop))
        elif layer.type == "TIDL_ConvolutionLayer" and len(sources) == 1:
            ops.append(_conv(net, layer, sources[0], data, stop))
        elif layer.type == "TIDL_PoolingLayer" and len(sources) == 1:
            ops.append(_pool(layer, sources[0], stop))
        elif layer.type == "TIDL_ConcatLayer" and sources:
            ops.append(_concat(layer, sources, stop))
        else:
            raise stop(layer, f"layer type {layer.type} with {len(sources)} input(s)")
        if layer.data_id is None:
            raise stop(layer, "no dataId: a layer that produces no buffer, not as the output data layer")
        if layer.data_id in producers:
            raise stop(layer, f"dataId {layer.data_id} is produced twice")
        producers[layer.data_id] = layer
    return tuple(ops)
