"""Padded TIDL buffers: allocate, view, pack (quantize), unpack (dequantize).

A TIDL buffer is a flat array of ``buffer_size`` elements of the tensor's element type.
The valid elements sit at ``idx(n, d1, d2, c, h, w) = n*batchPitch + d1*dim1Pitch +
d2*dim2Pitch + c*chPitch + (padT + h)*linePitch + padL + w`` (NCHW; NHWC interleaves the
channels); everything else is padding, which must be zero in input buffers. This module
is the one place where that geometry meets memory:

- :func:`alloc_input` / :func:`alloc_output` / :func:`alloc_inputs` /
  :func:`alloc_outputs`: new zero-filled, 64-byte aligned flat buffers (capped by
  ``TIDL_IO_MAX_ALLOC_BYTES``); :func:`as_buffer`: a typed flat view over memory the
  caller owns (bytearray, mmap, ctypes array, ``SharedMemory.buf``...).
- :func:`view`: the 6-D (N, DIM1, DIM2, C, H, W) strided VIEW of the valid elements.
- :func:`pack`: user data (NCHW, NHWC, CHW, HWC, 6-D, squeezed) into a buffer, quantized
  with TIDL's multiplier scale (see :mod:`tidl_io.quant`); pads are never written.
- :func:`unpack`: the valid region, dequantized to float32 (a copy) or as a view.

(:func:`tidl_io.padding.check_padding` checks that pads are zero; :mod:`tidl_io.details`
gives TFLite-style dicts; both are importable from here too.)

>>> desc = load("model_tidl_io_1.bin")                   # doctest: +SKIP
>>> buf = pack(desc.input(0), image_hwc, layout="HWC")   # doctest: +SKIP
>>> buf.shape, buf.dtype                                  # doctest: +SKIP
((204300,), dtype('uint8'))
>>> view(desc.input(0), buf).shape                        # doctest: +SKIP
(1, 1, 1, 3, 224, 224)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from . import _native
from ._blocked import view_reshape
from ._check import as_array, check_flag, check_int, check_kind, wrong_kind
from ._errors import BufferMismatchError, check_out
from ._layouts import parse_layout as _parse_layout
from ._limits import aligned_zeros, check_alloc
from ._native import _address
from ._plan import (
    _CF,
    _CL,
    _check_user_shape,
    _out_shape,
    _pack_plan,
    _PackPlan,
    _Plan,
    _plan,
    _raw_bytes,
    _reshape_view,
    _typed,
    _UnpackPlan,
    _view6,
)
from .descriptor import Descriptor, Tensor
from .permute import permute
from .quant import (
    NAN_MODES,
    ROUNDINGS,
    _check_choice,
    _compute_dtype,
    _conversion,
    _dequantize_into,
    _nan_error,
    _NanFound,
    _qparams,
    _quantize_into,
    _scratch_elems,
    nan_policy,
)

__all__ = [
    "ALIGNMENT",
    "alloc_input",
    "alloc_inputs",
    "alloc_output",
    "alloc_outputs",
    "as_buffer",
    "pack",
    "unpack",
    "view",
]

ALIGNMENT = 64
"""Byte alignment of the buffers this module allocates (a cache line; TIDL's shared heap
hands out at least this)."""

# ---- allocation -------------------------------------------------------------------------

def _aligned_zeros(count: int, dtype: np.dtype) -> np.ndarray:
    return aligned_zeros(count * dtype.itemsize, ALIGNMENT).view(dtype)


def _alloc(plan: _Plan, max_bytes: int | None, func: str) -> np.ndarray:
    check_alloc(plan.size * plan.itemsize, plan.label, max_bytes, func)
    return _aligned_zeros(plan.size, plan.dtype)


def alloc_input(desc: Descriptor, key: int | str, *, max_bytes: int | None = None) -> np.ndarray:
    """A NEW zero-filled flat buffer for input ``key`` (index or name).

    1-D, ``buffer_size`` elements (``inBufSize``, or computed for 8.x/9.0) of the
    element dtype, 64-byte aligned. Raises :class:`GeometryError` for an unusable
    geometry and :class:`AllocationLimitError` above the cap (``max_bytes`` or
    ``TIDL_IO_MAX_ALLOC_BYTES``, default 1 GiB) before touching memory.
    """
    tensor = check_kind(desc, Descriptor, "alloc_input", "desc").input(_key(key, "alloc_input"))
    return _alloc(_plan(tensor), max_bytes, "alloc_input")


def alloc_output(desc: Descriptor, key: int | str, *, max_bytes: int | None = None) -> np.ndarray:
    """A NEW zero-filled flat buffer for output ``key``; see :func:`alloc_input`."""
    tensor = check_kind(desc, Descriptor, "alloc_output", "desc").output(_key(key, "alloc_output"))
    return _alloc(_plan(tensor), max_bytes, "alloc_output")


def alloc_inputs(desc: Descriptor, *, max_bytes: int | None = None) -> dict[str, np.ndarray]:
    """NEW buffers for every input, keyed by name (in slot order)."""
    return _alloc_all(check_kind(desc, Descriptor, "alloc_inputs", "desc").inputs, max_bytes, "alloc_inputs")


def alloc_outputs(desc: Descriptor, *, max_bytes: int | None = None) -> dict[str, np.ndarray]:
    """NEW buffers for every output, keyed by name (in slot order)."""
    return _alloc_all(check_kind(desc, Descriptor, "alloc_outputs", "desc").outputs, max_bytes, "alloc_outputs")


def _key(key: Any, func: str) -> int | str:
    """A tensor index or name, or an ArgumentTypeError naming ``func`` (desc.input(key) checks the value)."""
    if isinstance(key, str):
        return key
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        return int(key)
    raise wrong_kind(func, "key", key, f"an {func.split('_')[1]} index (int) or name (str)")


def _alloc_all(tensors: tuple[Tensor, ...], max_bytes: int | None, func: str) -> dict[str, np.ndarray]:
    seen: dict[str, Tensor] = {}
    for t in tensors:
        if t.name in seen:
            raise BufferMismatchError(f"{t.label}: same name as {seen[t.name].label}; a dict keyed by name "
                                      f"cannot hold both: allocate by index")
        seen[t.name] = t
    plans = [_plan(t) for t in tensors]  # every geometry is checked before anything is allocated
    return {t.name: _alloc(p, max_bytes, func) for t, p in zip(tensors, plans)}


def as_buffer(tensor: Tensor, memory: Any, *, offset: int = 0, align: int | None = None) -> np.ndarray:
    """A typed flat VIEW of ``buffer_size`` elements over caller-owned memory; no copy.

    ``memory`` is anything with the buffer protocol (bytearray, mmap, ctypes array,
    ``multiprocessing.shared_memory.SharedMemory.buf``, a contiguous numpy array); the
    buffer starts ``offset`` bytes in. It must hold ``buffer_nbytes`` bytes from there
    and start at a multiple of the element size; ``align=64`` also requires a 64-byte
    aligned start (what :func:`alloc_input` gives). Read-only memory gives a read-only
    view. Nothing is written: zero the pads yourself (``buf[...] = 0``) or check them
    with :func:`check_padding`.
    """
    plan = _plan(check_kind(tensor, Tensor, "as_buffer", "tensor"))
    where = f"as_buffer: {plan.label}"
    offset = check_int(offset, where, "offset", 0, "a whole number of bytes")
    align = 0 if align is None else check_int(align, where, "align", 0, "a whole number of bytes (or None)")
    raw = _raw_bytes(memory, plan.label, "memory", "as_buffer")
    need = plan.size * plan.itemsize
    if offset < 0 or raw.size - offset < need:
        raise BufferMismatchError(
            f"{plan.label}: memory holds {raw.size} bytes, {max(raw.size - offset, 0)} from offset {offset}; "
            f"the buffer needs {need} bytes ({plan.size} elements of {plan.dtype})")
    address = raw.ctypes.data + offset
    if address % plan.itemsize:
        raise BufferMismatchError(f"{plan.label}: memory at offset {offset} (address {address:#x}) is not "
                                  f"aligned to the {plan.itemsize}-byte element size")
    if align and address % align:
        raise BufferMismatchError(f"{plan.label}: memory at offset {offset} (address {address:#x}) is not "
                                  f"{align}-byte aligned (it is {address % align} bytes past a boundary)")
    return raw[offset:offset + need].view(plan.dtype)


# ---- views ------------------------------------------------------------------------------

def view(tensor: Tensor, buf: Any) -> np.ndarray:
    """The valid elements of a padded buffer as a 6-D (N, DIM1, DIM2, C, H, W) VIEW.

    No copy: writing to the view writes the buffer (it is writable when ``buf`` is).
    Uses the stored pitches (``strides``, ``first_offset``), NCHW or NHWC. ``buf`` is a
    flat array of the element dtype, or raw bytes (uint8 array, bytearray, ...)
    reinterpreted, holding at least ``required_size`` elements.

    >>> view(t, alloc_input(desc, 0)).shape        # doctest: +SKIP
    (1, 1, 1, 3, 224, 224)
    """
    plan = _plan(check_kind(tensor, Tensor, "view", "tensor"))
    return _view6(plan, _typed(plan, buf, "buf", "view"))


# ---- layout change ----------------------------------------------------------------------

def _copy_into(dst: np.ndarray, src: np.ndarray, perm: tuple[int, ...]) -> None:
    """``dst[...] = src.transpose(perm)``, same dtype: the ONE place where data changes
    layout (HWC <-> CHW slabs and row blocks), through the permute planner (a plain copy
    when the plan is a reshape, cache-blocked transposes otherwise). ``dst`` may be a
    strided view into a padded buffer."""
    permute(src, perm, out=dst)


def _slabs(plan: _Plan) -> Iterator[tuple[int, int, int]]:
    n, d1, d2 = plan.shape[:3]
    return itertools.product(range(n), range(d1), range(d2))


def _slab_groups(plan: _Plan, v6: np.ndarray, u6: np.ndarray, budget: int
                 ) -> tuple[np.ndarray, np.ndarray, int] | None:
    """For many small (n, d1, d2) slabs: the buffer view in memory order and the user
    array, both with those three axes merged into one (views), and how many slabs fit the
    scratch ``budget`` (elements). None when a slab alone exceeds the budget, there is one
    slab, or the strides cannot merge; callers then go slab by slab in row blocks."""
    slab, count = math.prod(plan.shape[3:]), math.prod(plan.shape[:3])
    if count == 1 or slab > budget:
        return None
    vm, um = view_reshape(v6, (count, *v6.shape[3:])), view_reshape(u6, (count, *u6.shape[3:]))
    if vm is None or um is None:
        return None
    return (vm.transpose(0, 2, 3, 1) if plan.channels_last else vm), um, max(1, budget // slab)


# ---- pack -------------------------------------------------------------------------------

def pack(tensor: Tensor, x: Any, out: Any = None, *, layout: str = "NCHW", rounding: str = "trunc",
         nan: str = "error", max_bytes: int | None = None) -> np.ndarray:
    """Write user data into the tensor's padded buffer; returns the flat buffer.

    ``x`` is in ``layout`` "NCHW" (channels first: (N, C, H, W), (C, H, W), the 6-D
    (N, DIM1, DIM2, C, H, W), or that without leading size-1 axes, e.g. the squeezed
    shape) or "NHWC" (channels last: (N, H, W, C), (H, W, C), (N, DIM1, DIM2, H, W, C),
    ...); "CHW"/"HWC" insist on 3-D data. Layout names are case-insensitive ("nhwc").
    Float data is quantized with TIDL's multiplier
    (``q = saturate(x * scale + zero_point)``, truncated toward zero by default or
    ``rounding="nearest"``; ``nan="error"|"zero"``; ±inf saturate), see
    :mod:`tidl_io.quant`. Integer data of exactly the element type is copied as is;
    other integer types are refused. Float element types take the values unchanged.

    ``out`` is the buffer to fill IN PLACE (flat, the element dtype or raw bytes, as from
    :func:`alloc_input` or :func:`as_buffer`); only valid elements are written, pads and
    spare planes are left as they are; the return value is ``out`` itself when it is a
    flat array of the element dtype (else the typed view over its memory). With
    ``out=None`` a NEW zeroed buffer is allocated (capped, see :func:`alloc_input`). On an
    error about the data itself (NaN with ``nan="error"``), ``out`` may be partly written.

    >>> buf = pack(desc.input(0), frame_hwc_uint8, layout="HWC")        # doctest: +SKIP
    >>> pack(desc.input(0), frame_hwc_uint8, buf, layout="HWC") is buf   # doctest: +SKIP
    True
    """
    op = None
    if type(x) is np.ndarray:  # planned before: every check of these arguments passed then
        try:
            op, xa = _PACKS[(tensor, x.shape, x.strides, x.dtype, layout, rounding, nan)], x
        except (KeyError, TypeError):  # (TypeError: an unhashable argument, which the checks refuse)
            pass
    if op is None:
        op, xa = _plan_pack(tensor, x, layout, rounding, nan)
    geo = op.geo
    if out is None:
        buf = _alloc(geo, max_bytes, "pack")
    else:
        buf = _typed(geo, out, "out", "pack")
        if not buf.flags.writeable:
            raise BufferMismatchError(f"{geo.label}: out is read-only")
    try:
        if op.native is not None:  # the same-layout quantize: one prepared native call on two addresses
            nans = _native.quantize_at(op.native, _address(buf) + op.at, _address(xa))
            if nans is not None:  # (None: native off, or a buffer over the data's own bytes)
                nan_policy(op.nan, bool(nans))
                return buf
        _pack_into(geo, op.qp, buf, xa, op.channels_last, op.how, op.rounding, op.nan)
    except _NanFound:
        raise _nan_error(geo.label, xa, "data") from None
    return buf


# Pack plans by (tensor, user array shape, strides, dtype, layout, rounding, nan) as passed: every
# check of those arguments passed once; started over past _PACKS_MAX entries.
_PACKS: dict[tuple[Any, ...], _PackPlan] = {}
_PACKS_MAX = 1024


def _plan_pack(tensor: Tensor, x: Any, layout: str, rounding: str, nan: str) -> tuple[_PackPlan, np.ndarray]:
    """Check pack's arguments (but ``out``) in order and plan the pack; the plan and ``x`` as an
    array. The plan of an ndarray ``x`` is kept in _PACKS."""
    plan = _plan(check_kind(tensor, Tensor, "pack", "tensor"))
    qp = _qparams(tensor)
    if type(rounding) is not str or rounding not in ROUNDINGS:
        _check_choice(rounding, ROUNDINGS, "rounding", "pack")
    if type(nan) is not str or nan not in NAN_MODES:
        _check_choice(nan, NAN_MODES, "nan", "pack")
    name, channels_last, rank3 = _parse_layout(layout, f"pack: {plan.label}")
    xa = x if type(x) is np.ndarray else as_array(x, "pack", "x")
    how = _conversion(qp, xa.dtype, "data")
    _check_user_shape(plan, xa, channels_last, rank3, name)
    op = _pack_plan(plan, qp, xa, channels_last, how, rounding, nan)
    if xa is x:
        if len(_PACKS) >= _PACKS_MAX:
            _PACKS.clear()
        _PACKS[(tensor, x.shape, x.strides, x.dtype, layout, rounding, nan)] = op
    return op, xa


def _pack_into(plan: _Plan, qp: Any, buf: np.ndarray, x: np.ndarray, channels_last: bool, how: str,
               rounding: str, nan: str) -> None:
    if np.may_share_memory(buf, x):  # the buffer over the data's own bytes: read the data first
        x = x.copy()
    ct = _compute_dtype(x.dtype, qp) if how == "quantize" else plan.dtype
    float_scratch = _scratch_elems(x.nbytes, ct.itemsize)
    if channels_last == plan.channels_last:
        # Same axis order as the buffer: one elementwise pass over the view without size-1 axes.
        shape, strides = plan.core[channels_last]
        dst = np.ndarray(shape, plan.dtype, buffer=buf, offset=plan.first * plan.itemsize, strides=strides)
        src = x.reshape(shape)  # drops size-1 axes only: a view
        if how == "quantize":
            _quantize_into(dst, src, qp, rounding, nan, float_scratch)
        else:
            np.copyto(dst, src, casting="equiv" if how == "copy" else "same_kind")
        return
    v6 = _view6(plan, buf)
    x6 = x.reshape(tuple(plan.shape[i] for i in (_CL if channels_last else _CF)))
    # Layout change: per (n, d1, d2) slab, in row blocks of all channels.
    c, h, w = plan.shape[3:]
    perm = (2, 0, 1) if channels_last else (1, 2, 0)  # user block -> buffer block (memory order)
    same = how == "copy" and x6.dtype == plan.dtype  # (equal byte order too: the permute never casts)
    groups = _slab_groups(plan, v6, x6, _scratch_elems(x.nbytes, plan.itemsize))
    if groups is not None:  # many small slabs: whole groups of them per step
        vm, xm, k = groups
        perm4 = (0, *(p + 1 for p in perm))
        block = np.empty(min(k, xm.shape[0]) * c * h * w, plan.dtype)
        for s0 in range(0, xm.shape[0], k):
            src, dst = xm[s0:s0 + k], vm[s0:s0 + k]
            if not same:
                t = block[:src.size].reshape(src.shape)
                if how == "quantize":
                    _quantize_into(t, src, qp, rounding, nan, float_scratch)
                else:
                    np.copyto(t, src, casting="same_kind")
                src = t
            _copy_into(dst, src, perm4)
        return
    if same:
        for i in _slabs(plan):
            _copy_into(_mem3(v6[i], plan.channels_last), x6[i], perm)
        return
    rows = max(1, _scratch_elems(x.nbytes, plan.itemsize) // (c * w))
    scratch = np.empty(min(rows, h) * c * w, plan.dtype)
    for i in _slabs(plan):
        xs, vb = x6[i], _mem3(v6[i], plan.channels_last)
        for h0 in range(0, h, rows):
            rs = slice(h0, min(h0 + rows, h))
            src = xs[rs] if channels_last else xs[:, rs]
            dst = vb[:, rs] if not plan.channels_last else vb[rs]
            t = scratch[:src.size].reshape(src.shape)
            if how == "quantize":
                _quantize_into(t, src, qp, rounding, nan, float_scratch)
            else:
                np.copyto(t, src, casting="same_kind")  # float data, or codes of the other byte order
            _copy_into(dst, t, perm)


def _mem3(vb: np.ndarray, channels_last: bool) -> np.ndarray:
    """A (C, H, W) slab of the buffer view in its memory order: (C, H, W) or (H, W, C)."""
    return vb.transpose(1, 2, 0) if channels_last else vb


# ---- unpack -----------------------------------------------------------------------------

def unpack(tensor: Tensor, buf: Any, *, dequantize: bool = True, out: np.ndarray | None = None,
           squeeze: bool = True, layout: str = "NCHW", max_bytes: int | None = None) -> np.ndarray:
    """The valid region of a padded buffer: dequantized float32 (a COPY) or codes (a VIEW).

    - ``dequantize=True`` (default): a NEW float32 array ``(q - zero_point) / scale``
      (see :mod:`tidl_io.quant`), or written into ``out`` (float32 or float64, exactly
      the result shape) and returned.
    - ``dequantize=False``: the codes as a VIEW of the buffer (no copy; writable if the
      buffer is), or copied into ``out`` (the element dtype) if given.

    Shape: ``tensor.squeezed_shape`` (the last ``numValidTensorDims`` axes, or
    (N, C, H, W)) with ``squeeze=True``, where that only drops size-1 axes; the 6-D
    (N, DIM1, DIM2, C, H, W) with ``squeeze=False``. ``layout="NHWC"`` moves channels last
    ((..., H, W, C)); "CHW" and "HWC" give one 3-D image (N = DIM1 = DIM2 = 1), the same
    names :func:`pack` takes, in any case. Pads are never read.

    >>> unpack(desc.output(0), out_buf).shape          # doctest: +SKIP
    (1, 64, 96, 192)
    """
    op = None
    if type(dequantize) is bool and type(squeeze) is bool:  # planned before: those checks passed then
        try:
            op = _UNPACKS[(tensor, layout, dequantize, squeeze)]
        except (KeyError, TypeError):  # (TypeError: an unhashable argument, which the checks refuse)
            pass
        else:
            typed = _typed(op.geo, buf, "buf", "unpack")
    if op is None:
        op, typed = _plan_unpack(tensor, buf, layout, dequantize, squeeze)
    plan, qp, channels_last, shape = op.geo, op.qp, op.channels_last, op.shape
    if qp is None and out is None:
        v6 = _view6(plan, typed)
        return _reshape_view(v6.transpose(_CL) if channels_last else v6, shape)
    if out is None:
        check_alloc(math.prod(shape) * 4, plan.label, max_bytes, "unpack")
        result = np.empty(shape, np.float32)
    else:
        result = check_out(out, shape, op.dtypes, f"unpack: {plan.label}")
        if np.may_share_memory(result, typed):  # out over the buffer's own bytes: read it first
            typed = typed.copy()
    scratch_elems = _scratch_elems(result.nbytes, 8)
    if channels_last == plan.channels_last:
        # Same axis order as the buffer: one elementwise pass over the view without size-1 axes.
        core_shape, strides = plan.core[channels_last]
        src = np.ndarray(core_shape, plan.dtype, buffer=typed, offset=plan.first * plan.itemsize, strides=strides)
        dst = _reshape_view(result, core_shape)
        if qp is not None:
            _dequantize_into(dst, src, qp, scratch_elems)
        else:
            np.copyto(dst, src)
        return result
    v6 = _view6(plan, typed)
    out6 = _reshape_view(result, tuple(plan.shape[i] for i in (_CL if channels_last else _CF)))
    c, h, w = plan.shape[3:]
    perm = (1, 2, 0) if channels_last else (2, 0, 1)  # buffer block (memory order) -> user block
    groups = _slab_groups(plan, v6, out6, _scratch_elems(result.nbytes, result.itemsize))
    if groups is not None:  # many small slabs: whole groups of them per step
        vm, om, k = groups
        perm4 = (0, *(p + 1 for p in perm))
        block = np.empty(min(k, vm.shape[0]) * c * h * w, result.dtype) if qp is not None else None
        for s0 in range(0, vm.shape[0], k):
            src = vm[s0:s0 + k]
            if qp is not None and block is not None:
                t = block[:src.size].reshape(src.shape)
                _dequantize_into(t, src, qp, scratch_elems)
                src = t
            _copy_into(om[s0:s0 + k], src, perm4)
        return result
    if qp is None:
        for i in _slabs(plan):
            _copy_into(out6[i], _mem3(v6[i], plan.channels_last), perm)
        return result
    rows = max(1, _scratch_elems(result.nbytes, result.itemsize) // (c * w))
    scratch = np.empty(min(rows, h) * c * w, result.dtype)
    for i in _slabs(plan):
        vb, ob = _mem3(v6[i], plan.channels_last), out6[i]
        for h0 in range(0, h, rows):
            rs = slice(h0, min(h0 + rows, h))
            src = vb[rs] if plan.channels_last else vb[:, rs]
            dst = ob[rs] if channels_last else ob[:, rs]
            t = scratch[:src.size].reshape(src.shape)
            _dequantize_into(t, src, qp, scratch_elems)
            _copy_into(dst, t, perm)
    return result


# Unpack plans by (tensor, layout, dequantize, squeeze) as passed; started over past _PACKS_MAX entries.
_UNPACKS: dict[tuple[Any, ...], _UnpackPlan] = {}


def _plan_unpack(tensor: Tensor, buf: Any, layout: str, dequantize: bool, squeeze: bool
                 ) -> tuple[_UnpackPlan, np.ndarray]:
    """Check unpack's arguments (but ``out``) in order and plan the unpack; the plan and ``buf``
    typed. The plan is kept in _UNPACKS when both flags are bools."""
    plan = _plan(check_kind(tensor, Tensor, "unpack", "tensor"))
    _, channels_last, rank3 = _parse_layout(layout, f"unpack: {plan.label}")
    deq, sq = check_flag(dequantize, "unpack", "dequantize"), check_flag(squeeze, "unpack", "squeeze")
    typed = _typed(plan, buf, "buf", "unpack")
    shape = _out_shape(tensor, sq, channels_last, rank3)
    qp = _qparams(tensor) if deq else None
    dtypes = (np.dtype(np.float32), np.dtype(np.float64)) if deq else (plan.dtype,)
    op = _UnpackPlan(plan, qp, channels_last, shape, dtypes)
    if type(dequantize) is bool and type(squeeze) is bool:
        if len(_UNPACKS) >= _PACKS_MAX:
            _UNPACKS.clear()
        _UNPACKS[(tensor, layout, dequantize, squeeze)] = op
    return op, typed


# ---- moved ------------------------------------------------------------------------------

_MOVED = {"check_padding": "padding", "PaddingReport": "padding", "get_input_details": "details",
          "get_output_details": "details"}


def __getattr__(name: str) -> Any:
    """check_padding / PaddingReport (now tidl_io.padding) and get_input_details /
    get_output_details (now tidl_io.details) stay importable from here."""
    if name in _MOVED:
        import importlib
        return getattr(importlib.import_module(f"{__package__}.{_MOVED[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
