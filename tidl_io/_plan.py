"""A tensor's buffer plan, checked once: geometry, element type, the user array shapes it
accepts and the shapes it returns; one pack's whole plan (geometry + quantization + kernel
choice, :class:`_PackPlan`); and the checks that turn caller memory into the flat typed
buffer. What :mod:`tidl_io.buffers` (and :mod:`tidl_io.padding`) run on; no data moves here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _native
from ._check import wrong_kind
from ._errors import BufferMismatchError, GeometryError
from ._layouts import CF, CL, check_shape
from .geometry import BufferGeometry
from .quant import _QParams
from .tensor import Tensor
from .validate import geometry_problems

_CL, _CF = CL, CF


@dataclass(frozen=True)
class _Plan:
    """A tensor's buffer geometry, checked once (shapes and strides in elements)."""

    label: str
    dtype: np.dtype
    shape: tuple[int, int, int, int, int, int]
    strides: tuple[int, int, int, int, int, int]  # 0 for size-1 axes (BufferGeometry.used_strides)
    first: int
    required: int
    size: int  # elements to allocate: Tensor.alloc_size (the geometry's padded size)
    channels_last: bool
    geometry: BufferGeometry

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def byte_strides(self) -> tuple[int, ...]:
        return tuple(s * self.dtype.itemsize for s in self.strides)

    @functools.cached_property
    def core(self) -> dict[bool, tuple[tuple[int, ...], tuple[int, ...]]]:
        """(shape, byte strides) of the valid region in user axis order (channels first or
        last) without its size-1 axes (at least one axis): the elementwise paths' view."""
        result = {}
        for cl in (False, True):
            axes = [i for i in (_CL if cl else _CF) if self.shape[i] > 1] or [5]
            result[cl] = (tuple(self.shape[i] for i in axes), tuple(self.strides[i] * self.itemsize for i in axes))
        return result


@functools.lru_cache(maxsize=512)
def _plan(tensor: Tensor) -> _Plan:
    problems = geometry_problems(tensor)
    if problems:
        detail = "; ".join(f"{field}: {message}" for field, message in problems)
        raise GeometryError(f"{tensor.label}: unusable buffer geometry: {detail}")
    g = tensor.geometry  # (its used_strides: 0 for size-1 axes, whose pitch can be absurd, e.g. outPadCh near 2**31)
    return _Plan(tensor.label, tensor.dtype, g.shape, g.used_strides, g.first_offset, g.required_size, g.padded_size,
                 tensor.layout == "NHWC", g)


@dataclass(frozen=True)
class _PackPlan:
    """One pack planned once per (tensor, user array shape / strides / dtype, layout, rounding,
    nan), every check on those passed: the geometry, the quantization parameters (scale, zero
    point, clamp range in ``qp``; ``rounding``, ``nan``), how the data goes in (``how``:
    "quantize", "copy" or "cast") and the kernel: ``native``, the prepared native quantize call
    of a same-layout pack (None: the NumPy / permute path), which then needs only the two
    addresses (``at``: byte offset of the first valid element in the buffer)."""

    geo: _Plan
    qp: _QParams
    how: str
    channels_last: bool
    rounding: str
    nan: str
    native: tuple[Any, ...] | None
    at: int


def _pack_plan(geo: _Plan, qp: _QParams, x: np.ndarray, channels_last: bool, how: str, rounding: str,
               nan: str) -> _PackPlan:
    """The :class:`_PackPlan` for user array ``x`` (shape and dtype already checked): the native
    kernel for a non-empty same-layout quantize the library handles, else None."""
    call = None
    if how == "quantize" and channels_last == geo.channels_last and x.size and _native.LIB is not None:
        shape, strides = geo.core[channels_last]
        call = _native.quantize_call(  # (x.reshape drops size-1 axes only: a view)
            shape, strides, geo.dtype, x.reshape(shape).strides, x.dtype, float(qp.scale), float(qp.zero_point),
            float(qp.lo), float(qp.hi), rounding == "nearest")
    return _PackPlan(geo, qp, how, channels_last, rounding, nan, call, geo.first * geo.itemsize)


@dataclass(frozen=True)
class _UnpackPlan:
    """One unpack planned once per (tensor, layout, dequantize, squeeze), every check on those
    passed: the geometry, the result ``shape``, the quantization parameters (``qp``, None for
    the codes) and the dtypes ``out`` may have."""

    geo: _Plan
    qp: _QParams | None
    channels_last: bool
    shape: tuple[int, ...]
    dtypes: tuple[np.dtype, ...]


# ---- caller memory ----------------------------------------------------------------------

def _raw_bytes(memory: Any, label: str, what: str, func: str) -> np.ndarray:
    """``memory``'s bytes as a flat uint8 array (a view): an ArgumentTypeError naming ``func``
    for an object without the buffer protocol (None, a str, a list), a BufferMismatchError
    for a buffer that is not one contiguous block."""
    if memory is None or isinstance(memory, (str, list, tuple, dict, set, frozenset, int, float)):
        raise wrong_kind(func, what, memory, "a numpy array or a bytes-like buffer (bytearray, memoryview, "
                         "mmap, ...)", f" ({label})")
    try:
        return np.frombuffer(memory, np.uint8)
    except TypeError:
        raise wrong_kind(func, what, memory, "a numpy array or a bytes-like buffer (bytearray, memoryview, "
                         "mmap, ...)", f" ({label})") from None
    except (ValueError, BufferError) as exc:
        raise BufferMismatchError(f"{label}: {what} of type {type(memory).__name__} is not a contiguous "
                                  f"buffer: {exc}") from None


def _typed(plan: _Plan, buf: Any, what: str, func: str) -> np.ndarray:
    """``buf`` as a flat contiguous array of the element dtype (a view, never a copy);
    ``func`` is the public function that took it (for an argument of the wrong kind)."""
    if not isinstance(buf, np.ndarray):
        buf = _raw_bytes(buf, plan.label, what, func)
    if buf.ndim != 1:
        raise BufferMismatchError(f"{plan.label}: {what} must be a flat 1-D buffer (as alloc_input gives), "
                                  f"found shape {buf.shape}")
    if buf.dtype == plan.dtype:
        typed = buf
    elif buf.dtype == np.uint8:
        if buf.size > 1 and buf.strides[0] != 1:
            raise BufferMismatchError(f"{plan.label}: {what} must be contiguous, found a stride of "
                                      f"{buf.strides[0]} bytes")
        if buf.ctypes.data % plan.itemsize:
            raise BufferMismatchError(f"{plan.label}: raw bytes of {what} are not aligned to the "
                                      f"{plan.itemsize}-byte element size of {plan.dtype}")
        typed = buf[:buf.size - buf.size % plan.itemsize].view(plan.dtype)
    else:
        raise BufferMismatchError(f"{plan.label}: {what} has dtype {buf.dtype}, expected {plan.dtype} "
                                  f"(or raw uint8 bytes)")
    if typed.size > 1 and typed.strides[0] != plan.itemsize:
        raise BufferMismatchError(f"{plan.label}: {what} must be contiguous, found a stride of "
                                  f"{typed.strides[0]} bytes for {plan.itemsize}-byte elements")
    if typed.size < plan.required:
        raise BufferMismatchError(f"{plan.label}: {what} holds {typed.size} elements of {plan.dtype}; the "
                                  f"last valid element is at index {plan.required - 1} (buffer size "
                                  f"{plan.size})")
    return typed


def _view6(plan: _Plan, typed: np.ndarray) -> np.ndarray:
    return np.ndarray(plan.shape, plan.dtype, buffer=typed, offset=plan.first * plan.itemsize,
                      strides=plan.byte_strides)


def _reshape_view(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``a`` reshaped by adding or removing size-1 axes only: always a view."""
    r = a.reshape(shape)
    if r.size and not np.may_share_memory(r, a):  # pragma: no cover - numpy guarantees a view here
        raise AssertionError("reshape copied")
    return r


# ---- user shapes ------------------------------------------------------------------------

def _check_user_shape(plan: _Plan, x: np.ndarray, channels_last: bool, rank3: bool, layout: str) -> None:
    """:func:`tidl_io._layouts.check_shape` for the plan's tensor."""
    check_shape(plan.shape, x.shape, channels_last, rank3, layout, plan.label)


def _out_shape(tensor: Tensor, squeeze: bool, channels_last: bool, rank3: bool = False) -> tuple[int, ...]:
    """The shape unpack returns: 6-D, or squeezed as ``tensor.squeezed_shape`` says where
    that only drops size-1 axes (a leading axis larger than 1 is kept), channels last on
    request; (C, H, W) or (H, W, C) for ``rank3`` (one image: N = DIM1 = DIM2 = 1)."""
    shape6 = tensor.shape
    order = _CL if channels_last else _CF
    if rank3:
        if shape6[:3] != (1, 1, 1):
            name = "HWC" if channels_last else "CHW"
            raise BufferMismatchError(f"{tensor.label}: layout {name!r} is one image, but the tensor has "
                                      f"(N, DIM1, DIM2) = {shape6[:3]}; use {'NHWC' if channels_last else 'NCHW'!r}")
        return tuple(shape6[i] for i in order[3:])
    kept = set(tensor.squeezed_axes) if squeeze else set(range(6))
    return tuple(shape6[i] for i in order if i in kept)
