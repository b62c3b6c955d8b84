"""``tidl-io advise`` on the hand-made model (tests/advise_fixtures.py): exit codes like diff,
strict JSON, one located line on stderr for every input it cannot use, never a traceback."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from advise_fixtures import write_model

from tidl_io.cli.app import main


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(["advise", *argv], out=out, err=err)
    return rc, out.getvalue(), err.getvalue()


def test_text_json_and_budget(tmp_path: Path) -> None:
    art = write_model(tmp_path)
    rc, out, err = _run(str(art), "--compare", str(art / "compare.json"))
    assert rc == 0 and err == ""
    assert "advanced_options:output_feature_16bit_names_list: 'conv2,conv5,conv3'" in out
    assert "model:" in out and "Advice, not a measurement" in out
    rc, out, _ = _run(str(art), "--compare", str(art / "compare.json"), "--budget-ms", "0.1", "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["picked"] == ["conv5", "conv3"] and doc["expected"]["extra_us"] == 90.0
    assert doc["budget_ms"] == 0.1 and doc["expected"]["extra_us"] <= 100
    json.dumps(doc, allow_nan=False)
    rc, out, _ = _run(str(art), "--compare", str(art / "compare.json"), "--no-perf", "--json")
    assert rc == 0 and json.loads(out)["perf"] is None


def test_help_states_the_model(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["advise", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for words in ("10^(-SNR/10)", "step^2/12", "65536", "max(4 kernel, 2 core loop)", "233 of 256",
                  "--budget-ms", "advice"):
        assert words in text


@pytest.mark.parametrize(("argv", "message"), [
    ([], "give the measurements"),
    (["--traces", "T"], "--traces needs --golden"),
    (["--compare", "C", "--golden-npz", "g.npz"], "go with --traces"),
    (["--traces", "T", "--golden-npz", "g.npz", "--input", "x.npy"], "--input goes with --golden MODEL"),
    (["--compare", "missing.json"], "missing.json"),
    (["--compare", "bad.json"], "bad.json: line 1, column 2: not JSON"),
    (["--compare", "compare.json", "--subgraph", "7"], "no subgraph '7'"),
    (["--compare", "compare.json", "--budget-ms", "1", "--no-perf"], "budget_ms needs the performance simulation"),
])
def test_cannot_do_the_job(tmp_path: Path, argv: list[str], message: str) -> None:
    art = write_model(tmp_path)
    (art / "bad.json").write_text("{,}")
    argv = [str(art / a) if a in ("missing.json", "bad.json", "compare.json") else a for a in argv]
    rc, out, err = _run(str(art), *argv)
    assert rc == 2 and out == "" and message in err and "Traceback" not in err
    assert err.startswith("tidl-io advise: error:") and err.count("\n") == 1
    # issue 32 item 15: with --json the failure is a JSON document too (stdout was empty)
    rc, out, err2 = _run(str(art), *argv, "--json")
    doc = json.loads(out)
    assert rc == 2 and err2 == err and set(doc) == {"schema_version", "errors"}
    (error,) = doc["errors"]
    assert error["message"] == err.removeprefix("tidl-io advise: error: ").rstrip("\n")
    if argv and "json" in argv[-1]:  # a report that cannot be read: the file named
        assert error["path"] == argv[-1], error


@pytest.mark.parametrize("argv", [["--budget-ms", "-1"], ["--budget-ms", "nan"], ["--factor", "0.5"], ["--top", "-1"],
                                  ["--top", "x"], ["--top", "9" * 5000], ["--budget-ms", "1e999999999"],
                                  ["--factor", "9" * 5000]])
def test_bad_numbers_are_usage_errors(tmp_path: Path, argv: list[str]) -> None:
    art = write_model(tmp_path)
    err = io.StringIO()
    assert main(["advise", str(art), "--compare", str(art / "compare.json"), *argv], out=io.StringIO(),
                err=err) == 2
    assert "Traceback" not in err.getvalue() and len(err.getvalue()) < 1000


def test_top_zero_means_all(tmp_path: Path) -> None:
    """--top 0 is "all" here as in perf and quant: the picks of no limit (conv1 is not worth its time)."""
    art = write_model(tmp_path)
    rc, out, _ = _run(str(art), "--compare", str(art / "compare.json"), "--top", "0", "--json")
    assert rc == 0 and json.loads(out)["picked"] == ["conv2", "conv5", "conv3"]
    rc, out, _ = _run(str(art), "--compare", str(art / "compare.json"), "--top", "2", "--json")
    assert rc == 0 and json.loads(out)["picked"] == ["conv2", "conv5"]


def test_text_lists_skipped_layers_and_why(tmp_path: Path) -> None:
    """The hand-made model's input and conv4 are identical to the reference (tests/advise_fixtures.py):
    the text names them under that reason, as --json's "skipped" does."""
    art = write_model(tmp_path)
    rc, out, _ = _run(str(art), "--compare", str(art / "compare.json"))
    lines = out.splitlines()
    reason = "  identical to the reference: no noise to remove"
    assert rc == 0 and reason in lines
    at = lines.index(reason)
    assert lines[at + 1:at + 3] == ["    layer 0  image", "    layer 4  conv4"]
