"""tidl_io.perf.report: the --json document in the issue's shape (strict JSON, null where no
file says) and the text table, checked against the fixture's literal values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tidl_io import ArgumentTypeError, OptionError, load_perf

from conftest import REALDATA
from perf_fixtures import TINY_BOARD, write_tiny

LAYER_KEYS = ["index", "type", "name", "data_id", "time_us", "cycles", "kernel_cycles", "core_loop_cycles",
              "setup_cycles", "dma_cycles", "io_cycles", "ddr_read_mb", "ddr_write_mb", "memory", "bound", "macs", "macs_per_kernel_cycle", "board"]


def test_json_shape(tmp_path: Path) -> None:
    folder = write_tiny(tmp_path)
    (tmp_path / "b.csv").write_text(TINY_BOARD)
    doc = json.loads(json.dumps(load_perf(folder, board=[tmp_path / "b.csv"]).to_dict(), allow_nan=False))
    assert list(doc) == ["schema_version", "subgraphs"] and doc["schema_version"] == 1
    s = doc["subgraphs"][0]
    assert list(s) == ["name", "config", "total", "board", "layers"] and s["name"] == "tiny"
    assert s["board"] == {"total_cycles": 450875, "runs": 1}  # TI's Sum of Layer Cycles, one run
    assert s["total"] == {"time_ms": 0.42075, "ddr_mb": 0.32, "ddr_read_mb": 0.27, "ddr_write_mb": 0.05,
                          "msmc_mb": 0.16, "gmacs": 0.0028}
    assert s["config"]["release"] == "TI_NETWORK_COMPILER_10.00.00" and s["config"]["ddr_mhz"] == 3200
    conv = s["layers"][1]
    assert list(conv) == LAYER_KEYS
    assert conv == {"index": 1, "type": "TIDL_ConvolutionLayer", "name": "conv1", "data_id": 1, "time_us": 120.5,
                    "cycles": 120500.0, "kernel_cycles": 40000.0, "core_loop_cycles": 100000.0, "setup_cycles": 8000.0,
                    "dma_cycles": 12500.0, "io_cycles": 100000.0, "ddr_read_mb": 0.25, "ddr_write_mb": 0.05,
                    "memory": {"in": ["DDR", "L2"], "out": ["MSMC", "DDR"], "weights": ["DDR", "MSMC"]},
                    "bound": "memory", "macs": 442368, "macs_per_kernel_cycle": 442368 / 40000, "board": {
                        "exec_id": 1, "cycles": 150625, "kernel_cycles": 41000, "core_loop_cycles": 130000,
                        "setup_cycles": 8125, "dma_cycles": 12500, "ddr_read_mb": 262144 / 1024000,
                        "ddr_write_mb": 52428 / 1024000, "time_us": 150.625, "ratio": 150625 / 120500,
                        "bound": "memory", "runs": 1, "cycles_min": 150625, "cycles_max": 150625}}
    assert s["layers"][0]["board"] is None and s["layers"][0]["bound"] is None


def test_json_nulls_without_a_simulation(tmp_path: Path) -> None:
    doc = load_perf(write_tiny(tmp_path, sim=False, netlog=False)).to_dict()
    s = doc["subgraphs"][0]
    assert set(s["total"].values()) == {None}
    assert all(lay[k] is None for lay in s["layers"] for k in LAYER_KEYS[4:13])
    assert s["layers"][1]["memory"] == {"in": [None, "L2"], "out": ["MSMC", "DDR"], "weights": [None, "MSMC"]}
    json.dumps(doc, allow_nan=False)


def test_text(tmp_path: Path) -> None:
    text = load_perf(write_tiny(tmp_path)).to_text()
    lines = text.splitlines()
    assert "tiny: 4 layers; TI_NETWORK_COMPILER_10.00.00 simulation, 1 core(s) at 1000 MHz" in text
    conv = next(line for line in lines if " conv1 " in line).split()
    assert conv[:13] == ["1", "1", "Convolution", "conv1", "120.50", "28.6%", "40.0k", "100.0k", "8.0k", "12.5k",
                         "memory", "0.25", "0.05"]
    assert conv[13:] == ["DDR>L2", "MSMC>DDR", "DDR>MSMC", "442.4k", "11.06"]
    assert "total: 420.75 µs = 0.42075 ms, DDR 0.32 MB (read 0.27, write 0.05), MSMC 0.16 MB, 0.0028 GMACs" in lines
    top = load_perf(write_tiny(tmp_path)).to_text(top=1)
    assert "the 1 slowest layers:" in top and " conv2 " in top and " conv1 " not in top
    with pytest.raises(OptionError, match="top must be >= 1, found 0"):
        load_perf(write_tiny(tmp_path)).to_text(top=0)
    with pytest.raises(ArgumentTypeError):
        load_perf(write_tiny(tmp_path)).to_text(top="3")  # type: ignore[arg-type]


def test_names_with_control_characters_are_escaped(tmp_path: Path) -> None:
    folder = write_tiny(tmp_path)
    info = folder / "tempDir" / "tiny_tidl_net.bin.layer_info.txt"
    info.write_text(info.read_text().replace("conv1", "c\x1b[31mv"))
    text = load_perf(folder).to_text()
    assert "\x1b" not in text and "c\\x1b[31mv" in text


def test_od8220_text_totals_line() -> None:
    path = REALDATA / "net" / "od-8220-yolox-10.0"
    if not path.is_dir():
        pytest.skip("../shared/realdata not present")
    text = load_perf(path).to_text(top=3)
    assert "total: 367462.84 µs = 367.46284 ms, DDR 187.58 MB (read 119.27, write 68.32), MSMC 143.54 MB, " \
           "13.3203 GMACs" in text


def test_top_without_times_lists_every_layer(tmp_path: Path) -> None:
    """No simulation and no board log: nothing to rank, so --top still shows every layer's
    placement (bufinfolog) in execution order, and says why, instead of an empty table."""
    text = load_perf(write_tiny(tmp_path, sim=False, netlog=False)).to_text(top=2)
    assert "the 2 slowest layers:" not in text
    assert "no layer has a time to rank by" in text
    rows = [line.split() for line in text.splitlines() if line.split()[:2] in (["0", "0"], ["1", "1"], ["2", "2"],
                                                                                ["3", "3"])]
    assert [r[3] for r in rows] == ["image", "conv1", "conv2", "image"]  # every layer, in execution order
    assert rows[1][-3:] == ["?>L2", "MSMC>DDR", "?>MSMC"]  # conv1's placement (the fixture's bufinfolog)


def test_macs_and_macs_per_kernel_cycle(tmp_path: Path) -> None:
    """The netLog's MACs beside the cycles (issue 32 item 16): conv1 442368 MACs in 40000 kernel
    cycles = 11.0592 MACs per cycle, conv2 2359296 in 280000 = 8.4261...; data layers none."""
    perf = load_perf(write_tiny(tmp_path))
    conv1 = perf.subgraphs[0].layers[1]
    assert (conv1.macs, conv1.macs_per_kernel_cycle) == (442368, 442368 / 40000)
    assert perf.subgraphs[0].layers[0].macs_per_kernel_cycle is None
    lay = perf.to_dict()["subgraphs"][0]["layers"][2]
    assert (lay["macs"], lay["macs_per_kernel_cycle"]) == (2359296, 2359296 / 280000)
    lines = perf.to_text().splitlines()
    head = next(line for line in lines if "time µs" in line).split()
    assert head[-2:] == ["MACs", "MACs/cyc"], head
    assert next(line for line in lines if " conv1 " in line).split()[-2:] == ["442.4k", "11.06"]
    assert next(line for line in lines if " conv2 " in line and "Conv" in line).split()[-2:] == ["2.4M", "8.43"]


def test_only_a_netlog_ranks_by_macs(tmp_path: Path) -> None:
    """A folder with only the netLog: no columns of dashes (no simulation, no placement), the
    MACs shown, and --top ranks by them (issue 32 item 16): conv2 (2359296) then conv1 (442368)."""
    perf = load_perf(write_tiny(tmp_path, sim=False, buf=None, layer_info=False))
    text = perf.to_text()
    head = next(line for line in text.splitlines() if line.strip().startswith("exec")).split()
    assert head == ["exec", "layer", "type", "name", "MACs"], head
    assert " - " not in text.split("per type:")[0], text
    top = perf.to_text(top=1)
    assert "no simulation: the 1 layers with the most MACs (the netLog's):" in top, top
    rows = [line.split() for line in top.split("per type:")[0].splitlines() if line.startswith("  ")][1:]
    assert rows == [["2", "2", "Convolution", "conv2", "2.4M"]], rows
    assert [r.split()[3] for r in perf.to_text(top=2).split("per type:")[0].splitlines()[-2:]] == ["conv2", "conv1"]


def test_bbai64_netlog_ranking_equals_the_netlog() -> None:
    """The real DeepLabv3 (8.2: net and netLog, no simulation): --top 5 lists the five largest
    MACS of the netLog's table, read here by splitting its '|' columns."""
    path = REALDATA / "net" / "bbai64-deeplabv3-mnv2-8.2"
    if not path.is_dir():
        pytest.skip("../shared/realdata not present")
    macs = {}
    for line in (path / "201_tidl_net.bin_netLog.txt").read_text().splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 10 and cells[0].isdigit():
            macs[int(cells[0])] = int(cells[-2])
    expected = sorted(macs, key=lambda i: (-macs[i], i))[:5]
    text = load_perf(path).to_text(top=5)
    rows = [line.split() for line in text.split("per type:")[0].splitlines() if line.startswith("  ")][1:]
    assert [int(r[1]) for r in rows] == expected and len(macs) == 82
