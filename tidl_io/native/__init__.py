"""The optional native kernels: loader, ctypes prototypes and thin wrappers.

The library (``libtidl_io_native.so``, plain C99, see ``*.c`` here) is looked for, in order:

1. nowhere if ``TIDL_IO_NATIVE`` is off (``0``, ``false``, ``off``, ``no``, any case: the NumPy
   path is forced; ``1``/``true``/``on``/``yes`` or unset: look);
2. ``TIDL_IO_NATIVE_LIB`` (a file path) if set, and only there;
3. beside this file (an installed package, or a source tree built by ``pip install .`` or
   ``python tools/build_native.py``);
4. in the installed ``tidl-io`` distribution, when ``tidl_io`` was imported from a source tree
   that has none.

A library built from other sources than the ones beside this file is refused (stale build).
``TIDL_IO_REQUIRE_NATIVE=1`` (or true/on/yes) makes a failure to load an ImportError (CI sets it).
``TIDL_IO_THREADS`` sets the threads used for large tensors (a whole number >= 1, at most 8 used;
default: 2, at most the CPU count). ``TIDL_IO_ISA`` caps the hand-written vector kernels used
(``portable``, ``sse2`` or ``neon``, ``avx2``, ``avx512``; default and ``best``: the best this CPU has; a level
above the CPU's is the CPU's). A value of any of these variables that is not understood is a
:class:`~tidl_io.TidlIoWarning` naming it, and the default is used.

Every wrapper returns None (or False) when it does not handle a case (a dtype, a byte order, a
rank): the caller then runs the NumPy code, which stays the reference. Wrappers assume the caller
validated shapes and dtypes; they only check what the C side cannot (types, ranks).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib.util
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..base.env import env_flag, env_int, warn_setting

HERE = Path(__file__).resolve().parent
ABI = 1
MAXDIM = 8
_I64P = ctypes.POINTER(ctypes.c_int64)

_CODES = {np.dtype(t): i for i, t in enumerate(
    (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64))}


def _build_module() -> Any:
    spec = importlib.util.spec_from_file_location("tidl_io.native.build", HERE / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _candidates() -> Iterator[Path]:
    explicit = os.environ.get("TIDL_IO_NATIVE_LIB")
    if explicit:
        yield Path(explicit)
        return
    name = "libtidl_io_native.so"
    yield HERE / name
    from importlib import metadata  # (slow to import: only when the library beside us did not do)
    try:
        dist = metadata.distribution("tidl-io")
        files = dist.files or []
    except (metadata.PackageNotFoundError, OSError, ValueError):  # not installed, unreadable metadata
        files = []
    for file in files:
        path = Path(str(dist.locate_file(file)))
        if file.name == name and path != HERE / name:
            yield path


def _threads_default() -> int:
    """``TIDL_IO_THREADS`` (a whole number >= 1, at most 8 are used), else 2 (at most the CPU
    count); a value not understood is warned about and the default used."""
    return min(8, env_int("TIDL_IO_THREADS", max(1, min(2, os.cpu_count() or 1))))


_VP, _I64, _INT, _F32, _F64 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int, ctypes.c_float, ctypes.c_double

# Every exported function of tidl_io_native.h: name -> (restype, argtypes), in the header's order.
# The one place the C signatures are written in Python; tests/test_native.py checks it against the
# header, parameter by parameter.
SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "tio_abi": (_INT, []),
    "tio_set_simd": (None, [_INT]),
    "tio_source_hash": (ctypes.c_char_p, []),
    "tio_isa": (ctypes.c_char_p, []),
    "tio_set_isa": (_INT, [_INT]),  # cpu.c
    "tio_tuning": (ctypes.c_char_p, []),  # cpu.c
    "tio_tr_cols": (ctypes.c_int64, []),  # copy.c: source rows per block of the buffered transposes
    "tio_quantize": (_I64, [_VP, _INT, _VP, _INT, _INT, _I64P, _I64P, _I64P, _F64, _F64, _F64, _F64, _INT, _INT]),
    # called through _unchecked (no per-call argument conversion); its restype is read from here
    "tio_quantize_prepared": (_I64, [_VP, _VP, _VP, _INT]),
    "tio_dequantize": (_INT, [_VP, _VP, _INT, _INT, _I64P, _I64P, _I64P, _F32, _I64, _INT]),
    "tio_dequantize_kind": (_INT, [_INT, _F32, _I64]),
    "tio_copy": (_INT, [_VP, _VP, _I64, _INT, _I64P, _I64P, _I64P, _INT]),
    "tio_square_inplace": (_INT, [_VP, _I64, _I64, _I64, _INT]),
    "tio_compare": (_INT, [_VP, _INT, _F32, _I64, _I64P, _VP, _INT, _F32, _I64, _I64P, _I64P, _VP, _INT]),  # stats.c
    "tio_compare_codes": (_INT, [_VP, _I64P, _VP, _I64P, _INT, _I64, _I64P, _VP, _INT]),  # stats.c
}


def _prototype(lib: ctypes.CDLL) -> None:
    """Set every function's restype and argtypes from :data:`SIGNATURES` (AttributeError naming the
    first symbol the library lacks)."""
    for name, (restype, argtypes) in SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


def _load() -> tuple[ctypes.CDLL | None, str, str | None]:
    """(library or None, reason, path)."""
    if not env_flag("TIDL_IO_NATIVE", True):
        return None, f"disabled by TIDL_IO_NATIVE={os.environ['TIDL_IO_NATIVE'].strip()}", None
    expected = _build_module().source_hash() if any(HERE.glob("*.c")) else None
    problems = []
    for path in _candidates():
        if not path.is_file():
            problems.append(f"{path.name} not in {path.parent.name or path.parent}")
            continue
        try:
            lib = ctypes.CDLL(str(path))
            _prototype(lib)
        except (OSError, AttributeError) as exc:
            problems.append(f"{path} did not load: {exc}")
            continue
        if lib.tio_abi() != ABI:
            problems.append(f"{path}: ABI {lib.tio_abi()}, expected {ABI}")
            continue
        built = lib.tio_source_hash().decode()
        if expected is not None and built != expected:
            problems.append(f"{path} is stale (built from sources {built}, these are {expected}): rebuild "
                            f"with pip install . or python tools/build_native.py")
            continue
        return lib, f"loaded {path.name} ({lib.tio_isa().decode()})", str(path)
    return None, "unavailable (" + "; ".join(problems) + "); the NumPy path is used", None


LIB, REASON, PATH = _load()
THREADS = _threads_default()
# ISA levels (cpu.c's tio_set_isa): 0 portable C, 1 the 128-bit kernels (SSE2 on x86-64, NEON on aarch64),
# 2 AVX2, 3 AVX-512 (F, BW, VL, VBMI); ISA is the cap asked for (TIDL_IO_ISA), -1 for the CPU's best
ISA_LEVELS = {"portable": 0, "sse2": 1, "neon": 1, "avx2": 2, "avx512": 3}


def _isa_default() -> int:
    raw = os.environ.get("TIDL_IO_ISA", "").strip().lower()
    if raw in ("", "best"):
        return -1
    if raw in ISA_LEVELS:
        return ISA_LEVELS[raw]
    warn_setting("TIDL_IO_ISA", raw, "portable, sse2, neon, avx2, avx512 or best", "the best this CPU has")
    return -1


ISA = _isa_default()
if LIB is not None:
    LIB.tio_set_isa(ISA)
SIMD = True  # the library's run-time-picked vector kernels (tio_set_simd); tests switch them off
_enabled = LIB is not None

if LIB is None and env_flag("TIDL_IO_REQUIRE_NATIVE", False):
    raise ImportError(f"tidl_io: TIDL_IO_REQUIRE_NATIVE=1 but the native kernels are unavailable: {REASON}")


def info() -> dict[str, Any]:
    """Which path is active and why (``tidl_io.native_info()``)."""
    return {
        "active": active() is not None,
        "path": PATH,
        "reason": REASON if (_enabled or LIB is None) else "switched off in this process",
        "threads": THREADS,
        "isa": LIB.tio_isa().decode() if LIB is not None else None,
        **_tuning(),
    }


def _tuning() -> dict[str, Any]:
    """What the library found and chose at load time (cpu.c's tio_tuning): ``isa_level`` (the name of
    the level in use), ``isa_levels`` (those this CPU can run), ``caches`` (bytes: l1d, l2, l3, line,
    and where they were read) and ``blocking`` (the in-place transpose's block in float32 and uint8
    cells, the output bytes from which transposes store whole lines non-temporally, the source rows
    per block of the buffered transposes, ``split_min``: the bytes moved, read and written, up to which
    plain moves (rows, (de)interleaves such as an HWC frame's pack) run on one thread)."""
    if LIB is None:
        return {"isa_level": None, "isa_levels": [], "caches": None, "blocking": None}
    fields = dict(item.split("=", 1) for item in LIB.tio_tuning().decode().split())
    fields["tr_cols"] = str(LIB.tio_tr_cols())  # copy.c's, from L2
    levels = fields["levels"].split(",")
    level = LIB.tio_set_isa(ISA if SIMD else 0)  # (sets what is already set: reads the level in use)
    return {"isa_level": levels[level], "isa_levels": levels,
            "caches": {**{k: int(fields[k]) for k in ("l1d", "l2", "l3", "line")}, "source": fields["caches"]},
            "blocking": {k: int(fields[k]) for k in ("sq_tile_f32", "sq_tile_u8", "nt_min", "tr_cols", "split_min")}}


def isa_levels() -> list[str]:
    """The ISA levels this CPU and build can run, lowest (``portable``) first; [] without the library."""
    return list(_tuning()["isa_levels"])


def active() -> ctypes.CDLL | None:
    return LIB if _enabled else None


@contextlib.contextmanager
def forced(enabled: bool, threads: int | None = None, simd: bool | None = None,
           isa: str | None = None) -> Iterator[None]:
    """Within the block, use the native path (if loaded) or not, with ``threads`` threads and
    the run-time-picked vector kernels on or off (``simd``; the portable loops otherwise) or capped at
    the ISA level ``isa`` (a name of :data:`ISA_LEVELS`, e.g. ``"sse2"``; one above the CPU's is the
    CPU's): tests and benchmarks run every path in one process. Not for concurrent use."""
    global _enabled, THREADS, ISA
    saved = _enabled, THREADS, SIMD, ISA
    _enabled = enabled and LIB is not None
    if threads is not None:
        THREADS = threads
    if isa is not None:
        ISA = ISA_LEVELS[isa]
    if simd is not None or isa is not None:
        _set_simd(SIMD if simd is None else simd)
    try:
        yield
    finally:
        _enabled, THREADS, ISA = saved[0], saved[1], saved[3]
        _set_simd(saved[2])


def _set_simd(on: bool) -> None:
    global SIMD
    SIMD = bool(on)
    if LIB is not None:
        LIB.tio_set_isa(ISA if SIMD else 0)


# ---- wrappers ------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=4096)
def merge_axes(shape: tuple[int, ...], a_strides: tuple[int, ...], b_strides: tuple[int, ...]
               ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int, int]:
    """The simplest equivalent walk of two same-shape strided arrays ``a`` and ``b`` (strides
    in any unit, bytes usually): size-1 axes dropped, ``a``'s strides made positive (walking
    such an axis from its far end, which moves both first elements), axes sorted by ``a``'s
    stride, descending, and neighbours contiguous in both merged -- what NumPy's own loops do.

    Returns ``(shape, a_strides, b_strides, a_offset, b_offset)``; the offsets (same unit) go
    from each array's first element to the element the walk starts at. Pure and cached: used
    by the native kernels' plans (:func:`_plan`) and the blocked NumPy copies
    (:mod:`tidl_io.data.blocked`).

    >>> merge_axes((2, 1, 3), (-12, 99, 4), (-12, 0, 4))
    ((6,), (4,), (4,), -12, -12)
    """
    a_off = b_off = 0
    axes = []
    for n, a, b in zip(shape, a_strides, b_strides):
        if n == 1:
            continue
        if a < 0:
            a_off += (n - 1) * a
            b_off += (n - 1) * b
            a, b = -a, -b
        axes.append((n, a, b))
    axes.sort(key=lambda x: (-x[1], -abs(x[2])))
    merged: list[tuple[int, int, int]] = []
    for n, a, b in axes:
        if merged and merged[-1][1] == n * a and merged[-1][2] == n * b:
            merged[-1] = (merged[-1][0] * n, a, b)
        else:
            merged.append((n, a, b))
    return (tuple(m[0] for m in merged), tuple(m[1] for m in merged), tuple(m[2] for m in merged), a_off, b_off)


@functools.lru_cache(maxsize=2048)
def _plan(shape: tuple[int, ...], dst_strides: tuple[int, ...], src_strides: tuple[int, ...]
          ) -> tuple[Any, ...] | None:
    """(ndim, shape, dst strides, src strides as C arrays, dst offset, src offset, span) of a same-shape
    strided pair: size-1 axes dropped, destination strides made positive (walking such an axis
    from its far end) and sorted descending, neighbours that are contiguous in both merged (what
    NumPy's own loops do); None above MAXDIM axes. ``span`` = (dst lo, dst last, src lo, src last):
    the byte offsets of the lowest and highest element of each side from its first element (for
    _disjoint). The axes come from :func:`merge_axes`. Pure and cached: no array
    is touched."""
    span = [0, 0, 0, 0]
    for n, d, s in zip(shape, dst_strides, src_strides):
        for k, stride in ((0, d), (2, s)):
            span[k + (stride > 0)] += (n - 1) * stride
    sizes, ds, ss, d_off, s_off = merge_axes(shape, dst_strides, src_strides)
    if not sizes:
        sizes, ds, ss = (1,), (0,), (0,)
    if len(sizes) > MAXDIM:
        return None
    k = len(sizes)
    arrays = [(ctypes.c_int64 * k)(*axis) for axis in (sizes, ds, ss)]
    return (k, *arrays, d_off, s_off, tuple(span))


def _disjoint(dst: int, dsize: int, src: int, ssize: int, span: tuple[int, int, int, int]) -> bool:
    """Whether the bytes the two sides of a _plan touch (from first elements at dst and src) are
    apart: the kernels read each source element once and write in any order, so an output that
    overlaps its input goes to NumPy, which copies first."""
    d_lo, d_last, s_lo, s_last = span
    return dst + d_last + dsize <= src + s_lo or src + s_last + ssize <= dst + d_lo


def address(a: np.ndarray, _frombuf: Any = ctypes.c_char.from_buffer, _addressof: Any = ctypes.addressof) -> int:
    """The address of a's first element. A writable C-contiguous array exports a plain buffer
    (0.4 us); anything else goes through __array_interface__ (1.5 us, a dict per call)."""
    flags = a.flags
    if flags.c_contiguous and flags.writeable:
        return int(_addressof(_frombuf(a)))
    return int(a.__array_interface__["data"][0])


def _pair_call(fn: Any, dst: np.ndarray, src: np.ndarray, head: tuple[Any, ...], tail: tuple[Any, ...]) -> bool:
    """The one way the strided two-array kernels are called (tio_copy, tio_dequantize):
    ``fn(dst, src, *head, ndim, shape, dst_strides, src_strides, *tail)`` over the arrays' _plan,
    from each walk's first element; False when the plan or the overlap check declines, or the
    kernel returns non-zero. (tio_quantize takes the same route, prepared once per geometry:
    quantize_call / quantize_at.)"""
    plan = _plan(dst.shape, dst.strides, src.strides)
    if plan is None:
        return False
    k, shape, ds, ss, d_off, s_off, span = plan
    dst_at, src_at = address(dst), address(src)
    if not _disjoint(dst_at, dst.itemsize, src_at, src.itemsize, span):
        return False
    return fn(dst_at + d_off, src_at + s_off, *head, k, shape, ds, ss, *tail) == 0


def quantize(dst: np.ndarray, src: np.ndarray, scale: float, zero_point: int, lo: int, hi: int,
             nearest: bool) -> int | None:
    """Codes of ``src`` (float32/float64) into ``dst`` (integer codes up to 32 bits), any strides; the
    number of NaN found (written as the zero point), or None when not handled."""
    if active() is None:
        return None
    dst_at, src_at = address(dst), address(src)
    call = quantize_call(dst.shape, dst.strides, dst.dtype, src.strides, src.dtype, float(scale),
                         float(zero_point), float(lo), float(hi), bool(nearest))
    return quantize_at(call, dst_at, src_at)


class _QArgs(ctypes.Structure):
    """tio_qargs (tidl_io_native.h)."""
    _fields_ = [("dst_type", ctypes.c_int), ("src_type", ctypes.c_int), ("ndim", ctypes.c_int),
                ("nearest", ctypes.c_int), ("shape", ctypes.c_int64 * MAXDIM),
                ("dst_strides", ctypes.c_int64 * MAXDIM), ("src_strides", ctypes.c_int64 * MAXDIM),
                ("scale", ctypes.c_double), ("zero_point", ctypes.c_double), ("lo", ctypes.c_double),
                ("hi", ctypes.c_double)]


@functools.lru_cache(maxsize=1024)
def quantize_call(shape: tuple[int, ...], dst_strides: tuple[int, ...], dst_dtype: np.dtype,
                  src_strides: tuple[int, ...], src_dtype: np.dtype, scale: float, zero_point: float, lo: float,
                  hi: float, nearest: bool) -> tuple[Any, ...] | None:
    """One tio_quantize call prepared, every argument but the two addresses and the thread count
    in a tio_qargs struct (converting 14 arguments per call cost a frame's pack ~2 us): for
    quantize_at; None when the kernel does not handle the case."""
    if src_dtype.kind != "f" or src_dtype.itemsize not in (4, 8) or dst_dtype.kind not in "iu" \
            or dst_dtype.itemsize > 4 or not (dst_dtype.isnative and src_dtype.isnative) or 0 in shape:
        return None
    plan = _plan(shape, dst_strides, src_strides)
    if plan is None:
        return None
    k, sizes, ds, ss, d_off, s_off, span = plan
    args = _QArgs(_CODES[dst_dtype], _CODES[src_dtype], k, int(nearest), tuple(sizes), tuple(ds), tuple(ss),
                  scale, zero_point, lo, hi)
    return d_off, s_off, ctypes.byref(args), dst_dtype.itemsize, src_dtype.itemsize, span


def _unchecked(lib: ctypes.CDLL | None, name: str) -> Any:
    """The library function ``name`` without argtypes (its restype from :data:`SIGNATURES`), for
    calls whose arguments are all ctypes objects already: a prototype's per-argument checks cost
    ~0.1 us each."""
    if lib is None:
        return None
    fn = lib._FuncPtr((name, lib))
    fn.restype = SIGNATURES[name][0]
    return fn


_QUANTIZE = _unchecked(LIB, "tio_quantize_prepared")


def quantize_at(call: tuple[Any, ...] | None, dst_address: int, src_address: int,
                _vp: Any = ctypes.c_void_p, _int: Any = ctypes.c_int) -> int | None:
    """Run a quantize_call on the arrays at these addresses (of its first elements, which the caller
    keeps alive); the NaN count, or None when not handled (no call, the native path is off, or the
    two overlap)."""
    if not _enabled or call is None:
        return None
    d_off, s_off, args, dsize, ssize, span = call
    if not _disjoint(dst_address, dsize, src_address, ssize, span):
        return None
    nans = _QUANTIZE(_vp(dst_address + d_off), _vp(src_address + s_off), args, _int(THREADS))
    if nans < 0:  # pragma: no cover - quantize_call's checks exclude it
        raise AssertionError("tio_quantize refused its arguments")
    return int(nans)


def dequantize(dst: np.ndarray, src: np.ndarray, scale: float, zero_point: int) -> bool:
    """``dst[...] = float32(src - zero_point) / float32(scale)`` for float32 ``dst`` and integer
    codes up to 32 bits; False when not handled."""
    lib = active()
    if lib is None or dst.dtype != np.float32 or src.dtype.kind not in "iu" or src.dtype.itemsize > 4 \
            or not (dst.dtype.isnative and src.dtype.isnative) or dst.size == 0:
        return False
    return _pair_call(lib.tio_dequantize, dst, src, (_CODES[src.dtype],),
                      (ctypes.c_float(scale), int(zero_point), THREADS))


# How the kernel dequantizes (quant.c's TIO_DEQ_*): codes of at most 16 bits run in float32 with a
# power-of-two scale (|zero point| <= 2**23: an exact product) or, within 2**16 of the zero point, with
# another scale (a product and one FMA correction, where the CPU has FMA); the others take the exact
# float64 product.
DEQ_WIDE, DEQ_NARROW, DEQ_FMA, DEQ_POW2 = 0, 1, 2, 3


def dequantize_kind(dtype: np.dtype, scale: float, zero_point: int) -> int | None:
    """Which DEQ_* the native kernel uses for these codes, or None when it would not run."""
    if active() is None or dtype.kind not in "iu" or dtype.itemsize > 4:
        return None
    return _dequantize_kind(_CODES[dtype.newbyteorder("=")], float(scale), int(zero_point), SIMD)


@functools.lru_cache(maxsize=256)
def _dequantize_kind(code: int, scale: float, zero_point: int, simd: bool) -> int | None:
    assert LIB is not None
    kind = int(LIB.tio_dequantize_kind(code, ctypes.c_float(scale), zero_point))
    return kind if kind >= 0 else None


def copy(dst: np.ndarray, src: np.ndarray) -> bool:
    """``dst[...] = src`` (same shape and dtype), any strides; False when not handled (or overlapping)."""
    lib = active()
    if lib is None or dst.dtype.hasobject or dst.dtype != src.dtype or dst.size == 0:
        return False
    return _pair_call(lib.tio_copy, dst, src, (dst.itemsize,), (THREADS,))


def square_inplace(a: np.ndarray) -> bool:
    """Transpose the middle axes of a C-contiguous (B, n, n, E) array in place; False when not handled."""
    lib = active()
    if lib is None or a.dtype.hasobject or not a.flags.c_contiguous or a.size == 0:
        return False
    b, n, _, e = a.shape
    return lib.tio_square_inplace(a.ctypes.data, e * a.itemsize, b, n, THREADS) == 0


# ---- comparison sums (stats.c, for tidl_io.trace.metrics) -----------------------------------------

_COMPARE_TYPES = frozenset(np.dtype(t) for t in (np.uint8, np.int8, np.uint16, np.int16))

# The comparison sums' block (tidl_io_native.h's enum tio_sum, in its order): a row of `channels` values
# per sum, then one count of test codes at their type's limit.
SUMS = ("err2", "ref2", "test2", "cross", "abs", "max")
SUMS_PER_CHANNEL = len(SUMS)


def sums_block(channels: int) -> int:
    """Values in one block of comparison sums of ``channels`` channels (TIO_SUMS_BLOCK)."""
    return SUMS_PER_CHANNEL * channels + 1


def compare_sums(ref: np.ndarray, ref_q: tuple[float, int] | None, test: np.ndarray,
                 test_q: tuple[float, int] | None) -> np.ndarray | None:
    """The comparison sums of two (outer, channels, inner) arrays of one shape, any strides: each float32
    values (``*_q`` None) or 8/16-bit codes with ``(scale, zero_point)``, read as
    ``float32(q - zero_point) / float32(scale)``. A (blocks, :func:`sums_block` (channels)) float64 array to be
    summed over its blocks: ``[err2, ref2, test2, cross, abs, max][channel]`` (:data:`SUMS`; max over the blocks for max;
    NaN differences do not win it) and the count of test codes at their type's limit; None when not
    handled (a dtype, a scale that is no positive float32, |zero point| > 2**23, no channel)."""
    lib = active()
    if lib is None or ref.ndim != 3 or ref.shape != test.shape or ref.shape[1] < 1:
        return None
    sides = []
    for a, q in ((ref, ref_q), (test, test_q)):
        if not a.dtype.isnative:
            return None
        if q is None:
            if a.dtype != np.float32:
                return None
            sides.append((_CODES[a.dtype], ctypes.c_float(1.0), 0))
            continue
        scale, zp = ctypes.c_float(float(q[0])), int(q[1])  # (c_float: no NumPy overflow warning)
        if a.dtype not in _COMPARE_TYPES or not 0 < scale.value < math.inf or abs(zp) > 1 << 23:
            return None
        sides.append((_CODES[a.dtype], scale, zp))
    threads = THREADS
    out = np.zeros((threads, sums_block(ref.shape[1])))
    if ref.size == 0:
        return out
    shape = (ctypes.c_int64 * 3)(*ref.shape)
    rs, ts = (ctypes.c_int64 * 3)(*ref.strides), (ctypes.c_int64 * 3)(*test.strides)
    status = lib.tio_compare(address(ref), *sides[0], rs, address(test), *sides[1], ts, shape,
                             out.ctypes.data, threads)
    return out if status == 0 else None


def compare_codes(ref: np.ndarray, test: np.ndarray, zero_point: int) -> np.ndarray | None:
    """The comparison sums, exact in int64, of two (outer, channels, inner) arrays of 8-bit codes of one
    dtype (any strides) with one zero point within the dtype's range, over the centred codes
    ``q - zero_point``: a (blocks, :func:`sums_block` (channels)) int64 array to be summed over its blocks, laid out as
    :func:`compare_sums`'s (max over the blocks for max); None when not handled."""
    lib = active()
    if (lib is None or ref.ndim != 3 or ref.shape != test.shape or ref.shape[1] < 1 or ref.dtype != test.dtype
            or ref.dtype not in (np.dtype(np.uint8), np.dtype(np.int8))):
        return None
    info = np.iinfo(ref.dtype)
    if not info.min <= zero_point <= info.max:
        return None
    threads = THREADS
    out = np.zeros((threads, sums_block(ref.shape[1])), np.int64)
    if ref.size == 0:
        return out
    shape = (ctypes.c_int64 * 3)(*ref.shape)
    rs, ts = (ctypes.c_int64 * 3)(*ref.strides), (ctypes.c_int64 * 3)(*test.strides)
    status = lib.tio_compare_codes(address(ref), rs, address(test), ts, _CODES[ref.dtype], int(zero_point),
                                   shape, out.ctypes.data, threads)
    return out if status == 0 else None
