"""tidl_io.net.layerinfo (the one layer_info.txt reader) against every real layer_info.txt
(8.2 to 10.0) read literally here with str.split, hand-made texts whose records are written
here, and hostile text -> a FormatError located at file and line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tidl_io import FormatError, PathError
from tidl_io.net.layerinfo import LayerInfoLine, parse_layer_info, read_layer_info

from conftest import REALDATA

NET = REALDATA / "net"
REAL = [NET / "bbai64-deeplabv3-mnv2-8.2/201_tidl_net.bin.layer_info.txt",
        NET / "edgeai-tidl-east-9.0/tempDir/625_tidl_net.bin.layer_info.txt",
        NET / "edgeai-tidl-fcnn-cnn5-9.0/tempDir/_cnn_cnn.5_relu_Relu_output_0_tidl_net.bin.layer_info.txt",
        NET / "real-time-llve-zero-dce-10.0/artifacts/tempDir/74_tidl_net.bin.layer_info.txt",
        NET / "od-8220-yolox-10.0/artifacts/tempDir/subgraph_0_tidl_net.bin.layer_info.txt"]


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.parent.parent.name if p.parent.name == "tempDir" else p.parent.name)
def test_real_files(path: Path) -> None:
    if not path.is_file():
        pytest.skip("../shared/realdata not present")
    text = path.read_text()
    rows = [line.split(" ", 2) for line in text.split("\n") if line.strip()]
    info = read_layer_info(path)
    assert info.source == str(path) and len(info) == len(rows) > 0
    for rec, r in zip(info, rows):
        assert (rec.index, rec.data_id, rec.name) == (int(r[0]), int(r[1]), r[2].strip())
    assert parse_layer_info(text, str(path)) == info  # the file reader is the text reader
    assert read_layer_info(path, len(rows)) == info  # exactly as many lines as allowed


def test_od8220_outputs() -> None:
    """od-8220's layer_info names its output data layers after buffer 0 ("input"), with dataId 0."""
    path = REAL[-1]
    if not path.is_file():
        pytest.skip("../shared/realdata not present")
    info = read_layer_info(path)
    assert len(info) == 122 and info.lines[0].name == "input"
    assert [(x.index, x.data_id) for x in info.lines[-2:]] == [(120, 0), (121, 0)]


def test_hand_made_text() -> None:
    text = "0 0 image \n1 1 conv 1\r\n\n3 -1 \n2 7 a\u2028b\x85c \n"
    info = parse_layer_info(text, "m.txt")
    assert info.lines == (LayerInfoLine(1, 0, 0, "image"), LayerInfoLine(2, 1, 1, "conv 1"),
                          LayerInfoLine(4, 3, -1, ""), LayerInfoLine(5, 2, 7, "a\u2028b\x85c"))
    assert info.names == ["image", "conv 1", "", "a\u2028b\x85c"]
    assert {k: v.name for k, v in info.by_index().items()} == {0: "image", 1: "conv 1", 3: "", 2: "a\u2028b\x85c"}
    assert parse_layer_info("", "e.txt").lines == ()


@pytest.mark.parametrize(("text", "where", "what"), [
    ("0 0 a\n\n\u00b2 1 b\n", "line 3", "expected 'layerId dataId name'"),  # "²".isdigit() is True
    ("9" * 4300 + " 0 x\n", "line 1", "expected 'layerId dataId name'"),  # past int()'s 4300-digit limit
    ("0 0 a\n-1 3 c\n", "line 2", "expected 'layerId dataId name'"),  # no layer has a negative number
    ("0 0 a\n0 0 b\n", "line 2", "layer 0 is named a second time (first on line 1)"),
    ("0 0 a\n65536 1 b\n", "line 2", "layerId 65536 is past any net"),
    ("0\t0\ta\n", "line 1", "expected"),
    ("0 0 a\n1 1 b\n2 2 c\n", "line 3", "more lines than the net's 2 layers"),
])
def test_hostile_text_is_located(text: str, where: str, what: str) -> None:
    with pytest.raises(FormatError) as info:
        parse_layer_info(text, "info.txt", max_lines=2 if "more lines" in what else None)
    message = str(info.value)
    assert message.startswith(f"info.txt, {where}: ") and what in message, message


def test_read_is_bounded_and_located(tmp_path: Path) -> None:
    path = tmp_path / "m_tidl_net.bin.layer_info.txt"
    path.write_text("0 0 a\n" + "x" * 9000 + "\n")
    with pytest.raises(FormatError, match=re.escape(f"{path}, line 2: longer than 8192 bytes")):
        read_layer_info(path)
    with open(path, "w") as fh:  # 70 000 lines: the reader stops one past the limit
        fh.write("".join(f"{i} {i} n{i}\n" for i in range(70_000)))
    with pytest.raises(FormatError, match=re.escape(f"{path}, line 4: more lines than the net's 3 layers")):
        read_layer_info(path, 3)
    with pytest.raises(FormatError, match=re.escape(f"{path}, line 65537: more lines than 65536 layers")):
        read_layer_info(path)
    path.write_bytes(b"0 0 a\n1 1 b\xff\n")
    with pytest.raises(FormatError, match=re.escape(f"{path}, offset 0xb, line 2: byte 0xff is not UTF-8")):
        read_layer_info(path)


def test_path_errors(tmp_path: Path) -> None:
    with pytest.raises(PathError):
        read_layer_info(tmp_path / "absent.layer_info.txt")
    with pytest.raises(PathError):
        read_layer_info(tmp_path)
