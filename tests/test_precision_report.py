"""tidl_io.load_quant: paramDebug rows, prototxt activations and names joined per layer; the
oracles are the files read with csv / re here."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import shutil
from pathlib import Path

import pytest

import tidl_io
from tidl_io import PathNotFoundError

from conftest import REALDATA

NET = REALDATA / "net"
OD = NET / "od-8220-yolox-10.0"
DCE = NET / "real-time-llve-zero-dce-10.0"


def _need(p: Path) -> Path:
    if not p.exists():
        pytest.skip("../shared/realdata not present")
    return p


def _csv(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text())))[1:]


def test_od_8220_every_row_and_activation() -> None:
    _need(OD)
    report = tidl_io.load_quant(OD)
    table = _csv(OD / "artifacts" / "tempDir" / "subgraph_0_tidl_net.bin_paramDebug.csv")
    by = {lay.index: lay for lay in report.layers}
    for k in range(0, len(table), 2):
        bias, weights = table[k], table[k + 1]
        lay = by[int(bias[0])]
        assert lay.bias is not None and lay.weights is not None
        assert lay.bias.max_rel_difference == float(bias[9]) and lay.weights.max_rel_difference == float(weights[9])
        assert lay.bias.scale == float(bias[10]) and lay.weights.scale == float(weights[10])
    # ranked worst weights first
    worst = [float(r[9]) for r in table[1::2]]
    ranked = [lay.weights.max_rel_difference for lay in report.layers if lay.weights is not None]
    assert ranked == sorted(worst, reverse=True)
    # activations: the prototxt's outputs block per layer, in file order = layer index
    text = (OD / "model" / "model_qparams.prototxt").read_text()
    blocks = text.split("\nlayers {\n")[1:]
    for i, block in enumerate(blocks):
        out = block.split("  outputs {\n")[1].split("  }\n")[0]
        field = dict(re.findall(r"^\s*(\w+): (\S+)$", out, re.MULTILINE))
        a = by[i].activation
        assert a is not None
        assert (a.min, a.max, a.scale, a.zero_point) == (float(field["min"]), float(field["max"]),
                                                         float(field["scale"]), int(field["zero_point"]))
        assert a.bit_depth == int(re.search(r"^  bit_depth: (\d+)$", block, re.MULTILINE).group(1))
        assert a.bits == {"0": 8, "1": 8, "2": 16, "3": 16, "6": 32}[field["element_type"]]
        assert a.step == 1 / float(field["scale"])
    # paramDebug's scales equal the prototxt's bias and weight scales for all 84 layers: no problem
    assert report.problems == () and report.ok
    doc = json.loads(json.dumps(report.to_dict(), allow_nan=False))
    assert doc["schema_version"] == 1 and len(doc["layers"]) == 122
    first = doc["layers"][0]
    assert set(first) >= {"index", "name", "weights", "bias", "activation"}
    assert set(first["activation"]) >= {"bit_depth", "min", "max", "scale", "zero_point"}


def test_od_8220_names_from_the_net_log() -> None:
    _need(OD)
    report = tidl_io.load_quant(OD)
    log = (OD / "artifacts" / "tempDir" / "subgraph_0_tidl_net.bin_netLog.txt").read_text().splitlines()
    rows = [line.split("|") for line in log if re.match(r"^\s*\d+\|", line)]
    want = {int(r[0]): (r[2].strip(), r[1].strip(), int(r[7])) for r in rows}
    assert {lay.index: (lay.name, lay.type, lay.data_id) for lay in report.layers} == want
    assert report.layer("86").index == 53
    with pytest.raises(KeyError, match="no layer named 'nope'"):
        report.layer("nope")


def test_zero_dce_with_its_net() -> None:
    _need(DCE)
    report = tidl_io.load_quant(DCE / "artifacts")
    table = _csv(DCE / "artifacts" / "tempDir" / "74_tidl_net.bin_paramDebug.csv")
    with_rows = [lay for lay in report.layers if lay.weights is not None]
    assert len(with_rows) == len(table) // 2 == 16
    assert report.files["nets"] and all(lay.activation is None for lay in report.layers)
    assert with_rows[0].weights is not None
    assert with_rows[0].weights.max_rel_difference == max(float(r[9]) for r in table[1::2])
    net = tidl_io.load_net(DCE / "artifacts" / "74_tidl_net.bin")
    assert {lay.index: lay.net_scale for lay in report.layers} == {lay.index: lay.scale for lay in net.layers}


def test_scale_disagreement_is_a_problem(tmp_path: Path) -> None:
    _need(OD)
    art = tmp_path / "artifacts"
    (art / "tempDir").mkdir(parents=True)
    (tmp_path / "model").mkdir()
    src = OD / "artifacts" / "tempDir" / "subgraph_0_tidl_net.bin_paramDebug.csv"
    lines = src.read_text().splitlines(keepends=True)
    cells = lines[2].split(",")
    cells[10] = "1.000000"  # the weights row of layer 2
    lines[2] = ",".join(cells)
    (art / "tempDir" / src.name).write_text("".join(lines))
    shutil.copy(OD / "model" / "model_qparams.prototxt", tmp_path / "model")
    shutil.copy(OD / "model" / "model.prototxt", tmp_path / "model")
    report = tidl_io.load_quant(tmp_path)
    assert len(report.problems) == 1 and "line 3: layer 2" in report.problems[0]
    assert "weights Scale 1" in report.problems[0] and not report.ok
    assert report.files["quant_params"].endswith("model_qparams.prototxt")


def test_nothing_to_read(tmp_path: Path) -> None:
    with pytest.raises(PathNotFoundError, match="paramDebug"):
        tidl_io.load_quant(tmp_path)
    with pytest.raises(PathNotFoundError, match="missing: no such file or folder; expected a model folder"):
        tidl_io.load_quant(tmp_path / "missing")
    (tmp_path / "config.yaml").write_text("x: 1\n")  # a file is not said to be missing (the review's case)
    with pytest.raises(tidl_io.PathError, match="config.yaml: is a file, not a folder; expected a model folder"):
        tidl_io.load_quant(tmp_path / "config.yaml")


def test_text_table_is_escaped(tmp_path: Path) -> None:
    (tmp_path / "tempDir").mkdir()
    head = ("LayerId , meanDifference, maxDifference, meanOrigFloat, meanRelDifference, orgmax, quantizedMax,"
            "orgAtmaxDiff, quantizedAtMaxDiff,maxRelDifference, Scale , , , , Hist \n")
    row = "2,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,{},10, , , ,1,\n"
    (tmp_path / "tempDir" / "x_tidl_net.bin_paramDebug.csv").write_text(head + row.format(1) + row.format("inf"))
    (tmp_path / "tempDir" / "x_tidl_net.bin.layer_info.txt").write_text("2 7 bad\x1bname\n")
    report = tidl_io.load_quant(tmp_path)
    assert "\x1b" not in report.to_text() and "bad\\x1bname" in report.to_text()
    doc = json.loads(json.dumps(report.to_dict(), allow_nan=False))
    assert doc["layers"][0]["weights"]["max_rel_difference"] is None and doc["layers"][0]["data_id"] == 7
    assert math.isinf(report.layers[0].weights.max_rel_difference)  # type: ignore[union-attr]


def test_prototxt_scales_against_the_net(tmp_path: Path) -> None:
    """Zero-DCE's net with a prototxt written here: each layer's output scale is the net's
    tensorScale except layer 9's, which must be the one problem."""
    _need(DCE)
    art = tmp_path / "artifacts"
    shutil.copytree(DCE / "artifacts", art)
    (tmp_path / "model").mkdir()
    net = tidl_io.load_net(art / "74_tidl_net.bin")
    blocks = []
    for lay in net.layers:
        scale = 123.25 if lay.index == 9 else lay.scale
        blocks.append(f'layers {{\n  layer_name: "{lay.name}"\n  layer_type: "{lay.type}"\n  bit_depth: 1\n'
                      f'  outputs {{\n    min: -1\n    max: 1\n    size: 1\n    element_type: 1\n'
                      f'    scale: {scale!r}\n    zero_point: 0\n  }}\n}}\n')
    (tmp_path / "model" / "zero_dce_qparams.prototxt").write_text(f"num_layers: {len(blocks)}\n" + "".join(blocks))
    report = tidl_io.load_quant(tmp_path)
    assert len(report.problems) == 1, report.problems
    assert "layer 9" in report.problems[0] and "output scale 123.25" in report.problems[0]
    assert f"{net.layers[9].scale:.9g}" in report.problems[0]
    nine = next(lay for lay in report.layers if lay.index == 9)
    assert nine.activation is not None and nine.activation.scale == 123.25 and nine.activation.bits == 8


@pytest.mark.parametrize("folder, rel", [
    ("od-8220-yolox-10.0", "artifacts/tempDir/subgraph_0_tidl_net.bin_paramDebug.csv"),
    ("real-time-llve-zero-dce-10.0", "artifacts/tempDir/74_tidl_net.bin_paramDebug.csv"),
    ("edgeai-tidl-fcnn-cnn5-9.0", "tempDir/_cnn_cnn.5_relu_Relu_output_0_tidl_net.bin_paramDebug.csv"),
    ("edgeai-tidl-east-9.0", "tempDir/625_tidl_net.bin_paramDebug.csv"),
])
def test_every_param_debug_row_is_in_the_json(folder: str, rel: str) -> None:
    path = _need(NET / folder / rel)
    doc = json.loads(json.dumps(tidl_io.load_quant(NET / folder).to_dict(), allow_nan=False))
    by = {lay["index"]: lay for lay in doc["layers"]}
    table = _csv(path)
    for k, cells in enumerate(table):
        got = by[int(cells[0])]["bias" if k % 2 == 0 else "weights"]
        assert [got[key] for key in ("mean_difference", "max_difference", "mean_orig_float", "mean_rel_difference",
                                     "org_max", "quantized_max", "org_at_max_diff", "quantized_at_max_diff",
                                     "max_rel_difference", "scale")] == [float(c) for c in cells[1:11]]
    assert sum(lay["weights"] is not None for lay in doc["layers"]) == len(table) // 2


def test_to_text_top_is_checked(tmp_path: Path) -> None:
    (tmp_path / "tempDir").mkdir()
    head = ("LayerId , meanDifference, maxDifference, meanOrigFloat, meanRelDifference, orgmax, quantizedMax,"
            "orgAtmaxDiff, quantizedAtMaxDiff,maxRelDifference, Scale , , , , Hist \n")
    rows = "".join(f"{k},0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,{v},10, , , ,1,\n" for k in (2, 3) for v in (1, 2))
    (tmp_path / "tempDir" / "x_tidl_net.bin_paramDebug.csv").write_text(head + rows)
    report = tidl_io.load_quant(tmp_path)
    table = [line for line in report.to_text(top=None).splitlines() if line.startswith("  ") and "…" not in line]
    assert len(table) == 3  # the header and layers 2 and 3
    assert report.to_text(top=0) == report.to_text(top=None)  # 0: all, as `tidl-io quant --top 0`
    assert len([line for line in report.to_text(top=1).splitlines() if line.startswith("  ")]) == 3  # + "… 1 more"
    with pytest.raises(tidl_io.OptionError, match="top must be >= 0, found -1"):
        report.to_text(top=-1)  # was: every layer but the last, silently
    with pytest.raises(tidl_io.TidlIoError, match="top"):
        report.to_text(top="3")  # type: ignore[arg-type]


def test_repr_is_short() -> None:
    """load_quant's QuantReport printed every layer's statistics (615 KB on od-8220)."""
    info = _need(OD) / "artifacts" / "tempDir" / "subgraph_0_tidl_net.bin.layer_info.txt"
    layers = len([line for line in info.read_text().splitlines() if line.strip()])  # one line per layer
    text = repr(tidl_io.load_quant(OD))
    assert len(text) <= 300 and text.startswith(f"QuantReport({str(OD)!r}")
    assert f"layers={layers}," in text and "problems=0" in text and "ok=True" in text


def test_another_compiles_prototxt_is_one_summary_line_and_every_detail_in_json(tmp_path: Path) -> None:
    """Issue 32 item 17: the YOLOX prototxt beside the Zero-DCE net printed 134 error lines; the text says it
    in one line (counts by kind, the first, the likely cause), to_dict keeps every one."""
    zero = NET / "real-time-llve-zero-dce-10.0"
    if not zero.is_dir() or not OD.is_dir():
        pytest.skip("../shared/realdata not present")
    model = tmp_path / "m"
    shutil.copytree(zero, model)
    (model / "model").mkdir(exist_ok=True)
    shutil.copy(OD / "model" / "model_qparams.prototxt", model / "model")
    report = tidl_io.load_quant(model)
    text = report.to_text()
    errors = [line for line in text.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and len(report.problems) > 100
    names = sum(1 for p in report.problems if "but the net names layer" in p)
    assert names == 55  # the net's 55 layers: every name differs (counted from the messages, not the summary)
    assert f"{len(report.problems)} disagreement(s) between the files ({names} layer name(s), " \
           f"{len(report.problems) - names} scale(s)); {names} of the net's 55 layer names differ: the files of " \
           f"another compile?" in errors[0]
    assert report.to_dict()["problems"] == list(report.problems)


def test_a_prototxt_alone_does_not_claim_weights(tmp_path: Path) -> None:
    if not OD.is_dir():
        pytest.skip("../shared/realdata not present")
    (tmp_path / "model").mkdir()
    shutil.copy(OD / "model" / "model_qparams.prototxt", tmp_path / "model")
    report = tidl_io.load_quant(tmp_path)
    assert all(lay.weights is None for lay in report.layers)
    first = report.to_text().splitlines()[0]
    assert "worst weights" not in first and "no weight statistics" in first
    with_weights = tidl_io.load_quant(OD).to_text().splitlines()[0]
    assert with_weights.endswith("worst weights (maxRelDifference) first")


@pytest.mark.parametrize("edit, says", [
    (("    scale: 601.9661865234375\n", "    scale: -601.96\n"), "scale -601.96; a scale is a finite number, 0 or more"),
    (("    scale: 601.9661865234375\n", "    scale: nan\n"), "scale nan; a scale is a finite number, 0 or more"),
    (("    min: -48.6513863\n", "    min: 4800.65\n"), "min 4800.65 is above max 48.7318382"),
])
def test_read_mode_problems_of_the_prototxt_are_findings(edit: tuple[str, str], says: str, tmp_path: Path) -> None:
    """The second probe of issue 32: a negative or NaN scale, min above max were accepted (exit 0)."""
    _need(OD)
    shutil.copytree(OD, tmp_path / "m")
    proto = tmp_path / "m" / "model" / "model_qparams.prototxt"
    text = proto.read_text()
    old, new = edit
    assert text.count(old) >= 1
    proto.write_text(text.replace(old, new, 1))
    report = tidl_io.load_quant(tmp_path / "m")
    assert not report.ok and any(says in p and p.startswith("read mode: ") for p in report.problems), report.problems
