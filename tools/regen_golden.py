"""Regenerate tests/golden/ from the corpus (real files, fixtures, bundled examples).

    python tools/regen_golden.py          # rewrite every golden file
    python tools/regen_golden.py --check  # exit 1 if any golden file would change

Each descriptor gets ``<file>.json`` (``tidl-io inspect --json``) and ``<file>.txt``
(``tidl-io inspect --physical``), produced from inside the file's folder so no machine
path ends up in them. Review the diff before committing: golden files pin behaviour, the
independent checks live in tests/test_descriptor.py.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from tidl_io.base.atomic import write_bytes_atomic
from tidl_io.cli.app import main as cli_main

from conftest import GOLDEN, corpus


def render(path: Path) -> dict[str, str]:
    """The golden texts of one descriptor file, keyed by golden file suffix."""
    out = {}
    for suffix, argv in ((".json", ["inspect", "--json", path.name]), (".txt", ["inspect", "--physical", path.name])):
        buf = io.StringIO()
        with contextlib.chdir(path.parent) if hasattr(contextlib, "chdir") else _chdir(path.parent):
            code = cli_main(argv, out=buf, err=sys.stderr)
        if code != 0:
            raise SystemExit(f"{path.name}: inspect exited {code}")
        out[suffix] = buf.getvalue()
    return out


@contextlib.contextmanager
def _chdir(folder: Path):  # Python 3.10 has no contextlib.chdir
    old = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(old)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="report differences, write nothing")
    args = parser.parse_args(argv)
    GOLDEN.mkdir(exist_ok=True)
    stale = 0
    for path in corpus():
        for suffix, text in render(path).items():
            target = GOLDEN / (path.name + suffix)
            if target.exists() and target.read_text() == text:
                continue
            stale += 1
            print(f"{'differs' if args.check else 'wrote'}: {target.relative_to(ROOT)}")
            if not args.check:
                write_bytes_atomic(target, text.encode())
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
