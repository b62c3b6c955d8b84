"""Target ``artifacts``: a whole compiled model's folder, its files mutated, through the one folder
reader and the doctor (one input in 64: index % 64 == 58, even but never 0 mod 4, so never the
cli target's with the fuzz tests' ``--cli-every 4``; the odd residues are all taken, 1 by the fuzz
tests' own descriptor inputs).

The folder is the bundled example (``tidl_io/examples``: io file, net, layer_info.txt,
onnxrtMetaData.txt, allowedNode.txt, param.yaml) with the input's bytes as its io file (a
mutated descriptor of the corpus), or as its net one time in four, and each text sidecar
mutated one time in two (:func:`fuzz.targets.support.mutate_text`). Operations:
``read_artifacts_folder`` must return (every file it cannot use is data in the object, never an
exception; what the path is: :attr:`ArtifactsFolder.checkable`); ``diagnose(check_library=False)``
raises a library error (a PathError: it cannot check) only where the reader says there is nothing
to check (the folder always holds TI-named io files, so never here), and otherwise returns a
report whose ``to_dict()`` is strict JSON and whose ``to_text()`` is text: findings stay findings.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

from ..checker import Checker, Unexpected
from ..corpus import EXAMPLES
from ..inputs import FuzzInput
from .support import mutate_text

NAME = "artifacts"
STAGE = "bytes"
_EXAMPLE = EXAMPLES
_SIDECARS = ("onnxrtMetaData.txt", "allowedNode.txt", "param.yaml", "detector_tidl_net.bin.layer_info.txt")


def selects(checker: Checker, index: int) -> bool:
    return index % 64 == 58


def run(checker: Checker, index: int, item: FuzzInput, desc: Any, rng: random.Random) -> None:
    import tidl_io
    from tidl_io.artifacts.reader import read_artifacts_folder

    folder = Path(checker.scratch) / f"artifacts{index % 4}"
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(_EXAMPLE, folder)
    as_net = rng.random() < 0.25
    (folder / ("detector_tidl_net.bin" if as_net else "detector_tidl_io_1.bin")).write_bytes(item.data)
    steps = ["as net" if as_net else "as io"]
    for name in _SIDECARS:
        if rng.random() < 0.5:
            text, how = mutate_text((_EXAMPLE / name).read_text(), rng)
            (folder / name).write_bytes(text.encode("utf-8", "surrogatepass"))
            steps.append(f"{name}: {', '.join(how)}")
    if checker.verbose:
        print(f"  artifacts folder: {'; '.join(steps)}")

    checkable = []

    def read() -> None:
        try:
            checkable.append(read_artifacts_folder(folder).checkable)
        except tidl_io.TidlIoError as exc:
            raise Unexpected(f"read_artifacts_folder raised {type(exc).__name__}: {exc}") from exc

    def doctor() -> None:
        try:
            found = tidl_io.diagnose(folder, check_library=False)
        except tidl_io.PathError as exc:  # it cannot check: a library error, where the reader said so only
            if checkable != [False]:
                raise Unexpected(f"diagnose raised {type(exc).__name__} for a folder the reader can check: "
                                 f"{exc}") from exc
            raise
        except tidl_io.TidlIoError as exc:
            raise Unexpected(f"diagnose raised {type(exc).__name__}: {exc}") from exc
        json.dumps(found.to_dict(), allow_nan=False)
        if not isinstance(found.to_text(), str):
            raise Unexpected("Diagnosis.to_text() gave no text")

    checker.op(index, "artifacts read", read, (str(folder),))
    checker.op(index, "artifacts diagnose", doctor, (str(folder),))
