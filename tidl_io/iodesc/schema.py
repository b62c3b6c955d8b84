"""The io descriptor layouts: ``schemas/*.yaml`` through the layout engine (:mod:`tidl_io.base.structs`).

The YAML files are the single source of truth for every layout: member order, C types,
array extents, written as C declarations. The engine lays them out for each core count C;
this module names each member's role (header, input or output slot array, the Tensor
attribute it feeds) and emits a ``construct.Struct`` whose array members are parsed by a
numpy-backed primitive (one ``frombuffer`` per member instead of one Python object per
element) and the same members as one NumPy dtype (the fast path). Layouts are selected by
file size from a table, never by an if/elif ladder.
"""

from __future__ import annotations

import errno
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..base.errors import FormatError, PathNotFoundError
from ..base.releases import release_table
from ..base.structs import Struct, c_type, compile_schema, load_yaml, numpy_dtype
from ..base.structs import resolve as _resolve

STRUCT = "sTIDL_IOBufDesc_t"  # the one struct of each io layout file

MAGIC_CONTAINER = 0xFF00FF00


@dataclass(frozen=True)
class Member:
    """One struct member of one layout, with its resolved shape and byte offset."""

    name: str
    ctype: str
    shape: tuple[int, ...]  # () for a header scalar; (slots,) or (slots, 512) for arrays
    offset: int
    kind: str  # "header", "input" or "output"
    attr: str | None  # the Tensor attribute this member feeds

    @functools.cached_property
    def dtype(self) -> np.dtype:
        """The NumPy type of one slot; a byte array per slot (``int8_t inDataName[IN][512]``) is a
        name: ``S512``, kept as raw bytes."""
        ctype = c_type(self.ctype)
        if ctype.size == 1 and len(self.shape) == 2:
            return np.dtype(f"S{self.shape[-1]}")
        return np.dtype(ctype.numpy)

    @property
    def count(self) -> int:
        """Number of elements (slots for arrays, 1 for a header scalar)."""
        return self.shape[0] if self.shape else 1

    @functools.cached_property
    def itemsize(self) -> int:
        """Bytes of one slot."""
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.count * self.itemsize

    def slot_offset(self, slot: int) -> int:
        """Byte offset of slot ``slot`` of this member in the file."""
        return self.offset + slot * self.itemsize


@dataclass(frozen=True)
class Layout:
    """One concrete layout: a family (8.x, 9.0, 9.1, 10.x) at one core count."""

    family: str
    title: str
    cores: int
    members: tuple[Member, ...]
    size: int
    in_slots: int
    out_slots: int
    schema_file: str
    engine: Struct = field(repr=False, compare=False)  # the layout engine's struct
    _by_name: dict[str, Member] = field(repr=False, compare=False, hash=False, default_factory=dict)
    _by_kind: dict[str, tuple[Member, ...]] = field(repr=False, compare=False, hash=False, default_factory=dict)

    def __post_init__(self) -> None:
        self._by_name.update({m.name: m for m in self.members})
        for kind in ("header", "input", "output"):
            self._by_kind[kind] = tuple(m for m in self.members if m.kind == kind)

    @property
    def releases(self) -> tuple[str, ...]:
        """The TIDL releases ("MM.NN") that write this layout, from the release table."""
        return tuple(r.ti for r in release_table().with_io(self.family))

    @property
    def key(self) -> str:
        """Short stable identifier, e.g. ``10.x/c4``."""
        return f"{self.family}/c{self.cores}"

    @property
    def header_members(self) -> tuple[Member, ...]:
        return self._by_kind["header"]

    def members_of(self, kind: str) -> tuple[Member, ...]:
        """The members of ``kind`` ("header", "input" or "output"), in file order."""
        return self._by_kind[kind]

    def member(self, name: str) -> Member:
        return self._by_name[name]

    def has(self, name: str) -> bool:
        return name in self._by_name

    @property
    def has_dims(self) -> bool:
        """Whether the layout stores DIM1/DIM2 and numValidTensorDims."""
        return "inDIM1" in self._by_name

    @property
    def has_buf_size(self) -> bool:
        """Whether the layout stores inBufSize/outBufSize."""
        return "inBufSize" in self._by_name

    @property
    def description(self) -> str:
        cores = f", {self.cores} core{'s' if self.cores > 1 else ''}" if self.family not in ("8.x", "9.0") else ""
        return f"{self.title}{cores} ({self.size} bytes)"

    @functools.cached_property
    def struct(self) -> Any:
        """The ``construct.Struct`` of this layout (built on first use): builds files, and
        is the reference parser the fast path is tested against."""
        return _build_struct(self)

    @functools.cached_property
    def record_dtype(self) -> np.dtype:
        """The same members as one numpy structured dtype: the fast parse path, emitted from
        the engine's struct like :attr:`struct` (names as ``S512`` per slot)."""
        return numpy_dtype(self.engine, strings=True)

    def read(self, data: bytes) -> dict[str, Any]:
        """Member name -> value (int for header members, read-only arrays over ``data`` for
        the rest) for ``data`` of exactly :attr:`size` bytes: one ``numpy.frombuffer``."""
        record = np.frombuffer(data, self.record_dtype, count=1)[0]
        return {m.name: int(record[m.name]) if m.kind == "header" else record[m.name] for m in self.members}


def schema_dir() -> Path:
    here = Path(__file__).resolve().parents[1]  # tidl_io/
    for candidate in (here / "schemas", here.parent / "schemas"):
        if candidate.is_dir():
            return candidate
    raise PathNotFoundError(str(here / "schemas"), "no such folder; expected the layout schemas installed with "
                            "tidl_io (a broken installation: reinstall tidl-io)", errno.ENOENT)


def _kind_of(dim_names: tuple[str, ...], where: str) -> str:
    if not dim_names:
        return "header"
    if dim_names[0] == "IN":
        return "input"
    if dim_names[0] == "OUT":
        return "output"
    raise FormatError(where, f"an array member must be dimensioned by IN or OUT, found {dim_names[0]!r}")


def _compile(doc: dict[str, Any], cores: int, schema_file: str) -> Layout:
    schema = compile_schema(doc, schema_file, {"TIDL_MAX_NUM_CORES": cores}, f"c{cores}")
    struct = schema.struct(STRUCT)
    members = tuple(Member(f.name, f.ctype.name, f.dims, f.offset, _kind_of(f.dim_names, f"{schema_file}: {f.name}"),
                           f.notes.get("attr")) for f in struct.fields)
    return Layout(
        family=str(doc["family"]),
        title=str(doc["title"]),
        cores=cores,
        members=members,
        size=struct.size,
        in_slots=_resolve("IN", schema.constants, schema_file),
        out_slots=_resolve("OUT", schema.constants, schema_file),
        schema_file=schema_file,
        engine=struct,
    )


@functools.cache
def layouts() -> tuple[Layout, ...]:
    """Every known layout, from every io layout file (``schemas/tidl_*.yaml``) and core count,
    smallest first."""
    found = []
    for path in sorted(schema_dir().glob("tidl_*.yaml")):
        doc = load_yaml(path)
        for cores in doc["cores"]:
            found.append(_compile(doc, int(cores), path.name))
    found.sort(key=lambda lay: lay.size)
    sizes = [lay.size for lay in found]
    if len(set(sizes)) != len(sizes):
        raise ValueError(f"tidl_io schemas: two layouts share a file size: {sizes}")
    return tuple(found)


@functools.cache
def layout_by_size() -> dict[int, Layout]:
    """The identification table: file size in bytes -> layout."""
    return {lay.size: lay for lay in layouts()}


def find_layout(family: str, cores: int = 1) -> Layout:
    """The layout of ``family`` ("8.x", "9.0", "9.1", "10.x") at ``cores`` cores."""
    for lay in layouts():
        if lay.family == family and lay.cores == cores:
            return lay
    known = ", ".join(lay.key for lay in layouts())
    raise ValueError(f"no layout {family}/c{cores}; known: {known}")


_CONSTRUCT_CODES = {"i": "l", "I": "L", "c": "B"}  # struct's codes construct spells otherwise


def _build_struct(layout: Layout) -> Any:
    """The construct emitter: the engine's struct as a ``construct.Struct`` (a scalar as its C
    type's format, an array as one numpy read, padding as ``Padding``)."""
    import construct  # start-up

    class NumpyArray(construct.Construct):
        """A fixed-shape array parsed with one ``numpy.frombuffer`` (read-only result)."""

        def __init__(self, dtype: np.dtype, count: int):
            super().__init__()
            self.dtype = dtype
            self.count = count
            self.nbytes = count * dtype.itemsize

        def _parse(self, stream: Any, context: Any, path: str) -> np.ndarray:
            data = stream.read(self.nbytes)
            if len(data) != self.nbytes:
                raise construct.StreamError(f"expected {self.nbytes} bytes, found {len(data)}", path=path)
            return np.frombuffer(data, self.dtype, count=self.count)

        def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
            arr = np.asarray(obj, dtype=self.dtype)
            if arr.shape != (self.count,):
                raise construct.SizeofError(f"expected shape {(self.count,)}, found {arr.shape}", path=path)
            construct.stream_write(stream, arr.tobytes(), self.nbytes, path)
            return obj

        def _sizeof(self, context: Any, path: str) -> int:
            return self.nbytes

    fields, pos = [], 0
    for f, m in zip(layout.engine.fields, layout.members):
        if f.offset > pos:
            fields.append(construct.Padding(f.offset - pos))
        if f.dims:
            fields.append(f.name / NumpyArray(m.dtype, m.count))
        else:
            code = c_type(m.ctype).struct_format
            fields.append(f.name / construct.FormatField("<", _CONSTRUCT_CODES.get(code, code)))
        pos = f.end
    if layout.size > pos:
        fields.append(construct.Padding(layout.size - pos))
    return construct.Struct(*fields)
