"""The typed facade: every public name of tidl_io and tidl_io.runtime has its real type for
mypy (tools/check_facade.py, which CI stage 4 runs with the pinned mypy), and the lazily
loaded names load only on use."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES, ROOT

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


def _public_callables() -> list[tuple[str, object]]:
    """Every function and class in the ``__all__`` of tidl_io and of each library module (the CLI,
    which only prints, and the golden extra's module are left out), with the methods and
    properties of each class."""
    import importlib
    import inspect
    import pkgutil

    import tidl_io

    names = ["tidl_io"] + [m.name for m in pkgutil.walk_packages(tidl_io.__path__, "tidl_io.")
                           if not m.name.startswith(("tidl_io.cli", "tidl_io.native.lib"))
                           and m.name not in ("tidl_io.__main__", "tidl_io.trace.golden")]
    found: dict[int, tuple[str, object]] = {}
    for module_name in names:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            found.setdefault(id(obj), (f"{module_name}.{name}", obj))
            if inspect.isclass(obj):
                for member_name, member in vars(obj).items():
                    target = member.fget if isinstance(member, property) else member
                    if inspect.isfunction(target) and target.__module__.startswith("tidl_io"):
                        found.setdefault(id(target), (f"{module_name}.{name}.{member_name}", target))
    return sorted(found.values(), key=lambda item: item[0])


def test_every_public_hint_resolves_at_run_time() -> None:
    """typing.get_type_hints works on every public function, class and method (Sphinx, typer,
    beartype and pydantic read hints so): no name that exists only for type checkers."""
    import typing

    public = _public_callables()
    assert len(public) > 300
    assert any(name == "tidl_io.load_traces" for name, _ in public)
    failed = []
    for name, obj in public:
        try:
            typing.get_type_hints(obj)
        except Exception as exc:  # noqa: BLE001 - every failure is listed
            failed.append(f"{name}: {type(exc).__name__}: {exc}")
    assert failed == []


def _inspect_loads(path: Path) -> set[str]:
    code = ("import contextlib, io, sys\n"
            "from tidl_io.cli.app import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    code = main(['inspect', {str(path)!r}])\n"
            "print(code, ' '.join(sorted(m for m in sys.modules if m.startswith('tidl_io.'))))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    code, _, loaded = done.stdout.strip().partition(" ")
    assert code == "0"
    return set(loaded.split())


def test_inspect_of_an_io_file_loads_no_net_reader() -> None:
    modules = _inspect_loads(EXAMPLES / "detector_tidl_io_1.bin")
    assert "tidl_io.iodesc.descriptor" in modules
    assert sorted(m for m in modules if m.startswith("tidl_io.net")) == []


def test_inspect_loads_only_what_it_uses() -> None:
    """``tidl-io inspect`` of a folder with an io file and a net moves no data: it loads neither
    the native library nor the data-movement modules, nor any other command's part (issue 32:
    start-up had grown to 2.4x ``import numpy`` by the eager import of rearrange)."""
    modules = _inspect_loads(EXAMPLES)
    assert {"tidl_io.iodesc.descriptor", "tidl_io.net.parse", "tidl_io.cli.inspect"} <= modules
    parts = ("native", "data.permute", "data.blocked", "data.reorg", "data.buffers", "data.quant", "data.plan",
             "runtime", "run", "trace", "perf", "emulator", "advisor", "doctor.checks", "support", "precision")
    loaded_parts = sorted(m for m in modules for p in parts if m == f"tidl_io.{p}" or m.startswith(f"tidl_io.{p}."))
    assert loaded_parts == []
