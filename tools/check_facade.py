"""Check that every public name of tidl_io (and tidl_io.runtime) has its real type for mypy.

    python tools/check_facade.py        # needs mypy; exit 1 if any name is Any (or mypy fails)

Writes a file that ``reveal_type``\\ s each name of ``__all__`` (the lazily loaded ones
included, which mypy sees only through the TYPE_CHECKING imports) and runs mypy on it with
the project's settings. CI stage 4 runs this; tests/test_facade.py runs it too where mypy is
installed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

MODULES = ("tidl_io", "tidl_io.runtime")


def mypy_missing() -> bool:
    import importlib.util

    return importlib.util.find_spec("mypy") is None


def public_names() -> list[tuple[str, str]]:
    import importlib

    return [(mod, name) for mod in MODULES for name in importlib.import_module(mod).__all__]


def revealed(names: list[tuple[str, str]]) -> tuple[dict[str, str], str]:
    """name -> the type mypy reveals for it; and mypy's whole output."""
    lines = ["import tidl_io", "import tidl_io.runtime", ""]
    first = len(lines) + 1
    lines += [f"reveal_type({mod}.{name})" for mod, name in names]
    with tempfile.TemporaryDirectory(prefix="tidl-io-facade-") as tmp:
        probe = Path(tmp) / "facade_probe.py"
        probe.write_text("\n".join(lines) + "\n")
        env = dict(os.environ, MYPYPATH=str(ROOT))
        done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                               "--cache-dir", str(Path(tmp) / "cache"), "--no-error-summary", str(probe)],
                              capture_output=True, text=True, cwd=ROOT, env=env, check=False)
    out = done.stdout + done.stderr
    found: dict[str, str] = {}
    for m in re.finditer(r"facade_probe\.py:(\d+): note: Revealed type is \"(.*)\"", out):
        mod, name = names[int(m[1]) - first]
        found[f"{mod}.{name}"] = m[2]
    return found, out


def main() -> int:
    names = public_names()
    found, out = revealed(names)
    problems = [f"{q}: no type revealed" for q in (f"{m}.{n}" for m, n in names) if q not in found]
    problems += [f"{q}: {t}" for q, t in found.items() if t == "Any" or t.startswith("Any ")]
    errors = [ln for ln in out.splitlines() if ": error:" in ln]
    if problems or errors:
        print("typed facade: names without their real type:", *problems, *errors, sep="\n  ")
        return 1
    print(f"typed facade: {len(found)} public names, none Any")
    return 0


if __name__ == "__main__":
    sys.exit(main())
