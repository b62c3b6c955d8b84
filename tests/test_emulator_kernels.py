"""The emulator's integer kernels against literal loops and values written here."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tidl_io.emulator import kernels


def test_round_shift_saturate_every_value_and_shift() -> None:
    acc = np.arange(-5000, 5001, dtype=np.int64)
    for shift in range(10):
        got = kernels.round_shift_saturate(acc, shift, -128, 127, np.dtype(np.int8))
        want = []
        for a in acc.tolist():
            v = a if shift == 0 else (a + (1 << (shift - 1))) // (1 << shift)  # floor division: an arithmetic shift
            want.append(min(max(v, -128), 127))
        assert got.dtype == np.int8 and got.tolist() == want


def test_round_shift_halves_go_up() -> None:
    got = kernels.round_shift_saturate(np.array([-3, -2, -1, 1, 2, 3]), 1, -100, 100, np.dtype(np.int16))
    assert got.tolist() == [-1, -1, 0, 1, 1, 2]  # -1.5 -> -1, -1 -> -1, -0.5 -> 0, 0.5 -> 1, 1 -> 1, 1.5 -> 2


@pytest.mark.parametrize(("x", "scale", "want"), [
    (0.5, 1.0, 1), (-0.5, 1.0, -1), (1.49, 1.0, 1), (-1.49, 1.0, -1), (2.5, 1.0, 3), (-2.5, 1.0, -3),
    (300.0, 1.0, 127), (-300.0, 1.0, -128), (0.0, 1.0, 0), (-0.9764706, 128.0, -125), (0.99, 128.0, 127),
    (0.49999997, 1.0, 1),  # float32: 0.49999997 + 0.5 rounds to 1.0 before the truncation
    (float("inf"), 1.0, 127), (float("-inf"), 1.0, -128), (float("nan"), 1.0, 0),
])
def test_quantize_float32_rounds_half_away_in_float32(x: float, scale: float, want: int) -> None:
    got = kernels.quantize_float32(np.array([x], np.float32), np.float32(scale), np.dtype(np.int8))
    assert got.dtype == np.int8 and int(got[0]) == want


def test_quantize_float32_unsigned_and_sixteen_bit() -> None:
    x = np.array([-3.0, 0.2, 0.3, 255.6, 1000.0], np.float32)
    assert kernels.quantize_float32(x, np.float32(1), np.dtype(np.uint8)).tolist() == [0, 0, 0, 255, 255]
    assert kernels.quantize_float32(x, np.float32(64), np.dtype(np.int16)).tolist() == [-192, 13, 19, 16358, 32767]


def test_dequantize_multiplies_by_the_float32_reciprocal() -> None:
    codes = np.arange(256, dtype=np.uint8)
    inv = np.float32(np.float32(1) / np.float32(0.17940166592597961))
    got = kernels.dequantize_float32(codes, inv)
    assert got.dtype == np.float32
    assert [float(v) for v in got] == [float(np.float32(np.float32(c) * inv)) for c in range(256)]


def _conv_loops(x: np.ndarray, w: np.ndarray, b: np.ndarray, groups: int, stride: tuple[int, int],
                dil: tuple[int, int], pad: tuple[int, int], out_hw: tuple[int, int]) -> np.ndarray:
    f, _, h, wid = x.shape
    cout, cin_g, kh, kw = w.shape
    cout_g = cout // groups
    out = np.zeros((f, cout, *out_hw), np.int64)
    for n, o, y, z in itertools.product(range(f), range(cout), range(out_hw[0]), range(out_hw[1])):
        g = o // cout_g
        acc = int(b[o])
        for i, ky, kx in itertools.product(range(cin_g), range(kh), range(kw)):
            yy = y * stride[0] - pad[0] + ky * dil[0]
            xx = z * stride[1] - pad[1] + kx * dil[1]
            if 0 <= yy < h and 0 <= xx < wid:
                acc += int(x[n, g * cin_g + i, yy, xx]) * int(w[o, i, ky, kx])
        out[n, o, y, z] = acc
    return out


@pytest.mark.parametrize(("cin", "cout", "groups", "k", "stride", "dil", "pad"), [
    (3, 4, 1, 3, (1, 1), (1, 1), (1, 1)),
    (4, 6, 2, 3, (2, 2), (1, 1), (1, 1)),
    (5, 5, 5, 3, (1, 2), (1, 1), (1, 1)),   # depthwise
    (2, 3, 1, 1, (1, 1), (1, 1), (0, 0)),
    (2, 2, 1, 3, (1, 1), (2, 2), (2, 2)),   # dilated
    (3, 2, 1, 5, (2, 1), (1, 1), (0, 2)),
])
def test_conv2d_against_loops(cin: int, cout: int, groups: int, k: int, stride: tuple[int, int],
                              dil: tuple[int, int], pad: tuple[int, int]) -> None:
    rng = np.random.default_rng(cin * 100 + cout * 10 + k)
    x = rng.integers(-128, 128, (2, cin, 7, 9)).astype(np.int8)
    w = rng.integers(-128, 128, (cout, cin // groups, k, k)).astype(np.int8)
    b = rng.integers(-30000, 30000, cout)
    out_hw = tuple((s + 2 * p - (k - 1) * d - 1) // st + 1 for s, p, d, st in zip((7, 9), pad, dil, stride))
    got = kernels.conv2d(x, w, b, groups=groups, stride=stride, dilation=dil, pad=pad, out_hw=out_hw)
    assert got.dtype == np.int64
    assert np.array_equal(got, _conv_loops(x, w, b, groups, stride, dil, pad, out_hw))


def test_conv2d_past_float64_exactness_uses_int64() -> None:
    x = np.full((1, 1, 3, 3), 2**31 - 1, np.int64)
    w = np.full((1, 1, 3, 3), 127, np.int8)
    got = kernels.conv2d(x, w, np.array([2**40]), groups=1, stride=(1, 1), dilation=(1, 1), pad=(0, 0), out_hw=(1, 1))
    assert int(got[0, 0, 0, 0]) == 9 * 127 * (2**31 - 1) + 2**40


def test_max_pool_against_loops() -> None:
    x = np.random.default_rng(3).integers(0, 256, (2, 3, 9, 10)).astype(np.uint8)
    got = kernels.max_pool(x, (2, 3), (2, 2))
    want = np.zeros((2, 3, 4, 4), np.uint8)
    for n, c, i, j in itertools.product(range(2), range(3), range(4), range(4)):
        want[n, c, i, j] = max(int(x[n, c, 2 * i + a, 2 * j + b]) for a in range(2) for b in range(3))
    assert got.dtype == np.uint8 and np.array_equal(got, want)


def test_concat_scales_each_input_then_rounds() -> None:
    a = np.array([[[[10, -3]]]], np.int8)
    b = np.array([[[[97, -69]]]], np.int8)
    got = kernels.concat([a, b], (128, 0), 1, 7, -128, 127, np.dtype(np.int8))
    assert got.shape == (1, 2, 1, 2) and got.tolist() == [[[[10, -3]], [[0, 0]]]]
    got = kernels.concat([a, b], (3, 1), 3, 2, -128, 127, np.dtype(np.int8))
    assert got.tolist() == [[[[8, -2, 24, -17]]]]  # (30+2)>>2, (-9+2)>>2, (97+2)>>2, (-69+2)>>2
