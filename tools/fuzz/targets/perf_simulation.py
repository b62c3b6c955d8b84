"""Target ``perf_simulation``: a mutated TI simulation file (see :mod:`._perf` for the seeds and the
mutations) through its reader, on one input in 64: index % 64 == 15. The four perf targets
together take index % 16 == 15: odd, so never the cli target's, and none of net's (3 mod 8),
releases' (13 mod 32), support's (5 mod 16) or precision's (7 mod 16)."""

from __future__ import annotations

import random
from typing import Any

from ..checker import Checker
from ..inputs import FuzzInput
from ._perf import run_reader

NAME = "perf_simulation"
STAGE = "bytes"
SOURCE = "fuzz_perf_simulation.txt"


def selects(checker: Checker, index: int) -> bool:
    return index % 64 == 15


def run(checker: Checker, index: int, item: FuzzInput, desc: Any, rng: random.Random) -> None:
    from tidl_io.perf.simulation import parse_simulation

    def use(sim: Any) -> None:
        for lay in sim.layers:
            _ = (lay.memory, dict(lay.values), float(sim.summary.time_us))

    run_reader(checker, index, rng, "simulation", SOURCE, parse_simulation, use)
