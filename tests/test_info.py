"""tidl_io.runtime.info: the lines of `tidl-io info`, found or not, and extensible."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tidl_io.runtime import info


def test_without_a_library(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TIDL_IO_TIDLRT_LIBRARY", str(tmp_path / "none.so"))
    lines = dict(info.collect())
    assert lines["numpy"] == np.__version__
    assert lines["TIDL-RT library"].startswith("not found (TIDL-RT library not found; tried: ")
    assert lines["shared memory"] == "no TIDL-RT library"


def test_with_the_stand_in(tidlrt_standin, monkeypatch) -> None:
    monkeypatch.setenv("TIDL_IO_TIDLRT_LIBRARY", str(tidlrt_standin("T4P-c")))
    lines = dict(info.collect())
    assert "(found via $TIDL_IO_TIDLRT_LIBRARY)" in lines["TIDL-RT library"]
    assert lines["TIDL-RT layout"].startswith("T4P-c (") and "releases 08.06" in lines["TIDL-RT layout"]
    assert lines["shared memory"].startswith("working")
    monkeypatch.setenv("TIDL_IO_TIDLRT_LIBRARY", str(tidlrt_standin("T4P-a")))
    lines = dict(info.collect())
    assert "releases none in the table" in lines["TIDL-RT layout"]
    assert lines["shared memory"].startswith("not offered by this library")


def test_one_more_line_and_a_broken_provider(monkeypatch) -> None:
    monkeypatch.setattr(info, "PROVIDERS", list(info.PROVIDERS))

    def _native() -> tuple[str, str]:
        return "native kernels", "inactive (no compiler)"

    def _broken() -> tuple[str, str]:
        raise RuntimeError("boom")

    info.register(_native)
    info.register(_broken)
    lines = info.collect()
    assert lines[-2] == ("native kernels", "inactive (no compiler)")
    assert lines[-1] == ("broken", "error: RuntimeError: boom")
    text = info.format_info(lines)
    assert "native kernels:" in text and text.count("\n") == len(lines) - 1


def test_native_kernels_line_says_which_path_and_why(monkeypatch) -> None:
    from tidl_io import native as _native

    lines = dict(info.collect())
    state = _native.info()
    if state["active"]:
        assert lines["native kernels"].startswith(f"active: {state['path']} ({state['isa']}, ")
    else:
        assert lines["native kernels"] == f"off, NumPy path ({state['reason']})"
    with _native.forced(False):
        assert dict(info.collect())["native kernels"].startswith("off, NumPy path (")


def test_native_kernels_line_says_the_isa_level_and_caches() -> None:
    from tidl_io import native as _native

    state = _native.info()
    if not state["active"]:
        pytest.skip("native kernels unavailable")
    with _native.forced(True, isa="portable"):
        line = dict(info.collect())["native kernels"]
    assert "ISA level portable (of portable, " in line
    l1d = state["caches"]["l1d"]
    assert (f"L1d {l1d // 1024} KiB" if l1d % 1024 == 0 else f"L1d {l1d} B") in line
    assert f"blocks of {state['blocking']['sq_tile_f32']} four-byte cells" in line
    split = state["blocking"]["split_min"]  # (the last-level cache: a whole number of MiB on every CPU listed)
    assert f"(de)interleaves on one thread up to {split >> 20} MiB moved" in line or split % (1 << 20) != 0


INTEL = """processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Processor
flags\t\t: fpu sse2 sse4_1 avx avx2 fma avx512f avx512bw
processor\t: 1
model name\t: Intel(R) Xeon(R) Processor
"""
A72 = """processor\t: 0
BogoMIPS\t: 50.00
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid
CPU implementer\t: 0x41
CPU part\t: 0xd08
"""


def test_cpu_description_from_cpuinfo_texts() -> None:
    import os
    import platform
    tail = f", {os.cpu_count()} CPUs, {platform.machine()}"
    assert info.cpu_description(INTEL) == f"Intel(R) Xeon(R) Processor{tail} (sse4_1 avx2 fma avx512f)"
    assert info.cpu_description(A72) == f"CPU implementer 0x41 part 0xd08{tail} (asimd)"
    assert info.cpu_description("").endswith(tail)  # (no /proc/cpuinfo: platform's processor or "unknown CPU")
    assert dict(info.collect())["cpu"] == info.cpu_description()
