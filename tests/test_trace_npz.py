"""Golden .npz files read one array at a time, in place (tidl_io.trace.npz), against np.load."""

from __future__ import annotations

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
            got = z[k]
            assert got.dtype == v.dtype and got.shape == v.shape and np.array_equal(got, v)
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(tidl_io.FormatError, match="bad.npz: not an .npz"):
        NpzArrays(tmp_path / "bad.npz")
