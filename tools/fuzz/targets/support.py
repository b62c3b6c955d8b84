"""Target ``support``: mutated graphvizInfo.txt / allowedNode.txt / run.log summaries through
``tidl_io.support`` (one input in 16: index % 16 == 5: odd, never the net target's 3 mod 8
nor the releases target's 13 mod 32).

Seeds: the real graphvizInfo.txt files in ``../shared/realdata/net`` (and a small hand-made one),
then 1..4 text mutations (:func:`mutate_text`: a line cut, dropped, doubled or swapped, a token
replaced by an extreme, random bytes, truncation). Operations: ``parse_graphviz``,
``parse_subgraph_summary``, and ``load_support`` on a temp folder holding the mutated file with
a mutated allowedNode.txt and run.log, then ``to_text``, ``to_dict`` + strict JSON.
"""

from __future__ import annotations

import functools
import json
import random
import shutil
from pathlib import Path
from typing import Any

from ..checker import Checker
from ..corpus import ROOT
from ..inputs import FuzzInput

NAME = "support"
STAGE = "bytes"
_TOKENS = ("0", "-1", "1", "2147483647", "99999999999999999999", "x", "", "nan", "inf", "{", "}", "|", ",",
           "diagInfo", "outputAdjNodes", "inputAdjNodes", '"', "\x1b[31m", "\t")
_HAND = ("3\n0 a Conv outputAdjNodes 1 1 inputAdjNodes 0 input diagInfo\n1 b Div outputAdjNodes 1 2 inputAdjNodes 1 0 "
         "diagInfo Layer type not supported by TIDL\n2 c Relu outputAdjNodes 0 out inputAdjNodes 1 1 diagInfo\n")
_LOG = ("------------------------- Subgraph Information Summary -------------------------\n"
        "|          Core           |      No. of Nodes       |   Number of Subgraphs   |\n"
        "| C7x                     |                     2 |                       2 |\n"
        "| CPU                     |                     1 |                       x |\n")


def selects(checker: Checker, index: int) -> bool:
    return index % 16 == 5


@functools.cache
def _seeds() -> tuple[tuple[str, str], ...]:
    files = sorted((ROOT.parent / "shared" / "realdata" / "net").rglob("graphvizInfo.txt"))
    return (("hand", _HAND), *((p.parent.parent.name, p.read_text(errors="replace")) for p in files))


def mutate_text(text: str, rng: random.Random) -> tuple[str, list[str]]:
    """1..4 line/token mutations of ``text``; the steps as text."""
    lines = text.splitlines(keepends=True) or [""]
    steps = []
    for _ in range(rng.choice((1, 1, 2, 3, 4))):
        kind = rng.choice(("token", "token", "token", "drop", "double", "swap", "cut", "bytes"))
        i = rng.randrange(len(lines)) if lines else 0
        if kind == "token" and lines:
            toks = lines[i].split(" ")
            j = rng.randrange(len(toks))
            toks[j] = rng.choice(_TOKENS) if rng.random() < 0.7 else str(rng.randrange(-10, 10**6))
            lines[i] = " ".join(toks)
        elif kind == "drop" and len(lines) > 1:
            del lines[i]
        elif kind == "double" and lines:
            lines.insert(i, lines[i])
        elif kind == "swap" and len(lines) > 1:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "cut":
            joined = "".join(lines)
            lines = [joined[:rng.randrange(len(joined) + 1)]]
        else:
            pos = rng.randrange(len(lines))
            lines[pos] = lines[pos][:5] + "".join(chr(rng.randrange(0, 0x250)) for _ in range(rng.randrange(1, 8)))
        steps.append(f"{kind} @ {i}")
    return "".join(lines), steps


def run(checker: Checker, index: int, item: FuzzInput, desc: Any, rng: random.Random) -> None:
    from tidl_io.support import load_support, parse_graphviz, parse_subgraph_summary

    name, seed = rng.choice(_seeds())
    text, steps = mutate_text(seed, rng) if rng.random() < 0.75 else (seed, ["as is"])
    if checker.verbose:
        print(f"  support input: {name} | {' | '.join(steps)}")
    where = ("graphvizInfo.txt",)
    checker.op(index, "support parse_graphviz", lambda: parse_graphviz(text, "graphvizInfo.txt"), where)
    log = mutate_text(_LOG, rng)[0] if rng.random() < 0.25 else _LOG
    checker.op(index, "support parse_summary", lambda: parse_subgraph_summary(log, "run.log"), ("run.log",))
    folder = Path(checker.scratch) / "support"
    (folder / "tempDir").mkdir(parents=True, exist_ok=True)
    (folder / "tempDir" / "graphvizInfo.txt").write_text(text, errors="replace")
    allowed = "2\n1\n0\n2\n1\n2\n" if rng.random() < 0.75 else mutate_text("2\n1\n0\n2\n1\n2\n", rng)[0]
    (folder / "allowedNode.txt").write_text(allowed)
    (folder / "run.log").write_text(log, errors="replace")

    def whole() -> None:
        r = load_support(folder)
        r.to_text()
        json.dumps(r.to_dict(), allow_nan=False)
        if r.nodes:
            r.to_text(node=r.nodes[rng.randrange(len(r.nodes))].name)

    try:
        checker.op(index, "support load_support", whole, (str(folder),))
    finally:  # the scratch folder holds files only between inputs
        shutil.rmtree(folder, ignore_errors=True)
