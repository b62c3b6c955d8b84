"""Compile the native kernels into a plain shared library (no Python.h; one build serves every Python).

Standard library only, and importable by file path (setup.py loads it before tidl_io and its
dependencies exist), so nothing here imports tidl_io or NumPy. Used by setup.py (``pip install``),
by ``tools/build_native.py`` (in-place and cross builds) and by the loader (the source hash).
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
LIB_NAME = "libtidl_io_native.so"
# The SIMDe build (build(..., simde=True)): avx512.c's kernels through SIMDe's portable implementations of
# the same intrinsics (Debian's libsimde-dev; SIMDE_INCLUDE names another folder holding simde/), so
# that the tests run them on any CPU; a library of its own name, never loaded unless asked for.
SIMDE_LIB_NAME = "libtidl_io_native_simde.so"
SIMDE_FLAGS = ["-DTIO_SIMDE", "-DTIO_NO_CLONES", "-DTIO_X512_DEINT"]  # (copy.c: the VBMI deinterleave too)
# Flags every build needs: -ffp-contract=off keeps ``x * scale + zp`` two roundings (TIDL's),
# never a fused multiply-add; no -ffast-math anywhere (NaN, inf and signed zeros must behave).
BASE_FLAGS = ["-std=c99", "-O3", "-fPIC", "-shared", "-pthread", "-ffp-contract=off", "-fno-math-errno",
              "-fvisibility=hidden", "-Wall", "-Wextra", "-Werror=implicit-function-declaration"]


def sources(folder: Path = HERE) -> list[Path]:
    """The C sources and headers of the library, in a fixed order."""
    return sorted(list(folder.glob("*.c")) + list(folder.glob("*.h")))


def source_hash(folder: Path = HERE) -> str:
    """16 hex digits identifying the sources; compiled into the library so that the loader can
    refuse a library built from other sources (a stale in-tree build)."""
    digest = hashlib.sha256()
    for path in sources(folder):
        digest.update(path.name.encode() + b"\0" + path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return digest.hexdigest()[:16]


def find_compiler(cc: str | None = None) -> list[str] | None:
    """The compiler command: ``cc`` if given, else $CC, else Python's configured CC, else cc/gcc/clang;
    None when none of them exists."""
    candidates = [cc] if cc else [os.environ.get("CC") or "", sysconfig.get_config_var("CC") or "",
                                  "cc", "gcc", "clang"]
    for candidate in candidates:
        words = shlex.split(candidate)
        if words and shutil.which(words[0]):
            return words
    return None


def simde_header() -> Path | None:
    """SIMDe's AVX-512 header (``$SIMDE_INCLUDE/simde/x86/avx512.h``, else the system's), None if absent."""
    folders = [os.environ["SIMDE_INCLUDE"]] if os.environ.get("SIMDE_INCLUDE") else ["/usr/include", "/usr/local/include"]
    for folder in folders:
        header = Path(folder) / "simde" / "x86" / "avx512.h"
        if header.is_file():
            return header
    return None


def build(out_dir: Path, cc: str | None = None, extra_flags: list[str] | None = None,
          quiet: bool = False, simde: bool = False) -> Path:
    """Compile into ``out_dir``/LIB_NAME (written atomically) and return its path; with ``simde``, the
    SIMDe build into ``out_dir``/SIMDE_LIB_NAME (FileNotFoundError when SIMDe's headers are missing).

    Raises FileNotFoundError when no compiler exists and subprocess.CalledProcessError when it fails.
    ``extra_flags`` (or $TIDL_IO_NATIVE_CFLAGS) are appended, e.g. ``-march=native``.
    """
    command = find_compiler(cc)
    if command is None:
        raise FileNotFoundError(f"no C compiler found ({cc or os.environ.get('CC') or 'cc, gcc, clang'})")
    flags = list(BASE_FLAGS) + shlex.split(os.environ.get("TIDL_IO_NATIVE_CFLAGS", "")) + list(extra_flags or [])
    name = LIB_NAME
    if simde:
        header = simde_header()
        if header is None:
            raise FileNotFoundError("SIMDe's headers (simde/x86/avx512.h) not found: install libsimde-dev "
                                    "or set SIMDE_INCLUDE")
        flags += SIMDE_FLAGS + (["-I", os.environ["SIMDE_INCLUDE"]] if os.environ.get("SIMDE_INCLUDE") else [])
        name = SIMDE_LIB_NAME
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / name
    c_files = [str(p) for p in sources() if p.suffix == ".c"]
    with tempfile.TemporaryDirectory(dir=out_dir, prefix=".build-") as tmp:
        partial = Path(tmp) / name
        argv = [*command, *flags, f'-DTIDL_IO_SOURCE_HASH="{source_hash()}"', "-I", str(HERE),
                "-o", str(partial), *c_files, "-lm"]
        if not quiet:
            print(" ".join(shlex.quote(a) for a in argv), file=sys.stderr)
        subprocess.run(argv, check=True)
        os.replace(partial, target)
    return target


def try_build(out_dirs: list[Path], cc: str | None = None) -> list[Path]:
    """build() for pip: on any failure print ONE line saying that the NumPy path will be used and
    return []; else copy the library into every folder of ``out_dirs`` and return the paths."""
    try:
        first = build(out_dirs[0], cc, quiet=True)
    except FileNotFoundError as exc:
        print(f"tidl-io: {exc}: native kernels skipped, the NumPy path will be used", file=sys.stderr)
        return []
    except (subprocess.CalledProcessError, OSError) as exc:
        print(f"tidl-io: compiling the native kernels failed ({exc}): the NumPy path will be used",
              file=sys.stderr)
        return []
    built = [first]
    for folder in out_dirs[1:]:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / (LIB_NAME + ".tmp")
        shutil.copyfile(first, tmp)
        os.replace(tmp, folder / LIB_NAME)
        built.append(folder / LIB_NAME)
    return built
