"""Target ``graphviz``: hostile graphvizInfo.txt files through
:func:`tidl_io.support.parse_graphviz` (the ``support`` target mutates TI's real files token by
token; this one makes what those mutations rarely reach): node counts and indices of 5000
digits, around the cap or in other scripts' digits, lines of up to 400 KB repeating TI's
markers (``outputAdjNodes``, ``inputAdjNodes``, ``additionalOutput``, ``diagInfo``), adjacency
lists of many ids, cycles of up to 4096 nodes. One input in 64: index % 64 == 42 (even, 2 mod
4: see :mod:`.numbers`).

Invariants beyond "nodes or a located FormatError": a parse takes under 0.5 s; nodes read
agree with TI's line pattern as a regular expression (the oracle) on lines under 2 000
characters; node i's outputs and inputs are within the count.
"""

from __future__ import annotations

import random
import re
import time
from typing import Any

from ..checker import Checker, Unexpected
from ..inputs import FuzzInput

NAME = "graphviz"
STAGE = "bytes"
SOURCE = "fuzz_graphvizInfo.txt"
_PATTERN = re.compile(r"^(\d+) (.*) (\S+) outputAdjNodes (.*?) inputAdjNodes (.*?)"
                      r"(?: additionalOutput (.*?))?(?: diagInfo(?: (.*))?)?$")
_MARKERS = (" outputAdjNodes ", " inputAdjNodes ", " additionalOutput ", " diagInfo", " diagInfo ", " ", "  ")
_NUMBERS = ("0", "1", "-1", "9" * 5000, "32768", "32769", "\u00b2", "\u0663", "1e3", "", "x")


def selects(checker: Checker, index: int) -> bool:
    return index % 64 == 42


def _cycle(n: int, rng: random.Random) -> str:
    diag = rng.choice(("", "Layer type not supported by TIDL", "[PARSER] SUPPORTED: x -- [f.cpp, 9]"))
    return f"{n}\n" + "".join(f"{i} n {i} Relu outputAdjNodes 1 {(i + 1) % n} inputAdjNodes 1 {(i - 1) % n} "
                              f"diagInfo {diag}\n" for i in range(n))


def _hostile(rng: random.Random) -> str:
    kind = rng.choice(("markers", "numbers", "cycle", "ids"))
    if kind == "markers":
        body = "".join(rng.choice(_MARKERS) + rng.choice(("x", "0", "a b", "")) for _ in range(rng.randrange(1, 4)))
        return "1\n0 " + body * rng.choice((1, 10, 1000, 20_000)) + "\n"
    if kind == "numbers":
        n = rng.choice(_NUMBERS)
        return rng.choice((f"{n}\n", f"1\n{n} a b outputAdjNodes 0 o inputAdjNodes 0 i diagInfo\n",
                           f"1\n0 a b outputAdjNodes {n} inputAdjNodes 0 i diagInfo\n",
                           (f"2\n0 a b outputAdjNodes 1 {n} inputAdjNodes 0 i diagInfo\n1 c d outputAdjNodes 0 o "
                            "inputAdjNodes 0 i diagInfo\n")))
    if kind == "cycle":
        text = _cycle(rng.choice((1, 2, 3, 100, 4096)), rng)
        if rng.random() < 0.5:
            cut = rng.randrange(len(text))
            text = text[:cut] + rng.choice(_MARKERS + _NUMBERS) + text[cut:]
        return text
    ids = " ".join(str(rng.randrange(0, 3)) for _ in range(rng.choice((1, 100, 50_000))))
    return f"3\n0 a b outputAdjNodes {len(ids.split())} {ids} inputAdjNodes 0 i diagInfo\n" \
           "1 c d outputAdjNodes 0 o inputAdjNodes 0 i diagInfo\n2 e f outputAdjNodes 0 o inputAdjNodes 0 i diagInfo\n"


def run(checker: Checker, index: int, item: FuzzInput, desc: Any, rng: random.Random) -> None:
    from tidl_io.support import parse_graphviz

    text = _hostile(rng)
    if checker.verbose:
        print(f"  graphviz input: {text[:120]!r} ({len(text)} characters)")

    def parse() -> Any:
        start = time.process_time()
        try:
            nodes = parse_graphviz(text, SOURCE)
        finally:
            if time.process_time() - start > 0.5:
                raise Unexpected(f"parse_graphviz took {time.process_time() - start:.2f} s")
        lines = [line for line in text.splitlines()[1:] if line.strip()]
        for node, line in zip(nodes, lines):
            if any(not 0 <= i < len(nodes) for i in node.outputs + node.inputs):
                raise Unexpected(f"node {node.index}: an id outside the {len(nodes)} nodes")
            m = _PATTERN.match(line.rstrip()) if len(line) < 2000 and " outputAdjNodes " not in line.split(
                " outputAdjNodes ", 1)[-1] else None
            if m is not None and (node.name, node.op, node.diag) != (m.group(2), m.group(3), (m.group(7) or "").strip()):
                raise Unexpected(f"line {node.line}: read {(node.name, node.op, node.diag)!r}, the pattern says "
                                 f"{(m.group(2), m.group(3), m.group(7))!r}")
        return nodes

    checker.op(index, "graphviz parse", parse, (SOURCE,))
