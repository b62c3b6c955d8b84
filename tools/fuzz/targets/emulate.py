"""Target ``emulate``: :func:`tidl_io.emulate` on mutated synthetic 9.0 nets and mutated
inputs, on one input in 32 (index % 32 == 29: odd, so never the cli target's; disjoint from
net's 3 mod 8, releases' 13 mod 32, support's 5 mod 16, precision's 7 mod 16, hostile's 9 mod 16
and perf's 15 mod 16).

The net is :func:`tidl_io.emulator._fixture.tiny_net` (seeded from ``rng``) with 0..3
mutations: int32 extremes or random values at the parameter and data-param fields the
emulator reads (weights / bias offsets, channels, kernel, strides, pads, scales, roundBits,
element types, dims, pooling type, concat axis, quantizationStyle), random bytes in the
weights, a cut of the file. The inputs: the right shape mostly, else another shape, a list
or mapping of the wrong length, NaN / inf values, integers, 1-3 frames. Each run must end
in a result whose outputs have the output layer's shape times the frames, or in a
``TidlIoError`` naming the net file or the function.
"""

from __future__ import annotations

import random
import struct
from pathlib import Path
from typing import Any

import numpy as np

from ..checker import Checker, Unexpected
from ..inputs import FuzzInput
from ._raw import cut

NAME = "emulate"
STAGE = "bytes"
NET_FILE = "fuzz_emulate_tidl_net.bin"
_HEADER, _LAYER = 160, 1800  # 9.0
_OUT_DATA = 1672
_EXTREMES = (0, 1, -1, 2, 3, 5, 8, 31, 64, 255, 65535, 2**31 - 1, -(2**31), 0x7F800000, 0x7FC00000, 0x3F800000)
# layerParams members the decoder reads (byte offsets), and outData members (elementType, dims, scale, roundBits)
_PARAMS = (0, 4, 44, 48, 52, 56, 60, 64, 68, 72, 76, 88, 92, 96, 100, 104, 108, 140, 144)
_DATA = (4, 32, 36, 68, 84, 88, 92, 96)


def selects(checker: Checker, index: int) -> bool:
    return index % 32 == 29  # odd; 5 mod 8 (never net's), 29 mod 32 (never releases' 13)


def _mutate(rng: random.Random) -> tuple[bytes, str]:
    from tidl_io.emulator._fixture import tiny_net

    data, _ = tiny_net(rng.randrange(4))
    out = bytearray(data)
    steps = []
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        kind = rng.choice(("param", "param", "data", "header", "weights", "cut"))
        layer = rng.randrange(8)
        if kind in ("param", "data"):
            pos = _HEADER + layer * _LAYER + (rng.choice(_PARAMS) if kind == "param" else _OUT_DATA + rng.choice(_DATA))
            value = rng.choice(_EXTREMES) if rng.random() < 0.7 else rng.randrange(-2**31, 2**31)
            if pos + 4 <= len(out):
                struct.pack_into("<I" if value >= 2**31 else "<i", out, pos, value)
            steps.append(f"{kind} layer {layer} @ {pos} = {value}")
        elif kind == "header" and len(out) >= 36:
            struct.pack_into("<i", out, 32, rng.choice((0, 1, 3, 5, 6)))  # quantizationStyle
            steps.append("quantizationStyle")
        elif kind == "weights" and len(out) > 400:
            pos = rng.randrange(len(out) - 400, len(out))
            out[pos] = rng.randrange(256)
            steps.append(f"byte @ {pos}")
        elif kind == "cut":
            steps.append(cut(out, rng))
    return bytes(out), " | ".join(steps) or "unmutated"


def _inputs(rng: random.Random) -> tuple[Any, int]:
    frames = rng.choice((1, 1, 2, 3))
    shape: tuple[int, ...] = (frames, 2, 8, 12)
    pick = rng.random()
    if pick < 0.1:
        shape = rng.choice(((frames, 3, 8, 12), (2, 8), (0, 2, 8, 12), (frames, 2, 12, 8)))
    x: Any = np.random.default_rng(rng.randrange(2**32)).normal(0, 2, shape).astype(np.float32)
    if rng.random() < 0.1:
        x = np.round(x).astype(np.int32)
    elif rng.random() < 0.2 and x.size:
        x.flat[rng.randrange(x.size)] = rng.choice((np.nan, np.inf, -np.inf, 1e30))
    wrap = rng.random()
    if wrap < 0.1:
        x = [x, x]
    elif wrap < 0.2:
        x = {"input_0": x} if rng.random() < 0.5 else {"other": x}
    return x, frames


def run(checker: Checker, index: int, item: FuzzInput, desc: Any, rng: random.Random) -> None:
    import tidl_io
    from tidl_io.base.atomic import write_bytes_atomic

    data, steps = _mutate(rng)
    x, frames = _inputs(rng)
    if checker.verbose:
        print(f"  emulate input: {steps}")
    path = Path(checker.scratch) / NET_FILE
    write_bytes_atomic(path, data)
    where = (str(path), "emulate:", NET_FILE)

    def emulate() -> None:
        result = tidl_io.emulate(path, x)
        for layer in result.net.output_layers:
            src = result.net.layer_by_data_id(layer.inputs[0])
            want = (frames * src.shape[0], *src.shape[1:])
            got = [arr.shape for arr in result.outputs.values()]
            if any(tuple(g) != want for g in got):
                raise Unexpected(f"outputs {got}, expected {want} ({steps})")
        result.to_text()
        result.to_dict()

    checker.op(index, "emulate", emulate, where)
