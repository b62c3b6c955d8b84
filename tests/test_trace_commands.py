"""``tidl-io golden`` / ``tidl-io compare`` arguments (tidl_io.cli.trace): the calibration
dumps against an ONNX model built here, subgraph selection, exit codes."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io.cli.app import main

from conftest import EAST, ZERO_DCE


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()


def test_calibration_against_a_model(golden_extra: None, realdata: Path, tmp_path: Path) -> None:
    """The EAST subgraph is a channel concat of its two inputs: as an ONNX model, run on the
    calibration inputs, channel 4 of the output is all zeros (0 dB) in TIDL's: under one step."""
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Concat", ["onnx::Concat_616", "onnx::Concat_624"], ["625"], axis=1)], "east",
        [helper.make_tensor_value_info("onnx::Concat_616", TensorProto.FLOAT, [1, 4, 176, 320]),
         helper.make_tensor_value_info("onnx::Concat_624", TensorProto.FLOAT, [1, 1, 176, 320])],
        [helper.make_tensor_value_info("625", TensorProto.FLOAT, [1, 5, 176, 320])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(tmp_path / "east.onnx"))
    rc, out, err = _run("compare", "--calibration", str(realdata / EAST), "--golden", str(tmp_path / "east.onnx"),
                        "--json", "--html", str(tmp_path / "r.html"), "--min-snr", "40")
    assert rc == 1, err  # the layer's 37 dB; channel 4 is under one step (2.0): not counted (issue 32 item 7)
    (row,) = json.loads(out)["layers"]
    assert row["worst_channel"] == 4 and row["channel_snr_db"][4] == 0.0 and row["snr_db"] > 30
    # the oracle, in NumPy on TI's dumps: channels under 40 dB whose largest |error| is within one step (2.0)
    calib = tidl_io.load_calibration(realdata / EAST)
    ref = np.concatenate([np.concatenate([f["onnx::Concat_616"], f["onnx::Concat_624"]], axis=1)
                          for f in calib.inputs]).astype(np.float64)
    test = np.concatenate([f["625"] for f in calib.outputs]).astype(np.float64).reshape(ref.shape)
    err_max = np.abs(test - ref).max(axis=(0, 2, 3))
    expected = [k for k in range(5) if row["channel_snr_db"][k] < 40 and err_max[k] <= 2.0]
    assert 4 in expected and 3 not in expected and row["channels_below_one_step"] == expected
    assert "run on the calibration inputs" in json.loads(out)["reference"]
    assert (tmp_path / "r.html").read_text().count("<svg") == 3


def _two_subgraphs(realdata: Path, tmp_path: Path) -> Path:
    art = tmp_path / "art"
    art.mkdir()
    for name in ("a", "b"):
        for kind in ("io_1", "net"):
            shutil.copyfile(realdata / ZERO_DCE / "artifacts" / f"74_tidl_{kind}.bin", art / f"{name}_tidl_{kind}.bin")
    return art


def test_subgraph_is_picked_or_asked(realdata: Path, tmp_path: Path) -> None:
    art = _two_subgraphs(realdata, tmp_path)
    net = tidl_io.load_net(art / "b_tidl_net.bin")
    layer = net.layer_by_data_id(1)
    q = np.random.default_rng(0).integers(-5, 5, size=layer.shape).astype(np.int8)
    for folder in ("t", "r"):
        (tmp_path / folder).mkdir()
        for sg in (0, 1):
            q.tofile(tmp_path / folder / f"tidl_trace_subgraph_{sg}_0001_0001_0001_00001_00003_000600x00400.y")
    rc, _, err = _run("compare", str(tmp_path / "t"), "--artifacts", str(art), "--ref", str(tmp_path / "r"))
    # issue 24 item 2: an input that cannot be compared as given exits 2 (was 1, the code of a bad layer)
    assert rc == 2 and "2 subgraphs (a, b): say which one the traces are of with --subgraph N" in err
    rc, out, err = _run("compare", str(tmp_path / "t"), "--artifacts", str(art), "--ref", str(tmp_path / "r"),
                        "--subgraph", "1", "--json")
    doc = json.loads(out)
    assert rc == 0, err
    # issue 24 item 3: an infinite SNR is null in JSON, with "identical" saying why (was the string "inf")
    assert "b_tidl_net.bin" in doc["test"] and [(r["snr_db"], r["identical"]) for r in doc["layers"]] == [(None, True)]


def test_nothing_compared_is_an_error(realdata: Path, tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    net = tidl_io.load_net(realdata / ZERO_DCE / "artifacts" / "74_tidl_net.bin")
    np.zeros(net.layer_by_data_id(2).shape, np.int8).tofile(
        tmp_path / "t" / "tidl_trace_subgraph_0_0002_0001_0001_00001_00003_000600x00400.y")
    np.savez(tmp_path / "g.npz", other=np.zeros(3))
    rc, out, err = _run("compare", str(tmp_path / "t"), "--artifacts", str(realdata / ZERO_DCE / "artifacts"),
                        "--golden", str(tmp_path / "g.npz"))
    # issue 24 item 2: nothing compared, or no traces, is "could not compare": 2 (was 1)
    assert rc == 2 and "no layer could be compared" in err and "not compared: layer 2" in out
    rc, _, err = _run("compare", str(tmp_path / "empty"), "--artifacts", str(realdata / ZERO_DCE / "artifacts"),
                      "--golden", str(tmp_path / "g.npz"))
    assert rc == 2 and "expected a folder of TIDL trace files" in err


def test_golden_usage() -> None:
    assert _run("golden", "m.onnx", "-o", "g.npz")[0] == 2  # --input is required
    rc, _, err = _run("golden", "m.txt", "--input", "x.npy", "-o", "g.npz")
    assert rc == 2 and "expected an .onnx or .tflite model" in err  # could not do the job: 2, as diff (was 1)


def test_missing_files_are_one_line(realdata: Path, tmp_path: Path) -> None:
    art = str(realdata / ZERO_DCE / "artifacts")
    for argv, says in [
            (["compare", str(tmp_path / "nope"), "--artifacts", art, "--golden", "g.npz"],
             "expected a folder of TIDL trace files"),
            (["compare", "--calibration", str(realdata / EAST), "--golden", str(tmp_path / "nope.npz")],
             "nope.npz: no such file; expected a golden .npz"),
            (["golden", str(tmp_path / "nope.onnx"), "--input", "x.npy", "-o", str(tmp_path / "g.npz")],
             "nope.onnx: no such model file")]:
        rc, _out, err = _run(*argv)
        # issue 24 item 2: compare exits 2 when it cannot compare (was 1); golden too (it could not run)
        assert rc == 2 and says in err, argv
        assert "Traceback" not in err and err.count("\n") == 1, argv


def test_inputs_that_cannot_be_compared_exit_2(realdata: Path, tmp_path: Path) -> None:
    """Issue 24 item 2: like diff, 2 = could not compare (was 1, the code of a bad layer): an --html
    path in a missing folder (checked before any work; the message names the user's path), traces of
    two runs in one folder, a golden that is not there."""
    art = str(realdata / ZERO_DCE / "artifacts")
    net = tidl_io.load_net(realdata / ZERO_DCE / "artifacts" / "74_tidl_net.bin")
    layer = net.layer_by_data_id(2)
    (tmp_path / "t").mkdir()
    for sg in (0, 1):
        np.zeros(layer.shape, np.int8).tofile(
            tmp_path / "t" / f"tidl_trace_subgraph_{sg}_0002_0001_0001_00001_00003_000600x00400.y")
    np.savez(tmp_path / "g.npz", other=np.zeros(3))
    html = tmp_path / "no such folder" / "r.html"
    for argv, says in [
            (["--golden", str(tmp_path / "g.npz"), "--html", str(html)], f"--html {html}: the folder"),
            (["--golden", str(tmp_path / "g.npz")], "traces of several runs here"),
            (["--golden", str(tmp_path / "missing.npz"), "--subgraph", "0"], "missing.npz: no such file")]:
        rc, _, err = _run("compare", str(tmp_path / "t"), "--artifacts", art, *argv)
        assert rc == 2 and says in err and err.count("\n") == 1, (argv, err)
    assert not html.parent.exists()


def test_output_to_a_missing_folder_names_the_users_path(tmp_path: Path) -> None:
    """Issue 24 item 15: the error names the path asked for, not the temporary file's name."""
    from tidl_io.trace.golden import GoldenRun, save_golden

    target = tmp_path / "nope" / "x.npz"
    with pytest.raises(tidl_io.PathNotFoundError) as info:
        save_golden(target, GoldenRun("m.onnx", "NCHW", {"a": np.zeros(2)}, ()))
    assert str(info.value).startswith(f"{target}: cannot write it: the folder") and ".tmp" not in str(info.value)
    assert info.value.filename == str(target)


def test_an_unusable_reference_trace_is_reported_as_a_tested_one(realdata: Path, tmp_path: Path) -> None:
    """Issue 32 item 8: a trace file of the --ref folder that cannot be used (a wrong size) is a
    warning and exit 2, as the same file in the tested folder is (was dropped: "no trace of dataId
    2", exit 0)."""
    art = realdata / ZERO_DCE / "artifacts"
    net = tidl_io.load_net(art / "74_tidl_net.bin")
    names = {}
    for d in (2, 3):
        layer = net.layer_by_data_id(d)
        n, c, h, w = layer.shape
        names[d] = f"tidl_trace_subgraph_0_{d:04d}_{n:04d}_0001_00001_{c:05d}_{w:06d}x{h:05d}.y"
        for folder in ("good", "cut"):
            (tmp_path / folder).mkdir(exist_ok=True)
            np.zeros(layer.shape, np.int8).tofile(tmp_path / folder / names[d])
    (tmp_path / "cut" / names[2]).write_bytes(b"\0" * 10)  # 10 bytes: no size of layer 2's trace
    rc, out, err = _run("compare", str(tmp_path / "good"), "--artifacts", str(art), "--ref", str(tmp_path / "good"))
    assert rc == 0, err
    says = {}
    for tested, ref in (("cut", "good"), ("good", "cut")):
        rc, out, err = _run("compare", str(tmp_path / tested), "--artifacts", str(art), "--ref", str(tmp_path / ref),
                            "--json")
        doc = json.loads(out)
        assert rc == 2 and "1 trace file(s) could not be used (see the warnings)" in err and err.count("\n") == 1
        (warning,) = doc["warnings"]
        assert names[2] in warning and "10 bytes" in warning, warning
        says[tested] = warning
        if tested == "good":
            (row,) = [r for r in doc["layers"] if r["data_id"] == 2]
            assert row["status"] == "no reference" and "could not be used" in row["note"], row
    assert says["good"] == f"reference {says['cut']}"
    text = _run("compare", str(tmp_path / "good"), "--artifacts", str(art), "--ref", str(tmp_path / "cut"))[1]
    assert "could not be used (see the warnings)" in text and f"warning: reference {names[2]}" in text


def test_calibration_golden_without_the_output_says_which_and_what_it_holds(realdata: Path, tmp_path: Path) -> None:
    """Issue 32 item 17: an .npz with no array for the output is one line naming the output and
    what the .npz holds (was "no layer could be compared (see the rows' notes)"), --json or not."""
    np.savez(tmp_path / "g.npz", other=np.zeros(3), more=np.zeros(2))
    for json_flag in ((), ("--json",)):
        rc, _, err = _run("compare", "--calibration", str(realdata / EAST), "--golden", str(tmp_path / "g.npz"),
                          *json_flag)
        assert rc == 2 and err.count("\n") == 1, err
        assert ("layer 5 (dataId 5) '625': no reference: no golden tensor named '625' (g.npz holds 2 array(s): "
                "'other', 'more')") in err, err


def test_json_failures_are_json(realdata: Path, tmp_path: Path) -> None:
    """Issue 32 item 15: compare --json that cannot compare prints a JSON document naming what
    failed (``errors``: path and message, as inspect --json), besides its one line and exit 2."""
    art = str(realdata / ZERO_DCE / "artifacts")
    missing = str(tmp_path / "missing.npz")
    (tmp_path / "t").mkdir()
    net = tidl_io.load_net(realdata / ZERO_DCE / "artifacts" / "74_tidl_net.bin")
    np.zeros(net.layer_by_data_id(2).shape, np.int8).tofile(
        tmp_path / "t" / "tidl_trace_subgraph_0_0002_0001_0001_00001_00003_000600x00400.y")
    for argv, path in [(["compare", str(tmp_path / "t"), "--artifacts", art, "--golden", missing], missing),
                       (["compare", "--calibration", str(realdata / EAST), "--golden", missing], missing),
                       (["compare", str(tmp_path / "t"), "--artifacts", art], None)]:
        rc, out, err = _run(*argv, "--json")
        doc = json.loads(out)
        assert rc == 2 and err.count("\n") == 1 and doc["schema_version"] == 1, (argv, err)
        assert doc["errors"] == [{"path": path, "message": err.removeprefix("tidl-io compare: error: ").rstrip()}]
        assert _run(*argv)[1] == ""  # without --json: nothing on stdout
