"""Smoke run of tools/bench_parse.py: it runs and reports every comparison it promises."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_bench_parse_quick_prints_all_ratios() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "bench_parse.py"), "--quick"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for needle in ("ratio ours/plain", "numpy.frombuffer (floor)", "process: python -c 'import numpy'"):
        assert needle in out
