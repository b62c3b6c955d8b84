"""``tidl-io doctor``'s command line (tidl_io/cli/doctor.py): it prints tidl_io.diagnose's report
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


# ---- could not do the job (exit 2) against a finding (exit 1) --------------------------------

def _models(tmp_path: Path) -> Path:
    """models/a and models/b/artifacts, each a copy of the example (io file and net)."""
    parent = tmp_path / "models"
    for folder in (parent / "a", parent / "b" / "artifacts"):
        folder.mkdir(parents=True)
        for name in ("detector_tidl_io_1.bin", "detector_tidl_net.bin"):
            shutil.copy(EXAMPLES / name, folder / name)
    return parent


def test_a_path_doctor_cannot_check_is_exit_2_not_a_finding(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    for path, says in ((tmp_path / "missing", "missing: no such file or folder"),
                       (empty, "no *_tidl_io_1.bin file in this folder")):
        code, out, err = run("--no-library", str(path))
        assert (code, out) == (2, "") and err.startswith("tidl-io doctor: error: ") and says in err, err
        assert err.count("\n") == 1
    if Path("/dev/null").exists():
        code, out, err = run("--no-library", "/dev/null")
        assert (code, out) == (2, "") and "/dev/null: not a regular file or a folder" in err, err


def test_a_folder_of_model_folders_is_refused_with_their_names(tmp_path: Path) -> None:
    parent = _models(tmp_path)
    code, out, err = run("--no-library", str(parent))
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert (f"give one model's artifacts folder; found 2: {parent / 'a'}, {parent / 'b'} "
            f"(tidl-io doctor {parent / 'a'})") in err, err
    code, out, err = run("--no-library", str(parent / "b"))  # one of them is checked as before
    assert code in (0, 1) and err == "" and out.startswith(f"{parent / 'b' / 'artifacts'}: TIDL 10.0, 1 subgraph(s)")


def test_a_net_file_with_its_io_file_beside_it_names_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    shutil.copytree(EXAMPLES, folder)
    net = folder / "detector_tidl_net.bin"
    code, out, err = run("--no-library", str(net))
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.startswith(f"tidl-io doctor: error: {net}: a network file (netVersion 0x20240719, TIDL 10.0), not "
                          f"an artifacts folder: doctor checks the folder holding each io descriptor and its net "
                          f"(tidl-io doctor {folder})"), err
    (folder / "detector_tidl_io_1.bin").unlink()  # a net alone is checked from the net: a finding
    code, out, _ = run("--no-library", str(net))
    assert code == 1 and "no detector_tidl_io_1.bin beside it" in out, out


def test_an_unwritable_html_file_says_its_path_and_reason_once(tmp_path: Path) -> None:
    dest = tmp_path / "no" / "x.html"
    code, out, err = run("--no-library", "--html", str(dest), str(EXAMPLES))
    assert (code, out) == (2, "")
    assert err == f"tidl-io doctor: error: {dest}: cannot write it: the folder '{dest.parent}' does not exist\n", err


def test_real_folder_of_models_and_net_file_are_exit_2(realdata: Path) -> None:
    nets = realdata / "net"
    models = sorted(p for p in nets.iterdir() if p.is_dir())
    code, _, err = run("--no-library", str(nets))
    assert code == 2 and f"found {len(models)}: {models[0]}" in err, err
    net = nets / "bbai64-deeplabv3-mnv2-8.2" / "201_tidl_net.bin"
    code, _, err = run("--no-library", str(net))
    assert code == 2 and f"(tidl-io doctor {net.parent})" in err, err


def test_json_with_html_is_refused_with_the_document() -> None:
    """The second probe of issue 32: 'doctor --json --html X' exited 2 with nothing on stdout."""
    out, err = io.StringIO(), io.StringIO()
    code = main(["doctor", "--json", "--no-library", str(EXAMPLES), "--html", "/dev/null"], out=out, err=err)
    doc = json.loads(out.getvalue())
    assert code == 2 and doc["errors"][0]["message"] == "--json and --html exclude each other"
    assert err.getvalue().count("\n") == 1
