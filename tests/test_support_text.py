"""tidl_io.support.report's text (SupportReport.to_text): the report for people, on a hand-made folder whose lines are written here."""

from __future__ import annotations

from pathlib import Path

import tidl_io

GRAPH = """4
0 a Conv outputAdjNodes 1 1 inputAdjNodes 0 input diagInfo
1 b Div outputAdjNodes 1 2 inputAdjNodes 1 0 diagInfo Layer type not supported by TIDL --- layer type - Div,  Node name -b
2 c Div outputAdjNodes 1 3 inputAdjNodes 1 1 diagInfo Layer type not supported by TIDL --- layer type - Div,  Node name -c
3 d\x1b[2J Relu outputAdjNodes 0 out inputAdjNodes 1 2 diagInfo [PARSER] SUPPORTED: ok -- [imp.cpp, 12]
"""


def _report(tmp_path: Path) -> tidl_io.SupportReport:
    (tmp_path / "tempDir").mkdir()
    (tmp_path / "tempDir" / "graphvizInfo.txt").write_text(GRAPH)
    (tmp_path / "allowedNode.txt").write_text("2\n1\n0\n1\n3\n")
    return tidl_io.load_support(tmp_path)


def test_report_text(tmp_path: Path) -> None:
    text = _report(tmp_path).to_text()
    lines = text.splitlines()
    assert lines[0].endswith("graphvizInfo.txt: 4 nodes: 2 supported, 2 unsupported")
    assert lines[1] == "  2 on TIDL in 2 subgraph(s) (TIDL's limit 16), 2 on the ARM"
    # the two Divs are one group (their node names taken out of TI's reason), flagged and first
    assert "! 2 nodes Div (unsupported) [2 on the ARM]: Layer type not supported by TIDL --- layer type - Div" in lines
    assert "      b, c" in lines
    assert "\x1b" not in text and "d\\x1b[2J" in text


def test_node_text(tmp_path: Path) -> None:
    r = _report(tmp_path)
    text = r.to_text(node="d\x1b[2J").splitlines()
    assert text[0].endswith("line 5: node 3 d\\x1b[2J (Relu)")
    assert text[2] == "  TI says:  [PARSER] SUPPORTED: ok [imp.cpp:12]"
    assert text[3] == "  where:    subgraph 1" and text[4] == "  inputs:   c" and text[5] == "  outputs:  -"
    assert r.to_text(node="b").splitlines()[3] == "  where:    runs on the ARM"
