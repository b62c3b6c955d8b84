"""The decoder: TIDL's bias split, the synthetic net's operations, and the located stop at
the first layer the emulator does not implement (real 8.2 and 10.0 nets included)."""

from __future__ import annotations

import struct

import numpy as np
import pytest

import tidl_io
from tidl_io import UnsupportedLayerError
from tidl_io.emulator import decode, split_bias
from tidl_io.emulator._fixture import tiny_net
from tidl_io.emulator.decode import ConcatOp, ConvOp, DataConvertOp, InputOp, OutputOp, PoolOp

from conftest import REALDATA

NET_DIR = REALDATA / "net"


def test_split_bias_above_the_largest_multiplier() -> None:
    # factor 128 > 127 (signed input): trunc(b x 128), C division by 127, clipped to -128..127
    split, b = split_bias(np.array([-128, 5, -1, 0, 2, 127], "<i2"), np.float32(128), True)
    assert b == 127 and split.tolist() == [-128, 5, -1, 0, 2, 127]  # -16384/127 = -129.01 -> clipped
    split, b = split_bias(np.array([100, -128, 1], "<i2"), np.float32(300), False)
    assert b == 255 and split.tolist() == [117, -128, 1]  # 30000/255 = 117.6; -32768 (clipped)/255 -> -128; 300/255


def test_split_bias_between_one_and_the_largest() -> None:
    split, b = split_bias(np.array([-105, 127, 3], "<i2"), np.float32(6.773703), False)
    assert b == 6 and split.tolist() == [-105, 127, 3]  # biasB is the factor truncated, the bias kept
    split, b = split_bias(np.array([-105, 127, 3], "<i2"), np.float32(200.0), False)
    assert b == 200 and split.tolist() == [-105, 127, 3]  # unsigned input: up to 255


def test_split_bias_below_one_and_zero() -> None:
    split, b = split_bias(np.array([-7, 7, 1], "<i2"), np.float32(0.5), True)
    assert b == 1 and split.tolist() == [-3, 3, 0]  # truncated toward zero
    split, b = split_bias(np.array([-7, 7], "<i2"), np.float32(0), True)
    assert b == 0 and split.tolist() == [0, 0]


def test_tiny_net_operations() -> None:
    data, facts = tiny_net(0)
    net = tidl_io.parse_net(data)
    ops = decode(net, data)
    assert [type(op) for op in ops] == [InputOp, DataConvertOp, ConvOp, PoolOp, ConvOp, ConcatOp, DataConvertOp,
                                        OutputOp]
    conv1, conv2 = ops[2], ops[4]
    assert isinstance(conv1, ConvOp) and isinstance(conv2, ConvOp)
    assert np.array_equal(conv1.weights, facts["w1"]) and np.array_equal(conv2.weights, facts["w2"])
    # conv 1: 0.5 x 64 / 0.5 = 64 (1 < 64 <= 127): biasB 64; conv 2: 0.25 x 64 / 3 = 5.33: biasB 5
    assert (conv1.bias_b, conv2.bias_b) == (64, 5)
    assert conv1.bias.tolist() == [int(b) * 64 for b in facts["b1"]]
    assert conv2.bias.tolist() == [int(b) * 5 for b in facts["b2"]]
    assert (conv1.shift, conv1.sat, conv1.pad, conv1.stride) == (6, (0, 255), (1, 1), (1, 1))
    assert (conv2.groups, conv2.stride, conv2.shift) == (2, (2, 2), 5)
    cat = ops[5]
    assert isinstance(cat, ConcatOp) and cat.axis == 1 and cat.multipliers == (16, 16)  # 0.5 x 2**4 / 0.5
    dc_in, dc_out = ops[1], ops[6]
    assert isinstance(dc_in, DataConvertOp) and not dc_in.to_float and dc_in.scale == np.float32(64)
    assert isinstance(dc_out, DataConvertOp) and dc_out.to_float and dc_out.scale == np.float32(2)  # 1 / 0.5


def _patched(data: bytes, layer: int, offset: int, value: int) -> bytes:
    """``data`` with the int32 at ``offset`` of layer ``layer``'s layerParams set to ``value``
    (9.0: header 160 B, layers 1800 B, layerParams first)."""
    out = bytearray(data)
    struct.pack_into("<i", out, 160 + 1800 * layer + offset, value)
    return bytes(out)


@pytest.mark.parametrize(("layer", "offset", "value", "words"), [
    (3, 4, 1, ["layer 3 (TIDL_PoolingLayer", "poolingType 1"]),        # average pooling
    (2, 144, 1, ["layer 2 (TIDL_ConvolutionLayer", "enablePooling 1"]),
    (5, 0, 2, ["layer 5 (TIDL_ConcatLayer", "output (1, 10, 4, 6)"]),  # concat along H: shapes do not fit
    (2, 56, 5, ["layer 2 (TIDL_ConvolutionLayer", "geometry"]),        # kernel 5 wide: not the output size
])
def test_stops_with_one_located_line(layer: int, offset: int, value: int, words: list[str]) -> None:
    data, _ = tiny_net(0)
    bad = _patched(data, layer, offset, value)
    with pytest.raises(UnsupportedLayerError) as info:
        decode(tidl_io.parse_net(bad), bad)
    text = str(info.value)
    assert "\n" not in text and all(w in text for w in words), text
    assert info.value.index == layer


def test_weights_outside_the_file_are_a_format_error() -> None:
    data, _ = tiny_net(0)
    bad = _patched(data, 2, 0, len(data) - 10)  # conv 1's weights: 108 bytes from 10 before the end
    with pytest.raises(tidl_io.FormatError, match=r"layer 2 .*weights .* outside the file"):
        decode(tidl_io.parse_net(bad), bad)


def test_fcnn_bias_multipliers() -> None:
    path = NET_DIR / "edgeai-tidl-fcnn-cnn5-9.0" / "_cnn_cnn.5_relu_Relu_output_0_tidl_net.bin"
    if not path.is_file():
        pytest.skip("../shared/realdata not present")
    data = path.read_bytes()
    ops = [op for op in decode(tidl_io.load_net(path), data) if isinstance(op, ConvOp)]
    # weightScale x input scale / biasScale, from paramDebug and the input layers' tensorScale:
    # 93.93 x 128 / 93.93 = 128 > 127 (int8 input) -> 127; 26.73 x 46.96 / 185.31 = 6.77 -> 6;
    # 27.53 x 9.807 / 57.25 = 4.72 -> 4; 21.77 x 2.109 / 34.24 = 1.34 -> 1
    assert [op.bias_b for op in ops] == [127, 6, 4, 1]
    assert [op.shift for op in ops] == [8, 7, 7, 8]  # outData.roundBits: in x weight scale / out scale = 2**shift
    assert [op.weights.shape for op in ops] == [(64, 1, 3, 3), (128, 64, 3, 3), (256, 128, 3, 3), (256, 256, 3, 3)]


@pytest.mark.parametrize(("folder", "index", "layer_type"), [
    ("bbai64-deeplabv3-mnv2-8.2/201_tidl_net.bin", 1, "TIDL_DataConvertLayer"),     # quantizationStyle 3
    ("real-time-llve-zero-dce-10.0/artifacts/74_tidl_net.bin", 2, "TIDL_EltWiseLayer"),
])
def test_real_nets_of_other_releases_stop_at_their_first_unsupported_layer(folder: str, index: int,
                                                                          layer_type: str) -> None:
    path = NET_DIR / folder
    if not path.is_file():
        pytest.skip("../shared/realdata not present")
    net = tidl_io.load_net(path)
    with pytest.raises(UnsupportedLayerError) as info:
        decode(net, path.read_bytes())
    err = info.value
    assert (err.index, err.layer_type, err.name) == (index, layer_type, net.layers[index].name)
    assert f"layer {index} ({layer_type} {net.layers[index].name!r})" in str(err) and "\n" not in str(err)


def test_fcnn_biases_are_the_ones_paramdebug_quantized() -> None:
    """The biases the decoder reads are TI's last bias quantization (paramDebug.csv's bias row,
    read here with str.split): its quantizedMax is the largest |bias| / biasScale, its orgmax that
    value before rounding, and its maxDifference at most one bias step (0.5 when rounded, 1 when
    128 was clipped to 127). This is the net the calibration frames are compared with; that
    they were made with other biases is the xfail of test_emulator_run."""
    folder = NET_DIR / "edgeai-tidl-fcnn-cnn5-9.0"
    path = folder / "_cnn_cnn.5_relu_Relu_output_0_tidl_net.bin"
    if not path.is_file():
        pytest.skip("../shared/realdata not present")
    log = folder / "tempDir" / "_cnn_cnn.5_relu_Relu_output_0_tidl_net.bin_paramDebug.csv"
    rows = [ln.split(",") for ln in log.read_text().splitlines()[1:] if ln.strip()]
    bias_rows = {int(r[0]): [float(v) for v in r[1:11]] for r in rows[::2]}  # bias row first, then weights
    ops = [op for op in decode(tidl_io.load_net(path), path.read_bytes()) if isinstance(op, ConvOp)]
    assert sorted(bias_rows) == [op.index for op in ops] == [2, 4, 6, 7]
    for op in ops:
        _, max_diff, _, _, org_max, quant_max, _, _, _, scale = bias_rows[op.index]
        # bias = split x biasB; below the largest biasB the split is the stored int16 itself
        largest = int(np.abs(op.bias).max()) // op.bias_b
        assert largest == round(quant_max * scale) and abs(largest - quant_max * scale) < 1e-3
        assert abs(org_max * scale - round(org_max * scale)) < 1e-3  # orgmax = 128 / scale: the range
        assert max_diff * scale <= 1.0 + 1e-3
    assert [round(bias_rows[i][1] * bias_rows[i][9], 2) for i in (2, 4, 6, 7)] == [0.5, 1.0, 1.0, 0.5]
