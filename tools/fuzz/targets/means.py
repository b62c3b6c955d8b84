"""Target ``means``: a mutated ``LayerPerChannelMean.bin`` through
:func:`tidl_io.emulator.means.parse_means`, on one input in 512 (index % 512 == 257: 1 mod 256,
the one odd residue no other raw-bytes target takes, and never index 1).

The seeds: TI's real means files with their nets (``../shared/realdata/net``, when present)
and the synthetic 9.0 net of :func:`tidl_io.emulator._fixture.tiny_net` with random means of
the right size. Mutations, 0..3: a cut at any byte, random bytes, NaN / inf / huge entries,
entries added or removed, the file repeated. Each run ends in a :class:`ChannelMeans` whose
spans tile the file in net order (or, when the size differs from the layers' channels, none,
and :meth:`locate` answers), or in a ``TidlIoError`` naming the file.
"""

from __future__ import annotations

import functools
import random
import struct
from typing import Any

import numpy as np

from ..checker import Checker, Unexpected
from ..corpus import ROOT
from ..inputs import FuzzInput
from ._raw import cut

NAME = "means"
STAGE = "bytes"
SOURCE = "fuzz_LayerPerChannelMean.bin"
_ENTRIES = (float("nan"), float("inf"), -float("inf"), 3.4e38, -0.0, 1e-45)


@functools.cache
def _seeds() -> tuple[tuple[bytes, bytes], ...]:
    """(net bytes, means bytes) pairs."""
    from tidl_io.emulator._fixture import tiny_net

    real = ROOT.parent / "shared" / "realdata" / "net"
    found = []
    for means in sorted(real.glob("*/tempDir/*_tidl_io__LayerPerChannelMean.bin")) if real.is_dir() else ():
        net = means.parent.parent / means.name.replace("_tidl_io__LayerPerChannelMean.bin", "_tidl_net.bin")
        if net.is_file():
            found.append((net.read_bytes(), means.read_bytes()))
    data, _ = tiny_net(0)
    channels = 2 + 6 + 6 + 4 + 10 + 10  # every layer but the two data layers
    found.append((data, np.random.default_rng(0).random(channels, np.float32).tobytes()))
    return tuple(found)


def selects(checker: Checker, index: int) -> bool:
    return index % 512 == 257


def _mutate(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    out = bytearray(data)
    steps = []
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        kind = rng.choice(("cut", "byte", "entry", "entry", "add", "drop", "repeat"))
        if kind == "cut":
            steps.append(cut(out, rng))
        elif kind == "byte" and out:
            pos = rng.randrange(len(out))
            out[pos] = rng.randrange(256)
            steps.append(f"byte @ {pos}")
        elif kind == "entry" and len(out) >= 4:
            pos = 4 * rng.randrange(len(out) // 4)
            struct.pack_into("<f", out, pos, rng.choice(_ENTRIES))
            steps.append(f"entry @ {pos}")
        elif kind == "add":
            k = rng.choice((1, 3, 64))
            pos = 4 * rng.randrange(len(out) // 4 + 1)
            out[pos:pos] = np.random.default_rng(rng.randrange(2**32)).random(k, np.float32).tobytes()
            steps.append(f"{k} entries @ {pos}")
        elif kind == "drop" and len(out) >= 8:
            pos = 4 * rng.randrange(len(out) // 4 - 1)
            del out[pos:pos + 4 * rng.choice((1, 2))]
            steps.append(f"dropped @ {pos}")
        elif kind == "repeat" and len(out) < 1 << 20:
            out = out * rng.choice((2, 17))
            steps.append("repeated")
    return bytes(out), " | ".join(steps) or "unmutated"


def run(checker: Checker, index: int, item: FuzzInput, desc: Any, rng: random.Random) -> None:
    from tidl_io.emulator.means import mean_layers, parse_means
    from tidl_io.net import parse_net

    net_bytes, means_bytes = rng.choice(_seeds())
    net = parse_net(net_bytes)
    data, steps = _mutate(means_bytes, rng)
    if checker.verbose:
        print(f"  means input: {steps}")

    def parse() -> None:
        means = parse_means(data, SOURCE, net)
        layers = mean_layers(net)
        if means.by_offset:
            start = 0
            for la in layers:
                span = means.spans[la.index]
                if span.start != start or span.count != la.dims6[3]:
                    raise Unexpected(f"layer {la.index}: span {span}, expected start {start} ({steps})")
                start += span.count
            if start != means.values.size:
                raise Unexpected(f"spans cover {start} of {means.values.size} entries ({steps})")
        elif means.spans or means.values.size == means.channels:
            raise Unexpected(f"{means.values.size} entries for {means.channels} channels, spans {len(means.spans)}")
        else:
            where = means.locate(means.values[:3])
            if means.values.size >= 3 and where != 0:
                raise Unexpected(f"the file's own first entries located at {where} ({steps})")
        if not means.note:
            raise Unexpected("no note")

    checker.op(index, "means", parse, (SOURCE, "parse_means"))
