"""The one layout engine for TI's C structs: io descriptors, net files and TIDL-RT.

Every layout file under ``schemas/`` (``tidl_*.yaml``, ``net/*.yaml``, ``tidlrt/*.yaml``) is
written in one grammar, read here; the construct (io descriptors), NumPy (io fast path, net
files) and ctypes (TIDL-RT) forms are thin emitters over the :class:`Struct` this module lays
out. The grammar, as a YAML mapping::

    constants:                       # named like TI's #defines; a value is a number, a name
      TIDL_NUM_IN_BUFS: 16           # or a sum/product of those ("TIDL_MAX_ALG_IN_BUFS * TIDL_MAX_NUM_CORES")
    structs:                         # in C order; a struct may use the ones above it
      sTIDL_NetBuffer_t: [void* base, int32_t size, int32_t offset]
      sTIDL_Layer_t:
        - int32_t inData[TIDL_NUM_IN_BUFS]           # a member: one C declaration
        - {c: "int32_t layerType", attr: x}           # ... with notes beside it (attr:, default:)
        - "alignas(8) int32_t x"                      # alignment raised, as C11 writes it
        - "int32_t unknown84 @ 84"                    # placed at a byte offset (a struct known in part)
    expect:                          # offsets and sizes checked when the file is compiled
      sTIDL_Network_t/c4: {size: 184, netBufInfo: 112}   # "/c4": only for that variant

A declaration is ``[alignas(N)] type [*...] name [dim]... [@ offset]``; ``type`` is a row of
:data:`C_TYPES`, a struct declared above it, or any type followed by ``*`` (a pointer). Members
are laid out as a little-endian LP64 C compiler does (x86-64 and aarch64): each at the next
multiple of its alignment, the struct's size rounded up to its largest alignment. Errors in a
layout file are :class:`~tidl_io.FormatError` naming the file, the struct and the member.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from struct import unpack_from
from typing import Any

import numpy as np

from .errors import FormatError

__all__ = [
    "C_TYPES",
    "CType",
    "Decl",
    "Field",
    "Schema",
    "Struct",
    "c_type",
    "compile_schema",
    "lay_out",
    "load_yaml",
    "numpy_dtype",
    "parse_decl",
    "resolve",
]


@dataclass(frozen=True)
class CType:
    """One row of the table of C types: size and alignment in bytes (LP64), and its kind."""

    name: str
    size: int
    align: int
    kind: str  # "int", "uint", "float", "char", "pointer" or "opaque" (bytes of a union)

    @property
    def numpy(self) -> str:
        """The little-endian NumPy type code (``"<i4"``); ``V1`` for opaque bytes."""
        if self.kind == "opaque":
            return "V1"
        letter = {"int": "i", "uint": "u", "float": "f", "char": "S", "pointer": "u"}[self.kind]
        return f"{letter}{self.size}" if self.size == 1 else f"<{letter}{self.size}"

    @property
    def struct_format(self) -> str:
        """The :mod:`struct` code of one element (``"i"``, ``"Q"`` for a pointer)."""
        if self.kind == "char":
            return "c"
        if self.kind == "float":
            return {4: "f", 8: "d"}[self.size]
        code = {1: "b", 2: "h", 4: "i", 8: "q"}[self.size]
        return code if self.kind == "int" else code.upper()


# The one table of C types. float32_tidl is TI's typedef of float; `union` is TI's layer-parameter
# union kept as opaque bytes (``union layerParams[1544]``: 1544 bytes, int32-aligned); fnptr is a
# function pointer.
C_TYPES: dict[str, CType] = {t.name: t for t in (
    CType("char", 1, 1, "char"),
    CType("int8_t", 1, 1, "int"), CType("uint8_t", 1, 1, "uint"),
    CType("int16_t", 2, 2, "int"), CType("uint16_t", 2, 2, "uint"),
    CType("int32_t", 4, 4, "int"), CType("uint32_t", 4, 4, "uint"), CType("int", 4, 4, "int"),
    CType("int64_t", 8, 8, "int"), CType("uint64_t", 8, 8, "uint"),
    CType("float", 4, 4, "float"), CType("float32_tidl", 4, 4, "float"), CType("double", 8, 8, "float"),
    CType("void*", 8, 8, "pointer"), CType("fnptr", 8, 8, "pointer"),
    CType("union", 1, 4, "opaque"),
)}
_POINTER = C_TYPES["void*"]


def c_type(name: str) -> CType:
    """The row of :data:`C_TYPES` for ``name``; any ``T*`` is a pointer. KeyError if unknown."""
    if name.endswith("*"):
        return CType(name, _POINTER.size, _POINTER.align, "pointer")
    return C_TYPES[name]


@dataclass(frozen=True, eq=False)
class Field:
    """One member laid out: element type, array extents, byte offset, notes from the file."""

    name: str
    ctype: CType | Struct  # the element type
    dims: tuple[int, ...]  # () for a scalar
    offset: int
    dim_names: tuple[str, ...] = ()  # the extents as written ("TIDL_NUM_IN_BUFS")
    notes: Mapping[str, Any] = field(default_factory=dict)  # what the file says beside the declaration

    @property
    def count(self) -> int:
        """Number of elements (1 for a scalar)."""
        return math.prod(self.dims)

    @property
    def elem_size(self) -> int:
        return self.ctype.size

    @property
    def nbytes(self) -> int:
        return self.count * self.ctype.size

    @property
    def end(self) -> int:
        return self.offset + self.nbytes

    def read(self, data: bytes | bytearray | memoryview, base: int = 0) -> Any:
        """The value of this scalar member in ``data``, whose struct starts at byte ``base``
        (the caller has checked that ``data`` holds it)."""
        if isinstance(self.ctype, Struct) or self.dims or self.ctype.kind == "opaque":
            raise TypeError(f"{self.name} is not a scalar of a C type")
        return unpack_from("<" + self.ctype.struct_format, data, base + self.offset)[0]


@dataclass(frozen=True, eq=False)
class Struct:
    """One C struct laid out: its fields in C order, size (tail padding included), alignment."""

    name: str
    fields: tuple[Field, ...]
    size: int
    align: int
    _by_name: dict[str, Field] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_name.update({f.name: f for f in self.fields})

    def member(self, name: str) -> Field:
        """The member ``name``; KeyError naming the struct if it has none."""
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"{self.name} has no member {name!r}") from None

    def has(self, name: str) -> bool:
        return name in self._by_name

    def offset(self, path: str) -> int:
        """Byte offset of ``path`` in this struct: ``"numLayers"``, ``"outData.tensorScale"``,
        ``"netBufInfo[2].size"`` (an index steps over whole elements of an array member)."""
        total = 0
        inside: CType | Struct = self
        for part in path.split("."):
            name, _, rest = part.partition("[")
            if not isinstance(inside, Struct):
                raise KeyError(f"{path}: {name} is inside a {inside.name}, not a struct")
            f = inside.member(name)
            total += f.offset
            if rest:
                index = [int(i) for i in ("[" + rest).replace("]", "").split("[")[1:]]
                if len(index) > len(f.dims) or any(not 0 <= i < d for i, d in zip(index, f.dims)):
                    raise KeyError(f"{path}: index {index} outside {f.name}{list(f.dims)}")
                flat = 0
                for i, d in zip(index, f.dims):
                    flat = flat * d + i
                total += flat * math.prod(f.dims[len(index):]) * f.ctype.size
            inside = f.ctype
        return total

    def padding(self) -> tuple[tuple[int, int], ...]:
        """The byte ranges ``[start, end)`` no member covers (alignment gaps and tail)."""
        gaps, pos = [], 0
        for f in sorted(self.fields, key=lambda f: f.offset):
            if f.offset > pos:
                gaps.append((pos, f.offset))
            pos = max(pos, f.end)
        if pos < self.size:
            gaps.append((pos, self.size))
        return tuple(gaps)


# ---- the grammar -----------------------------------------------------------------------

_DECL = re.compile(
    r"^\s*(?:alignas\s*\(\s*(?P<align>[^)]+?)\s*\)\s+)?"
    r"(?P<type>[A-Za-z_]\w*)(?:\s*(?P<ptr>(?:\*\s*)+)|\s+)(?P<name>[A-Za-z_]\w*)"
    r"(?P<dims>(?:\s*\[[^\]]+\])*)\s*(?:@\s*(?P<at>[^\s;]+))?\s*;?\s*$")
_DIM = re.compile(r"\[([^\]]+)\]")
_TERM = re.compile(r"\s*([+-])\s*")
_FACTOR = re.compile(r"\s*\*\s*")


@dataclass(frozen=True)
class Decl:
    """One member declaration as written: type text, name, extents, placement, alignment."""

    type: str  # "int32_t", "void*", "sTIDL_DataParams_t"
    name: str
    dims: tuple[str, ...]
    at: str | None = None
    align: str | None = None
    notes: Mapping[str, Any] = field(default_factory=dict)


def parse_decl(entry: Any, where: str) -> Decl:
    """A member entry of a layout file: ``"type name[dim]..."`` or ``{c: "...", note: value}``."""
    if isinstance(entry, str):
        decl = _read_decl(entry)
    else:
        text = entry.get("c") if isinstance(entry, Mapping) else entry
        decl = _read_decl(text) if isinstance(text, str) else None
        if decl is not None and isinstance(entry, Mapping):
            decl = dataclasses.replace(decl, notes={str(k): v for k, v in entry.items() if k != "c"})
    if decl is None:
        text = entry.get("c") if isinstance(entry, Mapping) else entry
        raise FormatError(where, f"cannot read member {text!r}; expected a C declaration "
                          f"'[alignas(N)] type [*]name[dim]... [@ offset]', or {{c: declaration, note: value}}")
    return decl


@functools.lru_cache(maxsize=4096)
def _read_decl(text: str) -> Decl | None:
    m = _DECL.match(text)
    if m is None:
        return None
    ctype = m["type"] + "*" * (m["ptr"] or "").count("*")
    return Decl(ctype, m["name"], tuple(d.strip() for d in _DIM.findall(m["dims"] or "")), m["at"], m["align"])


def resolve(expr: Any, env: Mapping[str, int], where: str) -> int:
    """Evaluate a constant: an int, a name, or sums/products of those (``A * B + 4``)."""
    if isinstance(expr, int) and not isinstance(expr, bool):
        return expr
    text = str(expr).strip()
    total, sign = 0, 1
    for piece in _TERM.split(text):
        if piece in ("+", "-"):
            sign = 1 if piece == "+" else -1
            continue
        product = 1
        for token in _FACTOR.split(piece):
            if token.isdigit():
                product *= int(token)
            elif token.startswith("0x") and len(token) > 2:
                try:
                    product *= int(token, 16)
                except ValueError:
                    raise FormatError(where, f"cannot read the number {token!r} in {text!r}") from None
            elif token in env:
                product *= env[token]
            else:
                raise FormatError(where, f"unknown constant {token!r} in {text!r}")
        total += sign * product
    return total


def _round_up(value: int, to: int) -> int:
    return -(-value // to) * to


def lay_out(name: str, members: Iterable[Any], env: Mapping[str, int], known: Mapping[str, Struct],
            where: str) -> Struct:
    """The one place members are laid out: struct ``name`` from its member entries, with the
    constants ``env`` and the structs ``known`` (declared before it)."""
    if isinstance(members, (str, bytes, Mapping)) or not isinstance(members, Iterable):
        raise FormatError(where, f"struct {name}: expected a list of member declarations, found {members!r}")
    fields: list[Field] = []
    seen: set[str] = set()
    offset, align = 0, 1
    for entry in members:
        decl = parse_decl(entry, f"{where}: {name}")
        at = f"{where}: {name}.{decl.name}"
        etype: CType | Struct
        if decl.type in known:
            etype = known[decl.type]
        else:
            try:
                etype = c_type(decl.type)
            except KeyError:
                raise FormatError(where, f"unknown type {decl.type!r} (a C type of the table, or a struct "
                                  f"declared above)", field=f"{name}.{decl.name}") from None
        dims = tuple(resolve(d, env, at) for d in decl.dims)
        if any(d <= 0 for d in dims):
            raise FormatError(where, f"array extent {list(dims)} must be positive", field=f"{name}.{decl.name}")
        member_align = etype.align if decl.align is None else resolve(decl.align, env, at)
        if member_align <= 0 or member_align & (member_align - 1):
            raise FormatError(where, f"alignment {member_align} is not a power of two", field=f"{name}.{decl.name}")
        if decl.at is not None:
            place = resolve(decl.at, env, at)
            if place < offset:
                raise FormatError(where, f"placed at {place}, before the end of the member above ({offset})",
                                  field=f"{name}.{decl.name}")
            offset = place
        else:
            offset = _round_up(offset, member_align)
        if decl.name in seen:
            raise FormatError(where, "declared twice", field=f"{name}.{decl.name}")
        seen.add(decl.name)
        fields.append(Field(decl.name, etype, dims, offset, decl.dims, decl.notes))
        offset += etype.size * math.prod(dims)
        align = max(align, member_align)
    return Struct(name, tuple(fields), _round_up(offset, align), align)


@dataclass(frozen=True, eq=False)
class Schema:
    """One layout file compiled at one variant: its constants and its structs by name."""

    source: str
    constants: dict[str, int]
    structs: dict[str, Struct]

    def struct(self, name: str) -> Struct:
        try:
            return self.structs[name]
        except KeyError:
            raise FormatError(self.source, f"no struct {name}; declared: {', '.join(self.structs)}") from None


def compile_schema(doc: Mapping[str, Any], source: str, constants: Mapping[str, int] | None = None,
                   variant: str | None = None, extra: Mapping[str, Any] | None = None) -> Schema:
    """Compile layout file ``doc`` (its ``constants``, ``structs`` and ``expect``): ``constants``
    are given before the file's own (``TIDL_MAX_NUM_CORES``); ``variant`` (``"c4"``) selects the
    ``expect`` entries written ``struct/c4``; ``extra`` are more structs (name -> members) laid
    out after the file's, with its constants and structs (the net files' ``params``)."""
    if not isinstance(doc, Mapping) or not isinstance(doc.get("structs"), Mapping):
        raise FormatError(source, "expected a mapping with 'structs' (name -> member declarations)")
    env: dict[str, int] = dict(constants or {})
    for name, expr in (doc.get("constants") or {}).items():
        env[str(name)] = resolve(expr, env, f"{source}: constants.{name}")
    done: dict[str, Struct] = {}
    for name, members in doc["structs"].items():
        done[str(name)] = lay_out(str(name), members, env, done, source)
    for name, members in (extra or {}).items():
        done[str(name)] = lay_out(str(name), members, env, done, source)
    schema = Schema(source, env, done)
    check_expect(schema, doc.get("expect") or {}, variant)
    return schema


def check_expect(schema: Schema, expect: Mapping[str, Any], variant: str | None) -> None:
    """Check the ``expect`` entries (``struct[/variant]: {size: N, member.path: offset}``)."""
    for key, wanted in expect.items():
        name, _, only = str(key).partition("/")
        if only and only != variant:
            continue
        struct = schema.struct(name)
        for path, value in wanted.items():
            try:
                found = struct.size if path == "size" else struct.offset(str(path))
            except KeyError as exc:
                raise FormatError(schema.source, f"expect: {exc.args[0]}", field=f"{key}.{path}") from None
            if found != value:
                raise FormatError(schema.source, f"expected {value}, the members give {found}",
                                  field=f"expect {key}.{path}")


def load_yaml(path: Path) -> Any:
    """A layout file's YAML (the C loader when PyYAML has it)."""
    import yaml  # start-up

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with path.open("rb") as fh:
        return yaml.load(fh, Loader=loader)


# ---- the NumPy emitter -------------------------------------------------------------------

@functools.cache
def numpy_dtype(struct: Struct, strings: bool = False) -> np.dtype:
    """``struct`` as a NumPy structured dtype with the engine's offsets and size. Opaque bytes
    (a ``union``) are one ``V<n>`` field; with ``strings``, a byte array (``int8_t``/``char``)
    is ``S<n>`` over its last extent (``int8_t name[32][512]`` -> 32 x ``S512``)."""
    names, formats, offsets = [], [], []
    for f in struct.fields:
        shape = f.dims
        if isinstance(f.ctype, Struct):
            sub = numpy_dtype(f.ctype, strings)
        elif f.ctype.kind == "opaque":
            sub, shape = np.dtype(f"V{f.nbytes}"), ()
        elif strings and f.ctype.size == 1 and f.ctype.kind in ("int", "char") and shape:
            sub, shape = np.dtype(f"S{shape[-1]}"), shape[:-1]
        else:
            sub = np.dtype(f.ctype.numpy)
        names.append(f.name)
        formats.append((sub, shape) if shape else sub)
        offsets.append(f.offset)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": struct.size})
