"""Target ``advise``: a mutated ``tidl-io compare --json`` report through the advisor's
adapter and the whole advice on the bundled example model (one input in 64: index % 64 == 33:
odd, so never the cli target's; not net's 3 mod 8, releases' 13 mod 32, support's 5 mod 16,
precision's 7 mod 16, hostile's 9 mod 16, emulate's 29 mod 32 nor the perf targets' 15 mod 16).

Seed: a report of the example net's layers (index, name, type and SNRs, means, channels in
compare's shape, both spellings of a non-finite SNR), one key per line; then 1..4 text
mutations (:func:`fuzz.targets.support.mutate_text`). Operations: ``read_compare`` +
``measured_rows``; ``tidl_io.advise`` of the example folder with that report, ``to_text`` and
strict JSON. Only located TidlIoErrors (naming the report) may come out.
"""

from __future__ import annotations

import functools
import json
import random
import shutil
from pathlib import Path
from typing import Any

from ..checker import Checker
from ..corpus import EXAMPLES
from ..inputs import FuzzInput
from .support import mutate_text

NAME = "advise"
STAGE = "bytes"
_EXAMPLE = EXAMPLES
_VALUES = (None, True, -1, 0, 2**70, 1e308, -1e308, 5e-324, "inf", "-inf", "nan", "", "x\x1b[0m", [], {}, -0.0,
           "compared", 99, 3.5)


def selects(checker: Checker, index: int) -> bool:
    return index % 64 == 33


@functools.cache
def _seed() -> str:
    from tidl_io import load_net

    net = load_net(_EXAMPLE / "detector_tidl_net.bin")
    layers = []
    for k, lay in enumerate(net.layers):
        snr: Any = [None, "inf", "-inf", "nan", 12.5, 30.0, 41.25][k % 7]
        layers.append({"index": lay.index, "data_id": lay.data_id, "name": lay.name, "type": lay.type,
                       "status": "compared" if k % 5 else "no reference", "snr_db": snr, "identical": k % 3 == 0,
                       "mean_abs": 0.01 * (k + 1), "worst_channel": k % 4, "worst_channel_snr_db": 3.0 * k,
                       "saturated": 0.001 * k,
                       **({"worst_counted_channel": k % 3, "worst_counted_channel_snr_db": 4.0 * k} if k % 2 else {})})
    return json.dumps({"schema_version": 1, "layers": layers, "test": "traces in t (net detector_tidl_net.bin)"},
                      indent=1)


def run(checker: Checker, index: int, item: FuzzInput, desc: Any, rng: random.Random) -> None:
    from tidl_io import advise
    from tidl_io.advisor.source import measured_rows, read_compare

    if rng.random() < 0.5:
        text, steps = mutate_text(_seed(), rng)
    else:  # valid JSON, hostile values: deeper into the adapter and the model
        doc = json.loads(_seed())
        steps = []
        for _ in range(rng.randrange(1, 5)):
            row = rng.choice(doc["layers"])
            key = rng.choice(sorted(row))
            row[key] = rng.choice(_VALUES)
            steps.append(f"{key}={row[key]!r:.20}")
        text = json.dumps(doc)
    if checker.verbose:
        print(f"  advise input: {' | '.join(steps)}")
    folder = Path(checker.scratch) / "advise"
    folder.mkdir(parents=True, exist_ok=True)
    report = folder / "compare.json"
    report.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    where = (str(report),)
    checker.op(index, "advise read_compare", lambda: measured_rows(read_compare(report), str(report)), where)

    def whole() -> None:
        a = advise(_EXAMPLE, compare=report, perf=False)
        a.to_text(top=None)
        json.dumps(a.to_dict(), allow_nan=False)

    try:
        checker.op(index, "advise advise", whole, where)
    finally:  # the scratch folder holds files only between inputs
        shutil.rmtree(folder, ignore_errors=True)
