"""``tidl-io emulate``: exit codes, the .npz it writes, traces, JSON; one line on errors."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from tidl_io.cli.app import main
from tidl_io.emulator._fixture import tiny_net

from conftest import REALDATA

EAST = REALDATA / "net" / "edgeai-tidl-east-9.0"


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def _tidl_number(folder: Path, name: str) -> int:
    """TIDL's number of subgraph ``name``, read literally from onnxrtMetaData.txt ("N:subGraphName=NAME")."""
    for line in (folder / "onnxrtMetaData.txt").read_text().splitlines():
        key, _, value = line.partition("=")
        if key.endswith(":subGraphName") and value.strip() == name:
            return int(key.split(":")[0])
    raise AssertionError(f"no subgraph {name} in onnxrtMetaData.txt")


def test_east_outputs_npz_and_traces(tmp_path: Path) -> None:
    if not EAST.is_dir():
        pytest.skip("../shared/realdata not present")
    raw = np.fromfile(EAST / "tempDir" / "625_calib_raw_data.bin", np.float32).reshape(3, -1)
    ref = np.fromfile(EAST / "tempDir" / "625_tidl_io__stats_tool_out.bin", np.float32).reshape(3, 5, 176, 320)
    np.savez(tmp_path / "in.npz", raw[:, : 4 * 176 * 320].reshape(3, 4, 176, 320),
             raw[:, 4 * 176 * 320:].reshape(3, 1, 176, 320))  # arr_0, arr_1: input order
    code, out, err = _run("emulate", str(EAST), "--input", str(tmp_path / "in.npz"), "--output",
                          str(tmp_path / "out.npz"), "--traces", str(tmp_path / "tr"), "--frame", "2")
    assert (code, err) == (0, "")
    assert "625" in out and "3 frame(s)" in out
    with np.load(tmp_path / "out.npz") as z:
        assert z.files == ["625"] and np.array_equal(z["625"].view(np.uint32), ref.view(np.uint32))
    names = sorted(p.name for p in (tmp_path / "tr").iterdir())
    n = _tidl_number(EAST, "625")
    last_name = f"tidl_trace_subgraph_{n}_0005_0001_0001_00001_00005_000320x00176_float.bin"
    assert len(names) == 12 and last_name in names
    last = np.fromfile(tmp_path / "tr" / last_name, np.float32)
    assert np.array_equal(last, ref[2].ravel())


def test_json_summary(tmp_path: Path) -> None:
    data, _ = tiny_net(0)
    (tmp_path / "x_tidl_net.bin").write_bytes(data)
    np.save(tmp_path / "x.npy", np.zeros((4, 2, 8, 12), np.float32))
    code, out, err = _run("emulate", str(tmp_path / "x_tidl_net.bin"), "--input", str(tmp_path / "x.npy"), "--json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["frames"] == 4 and doc["outputs"]["output_0"]["shape"] == [4, 10, 4, 6]


def test_errors_are_one_line_and_exit_two(tmp_path: Path) -> None:
    data, _ = tiny_net(0)
    net = tmp_path / "x_tidl_net.bin"
    net.write_bytes(data)
    np.save(tmp_path / "bad.npy", np.zeros((1, 3, 8, 12), np.float32))
    code, out, err = _run("emulate", str(net), "--input", str(tmp_path / "bad.npy"))
    assert code == 2 and out == "" and err.count("\n") == 1 and "expected shape" in err
    code, _, err = _run("emulate", str(net), "--input", str(tmp_path / "missing.npy"))
    assert code == 2 and err.count("\n") == 1 and "missing.npy" in err
    (tmp_path / "junk.npy").write_bytes(b"not numpy")
    code, _, err = _run("emulate", str(net), "--input", str(tmp_path / "junk.npy"))
    assert code == 2 and err.count("\n") == 1
    code, _, err = _run("emulate", str(tmp_path / "nowhere"), "--input", str(tmp_path / "bad.npy"))
    assert code == 2 and err.count("\n") == 1 and "nowhere" in err
    bad = bytearray(data)
    bad[160 + 1800 * 3 + 4] = 1  # the pooling layer becomes average pooling
    net.write_bytes(bytes(bad))
    np.save(tmp_path / "x.npy", np.zeros((1, 2, 8, 12), np.float32))
    code, _, err = _run("emulate", str(net), "--input", str(tmp_path / "x.npy"))
    assert code == 2 and err.count("\n") == 1 and "layer 3 (TIDL_PoolingLayer" in err


def test_control_characters_in_messages_are_escaped(tmp_path: Path) -> None:
    data, _ = tiny_net(0)
    net = tmp_path / "x\x1b[31m_tidl_net.bin"
    net.write_bytes(data)
    np.save(tmp_path / "bad.npy", np.zeros((1, 3, 8, 12), np.float32))
    code, _, err = _run("emulate", str(net), "--input", str(tmp_path / "bad.npy"))
    assert code == 2 and "\x1b" not in err


def test_compare_reads_emulated_traces(tmp_path: Path) -> None:
    """emulate --traces, then compare against TI's output frame as the golden: exit 0, the
    output convert's SNR infinite."""
    if not EAST.is_dir():
        pytest.skip("../shared/realdata not present")
    raw = np.fromfile(EAST / "tempDir" / "625_calib_raw_data.bin", np.float32).reshape(3, -1)[:1]
    ref = np.fromfile(EAST / "tempDir" / "625_tidl_io__stats_tool_out.bin", np.float32).reshape(3, 5, 176, 320)[:1]
    np.savez(tmp_path / "in.npz", raw[:, : 4 * 176 * 320].reshape(1, 4, 176, 320),
             raw[:, 4 * 176 * 320:].reshape(1, 1, 176, 320))
    np.savez(tmp_path / "golden.npz", **{"625": ref})
    code, _, err = _run("emulate", str(EAST), "--input", str(tmp_path / "in.npz"), "--traces", str(tmp_path / "tr"))
    assert (code, err) == (0, "")
    code, out, err = _run("compare", str(tmp_path / "tr"), "--artifacts", str(EAST), "--golden",
                          str(tmp_path / "golden.npz"), "--json")
    assert code == 0, err
    doc = json.loads(out)
    rows = [r for r in doc["layers"] if r.get("data_id") == 5]
    # +inf: compare's JSON writes it "inf" today (the house rule says null); either is infinite here
    assert len(rows) == 1 and rows[0]["status"] == "compared" and rows[0]["snr_db"] in (None, "inf")


def test_unusable_input_files_are_one_located_line(tmp_path: Path) -> None:
    """Empty, cut, pickled, YAML, a folder: one line naming the file, exit 2 (was: an EOFError
    traceback, or NumPy's message naming no file and advising allow_pickle=True)."""
    data, _ = tiny_net(0)
    net = tmp_path / "x_tidl_net.bin"
    net.write_bytes(data)
    np.save(tmp_path / "good.npy", np.zeros((1, 2, 8, 12), np.float32))
    good = (tmp_path / "good.npy").read_bytes()
    (tmp_path / "empty.npy").write_bytes(b"")
    (tmp_path / "cut.npy").write_bytes(good[:-1])
    (tmp_path / "yaml.npy").write_bytes(b"postprocess:\n  data_layout: NCHW\n" * 3)
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}], dtype=object))
    np.savez(tmp_path / "obj.npz", np.array([{"a": 1}], dtype=object))
    (tmp_path / "dir.npy").mkdir()
    says = {"empty.npy": "empty file (0 bytes)", "cut.npy": "but 767 bytes of data follow the header",
            "yaml.npy": "b'postprocess:", "obj.npy": "a pickle, never loaded", "obj.npz": "a pickle, never loaded",
            "dir.npy": "is a folder"}
    for name, phrase in says.items():
        code, out, err = _run("emulate", str(net), "--input", str(tmp_path / name))
        assert (code, out) == (2, "") and err.count("\n") == 1, (name, err)
        assert str(tmp_path / name) in err and phrase in err and "allow_pickle" not in err, (name, err)


def test_nan_input_is_one_line_exit_two(tmp_path: Path) -> None:
    data, _ = tiny_net(0)
    net = tmp_path / "x_tidl_net.bin"
    net.write_bytes(data)
    np.save(tmp_path / "nan.npy", np.full((1, 2, 8, 12), np.nan, np.float32))
    code, out, err = _run("emulate", str(net), "--input", str(tmp_path / "nan.npy"))
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert "input 0 (input_0): the array holds 192 NaN value(s), the first at index (0, 0, 0, 0)" in err


def test_traces_carry_tidls_subgraph_number_and_compare_finds_them(tmp_path: Path) -> None:
    """emulate takes --subgraph as compare does (TIDL's number or the name), names its traces with
    TIDL's number from onnxrtMetaData.txt (was: the position, 0), and compare --subgraph finds them
    (was: "no trace of subgraph 1 / core None here")."""
    if not EAST.is_dir():
        pytest.skip("../shared/realdata not present")
    n = _tidl_number(EAST, "625")
    assert n != 0  # the position of 625 among the io files is 0: the test tells them apart
    raw = np.fromfile(EAST / "tempDir" / "625_calib_raw_data.bin", np.float32).reshape(3, -1)[:1]
    np.savez(tmp_path / "in.npz", raw[:, : 4 * 176 * 320].reshape(1, 4, 176, 320),
             raw[:, 4 * 176 * 320:].reshape(1, 1, 176, 320))
    for pick in (None, str(n), "625"):
        tr = tmp_path / f"tr_{pick}"
        code, _, err = _run("emulate", str(EAST), "--input", str(tmp_path / "in.npz"), "--traces", str(tr),
                            *(("--subgraph", pick) if pick else ()))
        assert (code, err) == (0, "")
        names = sorted(p.name for p in tr.iterdir())
        assert len(names) == 12 and all(x.startswith(f"tidl_trace_subgraph_{n}_") for x in names), names
        for sub in (str(n), "625"):
            code, out, err = _run("compare", str(tr), "--artifacts", str(EAST), "--ref", str(tr), "--subgraph", sub,
                                  "--json")
            assert code == 0, err
            assert len(json.loads(out)["layers"]) == 6
    code, _, err = _run("emulate", str(EAST), "--input", str(tmp_path / "in.npz"), "--subgraph", "0")
    assert code == 2 and err.count("\n") == 1 and f"subgraphs: {n} (625)" in err
    # traces of another subgraph number: compare says which subgraph it looked for, no Python None
    other = tmp_path / "other"
    other.mkdir()
    for p in (tmp_path / "tr_None").iterdir():
        (other / p.name.replace(f"tidl_trace_subgraph_{n}_", "tidl_trace_subgraph_7_")).write_bytes(p.read_bytes())
    code, _, err = _run("compare", str(other), "--artifacts", str(EAST), "--ref", str(other), "--subgraph", str(n))
    assert code == 2 and f"no trace of subgraph {n} here" in err and "None" not in err


def test_check_exit_codes_and_json(tmp_path: Path) -> None:
    """--check: 0 every layer and output equal TI's (EAST), 1 some differ (fcnn-cnn5), 2 could not (a missing dump
    named; --input refused)."""
    fcnn = REALDATA / "net" / "edgeai-tidl-fcnn-cnn5-9.0"
    if not EAST.is_dir() or not fcnn.is_dir():
        pytest.skip("../shared/realdata not present")
    code, out, err = _run("emulate", str(EAST), "--check")
    assert code == 0 and out.startswith("OK: ") and not err
    code, out, err = _run("emulate", str(fcnn), "--check", "--json")
    doc = json.loads(out)
    assert code == 1 and doc["ok"] is False and doc["layers"][1]["differing"] == [6, 7, 53]
    code, out, err = _run("emulate", str(EAST), "--check", "--input", "x.npy")
    assert code == 2 and "takes no --input" in err and not out
    art = tmp_path / "art"
    (art / "tempDir").mkdir(parents=True)
    for name in ("625_tidl_io_1.bin", "625_tidl_net.bin"):
        (art / name).write_bytes((EAST / name).read_bytes())
    (art / "tempDir" / "625_calib_raw_data.bin").write_bytes((EAST / "tempDir" / "625_calib_raw_data.bin").read_bytes())
    code, out, err = _run("emulate", str(art), "--check")
    assert code == 2 and "no calibration dump 625_tidl_io__stats_tool_out.bin" in err and err.count("\n") == 1
    code, out, err = _run("emulate", str(EAST))
    assert code == 2 and "--input is needed" in err


def _tiny(tmp_path: Path, frames: int = 2) -> tuple[Path, Path]:
    data, _ = tiny_net(0)
    net = tmp_path / "x_tidl_net.bin"
    net.write_bytes(data)
    np.save(tmp_path / "x.npy", np.zeros((frames, 2, 8, 12), np.float32))
    return net, tmp_path / "x.npy"


def _strict(text: str) -> dict:
    def reject(name: str) -> None:
        raise AssertionError(f"not strict JSON: {name}")
    return json.loads(text, parse_constant=reject)


def test_json_failure_is_a_document_naming_what_failed(tmp_path: Path) -> None:
    """With --json, a failure prints inspect --json's errors array besides the one line (was: stdout empty)."""
    net, x = _tiny(tmp_path)
    code, out, err = _run("emulate", str(tmp_path / "nowhere_tidl_net.bin"), "--input", str(x), "--json")
    assert code == 2 and err.count("\n") == 1
    doc = _strict(out)
    assert doc["schema_version"] == 1 and len(doc["errors"]) == 1
    assert doc["errors"][0]["path"] == str(tmp_path / "nowhere_tidl_net.bin")
    assert doc["errors"][0]["message"] in err
    code, out, err = _run("emulate", str(net), "--input", str(x), "--json", "--frame", "-1", "--traces",
                          str(tmp_path / "t"))
    assert code == 2 and _strict(out)["errors"][0]["path"] is None and "--frame" in err


def test_frame_is_checked_before_the_emulation(tmp_path: Path) -> None:
    net, x = _tiny(tmp_path, frames=2)
    code, out, err = _run("emulate", str(net), "--input", str(x), "--traces", str(tmp_path / "tr"), "--frame", "2")
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert "frame must be < 2 (the frames of the inputs), found 2" in err
    assert not (tmp_path / "tr").exists()
    code, _, err = _run("emulate", str(net), "--input", str(x), "--frame", "1")
    assert code == 2 and "give --traces DIR too" in err


def test_traces_and_output_refuse_a_missing_folder_alike(tmp_path: Path) -> None:
    """--traces created missing parents while --output refused them: both refuse, naming the folder, before
    emulating."""
    net, x = _tiny(tmp_path)
    for option, target in (("--traces", tmp_path / "no" / "such" / "tr"), ("--output", tmp_path / "no" / "o.npz")):
        code, out, err = _run("emulate", str(net), "--input", str(x), option, str(target))
        assert (code, out) == (2, "") and err.count("\n") == 1, (option, err)
        assert f"{option}: the folder {str(target.parent)!r} does not exist" in err
        assert not (tmp_path / "no").exists()
    code, _, err = _run("emulate", str(net), "--input", str(x), "--traces", str(tmp_path / "tr"))
    assert (code, err) == (0, "") and len(list((tmp_path / "tr").iterdir())) > 0


def test_several_subgraphs_without_subgraph_speaks_of_emulating(tmp_path: Path) -> None:
    if not EAST.is_dir():
        pytest.skip("../shared/realdata not present")
    for name in ("625", "626"):
        for kind in ("_tidl_io_1.bin", "_tidl_net.bin"):
            (tmp_path / f"{name}{kind}").write_bytes((EAST / f"625{kind}").read_bytes())
    np.save(tmp_path / "x.npy", np.zeros((1, 4, 176, 320), np.float32))
    code, _, err = _run("emulate", str(tmp_path), "--input", str(tmp_path / "x.npy"))
    assert code == 2 and err.count("\n") == 1
    assert "say which one to emulate with --subgraph" in err and "trace" not in err


def test_output_in_a_file_and_a_full_device_name_the_path(tmp_path: Path) -> None:
    """The second probe of issue 32: '--output afile/o.npz' said the folder does not exist; /dev/full said only
    'No space left on device'."""
    net, x = _tiny(tmp_path)
    (tmp_path / "afile").write_text("x")
    code, _, err = _run("emulate", str(net), "--input", str(x), "--output", str(tmp_path / "afile" / "o.npz"))
    assert code == 2 and f"'{tmp_path / 'afile'}' is a file, not a folder" in err
    if Path("/dev/full").is_char_device():
        code, _, err = _run("emulate", str(net), "--input", str(x), "--output", "/dev/full")
        assert code == 2 and err.startswith("tidl-io emulate: error: /dev/full: ") and "No space left" in err


def test_biases_recovered_reproduces_tis_outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fcnn = REALDATA / "net" / "edgeai-tidl-fcnn-cnn5-9.0"
    if not fcnn.is_dir():
        pytest.skip("../shared/realdata not present")
    sg = "_cnn_cnn.5_relu_Relu_output_0"
    np.save(tmp_path / "x.npy", np.fromfile(fcnn / "tempDir" / f"{sg}_calib_raw_data.bin", np.float32)
            .reshape(3, 1, 32, 100))
    ref = np.fromfile(fcnn / "tempDir" / f"{sg}_tidl_io__stats_tool_out.bin", np.float32)
    for biases, equal in (("recovered", True), ("net", False), (None, False)):
        extra = ["--biases", biases] if biases else []
        code, out, err = _run("emulate", str(fcnn), "--input", str(tmp_path / "x.npy"), "--output",
                              str(tmp_path / "o.npz"), *extra)
        assert (code, err) == (0, "")
        assert ("recovered from TI's means" in out) == equal and ("what the board runs" in out) != equal
        with np.load(tmp_path / "o.npz") as z:
            assert np.array_equal(z[z.files[0]].ravel().view(np.uint32), ref.view(np.uint32)) == equal
    code, out, err = _run("emulate", str(fcnn), "--check", "--biases", "net")
    assert code == 2 and "takes no --biases" in err
    code, out, err = _run("emulate", str(fcnn), "--input", str(tmp_path / "x.npy"), "--biases", "tis")
    assert code == 2 and "invalid choice" in err + capsys.readouterr().err
