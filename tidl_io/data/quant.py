"""Quantization with TIDL's multiplier scale: ``quantize`` and ``dequantize``.

TIDL stores a *multiplier* (``inTensorScale`` / ``outTensorScale``, :attr:`Tensor.scale`),
the inverse of the TFLite/ONNX step (:attr:`Tensor.quant_step`)::

    q    = saturate(x * scale + zero_point)      # quantize (what pack does)
    real = (q - zero_point) / scale              # dequantize (what unpack does)

Exact semantics, pinned by the tests:

- **Quantize** computes ``x * scale + zero_point`` in float32 (float64 when ``x`` is
  float64 or the element type has 32 or 64 bits), two roundings (no fused multiply-add),
  then rounds to an integer with ``rounding="trunc"`` (toward zero, like TIDL-RT's C cast;
  the default) or ``"nearest"`` (half to even, :func:`numpy.rint`), then saturates to the
  element type's range. ``+inf``/``-inf`` saturate to the maximum/minimum. NaN raises
  :class:`BufferMismatchError` with ``nan="error"`` (the default) or is read as the real
  value 0 (code ``zero_point``) with ``nan="zero"``.
- Integer data of exactly the element type is copied unchanged (already quantized);
  integer data of another type is refused rather than silently wrapped.
- Float element types (``SinglePrecFloat``) take the values as they are: scale 1, zero
  point 0, whatever the descriptor says (TIDL forces scale 1 for float tensors); NaN and
  inf are copied.
- **Dequantize** returns float32 ``float32(q - zero_point) / float32(scale)``: the
  difference is exact (computed in float64 for 32/64-bit codes; codes beyond 2**53 round),
  the division is IEEE float32 division (not a multiplication by ``1/scale``, which rounds
  differently); a result beyond float32 (a subnormal scale) is +-inf.

The kernels ``quantize_into`` / ``dequantize_into`` (on the parameters that :func:`qparams`,
:func:`limits` and :func:`plan_conversion` prepare once) are what :mod:`tidl_io.data.buffers` runs:
no full-size temporaries (at most a scratch of 1/16 of the data), and for data that needs no
clipping one range test (an integer max over the float bit patterns) plus one fused NumPy pass
per block.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import native as _native
from ..base.check import as_array, check_choice, check_kind, nan_found
from ..base.errors import BufferMismatchError, GeometryError, check_out
from ..base.limits import check_alloc
from ..iodesc.descriptor import Tensor

__all__ = ["dequantize", "dequantize_codes", "quantize"]

ROUNDINGS = ("trunc", "nearest")
NAN_MODES = ("error", "zero")

# Elements per block (tuned with tools/bench_buffers.py; NumPy's per-call cost is several
# microseconds for strided views, so blocks are as large as the caches allow):
# - quantize: the range test reads a block, then one fused pass reads it again from L2
#   (1 MiB of float32 source);
# - dequantize with a zero point: cast, subtract and divide in place over a block of the
#   output (256 KiB of float32).
FAST_BLOCK = 1 << 18
DEQ_BLOCK = 1 << 16
# NumPy 2's buffered ufunc loops (a cast on the way in or out) are fast and frugal; NumPy
# 1.2x's are slower than two plain passes over a block (dequantize, measured with 1.26) and
# np.clip into another dtype allocates beyond our scratch budget (1/6 of a 600 kB tensor).
_FAST_BUFFERED_CASTS = int(np.__version__.split(".")[0]) >= 2
# Upper bound of a scratch block (elements) for passes that need one.
SCRATCH_BLOCK = 1 << 16
MIN_SCRATCH = 256


@dataclass(frozen=True)
class QParams:
    """What quantization needs from a tensor, validated once and cached."""

    label: str
    dtype: np.dtype
    is_float: bool
    scale: float  # multiplier; 1.0 for float element types
    zero_point: int  # 0 for float element types
    lo: int
    hi: int


@functools.lru_cache(maxsize=512)
def qparams(tensor: Tensor) -> QParams:
    dtype = tensor.dtype  # GeometryError for an unknown element type
    if dtype.kind == "f":
        return QParams(tensor.label, dtype, True, 1.0, 0, 0, 0)
    scale = float(tensor.scale)
    if not math.isfinite(scale) or scale <= 0:
        raise GeometryError(f"{tensor.label}: {tensor.ti_name('scale')} = {scale!r}: a quantized tensor needs a "
                            f"finite multiplier > 0")
    info = np.iinfo(dtype)
    return QParams(tensor.label, dtype, False, scale, int(tensor.zero_point), int(info.min), int(info.max))


def _compute_dtype(src: np.dtype, qp: QParams) -> np.dtype:
    if src.itemsize >= 8 or qp.dtype.itemsize >= 4:  # float64 (either byte order), longdouble
        return np.dtype(np.float64)
    return np.dtype(np.float32)


def nan_policy(nan: str, found: bool) -> None:
    """The ``nan=`` policy, applied in this one place by every quantizing path (NumPy
    blocks, native kernel, pack's native call): NaN ``found`` with ``nan="error"`` raises
    :class:`NanFound` (the caller reports where); with ``nan="zero"`` the kernels have
    written the zero point (the real value 0) and nothing is raised."""
    if found and nan == "error":
        raise NanFound


def _conversion(qp: QParams, src: np.dtype, what: str) -> str:
    """How data of dtype ``src`` goes into the tensor: "copy", "cast" or "quantize"."""
    if src.kind in "iu" and np.can_cast(src, qp.dtype, "equiv"):
        return "copy"
    if qp.is_float:
        if src.kind == "f" or (src.kind in "iu" and np.can_cast(src, qp.dtype, "safe")):
            return "copy" if src == qp.dtype else "cast"
    elif src.kind == "f":
        return "quantize"
    if qp.is_float:
        hint = "pass float data (or integers that float32 holds exactly)"
    elif src.kind in "iu":
        hint = (f"refusing to wrap {src} into {qp.dtype}; pass float data to quantize it, or "
                f"x.astype(np.{qp.dtype.name}) if these are already codes")
    else:
        hint = f"pass float data to quantize it, or {qp.dtype.name} codes"
    raise BufferMismatchError(f"{qp.label}: {what} has dtype {src}, which does not go into a {qp.dtype} tensor; "
                              f"{hint}")


@dataclass(frozen=True)
class Conversion:
    """How data of one dtype and size goes into a tensor, prepared once (a pack plan's part):
    ``how`` ("quantize", "copy" or "cast"); for "quantize" the ``limits`` (compute dtype,
    thresholds) and ``scratch``, the scratch block of a quantizing pass (elements of the
    compute dtype); ``codes``: the scratch budget in codes of the element dtype (the blocks of a
    layout change)."""

    how: str
    limits: Limits | None
    scratch: int
    codes: int


def plan_conversion(qp: QParams, src: np.dtype, nbytes: int, rounding: str, what: str) -> Conversion:
    """The :class:`Conversion` of ``nbytes`` of data of dtype ``src`` (``what`` names it in the
    error for a dtype that does not go in: :func:`_conversion`)."""
    how, codes = _conversion(qp, src, what), scratch_elems(nbytes, qp.dtype.itemsize)
    if how != "quantize":
        return Conversion(how, None, codes, codes)
    lim = limits(qp, src, rounding)
    return Conversion(how, lim, scratch_elems(nbytes, lim.ct.itemsize), codes)


def _blocks(shape: tuple[int, ...], max_elems: int) -> Iterator[tuple[Any, ...]]:
    """Index tuples (slices only, rank kept) that tile ``shape`` in C order, each block
    holding at most ``max_elems`` elements (at least one element)."""
    n = len(shape)
    if n == 0:
        yield (Ellipsis,)
        return
    inner, k = 1, n - 1
    while k >= 0 and inner * shape[k] <= max_elems:
        inner *= shape[k]
        k -= 1
    if k < 0:
        yield (Ellipsis,)
        return
    step = max(1, max_elems // inner)
    tail = (slice(None),) * (n - k - 1)
    for lead in itertools.product(*(range(d) for d in shape[:k])):
        head = tuple(slice(i, i + 1) for i in lead)
        for a in range(0, shape[k], step):
            yield head + (slice(a, min(a + step, shape[k])),) + tail


def _squeeze_pair(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Views of two same-shape arrays without their size-1 axes (the last axis is kept),
    so that blocks are few-dimensional and cheap to iterate."""
    if 1 not in a.shape[:-1]:
        return a, b
    keep = tuple(0 if d == 1 else slice(None) for d in a.shape[:-1]) + (slice(None),)
    return a[keep], b[keep]


def scratch_elems(nbytes_user: int, itemsize: int) -> int:
    """Scratch block size: at most 1/16 of the user tensor's bytes (two scratches stay
    within 1/8), at most SCRATCH_BLOCK, at least MIN_SCRATCH elements."""
    return max(MIN_SCRATCH, min(SCRATCH_BLOCK, nbytes_user // (16 * itemsize)))


class NanFound(Exception):
    """Raised by the kernel on NaN with nan="error"; the caller reports where."""


@dataclass(frozen=True)
class Limits:
    """Everything one quantization setting (the tensor's ``qp``, the source dtype, the
    ``rounding``) needs per block, computed once: what :func:`quantize_into` runs on.

    ``lo_thr``/``hi_thr`` are the smallest/largest source values whose code is in range
    without clipping (found by bisection over the float bit patterns, so exact).
    ``bits``: unsigned/signed integer dtypes of the source's width, for the one-pass
    range test, or None.
    """

    qp: QParams
    nearest: bool  # rounding="nearest" (else "trunc")
    ct: np.dtype  # the compute dtype
    scale: np.floating
    zero_point: np.floating
    lo_f: np.floating
    hi_f: np.floating
    wide: bool
    lo_thr: float
    hi_thr: float
    src: np.dtype
    bits: tuple[np.dtype, np.dtype, int, int] | None  # (uint, int, sign bit, +inf bits)


@functools.lru_cache(maxsize=256)
def limits(qp: QParams, src: np.dtype, rounding: str) -> Limits:
    ct = _compute_dtype(src, qp)
    scale, zp = ct.type(qp.scale), ct.type(qp.zero_point)
    lo_f, hi_f = ct.type(qp.lo), ct.type(qp.hi)
    if int(hi_f) > qp.hi:  # 64-bit codes: the largest float below the maximum
        hi_f = np.nextafter(hi_f, ct.type(-np.inf))
    if int(lo_f) < qp.lo:
        lo_f = np.nextafter(lo_f, ct.type(np.inf))
    wide = int(hi_f) != qp.hi or int(lo_f) != qp.lo
    rnd = np.rint if rounding == "nearest" else np.trunc
    lo_thr = _threshold(ct, lambda v: bool(rnd(v * scale + zp) >= lo_f), upper=False)
    hi_thr = _threshold(ct, lambda v: bool(rnd(v * scale + zp) <= hi_f), upper=True)
    bits = None
    if src.kind == "f" and src.itemsize in (2, 4, 8) and src.isnative:
        ub, ib = np.dtype(f"u{src.itemsize}"), np.dtype(f"i{src.itemsize}")
        bits = (ub, ib, 1 << (8 * src.itemsize - 1), int(np.array(np.inf, src).view(ub)))
    return Limits(qp, rounding == "nearest", ct, scale, zp, lo_f, hi_f, wide, lo_thr, hi_thr, src, bits)


def _threshold(ct: np.dtype, ok: Callable[[np.floating], bool], upper: bool) -> float:
    """The largest (``upper``) or smallest float of ``ct`` for which the monotonic
    predicate ``ok`` holds, by bisection over order-preserving integer keys of the bit
    patterns (negative keys are negative floats)."""
    ub = np.dtype(f"u{ct.itemsize}")
    sign = 1 << (8 * ct.itemsize - 1)
    inf_key = int(np.array(np.inf, ct).view(ub))

    def value(key: int) -> Any:  # a numpy scalar of ct
        return np.array(key if key >= 0 else sign | -key, ub).view(ct)[()]

    good, bad = (-inf_key, inf_key) if upper else (inf_key, -inf_key)
    with np.errstate(over="ignore"):
        while abs(bad - good) > 1:
            mid = (good + bad) // 2
            if ok(value(mid)):
                good = mid
            else:
                bad = mid
    return float(value(good))


_IN, _OUT, _NAN = 0, 1, 2


def _range_state(s: np.ndarray, lim: Limits) -> int:
    """_IN if every value of ``s`` quantizes in range without clipping, _NAN if ``s``
    holds a NaN, else _OUT. For IEEE floats one integer max over the bit patterns gives
    both the NaN test and the maximum of non-negative data (a second for negatives)."""
    if lim.bits is None:
        lo_v, hi_v = float(s.min()), float(s.max())  # Python floats: no casts of the thresholds
        if math.isnan(lo_v) or math.isnan(hi_v):
            return _NAN
        return _IN if lo_v >= lim.lo_thr and hi_v <= lim.hi_thr else _OUT
    ub, ib, sign, inf_bits = lim.bits
    top = int(s.view(ub).max())
    if top < sign:  # nothing with the sign bit set: min >= +0
        if top > inf_bits:
            return _NAN
        if lim.lo_thr > 0 and float(s.min()) < lim.lo_thr:
            return _OUT
        return _IN if _from_bits(top, lim) <= lim.hi_thr else _OUT
    if top > sign | inf_bits:
        return _NAN
    x_min = -_from_bits(top ^ sign, lim)  # the most negative value
    high = int(s.view(ib).max())
    if high > inf_bits:
        return _NAN
    x_max = _from_bits(high, lim) if high >= 0 else (0.0 if lim.hi_thr >= 0 else float(s.max()))
    return _IN if x_min >= lim.lo_thr and x_max <= lim.hi_thr else _OUT


def _from_bits(bits: int, lim: Limits) -> float:
    return float(np.array(bits, lim.bits[0] if lim.bits else None).view(lim.src)[()])


def quantize_into(dst: np.ndarray, src: np.ndarray, lim: Limits, nan: str, scratch_elems: int) -> None:
    """``dst[...] = quantize(src)`` for float ``src`` of dtype ``lim.src``; ``dst`` (any strides)
    has the element dtype and src's shape; ``scratch_elems``: the scratch block (elements of the
    compute dtype). Raises NanFound for NaN with nan="error"."""
    if src.size == 0:
        return
    qp = lim.qp
    nans = _native.quantize(dst, src, qp.scale, qp.zero_point, qp.lo, qp.hi, lim.nearest)
    if nans is not None:  # the native kernel did it (NaN written as the zero point)
        nan_policy(nan, bool(nans))
        return
    dst, src = _squeeze_pair(dst, src)
    ct = lim.ct
    nearest = lim.nearest
    fused = not nearest and qp.zero_point == 0  # the cast alone finishes the job
    scratch: np.ndarray | None = None
    for idx in _blocks(src.shape, FAST_BLOCK):
        s, d = src[idx], dst[idx]
        state = _range_state(s, lim)
        nan_policy(nan, state == _NAN)
        if fused and qp.scale == 1.0 and (state == _IN or (state == _OUT and _FAST_BUFFERED_CASTS
                                                             and not lim.wide)):
            # One pass, no scratch: the float->int cast truncates toward zero; clip first if needed.
            if state == _IN:
                np.copyto(d, s, casting="unsafe")
            else:
                np.clip(s, lim.lo_f, lim.hi_f, out=d, dtype=ct, casting="unsafe")
            continue
        if fused and state == _IN:
            np.multiply(s, lim.scale, out=d, dtype=ct, casting="unsafe")  # one buffered pass
            continue
        if scratch is None:
            scratch = np.empty(scratch_elems, ct)
        with np.errstate(over="ignore"):
            for sub in _blocks(s.shape, scratch_elems):
                ss, dd = s[sub], d[sub]
                t = scratch[:ss.size].reshape(ss.shape)
                np.multiply(ss, lim.scale, out=t, dtype=ct, casting="same_kind")
                if qp.zero_point:
                    np.add(t, lim.zero_point, out=t)
                if state == _NAN:
                    np.copyto(t, lim.zero_point, where=np.isnan(t))
                if nearest:
                    np.rint(t, out=t)
                if state == _IN:
                    np.copyto(dd, t, casting="unsafe")
                elif not lim.wide and _FAST_BUFFERED_CASTS:
                    np.clip(t, lim.lo_f, lim.hi_f, out=dd, dtype=ct, casting="unsafe")
                else:  # (64-bit codes: the largest float below the maximum, then the maximum itself)
                    big = t > lim.hi_f if lim.wide else None
                    np.clip(t, lim.lo_f, lim.hi_f, out=t)
                    np.copyto(dd, t, casting="unsafe")
                    if big is not None:
                        np.copyto(dd, qp.hi, where=big)


def convert_into(dst: np.ndarray, src: np.ndarray, conv: Conversion, nan: str) -> None:
    """``dst[...] = src`` converted as ``conv`` says (for a "copy" of another byte order, or a
    "cast", a same-kind cast; else :func:`quantize_into`): a block of data into codes of the
    element dtype, same shape."""
    if conv.limits is not None:
        quantize_into(dst, src, conv.limits, nan, conv.scratch)
    else:
        np.copyto(dst, src, casting="same_kind")  # float data, or codes of the other byte order


def dequantize_into(dst: np.ndarray, src: np.ndarray, qp: QParams, scratch_elems: int) -> None:
    """``dst[...] = dequantize(src)``; src holds codes of the element dtype (any strides),
    dst is float32 or float64 of the same shape."""
    if src.size == 0:
        return
    if not qp.is_float and not _numpy_dequantizes_faster(dst, qp) \
            and _native.dequantize(dst, src, qp.scale, qp.zero_point):
        return
    dst, src = _squeeze_pair(dst, src)
    if qp.is_float or (qp.scale == 1.0 and qp.zero_point == 0 and qp.dtype.itemsize < 8):
        np.copyto(dst, src, casting="same_kind")  # exact up to 16-bit codes; one rounding for 32-bit
        return
    with np.errstate(over="ignore"):  # |real| beyond float32 (a subnormal scale): +-inf, as IEEE says
        _dequantize_blocks(dst, src, qp, scratch_elems)


# Below this many output bytes (cache-resident data), NumPy 2's one buffered float32 pass beats the
# native kernel's exact float64 product for narrow codes without a zero point (tools/bench_buffers.py:
# 0.40-0.73x against 0.88-1.07x a copy for [1, 64, 96, 192]); above it, memory decides and the
# native kernel wins (1.01x against 1.33x for [1, 256, 192, 384]). The kernel's float32 forms (a
# power-of-two scale: an exact product; any other scale with codes within 2**16 of the zero point and
# a CPU with FMA: a product and one FMA correction) win at every size (uint8 scale 35.14 at
# [1, 64, 96, 192]: 0.54-0.82x against 0.83-1.25x in tools/bench_buffers.py); scale 1 is NumPy's plain cast.
NATIVE_DEQ_MIN_BYTES = 8 << 20


def _numpy_dequantizes_faster(dst: np.ndarray, qp: QParams) -> bool:
    return (_FAST_BUFFERED_CASTS and qp.dtype.itemsize <= 2 and not qp.zero_point
            and dst.nbytes < NATIVE_DEQ_MIN_BYTES
            and (qp.scale == 1.0 or _native.dequantize_kind(qp.dtype, qp.scale, 0) == _native.DEQ_NARROW))


def _dequantize_blocks(dst: np.ndarray, src: np.ndarray, qp: QParams, scratch_elems: int) -> None:
    f32 = np.float32
    narrow = qp.dtype.itemsize <= 2 and abs(qp.zero_point) <= 1 << 23
    zp = f32(qp.zero_point) if narrow else np.float64(qp.zero_point)
    inverse, scale = _exact_inverse(qp.scale), f32(qp.scale)
    if narrow and not qp.zero_point and _FAST_BUFFERED_CASTS:
        # One buffered pass: NumPy casts the codes to float32 in small internal buffers.
        if inverse is not None:
            np.multiply(src, inverse, out=dst, dtype=f32, casting="same_kind")
        else:
            np.divide(src, scale, out=dst, dtype=f32, casting="same_kind")
        return
    in_place = narrow and dst.dtype == f32
    block = DEQ_BLOCK if in_place else scratch_elems
    scratch = None if in_place else np.empty(block, f32 if narrow else np.float64)
    for idx in _blocks(src.shape, block):
        s, d = src[idx], dst[idx]
        t = d if scratch is None else scratch[:s.size].reshape(s.shape)
        np.copyto(t, s, casting="unsafe")  # codes -> float: exact (float64 for wide codes)
        if qp.zero_point:
            np.subtract(t, zp, out=t)  # exact
        if not narrow:  # round the float64 difference once to float32
            t = t.astype(f32) if d.dtype != f32 else _copied(d, t)
        if inverse is not None:
            np.multiply(t, inverse, out=t)  # exact: same result as the division
        else:
            np.divide(t, scale, out=t)
        if t is not d:
            np.copyto(d, t)


def _copied(dst: np.ndarray, src: np.ndarray) -> np.ndarray:
    np.copyto(dst, src, casting="same_kind")
    return dst


def _exact_inverse(scale: float) -> np.float32 | None:
    """1/scale as float32 if multiplying by it equals dividing by scale (a power of two
    whose inverse is a normal float32), else None."""
    mantissa, _ = math.frexp(scale)
    inverse = 1.0 / scale  # exact for a power of two (in float64)
    f32 = np.finfo(np.float32)
    if mantissa == 0.5 and float(f32.tiny) <= inverse <= float(f32.max):
        return np.float32(inverse)
    return None


# ---- public -----------------------------------------------------------------------------

def quantize(tensor: Tensor, x: object, *, rounding: str = "trunc", nan: str = "error",
             out: np.ndarray | None = None, max_bytes: int | None = None) -> np.ndarray:
    """Codes of ``tensor``'s element type for real values ``x``; a COPY of x's shape.

    ``q = saturate(round(x * scale + zero_point))`` with TIDL's multiplier ``scale``
    (see the module docstring for the exact rules). Integer ``x`` of exactly the element
    type is copied unchanged; float element types copy the values. ``out`` (same shape,
    the element dtype) receives the result instead of a new array.

    >>> t = make_descriptor("10.x", inputs=[dict(inWidth=2, inHeight=1, inNumChannels=1,
    ...     inElementType=0, inTensorScale=10.0)]).inputs[0]           # doctest: +SKIP
    >>> quantize(t, np.array([0.19, 30.0, -1.0]))                      # doctest: +SKIP
    array([  1, 255,   0], dtype=uint8)
    """
    qp = qparams(check_kind(tensor, Tensor, "quantize", "tensor"))
    check_choice(rounding, ROUNDINGS, "quantize", "rounding")
    check_choice(nan, NAN_MODES, "quantize", "nan")
    xa = as_array(x, "quantize", "x")
    how = _conversion(qp, xa.dtype, "x")
    if out is None:
        check_alloc(xa.size * qp.dtype.itemsize, qp.label, max_bytes, "quantize")
        result = np.empty(xa.shape, qp.dtype)
    else:
        result = check_out(out, xa.shape, (qp.dtype,), f"quantize: {qp.label}")
        if np.may_share_memory(result, xa):  # out over x's own bytes: read x before writing codes
            xa = xa.copy()
    if how != "quantize":
        np.copyto(result, xa, casting="same_kind" if how == "cast" else "equiv")
        return result
    try:
        lim = limits(qp, xa.dtype, rounding)
        quantize_into(result, xa, lim, nan, scratch_elems(xa.nbytes, lim.ct.itemsize))
    except NanFound:
        raise nan_error(qp.label, xa, "x") from None
    return result


def dequantize(tensor: Tensor, q: object, *, out: np.ndarray | None = None,
               max_bytes: int | None = None) -> np.ndarray:
    """Real values ``float32(q - zero_point) / float32(scale)`` of codes ``q``; a COPY.

    ``q`` must have the tensor's element dtype (for float element types the values are
    returned as float32). ``out`` (same shape, float32 or float64) receives the result.
    """
    qp = qparams(check_kind(tensor, Tensor, "dequantize", "tensor"))
    qa = as_array(q, "dequantize", "q")
    if qa.dtype != qp.dtype:
        raise BufferMismatchError(f"{qp.label}: q: codes have dtype {qa.dtype}, expected the tensor's "
                                  f"{qp.dtype}")
    if out is None:
        check_alloc(qa.size * 4, qp.label, max_bytes, "dequantize")
        result = np.empty(qa.shape, np.float32)
    else:
        result = check_out(out, qa.shape, (np.dtype(np.float32), np.dtype(np.float64)), f"dequantize: {qp.label}")
        if np.may_share_memory(result, qa):  # out over the codes' own bytes: read them first
            qa = qa.copy()
    dequantize_into(result, qa, qp, scratch_elems(qa.size * 4, 8))
    return result


def dequantize_codes(q: np.ndarray, scale: float, zero_point: int = 0, *, label: str = "codes",
                     out: np.ndarray | None = None) -> np.ndarray:
    """:func:`dequantize` for codes that belong to no io tensor (a net layer's trace): real
    values ``float32(q - zero_point) / float32(scale)``, a COPY in float32 (or into ``out``).
    ``q`` holds integer codes (float codes are copied as float32); ``label`` names them in
    errors."""
    qa = np.asarray(q)
    dtype = qa.dtype
    if dtype.kind == "f":
        qp = QParams(label, dtype, True, 1.0, 0, 0, 0)
    elif dtype.kind in "iu":
        if not math.isfinite(scale) or scale <= 0:
            raise GeometryError(f"{label}: scale {scale!r}: quantized codes need a finite multiplier > 0")
        info = np.iinfo(dtype)
        qp = QParams(label, dtype, False, float(scale), int(zero_point), int(info.min), int(info.max))
    else:
        raise BufferMismatchError(f"{label}: expected integer or float codes, found dtype {dtype}")
    result = np.empty(qa.shape, np.float32) if out is None else \
        check_out(out, qa.shape, (np.dtype(np.float32), np.dtype(np.float64)), label)
    dequantize_into(result, qa, qp, scratch_elems(qa.size * 4, 8))
    return result


def nan_error(label: str, x: np.ndarray, what: str) -> BufferMismatchError:
    error = nan_found(label, x, what, "pass nan='zero' to quantize NaN as the real value 0")
    return error if error is not None else BufferMismatchError(f"{label}: {what} holds NaN")
