"""How far a TIDL tensor is from its reference: pure functions on arrays, and a streaming
accumulator that gives the same numbers from blocks (frames, layers read one at a time).

Every metric compares ``test`` (what TIDL produced) with ``ref`` (the float golden or a
second trace set), both real values of one shape with channels on ``axis`` (1 for NCHW):

- ``max_abs`` = max |ref - test|, ``mean_abs`` = mean |ref - test|;
- ``snr_db`` = 10 log10(sum ref^2 / sum (ref - test)^2): +inf when they are equal, -inf when
  ref is all zeros and test is not;
- ``cosine`` = sum ref*test / sqrt(sum ref^2 * sum test^2): 1 when both are all zeros, 0
  when only one is;
- ``channel_snr_db`` the SNR of each channel, ``worst_channel`` the channel with the lowest
  (a NaN counts as lowest), ``worst_channel_snr_db`` its value: one channel can be
  destroyed while the layer's SNR looks fine;
- ``saturated`` (codes only) = fraction of codes at the element type's maximum, or at its
  minimum for signed types.

Values are float32 (other dtypes are converted block by block; codes are dequantized as
:func:`tidl_io.data.quant.dequantize_codes` does); differences, products and sums are float64. The
native kernel (``tidl_io.native.compare_sums``: one pass, 8-bit/16-bit codes or float32 on
either side) is used when loaded; the NumPy code, a cache-sized block at a time, is the
reference and the fallback. Max, counts and saturation agree exactly; the sums differ only
in the order of the float64 additions: each within n * 2**-52 of the sum of its |terms| for n
terms (tests/test_trace_metrics.py checks both paths against ``math.fsum``).

The integer route: when both sides are 8-bit codes of one dtype with one scale (as float32) and
one zero point within the dtype's range (the same layer of two runs of a net: ``compare --ref``),
every sum is an integer sum over the centred codes x = q - zero_point divided once by scale**2
(by scale for sum |ref - test| and max |ref - test|). Those integer sums are exact in int64 (each
term is at most 255**2, so they are exact for up to (2**63 - 1) // 255**2 ~ 1.4e14 elements per
channel; beyond that the sums so far are turned into float64 and a new integer run starts). The
metrics are then those of the EXACT real values (q - zero_point) / scale, not of their float32
roundings that dequantize_codes gives: the same for a power-of-two scale, within a float32
rounding per term (relative ~2**-24) otherwise. Each layer total is the exact integer total,
rounded once to float64 and divided once (within 2**-51 relative of the exact real sum). The
native kernel (``_native.compare_codes``) and the NumPy route (int64 einsum) give identical sums.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import native as _native
from ..data.quant import dequantize_codes

__all__ = ["Accumulator", "Metrics", "Quantized", "channel_snr_db", "compare_arrays", "cosine", "max_abs", "mean_abs",
           "saturated", "snr_db", "worst_channel"]

_BLOCK = 1 << 16  # elements per block: three float32 blocks stay in a 1 MB cache
_INT_TERM = 255 ** 2  # the largest |term| of an integer sum over 8-bit centred codes
_INT_LIMIT = (2 ** 63 - 1) // _INT_TERM  # elements per channel whose integer sums are exact in int64
_S = _native.SUMS_PER_CHANNEL  # the comparison sums' block: _S rows of channels, then the limit count
_ERR2, _REF2, _TEST2, _CROSS, _ABS, _MAX = (_native.SUMS.index(k) for k in _native.SUMS)


def _integer_route(r3: Source, t3: Source) -> tuple[np.ndarray, np.ndarray, float, int] | None:
    """(ref codes, test codes, float32 scale, zero point) when the integer route applies, else None."""
    if not (isinstance(r3, Quantized) and isinstance(t3, Quantized)):
        return None
    a, b = r3.codes, t3.codes
    if a.dtype != b.dtype or a.dtype not in (np.dtype(np.uint8), np.dtype(np.int8)):
        return None
    scale = float(np.float32(r3.scale))
    if scale != float(np.float32(t3.scale)) or not 0 < scale < math.inf or r3.zero_point != t3.zero_point:
        return None
    info = np.iinfo(a.dtype)
    zp = int(r3.zero_point)
    if not info.min <= zp <= info.max:
        return None
    return a, b, scale, zp


def _integer_sums(x: np.ndarray, y: np.ndarray, zp: int) -> np.ndarray:
    """The NumPy integer route: ``_native.compare_codes``'s sums of (p, c, n) codes x, y as one
    (1, _native.sums_block(c)) int64 block (exact: int64 einsum over int64 centred codes)."""
    p, c, n = x.shape
    out = np.zeros((1, _native.sums_block(c)), np.int64)
    sums = out[0, :_S * c].reshape(_S, c)
    rows = max(1, _BLOCK // max(c * n, 1))
    width = max(1, _BLOCK // c)
    for i in range(0, p, rows):
        for start in range(0, n, width):
            a = x[i:i + rows, :, start:start + width].astype(np.int64) - zp
            b = y[i:i + rows, :, start:start + width].astype(np.int64) - zp
            d = a - b
            for k, (u, v) in zip((_ERR2, _REF2, _TEST2, _CROSS), ((d, d), (a, a), (b, b), (a, b))):
                sums[k] += np.einsum("ijk,ijk->j", u, v)
            e = np.abs(d)
            sums[_ABS] += e.sum(axis=(0, 2))
            np.maximum(sums[_MAX], e.max(axis=(0, 2)), out=sums[_MAX])
    out[0, _S * c] = _at_limit(y)
    return out


def _snr(signal: float, noise: float) -> float:
    """10 log10(signal / noise) with the conventions above (the one SNR formula)."""
    if noise == 0:
        return math.nan if math.isnan(signal) else math.inf
    ratio = signal / noise
    if ratio == 0:  # no signal, or an infinite error
        return -math.inf
    if math.isnan(ratio) or math.isinf(ratio):  # NaN sums, inf / inf; inf / finite
        return ratio
    return 10.0 * math.log10(ratio)


def _cosine(error: float, ref_energy: float, test_energy: float, cross: float) -> float:
    """sum ref*test / sqrt(sum ref^2 * sum test^2). Near 1, from the error energy instead
    of the cross sum: with sum ref*test = (sum ref^2 + sum test^2 - sum (ref - test)^2) / 2 it
    is 1 - (error - (|ref| - |test|)^2) / (2 |ref| |test|), which keeps the digits of 1 - cos
    that a rounded cross sum loses (used when the error is small against |ref| |test|). NaN when
    a sum is not finite (a NaN or an infinity in either side: no angle to speak of)."""
    if not all(math.isfinite(v) for v in (error, ref_energy, test_energy, cross)):
        return math.nan
    if ref_energy == 0 and test_energy == 0:
        return 1.0
    if ref_energy == 0 or test_energy == 0:
        return 0.0
    a, b = math.sqrt(ref_energy), math.sqrt(test_energy)
    direct = cross / (a * b)
    if direct < 0.5 or error > a * b:  # not near 1, or norms far apart: the cross sum is the better one
        return max(-1.0, min(1.0, direct))
    return max(-1.0, min(1.0, 1.0 - (error - (a - b) ** 2) / (2.0 * a * b)))


def _worst(snrs: tuple[float, ...]) -> int | None:
    if not snrs:
        return None
    for i, s in enumerate(snrs):
        if math.isnan(s):
            return i
    return min(range(len(snrs)), key=snrs.__getitem__)


@dataclass(frozen=True)
class Quantized:
    """Codes and their quantization, standing for the real values ``(codes - zero_point) /
    scale`` (:func:`tidl_io.data.quant.dequantize_codes`) without making them all at once."""

    codes: np.ndarray
    scale: float
    zero_point: int = 0

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.codes.shape)

    def reshape(self, shape: tuple[int, ...]) -> Quantized:
        return Quantized(self.codes.reshape(shape), self.scale, self.zero_point)

    def dequantize(self) -> np.ndarray:
        return dequantize_codes(self.codes, self.scale, self.zero_point)


Source = np.ndarray | Quantized


def _shape(x: Source) -> tuple[int, ...]:
    return tuple(x.shape)


def _as3(x: Source, shape3: tuple[int, int, int]) -> Source:
    """``x`` as (before, channels, after): a view when its memory allows, else a copy."""
    if isinstance(x, Quantized):
        return x.reshape(shape3)
    return np.asarray(x).reshape(shape3)


def _fetch(x: Source, idx: tuple[Any, ...], buf: np.ndarray) -> np.ndarray:
    """Block ``idx`` of ``x`` as float32: a view of float32 data, else converted into ``buf``."""
    if isinstance(x, Quantized):
        return dequantize_codes(x.codes[idx], x.scale, x.zero_point, out=buf)
    block = x[idx]
    if block.dtype == np.float32 and block.flags.c_contiguous:
        return block
    np.copyto(buf, block, casting="unsafe")
    return buf


@dataclass(frozen=True)
class Metrics:
    """The metrics of one comparison (see the module text); ``count`` = elements compared."""

    max_abs: float
    mean_abs: float
    snr_db: float
    cosine: float
    channel_snr_db: tuple[float, ...]
    worst_channel: int | None
    worst_channel_snr_db: float | None
    saturated: float | None
    count: int
    channel_ref_energy: tuple[float, ...] = ()  # sum ref^2 of each channel (for which channels count)
    channel_max_abs: tuple[float, ...] = ()  # max |ref - test| of each channel (NaN differences skipped)

    def below(self, min_snr_db: float) -> bool:
        """Whether the layer's SNR or its worst channel's is under ``min_snr_db`` (NaN is)."""
        worst = self.worst_channel_snr_db
        return not (self.snr_db >= min_snr_db) or (worst is not None and not (worst >= min_snr_db))


class Accumulator:
    """Sums for :class:`Metrics` fed block by block: ``add(ref, test)`` with arrays whose
    ``axis`` holds the ``channels`` channels (e.g. one NCHW frame at a time), ``add_codes``
    for the saturation count, then ``result()``. Nothing is kept but the sums."""

    def __init__(self, channels: int) -> None:
        self.channels = channels
        self._sums = np.zeros((_ABS, channels))  # per channel: err2, ref2, test2, cross (float64; SUMS' order)
        self._abs = 0.0
        self._max = 0.0
        self._chmax = np.zeros(channels)  # max |ref - test| per channel (NaN differences skipped)
        self._nan = False
        self._count = 0
        self._codes = 0
        self._at_limit = 0
        self._buf: list[np.ndarray] = []
        self._int = np.zeros((_S, channels), np.int64)  # the integer route's sums (see the module text)
        self._int_scale = 0.0  # their float32 scale (0: none yet)
        self._int_rows = 0  # elements per channel in them

    def add(self, ref: Source, test: Source, axis: int = 1, saturation: bool = False) -> None:
        """Add a block: ``ref`` and ``test`` of one shape, channels on ``axis``; either may be
        :class:`Quantized` codes, dequantized here a cache-sized block at a time. ``saturation``:
        also count the test's codes at their limit (as :meth:`add_codes` of them does)."""
        shape = _shape(ref)
        if shape != _shape(test):
            raise ValueError(f"ref has shape {shape}, test {_shape(test)}: they must be equal")
        if not shape or shape[axis] != self.channels:
            raise ValueError(f"expected {self.channels} channels on axis {axis}, found shape {shape}")
        axis %= len(shape)
        p, c, n = math.prod(shape[:axis]), self.channels, math.prod(shape[axis + 1:])
        r3, t3 = _as3(ref, (p, c, n)), _as3(test, (p, c, n))
        self._count += math.prod(shape)
        if not math.prod(shape):  # nothing to add (and no empty max to take)
            return
        codes = t3.codes if saturation and isinstance(t3, Quantized) and t3.codes.dtype.kind in "iu" else None
        if self._add_integer(r3, t3, codes is not None, p * n):
            return
        if self._add_native(r3, t3, codes is not None):
            return
        if codes is not None:
            self.add_codes(codes)
        if not self._buf:  # two float32 blocks (dequantized or converted), three float64
            self._buf = [np.empty(_BLOCK, np.float32) for _ in range(2)] + [np.empty(_BLOCK) for _ in range(3)]
        if n >= _BLOCK // 4:  # long channel rows: one channel at a time
            for i in range(p):
                for ch in range(c):
                    for start in range(0, n, _BLOCK):
                        k = min(_BLOCK, n - start)
                        idx = (i, ch, slice(start, start + k))
                        self._block(r3, t3, idx, k, (k,), ch)
        elif c * n > _BLOCK:  # many channels of short rows: a slice of channels at a time
            width = max(1, _BLOCK // max(n, 1))
            for i in range(p):
                for c0 in range(0, c, width):
                    k = min(width, c - c0)
                    self._block(r3, t3, (slice(i, i + 1), slice(c0, c0 + k)), k * n, (1, k, n), slice(c0, c0 + k))
        else:  # short rows (channels last, or small planes): whole rows of every channel
            rows = max(1, _BLOCK // (c * max(n, 1)))
            for start in range(0, p, rows):
                k = min(rows, p - start)
                self._block(r3, t3, (slice(start, start + k),), k * c * n, (k, c, n), slice(None))

    def _add_integer(self, r3: Source, t3: Source, saturation: bool, rows: int) -> bool:
        """The integer route's sums (native, else NumPy); False when it does not apply."""
        route = _integer_route(r3, t3)
        if route is None or rows > _INT_LIMIT:
            return False
        x, y, scale, zp = route
        if scale != self._int_scale or self._int_rows + rows > _INT_LIMIT:
            self._flush_integer()
            self._int_scale = scale
        out = _native.compare_codes(x, y, zp)
        if out is None:
            out = _integer_sums(x, y, zp)
        c = self.channels
        blocks = out[:, :_S * c].reshape(-1, _S, c)
        self._int[:_MAX] += blocks[:, :_MAX].sum(axis=0)
        np.maximum(self._int[_MAX], blocks[:, _MAX].max(axis=0), out=self._int[_MAX])
        self._int_rows += rows
        if saturation:
            self._codes += y.size
            self._at_limit += int(out[:, _S * c].sum())
        return True

    def _integer_totals(self) -> tuple[np.ndarray, float, float, list[float]]:
        """The integer route's (per-channel [err, ref, test, cross] as float64, abs total, max, and the
        layer totals of err, ref, test, cross): each exact integer total rounded once, divided once."""
        s = self._int_scale
        if not s:
            return np.zeros((_ABS, self.channels)), 0.0, 0.0, [0.0] * _ABS
        s2 = s * s  # exact: a float32 squared fits in float64
        per = self._int[:_ABS] / s2
        totals = [float(sum(int(v) for v in self._int[k])) / s2 for k in range(_ABS)]
        return per, float(sum(int(v) for v in self._int[_ABS])) / s, float(self._int[_MAX].max()) / s, totals

    def _flush_integer(self) -> None:
        """Move the integer route's sums into the float64 ones (a new scale, or int64's limit)."""
        if not self._int_scale:
            return
        per, total, m, _ = self._integer_totals()
        self._sums += per
        self._abs += total
        self._max = max(self._max, m)
        np.fmax(self._chmax, self._int[_MAX] / self._int_scale, out=self._chmax)
        self._int[:] = 0
        self._int_scale, self._int_rows = 0.0, 0

    def _add_native(self, r3: Source, t3: Source, saturation: bool) -> bool:
        """The sums from the native kernel; False when it does not handle these arrays."""
        if _native.active() is None:
            return False
        sides = [(x.codes, (x.scale, x.zero_point)) if isinstance(x, Quantized) else (np.asarray(x), None)
                 for x in (r3, t3)]
        out = _native.compare_sums(sides[0][0], sides[0][1], sides[1][0], sides[1][1])
        if out is None:
            return False
        c = self.channels
        blocks = out[:, :_S * c].reshape(-1, _S, c)
        self._sums += blocks[:, :_ABS].sum(axis=0)
        total = float(blocks[:, _ABS].sum())
        self._abs += total
        if math.isnan(total):  # a NaN difference (the kernel's max skips it)
            self._nan = True
        m = float(blocks[:, _MAX].max())
        self._max = max(self._max, m)
        np.fmax(self._chmax, blocks[:, _MAX].max(axis=0), out=self._chmax)
        if saturation:
            self._codes += t3.codes.size if isinstance(t3, Quantized) else 0
            self._at_limit += int(out[:, _S * c].sum())
        return True

    def _block(self, r3: Source, t3: Source, idx: tuple[Any, ...], size: int, shape: tuple[int, ...],
               channel: int | slice) -> None:
        """Add block ``idx`` (``size`` elements of ``shape``): a 1-D row of channel ``channel`` (int),
        or (rows, channels, n) of the channels ``channel`` (a slice)."""
        with np.errstate(invalid="ignore", over="ignore"):  # inf - inf, and NaN, are pinned results
            self._block_sums(r3, t3, idx, size, shape, channel)

    def _block_sums(self, r3: Source, t3: Source, idx: tuple[Any, ...], size: int, shape: tuple[int, ...],
                    channel: int | slice) -> None:
        ra, ta, a64, b64, d = self._buf
        a = a64[:size].reshape(shape)
        b = b64[:size].reshape(shape)
        np.copyto(a, _fetch(r3, idx, ra[:size].reshape(shape)))
        np.copyto(b, _fetch(t3, idx, ta[:size].reshape(shape)))
        e = d[:size].reshape(shape)
        np.subtract(a, b, out=e)
        sums = self._sums
        if isinstance(channel, int):  # 1-D rows: BLAS dots
            sums[_ERR2, channel] += float(np.dot(e, e))
            sums[_REF2, channel] += float(np.dot(a, a))
            sums[_TEST2, channel] += float(np.dot(b, b))
            sums[_CROSS, channel] += float(np.dot(a, b))
        else:  # (rows, C, n): per-channel sums over rows and n
            for i, (x, y) in zip((_ERR2, _REF2, _TEST2, _CROSS), ((e, e), (a, a), (b, b), (a, b))):
                sums[i, channel] += np.einsum("ijk,ijk->j", x, y)
        np.abs(e, out=e)
        self._abs += float(e.sum())
        m = float(e.max())
        if math.isnan(m):
            self._nan = True
        elif m > self._max:
            self._max = m
        if isinstance(channel, int):
            self._chmax[channel] = np.fmax(self._chmax[channel], np.fmax.reduce(e))
        else:
            np.fmax(self._chmax[channel], np.fmax.reduce(e, axis=(0, 2)), out=self._chmax[channel])

    def add_codes(self, codes: np.ndarray) -> None:
        """Count the codes at the element type's limit (see :func:`saturated`)."""
        self._codes += codes.size
        self._at_limit += _at_limit(codes)

    def result(self) -> Metrics:
        per, total, m, totals = self._integer_totals()
        err, sig, tt, rt = (math.fsum(float(v) for v in self._sums[i]) + totals[i] for i in range(_ABS))
        sums = self._sums + per
        chmax = self._chmax if not self._int_scale else np.fmax(self._chmax, self._int[_MAX] / self._int_scale)
        snrs = tuple(_snr(float(s), float(e)) for s, e in zip(sums[_REF2], sums[_ERR2]))
        worst = _worst(snrs)
        nan = math.nan
        return Metrics(
            max_abs=nan if self._nan else max(self._max, m),
            mean_abs=(self._abs + total) / self._count if self._count else nan,
            snr_db=_snr(sig, err),
            cosine=_cosine(err, sig, tt, rt),
            channel_snr_db=snrs,
            worst_channel=worst,
            worst_channel_snr_db=None if worst is None else snrs[worst],
            saturated=self._at_limit / self._codes if self._codes else None,
            count=self._count,
            channel_ref_energy=tuple(float(v) for v in sums[_REF2]),
            channel_max_abs=tuple(float(v) for v in chmax),
        )


def _at_limit(codes: np.ndarray) -> int:
    info = np.iinfo(codes.dtype)
    count = int(np.count_nonzero(codes == info.max))
    if info.min < 0:
        count += int(np.count_nonzero(codes == info.min))
    return count


def compare_arrays(ref: Source, test: Source, axis: int = 1, codes: np.ndarray | None = None) -> Metrics:
    """Every metric of ``test`` against ``ref`` in one pass (``codes``: the test's codes, for
    ``saturated``)."""
    shape = _shape(ref)
    acc = Accumulator(shape[axis] if len(shape) > 1 else shape[0])
    acc.add(ref, test, axis if len(shape) > 1 else 0)
    if codes is not None:
        acc.add_codes(codes)
    return acc.result()


def max_abs(ref: np.ndarray, test: np.ndarray) -> float:
    return compare_arrays(ref.reshape(1, -1), test.reshape(1, -1), 0).max_abs


def mean_abs(ref: np.ndarray, test: np.ndarray) -> float:
    return compare_arrays(ref.reshape(1, -1), test.reshape(1, -1), 0).mean_abs


def snr_db(ref: np.ndarray, test: np.ndarray) -> float:
    return compare_arrays(ref.reshape(1, -1), test.reshape(1, -1), 0).snr_db


def cosine(ref: np.ndarray, test: np.ndarray) -> float:
    return compare_arrays(ref.reshape(1, -1), test.reshape(1, -1), 0).cosine


def channel_snr_db(ref: np.ndarray, test: np.ndarray, axis: int = 1) -> tuple[float, ...]:
    return compare_arrays(ref, test, axis).channel_snr_db


def worst_channel(ref: np.ndarray, test: np.ndarray, axis: int = 1) -> tuple[int | None, float | None]:
    """(channel, its SNR in dB) of the lowest per-channel SNR."""
    m = compare_arrays(ref, test, axis)
    return m.worst_channel, m.worst_channel_snr_db


def saturated(codes: np.ndarray) -> float:
    """Fraction of integer ``codes`` at their dtype's maximum (or minimum, if signed)."""
    codes = np.asarray(codes)
    if codes.dtype.kind not in "iu":
        raise TypeError(f"saturated: expected integer codes, found dtype {codes.dtype}")
    return _at_limit(codes) / codes.size if codes.size else math.nan
