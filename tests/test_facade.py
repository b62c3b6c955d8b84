"""The typed facade: every public name of tidl_io and tidl_io.runtime has its real type for
mypy (tools/check_facade.py, which CI stage 4 runs with the pinned mypy), and the lazily
loaded names load only on use."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import check_facade

needs_mypy = pytest.mark.skipif(check_facade.mypy_missing(), reason="mypy not installed (CI stage 4 runs "
                                                                   "tools/check_facade.py with the pinned mypy)")


@needs_mypy
def test_no_public_name_is_any() -> None:
    names = check_facade.public_names()
    found, out = check_facade.revealed(names)
    assert len(found) == len(names), out
    anys = sorted(q for q, t in found.items() if t == "Any")
    assert not anys, out
    # a few literal expectations: a class, a lazily loaded function, a lazily loaded class
    assert found["tidl_io.Tensor"].endswith(") -> tidl_io.iodesc.tensor.Tensor")
    assert found["tidl_io.pack"].startswith("def (tensor: tidl_io.iodesc.tensor.Tensor, x: Any, out: Any =, *, layout: str =")
    assert found["tidl_io.MockC7xRuntime"].endswith(") -> tidl_io.runtime.mock.MockC7xRuntime")


@needs_mypy
def test_the_check_sees_an_untyped_name() -> None:
    """The probe reports Any where mypy only has the module's __getattr__ (the planted fault)."""
    found, out = check_facade.revealed([("tidl_io", "no_such_public_name")])
    assert found == {"tidl_io.no_such_public_name": "Any"}, out


def test_lazy_names_are_not_imported_eagerly() -> None:
    code = ("import sys, tidl_io, tidl_io.runtime; "
            "print(sorted(m for m in ('tidl_io.data.buffers', 'tidl_io.run.session', 'tidl_io.runtime.mock') "
            "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['tidl_io.data.buffers']"  # tidl_io.runtime's protocol needs as_buffer
