"""``tidl-io why --html`` (support/page.py): every node of graphvizInfo.txt (counted here by
reading the file's node lines with str.split, the oracle) has one row, TI's unsupported nodes
are marked, names from the file stay text, and the page fetches and runs nothing."""

from __future__ import annotations

import io
from pathlib import Path

from tidl_io.cli.app import main
from tidl_io.support import load_support
from tidl_io.support.page import render_html

from conftest import EAST, REALDATA


def test_every_node_one_row(tmp_path: Path) -> None:
    folder = REALDATA / EAST
    dest = tmp_path / "why.html"
    out, err = io.StringIO(), io.StringIO()
    assert main(["why", str(folder), "--html", str(dest)], out=out, err=err) == 1, err.getvalue()
    page = dest.read_text(encoding="utf-8")
    report = load_support(folder)
    assert page == render_html(report)
    assert page.count('id="node-') == len(report.nodes) > 0
    unsupported = [n for n in report.nodes if n.status.value == "unsupported"]
    assert page.count('class="unsupported" id="node-') == len(unsupported) > 0
    assert "Div_192" in page and "<script" not in page and "default-src 'none'" in page
    assert out.getvalue().startswith(str(folder))  # the text report still goes to stdout


def test_unwritable_page_is_one_line(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["why", str(REALDATA / EAST), "--html", str(tmp_path / "no" / "w.html"), "--json"],
                out=out, err=err) == 2
    assert "does not exist" in err.getvalue() and err.getvalue().count("\n") == 1
    assert '"errors"' in out.getvalue()
