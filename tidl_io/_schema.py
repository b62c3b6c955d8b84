"""Turn the layout descriptions in ``schemas/*.yaml`` into construct structs.

The YAML files are the single source of truth for every layout: member order, C types,
array extents. This module resolves them for each core count C, computes offsets and the
file size, and builds a ``construct.Struct`` whose array members are parsed by a
numpy-backed primitive (one ``frombuffer`` per member instead of one Python object per
element). Layouts are selected by file size from a table, never by an if/elif ladder.
"""

from __future__ import annotations

import errno
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ._errors import PathNotFoundError
from .releases import TABLE_FILE, release_table

# C type -> little-endian numpy dtype. int8_t arrays are names: kept as raw bytes.
_CTYPES: dict[str, str] = {"int32_t": "<i4", "float32_tidl": "<f4", "int8_t": "S"}

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
        code = _CTYPES[self.ctype]
        if code == "S":
            return np.dtype(f"S{self.shape[-1]}")
        return np.dtype(code)

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
        """The same members as one numpy structured dtype: the fast parse path, derived
        from the schema like :attr:`struct` (no padding; offsets are the members' own)."""
        dtype = np.dtype({
            "names": [m.name for m in self.members],
            "formats": [(m.dtype, m.shape[:1]) if m.shape else np.dtype("<i4") for m in self.members],
            "offsets": [m.offset for m in self.members],
            "itemsize": self.size,
        })
        return dtype

    def read(self, data: bytes) -> dict[str, Any]:
        """Member name -> value (int for header members, read-only arrays over ``data`` for
        the rest) for ``data`` of exactly :attr:`size` bytes: one ``numpy.frombuffer``."""
        record = np.frombuffer(data, self.record_dtype, count=1)[0]
        return {m.name: int(record[m.name]) if m.kind == "header" else record[m.name] for m in self.members}


def _schema_dir() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here / "schemas", here.parent / "schemas"):
        if candidate.is_dir():
            return candidate
    raise PathNotFoundError(str(here / "schemas"), "no such folder; expected the layout schemas installed with "
                            "tidl_io (a broken installation: reinstall tidl-io)", errno.ENOENT)


def _load_yaml(path: Path) -> Any:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with path.open("rb") as fh:
        return yaml.load(fh, Loader=loader)


_TOKEN = re.compile(r"\s*\*\s*")


def _resolve(expr: Any, env: dict[str, int], where: str) -> int:
    """Evaluate a constant: an int, a name, or a product ``A * B * 4`` of those."""
    if isinstance(expr, int):
        return expr
    total = 1
    for token in _TOKEN.split(str(expr).strip()):
        if token.isdigit():
            total *= int(token)
        elif token in env:
            total *= env[token]
        else:
            raise ValueError(f"{where}: unknown constant {token!r} in {expr!r}")
    return total


def _kind_of(dims: list[Any]) -> str:
    if not dims:
        return "header"
    first = str(dims[0])
    if first == "IN":
        return "input"
    if first == "OUT":
        return "output"
    raise ValueError(f"array member must be dimensioned by IN or OUT, found {first!r}")


def _compile(doc: dict[str, Any], cores: int, schema_file: str) -> Layout:
    env: dict[str, int] = {"TIDL_MAX_NUM_CORES": cores}
    for name, expr in doc["constants"].items():
        env[name] = _resolve(expr, env, f"{schema_file}: constants.{name}")
    members = []
    offset = 0
    for entry in doc["members"]:
        dims = entry.get("dims", [])
        where = f"{schema_file}: {entry['name']}"
        if entry["type"] not in _CTYPES:
            raise ValueError(f"{where}: unknown C type {entry['type']!r}")
        shape = tuple(_resolve(d, env, where) for d in dims)
        member = Member(entry["name"], entry["type"], shape, offset, _kind_of(dims), entry.get("attr"))
        members.append(member)
        offset += member.nbytes
    return Layout(
        family=str(doc["family"]),
        title=str(doc["title"]),
        cores=cores,
        members=tuple(members),
        size=offset,
        in_slots=env["IN"],
        out_slots=env["OUT"],
        schema_file=schema_file,
    )


@functools.cache
def layouts() -> tuple[Layout, ...]:
    """Every known layout, from every schema file and core count, smallest first."""
    found = []
    for path in sorted(_schema_dir().glob("*.yaml")):
        if path.name == TABLE_FILE:
            continue
        doc = _load_yaml(path)
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


def _build_struct(layout: Layout) -> Any:
    import construct

    class NumpyArray(construct.Construct):
        """A fixed-shape array parsed with one ``numpy.frombuffer`` (read-only result)."""

        def __init__(self, dtype: np.dtype, shape: tuple[int, ...]):
            super().__init__()
            self.dtype = dtype
            self.shape = shape
            self.nbytes = int(np.prod(shape[:1])) * dtype.itemsize

        def _parse(self, stream: Any, context: Any, path: str) -> np.ndarray:
            data = stream.read(self.nbytes)
            if len(data) != self.nbytes:
                raise construct.StreamError(f"expected {self.nbytes} bytes, found {len(data)}", path=path)
            return np.frombuffer(data, self.dtype, count=self.shape[0])

        def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
            arr = np.asarray(obj, dtype=self.dtype)
            if arr.shape != self.shape[:1]:
                raise construct.SizeofError(f"expected shape {self.shape[:1]}, found {arr.shape}", path=path)
            construct.stream_write(stream, arr.tobytes(), self.nbytes, path)
            return obj

        def _sizeof(self, context: Any, path: str) -> int:
            return self.nbytes

    fields = []
    for m in layout.members:
        if m.kind == "header":
            fields.append(m.name / construct.Int32sl)
        else:
            fields.append(m.name / NumpyArray(m.dtype, m.shape))
    return construct.Struct(*fields)
