"""Finding and loading TIDL-RT, guarded structs (tidl_io.runtime.tidlrt.library)."""

from __future__ import annotations

import ctypes
import ctypes.util
import shutil
import sysconfig
from pathlib import Path

import pytest

from tidl_io import LibraryNotFoundError, TidlRtError
from tidl_io.runtime.tidlrt import families
from tidl_io.runtime.tidlrt.library import GUARD, Guarded, load_library


@pytest.fixture
def clean_env(monkeypatch):
    monkeypatch.delenv("TIDL_IO_TIDLRT_LIBRARY", raising=False)
    monkeypatch.delenv("TIDL_TOOLS_PATH", raising=False)
    return monkeypatch


def test_not_found_lists_everything_tried(clean_env, tmp_path: Path) -> None:
    clean_env.setenv("TIDL_TOOLS_PATH", str(tmp_path / "tools"))
    with pytest.raises(LibraryNotFoundError) as err:
        load_library()
    tried = err.value.tried
    assert [t.split(" (")[0] for t in tried] == [
        "libvx_tidl_rt.so", "libvx_tidl_rt.so.1.0", str(tmp_path / "tools" / "libvx_tidl_rt.so"),
        str(tmp_path / "tools" / "libvx_tidl_rt.so.1.0")]
    assert "(dynamic loader)" in tried[0] and "($TIDL_TOOLS_PATH): no such file" in tried[2]
    assert "Set TIDL_IO_TIDLRT_LIBRARY to the library's path" in str(err.value)
    assert isinstance(err.value, FileNotFoundError) and isinstance(err.value, TidlRtError)
    clean_env.setenv("TIDL_IO_TIDLRT_LIBRARY", str(tmp_path / "x.so"))
    with pytest.raises(LibraryNotFoundError, match=r"tried: .*x.so \(\$TIDL_IO_TIDLRT_LIBRARY\): no such file"):
        load_library()
    with pytest.raises(LibraryNotFoundError, match=r"tried: .*y.so \(library= argument\): no such file"):
        load_library(tmp_path / "y.so")
    bad = tmp_path / "bad.so"
    bad.write_bytes(b"not an ELF file")
    with pytest.raises(LibraryNotFoundError, match=r"bad.so \(library= argument\): .*"):
        load_library(bad)


def test_search_order_env_then_tools_path_and_the_versioned_name(tidlrt_standin, clean_env, tmp_path: Path) -> None:
    built = tidlrt_standin("T6P-d")
    tools = tmp_path / "tidl_tools"
    tools.mkdir()
    shutil.copy(built, tools / "libvx_tidl_rt.so.1.0")  # only the versioned name, as boards often have
    clean_env.setenv("TIDL_TOOLS_PATH", str(tools))
    lib = load_library()
    assert lib.path == str((tools / "libvx_tidl_rt.so.1.0").resolve()) and lib.how == "$TIDL_TOOLS_PATH"
    clean_env.setenv("TIDL_IO_TIDLRT_LIBRARY", str(built))
    lib = load_library()
    assert lib.path == str(built.resolve()) and lib.how == "$TIDL_IO_TIDLRT_LIBRARY"
    again = load_library(built)  # loaded once, never unloaded: the same handle and lock
    assert again.handle is lib.handle and again.lock is lib.lock and again.how == "library= argument"
    assert lib.missing == () and lib.has("TIDLRT_allocSharedMem")


def test_a_library_without_tidlrt_functions_is_refused() -> None:
    # A real shared library of this interpreter's own architecture (under qemu the host's x86 libm
    # is visible as a file but is not loadable): the multiarch folder Debian's Python reports.
    libm = ctypes.util.find_library("m")
    arch = sysconfig.get_config_var("MULTIARCH") or ""
    folders = [f"/lib/{arch}", f"/usr/lib/{arch}"] if arch else []
    folders += ["/lib64", "/usr/lib64", "/lib", "/usr/lib"]
    path = next((f"{d}/{libm}" for d in folders if libm and Path(f"{d}/{libm}").is_file()), None)
    assert path is not None, f"no {libm!r} in {folders}: the test needs a shared library without TIDL-RT symbols"
    with pytest.raises(TidlRtError, match=r"not a usable TIDL-RT library: missing function\(s\) "
                                          r"TIDLRT_setParamsDefault, TIDLRT_setTensorDefault, TIDLRT_create"):
        load_library(path)


def test_older_library_lacks_optional_functions(tidlrt_standin) -> None:
    lib = load_library(tidlrt_standin("T4P-a"))
    assert set(lib.missing) == {"TIDLRT_allocSharedMem", "TIDLRT_freeSharedMem", "TIDLRT_isSharedMem"}
    with pytest.raises(TidlRtError, match="this TIDL-RT library has no TIDLRT_allocSharedMem"):
        lib.fn("TIDLRT_allocSharedMem")


def test_guard_band_names_the_struct_and_the_overrun() -> None:
    layout = families()["T4P-c"].params
    g = Guarded(layout, "sTIDLRT_Params_t")
    assert ctypes.sizeof(g.raw) == GUARD + 104 + GUARD and g.addr == ctypes.addressof(g.raw) + GUARD
    g.check("TIDLRT_create", "T4P-c")  # intact
    g.struct.coreNum = 9  # writes inside the struct are fine
    g.check("TIDLRT_create", "T4P-c")
    ctypes.memset(g.addr + 104, 0, 5)
    with pytest.raises(TidlRtError, match=r"TIDLRT_create wrote outside sTIDLRT_Params_t .*up to 5 byte\(s\) past"):
        g.check("TIDLRT_create", "T4P-c")
    g2 = Guarded(families()["T6P-d"].tensor, "the tensor")
    ctypes.memset(g2.addr - 3, 0, 3)
    with pytest.raises(TidlRtError, match=r"3 byte\(s\) before its start"):
        g2.check("TIDLRT_invoke", "T6P-d")

