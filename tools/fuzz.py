"""Fuzz tidl-io with mutated descriptor files: only the library's own errors, in bounded time.

    python tools/fuzz.py --n 100000 --seed 1 --jobs 2     # the full run (minutes on 2 cores)
    python tools/fuzz.py --n 2000                         # a short run (CI)
    python tools/fuzz.py --seed 1 --replay 4711           # rerun one input in-process, verbosely

Inputs are mutations of the real files in ``../shared/realdata``, of ``tests/fixtures/*.bin``
and of the bundled examples: bit flips, truncation, extension, resizing to another layout's
size, splices, random counts / dims / pads / pitches / buffer sizes / element types /
scales / names at the schema's own field offsets, int32 extremes in several fields of one
tensor at once (products that overflow int32 and int64), coherent random geometries (valid
tensors of every size up to and beyond the allocation cap), and 11.x multi-subgraph
containers with corrupted tables. Input ``i`` of seed ``s`` depends only on ``(s, i)``: the
pair is a reproducer, and every failing input is also saved as a ``.bin`` (``--save-dir``).

Operations. Every input goes through ``parse``, ``validate`` and ``build`` (which must give
the bytes back). Then one input in ``--cli-every`` (default 10) goes through
``tidl_io.cli.main`` instead, on a temp file (``inspect``, ``inspect --json``, ``inspect
--physical``, ``validate``, ``validate --json`` in rotation); of the others, half go through
the formatter (``descriptor_to_dict`` + strict JSON, the table, the physical table) and half
through the buffer operations of ``tidl_io.buffers`` on up to ``--tensors`` (default 2)
tensors, mutated ones first, flagged ones included: ``alloc_input``/``alloc_output``,
``view``, ``as_buffer``, ``pack``, ``unpack``, ``check_padding`` (plus ``alloc_inputs``/
``alloc_outputs`` and ``get_*_details`` on one input in 12). Buffers over 1 MiB that the
cap allows are allocated and viewed but not packed or read (that would time memcpy, not
the library); flagged or over-cap tensors must be refused by every operation. This is a
sample of the expensive operations per input: on 100 000 inputs each class still gets
thousands (the report counts them).

What counts. Each operation must succeed or raise a ``tidl_io.TidlIoError`` whose message
locates the problem (the source name or the tensor's label). Unexpected: any other
exception, a warning (warnings are errors), a broken invariant (round trip, CLI exit code
or traceback, alloc/view disagreeing with ``validate.geometry_problems`` or with the cap),
a hang (a per-input alarm, and a watchdog that kills a stuck worker) or a crash (a worker
killed by a signal: the parent restarts it after the input).

The run sets ``TIDL_IO_MAX_ALLOC_BYTES`` (default 64 MiB) for its workers and reports the
inputs, per-operation counts (ok / library error / unexpected), each unexpected failure
(seed, index, mutations, saved file, traceback), the inputs over ``--max-ms`` and the maximum
time per input -- CPU time of the worker process, which other processes on a shared machine
do not inflate much; wall time is reported too -- and the peak RSS of the workers. Exit
status: 1 if anything unexpected happened, 3 if the only finding is inputs over
``--max-ms``, 0 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import io
import json
import math
import os
import random
import resource
import selectors
import signal
import struct
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DEFAULT_MAX_ALLOC = 64 * 1024 * 1024
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


# ---- the corpus --------------------------------------------------------------------------

def default_corpus_dirs() -> list[Path]:
    return [ROOT.parent / "shared" / "realdata", ROOT / "tests" / "fixtures", ROOT / "tidl_io" / "examples"]


def load_corpus(dirs: list[Path]) -> list[tuple[str, bytes]]:
    files: list[tuple[str, bytes]] = []
    for d in dirs:
        if d.is_file():
            files.append((d.name, d.read_bytes()))
        elif d.is_dir():
            files += [(p.name, p.read_bytes()) for p in sorted(d.glob("*.bin"))]
    if not files:
        raise SystemExit("fuzz: no corpus files found")
    return files


# ---- mutations ---------------------------------------------------------------------------

_INTERESTING = (0, 1, -1, 2, 3, 4, 7, 8, 9, 15, 16, 31, 32, 33, 63, 64, 127, 128, 129, 255, 256, 511, 512,
                513, 1023, 1024, 1290, 4095, 4096, 32767, 32768, 46340, 46341, 65535, 65536, 2**20, 2**24,
                2**30, INT32_MAX - 1, INT32_MAX, INT32_MIN, INT32_MIN + 1, -2, -7, -256)
_FLOATS = (0.0, -0.0, 1.0, -1.0, math.nan, -math.nan, math.inf, -math.inf, 1.4e-45, 1.2e-38, 3.4e38, 1e-30,
           2.0**-24, 32768.0, 35.1423, 0.5, 255.0)


def _interesting_int(rng: random.Random) -> int:
    r = rng.random()
    if r < 0.6:
        return rng.choice(_INTERESTING)
    if r < 0.8:
        return rng.randint(-4, 300)
    return rng.randint(INT32_MIN, INT32_MAX)


def _log_uniform(rng: random.Random, hi: int) -> int:
    """1..hi, each power of two about equally likely."""
    return max(1, min(hi, int(2.0 ** rng.uniform(0, math.log2(hi + 1)))))


@dataclass
class _Ctx:
    """What a mutator may know about the bytes it mutates."""

    corpus: list[tuple[str, bytes]]
    rng: random.Random
    touched: list[tuple[int, str, int]] = field(default_factory=list)  # (descriptor, kind, slot)

    def touch(self, data: bytearray, base: int, kind: str, slot: int) -> None:
        """Remember a mutated tensor slot, so the buffer operations try that tensor first."""
        lay = self.layout_of(data)
        if lay is not None and kind in ("input", "output"):
            s = lay.size
            n = max(0, (len(data) - s - 8) // (s + 16))
            which = 0 if base == 0 else 1 + (base - (s + 8 + 16 * n)) // s
            self.touched.append((which, kind, slot))

    def layout_of(self, data: bytearray) -> Any:
        from tidl_io._schema import layout_by_size, layouts

        lay = layout_by_size().get(len(data))
        if lay is not None:
            return lay
        for cand in layouts():  # a container: the layout of its first descriptor
            if len(data) >= cand.size + 8 and struct.unpack_from("<I", data, cand.size)[0] == 0xFF00FF00:
                return cand
        return None

    def base(self, data: bytearray) -> int:
        """Byte offset of the descriptor to mutate (0, or a subgraph of a container)."""
        lay = self.layout_of(data)
        if lay is None or len(data) == lay.size:
            return 0
        s = lay.size
        n = (len(data) - s - 8) // (s + 16)
        if n <= 0 or self.rng.random() < 0.5:
            return 0
        return s + 8 + 16 * n + self.rng.randrange(n) * s


def _count(data: bytearray, lay: Any, base: int, name: str) -> int:
    return int(struct.unpack_from("<i", data, base + lay.member(name).offset)[0])


def _slot(ctx: _Ctx, data: bytearray, lay: Any, base: int, kind: str) -> int:
    """Mostly a used slot; sometimes the first unused one or any slot."""
    cap = lay.in_slots if kind == "input" else lay.out_slots
    used = _count(data, lay, base, "numInputBuf" if kind == "input" else "numOutputBuf")
    r = ctx.rng.random()
    if 0 < used <= cap and r < 0.85:
        return ctx.rng.randrange(used)
    if 0 <= used < cap and r < 0.93:
        return used
    return ctx.rng.randrange(cap)


def _set(data: bytearray, lay: Any, base: int, name: str, slot: int, value: Any) -> None:
    m = lay.member(name)
    at = base + m.offset + slot * (m.itemsize if m.shape else 0)
    if m.ctype == "float32_tidl":
        struct.pack_into("<f", data, at, float(value))
    elif m.ctype == "int8_t":
        raw = bytes(value)[: m.itemsize]
        data[at: at + m.itemsize] = raw + b"\0" * (m.itemsize - len(raw))
    else:
        struct.pack_into("<i", data, at, ((int(value) + 2**31) % 2**32) - 2**31)


def m_bitflip(ctx: _Ctx, data: bytearray) -> str:
    if not data:
        return "bitflip: empty"
    lay = ctx.layout_of(data)
    flips = []
    for _ in range(ctx.rng.choice((1, 1, 2, 3, 8))):
        if lay is not None and ctx.rng.random() < 0.7:  # aim at the used slots of a random member
            base = ctx.base(data)
            m = ctx.rng.choice(lay.members)
            slot = _slot(ctx, data, lay, base, m.kind) if m.shape else 0
            ctx.touch(data, base, m.kind, slot)
            at = base + m.offset + slot * (m.itemsize if m.shape else 0)
            at += ctx.rng.randrange(min(m.itemsize if m.shape else 4, 16))
        else:
            at = ctx.rng.randrange(len(data))
        bit = ctx.rng.randrange(8)
        data[at] ^= 1 << bit
        flips.append(f"{at:#x}.{bit}")
    return "bitflip " + ",".join(flips)


def m_truncate(ctx: _Ctx, data: bytearray) -> str:
    from tidl_io._schema import layout_by_size

    r = ctx.rng.random()
    if r < 0.3:
        smaller = [s for s in layout_by_size() if s < len(data)]
        new = ctx.rng.choice(smaller) if smaller else 0
    elif r < 0.5:
        new = max(0, len(data) - ctx.rng.randint(1, 8))
    else:
        new = ctx.rng.randrange(len(data) + 1)
    del data[new:]
    return f"truncate to {new}"


def m_extend(ctx: _Ctx, data: bytearray) -> str:
    from tidl_io._schema import layout_by_size

    r = ctx.rng.random()
    if r < 0.3:
        bigger = [s for s in layout_by_size() if s > len(data)]
        extra = (ctx.rng.choice(bigger) - len(data)) if bigger else 4
    elif r < 0.5:
        extra = ctx.rng.randint(1, 8)
    else:
        extra = ctx.rng.randint(1, 70000)
    fill = ctx.rng.random()
    data += bytes(extra) if fill < 0.6 else ctx.rng.randbytes(extra)
    return f"extend by {extra}"


def m_field(ctx: _Ctx, data: bytearray) -> str:
    """One int32 field of a used slot (or a header field) set to an interesting value."""
    lay = ctx.layout_of(data)
    if lay is None:
        return m_bitflip(ctx, data)
    base = ctx.base(data)
    m = ctx.rng.choice([m for m in lay.members if m.ctype == "int32_t"])
    slot = _slot(ctx, data, lay, base, m.kind) if m.shape else 0
    ctx.touch(data, base, m.kind, slot)
    value = _interesting_int(ctx.rng)
    _set(data, lay, base, m.name, slot, value)
    return f"{m.name}[{slot}]={value}"


_GEOM_FIELDS = ("Width", "Height", "NumChannels", "ChannelPitch", "NumBatches", "PadL", "PadT", "PadR", "PadB",
                "PadCh", "DIM1", "DIM2", "BufSize", "ElementType", "Layout")


def _aim(ctx: _Ctx, data: bytearray, lay: Any, base: int, field: Callable[[str], str]) -> tuple[str, int]:
    """Pick input or output, the member ``field(prefix)`` names ("in"/"out" prefix), and a
    used slot of that kind (marked as touched); the RNG is drawn in that order."""
    kind = ctx.rng.choice(("input", "output"))
    name = field("in" if kind == "input" else "out")
    slot = _slot(ctx, data, lay, base, kind)
    ctx.touch(data, base, kind, slot)
    return name, slot


def m_geometry_field(ctx: _Ctx, data: bytearray) -> str:
    """A dim, pad, pitch, count, buffer size, element type or layout of a used tensor."""
    lay = ctx.layout_of(data)
    if lay is None:
        return m_extend(ctx, data)
    base = ctx.base(data)
    r = ctx.rng.random()
    if r < 0.15:
        name = ctx.rng.choice(("numInputBuf", "numOutputBuf"))
        cap = lay.in_slots if name == "numInputBuf" else lay.out_slots
        value = ctx.rng.choice((0, 1, 2, cap, cap + 1, cap - 1, -1, INT32_MAX, INT32_MIN,
                                ctx.rng.randint(0, cap), ctx.rng.randint(0, cap)))
        _set(data, lay, base, name, 0, value)
        return f"{name}={value}"
    name, slot = _aim(ctx, data, lay, base, lambda prefix: ctx.rng.choice(
        [prefix + f for f in _GEOM_FIELDS if lay.has(prefix + f)]))
    value = _interesting_int(ctx.rng)
    _set(data, lay, base, name, slot, value)
    return f"{name}[{slot}]={value}"


def m_scale(ctx: _Ctx, data: bytearray) -> str:
    lay = ctx.layout_of(data)
    if lay is None:
        return m_truncate(ctx, data)
    base = ctx.base(data)
    name, slot = _aim(ctx, data, lay, base, lambda prefix: prefix + "TensorScale")
    value = ctx.rng.choice(_FLOATS) if ctx.rng.random() < 0.7 else struct.unpack(
        "<f", ctx.rng.randbytes(4))[0]
    _set(data, lay, base, name, slot, value)
    return f"{name}[{slot}]={value!r}"


def m_name(ctx: _Ctx, data: bytearray) -> str:
    lay = ctx.layout_of(data)
    if lay is None:
        return m_bitflip(ctx, data)
    base = ctx.base(data)
    name, slot = _aim(ctx, data, lay, base, lambda prefix: prefix + "DataName")
    r = ctx.rng.random()
    if r < 0.25:
        raw = ctx.rng.randbytes(512)  # random bytes, NUL-free with high probability near the start
    elif r < 0.4:
        raw = b"x" * 512  # no NUL at all
    elif r < 0.55:
        raw = b"\xff\xfe\xc3(\xe2\x82" + b"\0" * 3 + b"junk after nul"  # invalid UTF-8, garbage after NUL
    elif r < 0.7:
        raw = b""  # empty name
    elif r < 0.85:  # a duplicate of slot 0's name
        m = lay.member(name)
        raw = bytes(data[base + m.offset: base + m.offset + m.itemsize])
    else:
        raw = ("ü/;:" * ctx.rng.randint(1, 200)).encode()
    _set(data, lay, base, name, slot, raw)
    return f"{name}[{slot}] {len(raw)} bytes"


def m_coherent(ctx: _Ctx, data: bytearray) -> str:
    """A whole random but self-consistent geometry for one tensor: exercises the success
    paths of every operation and the allocation cap (sizes spread around it)."""
    lay = ctx.layout_of(data)
    if lay is None:
        return m_field(ctx, data)
    base = ctx.base(data)
    rng = ctx.rng
    kind = rng.choice(("input", "output"))
    p = "in" if kind == "input" else "out"
    slot = _slot(ctx, data, lay, base, kind)
    ctx.touch(data, base, kind, slot)
    nhwc = rng.random() < 0.25
    big = rng.random() < 0.15
    w = _log_uniform(rng, INT32_MAX if big and rng.random() < 0.3 else 4096)
    h = _log_uniform(rng, 4096 if big else 512)
    c = _log_uniform(rng, 2048 if big else 64)
    n = 1 if rng.random() < 0.7 else _log_uniform(rng, 8)
    d1 = 1 if rng.random() < 0.8 or not lay.has_dims else _log_uniform(rng, 4)
    d2 = 1 if rng.random() < 0.8 or not lay.has_dims else _log_uniform(rng, 4)
    pads = [0, 0, 0, 0] if nhwc or rng.random() < 0.5 else [rng.choice((0, 1, 1, 2, 3, 16)) for _ in range(4)]
    if not nhwc and rng.random() < 0.5:
        pads[2] = 0  # TIDL's importer writes padR = 0
    pad_ch = 0 if kind == "input" or rng.random() < 0.6 else rng.choice((1, 2, 287, 774, 1547))
    line = w + pads[0] + pads[2]
    rows = h + pads[1] + pads[3]
    if nhwc:
        ch_pitch = h * w
    elif pads[1] + pads[3] > 0 and rng.random() < 0.3:
        ch_pitch = (rows - 1) * line + 1  # TI's overlapping pad rows (spec §4)
    else:
        ch_pitch = rows * line
    if rng.random() < 0.1:
        ch_pitch += rng.choice((-1, 1, -line, line))  # a near miss
    planes = c + (1 if kind == "input" else pad_ch)
    buf = n * d1 * d2 * planes * rows * line
    if rng.random() < 0.1:
        buf += rng.choice((-1, 1, -buf // 2))
    etype = rng.randrange(9) if rng.random() < 0.95 else rng.choice((9, -1, 255))
    values: dict[str, Any] = {
        "Width": w, "Height": h, "NumChannels": c, "ChannelPitch": ch_pitch, "NumBatches": n,
        "PadL": pads[0], "PadT": pads[1], "PadR": pads[2], "PadB": pads[3], "PadCh": pad_ch,
        "DIM1": d1, "DIM2": d2, "BufSize": buf, "ElementType": etype, "Layout": 1 if nhwc else 0,
        "TensorScale": 1.0 if etype == 6 else rng.choice((1.0, 32768.0, 35.14, 0.25)),
    }
    for key, value in values.items():
        if lay.has(p + key):
            _set(data, lay, base, p + key, slot, value)
    count_name = "numInputBuf" if kind == "input" else "numOutputBuf"
    if _count(data, lay, base, count_name) <= slot and rng.random() < 0.8:
        _set(data, lay, base, count_name, 0, slot + 1)
    return (f"coherent {p}[{slot}] {'NHWC' if nhwc else 'NCHW'} N{n} D{d1}x{d2} C{c} H{h} W{w} pads{pads} "
            f"padCh{pad_ch} pitch{ch_pitch} buf{buf} type{etype}")


def m_extreme(ctx: _Ctx, data: bytearray) -> str:
    """Several fields of one tensor at int32 extremes together, so that products of them
    overflow int32 and int64 (pitch x (C + padCh) x DIM2 x DIM1 ...) while each field alone
    is a plain int32; the buffer size and dims may stay small and consistent."""
    lay = ctx.layout_of(data)
    if lay is None:
        return m_field(ctx, data)
    base = ctx.base(data)
    rng = ctx.rng
    kind = rng.choice(("input", "output"))
    p = "in" if kind == "input" else "out"
    slot = _slot(ctx, data, lay, base, kind)
    ctx.touch(data, base, kind, slot)
    big = (INT32_MAX, INT32_MAX - 1, 2**30, 2**24 + 1, 65536, 46341)
    names = [p + f for f in ("ChannelPitch", "PadCh", "DIM1", "DIM2", "NumBatches", "PadT", "PadL", "Width",
                             "NumChannels", "Height") if lay.has(p + f)]
    chosen = rng.sample(names, min(len(names), rng.randint(2, 4)))
    if p + "ChannelPitch" in names and p + "ChannelPitch" not in chosen:
        chosen.append(p + "ChannelPitch")
    parts = []
    for name in chosen:
        dim = name[len(p):] in ("DIM1", "DIM2", "NumBatches", "NumChannels", "Height", "Width")
        value = 1 if dim and rng.random() < 0.5 else rng.choice(big)  # size-1 axes keep the tensor small
        _set(data, lay, base, name, slot, value)
        parts.append(f"{name}={value}")
    return f"extreme {p}[{slot}] " + " ".join(parts)


def m_resize_to_layout(ctx: _Ctx, data: bytearray) -> str:
    """Truncate or zero-extend to another layout's exact size: reread under another layout."""
    from tidl_io._schema import layout_by_size

    size = ctx.rng.choice(sorted(layout_by_size()))
    if size < len(data):
        del data[size:]
    else:
        data += bytes(size - len(data))
    return f"resize to {size}"


def m_splice(ctx: _Ctx, data: bytearray) -> str:
    """Bytes of another corpus file of the same size from a random point on."""
    same = [d for _, d in ctx.corpus if len(d) == len(data)]
    if not same or not data:
        return m_extend(ctx, data)
    other = ctx.rng.choice(same)
    at = ctx.rng.randrange(len(data))
    data[at:] = other[at:]
    return f"splice at {at:#x}"


def m_container(ctx: _Ctx, data: bytearray) -> str:
    """Wrap the (single-layout) bytes into an 11.x multi-subgraph container, maybe corrupt it."""
    lay = ctx.layout_of(data)
    rng = ctx.rng
    if lay is None:
        return m_field(ctx, data)
    s = lay.size
    one = bytes(data[:s])
    n = rng.choice((1, 1, 2, 2, 3, 4))
    subs = []
    same = [d for _, d in ctx.corpus if len(d) == s]
    for _ in range(n):
        subs.append(one if rng.random() < 0.5 or not same else rng.choice(same))
    table = b"".join(struct.pack("<4I", s + 8 + 16 * n + i * s, s, 0, 0) for i in range(n))
    out = bytearray(one + struct.pack("<II", 0xFF00FF00, n) + table + b"".join(subs))
    what = f"container n={n}"
    r = rng.random()
    if r < 0.15:
        struct.pack_into("<I", out, s + 4, rng.choice((0, n + 1, n - 1, 2**32 - 1, 2**31, 1000)))
        what += " bad n"
    elif r < 0.25:
        struct.pack_into("<I", out, s, 0xFF00FF01)
        what += " bad magic"
    elif r < 0.4:
        i = rng.randrange(n)
        struct.pack_into("<4I", out, s + 8 + 16 * i, *(rng.randrange(2**32) for _ in range(4)))
        what += f" bad entry {i}"
    elif r < 0.5:
        del out[rng.randrange(s, len(out)):]
        what += " truncated"
    data[:] = out
    return what


MUTATORS: tuple[tuple[Callable[[_Ctx, bytearray], str], float], ...] = (
    (m_bitflip, 3), (m_truncate, 1), (m_extend, 1), (m_field, 3), (m_geometry_field, 4), (m_scale, 1),
    (m_name, 1), (m_coherent, 5), (m_extreme, 1), (m_resize_to_layout, 0.5), (m_splice, 0.5), (m_container, 1),
)


@dataclass
class FuzzInput:
    data: bytes
    steps: str
    touched: list[tuple[int, str, int]]


def make_input(corpus: list[tuple[str, bytes]], seed: int, index: int) -> FuzzInput:
    """Input ``index`` of ``seed``: a corpus file and 0..4 mutations (deterministic)."""
    rng = random.Random(f"tidl-io-fuzz:{seed}:{index}")
    name, original = corpus[rng.randrange(len(corpus))]
    data = bytearray(original)
    ctx = _Ctx(corpus, rng)
    steps = [name]
    funcs, weights = zip(*MUTATORS)
    for _ in range(rng.choice((0, 1, 1, 1, 2, 2, 3, 4))):
        steps.append(rng.choices(funcs, weights)[0](ctx, data))
    return FuzzInput(bytes(data), " | ".join(steps), list(dict.fromkeys(ctx.touched)))


# ---- the checks --------------------------------------------------------------------------

SOURCE = "fuzz_tidl_io_1.bin"


class _Unexpected(Exception):
    """An invariant broken without an exception (round trip, CLI output, buffers vs validate)."""


class _Hang(BaseException):
    """Raised by the per-input alarm."""


@dataclass
class Failure:
    index: int
    op: str
    kind: str
    message: str
    trace: str = ""


@dataclass
class Stats:
    inputs: int = 0
    ops: dict[str, list[int]] = field(default_factory=dict)  # op -> [ok, library error, unexpected]
    failures: list[Failure] = field(default_factory=list)
    over: int = 0
    max_cpu_ms: float = 0.0
    max_wall_ms: float = 0.0
    slowest: tuple[float, int] = (0.0, -1)
    over_indices: list[int] = field(default_factory=list)

    def count(self, op: str, outcome: int) -> None:
        self.ops.setdefault(op, [0, 0, 0])[outcome] += 1


def _located(message: str, where: tuple[str, ...]) -> bool:
    return bool(message.strip()) and any(w in message for w in where)


# Buffers up to this many bytes go through every operation (pack, unpack, check_padding read
# or write all of it); larger ones (up to the cap) are allocated and viewed only, which costs
# no time (calloc) -- the per-input time bound is about the library, not about memcpy speed.
SMALL_BUFFER_BYTES = 1 << 20
_PACK_DTYPES = ("float32", "float32", "float64", "same", "int64", "uint8")


class Checker:
    """Runs the operations on one input; collects outcomes into :class:`Stats`.

    Per input (see the module docstring): parse, validate, build (round trip); then one
    input in ``cli_every`` goes through the CLI only, and the others alternate between the
    formatter (to_dict + strict JSON, table, physical table) and the buffer operations.
    """

    def __init__(self, stats: Stats, scratch: Path, cli_every: int, tensors: int, verbose: bool = False):
        import tidl_io

        self.tidl_io = tidl_io
        self.stats = stats
        self.scratch = scratch
        self.cli_every = cli_every
        self.tensors = tensors
        self.verbose = verbose
        try:
            from tidl_io import buffers
        except ImportError:  # before tidl_io/buffers.py exists
            buffers = None  # type: ignore[assignment]
        self.buffers = buffers
        from tidl_io._limits import max_alloc_bytes

        self.cap = max_alloc_bytes()

    def _op(self, index: int, op: str, fn: Callable[[], Any], where: tuple[str, ...]) -> Any:
        """Run ``fn``; returns its value, or None after a library error or a failure.
        Warnings are errors: a NumPy RuntimeWarning escaping the library is a failure."""
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                value = fn()
        except self.tidl_io.TidlIoError as exc:
            message = str(exc)
            if not _located(message, where):
                self._fail(index, op, "unlocated message", f"{type(exc).__name__}: {message!r}", exc)
                return None
            self.stats.count(op, 1)
            if self.verbose:
                print(f"  {op}: {type(exc).__name__}: {message[:300]}")
            return None
        except Exception as exc:  # noqa: BLE001 - this is what the fuzzer looks for
            kind = "broken invariant" if isinstance(exc, _Unexpected) else type(exc).__name__
            self._fail(index, op, kind, str(exc)[:500], exc)
            return None
        self.stats.count(op, 0)
        return value

    def _fail(self, index: int, op: str, kind: str, message: str, exc: BaseException) -> None:
        self.stats.count(op, 2)
        trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=-8))
        self.stats.failures.append(Failure(index, op, kind, message, trace))
        if self.verbose:
            print(trace)

    def run(self, index: int, item: FuzzInput, rng: random.Random) -> None:
        tio = self.tidl_io
        data = item.data
        where = (SOURCE,)
        if self.cli_every and index % self.cli_every == 0:
            self._cli(index, data)  # parse + validate or format, through the command line
            return
        desc = self._op(index, "parse", lambda: tio.parse(data, SOURCE), where)
        if desc is None:
            return
        self._op(index, "validate", lambda: tio.validate(desc), where)

        def round_trip() -> None:
            if tio.build(desc) != data:
                raise _Unexpected("build(parse(b)) != b")

        self._op(index, "build", round_trip, where)
        r = index % 6
        if r < 3 or self.buffers is None:
            self._format(index, desc, r % 3)
        else:
            self._buffers(index, desc, item.touched, rng)

    def _format(self, index: int, desc: Any, r: int) -> None:
        from tidl_io._format import descriptor_to_dict, format_descriptor

        where = (SOURCE,)
        if r == 0:
            self._op(index, "to_dict+json",
                     lambda: json.dumps(descriptor_to_dict(desc, SOURCE), allow_nan=False), where)
        else:
            self._op(index, "format" + (" physical" if r == 2 else ""),
                     lambda: format_descriptor(desc, SOURCE, physical=r == 2), where)

    def warm_up(self, corpus: list[tuple[str, bytes]]) -> None:
        """One-time costs (imports, construct structs, caches) before anything is timed."""
        stats, self.stats = self.stats, Stats()
        try:
            one_per_layout = {len(data): data for _, data in corpus}
            for i, data in enumerate(one_per_layout.values()):
                for r in (1, 3, 4, 5):
                    self.run(r + 6 * i if self.cli_every != 1 else 1, FuzzInput(data, "", []), random.Random(i))
            for k in range(5):
                self._cli(k * self.cli_every, corpus[0][1])
        finally:
            self.stats = stats

    def _cli(self, index: int, data: bytes) -> None:
        from tidl_io._atomic import write_bytes_atomic
        from tidl_io.cli import main

        path = self.scratch / SOURCE
        write_bytes_atomic(path, data)
        argv = (["inspect"], ["inspect", "--json"], ["inspect", "--physical"], ["validate"],
                ["validate", "--json"])[(index // max(self.cli_every, 1)) % 5]

        def run() -> None:
            out, err = io.StringIO(), io.StringIO()
            code = main([*argv, str(path)], out=out, err=err)
            if code not in (0, 1):
                raise _Unexpected(f"tidl-io {' '.join(argv)} exited {code}")
            if "Traceback" in err.getvalue():
                raise _Unexpected(f"tidl-io {' '.join(argv)} printed a traceback")
            if code == 1 and argv[0] == "inspect" and not err.getvalue().startswith("tidl-io: error: "):
                raise _Unexpected(f"tidl-io {' '.join(argv)} exited 1 without a one-line error")
            if "--json" in argv:
                json.loads(out.getvalue())

        self._op(index, "cli " + " ".join(argv), run, (SOURCE,))

    # ---- buffers ---------------------------------------------------------------------------

    def _buffers(self, index: int, desc: Any, touched: list[tuple[int, str, int]], rng: random.Random) -> None:
        """The buffer operations on up to ``tensors`` tensors: mutated ones first."""
        b = self.buffers
        owners = [desc, *desc.subgraphs]
        pool = [(d, t) for d in owners for t in (*d.inputs, *d.outputs)]
        if not pool:
            return
        chosen: list[tuple[Any, Any]] = []
        for which, kind, slot in touched:
            if which < len(owners):
                d = owners[which]
                tensors = d.inputs if kind == "input" else d.outputs
                if slot < len(tensors) and (d, tensors[slot]) not in chosen:
                    chosen.append((d, tensors[slot]))
        rest = [p for p in pool if p not in chosen]
        chosen = chosen[: self.tensors] + rng.sample(rest, max(0, min(self.tensors - len(chosen), len(rest))))
        if index % 12 == 3:  # whole-descriptor calls, now and then
            self._op(index, "get_*_details", lambda: (b.get_input_details(desc), b.get_output_details(desc)),
                     (SOURCE, "input", "output"))
            for alloc_all in (b.alloc_inputs, b.alloc_outputs):
                self._op(index, "alloc_*s", functools.partial(alloc_all, desc), ("input", "output"))
        for owner, t in chosen:
            self._tensor_ops(index, owner, t, rng)

    def _tensor_ops(self, index: int, owner: Any, t: Any, rng: random.Random) -> None:
        from tidl_io.validate import geometry_problems

        b = self.buffers
        np = _np()
        where = (f"{t.kind} {t.index}",)
        problems = geometry_problems(t)
        element = t.element
        itemsize = element.dtype.itemsize if element is not None else 1
        need = max(t.buffer_size, t.required_size) * itemsize if not problems else None
        small = need is not None and need <= SMALL_BUFFER_BYTES

        # alloc: refused iff validation refuses the geometry or the size is over the cap
        def alloc() -> Any:
            fn = b.alloc_input if t.kind == "input" else b.alloc_output
            try:
                buf = fn(owner, t.index)
            except self.tidl_io.GeometryError:
                if not problems:
                    raise _Unexpected(f"{t.label}: alloc refused a geometry that validate accepts") from None
                raise
            except self.tidl_io.AllocationLimitError:
                if need is not None and need <= self.cap:
                    raise _Unexpected(f"{t.label}: alloc refused {need} bytes under the cap {self.cap}") from None
                raise
            if problems:
                raise _Unexpected(f"{t.label}: alloc accepted a geometry validate refuses: {problems}")
            if need is not None and (buf.nbytes != need or buf.dtype != element.dtype):
                raise _Unexpected(f"{t.label}: alloc gave {buf.nbytes} bytes of {buf.dtype}, expected {need}")
            return buf

        buf = self._op(index, "alloc", alloc, where)

        def view_of(target: Any) -> Any:
            v = b.view(t, target)
            if v.shape != tuple(t.shape):
                raise _Unexpected(f"{t.label}: view shape {v.shape}, expected {t.shape}")
            return v

        if buf is not None:
            self._op(index, "view", lambda: view_of(buf), where)
        # a buffer one element short (or empty, or of the wrong type) is refused, before anything else
        short = np.zeros(max(0, min(t.required_size, 1 << 16) - 1), element.dtype if element else np.uint8)
        self._op(index, "view (short buffer)", lambda: _expect_error(lambda: view_of(short), t, "view"), where)

        # as_buffer over caller memory of about the right size, at odd offsets
        def as_buffer() -> Any:
            size = need if need is not None and need <= SMALL_BUFFER_BYTES else rng.randrange(0, 4096)
            size = max(0, size + rng.choice((0, 0, 0, 1, -1, 64, -itemsize)))
            offset = rng.choice((0, 0, 0, 1, itemsize, 64, -1, -itemsize, size, 2**63, -(2**63)))
            mem = bytearray(size + max(0, min(offset, 4096)))
            return b.as_buffer(t, mem, offset=offset, align=rng.choice((None, 64)))

        self._op(index, "as_buffer", as_buffer, where)

        if problems or need is None or need > self.cap:
            # hostile or too big: every operation must refuse it without touching memory
            x = _broadcast_zeros(np, t)
            if x is not None:
                self._op(index, "pack (refused)", lambda: _expect_error(lambda: b.pack(t, x), t, "pack"), where)
            self._op(index, "unpack (refused)", lambda: _expect_error(lambda: b.unpack(t, short), t, "unpack"),
                     where)
            self._op(index, "check_padding (refused)",
                     lambda: _expect_error(lambda: b.check_padding(t, short), t, "check_padding"), where)
            return
        if not small:
            return  # valid but big: allocated and viewed above; pack/unpack would only measure memcpy
        layout = rng.choice(("NCHW", "NHWC", "CHW", "HWC"))
        x = _user_data(np, rng, t, layout)
        out = None if buf is None or rng.random() < 0.5 else (buf if rng.random() < 0.7 else buf.view(np.uint8))
        nan = rng.choice(("error", "zero"))
        rounding = rng.choice(("trunc", "nearest"))

        def pack() -> Any:
            packed = b.pack(t, x, out, layout=layout, rounding=rounding, nan=nan)
            if out is None and t.kind == "input" and not b.check_padding(t, packed).clean:
                raise _Unexpected(f"{t.label}: pack into a new buffer wrote padding")
            return packed

        packed = self._op(index, "pack", pack, where)
        target = packed if packed is not None else buf
        if target is None:
            return
        self._op(index, "unpack", lambda: b.unpack(t, target, dequantize=rng.random() < 0.7,
                                                   squeeze=rng.random() < 0.7,
                                                   layout=rng.choice(("NCHW", "NHWC"))), where)
        self._op(index, "check_padding", lambda: b.check_padding(t, target), where)


def _np() -> Any:
    import numpy

    return numpy


def _expect_error(fn: Callable[[], Any], t: Any, what: str) -> None:
    """``fn`` must raise (the library's error, checked by the caller)."""
    fn()
    raise _Unexpected(f"{t.label}: {what} accepted a tensor or buffer it must refuse")


def _broadcast_zeros(np: Any, t: Any) -> Any:
    """Zero-cost float32 data of the tensor's shape (a broadcast view), when NumPy can
    express the shape at all; pack must refuse it (bad geometry or over the cap)."""
    shape = tuple(t.squeezed_shape)
    if any(d < 0 for d in shape) or math.prod(max(d, 1) for d in shape) >= 2**58:
        return None
    return np.broadcast_to(np.zeros((), np.float32), shape)


def _user_data(np: Any, rng: random.Random, t: Any, layout: str) -> Any:
    """Data pack accepts (mostly): the squeezed shape in ``layout``, of a random dtype;
    sometimes NaN or inf, sometimes a wrong shape or dtype."""
    shape6 = list(t.shape)
    if layout in ("NHWC", "HWC"):
        shape6 = shape6[:3] + shape6[4:] + shape6[3:4]
    if layout in ("CHW", "HWC") or rng.random() < 0.3:
        shape = tuple(shape6[3:])
    elif rng.random() < 0.5:
        shape = tuple(shape6)
    else:
        shape = tuple(shape6[:1] + shape6[3:])
    if rng.random() < 0.05:
        shape = shape[:-1] + (shape[-1] + 1,)
    kind = rng.choice(_PACK_DTYPES)
    dtype = t.dtype if kind == "same" else np.dtype(kind)
    size = math.prod(shape)
    gen = np.random.default_rng(rng.randrange(2**32))
    if dtype.kind == "f":
        x = (gen.standard_normal(size) * 100).astype(dtype)
        if size and rng.random() < 0.1:
            x[gen.integers(0, size)] = rng.choice((math.nan, math.inf, -math.inf))
    else:
        info = np.iinfo(dtype)
        x = gen.integers(max(info.min, -1000), min(info.max, 1000), size, dtype=dtype, endpoint=True)
    return x.reshape(shape)


def _peak_rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024.0  # kilobytes on Linux


def _worker(args: argparse.Namespace) -> int:
    """Run inputs [start, stop): print ``S <i>`` before each, ``F <json>`` per failure,
    ``D <json>`` (stats) at the end."""
    corpus = load_corpus(args.corpus)
    stats = Stats()
    # the parent owns the scratch root and removes it, even after a worker was killed
    scratch = Path(tempfile.mkdtemp(prefix=f"worker-{args.start}-", dir=args.scratch))
    checker = Checker(stats, scratch, args.cli_every, args.tensors)
    out = sys.stdout
    limit_ms = args.max_ms

    def alarm(signum: int, frame: Any) -> None:
        raise _Hang()

    signal.signal(signal.SIGALRM, alarm)
    selftests = {int(index): what for what, _, index in
                 (item.partition(":") for item in (args.selftest or "").split(",") if item)}
    checker.warm_up(corpus)
    gc.collect()
    gc.freeze()
    try:
        for i in range(args.start, args.stop):
            out.write(f"S {i}\n")
            out.flush()
            item = make_input(corpus, args.seed, i)
            rng = random.Random(f"tidl-io-fuzz-ops:{args.seed}:{i}")
            signal.setitimer(signal.ITIMER_REAL, args.hang_s)
            c0, w0 = time.process_time(), time.perf_counter()
            try:
                if i in selftests:
                    _selftest(selftests[i], args.hang_s)
                checker.run(i, item, rng)
            except _Hang:
                stats.failures.append(Failure(i, "?", "hang", f"no result after {args.hang_s} s"))
            except Exception as exc:  # noqa: BLE001 - a bug of the harness itself: report it, go on
                trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=-6))
                stats.failures.append(Failure(i, "harness", type(exc).__name__, str(exc)[:300], trace))
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            cpu_ms, wall_ms = 1e3 * (time.process_time() - c0), 1e3 * (time.perf_counter() - w0)
            stats.inputs += 1
            if cpu_ms > limit_ms:
                stats.over += 1
                stats.over_indices.append(i)
            stats.max_cpu_ms = max(stats.max_cpu_ms, cpu_ms)
            stats.max_wall_ms = max(stats.max_wall_ms, wall_ms)
            if cpu_ms > stats.slowest[0]:
                stats.slowest = (cpu_ms, i)
            while stats.failures:
                f = stats.failures.pop()
                out.write("F " + json.dumps(f.__dict__) + "\n")
    finally:
        for p in scratch.iterdir():
            p.unlink()
        scratch.rmdir()
    done = {"inputs": stats.inputs, "ops": stats.ops, "over": stats.over, "over_indices": stats.over_indices[:50],
            "max_cpu_ms": stats.max_cpu_ms, "max_wall_ms": stats.max_wall_ms, "slowest": stats.slowest,
            "peak_rss_mb": _peak_rss_mb()}
    out.write("D " + json.dumps(done) + "\n")
    out.flush()
    return 0


def _selftest(what: str, hang_s: float) -> None:
    """Planted faults that prove the harness reports them (tests/test_fuzz.py)."""
    if what == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif what == "hang":
        time.sleep(hang_s * 5)
    elif what == "slow":
        end = time.process_time() + 0.25
        while time.process_time() < end:
            pass


@dataclass
class _Job:
    start: int
    stop: int
    proc: subprocess.Popen[str] | None = None
    current: int = -1
    last_seen: float = 0.0
    buf: str = ""


def _spawn(args: argparse.Namespace, job: _Job, env: dict[str, str]) -> None:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--seed", str(args.seed),
           "--start", str(job.start), "--stop", str(job.stop), "--max-ms", str(args.max_ms),
           "--cli-every", str(args.cli_every), "--tensors", str(args.tensors), "--hang-s", str(args.hang_s),
           "--scratch", str(args.scratch)]
    if args.selftest:
        cmd += ["--selftest", args.selftest]
    for c in args.corpus:
        cmd += ["--corpus", str(c)]
    job.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=env,
                                bufsize=1)
    job.current = job.start - 1
    job.last_seen = time.monotonic()


def run_parent(args: argparse.Namespace) -> int:
    env = dict(os.environ)
    env["TIDL_IO_MAX_ALLOC_BYTES"] = str(args.max_alloc)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    save_dir = Path(args.save_dir) if args.save_dir else Path(tempfile.mkdtemp(prefix="tidl-io-fuzz-"))
    save_dir.mkdir(parents=True, exist_ok=True)
    corpus = load_corpus(args.corpus)
    t0 = time.perf_counter()
    n, jobs = args.n, max(1, args.jobs)
    chunk = -(-n // jobs)
    pending = [_Job(s, min(s + chunk, n)) for s in range(0, n, chunk)]
    sel = selectors.DefaultSelector()
    for job in pending:
        _spawn(args, job, env)
        assert job.proc is not None and job.proc.stdout is not None
        sel.register(job.proc.stdout, selectors.EVENT_READ, job)
    totals: dict[str, Any] = {"inputs": 0, "over": 0, "over_indices": [], "max_cpu_ms": 0.0, "max_wall_ms": 0.0,
                              "slowest": (0.0, -1), "peak_rss_mb": 0.0, "ops": {}}
    failures: list[dict[str, Any]] = []
    live = len(pending)
    next_report = time.monotonic() + args.progress_s

    def absorb(d: dict[str, Any]) -> None:
        totals["over"] += d["over"]
        totals["over_indices"] += d["over_indices"]
        totals["max_cpu_ms"] = max(totals["max_cpu_ms"], d["max_cpu_ms"])
        totals["max_wall_ms"] = max(totals["max_wall_ms"], d["max_wall_ms"])
        totals["slowest"] = max(totals["slowest"], tuple(d["slowest"]))
        totals["peak_rss_mb"] = max(totals["peak_rss_mb"], d["peak_rss_mb"])
        for op, counts in d["ops"].items():
            acc = totals["ops"].setdefault(op, [0, 0, 0])
            for k in range(3):
                acc[k] += counts[k]

    def lost(job: _Job, kind: str, message: str) -> None:
        """The worker died or hung on job.current: record it, restart after it."""
        nonlocal live
        failures.append({"index": job.current, "op": "?", "kind": kind, "message": message, "trace": ""})
        if job.current + 1 < job.stop:
            job.start = job.current + 1
            _spawn(args, job, env)
            assert job.proc is not None and job.proc.stdout is not None
            sel.register(job.proc.stdout, selectors.EVENT_READ, job)
        else:
            live -= 1

    while live:
        events = sel.select(timeout=1.0)
        for key, _ in events:
            job = key.data
            assert job.proc is not None
            line = job.proc.stdout.readline() if job.proc.stdout else ""
            if not line:  # EOF: the worker exited
                sel.unregister(key.fileobj)
                code = job.proc.wait()
                if job.buf != "done":
                    why = f"worker exited {code}" + (f" (signal {-code})" if code < 0 else "")
                    lost(job, "crash", why)
                else:
                    live -= 1
                continue
            job.last_seen = time.monotonic()
            tag, _, rest = line.rstrip("\n").partition(" ")
            if tag == "S":
                job.current = int(rest)
                totals["inputs"] += 1
            elif tag == "F":
                failures.append(json.loads(rest))
            elif tag == "D":
                absorb(json.loads(rest))
                job.buf = "done"
        now = time.monotonic()
        for key in list(sel.get_map().values()):
            job = key.data
            if now - job.last_seen > args.hang_s * 3 + 10:  # stuck where the alarm cannot reach (C code)
                sel.unregister(key.fileobj)
                assert job.proc is not None
                job.proc.kill()
                job.proc.wait()
                lost(job, "hang", f"no progress for {now - job.last_seen:.0f} s (killed)")
        if args.progress_s and now >= next_report:
            next_report = now + args.progress_s
            print(f"fuzz: {totals['inputs']}/{n} inputs, {len(failures)} unexpected, {time.perf_counter() - t0:.0f} s",
                  file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - t0
    totals["peak_rss_mb"] = max(totals["peak_rss_mb"], _peak_rss_mb(resource.RUSAGE_CHILDREN))

    from tidl_io._atomic import write_bytes_atomic

    for f in failures:
        if f["index"] >= 0:
            item = make_input(corpus, args.seed, f["index"])
            f["steps"] = item.steps
            path = save_dir / f"fuzz-seed{args.seed}-{f['index']}.bin"
            write_bytes_atomic(path, item.data)
            f["saved"] = str(path)
    report(args, totals, failures, elapsed, save_dir)
    summary = {"seed": args.seed, "inputs": totals["inputs"], "unexpected": len(failures),
               "over_max_ms": totals["over"], "max_ms": args.max_ms, "max_cpu_ms": round(totals["max_cpu_ms"], 2),
               "max_wall_ms": round(totals["max_wall_ms"], 2), "peak_rss_mb": round(totals["peak_rss_mb"], 1),
               "elapsed_s": round(elapsed, 1), "ops": totals["ops"], "failures": failures}
    if args.json:
        write_bytes_atomic(args.json, json.dumps(summary, indent=1).encode())
    if failures:
        return 1
    return 3 if totals["over"] else 0


def report(args: argparse.Namespace, totals: dict[str, Any], failures: list[dict[str, Any]], elapsed: float,
           save_dir: Path) -> None:
    print(f"tidl-io fuzz: seed {args.seed}, {totals['inputs']} inputs, {args.jobs} job(s), "
          f"TIDL_IO_MAX_ALLOC_BYTES={args.max_alloc}, {elapsed:.1f} s")
    print(f"{'operation':<28}{'ok':>9}{'lib error':>11}{'unexpected':>12}")
    for op in sorted(totals["ops"]):
        ok, lib, bad = totals["ops"][op]
        print(f"{op:<28}{ok:>9}{lib:>11}{bad:>12}")
    print(f"unexpected: {len(failures)}")
    for f in failures[:20]:
        print(f"  seed {args.seed} index {f['index']}: {f['op']}: {f['kind']}: {f['message'][:300]}")
        if f.get("steps"):
            print(f"    input: {f['steps'][:300]}")
        if f.get("saved"):
            print(f"    saved: {f['saved']}   replay: python tools/fuzz.py --seed {args.seed} --replay {f['index']}")
        if f.get("trace"):
            print("    " + f["trace"].strip().replace("\n", "\n    "))
    print(f"inputs over {args.max_ms:g} ms (CPU): {totals['over']}"
          + (f" (indices {totals['over_indices'][:10]})" if totals["over"] else ""))
    _, slow_i = totals["slowest"]
    print(f"max time per input: {totals['max_cpu_ms']:.1f} ms CPU (index {slow_i}), {totals['max_wall_ms']:.1f} ms "
          "wall")
    print(f"peak RSS (largest worker): {totals['peak_rss_mb']:.1f} MB")
    if failures:
        print(f"reproducers saved in {save_dir}")
    elif not any(save_dir.iterdir()):
        save_dir.rmdir()


def replay(args: argparse.Namespace) -> int:
    os.environ.setdefault("TIDL_IO_MAX_ALLOC_BYTES", str(args.max_alloc))
    corpus = load_corpus(args.corpus)
    item = make_input(corpus, args.seed, args.replay)
    print(f"seed {args.seed} index {args.replay}: {len(item.data)} bytes: {item.steps}")
    stats = Stats()
    with tempfile.TemporaryDirectory(prefix="tidl-io-fuzz-replay-") as scratch:
        checker = Checker(stats, Path(scratch), args.cli_every, args.tensors, verbose=True)
        checker.warm_up(corpus)
        rng = random.Random(f"tidl-io-fuzz-ops:{args.seed}:{args.replay}")
        c0 = time.process_time()
        checker.run(args.replay, item, rng)
        print(f"{1e3 * (time.process_time() - c0):.1f} ms CPU; ops {stats.ops}")
    if args.save_dir:
        from tidl_io._atomic import write_bytes_atomic

        path = Path(args.save_dir) / f"fuzz-seed{args.seed}-{args.replay}.bin"
        write_bytes_atomic(path, item.data)
        print(f"saved {path}")
    return 1 if stats.failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="number of inputs (default 1000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-ms", type=float, default=100.0, help="time bound per input, CPU ms (default 100)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--cli-every", type=int, default=10, help="run the CLI on one input in K (default 10)")
    parser.add_argument("--tensors", type=int, default=2, help="tensors per input through the buffer operations")
    parser.add_argument("--max-alloc", type=int, default=DEFAULT_MAX_ALLOC,
                        help="TIDL_IO_MAX_ALLOC_BYTES for the run (default 64 MiB)")
    parser.add_argument("--hang-s", type=float, default=10.0, help="an input taking longer is a hang")
    parser.add_argument("--corpus", type=Path, action="append", default=None,
                        help="a corpus file or folder (repeatable; default: realdata, fixtures, examples)")
    parser.add_argument("--save-dir", help="where reproducers go (default: a new temp folder)")
    parser.add_argument("--json", type=Path, help="also write the summary as JSON here")
    parser.add_argument("--progress-s", type=float, default=30.0, help="progress line every S seconds (0: none)")
    parser.add_argument("--replay", type=int, help="run input INDEX in-process, verbosely")
    parser.add_argument("--selftest", help=argparse.SUPPRESS)  # crash|hang|slow:INDEX,..., for the tests
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--scratch", help=argparse.SUPPRESS)  # the workers' temp folder, owned by the parent
    parser.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--stop", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.corpus = args.corpus or default_corpus_dirs()
    if args.worker:
        return _worker(args)
    if args.replay is not None:
        return replay(args)
    with tempfile.TemporaryDirectory(prefix="tidl-io-fuzz-scratch-") as scratch:
        args.scratch = scratch
        return run_parent(args)


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
    sys.exit(130)
