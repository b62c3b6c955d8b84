"""tidl_io.emulator.dumps: where TI's calibration dumps are, and what bias recovery reads from them (the
frames and means are compared with the files read literally by NumPy)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io.emulator.dumps import find_dump, recovery_data, subgraph_of_net

from conftest import REALDATA

FCNN = REALDATA / "net" / "edgeai-tidl-fcnn-cnn5-9.0"
SG = "_cnn_cnn.5_relu_Relu_output_0"


def test_subgraph_and_dump_places(tmp_path: Path) -> None:
    assert subgraph_of_net(Path("a/625_tidl_net.bin")) == "625"
    with pytest.raises(tidl_io.PathNotFoundError, match="not named <subgraph>_tidl_net.bin"):
        subgraph_of_net(Path("a/_tidl_net.bin"))
    (tmp_path / "tempDir").mkdir()
    assert find_dump(tmp_path, "d.bin") is None
    (tmp_path / "tempDir" / "d.bin").write_bytes(b"")
    assert find_dump(tmp_path, "d.bin") == tmp_path / "tempDir" / "d.bin"
    (tmp_path / "d.bin").write_bytes(b"")
    assert find_dump(tmp_path, "d.bin") == tmp_path / "d.bin"  # beside the io file first


def test_recovery_data_is_tis_frames_and_means() -> None:
    if not FCNN.is_dir():
        pytest.skip("../shared/realdata not present")
    net = tidl_io.load_net(FCNN / f"{SG}_tidl_net.bin")
    frames, means, ins, means_file = recovery_data(net)
    (x,) = frames.values()
    assert np.array_equal(x, np.fromfile(ins, "<f4").reshape(3, 1, 32, 100))
    raw = np.fromfile(means_file, "<f4")
    flat = np.concatenate([means[k] for k in sorted(means)])
    assert flat.size == 1153 and np.array_equal(flat, raw[:flat.size])
