"""Net file layouts as data: ``schemas/net/*.yaml`` compiled to NumPy structured dtypes.

Each layout file lists TI's C structs member by member (``"int32_t inData[TIDL_NUM_IN_BUFS]"``,
TI's names verbatim); the layout engine (:mod:`tidl_io.base.structs`) lays them out as a 64-bit C
compiler does and checks the offsets the file states under ``expect``; this module takes
the header and layer dtypes from its NumPy emitter. ``common.yaml`` declares what every net
file shares (the start of the header, read before the layout is known, and the structure
buffer's rounding). Which TIDL_NET_VERSION uses which layout file, and which releases write
it, is the release table's (``schemas/releases.yaml``, :mod:`tidl_io.base.releases`). Nothing here
reads a net file.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..base.errors import FormatError
from ..base.releases import ReleaseTable, release_table, releases_text
from ..base.structs import Schema, Struct, compile_schema, load_yaml, numpy_dtype
from ..iodesc.schema import schema_dir

__all__ = ["NetLayout", "NetVersion", "common", "fields_of", "layout_for", "layouts", "net_versions"]

HEADER, LAYER, START = "sTIDL_Network_t", "sTIDL_Layer_t", "sTIDL_NetworkStart_t"


@dataclass(frozen=True)
class NetVersion:
    """A TIDL_NET_VERSION as the release table gives it: its releases ("09.00", ...), its layout file."""

    value: int
    releases: tuple[str, ...]
    layout_file: str

    @property
    def release(self) -> str:
        """The releases as people write them: ``"9.0/9.1"``, ``"10.0"``."""
        return releases_text(self.releases)


def net_versions() -> dict[int, NetVersion]:
    """TIDL_NET_VERSION -> :class:`NetVersion`, from the release table (``schemas/releases.yaml``)."""
    return _net_versions(release_table())


@functools.lru_cache(maxsize=4)  # per table: the shipped one, or a few a test installs
def _net_versions(table: ReleaseTable) -> dict[int, NetVersion]:
    return {w: NetVersion(w, tuple(r.ti for r in rels), str(table.net_layout(w)))
            for w, rels in table.net_versions().items()}


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
    constants: dict[str, int] = field(default_factory=dict, repr=False)  # the file's and common.yaml's
    structs: dict[str, Struct] = field(default_factory=dict, repr=False, compare=False)  # the engine's, by name
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
        """Bytes of the header plus ``num_layers`` layers (before the structure buffer's padding)."""
        return self.header_size + num_layers * self.layer_size

    def structure_end(self, num_layers: int) -> int:
        """End of the structure buffer: :meth:`structure_size` rounded up to
        TIDL_NET_STRUCTURE_ALIGN (``common.yaml``)."""
        align = self.constants["TIDL_NET_STRUCTURE_ALIGN"]
        return -(-self.structure_size(num_layers) // align) * align

    def offset(self, path: str, struct: str = "layer") -> int:
        """Byte offset of member ``path`` (``"outData.tensorScale"``, ``"netBufInfo[2].size"``)
        in the header or a layer, from the layout engine."""
        return self.structs[HEADER if struct == "header" else LAYER].offset(path)

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

@functools.cache
def common() -> Schema:
    """``common.yaml``: the start of every net header (read before the layout is known) and
    the constants every layout shares (the structure buffer's rounding, the bytes read first)."""
    return compile_schema(load_yaml(schema_dir() / "net" / "common.yaml"), "common.yaml")


@functools.cache
def _layer_types() -> dict[str, list[str]]:
    doc = load_yaml(schema_dir() / "net" / "layer_types.yaml")
    return {str(k): [str(n) for n in v] for k, v in doc.items()}


def _check_start(header: Struct, schema_file: str) -> None:
    """The header starts with common.yaml's members (same names, offsets and sizes), and fits
    in the bytes read first."""
    shared = common()
    for f in shared.struct(START).fields:
        mine = header.member(f.name) if header.has(f.name) else None
        if mine is None or (mine.offset, mine.nbytes) != (f.offset, f.nbytes):
            raise FormatError(schema_file, f"{HEADER} must start like every net header: {f.name} at {f.offset} "
                              f"({f.nbytes} bytes) (common.yaml)", field=f"{HEADER}.{f.name}")
    most = shared.constants["TIDL_NET_HEAD_MAX"]
    if header.size > most:
        raise FormatError(schema_file, f"{header.size}-byte header, more than TIDL_NET_HEAD_MAX ({most}) of "
                          f"common.yaml", field=HEADER)


def _compile(doc: dict[str, Any], cores: int | None, schema_file: str) -> NetLayout:
    env = dict(common().constants)
    if cores is not None:
        env["TIDL_MAX_NUM_CORES"] = cores
    params_doc = {str(k): v for k, v in (doc.get("params") or {}).items()}
    schema = compile_schema(doc, schema_file, env, None if cores is None else f"c{cores}", params_doc)
    header, layer = schema.struct(HEADER), schema.struct(LAYER)
    _check_start(header, schema_file)
    union = layer.member("layerParams").nbytes
    params = {}
    for type_name in params_doc:
        struct = schema.structs[type_name]
        if struct.size > union:
            raise FormatError(schema_file, f"{struct.size} bytes, more than layerParams ({union})",
                              field=f"params.{type_name}")
        params[type_name] = numpy_dtype(struct)
    spec = doc["layer_types"]
    table: list[str | None] = list(_layer_types()[spec["table"]])
    for code, name in (spec.get("extra") or {}).items():
        table += [None] * (int(code) + 1 - len(table))
        table[int(code)] = str(name)
    return NetLayout(
        family=str(doc["family"]), title=str(doc["title"]), cores=cores, schema_file=schema_file,
        header=numpy_dtype(header), layer=numpy_dtype(layer), layer_types=tuple(table),
        params=params, sections=tuple(doc.get("sections") or ()), constants=schema.constants,
        structs={HEADER: header, LAYER: layer}, compiler_info=_compiler_info(doc.get("compiler_info"), schema_file))


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
    doc = load_yaml(schema_dir() / "net" / schema_file)
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
