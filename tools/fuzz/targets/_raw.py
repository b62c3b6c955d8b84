"""The raw-bytes mutations the file targets share: one byte changed, the file cut at a byte,
the file extended by zero bytes. Each takes its numbers from ``rng`` and returns the step's
name for the replay line, so the (seed, index) pair still reproduces the input."""

from __future__ import annotations

import random


def change_byte(data: bytearray, rng: random.Random, reach: int | None = None) -> str:
    """One byte (within the first ``reach`` bytes, all when None) set to a random value."""
    pos = rng.randrange(len(data) if reach is None else min(len(data), reach))
    data[pos] = rng.randrange(256)
    return f"byte @ {pos}"


def cut(data: bytearray, rng: random.Random) -> str:
    """The file cut at a random byte (the empty file and the whole file included)."""
    pos = rng.randrange(len(data) + 1)
    del data[pos:]
    return f"cut @ {pos}"


def extend(data: bytearray, rng: random.Random, most: int) -> str:
    """1 .. ``most`` - 1 zero bytes added at the end."""
    data += bytes(rng.randrange(1, most))
    return "extend"
