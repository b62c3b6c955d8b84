"""tidl_io.perf.board against hand-written files in TIDL-RT's own format (its printf formats:
``"%18s,"`` per header name, ``"%18" PRIu64 ","`` per value, then ``" Sum of Layer Cycles
%lu \\n"``), for the column sets of two releases; expected values stated literally."""

from __future__ import annotations

import pytest

from tidl_io import FormatError
from tidl_io.perf.board import board_subgraph, parse_board

from perf_fixtures import TINY_BOARD, board_text

# the 18-column release (no DDR byte counts): TIDL-RT's tidl_rt_profile.c table
LONG = ("Layer", "Layer Cycles", "kernelOnlyCycles", "coreLoopCycles", "LayerSetupCycles", "dmaPipeupCycles",
        "dmaPipeDownCycles", "PrefetchCycles", "copyKerCoeffCycles", "LayerDeinitCycles", "LastBlockCycles",
        "paddingTrigger", "paddingWait", "LayerWithoutPad", "LayerHandleCopy", "BackupCycles", "RestoreCycles",
        "Multic7xContextCopyCycles")


def test_fixture_with_ddr_bytes() -> None:
    run = parse_board(TINY_BOARD, "tidl_trace_subgraph_0_perf.csv")
    assert TINY_BOARD.splitlines()[0].startswith("             Layer,      Layer Cycles,")
    assert len(run.blocks) == 1 and run.blocks[0].line == 2
    assert [lay.exec_id for lay in run.blocks[0].layers] == [1, 2]
    a = run.blocks[0].layers[0]
    assert (a.cycles, a.kernel_cycles, a.core_loop_cycles, a.setup_cycles, a.dma_cycles, a.ddr_read_bytes,
            a.ddr_write_bytes) == (150625, 41000, 130000, 8125, 12500, 262144, 52428)
    assert run.blocks[0].total_cycles == 450875 and run.columns[-1] == "DDRBWWriteInBytes"


def test_release_without_ddr_columns() -> None:
    row = (5, 1000, 600, 900, 50, 50, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18)
    run = parse_board(board_text([row], LONG, total=1234), "perf.csv")
    lay = run.blocks[0].layers[0]
    assert (lay.exec_id, lay.cycles, lay.kernel_cycles, lay.ddr_read_bytes, lay.ddr_write_bytes) == (5, 1000, 600,
                                                                                                      None, None)
    assert lay.values["Multic7xContextCopyCycles"] == 18 and len(run.columns) == 18
    assert run.blocks[0].total_cycles == 1234  # TI's sum counts every layer, the rows only the executed ones


def test_only_layer_and_cycles() -> None:
    run = parse_board("Layer,Layer Cycles,\n3,77,\nSum of Layer Cycles 77\n", "perf.csv")
    lay = run.blocks[0].layers[0]
    assert (lay.exec_id, lay.cycles, lay.core_loop_cycles) == (3, 77, None)


@pytest.mark.parametrize(("name", "n"), [("/tmp/tidl_trace_subgraph_0_perf.csv", 0),
                                         ("tidl_trace_subgraph_12_perf.csv", 12), ("perf.csv", None)])
def test_subgraph_from_the_name(name: str, n: int | None) -> None:
    assert board_subgraph(name) == n


# a log of two runs (frames): the second block's numbers differ; with and without the header again
RUN2_ROWS = [(1, 149375, 39000, 129000, 8000, 12375, 262144, 52428),
             (2, 301750, 286000, 286500, 5000, 10250, 10240, 0)]
TWO_RUNS = TINY_BOARD + board_text(RUN2_ROWS)  # header, 2 rows, Sum 450875, header, 2 rows, Sum 451125
TWO_RUNS_ONE_HEADER = TINY_BOARD + "".join(board_text(RUN2_ROWS).splitlines(keepends=True)[1:])


@pytest.mark.parametrize("text", [TWO_RUNS, TWO_RUNS_ONE_HEADER], ids=["header-again", "one-header"])
def test_every_run_of_a_log_is_read(text: str) -> None:
    run = parse_board(text, "perf.csv")
    assert [(b.line, b.total_cycles) for b in run.blocks] == ([(2, 450875), (6, 451125)] if text == TWO_RUNS
                                                                else [(2, 450875), (5, 451125)])
    assert [[lay.cycles for lay in b.layers] for b in run.blocks] == [[150625, 300250], [149375, 301750]]
    assert run.blocks[1].layers[0].kernel_cycles == 39000 and run.blocks[1].layers[1].core_loop_cycles == 286500
    assert {k: [lay.cycles for lay in v] for k, v in run.by_layer().items()} == {1: [150625, 149375],
                                                                                  2: [300250, 301750]}


LINES = TINY_BOARD.splitlines(keepends=True)


@pytest.mark.parametrize(("text", "where", "what"), [
    ("", "line 1", "empty"),
    ("Layer,Cycles,\n", "line 1", "perf.csv header"),
    ("Layer,Layer Cycles,,x,\n", "line 1", "column 3 has no name"),
    (LINES[0] + LINES[1][:50] + "\n" + LINES[3], "line 2", "found 2"),
    (LINES[0] + LINES[1].rstrip("\n") + "  9,\n" + LINES[3], "line 2", "found 9"),
    (LINES[0] + LINES[1][:50], "line 2", "no line end"),
    (LINES[0] + LINES[1], "line 2", "before TIDL-RT's 'Sum of Layer Cycles'"),
    (LINES[0] + LINES[1].replace("41000", "4l000") + LINES[3], (f"line 2, column {LINES[1].index('41000') + 1} "
     "(kernelOnlyCycles)"), "'4l000'"),
    (LINES[0] + LINES[1].replace("  150625", " -150625") + LINES[3], "(Layer Cycles)", ">= 0"),
    (LINES[0] + LINES[1] + LINES[1] + LINES[3], "line 3, column 1 (Layer)", "first on line 2"),
    (LINES[0] + LINES[1] + " Sum of Layer Cycles x1 \n", "line 3", "'x1'"),
    (TINY_BOARD + LINES[0], "line 5", "before TIDL-RT's 'Sum of Layer Cycles'"),  # the next run's header, cut
    (TINY_BOARD + LINES[1], "line 5", "before TIDL-RT's 'Sum of Layer Cycles'"),  # the next run's row, cut
    (TINY_BOARD + LINES[1] + LINES[3], "line 6", "run 2 (from line 5) measures 1 layer(s), run 1 2 (Layer 2 differ)"),
    (TINY_BOARD + "Layer,Layer Cycles,\n", "line 5", "a header of other columns than line 1's"),
])
def test_located_errors(text: str, where: str, what: str) -> None:
    with pytest.raises(FormatError) as info:
        parse_board(text, "perf.csv")
    message = str(info.value)
    assert message.startswith("perf.csv, ") and where in message and what in message, message
