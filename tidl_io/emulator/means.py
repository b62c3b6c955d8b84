"""TIDL's per-channel means of every layer (``tempDir/<sg>_tidl_io__LayerPerChannelMean.bin``)
and the formula TI computes them with.

TI's import writes the file in its last fixed-point stats run when bias calibration is on
(``calibrationOption & 4``): one float32 per output channel of every layer except
``TIDL_DataLayer`` and ``TIDL_ConstDataLayer``, layers in net order. :func:`parse_means` maps
it onto a net's layers (a pure function of the bytes and the net); :func:`load_means` reads a
file; :func:`channel_means` is TI's formula on a layer's codes, frames combined by TI's
running update.

When the file holds more entries than the layers' channels sum to (the tensor a layer had in
the run that wrote it can differ from the final net's shapes), offsets are not trusted:
:attr:`ChannelMeans.by_offset` is False and each layer's vector is located by content
(:meth:`ChannelMeans.locate`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from ..base.check import open_regular
from ..base.errors import FormatError, PathError
from ..base.limits import check_alloc
from ..base.text import report_repr
from ..net import Layer, Network

__all__ = ["MEANS_SUFFIX", "ChannelMeans", "MeanSpan", "channel_means", "load_means", "mean_layers", "means_equal",
           "parse_means"]

MEANS_SUFFIX = "_tidl_io__LayerPerChannelMean.bin"
NO_MEANS_TYPES = ("TIDL_DataLayer", "TIDL_ConstDataLayer")  # TI writes no means for these
# a file may hold more entries than the net's layers (see the module docstring), not unboundedly more
_SLACK_FACTOR, _SLACK_BYTES = 16, 1 << 16
REL_TOL, ABS_TOL = 1e-5, 1e-6  # "equal to float32 rounding": relative, or absolute near 0


def mean_layers(net: Network) -> tuple[Layer, ...]:
    """The layers TI writes means for, in net order: every layer but the data layers."""
    return tuple(la for la in net.layers if la.type not in NO_MEANS_TYPES)


def means_equal(mine: np.ndarray, ti: np.ndarray) -> np.ndarray:
    """Per channel: ``|mine - ti| <= 1e-5 * |ti|`` or ``<= 1e-6`` (float32 rounding of TI's sums)."""
    diff = np.abs(np.asarray(mine, np.float64) - np.asarray(ti, np.float64))
    return (diff <= REL_TOL * np.abs(np.asarray(ti, np.float64))) | (diff <= ABS_TOL)


@dataclass(frozen=True)
class MeanSpan:
    """Where one layer's channel means sit in the file: entries ``start .. start + count``."""

    index: int
    name: str | None
    start: int
    count: int


@dataclass(frozen=True, eq=False)
class ChannelMeans:
    """A ``LayerPerChannelMean.bin``: ``values`` (float32, every entry, read-only) and, when the
    file is exactly the net's size, ``spans`` (layer index -> its entries; ``by_offset``).
    Else ``spans`` is empty and :meth:`locate` finds a layer's vector by content."""

    source: str
    values: np.ndarray = field(repr=False)
    layers: tuple[int, ...]  # the indices of the layers TI writes means for, net order
    channels: int  # the sum of those layers' channels
    spans: dict[int, MeanSpan] = field(repr=False)

    @property
    def by_offset(self) -> bool:
        return bool(self.spans) or not self.layers

    @property
    def note(self) -> str:
        """One line on how layers were mapped."""
        if self.by_offset:
            return f"{self.values.size} entries, the net's {len(self.layers)} layers' channels in net order"
        return (f"{self.values.size} entries, but the net's {len(self.layers)} layers have {self.channels} channels: "
                "each layer's vector located by content")

    def __repr__(self) -> str:
        return report_repr(self, self.source, entries=self.values.size, layers=len(self.layers),
                           by_offset=self.by_offset)

    def of(self, index: int) -> np.ndarray | None:
        """Layer ``index``'s channel means by offset (a view), or None (not mapped by offset)."""
        span = self.spans.get(index)
        return None if span is None else self.values[span.start:span.start + span.count]

    def locate(self, expected: np.ndarray, start: int = 0) -> int | None:
        """The first entry at or after ``start`` where ``expected`` (one layer's channel means)
        matches the most channels (:func:`means_equal`); None when no channel matches anywhere."""
        n = len(expected)
        best, where = 0, None
        for k in range(start, self.values.size - n + 1):
            hits = int(means_equal(expected, self.values[k:k + n]).sum())
            if hits > best:
                best, where = hits, k
                if hits == n:
                    break
        return where


def parse_means(data: bytes | memoryview, source: str, net: Network) -> ChannelMeans:
    """The means file's bytes mapped onto ``net``'s layers (see the module docstring).

    Raises :class:`~tidl_io.FormatError` (file, offset, the layer and channel) for a size that
    is not whole float32 entries, fewer entries than the layers need, far more than they need,
    or an entry that is not a finite number."""
    layers = mean_layers(net)
    counts = [int(la.dims6[3]) for la in layers]
    need = sum(counts)
    size = len(data)
    if size % 4:
        raise FormatError(source, f"{size} bytes is not a whole number of float32 entries (the net's {len(layers)} "
                          f"layers have {need} channels: {4 * need} bytes)", offset=size - size % 4)
    if size > _SLACK_FACTOR * 4 * need + _SLACK_BYTES:
        raise FormatError(source, f"{size} bytes: far more than the {4 * need} bytes of the net's {len(layers)} "
                          f"layers' {need} channel means (at most {_SLACK_FACTOR}x)")
    values = np.frombuffer(data, "<f4").astype(np.float32)
    values.flags.writeable = False
    spans: dict[int, MeanSpan] = {}
    start = 0
    for la, n in zip(layers, counts):
        if start + n > values.size:
            raise FormatError(source, f"{size} bytes ends inside layer {la.index} ({la.type} {la.name!r}): its "
                              f"{n} channel means start at entry {start}; expected {4 * need} bytes", offset=size,
                              field=f"layer {la.index}")
        spans[la.index] = MeanSpan(la.index, la.name, start, n)
        start += n
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        k = int(bad[0])
        owner = next((s for s in spans.values() if s.start <= k < s.start + s.count), None)
        where = f" (layer {owner.index}, channel {k - owner.start})" if owner is not None and size == 4 * need else ""
        raise FormatError(source, f"entry {k}{where} is {values[k]}: expected a finite mean", offset=4 * k)
    if values.size != need:
        spans = {}
    return ChannelMeans(source, values, tuple(la.index for la in layers), need, spans)


def load_means(path: str | os.PathLike[str], net: Network) -> ChannelMeans:
    """:func:`parse_means` of the file at ``path``, read up to the bound it allows."""
    path = os.fspath(path)
    layers = mean_layers(net)
    expected = 4 * sum(int(la.dims6[3]) for la in layers)  # one float32 per channel of each layer
    cap = _SLACK_FACTOR * expected + _SLACK_BYTES
    check_alloc(cap + 1, f"the means file {path}", func="load_means")
    with open_regular(path, "TIDL's per-channel means (*_tidl_io__LayerPerChannelMean.bin)") as fh:
        try:
            size = os.fstat(fh.fileno()).st_size
            if size > cap:  # refused from its size: never read, never a message about the part read
                raise FormatError(path, f"{size} bytes; the net's {len(layers)} layers' means are {expected} bytes "
                                        f"(at most {cap} are read): not this net's")
            data = fh.read(cap + 1)
        except OSError as exc:
            raise PathError(path, f"cannot read: {exc.strerror or exc}", exc.errno) from None
    return parse_means(data, path, net)


def channel_means(codes: np.ndarray, scale: float, zero_point: int = 0) -> np.ndarray:
    """TI's per-channel means of one layer over frames (``TIDL_TensorPerChannelMeanStats``):
    per frame and channel the codes summed as float32 over H x W, divided by W x H, then
    ``(mean - zeroPoint) / tensorScale`` (a float32 layer: its values as they are); frames
    combined by the running update ``m = m (1 - 1/(n+1)) + cur / (n+1)``. ``codes``: (frames,
    C, H, W); returns float32 (C,)."""
    frames, c = codes.shape[:2]
    hw = np.float32(int(np.prod(codes.shape[2:])) or 1)
    m = np.zeros(c, np.float32)
    for n in range(frames):
        cur = codes[n].reshape(c, -1).astype(np.float32).sum(axis=1, dtype=np.float32) / hw
        if codes.dtype != np.float32:
            cur = (cur - np.float32(zero_point)) / np.float32(scale)
        m = m * np.float32(1 - 1 / (n + 1)) + cur * np.float32(1 / (n + 1))
    return m.astype(np.float32)
