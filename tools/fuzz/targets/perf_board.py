"""Target ``perf_board``: a mutated TI board file (see :mod:`._perf` for the seeds and the
mutations) through its reader, on one input in 64: index % 64 == 63. The four perf targets
together take index % 16 == 15: odd, so never the cli target's, and none of net's (3 mod 8),
releases' (13 mod 32), support's (5 mod 16) or precision's (7 mod 16)."""

from __future__ import annotations

import random
from typing import Any

from ..checker import Checker
from ..inputs import FuzzInput
from ._perf import run_reader

NAME = "perf_board"
STAGE = "bytes"
SOURCE = "fuzz_perf_board.txt"


def selects(checker: Checker, index: int) -> bool:
    return index % 64 == 63


def run(checker: Checker, index: int, item: FuzzInput, desc: Any, rng: random.Random) -> None:
    from tidl_io.perf.board import parse_board

    run_reader(checker, index, rng, "board", SOURCE, parse_board)
