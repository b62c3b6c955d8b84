"""Fuzz tidl-io with mutated descriptor files: the command line of the ``tools/fuzz/`` package
(see its docstring for what is fuzzed and how to add a target).

    python tools/fuzz.py --n 100000 --seed 1 --jobs 2     # the full run (minutes on 2 cores)
    python tools/fuzz.py --n 2000                         # a short run (CI)
    python tools/fuzz.py --seed 1 --replay 4711           # rerun one input in-process, verbosely
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _path in (str(ROOT / "tools"), str(ROOT)):  # the fuzz package (it wins over this file), tidl_io
    if _path not in sys.path:
        sys.path.insert(0, _path)

from fuzz.run import main

if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
    sys.exit(130)
