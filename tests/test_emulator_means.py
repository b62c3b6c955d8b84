"""TIDL's LayerPerChannelMean.bin (tidl_io.emulator.means): its mapping onto the net's layers on the
real 9.0 folders (offsets from the netLog's channel counts, entries read with np.fromfile),
located errors on mutated files, and TI's mean formula against a literal loop."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io.emulator.means import channel_means, load_means, parse_means
from tidl_io.net import load_net

from conftest import EAST

FCNN = "net/edgeai-tidl-fcnn-cnn5-9.0"
FCNN_SG = "_cnn_cnn.5_relu_Relu_output_0"
# the netLog's output channels of every layer but the data layers, in net order (layer index, channels)
FCNN_CHANNELS = ((1, 1), (2, 64), (3, 64), (4, 128), (5, 128), (6, 256), (7, 256), (8, 256))
EAST_CHANNELS = ((2, 4), (3, 1), (4, 5), (5, 5))


def _means_file(realdata: Path, folder: str) -> Path:
    return next((realdata / folder / "tempDir").glob("*_LayerPerChannelMean.bin"))


@pytest.mark.parametrize("folder, channels", [(FCNN, FCNN_CHANNELS), (EAST, EAST_CHANNELS)])
def test_real_files_map_by_offset(realdata: Path, folder: str, channels: tuple[tuple[int, int], ...]) -> None:
    calib = tidl_io.load_calibration(realdata / folder)
    means = calib.means
    assert means is not None and means.by_offset and "in net order" in means.note
    raw = np.fromfile(_means_file(realdata, folder), "<f4")
    assert raw.size == sum(c for _, c in channels)  # 1153 and 15, the spec's counts
    start = 0
    for index, c in channels:
        assert np.array_equal(means.of(index), raw[start:start + c])
        start += c
    assert means.of(0) is None  # the input data layer has none
    with pytest.raises(ValueError):
        means.values[0] = 1  # read-only


def _copy(realdata: Path, tmp_path: Path, folder: str = EAST) -> Path:
    dest = tmp_path / "art"
    shutil.copytree(realdata / folder, dest)
    for p in dest.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    return dest


def test_no_means_file_is_none(realdata: Path, tmp_path: Path) -> None:
    art = _copy(realdata, tmp_path)
    (art / "tempDir" / "625_tidl_io__LayerPerChannelMean.bin").unlink()
    calib = tidl_io.load_calibration(art)
    assert calib.means_file is None and calib.means is None


def test_mutated_files_give_located_errors(realdata: Path) -> None:
    net = load_net(realdata / FCNN / f"{FCNN_SG}_tidl_net.bin")
    data = _means_file(realdata, FCNN).read_bytes()
    with pytest.raises(tidl_io.FormatError, match=r"m.bin, offset 0x1200: 4611 bytes is not a whole number of float32 entries.*"
                                                  r"1153 channels: 4612 bytes"):
        parse_means(data[:-1], "m.bin", net)
    # cut inside the last convolution: layer 7 starts at entry 1 + 64 + 64 + 128 + 128 + 256 = 641
    with pytest.raises(tidl_io.FormatError, match=r"ends inside layer 7 \(TIDL_ConvolutionLayer .*start at entry 641"):
        parse_means(data[:4 * 700], "m.bin", net)
    bad = bytearray(data)
    bad[4 * 70:4 * 71] = np.float32(np.nan).tobytes()  # layer 3 (the pool) starts at 65: channel 5
    with pytest.raises(tidl_io.FormatError, match=r"offset 0x118.*entry 70 \(layer 3, channel 5\) is nan"):
        parse_means(bytes(bad), "m.bin", net)
    with pytest.raises(tidl_io.FormatError, match="far more than the 4612 bytes"):
        parse_means(bytes(4612 * 16 + (1 << 16) + 4), "m.bin", net)


def test_a_larger_file_is_located_by_content(realdata: Path) -> None:
    net = load_net(realdata / FCNN / f"{FCNN_SG}_tidl_net.bin")
    raw = np.fromfile(_means_file(realdata, FCNN), "<f4")
    extra = np.concatenate([raw[:65], np.full(7, 1000.0, np.float32), raw[65:]])  # 7 entries more after layer 2
    means = parse_means(extra.tobytes(), "m.bin", net)
    assert not means.by_offset and means.of(3) is None and "located by content" in means.note
    assert means.locate(raw[65:129], 65) == 72  # layer 3's 64 channels, moved by 7
    assert means.locate(raw[1:65]) == 1
    assert means.locate(np.full(3, -5.0, np.float32)) is None


def test_load_means_refuses_a_folder(realdata: Path, tmp_path: Path) -> None:
    net = load_net(realdata / FCNN / f"{FCNN_SG}_tidl_net.bin")
    with pytest.raises(tidl_io.PathError):
        load_means(tmp_path, net)
    art = _copy(realdata, tmp_path, FCNN)
    (art / f"{FCNN_SG}_tidl_net.bin").unlink()
    calib = tidl_io.load_calibration(art)
    with pytest.raises(tidl_io.PathNotFoundError, match="the net is needed to map"):
        _ = calib.means


def test_channel_means_against_a_literal_loop() -> None:
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 256, (3, 4, 5, 7)).astype(np.uint8)
    scale, zp = 9.80674, 3
    want = []
    for c in range(4):
        m = 0.0
        for n in range(3):
            total = 0.0
            for v in codes[n, c].ravel():
                total += float(v)
            cur = (total / 35 - zp) / scale
            m = m * (1 - 1 / (n + 1)) + cur / (n + 1)
        want.append(m)
    got = channel_means(codes, scale, zp)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-6)
    values = rng.normal(size=(2, 3, 4, 4)).astype(np.float32)  # a float32 layer: its values, no scale
    np.testing.assert_allclose(channel_means(values, 7.0), values.mean(axis=(0, 2, 3)), rtol=1e-5, atol=1e-7)


def test_a_file_far_too_large_is_refused_from_its_size(realdata: Path, tmp_path: Path) -> None:
    """The second probe of issue 32: a 400 MB means file said '66497 bytes is not a whole number of float32
    entries' (the part read), not what the file is."""
    net = load_net(realdata / EAST / "625_tidl_net.bin")
    big = tmp_path / "625_tidl_io__LayerPerChannelMean.bin"
    with open(big, "wb") as fh:
        fh.truncate(400_000_000)
    with pytest.raises(tidl_io.FormatError, match=r"400000000 bytes; the net's \d+ layers' means are \d+ bytes"):
        load_means(big, net)
