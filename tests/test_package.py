"""The package as users install it (pyproject.toml, setup.py, the ``tidl-io`` entry point).

CI runs the whole suite a second time against the built wheel installed into a fresh venv, with
tests/ and tools/ copied out of the repository (``TIDL_IO_TEST_INSTALLED=1``: conftest refuses to
run unless ``tidl_io`` comes from site-packages). There these tests check the console script the
wheel installed; from a checkout they run ``python -m tidl_io`` on the checkout's package. Both
ways every command answers ``-h`` and runs on a copy of the bundled example with the exit code
the README gives, one line on stderr and no traceback.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io.cli.app import build_parser

from conftest import EXAMPLES, INSTALLED, PACKAGE, ROOT, SCHEMAS


def _commands() -> list[str]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if a.dest == "command"]
    return sorted(sub.choices)


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if INSTALLED:  # the console script pip wrote for the wheel
        script = Path(sys.executable).parent / "tidl-io"
        assert script.is_file(), f"the wheel installed no tidl-io script beside {sys.executable}"
        argv = [str(script), *args]
    else:  # the package under test, from any folder
        env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE.parent), env.get("PYTHONPATH", "")])
        argv = [sys.executable, "-m", "tidl_io", *args]
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)


def _ok(done: subprocess.CompletedProcess[str], code: int) -> None:
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    assert done.returncode == code, (done.args, done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    if code == 2:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("tidl-io "), done.stderr


def test_the_package_under_test_is_where_conftest_says() -> None:
    assert Path(tidl_io.__file__).resolve().parent == PACKAGE
    if INSTALLED:
        assert "site-packages" in PACKAGE.parts and ROOT not in PACKAGE.parents
    else:
        assert PACKAGE == ROOT / "tidl_io"


def test_every_code_folder_is_a_package_setup_finds() -> None:
    """setup.py finds the code packages by their __init__.py: a folder of modules without one
    would be left out of the wheel; every package found imports."""
    folders = {p.parent for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}
    missing = sorted(str(f.relative_to(PACKAGE)) for f in folders if not (f / "__init__.py").is_file())
    assert missing == []
    for folder in sorted(folders):
        name = ".".join(("tidl_io", *folder.relative_to(PACKAGE).parts))
        importlib.import_module(name)


def test_the_data_packages_are_there() -> None:
    for name in ("releases.yaml", "tidl_10x.yaml", "net/tidl_9_0.yaml", "tidlrt/t6pd.yaml"):
        assert (PACKAGE.parent / "tidl_io" / "schemas" / name).is_file() or not INSTALLED, name
    assert (EXAMPLES / "detector_tidl_io_1.bin").is_file() and (EXAMPLES / "param.yaml").is_file()
    assert (PACKAGE / "py.typed").is_file()


def test_the_commands_are_the_readmes() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = _commands()
    assert len(commands) >= 13, commands
    for command in commands:
        assert f"tidl-io {command}" in readme, f"the README never shows tidl-io {command}"


@pytest.mark.parametrize("command", _commands())
def test_every_command_answers_help(command: str, tmp_path: Path) -> None:
    done = _cli([command, "-h"], tmp_path)
    _ok(done, 0)
    assert done.stdout.startswith(f"usage: tidl-io {command}"), done.stdout[:200]


def test_every_command_runs_on_the_bundled_example(tmp_path: Path) -> None:
    """Each command once on a copy of the bundled example, from another folder, with the exit
    code the README's table gives: the example has a net, an io file, param.yaml and TI's
    performance simulation, but no graphvizInfo, paramDebug or float model."""
    ex = tmp_path / "model"
    shutil.copytree(EXAMPLES, ex)
    work = tmp_path / "work"
    work.mkdir()
    rng = np.random.default_rng(7)
    np.save(work / "in.npy", rng.integers(0, 256, (1, 3, 96, 160)).astype(np.uint8))
    # TIDL-named traces of the three convolutions (codes of the net's shapes), for compare/advise
    net = tidl_io.load_net(ex / "detector_tidl_net.bin")
    traces = work / "traces"
    traces.mkdir()
    convs = [layer for layer in net.layers if layer.type == "TIDL_ConvolutionLayer"]
    assert len(convs) == 3
    for layer in convs:
        n, d1, d2, c, h, w = layer.dims6
        name = (f"tidl_trace_subgraph_0_{layer.data_id:04d}_{n:04d}_{d1:04d}_{d2:05d}_{c:05d}_{w:06d}x{h:05d}.y")
        rng.integers(-100, 100, n * d1 * d2 * c * h * w).astype(np.int8).tofile(traces / name)
    seen = set()

    def run(command: str, *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
        seen.add(command)
        done = _cli([command, *args], work)
        _ok(done, code)
        return done

    assert "detector_tidl_io_1.bin" in run("inspect", str(ex)).stdout
    assert "ok" in run("validate", str(ex)).stdout
    assert "all files agree" in run("doctor", str(ex)).stdout
    assert "total:" in run("perf", str(ex)).stdout
    assert "outputs:" in run("run", str(ex), "--runtime", "mock", "--repeat", "1").stdout
    run("demo")
    assert "native" in run("info").stdout
    report = run("compare", str(traces), "--artifacts", str(ex), "--ref", str(traces), "--json").stdout
    assert len(json.loads(report)["layers"]) == 3
    (work / "report.json").write_text(report, encoding="utf-8")
    assert "16 bits" in run("advise", str(ex), "--compare", str(work / "report.json")).stdout
    # what the example cannot give: one line, exit 2
    assert "10.0" in run("emulate", str(ex), "--input", str(work / "in.npy"), code=2).stderr
    assert "graphvizInfo" in run("why", str(ex), code=2).stderr
    assert "paramDebug" in run("quant", str(ex), code=2).stderr
    # one page of what there is, each empty section naming the file that would fill it
    assert "missing: " in run("report", str(ex), "-o", str(work / "r.html")).stdout
    assert "graphvizInfo" in (work / "r.html").read_text(encoding="utf-8")
    run("golden", str(ex / "no_such_model.onnx"), "--input", str(work / "in.npy"), "-o", str(work / "g.npz"), code=2)
    assert not (work / "g.npz").exists()
    assert seen == set(_commands()), sorted(set(_commands()) - seen)


_NAMED_FILE = re.compile(r"(?<![\w./-])((?:tidl_io|schemas|tools|tests|docs)/[\w/.-]*\w\.(?:py|c|h|yaml|md|sh))\b")


def test_no_text_names_a_file_that_is_not_there() -> None:
    """Every path a docstring, comment, schema or document names (``tidl_io/net/parse.py``,
    ``schemas/net/common.yaml``, ``tools/fuzz.py``...) exists: none is left from before a move."""
    texts = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "tests").rglob("*.py"),
             *(ROOT / "tools").rglob("*.py"), *PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.c"), *PACKAGE.rglob("*.h"),
             *SCHEMAS.rglob("*.yaml")]
    assert len(texts) > 200
    stale = []
    for text in texts:
        for number, line in enumerate(text.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for found in _NAMED_FILE.finditer(line):
                named = found.group(1)
                top = named.partition("/")[0]
                if top == "schemas" or named.startswith("tidl_io/schemas/"):
                    where = SCHEMAS / named.split("schemas/", 1)[1]
                elif top == "tidl_io":
                    where = PACKAGE.parent / named
                else:
                    where = ROOT / named
                if not where.exists():
                    stale.append(f"{text.name}:{number}: {named}")
    assert stale == []
