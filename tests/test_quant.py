"""quantize / dequantize against independent oracles.

The oracle is a literal per-element Python version of the rules in tidl_io.data.quant's
docstring: numpy *scalars* for the float arithmetic (two roundings, no FMA), Python ints
for truncation (math.trunc), rounding (round: half to even) and saturation. Every code
of the 8- and 16-bit types round-trips; NaN, +-inf and overflow are pinned by
hand-worked values.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tidl_io import (
    AllocationLimitError,
    ArgumentTypeError,
    BufferMismatchError,
    GeometryError,
    OptionError,
    make_descriptor,
)
from tidl_io.data.quant import dequantize, dequantize_codes, limits, qparams, quantize

# Every test here runs on the NumPy path and again on the native kernels.
pytestmark = pytest.mark.usefixtures("both_paths")

INT_CODES = {"uint8": 0, "int8": 1, "uint16": 2, "int16": 3, "uint32": 4, "int32": 5, "float32": 6,
             "uint64": 7, "int64": 8}


def tensor(dtype: str, scale: float = 1.0, zero_point: int = 0, kind: str = "input") -> Any:
    fields = {"name_bytes": f"t_{dtype}", "width": 4, "height": 1, "num_channels": 1, "channel_pitch": 4,
              "num_batches": 1, "dim1": 1, "dim2": 1, "element_type": INT_CODES[dtype], "scale": scale,
              "zero_point": zero_point}
    if kind == "input":
        return make_descriptor("10.x", 1, inputs=[fields]).inputs[0]
    return make_descriptor("10.x", 1, inputs=[], outputs=[fields]).outputs[0]


# ---- the oracle -------------------------------------------------------------------------

def oracle_code(x: Any, src_dtype: np.dtype, dtype: str, scale: float, zp: int, rounding: str = "trunc",
                nan: str = "error") -> int:
    """One element, literally: ct(x) * ct(scale) + ct(zp), round, saturate."""
    info = np.iinfo(dtype)
    ct = np.float64 if (src_dtype == np.float64 or np.dtype(dtype).itemsize >= 4) else np.float32
    with np.errstate(over="ignore"):
        v = ct(x) * ct(scale) + ct(zp)
    if math.isnan(v):
        assert nan == "zero"
        v = ct(zp)
    if v == math.inf:
        return int(info.max)
    if v == -math.inf:
        return int(info.min)
    r = math.trunc(float(v)) if rounding == "trunc" else round(float(v))
    return min(max(r, int(info.min)), int(info.max))


def oracle_quantize(x: np.ndarray, dtype: str, scale: float, zp: int, rounding: str = "trunc",
                    nan: str = "error") -> np.ndarray:
    out = [oracle_code(v, x.dtype, dtype, scale, zp, rounding, nan) for v in x.ravel()]
    return np.array(out, dtype=dtype).reshape(x.shape)


def oracle_vectorized(x: np.ndarray, dtype: str, scale: float, zp: int) -> np.ndarray:
    """Plain NumPy, for large 8/16-bit arrays (checked against the literal oracle below)."""
    info = np.iinfo(dtype)
    v = np.trunc(x.astype(np.float32) * np.float32(scale) + np.float32(zp))
    return np.clip(v, info.min, info.max).astype(dtype)


def oracle_real(q: Any, scale: float, zp: int) -> np.float32:
    """float32(q - zp) with the difference in Python ints, then float32 division."""
    return np.float32(int(q) - zp) / np.float32(scale)


# ---- every code -------------------------------------------------------------------------

SCALES_8 = [1.0, 0.5, 16.0, 35.142269134521484, 255.0, 127.5, 3.0, 0.0078125, 1e-3, 7.3e4]


@pytest.mark.parametrize("dtype", ["uint8", "int8"])
@pytest.mark.parametrize("scale", SCALES_8)
@pytest.mark.parametrize("zp", [0, 3, -128, 128, 255])
def test_every_8bit_code_round_trips(dtype: str, scale: float, zp: int) -> None:
    info = np.iinfo(dtype)
    codes = np.arange(info.min, info.max + 1).astype(dtype)
    t = tensor(dtype, scale, zp)
    real = dequantize(t, codes)
    assert real.dtype == np.float32
    expected = np.array([oracle_real(q, float(np.float32(scale)), zp) for q in codes], np.float32)
    np.testing.assert_array_equal(real, expected)
    assert np.array_equal(quantize(t, real, rounding="nearest"), codes)


@pytest.mark.parametrize("dtype", ["uint16", "int16"])
@pytest.mark.parametrize("scale,zp", [(32768.0, 0), (128.0, 7), (35.142269134521484, -300), (0.1, 0)])
def test_every_16bit_code_round_trips(dtype: str, scale: float, zp: int) -> None:
    info = np.iinfo(dtype)
    codes = np.arange(info.min, info.max + 1).astype(dtype)
    t = tensor(dtype, scale, zp)
    real = dequantize(t, codes)
    s32 = np.float32(scale)
    expected = (codes.astype(np.int64) - zp).astype(np.float32) / s32  # exact difference, float32 division
    np.testing.assert_array_equal(real, expected)
    sample = codes[::997]
    np.testing.assert_array_equal(real[::997], [oracle_real(q, float(s32), zp) for q in sample])
    assert np.array_equal(quantize(t, real, rounding="nearest"), codes)


# ---- pinned values ----------------------------------------------------------------------

def test_truncation_and_saturation_pinned() -> None:
    x = np.array([-1e30, -1.0, -0.99, 0.0, 0.99, 1.99, 254.99, 255.0, 255.99, 256.0, 1e30], np.float32)
    assert quantize(tensor("uint8"), x).tolist() == [0, 0, 0, 0, 0, 1, 254, 255, 255, 255, 255]
    x = np.array([-1e9, -129.0, -128.9, -1.9, -0.9, 0.9, 1.9, 127.9, 128.0, 1e9], np.float32)
    assert quantize(tensor("int8"), x).tolist() == [-128, -128, -128, -1, 0, 0, 1, 127, 127, 127]


def test_scale_is_a_multiplier_and_zero_point_is_added() -> None:
    t = tensor("uint8", 10.0, 100)
    assert quantize(t, np.array([0.0, 0.19, 1.5, -9.9, -10.1, 15.6], np.float32)).tolist() == \
        [100, 101, 115, 1, 0, 255]
    assert dequantize(t, np.array([100, 101, 0, 255], np.uint8)).tolist() == \
        [0.0, np.float32(0.1), -10.0, np.float32(15.5)]


def test_nearest_rounds_half_to_even() -> None:
    x = np.array([0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, 2.4999998], np.float32)
    assert quantize(tensor("int8"), x, rounding="nearest").tolist() == [0, 2, 2, 4, 0, -2, -2, 2]
    assert quantize(tensor("int8"), x).tolist() == [0, 1, 2, 3, 0, -1, -2, 2]


def test_infinities_saturate() -> None:
    x = np.array([np.inf, -np.inf, 1.0], np.float32)
    assert quantize(tensor("uint8"), x).tolist() == [255, 0, 1]
    assert quantize(tensor("int16", 32768.0), x).tolist() == [32767, -32768, 32767]
    assert quantize(tensor("int8", 0.5, 3), x, rounding="nearest").tolist() == [127, -128, 4]


def test_nan_is_an_error_by_default_and_zero_point_on_request() -> None:
    t = tensor("uint8", 2.0, 128)
    x = np.zeros((2, 3), np.float32)
    x[1, 2] = np.nan
    x[0, 1] = -np.nan
    with pytest.raises(BufferMismatchError, match=r"2 NaN value\(s\), the first at index \(0, 1\)"):
        quantize(t, x)
    assert quantize(t, x, nan="zero").tolist() == [[128, 128, 128], [128, 128, 128]]
    assert quantize(tensor("int8", 1.0, -200), np.array([np.nan], np.float32), nan="zero").tolist() == [-128]


def test_bad_choices_are_refused() -> None:
    t = tensor("uint8")
    with pytest.raises(OptionError, match="^quantize: rounding must be one of 'trunc', 'nearest', found 'up'$"):
        quantize(t, np.zeros(2, np.float32), rounding="up")
    with pytest.raises(OptionError, match="^quantize: nan must be one of 'error', 'zero', found 'ignore'$"):
        quantize(t, np.zeros(2, np.float32), nan="ignore")
    with pytest.raises(ArgumentTypeError, match="^quantize: rounding: expected one of 'trunc', 'nearest', found None$"):
        quantize(t, np.zeros(2, np.float32), rounding=None)  # type: ignore[arg-type]


def test_float64_data_is_computed_in_float64() -> None:
    x64 = np.array([0.99999999], np.float64)  # rounds to 1.0 in float32
    assert quantize(tensor("uint8"), x64).tolist() == [0]
    assert quantize(tensor("uint8"), x64.astype(">f8")).tolist() == [0]
    assert quantize(tensor("uint8"), x64.astype(np.float32)).tolist() == [1]
    x16 = np.array([0.5, 200.0, -3.0, np.inf], np.float16)
    assert quantize(tensor("uint8", 2.0), x16).tolist() == [1, 255, 0, 255]


def test_big_endian_data() -> None:
    x = np.array([3.7, -2.0, 300.0, 12.0], ">f4")
    assert quantize(tensor("uint8"), x).tolist() == [3, 0, 255, 12]
    assert quantize(tensor("int8", 2.0), x.astype(">f8"), rounding="nearest").tolist() == [7, -4, 127, 24]


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64"])
def test_wide_types_saturate_exactly(dtype: str) -> None:
    info = np.iinfo(dtype)
    x = np.array([1e30, -1e30, np.inf, -np.inf, 12345.9, -7.5], np.float32)
    expected = [info.max, info.min, info.max, info.min, 12345, max(-7, int(info.min))]
    assert quantize(tensor(dtype), x).tolist() == expected
    big = np.array([2.0 ** 62, -(2.0 ** 62), 2.0 ** 31, 2.0 ** 33], np.float64)
    assert quantize(tensor(dtype), big).tolist() == [oracle_code(v, big.dtype, dtype, 1.0, 0) for v in big]


def test_integer_codes_of_the_element_type_are_copied() -> None:
    codes = np.array([0, 7, 255], np.uint8)
    assert quantize(tensor("uint8", 35.0, 4), codes).tolist() == [0, 7, 255]
    assert quantize(tensor("int16"), np.array([-5, 9], ">i2")).tolist() == [-5, 9]


@pytest.mark.parametrize("dtype,data", [("uint8", np.array([1, 300], np.int32)),
                                        ("int8", np.array([1], np.uint8)),
                                        ("int16", np.array([True])),
                                        ("uint8", np.array([1 + 2j]))])
def test_other_data_types_are_refused(dtype: str, data: np.ndarray) -> None:
    with pytest.raises(BufferMismatchError, match=f"has dtype {data.dtype}, which does not go into a {dtype}"):
        quantize(tensor(dtype), data)


def test_float_element_type_copies_values_whatever_the_scale() -> None:
    t = tensor("float32", 5.0, 3)
    x = np.array([1.5, -np.inf, np.nan, 1e300], np.float64)
    with np.errstate(over="ignore"):
        q = quantize(t, x)
    assert q.dtype == np.float32
    np.testing.assert_array_equal(q, np.array([1.5, -np.inf, np.nan, np.inf], np.float32))
    assert quantize(t, np.array([3, 250], np.uint8)).tolist() == [3.0, 250.0]
    np.testing.assert_array_equal(dequantize(t, q), q)


@pytest.mark.parametrize("scale", [0.0, -1.0, float("nan"), float("inf")])
def test_unusable_scale_is_refused(scale: float) -> None:
    t = tensor("uint8", scale)
    with pytest.raises(GeometryError, match=r"input 0 't_uint8': inTensorScale = .*finite multiplier > 0"):
        quantize(t, np.zeros(1, np.float32))
    with pytest.raises(GeometryError, match="outTensorScale"):
        dequantize(tensor("int8", scale, kind="output"), np.zeros(1, np.int8))


def test_dequantize_refuses_codes_of_another_type_and_bad_out() -> None:
    t = tensor("int8", 4.0)
    with pytest.raises(BufferMismatchError, match="codes have dtype uint8, expected the tensor's int8"):
        dequantize(t, np.zeros(3, np.uint8))
    with pytest.raises(BufferMismatchError, match=r"out has shape \(2,\), expected \(3,\)"):
        dequantize(t, np.zeros(3, np.int8), out=np.zeros(2, np.float32))
    with pytest.raises(BufferMismatchError, match="out has dtype int32"):
        dequantize(t, np.zeros(3, np.int8), out=np.zeros(3, np.int32))
    with pytest.raises(AllocationLimitError, match="exceeds the limit of 8 bytes"):
        dequantize(t, np.zeros(3, np.int8), max_bytes=8)


@pytest.mark.parametrize("scale", [1.4e-45, 1e-40, 2.0 ** -130])
def test_subnormal_scales_overflow_to_infinity_quietly(scale: float) -> None:
    t = tensor("int8", scale)
    real = dequantize(t, np.array([0, 1, -1, 127], np.int8))
    assert real.tolist() == [0.0, np.inf, -np.inf, np.inf]
    assert quantize(t, np.array([1e30, -1e30, 0.0], np.float32)).tolist() == [0, 0, 0]  # underflows to 0


def test_dequantize_into_float64_keeps_float32_results() -> None:
    t = tensor("uint8", 35.142269134521484, 3)
    codes = np.arange(256).astype(np.uint8)
    out = np.empty(256, np.float64)
    assert dequantize(t, codes, out=out) is out
    np.testing.assert_array_equal(out, dequantize(t, codes).astype(np.float64))


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64"])
def test_dequantize_wide_codes(dtype: str) -> None:
    info = np.iinfo(dtype)
    codes = np.array([0, 1, 2 ** 24 + 1, 2 ** 31 - 1, info.max if info.bits == 32 else 2 ** 52 + 3,
                      int(info.min) if info.bits == 32 else -(2 ** 50) if info.min else 7], dtype)
    for scale, zp in [(1.0, 0), (3.0, 5), (256.0, -9)]:
        t = tensor(dtype, scale, zp)
        expected = [oracle_real(q, scale, zp) for q in codes]
        np.testing.assert_array_equal(dequantize(t, codes), np.array(expected, np.float32))


# ---- property tests against the literal oracle ------------------------------------------

F32_MAX = float(np.finfo(np.float32).max)
FLOATS = st.floats(allow_nan=False, width=32) | st.sampled_from([0.0, -0.0, 255.5, -128.5, F32_MAX, -F32_MAX])


@st.composite
def settings_and_data(draw: Any) -> tuple[str, float, int, str, str, np.ndarray]:
    dtype = draw(st.sampled_from(["uint8", "int8", "uint16", "int16", "int32", "uint32", "int64"]))
    scale = float(np.float32(draw(st.sampled_from([1.0, 255.0, 32768.0, 0.5, 35.142269134521484, 1e-6, 3e9])
                                  | st.floats(0.001, 10000.0))))  # the descriptor stores float32
    zp = draw(st.integers(-300, 300))
    rounding = draw(st.sampled_from(["trunc", "nearest"]))
    src = draw(st.sampled_from([np.float32, np.float64, np.float16]))
    nan = draw(st.sampled_from(["error", "zero"]))
    elements = draw(st.sampled_from([FLOATS, st.floats(0, 300, width=32), st.floats(-300, 0, width=32),
                                     st.floats(-2, 2, width=32)]))
    if nan == "zero":
        elements = elements | st.just(float("nan"))
    x = draw(hnp.arrays(np.float32, st.integers(1, 40), elements=elements))
    with np.errstate(over="ignore"):
        return dtype, scale, zp, rounding, nan, x.astype(src)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(settings_and_data())
def test_quantize_matches_the_literal_oracle(case: tuple[str, float, int, str, str, np.ndarray]) -> None:
    dtype, scale, zp, rounding, nan, x = case
    got = quantize(tensor(dtype, scale, zp), x, rounding=rounding, nan=nan)
    np.testing.assert_array_equal(got, oracle_quantize(x, dtype, scale, zp, rounding, nan))


@pytest.mark.parametrize("dtype,scale,zp,rounding", [("uint8", 1.0, 0, "trunc"), ("uint8", 255.0, 0, "trunc"),
                                                     ("int8", 35.142269134521484, -3, "nearest"),
                                                     ("int16", 32768.0, 0, "trunc"),
                                                     ("uint16", 0.1, 17, "nearest"),
                                                     ("int32", 3.0, 0, "trunc")])
def test_values_at_the_clip_thresholds(dtype: str, scale: float, zp: int, rounding: str) -> None:
    """The in-range test switches paths exactly at the thresholds: the values at and
    next to them (in every combination with in-range data) match the oracle."""
    t = tensor(dtype, scale, zp)
    lim = limits(qparams(t), np.dtype(np.float32), rounding)
    edges = []
    for thr in (lim.lo_thr, lim.hi_thr):
        f = np.float32(thr)
        edges += [f, np.nextafter(f, np.float32(np.inf)), np.nextafter(f, np.float32(-np.inf))]
    mid = np.float32((lim.lo_thr + lim.hi_thr) / 2)
    for e in edges:
        x = np.array([mid, e, mid], np.float32)
        np.testing.assert_array_equal(quantize(t, x, rounding=rounding),
                                      oracle_quantize(x, dtype, scale, zp, rounding))


def test_large_arrays_switch_path_per_block() -> None:
    """Blocks in range and blocks needing the clip, in one array larger than a block."""
    rng = np.random.default_rng(5)
    x = rng.uniform(0, 255, 600_000).astype(np.float32)
    x[400_000:400_010] = [-5, 300, np.inf, -np.inf, 255.9, -0.9, 1e30, 0, 7, -1]
    t = tensor("uint8")
    got = quantize(t, x)
    sample = np.r_[0:50, 262_100:262_200, 399_990:400_030, 599_950:600_000]
    np.testing.assert_array_equal(got[sample], oracle_quantize(x[sample], "uint8", 1.0, 0))
    np.testing.assert_array_equal(oracle_vectorized(x[sample], "uint8", 1.0, 0), got[sample])
    np.testing.assert_array_equal(got, oracle_vectorized(x, "uint8", 1.0, 0))


def test_out_receives_the_codes() -> None:
    t = tensor("int16", 128.0)
    out = np.full((2, 2), -1, np.int16)
    assert quantize(t, np.array([[0.5, -0.5], [300.0, 1.0]], np.float32), out=out) is out
    assert out.tolist() == [[64, -64], [32767, 128]]
    with pytest.raises(BufferMismatchError, match="out has dtype uint8, expected int16"):
        quantize(t, np.zeros((2, 2), np.float32), out=np.zeros((2, 2), np.uint8))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16])
@pytest.mark.parametrize(("scale", "zero_point"), [(0.5, 0), (841.7022705078125, 0), (37.0, 3), (1 / 3, -7)])
def test_dequantize_codes_every_code(dtype: type, scale: float, zero_point: int) -> None:
    """dequantize_codes (codes of no io tensor: a net layer's trace) is TIDL's rule in float32,
    float32(q - zero_point) / float32(scale), over every code of the type."""
    info = np.iinfo(dtype)
    q = np.arange(info.min, info.max + 1).astype(dtype)
    want = (q.astype(np.float64) - zero_point).astype(np.float32) / np.float32(scale)
    assert np.array_equal(dequantize_codes(q, scale, zero_point), want)
    out = np.empty(q.shape, np.float32)
    assert dequantize_codes(q, scale, zero_point, out=out) is out and np.array_equal(out, want)
    with pytest.raises(GeometryError, match="finite multiplier"):
        dequantize_codes(q, 0.0)
