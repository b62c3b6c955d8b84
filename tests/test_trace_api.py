"""The public comparison calls (tidl_io.trace.api: tidl_io.compare_traces, tidl_io.compare_calibration)
and TIDL's own subgraph numbers: the EAST 9.0 artifacts, whose onnxrtMetaData.txt lists the
subgraph '625' as TIDL's subgraph 1, laid out here as a folder where another subgraph is missing."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io.cli.app import main

from conftest import EAST, EXAMPLES


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()


def _folder(realdata: Path, tmp_path: Path) -> Path:
    """EAST's files as subgraph 2 ('625') of three (TIDL's numbers 0 'x', 1 'gone', 2 '625'), with
    subgraph 0 a copy under the name 'x' and subgraph 1 never copied; both have calibration dumps."""
    art = tmp_path / "art"
    (art / "tempDir").mkdir(parents=True)
    src = realdata / EAST
    for name in ("x", "625"):
        for kind in ("io_1", "net"):
            shutil.copyfile(src / f"625_tidl_{kind}.bin", art / f"{name}_tidl_{kind}.bin")
        for dump in ("_calib_raw_data.bin", "_tidl_io__stats_tool_out.bin"):
            shutil.copyfile(src / "tempDir" / f"625{dump}", art / "tempDir" / f"{name}{dump}")
    (art / "onnxrtMetaData.txt").write_text("numGraphNodes=121\n0:subGraphName=x\n1:subGraphName=gone\n"
                                            "2:subGraphName=625\n")
    return art


def _traces(realdata: Path, tmp_path: Path, subgraph: int) -> tuple[Path, Path]:
    net = tidl_io.load_net(realdata / EAST / "625_tidl_net.bin")
    layer = net.layer_by_data_id(4)  # the concat
    n, c, h, w = layer.shape
    q = np.random.default_rng(2).integers(-100, 100, size=layer.shape).astype(layer.dtype)
    folders = []
    for folder in ("t", "r"):
        (tmp_path / folder).mkdir()
        q.tofile(tmp_path / folder / f"tidl_trace_subgraph_{subgraph}_0004_{n:04d}_0001_00001_{c:05d}_{w:06d}x{h:05d}.y")
        folders.append(tmp_path / folder)
    return folders[0], folders[1]


def test_subgraph_numbers_are_tidls(realdata: Path, tmp_path: Path) -> None:
    """Issue 24 item 5: traces of TIDL's subgraph 2 are compared with the net of the subgraph
    onnxrtMetaData.txt numbers 2, picked by the trace names, by --subgraph 2 or by its name (before:
    --subgraph was a position in the folder's list, and 2 was out of range)."""
    art = _folder(realdata, tmp_path)
    meta = dict(line.split("=", 1) for line in (art / "onnxrtMetaData.txt").read_text().split())
    assert meta["2:subGraphName"] == "625"
    t, r = _traces(realdata, tmp_path, 2)
    for pick in ((), ("--subgraph", "2"), ("--subgraph", "625")):
        rc, out, err = _run("compare", str(t), "--artifacts", str(art), "--ref", str(r), "--json", *pick)
        assert rc == 0, (pick, err)
        doc = json.loads(out)
        assert "625_tidl_net.bin" in doc["test"] and [row["identical"] for row in doc["layers"]] == [True]
    rc, _, err = _run("compare", str(t), "--artifacts", str(art), "--ref", str(r), "--subgraph", "1")
    assert rc == 2 and "no subgraph '1'" in err and "0 (x), 2 (625)" in err
    report = tidl_io.compare_traces(t, artifacts=art, ref=r, subgraph=2)
    assert report.ok and "625_tidl_net.bin" in report.test


def test_calibration_subgraph_by_number_or_name(realdata: Path, tmp_path: Path) -> None:
    art = _folder(realdata, tmp_path)
    calib = tidl_io.load_calibration(realdata / EAST)
    ref = np.stack([np.concatenate([f["onnx::Concat_616"], f["onnx::Concat_624"]], axis=1) for f in calib.inputs])
    np.savez(tmp_path / "east.npz", **{"625": ref})
    rc, _, err = _run("compare", "--calibration", str(art), "--golden", str(tmp_path / "east.npz"))
    assert rc == 2 and "--subgraph" in err  # two subgraphs have dumps: which one (was exit 1, "name one")
    for pick in ("2", "625"):
        rc, out, err = _run("compare", "--calibration", str(art), "--golden", str(tmp_path / "east.npz"),
                            "--subgraph", pick, "--json")
        doc = json.loads(out)
        # channel 4 is all zeros, its reference under one step (2.0, the concat's): not counted (issue 32 item 7)
        assert rc == 0 and doc["test"].startswith("625_tidl_io__stats_tool_out.bin"), err
        assert doc["layers"][0]["worst_channel"] == 4 and doc["layers"][0]["channels_below_one_step"] == [4]
    report = tidl_io.compare_calibration(art, golden=tmp_path / "east.npz", subgraph="625")
    assert report.to_dict() == json.loads(out)


def test_the_cli_prints_exactly_the_public_report(realdata: Path, tmp_path: Path) -> None:
    """Issue 23 item 1: ``tidl_io.compare_traces`` returns the report the CLI prints (JSON and text)."""
    art = _folder(realdata, tmp_path)
    t, r = _traces(realdata, tmp_path, 2)
    report = tidl_io.compare_traces(t, artifacts=art, ref=r)
    assert isinstance(report, tidl_io.CompareReport)
    rc, out, _ = _run("compare", str(t), "--artifacts", str(art), "--ref", str(r), "--json")
    assert rc == 0 and json.loads(out) == report.to_dict() == json.loads(json.dumps(report.to_dict(), allow_nan=False))
    rc, out, _ = _run("compare", str(t), "--artifacts", str(art), "--ref", str(r))
    assert out == report.to_text() + "\n"
    assert report.to_html().startswith("<!DOCTYPE html>")


def test_api_options_are_checked(realdata: Path, tmp_path: Path) -> None:
    art = _folder(realdata, tmp_path)
    t, r = _traces(realdata, tmp_path, 2)
    with pytest.raises(tidl_io.OptionError, match="give one reference"):
        tidl_io.compare_traces(t, artifacts=art)
    with pytest.raises(tidl_io.OptionError, match="give one reference"):
        tidl_io.compare_traces(t, artifacts=art, golden={}, ref=r)
    with pytest.raises(tidl_io.ArgumentTypeError, match="compare_traces: subgraph: expected TIDL's subgraph number"):
        tidl_io.compare_traces(t, artifacts=art, ref=r, subgraph=2.0)  # type: ignore[arg-type]
    with pytest.raises(tidl_io.OptionError, match="golden_layout must be one of 'NCHW', 'NHWC'"):
        tidl_io.compare_traces(t, artifacts=art, ref=r, golden_layout="CHW")


# ---- layer times beside the SNRs (issue 25 item 4: compare finds TI's simulation beside the net) ----

def _one_trace(folder: Path) -> Path:
    """One trace of the example net's layer 2 (1x16x48x80 uint8, zeros)."""
    folder.mkdir()
    (folder / "tidl_trace_subgraph_0_0002_0001_0001_00001_00016_000080x00048.y").write_bytes(bytes(16 * 48 * 80))
    return folder


def _simulated_us(layer: int) -> float:
    """procTime(us) of ``layer`` in the example's simulation CSV, read here with the csv module."""
    import csv

    (sim,) = (EXAMPLES / "tempDir" / "detector_tidl_net").glob("tempDir_*.csv")
    for row in csv.reader(sim.read_text().splitlines()):
        cells = [c.strip() for c in row]
        if cells and cells[0] == str(layer):
            header = [c.strip() for c in sim.read_text().splitlines()[0].split(",")]
            return float(cells[header.index("procTime(us)")])
    raise AssertionError(f"layer {layer} not in {sim}")


def test_compare_shows_the_simulated_time_beside_the_snr(tmp_path: Path) -> None:
    traces = _one_trace(tmp_path / "t")
    report = tidl_io.compare_traces(traces, artifacts=EXAMPLES, ref=traces)
    (row,) = report.compared
    assert row.index == 2 and row.time_us == _simulated_us(2)
    doc = report.to_dict()
    assert doc["perf"].startswith(str(EXAMPLES)) and doc["layers"][0]["time_us"] == _simulated_us(2)
    assert "time µs" in report.to_text() and f"{_simulated_us(2):.1f}" in report.to_text()
    none = tidl_io.compare_traces(traces, artifacts=EXAMPLES, ref=traces, perf=False)
    assert none.compared[0].time_us is None and "perf" not in none.to_dict()
    assert "time_us" not in none.to_dict()["layers"][0] and "time µs" not in none.to_text()
    with pytest.raises(tidl_io.PathNotFoundError):
        tidl_io.compare_traces(traces, artifacts=EXAMPLES, ref=traces, perf=tmp_path)


def test_compare_cli_perf_options(tmp_path: Path) -> None:
    traces = _one_trace(tmp_path / "t")
    for extra, shown in (([], True), (["--no-perf"], False), (["--perf", str(EXAMPLES)], True)):
        out, err = io.StringIO(), io.StringIO()
        code = main(["compare", str(traces), "--artifacts", str(EXAMPLES), "--ref", str(traces), *extra], out, err)
        assert code == 0 and err.getvalue() == "" and ("time µs" in out.getvalue()) == shown
    out, err = io.StringIO(), io.StringIO()
    assert main(["compare", str(traces), "--artifacts", str(EXAMPLES), "--ref", str(traces), "--perf",
                 str(tmp_path)], out, err) == 2
    assert "no" in err.getvalue() and str(tmp_path) in err.getvalue()


# ---- a simulation of another model is refused, never joined by position (review: compare --perf) ----

def test_compare_refuses_the_simulation_of_another_model(tmp_path: Path) -> None:
    """--perf naming the hand-made 'adv' model's folder (7 layers, other names) beside the example net's
    traces: exit 2 and one line saying the layers do not match (before: exit 0, adv's times beside the
    example's layers, joined by number)."""
    from advise_fixtures import write_model

    traces = _one_trace(tmp_path / "t")
    other = write_model(tmp_path / "adv")
    out, err = io.StringIO(), io.StringIO()
    code = main(["compare", str(traces), "--artifacts", str(EXAMPLES), "--ref", str(traces), "--perf", str(other)],
                out, err)
    assert code == 2 and out.getvalue() == ""
    lines = err.getvalue().splitlines()
    assert len(lines) == 1 and "another model" in lines[0] and "layer 1 is" in lines[0] and "Traceback" not in lines[0]
    with pytest.raises(tidl_io.FormatError, match="another model"):
        tidl_io.compare_traces(traces, artifacts=EXAMPLES, ref=traces, perf=other)


def test_compare_refuses_a_simulation_whose_names_differ(tmp_path: Path) -> None:
    """Same layer count and types, one name changed in the net's layer_info.txt: refused, naming the layer."""
    art = tmp_path / "art"
    shutil.copytree(EXAMPLES, art)
    info = art / "detector_tidl_net.bin.layer_info.txt"
    info.write_text(info.read_text().replace("backbone/conv2", "neck/conv2"))
    traces = _one_trace(tmp_path / "t")
    with pytest.raises(tidl_io.FormatError, match="layer 3 is 'backbone/conv2' in the simulation, 'neck/conv2'"):
        tidl_io.compare_traces(traces, artifacts=art, ref=traces, perf=EXAMPLES)


def test_compare_refuses_yolox_times_beside_zero_dce(realdata: Path, tmp_path: Path) -> None:
    """The reviewer's case: Zero-DCE's net, od-8220 YOLOX's simulation (122 layers against 55)."""
    from conftest import ZERO_DCE

    art = realdata / ZERO_DCE / "artifacts"
    net = tidl_io.load_net(art / "74_tidl_net.bin")
    layer = net.layer_by_data_id(2)
    n, c, h, w = layer.shape
    (tmp_path / "t").mkdir()
    np.zeros(layer.shape, layer.dtype).tofile(tmp_path / "t" / f"tidl_trace_subgraph_0_0002_{n:04d}_0001_00001_"
                                                                f"{c:05d}_{w:06d}x{h:05d}.y")
    out, err = io.StringIO(), io.StringIO()
    code = main(["compare", str(tmp_path / "t"), "--artifacts", str(art), "--ref", str(tmp_path / "t"), "--perf",
                 str(realdata / "net" / "od-8220-yolox-10.0")], out, err)
    assert code == 2 and out.getvalue() == "" and len(err.getvalue().splitlines()) == 1
    assert "122 layers simulated, 55 in the net" in err.getvalue()


def test_times_join_rows_by_data_id_not_by_number() -> None:
    """A calibration report numbers its rows by output: row 0 holding dataId 4 ('head/boxes') gets
    layer 4's simulated time, not layer 0's; a row whose name is not the producer's gets none."""
    from tidl_io.trace.api import add_times
    from tidl_io.trace.report import CompareReport, Row, Status

    net = tidl_io.load_net(EXAMPLES / "detector_tidl_net.bin")
    report = CompareReport("ref", "test", 20.0, rows=[Row(0, 4, "head/boxes", None, None, Status.NO_REFERENCE),
                                                      Row(1, 3, "someone_else", None, None, Status.NO_REFERENCE)])
    add_times(report, EXAMPLES, net, required=True)
    assert _simulated_us(4) != _simulated_us(0)
    assert report.rows[0].time_us == _simulated_us(4) and report.rows[1].time_us is None
