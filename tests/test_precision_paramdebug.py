"""tidl_io.precision.paramdebug against TI's paramDebug.csv files, read with csv here."""

from __future__ import annotations

import csv
import io

import pytest

from tidl_io import FormatError
from tidl_io.precision import parse_param_debug

from conftest import REALDATA

NET = REALDATA / "net"
FILES = ["od-8220-yolox-10.0/artifacts/tempDir/subgraph_0_tidl_net.bin_paramDebug.csv",
         "real-time-llve-zero-dce-10.0/artifacts/tempDir/74_tidl_net.bin_paramDebug.csv",
         "edgeai-tidl-fcnn-cnn5-9.0/tempDir/_cnn_cnn.5_relu_Relu_output_0_tidl_net.bin_paramDebug.csv",
         "edgeai-tidl-east-9.0/tempDir/625_tidl_net.bin_paramDebug.csv"]
SNAKE = ["mean_difference", "max_difference", "mean_orig_float", "mean_rel_difference", "org_max", "quantized_max",
         "org_at_max_diff", "quantized_at_max_diff", "max_rel_difference", "scale"]


@pytest.mark.parametrize("rel", FILES)
def test_every_row_with_its_numbers(rel: str) -> None:
    path = NET / rel
    if not path.is_file():
        pytest.skip("../shared/realdata not present")
    text = path.read_text()
    table = list(csv.reader(io.StringIO(text)))[1:]
    rows = parse_param_debug(text, str(path))
    assert len(rows) == len(table)
    for k, (r, cells) in enumerate(zip(rows, table)):
        assert r.layer_id == int(cells[0]) and r.line == k + 2
        assert r.kind == ("bias" if k % 2 == 0 else "weights")
        assert [getattr(r, s) for s in SNAKE] == [float(c) for c in cells[1:11]]
        assert r.hist == tuple(int(c) for c in cells[14:] if c.strip())
        assert r.to_dict() == {**{s: float(c) for s, c in zip(SNAKE, cells[1:11])}, "line": k + 2}


def test_the_layer_ids_of_od_8220() -> None:
    path = NET / FILES[0]
    if not path.is_file():
        pytest.skip("../shared/realdata not present")
    rows = parse_param_debug(path.read_text())
    assert len(rows) == 168 and len({r.layer_id for r in rows}) == 84 and len(rows[0].hist) == 1000


HEAD = ("LayerId , meanDifference, maxDifference, meanOrigFloat, meanRelDifference, orgmax, quantizedMax,orgAtmaxDiff, "
        "quantizedAtMaxDiff,maxRelDifference, Scale , , , , Hist \n")
ROW = "{},0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,{},10.5, , , ,1,2,3,\n"


def test_hand_made() -> None:
    rows = parse_param_debug(HEAD + ROW.format(3, 1.5) + ROW.format(3, "-nan").replace("0.1", "inf", 1))
    assert rows[1].mean_difference == float("inf")  # printf("%f") of an infinity and a NaN: kept, as TI wrote
    assert [(r.layer_id, r.kind, r.hist) for r in rows] == [(3, "bias", (1, 2, 3)), (3, "weights", (1, 2, 3))]
    assert rows[1].to_dict()["max_rel_difference"] is None and rows[0].max_rel_difference == 1.5


@pytest.mark.parametrize("text, match", [
    ("", "empty"),
    ("a,b\n", "line 1"),
    (HEAD + ROW.format(3, 1), "line 2: layer 3 has one row"),
    (HEAD + ROW.format(3, 1) + ROW.format(4, 1), "line 2: layer 3 has one row"),
    (HEAD + ROW.format(3, 1) * 3, "line 4: a third row"),
    (HEAD + (ROW.format(3, 1) * 2) + ROW.format(5, 1) * 2 + ROW.format(3, 1) * 2, "line 6: layer 3 again"),
    (HEAD + ROW.format("x", 1), "line 2: LayerId"),
    (HEAD + ROW.format(3, "abc"), "line 2: layer 3, maxRelDifference"),
    (HEAD + "3,0.1,0.2\n", "line 2: expected a layer id and 10 numbers"),
    (HEAD + ROW.format(3, 1).replace(",1,2,3,", ",1,q,3,"), "line 2: layer 3, Hist"),
    (HEAD + ROW.format(3, 1).replace(",1,2,3,", ",1,\u00b2,3,"),
     "line 2: layer 3, Hist: expected a whole number, found '\u00b2'"),  # was StopIteration
    (HEAD + ROW.format(3, 1).replace(",1,2,3,", ",1,-2,3,"), "line 2: layer 3, Hist: expected a whole number >= 0"),
    (HEAD + ROW.format("9" * 5000, 1),
     r"line 2: LayerId: expected a whole number of at most 24 digits, found '9{40}…' \(5000 characters\)"),
    (HEAD + ROW.format(3, "1e999999999"), "line 2: layer 3, maxRelDifference: expected a finite number"),
    (HEAD + ROW.format(3, 1).replace(",1,2,3,", ",1," + "9" * 5000 + ",3,"),
     "line 2: layer 3, Hist: expected a whole number of at most 24 digits"),
    ((HEAD + ROW.format(3, 1) * 2)[:-3], "line 3: cut short"),  # TI ends every row with a line end
    (HEAD[:-9], "line 1: cut short"),
])
def test_malformed_is_located(text: str, match: str) -> None:
    with pytest.raises(FormatError, match=match) as exc:
        parse_param_debug(text, "p.csv")
    assert str(exc.value).startswith("p.csv")


def test_a_real_file_cut_in_a_histogram_is_an_error() -> None:
    path = NET / FILES[0]
    if not path.exists():
        pytest.skip("../shared/realdata not present")
    text = path.read_text()
    assert text.endswith("\n")
    cut = text[:len(text) // 2]
    assert not cut.endswith("\n")
    with pytest.raises(FormatError, match=rf"line {cut.count(chr(10)) + 1}: cut short"):
        parse_param_debug(cut, "p.csv")
    assert len(parse_param_debug(text.replace("\n", "\r\n"))) == len(text.splitlines()) - 1
