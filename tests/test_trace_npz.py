"""Golden .npz files read one array at a time, in place (tidl_io.trace.npz), against np.load."""

from __future__ import annotations

import struct
import time
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import tidl_io


def test_npz_arrays_read_like_np_load(tmp_path: Path) -> None:
    from tidl_io.trace.npz import NpzArrays

    rng = np.random.default_rng(8)
    arrays = {"a/b:0;": rng.normal(size=(1, 4, 5, 3)).astype(np.float32), "i": np.arange(7, dtype=np.int16),
              "f": np.asfortranarray(rng.normal(size=(3, 4))), "s": np.array('{"x": 1}')}
    np.savez(tmp_path / "u.npz", **arrays)
    np.savez_compressed(tmp_path / "c.npz", **arrays)
    for name in ("u.npz", "c.npz"):
        z = NpzArrays(tmp_path / name)
        assert sorted(z.files) == sorted(arrays) and len(z) == 4 and "i" in z
        for k, v in arrays.items():
            if v.dtype.kind == "U":  # issue 24 item 14: a text member is read as text, never as a golden tensor
                assert z.read_text(k) == str(v)
                with pytest.raises(tidl_io.FormatError, match="is not numeric"):
                    z[k]
                continue
            got = z[k]
            assert got.dtype == v.dtype and got.shape == v.shape and np.array_equal(got, v)
            assert z.shape(k) == v.shape
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(tidl_io.FormatError, match="bad.npz: not an .npz"):
        NpzArrays(tmp_path / "bad.npz")


# ---- hostile members (issue 24 item 14): header, dtype and size checked before any data is read ----

def _npy(header: str, data: bytes = b"", version: tuple[int, int] = (1, 0)) -> bytes:
    """An .npy file written by hand: magic, version, header length, header, data."""
    head = header.encode("latin1")
    head += b" " * (-(len(head) + 11) % 64) + b"\n"
    size = struct.pack("<H", len(head)) if version == (1, 0) else struct.pack("<I", len(head))
    return b"\x93NUMPY" + bytes(version) + size + head + data


def _zip(path: Path, members: dict[str, bytes], compress: int = zipfile.ZIP_STORED) -> Path:
    with zipfile.ZipFile(path, "w", compress) as zf:
        for name, data in members.items():
            zf.writestr(name + ".npy", data)
    return path


def _bounded(call: Callable[[], object]) -> None:
    """``call`` raises a FormatError (or AllocationLimitError) in under 2 s, allocating under 200 MB."""
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        with pytest.raises(tidl_io.TidlIoError):
            call()
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert time.perf_counter() - t0 < 2.0 and peak < 200 * 2 ** 20, peak


HOSTILE_HEADERS = {
    "huge": "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }",
    "overflow": f"{{'descr': '<f4', 'fortran_order': False, 'shape': ({2 ** 40}, {2 ** 40}), }}",
    "negative": "{'descr': '<f4', 'fortran_order': False, 'shape': (-2, -3), }",
    "structured": "{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (2,), }",
    "datetime": "{'descr': '<M8[s]', 'fortran_order': False, 'shape': (2,), }",
    "timedelta": "{'descr': '<m8[s]', 'fortran_order': False, 'shape': (2,), }",
    "complex": "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }",
    "string": "{'descr': '|S8', 'fortran_order': False, 'shape': (2,), }",
    "bool": "{'descr': '|b1', 'fortran_order': False, 'shape': (16,), }",
    "object": "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }",
    "call": "{'descr': __import__('os').getcwd(), 'fortran_order': False, 'shape': (2,), }",
    "float shape": "{'descr': '<f4', 'fortran_order': False, 'shape': (2.0,), }",
    "too many dims": "{'descr': '<f4', 'fortran_order': False, 'shape': (1,) * 40, }",
}


@pytest.mark.parametrize("kind", sorted(HOSTILE_HEADERS))
@pytest.mark.parametrize("compress", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_hostile_headers_are_located_errors(tmp_path: Path, kind: str, compress: int) -> None:
    from tidl_io.trace.npz import NpzArrays

    header = HOSTILE_HEADERS[kind].replace("(1,) * 40", "(" + "1, " * 40 + ")")
    z = NpzArrays(_zip(tmp_path / "h.npz", {"x": _npy(header, bytes(16))}, compress))
    _bounded(lambda: z["x"])
    with pytest.raises(tidl_io.FormatError, match=r"h\.npz: member 'x\.npy'"):
        z["x"]


def test_header_too_long_or_cut(tmp_path: Path) -> None:
    from tidl_io.trace.npz import NpzArrays

    long_header = b"\x93NUMPY\x02\x00" + struct.pack("<I", 1 << 30) + b"{"
    z = NpzArrays(_zip(tmp_path / "l.npz", {"x": long_header, "v": b"\x93NUMPY\x09\x00", "m": b"nothing"}))
    for key, says in (("x", "header of 1073741824 bytes"), ("v", "version 9.0"), ("m", "no \\\\x93NUMPY magic")):
        with pytest.raises(tidl_io.FormatError, match=says):
            z[key]


def test_data_shorter_than_the_header_says(tmp_path: Path) -> None:
    from tidl_io.trace.npz import NpzArrays

    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4), }"
    z = NpzArrays(_zip(tmp_path / "s.npz", {"x": _npy(header, bytes(60))}))
    with pytest.raises(tidl_io.FormatError, match=r"is 64 bytes, but 60 bytes of data follow the header"):
        z["x"]


def test_allocation_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tidl_io.trace.npz import NpzArrays

    np.savez(tmp_path / "big.npz", x=np.zeros(1 << 20, np.float32))  # 4 MiB
    monkeypatch.setenv("TIDL_IO_MAX_ALLOC_BYTES", "1M")
    with pytest.raises(tidl_io.AllocationLimitError, match="big.npz: member 'x.npy'"):
        NpzArrays(tmp_path / "big.npz")["x"]


def test_compressed_bomb_is_refused_by_its_header(tmp_path: Path) -> None:
    """A small compressed member inflating to 256 MB whose shape is not the layer's: the golden
    reference refuses it from the header, reading none of its data; read on purpose, it is inflated
    a bounded chunk at a time into the array alone."""
    from tidl_io.trace.compare import GoldenReference, Status, Target
    from tidl_io.trace.npz import NpzArrays

    n = 64 * 2 ** 20  # float32: 256 MiB inflated
    header = f"{{'descr': '<f4', 'fortran_order': False, 'shape': ({n},), }}"
    zero = bytes(1 << 22)
    with zipfile.ZipFile(tmp_path / "bomb.npz", "w", zipfile.ZIP_DEFLATED) as zf, \
            zf.open("t.npy", "w", force_zip64=True) as fh:
        fh.write(_npy(header))
        for _ in range(n * 4 // len(zero)):
            fh.write(zero)
    assert (tmp_path / "bomb.npz").stat().st_size < 2 ** 20
    ref = GoldenReference(NpzArrays(tmp_path / "bomb.npz"), "bomb")
    tracemalloc.start()
    t0 = time.perf_counter()
    found = ref.get(Target("t", 1, (1, 3, 8, 8)))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert found.value is None and found.status is Status.SHAPE_MISMATCH and f"reference ({n},)" in found.note
    assert time.perf_counter() - t0 < 2.0 and peak < 2 ** 20
    tracemalloc.start()
    arr = NpzArrays(tmp_path / "bomb.npz")["t"]
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert arr.shape == (n,) and not arr.any() and peak < n * 4 + 16 * 2 ** 20


def test_golden_note_is_read_as_text(tmp_path: Path) -> None:
    from tidl_io.trace.golden import read_meta
    from tidl_io.trace.npz import NpzArrays

    np.savez(tmp_path / "g.npz", x=np.zeros(3, np.float32), __tidl_io_golden__=np.array('{"model": "m.onnx"}'))
    assert read_meta(NpzArrays(tmp_path / "g.npz")) == {"model": "m.onnx"}
    np.savez(tmp_path / "n.npz", __tidl_io_golden__=np.zeros(3))  # a note that is no text is no note
    assert read_meta(NpzArrays(tmp_path / "n.npz")) == {}
