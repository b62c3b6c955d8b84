"""Typed I/O buffer descriptors: ``parse(bytes)``, ``build(desc)``, ``load(path)``.

A :class:`Descriptor` holds the raw struct (every member at full slot capacity, exactly
as in the file) and derives one frozen :class:`Tensor` per used slot. All buffer geometry
(pitches, strides, offsets, sizes, dtype) is computed in :class:`Tensor`, in elements,
from the stored fields; ``build(parse(b)) == b`` for every file. (:class:`Tensor` and the
element/layout enums live in :mod:`tidl_io.iodesc.tensor` and are importable from here; the
io-file finders are :mod:`tidl_io.artifacts`'.)

>>> desc = parse(data)                                  # doctest: +SKIP
>>> desc.layout.key, [t.name for t in desc.inputs]      # doctest: +SKIP
('10.x/c1', ['input'])
"""

from __future__ import annotations

import functools
import os
import struct as _struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from ..base.check import check_kind, check_path, open_regular, read_limited, wrong_kind
from ..base.errors import FormatError, OptionError, PathError, TensorNotFoundError
from ..base.limits import check_alloc, max_alloc_bytes
from ..base.releases import release_table, releases_text
from .schema import MAGIC_CONTAINER, Layout, find_layout, layout_by_size, layouts
from .tensor import TENSOR_FIELDS, ElementType, Tensor, TensorLayout

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
        raise wrong_kind("parse", "data", data, "the file's bytes (bytes, bytearray or memoryview)", hint)
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


def _is_container_of(head: bytes, size: int, layout: Layout) -> bool:
    """Whether a file of ``size`` bytes whose first bytes are ``head`` is a container of
    ``layout``'s descriptors: the container magic right after the first one."""
    s = layout.size
    return size >= s + 8 and len(head) >= s + 4 and _struct.unpack_from("<I", head, s)[0] == MAGIC_CONTAINER


def looks_like_io(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is meant as an io descriptor: named ``*tidl_io*.bin``, or a regular file
    whose size is a known layout's or which holds the multi-subgraph container's magic
    (descriptors are told by size; nets by their first word, :func:`tidl_io.net.parse.looks_like_net`).
    Never raises: False for what cannot be read."""
    name = os.path.basename(os.fspath(path))
    if "tidl_io" in name and name.endswith(".bin"):
        return True
    try:
        with open_regular(os.fspath(path), _EXPECTED_FILE) as fh:
            size = os.fstat(fh.fileno()).st_size
            if size in layout_by_size():
                return True
            head = fh.read(max(lay.size for lay in layouts()) + 4)
    except (OSError, PathError, ValueError):
        return False
    return any(_is_container_of(head, size, lay) for lay in layouts())


def _parse_container(data: bytes, source: str) -> Descriptor:
    size = len(data)
    for layout in layouts():
        s = layout.size
        if not _is_container_of(data, size, layout):
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
                      f"container; known sizes: {_known_sizes()}{_net_hint(data)}")


def _net_hint(data: bytes) -> str:
    """What to say when the bytes are a network file (its first word a known netVersion)."""
    word = _struct.unpack_from("<I", data)[0] if len(data) >= 4 else None
    rels = release_table().of_net_version(word) if word is not None else ()
    if not rels:
        return ""
    return (f"; its first word {word:#010x} is the netVersion of a TIDL {releases_text(rels)} network file: "
            f"read it with tidl_io.load_net (tidl-io inspect reads either)")


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
            data = read_limited(fh, min(limit, max_alloc_bytes()))
        except OSError as exc:
            raise PathError(name, f"cannot read: {exc.strerror or exc}; expected {_EXPECTED_FILE}", exc.errno) from None
    if len(data) > limit:
        raise FormatError(name, f"more than {limit} bytes: far beyond any descriptor file")
    check_alloc(len(data), f"{name}: reading the file")
    return parse(data, source=name)


# ---- build ------------------------------------------------------------------------------

def build(desc: Descriptor) -> bytes:
    """The file bytes of ``desc``, built from its fields (``build(parse(b)) == b``)."""
    check_kind(desc, Descriptor, "build", "desc")
    struct = desc.layout.struct
    import construct  # start-up

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
    the layout lacks, or a value its C type cannot hold raise :class:`FormatError`; a
    ``family``/``cores`` pair that names no layout an :class:`OptionError`.
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
    except ValueError as exc:  # a value make_descriptor does not take
        raise OptionError(f"make_descriptor: family and cores must name a layout: {exc}") from None
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
                    if key in TENSOR_FIELDS:
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
