"""Synthetic nets for the releases without a public real file (8.6, 11.x), built with
tidl_io's own builder from the field lists of TI's headers: a small graph of every layer type
whose parameters the schema knows, with distinct values everywhere so a shifted field shows."""

from __future__ import annotations

from typing import Any

V86, V110, V1101 = 0x20230208, 0x20250429, 0x20250821


def _out(data_id: int, dims: list[int], six: bool, *, scale: float = 1.0, zp: int = 0, element: int = 1,
         pad: tuple[int, int] = (0, 0)) -> dict[str, Any]:
    d = ([dims[0], 1, 1, *dims[1:]] if six else dims)
    c, h, w = dims[1:]
    line = w + pad[0]
    chan = line * (h + 2 * pad[1]) + 16
    pitch = [chan * c, chan * c, chan * c, chan, line] if six else [chan * c, chan, line]
    out = {"dataId": data_id, "elementType": element, "numDim": len(d), "tensorScale": scale,
           "padW": pad[0], "padH": pad[1], "pitch": pitch, "dimValues": d}
    if zp:
        out["tensorZeroPoint"] = zp
    return out


def sample_layers(net_version: int) -> list[dict[str, Any]]:
    """input -> convert -> conv -> pool -> [conv, resize] -> concat -> eltwise -> output."""
    six = net_version >= 0x20240719
    x = lambda *a, **k: _out(*a, six=six, **k)
    return [
        {"layerType": "TIDL_DataLayer", "numInBufs": -1, "numOutBufs": 1,
         "outData": x(0, [1, 3, 32, 48], element=0)},
        {"layerType": "TIDL_DataConvertLayer", "numInBufs": 1, "numOutBufs": 1, "inData": [0],
         "outData": x(1, [1, 3, 32, 48], scale=2.0, zp=-3, pad=(1, 1)),
         "layerParams": {"type": 0, "layout": 1, "outZeroPoint": -3}},
        {"layerType": "TIDL_ConvolutionLayer", "numInBufs": 1, "numOutBufs": 1, "inData": [1],
         "outData": x(2, [1, 16, 16, 24], scale=8.5, pad=(1, 1)),
         "layerParams": {"numInChannels": 3, "numOutChannels": 16, "numGroups": 1, "kernelW": 3, "kernelH": 5,
                         "strideW": 2, "strideH": 2, "dilationW": 1, "dilationH": 1, "padW": 1, "padH": 2}},
        {"layerType": "TIDL_PoolingLayer", "numInBufs": 1, "numOutBufs": 1, "inData": [2],
         "outData": x(3, [1, 16, 8, 12], scale=8.5),
         "layerParams": {"numChannels": 16, "poolingType": 1, "kernelW": 2, "kernelH": 2, "strideW": 2,
                         "strideH": 2}},
        {"layerType": "TIDL_ConvolutionLayer", "numInBufs": 1, "numOutBufs": 1, "inData": [3],
         "outData": x(4, [1, 16, 8, 12], scale=4.25),
         "layerParams": {"numInChannels": 16, "numOutChannels": 16, "numGroups": 16, "kernelW": 3, "kernelH": 3,
                         "strideW": 1, "strideH": 1, "dilationW": 2, "dilationH": 2}},
        {"layerType": "TIDL_ResizeLayer", "numInBufs": 1, "numOutBufs": 1, "inData": [3],
         "outData": x(5, [1, 16, 8, 12], scale=8.5),
         "layerParams": {"mode": 1, "resizeRatio": ([1.0, 1.0, 1.0, 1.0, 1.5, 2.5] if six else [1.0, 1.0, 1.5, 2.5])}},
        {"layerType": "TIDL_ConcatLayer", "numInBufs": 2, "numOutBufs": 1, "inData": [4, 5],
         "outData": x(6, [1, 32, 8, 12], scale=4.25), "layerParams": {"axis": 3 if six else 1}},
        {"layerType": "TIDL_EltWiseLayer", "numInBufs": 2, "numOutBufs": 1, "inData": [6, 6],
         "outData": x(7, [1, 32, 8, 12], scale=2.125),
         "layerParams": {"numChannels": 32, "eltWiseType": 1, "numInData": 2}},
        {"layerType": "TIDL_DataLayer", "numInBufs": 1, "numOutBufs": -1, "inData": [7]},
    ]
