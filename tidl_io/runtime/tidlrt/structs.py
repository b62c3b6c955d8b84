"""TIDL-RT's C structs as data: ``schemas/tidlrt/*.yaml`` laid out by the layout engine
(:mod:`tidl_io.base.structs`) and emitted as ``ctypes`` structures.

One YAML per layout family (``T4P-a`` .. ``T6P-d``) declares ``sTIDLRT_PerfStats_t``,
``sTIDLRT_Tensor_t`` and ``sTIDLRT_Params_t`` member by member with TI's names, and what
``TIDLRT_setParamsDefault`` / ``TIDLRT_setTensorDefault`` write (the fingerprint); which
release uses which family is the release table's (:mod:`tidl_io.base.releases`). Nothing here
touches a library: :func:`match_fingerprint` reads bytes a default-setter wrote.
"""

from __future__ import annotations

import ctypes
import functools
import math
import struct
from dataclasses import dataclass, field
from typing import Any

from ...base.errors import FormatError
from ...base.releases import release_table
from ...base.structs import Struct, c_type, compile_schema, load_yaml
from ...iodesc.schema import schema_dir

__all__ = [
    "Family",
    "Member",
    "StructLayout",
    "families",
    "family",
    "match_fingerprint",
    "releases",
]

PARAMS, TENSOR, PERF = "sTIDLRT_Params_t", "sTIDLRT_Tensor_t", "sTIDLRT_PerfStats_t"

# the engine's (kind, size) of a C type -> its ctypes type
_CTYPES: dict[tuple[str, int], Any] = {
    ("char", 1): ctypes.c_char, ("int", 1): ctypes.c_int8, ("uint", 1): ctypes.c_uint8,
    ("int", 2): ctypes.c_int16, ("uint", 2): ctypes.c_uint16, ("int", 4): ctypes.c_int32,
    ("uint", 4): ctypes.c_uint32, ("int", 8): ctypes.c_int64, ("uint", 8): ctypes.c_uint64,
    ("float", 4): ctypes.c_float, ("float", 8): ctypes.c_double, ("pointer", 8): ctypes.c_void_p,
}
FLT_MAX = struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0]


@dataclass(frozen=True)
class Member:
    """One member of one struct: C type, array extent, byte offset, documented default."""

    name: str
    ctype: str
    count: int  # 1 for a scalar
    is_array: bool
    offset: int
    size: int  # bytes of one element
    default: Any = None  # None: never written by the default-setter

    @property
    def nbytes(self) -> int:
        return self.count * self.size


@dataclass(frozen=True)
class StructLayout:
    """One C struct of one family, with its ``ctypes.Structure`` class."""

    name: str
    members: tuple[Member, ...]
    size: int
    ctype: Any = field(repr=False, compare=False)

    def member(self, name: str) -> Member:
        for m in self.members:
            if m.name == name:
                return m
        raise KeyError(f"{self.name} has no member {name!r}")

    def has(self, name: str) -> bool:
        return any(m.name == name for m in self.members)


@dataclass(frozen=True)
class Family:
    """A TIDL-RT layout family: its three structs and facts from its schema file."""

    key: str
    title: str
    io_families: tuple[str, ...]
    shared_memory: bool
    structs: dict[str, StructLayout] = field(repr=False, compare=False)
    schema_file: str = ""

    @property
    def params(self) -> StructLayout:
        return self.structs[PARAMS]

    @property
    def tensor(self) -> StructLayout:
        return self.structs[TENSOR]

    @property
    def perf(self) -> StructLayout:
        return self.structs[PERF]

    @property
    def six_d(self) -> bool:
        """Whether tensors carry (N, DIM1, DIM2, C, H, W) (else (N, C, H, W))."""
        return self.tensor.member("dimValues").count == 6

    @property
    def has_buffer_size(self) -> bool:
        return self.tensor.has("bufferSize")

    def describe(self) -> str:
        return (f"{self.key} ({self.title}; Params {self.params.size} B, Tensor {self.tensor.size} B, "
                f"PerfStats {self.perf.size} B)")


def ctypes_struct(struct: Struct, where: str) -> Any:
    """The ctypes emitter: ``struct`` as a ``ctypes.Structure`` class, whose offsets and size
    ctypes computes again and must find equal to the engine's."""
    fields: list[tuple[str, Any]] = []
    for f in struct.fields:
        if isinstance(f.ctype, Struct):
            base = ctypes_struct(f.ctype, where)
        elif (f.ctype.kind, f.ctype.size) in _CTYPES:
            base = _CTYPES[(f.ctype.kind, f.ctype.size)]
        else:
            raise FormatError(where, f"no ctypes type for {f.ctype.name}", field=f"{struct.name}.{f.name}")
        for extent in reversed(f.dims):
            base = base * extent
        fields.append((f.name, base))
    cls = type(struct.name, (ctypes.Structure,), {"_fields_": fields})
    for f in struct.fields:
        if getattr(cls, f.name).offset != f.offset:
            raise FormatError(where, f"ctypes places it at {getattr(cls, f.name).offset}, the layout at {f.offset} "
                              f"(a placement or alignment ctypes cannot express)", field=f"{struct.name}.{f.name}")
    if ctypes.sizeof(cls) != struct.size:
        raise FormatError(where, f"ctypes gives {ctypes.sizeof(cls)} bytes, the layout {struct.size}", field=struct.name)
    return cls


def _layout(struct: Struct, where: str) -> StructLayout:
    members = tuple(Member(f.name, f.ctype.name, f.count, bool(f.dims), f.offset, f.elem_size, f.notes.get("default"))
                    for f in struct.fields)
    return StructLayout(struct.name, members, struct.size, ctypes_struct(struct, where))


def _compile(doc: dict[str, Any], schema_file: str) -> Family:
    schema = compile_schema(doc, schema_file)
    structs = {name: _layout(struct, schema_file) for name, struct in schema.structs.items()}
    return Family(str(doc["family"]), str(doc["title"]), tuple(doc["io_families"]), bool(doc["shared_memory"]),
                  structs, schema_file)


def _dir() -> Any:
    return schema_dir() / "tidlrt"


@functools.cache
def families() -> dict[str, Family]:
    """Every TIDL-RT layout family by key, from ``schemas/tidlrt/*.yaml``."""
    found = {}
    for path in sorted(_dir().glob("*.yaml")):
        fam = _compile(load_yaml(path), path.name)
        found[fam.key] = fam
    return found


def family(key: str) -> Family:
    try:
        return families()[key]
    except KeyError:
        raise KeyError(f"unknown TIDL-RT layout family {key!r}; known: {', '.join(families())}") from None


def releases() -> dict[str, str | None]:
    """TIDL release ("08.06") -> family key, None where not established (the release table's
    ``tidlrt`` column)."""
    return {row.release.ti: row.tidlrt for row in release_table()}


# ---- the fingerprint ------------------------------------------------------------------

def _element(raw: bytes, m: Member, i: int) -> Any:
    fmt = "<" + c_type(m.ctype).struct_format
    return struct.unpack_from(fmt, raw, m.offset + i * m.size)[0]


def _expected_ok(value: Any, want: Any, ctype: str) -> bool:
    if want == "any":
        return True
    if want == "nonnull":
        return value != 0
    if want == "FLT_MAX":
        return value == FLT_MAX
    if ctype == "float":
        return not math.isnan(value) and value == float(want)
    return bool(value == want)


def fingerprint_problems(layout: StructLayout, raw: bytes, touched: set[int]) -> list[str]:
    """Why the bytes a default-setter left (``raw``, ``touched``: offsets it changed) do not
    fit ``layout``'s documented defaults; [] when they do. A byte changed outside every
    member with a default, or beyond the struct, disqualifies; so does a wrong value."""
    problems = []
    allowed: set[int] = set()
    for m in layout.members:
        want = m.default
        if want is None:
            continue
        if m.ctype == "char":  # a string default: the text and its NUL, the rest may be anything
            allowed.update(range(m.offset, m.offset + m.nbytes))
            if want == "any":
                continue
            text = bytes(raw[m.offset:m.offset + m.nbytes]).split(b"\0", 1)[0]
            if text != str(want).encode():
                problems.append(f"{m.name}: expected {want!r}, found {text[:40]!r}")
            allowed.update(range(m.offset, m.offset + m.nbytes))
            continue
        wants = want if isinstance(want, list) else [want]
        for i, w in enumerate(wants):
            if w is None:
                continue
            lo = m.offset + i * m.size
            allowed.update(range(lo, lo + m.size))
            if w == "any":
                continue
            value = _element(raw, m, i)
            if set(range(lo, lo + m.size)).isdisjoint(touched):
                problems.append(f"{m.name}{f'[{i}]' if m.is_array else ''}: not written (expected {w})")
            elif not _expected_ok(value, w, m.ctype):
                problems.append(f"{m.name}{f'[{i}]' if m.is_array else ''}: expected {w}, found {value!r}")
    stray = sorted(touched - allowed)
    if stray:
        beyond = [o for o in stray if o >= layout.size]
        if beyond:
            problems.append(f"wrote byte(s) {beyond[0]}..{beyond[-1]}, beyond this layout's {layout.size} bytes")
        inside = [o for o in stray if o < layout.size]
        if inside:
            names = sorted({_member_at(layout, o) for o in inside})
            problems.append(f"wrote byte(s) it should not: {', '.join(names)}")
    return problems


def _member_at(layout: StructLayout, offset: int) -> str:
    for m in layout.members:
        if m.offset <= offset < m.offset + m.nbytes:
            return m.name
    return f"padding at byte {offset}"


@dataclass(frozen=True)
class Fingerprint:
    """What a library's default-setters wrote, and which families fit it."""

    params_touched: int  # highest byte offset written + 1
    tensor_touched: int
    matches: tuple[str, ...]
    problems: dict[str, list[str]]

    def summary(self) -> str:
        if self.matches:
            return f"matches {', '.join(self.matches)}"
        return "matches no known family (" + "; ".join(
            f"{k}: {p[0]}" for k, p in self.problems.items() if p) + ")"


def match_fingerprint(params: tuple[bytes, set[int]], tensor: tuple[bytes, set[int]]) -> Fingerprint:
    """Families whose Params and Tensor defaults both fit what the default-setters wrote
    (each given as the raw bytes and the set of changed offsets)."""
    matches, problems = [], {}
    for key, fam in families().items():
        p = fingerprint_problems(fam.params, *params) + fingerprint_problems(fam.tensor, *tensor)
        problems[key] = p
        if not p:
            matches.append(key)
    return Fingerprint(max(params[1], default=-1) + 1, max(tensor[1], default=-1) + 1, tuple(matches), problems)
