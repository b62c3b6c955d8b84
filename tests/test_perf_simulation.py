"""tidl_io.perf.simulation against TI's own simulation file read literally here with the csv
module (every row, every number) and against hand-written fixtures with stated values."""

from __future__ import annotations

import csv
from decimal import Decimal
from pathlib import Path

import pytest

from tidl_io import FormatError
from tidl_io.perf.simulation import is_simulation_name, parse_simulation, parse_simulation_name

from conftest import REALDATA
from perf_fixtures import SIM_HEADER, TINY_ROWS, TINY_SIM, TINY_SIM_NAME, TINY_SUMMARY

OD = REALDATA / "net" / "od-8220-yolox-10.0" / "artifacts" / "tempDir" / "subgraph_0_tidl_net"
OD_SIM = OD / "tempDir_subgraph_0_tidl_net_DSP1_FRQ1000_DT1_SIMD32_L3S968_DDRE0.60_EMIFP1_DDR3200_640x640.csv"


@pytest.fixture(scope="module")
def od_sim() -> Path:
    if not OD_SIM.is_file():
        pytest.skip("../shared/realdata not present")
    return OD_SIM


def test_every_row_equals_the_csv(od_sim: Path) -> None:
    sim = parse_simulation(od_sim.read_text(), str(od_sim))
    with open(od_sim, newline="") as fh:
        rows = list(csv.reader(fh))
    head = [h.strip() for h in rows[0]]
    table = [dict(zip(head, (c.strip() for c in r))) for r in rows[1:] if len(r) == len(head)]
    assert len(table) == len(sim.layers) == 122
    pairs = {"time_us": "procTime(us)", "cycles": "LayerCycles", "kernel_cycles": "kernelOnlyCycles",
             "core_loop_cycles": "coreLoopCycles", "setup_cycles": "LayerSetupCycles", "dma_cycles": "dmaPipeupCycles",
             "io_cycles": "IOcyles", "ddr_read_mb": "DDRBW-R(M)", "ddr_write_mb": "DDRBW-W(M)",
             "msmc_read_mb": "MSMCBW-R(M)", "msmc_write_mb": "MSMCBW-W(M)"}
    for lay, row in zip(sim.layers, table):
        assert lay.index == int(row["lyrNum"]) and lay.type == row["LyrType"]
        for ours, theirs in pairs.items():
            assert getattr(lay, ours) == float(row[theirs]), (lay.index, ours)
        assert lay.memory == {"in": (row["srcMem-IN"], row["dstMem-IN"]), "out": (row["srcMem-OUT"], row["dstMem-OUT"]),
                              "weights": (row["srcMem-WT"], row["dstMem-WT"])}
    # the file's order is execution order: 120 (an output data layer) runs before 119
    assert [lay.index for lay in sim.layers][-4:] == [118, 120, 119, 121]


def test_summary_and_configuration_lines(od_sim: Path) -> None:
    sim = parse_simulation(od_sim.read_text(), str(od_sim))
    lines = {}
    for line in od_sim.read_text().splitlines():
        key, eq, value = line.partition("=")
        if eq:
            lines[" ".join(key.split())] = value.strip()
    s = sim.summary
    assert s.release == lines["Release version"] == "TI_NETWORK_COMPILER_10.00.00"
    assert s.time_us == Decimal(lines["total Network time (us)"]) == Decimal("367462.84")
    assert s.ddr_mb == Decimal(lines["DDR BW (Mega Bytes) : Total"]) == Decimal("187.58")
    assert (s.ddr_read_mb, s.ddr_write_mb) == (Decimal("119.27"), Decimal("68.32"))
    assert (s.msmc_read_mb, s.msmc_write_mb, s.msmc_mb) == (Decimal("37.05"), Decimal("106.50"), Decimal("143.54"))
    assert s.cycles_mega == Decimal("367.46")
    assert sim.parameters["CPUFREQ_MHZ"] == 1000 and sim.parameters["DDR_EFFICIENCY"] == 0.6
    assert sim.parameters["MSMCSIZE_KB"] == int(lines["MSMCSIZE_KB"]) == 1024
    assert len(sim.parameters) == 31
    assert sim.subgraph == "subgraph_0"
    assert sim.name_config == {"DSP": 1, "FRQ": 1000, "DT": 1, "SIMD": 32, "L3S": 968, "DDRE": 0.6, "EMIFP": 1,
                               "DDR": 3200, "width": 640, "height": 640}


def test_tiny_fixture() -> None:
    sim = parse_simulation(TINY_SIM, "x/" + TINY_SIM_NAME)
    assert [lay.index for lay in sim.layers] == [0, 1, 2, 3]
    conv = sim.layers[1]
    assert (conv.time_us, conv.cycles, conv.kernel_cycles, conv.core_loop_cycles, conv.setup_cycles,
            conv.dma_cycles, conv.io_cycles) == (120.5, 120500.0, 40000.0, 100000.0, 8000.0, 12500.0, 100000.0)
    assert (conv.ddr_read_mb, conv.ddr_write_mb, conv.msmc_read_mb, conv.msmc_write_mb) == (0.25, 0.05, 0.01, 0.05)
    assert conv.memory == {"in": ("DDR", "L2"), "out": ("MSMC", "DDR"), "weights": ("DDR", "MSMC")}
    assert sim.layers[0].memory["out"] == ("NONE", "DDR")
    assert conv.values["Ni"] == "3" and conv.values["dataFlow"] == "0"
    assert sim.summary.time_us == Decimal("420.75") and sim.summary.ddr_mb == Decimal("0.32")
    assert sim.subgraph == "tiny" and sim.name_config["width"] == 32


@pytest.mark.parametrize(("name", "expected"), [
    (TINY_SIM_NAME, ("tiny", {"DSP": 1, "FRQ": 1000, "DT": 1, "SIMD": 32, "L3S": 968, "DDRE": 0.6, "EMIFP": 1,
                              "DDR": 3200, "width": 32, "height": 32})),
    ("tempDir_625_tidl_net_DSP2_FRQ1350_224x224.csv", ("625", {"DSP": 2, "FRQ": 1350, "width": 224, "height": 224})),
    ("tempDir_a_tidl_net_odd-token_FRQ7.csv", ("a", {"FRQ": 7})),
    ("bufinfolog_0.csv", (None, {})),
])
def test_file_name(name: str, expected: tuple) -> None:
    assert parse_simulation_name(name) == expected
    assert is_simulation_name(name) == (expected[0] is not None)


def _lines(text: str) -> list[str]:
    return text.splitlines()


@pytest.mark.parametrize(("text", "where", "what"), [
    ("", "line 1", "empty"),
    (SIM_HEADER.replace("LayerCycles", "Cycles") + "\n", "line 1", "'LayerCycles'"),
    (SIM_HEADER + "\n" + TINY_ROWS[0] + "\n" + TINY_ROWS[1][:80] + "\n", "line 3", "found 8"),
    (SIM_HEADER + "\n" + TINY_ROWS[0] + "\n" + TINY_ROWS[1][:80], "line 3", "no line end"),  # 1, type, 5 whole + 1 cut field
    (SIM_HEADER + "\n" + TINY_ROWS[1].replace("120500.00", "12o500.00") + "\n" + TINY_SUMMARY,
     f"line 2, column {TINY_ROWS[1].index('120500.00') + 1} (LayerCycles)", "'12o500.00'"),
    (SIM_HEADER + "\n" + TINY_ROWS[1].replace("  120.50", "     nan") + "\n" + TINY_SUMMARY, "(procTime(us))",
     "finite"),
    (SIM_HEADER + "\n" + TINY_ROWS[1].replace("  120.50", "   -1.00") + "\n" + TINY_SUMMARY, "(procTime(us))", ">= 0"),
    (SIM_HEADER + "\n" + TINY_ROWS[1] + "\n" + TINY_ROWS[1] + "\n" + TINY_SUMMARY, "line 3, column 1 (lyrNum)",
     "first on line 2"),
    (SIM_HEADER + "\n" + "\n".join(TINY_ROWS) + "\n", "line 5", "before TI's 'Network summary'"),
    (SIM_HEADER + "\n" + "\n".join(TINY_ROWS) + "\nhello\n", "line 6", "found 1"),
    (SIM_HEADER + "\n" + "\n".join(TINY_ROWS) + "\n\nhello\n", "line 7", "expected TI's '---Network summary---'"),
    (SIM_HEADER + "\n" + TINY_ROWS[1] + "\n" + TINY_SUMMARY.replace("total Network time (us)", "time"), "line",
     "'total network time (us)'"),
    (SIM_HEADER + "\n" + TINY_ROWS[1] + "\n" + TINY_SUMMARY.replace("=   420.75", "=   4x0"),
     f"line 6, column {TINY_SUMMARY.splitlines()[3].index('420.75') + 1} (total Network time (us))", "'4x0'"),
    (SIM_HEADER + "\n" + TINY_ROWS[1] + "\n" + TINY_SUMMARY + "CPUFREQ_MH\n",
     f"line {3 + len(TINY_SUMMARY.splitlines())}", "'NAME = value'"),
    (SIM_HEADER + "\n" + TINY_ROWS[1] + ",  9,\n" + TINY_SUMMARY, f"line 2, column {len(TINY_ROWS[1]) + 4}",
     "found 42"),
])
def test_located_errors(text: str, where: str, what: str) -> None:
    with pytest.raises(FormatError) as info:
        parse_simulation(text, "sim.csv")
    message = str(info.value)
    assert message.startswith("sim.csv, ") and where in message and what in message, message


def test_cut_anywhere_is_a_located_error_or_a_shorter_config() -> None:
    """A file cut at any byte: a located FormatError, or (cut at a line end after the summary's
    last total) the same layers and totals."""
    full = parse_simulation(TINY_SIM, "sim.csv")
    for cut in range(len(TINY_SIM)):
        try:
            sim = parse_simulation(TINY_SIM[:cut], "sim.csv")
        except FormatError as exc:
            assert str(exc).startswith("sim.csv, line "), str(exc)
        else:
            assert sim.layers == full.layers and sim.summary == full.summary
            assert cut >= TINY_SIM.index("Total =     0.32\n") + len("Total =     0.32\n")  # TI's last total read


@pytest.mark.parametrize(("old", "new", "field"), [
    ("=   420.75", "= 1e999999999", "total Network time (us)"),  # was decimal.Overflow further on
    ("= 1000", "= 1e999999999", "CPUFREQ_MHZ"),  # was a hang: a billion-digit integer
    ("= 1000", "= " + "9" * 5000, "CPUFREQ_MHZ"),  # was ValueError: Python's digit limit
    ("=     0.32", "= " + "9" * 5000 + ".5", "DDR BW (Mega Bytes) : Total"),
])
def test_hostile_numbers_are_located_errors_in_bounded_time(old: str, new: str, field: str) -> None:
    import time

    text = SIM_HEADER + "\n" + TINY_ROWS[1] + "\n" + TINY_SUMMARY.replace(old, new, 1)
    start = time.process_time()
    with pytest.raises(FormatError) as info:
        parse_simulation(text, "sim.csv")
    assert time.process_time() - start < 1.0
    message = str(info.value)
    assert message.startswith("sim.csv, line ") and f"({field})" in message and "expected a" in message, message
    assert len(message) < 300  # the value cut short


def test_configuration_numbers_keep_their_kind() -> None:
    sim = parse_simulation(SIM_HEADER + "\n" + TINY_ROWS[1] + "\n" + TINY_SUMMARY + "X = 1e3\nY = -2\n", "sim.csv")
    assert sim.parameters["CPUFREQ_MHZ"] == 1000 and isinstance(sim.parameters["CPUFREQ_MHZ"], int)
    assert sim.parameters["X"] == 1000.0 and isinstance(sim.parameters["X"], float) and sim.parameters["Y"] == -2
    assert parse_simulation_name("tempDir_a_tidl_net_FRQ" + "9" * 5000 + "_" + "9" * 5000 + "x1.csv") == ("a", {})
