"""Build the native kernel library by hand: in place (for a source checkout) or cross-compiled.

    python tools/build_native.py                      # -> tidl_io/native/libtidl_io_native.so
    python tools/build_native.py --cc aarch64-linux-gnu-gcc --out DIR
    CC=clang python tools/build_native.py --cflags "-march=native"
    python tools/build_native.py --simde --out DIR     # the AVX-512 kernels through SIMDe (any CPU)

``pip install .`` does the same automatically; this is for in-place development builds and for
cross builds (the aarch64 CI stage). Point the loader at a library elsewhere with
TIDL_IO_NATIVE_LIB=DIR/libtidl_io_native.so. Exit status 1 when no compiler exists or it fails.
"""

from __future__ import annotations

import argparse
import importlib.util
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _native_dir() -> Path:
    """The kernels' sources: a checkout's tidl_io/native, else the installed package's (the wheel
    ships the C sources and build.py), found without importing tidl_io (and NumPy)."""
    if (ROOT / "tidl_io" / "native" / "build.py").is_file():
        return ROOT / "tidl_io" / "native"
    spec = importlib.util.find_spec("tidl_io")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("build_native: no tidl_io/native beside this tool and no installed tidl_io")
    return Path(next(iter(spec.submodule_search_locations))) / "native"


NATIVE = _native_dir()


def _build_module():  # by file path: no tidl_io (and no NumPy) import needed
    spec = importlib.util.spec_from_file_location("_tidl_io_build", NATIVE / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cc", help="compiler command (default: $CC, Python's CC, cc, gcc, clang)")
    parser.add_argument("--out", type=Path, default=NATIVE,
                        help="output folder (default: tidl_io/native, where the loader looks first)")
    parser.add_argument("--cflags", default="", help="extra compiler flags, e.g. '-march=native'")
    parser.add_argument("--simde", action="store_true",
                        help="the SIMDe build (libtidl_io_native_simde.so: AVX-512 kernels on any CPU, for tests)")
    args = parser.parse_args(argv)
    build = _build_module()
    try:
        path = build.build(args.out, args.cc, shlex.split(args.cflags), simde=args.simde)
    except (FileNotFoundError, subprocess.CalledProcessError) as exc:
        print(f"build_native: {exc}", file=sys.stderr)
        return 1
    print(f"{path} (sources {build.source_hash()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
