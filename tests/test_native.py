"""The native kernels (tidl_io/native): loader behaviour, and every kernel bit for bit against the
NumPy path (the reference), on the same data in the same run.

The pack/unpack/permute/reorg/quant modules' own tests also run on both paths (the both_paths
fixture in conftest.py); here the two paths are compared directly, over the real descriptors, all
8-bit codes, NaN/inf/saturation, odd sizes and strides, and sizes where two threads run.
"""

from __future__ import annotations

import ctypes
import functools
import os
import platform
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tidl_io
from tidl_io import native as _native
from tidl_io.data import buffers, quant
from tidl_io.data.buffers import pack, unpack
from tidl_io.data.permute import permute
from tidl_io.data.reorg import MODES, reorg, reorg_inverse

from conftest import PACKAGE, ROOT, corpus_params
from test_buffers import corpus_tensors, geometries, make_tensor, user_data

REQUIRED = os.environ.get("TIDL_IO_REQUIRE_NATIVE", "").strip() == "1"
# The ISA levels this CPU (and build) runs, lowest first: the edge tests run on each one
LEVELS = _native.isa_levels() or ["portable"]


@pytest.fixture(autouse=True)
def every_size_native(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small dequantizations go to NumPy where it is faster; here every size runs the kernel."""
    monkeypatch.setattr(quant, "NATIVE_DEQ_MIN_BYTES", 0)


@pytest.fixture(autouse=True)
def native_lib() -> Any:
    if _native.LIB is None:
        if REQUIRED:
            pytest.fail(f"TIDL_IO_REQUIRE_NATIVE=1 but the native kernels are unavailable: {_native.REASON}")
        pytest.skip(f"native kernels unavailable: {_native.REASON}")
    return _native.LIB


def both(fn: Any, threads: int = 1, simd: bool = True, isa: str | None = None) -> tuple[Any, Any]:
    """fn() on the NumPy path, then on the native kernels (with or without the run-time-picked
    vector kernels, or at most those of the ISA level ``isa``)."""
    with _native.forced(False):
        ref = fn()
    with _native.forced(True, threads, simd=simd, isa=isa):
        got = fn()
    return ref, got


def same(ref: Any, got: Any) -> None:
    """Equal bit for bit (NaN payloads and signed zeros included)."""
    ref, got = np.ascontiguousarray(ref), np.ascontiguousarray(got)
    assert ref.dtype == got.dtype and ref.shape == got.shape
    bits = np.dtype(f"u{ref.dtype.itemsize}") if ref.dtype.itemsize in (1, 2, 4, 8) else None
    if bits is not None:
        diff = np.flatnonzero(ref.view(bits) != got.view(bits))
    else:
        diff = np.flatnonzero(ref.reshape(-1).view(np.uint8) != got.reshape(-1).view(np.uint8))
    assert diff.size == 0, f"{diff.size} elements differ, first at flat index {diff[0]}: " \
                           f"{ref.reshape(-1)[diff[0]]!r} vs {got.reshape(-1)[diff[0]]!r}"


# ---- loader ------------------------------------------------------------------------------------------

def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("TIDL_IO_")}
    full.update(env)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=full, capture_output=True, text=True,
                          timeout=120, check=False)


def test_info_says_which_path_and_why() -> None:
    info = tidl_io.native_info()
    assert info["active"] is True and Path(info["path"]).is_file() and "loaded" in info["reason"]
    assert info["threads"] >= 1 and info["isa"]
    with _native.forced(False):
        off = tidl_io.native_info()
    assert off["active"] is False and "switched off" in off["reason"]


def test_environment_switches() -> None:
    show = "import tidl_io; i = tidl_io.native_info(); print(i['active'], i['threads'], i['reason'])"
    off = _python(show, TIDL_IO_NATIVE="0")
    assert off.returncode == 0 and off.stdout.startswith("False") and "TIDL_IO_NATIVE=0" in off.stdout
    threads = _python(show, TIDL_IO_THREADS="1")
    assert threads.stdout.startswith("True 1 "), threads.stdout + threads.stderr
    missing = _python(show, TIDL_IO_NATIVE_LIB=str(ROOT / "no-such-lib.so"))
    assert missing.stdout.startswith("False") and "no-such-lib.so" in missing.stdout
    required = _python(show, TIDL_IO_NATIVE="0", TIDL_IO_REQUIRE_NATIVE="1")
    assert required.returncode != 0 and "TIDL_IO_REQUIRE_NATIVE=1" in required.stderr


def _cpu_flags() -> set[str]:
    """The CPU's feature flags as /proc/cpuinfo lists them (empty off Linux)."""
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() in ("flags", "features"):
            return set(value.split())
    return set()


def test_isa_levels_follow_the_cpu_and_the_environment() -> None:
    machine, isa = platform.machine().lower(), _native.info()["isa"].split()
    if machine in ("x86_64", "amd64"):
        dispatching = any(word.startswith(("sse", "avx")) for word in isa)  # (else a build for one ISA)
        flags = _cpu_flags()
        expect = ["portable", "sse2"] + (["avx2"] if dispatching and "avx2" in flags else [])
        if expect[-1] == "avx2" and {"avx512f", "avx512bw", "avx512vl", "avx512vbmi"} <= flags:
            expect.append("avx512")
    elif machine in ("aarch64", "arm64"):
        expect = ["portable", "neon"]
    else:
        pytest.skip(f"no ISA levels listed for {machine} in this test")
    assert _native.isa_levels() == expect
    assert _native.info()["isa_level"] == expect[-1]
    for level in expect:
        with _native.forced(True, isa=level):
            assert _native.info()["isa_level"] == level
    assert _native.info()["isa_level"] == expect[-1]
    with _native.forced(True, simd=False):
        assert _native.info()["isa_level"] == "portable"
    show = "import tidl_io; print(tidl_io.native_info()['isa_level'])"
    assert _python(show, TIDL_IO_ISA="portable").stdout.split() == ["portable"]
    assert _python(show, TIDL_IO_ISA=" Best ").stdout.split() == [expect[-1]]
    assert _python(show, TIDL_IO_ISA="avx512").stdout.split() == [expect[-1]]  # (capped at the CPU's)
    assert _python(show, TIDL_IO_ISA="AVX2").stdout.split() == [expect[min(2, len(expect) - 1)]]
    bad = _python(show, TIDL_IO_ISA="avx9000")
    assert bad.stdout.split() == [expect[-1]] and "TIDL_IO_ISA='avx9000' is not understood" in bad.stderr


def test_cache_sizes_are_the_systems() -> None:
    """The sizes native_info() reports are sysfs's (read here literally) where Linux lists them, and the
    blocking follows from them as documented (cpu.c)."""
    info = _native.info()
    caches, blocking = info["caches"], info["blocking"]
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    found: dict[int, int] = {}
    for index in sorted(base.glob("index*")) if base.is_dir() else []:
        try:
            level = int((index / "level").read_text())
            kind = (index / "type").read_text().strip()
            size = (index / "size").read_text().strip()
        except (OSError, ValueError):
            continue
        if kind in ("Data", "Unified") and level not in found:
            found[level] = int(size[:-1]) * {"K": 1024, "M": 1 << 20}[size[-1]] if size[-1] in "KM" else int(size)
    if 1 in found and 2 in found:
        assert caches["source"] == "sysfs"
        assert (caches["l1d"], caches["l2"]) == (found[1], found[2])
        assert caches["l3"] == found.get(3, 0)
    assert caches["l1d"] >= 4096 and caches["l2"] >= 32768 and caches["line"] >= 16
    for key, cell in (("sq_tile_f32", 4), ("sq_tile_u8", 1)):
        t = blocking[key]
        assert t % 16 == 0 and 32 <= t <= 256
        assert t == 32 or 2 * t * t * cell <= caches["l1d"]
        assert t == 256 or 2 * (t + 16) ** 2 * cell > caches["l1d"]
    assert blocking["nt_min"] == min(max(2 * caches["l2"], 1 << 20), 8 << 20)
    # 64 source rows of 1024 bytes and their float32 buffer (256 rows of 64 + 64 * 4 bytes) in half of L2
    assert blocking["tr_cols"] == (64 if 64 * 1024 + 256 * (64 + 256) <= caches["l2"] // 2 else 32)
    # plain moves (rows, (de)interleaves) of up to the last-level cache's bytes run on one thread
    assert blocking["split_min"] == max(caches["l3"], caches["l2"])


def test_build_without_a_compiler_says_so_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build = _native._build_module()
    assert build.try_build([tmp_path], cc="no-such-compiler-tidl-io") == []
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "NumPy path" in err and not list(tmp_path.iterdir())


def test_standalone_build_and_stale_detection(tmp_path: Path) -> None:
    if _native._build_module().find_compiler() is None and os.environ.get("TIDL_IO_REQUIRE_CC") != "1":
        pytest.skip("no C compiler here (cross-built library, e.g. under qemu)")
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "build_native.py"), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    lib = tmp_path / "libtidl_io_native.so"
    show = "import tidl_io; i = tidl_io.native_info(); print(i['active'], i['path'])"
    loaded = _python(show, TIDL_IO_NATIVE_LIB=str(lib))
    assert loaded.stdout.split() == ["True", str(lib)], loaded.stdout + loaded.stderr
    build = _native._build_module()
    copy = tmp_path / "src"
    copy.mkdir()
    for path in build.sources():
        (copy / path.name).write_bytes(path.read_bytes())
    assert build.source_hash(copy) == build.source_hash()
    (copy / "quant.c").write_text((copy / "quant.c").read_text() + "\n/* changed */\n")
    assert build.source_hash(copy) != build.source_hash()


# ---- quantize / dequantize ---------------------------------------------------------------------------

CODE_TYPES = ["uint8", "int8", "uint16", "int16", "uint32", "int32"]
SCALES = [1.0, 0.25, 16.0, 35.142269134521484, 1 / 3, 32768.0, 1e-30, 3e38, 1.1754944e-38, 1e-45]


def _tensor(dtype: str, scale: float, zp: int, shape: tuple[int, int, int] = (3, 5, 7)) -> Any:
    c, h, w = shape
    return make_tensor("input", c=c, h=h, w=w, dtype=dtype if dtype in ("uint8", "int8", "uint16", "int16", "int32")
                       else "int32", scale=float(np.float32(scale)), zp=zp)


def _nasty(rng: np.random.Generator, n: int, dtype: Any) -> np.ndarray:
    """Values around every rounding and saturation boundary, specials included."""
    x = np.concatenate([
        rng.standard_normal(n) * 10 ** rng.uniform(-3, 6, n),
        np.arange(-300, 300) / 2,                     # halves: ties for "nearest"
        np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 255.5, 256.0, -128.5, 127.49, 65535.5, -32768.5,
                  2.0**31, -2.0**31, 2.0**32, 4294967295.5, 1e-45, -1e-45, 3.4e38, -3.4e38]),
        np.nextafter(np.float32(0.5), np.float32(1)) * np.arange(1, 50),
    ])
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "uint16", "int16", "int32"])
@pytest.mark.parametrize("src", ["float32", "float64"])
@pytest.mark.parametrize("rounding", ["trunc", "nearest"])
def test_quantize_equals_numpy(dtype: str, src: str, rounding: str) -> None:
    rng = np.random.default_rng(7)
    x = _nasty(rng, 3000, src)
    for scale in SCALES:
        for zp in (0, 3, -7, 200):
            t = _tensor(dtype, scale, zp)
            ref, got = both(functools.partial(quant.quantize, t, x, rounding=rounding, nan="zero"))
            same(ref, got)
            with pytest.raises(tidl_io.BufferMismatchError, match="NaN"), _native.forced(True):
                quant.quantize(t, x, rounding=rounding)


@pytest.mark.parametrize("isa", LEVELS)
@pytest.mark.parametrize("code", ["uint8", "int8", "uint16", "int16"])
@pytest.mark.parametrize("rounding", ["trunc", "nearest"])
def test_quantize_rows_of_every_length(code: str, rounding: str, isa: str) -> None:
    """Rows of 1..70 codes and around a padded image row, in runs of rows with padding between them:
    the vector rows' overlapping last vector, rows shorter than a vector, and NaN in the first, a
    middle and the last (overlapped) element of one row of a run (that row is redone, its
    neighbours not)."""
    rng = np.random.default_rng(13)
    info = np.iinfo(code)
    specials = np.array([np.inf, -np.inf, info.max + 0.5, info.max + 1.0, info.min - 0.5, info.min - 1.0, 2.0**31,
                         -2.0**31, 3e38, -3e38, 0.5, -0.5, 1.5, -1.5, 2.5, -0.0], np.float32)
    for n in [*range(1, 71), 223, 224, 225]:
        x = rng.uniform(info.min * 1.3 - 2, info.max * 1.3 + 2, (5, n)).astype(np.float32)
        x.reshape(-1)[rng.integers(0, x.size, min(x.size, 12))] = rng.choice(specials, min(x.size, 12))
        for nan_at in (None, 0, n // 2, n - 1):
            xn = x.copy()
            if nan_at is not None:
                xn[2, nan_at] = np.nan
            for scale, zp in ((1.0, 0), (0.37, 3), (255.0, -2)):
                qp = quant.QParams("t", np.dtype(code), False, scale, zp, int(info.min), int(info.max))

                def run(n: int = n, xn: np.ndarray = xn, qp: quant.QParams = qp) -> np.ndarray:
                    out = np.full((5, n + 3), 77, code)
                    quant.quantize_into(out[:, 1:n + 1], xn, quant.limits(qp, xn.dtype, rounding), "zero", 1 << 20)
                    return out
                same(*both(run, isa=isa))
    big = rng.uniform(-1e5, 1e5, (3, 40000)).astype(np.float32)  # rows split into chunks; two threads
    big[1, 39999] = np.nan
    qp = quant.QParams("t", np.dtype(code), False, 0.75, 1, int(info.min), int(info.max))
    def run_big() -> np.ndarray:
        out = np.zeros((3, 40001), code)
        quant.quantize_into(out[:, :40000], big, quant.limits(qp, big.dtype, rounding), "zero", 1 << 20)
        return out
    same(*both(run_big, threads=2, isa=isa))


@pytest.mark.parametrize("code", ["uint32", "int32", "uint16"])
def test_quantize_32_bit_codes_through_the_private_kernel(code: str) -> None:
    """uint32 has no TIDL test tensor helper here: drive quantize_into directly."""
    rng = np.random.default_rng(3)
    x = _nasty(rng, 2000, np.float32)
    info = np.iinfo(code)
    for scale in (1.0, 0.5, 1e6, 3e38):
        for zp in (0, -5, 1000):
            qp = quant.QParams("t", np.dtype(code), False, float(np.float32(scale)), zp, int(info.min),
                                int(info.max))
            def run(qp: quant.QParams = qp) -> np.ndarray:
                out = np.zeros(x.shape, code)
                quant.quantize_into(out, x, quant.limits(qp, x.dtype, "trunc"), "zero", 256)
                return out
            same(*both(run))


def test_quantize_strided_and_two_threads() -> None:
    rng = np.random.default_rng(11)
    x = rng.uniform(-300, 300, (6, 700, 1100)).astype(np.float32)[:, ::2, 1::2]  # > 4 MiB touched
    x[0, 0, :5] = [np.nan, np.inf, -np.inf, 0.5, -0.5]
    t = make_tensor("input", c=6, h=350, w=550, pads=(1, 2, 0, 3), dtype="int16", scale=12.5, zp=-3)
    def run() -> np.ndarray:
        buf = np.full(t.alloc_size, 77, np.int16)
        return pack(t, x, buf, nan="zero")
    same(*both(run, threads=2))


def test_pack_prepared_calls() -> None:
    """The same-layout pack's prepared native call (plan.PackPlan.native): user arrays of every stride
    pattern (reversed, strided, read-only, squeezed, NHWC into an NHWC buffer), each packed twice so
    the second call reuses the prepared call, into a padded buffer whose pads must stay as they were;
    then the same tensor with more geometries than the per-tensor cache keeps."""
    rng = np.random.default_rng(21)
    t = make_tensor("input", c=3, h=20, w=33, pads=(1, 2, 3, 1), dtype="uint8", scale=2.5, zp=7)
    base = rng.uniform(-20, 120, (1, 3, 40, 66)).astype(np.float32)
    ro = base[:, :, :20, :33].copy()
    ro.flags.writeable = False
    users = [base[:, :, :20, :33], base[:, :, ::2, ::2], base[:, ::-1, ::-2, ::-2][:, :, :20, :33], ro,
             base[0, :, 20:, 33:], base[:, :, 1:21, :33].astype(np.float64)]
    for x in users:
        for _ in range(2):
            def run(x: np.ndarray = x) -> np.ndarray:
                return pack(t, x, np.full(t.alloc_size, 201, np.uint8))
            same(*both(run))
    prepared = [op.native for key, op in buffers._PACKS.items() if key[0] is t]  # one plan per geometry
    assert len(prepared) == len(users) and all(call is not None for call in prepared)
    with _native.forced(True, 2), pytest.raises(tidl_io.BufferMismatchError, match="NaN"):
        nan_x = base[:, :, :20, :33].copy()
        nan_x[0, 2, 19, 32] = np.nan
        pack(t, nan_x, np.zeros(t.alloc_size, np.uint8))
    nhwc = make_tensor("input", c=3, h=20, w=33, pads=(1, 0, 2, 1), dtype="int16", scale=100.0, zp=-4, layout=1)
    y = rng.uniform(-400, 400, (20, 33, 3)).astype(np.float32)
    same(*both(lambda: pack(nhwc, y, np.full(nhwc.alloc_size, -5, np.int16), layout="HWC", rounding="nearest")))
    for k in range(70):  # many geometries of one tensor: a plan each, results unchanged
        x = base[:, :, k % 20:k % 20 + 20, :33] if k % 2 else base[:, :, :20, k % 33:k % 33 + 33]
        same(*both(lambda x=x: pack(t, x, np.zeros(t.alloc_size, np.uint8))))


@pytest.mark.parametrize("n", [17, 33, 36, 100, 1000])
def test_outputs_that_overlap_their_input(n: int) -> None:
    """An output whose memory overlaps its input (out= a view of x's bytes) goes to NumPy, which
    copies first: the kernels read each source element once and write in any order (the vector
    rows re-read for their last vector and for a row with NaN)."""
    t8, t16 = _tensor("uint8", 1.0, 0), _tensor("int16", 0.5, 0)
    x = np.arange(1, n + 1, dtype=np.float32)
    x[n // 2] = np.nan if n > 40 else x[n // 2]
    for t, code in ((t8, np.uint8), (t16, np.int16)):
        expect = quant.quantize(t, x.copy(), nan="zero")
        for start in (0, 1):  # the codes over the first floats, or shifted by one code
            def run(t: tidl_io.Tensor = t, code: type = code, start: int = start) -> np.ndarray:
                y = np.zeros(n + 8, np.float32)
                y[:n] = x
                return quant.quantize(t, y[:n], nan="zero", out=y.view(code)[start:start + n]).copy()
            ref, got = both(run)
            same(ref, got)
            same(got, expect)
    q = np.arange(n, dtype=np.int16) - 7  # dequantized into the same bytes, two codes per float
    def deq() -> np.ndarray:
        mem = np.zeros(2 * n + 8, np.int16)
        mem[:n] = q
        return quant.dequantize(t16, mem[:n], out=mem.view(np.float32)[:n]).copy()
    ref, got = both(deq)
    same(ref, got)
    same(got, (q.astype(np.float32) / np.float32(0.5)))
    t = make_tensor("input", c=1, h=1, w=n, dtype="uint8")  # pack into a buffer over the data
    def packed() -> np.ndarray:
        mem = np.zeros(n + 64, np.float32)
        mem[:n] = x
        return pack(t, mem[:n].reshape(1, 1, n), mem.view(np.uint8)[4:4 + t.alloc_size], nan="zero").copy()
    ref, got = both(packed)
    same(ref, got)
    same(got[:n], quant.quantize(t, np.nan_to_num(x, nan=0.0)))
    o = make_tensor("output", c=1, h=1, w=n, pads=(1, 0, 0, 0), dtype="int16", scale=0.5)  # unpack likewise
    def unpacked() -> np.ndarray:
        mem = np.zeros(2 * n + 16, np.int16)
        mem[1:n + 1] = q
        shape = unpack(o, np.zeros(o.alloc_size, np.int16)).shape
        return unpack(o, mem[:o.alloc_size], out=mem.view(np.float32)[1:n + 1].reshape(shape)).copy()
    ref, got = both(unpacked)
    same(ref, got)
    same(got.reshape(-1), q.astype(np.float32) / np.float32(0.5))


def test_dequantize_every_8_bit_code_over_many_scales() -> None:
    rng = np.random.default_rng(5)
    scales = np.concatenate([np.float32(SCALES), rng.uniform(1e-3, 1e3, 400).astype(np.float32),
                             (2.0 ** rng.integers(-140, 120, 100)).astype(np.float32),
                             np.frombuffer(rng.integers(1, 0x7F7FFFFF, 300, dtype=np.uint32).tobytes(), np.float32)])
    for dtype in ("uint8", "int8"):
        codes = np.arange(256, dtype=np.uint8).view(dtype)
        for scale in scales:
            for zp in (0, 5, -128, 255):
                t = _tensor(dtype, float(scale), zp)
                same(*both(functools.partial(quant.dequantize, t, codes)))


@pytest.mark.parametrize("dtype", ["uint8", "int8", "uint16", "int16"])
def test_dequantize_power_of_two_scales(dtype: str) -> None:
    """Power-of-two scales take a float32 multiply by the exact reciprocal: equal to NumPy's
    float32 division for every code, at the ends of the exponent range the kernel accepts and
    just outside them (where it falls back to the float64 form)."""
    info = np.iinfo(dtype)
    codes = np.arange(info.min, info.max + 1).astype(dtype)
    for e in (-149, -127, -126, -101, -100, -99, -3, -1, 0, 1, 4, 7, 99, 100, 101, 127):
        scale = np.float32(2.0 ** e)
        for zp in (0, 1, -128, 255, 1 << 23, -(1 << 23)):
            t = _tensor(dtype, float(scale), zp)
            ref, got = both(functools.partial(quant.dequantize, t, codes))
            same(ref, got)
            with np.errstate(over="ignore"):
                expect = (codes.astype(np.int64) - zp).astype(np.float32) / scale
            same(got, expect)


def _cpu_has_fma() -> bool:
    """Independent of the library: aarch64 always has FMA; on x86-64, /proc/cpuinfo says (the kernel
    also needs AVX2 there)."""
    machine = platform.machine().lower()
    if machine in ("aarch64", "arm64"):
        return True
    try:
        flags = next(line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("flags"))
    except (OSError, StopIteration):
        return False
    return machine in ("x86_64", "amd64") and {"fma", "avx2"} <= set(flags.split(":")[1].split())


@pytest.mark.parametrize("dtype, scale, zp, kind", [
    ("uint8", 35.142269, 0, "fma"), ("int8", 0.0071, -3, "fma"), ("uint16", 3.3, 0, "fma"),
    ("int16", 1 / 3, 0, "fma"), ("int16", 7.5, 32768, "fma"), ("int16", 7.5, -32768, "fma"),
    ("int16", 7.5, 32769, "narrow"), ("uint16", 7.5, -1, "fma"), ("uint16", 7.5, -2, "narrow"),
    ("uint8", 7.5, 65536, "fma"), ("uint8", 7.5, 65537, "narrow"), ("uint8", 7.5, 255 - 65536, "fma"),
    ("uint8", 7.5, 254 - 65536, "narrow"), ("int8", 7.5, 127 - 65536, "fma"), ("int8", 7.5, 126 - 65536, "narrow"),
    ("uint8", 16.0, 0, "pow2"), ("int16", 2.0 ** -100, 1 << 23, "pow2"), ("int16", 2.0 ** -101, 0, "narrow"),
    ("uint8", 2.0 ** 100, 0, "pow2"), ("uint8", 2.0 ** 101, 0, "narrow"),
    ("uint8", float(np.nextafter(np.float32(2.0 ** 101), np.float32(0))), 0, "fma"),
    ("uint8", float(np.nextafter(np.float32(2.0 ** -100), np.float32(1))), 0, "fma"),
    ("uint8", float(np.nextafter(np.float32(2.0 ** -100), np.float32(0))), 0, "narrow"),
    ("uint8", 1.5, (1 << 23) + 1, "wide"), ("int32", 1.5, 0, "wide"), ("uint32", 16.0, 0, "wide"),
    ("uint8", float("inf"), 0, "narrow"),
])
def test_dequantize_kind(dtype: str, scale: float, zp: int, kind: str) -> None:
    """Which kernel runs: the cheapest whose exactness holds (quant.c); FMA where the CPU has it."""
    want = {"wide": _native.DEQ_WIDE, "narrow": _native.DEQ_NARROW, "fma": _native.DEQ_FMA,
            "pow2": _native.DEQ_POW2}[kind]
    isa = _native.info()["isa"]
    if want == _native.DEQ_FMA and "fma" not in isa.split():
        want = _native.DEQ_NARROW
    assert _native.dequantize_kind(np.dtype(dtype), scale, zp) == want
    with _native.forced(True, simd=False):  # the FMA rows are run-time-picked vector kernels
        assert _native.dequantize_kind(np.dtype(dtype), scale, zp) == \
            (_native.DEQ_NARROW if want == _native.DEQ_FMA else want)
    with _native.forced(False):
        assert _native.dequantize_kind(np.dtype(dtype), scale, zp) is None


def test_the_library_uses_fma_where_the_cpu_has_it() -> None:
    """The library says "fma" when it uses its FMA rows; /proc/cpuinfo (or aarch64, where FMA is
    baseline) says whether it should, for the builds that pick kernels at run time (GCC, Linux:
    the pip and CI builds, whose ISA reads "x86-64 avx2 ..." or "aarch64 ...")."""
    isa = _native.info()["isa"].split()
    dispatching = isa[0] == "aarch64" or (isa[0] == "x86-64" and len(isa) > 1)
    if not dispatching:
        pytest.skip(f"a build without run-time kernel choice ({' '.join(isa)})")
    assert ("fma" in isa) == _cpu_has_fma(), isa


@pytest.mark.parametrize("dtype", ["uint16", "int16"])
def test_dequantize_fma_every_16_bit_code(dtype: str) -> None:
    """The FMA form over every 16-bit code against NumPy's float32 division, at random significands,
    at the ends of the scale range, and at zero points where |code - zp| reaches 2**16 (and one past,
    where the float64 form takes over)."""
    rng = np.random.default_rng(16)
    info = np.iinfo(dtype)
    codes = np.arange(info.min, info.max + 1).astype(dtype)
    tiny, huge = np.float32(2.0 ** -100), np.float32(2.0 ** 101)
    scales = [*rng.uniform(1, 2, 6).astype(np.float32) * np.float32(2.0) ** rng.integers(-20, 20, 6),
              np.nextafter(tiny, np.float32(1)), np.nextafter(huge, np.float32(0)), np.float32(1.9999999),
              np.float32(1.0000001), np.float32(35.142269)]
    lo, hi = info.max - 65536, info.min + 65536  # the zero points where max |code - zp| = 2**16
    for scale in scales:
        for zp in (0, lo, hi, lo - 1, hi + 1):  # (the last two: one past, the float64 form)
            t = _tensor(dtype, float(scale), zp)
            kind = _native.dequantize_kind(np.dtype(dtype), float(scale), zp)
            assert (kind == _native.DEQ_NARROW) == (zp in (lo - 1, hi + 1) or "fma" not in _native.info()["isa"])
            for simd in (True, False):
                ref, got = both(functools.partial(quant.dequantize, t, codes), simd=simd)
                same(ref, got)
                same(got, (codes.astype(np.int64) - zp).astype(np.float32) / np.float32(scale))


def test_dequantize_proof_tool(tmp_path: Path) -> None:
    """tools/prove_dequantize.c (CI runs it whole): a sample of its check passes for the kernel's
    formula and fails for the uncorrected product. Built as a shared library and called in-process,
    so that under qemu it runs as the platform's code."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        if os.environ.get("TIDL_IO_REQUIRE_CC") == "1":
            pytest.fail("TIDL_IO_REQUIRE_CC=1 but no C compiler found")
        pytest.skip("no C compiler")
    lib = tmp_path / "libprove.so"
    subprocess.run([*shlex.split(cc), "-O2", "-shared", "-fPIC", "-pthread", "-ffp-contract=off",
                    "-Dmain=prove_dequantize_main", "-I", str(PACKAGE / "native"), "-o", str(lib),
                    str(ROOT / "tools" / "prove_dequantize.c"), "-lm"], check=True)
    prove = ctypes.CDLL(str(lib)).prove_dequantize_main
    prove.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]

    def run(*args: str) -> int:
        argv = [b"prove", *(a.encode() for a in args)]
        return int(prove(len(argv), (ctypes.c_char_p * len(argv))(*argv)))

    assert run("--stride", "65521") == 0
    assert run("--stride", "65521", "--plain") == 1
    assert run("--stride", "0") == 2


@pytest.mark.parametrize("dtype", ["uint16", "int16", "int32"])
def test_dequantize_wide_codes(dtype: str) -> None:
    rng = np.random.default_rng(9)
    info = np.iinfo(dtype)
    if dtype.endswith("16"):
        codes = np.arange(info.min, info.max + 1, dtype=dtype)
    else:
        codes = np.concatenate([rng.integers(info.min, info.max, 50000, dtype=dtype, endpoint=True),
                                np.array([info.min, info.max, 0, -1, 1 << 24, (1 << 24) + 1], dtype)])
    for scale in (1.0, 0.1, 1 / 3, 128.0, 1e-40, 7.7e37):
        for zp in (0, -9, 1 << 23, (1 << 23) + 1, -(1 << 30)):
            t = _tensor(dtype, scale, zp)
            same(*both(functools.partial(quant.dequantize, t, codes)))


def test_dequantize_strided_out_and_two_threads() -> None:
    rng = np.random.default_rng(2)
    t = make_tensor("output", c=5, h=420, w=700, pads=(1, 1, 2, 0), pad_ch=1, dtype="int8", scale=3.3, zp=4)
    buf = rng.integers(-128, 128, t.alloc_size, dtype=np.int8)
    same(*both(lambda: unpack(t, buf), threads=2))
    same(*both(lambda: unpack(t, buf, layout="NHWC"), threads=2))
    def strided() -> np.ndarray:
        out = np.zeros((1, 5, 420, 1400), np.float32)
        unpack(t, buf, out=out[..., ::2])
        return out
    same(*both(strided, threads=2))


# ---- pack / unpack over the corpus ---------------------------------------------------

@pytest.mark.parametrize("path", corpus_params())
def test_corpus_tensors_pack_and_unpack(path: Path) -> None:
    rng = np.random.default_rng(1)
    for t in corpus_tensors(path):
        if t.alloc_size * t.dtype.itemsize > 64 << 20:
            continue
        x = user_data(t, rng)
        x.reshape(-1)[: min(3, x.size)] = np.nan
        for layout in ("NCHW", "NHWC"):
            xl = x if layout == "NCHW" else np.moveaxis(x, 3, 5).copy()
            for rounding in ("trunc", "nearest"):
                ref, got = both(functools.partial(pack, t, xl, layout=layout, rounding=rounding, nan="zero"),
                                threads=2)
                same(ref, got)
            codes = rng.integers(0, 200, t.alloc_size).astype(t.dtype)
            same(*both(functools.partial(unpack, t, codes, layout=layout, squeeze=False), threads=2))
            if t.dtype.kind != "f":
                ints = quant.quantize(t, x, nan="zero")
                il = ints if layout == "NCHW" else np.moveaxis(ints, 3, 5).copy()
                same(*both(functools.partial(pack, t, il, layout=layout)))


@given(t=geometries(), data=st.data())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_synthetic_geometries(t: Any, data: Any) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x = user_data(t, rng)
    layout = data.draw(st.sampled_from(["NCHW", "NHWC"]))
    xl = x if layout == "NCHW" else np.moveaxis(x, 3, 5).copy()
    rounding = data.draw(st.sampled_from(["trunc", "nearest"]))
    same(*both(lambda: pack(t, xl, layout=layout, rounding=rounding)))
    codes = rng.integers(-50, 200, t.alloc_size).astype(t.dtype)
    same(*both(lambda: unpack(t, codes, layout=layout)))


def test_hwc_frame_two_threads() -> None:
    rng = np.random.default_rng(4)
    t = make_tensor("input", c=3, h=1080, w=1920, pads=(1, 1, 0, 2), dtype="uint8")
    frame = rng.integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
    same(*both(lambda: pack(t, frame, layout="HWC"), threads=2))
    same(*both(lambda: pack(t, frame.astype(np.float32) * 0.7, layout="HWC"), threads=2))


# ---- copies: permute, reorg, in place ---------------------------------------------------------------

DTYPES = ["u1", "i2", "f4", "f8", "V3", "c16"]


def _array(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    dt = np.dtype(dtype)
    raw = rng.integers(0, 256, int(np.prod(shape)) * dt.itemsize, dtype=np.uint8)
    return raw.view(dt).reshape(shape)


@given(data=st.data())
@settings(max_examples=300, deadline=None)
def test_permute_any_geometry(data: Any) -> None:
    rank = data.draw(st.integers(1, 5))
    shape = tuple(data.draw(st.lists(st.integers(1, 9), min_size=rank, max_size=rank)))
    perm = tuple(data.draw(st.permutations(range(rank))))
    dtype = data.draw(st.sampled_from(DTYPES))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x = _array(rng, shape, dtype)
    if data.draw(st.booleans()):  # a non-contiguous source, maybe reversed
        big = _array(rng, tuple(2 * n for n in shape), dtype)
        x = big[tuple(slice(None, None, data.draw(st.sampled_from([2, -2]))) for _ in shape)]
    out_shape = tuple(shape[p] for p in perm)
    inner = tuple(slice(1, n + 1) for n in out_shape)
    padded = data.draw(st.booleans())  # into a strided view with a border that must stay zero
    def run() -> np.ndarray:
        if not padded:
            return permute(x, perm, out=np.zeros(out_shape, dtype))
        holder = np.zeros(tuple(n + 2 for n in out_shape), dtype)
        permute(x, perm, out=holder[inner])
        return holder
    ref, got = both(run)
    same(ref, got)
    same(ref[inner] if padded else ref, np.transpose(x, perm))


@pytest.mark.parametrize("case", [
    ((8, 64, 52, 52), (0, 2, 3, 1), "u1"), ((8, 64, 52, 52), (0, 2, 3, 1), "f4"),
    ((3, 517, 1031), (0, 2, 1), "f4"), ((1031, 517), (1, 0), "u1"), ((130, 70, 3), (2, 0, 1), "u1"),
    ((3, 333, 444), (1, 2, 0), "i2"), ((2, 300, 300, 4), (0, 3, 1, 2), "f8"), ((4, 1000, 999), (0, 2, 1), "V3"),
])
@pytest.mark.parametrize("threads", [1, 2])
def test_transposes_and_lanes_big(case: tuple[Any, ...], threads: int) -> None:
    shape, perm, dtype = case
    x = _array(np.random.default_rng(0), shape, dtype)
    ref, got = both(lambda: permute(x, perm), threads=threads)
    same(ref, got)
    same(got, np.transpose(x, perm))


# Sizes around the register tiles (16 x 16 bytes, 8 x 8 two-byte, 4 x 4 and 8 x 8 four-byte cells) and the cache
# blocks (64 columns, strips of 256 bytes): every kind of remainder, into a padded destination too.
EDGES = [1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 71, 257]


@pytest.mark.parametrize("isa", LEVELS)  # (sse2: no AVX2 tiles, as on SSE2-only CPUs; portable: no tiles)
@pytest.mark.parametrize("dtype", ["u1", "i2", "f4", "f8"])
@pytest.mark.parametrize("rows", EDGES)
def test_transpose_tile_edges(rows: int, dtype: str, isa: str) -> None:
    rng = np.random.default_rng(rows)
    for cols in EDGES:
        x = _array(rng, (rows, cols), dtype)
        holder = np.zeros((cols + 2, rows + 3), dtype)
        def run(x: np.ndarray = x, cols: int = cols, holder: np.ndarray = holder) -> np.ndarray:
            out = holder.copy()
            permute(x, (1, 0), out=out[1:cols + 1, 2:rows + 2])
            return out
        ref, got = both(run, isa=isa)
        same(ref, got)
        expect = np.zeros_like(holder)
        expect[1:cols + 1, 2:rows + 2] = x.T
        same(got, expect)


# On x86 a transpose goes through a block buffer (copy.c, tio_tr_strip): blocks of 32 or 64 source rows (from
# L2: native_info()["blocking"]["tr_cols"]; 64 of one-byte items), strips of 1024 bytes of each source row (at most 256 destination rows), and from 1 MiB
# of output on, every whole destination line by non-temporal stores, a row's partial line waiting for the
# next block. Each (dtype, rows, cols) has its own remainders of both (rows % block in 0, 1, 31, 63;
# cols % strip in 1, 5, 7, 65, 127, 129, 255); the padded destination starts its rows at every alignment
# and has a border that must stay zero.
@pytest.mark.parametrize("isa", LEVELS)
@pytest.mark.parametrize("padded", [False, True], ids=["plain", "padded"])
@pytest.mark.parametrize("case", [("u1", 1025, 1031), ("u1", 1087, 1025), ("i2", 705, 769), ("i2", 767, 767),
                                  ("f4", 513, 517), ("f4", 576, 641), ("f8", 385, 383), ("f8", 415, 321),
                                  ("f4", 1100, 1031, 2)])
def test_transpose_block_edges(case: tuple[Any, ...], padded: bool, isa: str) -> None:
    dtype, rows, cols, threads = (*case, 1)[:4]
    x = _array(np.random.default_rng(rows), (rows, cols), dtype)
    def run() -> np.ndarray:
        holder = np.zeros((cols + 2, rows + 3) if padded else (cols, rows), dtype)
        permute(x, (1, 0), out=holder[1:cols + 1, 2:rows + 2] if padded else holder)
        return holder
    ref, got = both(run, threads=threads, isa=isa)
    same(ref, got)
    expect = np.zeros_like(got)
    (expect[1:cols + 1, 2:rows + 2] if padded else expect)[...] = x.T
    same(got, expect)


# The in-place blocks are chosen from L1d at load time (native_info()["blocking"]: 64 four-byte cells with 32 or
# 48 KiB, 128 one-byte cells; 32 to 256 elsewhere): sizes around 8, 16, 32, 48, 64, 128 and one block plus a bit.
@pytest.mark.parametrize("isa", LEVELS)
@pytest.mark.parametrize("dtype", ["u1", "i2", "f4", "f8"])
@pytest.mark.parametrize("n", [8, 15, 16, 17, 24, 31, 32, 33, 40, 47, 49, 63, 65, 96, 100, 127, 129, 143])
def test_square_inplace_tile_edges(n: int, dtype: str, isa: str) -> None:
    x = _array(np.random.default_rng(n), (2, n, n), dtype)
    def run() -> np.ndarray:
        a = x.copy()
        return permute(a, (0, 2, 1), inplace=True).copy()
    ref, got = both(run, isa=isa)
    same(ref, got)
    expect = np.empty_like(x)
    for b in range(2):
        for i in range(n):
            for j in range(n):
                expect[b, i, j] = x[b, j, i]
    same(got, expect)


# Where the rows are whole lines apart (row bytes a multiple of 64), the blocks and the units of a line's
# cells squared start on the lines of the first row (copy.c): at every shift from a line's start, so that
# the first block and unit are pieces; sizes of several blocks, and two threads.
@pytest.mark.parametrize("isa", LEVELS)
@pytest.mark.parametrize("case", [("u1", 64, (0, 1, 17, 63)), ("u1", 320, (0, 5)), ("i2", 32, (0, 1, 31)),
                                  ("i2", 160, (3,)), ("f4", 16, (0, 1, 15)), ("f4", 48, (0, 4, 12)),
                                  ("f4", 336, (0, 1, 7, 12)), ("f8", 40, (0, 1, 7)), ("f4", 1024, (5, 2))])
def test_square_inplace_line_shifts(case: tuple[str, int, tuple[int, ...]], isa: str) -> None:
    dtype, n, shifts = case
    cell = np.dtype(dtype).itemsize
    x = _array(np.random.default_rng(n), (2, n, n), dtype)
    for shift in shifts:
        threads = 2 if n == 1024 and shift == 2 else 1
        def run(shift: int = shift) -> np.ndarray:
            raw = np.zeros(x.nbytes + 128, np.uint8)
            start = (-raw.ctypes.data) % 64 + shift * cell
            a = raw[start:start + x.nbytes].view(dtype).reshape(x.shape)
            a[...] = x
            assert a.ctypes.data % 64 == shift * cell % 64
            return permute(a, (0, 2, 1), inplace=True).copy()
        ref, got = both(run, threads=threads, isa=isa)
        same(ref, got)
        expect = np.stack([np.array([[x[b, j, i] for j in range(n)] for i in range(n)], dtype) for b in range(2)]) \
            if n <= 64 else x.transpose(0, 2, 1)
        same(got, expect)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("stride", [2, 3, 4, 5])
@pytest.mark.parametrize("dtype", ["u1", "f4", "i2"])
def test_reorg_modes(mode: str, stride: int, dtype: str) -> None:
    s = stride
    x = _array(np.random.default_rng(s), (2, 2 * s * s, 6 * s, 10 * s), dtype)
    ref, got = both(lambda: reorg(x, s, mode))
    same(ref, got)
    back_ref, back_got = both(lambda: reorg_inverse(got, s, mode))
    same(back_ref, back_got)
    same(back_got, x)


def test_reorg_two_threads() -> None:
    x = _array(np.random.default_rng(8), (2, 64, 104, 104), "f4")
    same(*both(lambda: reorg(x, 2), threads=2))
    same(*both(lambda: reorg_inverse(x, 2, "dcr"), threads=2))


@pytest.mark.parametrize("n,e,dtype", [(1, 1, "f4"), (3, 1, "u1"), (37, 1, "f4"), (64, 1, "f4"), (70, 2, "i2"),
                                       (33, 3, "f8"), (45, 1, "V3"), (129, 1, "u1")])
def test_square_inplace(n: int, e: int, dtype: str) -> None:
    x = _array(np.random.default_rng(n), (3, n, n, e), dtype)
    def run() -> np.ndarray:
        a = x.copy()
        return permute(a, (0, 2, 1, 3), inplace=True).copy()
    ref, got = both(run)
    same(ref, got)
    same(got, x.transpose(0, 2, 1, 3))


def test_square_inplace_two_threads() -> None:
    x = _array(np.random.default_rng(1), (1200, 1200), "f4")
    def run() -> np.ndarray:
        a = x.copy()
        permute(a, (1, 0), inplace=True)
        return a
    ref, got = both(run, threads=2)
    same(ref, got)
    same(got, x.T)


# ---- the ctypes signatures against the C header ----------------------------------------------------

def _header_exports() -> dict[str, tuple[str, list[str]]]:
    """name -> (return type, parameter types) of every TIO_EXPORT prototype in tidl_io_native.h, read
    from the text (comments removed, prototypes joined across lines)."""
    import re

    text = (PACKAGE / "native" / "tidl_io_native.h").read_text()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.DOTALL)
    text = re.sub(r"//[^\n]*", " ", text)
    found = {}
    for m in re.finditer(r"^TIO_EXPORT\s+([^;(]*?)\b(\w+)\s*\(([^)]*)\)\s*;", text, flags=re.MULTILINE):
        ret, name, params = " ".join(m[1].split()), m[2], " ".join(m[3].split())
        types = [] if params in ("void", "") else [re.sub(r"\s*\b\w+$", "", p.strip()) for p in params.split(",")]
        found[name] = (ret, types)
    return found


# C type -> ctypes: pointers to int64 are int64 arrays, a returned char pointer is a C string, every other
# pointer is passed as an address (c_void_p)
def _ctype(c: str, returned: bool = False) -> Any:
    c = c.replace("const ", "").strip()
    if c == "void" and returned:
        return None
    if c.endswith("*"):
        base = c[:-1].strip()
        if base == "int64_t":
            return ctypes.POINTER(ctypes.c_int64)
        if base == "char" and returned:
            return ctypes.c_char_p
        return ctypes.c_void_p
    return {"int": ctypes.c_int, "int64_t": ctypes.c_int64, "float": ctypes.c_float, "double": ctypes.c_double}[c]


def test_ctypes_signatures_match_the_header() -> None:
    exports = _header_exports()
    assert len(exports) >= 9 and "tio_quantize" in exports  # the parser found the prototypes
    assert exports["tio_dequantize"][1][:2] == ["float *", "const void *"]  # (a literal reading of one)
    assert sorted(_native.SIGNATURES) == sorted(exports), "SIGNATURES and the header export different functions"
    for name, (ret, params) in exports.items():
        restype, argtypes = _native.SIGNATURES[name]
        assert restype == _ctype(ret, returned=True), f"{name}: restype {restype} for C {ret!r}"
        assert list(argtypes) == [_ctype(p) for p in params], f"{name}: argtypes {argtypes} for C {params}"
        if _native.LIB is not None:  # and the loaded library was prototyped from the table
            fn = getattr(_native.LIB, name)
            assert fn.restype == restype and list(fn.argtypes) == list(argtypes)


def test_the_header_check_sees_a_wrong_signature() -> None:
    """Planted faults: a float for a double, one argument short."""
    exports = _header_exports()
    _, params = exports["tio_quantize"]
    wrong = list(_native.SIGNATURES["tio_quantize"][1])
    wrong[8] = ctypes.c_float
    assert wrong != [_ctype(p) for p in params]
    assert list(_native.SIGNATURES["tio_copy"][1])[:-1] != [_ctype(p) for p in exports["tio_copy"][1]]


class TestMergeAxes:
    """merge_axes is pure Python on shapes: it runs whether or not the library loaded."""

    @pytest.fixture(autouse=True)
    def native_lib(self) -> None:  # (overrides the module's: nothing to skip here)
        return None

    @pytest.mark.parametrize("seed", range(60))
    def test_merge_axes_walks_the_same_element_pairs(self, seed: int) -> None:
        """Copying through the merged walk equals np.copyto on the original views (random axis orders in
        memory, reversed axes, size-1 axes, a strided destination)."""
        from numpy.lib.stride_tricks import as_strided

        from tidl_io.native import merge_axes

        rng = np.random.default_rng(4000 + seed)
        ndim = int(rng.integers(1, 6))
        shape = tuple(int(v) for v in rng.integers(1, 4, ndim))

        def strided(base: np.ndarray) -> np.ndarray:
            """A view of ``base``'s memory with logical ``shape``, axes in a random memory order, some reversed."""
            perm = tuple(int(i) for i in rng.permutation(ndim))
            v = base.reshape(tuple(shape[i] for i in perm)).transpose(tuple(int(i) for i in np.argsort(perm)))
            return v[tuple(slice(None, None, -1) if rng.random() < 0.3 else slice(None) for _ in range(ndim))]

        size = int(np.prod(shape))
        dst_mem = np.zeros(2 * size, np.int32)
        src_mem = np.arange(1, 1 + size, dtype=np.int32)
        dst, src = strided(dst_mem[::2]), strided(src_mem)
        expect = dst_mem.copy()
        np.copyto(np.ndarray(dst.shape, dst.dtype, expect, _at(dst, dst_mem), dst.strides), src)
        m_shape, ds, ss, d_off, s_off = merge_axes(dst.shape, dst.strides, src.strides)
        assert len(m_shape) <= ndim and all(d > 0 for d in ds) and list(ds) == sorted(ds, reverse=True)
        d0 = np.ndarray((1,), dst.dtype, dst_mem, _at(dst, dst_mem) + d_off)
        s0 = np.ndarray((1,), src.dtype, src_mem, _at(src, src_mem) + s_off)
        np.copyto(as_strided(d0, m_shape, ds), as_strided(s0, m_shape, ss))
        np.testing.assert_array_equal(dst_mem, expect)
        assert int(np.count_nonzero(dst_mem)) == size


def _at(view: np.ndarray, base: np.ndarray) -> int:
    """Byte offset of ``view``'s first element in ``base``."""
    return view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
