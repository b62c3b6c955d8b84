"""A small synthetic TIDL 9.0 net for tests and the fuzzer: float input -> DataConvert (int8)
-> 3x3 convolution with ReLU (uint8) -> 2x2 max pooling -> concat with a second convolution
(grouped, stride 2 on the pooled map's sibling) -> DataConvert to float -> output.

Weights and biases are written into the parameters section at the offsets the conv
parameters give, as TI's importer lays them out (int8 weights, then int16 biases)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..net.build import build_net
from ..net.schema import layout_for

__all__ = ["NET_VERSION_9_0", "tiny_net"]

NET_VERSION_9_0 = 0x20230802


def _out(data_id: int, dims: list[int], element: int, scale: float, round_bits: int = 0,
         pad: tuple[int, int] = (0, 0)) -> dict[str, Any]:
    c, h, w = dims[1:]
    line = w + pad[0]
    chan = line * (h + 2 * pad[1] + 1)
    return {"dataId": data_id, "elementType": element, "numDim": 4, "tensorScale": scale, "roundBits": round_bits,
            "padW": pad[0], "padH": pad[1], "pitch": [chan * c, chan, line], "dimValues": dims}


def _conv(weights: int, bias: int, cin: int, cout: int, groups: int, k: int, stride: int, w_scale: float,
          b_scale: float) -> dict[str, Any]:
    pad = k // 2
    return {"weights": weights, "bias": bias, "numInChannels": cin, "numOutChannels": cout, "numGroups": groups,
            "kernelW": k, "kernelH": k, "strideW": stride, "strideH": stride, "dilationW": 1, "dilationH": 1,
            "padW": pad, "padH": pad, "padL": pad, "padR": pad, "padT": pad, "padB": pad,
            "weightScale": w_scale, "biasScale": b_scale, "enableBias": 1}


def tiny_net(seed: int = 0) -> tuple[bytes, dict[str, Any]]:
    """``(net file bytes, facts)``: ``facts`` holds the int8 weights and int16 biases written
    (``w1``, ``b1``, ``w2``, ``b2``) and the scales, for tests that recompute by hand."""
    rng = np.random.default_rng(seed)
    h, w = 8, 12
    w1 = rng.integers(-128, 128, (6, 2, 3, 3), dtype=np.int8)
    b1 = rng.integers(-128, 128, 6).astype("<i2")
    w2 = rng.integers(-128, 128, (4, 1, 3, 3), dtype=np.int8)  # groups 2: 2 inputs -> 4 outputs
    b2 = rng.integers(-100, 100, 4).astype("<i2")
    layout = layout_for(NET_VERSION_9_0)[0]
    n_layers = 8
    params_at = -(-layout.structure_size(n_layers) // 64) * 64
    off_w1 = params_at
    off_b1 = off_w1 + w1.size
    off_w2 = off_b1 + 2 * b1.size
    off_b2 = off_w2 + w2.size
    end = off_b2 + 2 * b2.size
    in_scale = 64.0
    s1 = 64.0 * 0.5 / 2 ** 6   # conv 1: in 64 x weights 0.5 >> 6
    s2 = 64.0 * 0.25 / 2 ** 5  # conv 2: in 64 x weights 0.25 >> 5
    layers = [
        {"layerType": "TIDL_DataLayer", "numInBufs": -1, "numOutBufs": 1, "weightsElementSizeInBits": 8,
         "outData": _out(0, [1, 2, h, w], 6, 1.0)},
        {"layerType": "TIDL_DataConvertLayer", "numInBufs": 1, "numOutBufs": 1, "inData": [0],
         "weightsElementSizeInBits": 8, "outData": _out(1, [1, 2, h, w], 1, in_scale, pad=(1, 1)),
         "layerParams": {"type": 0, "layout": 0}},
        {"layerType": "TIDL_ConvolutionLayer", "numInBufs": 1, "numOutBufs": 1, "inData": [1],
         "weightsElementSizeInBits": 8, "actParams": {"actType": 1},
         "outData": _out(2, [1, 6, h, w], 0, s1, 6, pad=(1, 1)),
         "layerParams": _conv(off_w1, off_b1, 2, 6, 1, 3, 1, 0.5, 0.5)},
        {"layerType": "TIDL_PoolingLayer", "numInBufs": 1, "numOutBufs": 1, "inData": [2],
         "weightsElementSizeInBits": 8, "outData": _out(3, [1, 6, h // 2, w // 2], 0, s1),
         "layerParams": {"numChannels": 6, "poolingType": 0, "kernelW": 2, "kernelH": 2, "strideW": 2,
                         "strideH": 2}},
        {"layerType": "TIDL_ConvolutionLayer", "numInBufs": 1, "numOutBufs": 1, "inData": [1],
         "weightsElementSizeInBits": 8, "actParams": {"actType": 1},
         "outData": _out(4, [1, 4, h // 2, w // 2], 0, s2, 5),
         "layerParams": _conv(off_w2, off_b2, 2, 4, 2, 3, 2, 0.25, 3.0)},
        {"layerType": "TIDL_ConcatLayer", "numInBufs": 2, "numOutBufs": 1, "inData": [3, 4],
         "weightsElementSizeInBits": 8, "outData": _out(5, [1, 10, h // 2, w // 2], 0, s2, 4),
         "layerParams": {"axis": 1}},
        {"layerType": "TIDL_DataConvertLayer", "numInBufs": 1, "numOutBufs": 1, "inData": [5],
         "weightsElementSizeInBits": 8, "outData": _out(6, [1, 10, h // 2, w // 2], 6, 1.0),
         "layerParams": {"type": 1, "layout": 0}},
        {"layerType": "TIDL_DataLayer", "numInBufs": 1, "numOutBufs": -1, "inData": [6],
         "weightsElementSizeInBits": 8},
    ]
    data = bytearray(build_net(NET_VERSION_9_0, layers, header={"quantizationStyle": 2},
                               section_sizes=[end - params_at, 64, 64]))
    data[off_w1:off_b1] = w1.tobytes()
    data[off_b1:off_w2] = b1.tobytes()
    data[off_w2:off_b2] = w2.tobytes()
    data[off_b2:end] = b2.tobytes()
    facts = {"w1": w1, "b1": b1, "w2": w2, "b2": b2, "in_scale": in_scale, "s1": s1, "s2": s2, "shape": (1, 2, h, w)}
    return bytes(data), facts
