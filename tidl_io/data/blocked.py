"""Private kernels for :mod:`tidl_io.permute`: blocked strided copies and in-place transposes.

Pure NumPy. A transposed copy in NumPy runs one C inner loop per destination row, reading the
source with a large stride; for big arrays every read misses the cache and the TLB. The kernels
here call ``np.copyto`` on sub-boxes ("tiles") small enough that the source lines fetched by one
inner loop are still cached when the next row reuses them, with few Python iterations.

Nothing here validates user input: :mod:`tidl_io.permute` does that and calls these with
same-shape, same-dtype arrays whose memory does not overlap (except where "inplace" says so).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..native import merge_axes

_LITTLE = bool(np.little_endian)

__all__ = [
    "DEFAULT",
    "Tuning",
    "batched_inplace",
    "copy",
    "copy_strategy",
    "square_inplace",
    "square_scratch_elements",
    "view_reshape",
]


@dataclass(frozen=True)
class Tuning:
    """Cache-blocking parameters (bytes or elements as named). Tests shrink them to force tiling."""

    small_bytes: int = 1 << 21     # copies up to this size fit in cache: plain np.copyto
    line: int = 64                 # cache line, bytes
    inner_min: int = 8             # a destination-inner axis shorter than this is looped in Python
    inner_lines: int = 128         # at most this many source lines per NumPy inner loop (TLB, L1)
    reuse_lines: int = 2048        # source lines kept live between two reuses of a line (~L2)
    tile_elems: int = 1 << 18      # elements per np.copyto call, per outer index
    stage_min: int = 128           # stage 2-D tiles when both sides are this long (1-2 byte items:
    stage_bytes: int = 1 << 19     # the source side) through a scratch this big
    stage_cols: int = 512          # staged tile width, elements
    lane_elems: int = 1 << 16      # elements per lane per chunk in the lane-extraction path
    inplace_tile_bytes: int = 1 << 18  # in-place square tile, bytes (two tiles of scratch)


DEFAULT = Tuning()


# ---------------------------------------------------------------------------------------------
# Views


def view_reshape(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    """``a.reshape(shape)`` as a view of ``a``, or None where NumPy would have to copy.

    A port of NumPy's no-copy reshape rule: each group of old axes merged into new axes must be
    laid out contiguously relative to each other.
    """
    shape = tuple(int(n) for n in shape)
    if math.prod(shape) != a.size:
        raise ValueError(f"cannot view shape {a.shape} as {shape}")
    if a.size == 0:
        return a.reshape(shape)
    old = [(n, st) for n, st in zip(a.shape, a.strides) if n != 1]
    new_strides = [a.itemsize] * len(shape)
    oi = ni = 0
    while ni < len(shape) and oi < len(old):
        oj, nj = oi + 1, ni + 1
        np_, op = shape[ni], old[oi][0]
        while np_ != op:
            if np_ < op:
                np_ *= shape[nj]
                nj += 1
            else:
                op *= old[oj][0]
                oj += 1
        for k in range(oi, oj - 1):
            if old[k][1] != old[k + 1][0] * old[k + 1][1]:
                return None
        new_strides[nj - 1] = old[oj - 1][1]
        for k in range(nj - 1, ni, -1):
            new_strides[k - 1] = new_strides[k] * shape[k]
        ni, oi = nj, oj
    return as_strided(a, shape, tuple(new_strides))


def _simplify(dst: np.ndarray, src: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Same-shape views of dst/src with size-1 axes dropped, dst strides positive and descending,
    and neighbouring axes merged where both arrays allow it (:func:`tidl_io.native.merge_axes`)."""
    if any(st < 0 for st in dst.strides):  # start both at the element merge_axes starts from
        idx = tuple(slice(None, None, -1) if st < 0 else slice(None) for st in dst.strides)
        dst, src = dst[idx], src[idx]
    shape, ds, ss, _, _ = merge_axes(dst.shape, dst.strides, src.strides)
    if shape == dst.shape and ds == dst.strides and ss == src.strides:
        return dst, src
    return as_strided(dst, shape, ds), as_strided(src, shape, ss)


def _fuse_runs(dst: np.ndarray, src: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Treat a short run contiguous in both arrays as one wide element (2, 4, 8 or 16 bytes)."""
    if dst.ndim < 2 or dst.dtype.hasobject:
        return dst, src
    n, isz = dst.shape[-1], dst.itemsize
    if dst.strides[-1] != isz or src.strides[-1] != isz or n * isz not in (2, 4, 8, 16):
        return dst, src
    wide = np.dtype(f"V{n * isz}") if n * isz == 16 else np.dtype(f"u{n * isz}")
    try:
        return dst.view(wide)[..., 0], src.view(wide)[..., 0]
    except (ValueError, TypeError):  # NumPy < 1.23 wants C-contiguous arrays for this
        return dst, src


# ---------------------------------------------------------------------------------------------
# Copy


def copy_strategy(dst: np.ndarray, src: np.ndarray, tuning: Tuning = DEFAULT) -> str:
    """The path :func:`copy` takes: "small", "stream", "split", "lanes", "staged" or "tiled"."""
    if dst.nbytes <= tuning.small_bytes or dst.size <= 1:
        return "small"
    d, s = _fuse_runs(*_simplify(dst, src))
    return _strategy(d, s, tuning)[0]


def _strategy(d: np.ndarray, s: np.ndarray, t: Tuning) -> tuple[str, int]:
    """Axes of d/s are in destination order: a = last is destination-contiguous; b is the axis
    with the smallest source stride (where source cache lines are reused)."""
    k = d.ndim
    if k <= 1:
        return "stream", -1
    if d.shape[-1] < t.inner_min:
        return "split", -1
    ss = [abs(x) for x in s.strides]
    b = min(range(k), key=lambda i: (ss[i], -i))
    if b == k - 1:
        return "stream", b
    isz = d.itemsize
    lanes = d.shape[b]
    if (_LITTLE and not d.dtype.hasobject and isz * lanes in (2, 4, 8) and s.strides[b] == isz
            and s.strides[-1] == isz * lanes and min(ss[i] for i in range(k) if i != b) == isz * lanes):
        return "lanes", b
    if b == k - 2 and ss[-1] >= t.line:
        # A transpose of the last two axes (NCHW -> NHWC, 2-D): stage big tiles; NumPy's own loop
        # is as fast as anything here for 4- and 8-byte items and a short destination row.
        if d.shape[-2] >= t.stage_min and (isz <= 2 or d.shape[-1] >= t.stage_min):
            return "staged", b
        if isz >= 4 and d.shape[-1] < t.stage_min:
            return "stream", b
    # How often NumPy's own loop order would sweep the same source bytes: once per index of b and
    # of every outer axis that steps within the region swept below b (reorg: sy and sx; an RGB
    # deinterleave: the 3 channels). For 3 sweeps or fewer, blocking does not pay for its calls.
    span = max(ss[i] * d.shape[i] for i in range(b + 1, k))
    sweeps = d.shape[b] * math.prod(d.shape[i] for i in range(b) if ss[i] < span)
    if sweeps <= 3:
        return "stream", b
    return "tiled", b


def copy(dst: np.ndarray, src: np.ndarray, tuning: Tuning = DEFAULT) -> None:
    """``dst[...] = src`` for same-shape, same-dtype arrays of any strides that do not overlap."""
    if dst.size == 0:
        return
    if dst.nbytes <= tuning.small_bytes or dst.size == 1:
        np.copyto(dst, src)
        return
    d, s = _fuse_runs(*_simplify(dst, src))
    kind, b = _strategy(d, s, tuning)
    if kind == "stream":
        np.copyto(dst, src)  # NumPy orders the loops of the caller's arrays at least as well
    elif kind == "split":
        # The destination-contiguous axis is short (e.g. 3 channels): loop over it so that NumPy's
        # inner loop runs along a long axis instead.
        for i in range(d.shape[-1]):
            copy(d[..., i], s[..., i], tuning)
    elif kind == "lanes":
        _copy_lanes(d, s, b, tuning)
    elif kind == "staged":
        _copy_staged(d, s, tuning)
    else:
        _copy_tiled(d, s, b, tuning)


def _chunks(n: int, step: int) -> list[slice]:
    return [slice(i, min(i + step, n)) for i in range(0, n, step)]


def _boxes(shape: tuple[int, ...], max_elems: int) -> list[tuple[slice | int, ...]]:
    """Index tuples cutting an array of ``shape`` into boxes of at most ~max_elems elements:
    inner axes whole, one axis cut into chunks, outer axes one index at a time."""
    k = len(shape)
    j = k
    while j > 0 and math.prod(shape[j - 1:]) <= max_elems:
        j -= 1
    if j == 0:
        return [()]
    step = max(1, max_elems // math.prod(shape[j:]))
    outer = [range(n) for n in shape[:j - 1]]
    return [(*o, sl) for o in itertools.product(*outer) for sl in _chunks(shape[j - 1], step)]


def _copy_tiled(d: np.ndarray, s: np.ndarray, b: int, t: Tuning) -> None:
    """Blocked N-d copy. A source line is reused when b advances, so every np.copyto covers a
    box whose source footprint between two b steps stays cache-resident: the inner axis a and
    the axes between b and a are cut into chunks; axes outside b are taken whole (NumPy loops
    over them outermost)."""
    k = d.ndim
    a = k - 1
    shape = d.shape
    isz = d.itemsize
    ssa = abs(s.strides[a])
    if ssa >= t.line:                   # one source line (and maybe page) per inner element
        per_line = 1
        ta = min(shape[a], t.inner_lines)
    else:                               # a gather of nearby items: bound the inner loop's lines
        per_line = max(1, t.line // max(1, ssa))
        ta = min(shape[a], t.reuse_lines * per_line)
    run = max(1, t.line // isz)
    if ta < shape[a] and ta >= run:
        ta -= ta % run                                          # keep destination lines whole
    inner = -(-ta // per_line) + 1
    sizes = list(shape)
    sizes[a] = ta
    budget = max(1, t.reuse_lines // inner)
    for i in range(a - 1, b, -1):                               # middle axes, innermost first
        sizes[i] = min(shape[i], budget)
        budget = max(1, budget // sizes[i])
    box = ta * math.prod(sizes[b + 1:a])
    sizes[b] = min(shape[b], max(1, t.tile_elems // box))
    cut = [i for i in range(b, k) if sizes[i] < shape[i]]
    if not cut:
        np.copyto(d, s)
        return
    full = slice(None)
    for parts in itertools.product(*(_chunks(shape[i], sizes[i]) for i in cut)):
        idx: list[slice] = [full] * k
        for i, sl in zip(cut, parts):
            idx[i] = sl
        key = tuple(idx)
        np.copyto(d[key], s[key])


def _copy_staged(d: np.ndarray, s: np.ndarray, t: Tuning) -> None:
    """2-D transpose tiles (the last two axes), each copied first in source order, row by row,
    into a small scratch with a padded pitch, then transposed from there into the destination.

    Reading a big tile transposed straight from the source makes its rows compete for the same
    cache sets and TLB entries (NumPy's ``copyto(out, a.T)`` is 10-25x a copy for 4096 x 4096);
    from the scratch the same gather runs at the speed of NumPy's inner loop.
    """
    k = d.ndim
    rows, cols = d.shape[-2], d.shape[-1]       # destination rows (source b axis), dest cols (a)
    tc = min(cols, t.stage_cols)
    tr = min(rows, max(16, t.stage_bytes // (tc * d.itemsize)))
    pad = max(1, t.line // d.itemsize)
    scratch = np.empty((tc, tr + pad), dtype=d.dtype)
    for o in itertools.product(*(range(n) for n in d.shape[:k - 2])):
        d2 = d[o]
        s2 = s[o]
        for ci in _chunks(cols, tc):
            for rj in _chunks(rows, tr):
                tile = scratch[:ci.stop - ci.start, :rj.stop - rj.start]
                np.copyto(tile, s2[rj, ci].T)       # source order: contiguous rows
                np.copyto(d2[rj, ci], tile.T)


class _Interface:
    """Carries an ``__array_interface__`` (how ``numpy.lib.stride_tricks.as_strided`` builds views)."""

    def __init__(self, interface: dict[str, object], base: np.ndarray):
        self.__array_interface__ = interface
        self.base = base


def _reinterpret(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A view of the same start address and strides, read as ``dtype`` (which may be wider than
    the original items: the caller guarantees the extra bytes lie inside the array's memory)."""
    interface = dict(a.__array_interface__)
    interface["typestr"] = dtype.str
    interface["descr"] = [("", dtype.str)]
    interface["strides"] = a.strides
    return np.asarray(_Interface(interface, a))


def _copy_lanes(d: np.ndarray, s: np.ndarray, b: int, t: Tuning) -> None:
    """Deinterleave: the source holds runs of L items along b (stride = itemsize) packed along
    a (stride = L*itemsize), as in space-to-depth; L*itemsize is 2, 4 or 8 bytes.

    NumPy's strided gather moves one item per ~0.6 ns; a narrowing integer cast runs 2-5x faster.
    Lane l is the low ``itemsize`` bytes (little-endian) of the (L*itemsize)-byte word starting at
    item l, so each lane is one ``copyto(..., casting="unsafe")`` from a word view of the source.
    A lane-l word reads l items past its run: into the next run, or for the run at the highest
    address, past the array — that one run is gathered item by item instead.
    """
    n_lanes = d.shape[b]
    word = np.dtype(f"u{d.itemsize * n_lanes}")
    item = np.dtype(f"u{d.itemsize}")
    lanes = []
    for lane in range(n_lanes):
        pick = (slice(None),) * b + (lane,)
        dl, sl = d[pick], s[pick]
        lanes.append((_reinterpret(dl, item), sl, _reinterpret(sl, word), dl))
    # Source strides positive and descending (a last): the highest address is the last index, and
    # boxes cut in source order let all lanes of a box read the same cached bytes.
    strides = lanes[0][1].strides
    flip = tuple(slice(None, None, -1) if st < 0 else slice(None) for st in strides)
    order = sorted(range(len(strides)), key=lambda i: -abs(strides[i]))
    lanes = [tuple(v[flip].transpose(order) for v in views) for views in lanes]
    boxes = _boxes(lanes[0][0].shape, t.lane_elems)
    for key in boxes[:-1]:
        for dw, _, sw, _ in lanes:
            np.copyto(dw[key], sw[key], casting="unsafe")
    _lanes_last_box([tuple(v[boxes[-1]] for v in views) for views in lanes])


def _lanes_last_box(lanes: list[tuple[np.ndarray, ...]]) -> None:
    """Lane casts over a box whose last index is the run at the highest source address."""
    shape = lanes[0][0].shape
    for i in range(len(shape) - 1):
        if shape[i] > 1:
            head = (slice(None),) * i + (slice(0, shape[i] - 1),)
            for dw, _, sw, _ in lanes:
                np.copyto(dw[head], sw[head], casting="unsafe")
            tail = (slice(None),) * i + (slice(shape[i] - 1, shape[i]),)
            _lanes_last_box([tuple(v[tail] for v in views) for views in lanes])
            return
    for dw, sl, sw, dl in lanes:
        np.copyto(dw[..., :-1], sw[..., :-1], casting="unsafe")
        np.copyto(dl[..., -1:], sl[..., -1:])


# ---------------------------------------------------------------------------------------------
# In place


def square_scratch_elements(n: int, e: int, itemsize: int, tuning: Tuning = DEFAULT) -> tuple[int, int]:
    """(tile edge T, scratch elements) used by :func:`square_inplace` on an n x n matrix of
    e-element cells: two T x T tiles, T = min(ceil(n/2), sqrt(inplace_tile_bytes / (e*itemsize)))."""
    cap = max(1, math.isqrt(max(1, tuning.inplace_tile_bytes // max(1, e * itemsize))))
    tile = max(1, min(-(-n // 2), cap))
    return tile, 2 * tile * tile * e


def square_inplace(a: np.ndarray, tuning: Tuning = DEFAULT) -> int:
    """Transpose the middle axes of a C-contiguous (B, n, n, E) array in its own memory.

    Swaps T x T tile pairs through two tiles of scratch; returns the scratch size in bytes.
    """
    nb, n, n2, e = a.shape
    assert n == n2 and a.flags.c_contiguous
    tile, elems = square_scratch_elements(n, e, a.itemsize, tuning)
    s1 = np.empty((tile, tile, e), dtype=a.dtype)
    s2 = np.empty((tile, tile, e), dtype=a.dtype)
    starts = range(0, n, tile)
    for bi in range(nb):
        m = a[bi]
        for i in starts:
            ri = slice(i, min(i + tile, n))
            li = ri.stop - ri.start
            t1 = s1[:li, :li]
            np.copyto(t1, m[ri, ri])
            np.copyto(m[ri, ri], t1.transpose(1, 0, 2))
            for j in range(i + tile, n, tile):
                rj = slice(j, min(j + tile, n))
                lj = rj.stop - rj.start
                t1 = s1[:li, :lj]
                t2 = s2[:lj, :li]
                np.copyto(t1, m[ri, rj])
                np.copyto(t2, m[rj, ri])
                np.copyto(m[ri, rj], t2.transpose(1, 0, 2))
                np.copyto(m[rj, ri], t1.transpose(1, 0, 2))
    return elems * a.itemsize


def batched_inplace(a: np.ndarray, tuning: Tuning = DEFAULT) -> int:
    """Transpose a C-contiguous (B, R, C, E) array to (B, C, R, E) in its own memory, one slice
    at a time through one slice of scratch (R*C*E elements); returns the scratch size in bytes."""
    nb, r, c, e = a.shape
    assert a.flags.c_contiguous
    scratch = np.empty((r, c, e), dtype=a.dtype)
    flat = a.reshape(nb, r * c * e)
    for bi in range(nb):
        np.copyto(scratch, a[bi])
        target = flat[bi].reshape(c, r, e)
        copy(target, scratch.transpose(1, 0, 2), tuning)
    return scratch.nbytes
