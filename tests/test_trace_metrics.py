"""Metrics of a comparison (tidl_io.trace.metrics) against the literal NumPy formulas,
written out here in float64."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tidl_io.trace import metrics as M


def _expected(ref: np.ndarray, test: np.ndarray, axis: int = 1) -> dict[str, object]:
    r, t = ref.astype(np.float64), test.astype(np.float64)
    d = r - t
    snr = 10 * np.log10(np.sum(r ** 2) / np.sum(d ** 2))
    cos = np.sum(r * t) / np.sqrt(np.sum(r ** 2) * np.sum(t ** 2))
    rc, dc = np.moveaxis(r, axis, 0).reshape(r.shape[axis], -1), np.moveaxis(d, axis, 0).reshape(r.shape[axis], -1)
    per = 10 * np.log10(np.sum(rc ** 2, axis=1) / np.sum(dc ** 2, axis=1))
    return {"max_abs": np.max(np.abs(d)), "mean_abs": np.mean(np.abs(d)), "snr_db": snr, "cosine": cos,
            "channel_snr_db": per, "worst_channel": int(np.argmin(per)), "worst_channel_snr_db": float(np.min(per))}


def _check(m: M.Metrics, e: dict[str, object]) -> None:
    assert m.max_abs == pytest.approx(e["max_abs"], rel=1e-6)
    assert m.mean_abs == pytest.approx(e["mean_abs"], rel=1e-5)
    assert m.snr_db == pytest.approx(e["snr_db"], abs=1e-3)
    assert m.cosine == pytest.approx(e["cosine"], abs=1e-6)
    assert np.allclose(m.channel_snr_db, e["channel_snr_db"], atol=1e-3)
    assert m.worst_channel == e["worst_channel"]
    assert m.worst_channel_snr_db == pytest.approx(e["worst_channel_snr_db"], abs=1e-3)


def test_against_numpy_formulas() -> None:
    rng = np.random.default_rng(17)
    ref = rng.normal(size=(2, 5, 30, 70)).astype(np.float32)
    test = ref + rng.normal(scale=0.05, size=ref.shape).astype(np.float32)
    test[:, 3] = 0.0  # one channel destroyed: 0 dB exactly
    m = M.compare_arrays(ref, test)
    _check(m, _expected(ref, test))
    assert m.worst_channel == 3 and m.worst_channel_snr_db == 0.0
    assert m.count == ref.size and m.saturated is None


def test_one_destroyed_channel_hides_in_the_layer_snr() -> None:
    """The spec's east-9.0 lesson: 31 fine channels and one all-zero keep the layer SNR high."""
    rng = np.random.default_rng(1)
    ref = rng.normal(size=(1, 32, 16, 16)).astype(np.float32)
    test = ref + rng.normal(scale=1e-3, size=ref.shape).astype(np.float32)
    test[0, 7] = 0
    m = M.compare_arrays(ref, test)
    assert m.snr_db > 14 and m.worst_channel == 7 and m.worst_channel_snr_db == 0.0
    assert m.below(20.0) and not M.compare_arrays(ref[:, :7], test[:, :7]).below(20.0)


def test_blocks_equal_one_pass() -> None:
    """Frames fed one by one (and rows longer than one block) give the one-pass numbers."""
    rng = np.random.default_rng(2)
    ref = rng.normal(size=(3, 2, 300, 300)).astype(np.float32)  # 90000 > one 65536-element block
    test = (ref * 1.01 + 0.01).astype(np.float32)
    acc = M.Accumulator(2)
    for k in range(3):
        acc.add(ref[k:k + 1], test[k:k + 1])
    _check(acc.result(), _expected(ref, test))


def test_other_axis_and_dtypes() -> None:
    rng = np.random.default_rng(3)
    ref = rng.normal(size=(4, 6, 5))  # float64, channels last
    test = ref[:, ::-1, :]  # a non-contiguous view too
    _check(M.compare_arrays(ref, test, axis=2), _expected(ref, test, axis=2))


def test_conventions() -> None:
    z = np.zeros((1, 2, 3, 3), np.float32)
    one = np.ones((1, 2, 3, 3), np.float32)
    exact = M.compare_arrays(one, one)
    assert exact.snr_db == math.inf and exact.worst_channel_snr_db == math.inf and exact.cosine == 1.0
    assert exact.max_abs == 0 and exact.mean_abs == 0
    assert M.compare_arrays(z, z).cosine == 1.0 and M.compare_arrays(z, z).snr_db == math.inf
    assert M.compare_arrays(z, one).snr_db == -math.inf and M.compare_arrays(z, one).cosine == 0.0
    assert M.compare_arrays(one, z).snr_db == 0.0
    nan = one.copy()
    nan[0, 1, 0, 0] = np.nan
    m = M.compare_arrays(one, nan)
    assert math.isnan(m.max_abs) and math.isnan(m.snr_db) and m.worst_channel == 1
    assert m.below(-1000.0)  # NaN is under any threshold


def test_single_functions() -> None:
    rng = np.random.default_rng(4)
    ref = rng.normal(size=(1, 3, 4, 4)).astype(np.float32)
    test = (ref + 0.1).astype(np.float32)
    e = _expected(ref, test)
    assert M.max_abs(ref, test) == pytest.approx(e["max_abs"], rel=1e-6)
    assert M.mean_abs(ref, test) == pytest.approx(e["mean_abs"], rel=1e-6)
    assert M.snr_db(ref, test) == pytest.approx(e["snr_db"], abs=1e-4)
    assert M.cosine(ref, test) == pytest.approx(e["cosine"], abs=1e-7)
    assert np.allclose(M.channel_snr_db(ref, test), e["channel_snr_db"], atol=1e-4)
    assert M.worst_channel(ref, test)[0] == e["worst_channel"]


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16])
def test_saturated_every_code(dtype: type) -> None:
    info = np.iinfo(dtype)
    codes = np.arange(info.min, info.max + 1).astype(dtype)  # every code once
    at = 1 + (info.min < 0)  # the max, and the min when signed
    assert M.saturated(codes) == at / codes.size
    acc = M.Accumulator(1)
    acc.add_codes(codes)
    acc.add(np.zeros((1, 1)), np.zeros((1, 1)))
    assert acc.result().saturated == at / codes.size
    with pytest.raises(TypeError, match="integer codes"):
        M.saturated(codes.astype(np.float32))


def test_shape_errors() -> None:
    with pytest.raises(ValueError, match="must be equal"):
        M.compare_arrays(np.zeros((1, 2, 3)), np.zeros((1, 2, 4)))
    with pytest.raises(ValueError, match="expected 3 channels"):
        M.Accumulator(3).add(np.zeros((1, 2, 3)), np.zeros((1, 2, 3)))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(1, 3), st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_property(c: int, n: int, hw: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    ref = rng.normal(size=(n, c, hw)).astype(np.float32)
    test = (ref + rng.normal(scale=0.3, size=ref.shape)).astype(np.float32)
    _check(M.compare_arrays(ref, test), _expected(ref, test))


@pytest.mark.parametrize("shape", [(1, 3, 300, 300), (2, 5, 7, 3)])  # long rows, short rows
def test_quantized_sources(shape: tuple[int, ...]) -> None:
    """Codes stand for (q - zero_point) / scale, dequantized block by block: the same numbers
    as the formula applied to the whole array, saturation counted from the codes."""
    rng = np.random.default_rng(6)
    ref = rng.normal(size=shape).astype(np.float32)
    codes = rng.integers(-128, 128, size=shape).astype(np.int8)
    real = (codes.astype(np.float32) - np.float32(3)) / np.float32(41.5)
    m = M.compare_arrays(ref, M.Quantized(codes, 41.5, 3), codes=codes)
    _check(m, _expected(ref, real))
    assert m.saturated == np.mean((codes == 127) | (codes == -128))
    both = M.compare_arrays(M.Quantized(codes, 41.5, 3), M.Quantized(codes, 41.5, 3))
    assert both.snr_db == math.inf and both.max_abs == 0.0
    nhwc = M.compare_arrays(np.moveaxis(ref, 1, -1).copy(), M.Quantized(np.moveaxis(codes, 1, -1).copy(), 41.5, 3),
                            axis=3)
    _check(nhwc, _expected(ref, real))


# ---- the sums, on both kernel paths, against math.fsum of the literal float64 terms ----------------
# The native kernel (tidl_io/native/stats.c) and the NumPy blocks take the same float64 terms from the
# same float32 values; only the order of the additions differs. Stated tolerance: each sum of n terms
# within n * 2**-52 of the exact sum of their magnitudes (fsum); max, count and saturation exactly.

def _values(x: M.Source) -> np.ndarray:
    """The float32 real values, by tidl_io.data.quant.dequantize_codes (the library's one formula)."""
    return (x.dequantize() if isinstance(x, M.Quantized) else np.asarray(x, np.float32)).astype(np.float64)


def _oracle(ref: M.Source, test: M.Source, axis: int) -> tuple[np.ndarray, np.ndarray, float, int]:
    """(exact sums (5, C): err2, ref2, test2, cross, |d|; the exact sums of their magnitudes; max |d|
    (NaN ignored); terms per channel), from the float64 terms of the float32 values."""
    r, t = (np.moveaxis(_values(x), axis, 0).reshape(M._shape(ref)[axis], -1) for x in (ref, test))
    d = r - t
    terms = (d * d, r * r, t * t, r * t, np.abs(d))
    exact = np.array([[math.fsum(row) for row in k] for k in terms])
    mags = np.array([[math.fsum(np.abs(row)) for row in k] for k in terms])
    finite = np.abs(d)[~np.isnan(d)]
    return exact, mags, float(finite.max()) if finite.size else 0.0, r.shape[1]


def _sums(ref: M.Source, test: M.Source, axis: int) -> M.Accumulator:
    acc = M.Accumulator(M._shape(ref)[axis])
    acc.add(ref, test, axis, saturation=True)
    return acc


def _check_sums(ref: M.Source, test: M.Source, axis: int = 1) -> M.Accumulator:
    acc = _sums(ref, test, axis)
    # the largest |ref - test| of each channel (NaN differences skipped), from the float32 values
    r, t = (np.moveaxis(_values(x), axis, 0).reshape(M._shape(ref)[axis], -1) for x in (ref, test))
    diff = np.abs(r - t)
    peaks = [float(np.nanmax(row, initial=0.0)) if row.size else 0.0 for row in diff]
    if M._integer_route(ref, test) is not None:  # both 8-bit codes of one quantization
        assert isinstance(ref, M.Quantized) and isinstance(test, M.Quantized)
        _check_integer(acc, ref, test, axis)
        assert np.allclose(acc.result().channel_max_abs, peaks, rtol=1e-6, atol=0)  # exact reals vs float32 ones
        return acc
    assert list(acc.result().channel_max_abs) == peaks  # exact: a max does not depend on the order
    exact, mags, big, n = _oracle(ref, test, axis)
    bound = max(n, 1) * 2.0 ** -52
    assert np.all(np.abs(acc._sums - exact[:4]) <= mags[:4] * bound), (acc._sums - exact[:4], mags[:4] * bound)
    assert abs(acc._abs - math.fsum(exact[4])) <= math.fsum(mags[4]) * bound * max(1, exact.shape[1])
    assert acc._max == big  # exact: a max does not depend on the order
    if isinstance(test, M.Quantized):  # the saturation count, exactly
        info = np.iinfo(test.codes.dtype)
        limit = np.count_nonzero(test.codes == info.max) + (np.count_nonzero(test.codes == info.min) if info.min else 0)
        assert acc._at_limit == limit and acc._codes == test.codes.size
    return acc


# ---- the integer route (both sides 8-bit codes of one scale and zero point) ---------------------------
# Oracles: the integer sums from literal Python-int loops over the centred codes, exactly; the real
# sums from fractions.Fraction of the exact values (q - zp) / scale (scale: its float32), within
# 2**-50 relative (each total is an exact integer rounded once to float64, then divided once by
# scale**2 or scale, and mean_abs once more by the count: 3 roundings of 2**-53, and 2**-50 > 3 * 2**-53
# with room); and the float path's sums of the float32-dequantized values within 1e-6 relative of
# their magnitudes (each float32 value is within 2**-24 relative of the exact one).

def _check_integer(acc: M.Accumulator, ref: M.Quantized, test: M.Quantized, axis: int) -> None:
    zp, c = ref.zero_point, M._shape(ref)[axis]
    x, y = (np.moveaxis(q.codes, axis, 0).reshape(c, -1).tolist() for q in (ref, test))
    want = np.zeros((6, c), np.int64)
    for ch in range(c):
        xs, ys = [v - zp for v in x[ch]], [v - zp for v in y[ch]]
        ds = [a - b for a, b in zip(xs, ys)]
        want[:, ch] = [sum(d * d for d in ds), sum(a * a for a in xs), sum(b * b for b in ys),
                       sum(a * b for a, b in zip(xs, ys)), sum(abs(d) for d in ds), max(map(abs, ds), default=0)]
    assert np.array_equal(acc._int, want), (acc._int, want)
    info = np.iinfo(test.codes.dtype)
    limit = np.count_nonzero(test.codes == info.max) + (np.count_nonzero(test.codes == info.min) if info.min else 0)
    assert acc._at_limit == limit and acc._codes == test.codes.size
    if not test.codes.size:
        return
    s = Fraction(float(np.float32(ref.scale)))
    _, total, m, totals = acc._integer_totals()
    for k in range(4):  # exact-real layer totals
        exact = Fraction(int(want[k].sum())) / (s * s)
        assert abs(Fraction(totals[k]) - exact) <= abs(exact) * Fraction(1, 2 ** 50), k
    assert abs(Fraction(total) - Fraction(int(want[4].sum())) / s) <= Fraction(int(want[4].sum())) / s / 2 ** 50
    assert m == float(Fraction(int(want[5].max())) / s)  # one rounding of an exact quotient
    r = acc.result()
    mean = Fraction(int(want[4].sum())) / s / test.codes.size
    assert abs(Fraction(r.mean_abs) - mean) <= mean / 2 ** 50
    exact_f, mags, big, _ = _oracle(ref, test, axis)  # the float32-dequantized values' sums
    per = acc._integer_totals()[0]
    assert np.all(np.abs(per - exact_f[:4]) <= mags[:4] * 1e-6 + 1e-300)
    assert abs(r.max_abs - big) <= big * 1e-6


def test_integer_route_native_equals_numpy() -> None:
    """The native int64 kernel against the NumPy int64 route, exactly: rows, pieces > 64 K, NHWC
    (inner == 1), strided and reversed views, both dtypes at their zero-point extremes."""
    from tidl_io import native as _native

    if _native.LIB is None:
        pytest.skip(f"native kernels unavailable: {_native.REASON}")
    rng = np.random.default_rng(21)
    for dtype in (np.uint8, np.int8):
        info = np.iinfo(dtype)
        for shape in ((2, 3, 70_001), (5000, 7, 1), (3, 1100, 1), (1, 2, 9)):
            q = rng.integers(info.min, info.max + 1, size=shape).astype(dtype)
            p = np.clip(q.astype(np.int64) + rng.integers(-3, 4, size=shape), info.min, info.max).astype(dtype)
            for a, b in ((q, p), (q[:, ::-1, ::2], p[:, ::-1, ::2]), (q, p[::-1])):
                for zp in (int(info.min), 0, int(info.max)):
                    with _native.forced(True):
                        native = _native.compare_codes(a, b, zp)
                    assert native is not None
                    numpy = M._integer_sums(a, b, zp)
                    c = a.shape[1]
                    got, want = native[:, :6 * c].reshape(-1, 6, c), numpy[:, :6 * c].reshape(-1, 6, c)
                    assert np.array_equal(got[:, :5].sum(axis=0), want[0, :5])
                    assert np.array_equal(got[:, 5].max(axis=0), want[0, 5])
                    assert native[:, 6 * c].sum() == numpy[0, 6 * c]
    assert _native.compare_codes(q, p, 128) is None  # zero point outside int8: not handled


def test_integer_route_dispatch_and_flush(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only 8-bit codes of one dtype, scale (as float32) and zero point take it; a new scale, or
    int64's element limit, moves the integer sums into the float64 ones (same metrics)."""
    rng = np.random.default_rng(22)
    q = rng.integers(0, 256, size=(4, 3, 50)).astype(np.uint8)
    p = rng.integers(0, 256, size=(4, 3, 50)).astype(np.uint8)
    Q = M.Quantized
    assert M._integer_route(Q(q, 0.37, 3), Q(p, float(np.float32(0.37)), 3)) is not None
    for other in (Q(p, 0.38, 3), Q(p, 0.37, 4), Q(p.astype(np.int8), 0.37, 3), Q(p.astype(np.int16), 0.37, 3),
                  p.astype(np.float32)):
        assert M._integer_route(Q(q, 0.37, 3), other) is None
    assert M._integer_route(Q(q, 0.37, 300), Q(p, 0.37, 300)) is None  # zero point outside uint8
    mixed = M.Accumulator(3)  # a new scale flushes the first one's sums
    mixed.add(Q(q, 0.37, 3), Q(p, 0.37, 3))
    mixed.add(Q(q, 0.5, 3), Q(p, 0.5, 3))
    d = np.concatenate([(q.astype(np.int64) - p) / float(np.float32(0.37)), (q.astype(np.int64) - p) / 0.5])
    assert math.isclose(mixed.result().mean_abs, float(np.mean(np.abs(d))), rel_tol=1e-13)
    whole = M.compare_arrays(Q(q, 0.37, 3), Q(p, 0.37, 3))
    monkeypatch.setattr(M, "_INT_LIMIT", 60)  # 50 elements per channel a frame: two overflow it
    acc = M.Accumulator(3)
    for i in range(4):
        acc.add(Q(q[i:i + 1], 0.37, 3), Q(p[i:i + 1], 0.37, 3))
    assert acc._int_rows == 50 and acc._sums.any()  # flushed three times
    flushed = acc.result()
    assert flushed.max_abs == whole.max_abs
    for name in ("mean_abs", "snr_db", "cosine"):
        assert math.isclose(getattr(flushed, name), getattr(whole, name), rel_tol=1e-13), name


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize("quant", [(0.37, 3), (4.0, 0), (1 / 3, -5), (2.0 ** -7, 11)])  # pow2 scales: another row
def test_every_8_bit_code_pair(both_paths: str, dtype: type, quant: tuple[float, int]) -> None:
    info = np.iinfo(dtype)
    codes = np.arange(info.min, info.max + 1).astype(dtype)
    rng = np.random.default_rng(8)
    ref = np.concatenate([codes, rng.permutation(codes), codes[::-1]]).reshape(1, 3, 256)
    test = np.concatenate([rng.permutation(codes), codes, codes]).reshape(1, 3, 256)
    _check_sums(M.Quantized(ref, *quant), M.Quantized(test, 0.5, 0), 1)  # different quantizations
    _check_sums(M.Quantized(ref, *quant), M.Quantized(test, *quant), 1)  # the same (--ref)
    _check_sums(M.Quantized(ref.reshape(256, 3), *quant), M.Quantized(test.reshape(256, 3), *quant), 1)  # NHWC


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 15, 16, 17, 33, 257, 1025, 70001])  # lanes, chunks, a piece
@pytest.mark.parametrize("kinds", [("f32", "f32"), ("i16", "u16"), ("f32", "i8"), ("u8", "f32")])
def test_random_data_odd_lengths(both_paths: str, n: int, kinds: tuple[str, str]) -> None:
    rng = np.random.default_rng(n)

    def make(kind: str) -> M.Source:
        if kind == "f32":
            return rng.normal(scale=3, size=(2, 3, n)).astype(np.float32)
        info = np.iinfo({"i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16}[kind])
        q = rng.integers(info.min, info.max + 1, size=(2, 3, n)).astype(info.dtype)
        return M.Quantized(q, float(rng.uniform(0.01, 300)), int(rng.integers(-300, 300)))

    ref, test = make(kinds[0]), make(kinds[1])
    _check_sums(ref, test, 1)
    if n:
        _check_sums(ref, test, 2)  # channels along the rows (inner == 1)
        m = M.compare_arrays(_values(ref).astype(np.float32), _values(test).astype(np.float32))
        assert m.count == 6 * n and m.max_abs == float(np.max(np.abs(_values(ref) - _values(test))))


def test_channels_of_length_0_and_1_and_strided_views(both_paths: str) -> None:
    rng = np.random.default_rng(5)
    a = rng.normal(size=(4, 6, 9)).astype(np.float32)
    b = rng.normal(size=(4, 6, 9)).astype(np.float32)
    _check_sums(a[:, :, :1], b[:, :, :1], 1)  # one element per row
    _check_sums(a[:, ::2, ::-3], b[:, 1::2, ::3], 1)  # strided and reversed
    _check_sums(M.Quantized(a.astype(np.int16)[:, :, ::2], 0.5, 1), b[:, :, ::2], 1)
    acc = _check_sums(a[:, :, :0], b[:, :, :0], 1)  # empty channels: zero sums
    assert acc._count == 0 and not acc._sums.any()


def test_two_threads_big_layer() -> None:
    """>= 8 MB of work: the kernel splits it between two threads (the NumPy path is the oracle here)."""
    from tidl_io import native as _native

    if _native.LIB is None:
        pytest.skip(f"native kernels unavailable: {_native.REASON}")
    rng = np.random.default_rng(9)
    q = rng.integers(-128, 128, size=(1, 8, 160_000)).astype(np.int8)
    p = rng.integers(-128, 128, size=(1, 8, 160_000)).astype(np.int8)
    results = []
    for native, threads in ((False, 1), (True, 1), (True, 2)):
        with _native.forced(native, threads):
            results.append(_sums(M.Quantized(q, 0.3, 2), M.Quantized(p, 0.3, 2), 1))
    base = results[0]
    for acc in results[1:]:
        assert np.allclose(acc._sums, base._sums, rtol=1e-12, atol=0)
        assert np.array_equal(acc._int, base._int) and acc._int.any()  # the integer route, exactly
        assert acc._max == base._max and acc._at_limit == base._at_limit


def test_nan_and_inf_in_float_traces(both_paths: str) -> None:
    """Pinned: sums follow IEEE (a NaN difference makes its channel's sums, the layer's error
    energy and mean_abs NaN); max_abs is NaN when any difference is NaN, else the largest, +inf
    included; the other channels keep their numbers."""
    ref = np.ones((1, 3, 20), np.float32)
    test = ref.copy()
    test[0, 0, 5] = np.inf  # inf - 1: an infinite error in channel 0
    m = M.compare_arrays(ref, test)
    assert m.max_abs == math.inf and m.mean_abs == math.inf and m.channel_snr_db[0] == -math.inf
    assert m.channel_snr_db[1] == math.inf and m.worst_channel == 0
    test[0, 1, 7] = np.nan
    m = M.compare_arrays(ref, test)
    assert math.isnan(m.max_abs) and math.isnan(m.mean_abs) and math.isnan(m.snr_db)
    assert math.isnan(m.channel_snr_db[1]) and m.worst_channel == 1  # a NaN counts as lowest
    assert m.channel_snr_db[0] == -math.inf and m.channel_snr_db[2] == math.inf
    both = np.full((1, 1, 9), np.inf, np.float32)  # inf - inf = NaN
    assert math.isnan(M.compare_arrays(both, both).max_abs)


@pytest.mark.parametrize("simd", [False, True])  # the FMA dequantizing rows are run-time-picked vector kernels
@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.int16])
def test_dequantizing_rows_with_and_without_fma(simd: bool, dtype: type) -> None:
    from tidl_io import native as _native

    if _native.LIB is None:
        pytest.skip(f"native kernels unavailable: {_native.REASON}")
    info = np.iinfo(dtype)
    rng = np.random.default_rng(11)
    codes = np.arange(info.min, info.max + 1).astype(dtype) if info.bits == 8 else \
        rng.integers(info.min, info.max + 1, size=4096).astype(dtype)
    ref = codes.reshape(1, 1, -1)
    test = rng.permutation(codes).reshape(1, 1, -1)
    with _native.forced(True, simd=simd):
        for scale, zp in ((0.37, 3), (1 / 3, -5), (123.456, 0), (3.0e-5, 7)):
            _check_sums(M.Quantized(ref, scale, zp), M.Quantized(test, scale, zp), 1)
            _check_sums(M.Quantized(ref, scale, zp), M.Quantized(test, scale, zp + 1), 1)  # 8-bit: the float rows


def test_the_sums_block_is_named_once_in_python_and_c() -> None:
    """Issue 23 item 5: the comparison sums' block (six sums per channel, then the limit count) is
    tidl_io.native.SUMS in Python and enum tio_sum / TIO_SUMS_BLOCK in the C header: the header,
    read literally here, must name the same sums in the same order."""
    import re

    from tidl_io import native as _native

    header = (Path(_native.__file__).parent / "tidl_io_native.h").read_text()
    body = re.search(r"enum tio_sum\s*\{([^}]*)\}", header)
    assert body is not None
    names = [m.split("=")[0].strip() for m in body.group(1).split(",")]
    assert names[-1] == "TIO_SUMS"
    assert [n.removeprefix("TIO_SUM_").lower() for n in names[:-1]] == list(_native.SUMS)
    assert _native.SUMS_PER_CHANNEL == len(names) - 1 == 6
    block = re.search(r"#define TIO_SUMS_BLOCK\((\w+)\)\s*\(TIO_SUMS \* \((\w+)\) \+ 1\)", header)
    assert block is not None and block.group(1) == block.group(2)
    assert [_native.sums_block(c) for c in (1, 5)] == [len(names) - 1 + 1, 5 * (len(names) - 1) + 1]
    stats = (Path(_native.__file__).parent / "stats.c").read_text()
    assert not re.search(r"\b6 \* (c|job->shape)", stats)  # no block size written as a bare number


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_non_finite_side_has_no_cosine(bad: float) -> None:
    """The second probe of issue 32: a golden of NaN (or one inf) had cosine 1.0, a perfect match."""
    ref = np.arange(12, dtype=np.float32).reshape(1, 3, 2, 2)
    test = ref.copy()
    ref.flat[5] = bad
    assert math.isnan(M.cosine(ref, test)) and math.isnan(M.cosine(test, ref))
    assert math.isnan(M.compare_arrays(np.full((1, 3, 2, 2), bad, np.float32), test, 1).cosine)
