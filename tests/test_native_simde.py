"""The AVX-512 kernels (tidl_io/native/avx512.c) bit for bit against NumPy on any CPU: built against SIMDe
(build.py's simde build, libtidl_io_native_simde.so: the same intrinsics in portable C) and run at ISA
level avx512; where this CPU has AVX-512 the native library runs the same tests.

With TIDL_IO_REQUIRE_SIMDE=1 (CI) a missing SIMDe header or a failed build FAILS these tests instead
of skipping them: CI installs Debian's libsimde-dev.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_native import _array, same

from tidl_io import native as _native
from tidl_io.data.buffers import pack
from tidl_io.data.permute import permute

from test_buffers import make_tensor

REQUIRED = os.environ.get("TIDL_IO_REQUIRE_SIMDE", "").strip().lower() in ("1", "true", "on", "yes")


def _unavailable(reason: str) -> None:
    if REQUIRED:
        pytest.fail(f"TIDL_IO_REQUIRE_SIMDE=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def simde_lib(tmp_path_factory: pytest.TempPathFactory) -> ctypes.CDLL:
    build = _native._build_module()
    if build.simde_header() is None:
        _unavailable("SIMDe's headers are missing (Debian: apt-get install libsimde-dev)")
    if build.find_compiler() is None:
        _unavailable("no C compiler for the SIMDe build")
    try:
        path = build.build(tmp_path_factory.mktemp("simde"), quiet=True, simde=True)
    except (subprocess.CalledProcessError, OSError) as exc:
        _unavailable(f"the SIMDe build failed: {exc}")
    lib = ctypes.CDLL(str(path))
    _native._prototype(lib)
    assert lib.tio_source_hash().decode() == build.source_hash()
    assert "simde-avx512" in lib.tio_isa().decode().split()
    return lib


def _native_avx512() -> bool:
    return "avx512" in _native.isa_levels()


@pytest.fixture(params=["simde", "native"])
def avx512(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The library to run at level avx512: the SIMDe build, or this CPU's own where it has AVX-512."""
    if request.param == "simde":
        monkeypatch.setattr(_native, "LIB", request.getfixturevalue("simde_lib"))
    elif not _native_avx512():
        pytest.skip("this CPU (or build) has no AVX-512 level: the SIMDe build runs these kernels")
    assert _native.LIB is not None
    yield request.param


def run_both(fn: Any, threads: int = 1) -> tuple[Any, Any]:
    """fn() on the NumPy path, then on the library at ISA level avx512."""
    with _native.forced(False):
        ref = fn()
    with _native.forced(True, threads, isa="avx512"):
        assert _native.info()["isa_level"] == "avx512"
        got = fn()
    return ref, got


def test_simde_build_has_level_avx512_on_any_cpu(simde_lib: ctypes.CDLL) -> None:
    levels = dict(item.split("=", 1) for item in simde_lib.tio_tuning().decode().split())["levels"]
    assert levels.split(",")[-1] == "avx512"
    assert simde_lib.tio_set_isa(-1) == 3
    assert simde_lib.tio_set_isa(0) == 0
    simde_lib.tio_set_isa(-1)


def _at(rng: np.random.Generator, shape: tuple[int, ...], dtype: str, shift: int) -> np.ndarray:
    """Random data in a fresh array starting `shift` bytes past a 64-byte line."""
    x = _array(rng, shape, dtype)
    raw = np.zeros(x.nbytes + 128, np.uint8)
    start = (-raw.ctypes.data) % 64 + shift
    a = raw[start:start + x.nbytes].view(dtype).reshape(shape)
    a[...] = x
    return a


# 64 pixels per step (2-4 source registers): widths around one and two steps, and a camera row
WIDTHS = [1, 2, 63, 64, 65, 127, 128, 129, 191, 200, 1920]


@pytest.mark.parametrize("lanes", [2, 3, 4])
@pytest.mark.parametrize("shift", [0, 1, 33])
def test_deinterleave_u8_every_width_and_alignment(avx512: str, lanes: int, shift: int) -> None:
    rng = np.random.default_rng(lanes * 100 + shift)
    for w in WIDTHS:
        x = _at(rng, (3, w, lanes), "u1", shift)
        ref, got = run_both(lambda x=x: permute(x, (2, 0, 1)))
        same(ref, got)
        same(got, np.ascontiguousarray(x.transpose(2, 0, 1)))  # (NumPy's own copy: the oracle)
        def padded(x: np.ndarray = x, w: int = w) -> np.ndarray:  # into a padded plane at every shift
            holder = np.zeros((lanes, 5, w + 7), np.uint8)
            permute(x, (2, 0, 1), out=holder[:, 1:4, shift % 7:shift % 7 + w])
            return holder
        ref, got = run_both(padded)
        same(ref, got)
        assert not got[:, 0].any() and not got[:, 4].any()


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("channels", [3, 4])
def test_hwc_frame_pack(avx512: str, threads: int, channels: int) -> None:
    rng = np.random.default_rng(channels)
    t = make_tensor("input", c=channels, h=270, w=481, pads=(1, 1, 0, 2), dtype="uint8")
    frame = rng.integers(0, 256, (270, 481, channels), dtype=np.uint8)
    ref, got = run_both(lambda: pack(t, frame, layout="HWC"), threads=threads)
    same(ref, got)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", ["u1", "i2", "f4", "f8"])
def test_transposes(avx512: str, dtype: str, threads: int) -> None:
    rng = np.random.default_rng(7)
    for rows, cols in [(1, 1), (15, 17), (64, 63), (129, 65), (1025, 1031), (600, 520)]:
        x = _array(rng, (rows, cols), dtype)
        ref, got = run_both(lambda x=x: permute(x, (1, 0)), threads=threads)
        same(ref, got)
        same(got, np.ascontiguousarray(x.T))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("case", [("u1", 64, (0, 1, 17, 63)), ("u1", 320, (0, 5)), ("u1", 143, (0, 3)),
                                  ("i2", 32, (0, 1, 31)), ("i2", 160, (3,)), ("i2", 100, (0, 2)),
                                  ("f4", 48, (0, 4)), ("f4", 336, (0, 7))])
def test_square_inplace(avx512: str, case: tuple[str, int, tuple[int, ...]], threads: int) -> None:
    dtype, n, shifts = case
    cell = np.dtype(dtype).itemsize
    rng = np.random.default_rng(n)
    for shift in shifts:
        x = _at(rng, (2, n, n), dtype, shift * cell)
        def run(x: np.ndarray = x) -> np.ndarray:
            return permute(x.copy(), (0, 2, 1), inplace=True).copy()
        ref, got = run_both(run, threads=threads)
        same(ref, got)
        expect = np.empty_like(x)
        for i in range(n):  # (a literal loop: the oracle)
            expect[:, i, :] = x[:, :, i]
        same(got, expect)


def test_required_fails_without_simde(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SIMDE_INCLUDE at a folder without SIMDe: the build says what is missing and leaves no file (the
    fixture above turns that into a failure under TIDL_IO_REQUIRE_SIMDE=1)."""
    build = _native._build_module()
    monkeypatch.setenv("SIMDE_INCLUDE", str(tmp_path))
    assert build.simde_header() is None
    with pytest.raises(FileNotFoundError, match="libsimde-dev"):
        build.build(tmp_path / "out", quiet=True, simde=True)
    assert not (tmp_path / "out" / build.SIMDE_LIB_NAME).exists()
