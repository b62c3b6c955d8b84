"""Net file layouts as data: ``schemas/net/*.yaml`` compiled to NumPy structured dtypes.

Each layout file lists TI's C structs member by member (``"int32_t inData[TIDL_NUM_IN_BUFS]"``,
TI's names verbatim); this module lays them out as a 64-bit C compiler does (natural
alignment, a ``void*`` is 8 bytes) and checks the result against the offsets the file
states under ``expect``. ``versions.yaml`` maps TIDL_NET_VERSION to the releases that write
it and to a layout: the one table, also read by the TIDL-RT binding. Nothing here reads a
net file.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._schema import _load_yaml, _resolve, _schema_dir

__all__ = ["NetLayout", "NetVersion", "fields_of", "layout_for", "layouts", "net_versions", "release_text"]

# C type -> (NumPy dtype, alignment)
_CTYPES: dict[str, tuple[str, int]] = {
    "int32_t": ("<i4", 4), "uint32_t": ("<u4", 4), "float32_tidl": ("<f4", 4),
    "int8_t": ("i1", 1), "uint8_t": ("u1", 1), "void*": ("<u8", 8),
}
_MEMBER = re.compile(r"^\s*(?P<type>[A-Za-z_][A-Za-z0-9_]*\*?)\s+(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
                     r"(?P<dims>(\s*\[[^\]]+\])*)\s*$")
_DIM = re.compile(r"\[([^\]]+)\]")


@dataclass(frozen=True)
class NetVersion:
    """One row of the version table: a TIDL_NET_VERSION, its releases ("09.00", ...), its layout file."""

    value: int
    releases: tuple[str, ...]
    layout_file: str

    @property
    def release(self) -> str:
        """The releases as people write them: ``"9.0/9.1"``, ``"10.0"``."""
        return release_text(self.releases)


def release_text(releases: tuple[str, ...]) -> str:
    """``("09.00", "09.01")`` -> ``"9.0/9.1"``."""
    out = []
    for r in releases:
        major, _, minor = r.partition(".")
        out.append(f"{int(major)}.{int(minor)}" if major.isdigit() and minor.isdigit() else r)
    return "/".join(out)


@functools.cache
def net_versions() -> dict[int, NetVersion]:
    """TIDL_NET_VERSION -> :class:`NetVersion`, from ``schemas/net/versions.yaml``."""
    doc = _load_yaml(_schema_dir() / "net" / "versions.yaml")
    return {int(k): NetVersion(int(k), tuple(str(r) for r in v["releases"]), str(v["layout"]))
            for k, v in doc.items()}


def known_versions_text() -> str:
    """``0x20211201 (8.2), 0x20230208 (8.6), ...`` for messages."""
    return ", ".join(f"{v:#010x} ({nv.release})" for v, nv in sorted(net_versions().items()))


@dataclass(frozen=True)
class NetLayout:
    """One layout family at one core count: the header and layer dtypes, and what to read."""

    family: str
    title: str
    cores: int | None  # TIDL_MAX_NUM_CORES of the header variant; None where the header has none
    schema_file: str
    header: np.dtype = field(repr=False)  # sTIDL_Network_t up to (without) TIDLLayers
    layer: np.dtype = field(repr=False)  # sTIDL_Layer_t
    layer_types: tuple[str | None, ...] = field(repr=False)
    params: dict[str, np.dtype] = field(repr=False)  # TI layer type name -> dtype of its params' prefix
    sections: tuple[str, ...] = ()  # names of the netBufInfo entries; () when the file has no table
    constants: dict[str, int] = field(default_factory=dict, repr=False)
    # where the file records no size for its compiler info (8.2): the info's leading words and the
    # least size an info starting with them has (the schema's ``compiler_info``; see tidl_8_2.yaml)
    compiler_info: tuple[tuple[int, ...], int] | None = field(default=None, repr=False)

    @property
    def key(self) -> str:
        """``"10.0/c4"``, or ``"8.6"`` for a layout without core variants."""
        return self.family if self.cores is None else f"{self.family}/c{self.cores}"

    @property
    def header_size(self) -> int:
        return self.header.itemsize

    @property
    def layer_size(self) -> int:
        return self.layer.itemsize

    @property
    def max_layers(self) -> int:
        return self.constants["TIDL_NUM_MAX_LAYERS"]

    def structure_size(self, num_layers: int) -> int:
        """Bytes of the header plus ``num_layers`` layers (before the 64-byte padding)."""
        return self.header_size + num_layers * self.layer_size

    def offset(self, path: str, struct: str = "layer") -> int:
        """Byte offset of member ``path`` (``"outData.tensorScale"``) in the header or a layer."""
        dtype = self.header if struct == "header" else self.layer
        total = 0
        for part in path.split("."):
            base = dtype.base if dtype.subdtype else dtype
            sub, off = fields_of(base)[part][:2]
            total += off
            dtype = sub
        return total

    def type_name(self, code: int) -> str | None:
        """TI's name of layer type ``code`` in this release, None if the table has none."""
        return self.layer_types[code] if 0 <= code < len(self.layer_types) else None


def fields_of(dtype: np.dtype) -> Mapping[str, Any]:
    """``dtype.fields`` of a structured dtype (never None here)."""
    fields = dtype.fields
    if fields is None:
        raise TypeError(f"not a structured dtype: {dtype}")
    return fields


# ---- the compiler -----------------------------------------------------------------------

def _parse_member(text: str, where: str) -> tuple[str, str, list[str]]:
    m = _MEMBER.match(str(text))
    if m is None:
        raise ValueError(f"{where}: cannot read member {text!r}; expected 'type name[dim]...'")
    return m["type"], m["name"], _DIM.findall(m["dims"] or "")


def _align(value: int, to: int) -> int:
    return -(-value // to) * to


def _compile_struct(name: str, members: list[Any], env: dict[str, int],
                    done: dict[str, tuple[np.dtype, int]], where: str) -> tuple[np.dtype, int]:
    """(dtype, alignment) of struct ``name``, members laid out with natural alignment; a
    member written ``"type name @N"`` is placed at offset N (for a prefix of a struct whose
    earlier members are not known)."""
    names, formats, offsets = [], [], []
    offset, align = 0, 1
    for text in members:
        text = str(text)
        at = None
        if "@" in text:
            text, _, pos = text.partition("@")
            at = int(pos)
        ctype, member, dims = _parse_member(text, f"{where}: {name}")
        shape = tuple(_resolve(d, env, f"{where}: {name}.{member}") for d in dims)
        if ctype == "union":  # opaque bytes: the layer-type parameter union
            (size,) = shape
            sub, sub_align, shape = np.dtype(f"V{size}"), 4, ()
        elif ctype in _CTYPES:
            code, sub_align = _CTYPES[ctype]
            sub = np.dtype(code)
        elif ctype in done:
            sub, sub_align = done[ctype]
        else:
            raise ValueError(f"{where}: {name}.{member}: unknown type {ctype!r} (define the struct first)")
        offset = at if at is not None else _align(offset, sub_align)
        names.append(member)
        formats.append((sub, shape) if shape else sub)
        offsets.append(offset)
        offset += sub.itemsize * int(np.prod(shape, dtype=np.int64))
        align = max(align, sub_align)
    size = _align(offset, align)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": size}), align


def _check_expect(layout: NetLayout, expect: dict[str, dict[str, int]], structs: dict[str, np.dtype]) -> None:
    for key, wanted in expect.items():
        struct, _, variant = key.partition("/")
        if variant and variant != f"c{layout.cores}":
            continue
        dtype = structs[struct]
        for member, value in wanted.items():
            found = dtype.itemsize if member == "size" else fields_of(dtype)[member][1]
            if found != value:
                raise ValueError(f"{layout.schema_file}: {struct}{'/' + variant if variant else ''}.{member}: "
                                 f"expected {value}, the members give {found}")


@functools.cache
def _layer_types() -> dict[str, list[str]]:
    doc = _load_yaml(_schema_dir() / "net" / "layer_types.yaml")
    return {str(k): [str(n) for n in v] for k, v in doc.items()}


def _compile(doc: dict[str, Any], cores: int | None, schema_file: str) -> NetLayout:
    env: dict[str, int] = {} if cores is None else {"TIDL_MAX_NUM_CORES": cores}
    for name, expr in doc["constants"].items():
        env[name] = _resolve(expr, env, f"{schema_file}: constants.{name}")
    done: dict[str, tuple[np.dtype, int]] = {}
    for name, members in doc["structs"].items():
        done[name] = _compile_struct(name, members, env, done, schema_file)
    params = {}
    for type_name, members in (doc.get("params") or {}).items():
        params[str(type_name)] = _compile_struct(type_name, members, env, done, f"{schema_file}: params")[0]
    spec = doc["layer_types"]
    table: list[str | None] = list(_layer_types()[spec["table"]])
    for code, name in (spec.get("extra") or {}).items():
        table += [None] * (int(code) + 1 - len(table))
        table[int(code)] = str(name)
    layout = NetLayout(
        family=str(doc["family"]), title=str(doc["title"]), cores=cores, schema_file=schema_file,
        header=done["sTIDL_Network_t"][0], layer=done["sTIDL_Layer_t"][0], layer_types=tuple(table),
        params=params, sections=tuple(doc.get("sections") or ()), constants=env,
        compiler_info=_compiler_info(doc.get("compiler_info"), schema_file))
    union = fields_of(layout.layer)["layerParams"][0].itemsize
    for type_name, dtype in params.items():
        if dtype.itemsize > union:
            raise ValueError(f"{schema_file}: params.{type_name}: {dtype.itemsize} bytes, more than layerParams "
                             f"({union})")
    _check_expect(layout, doc.get("expect") or {}, {k: v[0] for k, v in done.items()})
    return layout


def _compiler_info(spec: Any, schema_file: str) -> tuple[tuple[int, ...], int] | None:
    if spec is None:
        return None
    try:
        return tuple(int(v) for v in spec["leading_words"]), int(spec["min_size"])
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"{schema_file}: compiler_info: expected leading_words (a list of integers) and "
                         f"min_size (an integer)") from None


@functools.cache
def _layouts_of(schema_file: str) -> tuple[NetLayout, ...]:
    doc = _load_yaml(_schema_dir() / "net" / schema_file)
    cores = doc.get("cores")
    return tuple(_compile(doc, None if cores is None else int(c), schema_file) for c in (cores or [None]))


def layout_for(net_version: int) -> tuple[NetLayout, ...]:
    """The layout variants (one per header core count) of ``net_version``; () if unknown."""
    entry = net_versions().get(int(net_version))
    return () if entry is None else _layouts_of(entry.layout_file)


def layouts() -> tuple[NetLayout, ...]:
    """Every known net layout variant, each once."""
    files = sorted({v.layout_file for v in net_versions().values()})
    return tuple(lay for f in files for lay in _layouts_of(f))
