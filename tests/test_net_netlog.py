"""tidl_io.net.netlog (the one netLog reader) against every real netLog (8.2 to 10.0) read
literally here with str.split, and a hand-written fixture; hostile text -> located FormatError."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from tidl_io import FormatError, PathError
from tidl_io.net.netlog import load_netlog, parse_netlog

from conftest import REALDATA
from perf_fixtures import TINY_NETLOG

NET = REALDATA / "net"
REAL = [NET / "bbai64-deeplabv3-mnv2-8.2/201_tidl_net.bin_netLog.txt",
        NET / "edgeai-tidl-east-9.0/tempDir/625_tidl_net.bin_netLog.txt",
        NET / "edgeai-tidl-fcnn-cnn5-9.0/tempDir/_cnn_cnn.5_relu_Relu_output_0_tidl_net.bin_netLog.txt",
        NET / "real-time-llve-zero-dce-10.0/artifacts/tempDir/74_tidl_net.bin_netLog.txt",
        NET / "od-8220-yolox-10.0/artifacts/tempDir/subgraph_0_tidl_net.bin_netLog.txt"]


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_real_netlogs(path: Path) -> None:
    if not path.is_file():
        pytest.skip("../shared/realdata not present")
    text = path.read_text()
    log = parse_netlog(text, str(path))
    rows = [line.split("|") for line in text.splitlines() if line.count("|") >= 11 and line.split("|")[0].strip().isdigit()]
    declared = int(text.splitlines()[0].split(":")[1])
    assert len(log.layers) == len(rows) == declared
    for lay, r in zip(log.layers, rows):
        assert (lay.index, lay.type, lay.name) == (int(r[0]), r[1].strip(), r[2].strip())
        assert (lay.num_in, lay.num_out, lay.data_id) == (int(r[4]), int(r[5]), int(r[7]))
        assert lay.shape == tuple(int(v) for v in r[9].split()) and lay.macs == int(r[10])
    total = next(line for line in text.splitlines() if line.startswith("Total Giga Macs"))
    assert log.total_gmacs == Decimal(total.split(":")[1].strip())


def test_od8220_total() -> None:
    path = REAL[-1]
    if not path.is_file():
        pytest.skip("../shared/realdata not present")
    log = parse_netlog(path.read_text(), str(path))
    assert log.total_gmacs == Decimal("13.3203") and len(log.layers) == 122
    assert (log.layers[120].name, log.layers[120].num_out) == ("dets", -1)


def test_fixture() -> None:
    log = parse_netlog(TINY_NETLOG, "netLog.txt")
    assert [(g.index, g.name, g.macs) for g in log.layers] == [(0, "image", 0), (1, "conv1", 442368),
                                                               (2, "conv2", 2359296), (3, "conv2", 0)]
    assert log.layers[1].shape == (1, 16, 32, 32) and log.layers[3].num_out == -1
    assert log.total_gmacs == Decimal("0.0028")


def test_a_name_holding_a_bar() -> None:
    text = TINY_NETLOG.replace("|conv1                                             |", "|con|v1|")
    assert parse_netlog(text, "netLog.txt").layers[1].name == "con|v1"


LINES = TINY_NETLOG.splitlines(keepends=True)


@pytest.mark.parametrize(("text", "where", "what"), [
    ("", "line 1", "empty"),
    ("hello\n", "line 1", "no 'Num|"),
    ("".join(LINES[:5]) + LINES[5][:100] + "\n", "line 6", "'|'-separated"),
    ("".join(LINES[:5]) + LINES[5][:100], "line 6", "no line end"),
    ("".join(LINES[:5]) + LINES[5].replace("442368", "44a368"), (f"line 6, column {LINES[5].index('442368') + 1} "
     "(MACS)"), "'44a368'"),
    ("".join(LINES[:6]), "line 6", "'Num of Layer Detected : 4' but 2"),
    ("".join(LINES[:6]) + LINES[5], "line 7, column 1 (Num)", "first on line 6"),
    ("".join(LINES[:-3]) + "Total Giga Macs : x\n", "line 9, column 19 (Total Giga Macs)", "'x'"),
    (LINES[0].replace(":   4", ":  -4") + "".join(LINES[1:]), f"line 1, column {LINES[0].index(':') + 4} (Num of Layer Detected)", ">= 0"),
])
def test_located_errors(text: str, where: str, what: str) -> None:
    with pytest.raises(FormatError) as info:
        parse_netlog(text, "netLog.txt")
    message = str(info.value)
    assert message.startswith("netLog.txt, ") and where in message and what in message, message


def test_load_netlog_reads_the_file(tmp_path: Path) -> None:
    path = tmp_path / "m_tidl_net.bin_netLog.txt"
    path.write_text(TINY_NETLOG)
    log = load_netlog(path)
    assert log.source == str(path) and [g.name for g in log.layers] == ["image", "conv1", "conv2", "conv2"]
    assert [g.data_id for g in log.layers] == [0, 1, 2, 0] and log.layers[2].type == "TIDL_ConvolutionLayer"


@pytest.mark.parametrize(("data", "where"), [
    (TINY_NETLOG.encode().replace(b"conv1 ", b"conv\xff "), "line 6"),  # not UTF-8: located, never a guess
    (TINY_NETLOG.encode()[:-30], "no line end"),  # a file cut mid-line
    (b"\x00" * 64 + b"\n", "no 'Num|"),
], ids=["not-utf8", "cut", "zeros"])
def test_load_netlog_hostile_files_are_located(tmp_path: Path, data: bytes, where: str) -> None:
    path = tmp_path / "x_netLog.txt"
    path.write_bytes(data)
    with pytest.raises(FormatError, match=str(path).replace("\\", "\\\\")) as info:
        load_netlog(path)
    assert where in str(info.value), info.value


def test_load_netlog_path_errors(tmp_path: Path) -> None:
    with pytest.raises(PathError):
        load_netlog(tmp_path / "absent_netLog.txt")
    with pytest.raises(PathError):
        load_netlog(tmp_path)


@pytest.mark.parametrize("total", ["1e999999999", "9" * 5000, "-1E+400"])
def test_hostile_total_is_a_located_error(total: str) -> None:
    text = TINY_NETLOG.replace("Total Giga Macs : ", "Total Giga Macs : " + total + " #", 1)
    text = "\n".join(line.split(" #")[0] for line in text.split("\n"))
    with pytest.raises(FormatError, match=r"line \d+, column \d+ \(Total Giga Macs\): expected a") as info:
        parse_netlog(text, "n.txt")
    assert len(str(info.value)) < 300
