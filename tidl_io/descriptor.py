"""Typed I/O buffer descriptors: ``parse(bytes)``, ``build(desc)``, ``load(path)``.

A :class:`Descriptor` holds the raw struct (every member at full slot capacity, exactly
as in the file) and derives one frozen :class:`Tensor` per used slot. All buffer geometry
(pitches, strides, offsets, sizes, dtype) is computed in :class:`Tensor`, in elements,
from the stored fields; ``build(parse(b)) == b`` for every file.

>>> desc = parse(data)                                  # doctest: +SKIP
>>> desc.layout.key, [t.name for t in desc.inputs]      # doctest: +SKIP
('10.x/c1', ['input'])
"""

from __future__ import annotations

import errno
import functools
import os
import struct as _struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from dataclasses import fields as _dc_fields
from enum import IntEnum
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from ._check import check_kind, check_path, open_regular, wrong_kind
from ._errors import FormatError, GeometryError, PathError, PathNotFoundError, TensorNotFoundError
from ._limits import check_alloc, max_alloc_bytes
from ._schema import MAGIC_CONTAINER, Layout, find_layout, layout_by_size, layouts
from .geometry import BufferGeometry

__all__ = [
    "ContainerEntry",
    "Descriptor",
    "ElementType",
    "Tensor",
    "TensorLayout",
    "build",
    "load",
    "make_descriptor",
    "parse",
]


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
_ELEMENT_BY_CODE: dict[int, ElementType] = {int(e): e for e in ElementType}


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
        return _ELEMENT_BY_CODE.get(self.element_type)

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
        """This tensor's :class:`~tidl_io.geometry.BufferGeometry` (TIDL's planar layout with
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

    @property
    def line_pitch(self) -> int:
        """Elements from one row to the next: W + padL + padR (times C for NHWC)."""
        return self._planar.strides[4]

    @property
    def padded_height(self) -> int:
        return self.height + self.pad_t + self.pad_b

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
        plane = self.padded_height * (self.width + self.pad_l + self.pad_r)
        return self.num_batches * self.dim1 * self.dim2 * planes * plane

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


_TENSOR_KEY = tuple(f.name for f in _dc_fields(Tensor) if f.compare and f.hash is not False)


@functools.lru_cache(maxsize=64)
def _ti_by_attr(ti_names: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """attribute -> TI name, once per layout and kind (``ti_names`` is shared by its tensors)."""
    return {attr: ti for ti, attr in ti_names}


_TENSOR_FIELDS = frozenset(f.name for f in _dc_fields(Tensor))


@dataclass(frozen=True)
class ContainerEntry:
    """One entry of the 11.x multi-subgraph table: four uint32 ``{offset, size, 0, 0}``."""

    offset: int
    size: int
    reserved0: int = 0
    reserved1: int = 0


@dataclass(frozen=True, eq=False)
class Descriptor:
    """One ``sTIDL_IOBufDesc_t``: the layout, the raw members, and derived tensors.

    ``fields`` maps each TI member name to an int (header members) or to a read-only
    numpy array holding every slot (used or not). ``subgraphs`` is non-empty for an 11.x
    multi-subgraph container, whose first descriptor is this one.
    """

    layout: Layout
    fields: Mapping[str, Any]
    subgraphs: tuple[Descriptor, ...] = ()
    container: tuple[ContainerEntry, ...] = ()
    source: str = "<bytes>"

    @property
    def family(self) -> str:
        return self.layout.family

    @property
    def cores(self) -> int:
        """TIDL_MAX_NUM_CORES of the build that wrote the file (slot capacity factor)."""
        return self.layout.cores

    @property
    def header(self) -> dict[str, int]:
        """Header members under TI's names (numInputBuf, numOutputBuf, numCores, ...)."""
        return {m.name: int(self.fields[m.name]) for m in self.layout.header_members}

    @property
    def num_inputs(self) -> int:
        return int(self.fields["numInputBuf"])

    @property
    def num_outputs(self) -> int:
        return int(self.fields["numOutputBuf"])

    @property
    def nbytes(self) -> int:
        """Size of the file this descriptor builds to."""
        if not self.subgraphs:
            return self.layout.size
        return self.layout.size * (len(self.subgraphs) + 1) + 8 + 16 * len(self.subgraphs)

    @functools.cached_property
    def inputs(self) -> tuple[Tensor, ...]:
        """Tensors of the used input slots ``[0, numInputBuf)``."""
        return self._tensors("input", self.num_inputs)

    @functools.cached_property
    def outputs(self) -> tuple[Tensor, ...]:
        """Tensors of the used output slots ``[0, numOutputBuf)``."""
        return self._tensors("output", self.num_outputs)

    def input(self, key: int | str) -> Tensor:
        """The input with index ``key`` or name ``key``."""
        return _lookup(self.inputs, key, "input", self.source)

    def output(self, key: int | str) -> Tensor:
        """The output with index ``key`` or name ``key``."""
        return _lookup(self.outputs, key, "output", self.source)

    def _tensors(self, kind: str, count: int) -> tuple[Tensor, ...]:
        capacity = self.layout.in_slots if kind == "input" else self.layout.out_slots
        if not 0 <= count <= capacity:
            raise FormatError(
                self.source, f"expected 0..{capacity}, found {count}",
                offset=self.layout.member("numInputBuf" if kind == "input" else "numOutputBuf").offset,
                field="numInputBuf" if kind == "input" else "numOutputBuf",
            )
        members = self.layout.members_of(kind)
        ti_names = tuple((m.name, m.attr) for m in members if m.attr)
        columns = [(m.attr, self.fields[m.name][:count].tolist()) for m in members if m.attr]
        result = []
        for i in range(count):
            kw: dict[str, Any] = {attr: values[i] for attr, values in columns}
            result.append(Tensor(kind=kind, index=i, ti_names=ti_names, **kw))
        return tuple(result)


def _lookup(tensors: Sequence[Tensor], key: int | str, kind: str, source: str) -> Tensor:
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        if 0 <= key < len(tensors):
            return tensors[int(key)]
        raise TensorNotFoundError(f"{source}: no {kind} {key}; it has {len(tensors)} {kind}(s)")
    if not isinstance(key, str):
        raise wrong_kind(kind, "key", key, f"an {kind} index (int) or name (str)")
    for t in tensors:
        if t.name == key:
            return t
    names = ", ".join(repr(t.name) for t in tensors)
    raise TensorNotFoundError(f"{source}: no {kind} named {key!r}; {kind}s: {names}")


# ---- parse ------------------------------------------------------------------------------

def _known_sizes() -> str:
    return ", ".join(f"{lay.size} ({lay.title}{'' if lay.family in ('8.x', '9.0') else f' x{lay.cores}'})"
                     for lay in layouts())


def parse(data: bytes | bytearray | memoryview, source: str = "<bytes>") -> Descriptor:
    """Parse the bytes of a ``*_tidl_io_1.bin`` file (any known layout, or a container).

    The layout is identified by the size of ``data``. ``source`` names the data in
    error messages. Raises :class:`FormatError` with the byte offset and field.
    """
    if not isinstance(source, str):
        raise wrong_kind("parse", "source", source, "a str naming the data in messages")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        hint = "; to read a file, use tidl_io.load(path)" if isinstance(data, (str, os.PathLike)) else ""
        raise FormatError(source, f"expected the file's bytes, found {type(data).__name__}{hint}")
    data = bytes(data)
    layout = layout_by_size().get(len(data))
    if layout is not None:
        return _parse_one(data, layout, source)
    return _parse_container(data, source)


def _parse_one(data: bytes, layout: Layout, source: str) -> Descriptor:
    values = layout.read(data)  # the schema's structured dtype; build() goes through its construct struct
    desc = Descriptor(layout, MappingProxyType(values), source=source)
    for kind, count_name, capacity in (("input", "numInputBuf", layout.in_slots),
                                       ("output", "numOutputBuf", layout.out_slots)):
        count = values[count_name]
        if not 0 <= count <= capacity:
            raise FormatError(source, f"expected 0..{capacity} (the {layout.title} {kind} slot capacity), "
                              f"found {count}", offset=layout.member(count_name).offset, field=count_name)
    return desc


def _parse_container(data: bytes, source: str) -> Descriptor:
    size = len(data)
    for layout in layouts():
        s = layout.size
        if size < s + 8 or _struct.unpack_from("<I", data, s)[0] != MAGIC_CONTAINER:
            continue
        n = _struct.unpack_from("<I", data, s + 4)[0]
        expected = s * (n + 1) + 8 + 16 * n
        if n == 0 or expected != size:
            raise FormatError(source, f"multi-subgraph container of {layout.description} descriptors with "
                              f"{n} subgraphs should be {expected} bytes, found {size}",
                              offset=s + 4, field="numSubgraphs")
        entries = tuple(ContainerEntry(*_struct.unpack_from("<4I", data, s + 8 + 16 * i)) for i in range(n))
        base = s + 8 + 16 * n
        subs = tuple(_parse_one(data[base + i * s: base + (i + 1) * s], layout, f"{source}[subgraph {i}]")
                     for i in range(n))
        main = _parse_one(data[:s], layout, source)
        return Descriptor(main.layout, main.fields, subgraphs=subs, container=entries, source=source)
    raise FormatError(source, f"size {size} bytes matches no known layout and is not a multi-subgraph "
                      f"container; known sizes: {_known_sizes()}")


_EXPECTED_FILE = "a TIDL I/O descriptor file (*_tidl_io_1.bin)"


def load(path: str | os.PathLike[str]) -> Descriptor:
    """Read and parse a descriptor file. The only function here that opens a path.

    A missing path, a folder or anything but a regular file (a FIFO, a device) raise
    :class:`~tidl_io.PathError` naming the path (subclasses that are also
    FileNotFoundError / IsADirectoryError); bad contents raise :class:`FormatError`.
    """
    name = check_path(path, "load", "path", "; to parse a file's bytes use tidl_io.parse(data)")
    with open_regular(name, _EXPECTED_FILE) as fh:
        size = os.fstat(fh.fileno()).st_size
        limit = max(layout_by_size()) * 1025
        # A container holds at most a few hundred subgraphs; refuse absurd files before reading.
        if size > limit:
            raise FormatError(name, f"size {size} bytes is far beyond any descriptor file; known sizes: "
                              f"{_known_sizes()}")
        check_alloc(size, f"{name}: reading the file")
        # bounded even where the size is wrong (a file still growing; /proc files report 0)
        try:
            data = fh.read(min(limit, max_alloc_bytes()) + 1)
        except OSError as exc:
            raise PathError(name, f"cannot read: {exc.strerror or exc}; expected {_EXPECTED_FILE}", exc.errno) from None
    if len(data) > limit:
        raise FormatError(name, f"more than {limit} bytes: far beyond any descriptor file")
    check_alloc(len(data), f"{name}: reading the file")
    return parse(data, source=name)


# <net>_tidl_io_1.bin (edgeai-tidl-tools) and tidl_io_<net>_1.bin (RTOS SDK test vectors)
IO_FILE_PATTERNS = ("*tidl_io_1.bin", "*tidl_io_*_1.bin")


def find_io_files(folder: str | os.PathLike[str]) -> list[Path]:
    """The io descriptor files directly inside ``folder``, sorted by name."""
    base = Path(check_path(folder, "find_io_files", "folder"))
    return sorted({p for pattern in IO_FILE_PATTERNS for p in base.glob(pattern) if p.is_file()})


def locate_io_files(path: str | os.PathLike[str], who: str = "locate_io_files") -> tuple[Path, list[Path]]:
    """The folder and io files that ``path`` names: an io file itself; the io files of a
    folder; else those of its ``artifacts/`` subfolder (an edgeai model folder holds
    ``param.yaml`` and ``artifacts/``). What ``tidl-io inspect`` and :class:`Session` both
    use. Raises :class:`~tidl_io.PathError` (PathNotFoundError when nothing is there)."""
    p = Path(check_path(path, who, "path"))
    if p.is_dir():
        files = find_io_files(p)
        if not files and (p / "artifacts").is_dir():
            files = find_io_files(p / "artifacts")
            if files:
                return p / "artifacts", files
        if not files:
            raise PathNotFoundError(str(p), f"no *_tidl_io_1.bin file in this folder (nor in {p / 'artifacts'})",
                                    errno.ENOENT)
        return p, files
    if p.is_file():
        return p.parent, [p]
    if p.exists():
        raise PathError(str(p), f"not a regular file or a folder; expected {_EXPECTED_FILE} or a folder of them")
    raise PathNotFoundError(str(p), "no such file or folder", errno.ENOENT)


# ---- build ------------------------------------------------------------------------------

def build(desc: Descriptor) -> bytes:
    """The file bytes of ``desc``, built from its fields (``build(parse(b)) == b``)."""
    check_kind(desc, Descriptor, "build", "desc")
    struct = desc.layout.struct
    import construct

    try:
        body = struct.build(dict(desc.fields))
    except (construct.ConstructError, ValueError, TypeError, OverflowError) as exc:
        raise FormatError(desc.source, f"cannot build {desc.layout.description}: {exc}") from None
    if not desc.subgraphs:
        return body
    n = len(desc.subgraphs)
    s = desc.layout.size
    entries = desc.container or tuple(ContainerEntry(s + 8 + 16 * n + i * s, s) for i in range(n))
    if len(entries) != n:
        raise FormatError(desc.source, f"container table has {len(entries)} entries for {n} subgraphs")
    parts = [body, _struct.pack("<II", MAGIC_CONTAINER, n)]
    parts += [_struct.pack("<4I", e.offset, e.size, e.reserved0, e.reserved1) for e in entries]
    for sub in desc.subgraphs:
        if sub.layout != desc.layout:
            raise FormatError(desc.source, f"subgraph layout {sub.layout.key} differs from {desc.layout.key}")
        parts.append(build(sub))
    return b"".join(parts)


def _int32(value: Any, source: str, what: str) -> int:
    """An int32 struct member's value, or a FormatError naming it."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise FormatError(source, f"{what}: expected an integer, found {value!r}") from None
    if not -(2**31) <= number < 2**31:
        raise FormatError(source, f"{what}: {number} does not fit int32_t")
    return number


def make_descriptor(
    family: str,
    cores: int = 1,
    *,
    inputs: Iterable[Mapping[str, Any]] = (),
    outputs: Iterable[Mapping[str, Any]] = (),
    header: Mapping[str, int] | None = None,
    subgraphs: Iterable[Descriptor] = (),
    source: str = "<built>",
) -> Descriptor:
    """Make a descriptor from per-tensor field mappings (TI names or Tensor attributes).

    Unset fields are zero, like TIDL's zero-filled struct; ``numInputBuf`` and
    ``numOutputBuf`` default to the number of tensors given. An unknown family, a field
    the layout lacks, or a value its C type cannot hold raise :class:`FormatError`.
    """
    if not isinstance(family, str):
        raise wrong_kind("make_descriptor", "family", family, "a layout family such as '10.x'")
    if not isinstance(cores, int) or isinstance(cores, bool):
        raise wrong_kind("make_descriptor", "cores", cores, "an int (1, 2 or 4)")
    if not isinstance(source, str):
        raise wrong_kind("make_descriptor", "source", source, "a str naming the descriptor in messages")
    if header is not None and not isinstance(header, Mapping):
        raise wrong_kind("make_descriptor", "header", header, "a mapping of header field -> int")
    inputs, outputs = _specs(inputs, "inputs"), _specs(outputs, "outputs")
    subgraphs = tuple(subgraphs) if isinstance(subgraphs, Iterable) else subgraphs
    if not isinstance(subgraphs, tuple) or not all(isinstance(d, Descriptor) for d in subgraphs):
        raise wrong_kind("make_descriptor", "subgraphs", subgraphs, "an iterable of Descriptors")
    try:
        layout = find_layout(family, cores)
    except ValueError as exc:
        raise FormatError(source, str(exc)) from None
    values: dict[str, Any] = {}
    for m in layout.header_members:
        values[m.name] = 0
    values["numInputBuf"] = len(inputs)
    values["numOutputBuf"] = len(outputs)
    for key, val in (header or {}).items():
        if key not in values:
            raise FormatError(source, f"{layout.key} has no header field {key!r}")
        values[key] = _int32(val, source, key)
    for kind, specs in (("input", inputs), ("output", outputs)):
        capacity = layout.in_slots if kind == "input" else layout.out_slots
        if len(specs) > capacity:
            raise FormatError(source, f"{layout.key} holds at most {capacity} {kind}s, got {len(specs)}")
        members = layout.members_of(kind)
        by_key = {m.name: m for m in members}
        by_key.update({m.attr: m for m in members if m.attr})
        arrays = {m.name: np.zeros(m.count, m.dtype) for m in members}
        for i, spec in enumerate(specs):
            for key, val in spec.items():
                member = by_key.get(key)
                where = f"{layout.key} {kind} {i}"
                if member is None:
                    if key in _TENSOR_FIELDS:
                        raise FormatError(source, f"{where}: layout has no field for {key!r}")
                    raise FormatError(source, f"{where}: unknown field {key!r}")
                if member.attr == "name_bytes":
                    raw = val.encode("utf-8") if isinstance(val, str) else bytes(val)
                    if len(raw) >= member.itemsize:
                        raise FormatError(source, f"{where}: name of {len(raw)} bytes leaves no room for the NUL "
                                          f"in {member.itemsize}", field=member.name)
                    arrays[member.name][i] = raw
                elif member.ctype == "float32_tidl":
                    arrays[member.name][i] = float(val)
                else:
                    arrays[member.name][i] = _int32(val, source, f"{where}: {member.name}")
        for arr in arrays.values():
            arr.flags.writeable = False
        values.update(arrays)
    return Descriptor(layout, MappingProxyType(values), subgraphs=subgraphs, source=source)


def _specs(specs: Any, arg: str) -> list[Mapping[str, Any]]:
    """make_descriptor's ``inputs``/``outputs``: an iterable of field mappings, as a list."""
    items = list(specs) if isinstance(specs, Iterable) and not isinstance(specs, (str, bytes, Mapping)) else None
    if items is None or not all(isinstance(m, Mapping) for m in items):
        raise wrong_kind("make_descriptor", arg, specs, "an iterable of mappings (TI field or attribute -> value)")
    return items
