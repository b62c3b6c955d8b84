"""``tidl-io perf`` (tidl_io.cli.perf): exit codes like diff (0 the report, 1 A B differ, 2 could
not), one line on stderr and no traceback, --json, --html, --board, --top."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tidl_io.cli.app import main

from conftest import REALDATA
from perf_fixtures import TINY_BOARD, TINY_SIM_NAME, board_text, write_tiny


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["perf", *argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_report(tmp_path: Path) -> None:
    code, out, err = run(str(write_tiny(tmp_path)))
    assert (code, err) == (0, "") and "total: 420.75 µs = 0.42075 ms" in out


def test_json_and_html(tmp_path: Path) -> None:
    folder = write_tiny(tmp_path / "art")
    page = tmp_path / "perf.html"
    code, out, err = run(str(folder), "--json", "--html", str(page))
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["subgraphs"][0]["total"]["time_ms"] == 0.42075 and page.read_text().startswith("<!DOCTYPE html>")


def test_board_and_top(tmp_path: Path) -> None:
    folder = write_tiny(tmp_path / "art")
    board = tmp_path / "tidl_trace_subgraph_0_perf.csv"
    board.write_text(TINY_BOARD)
    code, out, _ = run(str(folder), "--board", str(board), "--top", "1")
    assert code == 0 and "board/sim" in out
    row = next(line for line in out.splitlines() if " conv2 " in line).split()
    assert row[-2:] == ["300.2k", "1.00"] and " conv1 " not in out


def test_board_log_of_two_runs_shows_the_mean(tmp_path: Path) -> None:
    """Run 2 of the log has conv2 at 301750 cycles, run 1 (TINY_BOARD) at 300250: the table
    shows their mean, 301.0k, ratio 301000 / 300250 = 1.00; the totals say it is a mean of 2."""
    folder = write_tiny(tmp_path / "art")
    board = tmp_path / "tidl_trace_subgraph_0_perf.csv"
    board.write_text(TINY_BOARD + board_text([(1, 149375, 39000, 129000, 8000, 12375, 262144, 52428),
                                              (2, 301750, 286000, 286500, 5000, 10250, 10240, 0)]))
    code, out, err = run(str(folder), "--board", str(board))
    assert (code, err) == (0, "")
    row = next(line for line in out.splitlines() if " conv2 " in line and "Convolution" in line).split()
    assert row[-2:] == ["301.0k", "1.00"], row
    assert "board: 451000 cycles (mean of 2 runs)" in out and "holds 2 runs" in out


def test_top_0_is_all_layers_as_in_quant(tmp_path: Path) -> None:
    """--top 0 means all (as tidl-io quant --top 0): the same table as without --top, the four
    layers of the fixture in execution order; A B likewise."""
    folder = write_tiny(tmp_path / "art")
    code, out, err = run(str(folder), "--top", "0")
    assert (code, err) == (0, "") and out == run(str(folder))[1]
    rows = [line.split()[3] for line in out.splitlines() if line.split()[:1] in (["0"], ["1"], ["2"], ["3"])]
    assert rows == ["image", "conv1", "conv2", "conv2"], out
    assert run(str(folder), "--top", "1")[1] != out
    code, out, err = run(str(folder), str(folder), "--top", "0")
    assert (code, err) == (0, "") and out == run(str(folder), str(folder))[1] and out.count(" conv2 ") == 2


def test_only_a_bufinfolog_exits_0(tmp_path: Path) -> None:
    code, out, err = run(str(write_tiny(tmp_path, sim=False, netlog=False, layer_info=False)))
    assert (code, err) == (0, "") and "no performance simulation" in out


@pytest.mark.parametrize("make", ["empty", "absent", "cut", "board", "three", "html", "another model's board"])
def test_could_not_exits_2_with_one_line(tmp_path: Path, make: str) -> None:
    args = [str(tmp_path)]
    if make == "absent":
        args = [str(tmp_path / "absent")]
    elif make == "cut":
        sim = write_tiny(tmp_path) / "tempDir" / "tiny_tidl_net" / TINY_SIM_NAME
        sim.write_text(sim.read_text()[:-200])
    elif make == "board":
        write_tiny(tmp_path)
        (tmp_path / "b.csv").write_text(TINY_BOARD[:-30])
        args += ["--board", str(tmp_path / "b.csv")]
    elif make == "three":
        args *= 3
    elif make == "another model's board":  # a row for layer 3, tiny's output data layer (issue 32 item 4)
        write_tiny(tmp_path)
        (tmp_path / "tidl_trace_subgraph_0_perf.csv").write_text(board_text([(1, 5, 1, 1, 1, 1, 1, 1),
                                                                             (3, 5, 1, 1, 1, 1, 1, 1)]))
        args += ["--board", str(tmp_path / "tidl_trace_subgraph_0_perf.csv")]
    elif make == "html":
        write_tiny(tmp_path)
        args += ["--html", str(tmp_path / "no" / "such" / "folder.html")]
    code, out, err = run(*args)
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("tidl-io perf: error: "), err
    assert "Traceback" not in err


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("-1", "x", "1.5"):
        assert run(str(tmp_path), "--top", bad)[0] == 2
        err = capsys.readouterr().err  # argparse's own message
        assert "--top" in err and "0: all" in err, err
    assert run()[0] == 2
    a = write_tiny(tmp_path / "a")
    code, _, err = run(str(a), str(a), "--html", str(tmp_path / "x.html"))
    assert code == 2 and "not for A B" in err


def test_a_b(tmp_path: Path) -> None:
    a, b = write_tiny(tmp_path / "a"), write_tiny(tmp_path / "b")
    code, out, _ = run(str(a), str(b))
    assert code == 0 and "B/A" in out
    sim = b / "tempDir" / "tiny_tidl_net" / TINY_SIM_NAME
    sim.write_text(sim.read_text().replace("  120.50,", "  241.00,"))
    code, out, _ = run(str(a), str(b), "--json")
    assert code == 1 and json.loads(out)["subgraphs"][0]["layers"][1]["ratio"] == 2.0


def test_od8220() -> None:
    path = REALDATA / "net" / "od-8220-yolox-10.0"
    if not path.is_dir():
        pytest.skip("../shared/realdata not present")
    code, out, err = run(str(path), "--top", "5")
    assert (code, err) == (0, "") and "367.46284 ms" in out and "subgraph_0: 122 layers" in out


def test_readme_shows_the_example_output(readme_cwd: Path) -> None:
    import shlex

    from conftest import ROOT

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    marker = "<!-- readme-perf: "
    start = readme.index(marker)
    argv = shlex.split(readme[start + len(marker):readme.index(" -->", start)])
    body = readme.index("```text\n", start) + len("```text\n")
    shown = readme[body:readme.index("```\n", body)]
    assert argv[:2] == ["tidl-io", "perf"]
    code, out, err = run(*argv[2:])
    assert (code, err) == (0, "") and out == shown


@pytest.mark.parametrize("where", ["missing folder", "a folder", "control characters"])
def test_html_write_error_names_the_users_path(tmp_path: Path, where: str) -> None:
    folder = write_tiny(tmp_path / "art")
    page = {"missing folder": tmp_path / "no" / "such" / "perf.html", "a folder": tmp_path,
            "control characters": tmp_path / "bad\x1b[31m" / "perf.html"}[where]
    code, _, err = run(str(folder), "--html", str(page))
    assert code == 2 and err.count("\n") == 1 and err.startswith("tidl-io perf: error: "), err
    assert ".tmp" not in err and "\x1b" not in err, err
    assert ("\\x1b[31m" in err) if where == "control characters" else (str(page) in err), err


def test_board_does_not_swallow_the_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``perf --board X.csv model/`` (issue 32 item 17): --board takes one log, the folder is
    the PATH; several logs are several --board; a log given as a second PATH says how."""
    folder = write_tiny(tmp_path / "art")
    board = tmp_path / "tidl_trace_subgraph_0_perf.csv"
    board.write_text(TINY_BOARD)
    code, out, err = run("--board", str(board), str(folder))
    assert (code, err) == (0, "") and "board/sim" in out
    assert run(str(folder), "--board", str(board), "--board", str(board))[2].count("two files for tiny") == 1
    assert run(str(folder), "--board", str(board), str(board))[0] == 2  # argparse: PATH after an option
    assert "unrecognized arguments" in capsys.readouterr().err
    code, out, err = run("--board", str(board), str(folder), str(board))
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert f"{board} is a file" in err and "--board a.csv --board b.csv" in err, err


def test_board_of_a_subgraph_the_model_lacks_is_one_clear_line(tmp_path: Path) -> None:
    folder = write_tiny(tmp_path / "art")
    board = tmp_path / "tidl_trace_subgraph_3_perf.csv"
    board.write_text(TINY_BOARD)
    code, out, err = run(str(folder), "--board", str(board))
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err == (f"tidl-io perf: error: load_perf: board: {board}: a log of subgraph 3, but the model has 1 "
                   "subgraph (tiny: tidl_trace_subgraph_0_perf.csv)\n"), err


@pytest.mark.parametrize("where", ["a file", "a folder that takes no file"])
def test_html_in_what_is_no_writable_folder_says_what_it_is(tmp_path: Path, where: str) -> None:
    """--html under a file, or in /proc (a folder no file can be created in, even by root):
    the message says what the path is, never "does not exist" (issue 32 item 17)."""
    folder = write_tiny(tmp_path / "art")
    if where == "a file":
        (tmp_path / "notes.txt").write_text("x")
        page, expected = tmp_path / "notes.txt" / "perf.html", f"'{tmp_path / 'notes.txt'}' is a file, not a folder"
    else:
        if not Path("/proc/self").is_dir():
            pytest.skip("no /proc")
        page, expected = Path("/proc/perf.html"), "the folder '/proc' takes no new file"
    code, out, err = run(str(folder), "--html", str(page))
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert expected in err and "does not exist" not in err, err


@pytest.mark.parametrize("case", ["missing folder", "cut simulation", "A B of two models", "three paths"])
def test_json_failures_print_a_json_report(tmp_path: Path, case: str) -> None:
    """With --json a failure prints a JSON document naming what failed (``errors``: ``{"path",
    "message"}``, as inspect --json), besides the one line on stderr and exit 2 (issue 32 item 15)."""
    folder = write_tiny(tmp_path / "art")
    args, path = [str(folder)], str(folder)
    if case == "missing folder":
        args, path = [str(tmp_path / "absent")], str(tmp_path / "absent")
    elif case == "cut simulation":
        sim = folder / "tempDir" / "tiny_tidl_net" / TINY_SIM_NAME
        sim.write_text(sim.read_text()[:-200])
        path = str(sim)
    elif case == "A B of two models":
        other = write_tiny(tmp_path / "other", netlog=False)
        (other / "tempDir" / "tiny_tidl_net.bin.layer_info.txt").write_text("0 0 in\n1 1 x\n2 2 y\n3 0 in\n")
        args, path = [str(folder), str(other)], str(other)
    else:
        args = [str(folder)] * 3
        path = None
    code, out, err = run(*args, "--json")
    assert code == 2 and err.count("\n") == 1 and err.startswith("tidl-io perf: error: "), err
    doc = json.loads(out)
    assert doc["schema_version"] == 1 and doc["subgraphs"] == [], doc
    assert len(doc["errors"]) == 1 and doc["errors"][0]["path"] == path, doc
    assert err.rstrip("\n").endswith(doc["errors"][0]["message"]), (err, doc)
    if case == "A B of two models":
        assert "no layer in common" in doc["errors"][0]["message"] and doc["a"] == str(folder)
    good = write_tiny(tmp_path / "good")
    ok = json.loads(run(str(good), "--json")[1])
    assert ok["errors"] == [] and json.loads(run(str(good), str(good), "--json")[1])["errors"] == []
