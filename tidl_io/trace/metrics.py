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

Values are float32 (other dtypes are converted block by block); each block of 64 K elements,
small enough to stay in the CPU cache, is summed in float32 and the block sums in float64.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["Accumulator", "Metrics", "channel_snr_db", "compare_arrays", "cosine", "max_abs", "mean_abs",
           "saturated", "snr_db", "worst_channel"]

_BLOCK = 1 << 16  # elements per block: three float32 blocks stay in a 1 MB cache


def _snr(signal: float, noise: float) -> float:
    """10 log10(signal / noise) with the conventions above (the one SNR formula)."""
    if noise == 0:
        return math.nan if math.isnan(signal) else math.inf
    if signal == 0:
        return -math.inf
    return 10.0 * math.log10(signal / noise)


def _cosine(error: float, ref_energy: float, test_energy: float) -> float:
    """sum ref*test / sqrt(sum ref^2 * sum test^2), from the error energy: with
    sum ref*test = (sum ref^2 + sum test^2 - sum (ref - test)^2) / 2 it is
    1 - (error - (|ref| - |test|)^2) / (2 |ref| |test|), exact near 1 where the cross
    product's own sum would lose the digits that matter."""
    if ref_energy == 0 and test_energy == 0:
        return 1.0
    if ref_energy == 0 or test_energy == 0:
        return 0.0
    a, b = math.sqrt(ref_energy), math.sqrt(test_energy)
    return max(-1.0, min(1.0, 1.0 - (error - (a - b) ** 2) / (2.0 * a * b)))


def _worst(snrs: tuple[float, ...]) -> int | None:
    if not snrs:
        return None
    for i, s in enumerate(snrs):
        if math.isnan(s):
            return i
    return min(range(len(snrs)), key=snrs.__getitem__)


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
        self._sums = [[0.0, 0.0, 0.0] for _ in range(channels)]  # error, ref and test energies
        self._abs = 0.0
        self._max = 0.0
        self._nan = False
        self._count = 0
        self._codes = 0
        self._at_limit = 0
        self._buf = [np.empty(_BLOCK, np.float32) for _ in range(3)]

    def add(self, ref: np.ndarray, test: np.ndarray, axis: int = 1) -> None:
        """Add a block: ``ref`` and ``test`` of one shape, channels on ``axis``."""
        if ref.shape != test.shape:
            raise ValueError(f"ref has shape {ref.shape}, test {test.shape}: they must be equal")
        if ref.ndim == 0 or ref.shape[axis] != self.channels:
            raise ValueError(f"expected {self.channels} channels on axis {axis}, found shape {ref.shape}")
        r = np.moveaxis(ref, axis, 0).reshape(self.channels, -1, order="C") if ref.ndim > 1 else ref[:, None]
        t = np.moveaxis(test, axis, 0).reshape(self.channels, -1, order="C") if test.ndim > 1 else test[:, None]
        ra, ta, d = self._buf
        n = r.shape[1]
        for c in range(self.channels):
            rc, tc = r[c], t[c]
            for start in range(0, n, _BLOCK):
                k = min(_BLOCK, n - start)
                a, b, e = rc[start:start + k], tc[start:start + k], d[:k]
                if a.dtype != np.float32 or not a.flags.c_contiguous:
                    a = ra[:k]
                    np.copyto(a, rc[start:start + k], casting="unsafe")
                if b.dtype != np.float32 or not b.flags.c_contiguous:
                    b = ta[:k]
                    np.copyto(b, tc[start:start + k], casting="unsafe")
                np.subtract(a, b, out=e)
                sums = self._sums[c]
                sums[0] += float(np.dot(e, e))
                sums[1] += float(np.dot(a, a))
                sums[2] += float(np.dot(b, b))
                np.abs(e, out=e)
                self._abs += float(e.sum())
                m = float(e.max())
                if math.isnan(m):
                    self._nan = True
                elif m > self._max:
                    self._max = m
        self._count += r.size

    def add_codes(self, codes: np.ndarray) -> None:
        """Count the codes at the element type's limit (see :func:`saturated`)."""
        self._codes += codes.size
        self._at_limit += _at_limit(codes)

    def result(self) -> Metrics:
        err, sig, tt = (math.fsum(s[i] for s in self._sums) for i in range(3))
        snrs = tuple(_snr(s[1], s[0]) for s in self._sums)
        worst = _worst(snrs)
        nan = math.nan
        return Metrics(
            max_abs=nan if self._nan else self._max,
            mean_abs=self._abs / self._count if self._count else nan,
            snr_db=_snr(sig, err),
            cosine=_cosine(err, sig, tt),
            channel_snr_db=snrs,
            worst_channel=worst,
            worst_channel_snr_db=None if worst is None else snrs[worst],
            saturated=self._at_limit / self._codes if self._codes else None,
            count=self._count,
        )


def _at_limit(codes: np.ndarray) -> int:
    info = np.iinfo(codes.dtype)
    count = int(np.count_nonzero(codes == info.max))
    if info.min < 0:
        count += int(np.count_nonzero(codes == info.min))
    return count


def compare_arrays(ref: np.ndarray, test: np.ndarray, axis: int = 1, codes: np.ndarray | None = None) -> Metrics:
    """Every metric of ``test`` against ``ref`` in one pass (``codes``: the test's codes, for
    ``saturated``)."""
    acc = Accumulator(ref.shape[axis] if ref.ndim > 1 else ref.shape[0])
    acc.add(np.asarray(ref), np.asarray(test), axis)
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
