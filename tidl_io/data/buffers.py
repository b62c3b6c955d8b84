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
  with TIDL's multiplier scale (see :mod:`tidl_io.data.quant`); pads are never written.
- :func:`unpack`: the valid region, dequantized to float32 (a copy) or as a view.

Both are planned once per (tensor, array geometry, options) by :mod:`tidl_io.data.plan` and the plan
is executed here on the two buffers (:func:`run_pack`, :func:`run_unpack`).

(:func:`tidl_io.data.padding.check_padding` checks that pads are zero; :mod:`tidl_io.data.details`
gives TFLite-style dicts; both are importable from here too.)

>>> desc = load("model_tidl_io_1.bin")                   # doctest: +SKIP
>>> buf = pack(desc.input(0), image_hwc, layout="HWC")   # doctest: +SKIP
>>> buf.shape, buf.dtype                                  # doctest: +SKIP
((204300,), dtype('uint8'))
>>> view(desc.input(0), buf).shape                        # doctest: +SKIP
(1, 1, 1, 3, 224, 224)
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..base.check import check_int, check_kind, wrong_kind
from ..base.errors import BufferMismatchError, check_out
from ..base.layouts import CL
from ..base.limits import aligned_zeros, check_alloc
from ..iodesc.descriptor import Descriptor, Tensor
from ..native import address, quantize_at
from .blocked import view_reshape
from .permute import transpose_into
from .plan import (
    BufferPlan,
    PackPlan,
    Steps,
    UnpackPlan,
    plan_buffer,
    plan_pack,
    plan_unpack,
    raw_bytes,
    reshape_view,
    typed_buffer,
    view6,
)
from .quant import NanFound, convert_into, dequantize_into, nan_error, nan_policy

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

def zeroed(count: int, dtype: np.dtype) -> np.ndarray:
    """A NEW zero-filled flat array of ``count`` elements of ``dtype``, ALIGNMENT-byte aligned
    (the caller checked the size against the cap)."""
    return aligned_zeros(count * dtype.itemsize, ALIGNMENT).view(dtype)


def _buffer(plan: BufferPlan, out: Any, max_bytes: int | None, func: str) -> np.ndarray:
    """A NEW zero-filled aligned buffer (capped) for ``out=None``, else ``out`` as the flat typed
    buffer, which must be writable."""
    if out is not None:
        buf = typed_buffer(plan, out, "out", func)
        if not buf.flags.writeable:
            raise BufferMismatchError(f"{plan.label}: out is read-only")
        return buf
    check_alloc(plan.size * plan.itemsize, plan.label, max_bytes, func)
    return aligned_zeros(plan.size * plan.itemsize, ALIGNMENT).view(plan.dtype)


def alloc_input(desc: Descriptor, key: int | str, *, max_bytes: int | None = None) -> np.ndarray:
    """A NEW zero-filled flat buffer for input ``key`` (index or name).

    1-D, ``buffer_size`` elements (``inBufSize``, or computed for 8.x/9.0) of the
    element dtype, 64-byte aligned. Raises :class:`GeometryError` for an unusable
    geometry and :class:`AllocationLimitError` above the cap (``max_bytes`` or
    ``TIDL_IO_MAX_ALLOC_BYTES``, default 1 GiB) before touching memory.
    """
    tensor = check_kind(desc, Descriptor, "alloc_input", "desc").input(_key(key, "alloc_input"))
    return _buffer(plan_buffer(tensor), None, max_bytes, "alloc_input")


def alloc_output(desc: Descriptor, key: int | str, *, max_bytes: int | None = None) -> np.ndarray:
    """A NEW zero-filled flat buffer for output ``key``; see :func:`alloc_input`."""
    tensor = check_kind(desc, Descriptor, "alloc_output", "desc").output(_key(key, "alloc_output"))
    return _buffer(plan_buffer(tensor), None, max_bytes, "alloc_output")


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
    plans = [plan_buffer(t) for t in tensors]  # every geometry is checked before anything is allocated
    return {t.name: _buffer(p, None, max_bytes, func) for t, p in zip(tensors, plans)}


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
    plan = plan_buffer(check_kind(tensor, Tensor, "as_buffer", "tensor"))
    where = f"as_buffer: {plan.label}"
    offset = check_int(offset, where, "offset", 0, "a whole number of bytes")
    align = 0 if align is None else check_int(align, where, "align", 0, "a whole number of bytes (or None)")
    raw = raw_bytes(memory, plan.label, "memory", "as_buffer")
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
    plan = plan_buffer(check_kind(tensor, Tensor, "view", "tensor"))
    return view6(plan, typed_buffer(plan, buf, "buf", "view"))


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
    :mod:`tidl_io.data.quant`. Integer data of exactly the element type is copied as is;
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
        op, xa = plan_pack(tensor, x, layout, rounding, nan)
        if xa is x:
            if len(_PACKS) >= _PACKS_MAX:
                _PACKS.clear()
            _PACKS[(tensor, x.shape, x.strides, x.dtype, layout, rounding, nan)] = op
    buf = _buffer(op.geo, out, max_bytes, "pack")
    try:
        run_pack(op, xa, buf)
    except NanFound:
        raise nan_error(op.geo.label, xa, "data") from None
    return buf


# Pack plans by (tensor, user array shape, strides, dtype, layout, rounding, nan) as passed: every
# check of those arguments passed once; started over past _PACKS_MAX entries.
_PACKS: dict[tuple[Any, ...], PackPlan] = {}
_PACKS_MAX = 1024


def run_pack(op: PackPlan, x: np.ndarray, buf: np.ndarray) -> None:
    """Execute a pack plan: user data ``x`` (of the planned shape, strides and dtype) into the
    flat typed buffer ``buf`` IN PLACE; raises NanFound for NaN with nan="error"."""
    steps = op.steps
    if steps is not None:  # a layout change: block by block, converted through a scratch, then permuted into place
        geo, way, conv = op.geo, op.way, op.conv
        if np.may_share_memory(buf, x):  # the buffer over the data's own bytes: read the data first
            x = x.copy()
        x6 = x.reshape(way.user6)  # (planned: the (n, d1, d2) axes of a grouped route merge, a view)
        xm = x6.reshape((-1, *way.user6[3:])) if steps.group else None
        scratch = None if op.same else np.empty(steps.group_block if steps.group else steps.row_block, geo.dtype)
        for ub, bb, grouped in _pairs(geo, steps, x6, xm, buf, op.same):
            if scratch is not None:
                t = scratch[:ub.size].reshape(ub.shape)
                convert_into(t, ub, conv, op.nan)
                ub = t
            transpose_into(bb, ub, way.into4 if grouped else way.into)
        return
    if op.native is not None:  # a quantize: one prepared native call on two addresses
        nans = quantize_at(op.native, address(buf) + op.at, address(x))
        if nans is not None:  # (None: native off, or a buffer over the data's own bytes)
            if nans:
                nan_policy(op.nan, True)
            return
    if np.may_share_memory(buf, x):
        x = x.copy()
    shape, strides = op.way.core  # one elementwise pass over the valid region without size-1 axes
    dst = np.ndarray(shape, op.geo.dtype, buffer=buf, offset=op.at, strides=strides)
    src = x.reshape(shape)  # drops size-1 axes only: a view
    how = op.conv.how
    if how == "quantize":
        convert_into(dst, src, op.conv, op.nan)
    else:
        np.copyto(dst, src, casting="equiv" if how == "copy" else "same_kind")


def _pairs(geo: BufferPlan, steps: Steps, u6: np.ndarray, um: np.ndarray | None, typed: np.ndarray, whole: bool
           ) -> Iterator[tuple[np.ndarray, np.ndarray, bool]]:
    """The (user block, buffer block in memory order, grouped) pairs of a layout change, in
    order: groups of ``steps.group`` whole slabs when ``um`` is the user array ``u6`` with its
    (n, d1, d2) axes merged, else slab by slab (``whole`` slabs, or row blocks of all channels)."""
    way = geo.routes[not geo.channels_last]
    at = geo.first * geo.itemsize
    if um is not None and way.merged is not None:
        shape, strides = way.merged
        bm = np.ndarray(shape, geo.dtype, buffer=typed, offset=at, strides=strides)
        k = steps.group
        for s0 in range(0, shape[0], k):
            yield um[s0:s0 + k], bm[s0:s0 + k], True
        return
    b6 = np.ndarray(geo.shape, geo.dtype, buffer=typed, offset=at, strides=geo.byte_strides)
    h, rows, user_last = geo.shape[4], steps.rows, not geo.channels_last
    for i in geo.slabs:
        us, bs = u6[i], _mem3(b6[i], geo.channels_last)
        if whole:
            yield us, bs, False
            continue
        for h0 in range(0, h, rows):
            rs = slice(h0, min(h0 + rows, h))
            yield (us[rs] if user_last else us[:, rs]), (bs[rs] if geo.channels_last else bs[:, rs]), False


def _mem3(vb: np.ndarray, channels_last: bool) -> np.ndarray:
    """A (C, H, W) slab of the buffer view in its memory order: (C, H, W) or (H, W, C)."""
    return vb.transpose(1, 2, 0) if channels_last else vb


# ---- unpack -----------------------------------------------------------------------------

def unpack(tensor: Tensor, buf: Any, *, dequantize: bool = True, out: np.ndarray | None = None,
           squeeze: bool = True, layout: str = "NCHW", max_bytes: int | None = None) -> np.ndarray:
    """The valid region of a padded buffer: dequantized float32 (a COPY) or codes (a VIEW).

    - ``dequantize=True`` (default): a NEW float32 array ``(q - zero_point) / scale``
      (see :mod:`tidl_io.data.quant`), or written into ``out`` (float32 or float64, exactly
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
            typed = typed_buffer(op.geo, buf, "buf", "unpack")
    if op is None:
        op, typed = plan_unpack(tensor, buf, layout, dequantize, squeeze)
        if type(dequantize) is bool and type(squeeze) is bool:
            if len(_UNPACKS) >= _PACKS_MAX:
                _UNPACKS.clear()
            _UNPACKS[(tensor, layout, dequantize, squeeze)] = op
    geo = op.geo
    if op.qp is None and out is None:  # the codes: a view
        v6 = view6(geo, typed)
        return reshape_view(v6.transpose(CL) if op.channels_last else v6, op.shape)
    if out is None:
        check_alloc(math.prod(op.shape) * 4, geo.label, max_bytes, "unpack")
        result = np.empty(op.shape, np.float32)
    else:
        result = check_out(out, op.shape, op.dtypes, f"unpack: {geo.label}")
        if np.may_share_memory(result, typed):  # out over the buffer's own bytes: read it first
            typed = typed.copy()
    run_unpack(op, typed, result)
    return result


# Unpack plans by (tensor, layout, dequantize, squeeze) as passed; started over past _PACKS_MAX entries.
_UNPACKS: dict[tuple[Any, ...], UnpackPlan] = {}


def run_unpack(op: UnpackPlan, typed: np.ndarray, result: np.ndarray) -> None:
    """Execute an unpack plan: the valid region of the flat typed buffer ``typed`` into
    ``result`` (the planned shape, one of the planned dtypes, any strides; memory apart)."""
    geo, way, qp = op.geo, op.way, op.qp
    scratch = op.scratch[result.dtype]
    if way.same_order:  # one elementwise pass over the view without size-1 axes
        shape, strides = way.core
        src = np.ndarray(shape, geo.dtype, buffer=typed, offset=op.at, strides=strides)
        dst = reshape_view(result, shape)
        if qp is not None:
            dequantize_into(dst, src, qp, scratch)
        else:
            np.copyto(dst, src)
        return
    steps = op.steps[result.dtype]
    out6 = reshape_view(result, way.user6)
    om = None
    if steps.group:  # (a new result is contiguous: its (n, d1, d2) axes merge; a caller's out may not)
        merged = (math.prod(way.user6[:3]), *way.user6[3:])
        om = reshape_view(out6, merged) if result.flags.c_contiguous else view_reshape(out6, merged)
    block = None if qp is None else np.empty(steps.group_block if om is not None else steps.row_block, result.dtype)
    for ub, bb, grouped in _pairs(geo, steps, out6, om, typed, qp is None):
        if block is not None and qp is not None:
            t = block[:bb.size].reshape(bb.shape)
            dequantize_into(t, bb, qp, scratch)
            bb = t
        transpose_into(ub, bb, way.out_of4 if grouped else way.out_of)


# ---- moved ------------------------------------------------------------------------------

_MOVED = {"check_padding": "padding", "PaddingReport": "padding", "get_input_details": "details",
          "get_output_details": "details"}


def __getattr__(name: str) -> Any:
    """check_padding / PaddingReport (now tidl_io.data.padding) and get_input_details /
    get_output_details (now tidl_io.data.details) stay importable from here."""
    if name in _MOVED:
        import importlib  # start-up
        return getattr(importlib.import_module(f"{__package__}.{_MOVED[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
