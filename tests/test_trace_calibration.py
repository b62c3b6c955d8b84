"""TIDL's calibration dumps (tidl_io.trace.calibration), on the real EAST 9.0 artifacts and on
folders this test builds."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io.trace.calibration import load_calibration

from conftest import EAST


def test_east_frames_and_the_specs_fact(realdata: Path) -> None:
    calib = tidl_io.load_calibration(realdata / EAST)
    assert calib.subgraph == "625" and len(calib.inputs) == len(calib.outputs) == 3
    raw = np.fromfile(realdata / EAST / "tempDir" / "625_calib_raw_data.bin", "<f4")
    out = np.fromfile(realdata / EAST / "tempDir" / "625_tidl_io__stats_tool_out.bin", "<f4")
    frame_in, frame_out = (4 + 1) * 176 * 320, 5 * 176 * 320  # netLog: 1x4x176x320 + 1x1x176x320 -> 1x5x176x320
    for k in range(3):
        i0, i1 = calib.inputs[k]["onnx::Concat_616"], calib.inputs[k]["onnx::Concat_624"]
        o = calib.outputs[k]["625"]
        assert i0.shape == (1, 4, 176, 320) and i1.shape == (1, 1, 176, 320) and o.shape == (1, 5, 176, 320)
        # frames are the files' bytes in order: inputs one after the other, dense NCHW
        assert np.array_equal(i0.reshape(-1), raw[k * frame_in: k * frame_in + 4 * 176 * 320])
        assert np.array_equal(i1.reshape(-1), raw[k * frame_in + 4 * 176 * 320: (k + 1) * frame_in])
        assert np.array_equal(o.reshape(-1), out[k * frame_out: (k + 1) * frame_out])
        # the spec's independent fact: TIDL's rounding at tensorScale 0.5, and channel 4 gone
        assert np.array_equal(o[:, :4], np.clip(np.round(i0 * 0.5), -128, 127) / 0.5)
        assert not o[:, 4].any() and i1.min() < -0.5 and i1.max() > 0.7


def _copy(realdata: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "art"
    shutil.copytree(realdata / EAST, dest)
    for p in dest.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    return dest


def test_bad_sizes_and_missing_dumps(realdata: Path, tmp_path: Path) -> None:
    art = _copy(realdata, tmp_path)
    out = art / "tempDir" / "625_tidl_io__stats_tool_out.bin"
    data = out.read_bytes()
    out.write_bytes(data[:-4])
    with pytest.raises(tidl_io.FormatError, match=r"625_tidl_io__stats_tool_out.bin: 3379196 bytes is not a whole "
                                                  r"number of frames .*1126400 bytes per frame"):
        load_calibration(art)
    out.write_bytes(data[: 2 * 1126400])
    with pytest.raises(tidl_io.FormatError, match="2 output frame.*holds 3 input frame"):
        load_calibration(art)
    out.unlink()
    # the folder's only subgraph: the message names the file that is missing
    with pytest.raises(tidl_io.PathNotFoundError, match="no calibration dump 625_tidl_io__stats_tool_out.bin beside"):
        load_calibration(art)
    (art / "tempDir" / "625_calib_raw_data.bin").unlink()
    with pytest.raises(tidl_io.PathNotFoundError, match="no calibration dump 625_calib_raw_data.bin nor "
                                                        "625_tidl_io__stats_tool_out.bin beside 625_tidl_io_1.bin"):
        load_calibration(art)
    with pytest.raises(tidl_io.PathNotFoundError, match="no calibration dump 625_calib_raw_data.bin nor"):
        load_calibration(art, "625")
    with pytest.raises(tidl_io.PathNotFoundError, match="no subgraph '7'"):
        load_calibration(art, "7")


@pytest.mark.parametrize("name", ["a" * 300, "/".join(["b" * 200] * 25)])
def test_unusable_path_is_a_path_error(tmp_path: Path, name: str) -> None:
    with pytest.raises(tidl_io.PathError, match="cannot look at it"):
        load_calibration(tmp_path / name)


def test_repr_is_short(realdata: Path) -> None:
    """Calibration printed its io descriptor and array dumps (~25 KB on EAST)."""
    text = repr(tidl_io.load_calibration(realdata / EAST))
    assert len(text) <= 300 and text.startswith("Calibration(") and "tempDir" in text
    for part in ("subgraph='625'", "frames=3", "inputs=('onnx::Concat_616', 'onnx::Concat_624')", "outputs=('625',)"):
        assert part in text
