"""Fuzz inputs: mutations of corpus descriptor files. Input ``index`` of seed ``s`` depends
only on ``(s, index)`` (:func:`make_input`): the pair is a reproducer."""

from __future__ import annotations

import math
import random
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


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
        from tidl_io.iodesc.schema import layout_by_size, layouts

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
    from tidl_io.iodesc.schema import layout_by_size

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
    from tidl_io.iodesc.schema import layout_by_size

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
    from tidl_io.iodesc.schema import layout_by_size

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
