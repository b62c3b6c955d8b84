"""Smoke run of tools/bench_net.py: it runs and reports every comparison it promises, on the
real 8.2 net or on the builder's stand-in of the same size."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_bench_net_quick_prints_all_comparisons() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "bench_net.py"), "--quick"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stderr
    for needle in ("82 layers", "target <= 20 ms", "ratio load_net/read", "first call, fresh process",
                   "x the file size (far below the file size)"):
        assert needle in proc.stdout, proc.stdout
