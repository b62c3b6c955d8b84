"""The fuzz corpus: the real files in ``../shared/realdata``, ``tests/fixtures`` and the bundled examples."""

from __future__ import annotations

from pathlib import Path

import tidl_io
from tidl_io.iodesc.schema import schema_dir

ROOT = Path(__file__).resolve().parents[2]
# the package under test, a checkout's or the installed one (CI runs the tools outside the checkout too)
PACKAGE = Path(tidl_io.__file__).resolve().parent
EXAMPLES = PACKAGE / "examples"
SCHEMAS = schema_dir()


def default_corpus_dirs() -> list[Path]:
    return [ROOT.parent / "shared" / "realdata", ROOT / "tests" / "fixtures", EXAMPLES]


def load_corpus(dirs: list[Path]) -> list[tuple[str, bytes]]:
    files: list[tuple[str, bytes]] = []
    for d in dirs:
        if d.is_file():
            files.append((d.name, d.read_bytes()))
        elif d.is_dir():
            # io descriptors only: nets (tidl_net) have their own target (targets/net.py)
            files += [(p.name, p.read_bytes()) for p in sorted(d.glob("*.bin")) if "tidl_net" not in p.name]
    if not files:
        raise SystemExit("fuzz: no corpus files found")
    return files
