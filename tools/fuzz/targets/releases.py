"""Target ``releases``: mutated release tables (``schemas/releases.yaml``) instead of descriptors,
on one input in 32 (index % 32 == 13: odd, and not 3 modulo 8, so neither the cli nor the net
target takes it).

The table comes from ``rng`` (so ``(seed, index)`` reproduces it): the shipped table with 1..4
line-level mutations: a line dropped, duplicated or swapped with the next, a value replaced
(by another release spelling, a number, null, a list, a mapping, text), a byte changed, the
text cut. Operations: ``parse_table`` (or ``load_table`` on a temp file one time in four),
then, with the table in use, every spelling and look-up of ``tidl_io.base.releases`` and the net
version view the net reader builds from it.
"""

from __future__ import annotations

import functools
import random
import re
from pathlib import Path
from typing import Any

from ..checker import Checker
from ..corpus import SCHEMAS
from ..inputs import FuzzInput

NAME = "releases"
STAGE = "bytes"
TABLE_SOURCE = "fuzz_releases.yaml"
_VALUES = ('"08.06"', '"8.6"', '"99.99"', '"00.00"', "8.6", "08.06", "null", "[]", "{}", "[0x20230802]",
           "[0x20230802, 0x20230802]", "[-1]", "[4294967296]", "0x20250821", "tidl_9_0.yaml", '"x"', "true",
           "'T6P-d'", "[1, [2]]", "{a: 1}", '"11_01_06_00"', "&a x", "*a", "!!python/object:os.system x")
_VALUE = re.compile(r"(?P<head>^\s*-?\s*[a-z_]+:\s*)(?P<value>.*)$")


def selects(checker: Checker, index: int) -> bool:
    return index % 32 == 13  # odd (never cli's), 5 modulo 8 (never net's)


@functools.cache
def _shipped() -> str:
    return (SCHEMAS / "releases.yaml").read_text(encoding="utf-8")


def make_table(rng: random.Random) -> tuple[bytes, str]:
    """The shipped table with 1..4 mutations; the steps as text."""
    lines = _shipped().splitlines(keepends=True)
    steps = []
    for _ in range(rng.choice((1, 1, 2, 3, 4))):
        kind = rng.choice(("value", "value", "value", "drop", "dup", "swap", "byte", "cut"))
        i = rng.randrange(len(lines)) if lines else 0
        if kind == "value" and lines:
            m = _VALUE.match(lines[i])
            if m is not None:
                lines[i] = m.group("head") + rng.choice(_VALUES) + "\n"
        elif kind == "drop" and lines:
            del lines[i]
        elif kind == "dup" and lines:
            lines.insert(i, lines[i])
        elif kind == "swap" and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        elif kind == "byte" and lines and lines[i]:
            pos = rng.randrange(len(lines[i]))
            lines[i] = lines[i][:pos] + chr(rng.randrange(32, 127)) + lines[i][pos + 1:]
        elif kind == "cut":
            del lines[i:]
        steps.append(f"{kind} @ line {i + 1}")
    return "".join(lines).encode("utf-8"), " | ".join(steps)


def run(checker: Checker, index: int, item: FuzzInput, desc: Any, rng: random.Random) -> None:
    from tidl_io.base.releases import load_table, parse_table

    data, steps = make_table(rng)
    if checker.verbose:
        print(f"  releases input: {steps}")
    if index % 128 == 13:  # the file path: bounded reads
        from tidl_io.base.atomic import write_bytes_atomic

        path = Path(checker.scratch) / TABLE_SOURCE
        write_bytes_atomic(path, data)
        table = checker.op(index, "releases load_table", lambda: load_table(str(path)), (str(path),))
    else:
        table = checker.op(index, "releases parse_table", lambda: parse_table(data, TABLE_SOURCE), (TABLE_SOURCE,))
    if table is None:
        return

    def use() -> None:
        from tidl_io.base.releases import find_release, releases_label, releases_text, using_table
        from tidl_io.net.schema import known_versions_text, net_versions

        with using_table(table):
            for row in table:
                assert find_release(row.release.ti) == row.release, row
                assert find_release(row.release.short) == row.release, row
                for word in row.net_versions:
                    assert row.release in table.of_net_version(word), (row, word)
                _ = (table.with_io(row.io or ""), table.with_tidlrt(row.tidlrt or ""), dict(row.evidence))
            _ = (releases_label(r.release for r in table), releases_text(r.release.ti for r in table),
                 known_versions_text(), {w: v.release for w, v in net_versions().items()})

    checker.op(index, "releases use", use, (TABLE_SOURCE,))
