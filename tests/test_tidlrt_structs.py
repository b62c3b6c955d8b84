"""TIDL-RT struct layouts compiled from schemas/tidlrt (tidl_io.runtime.tidlrt.structs).

Oracles: the sizes and offsets of spec tidlrt.md §2/§4b written here as literals (LP64), and
default-setter byte images built here with struct.pack at those offsets."""

from __future__ import annotations

import struct

import pytest

from tidl_io.base.releases import find_release
from tidl_io.iodesc import schema as _schema
from tidl_io.runtime.tidlrt import structs as _structs
from tidl_io.runtime.tidlrt.structs import families, match_fingerprint

# spec §4b: Params 88 (P-a), 104 (P-b), 104 (P-c), 1648 (P-d); Tensor 600 (T4), 616 (T6); PerfStats 48
SIZES = {
    "T4P-a": (88, 600, 48),
    "T4P-b": (104, 600, 48),
    "T4P-c": (104, 600, 48),
    "T6P-d": (1648, 616, 48),
}


def test_every_family_has_the_spec_sizes() -> None:
    assert set(families()) == set(SIZES)
    for key, (p, t, s) in SIZES.items():
        fam = families()[key]
        assert (fam.params.size, fam.tensor.size, fam.perf.size) == (p, t, s), key
        assert fam.params.ctype is not None and fam.params.size == __import__("ctypes").sizeof(fam.params.ctype)


def test_offsets_from_the_spec() -> None:
    f = families()
    # P-d: "/tmp/tidl_trace" at byte 80 (spec §4b); stats after three 512-byte strings
    pd = f["T6P-d"].params
    assert pd.member("traceBaseName").offset == 80
    assert pd.member("traceSubgraphName").offset == 592 and pd.member("tempBufferDir").offset == 1104
    assert pd.member("stats").offset == 1616 and pd.member("TIDLReadBinFromFile").offset == 1640
    # P-c: coreNum sits in what was P-b's tail padding
    assert f["T4P-c"].params.member("coreNum").offset == 100
    assert f["T4P-b"].params.member("targetPriority").offset == 96 and not f["T4P-b"].params.has("coreNum")
    assert f["T4P-b"].params.member("maxPreEmptDelay").offset == 56
    assert f["T4P-a"].params.member("stats").offset == 80
    # T4: ptr at 568 (after 4 pad bytes), memType last at 592; T6: bufferSize last at 612
    t4, t6 = f["T4P-c"].tensor, f["T6P-d"].tensor
    assert (t4.member("dimValues").offset, t4.member("pitch").offset, t4.member("padValues").offset) == (520, 536, 548)
    assert (t4.member("ptr").offset, t4.member("memType").offset) == (568, 592)
    assert (t6.member("pitch").offset, t6.member("padValues").offset, t6.member("ptr").offset) == (544, 564, 584)
    assert (t6.member("scale").offset, t6.member("bufferSize").offset) == (604, 612)
    assert f["T6P-d"].six_d and f["T6P-d"].has_buffer_size and not f["T4P-c"].six_d


def test_ti_field_names_verbatim() -> None:
    names = [m.name for m in families()["T6P-d"].params.members]
    assert names == ["netPtr", "ioBufDescPtr", "net_capacity", "io_capacity", "dumpNetInitBackupData",
                     "releaseIOTensorsAtCreate", "computeChecksum", "flowCtrl", "quantRangeExpansionFactor",
                     "quantRangeUpdateFactor", "targetPriority", "maxPreEmptDelay", "coreNum", "coreStartIdx",
                     "forceNegativeTest", "enableCodeCoverage", "traceLogLevel", "traceWriteLevel", "traceBaseName",
                     "traceSubgraphName", "tempBufferDir", "stats", "TIDLVprintf", "TIDLWriteBinToFile",
                     "TIDLReadBinFromFile"]
    assert [m.name for m in families()["T4P-a"].perf.members] == [
        "cpIn_time_start", "cpIn_time_end", "proc_time_start", "proc_time_end", "cpOut_time_start", "cpOut_time_end"]


def test_io_schema_loader_ignores_the_tidlrt_folder() -> None:
    assert {lay.family for lay in _schema.layouts()} == {"8.x", "9.0", "9.1", "10.x"}


def _ti(value: str | int) -> str | None:
    """The release the binding picks for a version text or netVersion (tidl_io.base.releases)."""
    found = find_release(value)
    return None if found is None else found.ti


def test_release_table() -> None:
    assert _ti(0x20211201) == "08.02" and _ti(0x20230208) == "08.06"
    assert _ti(0x20250821) == "11.01" and _ti(0x12345678) is None
    r = _structs.releases()
    assert (r["08.02"], r["08.06"], r["10.00"], r["11.01"], r["09.01"]) == ("T4P-b", "T4P-c", "T6P-d", "T6P-d", None)
    assert [_ti(v) for v in ("8.6", "08_06_00_10", "11.1", "7.0", "x")] == \
        ["08.06", "08.06", "11.01", None, None]


# ---- fingerprints: default-setter images written here from spec §4 --------------------------

FLT_MAX = 3.4028234663852886e38
PAT = 0xCD


def _image(size: int, writes: list[tuple[int, str, object]]) -> tuple[bytes, set[int]]:
    buf = bytearray([PAT]) * 4096
    touched: set[int] = set()
    for off, fmt, value in writes:
        raw = value if fmt == "raw" else struct.pack("<" + fmt, value)
        buf[off:off + len(raw)] = raw  # type: ignore[arg-type]
        touched.update(range(off, off + len(raw)))  # type: ignore[arg-type]
    return bytes(buf), touched


def params_image(shape: str) -> tuple[bytes, set[int]]:
    """What each family's setParamsDefault writes (spec §4: 11.01; older: the same fields they have)."""
    w: list[tuple[int, str, object]] = [(0, "Q", 0), (8, "Q", 0), (16, "i", 0), (20, "i", 0)]
    if shape == "d":
        # 24..35 dumpNetInitBackupData, releaseIOTensorsAtCreate, computeChecksum: not written
        w += [(36, "I", 0), (40, "f", 1.0), (44, "f", 0.0), (48, "i", 0), (52, "f", FLT_MAX), (56, "I", 1),
              (60, "i", 1), (72, "i", 0), (76, "i", 0), (80, "raw", b"/tmp/tidl_trace\0"),
              (1104, "raw", b"/dev/shm\0"), (1616, "Q", 0), (1624, "Q", 0x7F0012345678), (1632, "Q", 0),
              (1640, "Q", 0)]
        return _image(1648, w)
    w += [(24, "i", 0), (28, "i", 0), (32, "i", 0), (48, "f", 1.0), (52, "f", 0.0)]
    if shape == "a":
        w += [(56, "Q", 0x7F0012345678), (64, "Q", 0), (72, "Q", 0), (80, "Q", 0)]
    else:
        w += [(56, "f", FLT_MAX), (64, "Q", 0x7F0012345678), (72, "Q", 0), (80, "Q", 0), (88, "Q", 0), (96, "i", 0)]
        if shape == "c":
            w += [(100, "I", 1)]
    return _image(104, w)


def tensor_image(six: bool) -> tuple[bytes, set[int]]:
    if six:  # elementType, numDim, dims N,C,H,W at 0,3,4,5; pitch ROI, CH; pads; ptr ...; bufferSize
        w = [(512, "i", 0), (516, "i", 0), (520, "i", -1), (532, "i", -1), (536, "i", -1), (540, "i", -1),
             (544, "i", -1), (556, "i", -1), (564, "raw", bytes(16)), (584, "Q", 0), (592, "i", 0), (596, "I", 0),
             (600, "i", 0), (604, "f", 1.0), (608, "I", 0), (612, "i", -1)]
    else:
        w = [(512, "i", 0), (516, "i", 0), (520, "raw", struct.pack("<4i", -1, -1, -1, -1)), (536, "i", -1),
             (540, "i", -1), (548, "raw", bytes(16)), (568, "Q", 0), (576, "i", 0), (580, "I", 0), (584, "i", 0),
             (588, "f", 1.0), (592, "I", 0)]
    return _image(616, w)  # type: ignore[arg-type]


@pytest.mark.parametrize("shape,six,key", [("a", False, "T4P-a"), ("b", False, "T4P-b"), ("c", False, "T4P-c"),
                                           ("d", True, "T6P-d")])
def test_each_family_is_identified_by_its_defaults_alone(shape: str, six: bool, key: str) -> None:
    fp = match_fingerprint(params_image(shape), tensor_image(six))
    assert fp.matches == (key,), fp.problems


def test_mixed_or_unknown_shapes_match_nothing() -> None:
    assert match_fingerprint(params_image("d"), tensor_image(False)).matches == ()
    assert match_fingerprint(params_image("c"), tensor_image(True)).matches == ()
    raw, touched = params_image("d")  # a larger, unknown layout: one more field written past 1648
    raw = raw[:1700] + struct.pack("<i", 7) + raw[1704:]
    fp = match_fingerprint((raw, touched | {1700, 1701, 1702, 1703}), tensor_image(True))
    assert fp.matches == () and "beyond this layout's 1648 bytes" in " ".join(fp.problems["T6P-d"])
    raw, touched = params_image("c")  # a wrong default value
    raw = raw[:48] + struct.pack("<f", 2.0) + raw[52:]
    fp = match_fingerprint((raw, touched), tensor_image(False))
    assert fp.matches == () and "quantRangeExpansionFactor: expected 1.0, found 2.0" in fp.problems["T4P-c"]
    assert "matches no known family" in fp.summary()


def test_a_later_11x_library_zeroing_more_fields_still_matches() -> None:
    # a later 11.x setParamsDefault also zeroes dumpNetInitBackupData, releaseIOTensorsAtCreate,
    # computeChecksum (24..35), forceNegativeTest and enableCodeCoverage (64..71)
    raw, touched = params_image("d")
    raw = raw[:24] + bytes(12) + raw[36:64] + bytes(8) + raw[72:]
    touched |= set(range(24, 36)) | set(range(64, 72))
    assert match_fingerprint((raw, touched), tensor_image(True)).matches == ("T6P-d",)
    # ...but a write into padding or past the struct still disqualifies
    assert match_fingerprint((raw, touched | {1660}), tensor_image(True)).matches == ()


def test_an_earlier_p_d_library_without_temp_buffer_dir_still_matches() -> None:
    raw, touched = params_image("d")  # setParamsDefault before tempBufferDir had a default
    raw = raw[:1104] + bytes([PAT]) * 9 + raw[1113:]
    assert match_fingerprint((raw, touched - set(range(1104, 1113))), tensor_image(True)).matches == ("T6P-d",)


def test_flow_ctrl_and_dim_pitches_may_be_written_or_not() -> None:
    raw, touched = params_image("d")  # TI's PC emulation sets flowCtrl 0x21
    raw = raw[:36] + struct.pack("<I", 0x21) + raw[40:]
    t_raw, t_touched = tensor_image(True)  # a PC-testbench setTensorDefault writes pitch[DIM1], pitch[DIM2]
    t_raw = t_raw[:548] + struct.pack("<2i", -1, -1) + t_raw[556:]
    assert match_fingerprint((raw, touched), (t_raw, t_touched | set(range(548, 556)))).matches == ("T6P-d",)
