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
from ._check import check_int, check_kind, wrong_kind
from ._errors import BufferMismatchError, check_out
from ._layouts import CL
from ._limits import aligned_zeros, check_alloc
from .descriptor import Descriptor, Tensor
from .permute import transpose_into
from .plan import (
    BufferPlan,
    PackPlan,
    UnpackPlan,
    plan_buffer,
    plan_pack,
    plan_unpack,
    raw_bytes,
    reshape_view,
    typed_buffer,
    view6,
)
from .quant import NanFound, dequantize_into, nan_error, nan_policy, quantize_into

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
    "zeroed",
]

ALIGNMENT = 64
"""Byte alignment of the buffers this module allocates (a cache line; TIDL's shared heap
hands out at least this)."""

# ---- allocation -------------------------------------------------------------------------

def zeroed(count: int, dtype: np.dtype) -> np.ndarray:
    """A NEW zero-filled flat array of ``count`` elements of ``dtype``, ALIGNMENT-byte aligned
    (the caller checked the size against the cap)."""
    return aligned_zeros(count * dtype.itemsize, ALIGNMENT).view(dtype)


def _alloc(plan: BufferPlan, max_bytes: int | None, func: str) -> np.ndarray:
    check_alloc(plan.size * plan.itemsize, plan.label, max_bytes, func)
    return zeroed(plan.size, plan.dtype)


def alloc_input(desc: Descriptor, key: int | str, *, max_bytes: int | None = None) -> np.ndarray:
    """A NEW zero-filled flat buffer for input ``key`` (index or name).

    1-D, ``buffer_size`` elements (``inBufSize``, or computed for 8.x/9.0) of the
    element dtype, 64-byte aligned. Raises :class:`GeometryError` for an unusable
    geometry and :class:`AllocationLimitError` above the cap (``max_bytes`` or
    ``TIDL_IO_MAX_ALLOC_BYTES``, default 1 GiB) before touching memory.
    """
    tensor = check_kind(desc, Descriptor, "alloc_input", "desc").input(_key(key, "alloc_input"))
    return _alloc(plan_buffer(tensor), max_bytes, "alloc_input")


def alloc_output(desc: Descriptor, key: int | str, *, max_bytes: int | None = None) -> np.ndarray:
    """A NEW zero-filled flat buffer for output ``key``; see :func:`alloc_input`."""
    tensor = check_kind(desc, Descriptor, "alloc_output", "desc").output(_key(key, "alloc_output"))
    return _alloc(plan_buffer(tensor), max_bytes, "alloc_output")


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
        op, xa = plan_pack(tensor, x, layout, rounding, nan)
        if xa is x:
            if len(_PACKS) >= _PACKS_MAX:
                _PACKS.clear()
            _PACKS[(tensor, x.shape, x.strides, x.dtype, layout, rounding, nan)] = op
    geo = op.geo
    if out is None:
        buf = _alloc(geo, max_bytes, "pack")
    else:
        buf = typed_buffer(geo, out, "out", "pack")
        if not buf.flags.writeable:
            raise BufferMismatchError(f"{geo.label}: out is read-only")
    try:
        run_pack(op, xa, buf)
    except NanFound:
        raise nan_error(geo.label, xa, "data") from None
    return buf


# Pack plans by (tensor, user array shape, strides, dtype, layout, rounding, nan) as passed: every
# check of those arguments passed once; started over past _PACKS_MAX entries.
_PACKS: dict[tuple[Any, ...], PackPlan] = {}
_PACKS_MAX = 1024


def run_pack(op: PackPlan, x: np.ndarray, buf: np.ndarray) -> None:
    """Execute a pack plan: user data ``x`` (of the planned shape, strides and dtype) into the
    flat typed buffer ``buf`` IN PLACE; raises NanFound for NaN with nan="error"."""
    if op.native is not None:  # the same-layout quantize: one prepared native call on two addresses
        nans = _native.quantize_at(op.native, _native.address(buf) + op.at, _native.address(x))
        if nans is not None:  # (None: native off, or a buffer over the data's own bytes)
            nan_policy(op.nan, bool(nans))
            return
    if np.may_share_memory(buf, x):  # the buffer over the data's own bytes: read the data first
        x = x.copy()
    geo, way, how = op.geo, op.way, op.how
    if way.same_order:  # one elementwise pass over the view without size-1 axes
        shape, strides = way.core
        dst = np.ndarray(shape, geo.dtype, buffer=buf, offset=op.at, strides=strides)
        src = x.reshape(shape)  # drops size-1 axes only: a view
        if op.limits is not None:
            quantize_into(dst, src, op.limits, op.nan, op.scratch)
        else:
            np.copyto(dst, src, casting="equiv" if how == "copy" else "same_kind")
        return
    steps = op.steps
    assert steps is not None
    x6 = x.reshape(way.user6)
    if op.grouped and way.merged is not None:  # many small slabs: whole groups of them per step
        shape, strides = way.merged
        vm = np.ndarray(shape, geo.dtype, buffer=buf, offset=op.at, strides=strides)
        xm = x6.reshape((shape[0], *way.user6[3:]))  # (planned: the (n, d1, d2) axes merge, a view)
        k = steps.group
        block = None if op.same else np.empty(steps.group_block, geo.dtype)
        for s0 in range(0, shape[0], k):
            src, dst = xm[s0:s0 + k], vm[s0:s0 + k]
            if block is not None:
                t = block[:src.size].reshape(src.shape)
                _convert(t, src, op)
                src = t
            transpose_into(dst, src, way.perm4)
        return
    v6 = view6(geo, buf)
    if op.same:  # the codes as they are: slab by slab, straight into place
        for i in _slabs(geo):
            transpose_into(_mem3(v6[i], geo.channels_last), x6[i], way.perm)
        return
    # Slab by slab in row blocks of all channels, through a scratch.
    h, rows = geo.shape[4], steps.rows
    scratch = np.empty(steps.row_block, geo.dtype)
    for i in _slabs(geo):
        xs, vb = x6[i], _mem3(v6[i], geo.channels_last)
        for h0 in range(0, h, rows):
            rs = slice(h0, min(h0 + rows, h))
            src = xs[rs] if op.channels_last else xs[:, rs]
            dst = vb[:, rs] if not geo.channels_last else vb[rs]
            t = scratch[:src.size].reshape(src.shape)
            _convert(t, src, op)
            transpose_into(dst, t, way.perm)


def _convert(dst: np.ndarray, src: np.ndarray, op: PackPlan) -> None:
    """A block of user data into codes of the element dtype (a scratch of src's shape)."""
    if op.limits is not None:
        quantize_into(dst, src, op.limits, op.nan, op.scratch)
    else:
        np.copyto(dst, src, casting="same_kind")  # float data, or codes of the other byte order


def _slabs(plan: BufferPlan) -> Iterator[tuple[int, int, int]]:
    n, d1, d2 = plan.shape[:3]
    return itertools.product(range(n), range(d1), range(d2))


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
    if steps.group and way.merged is not None:
        shape, strides = way.merged
        merged = (shape[0], *way.user6[3:])
        om = reshape_view(out6, merged) if result.flags.c_contiguous else view_reshape(out6, merged)
        if om is not None:  # many small slabs: whole groups of them per step
            vm = np.ndarray(shape, geo.dtype, buffer=typed, offset=op.at, strides=strides)
            k = steps.group
            block = None if qp is None else np.empty(steps.group_block, result.dtype)
            for s0 in range(0, shape[0], k):
                src = vm[s0:s0 + k]
                if qp is not None and block is not None:
                    t = block[:src.size].reshape(src.shape)
                    dequantize_into(t, src, qp, scratch)
                    src = t
                transpose_into(om[s0:s0 + k], src, way.perm4)
            return
    v6 = view6(geo, typed)
    if qp is None:  # the codes: slab by slab, straight into place
        for i in _slabs(geo):
            transpose_into(out6[i], _mem3(v6[i], geo.channels_last), way.perm)
        return
    # Slab by slab in row blocks of all channels, through a scratch.
    h, rows = geo.shape[4], steps.rows
    block = np.empty(steps.row_block, result.dtype)
    for i in _slabs(geo):
        vb, ob = _mem3(v6[i], geo.channels_last), out6[i]
        for h0 in range(0, h, rows):
            rs = slice(h0, min(h0 + rows, h))
            src = vb[rs] if geo.channels_last else vb[:, rs]
            dst = ob[rs] if op.channels_last else ob[:, rs]
            t = block[:src.size].reshape(src.shape)
            dequantize_into(t, src, qp, scratch)
            transpose_into(dst, t, way.perm)


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
