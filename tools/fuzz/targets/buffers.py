"""Target ``buffers``: the buffer operations of ``tidl_io.data.buffers`` on up to ``--tensors``
tensors of the other half of the parsed inputs (index % 6 in 3..5), mutated ones first."""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable
from typing import Any

from ..checker import SOURCE, Checker, Unexpected
from ..inputs import FuzzInput

NAME = "buffers"
STAGE = "descriptor"


def selects(checker: Checker, index: int) -> bool:
    return index % 6 >= 3


def run(checker: Checker, index: int, item: FuzzInput, desc: Any, rng: random.Random) -> None:
    _buffers(checker, index, desc, item.touched, rng)


# Buffers up to this many bytes go through every operation (pack, unpack, check_padding read
# or write all of it); larger ones (up to the cap) are allocated and viewed only, which costs
# no time (calloc) -- the per-input time bound is about the library, not about memcpy speed.
SMALL_BUFFER_BYTES = 1 << 20
_PACK_DTYPES = ("float32", "float32", "float64", "same", "int64", "uint8")


def _buffers(checker: Checker, index: int, desc: Any, touched: list[tuple[int, str, int]], rng: random.Random) -> None:
    """The buffer operations on up to ``tensors`` tensors: mutated ones first."""
    b = checker.buffers
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
    chosen = chosen[: checker.tensors] + rng.sample(rest, max(0, min(checker.tensors - len(chosen), len(rest))))
    if index % 12 == 3:  # whole-descriptor calls, now and then
        checker.op(index, "get_*_details", lambda: (b.get_input_details(desc), b.get_output_details(desc)),
                 (SOURCE, "input", "output"))
        for alloc_all in (b.alloc_inputs, b.alloc_outputs):
            checker.op(index, "alloc_*s", functools.partial(alloc_all, desc), ("input", "output"))
    for owner, t in chosen:
        _tensor_ops(checker, index, owner, t, rng)

def _tensor_ops(checker, index: int, owner: Any, t: Any, rng: random.Random) -> None:
    from tidl_io.iodesc.validate import geometry_problems

    b = checker.buffers
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
        except checker.tidl_io.GeometryError:
            if not problems:
                raise Unexpected(f"{t.label}: alloc refused a geometry that validate accepts") from None
            raise
        except checker.tidl_io.AllocationLimitError:
            if need is not None and need <= checker.cap:
                raise Unexpected(f"{t.label}: alloc refused {need} bytes under the cap {checker.cap}") from None
            raise
        if problems:
            raise Unexpected(f"{t.label}: alloc accepted a geometry validate refuses: {problems}")
        if need is not None and (buf.nbytes != need or buf.dtype != element.dtype):
            raise Unexpected(f"{t.label}: alloc gave {buf.nbytes} bytes of {buf.dtype}, expected {need}")
        return buf

    buf = checker.op(index, "alloc", alloc, where)

    def view_of(target: Any) -> Any:
        v = b.view(t, target)
        if v.shape != tuple(t.shape):
            raise Unexpected(f"{t.label}: view shape {v.shape}, expected {t.shape}")
        return v

    if buf is not None:
        checker.op(index, "view", lambda: view_of(buf), where)
    # a buffer one element short (or empty, or of the wrong type) is refused, before anything else
    short = np.zeros(max(0, min(t.required_size, 1 << 16) - 1), element.dtype if element else np.uint8)
    checker.op(index, "view (short buffer)", lambda: _expect_error(lambda: view_of(short), t, "view"), where)

    # as_buffer over caller memory of about the right size, at odd offsets
    def as_buffer() -> Any:
        size = need if need is not None and need <= SMALL_BUFFER_BYTES else rng.randrange(0, 4096)
        size = max(0, size + rng.choice((0, 0, 0, 1, -1, 64, -itemsize)))
        offset = rng.choice((0, 0, 0, 1, itemsize, 64, -1, -itemsize, size, 2**63, -(2**63)))
        mem = bytearray(size + max(0, min(offset, 4096)))
        return b.as_buffer(t, mem, offset=offset, align=rng.choice((None, 64)))

    checker.op(index, "as_buffer", as_buffer, where)

    if problems or need is None or need > checker.cap:
        # hostile or too big: every operation must refuse it without touching memory
        x = _broadcast_zeros(np, t)
        if x is not None:
            checker.op(index, "pack (refused)", lambda: _expect_error(lambda: b.pack(t, x), t, "pack"), where)
        checker.op(index, "unpack (refused)", lambda: _expect_error(lambda: b.unpack(t, short), t, "unpack"),
                 where)
        checker.op(index, "check_padding (refused)",
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
            raise Unexpected(f"{t.label}: pack into a new buffer wrote padding")
        return packed

    packed = checker.op(index, "pack", pack, where)
    target = packed if packed is not None else buf
    if target is None:
        return
    checker.op(index, "unpack", lambda: b.unpack(t, target, dequantize=rng.random() < 0.7,
                                               squeeze=rng.random() < 0.7,
                                               layout=rng.choice(("NCHW", "NHWC"))), where)
    checker.op(index, "check_padding", lambda: b.check_padding(t, target), where)




def _np() -> Any:
    import numpy

    return numpy


def _expect_error(fn: Callable[[], Any], t: Any, what: str) -> None:
    """``fn`` must raise (the library's error, checked by the caller)."""
    fn()
    raise Unexpected(f"{t.label}: {what} accepted a tensor or buffer it must refuse")


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
