"""tidl_io.load_quant_params: typed objects from TI's prototxt, written back byte-identical, and a
one-layer edit that diffs in that layer's lines only (difflib against the original)."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import pytest

import tidl_io
from tidl_io import ArgumentTypeError, FormatError, OptionError
from tidl_io.precision import parse_quant_params

from conftest import REALDATA

PROTO = REALDATA / "net" / "od-8220-yolox-10.0" / "model" / "model_qparams.prototxt"


def _need() -> bytes:
    if not PROTO.is_file():
        pytest.skip("../shared/realdata not present")
    return PROTO.read_bytes()


def _layer_spans(text: str) -> list[tuple[int, int]]:
    """(first, last) 0-based line of each top-level 'layers {' block, by indentation alone."""
    lines, spans, start = text.splitlines(), [], None
    for i, line in enumerate(lines):
        if line == "layers {":
            start = i
        elif line == "}" and start is not None:
            spans.append((start, i))
            start = None
    return spans


def test_reads_every_layer_in_file_order() -> None:
    raw = _need()
    text = raw.decode()
    q = tidl_io.load_quant_params(PROTO)
    names = re.findall(r'^  layer_name: "(.*)"$', text, re.MULTILINE)
    depths = [int(v) for v in re.findall(r"^  bit_depth: (\d+)$", text, re.MULTILINE)]
    assert [lay.name for lay in q.layers] == names and [lay.bit_depth for lay in q.layers] == depths
    assert q.num_layers == int(re.search(r"^num_layers: (\d+)", text, re.MULTILINE).group(1)) == len(q.layers) == 122
    assert (q.quant_type, q.calib_type) == ("SYMMETRIC", "PERTENSOR")
    conv = q.layers[2]
    assert (conv.name, conv.type, conv.output.min, conv.output.max, conv.output.scale, conv.output.element_type) == (
        "1", "TIDL_ConvolutionLayer", -48.6513863, 48.7318382, [601.9661865234375], 3)
    assert conv.weights[0].scale == [308206.6875] and conv.bias[0].size == 12 and len(conv.bias[0].value) == 12
    assert q.problems() == []
    assert q.layer("86") is q.layers[53]
    with pytest.raises(KeyError, match="no layer named 'nope'"):
        q.layer("nope")


def test_round_trip_is_byte_identical(tmp_path: Path) -> None:
    raw = _need()
    q = tidl_io.load_quant_params(PROTO)
    assert q.to_bytes() == raw
    q.save(tmp_path / "copy.prototxt")
    assert (tmp_path / "copy.prototxt").read_bytes() == raw


def test_a_one_layer_edit_diffs_in_that_layer_only(tmp_path: Path) -> None:
    raw = _need()
    text = raw.decode()
    q = tidl_io.load_quant_params(PROTO)
    k = 40
    lay = q.layers[k]
    lay.bit_depth = 1
    lay.output.min, lay.output.max = -1.0, 2.5
    lay.output.scale = [50.0]
    q.save(tmp_path / "edited.prototxt")
    new = (tmp_path / "edited.prototxt").read_text()
    first, last = _layer_spans(text)[k]
    changed = [i for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, text.splitlines(), new.splitlines())
               .get_opcodes() if tag != "equal" for i in range(i1, i2)]
    assert changed and all(first <= i <= last for i in changed)
    diff = [d for d in difflib.unified_diff(text.splitlines(), new.splitlines(), lineterm="", n=0)
            if d[:1] in "+-" and not d.startswith(("+++", "---"))]
    assert sorted(d for d in diff if d.startswith("+")) == sorted(
        ["+  bit_depth: 1", "+    min: -1", "+    max: 2.5", "+    scale: 50"])
    again = tidl_io.load_quant_params(tmp_path / "edited.prototxt")
    assert (again.layers[k].bit_depth, again.layers[k].output.max, again.layers[k].output.scale) == (1, 2.5, [50.0])
    assert [x.name for x in again.layers] == [x.name for x in q.layers]


HAND = b"""num_layers: 1
layers {
  layer_name: "a \\"b\\""
  layer_type: "TIDL_ConvolutionLayer"
  outputs {
    min: 0
    max: 4.5
    scale: 56.25
  }
  future_field: 3
  future_block {
    x: 1
  }
}
"""


def test_hand_made_absent_fields_are_inserted() -> None:
    q = parse_quant_params(HAND, "h.prototxt")
    lay = q.layers[0]
    assert lay.name == 'a "b"' and lay.bit_depth is None and lay.output.zero_point == []
    assert q.to_bytes() == HAND
    lay.bit_depth = 2
    lay.output.zero_point = [0]
    out = q.to_bytes().decode().splitlines()
    assert out[2] == "  bit_depth: 2" and out[5:7] == ["  outputs {", "    zero_point: 0"]
    assert len(out) == len(HAND.decode().splitlines()) + 2


def test_crlf_round_trip() -> None:
    data = HAND.replace(b"\n", b"\r\n")
    q = parse_quant_params(data)
    assert q.to_bytes() == data
    q.layers[0].output.max = 5
    assert b"    max: 5\r\n" in q.to_bytes()


def test_problems_follow_tis_rules() -> None:
    q = parse_quant_params(HAND.replace(b"num_layers: 1", b"num_layers: 2").replace(b"max: 4.5", b"max: inf"))
    problems = q.problems()
    assert any("num_layers is 2, but the file has 1" in p for p in problems)
    assert any("max is inf" in p for p in problems)


def test_bad_edits() -> None:
    q = parse_quant_params(HAND)
    q.layers[0].bit_depth = "16"  # type: ignore[assignment]
    with pytest.raises(ArgumentTypeError, match="layer 0 'a \"b\"', bit_depth"):
        q.to_bytes()
    q = parse_quant_params(HAND)
    q.layers.append(q.layers[0])
    with pytest.raises(OptionError, match="layers were added"):
        q.to_bytes()


@pytest.mark.parametrize("data, match", [
    (HAND[:-3], r"line 2: layers block never closed"),
    (HAND.replace(b"min: 0", b"min: zero"), "line 6: min: expected a number"),
    (HAND.replace(b"layer_name:", b"layer_name"), "line 3: expected 'name: value'"),
    (HAND + b"}\n", r"line 15: '}' closes no block"),
    (HAND.replace(b"layer_type: \"TIDL_ConvolutionLayer\"", b"layer_type: TIDL"), "line 4: layer_type: expected"),
    (b"\xff\xfe", "not UTF-8"),
    (b"a {\n" * 40, "nested deeper"),
])
def test_malformed_is_located(data: bytes, match: str) -> None:
    with pytest.raises(FormatError, match=match) as exc:
        parse_quant_params(data, "h.prototxt")
    assert str(exc.value).startswith("h.prototxt")


def test_comments_and_bracket_lists_are_read_and_kept() -> None:
    data = (b'# written by hand\nnum_layers: 1  # one\nlayers {\n  layer_name: "x#1"  # name\n  outputs {\n'
            b'    scale: [1.5, 2]\n    min: -1.5f\n    max: 2\n  }\n}\n')
    q = parse_quant_params(data)
    assert q.num_layers == 1 and q.layers[0].name == "x#1"
    assert q.layers[0].output is not None and q.layers[0].output.scale == [1.5, 2.0]
    assert q.layers[0].output.min == -1.5 and q.to_bytes() == data
    q.layers[0].output.scale = [3.0]
    assert q.to_bytes().decode().splitlines()[5] == "    scale: 3"


def test_save_refuses_what_ti_cannot_read_before_writing(tmp_path: Path) -> None:
    """Issue 32 item 12: a value TI's read mode rejects (NaN, inf, past float range), a number too
    big for a float or for TI's 32-bit integers, is a located TidlIoError naming the path, the
    layer, the field and the value -- and nothing is written (the old file stays)."""
    target = tmp_path / "q.prototxt"
    target.write_bytes(b"old")
    where = f"QuantParams.save: {target}: layer 0 'a \"b\"', outputs"
    cases = [("min", float("nan"), "nan"), ("max", float("inf"), "inf"), ("max", -1e39, "-1e+39"),
             ("min", 10**5000, "an int of 4153 hex digits"), ("max", 2**1024, "17976931348623159")]
    for attr, value, shown in cases:
        q = parse_quant_params(HAND)
        setattr(q.layers[0].output, attr, value)
        assert any(f"{attr} is" in p for p in q.problems()), (attr, value)  # the same rule as problems()
        with pytest.raises(OptionError) as info:
            q.save(target)
        line = str(info.value)
        assert line.startswith(f"{where}, {attr}: expected a finite number inside float range "
                               f"(|x| < 3.4028234663852886e+38, as TI's read mode needs), found {shown}"), line
        assert len(line) < 300, line  # a huge value is cut, never printed whole
        assert target.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["q.prototxt"]
    q = parse_quant_params(HAND)
    q.layers[0].output.zero_point = [10**5000]
    with pytest.raises(OptionError, match=re.escape(f"{where}, zero_point: expected 0..2147483647 (a 32-bit field), "
                                                    "found an int of 4153 hex digits")):
        q.save(target)
    q.layers[0].output.zero_point = [2**31]
    with pytest.raises(OptionError, match="zero_point: expected 0..2147483647"):
        q.to_bytes()
    assert target.read_bytes() == b"old"
    import numpy as np

    q = parse_quant_params(HAND)
    q.layers[0].output.max, q.layers[0].bit_depth = np.float32(2.5), np.int64(16)  # NumPy's numbers are numbers
    q.save(target)
    assert b"    max: 2.5\n" in target.read_bytes() and b"  bit_depth: 16\n" in target.read_bytes()


def test_save_to_a_folder_or_a_missing_folder_is_a_located_error(tmp_path: Path) -> None:
    """Issue 32 item 12: was a bare OSError."""
    q = parse_quant_params(HAND)
    with pytest.raises(tidl_io.PathIsFolderError) as info:
        q.save(tmp_path)
    assert str(info.value).startswith(f"{tmp_path}: cannot write it: it is a folder")
    missing = tmp_path / "no" / "q.prototxt"
    with pytest.raises(tidl_io.PathNotFoundError) as info2:
        q.save(missing)
    assert str(info2.value) == f"{missing}: cannot write it: the folder '{missing.parent}' does not exist"
    assert isinstance(info.value, tidl_io.TidlIoError) and isinstance(info2.value, tidl_io.TidlIoError)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("line, says", [
    ("  min: 1e999999999", "line 6: min: expected a finite number (an exponent within ±400)"),
    ("  size: " + "9" * 5000, "line 6: size: expected a whole number of at most 24 digits"),
    ("  max: \u00b2", "line 6: max: expected a number, found '\u00b2'"),
])
def test_hostile_numbers_are_located(line: str, says: str) -> None:
    text = f"num_layers: 1\nlayers {{\n  layer_name: \"a\"\n  outputs {{\n  min: 0\n{line}\n  }}\n}}\n"
    with pytest.raises(FormatError, match=re.escape(says)) as err:
        parse_quant_params(text.encode(), "q.prototxt")
    assert len(str(err.value)) < 300


def test_c_spellings_of_floats_are_read() -> None:
    text = "layers {\n  outputs {\n    min: -1.5f\n    max: nan\n    scale: inf\n  }\n}\n"
    t = parse_quant_params(text.encode(), "q.prototxt").layers[0].outputs[0]
    assert t.min == -1.5 and t.max != t.max and t.scale == [float("inf")]


@pytest.mark.parametrize("body, says", [
    ("    value: 0.5\n" * 1_000_000, "q.prototxt: more than 262144 lines"),  # took 222 MB
    ("    value: [" + "0.5," * 1_000_000 + "]\n", "q.prototxt: line 3: more than 262144 values of repeated fields"),
    ("    scale: 1\n" * 1000 + "    value: [" + "0.5," * 261_200 + "]\n", "line 1003: more than 262144 values"),
])
def test_repeated_values_are_bounded(body: str, says: str) -> None:
    import time
    import tracemalloc

    data = ("layers {\n  outputs {\n" + body + "  }\n}\n").encode()
    start = time.process_time()
    tracemalloc.start()
    try:
        with pytest.raises(FormatError, match=re.escape(says)):
            parse_quant_params(data, "q.prototxt")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100 << 20 and time.process_time() - start < 20  # (under tracemalloc: CPU inflated ~10x)
