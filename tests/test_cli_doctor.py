"""``tidl-io doctor``'s command line (tidl_io/cli_doctor.py): it prints tidl_io.diagnose's report
object (text, --json, --html) and exits like diff: 0 agree, 1 a finding, 2 could not do the job."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import tidl_io
from tidl_io.cli.app import main

EXAMPLES = Path(tidl_io.__file__).parent / "examples"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["doctor", *argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_html_page_is_the_report_objects(tmp_path: Path) -> None:
    page = tmp_path / "doctor.html"
    code, out, err = run("--no-library", "--html", str(page), str(EXAMPLES))
    assert (code, err) == (0, "") and out.endswith("all files agree (0 error(s), 0 note(s))\n")
    assert page.read_text() == tidl_io.diagnose(EXAMPLES, check_library=False).to_html()
    code, out, _ = run("--no-library", "--html", "-", str(EXAMPLES))
    assert code == 0 and out.startswith("<!DOCTYPE html>")


def test_exit_codes_like_diff(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    shutil.copytree(EXAMPLES, folder)
    assert run("--no-library", str(folder))[0] == 0
    (folder / "detector_tidl_net.bin").unlink()
    code, out, _ = run("--no-library", str(folder))
    assert code == 1 and "no detector_tidl_net.bin beside it" in out  # a finding
    for argv in (("--json", "--html", "x.html"), ("--library", "a.so", "--no-library"), ("--explain", "Tensor -1"),
                 ("--html", str(tmp_path / "no" / "such" / "folder" / "x.html"))):
        code, out, err = run(*argv, str(folder))
        assert code == 2 and "Traceback" not in err and err.startswith("tidl-io doctor: error: "), (argv, err)


def test_json_is_strict(tmp_path: Path) -> None:
    code, out, _ = run("--no-library", "--json", str(EXAMPLES))
    doc = json.loads(out)
    assert code == 0 and doc["ok"] is True and json.dumps(doc, allow_nan=False)
    assert doc == json.loads(json.dumps(tidl_io.diagnose(EXAMPLES, check_library=False).to_dict()))


def test_library_is_named_as_the_user_typed_it(tidlrt_standin) -> None:
    lib = tidlrt_standin("T6P-d")
    code, out, _ = run("--library", str(lib), str(EXAMPLES))
    line = next(x for x in out.splitlines() if x.startswith("  TIDL-RT: "))
    assert code == 0 and "found via --library" in line and "library= argument" not in line, line
