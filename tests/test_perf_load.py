"""tidl_io.perf.load: finding and joining the files. The real YOLOX-s (od-8220, TIDL 10.0,
no net file) against result.yaml (TI's benchmark tools), the CSV's own summary lines,
layer_info.txt and the netLog read here; the bufinfolog-only folders; hand-made folders."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
import yaml

from tidl_io import ArgumentTypeError, FormatError, OptionError, PathNotFoundError, load_perf

from conftest import REALDATA
from perf_fixtures import TINY_BOARD, TINY_BOARD_ROWS, TINY_SIM, TINY_SIM_NAME, board_text, write_tiny

NET = REALDATA / "net"
OD = NET / "od-8220-yolox-10.0"


def real(name: str) -> Path:
    path = NET / name
    if not path.is_dir():
        pytest.skip("../shared/realdata not present")
    return path


def test_od8220_totals_equal_result_yaml_and_the_summary() -> None:
    perf = load_perf(real("od-8220-yolox-10.0"))
    assert [s.name for s in perf.subgraphs] == ["subgraph_0"]
    s = perf.subgraphs[0]
    assert len(s.layers) == 122
    result = yaml.safe_load((OD / "result.yaml").read_text())["result"]
    assert s.total.time_ms == result["perfsim_time_ms"] == 367.46284
    assert s.total.ddr_mb == result["perfsim_ddr_transfer_mb"] == 187.58
    assert s.total.gmacs == result["perfsim_gmacs"] == 13.3203
    sim = next((OD / "artifacts/tempDir/subgraph_0_tidl_net").glob("tempDir_*.csv")).read_text()
    said = {" ".join(k.split()): v.strip() for k, _, v in (line.partition("=") for line in sim.splitlines()) if v}
    assert s.total.ddr_read_mb == float(said["DDR BW (Mega Bytes) : Read"]) == 119.27
    assert s.total.ddr_write_mb == float(said["DDR BW (Mega Bytes) : Write"]) == 68.32
    assert s.total.msmc_mb == float(said["MSMC SRAM BW (Mega Bytes) : Total"]) == 143.54
    # the rows' DDR columns are rounded: their sum is not TI's total, which is what we report
    rows = [r for r in csv.reader(sim.splitlines()) if len(r) == 40][1:]
    assert abs(sum(float(r[36]) + float(r[37]) for r in rows) - 187.58) > 0.005


def test_od8220_layers_equal_their_rows_and_layer_info() -> None:
    s = load_perf(real("od-8220-yolox-10.0")).subgraphs[0]
    sim = next((OD / "artifacts/tempDir/subgraph_0_tidl_net").glob("tempDir_*.csv"))
    with open(sim, newline="") as fh:
        rows = list(csv.reader(fh))
    head = [h.strip() for h in rows[0]]
    table = [dict(zip(head, (c.strip() for c in r))) for r in rows[1:123]]
    info = {}
    for line in (OD / "artifacts/tempDir/subgraph_0_tidl_net.bin.layer_info.txt").read_text().splitlines():
        n, d, name = line.split(" ", 2)
        info[int(n)] = (int(d), name.strip())
    netlog = {}
    for line in (OD / "artifacts/tempDir/subgraph_0_tidl_net.bin_netLog.txt").read_text().splitlines():
        parts = line.split("|")
        if len(parts) == 12 and parts[0].strip().isdigit():
            netlog[int(parts[0])] = (parts[2].strip(), int(parts[5]), int(parts[10]))
    for pos, (lay, row) in enumerate(zip(s.layers, table)):
        assert (lay.position, lay.index, lay.type) == (pos, int(row["lyrNum"]), row["LyrType"])
        assert (lay.time_us, lay.cycles, lay.kernel_cycles, lay.core_loop_cycles, lay.setup_cycles, lay.dma_cycles,
                lay.io_cycles, lay.ddr_read_mb, lay.ddr_write_mb) == tuple(float(row[k]) for k in (
                    "procTime(us)", "LayerCycles", "kernelOnlyCycles", "coreLoopCycles", "LayerSetupCycles",
                    "dmaPipeupCycles", "IOcyles", "DDRBW-R(M)", "DDRBW-W(M)"))
        assert lay.memory["weights"] == (row["srcMem-WT"], row["dstMem-WT"])
        name, outs, macs = netlog[lay.index]
        assert lay.macs == macs
        if outs == -1:  # an output data layer: layer_info names it after buffer 0, the netLog after its input
            assert lay.name == name and info[lay.index][1] == "input"
        else:
            assert (lay.data_id, lay.name) == info[lay.index]
        assert lay.buffers is not None and set(lay.buffers) >= {"In-Write", "Out-Write"}
    assert [lay.name for lay in s.layers[-4:]] == ["dets", "dets", "labels", "labels"]


def test_bufinfolog_only_folders_give_placement_and_null_times() -> None:
    for name, file in (("edgeai-tidl-east-9.0", "bufinfolog.csv"), ("real-time-llve-zero-dce-10.0", "bufinfolog_0.csv"),
                       ("edgeai-tidl-fcnn-cnn5-9.0", "bufinfolog.csv")):
        perf = load_perf(real(name))
        s = perf.subgraphs[0]
        assert s.sources["bufinfolog"].endswith(file)
        assert s.total.time_ms is None and s.total.ddr_mb is None and s.total.gmacs is not None
        assert all(lay.time_us is None and lay.cycles is None and lay.bound is None for lay in s.layers)
        assert any(lay.memory["out"][1] in ("DDR", "MSMC", "L2") for lay in s.layers)
        assert any("no performance simulation" in n for n in perf.notes)
        assert "net" in s.sources  # the net is there: names, types, dataIds and shapes from it


def test_east_joined_with_its_net_in_bufinfolog_order() -> None:
    s = load_perf(real("edgeai-tidl-east-9.0")).subgraphs[0]
    rows = [line.split(",") for line in (NET / "edgeai-tidl-east-9.0/tempDir/625_tidl_net/bufinfolog.csv")
            .read_text().splitlines()[1:]]
    assert [lay.index for lay in s.layers] == [int(r[0]) for r in rows] == [0, 2, 1, 3, 4, 5, 6]
    assert [lay.memory["out"][1] for lay in s.layers] == [r[41].strip() for r in rows]
    assert s.layers[1].name == "onnx::Concat_616_netFormat" and s.layers[1].type == "TIDL_DataConvertLayer"
    assert s.layers[1].shape == (1, 4, 176, 320)


def test_a_folder_with_only_a_bufinfolog(tmp_path: Path) -> None:
    folder = write_tiny(tmp_path, sim=False, buf="bufinfolog.csv", netlog=False, layer_info=False)
    s = load_perf(folder).subgraphs[0]
    assert s.name == "tiny" and len(s.layers) == 4
    assert [lay.memory["out"] for lay in s.layers] == [(None, "DDR"), ("MSMC", "DDR"), (None, "MSMC"), (None, "DDR")]
    assert all(lay.time_us is None and lay.name is None for lay in s.layers)
    assert s.total == type(s.total)()  # every total null


@pytest.mark.parametrize("spelling", ["bufinfolog.csv", "bufinfolog_0.csv"])
def test_both_spellings(tmp_path: Path, spelling: str) -> None:
    s = load_perf(write_tiny(tmp_path, buf=spelling)).subgraphs[0]
    assert s.sources["bufinfolog"].endswith(spelling)
    assert s.layers[1].buffers is not None and s.layers[1].buffers["Out-Write"].base_address == 0x4C000


def test_tiny_joined(tmp_path: Path) -> None:
    s = load_perf(write_tiny(tmp_path)).subgraphs[0]
    assert [(lay.index, lay.name, lay.data_id, lay.macs) for lay in s.layers] == [
        (0, "image", 0, 0), (1, "conv1", 1, 442368), (2, "conv2", 2, 2359296), (3, "conv2", 0, 0)]
    assert s.total.time_ms == 0.42075 and s.total.gmacs == 0.0028 and s.total.msmc_mb == 0.16
    assert s.config["cpu_mhz"] == 1000 and s.config["file_name"]["L3S"] == 968 and s.config["width"] == 32


def test_model_folder_and_tempdir_are_found(tmp_path: Path) -> None:
    write_tiny(tmp_path / "artifacts")
    for where in (tmp_path, tmp_path / "artifacts", tmp_path / "artifacts" / "tempDir"):
        assert load_perf(where).subgraphs[0].total.time_ms == 0.42075


def test_board_joined_by_exec_position(tmp_path: Path) -> None:
    folder = write_tiny(tmp_path)
    board = tmp_path / "tidl_trace_subgraph_0_perf.csv"
    board.write_text(TINY_BOARD)
    s = load_perf(folder, board=[board]).subgraphs[0]
    b1, b2 = s.layers[1].board, s.layers[2].board
    assert s.layers[0].board is None and s.layers[3].board is None
    assert b1 is not None and b2 is not None
    assert (b1.cycles, b1.kernel_cycles, b1.core_loop_cycles, b1.setup_cycles, b1.dma_cycles) == (150625, 41000,
                                                                                                  130000, 8125, 12500)
    assert b1.ratio == 150625 / 120500 and b2.ratio == 300250 / 300250
    assert b1.time_us == 150.625  # at the simulation's 1000 MHz
    assert b1.ddr_read_mb == 262144 / 1024000 and b1.ddr_write_mb == 52428 / 1024000
    assert b1.bound == "memory" and b2.bound == "compute"
    assert s.board_total_cycles == 450875


def test_a_board_log_of_two_runs_gives_each_layer_their_mean(tmp_path: Path) -> None:
    """Two blocks, each ended by its "Sum of Layer Cycles" (run 1 = TINY_BOARD; run 2 written
    here): every count is the mean of the two runs, cycles with their min and max, the sum the
    mean of TI's two sums; the numbers below are worked out by hand."""
    folder = write_tiny(tmp_path)
    board = tmp_path / "tidl_trace_subgraph_0_perf.csv"
    run2 = board_text([(1, 149375, 39000, 129000, 8000, 12375, 262144, 52428),
                       (2, 301750, 286000, 286500, 5000, 10250, 10240, 0)])
    board.write_text(TINY_BOARD + run2)
    perf = load_perf(folder, board=[board])
    s = perf.subgraphs[0]
    b1, b2 = s.layers[1].board, s.layers[2].board
    assert b1 is not None and b2 is not None and s.layers[0].board is None
    # layer 1: (150625 + 149375) / 2, (41000 + 39000) / 2, (130000 + 129000) / 2, (8125 + 8000) / 2, (12500 + 12375) / 2
    assert (b1.cycles, b1.kernel_cycles, b1.core_loop_cycles, b1.setup_cycles, b1.dma_cycles) == (
        150000, 40000, 129500, 8062.5, 12437.5)
    assert (b1.runs, b1.cycles_min, b1.cycles_max) == (2, 149375, 150625)
    assert b1.ratio == 150000 / 120500 and b1.time_us == 150.0  # the simulation's 120500 cycles, 1000 MHz
    assert b1.ddr_read_mb == 262144 / 1024000 and b1.ddr_write_mb == 52428 / 1024000
    # layer 2: (300250 + 301750) / 2, (285000 + 286000) / 2, (285000 + 286500) / 2
    assert (b2.cycles, b2.kernel_cycles, b2.core_loop_cycles, b2.runs, b2.cycles_min, b2.cycles_max) == (
        301000, 285500, 285750, 2, 300250, 301750)
    assert (s.board_total_cycles, s.board_runs) == ((450875 + 451125) // 2, 2) == (451000, 2)
    assert any("holds 2 runs" in n and "mean" in n for n in perf.notes), perf.notes
    doc = json.loads(json.dumps(perf.to_dict(), allow_nan=False))
    assert doc["subgraphs"][0]["board"] == {"total_cycles": 451000, "runs": 2}
    assert doc["subgraphs"][0]["layers"][1]["board"]["cycles_min"] == 149375
    assert "board: 451000 cycles (mean of 2 runs)" in perf.to_text()


def test_board_of_an_unknown_subgraph(tmp_path: Path) -> None:
    folder = write_tiny(tmp_path)
    board = tmp_path / "tidl_trace_subgraph_3_perf.csv"
    board.write_text(TINY_BOARD)
    with pytest.raises(OptionError, match=r"a log of subgraph 3, but the model has 1 subgraph \(tiny: "
                                          r"tidl_trace_subgraph_0_perf.csv\)$"):
        load_perf(folder, board=[board])
    other = tmp_path / "run.csv"  # a name without N: fine for a one-subgraph model
    other.write_text(TINY_BOARD)
    assert load_perf(folder, board=[other]).subgraphs[0].layers[1].board is not None
    with pytest.raises(OptionError, match="two files"):
        load_perf(folder, board=[other, other])


def test_nothing_to_read(tmp_path: Path) -> None:
    with pytest.raises(PathNotFoundError, match="none of TI's performance files"):
        load_perf(tmp_path)
    with pytest.raises(PathNotFoundError, match="no such file or folder"):
        load_perf(tmp_path / "absent")
    (tmp_path / "f").write_text("x")
    with pytest.raises(OSError, match="not a folder"):
        load_perf(tmp_path / "f")
    with pytest.raises(ArgumentTypeError):
        load_perf(3)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError):
        load_perf(tmp_path, board="x.csv")  # type: ignore[arg-type]


def test_a_cut_simulation_is_a_located_error(tmp_path: Path) -> None:
    folder = write_tiny(tmp_path)
    sim = folder / "tempDir" / "tiny_tidl_net" / TINY_SIM_NAME
    sim.write_text(TINY_SIM[:1000])
    with pytest.raises(FormatError, match=r"tiny_tidl_net_DSP1.*\.csv, line 3: the last line has no line end"):
        load_perf(folder)


def test_files_of_two_compilations(tmp_path: Path) -> None:
    folder = write_tiny(tmp_path)
    log = folder / "tempDir" / "tiny_tidl_net.bin_netLog.txt"
    log.write_text(log.read_text().replace("    2|TIDL_ConvolutionLayer ", "    2|TIDL_PoolingLayer     "))
    with pytest.raises(FormatError, match="layer 2 is a TIDL_ConvolutionLayer in the simulation, a TIDL_PoolingLayer"):
        load_perf(folder)


def test_od8220_copy_without_the_simulation(tmp_path: Path) -> None:
    src = real("od-8220-yolox-10.0") / "artifacts" / "tempDir"
    dst = tmp_path / "tempDir" / "subgraph_0_tidl_net"
    dst.mkdir(parents=True)
    shutil.copy(src / "subgraph_0_tidl_net" / "bufinfolog_0.csv", dst)
    s = load_perf(tmp_path).subgraphs[0]
    assert len(s.layers) == 122 and all(lay.time_us is None for lay in s.layers)
    assert s.layers[1].memory == {"in": (None, "L2"), "out": ("MSMC", "DDR"), "weights": (None, "MSMC")}


def test_the_bundled_example() -> None:
    """The example's files are what tools/make_perf_example.py writes, one row per layer of the
    example net, names and dataIds from the net; the totals are the rows' sums as TI rounds them."""
    import subprocess
    import sys

    from conftest import EXAMPLES, ROOT

    tool = subprocess.run([sys.executable, str(ROOT / "tools" / "make_perf_example.py"), "--check"],
                          capture_output=True, text=True, check=False)
    assert tool.returncode == 0, tool.stdout + tool.stderr
    s = load_perf(EXAMPLES).subgraphs[0]
    names = [line.split(" ", 2)[2].strip() for line in
             (EXAMPLES / "detector_tidl_net.bin.layer_info.txt").read_text().splitlines()]
    assert s.name == "detector" and [lay.name for lay in s.layers] == names
    assert s.total.time_ms * 1000 == pytest.approx(sum(lay.time_us for lay in s.layers), abs=0.005)
    assert {lay.bound for lay in s.layers} == {None, "memory", "compute", "setup"}


def test_two_subgraphs_and_their_board_files(tmp_path: Path) -> None:
    """subgraph_0 .. subgraph_10 in TI's (natural) order; board file N goes to subgraph_N."""
    write_tiny(tmp_path / "src")
    temp = tmp_path / "art" / "tempDir"
    for n in (10, 0):  # created out of order on purpose
        sg = f"subgraph_{n}"
        (temp / f"{sg}_tidl_net").mkdir(parents=True)
        sim = (tmp_path / "src/tempDir/tiny_tidl_net" / TINY_SIM_NAME).read_text()
        if n == 10:
            sim = sim.replace("  300.25,300250.00", "  100.25,100250.00")
        (temp / f"{sg}_tidl_net" / TINY_SIM_NAME.replace("tiny", sg)).write_text(sim)
    board = tmp_path / "tidl_trace_subgraph_10_perf.csv"
    board.write_text(TINY_BOARD)
    perf = load_perf(tmp_path / "art", board=[board])
    assert [s.name for s in perf.subgraphs] == ["subgraph_0", "subgraph_10"]
    assert perf.layer_time_us(2, subgraph="subgraph_10") == 100.25 and perf.layer_time_us(2) == 300.25
    assert perf.subgraphs[0].layers[2].board is None and perf.subgraphs[1].layers[2].board is not None
    assert perf.subgraphs[1].layers[2].board.ratio == 300250 / 100250
    # subgraph 1 is none of them (not the second one, subgraph_10); a log without N fits neither
    (tmp_path / "tidl_trace_subgraph_1_perf.csv").write_text(TINY_BOARD)
    with pytest.raises(OptionError, match=r"a log of subgraph 1, but the model has 2 subgraphs \(subgraph_0: "
                                          r"tidl_trace_subgraph_0_perf.csv, subgraph_10: tidl_trace_subgraph_10_perf"):
        load_perf(tmp_path / "art", board=[tmp_path / "tidl_trace_subgraph_1_perf.csv"])
    (tmp_path / "run.csv").write_text(TINY_BOARD)
    with pytest.raises(OptionError, match="run.csv: which subgraph does it measure"):
        load_perf(tmp_path / "art", board=[tmp_path / "run.csv"])


def test_a_hostile_layer_info_gives_no_names_and_a_note(tmp_path: Path) -> None:
    """"²".isdigit() is True but int("²") fails: net.layerinfo's located error becomes a note,
    no layer is named from that file (never some of it), the numbers stay (issue 24)."""
    art = write_tiny(tmp_path / "art", netlog=False)
    info = art / "tempDir" / "tiny_tidl_net.bin.layer_info.txt"
    info.write_text("0 0 a\n1 \u00b2 b\n2 2 c\n3 0 d\n")
    perf = load_perf(art)
    assert [la.name for la in perf.subgraphs[0].layers] == [None] * 4
    assert perf.layer_time_us(2) == 300.25
    assert any(n.startswith(f"tiny: layer names not used: {info}, line 2: expected 'layerId dataId name'")
               for n in perf.notes), perf.notes
    info.write_text("0 0 a\n1 1 b\n2 2 c\n3 0 d\n")
    assert [la.name for la in load_perf(art).subgraphs[0].layers] == ["a", "b", "c", "d"]


@pytest.mark.parametrize("case", ["a data layer", "past the layers"])
def test_a_board_log_of_another_model_is_a_located_error(tmp_path: Path, case: str) -> None:
    """tiny executes layers 1 and 2 (0 and 3 are data layers, which TIDL-RT never executes):
    a log with a row for Layer 0, or for Layer 4 of a 4-layer net, is of another model (issue 32
    item 4). The error names the board file, the row's line and the layer."""
    folder = write_tiny(tmp_path / "art")
    board = tmp_path / "tidl_trace_subgraph_0_perf.csv"
    rows = [(0, 1000, 500, 800, 100, 100, 10, 10), *TINY_BOARD_ROWS] if case == "a data layer" \
        else [*TINY_BOARD_ROWS, (4, 1000, 500, 800, 100, 100, 10, 10)]
    board.write_text(board_text(rows))
    line = 2 if case == "a data layer" else 4  # line 1 is the header
    expected = ("Layer 0 is tiny's layer 0, a TIDL_DataLayer: TIDL-RT executes no data layer"
                if case == "a data layer" else "Layer 4: tiny has 4 layers (0..3)")
    with pytest.raises(FormatError) as info:
        load_perf(folder, board=[board])
    message = str(info.value)
    assert message.startswith(f"{board}, line {line} (Layer): {expected}"), message
    assert message.endswith("a board log of another model?"), message


def test_a_board_log_missing_executed_layers_says_so(tmp_path: Path) -> None:
    """A log measuring layer 2 only: layer 1 has no board row, a note says which."""
    folder = write_tiny(tmp_path / "art")
    board = tmp_path / "tidl_trace_subgraph_0_perf.csv"
    board.write_text(board_text(TINY_BOARD_ROWS[1:]))
    perf = load_perf(folder, board=[board])
    assert perf.subgraphs[0].layers[1].board is None and perf.subgraphs[0].layers[2].board is not None
    assert any("1 executed layer(s) without a board row (exec 1)" in n for n in perf.notes), perf.notes


def test_a_board_log_of_a_few_layers_is_another_models(tmp_path: Path) -> None:
    """The second probe of issue 32: 3 board rows beside od-8220's 119 executed layers were taken (exit 0,
    'board: 3500 cycles' beside a 367 ms simulation); TIDL-RT logs every layer it executes."""
    if not OD.is_dir():
        pytest.skip("../shared/realdata not present")
    board = tmp_path / "tidl_trace_subgraph_0_perf.csv"
    board.write_text(board_text([(k, 1000 + k, 500, 800, 100, 100, 0, 0) for k in (1, 2, 3)]))
    executed = sum(1 for lay in load_perf(OD).subgraphs[0].layers if not lay.is_data)
    with pytest.raises(FormatError, match=rf"rows for 3 of the {executed} layers subgraph_0 executes: a board log "
                                          r"of another model\?"):
        load_perf(OD, board=[board])
