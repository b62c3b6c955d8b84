"""Shared test data: the real descriptor corpus in ../shared/realdata and our fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import tidl_io
from tidl_io.iodesc.schema import schema_dir

ROOT = Path(__file__).resolve().parents[1]
# The package under test: the checkout's tidl_io/ (the README's test command) or the installed
# wheel's (CI's installed-wheel stage copies tests/ and tools/ out of the repository and sets
# TIDL_IO_TEST_INSTALLED=1). Everything the tests read of the package (the bundled example, the
# schemas, the C sources) is read from where tidl_io was imported, never from the checkout.
PACKAGE = Path(tidl_io.__file__).resolve().parent
SCHEMAS = schema_dir()
INSTALLED = os.environ.get("TIDL_IO_TEST_INSTALLED", "").strip() == "1"
# CPU-time bounds of the hostile-input tests are multiplied by this (tools/aarch64.sh sets 10: qemu)
TIME_SCALE = float(os.environ.get("TIDL_IO_TEST_TIME_SCALE", "1"))
# TIDL_IO_TEST_REALDATA overrides where the real corpus is looked for (test_misuse points it at a
# missing folder to check that every test needing it skips cleanly rather than fails).
REALDATA = Path(os.environ.get("TIDL_IO_TEST_REALDATA") or ROOT.parent / "shared" / "realdata")
FIXTURES = ROOT / "tests" / "fixtures"
GOLDEN = ROOT / "tests" / "golden"
SPECS = ROOT / "tools" / "fixtures"
EXAMPLES = PACKAGE / "examples"


def pytest_configure(config: pytest.Config) -> None:
    """With TIDL_IO_TEST_INSTALLED=1, refuse to run unless tidl_io is the installed package (in a
    site-packages folder, with no checkout of tidl_io beside the tests)."""
    if not INSTALLED:
        return
    problems = []
    if "site-packages" not in PACKAGE.parts:
        problems.append(f"tidl_io was imported from {PACKAGE}, not from a site-packages folder")
    if (ROOT / "tidl_io").exists() or (ROOT / "schemas").exists():
        problems.append(f"the tests sit beside a checkout ({ROOT} holds tidl_io/ or schemas/)")
    if SCHEMAS != PACKAGE / "schemas":
        problems.append(f"the schemas were found at {SCHEMAS}, not inside the installed package")
    if problems:
        raise pytest.UsageError("TIDL_IO_TEST_INSTALLED=1: " + "; ".join(problems))


def real_files() -> list[Path]:
    return sorted(REALDATA.glob("*.bin")) if REALDATA.is_dir() else []


def fixture_files() -> list[Path]:
    return sorted(FIXTURES.glob("*.bin"))


def example_files() -> list[Path]:
    """The bundled example io descriptors (not the example's net, detector_tidl_net.bin)."""
    return sorted(p for p in EXAMPLES.glob("*.bin") if "tidl_net" not in p.name)


def corpus() -> list[Path]:
    """Every real file, fixture and bundled example: adding a file adds its tests."""
    return real_files() + fixture_files() + example_files()


def corpus_params() -> list:
    files = corpus()
    params = [pytest.param(p, id=p.name[:60]) for p in files]
    if not real_files():
        params.append(pytest.param(None, marks=pytest.mark.skip(reason="../shared/realdata not present"),
                                   id="realdata-missing"))
    return params


@pytest.fixture
def readme_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder to run the README's commands in, whose ``tidl_io/examples`` is the bundled example
    of the package under test: the checkout itself, or (tests of the installed wheel) a copy of
    the installed example under that name."""
    import shutil

    where = ROOT
    if INSTALLED:
        where = tmp_path / "checkout"
        shutil.copytree(EXAMPLES, where / "tidl_io" / "examples")
    monkeypatch.chdir(where)
    return where


@pytest.fixture(scope="session")
def realdata() -> Path:
    if not REALDATA.is_dir():
        pytest.skip("../shared/realdata not present")
    return REALDATA


# ---- the TIDL-RT C stand-in (tests/tidlrt_standin), one shared library per layout family ----

STANDIN_SOURCE = ROOT / "tests" / "tidlrt_standin" / "tidlrt_standin.c"
STANDIN_FAMILIES = ("T4P-a", "T4P-b", "T4P-c", "T6P-d")
_STANDIN_DEFINES = {  # Params shape, Tensor shape, io layout; pre-8.0 (P-a) had no shared memory
    "T4P-a": ("STANDIN_PARAMS_PA", "STANDIN_IO_8X", "STANDIN_NO_SHARED_MEM"),
    "T4P-b": ("STANDIN_PARAMS_PB", "STANDIN_IO_8X"),
    "T4P-c": ("STANDIN_PARAMS_PC", "STANDIN_IO_8X"),
    "T6P-d": ("STANDIN_PARAMS_PD", "STANDIN_TENSOR_T6", "STANDIN_IO_L3"),
}
_STANDIN_VARIANTS = {"": (), "no-shared": ("STANDIN_NO_SHARED",), "board": ("STANDIN_BOARD",)}
STANDIN_CFLAGS = ("-O2", "-shared", "-fPIC", "-std=c99", "-Wall", "-Werror")


def compile_standin(cc: str, family: str, variant: str, out_dir: Path) -> Path:
    """``out_dir/libvx_tidl_rt.so`` built from the stand-in for ``family``; a compiler error fails the test."""
    import subprocess

    if family not in _STANDIN_DEFINES or variant not in _STANDIN_VARIANTS:
        raise ValueError(f"stand-in: unknown family {family!r} / variant {variant!r}; families: {STANDIN_FAMILIES}, "
                         f"variants: {tuple(_STANDIN_VARIANTS)}")
    out_dir.mkdir(parents=True, exist_ok=True)
    lib = out_dir / "libvx_tidl_rt.so"
    defines = [f"-D{d}" for d in _STANDIN_DEFINES[family] + _STANDIN_VARIANTS[variant]]
    cmd = [cc, *STANDIN_CFLAGS, *defines, "-o", str(lib), str(STANDIN_SOURCE), "-lm"]
    done = subprocess.run(cmd, check=False, capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"stand-in {family}{'/' + variant if variant else ''} did not compile: {' '.join(cmd)}\n"
                    f"{done.stderr}", pytrace=False)
    return lib


@pytest.fixture(scope="session")
def tidlrt_standin(tmp_path_factory: pytest.TempPathFactory):
    """``build(family, *, variant="") -> Path`` of a ``libvx_tidl_rt.so`` (own folder per build,
    cached). Skips without a C compiler, fails instead when TIDL_IO_REQUIRE_CC=1 (CI)."""
    import os
    import shutil

    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        if os.environ.get("TIDL_IO_REQUIRE_CC") == "1":
            pytest.fail("TIDL_IO_REQUIRE_CC=1 but no C compiler (cc, gcc, clang) found for the TIDL-RT stand-in",
                        pytrace=False)
        pytest.skip("no C compiler: the TIDL-RT stand-in tests need one (CI sets TIDL_IO_REQUIRE_CC=1)")
    root = tmp_path_factory.mktemp("tidlrt_standin")
    built: dict[tuple[str, str], Path] = {}

    def build(family: str, *, variant: str = "") -> Path:
        key = (family, variant)
        if key not in built:
            built[key] = compile_standin(cc, family, variant, root / (family + (f"-{variant}" if variant else "")))
        return built[key]

    return build


@pytest.fixture(scope="module", params=["numpy", "native"])
def both_paths(request: pytest.FixtureRequest):
    """Run a module's tests on the NumPy path and again on the native kernels (msgpack /
    dissect.cstruct style). The native run skips when the library is not built, and fails
    instead when TIDL_IO_REQUIRE_NATIVE=1 (CI)."""
    import os

    from tidl_io import native as _native

    native = request.param == "native"
    if native and _native.LIB is None:
        if os.environ.get("TIDL_IO_REQUIRE_NATIVE", "").strip() == "1":
            pytest.fail(f"TIDL_IO_REQUIRE_NATIVE=1 but the native kernels are unavailable: {_native.REASON}")
        pytest.skip(f"native kernels unavailable: {_native.REASON}")
    with _native.forced(native):
        yield request.param


# ---- the optional extra "golden" (onnxruntime, onnx, ai-edge-litert) ----

@pytest.fixture(scope="session")
def golden_extra() -> None:
    """Skip a test that needs the golden extra where it is not installed; with
    TIDL_IO_REQUIRE_GOLDEN=1 (CI's golden stage) fail instead."""
    import importlib.util
    import os

    missing = [m for m in ("onnxruntime", "onnx", "ai_edge_litert") if importlib.util.find_spec(m) is None]
    if missing:
        if os.environ.get("TIDL_IO_REQUIRE_GOLDEN", "").strip() == "1":
            pytest.fail(f"TIDL_IO_REQUIRE_GOLDEN=1 but {', '.join(missing)} missing: pip install '.[golden]'",
                        pytrace=False)
        pytest.skip(f"the golden extra is not installed ({', '.join(missing)} missing): pip install '.[golden]'")


ZERO_DCE = "net/real-time-llve-zero-dce-10.0"
EAST = "net/edgeai-tidl-east-9.0"
