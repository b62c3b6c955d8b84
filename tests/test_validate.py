"""validate(): located findings for each class of bad value; real quirks stay valid."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

import tidl_io
from tidl_io.iodesc.validate import geometry_problems

from conftest import FIXTURES, corpus_params


@pytest.mark.parametrize("path", corpus_params())
def test_corpus_has_no_errors_or_warnings(path: Path) -> None:
    assert tidl_io.validate(tidl_io.load(path)) == []


def _patched(fixture: str, member: str, slot: int, value, fmt: str = "<i") -> tuple[tidl_io.Descriptor, int]:
    data = bytearray((FIXTURES / fixture).read_bytes())
    layout = tidl_io.parse(bytes(data)).layout
    at = layout.member(member).slot_offset(slot)
    struct.pack_into(fmt, data, at, value)
    return tidl_io.parse(bytes(data), "t.bin"), at


def _only(findings, level: str):
    assert len(findings) == 1, [str(f) for f in findings]
    assert findings[0].level == level
    return findings[0]


@pytest.mark.parametrize("member,value,message", [
    ("inPadL", -3, "expected >= 0, found -3"),
    ("inWidth", -5, "expected >= 1, found -5"),
    ("inNumChannels", 0, "expected >= 1, found 0"),
    ("inElementType", 9, "unknown element type 9"),
    ("inLayout", 7, "unknown layout 7"),
    ("inChannelPitch", 20, "channel pitch 20 is smaller than a line"),
    ("inChannelPitch", 40, "valid elements overlap: the C step"),
    ("inBufSize", 100, "beyond the stored buffer size 100"),
])
def test_geometry_errors_are_located(member: str, value: int, message: str) -> None:
    desc, at = _patched("l2_c1_padded_tidl_io_1.bin" if member != "inBufSize" else "l3_c2_dims_tidl_io_1.bin",
                        member, 0, value)
    findings = [f for f in tidl_io.validate(desc) if f.level == "error"]
    assert findings, "expected an error"
    f = findings[0]
    assert message in f.message
    assert f.field == member and f.offset == at and f.tensor.startswith("input 0")
    assert str(f).startswith(f"error: t.bin, offset {at:#x}, input 0")


@pytest.mark.parametrize("value", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_scales(value: float) -> None:
    desc, at = _patched("l2_c2_multi_tidl_io_1.bin", "outTensorScale", 0, value, "<f")
    f = _only(tidl_io.validate(desc), "error")
    assert "finite and > 0" in f.message and f.offset == at and f.field == "outTensorScale"


def test_nonzero_unused_slot_is_a_warning() -> None:
    desc, at = _patched("l2_c1_padded_tidl_io_1.bin", "outWidth", 7, 12)
    f = _only(tidl_io.validate(desc), "warning")
    assert f.field == "outWidth[7]" and f.offset == at


def test_name_without_nul_and_garbage_after_nul() -> None:
    data = bytearray((FIXTURES / "l2_c1_padded_tidl_io_1.bin").read_bytes())
    at = tidl_io.parse(bytes(data)).layout.member("inDataName").slot_offset(0)
    data[at:at + 512] = b"x" * 512
    f = _only(tidl_io.validate(tidl_io.parse(bytes(data))), "error")
    assert "no NUL terminator" in f.message and f.offset == at
    data[at:at + 512] = b"image\0" + b"\0" * 100 + b"junk" + b"\0" * 402
    f = _only(tidl_io.validate(tidl_io.parse(bytes(data))), "warning")
    assert "after the name's NUL at 5" in f.message


def test_duplicate_names_warn() -> None:
    desc = tidl_io.make_descriptor("9.0", inputs=[_plain("a"), _plain("a")], header={"numCores": 1,
                                                                                     "numVirtualCores": 1})
    f = _only(tidl_io.validate(desc), "warning")
    assert "same name as input 0" in f.message and f.tensor == "input 1 'a'"


def _plain(name: str) -> dict:
    return {"inDataName": name, "inWidth": 4, "inHeight": 2, "inNumChannels": 1, "inChannelPitch": 8,
            "inNumBatches": 1, "inTensorScale": 1.0, "inElementType": 0}


def test_counts_beyond_capacity_in_a_made_descriptor() -> None:
    desc = tidl_io.make_descriptor("8.x", inputs=[_plain("a")], header={"numInputBuf": 40})
    f = _only(tidl_io.validate(desc), "error")
    assert f.field == "numInputBuf" and "expected 0..32, found 40" in f.message and f.offset == 0


def test_real_quirks_are_valid() -> None:
    """Large outPadCh, rawDataInElementType -1, channel pitch below the padded plane."""
    desc = tidl_io.make_descriptor("10.x", inputs=[{
        **_plain("q"), "inWidth": 512, "inHeight": 512, "inPadL": 1, "inPadT": 1, "inPadB": 2,
        "inChannelPitch": 263683, "rawDataInElementType": -1, "inBufSize": 4 * 515 * 513, "inNumChannels": 3,
        "inDIM1": 1, "inDIM2": 1}], outputs=[{
        "outDataName": "o", "outWidth": 5, "outHeight": 1, "outNumChannels": 1, "outChannelPitch": 5,
        "outNumBatches": 1, "outDIM1": 1, "outDIM2": 1, "outPadCh": 1547, "outTensorScale": 1.0,
        "outElementType": 6, "outBufSize": 1548 * 5, "numValidTensorDims": 2}], header={"numCores": 1})
    assert tidl_io.validate(desc) == []
    assert geometry_problems(desc.inputs[0]) == []


# ---- hostile descriptors: every class is refused by geometry_problems (exact Python ints) ----

_I32 = 2**31 - 1


def _hostile(family: str, **fields: object) -> tidl_io.Tensor:
    spec = {"outDataName": "h", "outWidth": 4, "outHeight": 2, "outNumChannels": 1, "outChannelPitch": 8,
            "outNumBatches": 1, "outTensorScale": 1.0, "outElementType": 6}
    if family == "10.x":
        spec.update({"outDIM1": 1, "outDIM2": 1, "outBufSize": 8, "numValidTensorDims": 4})
    spec.update(fields)
    return tidl_io.make_descriptor(family, outputs=[spec], header={"numCores": 1} if family != "8.x" else None
                                   ).outputs[0]


def test_hostile_products_beyond_int64_are_refused() -> None:
    """int32 dims whose element span overflows int64: W = C = N = 2**31 - 1, float32."""
    t = _hostile("8.x", outWidth=_I32, outHeight=1, outNumChannels=_I32, outNumBatches=_I32,
                 outChannelPitch=_I32)
    # independent oracle, spec §4: strides W 1, C chPitch, N chPitch*C; last = sum((d-1)*stride)
    last = (_I32 - 1) * (_I32 * _I32) + (_I32 - 1) * _I32 + (_I32 - 1)
    span = (last + 1) * 4
    assert span > 2**63
    (problem,) = geometry_problems(t)
    message = f"the valid elements span {span} bytes, beyond the largest offset NumPy can index ({2**63 - 1})"
    assert problem == ("outNumBatches", message)


def test_hostile_products_beyond_int32_against_a_wrapped_buffer_size() -> None:
    """A 65536 x 65536 plane needs 2**32 elements; an int32 outBufSize cannot say so (it wraps to 0)."""
    t = _hostile("10.x", outWidth=65536, outHeight=65536, outChannelPitch=65536 * 65536 % 2**31,
                 outBufSize=(65536 * 65536) % 2**32)
    problems = dict(geometry_problems(t))
    assert "outBufSize" in problems and "beyond the stored buffer size 0" in problems["outBufSize"]


@pytest.mark.parametrize("fields,field,message", [
    ({"outChannelPitch": -1}, "outChannelPitch", "channel pitch -1 is smaller than a line (4 elements)"),
    ({"outChannelPitch": -_I32 - 1, "outNumChannels": 2}, "outChannelPitch", "smaller than a line"),
    ({"outLayout": 1, "outNumChannels": 3, "outDIM2": 2, "outChannelPitch": -5, "outBufSize": 10**6},
     "outChannelPitch", "valid elements overlap: the DIM2 step (-15 elements)"),
    ({"outBufSize": -1}, "outBufSize", "last valid element is at index 7, beyond the stored buffer size -1"),
    ({"outPadT": -_I32 - 1}, "outPadT", f"expected >= 0, found {-_I32 - 1}"),
    ({"outNumBatches": -_I32 - 1}, "outNumBatches", f"expected >= 1, found {-_I32 - 1}"),
    ({"outHeight": 3, "outChannelPitch": 9, "outNumChannels": 2, "outBufSize": 100},
     "outChannelPitch", "valid elements overlap: the C step (9 elements) is not beyond the 12 elements"),
])
def test_hostile_negative_and_overlapping_pitches(fields: dict, field: str, message: str) -> None:
    problems = geometry_problems(_hostile("10.x", **fields))
    assert any(f == field and message in m for f, m in problems), problems


@pytest.mark.parametrize("count", [-1, -(2**31), 2**31 - 1, 33])
def test_hostile_counts_are_refused_at_parse(count: int) -> None:
    data = bytearray((FIXTURES / "v8_batch_tidl_io_1.bin").read_bytes())
    struct.pack_into("<i", data, 4, count)  # numOutputBuf of the 8.x layout
    with pytest.raises(tidl_io.FormatError, match=rf"^t.bin, offset 0x4, numOutputBuf: expected 0..32 .*, found {count}$"):
        tidl_io.parse(bytes(data), "t.bin")


def test_empty_used_slots_are_one_finding_per_run() -> None:
    """numOutputBuf counting slots the file leaves zero: one error per run of empty slots
    (not nine per slot), located at the count; filled slots are still checked one by one."""
    data = bytearray((FIXTURES / "l2_c1_padded_tidl_io_1.bin").read_bytes())  # 1 input, 2 outputs, 9.1/c1
    layout = tidl_io.parse(bytes(data)).layout
    count_at = layout.member("numOutputBuf").offset
    struct.pack_into("<i", data, count_at, 128)
    struct.pack_into("<i", data, layout.member("outWidth").slot_offset(5), -2)  # slot 5: not empty, bad
    findings = tidl_io.validate(tidl_io.parse(bytes(data), "t.bin"))
    runs = [f for f in findings if f.field == "numOutputBuf"]
    tail = "empty (every field zero, no name): numOutputBuf = 128 counts more outputs than the file describes"
    assert [f.message for f in runs] == [f"slots 2..4 are {tail}", f"slots 6..127 are {tail}"]
    assert all(f.level == "error" and f.offset == count_at for f in runs)
    slot5 = [f for f in findings if f.tensor == "output 5 ''"]
    assert any(f.field == "outWidth" and f.message == "expected >= 1, found -2" for f in slot5)
    assert len(findings) < 20


# ---- zero point range (issue 11) ---------------------------------------------------------------

@pytest.mark.parametrize("etype,zp,bad", [
    (0, 300, True), (0, 255, False), (0, -1, True), (0, 0, False),      # uint8: 0..255
    (1, -129, True), (1, -128, False), (1, 127, False), (1, 128, True),  # int8: -128..127
    (2, 65536, True), (2, 65535, False), (3, -32769, True),             # uint16, int16
    (6, 300, False),                                                     # float: no zero point
])
def test_zero_point_outside_the_element_range(etype: int, zp: int, bad: bool) -> None:
    desc = tidl_io.make_descriptor("10.x", inputs=[{"inDataName": "x", "inWidth": 4, "inHeight": 1,
                                                    "inNumChannels": 1, "inChannelPitch": 4, "inNumBatches": 1,
                                                    "inDIM1": 1, "inDIM2": 1, "inElementType": etype,
                                                    "inTensorScale": 1.0, "inZeroPoint": zp, "inBufSize": 8}],
                                   source="z.bin")
    errors = [f for f in tidl_io.validate(desc) if f.level == "error"]
    if not bad:
        assert errors == []
        return
    (f,) = errors
    at = desc.layout.member("inZeroPoint").slot_offset(0)
    assert f.field == "inZeroPoint" and f.offset == at and f.tensor == "input 0 'x'"
    assert f"zero point {zp} is outside the {tidl_io.ElementType(etype).dtype} range" in f.message
    assert "every code would saturate" in f.message


def test_float_tensor_with_a_nan_scale_is_a_warning() -> None:
    desc = tidl_io.make_descriptor("10.x", outputs=[{"outDataName": "o", "outWidth": 1, "outHeight": 1,
                                                     "outNumChannels": 1, "outChannelPitch": 1, "outNumBatches": 1,
                                                     "outDIM1": 1, "outDIM2": 1, "outElementType": 6,
                                                     "outTensorScale": float("nan"), "outBufSize": 1}])
    findings = [f for f in tidl_io.validate(desc) if f.field == "outTensorScale"]
    f = _only(findings, "warning")
    assert "TIDL forces scale 1 for float" in f.message
    assert not [f for f in tidl_io.validate(desc) if f.level == "error"]
