"""Target ``precision``: mutated paramDebug.csv files and quant-params prototxts through
``tidl_io.precision`` (one input in 16: index % 16 == 7: odd, never the net target's 3 mod 8
nor the 5 mod 8 of the support and releases targets).

Seeds: the real paramDebug.csv files (the first 12 rows) and od-8220's model_qparams.prototxt
(the first 4 layers) in ``../shared/realdata/net``, and small hand-made ones; then 1..4 text
mutations (:func:`fuzz.targets.support.mutate_text`). Operations: ``parse_param_debug`` +
strict JSON of its rows; ``parse_quant_params``, ``to_bytes`` (must give the bytes back),
``problems``, an edit of one field and ``to_bytes`` again; ``load_quant`` on a temp folder
holding both, with ``to_text`` and strict JSON.
"""

from __future__ import annotations

import functools
import json
import random
import shutil
from pathlib import Path
from typing import Any

from ..checker import Checker, Unexpected
from ..corpus import ROOT
from ..inputs import FuzzInput
from .support import mutate_text

NAME = "precision"
STAGE = "bytes"
_HEAD = ("LayerId , meanDifference, maxDifference, meanOrigFloat, meanRelDifference, orgmax, quantizedMax,"
         "orgAtmaxDiff, quantizedAtMaxDiff,maxRelDifference, Scale , , , , Hist \n")
_CSV = _HEAD + "2,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,1.5,10, , , ,1,2,\n" * 2
_PROTO = ('num_layers: 1\nlayers {\n  layer_name: "a"\n  bit_depth: 1\n  outputs {\n    min: 0\n    max: 4\n'
          '    scale: 2\n    zero_point: 0\n  }\n}\n')


def selects(checker: Checker, index: int) -> bool:
    return index % 16 == 7


@functools.cache
def _seeds() -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    net = ROOT.parent / "shared" / "realdata" / "net"
    csvs = [("hand", _CSV)] + [(p.name, "".join(p.read_text().splitlines(keepends=True)[:13]))
                               for p in sorted(net.rglob("*_paramDebug.csv"))]
    protos = [("hand", _PROTO)]
    for p in sorted(net.rglob("*qparams*.prototxt")):
        text = p.read_text()
        protos.append((p.name, "\nlayers {\n".join(text.split("\nlayers {\n")[:5]) + "\n"))
    return tuple(csvs), tuple(protos)


def run(checker: Checker, index: int, item: FuzzInput, desc: Any, rng: random.Random) -> None:
    from tidl_io.precision import load_quant, parse_param_debug, parse_quant_params

    csvs, protos = _seeds()
    cname, ctext = rng.choice(csvs)
    pname, ptext = rng.choice(protos)
    csv_text, csteps = mutate_text(ctext, rng) if rng.random() < 0.5 else (ctext, ["as is"])
    proto_text, psteps = mutate_text(ptext, rng) if rng.random() < 0.5 else (ptext, ["as is"])
    if checker.verbose:
        print(f"  precision input: {cname} | {' | '.join(csteps)} ; {pname} | {' | '.join(psteps)}")

    def debug() -> None:
        json.dumps([r.to_dict(hist=True) for r in parse_param_debug(csv_text, "p.csv")], allow_nan=False)

    checker.op(index, "precision param_debug", debug, ("p.csv",))
    data = proto_text.encode("utf-8", errors="replace")

    def proto() -> None:
        q = parse_quant_params(data, "q.prototxt")
        if q.to_bytes() != data:
            raise Unexpected("QuantParams.to_bytes did not give the bytes back")
        q.problems()
        if q.layers:
            lay = q.layers[rng.randrange(len(q.layers))]
            lay.bit_depth = rng.choice((1, 2, 4))
            if lay.output is not None:
                lay.output.max = rng.choice((1.0, 1e30, float("inf"), 0.5))
            parse_quant_params(q.to_bytes(), "q.prototxt")

    checker.op(index, "precision quant_params", proto, ("q.prototxt",))
    folder = Path(checker.scratch) / "precision"
    (folder / "tempDir").mkdir(parents=True, exist_ok=True)
    (folder / "model").mkdir(exist_ok=True)
    (folder / "tempDir" / "s_tidl_net.bin_paramDebug.csv").write_text(csv_text, errors="replace")
    (folder / "model" / "m_qparams.prototxt").write_bytes(data)

    def whole() -> None:
        r = load_quant(folder)
        r.to_text(top=None)
        json.dumps(r.to_dict(), allow_nan=False)

    try:
        checker.op(index, "precision load_quant", whole, (str(folder),))
    finally:  # the scratch folder holds files only between inputs
        shutil.rmtree(folder, ignore_errors=True)
