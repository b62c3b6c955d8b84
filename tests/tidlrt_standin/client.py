"""A plain ctypes client of the TIDL-RT stand-in, written from the spec's field offsets.

Independent of tidl_io: the struct layouts (tidlrt.md §2/§4b), the io descriptor packer
(iobufdesc.md §2 field orders) and the buffer geometry (iobufdesc.md §4) are spelled out here
again, so tests of the stand-in and the cross-check against the mock do not go through the
code they check.
"""

from __future__ import annotations

import ctypes
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

DTYPES = tuple(np.dtype(c) for c in ("u1", "i1", "<u2", "<i2", "<u4", "<i4", "<f4", "<u8", "<i8"))
PATHS = ("zero-copy", "memcpy", "reformat")


class PerfStats(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in ("cpIn_time_start", "cpIn_time_end", "proc_time_start",
                                                "proc_time_end", "cpOut_time_start", "cpOut_time_end")]


def tensor_struct(dims: int) -> type[ctypes.Structure]:
    """sTIDLRT_Tensor_t: T4 (dims 4) or T6 (dims 6, with bufferSize)."""
    fields = [("name", ctypes.c_char * 512), ("elementType", ctypes.c_int32), ("numDim", ctypes.c_int32),
              ("dimValues", ctypes.c_int32 * dims), ("pitch", ctypes.c_int32 * (dims - 1)),
              ("padValues", ctypes.c_int32 * 4), ("ptr", ctypes.c_void_p), ("dataOffset", ctypes.c_int32),
              ("layout", ctypes.c_uint32), ("zeroPoint", ctypes.c_int32), ("scale", ctypes.c_float),
              ("memType", ctypes.c_uint32)]
    if dims == 6:
        fields.append(("bufferSize", ctypes.c_int32))
    return type(f"Tensor{dims}", (ctypes.Structure,), {"_fields_": fields})


Tensor4, Tensor6 = tensor_struct(4), tensor_struct(6)

# Params: sizes and the offsets create needs (netPtr, ioBufDescPtr, net_capacity, io_capacity, stats).
PARAMS = {"P-a": (88, 80), "P-b": (104, 88), "P-c": (104, 88), "P-d": (1648, 1616)}


@dataclass
class Family:
    key: str
    dims: int
    params: str
    io: str  # "8x" or "l3"
    shared: bool

    @property
    def tensor(self) -> type[ctypes.Structure]:
        return Tensor6 if self.dims == 6 else Tensor4


FAMILIES = {
    "T4P-a": Family("T4P-a", 4, "P-a", "8x", False),
    "T4P-b": Family("T4P-b", 4, "P-b", "8x", True),
    "T4P-c": Family("T4P-c", 4, "P-c", "8x", True),
    "T6P-d": Family("T6P-d", 6, "P-d", "l3", True),
}

# ---- io descriptors (iobufdesc.md §2) ---------------------------------------------------------

V8_IN = ["inDataFormat", "inResizeType", "resizeWidth", "resizeHeight", "inWidth", "inHeight", "inNumChannels",
         "inChannelPitch", "inNumBatches", "inPadL", "inPadT", "inPadR", "inPadB", "inPadCh", "rawDataInElementType",
         "inElementType", "inZeroPoint", "inLayout", "inDataId", "inTensorScale", "inDataName"]
V8_OUT = ["outWidth", "outHeight", "outNumChannels", "outChannelPitch", "outNumBatches", "outPadL", "outPadT",
          "outPadR", "outPadB", "outPadCh", "outElementType", "outDataId", "outDataName", "outTensorScale",
          "outZeroPoint", "outLayout"]
L3_IN = ["inDataFormat", "inResizeType", "resizeWidth", "resizeHeight", "inWidth", "inHeight", "inNumChannels",
         "inDIM2", "inDIM1", "inChannelPitch", "inNumBatches", "inPadL", "inPadT", "inPadR", "inPadB", "inPadCh",
         "rawDataInElementType", "inElementType", "inZeroPoint", "inLayout", "inDataId", "inTensorScale",
         "inDataName", "inBufSize"]
L3_OUT = ["outWidth", "outHeight", "outDIM2", "outDIM1", "outNumChannels", "outChannelPitch", "outNumBatches",
          "outPadL", "outPadT", "outPadR", "outPadB", "outPadCh", "outElementType", "outDataId", "outDataName",
          "outTensorScale", "outZeroPoint", "outLayout", "outBufSize", "numValidTensorDims"]


@dataclass
class TSpec:
    """One descriptor tensor, in elements; ``ch_pitch``/``buf_size`` None: the usual values."""

    name: str
    c: int = 1
    h: int = 1
    w: int = 1
    n: int = 1
    d1: int = 1
    d2: int = 1
    pads: tuple[int, int, int, int] = (0, 0, 0, 0)  # L, T, R, B as in the io file
    pad_ch: int = 0
    etype: int = 0
    zp: int = 0
    scale: float = 1.0
    layout: int = 0
    ch_pitch: int | None = None
    buf_size: int | None = None
    kind: str = "input"
    extra: dict = field(default_factory=dict)

    @property
    def line(self) -> int:
        return self.w + self.pads[0] + self.pads[2]

    @property
    def cp(self) -> int:
        if self.ch_pitch is not None:
            return self.ch_pitch
        if self.layout == 1:
            return self.h * self.w
        return (self.h + self.pads[1] + self.pads[3]) * self.line

    @property
    def size(self) -> int:
        return self.n * self.d1 * self.d2 * self.c * self.h * self.w

    def valid_index(self) -> np.ndarray:
        """Buffer index of every valid element in logical (N, DIM1, DIM2, C, H, W) C order (§4)."""
        pl, pt = self.pads[0], self.pads[1]
        pad_ch = self.pad_ch if self.kind == "output" else 0
        if self.layout == 1:
            line, c_step, w_step, first = self.line * self.c, 1, self.c, pt * self.line * self.c + pl * self.c
        else:
            line, c_step, w_step, first = self.line, self.cp, 1, pt * self.line + pl
        dim2 = self.cp * (self.c + pad_ch)
        strides = (dim2 * self.d2 * self.d1, dim2 * self.d2, dim2, c_step, line, w_step)
        idx = np.full((1,) * 6, first, dtype=np.int64)
        for axis, (d, s) in enumerate(zip((self.n, self.d1, self.d2, self.c, self.h, self.w), strides)):
            shape = [1] * 6
            shape[axis] = d
            idx = idx + (np.arange(d, dtype=np.int64) * s).reshape(shape)
        return idx.reshape(-1)

    @property
    def computed_size(self) -> int:
        planes = self.c + (1 if self.kind == "input" else self.pad_ch)
        return self.n * self.d1 * self.d2 * planes * (self.h + self.pads[1] + self.pads[3]) * self.line

    @property
    def bufsize(self) -> int:
        return self.buf_size if self.buf_size is not None else self.computed_size

    @property
    def alloc(self) -> int:
        return max(self.bufsize, int(self.valid_index().max()) + 1)

    @property
    def dtype(self) -> np.dtype:
        return DTYPES[self.etype]

    def values(self, io: str) -> dict[str, object]:
        p = "in" if self.kind == "input" else "out"
        v: dict[str, object] = {
            f"{p}Width": self.w, f"{p}Height": self.h, f"{p}NumChannels": self.c, f"{p}ChannelPitch": self.cp,
            f"{p}NumBatches": self.n, f"{p}PadL": self.pads[0], f"{p}PadT": self.pads[1], f"{p}PadR": self.pads[2],
            f"{p}PadB": self.pads[3], f"{p}PadCh": self.pad_ch, f"{p}ElementType": self.etype,
            f"{p}ZeroPoint": self.zp, f"{p}Layout": self.layout, f"{p}TensorScale": self.scale,
            f"{p}DataName": self.name.encode()}
        if io == "l3":
            v.update({f"{p}DIM1": self.d1, f"{p}DIM2": self.d2, f"{p}BufSize": self.bufsize})
            if self.kind == "output":
                v["numValidTensorDims"] = 4
        v.update(self.extra)
        return v


def pack_io(io: str, inputs: list[TSpec], outputs: list[TSpec], cores: int = 1) -> bytes:
    """The io file bytes of a descriptor: "8x" (37 256 bytes) or "l3" with ``cores`` (24 + 94 592·C)."""
    if io == "8x":
        header, n_in, n_out, fields = [len(inputs), len(outputs)], 32, 32, V8_IN + V8_OUT
    else:
        header, n_in, n_out, fields = [len(inputs), len(outputs), cores, 0, 1, 0], 32 * cores, 128 * cores, \
            L3_IN + L3_OUT
    out = bytearray(struct.pack(f"<{len(header)}i", *header))
    per_field: dict[str, list[object]] = {}
    for kind, specs in (("in", inputs), ("out", outputs)):
        for i, s in enumerate(specs):
            for k, val in s.values(io).items():
                per_field.setdefault(k, {})[i] = val  # type: ignore[index]
    for name in fields:
        slots = n_in if name.startswith(("in", "resize", "rawData")) else n_out
        given = per_field.get(name, {})
        if name.endswith("DataName"):
            for i in range(slots):
                out += bytes(given.get(i, b""))[:511].ljust(512, b"\0")  # type: ignore[call-overload]
        elif name.endswith("TensorScale"):
            out += struct.pack(f"<{slots}f", *[float(given.get(i, 0.0)) for i in range(slots)])  # type: ignore
        else:
            out += struct.pack(f"<{slots}i", *[int(given.get(i, 0)) for i in range(slots)])  # type: ignore
    expect = 37256 if io == "8x" else 24 + 94592 * cores
    assert len(out) == expect, (len(out), expect)
    return bytes(out)


# ---- the library ---------------------------------------------------------------------------------

class Standin:
    """One loaded stand-in library (one family)."""

    def __init__(self, path: Path, family: str) -> None:
        self.lib = ctypes.CDLL(str(path))
        self.family = FAMILIES[family]
        lib = self.lib
        lib.TIDLRT_create.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.TIDLRT_invoke.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        lib.TIDLRT_delete.argtypes = [ctypes.c_void_p]
        lib.TIDLRT_setParamsDefault.argtypes = [ctypes.c_void_p]
        lib.TIDLRT_setTensorDefault.argtypes = [ctypes.c_void_p]
        lib.standin_last_error.restype = ctypes.c_char_p
        lib.standin_last_paths.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p,
                                           ctypes.c_int32]
        if hasattr(lib, "TIDLRT_allocSharedMem"):
            lib.TIDLRT_allocSharedMem.restype = ctypes.c_void_p
            lib.TIDLRT_allocSharedMem.argtypes = [ctypes.c_int32, ctypes.c_int32]
            lib.TIDLRT_freeSharedMem.argtypes = [ctypes.c_void_p]
            lib.TIDLRT_isSharedMem.argtypes = [ctypes.c_void_p]

    @property
    def error(self) -> str:
        return self.lib.standin_last_error().decode()

    def shared(self, nbytes: int, alignment: int = 128) -> np.ndarray:
        """``nbytes`` of shared memory as a uint8 array (freed by :meth:`free`)."""
        ptr = self.lib.TIDLRT_allocSharedMem(alignment, nbytes)
        assert ptr, self.error
        return np.ctypeslib.as_array((ctypes.c_uint8 * max(nbytes, 1)).from_address(ptr))[:nbytes]

    def free(self, arr: np.ndarray) -> None:
        self.lib.TIDLRT_freeSharedMem(ctypes.c_void_p(arr.ctypes.data))

    def create(self, io: bytes, net: bytes = b"\x08\x02\x23\x20" + bytes(60), *, stats: bool = True,
               io_capacity: int | None = None) -> tuple[int, ctypes.c_void_p | None, object]:
        """(status, handle, keep-alive) of TIDLRT_create with default params."""
        size, stats_at = PARAMS[self.family.params]
        params = ctypes.create_string_buffer(size)
        assert self.lib.TIDLRT_setParamsDefault(params) == 0
        io_buf = ctypes.create_string_buffer(io, len(io))
        net_buf = ctypes.create_string_buffer(net, len(net))
        perf = PerfStats()
        struct.pack_into("<QQii", params, 0, ctypes.addressof(net_buf), ctypes.addressof(io_buf), len(net),
                         len(io) if io_capacity is None else io_capacity)
        if stats:
            struct.pack_into("<Q", params, stats_at, ctypes.addressof(perf))
        handle = ctypes.c_void_p()
        status = self.lib.TIDLRT_create(params, ctypes.byref(handle))
        return status, (handle if status == 0 else None), (params, io_buf, perf)

    def delete(self, handle: ctypes.c_void_p) -> int:
        return self.lib.TIDLRT_delete(handle)

    def tensor(self, spec: TSpec, data: np.ndarray, *, mem_type: int, dense: bool = False, name: str | None = None,
               etype: int | None = None, scale: float | None = None, zp: int | None = None, layout: int | None = None,
               buffer_size: int | None = None, ch_pitch: int | None = None) -> ctypes.Structure:
        """A tensor struct for ``data``: the descriptor's own properties, or a dense user tensor."""
        t = self.family.tensor()
        assert self.lib.TIDLRT_setTensorDefault(ctypes.byref(t)) == 0
        t.name = (spec.name if name is None else name).encode()
        t.elementType = spec.etype if etype is None else etype
        lay = spec.layout if layout is None else layout
        t.layout = lay
        t.scale = spec.scale if scale is None else scale
        t.zeroPoint = spec.zp if zp is None else zp
        t.memType = mem_type
        t.ptr = data.ctypes.data
        if self.family.dims == 6:
            t.numDim = 6
            t.dimValues[:] = [spec.n, spec.d1, spec.d2, spec.c, spec.h, spec.w]
        else:
            t.numDim = 4
            t.dimValues[:] = [spec.n, spec.c, spec.h, spec.w]
        c_all = spec.c * spec.d1 * spec.d2
        if dense:
            t.padValues[:] = [0, 0, 0, 0]
            ch, line = spec.h * spec.w, (c_all * spec.w if lay == 1 else spec.w)
        else:
            pl, pt, pr, pb = spec.pads
            t.padValues[:] = [pl, pr, pt, pb]
            ch, line = spec.cp, spec.line * (spec.c if spec.layout == 1 else 1)
        t.pitch[self.family.dims - 3] = ch if ch_pitch is None else ch_pitch  # CHANNEL
        t.pitch[self.family.dims - 2] = line  # LINE
        if self.family.dims == 6:
            t.bufferSize = data.size if buffer_size is None else buffer_size
        return t

    def invoke(self, handle: ctypes.c_void_p, ins: list[ctypes.Structure], outs: list[ctypes.Structure]) -> int:
        arr_in = (ctypes.c_void_p * max(len(ins), 1))(*[ctypes.addressof(t) for t in ins])
        arr_out = (ctypes.c_void_p * max(len(outs), 1))(*[ctypes.addressof(t) for t in outs])
        return self.lib.TIDLRT_invoke(handle, arr_in, arr_out)

    def paths(self, handle: ctypes.c_void_p, n_in: int, n_out: int) -> tuple[list[str], list[str]]:
        pin, pout = (ctypes.c_int32 * max(n_in, 1))(), (ctypes.c_int32 * max(n_out, 1))()
        assert self.lib.standin_last_paths(handle, pin, n_in, pout, n_out) == 0
        return [PATHS[p] for p in pin[:n_in]], [PATHS[p] for p in pout[:n_out]]
