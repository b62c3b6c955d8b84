"""Buffer geometry: where a tensor's valid elements sit in its flat buffer.

:class:`BufferGeometry` is the one place the pad / pitch / offset arithmetic lives. It
knows nothing about files: a descriptor's :class:`~tidl_io.Tensor` builds one
(``tensor.geometry``), and so do net layers and padded traces. All offsets and strides
are in elements of ``itemsize`` bytes, relative to the buffer's first element.

>>> g = BufferGeometry.planar((1, 3, 2, 4), pad_l=1, pad_t=1, pad_r=1, pad_b=1)
>>> g.shape, g.strides, g.first_offset
((1, 1, 1, 3, 2, 4), (72, 72, 72, 24, 6, 1), 7)
>>> g.required_size
65
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.errors import BufferMismatchError, GeometryError

__all__ = ["BufferGeometry", "padded_plane"]

Shape6 = tuple[int, int, int, int, int, int]


@dataclass(frozen=True)
class BufferGeometry:
    """The valid region of a flat buffer as a 6-D (N, DIM1, DIM2, C, H, W) strided grid.

    Element ``(n, d1, d2, c, h, w)`` sits at index ``first_offset + n*strides[0] + ... +
    w*strides[5]``. ``buffer_size`` is the whole buffer in elements when known (pads and
    spare planes included); ``pads`` (left, top, right, bottom) is kept for reporting.
    Frozen and hashable: derived values are computed once per object.
    """

    shape: Shape6
    strides: Shape6
    first_offset: int
    itemsize: int
    buffer_size: int | None = None
    pads: tuple[int, int, int, int] = (0, 0, 0, 0)

    @classmethod
    def planar(cls, shape: Sequence[int], *, pad_l: int = 0, pad_t: int = 0, pad_r: int = 0, pad_b: int = 0,
               line_pitch: int | None = None, channel_pitch: int | None = None, pad_ch: int = 0,
               nhwc: bool = False, itemsize: int = 1, buffer_size: int | None = None) -> BufferGeometry:
        """TIDL's planar layout of a ``shape`` (N, DIM1, DIM2, C, H, W) or (N, C, H, W) tensor.

        NCHW: each channel is a plane of ``H + pad_t + pad_b`` lines of ``line_pitch`` =
        ``W + pad_l + pad_r`` elements, planes ``channel_pitch`` apart (default: one plane).
        NHWC interleaves the channels: channel step 1, pixel step C, ``line_pitch`` =
        ``(W + pad_l + pad_r) * C``; its ``channel_pitch`` default is the per-channel plane
        ``(W + pad_l + pad_r) * (H + pad_t + pad_b)``, so a DIM2 step spans the C planes.
        One DIM2 step is ``channel_pitch * (C + pad_ch)``, one DIM1 step DIM2 of those, one
        batch DIM1 of those. The first valid element is ``pad_t * line_pitch + pad_l`` (times
        C for NHWC). Explicit pitches are used as given (never recomputed); the caller
        derives ``pad_r``/``pad_b`` from them if it needs them reported.
        """
        dims = tuple(int(d) for d in shape)
        if len(dims) == 4:
            dims = (dims[0], 1, 1, dims[1], dims[2], dims[3])
        if len(dims) != 6:
            raise GeometryError(f"planar geometry: shape must be (N, C, H, W) or (N, DIM1, DIM2, C, H, W), "
                                f"found {tuple(shape)}")
        _, d1, d2, c, h, w = dims
        padded_w = w + pad_l + pad_r
        if line_pitch is None:
            line_pitch = padded_w * c if nhwc else padded_w
        if channel_pitch is None:
            channel_pitch = padded_plane(w, h, (pad_l, pad_t, pad_r, pad_b))
        dim2_step = channel_pitch * (c + pad_ch)
        dim1_step = dim2_step * d2
        batch_step = dim1_step * d1
        c_step, w_step = (1, c) if nhwc else (channel_pitch, 1)
        first = pad_t * line_pitch + (pad_l * c if nhwc else pad_l)
        return cls(dims, (batch_step, dim1_step, dim2_step, c_step, line_pitch, w_step),
                   first, itemsize, buffer_size, (pad_l, pad_t, pad_r, pad_b))

    # ---- sizes ------------------------------------------------------------------------
    @property
    def padded_plane(self) -> int:
        """Elements of one padded channel plane, ``(W + pad_l + pad_r) * (H + pad_t + pad_b)``
        (from :attr:`pads`; the default channel pitch of :meth:`planar`)."""
        return padded_plane(self.shape[5], self.shape[4], self.pads)

    @functools.cached_property
    def size(self) -> int:
        """Number of valid elements: the product of :attr:`shape`."""
        return math.prod(self.shape)

    @functools.cached_property
    def last_offset(self) -> int:
        """Index of the last valid element (``first_offset - 1`` when empty)."""
        if min(self.shape) <= 0:
            return self.first_offset - 1
        return self.first_offset + sum((d - 1) * s for d, s in zip(self.shape, self.strides))

    @property
    def required_size(self) -> int:
        """Smallest buffer, in elements, that holds every valid element: ``last_offset + 1``."""
        return self.last_offset + 1

    @property
    def padded_size(self) -> int:
        """Elements of the whole buffer: :attr:`buffer_size` when known, else :attr:`required_size`."""
        return self.buffer_size if self.buffer_size is not None else self.required_size

    @property
    def nbytes(self) -> int:
        """Bytes of the whole buffer: ``padded_size * itemsize``."""
        return self.padded_size * self.itemsize

    @functools.cached_property
    def used_strides(self) -> Shape6:
        """:attr:`strides` with 0 for size-1 axes: a size-1 axis's pitch is never used (and
        can be absurd, e.g. a stored pad near 2**31), so views stay within NumPy's range."""
        return tuple(s if d > 1 else 0 for s, d in zip(self.strides, self.shape))  # type: ignore[return-value]

    # ---- layout of the valid region ---------------------------------------------------
    @functools.cached_property
    def _axes(self) -> tuple[tuple[int, int, int], ...]:
        """(stride, size, axis) of the axes larger than 1, finest stride first."""
        return tuple(sorted((s, d, i) for i, (s, d) in enumerate(zip(self.strides, self.shape)) if d > 1))

    def overlap(self) -> tuple[int, int, int] | None:
        """Whether two valid elements can share an address: ``(axis, stride, span)`` of the first
        axis (finest first) whose step is not beyond the ``span`` elements its finer axes cover,
        else None. Each step beyond the finer span is sufficient, and exact for TIDL's strides."""
        span = 0
        for stride, dim, axis in self._axes:
            if stride <= span:
                return axis, stride, span + 1
            span += stride * (dim - 1)
        return None

    def gaps(self, span: int | None = None) -> tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...]:
        """The padding: the elements of ``[0, span)`` (default :attr:`padded_size`) outside the
        valid region, as strided blocks ``(start, shape, strides)`` in elements, each in
        ascending address order; for a geometry without :meth:`overlap`.

        With the axes larger than 1 sorted by stride, the block of the finer axes spans
        ``ext`` elements; between consecutive steps of the next axis lie ``stride - ext`` pad
        elements, repeated over every index of the coarser axes. Plus the head before the
        first valid element and the tail after the last.
        """
        span = self.padded_size if span is None else span
        axes = [(s, d) for s, d, _ in self._axes]
        first = self.first_offset
        gaps: list[tuple[int, tuple[int, ...], tuple[int, ...]]] = []
        if first > 0:
            gaps.append((0, (first,), (1,)))
        ext = 1
        for k, (stride, dim) in enumerate(axes):
            gap = stride - ext
            if gap > 0:
                coarser = axes[:k:-1]
                gaps.append((first + ext, tuple(d for _, d in coarser) + (dim - 1, gap),
                             tuple(s for s, _ in coarser) + (stride, 1)))
            ext += (dim - 1) * stride
        end = first + ext
        if end < span:
            gaps.append((end, (span - end,), (1,)))
        return tuple(gaps)

    # ---- memory -----------------------------------------------------------------------
    def is_dense(self) -> bool:
        """True when the valid elements fill exactly the first :attr:`size` elements, each
        once, with no padding between them: C-contiguous in the layout's own axis order
        ((N, C, H, W) for planar NCHW, (N, H, W, C) for NHWC)."""
        if self.first_offset != 0:
            return False
        expected = 1
        for s, d in sorted((s, d) for s, d in zip(self.used_strides, self.shape) if d > 1):
            if s != expected:
                return False
            expected *= d
        return True

    def view(self, buf: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """The valid elements of the flat buffer ``buf`` as a 6-D strided VIEW (no copy).

        ``buf`` is a 1-D array of ``itemsize``-byte elements holding at least
        :attr:`required_size` of them; the view is writable when ``buf`` is. Anything else
        raises :class:`~tidl_io.BufferMismatchError`; a geometry with negative strides or
        offset raises :class:`~tidl_io.GeometryError`.
        """
        if not isinstance(buf, np.ndarray) or buf.ndim != 1:
            found = f"shape {buf.shape}" if isinstance(buf, np.ndarray) else type(buf).__name__
            raise BufferMismatchError(f"geometry view: expected a flat 1-D array, found {found}")
        if buf.dtype.itemsize != self.itemsize:
            raise BufferMismatchError(f"geometry view: buffer elements are {buf.dtype.itemsize} bytes "
                                      f"({buf.dtype}), the geometry's are {self.itemsize}")
        if self.first_offset < 0 or min(self.used_strides) < 0:
            raise GeometryError(f"geometry view: negative offset or stride (first {self.first_offset}, "
                                f"strides {self.strides})")
        if buf.size < self.required_size:
            raise BufferMismatchError(f"geometry view: buffer holds {buf.size} elements; the last valid "
                                      f"element is at index {self.required_size - 1}")
        step = buf.strides[0] if buf.size > 1 else buf.dtype.itemsize
        if self.size == 0:
            return np.lib.stride_tricks.as_strided(buf[:0], self.shape, (0,) * 6, writeable=buf.flags.writeable)
        return np.lib.stride_tricks.as_strided(buf[self.first_offset:], self.shape,
                                               tuple(s * step for s in self.used_strides),
                                               writeable=buf.flags.writeable)


def padded_plane(w: int, h: int, pads: tuple[int, int, int, int]) -> int:
    """Elements of one padded plane of W x H with ``pads`` (left, top, right, bottom)."""
    pad_l, pad_t, pad_r, pad_b = pads
    return (w + pad_l + pad_r) * (h + pad_t + pad_b)
