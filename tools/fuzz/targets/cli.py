"""Target ``cli``: ``tidl_io.cli.app.main`` on a temp file instead of the library calls
(``inspect``, ``inspect --json``, ``inspect --physical``, ``validate``, ``validate --json`` in
rotation), on one input in ``--cli-every``."""

from __future__ import annotations

import io
import json
import random
from typing import Any

from ..checker import SOURCE, Checker, Unexpected
from ..inputs import FuzzInput

NAME = "cli"
STAGE = "bytes"


def selects(checker: Checker, index: int) -> bool:
    return bool(checker.cli_every) and index % checker.cli_every == 0


def run(checker: Checker, index: int, item: FuzzInput, desc: Any, rng: random.Random) -> None:
    _cli(checker, index, item.data)


def _cli(checker: Checker, index: int, data: bytes) -> None:
    from tidl_io.base.atomic import write_bytes_atomic
    from tidl_io.cli.app import main

    path = checker.scratch / SOURCE
    write_bytes_atomic(path, data)
    argv = (["inspect"], ["inspect", "--json"], ["inspect", "--physical"], ["validate"],
            ["validate", "--json"])[(index // max(checker.cli_every, 1)) % 5]

    def run() -> None:
        out, err = io.StringIO(), io.StringIO()
        code = main([*argv, str(path)], out=out, err=err)
        if code not in (0, 1):
            raise Unexpected(f"tidl-io {' '.join(argv)} exited {code}")
        if "Traceback" in err.getvalue():
            raise Unexpected(f"tidl-io {' '.join(argv)} printed a traceback")
        if code == 1 and argv[0] == "inspect" and not err.getvalue().startswith("tidl-io: error: "):
            raise Unexpected(f"tidl-io {' '.join(argv)} exited 1 without a one-line error")
        if "--json" in argv:
            json.loads(out.getvalue())

    checker.op(index, "cli " + " ".join(argv), run, (SOURCE,))
