"""``tidl-io quant``: exit codes, strict JSON, no traceback."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tidl_io.cli.app import main

from conftest import REALDATA

OD = REALDATA / "net" / "od-8220-yolox-10.0"


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out, err), out.getvalue(), err.getvalue()


def test_od_8220() -> None:
    if not OD.is_dir():
        pytest.skip("../shared/realdata not present")
    rc, out, _ = _run("quant", str(OD), "--json")
    doc = json.loads(out)
    assert rc == 0 and len(doc["layers"]) == 122
    rc, out, _ = _run("quant", str(OD), "--top", "3")
    assert rc == 0 and "119 more" in out
    rc, out, _ = _run("quant", str(OD), "--top", "0")  # 0: all 122 layers, as perf's --top 0
    assert rc == 0 and " more" not in out and out == _run("quant", str(OD), "--top", "500")[1]


def test_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = _run("quant", str(tmp_path))
    assert rc == 2 and "paramDebug" in err and "Traceback" not in err
    rc, _, _ = _run("quant", str(tmp_path), "--top", "-1")
    err = capsys.readouterr().err  # argparse's own message, the same as perf's --top (cli.codes.top)
    assert rc == 2 and "--top" in err and "0: all" in err
    (tmp_path / "tempDir").mkdir()
    (tmp_path / "tempDir" / "a_tidl_net.bin_paramDebug.csv").write_text("garbage\n")
    rc, _, err = _run("quant", str(tmp_path))
    assert rc == 2 and "line 1" in err


def test_error_messages_are_escaped(tmp_path: Path) -> None:
    """A path holding ESC reaches stderr escaped (base.text.escape), never raw."""
    rc, _, err = _run("quant", str(tmp_path / "no\x1b[2Jthere"))
    assert rc == 2 and "\x1b" not in err and "no\\x1b[2Jthere" in err
