"""Target ``net_layerinfo``: a mutated ``layer_info.txt`` (TI's real ones and a built-in one;
the mutations of :mod:`._perf`) through :func:`tidl_io.net.layerinfo.parse_layer_info`, the one
layer_info reader, with and without a line limit, on one input in 128: index % 128 == 65.
Every odd residue mod 64 but 1 is taken (see ``TARGETS``), and index 1 is the fuzz tests'
descriptor input: 65 mod 128 is odd, 1 mod 64, and never 1."""

from __future__ import annotations

import random
from typing import Any

from ..checker import Checker
from ..inputs import FuzzInput
from ._perf import run_reader

NAME = "net_layerinfo"
STAGE = "bytes"
SOURCE = "fuzz_layer_info.txt"


def selects(checker: Checker, index: int) -> bool:
    return index % 128 == 65


def run(checker: Checker, index: int, item: FuzzInput, desc: Any, rng: random.Random) -> None:
    from tidl_io.net.layerinfo import parse_layer_info

    limit = rng.choice((None, 1, 4, 82, 122))

    def use(info: Any) -> Any:
        if limit is not None and len(info) > limit:
            raise AssertionError(f"{len(info)} lines read with a limit of {limit}")
        return info.by_index(), info.names

    run_reader(checker, index, rng, "layer_info", SOURCE, lambda text, source: parse_layer_info(text, source, limit),
               use, label="net")
