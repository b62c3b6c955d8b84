"""tidl_io.check_emulation: the emulator against TI's own run (stats_tool_out, LayerPerChannelMean.bin) on
the real 9.0 folders. The expected facts are TI's (the spec's counts and the channels TI's file says differ),
and mutating TI's files moves the report exactly where the mutation is."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io.trace.emucheck import EmulationCheck

from conftest import EAST

FCNN = "net/edgeai-tidl-fcnn-cnn5-9.0"
FCNN_SG = "_cnn_cnn.5_relu_Relu_output_0"


def _copy(realdata: Path, tmp_path: Path, folder: str = EAST) -> Path:
    dest = tmp_path / "art"
    shutil.copytree(realdata / folder, dest)
    for p in dest.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    return dest


def test_east_every_layer_and_output_equal(realdata: Path) -> None:
    report = tidl_io.check_emulation(realdata / EAST)
    assert isinstance(report, EmulationCheck) and report.ok and report.frames == 3
    # the spec: 15 channels of the 4 non-data layers (netLog: two DataConverts 4 and 1, the concat 5, the output 5)
    assert [(la.index, la.channels, la.equal) for la in report.layers] == [(2, 4, 4), (3, 1, 1), (4, 5, 5), (5, 5, 5)]
    (out,) = report.outputs
    assert (out.name, out.values, out.equal) == ("625", 3 * 5 * 176 * 320, 3 * 5 * 176 * 320)
    assert report.files == {k: str(realdata / EAST / "tempDir" / f"625{s}") for k, s in (
        ("calib_raw_data", "_calib_raw_data.bin"), ("stats_tool_out", "_tidl_io__stats_tool_out.bin"),
        ("LayerPerChannelMean", "_tidl_io__LayerPerChannelMean.bin"))}
    assert report.to_text().startswith("OK: ") and "4 of 4 layers" in report.to_text()
    json.dumps(report.to_dict(), allow_nan=False)
    assert tidl_io.check_emulation(realdata / EAST, subgraph="625").ok
    assert tidl_io.check_emulation(realdata / EAST, subgraph=1).ok  # TIDL's number in onnxrtMetaData.txt


def test_fcnn_first_convolution_differs_in_channels_6_7_53(realdata: Path) -> None:
    report = tidl_io.check_emulation(realdata / FCNN)
    assert not report.ok
    # the spec's count: 1 153 values = 1 + 64 + 64 + 128 + 128 + 256 + 256 + 256
    assert [la.channels for la in report.layers] == [1, 64, 64, 128, 128, 256, 256, 256]
    data_convert, conv = report.layers[:2]
    assert data_convert.ok and conv.index == 2 and conv.type == "TIDL_ConvolutionLayer"
    assert conv.differing == (6, 7, 53) and conv.equal == 61 and conv.worst in (6, 7, 53)
    raw = np.fromfile(realdata / FCNN / "tempDir" / f"{FCNN_SG}_tidl_io__LayerPerChannelMean.bin", "<f4")
    assert conv.ti == raw[1 + conv.worst]  # TI's value, read from TI's file
    assert conv.mine is not None and conv.difference == pytest.approx(abs(conv.mine - conv.ti))
    assert report.layers[2].differing == (6, 7, 53)  # the max pool after it: the same channels
    assert not report.outputs[0].ok and report.outputs[0].values == 153600
    text = report.to_text()
    assert text.startswith("DIFFERS: ") and "1 of 8 layers" in text


def test_mutated_ti_files_move_the_report(realdata: Path, tmp_path: Path) -> None:
    art = _copy(realdata, tmp_path)
    means = art / "tempDir" / "625_tidl_io__LayerPerChannelMean.bin"
    values = np.fromfile(means, "<f4")
    values[5 + 2] *= np.float32(1.0001)  # the concat (entries 5..9), channel 2, by 1e-4
    values.tofile(means)
    out = art / "tempDir" / "625_tidl_io__stats_tool_out.bin"
    frames = np.fromfile(out, "<f4")
    frames[1000] += np.float32(2.0)
    frames.tofile(out)
    report = tidl_io.check_emulation(art)
    assert not report.ok
    assert [la.differing for la in report.layers] == [(), (), (2,), ()]
    assert report.layers[2].worst == 2 and report.layers[2].ti == values[7]
    assert report.outputs[0].equal == report.outputs[0].values - 1 and report.outputs[0].max_difference == 2.0


def test_without_means_file_outputs_only(realdata: Path, tmp_path: Path) -> None:
    art = _copy(realdata, tmp_path)
    (art / "tempDir" / "625_tidl_io__LayerPerChannelMean.bin").unlink()
    report = tidl_io.check_emulation(art)
    assert report.ok and report.layers == () and report.files["LayerPerChannelMean"] is None
    assert "not there" in report.to_text() and "no means file" in report.to_text()


def test_could_not(realdata: Path, tmp_path: Path) -> None:
    art = _copy(realdata, tmp_path)
    (art / "tempDir" / "625_tidl_io__stats_tool_out.bin").unlink()
    with pytest.raises(tidl_io.PathNotFoundError, match="no calibration dump 625_tidl_io__stats_tool_out.bin"):
        tidl_io.check_emulation(art)
    with pytest.raises(tidl_io.OptionError, match="no subgraph '7'"):
        tidl_io.check_emulation(art, subgraph=7)
    with pytest.raises(tidl_io.ArgumentTypeError, match="subgraph"):
        tidl_io.check_emulation(art, subgraph=1.5)  # type: ignore[arg-type]
    art2 = _copy(realdata, tmp_path / "b")
    (art2 / "625_tidl_net.bin").unlink()
    with pytest.raises(tidl_io.PathNotFoundError, match="no \\*_tidl_net.bin beside"):
        tidl_io.check_emulation(art2)


def test_fcnn_with_recovered_biases_equals_ti_everywhere(realdata: Path) -> None:
    """The issue's 'done when': with the biases of TI's last stats run recovered from its means, all 153 600 output
    values equal stats_tool_out and all 1 153 channel means equal TI's file."""
    net = tidl_io.load_net(realdata / FCNN / f"{FCNN_SG}_tidl_net.bin")
    assert net.header["calibrationOption"] & 4  # bias calibration was on
    report = tidl_io.check_emulation(realdata / FCNN)
    r = report.recovered
    assert r is not None and r.ok
    assert [(o.values, o.equal) for o in r.outputs] == [(153600, 153600)]
    assert sum(la.channels for la in r.layers) == 1153 and all(la.equal == la.channels for la in r.layers)
    assert r.moved[2] == ((6, 1), (7, 1), (53, 1))  # the channels TI's file says differ, one code up
    assert not any(r.unresolved.values())
    assert "153600 of 153600 values equal" in report.to_text()
    json.dumps(report.to_dict(), allow_nan=False)
