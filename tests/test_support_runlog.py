"""tidl_io.support.runlog: the compile log's Subgraph Information Summary."""

from __future__ import annotations

import pytest

from tidl_io import FormatError
from tidl_io.support.runlog import parse_subgraph_summary

from conftest import REALDATA

TABLE = """x
------------------------- Subgraph Information Summary -------------------------
-------------------------------------------------------------------------------
|          Core           |      No. of Nodes       |   Number of Subgraphs   |
-------------------------------------------------------------------------------
| C7x                     |                     100 |                       3 |
| CPU                     |                       7 |                       x |
-------------------------------------------------------------------------------
"""


def test_od_8220_run_log() -> None:
    log = REALDATA / "net" / "od-8220-yolox-10.0" / "run.log"
    if not log.is_file():
        pytest.skip("../shared/realdata not present")
    text = log.read_text(errors="replace")
    rows = parse_subgraph_summary(text, str(log))
    assert rows is not None
    assert [(r.core, r.nodes, r.subgraphs) for r in rows] == [("C7x", 271, 1), ("CPU", 0, None)]
    line = text.splitlines()[rows[0].line - 1]
    assert line.split("|")[1].strip() == "C7x" and int(line.split("|")[2]) == 271


def test_hand_made_and_absent() -> None:
    rows = parse_subgraph_summary(TABLE)
    assert rows is not None and [(r.core, r.nodes, r.subgraphs, r.line) for r in rows] == [
        ("C7x", 100, 3, 6), ("CPU", 7, None, 7)]
    assert parse_subgraph_summary("no table here\n") is None
    two = TABLE + TABLE.replace("100", "5")
    last = parse_subgraph_summary(two)
    assert last is not None and last[0].nodes == 5


@pytest.mark.parametrize("text", [TABLE.replace("|                       3 |", "| 3 | 4 |"),
                                  TABLE.replace("100", "many"), TABLE.split("| C7x")[0]])
def test_malformed_is_located(text: str) -> None:
    with pytest.raises(FormatError, match=r"run\.log: line \d+"):
        parse_subgraph_summary(text, "run.log")


def test_hostile_counts_are_located() -> None:
    log = ("------------------------- Subgraph Information Summary -------------------------\n"
           "|          Core           |      No. of Nodes       |   Number of Subgraphs   |\n"
           f"| C7x                     |    {'9' * 5000} |                       2 |\n")
    with pytest.raises(FormatError, match=r"line 3: expected whole numbers \(or x\): expected a whole number of at most "
                                          r"24 digits, found '9{40}…' \(5000 characters\)"):
        parse_subgraph_summary(log, "run.log")
