"""Shared test data: the real descriptor corpus in ../shared/realdata and our fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REALDATA = ROOT.parent / "shared" / "realdata"
FIXTURES = ROOT / "tests" / "fixtures"
GOLDEN = ROOT / "tests" / "golden"
SPECS = ROOT / "tools" / "fixtures"
EXAMPLES = ROOT / "tidl_io" / "examples"


def real_files() -> list[Path]:
    return sorted(REALDATA.glob("*.bin")) if REALDATA.is_dir() else []


def fixture_files() -> list[Path]:
    return sorted(FIXTURES.glob("*.bin"))


def corpus() -> list[Path]:
    """Every real file, fixture and bundled example: adding a file adds its tests."""
    return real_files() + fixture_files() + sorted(EXAMPLES.glob("*.bin"))


def corpus_params() -> list:
    files = corpus()
    params = [pytest.param(p, id=p.name[:60]) for p in files]
    if not real_files():
        params.append(pytest.param(None, marks=pytest.mark.skip(reason="../shared/realdata not present"),
                                   id="realdata-missing"))
    return params


@pytest.fixture(scope="session")
def realdata() -> Path:
    if not REALDATA.is_dir():
        pytest.skip("../shared/realdata not present")
    return REALDATA


@pytest.fixture(scope="module", params=["numpy", "native"])
def both_paths(request: pytest.FixtureRequest):
    """Run a module's tests on the NumPy path and again on the native kernels (msgpack /
    dissect.cstruct style). The native run skips when the library is not built, and fails
    instead when TIDL_IO_REQUIRE_NATIVE=1 (CI)."""
    import os

    from tidl_io import _native

    native = request.param == "native"
    if native and _native.LIB is None:
        if os.environ.get("TIDL_IO_REQUIRE_NATIVE", "").strip() == "1":
            pytest.fail(f"TIDL_IO_REQUIRE_NATIVE=1 but the native kernels are unavailable: {_native.REASON}")
        pytest.skip(f"native kernels unavailable: {_native.REASON}")
    with _native.forced(native):
        yield request.param
