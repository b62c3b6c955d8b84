"""Reading trace folders against the real 10.0 net (tidl_io.trace.load): codes written by this
test, in every naming and layout, read back and dequantized; bad folders are refused or listed."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io.trace.load import load_traces

from conftest import ZERO_DCE

# layers of the 10.0 net used here (netLog: all 1x3x400x600): dataId -> (element type, tensorScale)
#   0 float32 input, 1 int8 x128, 2 int8 x1024 (channel pitch 240064: 64 elements of slack)


@pytest.fixture(scope="module")
def net(realdata: Path) -> tidl_io.Network:
    return tidl_io.load_net(realdata / ZERO_DCE / "artifacts" / "74_tidl_net.bin")


def _name(data_id: int, c: int = 3, h: int = 400, w: int = 600, kind: str = ".y", sg: int = 0) -> str:
    return f"tidl_trace_subgraph_{sg}_{data_id:04d}_0001_0001_00001_{c:05d}_{w:06d}x{h:05d}{kind}"


def _codes(layer: tidl_io.Layer, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n, c, h, w = layer.shape
    if layer.dtype.kind == "f":
        return rng.normal(size=(n, c, h, w)).astype(layer.dtype)
    info = np.iinfo(layer.dtype)
    return rng.integers(info.min, info.max + 1, size=(n, c, h, w)).astype(layer.dtype)


def _real(layer: tidl_io.Layer, codes: np.ndarray) -> np.ndarray:
    """TIDL's rule, real = (q - zero_point) / scale, in float32 as TI's float traces hold it."""
    if codes.dtype.kind == "f":
        return codes.astype(np.float32)
    return (codes.astype(np.float32) - np.float32(layer.zero_point)) / np.float32(layer.scale)


def _padded(layer: tidl_io.Layer, codes: np.ndarray, whole: bool) -> np.ndarray:
    """The padded buffer written element by element from the net's stored pitches
    (pitch[] = ROI, DIM1, DIM2, channel, line): an independent layout oracle."""
    roi, _, _, ch, line = layer.pitches
    n, c, h, w = codes.shape
    size = n * roi if whole else (n - 1) * roi + (c - 1) * ch + (h - 1) * line + w
    buf = np.full(size, 0x55, dtype=codes.dtype)
    for b in range(n):
        for k in range(c):
            for y in range(h):
                start = b * roi + k * ch + y * line
                buf[start:start + w] = codes[b, k, y]
    return buf


def test_dense_codes_float_and_values(net: tidl_io.Network, tmp_path: Path) -> None:
    want = {}
    for d in (0, 1, 2):
        layer = net.layer_by_data_id(d)
        q = _codes(layer, d)
        # dataId 0 is the NHWC float input (its convert says layout 1): its dense trace is assumed
        # in the buffer's own order, (N, H, W, C), and read back as NCHW
        (q.transpose(0, 2, 3, 1) if d == 0 else q).tofile(tmp_path / _name(d))
        want[d] = (q, _real(layer, q))
    (tmp_path / "perf.csv").write_text("layer,cycles\n")
    traces = tidl_io.load_traces(tmp_path, net)
    assert list(traces) == [0, 1, 2] and len(traces) == 3 and traces.ignored == ("perf.csv",)
    assert not traces.problems
    for d, (q, real) in want.items():
        got = traces[d]
        assert got.dtype == np.float32 and got.shape == (1, 3, 400, 600)
        assert np.array_equal(got, real)
        assert np.array_equal(traces.codes(d), q) and traces.entry(d).layout == "dense"


def test_nhwc_input_trace_dense_and_padded(net: tidl_io.Network, tmp_path: Path) -> None:
    """The NHWC input (dataId 0): a dense trace in (N, H, W, C) order, and one written row by row
    from TI's bufinfolog row pitch (7200 bytes = 1800 floats; pixel w, channel c at w * 3 + c),
    both read back as the NCHW array."""
    layer = net.layer_by_data_id(0)
    q = _codes(layer, 11)
    dense = tmp_path / "dense"
    dense.mkdir()
    q.transpose(0, 2, 3, 1).tofile(dense / _name(0))
    assert np.array_equal(load_traces(dense, net)[0], q)
    buf = np.full(1800 * 400, np.nan, np.float32)
    for y in range(400):
        for k in range(3):
            buf[y * 1800 + k:y * 1800 + 1800:3] = q[0, k, y]
    padded = tmp_path / "padded"
    padded.mkdir()
    buf.tofile(padded / _name(0))
    traces = load_traces(padded, net)
    assert np.array_equal(traces[0], q) and traces.entry(0).layout == "dense"  # the buffer is dense


def test_padded_and_legacy_names_read_the_same(net: tidl_io.Network, tmp_path: Path) -> None:
    layer = net.layer_by_data_id(2)
    q = _codes(layer, 5)
    real = _real(layer, q)
    for i, (name, data) in enumerate([
            (_name(2), q),                                               # dense
            (_name(2), _padded(layer, q, whole=False)),                  # padded to the last element
            (_name(2), _padded(layer, q, whole=True)),                   # the whole buffer (N x ROI pitch)
            ("tidl_trace0002_00001_00003_00600x00400.y", q),             # older naming, W x H
            ("tidl_trace0002_00001_00003_00400x00600.y", _padded(layer, q, whole=True)),  # H x W, as TI's example
            ("C7X_1_mytrace_0_0002_0001_0001_00001_00003_000600x00400.y", q),             # core prefix, custom base
            (_name(2, kind="_float.bin"), _padded(layer, real, whole=True)),  # float trace, padded
    ]):
        folder = tmp_path / f"case{i}"
        folder.mkdir()
        data.tofile(folder / name)
        traces = load_traces(folder, net)
        assert np.array_equal(traces[2], real), name
        assert traces.entry(2).layout == ("dense" if data.size == q.size else "padded")
        if "400x00600" in name:
            assert any("height x width" in n for n in traces.notes)


def test_y_and_float_together(net: tidl_io.Network, tmp_path: Path) -> None:
    layer = net.layer_by_data_id(1)
    q = _codes(layer, 9)
    q.tofile(tmp_path / _name(1))
    (_real(layer, q) + 1).tofile(tmp_path / _name(1, kind="_float.bin"))  # differs on purpose
    traces = load_traces(tmp_path, net)
    assert traces.entry(1).kind == "y" and np.array_equal(traces[1], _real(layer, q))
    assert set(traces.files[1]) == {"y", "float"}


def test_bad_files_are_listed_or_raised(net: tidl_io.Network, tmp_path: Path) -> None:
    layer = net.layer_by_data_id(1)
    q = _codes(layer, 1)
    q.reshape(-1)[:-400].tofile(tmp_path / _name(1))              # 400 elements short
    q.tofile(tmp_path / _name(2, c=4))                             # dims in the name: 4 channels
    q.tofile(tmp_path / _name(999))                                # no such dataId
    q.tofile(tmp_path / _name(3))                                  # fine
    traces = load_traces(tmp_path, net)
    assert list(traces) == [3]
    p = traces.problems
    assert set(p) == {_name(1), _name(2, c=4), _name(999)}
    assert "719600 bytes fits layer 1 (dataId 1, TIDL_DataConvertLayer) neither dense nor padded: expected " \
           "720000 (dense) bytes of codes of int8" in p[_name(1)]
    assert "C=4" in p[_name(2, c=4)] and "C=3" in p[_name(2, c=4)] and "disagree with layer 2" in p[_name(2, c=4)]
    assert "dataId 999 is no layer's output" in p[_name(999)]
    with pytest.raises(tidl_io.FormatError, match=r"tidl_trace_subgraph_0_0001_.*719600 bytes"):
        load_traces(tmp_path, net, strict=True)
    with pytest.raises(KeyError):
        traces[1]


def test_empty_and_foreign_folders(net: tidl_io.Network, tmp_path: Path) -> None:
    with pytest.raises(tidl_io.PathNotFoundError, match="no TIDL trace file here"):
        load_traces(tmp_path, net)
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(tidl_io.PathNotFoundError, match="files seen: notes.txt"):
        load_traces(tmp_path, net)
    with pytest.raises(tidl_io.PathNotFoundError, match="expected a folder"):
        load_traces(tmp_path / "notes.txt", net)


def test_several_subgraphs_must_be_picked(net: tidl_io.Network, tmp_path: Path) -> None:
    layer = net.layer_by_data_id(1)
    q = _codes(layer, 2)
    q.tofile(tmp_path / _name(1, sg=0))
    (q // 2).tofile(tmp_path / _name(1, sg=1))
    with pytest.raises(tidl_io.FormatError, match="several runs.*subgraph 0.*subgraph 1"):
        load_traces(tmp_path, net)
    assert np.array_equal(load_traces(tmp_path, net, subgraph=1)[1], _real(layer, q // 2))
    assert np.array_equal(load_traces(tmp_path, net, subgraph=0)[1], _real(layer, q))


def test_data_layer_pitches_describe_no_buffer(net: tidl_io.Network, tmp_path: Path) -> None:
    """The 10.0 input layer stores a channel pitch (1800) shorter than its plane: only the dense
    size is accepted, never a 'padded' size read through overlapping pitches."""
    layer = net.layer_by_data_id(0)
    q = _codes(layer, 3)
    _roi, _, _, ch, line = layer.pitches
    short = q.reshape(-1)[: (3 - 1) * ch + 399 * line + 600]
    short.tofile(tmp_path / _name(0))
    traces = load_traces(tmp_path, net)
    assert not traces.files and "neither dense nor padded: expected 2880000 (dense) bytes" in traces.problems[_name(0)]


# ---- issue 24: paths that cannot be used are PathErrors; a layer_info not used is said -------------

EXAMPLES = Path(tidl_io.__file__).parent / "examples"
_TRACE = "tidl_trace_subgraph_0_0002_0001_0001_00001_00016_000080x00048.y"  # the example net's layer 2


@pytest.mark.parametrize("name", ["a" * 300, "/".join(["b" * 200] * 25)])
def test_unusable_folder_is_a_path_error(tmp_path: Path, name: str) -> None:
    net = tidl_io.load_net(EXAMPLES / "detector_tidl_net.bin")
    with pytest.raises(tidl_io.PathError, match="cannot look at it"):
        load_traces(tmp_path / name, net)


def test_unreadable_trace_is_a_path_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A mode-000 trace (simulated: root reads anything) is a PathError naming the file."""
    net = tidl_io.load_net(EXAMPLES / "detector_tidl_net.bin")
    (tmp_path / _TRACE).write_bytes(bytes(16 * 48 * 80))
    traces = load_traces(tmp_path, net)

    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(tmp_path / _TRACE))

    monkeypatch.setattr(np, "fromfile", denied)
    with pytest.raises(tidl_io.PathError, match=f"{_TRACE}: cannot read: Permission denied"):
        _ = traces[2]


def test_unlistable_folder_is_a_path_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tidl_io.base import check

    net = tidl_io.load_net(EXAMPLES / "detector_tidl_net.bin")

    def listdir(path: object = ".") -> list[str]:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(check.os, "listdir", listdir)
    with pytest.raises(tidl_io.PathError, match="cannot list it: Permission denied"):
        load_traces(tmp_path, net)


def test_a_layer_info_not_used_is_a_note(tmp_path: Path) -> None:
    shutil.copy(EXAMPLES / "detector_tidl_net.bin", tmp_path / "m_tidl_net.bin")
    (tmp_path / "m_tidl_net.bin.layer_info.txt").write_text("0 0 images\n")  # 1 line, 7 layers
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / _TRACE).write_bytes(bytes(16 * 48 * 80))
    traces = load_traces(tmp_path / "traces", tidl_io.load_net(tmp_path / "m_tidl_net.bin"))
    assert traces.notes[0].startswith("layer names not used: ") and "1 line(s) for layers 0..0" in traces.notes[0]


def test_repr_is_short_and_names_the_folder(tmp_path: Path) -> None:
    net = tidl_io.load_net(EXAMPLES / "detector_tidl_net.bin")
    (tmp_path / _TRACE).write_bytes(bytes(16 * 48 * 80))
    (tmp_path / "tidl_trace_subgraph_0_0003_0001_0001_00001_00032_000040x00024.y").write_bytes(b"short")
    text = repr(load_traces(tmp_path, net))
    assert len(text) <= 300 and text.startswith(f"Traces({str(tmp_path)!r}")
    for part in ("net='detector_tidl_net.bin'", "traces=1", "problems=1"):
        assert part in text
