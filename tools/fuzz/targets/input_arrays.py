"""Target ``input_arrays``: mutated users' input files (what every command's ``--input`` reads:
:mod:`tidl_io.data.arrays` and :mod:`tidl_io.data.picture`), on one input in 256 (index % 256 ==
129: odd, so never one the cli target selects with an even ``--cli-every``; every odd residue mod 64
but 1 is another target's, 65 mod 128 is net_layerinfo's, and index 1 is the fuzz tests').

The file comes from ``rng`` (so ``(seed, index)`` reproduces it): an ``.npy`` written by
``np.save`` (float32, int8, bool, float64 in Fortran order, an object array), a small PNG or
PPM, or text (YAML, a pickle), then 1..3 mutations: a hostile ``.npy`` header (the golden_npz
target's list), a random byte, a cut (to empty included), an extension. Operations:
``load_npy``, ``load_arrays`` and ``read_image`` on it: each gives an array or raises a located
``TidlIoError``.
"""

from __future__ import annotations

import io
import pickle
import random
import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from ..checker import Checker
from ..inputs import FuzzInput
from ._raw import change_byte, cut, extend
from .golden_npz import _HEADERS, _npy_header

NAME = "input_arrays"
STAGE = "bytes"
SOURCE = "fuzz_input.npy"


def selects(checker: Checker, index: int) -> bool:
    return index % 256 == 129


def _png(pixels: np.ndarray) -> bytes:
    h, w, _ = pixels.shape
    raw = b"".join(b"\x00" + pixels[y].tobytes() for y in range(h))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def make_file(rng: random.Random) -> tuple[bytes, str]:
    """A small input file and 1..3 mutations; the steps as text."""
    kind = rng.choice(("f4", "i1", "bool", "fortran", "object", "png", "ppm", "yaml", "pickle"))
    steps = [kind]
    pixels = np.arange(4 * 6 * 3, dtype=np.uint8).reshape(4, 6, 3)
    if kind == "png":
        data = bytearray(_png(pixels))
    elif kind == "ppm":
        data = bytearray(b"P6\n6 4\n255\n" + pixels.tobytes())
    elif kind == "yaml":
        data = bytearray(b"postprocess:\n  data_layout: NCHW\nsession:\n  input_mean: [0, 0, 0]\n")
    elif kind == "pickle":
        data = bytearray(pickle.dumps({"x": [1, 2, 3]}))
    else:
        value = {"f4": np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4), "i1": np.arange(-5, 5, dtype=np.int8),
                 "bool": np.array([True, False, True]), "fortran": np.asfortranarray(np.ones((3, 4))),
                 "object": np.array([None, 1], dtype=object)}[kind]
        buf = io.BytesIO()
        np.save(buf, value, allow_pickle=True)
        data = bytearray(buf.getvalue())
    for _ in range(rng.choice((1, 1, 2, 3))):
        what = rng.choice(("header", "byte", "byte", "cut", "extend"))
        if what == "header":
            text = rng.choice(_HEADERS)
            data = bytearray(_npy_header(text, rng.choice((1, 1, 2, 3, 7))) + bytes(rng.choice((0, 12, 48, 4096))))
            steps.append(f"header {text[:40]!r}")
        elif what == "byte" and data:
            steps.append(change_byte(data, rng, 160))
        elif what == "cut":
            steps.append(cut(data, rng))
        else:
            steps.append(extend(data, rng, 512))
    return bytes(data), " | ".join(steps)


def run(checker: Checker, index: int, item: FuzzInput, desc: Any, rng: random.Random) -> None:
    from tidl_io.base.atomic import write_bytes_atomic
    from tidl_io.data.arrays import load_arrays, load_npy
    from tidl_io.data.picture import read_image

    data, steps = make_file(rng)
    if checker.verbose:
        print(f"  input_arrays input: {steps}")
    path = Path(checker.scratch) / SOURCE
    write_bytes_atomic(path, data)
    where = (str(path),)
    checker.op(index, "input npy", lambda: load_npy(path), where)
    checker.op(index, "input arrays", lambda: load_arrays(path), where)
    checker.op(index, "input picture", lambda: read_image(path), where)
