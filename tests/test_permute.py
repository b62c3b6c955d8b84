"""plan_permute against hand-worked cases (spec, OpenCV #16306) and a brute-force classifier;
permute against np.transpose on thousands of random shapes, with and without out=, in place."""

from __future__ import annotations

import dataclasses
import importlib.util
import itertools
import math
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tidl_io.base.errors import ArgumentTypeError, BufferMismatchError, GeometryError, OptionError
from tidl_io.data.permute import PermutePlan, permute, plan_permute

# Every test here runs on the NumPy path and again on the native kernels.
pytestmark = pytest.mark.usefixtures("both_paths")

NCHW_TO_NHWC = (0, 2, 3, 1)


# --------------------------------------------------------------------------- planner, by hand


@pytest.mark.parametrize("shape,perm,canon_shape,canon_perm,kind", [
    # The examples of the spec (reorg-permute.md section 2).
    ((1, 256, 19, 19), NCHW_TO_NHWC, (256, 361), (1, 0), "transpose2d"),
    ((8, 64, 208, 208), NCHW_TO_NHWC, (8, 64, 43264), (0, 2, 1), "batched_transpose"),
    ((1, 1024, 1, 1), NCHW_TO_NHWC, (1024,), (0,), "reshape"),
    ((8, 1, 64, 43264), (0, 2, 1, 3), (8 * 64 * 43264,), (0,), "reshape"),
    # Transposes of fat cells: a trailing axis that stays last.
    ((5, 7, 3), (1, 0, 2), (5, 7, 3), (1, 0, 2), "transpose2d"),
    ((2, 5, 7, 3), (0, 2, 1, 3), (2, 5, 7, 3), (0, 2, 1, 3), "batched_transpose"),
    ((2, 3, 5, 7), (0, 3, 1, 2), (2, 15, 7), (0, 2, 1), "batched_transpose"),      # NHWC -> NCHW
    # darknet reorg of [8,64,208,208], s=2: x.reshape(8,16,208,2,208,2).transpose(0,3,5,1,2,4);
    # output axes 3,4 come from input axes 1,2 (16*208 = 3328).
    ((8, 16, 208, 2, 208, 2), (0, 3, 5, 1, 2, 4), (8, 3328, 2, 208, 2), (0, 2, 4, 1, 3), "general"),
    ((2, 3, 4), (2, 1, 0), (2, 3, 4), (2, 1, 0), "general"),
    ((2, 3, 4), (0, 1, 2), (24,), (0,), "reshape"),
    ((2, 3, 4), (1, 2, 0), (2, 12), (1, 0), "transpose2d"),
    ((), (), (), (), "reshape"),
    ((1, 1), (1, 0), (), (), "reshape"),
])
def test_plan_hand_worked(shape, perm, canon_shape, canon_perm, kind) -> None:
    plan = plan_permute(shape, perm, 4)
    assert (plan.canonical_shape, plan.canonical_perm, plan.kind) == (canon_shape, canon_perm, kind)
    assert plan.out_shape == tuple(shape[p] for p in perm)
    assert plan.bytes_moved == (0 if kind == "reshape" else 4 * math.prod(shape))


def test_plan_transpose_dims() -> None:
    assert plan_permute((1, 256, 19, 19), NCHW_TO_NHWC, 4).transpose_dims == (1, 256, 361, 1)
    assert plan_permute((8, 64, 208, 208), NCHW_TO_NHWC, 1).transpose_dims == (8, 64, 43264, 1)
    assert plan_permute((2, 5, 7, 3), (0, 2, 1, 3), 2).transpose_dims == (2, 5, 7, 3)
    assert plan_permute((2, 3, 4), (2, 1, 0), 2).transpose_dims is None


def test_opencv_16306_model_counts() -> None:
    """OpenCV's counts: MobileNet-SSD 12 permutes = 10 transposes + 2 reshapes; YOLOv3 3 = 3 + 0."""
    ssd_loc = [(1, 12, 19, 19), (1, 24, 10, 10), (1, 24, 5, 5), (1, 24, 3, 3), (1, 24, 2, 2), (1, 24, 1, 1)]
    ssd_conf = [(1, 63, 19, 19), (1, 126, 10, 10), (1, 126, 5, 5), (1, 126, 3, 3), (1, 126, 2, 2),
                (1, 126, 1, 1)]
    kinds = [plan_permute(s, NCHW_TO_NHWC, 4).kind for s in ssd_loc + ssd_conf]
    assert kinds.count("transpose2d") == 10 and kinds.count("reshape") == 2
    assert plan_permute((1, 12, 19, 19), NCHW_TO_NHWC, 4).canonical_shape == (12, 361)
    yolo = [plan_permute((1, 255, n, n), NCHW_TO_NHWC, 4) for n in (13, 26, 52)]
    assert [p.kind for p in yolo] == ["transpose2d"] * 3
    assert [p.canonical_shape for p in yolo] == [(255, 169), (255, 676), (255, 2704)]


def test_plan_is_cached_frozen_and_accepts_negative_axes() -> None:
    a = plan_permute((1, 3, 4, 5), (0, 2, 3, 1), 4)
    assert plan_permute((1, 3, 4, 5), (0, 2, 3, 1), 4) is a
    assert plan_permute([1, 3, 4, 5], [0, -2, -1, 1], np.int64(4)) == a
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.kind = "general"  # type: ignore[misc]
    assert "transpose2d" in repr(a) and isinstance(a, PermutePlan)


@pytest.mark.parametrize("shape,perm,itemsize,words", [
    ((2, 3), (0,), 4, ["(0,)", "(2, 3)"]),
    ((2, 3), (0, 0), 4, ["(0, 0)", "not a permutation"]),
    ((2, 3), (0, 2), 4, ["(0, 2)", "0..1"]),
    ((2, -3), (1, 0), 4, ["(2, -3)", ">= 0"]),
    ((2, 3), (1, 0), 0, ["itemsize 0"]),
])
def test_plan_errors(shape, perm, itemsize, words) -> None:
    with pytest.raises(GeometryError) as err:
        plan_permute(shape, perm, itemsize)
    assert isinstance(err.value, ValueError)
    for w in words:
        assert w in str(err.value)


# --------------------------------------------------------------------------- planner, brute force


def _kind_by_brute_force(shape: tuple[int, ...], perm: tuple[int, ...]) -> str:
    """Where each output element comes from, compared with every (B, R, C, E) block transpose."""
    size = math.prod(shape)
    src = np.arange(size).reshape(shape).transpose(perm).ravel()
    if (src == np.arange(size)).all():
        return "reshape"
    divisors = [d for d in range(1, size + 1) if size % d == 0]
    found = None
    for b, r, c in itertools.product(divisors, repeat=3):
        if size % (b * r * c) or r == 1 or c == 1:
            continue
        e = size // (b * r * c)
        block = np.arange(size).reshape(b, r, c, e).transpose(0, 2, 1, 3).ravel()
        if (block == src).all():
            if b == 1:
                return "transpose2d"
            found = "batched_transpose"
    return found or "general"


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=5).flatmap(
    lambda shape: st.tuples(st.just(tuple(shape)), st.permutations(range(len(shape))))))
def test_plan_against_brute_force(case) -> None:
    shape, perm = case
    perm = tuple(perm)
    plan = plan_permute(shape, perm, 1)
    assert plan.kind == _kind_by_brute_force(shape, perm)
    x = np.arange(math.prod(shape)).reshape(shape)
    canon = x.reshape(plan.canonical_shape).transpose(plan.canonical_perm)
    np.testing.assert_array_equal(canon.ravel(), np.transpose(x, perm).ravel())
    assert 1 not in plan.canonical_shape
    assert all(b != a + 1 for a, b in zip(plan.canonical_perm, plan.canonical_perm[1:]))


# --------------------------------------------------------------------------- permute vs np.transpose


def _padded_view(base: np.ndarray, shape: tuple[int, ...], flip_axis: int | None) -> np.ndarray:
    """The ``shape`` view into the padded ``base``, offset by one where padded, maybe flipped."""
    view = base[tuple(slice(1, n + 1) if p > n else slice(0, n) for n, p in zip(shape, base.shape))]
    return view if flip_axis is None else np.flip(view, flip_axis)


def _random_x(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    x = rng.integers(0, 120, size=shape).astype(dtype)
    pick = rng.integers(0, 3)
    if pick == 1 and shape:                       # reversed along an axis
        return np.flip(x, int(rng.integers(0, len(shape))))
    if pick == 2:                                 # every other element of a bigger array
        big = rng.integers(0, 120, size=tuple(2 * n for n in shape)).astype(dtype)
        return big[tuple(slice(None, None, 2) for _ in shape)]
    return x


def test_permute_matches_transpose_on_random_cases() -> None:
    rng = np.random.default_rng(16306)
    dtypes = ["u1", "i2", "f4", "f8", "c8", "?"]
    kinds: set[str] = set()
    for _ in range(2000):
        rank = int(rng.integers(1, 7))
        shape = tuple(int(n) for n in rng.integers(1, 5, size=rank))
        perm = tuple(int(p) for p in rng.permutation(rank))
        x = _random_x(rng, shape, dtypes[int(rng.integers(0, len(dtypes)))])
        expected = np.transpose(x, perm)
        kinds.add(plan_permute(shape, perm, x.itemsize).kind)

        y = permute(x, perm)
        np.testing.assert_array_equal(y, expected)
        assert y.shape == expected.shape and y.dtype == x.dtype

        out = np.empty(expected.shape, x.dtype)
        assert permute(x, perm, out=out) is out
        np.testing.assert_array_equal(out, expected)

        padded = tuple(n + int(rng.integers(0, 3)) for n in expected.shape)
        flip = int(rng.integers(0, rank)) if rng.random() < 0.3 else None
        base = np.zeros(padded, x.dtype)
        strided = _padded_view(base, expected.shape, flip)
        assert permute(x, perm, out=strided) is strided
        np.testing.assert_array_equal(strided, expected)
        outside = np.ones(padded, bool)
        _padded_view(outside, expected.shape, flip)[...] = False
        assert not base[outside].any()                                  # padding left alone
    assert kinds == {"reshape", "transpose2d", "batched_transpose", "general"}


def test_permute_medium_arrays_through_the_kernels() -> None:
    """Sizes above the in-cache threshold, so the blocked kernels do the work."""
    rng = np.random.default_rng(5)
    for shape, perm, dtype in [((2, 64, 96, 96), NCHW_TO_NHWC, "f4"), ((2, 64, 96, 96), NCHW_TO_NHWC, "u1"),
                               ((1100, 700), (1, 0), "f4"), ((2, 96, 96, 64), (0, 3, 1, 2), "u1"),
                               ((1, 720, 1280, 3), (0, 3, 1, 2), "u1"), ((1, 3, 720, 1280), NCHW_TO_NHWC, "u1"),
                               ((12, 10, 11, 13, 17), (4, 2, 0, 3, 1), "f8")]:
        x = rng.integers(0, 255, size=shape).astype(dtype)
        expected = np.transpose(x, perm)
        np.testing.assert_array_equal(permute(x, perm), expected)
        padded = np.zeros(tuple(n + 3 for n in expected.shape), dtype)
        view = padded[tuple(slice(1, n + 1) for n in expected.shape)]
        permute(x, perm, out=view)
        np.testing.assert_array_equal(view, expected)
        assert padded[(0,) * padded.ndim] == 0


def test_nhwc_frame_into_padded_nchw_buffer() -> None:
    """The buffers use case: an NHWC camera frame written into the valid area of a padded buffer."""
    frame = np.random.default_rng(1).integers(0, 256, size=(1, 6, 8, 3), dtype=np.uint8)
    buf = np.full((1, 3, 6 + 2, 8 + 4), 9, np.uint8)          # 1 pad row top/bottom, 2 cols left/right
    valid = buf[:, :, 1:7, 2:10]
    permute(frame, (0, 3, 1, 2), out=valid)
    for c in range(3):
        for h in range(6):
            for w in range(8):
                assert buf[0, c, h + 1, w + 2] == frame[0, h, w, c]
    assert (buf[:, :, 0] == 9).all() and (buf[:, :, :, :2] == 9).all()


def test_reshape_class_is_a_view_and_moves_nothing() -> None:
    x = np.arange(8 * 64 * 50, dtype=np.float32).reshape(8, 1, 64, 50)
    y = permute(x, (0, 2, 1, 3))
    assert y.shape == (8, 64, 1, 50)
    assert y.__array_interface__["data"][0] == x.__array_interface__["data"][0]
    assert np.shares_memory(x, y) and y.flags.c_contiguous
    y[0, 0, 0, 0] = -1                                        # a view: writes show through
    assert x[0, 0, 0, 0] == -1
    out = np.empty_like(y)
    assert permute(x, (0, 2, 1, 3), out=out) is out and not np.shares_memory(out, x)
    np.testing.assert_array_equal(out, y)


def test_other_classes_return_new_contiguous_arrays() -> None:
    x = np.arange(24).reshape(2, 3, 4)
    y = permute(x, (2, 0, 1))
    assert y.flags.c_contiguous and not np.shares_memory(x, y)
    np.testing.assert_array_equal(x, np.arange(24).reshape(2, 3, 4))   # input untouched


def test_object_and_zero_size_arrays() -> None:
    x = np.empty((3, 4), object)
    for i, j in np.ndindex(3, 4):
        x[i, j] = [i, j]
    y = permute(x, (1, 0))
    assert y[2, 1] == [1, 2] and y[2, 1] is x[1, 2]
    z = np.zeros((3, 0, 2), np.float32)
    assert permute(z, (2, 0, 1)).shape == (2, 3, 0)
    assert permute(z, (2, 0, 1), out=np.zeros((2, 3, 0), np.float32)).shape == (2, 3, 0)


def test_out_overlapping_x() -> None:
    a = np.arange(36, dtype=np.int32).reshape(6, 6)
    expected = a.T.copy()
    assert permute(a, (1, 0), out=a) is a
    np.testing.assert_array_equal(a, expected)


def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("out,words", [
    (np.zeros((3, 2), np.float32), ["shape (3, 2)", "(4, 2)"]),
    (np.zeros((4, 2), np.float64), ["float64", "float32"]),
    (_read_only(np.zeros((4, 2), np.float32)), ["read-only"]),
    ([[0.0] * 2] * 4, ["numpy array", "list"]),
])
def test_out_errors(out, words) -> None:
    x = np.zeros((2, 4), np.float32)
    with pytest.raises(BufferMismatchError if isinstance(out, np.ndarray) else ArgumentTypeError) as err:
        permute(x, (1, 0), out=out)
    for w in words:
        assert w in str(err.value)


def test_perm_of_floats_is_a_wrong_kind() -> None:
    with pytest.raises(ArgumentTypeError, match=r"^plan_permute: perm: expected a sequence of integers \(axes\), "
                                                r"found tuple \(1.0, 0\)$"):
        plan_permute((2, 3), (1.0, 0), 4)


def test_bad_perm_is_a_geometry_error() -> None:
    with pytest.raises(GeometryError, match=r"perm \(0, 1\).*\(2, 3, 4\)"):
        permute(np.zeros((2, 3, 4)), (0, 1))


# --------------------------------------------------------------------------- in place


@pytest.mark.parametrize("shape,perm", [
    ((6, 6), (1, 0)),
    ((5, 7, 7), (0, 2, 1)),                      # batched square
    ((7, 7, 3), (1, 0, 2)),                      # square matrix of 3-element cells
    ((2, 5, 5, 2), (0, 2, 1, 3)),
    ((3, 4, 6), (0, 2, 1)),                      # batched non-square: one slice of scratch
    ((2, 3, 4, 5), (0, 3, 1, 2)),                # NHWC -> NCHW, batched (2, 12, 5)
    ((1, 1, 9, 9), (0, 1, 3, 2)),
    ((4, 1, 3, 5), (0, 2, 1, 3)),                # reshape class: nothing moves
])
def test_inplace(shape, perm) -> None:
    x = np.arange(math.prod(shape), dtype=np.int64).reshape(shape) * 3
    expected = np.transpose(x, perm).copy()
    address = x.__array_interface__["data"][0]
    y = permute(x, perm, inplace=True)
    np.testing.assert_array_equal(y, expected)
    assert y.__array_interface__["data"][0] == address and np.shares_memory(x, y)


def test_inplace_random_cases() -> None:
    rng = np.random.default_rng(9)
    done = refused = 0
    for _ in range(600):
        rank = int(rng.integers(1, 6))
        shape = tuple(int(n) for n in rng.integers(1, 5, size=rank))
        perm = tuple(int(p) for p in rng.permutation(rank))
        x = rng.integers(0, 99, size=shape).astype(np.float32)
        expected = np.transpose(x, perm).copy()
        kind = plan_permute(shape, perm, 4).kind
        try:
            y = permute(x, perm, inplace=True)
        except BufferMismatchError:
            refused += 1
            assert kind in ("general", "transpose2d", "batched_transpose")
            continue
        done += 1
        np.testing.assert_array_equal(y, expected)
        assert np.shares_memory(x, y)
    assert done > 100 and refused > 100


def _peak_bytes(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_inplace_scratch_is_bounded() -> None:
    a = np.random.default_rng(0).random((1536, 1536)).astype(np.float32)    # 9 MiB
    expected = a.T.copy()
    peak = _peak_bytes(lambda: permute(a, (1, 0), inplace=True))
    np.testing.assert_array_equal(a, expected)
    assert peak <= 2 * 256 * 256 * 4 + 4096 < a.nbytes // 10
    b = np.random.default_rng(1).random((6, 300, 500)).astype(np.float32)
    expected_b = b.transpose(0, 2, 1).copy()
    peak = _peak_bytes(lambda: permute(b, (0, 2, 1), inplace=True))
    np.testing.assert_array_equal(b.reshape(6, 500, 300), expected_b)
    assert peak <= 300 * 500 * 4 + 4096                          # one slice


@pytest.mark.parametrize("x,perm,words", [
    (np.zeros((2, 3, 4)), (2, 1, 0), ["general", "out="]),
    (np.zeros((3, 5)), (1, 0), ["non-square 3 x 5", "out="]),
    (np.zeros((3, 6)).T, (1, 0), ["C-contiguous"]),
    (np.zeros((6, 6))[::2, :], (1, 0), ["C-contiguous"]),
])
def test_inplace_refusals(x, perm, words) -> None:
    before = x.copy()
    with pytest.raises(BufferMismatchError) as err:
        permute(x, perm, inplace=True)
    for w in words:
        assert w in str(err.value)
    np.testing.assert_array_equal(x, before)                      # refused before touching x


def test_inplace_refuses_read_only_and_out() -> None:
    x = np.zeros((4, 4))
    with pytest.raises(OptionError, match="^permute: pass either out= or inplace=True, not both$"):
        permute(x, (1, 0), out=np.zeros((4, 4)), inplace=True)
    x.flags.writeable = False
    with pytest.raises(BufferMismatchError, match="read-only"):
        permute(x, (1, 0), inplace=True)


# --------------------------------------------------------------------------- benchmark smoke run


def test_bench_rearrange_quick_runs(capsys) -> None:
    path = Path(__file__).resolve().parents[1] / "tools" / "bench_rearrange.py"
    spec = importlib.util.spec_from_file_location("bench_rearrange", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--quick", "--repeats", "1"]) == 0
    text = capsys.readouterr().out
    for row in ("reorg darknet [1, 64, 26, 26]", "NCHW->NHWC", "uint8", "2-D transpose", "reshape class",
                "in-place square transpose", "scratch"):
        assert row in text, row
