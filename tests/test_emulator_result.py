"""Emulation results: trace files under TIDL's names that ``load_traces`` and ``compare`` read
like a board's, and the report's text and strict JSON."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io.emulator import trace_name
from tidl_io.emulator._fixture import tiny_net
from tidl_io.trace.compare import compare_traces, golden_lookup
from tidl_io.trace.names import parse_trace_name

from conftest import REALDATA

EAST = REALDATA / "net" / "edgeai-tidl-east-9.0"
FCNN = REALDATA / "net" / "edgeai-tidl-fcnn-cnn5-9.0"
FCNN_NAME = "_cnn_cnn.5_relu_Relu_output_0"


def test_trace_name_is_tis_documented_format() -> None:
    data, _ = tiny_net(0)
    net = tidl_io.parse_net(data)
    # TI's example: tidl_trace_subgraph_0_0001_0001_0001_00004_00002_000128x00064_float.bin (4-4-4-5-5-6x5 digits)
    assert trace_name(0, net.layers[2], "float") == "tidl_trace_subgraph_0_0002_0001_0001_00001_00006_000012x00008_float.bin"
    assert trace_name(3, net.layers[5], "y") == "tidl_trace_subgraph_3_0005_0001_0001_00001_00010_000006x00004.y"
    tn = parse_trace_name(trace_name(3, net.layers[5], "y"))
    assert tn is not None and (tn.subgraph, tn.data_id, tn.channels, tn.width, tn.height) == (3, 5, 10, 6, 4)


def test_tiny_traces_load_back_as_written(tmp_path: Path) -> None:
    data, _ = tiny_net(2)
    x = np.random.default_rng(2).uniform(-1, 1, (2, 2, 8, 12)).astype(np.float32)
    em = tidl_io.emulate(data, x)
    written = em.write_traces(tmp_path, frame=1)
    assert len(written) == 2 * 7
    net = tidl_io.parse_net(data)
    traces = tidl_io.load_traces(tmp_path, net, strict=True)
    assert sorted(traces) == [0, 1, 2, 3, 4, 5, 6]
    for data_id in traces:
        codes = traces.codes(data_id)
        assert codes is not None and np.array_equal(codes, em.codes(data_id)[1:2])
    raw = np.fromfile(tmp_path / trace_name(0, net.layers[2], "float"), np.float32).reshape(1, 6, 8, 12)
    assert np.array_equal(raw, em.codes(2)[1:2].astype(np.float32) / np.float32(0.5))
    with pytest.raises(tidl_io.OptionError, match="frame must be < 2"):
        em.write_traces(tmp_path, frame=2)


def test_east_traces_compare_with_infinite_snr_against_tis_outputs(tmp_path: Path) -> None:
    if not EAST.is_dir():
        pytest.skip("../shared/realdata not present")
    raw = np.fromfile(EAST / "tempDir" / "625_calib_raw_data.bin", np.float32).reshape(3, -1)[:1]
    ref = np.fromfile(EAST / "tempDir" / "625_tidl_io__stats_tool_out.bin", np.float32).reshape(3, 5, 176, 320)[:1]
    inputs = [raw[:, : 4 * 176 * 320].reshape(1, 4, 176, 320), raw[:, 4 * 176 * 320:].reshape(1, 1, 176, 320)]
    net = tidl_io.load_net(EAST / "625_tidl_net.bin")
    tidl_io.emulate(net, inputs).write_traces(tmp_path)
    traces = tidl_io.load_traces(tmp_path, net, strict=True)
    report = compare_traces(traces, golden_lookup({"625": ref}, "TI's stats_tool_out frame 0"), histograms=False)
    assert not report.warnings
    last = [r for r in report.rows if r.data_id == 5]
    assert len(last) == 1 and last[0].status == "compared" and last[0].metrics is not None
    assert last[0].metrics.snr_db == math.inf


def test_fcnn_traces_load_and_compare(tmp_path: Path) -> None:
    if not FCNN.is_dir():
        pytest.skip("../shared/realdata not present")
    x = np.fromfile(FCNN / "tempDir" / f"{FCNN_NAME}_calib_raw_data.bin", np.float32).reshape(3, 1, 32, 100)
    ref = np.fromfile(FCNN / "tempDir" / f"{FCNN_NAME}_tidl_io__stats_tool_out.bin", np.float32).reshape(3, 256, 8, 25)
    net = tidl_io.load_net(FCNN / f"{FCNN_NAME}_tidl_net.bin")
    tidl_io.emulate(net, x[2:3]).write_traces(tmp_path)
    traces = tidl_io.load_traces(tmp_path, net, strict=True)
    assert sorted(traces) == list(range(9))
    report = compare_traces(traces, golden_lookup({"/cnn/cnn.5/relu/Relu_output_0": ref[2:3]}, "TI frame 2"),
                            histograms=False)
    rows = {r.data_id: r for r in report.rows if r.status == "compared"}
    assert set(rows) == {8} and not report.warnings
    assert 30 < rows[8].metrics.snr_db < math.inf  # close, not exact: see test_emulator_run


def test_to_dict_is_strict_json_and_text_is_short() -> None:
    data, _ = tiny_net(0)
    em = tidl_io.emulate(data, np.zeros((2, 8, 12), np.float32))
    doc = em.to_dict()
    json.dumps(doc, allow_nan=False)
    assert doc["frames"] == 1 and doc["outputs"]["output_0"]["shape"] == [1, 10, 4, 6]
    assert [la["data_id"] for la in doc["layers"]] == list(range(7))
    text = em.to_text()
    assert text.startswith("emulated <bytes> (TIDL 9.0/9.1): 7 layers, 1 frame(s)") and "output_0: 1x10x4x6" in text


def test_repr_is_short_and_names_the_net(tmp_path: Path) -> None:
    data, _ = tiny_net(2)
    (tmp_path / "tiny_tidl_net.bin").write_bytes(data)
    x = np.zeros((3, 2, 8, 12), np.float32)
    text = repr(tidl_io.emulate(tmp_path / "tiny_tidl_net.bin", x))
    assert len(text) <= 300 and text.startswith("Emulation(") and "tiny_tidl_net.bin" in text
    assert "frames=3" in text and "layers=" in text and "outputs=(" in text and "seconds=" in text
