"""tidl_io.report on every real model folder: each section's document EQUALS its command's own
``--json`` on the same folder (the commands run here through the CLI, the oracle); a part that
cannot be made says which file is missing, exactly as its command's one error line says it; the
accuracy sections with traces written by this test (Zero-DCE, each layer quantized with the
net's own scale, one layer spoiled) and a golden .npz made by hand (no golden extra needed)."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tidl_io
from tidl_io.cli.app import main

from conftest import EXAMPLES, ZERO_DCE
from perf_fixtures import board_text

FOLDERS = ["bbai64-deeplabv3-mnv2-8.2", "edgeai-tidl-east-9.0", "edgeai-tidl-fcnn-cnn5-9.0", "od-8220-yolox-10.0",
           "real-time-llve-zero-dce-10.0"]


def run(*argv: str) -> tuple[int, Any, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    text = out.getvalue()
    return code, (json.loads(text) if text.strip().startswith("{") else text), err.getvalue()


def command_of(key: str, path: str, art: str) -> list[str]:
    return {"doctor": ["doctor", path, "--json"], "model": ["inspect", path, "--json"],
            "perf": ["perf", path, "--json"], "support": ["why", path, "--json"], "quant": ["quant", path, "--json"],
            "emulation": ["emulate", art, "--check", "--json"]}[key]


@pytest.fixture(scope="module", params=FOLDERS)
def folder(request: pytest.FixtureRequest, realdata: Path) -> tuple[str, Any, int]:
    path = str(realdata / "net" / request.param)
    code, doc, err = run("report", path, "--json")
    assert code in (0, 1), err
    return path, doc, code


def test_every_section_equals_its_command(folder: tuple[str, Any, int]) -> None:
    path, doc, _ = folder
    art = str(tidl_io.report(path).section("emulation").command.split()[2])
    for key in ("doctor", "model", "perf", "support", "quant", "emulation"):
        section = doc["sections"][key]
        code, own, err = run(*command_of(key, path, art))
        if section["document"] is None:  # the command could not either: its one line is the section's "missing"
            assert code == 2, (key, err)
            assert err.strip().endswith(section["missing"]), (key, err, section["missing"])
        else:
            if key == "emulation":  # its run's wall time, the one field two runs cannot share
                assert isinstance(section["document"].pop("seconds"), float) and isinstance(own.pop("seconds"), float)
            assert section["document"] == own, key
            assert section["finding"] == (code == 1), key


def test_exit_like_doctor(folder: tuple[str, Any, int]) -> None:
    path, doc, code = folder
    findings = [k for k, s in doc["sections"].items() if s["finding"]]
    assert code == (1 if findings else 0)
    doctor_code, _, _ = run("doctor", path, "--json")
    assert doc["sections"]["doctor"]["finding"] == (doctor_code == 1)
    assert next(iter(doc["sections"])) == "doctor"
    json.dumps(doc, allow_nan=False)


def test_page_is_written(folder: tuple[str, Any, int], tmp_path: Path) -> None:
    path, _, code = folder
    dest = tmp_path / "r.html"
    got, _text, err = run("report", path, "-o", str(dest))
    assert got == code, err
    page = dest.read_text(encoding="utf-8")
    assert page.count('<section id="') == 8 and "<script" not in page and "http://" not in page.replace(
        "http://www.w3.org/2000/svg", "")


def test_could_not(tmp_path: Path, realdata: Path) -> None:
    code, doc, err = run("report", str(tmp_path / "nothing"), "--json")
    assert code == 2 and doc["errors"][0]["path"] == str(tmp_path / "nothing")
    assert err.startswith("tidl-io report: error: ") and err.count("\n") == 1
    code, _, err = run("report", str(tmp_path), "-o", str(tmp_path / "r.html"))
    assert code == 2 and "no *_tidl_io_1.bin" in err and not (tmp_path / "r.html").exists()
    code, _, err = run("report", str(realdata / "net" / FOLDERS[1]), "-o", str(tmp_path / "no" / "r.html"))
    assert code == 2 and "does not exist" in err and err.count("\n") == 1


def _kinds(realdata: Path, tmp_path: Path) -> dict[str, Path]:
    """Folders of kinds no real one is: a compile that left only graphvizInfo.txt and paramDebug
    (no io descriptor, no net), and a folder holding only a net."""
    east = realdata / "net" / "edgeai-tidl-east-9.0"
    a = tmp_path / "gv_pd"
    (a / "tempDir").mkdir(parents=True)
    for name in ("graphvizInfo.txt", "625_tidl_net.bin_paramDebug.csv"):
        shutil.copy(east / "tempDir" / name, a / "tempDir" / name)
    b = tmp_path / "net_only"
    b.mkdir()
    shutil.copy(east / "625_tidl_net.bin", b / "625_tidl_net.bin")
    return {"gv_pd": a, "net_only": b}


def test_unseen_kinds_say_what_is_missing(realdata: Path, tmp_path: Path) -> None:
    kinds = _kinds(realdata, tmp_path)
    page = tmp_path / "gv_pd.html"
    code, _text, err = run("report", str(kinds["gv_pd"]), "-o", str(page))
    assert code == 1, err  # doctor cannot check a folder without io descriptor or net: a finding, and a page
    r = tidl_io.report(kinds["gv_pd"])
    assert r.section("support").document == run("why", str(kinds["gv_pd"]), "--json")[1]
    assert r.section("quant").document == run("quant", str(kinds["gv_pd"]), "--json")[1]
    doctor_code, _, doctor_err = run("doctor", str(kinds["gv_pd"]))
    assert doctor_code == 2 and doctor_err.strip().endswith(r.section("doctor").missing or "?")
    assert "_tidl_io_1.bin" in (r.section("model").missing or "")
    html = page.read_text(encoding="utf-8")
    for s in r.sections:
        if s.document is None:  # the missing file named, and no table of nothing
            start = html.index(f'<section id="{s.key}" class="part missing"')
            body = html[start:html.index("</section>", start)]
            assert "nothing to show: " in body and "<table" not in body, s.key
    code, doc, err = run("report", str(kinds["net_only"]), "--json", "--no-library")
    assert code == 1, err
    assert doc["sections"]["model"]["document"]["nets"][0]["layers"]
    for key in ("perf", "support", "quant", "emulation"):
        assert doc["sections"][key]["document"] is None and doc["sections"][key]["missing"], key
    assert "graphvizInfo.txt" in doc["sections"]["support"]["missing"]


# --- the accuracy sections -------------------------------------------------------------------------

TRACED = (0, 1, 2, 3, 4, 5, 6, 7, 9, 11, 13, 14, 15, 16)
SPOILED = 9


@pytest.fixture(scope="module")
def accuracy(realdata: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    art = realdata / ZERO_DCE / "artifacts"
    net = tidl_io.load_net(art / "74_tidl_net.bin")
    tmp = tmp_path_factory.mktemp("report")
    rng = np.random.default_rng(5)
    golden, traces = {}, tmp / "traces"
    traces.mkdir()
    for d in TRACED:
        layer = net.layer_by_data_id(d)
        n, c, h, w = layer.shape
        ref = (rng.random((n, c, h, w)) * 0.5).astype(np.float32)
        golden[layer.name] = ref
        if layer.dtype.kind == "f":
            codes = ref.astype(layer.dtype)
        else:
            info = np.iinfo(layer.dtype)
            codes = np.clip(np.round(ref * layer.scale) + layer.zero_point, info.min, info.max).astype(layer.dtype)
        if d == SPOILED:
            codes[:, 0] = layer.zero_point
        name = f"tidl_trace_subgraph_0_{d:04d}_{n:04d}_0001_00001_{c:05d}_{w:06d}x{h:05d}.y"
        (codes.transpose(0, 2, 3, 1) if layer.layout == "NHWC" else codes).tofile(traces / name)
    np.savez(tmp / "golden.npz", **golden)
    return {"model": str(realdata / ZERO_DCE), "art": str(art), "traces": str(traces), "golden": str(tmp / "golden.npz")}


def test_compare_and_advise_equal_their_commands(accuracy: dict[str, Any], tmp_path: Path) -> None:
    c = accuracy
    code, doc, err = run("report", c["model"], "--traces", c["traces"], "--golden", c["golden"], "--json")
    assert code == 1, err
    compare = doc["sections"]["compare"]
    own_code, own, own_err = run("compare", c["traces"], "--artifacts", c["art"], "--golden", c["golden"], "--json")
    assert compare["document"] == own, own_err
    assert compare["finding"] == (own_code == 1) and compare["finding"]
    assert own["first_bad"] is not None and own["compared"] >= len(TRACED) - 2
    advise_code, advice, advise_err = run("advise", c["art"], "--traces", c["traces"], "--golden-npz", c["golden"],
                                          "--json")
    assert advise_code == 0, advise_err
    assert doc["sections"]["advise"]["document"] == advice
    page = tidl_io.report(c["model"], traces=c["traces"], golden=c["golden"]).to_html()
    assert page.count('id="compare-74-') >= own["compared"] and 'id="advise-' in page
    assert 'href="#compare-74-' in page and 'href="#advise-74-' in page  # the model table links them


def test_board_log_beside_the_simulation(tmp_path: Path) -> None:
    """--board: the perf section equals ``perf --board``'s document, and the page shows the board
    columns (perf's own table)."""
    perf = tidl_io.load_perf(EXAMPLES)
    rows = [(lay.position, 1000 * (k + 1), 500, 600, 100, 50, 1024, 512)
            for k, lay in enumerate(perf.subgraphs[0].layers) if lay.type != "TIDL_DataLayer"]
    board = tmp_path / "tidl_trace_subgraph_0_perf.csv"
    board.write_text(board_text(rows))
    code, doc, err = run("report", str(EXAMPLES), "--board", str(board), "--json", "--no-library")
    assert code == 0, err
    own_code, own, own_err = run("perf", str(EXAMPLES), "--board", str(board), "--json")
    assert own_code == 0 and doc["sections"]["perf"]["document"] == own, own_err
    assert any(lay["board"] for lay in own["subgraphs"][0]["layers"])
    assert str(board) in doc["sections"]["perf"]["files"]
    page = tidl_io.report(EXAMPLES, board=[board], check_library=False).to_html()
    assert "board/sim" in page
