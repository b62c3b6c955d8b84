"""Target ``golden_npz``: mutated golden ``.npz`` files (the reference ``tidl-io compare
--golden`` reads), on one input in 32 (index % 32 == 17: odd, so never one the cli target selects
with an even ``--cli-every``, and none of the other targets' residues).

The file comes from ``rng`` (so ``(seed, index)`` reproduces it): a few small arrays saved by
``np.savez`` or ``np.savez_compressed`` (float32, int8, uint16, float64 in Fortran order, and
the golden note as text), then 1..3 mutations: a member's ``.npy`` header replaced by a hostile
one (shapes of 10**12 elements, 2**40 x 2**40, negative, floats, 40 axes; structured, datetime,
complex, text, bool, object dtypes; a call instead of a literal; another format version), a
random byte, a cut, an extension. Operations: ``NpzArrays`` (the zip directory), then for each
member its header and shape, its array, the golden note (``read_meta``), and the golden
reference's answer for a layer of another shape (which must not read the data).
"""

from __future__ import annotations

import io
import random
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from ..checker import Checker
from ..inputs import FuzzInput

NAME = "golden_npz"
STAGE = "bytes"
SOURCE = "fuzz_golden.npz"

_HEADERS = (
    "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (-2, -3), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2.0, 3), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (" + "1, " * 40 + "), }",
    "{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (3,), }",
    "{'descr': '<M8[s]', 'fortran_order': False, 'shape': (3,), }",
    "{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }",
    "{'descr': '<U4', 'fortran_order': False, 'shape': (3,), }",
    "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
    "{'descr': '|O', 'fortran_order': False, 'shape': (3,), }",
    "{'descr': __import__('os').getpid(), 'fortran_order': False, 'shape': (3,), }",
    "{'descr': '<f4', 'fortran_order': 1, 'shape': (3,), }",
    "{'descr': '<f4', 'shape': (3,), }",
    "{'descr': '<f8', 'fortran_order': True, 'shape': (3, 4), }",
    "[1, 2, 3]",
    "{",
)


def selects(checker: Checker, index: int) -> bool:
    return index % 32 == 17  # odd (never cli's), and a residue no other target (nor the fuzz tests' index 1) takes


def _npy_header(text: str, version: int) -> bytes:
    head = text.encode("latin1")
    head += b" " * (-(len(head) + 11) % 64) + b"\n"
    size = len(head).to_bytes(2 if version == 1 else 4, "little")
    return b"\x93NUMPY" + bytes((version, 0)) + size + head


def make_npz(rng: random.Random) -> tuple[bytes, str]:
    """A small golden .npz and 1..3 mutations; the steps as text."""
    arrays = {"conv/out:0": np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4), "q": np.arange(-5, 5, dtype=np.int8),
              "u": np.arange(6, dtype=np.uint16), "f": np.asfortranarray(np.ones((3, 4))),
              "__tidl_io_golden__": np.array('{"model": "m.onnx", "layout": "NCHW"}')}
    compressed = rng.random() < 0.5
    steps = ["savez_compressed" if compressed else "savez"]
    members: dict[str, bytes] = {}
    for key, value in arrays.items():
        buf = io.BytesIO()
        np.lib.format.write_array(buf, value)
        members[key + ".npy"] = buf.getvalue()
    for _ in range(rng.choice((1, 1, 2, 3))):
        name = rng.choice(sorted(members))
        kind = rng.choice(("header", "header", "byte", "cut", "extend"))
        data = bytearray(members[name])
        if kind == "header":
            text = rng.choice(_HEADERS)
            payload = bytes(rng.choice((0, 12, 48, 4096)))
            data = bytearray(_npy_header(text, rng.choice((1, 1, 2, 3, 7))) + payload)
            steps.append(f"{name}: header {text[:40]!r}")
        elif kind == "byte" and data:
            pos = rng.randrange(min(len(data), 160))
            data[pos] = rng.randrange(256)
            steps.append(f"{name}: byte @ {pos}")
        elif kind == "cut":
            pos = rng.randrange(len(data) + 1)
            del data[pos:]
            steps.append(f"{name}: cut @ {pos}")
        else:
            data += bytes(rng.randrange(1, 512))
            steps.append(f"{name}: extend")
        members[name] = bytes(data)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED if compressed else zipfile.ZIP_STORED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    raw = bytearray(out.getvalue())
    if rng.random() < 0.15 and raw:  # the zip itself
        pos = rng.randrange(len(raw))
        raw[pos] = rng.randrange(256)
        steps.append(f"zip byte @ {pos}")
    return bytes(raw), " | ".join(steps)


def run(checker: Checker, index: int, item: FuzzInput, desc: Any, rng: random.Random) -> None:
    from tidl_io.base.atomic import write_bytes_atomic
    from tidl_io.trace.compare import GoldenReference, Target
    from tidl_io.trace.golden import read_meta
    from tidl_io.trace.npz import NpzArrays

    data, steps = make_npz(rng)
    if checker.verbose:
        print(f"  golden_npz input: {steps}")
    path = Path(checker.scratch) / SOURCE
    write_bytes_atomic(path, data)
    where = (str(path),)
    z = checker.op(index, "npz open", lambda: NpzArrays(path), where)
    if z is None:
        return
    checker.op(index, "npz meta", lambda: read_meta(z), where)
    ref = GoldenReference(z, "fuzz")
    for key in list(z.files):
        checker.op(index, "npz shape", lambda key=key: z.shape(key), where)
        checker.op(index, "npz array", lambda key=key: z[key], where)
        checker.op(index, "npz reference", lambda key=key: ref.get(Target(key, 0, (1, 7, 5, 3))), where)
