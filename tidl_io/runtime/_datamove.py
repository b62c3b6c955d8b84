"""TIDL-RT's buffer rules (``tidl_rt_ovx_datamove.cpp``), shared by the mock and the binding:
when a user tensor is taken as the descriptor's own (zero copy in shared memory, memcpy in
user memory), and how the copy branches convert values (``copy_*`` templates)."""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..base.check import check_int, wrong_kind
from ..base.errors import ArgumentTypeError, BufferMismatchError, OptionError, TensorNotFoundError
from ..base.limits import aligned_zeros, check_alloc
from ..iodesc.descriptor import ElementType, Tensor, TensorLayout
from .protocol import Buffer, RtTensor, Tensors

# ---- conversions (TIDL-RT's copy_* templates) ------------------------------------------

def _saturate(values: np.ndarray, dtype: np.dtype, name: str, truncate_only: bool = False) -> np.ndarray:
    """float32 ``values`` to ``dtype`` like TIDL-RT's ``tidl_rt_sat``: clamp to the type's
    range, then a C cast (truncation toward zero); NaN becomes 0 for integer types (as
    ARM's conversion does). With ``truncate_only`` (TIDL-RT's as-is branch, a bare C
    cast) values outside the range are an error: the board's result would be undefined.
    May reuse ``values``' memory."""
    if dtype.kind == "f":
        lim = np.float32(np.finfo(np.float32).max)
        with np.errstate(over="ignore", invalid="ignore"):
            return np.clip(values, -lim, lim).astype(dtype)
    info = np.iinfo(dtype)
    work = values if dtype.itemsize <= 2 else values.astype(np.float64)  # float32 holds 16-bit bounds exactly
    lo, hi = work.dtype.type(info.min), work.dtype.type(info.max)
    if work.size == 0:
        return work.astype(dtype)
    mn, mx = work.min(), work.max()
    has_nan = bool(np.isnan(mn) or np.isnan(mx))
    if truncate_only and (has_nan or mn <= lo - 1 or mx >= hi + 1):
        bad = np.isnan(work) | (work <= lo - 1) | (work >= hi + 1)
        first = float(work[bad].ravel()[0])
        raise BufferMismatchError(
            f"{name}: value {first!r} cannot be represented as {dtype} and TIDL-RT converts it with a bare "
            f"C cast (same scale and zero point, no saturation): the board's result is undefined; clip the "
            f"data to [{info.min}, {info.max}] first")
    if has_nan:
        work = np.where(np.isnan(work), work.dtype.type(0), work)
    if mn < lo or mx > hi or has_nan:
        work = np.clip(work, lo, hi)
    return work.astype(dtype)  # in range: the cast truncates toward zero, like C


def _user_qparams(rt: RtTensor) -> tuple[np.float32, int]:
    """(scaleU, zpU) of a user tensor: TIDL-RT forces 1 and 0 for float32 user data."""
    if rt.data.dtype.kind == "f":
        return np.float32(1.0), 0
    return np.float32(rt.scale), int(rt.zero_point)


def _device_qparams(t: Tensor) -> tuple[np.float32, int]:
    """(scale, zero point) of the device tensor in a conversion: 1 and 0 for a float
    tensor, whose buffer holds real values (what :func:`tidl_io.data.quant.dequantize` and
    :func:`tidl_io.data.buffers.unpack` read), so the reformat path and the zero-copy path give
    the same values. TIDL-RT's input copy forces scale 1 for a float device tensor; its
    output copy (``cp_data_out_tensor_tidlrt_tiovx``) takes ``outTensorScale`` as is, which
    only differs where a float output's stored scale is not 1 (not seen in real files)."""
    if t.is_float:
        return np.float32(1.0), 0
    return np.float32(t.scale), int(t.zero_point)


def _convert_in(x: np.ndarray, rt: RtTensor, t: Tensor) -> np.ndarray:
    """TIDL-RT's input conversion of user values ``x`` to the descriptor's element type."""
    scale_u, zp_u = _user_qparams(rt)
    scale_d, zp_d = _device_qparams(t)
    data = x.astype(np.float32)
    same_zp, same_scale = zp_u == zp_d, scale_u == scale_d
    if same_zp and same_scale:
        return _saturate(data, t.dtype, t.label, truncate_only=True)
    with np.errstate(over="ignore", invalid="ignore"):
        if not same_zp:
            data = data - np.float32(zp_u)
        if not same_scale:
            data = data * np.float32(scale_d / scale_u)
    return _saturate(data, t.dtype, t.label)


def _convert_out(q: np.ndarray, rt: RtTensor, t: Tensor) -> np.ndarray:
    """TIDL-RT's output conversion of device values ``q`` to the user's element type
    (``cp_data_out_tensor_tidlrt``), float32 arithmetic in TI's order: as is when zero
    point and scale agree; ``sat(q * (sU / sD))`` when only the scales differ;
    ``sat(q + zpU)`` when only the zero points do; else ``sat((q - zf) * (sU / sD))`` with
    ``zf = float(-zpU) * sD / sU`` (the real value q / sD, re-quantized with the user's
    scale and zero point). A user scale of -1 means the descriptor's."""
    user_dtype = rt.data.dtype
    scale_u, zp_u = _user_qparams(rt)
    scale_d, zp_d = _device_qparams(t)
    if scale_u == np.float32(-1.0):
        scale_u = scale_d
    data = q.astype(np.float32)
    same_zp, same_scale = zp_u == zp_d, scale_u == scale_d
    if same_zp and same_scale:
        return _saturate(data, user_dtype, f"{t.label} (user tensor)", truncate_only=True)
    with np.errstate(over="ignore", invalid="ignore"):
        if same_zp:
            data = data * np.float32(scale_u / scale_d)
        elif same_scale:
            data = data + np.float32(zp_u)
        else:
            zf = np.float32(np.float32(-zp_u) * scale_d) / scale_u
            data = (data - zf) * np.float32(scale_u / scale_d)
    return _saturate(data, user_dtype, f"{t.label} (user tensor)")


# Element types TIDL-RT's reformat path can write into an input buffer (any user type),
# and the extra as-is pairs its tables list (user int32 / int64).
_CONVERTIBLE = {0, 1, 2, 3, 6}
_AS_IS_EXTRA = {5: {4, 5}, 8: {5, 7, 8}}


def _memcpy_elements(t: Tensor) -> int:
    """TIDL-RT's memcpy size for same-property tensors in user memory: N·C·DIM1·DIM2·chPitch."""
    return t.num_batches * t.num_channels * t.dim1 * t.dim2 * t.channel_pitch


def mismatches(t: Tensor, rt: RtTensor) -> list[str]:
    """Why ``rt`` is not taken as the descriptor's own tensor (zero copy / memcpy): TIDL-RT
    11.01's ``is_tidlrt_in_tensor_same`` / ``is_tidlrt_out_tensor_same`` (spec tidlrt.md §4).

    Compared: element type; channel pitch, only for an NCHW user tensor with more than one
    channel (``-1`` meaning W·H); layout, only with more than one channel; zero point;
    scale; pads L, R, T; and, for inputs, the buffer size when set (``-1`` or None: not set;
    else it must be at least inBufSize). The raw fields are compared whatever the element
    type, so a float32 RtTensor whose scale field differs from the descriptor's is
    reformatted on the board too (harmless for the values: the conversion uses scale 1 for
    float data). Not compared (TIDL-RT does not): line, DIM and batch pitches, pad B, and
    an output's buffer size (a too-small shared output is refused elsewhere, as it would
    be written past its end)."""
    out = []
    if rt.element_type != t.element_type:
        out.append(f"element type {_etype(rt.element_type)} vs {_etype(t.element_type)}")
    if rt.layout == TensorLayout.NCHW and t.num_channels > 1:
        pitch = t.width * t.height if rt.pitches[3] == -1 else rt.pitches[3]
        if pitch != t.channel_pitch:
            out.append(f"channel pitch {rt.pitches[3]} vs {t.channel_pitch}")
    if rt.layout != t.layout_code and t.num_channels > 1:
        out.append(f"layout {_layout(rt.layout)} vs {t.layout}")
    if rt.zero_point != t.zero_point:
        out.append(f"zero point {rt.zero_point} vs {t.zero_point}")
    if np.float32(rt.scale) != np.float32(t.scale):
        out.append(f"scale {rt.scale!r} vs {t.scale!r}")
    pads = (t.pad_l, t.pad_r, t.pad_t)
    if tuple(rt.pads[:3]) != pads:
        out.append(f"pads L/R/T {tuple(rt.pads[:3])} vs {pads}")
    if t.kind == "input":
        size = rt.data.size if rt.buffer_size is None else rt.buffer_size
        if size != -1 and size < t.buffer_size:
            out.append(f"buffer size {size} < inBufSize {t.buffer_size} elements")
    return out


def _given_size(rt: RtTensor) -> int:
    """The elements an RtTensor's buffer holds: buffer_size when set (not None or -1), else its data's."""
    return rt.data.size if rt.buffer_size is None or rt.buffer_size == -1 else rt.buffer_size


def _etype(code: int) -> str:
    try:
        return f"{ElementType(code).name} ({ElementType(code).dtype})"
    except ValueError:
        return str(code)


def _layout(code: int) -> str:
    try:
        return TensorLayout(code).name
    except ValueError:
        return f"layout{code}"


def _dense_logical(rt: RtTensor, t: Tensor) -> np.ndarray:
    """A dense user tensor's data as a (N, DIM1, DIM2, C, H, W) view."""
    flat = rt.data.reshape(-1)[: rt.size]
    n, d1, d2, c, h, w = rt.dims
    if rt.layout == TensorLayout.NHWC:
        return flat.reshape(n * d1 * d2, h, w, c).transpose(0, 3, 1, 2).reshape(t.shape)
    return flat.reshape(t.shape)


def _dense_write(rt: RtTensor, values: np.ndarray) -> None:
    flat = rt.data.reshape(-1)[: rt.size]
    n, d1, d2, c, h, w = rt.dims
    if rt.layout == TensorLayout.NHWC:
        flat.reshape(n * d1 * d2, h, w, c)[...] = values.reshape(n * d1 * d2, c, h, w).transpose(0, 2, 3, 1)
    else:
        flat.reshape(values.shape)[...] = values


def match_buffers(given: Tensors, slots: Sequence[Any], names: dict[str, int], kind: str) -> list[Buffer]:
    """The buffer given for each slot (objects with ``name`` and ``label``), from a mapping
    name or index -> buffer, or a sequence of RtTensor matched by name then position."""
    found: list[Buffer | None] = [None] * len(slots)
    if isinstance(given, (dict, Mapping)):
        items: Any = given.items()
    elif isinstance(given, Sequence) and not isinstance(given, (str, bytes)):
        items = []
        for pos, rt in enumerate(given):
            if not isinstance(rt, RtTensor):
                raise ArgumentTypeError(f"invoke: {kind}s: expected a sequence of RtTensor objects (or a mapping "
                                        f"name -> buffer), found {type(rt).__name__} at item {pos}")
            items.append((rt.name if rt.name else pos, rt))
    else:
        raise wrong_kind("invoke", f"{kind}s", given, "a mapping name -> buffer, or a sequence of RtTensor")
    for key, value in items:
        i = names.get(key) if isinstance(key, str) else None
        if i is None:
            if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
                if not 0 <= key < len(slots):
                    raise TensorNotFoundError(f"{kind} index {key}: the descriptor has {len(slots)} {kind}(s)")
                i = int(key)
            else:
                listed = ", ".join(repr(s.name) for s in slots)
                raise TensorNotFoundError(f"unknown {kind} {key!r}: the descriptor's {kind}s are {listed}")
        slot = slots[i]
        if found[i] is not None:
            raise BufferMismatchError(f"{slot.label} given twice")
        if isinstance(value, RtTensor):
            if value.name and value.name != slot.name and isinstance(key, str):
                raise BufferMismatchError(f"{slot.label}: given under that name but the RtTensor is named "
                                          f"{value.name!r}")
        elif not isinstance(value, np.ndarray):
            raise wrong_kind("invoke", slot.label, value, "a numpy buffer or an RtTensor")
        found[i] = value
    missing = [s.label for s, f in zip(slots, found) if f is None]
    if missing:
        raise BufferMismatchError(f"missing {kind} buffer(s): {', '.join(missing)}")
    return found  # type: ignore[return-value]


def check_memcpy(t: Tensor) -> None:
    """TIDL-RT's memcpy of a same-property tensor in user memory moves N·C·DIM1·DIM2·
    chPitch elements, which misses data when outPadCh or batch/DIM pitches put valid
    elements beyond that: the board would silently lose them."""
    n = min(_memcpy_elements(t), t.buffer_size)
    if n < t.required_size:
        raise BufferMismatchError(
            f"{t.label}: in user memory TIDL-RT copies only N*C*DIM1*DIM2*channelPitch = {n} "
            f"elements, but valid elements reach index {t.last_offset} (channel pads / DIM or batch pitches): "
            f"the board would silently {'drop' if t.kind == 'output' else 'not see'} the rest; allocate this "
            f"buffer with alloc_shared (zero copy) or pass a dense RtTensor")

def check_rt(t: Tensor, rt: RtTensor) -> None:
    """Consistency of an RtTensor with its own data and with the tensor's logical shape."""
    data = rt.data
    if not isinstance(data, np.ndarray):
        raise wrong_kind("invoke", f"{t.label}: RtTensor.data", data, "a numpy array")
    try:
        own = ElementType(rt.element_type).dtype
    except ValueError:
        raise BufferMismatchError(f"{t.label}: RtTensor element type {rt.element_type} is not a TIDL element "
                                  f"type (0..8)") from None
    if data.dtype != own:
        raise BufferMismatchError(f"{t.label}: RtTensor says element type {ElementType(rt.element_type).name} "
                                  f"({own}) but its data is {data.dtype}")
    if not data.flags.c_contiguous:
        raise BufferMismatchError(f"{t.label}: RtTensor data must be contiguous (TIDL-RT reads raw memory); "
                                  f"use np.ascontiguousarray")
    if tuple(rt.dims) != t.shape:
        raise BufferMismatchError(f"{t.label}: RtTensor dims (N, DIM1, DIM2, C, H, W) = {tuple(rt.dims)}, the "
                                  f"descriptor's are {t.shape}")
    size = _given_size(rt)
    if size > data.size or size < -1:
        raise BufferMismatchError(f"{t.label}: RtTensor buffer_size {rt.buffer_size} does not fit its data "
                                  f"({data.size} elements; -1 or None: not set)")
    if not mismatches(t, rt) and size < t.buffer_size:
        raise BufferMismatchError(f"{t.label}: buffer has {size} elements, the descriptor's buffer size "
                                  f"is {t.buffer_size}")

def check_convertible(t: Tensor, rt: RtTensor) -> None:
    device_type = t.element_type
    user_type = rt.element_type
    if device_type in _CONVERTIBLE:
        return
    if user_type == device_type or device_type in _AS_IS_EXTRA.get(user_type, set()):
        user_float = rt.data.dtype.kind == "f"
        same = (0 if user_float else rt.zero_point) == t.zero_point and \
            np.float32(1.0 if user_float else rt.scale) == np.float32(t.scale)
        if same:
            return
    raise BufferMismatchError(f"{t.label}: TIDL-RT cannot convert {ElementType(user_type).name} data into a "
                              f"{t.element.name if t.element else t.element_type} tensor (its copy tables "
                              f"return VX_FAILURE); pass data of the descriptor's type")


# ---- shared by the runtimes -------------------------------------------------------------

def check_alloc_args(size: Any, alignment: Any) -> tuple[int, int]:
    """``alloc_shared``'s arguments as ints: a size >= 0 and a power-of-two alignment; an
    ArgumentTypeError for a non-integer, an OptionError for a bad value."""
    size = check_int(size, "alloc_shared", "size", None, "an integer number of bytes")
    alignment = check_int(alignment, "alloc_shared", "alignment", None, "an integer number of bytes")
    if size < 0:
        raise OptionError(f"alloc_shared: size must be >= 0 bytes, found {size}")
    if alignment < 1 or alignment & (alignment - 1):
        raise OptionError(f"alloc_shared: alignment must be a power of two, found {alignment}")
    return size, alignment


def aligned_block(size: Any, alignment: Any) -> np.ndarray:
    """``alloc_shared``'s memory on the host: a NEW zero-filled 1-D uint8 array of ``size``
    bytes whose address is a multiple of ``alignment`` (arguments checked by
    :func:`check_alloc_args`, the allocation by TIDL_IO_MAX_ALLOC_BYTES); its ``base`` is
    the whole block."""
    size, alignment = check_alloc_args(size, alignment)
    check_alloc(size + alignment, "alloc_shared")
    return aligned_zeros(size, alignment)


def byte_bounds(a: np.ndarray) -> tuple[int, int]:
    """[low, high) addresses of the bytes an array spans."""
    low = high = a.__array_interface__["data"][0]
    if a.size == 0:
        return low, low
    for d, s in zip(a.shape, a.strides):
        if s < 0:
            low += (d - 1) * s
        else:
            high += (d - 1) * s
    return low, high + a.itemsize


def _signature(value: Any) -> Any:
    """What a buffer's plan depends on besides its identity (an array's shape, dtype and
    writeability can be changed in place)."""
    arr = value.data if isinstance(value, RtTensor) else value
    return (arr.shape, arr.dtype, arr.strides, arr.flags.writeable) if isinstance(arr, np.ndarray) else None


class PlanMemo:
    """The plans of the previous invoke, reused when the next one is given the very same
    objects under the same keys (the usual allocate-once loop): matching and checks depend
    only on them. Only plain dicts of weak-referenceable buffers are remembered."""

    __slots__ = ("_memo",)

    def __init__(self) -> None:
        self._memo: tuple[list[tuple[Any, Any, Any]], list[tuple[Any, Any, Any]], Any] | None = None

    def clear(self) -> None:
        self._memo = None

    def get(self, inputs: Tensors, outputs: Tensors) -> Any:
        memo = self._memo
        if memo is None or type(inputs) is not dict or type(outputs) is not dict:
            return None
        in_items, out_items, plans = memo
        if len(inputs) != len(in_items) or len(outputs) != len(out_items):
            return None
        for given, items in ((inputs, in_items), (outputs, out_items)):
            for key, ref, sig in items:
                value = given.get(key)
                if value is not ref() or _signature(value) != sig:
                    return None
        return plans

    def put(self, inputs: Tensors, outputs: Tensors, plans: Any) -> None:
        self._memo = None
        if type(inputs) is not dict or type(outputs) is not dict:
            return
        try:
            in_items = [(k, weakref.ref(v), _signature(v)) for k, v in inputs.items()]
            out_items = [(k, weakref.ref(v), _signature(v)) for k, v in outputs.items()]
        except TypeError:  # an object without weak references: no memo
            return
        self._memo = (in_items, out_items, plans)
