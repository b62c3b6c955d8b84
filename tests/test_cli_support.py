"""``tidl-io why``: exit codes, strict JSON, escaped names, no traceback."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tidl_io.cli.app import main

from conftest import REALDATA

NET = REALDATA / "net"


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out, err), out.getvalue(), err.getvalue()


def test_real_folders() -> None:
    if not NET.is_dir():
        pytest.skip("../shared/realdata not present")
    rc, out, _ = _run("why", str(NET / "od-8220-yolox-10.0"), "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["counts"]["total"] == 271 and doc["counts"]["supported"] == 271
    rc, out, _ = _run("why", str(NET / "edgeai-tidl-east-9.0"))
    assert rc == 1 and "Div_192" in out
    rc, out, _ = _run("why", str(NET / "edgeai-tidl-east-9.0"), "--node", "Div_192", "--json")
    assert rc == 1 and json.loads(out)["node"]["status"] == "unsupported"
    rc, out, _ = _run("why", str(NET / "edgeai-tidl-east-9.0"), "--node", "Conv_2")
    assert rc == 0 and "subgraph 0" in out


def test_errors_exit_2_without_traceback(tmp_path: Path) -> None:
    rc, out, err = _run("why", str(tmp_path))
    assert rc == 2 and "no graphvizInfo.txt" in err and "Traceback" not in err
    (tmp_path / "graphvizInfo.txt").write_text("2\n0 a\x1b[31m Conv outputAdjNodes 0 inputAdjNodes 0 diagInfo\n")
    rc, out, err = _run("why", str(tmp_path / "graphvizInfo.txt"))
    assert rc == 2 and "line 1 says 2 nodes" in err
    (tmp_path / "graphvizInfo.txt").write_text("1\n0 a\x1b[31m Conv outputAdjNodes 0 inputAdjNodes 0 diagInfo\n")
    rc, out, err = _run("why", str(tmp_path / "graphvizInfo.txt"))
    assert "\x1b" not in out and "a\\x1b[31m" in out
    rc, out, err = _run("why", str(tmp_path / "graphvizInfo.txt"), "--node", "zzz")
    assert rc == 2 and "no node named 'zzz'" in err


def test_error_messages_are_escaped(tmp_path: Path) -> None:
    """A path holding ESC reaches stderr escaped (base.text.escape), never raw."""
    rc, _, err = _run("why", str(tmp_path / "no\x1b[2Jthere"))
    assert rc == 2 and "\x1b" not in err and "no\\x1b[2Jthere" in err
