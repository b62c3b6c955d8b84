"""The integer arithmetic of each operation, in NumPy, on dense (frames, C, H, W) arrays.

Every function takes and returns arrays (copies); none reads a net. Accumulators are int64;
convolutions are matrix products in float64, exact while every partial sum stays below 2**53
(:func:`conv2d` checks the bound and falls back to int64 products past it).
"""

from __future__ import annotations

import numpy as np

__all__ = ["concat", "conv2d", "dequantize_float32", "max_pool", "quantize_float32", "round_shift_saturate"]

_EXACT = float(1 << 53)


def round_shift_saturate(acc: np.ndarray, shift: int, low: int, high: int, dtype: np.dtype) -> np.ndarray:
    """``(acc + 2**(shift-1)) >> shift`` (an arithmetic shift: halves go up), clipped to
    ``low..high``, as ``dtype``; no rounding for shift 0. (TIDL_roundSat / TIDL_roundSatMMA,
    which give the same for every int64.)"""
    acc = np.asarray(acc, np.int64)
    if shift > 0:
        acc = (acc + (1 << (shift - 1))) >> shift
    return np.clip(acc, low, high).astype(dtype)


def quantize_float32(x: np.ndarray, scale: float, dtype: np.dtype) -> np.ndarray:
    """Float input to codes as TIDL's DataConvert does it, all in float32: ``v = x * scale``,
    ``v + 0.5`` if ``v > 0`` else ``v - 0.5``, clipped to the type's range, truncated toward 0
    (NaN gives 0, +-inf the type's limits)."""
    info = np.iinfo(dtype)
    with np.errstate(invalid="ignore", over="ignore"):  # inf x 0, a float64 input past float32: NaN / inf
        v = np.asarray(x, np.float64).astype(np.float32) * np.float32(scale)
        v = np.where(v > 0, v + np.float32(0.5), v - np.float32(0.5))
        v = np.clip(np.nan_to_num(v, nan=0.0), info.min, info.max)
    return np.trunc(v).astype(dtype)


def dequantize_float32(codes: np.ndarray, scale: float) -> np.ndarray:
    """Codes to float as TIDL's output DataConvert does it: ``float32(q) * scale`` where
    ``scale`` is ``1 / tensorScale`` already rounded to float32 (not ``q / tensorScale``)."""
    return np.asarray(codes).astype(np.float32) * np.float32(scale)


def _windows(x: np.ndarray, kernel: tuple[int, int], stride: tuple[int, int], dilation: tuple[int, int],
             out_hw: tuple[int, int]) -> np.ndarray:
    """(F, C, kH, kW, Ho, Wo) view of every window of ``x`` (already padded)."""
    f, c = x.shape[:2]
    sf, sc, sh, sw = x.strides
    shape = (f, c, kernel[0], kernel[1], out_hw[0], out_hw[1])
    strides = (sf, sc, sh * dilation[0], sw * dilation[1], sh * stride[0], sw * stride[1])
    return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=False)


def conv2d(x: np.ndarray, weights: np.ndarray, bias: np.ndarray, *, groups: int, stride: tuple[int, int],
           dilation: tuple[int, int], pad: tuple[int, int], out_hw: tuple[int, int]) -> np.ndarray:
    """int64 accumulators (F, Cout, Ho, Wo) of a zero-padded convolution of codes ``x`` (F,
    Cin, H, W) with int8 ``weights`` (Cout, Cin / groups, kH, kW), plus ``bias`` per channel."""
    f = x.shape[0]
    cout, cin_g, kh, kw = weights.shape
    xp = np.pad(np.asarray(x, np.float64), ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    win = _windows(xp, (kh, kw), stride, dilation, out_hw)  # (F, Cin, kH, kW, Ho, Wo)
    bound = float(np.abs(x).max(initial=0)) * float(np.abs(weights.astype(np.int64)).max(initial=0)) * cin_g * kh * kw \
        + float(np.abs(bias).max(initial=0))
    exact = bound < _EXACT
    calc = np.float64 if exact else np.int64
    ho, wo = out_hw
    out = np.empty((f, cout, ho * wo), np.int64)
    cout_g = cout // groups
    if groups > 1 and cin_g == 1 and cout_g == 1:  # depthwise: one multiply-add per tap
        acc = np.zeros((f, cout, ho, wo), calc)
        w = weights.astype(calc)
        for i in range(kh):
            for j in range(kw):
                np.add(acc, win[:, :, i, j].astype(calc) * w[None, :, 0, i, j, None, None], out=acc)
        out = acc.reshape(f, cout, ho * wo).astype(np.int64)
    else:
        for g in range(groups):
            cols = win[:, g * cin_g:(g + 1) * cin_g].reshape(f, cin_g * kh * kw, ho * wo).astype(calc)
            wg = weights[g * cout_g:(g + 1) * cout_g].reshape(cout_g, cin_g * kh * kw).astype(calc)
            prod = np.matmul(wg[None], cols)
            out[:, g * cout_g:(g + 1) * cout_g] = prod if calc is np.int64 else prod.astype(np.int64)
    out += np.asarray(bias, np.int64)[None, :, None]
    return out.reshape(f, cout, ho, wo)


def max_pool(x: np.ndarray, kernel: tuple[int, int], stride: tuple[int, int]) -> np.ndarray:
    """Max over each kH x kW window (no padding; windows that do not fit are dropped)."""
    h, w = x.shape[2:]
    out_hw = ((h - kernel[0]) // stride[0] + 1, (w - kernel[1]) // stride[1] + 1)
    win = _windows(np.ascontiguousarray(x), kernel, stride, (1, 1), out_hw)
    return win.max(axis=(2, 3))


def concat(parts: list[np.ndarray], multipliers: tuple[int, ...], axis: int, shift: int, low: int, high: int,
           dtype: np.dtype) -> np.ndarray:
    """Each input's codes times its integer multiplier, joined along ``axis``, then
    :func:`round_shift_saturate`."""
    acc = np.concatenate([np.asarray(p, np.int64) * m for p, m in zip(parts, multipliers)], axis=axis)
    return round_shift_saturate(acc, shift, low, high, dtype)
