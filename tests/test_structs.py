"""The layout engine (tidl_io.base.structs): the grammar, the one place members are laid out, the NumPy emitter.

Oracles: offsets and sizes written here as literal numbers (TI's documented struct sizes from the spec
pages iobufdesc.md, netbin.md and tidlrt.md; hand-computed C layouts), ctypes' own layout of the same
declaration (a second implementation of the C rules, also on random Hypothesis-drawn structs), and gcc's
offsetof/sizeof of a C struct written here."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tidl_io import FormatError
from tidl_io.base import structs
from tidl_io.base.structs import compile_schema, lay_out, numpy_dtype, parse_decl, resolve

from conftest import SCHEMAS

LP64 = ctypes.sizeof(ctypes.c_void_p) == 8 and ctypes.alignment(ctypes.c_uint64) == 8
needs_lp64 = pytest.mark.skipif(not LP64, reason="ctypes' layout is LP64 only on a 64-bit host")


def _compile(text: str, **kw: object) -> structs.Schema:
    return compile_schema(yaml.safe_load(text), "test.yaml", **kw)  # type: ignore[arg-type]


# ---- the grammar ---------------------------------------------------------------------------

@pytest.mark.parametrize("text,want", [
    ("int32_t numLayers", ("int32_t", "numLayers", (), None, None)),
    ("int32_t inData[TIDL_NUM_IN_BUFS]", ("int32_t", "inData", ("TIDL_NUM_IN_BUFS",), None, None)),
    ("int8_t inDataName[IN][TIDL_STRING_SIZE];", ("int8_t", "inDataName", ("IN", "TIDL_STRING_SIZE"), None, None)),
    ("void *base", ("void*", "base", (), None, None)),
    ("void* base", ("void*", "base", (), None, None)),
    ("sTIDLRT_PerfStats_t * stats", ("sTIDLRT_PerfStats_t*", "stats", (), None, None)),
    ("int32_t unknown84 @ 84", ("int32_t", "unknown84", (), "84", None)),
    ("alignas(8) int32_t x[2]", ("int32_t", "x", ("2",), None, "8")),
    ("  union layerParams[1544] ", ("union", "layerParams", ("1544",), None, None)),
])
def test_declarations_read_like_the_headers(text: str, want: tuple) -> None:
    d = parse_decl(text, "here")
    assert (d.type, d.name, d.dims, d.at, d.align) == want


def test_a_declaration_with_notes() -> None:
    d = parse_decl({"c": "int32_t dimValues[4]", "default": [-1, -1, -1, -1]}, "here")
    assert (d.type, d.name, d.dims) == ("int32_t", "dimValues", ("4",))
    assert dict(d.notes) == {"default": [-1, -1, -1, -1]}


@pytest.mark.parametrize("bad", ["int32_t", "int32_t x[", "x", "int32_t 9x", {"name": "x", "type": "int32_t"}, 7])
def test_unreadable_declarations_name_the_place(bad: object) -> None:
    with pytest.raises(FormatError, match=r"^here: cannot read member"):
        parse_decl(bad, "here")


def test_constants_sums_and_products() -> None:
    env = {"TIDL_MAX_ALG_IN_BUFS": 32, "TIDL_MAX_NUM_CORES": 4, "TIDL_DIM_MAX": 6}
    assert resolve("TIDL_MAX_ALG_IN_BUFS * TIDL_MAX_NUM_CORES", env, "x") == 128
    assert resolve("TIDL_DIM_MAX - 1", env, "x") == 5
    assert resolve("2 * TIDL_DIM_MAX + 0x10", env, "x") == 28
    assert resolve(7, env, "x") == 7
    with pytest.raises(FormatError, match=r"^f.yaml: unknown constant 'B' in 'TIDL_DIM_MAX \* B'$"):
        resolve("TIDL_DIM_MAX * B", env, "f.yaml")


# ---- the layout: literal numbers -----------------------------------------------------------

def test_natural_alignment_padding_and_tail() -> None:
    s = lay_out("S", ["char c", "int32_t i", "char d", "void* p", "uint16_t h"], {}, {}, "f")
    assert [(f.name, f.offset) for f in s.fields] == [("c", 0), ("i", 4), ("d", 8), ("p", 16), ("h", 24)]
    assert (s.size, s.align) == (32, 8)
    assert s.padding() == ((1, 4), (9, 16), (26, 32))


def test_nested_structs_arrays_and_paths() -> None:
    doc = """
constants: {TIDL_NET_TOTAL_BUF: 4}
structs:
  sTIDL_NetBuffer_t: [void* base, int32_t size, int32_t offset]
  H: [int32_t netVersion, uint32_t numCores, "sTIDL_NetBuffer_t netBufInfo[TIDL_NET_TOTAL_BUF]", int32_t last]
"""
    s = _compile(doc)
    nb, h = s.struct("sTIDL_NetBuffer_t"), s.struct("H")
    assert (nb.size, nb.align, nb.offset("size"), nb.offset("offset")) == (16, 8, 8, 12)  # netbin.md: 16 B
    assert h.offset("netBufInfo") == 8 and h.size == 8 + 64 + 8  # int32 last, then 4 tail bytes to 8
    assert h.offset("netBufInfo[0].size") == 16 and h.offset("netBufInfo[2].offset") == 8 + 32 + 12
    assert h.member("netBufInfo").dims == (4,) and h.member("netBufInfo").dim_names == ("TIDL_NET_TOTAL_BUF",)
    with pytest.raises(KeyError, match="outside"):
        h.offset("netBufInfo[4].size")
    with pytest.raises(KeyError, match="H has no member 'nope'"):
        h.offset("nope")


def test_two_dimensional_arrays_flatten_in_c_order() -> None:
    s = lay_out("S", ["int32_t a", "int16_t m[3][5]", "int64_t z"], {}, {}, "f")
    assert s.offset("m") == 4 and s.offset("m[1]") == 4 + 10 and s.offset("m[2][4]") == 4 + 2 * 10 + 8
    assert s.offset("z") == 40 and s.size == 48


def test_placement_and_alignas() -> None:
    s = lay_out("S", ["int32_t a", "int32_t far @ 84", "alignas(16) char b", "int32_t c"], {}, {}, "f")
    assert [f.offset for f in s.fields] == [0, 84, 96, 100]
    assert (s.size, s.align) == (112, 16)
    with pytest.raises(FormatError, match=r"S\.b: placed at 2, before the end of the member above \(4\)"):
        lay_out("S", ["int32_t a", "char b @ 2"], {}, {}, "f")


def test_union_bytes_are_int32_aligned_opaque() -> None:
    s = lay_out("L", ["char tag", "union layerParams[1532]", "int32_t layerType"], {}, {}, "f")
    assert (s.offset("layerParams"), s.member("layerParams").nbytes, s.offset("layerType")) == (4, 1532, 1536)


def test_errors_name_file_struct_and_member() -> None:
    with pytest.raises(FormatError, match=r"^f, S\.x: unknown type 'int33_t'"):
        lay_out("S", ["int33_t x"], {}, {}, "f")
    with pytest.raises(FormatError, match=r"^f: S\.x: unknown constant 'N' in 'N'"):
        lay_out("S", ["int32_t x[N]"], {}, {}, "f")
    with pytest.raises(FormatError, match=r"S\.x: array extent \[0\] must be positive"):
        lay_out("S", ["int32_t x[0]"], {}, {}, "f")
    with pytest.raises(FormatError, match="S.x: declared twice"):
        lay_out("S", ["int32_t x", "char x"], {}, {}, "f")
    with pytest.raises(FormatError, match=r"^test.yaml, expect S.b: expected 8, the members give 4$"):
        _compile("structs: {S: [char a, int32_t b]}\nexpect: {S: {b: 8}}")


def test_expect_by_variant() -> None:
    doc = "structs: {S: [\"int32_t x[TIDL_MAX_NUM_CORES]\", int32_t y]}\nexpect: {S/c1: {size: 8}, S/c4: {size: 20}}"
    assert _compile(doc, constants={"TIDL_MAX_NUM_CORES": 4}, variant="c4").struct("S").size == 20
    with pytest.raises(FormatError, match="expect S/c1.size: expected 8, the members give 20"):
        _compile(doc, constants={"TIDL_MAX_NUM_CORES": 4}, variant="c1")


def test_field_read() -> None:
    s = lay_out("S", ["uint32_t netVersion", "int32_t deviceName", "int32_t numLayers", "float f"], {}, {}, "f")
    raw = bytes.fromhex("01122320") + bytes(4) + (82).to_bytes(4, "little") + bytes.fromhex("0000c03f")
    assert s.member("netVersion").read(raw) == 0x20231201 and s.member("numLayers").read(raw) == 82
    assert s.member("f").read(raw) == 1.5 and s.member("deviceName").read(b"xx" + raw, 2) == 0


# ---- every schema file: TI's documented sizes -------------------------------------------------

def _schema(path: str, cores: int | None = None, extra: str | None = None) -> structs.Schema:
    doc = structs.load_yaml(SCHEMAS / path)
    consts = {} if cores is None else {"TIDL_MAX_NUM_CORES": cores}
    if path.startswith("net/"):
        consts = {**structs.load_yaml(SCHEMAS / "net" / "common.yaml")["constants"], **consts}
    return compile_schema(doc, path, consts, None if cores is None else f"c{cores}")


@pytest.mark.parametrize("path,cores,size", [
    ("tidl_8x.yaml", 1, 37256), ("tidl_9_0.yaml", 1, 37272), ("tidl_9_1.yaml", 1, 93976),
    ("tidl_9_1.yaml", 2, 187928), ("tidl_9_1.yaml", 4, 375832), ("tidl_10x.yaml", 1, 94616),
    ("tidl_10x.yaml", 2, 189208), ("tidl_10x.yaml", 4, 378392)])
def test_io_descriptor_sizes_of_iobufdesc_md(path: str, cores: int, size: int) -> None:
    assert _schema(path, cores).struct("sTIDL_IOBufDesc_t").size == size


@pytest.mark.parametrize("path,cores,header,layer,layer_type,out_data", [
    ("net/tidl_8_2.yaml", None, 88, 4532, 1552, 3036), ("net/tidl_8_6.yaml", None, 136, 1792, 1560, 1668),
    ("net/tidl_9_0.yaml", None, 160, 1800, 1560, 1672), ("net/tidl_10_0.yaml", 1, 176, 1824, 1564, 1676),
    ("net/tidl_10_0.yaml", 4, 184, 1824, 1564, 1676), ("net/tidl_11_0.yaml", 2, 176, 1848, 1584, 1696),
    ("net/tidl_11_0.yaml", 4, 184, 1848, 1584, 1696)])
def test_net_sizes_of_netbin_md(path: str, cores: int | None, header: int, layer: int, layer_type: int,
                                out_data: int) -> None:
    s = _schema(path, cores)
    h, la = s.struct("sTIDL_Network_t"), s.struct("sTIDL_Layer_t")
    assert (h.size, la.size, la.offset("layerType"), la.offset("outData")) == (header, layer, layer_type, out_data)
    assert (h.offset("netVersion"), h.offset("numLayers")) == (0, 8)  # netbin.md: 10 x int32 first
    if h.has("netBufInfo"):  # {void *base; int32 size; int32 offset}, 16 B each
        at = h.offset("netBufInfo")
        assert (h.offset("netBufInfo[1].size"), h.offset("netBufInfo[1].offset")) == (at + 24, at + 28)


def test_net_header_start_and_rounding_of_common_yaml() -> None:
    s = _schema("net/common.yaml")
    start = s.struct("sTIDL_NetworkStart_t")
    assert (start.offset("netVersion"), start.offset("numLayers"), start.size) == (0, 8, 12)
    assert s.constants["TIDL_NET_STRUCTURE_ALIGN"] == 64


@pytest.mark.parametrize("path,params,tensor,perf", [
    ("tidlrt/t4pa.yaml", 88, 600, 48), ("tidlrt/t4pb.yaml", 104, 600, 48), ("tidlrt/t4pc.yaml", 104, 600, 48),
    ("tidlrt/t6pd.yaml", 1648, 616, 48)])
def test_tidlrt_sizes_of_tidlrt_md(path: str, params: int, tensor: int, perf: int) -> None:
    s = _schema(path)
    got = tuple(s.struct(n).size for n in ("sTIDLRT_Params_t", "sTIDLRT_Tensor_t", "sTIDLRT_PerfStats_t"))
    assert got == (params, tensor, perf)
    if path.endswith("t6pd.yaml"):
        assert s.struct("sTIDLRT_Params_t").offset("traceBaseName") == 80  # tidlrt.md §4b


# ---- ctypes and gcc as second implementations ------------------------------------------------

class _NetBuffer(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("size", ctypes.c_int32), ("offset", ctypes.c_int32)]


class _CalibParams(ctypes.Structure):
    _fields_ = [("activationRangeMethod", ctypes.c_int32), ("weightRangeMethod", ctypes.c_int32),
                ("percentileActRangeShrink", ctypes.c_float), ("percentileWtRangeShrink", ctypes.c_float),
                ("biasCalibrationFactor", ctypes.c_float), ("biasCalibrationIterations", ctypes.c_int32)]


class _Network10c4(ctypes.Structure):  # TI's 11.01 sTIDL_Network_t without TIDLLayers, TIDL_MAX_NUM_CORES 4
    _fields_ = [*[(n, ctypes.c_int32) for n in (
        "netVersion", "deviceName", "numLayers", "weightsElementSize", "slopeElementSize", "biasElementSize",
        "dataElementSize", "interElementSize", "quantizationStyle", "calibrationOption")],
        ("calibrationParams", _CalibParams), ("dataFlowInfo", ctypes.c_int32), ("isGCInfoAvailable", ctypes.c_int32),
        ("netInitBackupDataOffset", ctypes.c_int32 * 4), ("isQuantStatsAvailable", ctypes.c_int32),
        ("preEmptWorstCaseDelay", ctypes.c_float), ("reserved", ctypes.c_int32), ("modelGroupId", ctypes.c_int32),
        ("inferenceMode", ctypes.c_int32), ("numCores", ctypes.c_uint32), ("netBufInfo", _NetBuffer * 4),
        ("originalGcBufInfoOffset", ctypes.c_int32)]


class _Tensor6(ctypes.Structure):  # sTIDLRT_Tensor_t of T6P-d
    _fields_ = [("name", ctypes.c_int8 * 512), ("elementType", ctypes.c_int32), ("numDim", ctypes.c_int32),
                ("dimValues", ctypes.c_int32 * 6), ("pitch", ctypes.c_int32 * 5), ("padValues", ctypes.c_int32 * 4),
                ("ptr", ctypes.c_void_p), ("dataOffset", ctypes.c_int32), ("layout", ctypes.c_uint32),
                ("zeroPoint", ctypes.c_int32), ("scale", ctypes.c_float), ("memType", ctypes.c_uint32),
                ("bufferSize", ctypes.c_int32)]


def _same_as_ctypes(engine: structs.Struct, cls: type[ctypes.Structure]) -> None:
    names = [f[0] for f in cls._fields_]
    assert [f.name for f in engine.fields] == names
    assert [engine.offset(n) for n in names] == [getattr(cls, n).offset for n in names]
    assert engine.size == ctypes.sizeof(cls) and engine.align == ctypes.alignment(cls)


@needs_lp64
def test_schema_structs_equal_ctypes_written_here() -> None:
    _same_as_ctypes(_schema("net/tidl_10_0.yaml", 4).struct("sTIDL_Network_t"), _Network10c4)
    _same_as_ctypes(_schema("net/tidl_11_0.yaml", 4).struct("sTIDL_NetBuffer_t"), _NetBuffer)
    _same_as_ctypes(_schema("tidlrt/t6pd.yaml").struct("sTIDLRT_Tensor_t"), _Tensor6)


_SCALARS = {"char": ctypes.c_char, "int8_t": ctypes.c_int8, "int16_t": ctypes.c_int16, "uint16_t": ctypes.c_uint16, "int32_t": ctypes.c_int32,
            "uint32_t": ctypes.c_uint32, "int64_t": ctypes.c_int64, "uint64_t": ctypes.c_uint64,
            "float": ctypes.c_float, "double": ctypes.c_double, "void*": ctypes.c_void_p}
_member = st.tuples(st.sampled_from(sorted(_SCALARS) + ["INNER"]), st.lists(st.integers(1, 3), max_size=2))


@needs_lp64
@settings(max_examples=150, deadline=None)
@given(st.lists(_member, min_size=1, max_size=4), st.lists(_member, min_size=1, max_size=8))
def test_random_structs_lay_out_as_ctypes_does(inner: list, outer: list) -> None:
    def build(name: str, members: list, known: dict) -> tuple[list[str], type[ctypes.Structure]]:
        decls, fields = [], []
        for i, (ctype, dims) in enumerate(members):
            if ctype == "INNER" and "INNER" not in known:
                ctype = "int16_t"
            base = known.get(ctype) or _SCALARS[ctype]
            for d in reversed(dims):
                base = base * d
            decls.append(f"{ctype} m{i}" + "".join(f"[{d}]" for d in dims))
            fields.append((f"m{i}", base))
        return decls, type(name, (ctypes.Structure,), {"_fields_": fields})

    inner_decls, inner_cls = build("INNER", inner, {})
    outer_decls, outer_cls = build("OUTER", outer, {"INNER": inner_cls})
    s = compile_schema({"structs": {"INNER": inner_decls, "OUTER": outer_decls}}, "random")
    _same_as_ctypes(s.struct("INNER"), inner_cls)
    _same_as_ctypes(s.struct("OUTER"), outer_cls)


_C_SOURCE = r"""
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
typedef struct { void *base; int32_t size; int32_t offset; } sTIDL_NetBuffer_t;
typedef struct { char tag; int16_t h[3]; double d; sTIDL_NetBuffer_t nb[2]; uint8_t tail; } S;
int main(void) {
    printf("%zu %zu %zu %zu %zu %zu %zu\n", offsetof(S, h), offsetof(S, d), offsetof(S, nb),
           offsetof(S, nb[1].offset), offsetof(S, tail), sizeof(S), _Alignof(S));
    return 0;
}
"""


@needs_lp64
@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
def test_a_struct_laid_out_as_gcc_does(tmp_path: Path) -> None:
    (tmp_path / "s.c").write_text(_C_SOURCE)
    subprocess.run(["gcc", "-std=c11", "-o", str(tmp_path / "s"), str(tmp_path / "s.c")], check=True)
    want = [int(x) for x in subprocess.run([str(tmp_path / "s")], check=True, capture_output=True,
                                            text=True).stdout.split()]
    s = _compile("structs:\n  sTIDL_NetBuffer_t: [void *base, int32_t size, int32_t offset]\n"
                 "  S: [char tag, \"int16_t h[3]\", double d, \"sTIDL_NetBuffer_t nb[2]\", uint8_t tail]\n").struct("S")
    got = [s.offset("h"), s.offset("d"), s.offset("nb"), s.offset("nb[1].offset"), s.offset("tail"), s.size, s.align]
    assert got == want == [2, 8, 16, 44, 48, 56, 8]


# ---- the NumPy emitter -----------------------------------------------------------------------

def test_numpy_dtype_keeps_offsets_and_size() -> None:
    s = _compile("structs:\n  N: [void* base, int32_t size, int32_t offset]\n"
                 "  L: [\"union p[6]\", \"N nb[2]\", char c, \"int8_t name[2][4]\"]\n").struct("L")
    dt = numpy_dtype(s)
    assert dt.itemsize == 56 and [dt.fields[n][1] for n in ("p", "nb", "c", "name")] == [0, 8, 40, 41]
    assert dt.fields["p"][0] == np.dtype("V6") and dt.fields["nb"][0].shape == (2,)
    assert dt.fields["name"][0] == np.dtype(("i1", (2, 4)))
    assert numpy_dtype(s, strings=True).fields["name"][0] == np.dtype(("S4", (2,)))
    raw = bytearray(56)
    raw[8 + 16 + 8:8 + 16 + 12] = (77).to_bytes(4, "little")  # nb[1].size
    raw[41:45] = b"ab\0\0"
    rec = np.frombuffer(bytes(raw), numpy_dtype(s, strings=True))[0]
    assert rec["nb"][1]["size"] == 77 and rec["name"][0] == b"ab"
