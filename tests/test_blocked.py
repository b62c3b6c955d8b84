"""The private kernels of tidl_io.data.blocked against plain NumPy, with tiny tunings that force every
code path (tiles, staging, lane casts, splits) on small arrays."""

from __future__ import annotations

import collections
import math

import numpy as np
import pytest

from tidl_io.data import blocked as _blocked
from tidl_io.data.blocked import Tuning

# Every size parameter shrunk so that arrays of a few dozen elements are cut into many tiles.
TINY = Tuning(small_bytes=0, inner_min=3, inner_lines=2, reuse_lines=4, tile_elems=8, stage_min=4,
              stage_bytes=48, stage_cols=3, lane_elems=5, inplace_tile_bytes=16)
DTYPES = ["u1", "i2", "f4", "f8", "c16", "V3"]


def _random_array(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    raw = rng.integers(0, 256, size=math.prod(shape) * np.dtype(dtype).itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def _same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit-exact equality (random bytes include NaNs, which == would not equal)."""
    as_bytes = [np.ascontiguousarray(v).reshape(-1).view(np.uint8) for v in (a, b)]
    return a.shape == b.shape and a.dtype == b.dtype and bool((as_bytes[0] == as_bytes[1]).all())


def _strided_like(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    """A writable, non-contiguous view of the given shape: padded axes, some reversed, permuted."""
    order = rng.permutation(len(shape))
    padded = tuple(shape[i] + int(rng.integers(0, 3)) for i in order)
    base = np.zeros(padded, dtype)
    view = base[tuple(slice(0, shape[i]) for i in order)]
    view = view[tuple(slice(None, None, -1) if rng.random() < 0.3 else slice(None) for _ in shape)]
    return view.transpose(np.argsort(order))


def _random_source(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    kind = rng.integers(0, 4)
    if kind == 0:
        return _random_array(rng, shape, dtype)
    if kind == 1:                                   # strided, some axes reversed
        src = _strided_like(rng, shape, dtype)
        src[...] = _random_array(rng, shape, dtype)
        return src
    if kind == 2 and shape:                         # broadcast along one axis (stride 0)
        ax = int(rng.integers(0, len(shape)))
        one = _random_array(rng, shape[:ax] + (1,) + shape[ax + 1:], dtype)
        return np.broadcast_to(one, shape)
    big = _random_array(rng, tuple(n * 2 for n in shape), dtype)    # every other element
    return big[tuple(slice(None, None, 2) for _ in shape)]


def test_copy_matches_numpy_on_every_path() -> None:
    rng = np.random.default_rng(20240611)
    seen: collections.Counter[str] = collections.Counter()
    for _ in range(2500):
        rank = int(rng.integers(1, 6))
        shape = tuple(int(n) for n in rng.integers(1, 6, size=rank))
        perm = tuple(int(p) for p in rng.permutation(rank))
        dtype = DTYPES[int(rng.integers(0, len(DTYPES)))]
        x = _random_source(rng, shape, dtype)
        src = x.transpose(perm)
        dst = (np.zeros(src.shape, dtype) if rng.random() < 0.5
               else _strided_like(rng, src.shape, dtype))
        seen[_blocked.copy_strategy(dst, src, TINY)] += 1
        _blocked.copy(dst, src, TINY)
        assert _same_bytes(dst, np.transpose(x, perm)), (shape, perm, dtype)
    assert set(seen) == {"small", "stream", "split", "lanes", "staged", "tiled"}, seen


@pytest.mark.parametrize("dtype,s", [("u1", 2), ("u1", 4), ("u1", 8), ("i2", 2), ("i2", 4), ("f4", 2)])
def test_lane_path_for_space_to_depth(dtype: str, s: int) -> None:
    rng = np.random.default_rng(s)
    x = _random_array(rng, (2, 3, 5 * s, 4 * s), dtype)
    src = x.reshape(2, 3, 5, s, 4, s).transpose(0, 3, 5, 1, 2, 4)
    dst = np.empty(src.shape, dtype)
    assert _blocked.copy_strategy(dst, src, TINY) == "lanes"
    _blocked.copy(dst, src, TINY)
    np.testing.assert_array_equal(dst, np.ascontiguousarray(src))


def test_lane_path_reading_the_end_of_a_buffer() -> None:
    """The run at the highest address of the source is gathered, not read as a wide word."""
    rng = np.random.default_rng(7)
    base = _random_array(rng, (6 * 8 * 2,), "f4")
    x = base.reshape(6, 8, 2)                      # last run ends exactly at the buffer's end
    for src in (x.transpose(2, 0, 1), x[::-1].transpose(2, 0, 1)):
        dst = np.empty(src.shape, src.dtype)
        assert _blocked.copy_strategy(dst, src, TINY) == "lanes"
        _blocked.copy(dst, src, TINY)
        np.testing.assert_array_equal(dst, np.ascontiguousarray(src))


def test_default_tuning_paths_on_medium_arrays() -> None:
    """The real tile sizes, on arrays just over the small-copy threshold."""
    rng = np.random.default_rng(3)
    cases = [((800, 700), (1, 0), "f4", "staged"),
             ((2, 64, 4608), (0, 2, 1), "f4", "stream"),
             ((40, 30, 50, 9), (3, 2, 0, 1), "f4", "tiled"),
             ((5, 64, 8192), (0, 2, 1), "u1", "staged"),
             ((1, 10, 128, 2, 128, 2), (0, 3, 5, 1, 2, 4), "f4", "lanes"),
             ((1, 8, 96, 3, 96, 3), (0, 3, 5, 1, 2, 4), "f4", "tiled"),
             ((3, 1000, 800), (1, 2, 0), "u1", "split")]
    for shape, perm, dtype, strategy in cases:
        x = _random_array(rng, shape, dtype)
        src = x.transpose(perm)
        dst = np.empty(src.shape, dtype)
        assert _blocked.copy_strategy(dst, src) == strategy, (shape, perm)
        _blocked.copy(dst, src)
        np.testing.assert_array_equal(dst, np.transpose(x, perm))


def test_boxes_cover_every_element_once() -> None:
    for shape, limit in [((3, 4, 5), 7), ((3, 4, 5), 1), ((3, 4, 5), 60), ((2, 9), 4), ((7,), 3)]:
        hits = np.zeros(shape, int)
        for key in _blocked._boxes(shape, limit):
            assert hits[key].size <= max(limit, shape[-1])
            hits[key] += 1
        assert (hits == 1).all(), (shape, limit)


def test_view_reshape_agrees_with_numpy() -> None:
    """A view exactly when NumPy's reshape would not copy, with the same values."""
    rng = np.random.default_rng(11)
    views = copies = 0
    for _ in range(600):
        shape = tuple(int(n) for n in rng.integers(1, 5, size=int(rng.integers(1, 5))))
        a = _strided_like(rng, shape, "i4")
        a[...] = np.arange(a.size).reshape(shape)
        sizes = [int(n) for n in rng.permutation([p for n in shape for p in _factors(n)])]
        cut = sorted(int(c) for c in rng.integers(0, len(sizes) + 1, size=int(rng.integers(0, 3))))
        target = tuple(math.prod(sizes[i:j]) for i, j in zip([0, *cut], [*cut, len(sizes)]))
        v = _blocked.view_reshape(a, target)
        numpy_copies = not np.shares_memory(a.reshape(target), a)
        if v is None:
            copies += 1
            assert numpy_copies, (a.shape, a.strides, target)
        else:
            views += 1
            assert not numpy_copies and np.shares_memory(v, a)
            np.testing.assert_array_equal(v, a.reshape(target))
    assert views > 50 and copies > 50


def _factors(n: int) -> list[int]:
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out


@pytest.mark.parametrize("n,e,dtype", [(1, 1, "f4"), (2, 1, "u1"), (5, 1, "f4"), (9, 2, "i2"),
                                       (7, 3, "f8"), (16, 1, "O")])
def test_square_inplace(n: int, e: int, dtype: str) -> None:
    rng = np.random.default_rng(n)
    a = rng.integers(0, 1000, size=(3, n, n, e)).astype(dtype)
    expected = a.transpose(0, 2, 1, 3).copy()
    scratch = _blocked.square_inplace(a, TINY)
    np.testing.assert_array_equal(a, expected)
    tile, elems = _blocked.square_scratch_elements(n, e, a.itemsize, TINY)
    assert scratch == elems * a.itemsize == 2 * tile * tile * e * a.itemsize
    assert n < 2 or scratch < n * n * e * a.itemsize


def test_square_scratch_bound_hand_worked() -> None:
    # 4096 x 4096 float32: tiles of sqrt(256 KiB / 4 B) = 256, two of them = 512 KiB = 0.78 %.
    assert _blocked.square_scratch_elements(4096, 1, 4) == (256, 131072)
    # A small matrix: the tile edge is ceil(n/2), so scratch stays below the matrix.
    assert _blocked.square_scratch_elements(5, 1, 4) == (3, 18)


@pytest.mark.parametrize("r,c,e", [(2, 3, 1), (5, 2, 2), (1, 4, 1), (6, 7, 3)])
def test_batched_inplace(r: int, c: int, e: int) -> None:
    a = np.arange(4 * r * c * e, dtype=np.int16).reshape(4, r, c, e)
    expected = a.transpose(0, 2, 1, 3).copy()
    scratch = _blocked.batched_inplace(a, TINY)
    np.testing.assert_array_equal(a.reshape(4, c, r, e), expected)
    assert scratch == r * c * e * a.itemsize
