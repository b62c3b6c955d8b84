"""The emulator's table of layer types (tidl_io.emulator.ops): one module per TI type, one row each, the
README's table equal to it, and no chain over layer types left in the decoder or the layer loop."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import tidl_io.emulator.ops as ops_pkg
from tidl_io.emulator.ops import OPS, Op, OpType, markdown_table

from conftest import PACKAGE, ROOT

EMULATOR = PACKAGE / "emulator"


def _type_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(ops_pkg.__path__) if m.name != "base")


def test_one_module_one_row() -> None:
    names = []
    for name in _type_modules():
        module = importlib.import_module(f"tidl_io.emulator.ops.{name}")
        kind = module.TYPE
        assert isinstance(kind, OpType) and OPS[kind.name] is kind, name
        assert kind.name.startswith("TIDL_") and kind.name.endswith("Layer")
        assert kind.decode.__module__ == module.__name__
        # the module's Op subclasses each carry their own kernel (run)
        own = [v for v in vars(module).values() if isinstance(v, type) and issubclass(v, Op) and v is not Op
               and v.__module__ == module.__name__]
        assert own and all("run" in vars(cls) for cls in own), name
        names.append(kind.name)
    assert sorted(names) == sorted(OPS)  # no row without its module


def test_readme_table_is_the_registry() -> None:
    text = (ROOT / "README.md").read_text()
    begin, end = "<!-- emulator-types: begin -->\n", "\n<!-- emulator-types: end -->"
    table = text[text.index(begin) + len(begin):text.index(end)]
    assert table == markdown_table()
    rows = [line for line in table.splitlines()[2:]]
    assert [r.split("|")[1].strip().strip("`") for r in rows] == list(OPS)


def _type_names_compared(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for part in [node.left, *node.comparators]:
                if isinstance(part, ast.Constant) and isinstance(part.value, str) and part.value.startswith("TIDL_"):
                    found.append(part.value)
    return found


def _isinstance_on_ops(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance":
            kinds = node.args[1]
            for k in kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]:
                if isinstance(k, ast.Name) and k.id.endswith("Op"):
                    found.append(k.id)
    return found


def test_no_chain_over_layer_types() -> None:
    for name in ("decode.py", "run.py"):
        tree = ast.parse((EMULATOR / name).read_text())
        assert _type_names_compared(tree) == [], name
        assert _isinstance_on_ops(tree) == [], name
    # the checks can fail: the old decoder's chain
    old = ast.parse('if layer.type == "TIDL_ConvolutionLayer":\n    pass\nif isinstance(op, ConvOp):\n    pass\n')
    assert _type_names_compared(old) == ["TIDL_ConvolutionLayer"] and _isinstance_on_ops(old) == ["ConvOp"]


def test_ops_package_is_documented() -> None:
    assert Path(ops_pkg.__file__).read_text().startswith('"""One module per TI layer type')
