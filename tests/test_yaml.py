"""tidl_io.base.safe_yaml: YAML from a user's folder is bounded in size, depth and aliases before it is built."""

from __future__ import annotations

import re
import time
import tracemalloc
from pathlib import Path

import pytest

from tidl_io import FormatError, PathError
from tidl_io.base.safe_yaml import load_yaml, load_yaml_file

# "billion laughs": 9 anchors, each a list of 9 aliases of the one before (9**9 leaves, 342 bytes)
BOMB = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{k}: &{k} [{', '.join([f'*{p}'] * 9)}]\n" for p, k in zip("abcdefgh", "bcdefghi"))


def _measured(fn: object, *args: object) -> tuple[BaseException | None, float, int]:
    tracemalloc.start()
    start = time.process_time()
    error = None
    try:
        fn(*args)  # type: ignore[operator]
    except BaseException as exc:  # noqa: BLE001 - returned to the test, which says what it must be
        error = exc
    spent = time.process_time() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return error, spent, peak


def test_long_strings_and_numbers_within_the_cap_still_read() -> None:
    assert load_yaml("a: '" + "9" * 5000 + "'\nb: " + "9" * 64 + "\nc: x" + "9" * 5000, "p.yaml") == {
        "a": "9" * 5000, "b": int("9" * 64), "c": "x" + "9" * 5000}


def test_a_param_yaml_reads_as_pyyaml_reads_it() -> None:
    text = "session:\n  input_mean: [0, 0, 0]\n  artifacts_folder: artifacts\nbase: &b {x: 1}\nuse: *b\n"
    assert load_yaml(text, "param.yaml") == {"session": {"input_mean": [0, 0, 0], "artifacts_folder": "artifacts"},
                                            "base": {"x": 1}, "use": {"x": 1}}


@pytest.mark.parametrize(("text", "message"), [
    ("[" * 5000 + "]" * 5000, "nest"),  # RecursionError in PyYAML's composer before
    ("k: " + "[" * 70 + "]" * 70, "nest more than 64 deep"),
    (BOMB, r"line \d+: the value holds more than 100000 items once its aliases"),
    ("k: " + "x" * 17_000_000, "17000003 characters of YAML; at most 1048576 are read"),
    ("k: [1, 2\n", "not valid YAML: "),
    ("k: !!python/object:os.system x\n", "not valid YAML: "),  # safe types only
    ("session:\n  runtime_options:\n    max_num_subgraphs: " + "9" * 5000 + "\n",
     "line 3: a number of 5000 characters; at most 64 are read"),  # ValueError: Python's digit limit
    ("k: " + "1:" * 3000 + "1\n", "line 1: a number of 6001 characters"),  # a sexagesimal int of 5000+ digits
    ("k: [0.5, " + "1" * 65 + ".5]\n", "line 1: a number of 67 characters"),
])
def test_hostile_yaml_is_a_located_format_error_in_bounded_time_and_memory(text: str, message: str) -> None:
    error, spent, peak = _measured(load_yaml, text, "param.yaml")
    assert isinstance(error, FormatError), repr(error)
    assert str(error).startswith("param.yaml: ")
    assert re.search(message, str(error)), str(error)
    assert len(str(error)) < 400  # never the value itself
    assert spent < 2.0 and peak < 200 << 20, (spent, peak)


def test_alias_bound_counts_expanded_items() -> None:
    ok = "a: &a [1, 2, 3]\nb: [*a, *a, *a]\n"  # b holds 1 + 3 * 4 = 13 items, aliases expanded
    assert load_yaml(ok, "p.yaml")["b"] == [[1, 2, 3]] * 3
    with pytest.raises(FormatError, match="more than 10 items"):
        load_yaml(ok, "p.yaml", max_nodes=10)


def test_load_yaml_file_paths(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text("a: 1\n")
    assert load_yaml_file(tmp_path / "p.yaml") == {"a": 1}
    with pytest.raises(PathError):
        load_yaml_file(tmp_path / ("x" * 300))
    with pytest.raises(PathError):
        load_yaml_file(tmp_path)
    (tmp_path / "big.yaml").write_bytes(b"k: " + b"x" * 2_000_000)
    with pytest.raises(FormatError, match="more than 1048576 bytes"):
        load_yaml_file(tmp_path / "big.yaml")
