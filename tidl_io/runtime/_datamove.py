"""TIDL-RT's buffer rules (``tidl_rt_ovx_datamove.cpp``), shared by the mock and the binding:
when a user tensor is taken as the descriptor's own (zero copy in shared memory, memcpy in
user memory), and how the copy branches convert values (``copy_*`` templates)."""

from __future__ import annotations

import numpy as np

from .._errors import BufferMismatchError
from ..descriptor import ElementType, Tensor, TensorLayout
from .protocol import RtTensor

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
    tensor, whose buffer holds real values (what :func:`tidl_io.quant.dequantize` and
    :func:`tidl_io.buffers.unpack` read), so the reformat path and the zero-copy path give
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
    """TIDL-RT's output conversion of device values ``q`` to the user's element type."""
    user_dtype = rt.data.dtype
    scale_u, zp_u = _user_qparams(rt)
    scale_d, zp_d = _device_qparams(t)
    data = q.astype(np.float32)
    same_zp, same_scale = zp_u == zp_d, scale_u == scale_d
    if same_zp and same_scale:
        return _saturate(data, user_dtype, f"{t.label} (user tensor)", truncate_only=True)
    with np.errstate(over="ignore", invalid="ignore"):
        if not same_zp:
            data = data + np.float32(zp_u)
        if not same_scale:
            data = data * np.float32(scale_u / scale_d)
    return _saturate(data, user_dtype, f"{t.label} (user tensor)")


# Element types TIDL-RT's reformat path can write into an input buffer (any user type),
# and the extra as-is pairs its tables list (user int32 / int64).
_CONVERTIBLE = {0, 1, 2, 3, 6}
_AS_IS_EXTRA = {5: {4, 5}, 8: {5, 7, 8}}


def _memcpy_elements(t: Tensor) -> int:
    """TIDL-RT's memcpy size for same-property tensors in user memory: N·C·DIM1·DIM2·chPitch."""
    return t.num_batches * t.num_channels * t.dim1 * t.dim2 * t.channel_pitch


def _mismatches(t: Tensor, rt: RtTensor) -> list[str]:
    """Why ``rt`` is not taken as the descriptor's own tensor (zero copy / memcpy).

    TIDL-RT's ``is_tidlrt_in_tensor_same`` / ``is_tidlrt_out_tensor_same`` compare exactly:
    element type; channel pitch, only for an NCHW user tensor with more than one channel
    (``-1`` meaning W·H); layout, only with more than one channel; zero point; scale. They
    compare the raw fields whatever the element type, so a float32 RtTensor whose scale
    field differs from the descriptor's is reformatted on the board too (harmless for the
    values: the conversion uses scale 1 for float data) and is reported here as such.
    They compare neither the line, DIM or batch pitches nor any pad: the board then reads
    the buffer with the descriptor's geometry. The mock is stricter: pads L/R/T and the
    buffer size (spec §7) must equal the descriptor's too, else the tensor goes to the
    reformat path, which refuses a padded user tensor; line, DIM and batch pitches and
    pad B are not compared (they follow from W, pads, C and the channel pitch)."""
    out = []
    if rt.element_type != t.element_type:
        out.append(f"element type {_etype(rt.element_type)} vs {_etype(t.element_type)}")
    if rt.layout == TensorLayout.NCHW and t.num_channels > 1 and rt.pitches[3] != t.channel_pitch:
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
    size = rt.data.size if rt.buffer_size is None else rt.buffer_size
    if size != t.buffer_size:
        out.append(f"buffer size {size} vs {t.buffer_size} elements")
    return out


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

