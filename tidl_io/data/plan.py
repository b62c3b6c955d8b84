"""Buffer, pack and unpack plans: everything decided on shapes, checked once.

- :class:`BufferPlan` (:func:`plan_buffer`, cached per tensor): the tensor's buffer geometry
  (element type, 6-D shape and strides, first offset, sizes, buffer layout).
- :class:`PackPlan` (:func:`plan_pack`, once per tensor, user array shape / strides / dtype,
  layout, rounding and nan): the geometry, the quantization parameters and how the data goes in
  (quantize, copy or cast: :class:`tidl_io.data.quant.Conversion`, with the quantization limits of
  the compute dtype and the scratch sizes), the route through memory (:class:`Route`: one
  elementwise pass, or a layout change by groups of slabs, whole slabs or row blocks, its
  :class:`Steps`), and for a same-layout quantize the prepared native call, which then needs
  only the two addresses.
- :class:`UnpackPlan` (:func:`plan_unpack`, once per tensor, layout, dequantize and squeeze):
  the same for the way out, the result shape and the dtypes ``out`` may have.

Every argument check of pack and unpack but ``out`` and the values happens here, in order.
:mod:`tidl_io.data.buffers` executes a plan on two buffers (and :mod:`tidl_io.data.padding` reads a
:class:`BufferPlan`); no data moves here. :func:`typed_buffer` turns caller memory into the flat
typed buffer a plan runs on.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import native as _native
from ..base.check import as_array, check_choice, check_flag, kind_error, wrong_kind
from ..base.errors import BufferMismatchError, GeometryError
from ..base.layouts import CF, CL, accepted_shapes, parse_layout, shape_error
from ..iodesc.geometry import BufferGeometry
from ..iodesc.tensor import Tensor
from .quant import NAN_MODES, ROUNDINGS, Conversion, QParams, plan_conversion, qparams, scratch_elems

__all__ = ["BufferPlan", "PackPlan", "Route", "Steps", "UnpackPlan", "out_shape", "plan_buffer", "plan_pack", "plan_unpack",
           "raw_bytes", "reshape_view", "typed_buffer", "view6"]


@dataclass(frozen=True)
class BufferPlan:
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
        last) without its size-1 axes (at least one axis): the elementwise route's view."""
        result = {}
        for cl in (False, True):
            axes = [i for i in (CL if cl else CF) if self.shape[i] > 1] or [5]
            result[cl] = (tuple(self.shape[i] for i in axes), tuple(self.strides[i] * self.itemsize for i in axes))
        return result

    @property
    def slabs(self) -> Iterator[tuple[int, ...]]:
        """Every (n, d1, d2) index, in C order: the slabs of a layout change."""
        return itertools.product(*(range(n) for n in self.shape[:3]))

    @functools.cached_property
    def routes(self) -> dict[bool, Route]:
        """The :class:`Route` to and from a user array channels first (False) or last (True)."""
        merged = None
        bs = self.byte_strides
        if math.prod(self.shape[:3]) > 1 and _merges(self.shape, bs):
            kept = [i for i in range(3) if self.shape[i] > 1]
            order = (4, 5, 3) if self.channels_last else (3, 4, 5)
            merged = ((math.prod(self.shape[:3]), *(self.shape[i] for i in order)),
                      (bs[kept[-1]], *(bs[i] for i in order)))
        result = {}
        for cl in (False, True):
            user6 = tuple(self.shape[i] for i in (CL if cl else CF))
            shapes = (accepted_shapes(self.shape, cl), accepted_shapes(self.shape, cl, True))
            if cl == self.channels_last:
                result[cl] = Route(True, self.core[cl], user6, shapes, (), (), (), (), None)
                continue
            into, out_of = ((2, 0, 1), (1, 2, 0)) if cl else ((1, 2, 0), (2, 0, 1))
            result[cl] = Route(False, self.core[cl], user6, shapes, into, out_of, (0, *(p + 1 for p in into)),
                               (0, *(p + 1 for p in out_of)), merged)
        return result


@functools.lru_cache(maxsize=512)
def plan_buffer(tensor: Tensor) -> BufferPlan:
    """The checked :class:`BufferPlan` of a tensor (cached); a GeometryError naming every field
    that makes its geometry unusable (:attr:`Tensor.geometry_problems`)."""
    problems = tensor.geometry_problems
    if problems:
        detail = "; ".join(f"{field}: {message}" for field, message in problems)
        raise GeometryError(f"{tensor.label}: unusable buffer geometry: {detail}")
    g = tensor.geometry  # (its used_strides: 0 for size-1 axes, whose pitch can be absurd, e.g. outPadCh near 2**31)
    return BufferPlan(tensor.label, tensor.dtype, g.shape, g.used_strides, g.first_offset, g.required_size,
                      g.padded_size, tensor.layout == "NHWC", g)


@dataclass(frozen=True)
class Route:
    """How the valid region and a user array in one axis order meet in memory, decided on
    shapes (:attr:`BufferPlan.routes`).

    ``same_order``: the user axis order is the buffer's: one elementwise pass over ``core``,
    (shape, byte strides) of the valid region in the user's axis order without size-1 axes.
    ``shapes``: the user array shapes accepted in this axis order (any rank, and those of 3 axes
    for "CHW" / "HWC": :func:`tidl_io.base.layouts.accepted_shapes`). Otherwise a layout change:
    ``user6`` is the user array as 6-D in its own axis order;
    ``into`` takes a user (C, H, W) block to the buffer's memory order ((1, 2, 0) or
    (2, 0, 1)), ``out_of`` takes it back, ``into4`` / ``out_of4`` do the same to a group of
    blocks; ``merged``: (shape, byte strides) of the valid region with its (n, d1, d2) axes
    merged into one, in memory order ((count, H, W, C) for a channels-last buffer), or None
    (one slab, or strides that do not merge): then a layout change goes slab by slab."""

    same_order: bool
    core: tuple[tuple[int, ...], tuple[int, ...]]
    user6: tuple[int, ...]
    shapes: tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]
    into: tuple[int, ...]
    out_of: tuple[int, ...]
    into4: tuple[int, ...]
    out_of4: tuple[int, ...]
    merged: tuple[tuple[int, ...], tuple[int, ...]] | None


@dataclass(frozen=True)
class Steps:
    """How a layout change steps through memory within a scratch budget (elements): ``group``
    (n, d1, d2) slabs per step where both sides merge them (0: they do not, one slab, or a slab
    beyond the budget), else ``rows`` rows of all channels per block; ``group_block`` /
    ``row_block``: the scratch elements either takes."""

    group: int
    rows: int
    group_block: int
    row_block: int


@dataclass(frozen=True)
class PackPlan:
    """One pack planned once per (tensor, user array shape / strides / dtype, layout, rounding,
    nan), every check on those passed: the geometry ``geo``, the quantization parameters ``qp``
    (scale, zero point, clamp range), how the data goes in (``conv``: quantize, copy or cast,
    with the quantization limits of the compute dtype and the scratch sizes,
    :class:`tidl_io.data.quant.Conversion`; ``same``: the codes go in as they are), the memory
    ``way`` and, for a layout change, its ``steps``, and ``native``: the prepared native
    quantize call of a same-layout pack (None: the NumPy / permute path), which then needs only
    the two addresses (``at``: byte offset of the first valid element in the buffer)."""

    geo: BufferPlan
    qp: QParams
    conv: Conversion
    same: bool
    channels_last: bool
    nan: str
    way: Route
    steps: Steps | None
    native: tuple[Any, ...] | None
    at: int


@dataclass(frozen=True)
class UnpackPlan:
    """One unpack planned once per (tensor, layout, dequantize, squeeze), every check on those
    passed: the geometry, the result ``shape``, the quantization parameters (``qp``, None for
    the codes), the dtypes ``out`` may have, the memory ``way`` and, per result dtype, the
    scratch block of a dequantizing pass (``scratch``, elements) and the ``steps`` of a layout
    change; ``at``: the byte offset of the first valid element in the buffer."""

    geo: BufferPlan
    qp: QParams | None
    channels_last: bool
    shape: tuple[int, ...]
    dtypes: tuple[np.dtype, ...]
    way: Route
    scratch: dict[np.dtype, int] = field(hash=False, compare=False)
    steps: dict[np.dtype, Steps] = field(hash=False, compare=False)
    at: int = 0


# ---- planners -----------------------------------------------------------------------------

def plan_pack(tensor: Tensor, x: Any, layout: str, rounding: str, nan: str) -> tuple[PackPlan, np.ndarray]:
    """Check pack's arguments (but ``out``) in order and plan the pack: the plan and ``x`` as an
    array."""
    if not isinstance(tensor, Tensor):
        raise kind_error(tensor, Tensor, "pack", "tensor")
    geo = plan_buffer(tensor)
    qp = qparams(tensor)
    if type(rounding) is not str or rounding not in ROUNDINGS:
        check_choice(rounding, ROUNDINGS, "pack", "rounding")
    if type(nan) is not str or nan not in NAN_MODES:
        check_choice(nan, NAN_MODES, "pack", "nan")
    name, channels_last, rank3 = parse_layout(layout, f"pack: {geo.label}")
    xa = x if type(x) is np.ndarray else as_array(x, "pack", "x")
    conv = plan_conversion(qp, xa.dtype, xa.nbytes, rounding, "data")
    way = geo.routes[channels_last]
    if xa.shape not in way.shapes[rank3]:
        raise shape_error(geo.shape, xa.shape, channels_last, rank3, name, geo.label)
    same = conv.how == "copy" and xa.dtype == geo.dtype  # (equal byte order too: the permute never casts)
    steps, call = None, None
    if not way.same_order:  # (xa.reshape only adds or drops size-1 axes: a view)
        steps = _steps(way, geo.shape, conv.codes, xa.reshape(way.user6).strides)
    elif conv.limits is not None and xa.size and _native.LIB is not None:
        shape, strides = way.core
        call = _native.quantize_call(
            shape, strides, geo.dtype, xa.reshape(shape).strides, xa.dtype, float(qp.scale), float(qp.zero_point),
            float(qp.lo), float(qp.hi), rounding == "nearest")
    plan = PackPlan(geo, qp, conv, same, channels_last, nan, way, steps, call, geo.first * geo.itemsize)
    return plan, xa


def plan_unpack(tensor: Tensor, buf: Any, layout: str, dequantize: bool, squeeze: bool
                ) -> tuple[UnpackPlan, np.ndarray]:
    """Check unpack's arguments (but ``out``) in order and plan the unpack: the plan and ``buf``
    as the flat typed buffer (:func:`typed_buffer`)."""
    if not isinstance(tensor, Tensor):
        raise kind_error(tensor, Tensor, "unpack", "tensor")
    geo = plan_buffer(tensor)
    _, channels_last, rank3 = parse_layout(layout, f"unpack: {geo.label}")
    deq, sq = check_flag(dequantize, "unpack", "dequantize"), check_flag(squeeze, "unpack", "squeeze")
    typed = typed_buffer(geo, buf, "buf", "unpack")
    shape = out_shape(tensor, sq, channels_last, rank3)
    qp = qparams(tensor) if deq else None
    dtypes = (np.dtype(np.float32), np.dtype(np.float64)) if deq else (geo.dtype,)
    count = math.prod(shape)
    scratch = {dt: scratch_elems(count * dt.itemsize, 8) for dt in dtypes}
    way = geo.routes[channels_last]
    steps = {dt: _steps(way, geo.shape, scratch_elems(count * dt.itemsize, dt.itemsize)) for dt in dtypes}
    plan = UnpackPlan(geo, qp, channels_last, shape, dtypes, way, scratch, steps, geo.first * geo.itemsize)
    return plan, typed


def _steps(way: Route, shape6: tuple[int, ...], budget: int, user_strides: tuple[int, ...] | None = None) -> Steps:
    """:class:`Steps` of a layout change along ``way`` of a tensor of ``shape6`` within ``budget``
    scratch elements; groups only where the buffer's (n, d1, d2) axes merge and, given the byte
    strides of the user array as 6-D (``user_strides``), the user's too."""
    c, h, w = shape6[3:]
    slab, count = c * h * w, math.prod(shape6[:3])
    merge = way.merged is not None and (user_strides is None or _merges(way.user6, user_strides))
    group = max(1, budget // slab) if merge and count > 1 and slab <= budget else 0
    rows = max(1, budget // (c * w))
    return Steps(group, rows, min(group, count) * slab, min(rows, h) * c * w)


def _merges(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """Whether the first three axes of an array of ``shape`` and byte ``strides`` merge into one
    as a view (NumPy's no-copy reshape rule: each kept axis steps over the next one whole)."""
    kept = [(n, s) for n, s in zip(shape[:3], strides[:3]) if n != 1]
    return all(a[1] == b[0] * b[1] for a, b in itertools.pairwise(kept))


# ---- caller memory ----------------------------------------------------------------------

def raw_bytes(memory: Any, label: str, what: str, func: str) -> np.ndarray:
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


def typed_buffer(plan: BufferPlan, buf: Any, what: str, func: str) -> np.ndarray:
    """``buf`` as a flat contiguous array of the element dtype (a view, never a copy);
    ``func`` is the public function that took it (for an argument of the wrong kind)."""
    if not isinstance(buf, np.ndarray):
        buf = raw_bytes(buf, plan.label, what, func)
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


def view6(plan: BufferPlan, typed: np.ndarray) -> np.ndarray:
    """The 6-D (N, DIM1, DIM2, C, H, W) VIEW of the valid elements of a typed buffer."""
    return np.ndarray(plan.shape, plan.dtype, buffer=typed, offset=plan.first * plan.itemsize,
                      strides=plan.byte_strides)


def reshape_view(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``a`` reshaped by adding or removing size-1 axes only: always a view."""
    r = a.reshape(shape)
    if r.size and not np.may_share_memory(r, a):  # pragma: no cover - numpy guarantees a view here
        raise AssertionError("reshape copied")
    return r


# ---- user shapes ------------------------------------------------------------------------

def out_shape(tensor: Tensor, squeeze: bool, channels_last: bool, rank3: bool = False) -> tuple[int, ...]:
    """The shape unpack returns: 6-D, or squeezed as ``tensor.squeezed_shape`` says where
    that only drops size-1 axes (a leading axis larger than 1 is kept), channels last on
    request; (C, H, W) or (H, W, C) for ``rank3`` (one image: N = DIM1 = DIM2 = 1)."""
    shape6 = tensor.shape
    order = CL if channels_last else CF
    if rank3:
        if shape6[:3] != (1, 1, 1):
            name = "HWC" if channels_last else "CHW"
            raise BufferMismatchError(f"{tensor.label}: layout {name!r} is one image, but the tensor has "
                                      f"(N, DIM1, DIM2) = {shape6[:3]}; use {'NHWC' if channels_last else 'NCHW'!r}")
        return tuple(shape6[i] for i in order[3:])
    kept = set(tensor.squeezed_axes) if squeeze else set(range(6))
    return tuple(shape6[i] for i in order if i in kept)
