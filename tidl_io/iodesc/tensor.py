"""One input or output slot of a descriptor: :class:`Tensor`, its raw TI fields and the
geometry derived from them (through :class:`~tidl_io.iodesc.geometry.BufferGeometry`), plus the
element-type and layout enums. (All importable from :mod:`tidl_io.iodesc.descriptor` too.)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from dataclasses import fields as _dc_fields
from enum import IntEnum
from typing import Any

import numpy as np

from ..base.errors import GeometryError
from .geometry import BufferGeometry, padded_plane

__all__ = ["ElementType", "Tensor", "TensorLayout"]


class ElementType(IntEnum):
    """TIDL element types (``inElementType`` / ``outElementType``), TI's names."""

    UnsignedChar = 0
    SignedChar = 1
    UnsignedShort = 2
    SignedShort = 3
    UnsignedWord = 4
    SignedWord = 5
    SinglePrecFloat = 6
    UnsignedDoubleWord = 7
    SignedDoubleWord = 8

    @property
    def dtype(self) -> np.dtype:
        return _ELEMENT_DTYPES[self]


_ELEMENT_DTYPES = tuple(np.dtype(code) for code in ("u1", "i1", "<u2", "<i2", "<u4", "<i4", "<f4", "<u8", "<i8"))
ELEMENT_BY_CODE: dict[int, ElementType] = {int(e): e for e in ElementType}


class TensorLayout(IntEnum):
    """``inLayout`` / ``outLayout``."""

    NCHW = 0
    NHWC = 1


_LAYOUT_NAMES: dict[int, str] = {int(v): v.name for v in TensorLayout}


def _decode_name(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("utf-8", errors="replace")


@dataclass(frozen=True)
class Tensor:
    """One input or output slot of a descriptor: raw TI fields and derived geometry.

    Attributes are TI's fields under neutral names (``width`` is ``inWidth`` or
    ``outWidth``); :attr:`raw` gives them back under TI's C names. Geometry is in
    elements relative to the buffer base; ``*_nbytes`` properties are in bytes.
    Fields a layout does not have are ``None`` (``buf_size`` before 10.x,
    ``num_valid_dims`` before 9.1, the input-only fields on outputs); DIM1/DIM2 are 1
    where the layout has no such field.
    """

    kind: str  # "input" or "output"
    index: int
    name_bytes: bytes
    width: int
    height: int
    num_channels: int
    channel_pitch: int
    num_batches: int
    pad_l: int
    pad_t: int
    pad_r: int
    pad_b: int
    pad_ch: int
    element_type: int
    zero_point: int
    layout_code: int
    data_id: int
    scale: float
    dim1: int = 1
    dim2: int = 1
    buf_size: int | None = None
    num_valid_dims: int | None = None
    data_format: int | None = None
    resize_type: int | None = None
    resize_width: int | None = None
    resize_height: int | None = None
    raw_element_type: int | None = None
    # TI member name -> attribute, for the layout this tensor came from (see ``raw``).
    ti_names: tuple[tuple[str, str], ...] = field(default=(), repr=False, compare=False)

    # ---- identity -------------------------------------------------------------------
    def __hash__(self) -> int:
        # What the dataclass would compute (the compared fields), once per object: ~30 fields
        # cost ~1.7 us to hash and pack/unpack look a tensor up in two caches per call.
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash(tuple(getattr(self, name) for name in _TENSOR_KEY))
            object.__setattr__(self, "_hash", h)
        return h

    def __getstate__(self) -> dict[str, Any]:
        # never pickle the cached hash: str hashes differ from one process to the next
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    @functools.cached_property
    def name(self) -> str:
        """The tensor name: the bytes before the first NUL, decoded as UTF-8 (lenient)."""
        return _decode_name(self.name_bytes)

    @property
    def raw(self) -> dict[str, Any]:
        """Every TI field of this slot under its TI C name (names decoded to str)."""
        out: dict[str, Any] = {}
        for ti_name, attr in self.ti_names:
            value = getattr(self, attr)
            out[ti_name] = self.name if attr == "name_bytes" else value
        return out

    # ---- element type, layout and quantization --------------------------------------
    @property
    def element(self) -> ElementType | None:
        """The element type as :class:`ElementType`, or None if the code is unknown."""
        return ELEMENT_BY_CODE.get(self.element_type)

    @property
    def dtype(self) -> np.dtype:
        """The numpy dtype of the buffer elements (raises GeometryError if unknown)."""
        element = self.element
        if element is None:
            raise GeometryError(
                f"{self.label}: {self._ti('ElementType')} = {self.element_type} is not a known "
                f"TIDL element type (0..8)"
            )
        return element.dtype

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def layout(self) -> str:
        """``"NCHW"``, ``"NHWC"``, or ``"layout<code>"`` for an unknown code."""
        name = _LAYOUT_NAMES.get(self.layout_code)
        return name if name is not None else f"layout{self.layout_code}"

    @property
    def is_float(self) -> bool:
        return self.element is ElementType.SinglePrecFloat

    @property
    def quant_step(self) -> float:
        """TFLite/ONNX-style scale, ``1 / scale``: ``real = (q - zero_point) * quant_step``.

        TIDL's own :attr:`scale` is the inverse, a multiplier: ``q = real * scale``.
        """
        return 1.0 / self.scale if self.scale else float("inf")

    # ---- logical shape --------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, int, int, int, int, int]:
        """Logical 6-D shape (N, DIM1, DIM2, C, H, W)."""
        return (self.num_batches, self.dim1, self.dim2, self.num_channels, self.height, self.width)

    @property
    def squeezed_axes(self) -> tuple[int, ...]:
        """Which of the 6 axes (N, DIM1, DIM2, C, H, W) the squeezed shape keeps.

        Where the tensor has ``numValidTensorDims`` (outputs of 9.1+, value 1..6): the last
        that-many axes, extended to the left so that no axis larger than 1 is dropped
        (TIDL's count and a batch above 1 can disagree). Otherwise (N, C, H, W), or all
        six axes when DIM1 or DIM2 is above 1.
        """
        shape = self.shape
        n = self.num_valid_dims
        if n is not None and 1 <= n <= 6:
            first = next((i for i in range(6 - n) if shape[i] != 1), 6 - n)
            return tuple(range(first, 6))
        if shape[1] != 1 or shape[2] != 1:
            return (0, 1, 2, 3, 4, 5)
        return (0, 3, 4, 5)

    @property
    def squeezed_shape(self) -> tuple[int, ...]:
        """The logical shape users see (ONNX-style rank): :attr:`shape` at :attr:`squeezed_axes`."""
        shape = self.shape
        return tuple(shape[i] for i in self.squeezed_axes)

    @property
    def size(self) -> int:
        """Number of valid elements, N·DIM1·DIM2·C·H·W."""
        return self._planar.size

    # ---- physical geometry (elements) -----------------------------------------------
    @functools.cached_property
    def geometry(self) -> BufferGeometry:
        """This tensor's :class:`~tidl_io.iodesc.geometry.BufferGeometry` (TIDL's planar layout with
        the stored channel pitch; ``buffer_size`` is :attr:`alloc_size`). Raises
        :class:`GeometryError` for an unknown element type (no element size)."""
        self.dtype  # noqa: B018 - raises for an unknown element type
        return self._planar

    @functools.cached_property
    def _planar(self) -> BufferGeometry:
        """The planar geometry; element size 1 when the element type is unknown (the element
        offsets and strides below do not need it)."""
        element = self.element
        # Inputs have no channel padding in TIDL's geometry (spec §4): ``inPadCh`` is ignored
        # here, and validate() warns when set.
        geometry = BufferGeometry.planar(
            self.shape, pad_l=self.pad_l, pad_t=self.pad_t, pad_r=self.pad_r, pad_b=self.pad_b,
            channel_pitch=self.channel_pitch, pad_ch=self.pad_ch if self.kind == "output" else 0,
            nhwc=self.layout_code == TensorLayout.NHWC, itemsize=1 if element is None else element.dtype.itemsize)
        return replace(geometry, buffer_size=max(self.buffer_size, geometry.required_size))

    @functools.cached_property
    def geometry_problems(self) -> tuple[tuple[str, str], ...]:
        """(TI field, message) pairs that make this tensor's buffer geometry unusable, computed
        once; empty when it is usable.

        What :func:`~tidl_io.iodesc.validate.validate` reports and every buffer operation refuses
        before touching memory: non-positive dims, negative pads, unknown element type or
        layout, pitches that let valid elements overlap, a stored buffer size too small, valid
        elements spanning more bytes than NumPy can index. All arithmetic is on Python ints,
        so int32 fields whose products overflow int32 or int64 are judged exactly.
        """
        problems: list[tuple[str, str]] = []

        def problem(attr: str, message: str) -> None:
            problems.append((self.ti_name(attr), message))

        for attr in _SHAPE_ATTRS:
            if getattr(self, attr) < 1:
                problem(attr, f"expected >= 1, found {getattr(self, attr)}")
        for attr in ("pad_l", "pad_t", "pad_r", "pad_b", "pad_ch"):
            if getattr(self, attr) < 0:
                problem(attr, f"expected >= 0, found {getattr(self, attr)}")
        if self.element is None:
            problem("element_type", f"unknown element type {self.element_type} (expected 0..8)")
        if self.layout_code not in (TensorLayout.NCHW, TensorLayout.NHWC):
            problem("layout_code", f"unknown layout {self.layout_code} (expected 0 NCHW or 1 NHWC)")
        if problems:
            return tuple(problems)
        if self.layout_code == TensorLayout.NCHW and self.channel_pitch < self.line_pitch:
            problem("channel_pitch", f"channel pitch {self.channel_pitch} is smaller than a line "
                    f"({self.line_pitch} elements)")
        overlap = self.geometry.overlap()
        if overlap is not None:
            axis, stride, span = overlap
            problem("channel_pitch", f"valid elements overlap: the {_AXES[axis]} step ({stride} elements) is "
                    f"not beyond the {span} elements spanned by the finer axes")
        if self.buf_size is not None and self.required_size > self.buf_size:
            problem("buf_size", f"last valid element is at index {self.last_offset}, beyond the stored buffer "
                    f"size {self.buf_size}")
        nbytes = self.required_size * self.itemsize  # Python ints: exact however large the int32 fields are
        if nbytes > _INDEX_MAX:
            # the axis that contributes most to the span names the field to fix
            axis = max(range(6), key=lambda k: (self.shape[k] - 1) * abs(self.strides[k]))
            problem(_SHAPE_ATTRS[axis], f"the valid elements span {nbytes} bytes, beyond the largest offset "
                    f"NumPy can index ({_INDEX_MAX})")
        return tuple(problems)

    @property
    def line_pitch(self) -> int:
        """Elements from one row to the next: W + padL + padR (times C for NHWC)."""
        return self._planar.strides[4]

    @property
    def padded_height(self) -> int:
        return self.height + self.pad_t + self.pad_b

    @property
    def padded_plane(self) -> int:
        """Elements of one padded channel plane: (W + padL + padR) · (H + padT + padB)."""
        return padded_plane(self.width, self.height, (self.pad_l, self.pad_t, self.pad_r, self.pad_b))

    @property
    def dim2_pitch(self) -> int:
        """channelPitch · (C + outPadCh): one DIM2 step. Inputs have no channel padding in
        TIDL's geometry (spec §4): ``inPadCh`` is ignored here, and validate() warns when set."""
        return self._planar.strides[2]

    @property
    def dim1_pitch(self) -> int:
        return self._planar.strides[1]

    @property
    def batch_pitch(self) -> int:
        return self._planar.strides[0]

    @property
    def strides(self) -> tuple[int, int, int, int, int, int]:
        """Element strides of the 6-D (N, DIM1, DIM2, C, H, W) view over the buffer.

        NCHW uses the stored channel pitch (never recomputed). NHWC interleaves
        channels: channel step 1, pixel step C, line step C·(W+padL+padR).
        """
        return self._planar.strides

    @property
    def first_offset(self) -> int:
        """Index of the first valid element: padT·linePitch + padL (·C for NHWC)."""
        return self._planar.first_offset

    @property
    def last_offset(self) -> int:
        """Index of the last valid element (``first_offset - 1`` for an empty tensor)."""
        return self._planar.last_offset

    @property
    def required_size(self) -> int:
        """Smallest buffer, in elements, that holds every valid element."""
        return self._planar.required_size

    @property
    def computed_buf_size(self) -> int:
        """TIDL's buffer size from the geometry, in elements.

        Inputs: N·DIM1·DIM2·(C + 1)·(H+padT+padB)·(W+padL+padR), one extra padded plane
        TIDL uses internally; outputs: N·DIM1·DIM2·(C + padCh)·(H+padT+padB)·(W+padL+padR).
        Both verified against the stored sizes of every real 10.x/11.x file.
        """
        planes = self.num_channels + (1 if self.kind == "input" else self.pad_ch)
        return self.num_batches * self.dim1 * self.dim2 * planes * self.padded_plane

    @property
    def buffer_size(self) -> int:
        """Buffer size in elements: the stored in/outBufSize where the layout has it,
        else :attr:`computed_buf_size`."""
        return self.buf_size if self.buf_size is not None else self.computed_buf_size

    @property
    def buffer_nbytes(self) -> int:
        return self.buffer_size * self.itemsize

    @property
    def alloc_size(self) -> int:
        """Elements tidl_io allocates for this tensor: :attr:`buffer_size`, or more when the
        valid elements reach beyond it (only possible where the size is computed, 8.x/9.x)."""
        return self._planar.padded_size

    @property
    def first_byte_offset(self) -> int:
        return self.first_offset * self.itemsize

    @property
    def slack(self) -> int:
        """Buffer elements that hold no valid element (padding and spare planes)."""
        return self.buffer_size - self.size

    # ---- helpers --------------------------------------------------------------------
    @functools.cached_property
    def label(self) -> str:
        """``input 0 'data'`` — how messages name this tensor."""
        return f"{self.kind} {self.index} {self.name!r}"

    def _ti(self, suffix: str) -> str:
        return ("in" if self.kind == "input" else "out") + suffix

    def ti_name(self, attr: str) -> str:
        """The TI C name of attribute ``attr`` for this tensor (e.g. ``pad_l`` -> ``inPadL``)."""
        return self._ti_by_attr.get(attr) or self._ti(attr)

    @functools.cached_property
    def _ti_by_attr(self) -> dict[str, str]:
        return _ti_by_attr(self.ti_names)


_SHAPE_ATTRS = ("num_batches", "dim1", "dim2", "num_channels", "height", "width")
_AXES = ("N", "DIM1", "DIM2", "C", "H", "W")
_INDEX_MAX = int(np.iinfo(np.intp).max)

_TENSOR_KEY = tuple(f.name for f in _dc_fields(Tensor) if f.compare and f.hash is not False)


@functools.lru_cache(maxsize=64)
def _ti_by_attr(ti_names: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """attribute -> TI name, once per layout and kind (``ti_names`` is shared by its tensors)."""
    return {attr: ti for ti, attr in ti_names}


TENSOR_FIELDS = frozenset(f.name for f in _dc_fields(Tensor))
