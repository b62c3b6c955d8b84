"""Trace file names: every naming TI documents or writes (tidl_io.trace.names)."""

from __future__ import annotations

import pytest

from tidl_io.trace.names import TraceName, parse_trace_name


@pytest.mark.parametrize(("name", "expected"), [
    # TI's 10.x/11.x troubleshooting doc, verbatim
    ("tidl_trace_subgraph_0_0001_0001_0001_00004_00002_000128x00064_float.bin",
     TraceName(1, 1, 1, 4, 2, 128, 64, "float", 0, None, "tidl_trace_subgraph", False)),
    ("tidl_trace_subgraph_0_0001_0001_0001_00004_00002_000128x00064.y",
     TraceName(1, 1, 1, 4, 2, 128, 64, "y", 0, None, "tidl_trace_subgraph", False)),
    # a second subgraph, a dataId beyond 4 digits' padding
    ("tidl_trace_subgraph_1_12345_0001_0001_00001_00032_000600x00400.y",
     TraceName(12345, 1, 1, 1, 32, 600, 400, "y", 1, None, "tidl_trace_subgraph", False)),
    # the older naming: tidl_traceAAAA_BBBBB_CCCCC_DDDDDxEEEEE.y (dataId, batch, C, W, H)
    ("tidl_trace0012_00001_00003_00600x00400.y",
     TraceName(12, 1, 1, 1, 3, 600, 400, "y", None, None, "tidl_trace", True)),
    ("tidl_trace_subgraph_0_0012_00001_00003_00600x00400.y",
     TraceName(12, 1, 1, 1, 3, 600, 400, "y", 0, None, "tidl_trace_subgraph", True)),
    # a multi-core run's C7X_<n>_ prefix, a custom traceBaseName (+ _<sg>_)
    ("C7X_1_tidl_trace_subgraph_0_0042_0001_0001_00001_00032_000600x00400_float.bin",
     TraceName(42, 1, 1, 1, 32, 600, 400, "float", 0, 1, "tidl_trace_subgraph", False)),
    ("mybase_3_0042_0002_0001_00001_00032_000600x00400.y",
     TraceName(42, 2, 1, 1, 32, 600, 400, "y", 3, None, "mybase", False)),
    ("C7X_2_run2_0_0012_00001_00003_00600x00400.y",  # a base ending in a digit is no dataId
     TraceName(12, 1, 1, 1, 3, 600, 400, "y", 0, 2, "run2", True)),
    ("x_0012_0001_0001_00001_00032_000600x00400.y",  # no subgraph in the name
     TraceName(12, 1, 1, 1, 32, 600, 400, "y", None, None, "x", False)),
])
def test_names(name: str, expected: TraceName) -> None:
    assert parse_trace_name(name) == expected


@pytest.mark.parametrize("name", ["perf.csv", "tidl_trace_subgraph_0_0001.y", "layer_info.txt",
                                  "tidl_trace_subgraph_0_0001_0001_0001_00004_00002_000128x00064.bin",
                                  "tidl_trace_subgraph_0_001_0001_0001_00004_00002_000128x00064.yy",
                                  "tidl_trace12_1_3_600x400.y"])  # dataId under 4 digits
def test_not_trace_names(name: str) -> None:
    assert parse_trace_name(name) is None


def test_group_separates_runs() -> None:
    a = parse_trace_name("C7X_1_t_0_0001_0001_0001_00001_00002_000004x00003.y")
    b = parse_trace_name("C7X_2_t_0_0001_0001_0001_00001_00002_000004x00003.y")
    c = parse_trace_name("t_1_0001_0001_0001_00001_00002_000004x00003.y")
    assert a is not None and b is not None and c is not None
    assert len({a.group, b.group, c.group}) == 3
    assert a.group == (1, "t", 0)
