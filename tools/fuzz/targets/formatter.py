"""Target ``formatter``: the formatter (``descriptor_to_dict`` + strict JSON, the table, the
physical table), on half of the parsed inputs (index % 6 in 0..2, in rotation)."""

from __future__ import annotations

import json
import random
from typing import Any

from ..checker import SOURCE, Checker
from ..inputs import FuzzInput

NAME = "formatter"
STAGE = "descriptor"


def selects(checker: Checker, index: int) -> bool:
    return index % 6 < 3


def run(checker: Checker, index: int, item: FuzzInput, desc: Any, rng: random.Random) -> None:
    _format(checker, index, desc, index % 3)


def _format(checker: Checker, index: int, desc: Any, r: int) -> None:
    from tidl_io.iodesc.format import descriptor_to_dict, format_descriptor

    where = (SOURCE,)
    if r == 0:
        checker.op(index, "to_dict+json",
                 lambda: json.dumps(descriptor_to_dict(desc, SOURCE), allow_nan=False), where)
    else:
        checker.op(index, "format" + (" physical" if r == 2 else ""),
                 lambda: format_descriptor(desc, SOURCE, physical=r == 2), where)
