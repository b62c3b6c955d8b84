"""Read ``*_tidl_net.bin``: identify the layout by netVersion, then parse the structure part.

Only the header, the ``numLayers`` layers and the ``netBufInfo`` table are read; the other
sections (weights, compiler info) are located from the table and the file size, never read.
Every check failure is a :class:`~tidl_io.FormatError` naming the file, byte offset, field
(``TIDLLayers[3].numInBufs``) and what was expected.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import os
import struct
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, cast

import numpy as np

from ..base.check import check_path, open_regular, wrong_kind
from ..base.errors import FormatError, PathError, TidlIoError
from ..base.structs import Struct
from ..base.text import short
from ..iodesc.descriptor import load
from .layerinfo import read_layer_info
from .model import UNNAMED_TYPE, Layer, Network, Section, decide_layouts
from .schema import HEADER, START, NetLayout, common, fields_of, known_versions_text, layout_for, net_versions

__all__ = ["find_layer_info", "io_file_of", "layer_info_paths", "load_net", "parse_net"]

_EXPECTED = "a TIDL network file (*_tidl_net.bin)"


def parse_net(data: bytes | bytearray | memoryview, source: str = "<bytes>") -> Network:
    """Parse the bytes of a ``*_tidl_net.bin`` (the whole file: its size locates the sections).

    ``source`` names the data in error messages. Layers get no names (those come from
    ``layer_info.txt``, which :func:`load_net` reads). Raises :class:`~tidl_io.FormatError`.
    """
    if not isinstance(source, str):
        raise wrong_kind("parse_net", "source", source, "a str naming the data in messages")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        hint = "; to read a file, use tidl_io.load_net(path)" if isinstance(data, (str, os.PathLike)) else ""
        raise wrong_kind("parse_net", "data", data, "the file's bytes (bytes, bytearray or memoryview)", hint)
    data = bytes(data)
    return _parse(data, len(data), source)


def load_net(path: str | os.PathLike[str]) -> Network:
    """Read a ``*_tidl_net.bin``: its structure part only (a few hundred KB at most; the
    weights are located, never read), plus layer names from ``<net>.layer_info.txt`` beside
    it or in ``tempDir/`` when TI left one there and it is this net's (see
    :attr:`Network.layer_info_error`).

    A missing path or a folder raise :class:`~tidl_io.PathError` subclasses; bad contents
    :class:`~tidl_io.FormatError` with the byte offset, layer and field.
    """
    name = check_path(path, "load_net", "path", "; to parse a file's bytes use tidl_io.parse_net(data)")
    with open_regular(name, _EXPECTED) as fh:
        try:
            size = os.fstat(fh.fileno()).st_size
            head = fh.read(common().constants["TIDL_NET_HEAD_MAX"])
            need = _structure_extent(head, max(size, len(head)), name)
            # one buffer: the structure part, read once; never more than the file holds (a short
            # file claiming many layers is reported truncated by _parse)
            data = bytearray(max(min(need, size), len(head)))
            data[: len(head)] = head
            reader = cast(io.BufferedReader, fh)  # open_regular gives os.fdopen's BufferedReader
            got = len(head) + (reader.readinto(memoryview(data)[len(head):]) or 0) if need > len(head) else len(head)
            del data[got:]
            fd = fh.fileno()
            net = _parse(data, max(size, got), name, lambda offset, n: os.pread(fd, n, offset))
        except OSError as exc:
            raise PathError(name, f"cannot read: {exc.strerror or exc}; expected {_EXPECTED}", exc.errno) from None
    return _with_names(net)


# ---- identification ---------------------------------------------------------------------

def _start() -> Struct:
    """The start every net header shares (``common.yaml``): netVersion, ..., numLayers."""
    return common().struct(START)


def _word(head: bytes | bytearray, name: str) -> int:
    """Member ``name`` of the shared start of the header, where the layout engine puts it."""
    return int(_start().member(name).read(head))


def _version(head: bytes | bytearray, file_size: int, source: str) -> tuple[int, tuple[NetLayout, ...]]:
    f = _start().member("netVersion")
    if min(len(head), file_size) < f.end:
        raise FormatError(source, f"truncated: {min(len(head), file_size)} bytes; a net file starts with the "
                          f"{f.nbytes}-byte netVersion", offset=f.offset, field="netVersion")
    version = _word(head, "netVersion")
    variants = layout_for(version)
    if not variants and is_version_word(version):
        raise FormatError(source, f"a TIDL network file of a release tidl-io does not know (netVersion "
                          f"{version:#010x}, known: {known_versions_text()})", offset=f.offset, field="netVersion")
    if not variants:
        raise FormatError(source, f"netVersion {version:#010x} is not a TIDL net version tidl-io knows (known: "
                          f"{known_versions_text()}); not a net file, or one of a newer TIDL release",
                          offset=f.offset, field="netVersion")
    return version, variants


def _check_start(head: bytes | bytearray, source: str) -> None:
    """The bytes hold the shared start of the header (up to numLayers)."""
    if len(head) < _start().size:
        raise FormatError(source, f"truncated: {len(head)} bytes, inside the header", offset=len(head),
                          field="numLayers")


def _num_layers(head: bytes | bytearray, layout: NetLayout, source: str) -> int:
    n = _word(head, "numLayers")
    if not 1 <= n <= layout.max_layers:
        raise FormatError(source, f"expected 1..{layout.max_layers} (TIDL_NUM_MAX_LAYERS of {layout.title}), "
                          f"found {n}", offset=_start().offset("numLayers"), field="numLayers")
    return n


def _structure_extent(head: bytes | bytearray, file_size: int, source: str) -> int:
    """Bytes to read for the structure part (header + layers); checks version and numLayers."""
    _, variants = _version(head, file_size, source)
    _check_start(head, source)
    n = _num_layers(head, variants[0], source)
    return max(lay.structure_size(n) for lay in variants)


def _header_gaps_zero(layout: NetLayout, head: bytes | bytearray) -> bool:
    """Whether the header's padding bytes are zero (tells header variants apart)."""
    raw = np.frombuffer(head, np.uint8, layout.header_size)
    return not any(raw[lo:hi].any() for lo, hi in layout.structs[HEADER].padding())


def _variant_problem(layout: NetLayout, rec: Any, head: bytes | bytearray, n: int) -> str | None:
    """Why ``layout`` (one header core count) does not fit these bytes; None if it does."""
    if layout.sections:
        first = rec["netBufInfo"][0]
        need = layout.structure_size(n)
        if int(first["offset"]) != 0 or int(first["size"]) < need:
            return (f"netBufInfo[0] (structure) at offset {layout.offset('netBufInfo', 'header')} should be "
                    f"offset 0, size >= {need}; found offset {int(first['offset'])}, size {int(first['size'])}")
    if layout.cores is not None:
        cores = int(rec["numCores"])
        if not 1 <= cores <= layout.cores:
            return f"numCores at offset {layout.offset('numCores', 'header')}: expected 1..{layout.cores}, found {cores}"
        if not _header_gaps_zero(layout, head):
            return "header padding bytes are not zero"
    return None


def _choose(variants: tuple[NetLayout, ...], head: bytes | bytearray, n: int, source: str) -> tuple[NetLayout, Any]:
    if len(variants) == 1:
        layout = variants[0]
        return layout, np.frombuffer(head, layout.header, 1)[0]
    problems = []
    for layout in variants:
        if len(head) < layout.header_size:
            problems.append(f"{layout.key}: needs a {layout.header_size}-byte header")
            continue
        rec = np.frombuffer(head, layout.header, 1)[0]
        why = _variant_problem(layout, rec, head, n)
        if why is None:
            return layout, rec
        problems.append(f"{layout.key} ({layout.header_size}-byte header): {why}")
    raise FormatError(source, f"the header fits none of the {variants[0].title} header variants (TIDL_MAX_NUM_CORES "
                      f"{', '.join(str(v.cores) for v in variants)}): " + "; ".join(problems), offset=0,
                      field="sTIDL_Network_t")


# ---- sections ---------------------------------------------------------------------------

def _sections(layout: NetLayout, header: Mapping[str, Any], n: int, file_size: int, source: str,
              read_at: _ReadAt) -> tuple[Section, ...]:
    need = layout.structure_size(n)
    if not layout.sections:  # 8.2: no table; structure, parameters, then compiler info at dataFlowInfo
        end = layout.structure_end(n)
        flow = int(header["dataFlowInfo"])
        if end <= flow <= file_size:
            _check_compiler_info(layout, flow, file_size, source, read_at)
            return (Section("structure", 0, end), Section("parameters", end, flow - end),
                    Section("compiler", flow, file_size - flow))
        if flow == 0 and end <= file_size:
            return (Section("structure", 0, end), Section("parameters", end, file_size - end))
        if flow > file_size and end <= file_size:
            raise FormatError(source, f"truncated: {file_size} bytes, but the compiler info starts at {flow} "
                              f"(dataFlowInfo)", offset=layout.offset("dataFlowInfo", "header"), field="dataFlowInfo")
        raise FormatError(source, f"expected the compiler info to start between the structure's end ({end}) and the "
                          f"file's end ({file_size}), found {flow}", offset=layout.offset("dataFlowInfo", "header"),
                          field="dataFlowInfo")
    found = []
    for i, (name, info) in enumerate(zip(layout.sections, header["netBufInfo"])):
        off, size = int(info["offset"]), int(info["size"])
        if size < 0 or off < 0 or off + size > file_size:
            member = "size" if size < 0 else "offset"
            at = layout.offset(f"netBufInfo[{i}].{member}", "header")
            cut = "truncated: " if size >= 0 and 0 <= off <= file_size else ""
            raise FormatError(source, f"{cut}{name} section [{off}, {off + size}) lies outside the file "
                              f"(0..{file_size})", offset=at, field=f"netBufInfo[{i}].{member}")
        found.append(Section(name, off, size))
    structure = found[0]
    if structure.offset != 0 or structure.size < need:
        raise FormatError(source, f"structure section [{structure.offset}, {structure.end}) must start at 0 and "
                          f"hold the header and {n} layers ({need} bytes)",
                          offset=layout.offset("netBufInfo[0].size", "header"), field="netBufInfo[0]")
    ordered = sorted((s for s in found if s.size > 0), key=lambda s: s.offset)
    for a, b in itertools.pairwise(ordered):
        if b.offset < a.end:
            i = found.index(b)
            raise FormatError(source, f"{b.name} section [{b.offset}, {b.end}) overlaps {a.name} section "
                              f"[{a.offset}, {a.end})", offset=layout.offset(f"netBufInfo[{i}].offset", "header"),
                              field=f"netBufInfo[{i}].offset")
    return tuple(found)


def _check_compiler_info(layout: NetLayout, flow: int, file_size: int, source: str, read_at: _ReadAt) -> None:
    """8.2 records no size for the compiler info at ``flow``: where the schema knows the least
    size of an info starting with its leading words, a file ending before that is cut short."""
    if layout.compiler_info is None:
        return
    words, least = layout.compiler_info
    head = read_at(flow, 4 * len(words))
    if len(head) < 4 * len(words) or struct.unpack(f"<{len(words)}i", head) != words:
        return
    if file_size < flow + least:
        raise FormatError(source, f"truncated: {file_size} bytes, but the compiler info at {flow} (dataFlowInfo) "
                          f"holds at least {least} bytes, so the file should hold at least {flow + least}",
                          offset=file_size, field="dataFlowInfo")


# ---- records -> Python ------------------------------------------------------------------

def to_python(value: Any, dtype: np.dtype) -> Any:
    """A NumPy record/array value as plain Python: dicts by TI member name, lists, ints, floats
    (the opaque layerParams union is left out: its members are in ``Layer.params``)."""
    if dtype.subdtype is not None:
        base, _ = dtype.subdtype
        if base.names:
            return [to_python(v, base) for v in value]
        return np.asarray(value).tolist()
    if dtype.names:
        return {name: to_python(value[name], fields_of(dtype)[name][0]) for name in dtype.names
                if name != "layerParams"}
    return value.item() if hasattr(value, "item") else value


class _LazyRaw(Mapping[str, Any]):
    """``Layer.raw``: the record's fields as Python, converted on first use."""

    def __init__(self, rec: Any, dtype: np.dtype) -> None:
        self._rec, self._dtype = rec, dtype
        self._value: dict[str, Any] | None = None

    def _get(self) -> dict[str, Any]:
        if self._value is None:
            self._value = to_python(self._rec, self._dtype)
        return self._value

    def __getitem__(self, key: str) -> Any:
        return self._get()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())


def _column(arr: np.ndarray, path: str) -> np.ndarray:
    out = arr
    for part in path.split("."):
        out = out[part]
    return out


_ReadAt = Callable[[int, int], bytes]  # (offset, count) -> at most count bytes of the file there


def _parse(data: bytes | bytearray, file_size: int, source: str, read_at: _ReadAt | None = None) -> Network:
    version, variants = _version(data, file_size, source)
    _check_start(data, source)
    n = _num_layers(data, variants[0], source)
    smallest = min(v.header_size for v in variants)
    if len(data) < smallest:
        raise FormatError(source, f"truncated: {len(data)} bytes, inside the {smallest}-byte {variants[0].title} "
                          f"header", offset=len(data), field="sTIDL_Network_t")
    layout, rec = _choose(variants, data, n, source)
    need = layout.structure_size(n)
    if len(data) < need:
        k = max(0, (len(data) - layout.header_size) // layout.layer_size)
        raise FormatError(source, f"truncated: {len(data)} bytes, but the header and {n} layers of {layout.title} "
                          f"need {need}", offset=len(data),
                          field="sTIDL_Network_t" if len(data) < layout.header_size else f"TIDLLayers[{k}]")
    header = to_python(rec, layout.header)
    sections = _sections(layout, header, n, file_size, source,
                         read_at or (lambda offset, count: bytes(data[offset:offset + count])))
    arr = np.frombuffer(data, layout.layer, n, layout.header_size)
    layers = _layers(layout, arr, data, n, source)
    return Network(version, net_versions()[version].release, layout, layers, sections, header, file_size, source)


def _layers(layout: NetLayout, arr: np.ndarray, data: bytes | bytearray, n: int, source: str) -> tuple[Layer, ...]:
    c = layout.constants
    types = arr["layerType"].tolist()
    num_in = arr["numInBufs"].tolist()
    num_out = arr["numOutBufs"].tolist()
    for i in range(n):
        for member, value, top in (("numInBufs", num_in[i], c["TIDL_NUM_IN_BUFS"]),
                                   ("numOutBufs", num_out[i], c["TIDL_NUM_OUT_BUFS"])):
            if not -1 <= value <= top:
                raise FormatError(source, f"expected -1..{top}, found {value} (layer type {types[i]})",
                                  offset=layout.header_size + i * layout.layer_size + layout.offset(member),
                                  field=f"TIDLLayers[{i}].{member}")
    in_data = arr["inData"]
    in_ids = (in_data["dataId"] if in_data.dtype.names else in_data).tolist()
    out = arr["outData"]
    if out.ndim == 2:  # 8.2: outData[16], the first is the output
        out = out[:, 0]
    data_ids = out["dataId"].tolist()
    elements = out["elementType"].tolist()
    scales = out["tensorScale"].tolist()
    zero_points = out["tensorZeroPoint"].tolist() if "tensorZeroPoint" in fields_of(out.dtype) else [0] * n
    pad_w, pad_h = out["padW"].tolist(), out["padH"].tolist()
    pitches = out["pitch"].tolist()
    dims = out["dimValues"].tolist()
    params = _params(layout, data, n, types)
    layers = []
    for i in range(n):
        code = types[i]
        layers.append(Layer(
            index=i, type_code=code, type=layout.type_name(code) or f"{UNNAMED_TYPE}{code}", name=None,
            inputs=tuple(in_ids[i][:max(num_in[i], 0)]), num_in=num_in[i], num_out=num_out[i],
            data_id=None if code == 0 and num_out[i] < 0 else data_ids[i],  # an output data layer makes no buffer
            element_code=elements[i], dims=tuple(dims[i]), pads=(pad_w[i], pad_h[i]), pitches=tuple(pitches[i]),
            scale=scales[i], zero_point=zero_points[i], params=params[i], raw=_LazyRaw(arr[i], layout.layer)))
    for k, order in enumerate(decide_layouts(layers)):
        if order != layers[k].layout:
            layers[k] = dataclasses.replace(layers[k], layout=order)
    return tuple(layers)


def _params(layout: NetLayout, data: bytes | bytearray, n: int, types: list[int]) -> list[Mapping[str, Any]]:
    """Per layer, the known leading members of its type's struct in the layerParams union."""
    out: list[Mapping[str, Any]] = [{} for _ in range(n)]
    for type_name, dtype in layout.params.items():
        rows = [i for i in range(n) if layout.type_name(types[i]) == type_name]
        if not rows:
            continue
        view = np.ndarray((n,), dtype, data, layout.header_size + layout.offset("layerParams"), (layout.layer_size,))
        for i in rows:
            out[i] = to_python(view[i], dtype)
    return out


# ---- layer_info.txt ---------------------------------------------------------------------

def layer_info_paths(net_path: str) -> list[Path]:
    """Where TI leaves ``<net>.layer_info.txt``: beside the net, or in ``tempDir/`` there."""
    p = Path(net_path)
    name = p.name + ".layer_info.txt"
    return [p.parent / name, p.parent / "tempDir" / name]


def find_layer_info(net_path: str) -> Path | None:
    """The first ``layer_info.txt`` of :func:`layer_info_paths` that is there (a path that
    cannot even be looked at, too long say, is not there)."""
    for candidate in layer_info_paths(net_path):
        try:
            if candidate.exists():
                return candidate
        except (OSError, ValueError):
            continue
    return None


def io_file_of(net_path: str | os.PathLike[str]) -> Path:
    """Where TI's tools put the io descriptor of a net (whether or not it is there):
    ``NAME_tidl_net.bin`` -> ``NAME_tidl_io_1.bin``, ``tidl_net_NAME.bin`` -> ``tidl_io_NAME_1.bin``."""
    p = Path(net_path)
    if p.name.endswith("_tidl_net.bin"):
        return p.with_name(p.name[: -len("_tidl_net.bin")] + "_tidl_io_1.bin")
    if p.name.startswith("tidl_net_") and p.name.endswith(".bin"):
        return p.with_name("tidl_io_" + p.name[len("tidl_net_"): -len(".bin")] + "_1.bin")
    return p.with_name(p.stem + "_tidl_io_1.bin")


def _with_names(net: Network) -> Network:
    """``net`` with the names of its layer_info.txt when that file is this net's, else with
    ``layer_info_error`` saying why none are used."""
    path = find_layer_info(net.source)
    if path is None:
        return net
    try:
        info = {x.index: (x.data_id, x.name) for x in read_layer_info(path, len(net.layers))}
        why = _info_mismatch(net, info)
    except (FormatError, PathError) as exc:
        return dataclasses.replace(net, layer_info_error=f"{exc}: no layer names used")
    if why is not None:
        return dataclasses.replace(net, layer_info_error=f"{path}: {why}: no layer names used (the layer_info.txt "
                                   f"of another model or compilation?)")
    # the layers were made by load_net a moment ago and nobody holds them yet: named in place
    # (dataclasses.replace of 82 layers costs ~7 ms, as much as parsing the net)
    for i, la in enumerate(net.layers):
        object.__setattr__(la, "name", info[i][1])
    by_id = {la.data_id: la for la in net.layers if la.num_out > 0 and la.data_id is not None}
    for la in net.layers:  # named after the buffer it consumes, as TI's netLog does
        if la.is_output and la.inputs and la.inputs[0] in by_id:
            object.__setattr__(la, "name", by_id[la.inputs[0]].name)
    return dataclasses.replace(net, layer_info=str(path))


def _info_mismatch(net: Network, info: dict[int, tuple[int, str]]) -> str | None:
    """Why ``info`` is not this net's layer_info.txt, or None: a line per layer (0..n-1), each
    with its layer's dataId (an output data layer's is not checked: TI writes 0 there), and the
    data layers named as the io descriptor beside the net names its tensors."""
    n = len(net.layers)
    if sorted(info) != list(range(n)):
        return f"{len(info)} line(s) for layers {_span(sorted(info))}, but the net has {n} layers (0..{n - 1})"
    bad = [i for i, la in enumerate(net.layers) if la.data_id is not None and info[i][0] != la.data_id]
    if bad:
        i = bad[0]
        return (f"{len(bad)} line(s) give another dataId than the net's layer (line of layer {i}: dataId "
                f"{info[i][0]}, but layer {i} writes dataId {net.layers[i].data_id})")
    return _io_names_mismatch(net, info)


def _span(ids: list[int]) -> str:
    return "none" if not ids else f"{ids[0]}..{ids[-1]}" if ids[-1] - ids[0] + 1 == len(ids) else f"{ids[0]}..{ids[-1]} with gaps"


def _io_names_mismatch(net: Network, info: dict[int, tuple[int, str]]) -> str | None:
    """The input data layers' names against the io descriptor's input names (by dataId), when
    that descriptor is beside the net and readable."""

    io = io_file_of(net.source)
    try:
        if not io.is_file():
            return None
        desc = load(io)
    except (OSError, ValueError, TidlIoError):  # no usable io file: nothing to hold the names against
        return None
    names = {t.data_id: t.name for t in desc.inputs}
    for la in net.input_layers:
        want = names.get(la.data_id) if la.data_id is not None else None
        have = info[la.index][1]
        if want is not None and want != have:
            return (f"input data layer {la.index} (dataId {la.data_id}) is named {short(have, 80)!r}, but "
                    f"{io.name} names that input {short(want, 80)!r}")
    return None


# ---- finding nets -----------------------------------------------------------------------

def is_version_word(word: int) -> bool:
    """Whether ``word`` is shaped like TIDL_NET_VERSION: a date written in hex digits,
    ``0x20YYMMDD`` (``0x20240719``). An io descriptor starts with its input count."""
    digits = f"{word:08x}"
    return (digits.isdigit() and digits.startswith("20") and 1 <= int(digits[4:6]) <= 12
            and 1 <= int(digits[6:8]) <= 31)


def looks_like_net(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is meant as a net file: named ``*tidl_net*.bin``, or a regular file
    starting with a netVersion-shaped word (:func:`is_version_word`, known or of a newer
    release; io descriptors are told by size, nets by this word)."""
    p = Path(path)
    if "tidl_net" in p.name and p.name.endswith(".bin"):
        return True
    try:
        if not p.is_file():
            return False
        with open_regular(str(p), _EXPECTED) as fh:
            word = fh.read(_start().member("netVersion").end)
    except (OSError, PathError):
        return False
    return len(word) == _start().member("netVersion").end and is_version_word(_word(word, "netVersion"))
