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
