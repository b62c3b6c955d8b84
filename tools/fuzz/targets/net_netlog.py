"""Target ``net_netlog``: a mutated TI netLog (see :mod:`._perf` for the seeds and the
mutations) through :func:`tidl_io.net.netlog.parse_netlog`, the one netLog reader, on one input
in 64: index % 64 == 47 (the slot the perf targets' block of 15 mod 16 gives it: odd, so never
the cli target's, and none of net's (3 mod 8), releases' (13 mod 32), support's (5 mod 16) or
precision's (7 mod 16))."""

from __future__ import annotations

import random
from typing import Any

from ..checker import Checker
from ..inputs import FuzzInput
from ._perf import run_reader

NAME = "net_netlog"
STAGE = "bytes"
SOURCE = "fuzz_netLog.txt"


def selects(checker: Checker, index: int) -> bool:
    return index % 64 == 47


def run(checker: Checker, index: int, item: FuzzInput, desc: Any, rng: random.Random) -> None:
    from tidl_io.net.netlog import parse_netlog

    run_reader(checker, index, rng, "netlog", SOURCE, parse_netlog, label="net")
