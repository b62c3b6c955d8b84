"""Users' array files (tidl_io.data.arrays): every bad file a located TidlIoError, never NumPy's
own message or a pickle; good files read as np.save / np.savez wrote them."""

from __future__ import annotations

import io
import pickle
import struct
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io.data.arrays import NpzArrays, check_no_nan, load_arrays, load_npy


def _npy_bytes(x: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, x)
    return buf.getvalue()


def _bad_files(tmp: Path) -> dict[str, tuple[Path, str, type[Exception]]]:
    """name -> (file, a phrase the message must hold, the error class)."""
    good = _npy_bytes(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    files: dict[str, tuple[bytes | None, str, type[Exception]]] = {
        "empty": (b"", "empty file (0 bytes)", tidl_io.FormatError),
        "truncated": (good[:-5], "is 96 bytes, but 91 bytes of data follow the header", tidl_io.FormatError),
        "cut in header": (good[:20], "header cut short", tidl_io.FormatError),
        "object": (_npy_bytes(np.array([{"a": 1}, None], dtype=object)), "a pickle, never loaded",
                   tidl_io.FormatError),
        "raw pickle": (pickle.dumps({"a": 1}), "a Python pickle", tidl_io.FormatError),
        "wrong magic": (b"\x93NUMPZ" + good[6:], "no \\x93NUMPY magic", tidl_io.FormatError),
        "oversize header": (b"\x93NUMPY\x02\x00" + struct.pack("<I", 1 << 30) + b"{", "header of 1073741824 bytes",
                            tidl_io.FormatError),
        "yaml": (b"postprocess:\n  data_layout: NCHW\nsession:\n  input_mean: [0, 0, 0]\n", "b'postprocess:\\n",
                 tidl_io.FormatError),
        "complex": (_npy_bytes(np.zeros(3, np.complex64)), "dtype complex64 is not numeric", tidl_io.FormatError),
        "missing": (None, "no such file", tidl_io.PathNotFoundError),
    }
    out = {}
    for k, (data, says, cls) in files.items():
        path = tmp / f"{k.replace(' ', '_')}.npy"
        if data is not None:
            path.write_bytes(data)
        out[k] = (path, says, cls)
    folder = tmp / "folder.npy"
    folder.mkdir()
    out["folder"] = (folder, "is a folder", tidl_io.PathIsFolderError)
    return out


@pytest.mark.parametrize("kind", ["empty", "truncated", "cut in header", "object", "raw pickle", "wrong magic",
                                  "oversize header", "yaml", "complex", "missing", "folder"])
def test_bad_npy_is_a_located_error(tmp_path: Path, kind: str) -> None:
    path, says, cls = _bad_files(tmp_path)[kind]
    for read in (load_npy, load_arrays):
        with pytest.raises(cls) as info:
            read(path)
        msg = str(info.value)
        assert isinstance(info.value, tidl_io.TidlIoError)
        assert msg.startswith(str(path)) and says in msg, msg
        assert "allow_pickle" not in msg


def test_good_npy_and_npz_round_trip(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    arrays = {"input": rng.normal(size=(2, 3, 4, 5)).astype(np.float32), "b": np.arange(6, dtype=np.uint8),
              "f": np.asfortranarray(rng.normal(size=(3, 4))), "m": np.array([True, False]),
              "e": np.zeros((0, 3), np.int16), "s": np.float64(2.5)}
    for name, x in arrays.items():
        np.save(tmp_path / f"{name}.npy", x)
        for got in (load_npy(tmp_path / f"{name}.npy"), load_arrays(tmp_path / f"{name}.npy")):
            assert isinstance(got, np.ndarray)
            assert got.dtype == np.asarray(x).dtype and got.shape == np.shape(x) and np.array_equal(got, x)
    np.savez(tmp_path / "u.npz", **arrays)
    np.savez_compressed(tmp_path / "c.npz", *arrays.values())
    for file, keys in (("u.npz", list(arrays)), ("c.npz", [f"arr_{i}" for i in range(len(arrays))])):
        got = load_arrays(tmp_path / file)
        assert isinstance(got, dict) and list(got) == keys
        for k, x in zip(keys, arrays.values()):
            assert got[k].dtype == np.asarray(x).dtype and np.array_equal(got[k], x)


def test_bad_npz_is_a_located_error(tmp_path: Path) -> None:
    np.savez(tmp_path / "obj.npz", x=np.array([None, 1], dtype=object))
    with pytest.raises(tidl_io.FormatError, match=r"obj\.npz: member 'x\.npy': dtype object .*a pickle"):
        load_arrays(tmp_path / "obj.npz")
    data = (tmp_path / "obj.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(tidl_io.FormatError, match=r"cut\.npz: not an \.npz"):
        load_arrays(tmp_path / "cut.npz")
    np.savez(tmp_path / "none.npz")
    with pytest.raises(tidl_io.FormatError, match=r"none\.npz: expected .* no \.npy member"):
        load_arrays(tmp_path / "none.npz")
    (tmp_path / "dir.npz").mkdir()
    with pytest.raises(tidl_io.PathIsFolderError, match=r"dir\.npz: is a folder"):
        NpzArrays(tmp_path / "dir.npz")


def test_allocation_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    np.save(tmp_path / "big.npy", np.zeros(1 << 20, np.float32))  # 4 MiB
    monkeypatch.setenv("TIDL_IO_MAX_ALLOC_BYTES", "1M")
    with pytest.raises(tidl_io.AllocationLimitError, match="big.npy"):
        load_npy(tmp_path / "big.npy")


def test_check_no_nan_names_the_first_nan() -> None:
    x = np.zeros((1, 2, 3, 4), np.float32)
    assert check_no_nan(x, "in.npy") is x
    x[0, 1, 2, 0] = x[0, 1, 2, 3] = np.nan
    with pytest.raises(tidl_io.BufferMismatchError, match=r"in\.npy: the array holds 2 NaN value\(s\), the first at "
                                                          r"index \(0, 1, 2, 0\)"):
        check_no_nan(x, "in.npy")
    assert check_no_nan(np.arange(3), "codes").dtype.kind == "i"
