"""tidl_io.perf.bufinfo against TI's real bufinfologs (9.0 ``bufinfolog.csv``, 10.0
``bufinfolog_0.csv``) read literally here with the csv module, and a hand-written fixture."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tidl_io import FormatError
from tidl_io.perf.bufinfo import Buffer, parse_bufinfolog

from conftest import REALDATA
from perf_fixtures import BUF_HEADER, TINY_BUF

NET = REALDATA / "net"
REAL = [NET / "edgeai-tidl-east-9.0/tempDir/625_tidl_net/bufinfolog.csv",
        NET / "edgeai-tidl-fcnn-cnn5-9.0/tempDir/_cnn_cnn.5_relu_Relu_output_0_tidl_net/bufinfolog.csv",
        NET / "real-time-llve-zero-dce-10.0/artifacts/tempDir/74_tidl_net/bufinfolog_0.csv",
        NET / "od-8220-yolox-10.0/artifacts/tempDir/subgraph_0_tidl_net/bufinfolog_0.csv"]
PARTS = ("memSpace", "accessor", "pitch", "width", "height", "size", "accessOffset", "baseAddress")


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.parts[-4] if "artifacts" not in p.parts else p.parts[-5])
def test_real_logs_equal_the_csv(path: Path) -> None:
    if not path.is_file():
        pytest.skip("../shared/realdata not present")
    log = parse_bufinfolog(path.read_text(), str(path))
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    head = [h.strip() for h in rows[0]]
    body = [[c.strip() for c in r] for r in rows[1:] if r]
    assert len(log.layers) == len(body) and len(body) > 5
    groups = [h[: -len("-memSpace")] for h in head if h.endswith("-memSpace")]
    assert log.groups == tuple(groups) == ("In-Read", "In-Write", "Out-Read", "Out-Write", "Wt-Read", "Wt-Write",
                                           "Wt-Oneshot")
    for lay, row in zip(log.layers, body):
        cell = dict(zip(head, row))
        assert lay.index == int(cell["Layer"]) and lay.type == cell["Type"]
        for g in groups:
            b = lay.buffers[g]
            texts = [cell[f"{g}-{p}"] for p in PARTS]
            if not any(texts):
                assert b is None
                continue
            assert b == Buffer(texts[0], texts[1], *(int(t) for t in texts[2:7]), int(texts[7], 16))
        assert lay.values["dataflowType"] == cell["dataflowType"]
        assert lay.memory()["out"] == tuple(cell[f"Out-{s}-memSpace"] or None for s in ("Read", "Write"))


def test_fixture() -> None:
    log = parse_bufinfolog(TINY_BUF, "bufinfolog_0.csv")
    assert [(lay.index, lay.type) for lay in log.layers] == [(0, "TIDL_DataLayer"), (1, "TIDL_ConvolutionLayer"),
                                                             (2, "TIDL_ConvolutionLayer"), (3, "TIDL_DataLayer")]
    conv = log.layers[1]
    assert conv.buffers["In-Read"] is None and conv.buffers["Wt-Read"] is None and conv.buffers["Wt-Oneshot"] is None
    assert conv.buffers["In-Write"] == Buffer("L2", "DMA", 1088, 1056, 3, 3328, 0, 0)
    assert conv.buffers["Out-Read"] == Buffer("MSMC", "CPU", 1088, 1024, 16, 17408, 0, 0x1A00)
    assert conv.buffers["Out-Write"] == Buffer("DDR", "DMA", 1088, 1024, 16, 17408, 64, 0x4C000)
    assert conv.buffers["Wt-Write"] == Buffer("MSMC", "DMA", 48, 27, 16, 768, 0, 0x200)
    assert conv.memory() == {"in": (None, "L2"), "out": ("MSMC", "DDR"), "weights": (None, "MSMC")}
    assert log.layers[2].memory()["out"] == (None, "MSMC")
    assert log.layers[0].buffers["Wt-Write"] == Buffer("MSMC", "CPU", 0, 0, 0, 0, 0, 0xFFFFFFFF)
    assert conv.values["Ni"] == "3" and conv.values["kernelFreq"] == "4"


ROW1 = TINY_BUF.splitlines()[2]


@pytest.mark.parametrize(("text", "where", "what"), [
    ("", "line 1", "empty"),
    ("Layer, Kind, Ni\n", "line 1", "bufinfolog header"),
    ("Layer, Type, Ni\n", "line 1", "no '...-memSpace'"),
    (BUF_HEADER.replace("In-Write-pitch", "In-Write-stride") + "\n", "line 1 (In-Write-memSpace)", "In-Write-pitch"),
    (BUF_HEADER + "\n" + ROW1[:60] + "\n", "line 2", "found 11"),
    (BUF_HEADER + "\n" + ROW1[:60], "line 2", "no line end"),
    (BUF_HEADER + "\n" + ROW1.replace("17408, 64, 4c000", "17408, 64, 4g000") + "\n",
     f"line 2, column {ROW1.index('4c000') + 1} (Out-Write-baseAddress)", "hexadecimal"),
    (BUF_HEADER + "\n" + ROW1.replace(" 1088, 1056,", " 1088, x,") + "\n",
     f"line 2, column {ROW1.index('1056') + 1} (In-Write-width)", "'x'"),
    (BUF_HEADER + "\n" + ROW1 + "\n" + ROW1 + "\n", "line 3, column 1 (Layer)", "first on line 2"),
])
def test_located_errors(text: str, where: str, what: str) -> None:
    with pytest.raises(FormatError) as info:
        parse_bufinfolog(text, "bufinfolog.csv")
    message = str(info.value)
    assert message.startswith("bufinfolog.csv, ") and where in message and what in message, message
