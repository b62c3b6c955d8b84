""":class:`TidlRtRuntime`: the :class:`~tidl_io.runtime.Runtime` protocol over TI's TIDL-RT C
library (the board's ``libvx_tidl_rt.so``, or the x86 build in TI's ``tidl_tools`` that runs
TI's bit-exact PC emulation), through ``ctypes``.

>>> desc = tidl_io.load("artifacts/subgraph_0_tidl_io_1.bin")             # doctest: +SKIP
>>> with TidlRtRuntime(desc, "artifacts/subgraph_0_tidl_net.bin") as rt:  # doctest: +SKIP
...     ins, outs = alloc_shared_buffers(rt)       # TIDL-RT's shared heap: zero copy
...     report = rt.invoke(ins, outs)

Safety, in order: the library is found in a fixed search order (:mod:`._library`); what
TI's board runtime needs from the machine (its devices, running remote cores) is checked
before any call that could crash (:mod:`._preflight`); the layout of its structs is chosen from the version and confirmed by the library's own
defaults (:mod:`._select`); every struct handed to it sits between guard bands checked
after each call; every buffer and struct it may touch stays referenced while it may touch
it (PerfStats and the io descriptor for the handle's life); calls on one handle are
serialised, and TI's global pools (handles, shared blocks) behind a per-library lock.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import struct
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from ...base.check import check_kind, check_path, open_regular, wrong_kind
from ...base.errors import (
    BufferMismatchError,
    FormatError,
    GeometryError,
    OptionError,
    PathNotFoundError,
    TidlRtError,
)
from ...iodesc.descriptor import Descriptor, Tensor, TensorLayout, build
from ...iodesc.validate import geometry_problems
from .._datamove import (
    PlanMemo,
    aligned_block,
    byte_bounds,
    check_convertible,
    check_memcpy,
    check_rt,
    match_buffers,
    mismatches,
)
from ..protocol import (
    DEFAULT_ALIGNMENT,
    Buffer,
    InvokeReport,
    MemType,
    PerfStats,
    RtTensor,
    Tensors,
    Transfer,
)
from ._select import Selection, select_family
from .devices import preflight
from .library import Guarded, Library, alloc_shared, load_library, owner_of
from .structs import FLT_MAX, Family

__all__ = ["TidlRtRuntime"]

_PERF = struct.Struct("<6Q")  # sTIDLRT_PerfStats_t: six uint64 (every layout)

_TRACE_HINT = ("run again with tracing on to see TIDL-RT's own messages and per-layer traces (tidl-io run --trace; "
               "from Python TidlRtRuntime(..., trace_log_level=2, trace_write_level=1))")


class _Slot:
    """One descriptor tensor: its guarded ``sTIDLRT_Tensor_t`` and the per-handle choice."""

    __slots__ = ("g", "item", "kind", "label", "name", "name_bytes", "tensor", "zero_copy")

    def __init__(self, t: Tensor, fam: Family, kind: str) -> None:
        self.tensor, self.kind, self.name, self.label = t, kind, t.name, t.label
        self.item = t.itemsize
        self.g = Guarded(fam.tensor, f"the sTIDLRT_Tensor_t of {t.label}")
        self.name_bytes = t.name.encode("utf-8", "replace")[:511]
        self.zero_copy: bool | None = None  # fixed at the first invoke of the handle


class TidlRtRuntime:
    """TIDL-RT for one io descriptor and its net file (see the module docstring).

    ``net`` is the ``*_tidl_net.bin`` path or bytes (required). ``library`` a path to the
    library (else ``$TIDL_IO_TIDLRT_LIBRARY``, the loader, ``$TIDL_TOOLS_PATH``);
    ``version`` the TIDL release ("08.06", "11.01"; else ``$TIDL_IO_TIDLRT_VERSION``, else
    the net file's TIDL_NET_VERSION). The rest are ``sTIDLRT_Params_t`` members, None
    keeping the library's default: ``core_num``, ``core_start_idx``, ``target_priority``
    (0 highest .. 7), ``max_pre_empt_delay`` (ms), ``trace_log_level``,
    ``trace_write_level``, ``trace_base_name`` (folder and file prefix of traces).
    Members the library's layout lacks are refused when set. ``notes`` says what was
    decided (layout, degraded functions).
    """

    def __init__(self, desc: Descriptor, net: str | os.PathLike[str] | bytes | None = None, *,
                 library: str | os.PathLike[str] | None = None, version: str | None = None,
                 core_num: int | None = None, core_start_idx: int | None = None, target_priority: int | None = None,
                 max_pre_empt_delay: float | None = None, trace_log_level: int | None = None,
                 trace_write_level: int | None = None, trace_base_name: str | os.PathLike[str] | None = None) -> None:
        self._handle: int | None = None
        self._closed = True
        check_kind(desc, Descriptor, "TidlRtRuntime", "desc")
        if version is not None and not isinstance(version, str):
            raise wrong_kind("TidlRtRuntime", "version", version, "a TIDL release such as '08.06' or a layout "
                             "family such as 'T6P-d' (str), or None")
        settings: dict[str, float] = {member: check(arg, value) for member, arg, value, check in (
            ("targetPriority", "target_priority", target_priority, _priority),
            ("maxPreEmptDelay", "max_pre_empt_delay", max_pre_empt_delay, _delay),
            ("coreNum", "core_num", core_num, _positive),
            ("coreStartIdx", "core_start_idx", core_start_idx, _non_negative),
            ("traceLogLevel", "trace_log_level", trace_log_level, _non_negative),
            ("traceWriteLevel", "trace_write_level", trace_write_level, _non_negative)) if value is not None}
        trace = None if trace_base_name is None else check_path(trace_base_name, "TidlRtRuntime", "trace_base_name")
        problems = [f"{t.label}: {f}: {m}" for t in (*desc.inputs, *desc.outputs) for f, m in geometry_problems(t)]
        if problems:
            raise GeometryError(f"{desc.source}: cannot run this descriptor: " + "; ".join(problems))
        self._desc = desc
        self.subgraph = Path(desc.source).name
        net_bytes = _read_net(net, desc)
        self.lib: Library = load_library(library)
        preflight(self.lib)  # TI's board runtime without its devices: TIDLRT_create would crash (SIGSEGV)
        self.selection: Selection = select_family(self.lib, desc, net_bytes, version)
        self.family: Family = self.selection.family
        note = f"TIDL-RT {self.lib.path} ({self.lib.how}); layout {self.family.describe()}: {self.selection.how}"
        self.notes: list[str] = [note]
        if self.lib.missing:
            self.notes.append(f"this library lacks {', '.join(self.lib.missing)} (an older release): "
                              + _degraded(self.lib))
        self._lock = threading.Lock()
        self._shared: dict[int, int] = {}
        self._last: InvokeReport | None = None
        self._memo = PlanMemo()
        self._in_use: tuple[Any, Any] | None = None
        fam = self.family
        self._ins = [_Slot(t, fam, "input") for t in desc.inputs]
        self._outs = [_Slot(t, fam, "output") for t in desc.outputs]
        self._in_names = {s.name: i for i, s in enumerate(self._ins)}
        self._out_names = {s.name: i for i, s in enumerate(self._outs)}
        self._in_ptrs = (ctypes.c_void_p * max(len(self._ins), 1))(*[s.g.addr for s in self._ins])
        self._out_ptrs = (ctypes.c_void_p * max(len(self._outs), 1))(*[s.g.addr for s in self._outs])
        for s in (*self._ins, *self._outs):
            self._call("TIDLRT_setTensorDefault", s.g.addr)
            s.g.check("TIDLRT_setTensorDefault", fam.key)
        self._stats = Guarded(fam.perf, "sTIDLRT_PerfStats_t")
        if fam.perf.size != _PERF.size:
            raise TidlRtError(f"layout {fam.key}: sTIDLRT_PerfStats_t is {fam.perf.size} bytes, expected six uint64",
                              call="create")
        r, w = ctypes.c_uint64(), ctypes.c_uint64()
        self._ddr_args = (r, w, ctypes.byref(r), ctypes.byref(w))
        self._create(net_bytes, settings, trace)

    # -- create -----------------------------------------------------------------------
    def _create(self, net: bytes, settings: dict[str, float], trace_base_name: str | None) -> None:
        """``TIDLRT_create`` with ``settings`` (checked values by sTIDLRT_Params_t member)."""
        fam = self.family
        params = Guarded(fam.params, "sTIDLRT_Params_t")
        self._params = params
        self._call("TIDLRT_setParamsDefault", params.addr)
        params.check("TIDLRT_setParamsDefault", fam.key)
        p = params.struct
        io = build(self._desc)
        self._io = ctypes.create_string_buffer(io, len(io))  # kept for the handle's life
        net_buf = ctypes.create_string_buffer(net, len(net))  # TI frees it right after create
        p.netPtr, p.net_capacity = ctypes.addressof(net_buf), len(net)
        p.ioBufDescPtr, p.io_capacity = ctypes.addressof(self._io), len(io)
        p.stats = self._stats.addr
        self._trace_name: Any = None
        for member, value in settings.items():
            if not fam.params.has(member):
                raise TidlRtError(f"{self.subgraph}: {member} = {value!r} was given, but this library's "
                                  f"sTIDLRT_Params_t (layout {fam.key}, {fam.title}) has no {member}", call="create")
            setattr(p, member, value)
        if trace_base_name is not None:
            text = trace_base_name.encode()
            if len(text) >= 512:
                raise TidlRtError(f"trace_base_name: at most 511 bytes, found {len(text)}", call="create")
            if fam.params.member("traceBaseName").ctype == "char":
                p.traceBaseName = text
            else:
                self._trace_name = ctypes.create_string_buffer(text)
                p.traceBaseName = ctypes.addressof(self._trace_name)
        handle = ctypes.c_void_p()
        with self.lib.lock:
            status = self.lib.fn("TIDLRT_create")(params.addr, ctypes.byref(handle))
        params.check("TIDLRT_create", fam.key)
        self._stats.check("TIDLRT_create", fam.key)
        del net_buf
        if status != 0 or not handle.value:
            raise TidlRtError(
                f"{self.subgraph}: TIDLRT_create failed with status {status} (handle {handle.value or 'NULL'}). "
                f"Common causes: the model was compiled with other tidl_tools than this library's release "
                f"(\"Config file size ... does not match\"), no free handle (TI's pool holds 32), wrong core "
                f"settings; {_TRACE_HINT}", call="TIDLRT_create", status=status, subgraph=self.subgraph)
        self._handle = handle.value
        self._closed = False

    def _call(self, name: str, *args: Any) -> int:
        status = self.lib.fn(name)(*args)
        if status:
            raise TidlRtError(f"{self.subgraph}: {name} returned {status}", call=name, status=status,
                              subgraph=self.subgraph)
        return 0

    # -- protocol ---------------------------------------------------------------------
    @property
    def descriptor(self) -> Descriptor:
        return self._desc

    @property
    def last_report(self) -> InvokeReport | None:
        return self._last

    @property
    def release(self) -> str | None:
        """The TIDL release the layout was chosen for ("08.06", ...), when known."""
        return self.selection.release

    def alloc_shared(self, size: int, alignment: int = DEFAULT_ALIGNMENT) -> np.ndarray:
        """``TIDLRT_allocSharedMem(alignment, size)``: a 1-D uint8 array over ``size`` bytes
        of TIDL-RT's shared heap, freed (``TIDLRT_freeSharedMem``) exactly once when the
        last array over it is gone. NOT zeroed (that heap is dirty, like malloc):
        :func:`~tidl_io.runtime.alloc_shared_buffers` zeroes what it allocates. A library
        without shared-memory functions gives ordinary aligned memory (TIDL-RT then copies)."""
        if not (self.lib.has("TIDLRT_allocSharedMem") and self.lib.has("TIDLRT_freeSharedMem")):
            return aligned_block(size, alignment)
        return alloc_shared(self.lib, size, alignment, self._shared)

    def is_shared(self, buf: np.ndarray) -> bool:
        """Whether all of ``buf`` lies in one block of TIDL-RT's shared heap: a block from
        :meth:`alloc_shared` (any view of it), else ``TIDLRT_isSharedMem`` on both ends."""
        if not isinstance(buf, np.ndarray):
            return False
        block = owner_of(buf)
        lo, hi = byte_bounds(buf)
        if block is not None and block.ptr in self._shared:
            return block.ptr <= lo and hi <= block.ptr + block.size
        if not self.lib.has("TIDLRT_isSharedMem") or hi <= lo:
            return False
        f = self.lib.fn("TIDLRT_isSharedMem")
        return bool(f(lo)) and bool(f(hi - 1))

    def close(self) -> None:
        """``TIDLRT_deactivate`` then ``TIDLRT_delete`` (as TI's OSRT does); idempotent.
        Shared blocks the application holds stay valid."""
        lock = getattr(self, "_lock", None)
        if lock is None or self._handle is None:
            self._closed = True
            return
        with lock:
            handle, self._handle = self._handle, None
            self._closed = True
            if handle is None:
                return
            with self.lib.lock:
                if self.lib.has("TIDLRT_deactivate"):
                    self.lib.fn("TIDLRT_deactivate")(handle)
                status = self.lib.fn("TIDLRT_delete")(handle)
            self._in_use = None
            self._memo.clear()
        if status != 0:
            raise TidlRtError(f"{self.subgraph}: TIDLRT_delete returned {status}", call="TIDLRT_delete",
                              status=status, subgraph=self.subgraph)

    def __enter__(self) -> TidlRtRuntime:  # noqa: PYI034 (typing.Self is 3.11+; hints resolve at run time)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # never raise from a finalizer
            self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"TidlRtRuntime({self.subgraph!r}, layout {self.family.key}, {state})"

    # -- invoke -----------------------------------------------------------------------
    def invoke(self, inputs: Tensors, outputs: Tensors) -> InvokeReport:
        """``TIDLRT_invoke`` once: ``inputs``/``outputs`` as for
        :meth:`MockC7xRuntime.invoke <tidl_io.runtime.MockC7xRuntime.invoke>` (padded 1-D
        buffers by name or index, or :class:`RtTensor`). Each fills one
        ``sTIDLRT_Tensor_t``; outputs are written in place by the library. Raises
        :class:`~tidl_io.TidlRtError` with the status and a hint when TIDL-RT fails."""
        t0 = time.perf_counter()
        with self._lock:
            if self._closed or self._handle is None:
                raise TidlRtError(f"{self.subgraph}: invoke after close()", call="TIDLRT_invoke",
                                  subgraph=self.subgraph)
            plans = self._memo.get(inputs, outputs)
            if plans is None:
                ins = match_buffers(inputs, self._ins, self._in_names, "input")
                outs = match_buffers(outputs, self._outs, self._out_names, "output")
                plans = [self._plan(s, v) for s, v in zip((*self._ins, *self._outs), (*ins, *outs))]
                for s, plan in zip((*self._ins, *self._outs), plans):
                    self._fix_choice(s, plan[0])
                    self._fill(s, plan[1])
                    plan[3] = ctypes.string_at(s.g.addr, s.g.layout.size)
                self._memo.put(inputs, outputs, plans)
            else:
                for s, plan in zip((*self._ins, *self._outs), plans):
                    ctypes.memmove(s.g.addr, plan[3], len(plan[3]))
            self._in_use = (inputs, outputs)
            ctypes.memset(self._stats.addr, 0, self._stats.layout.size)  # no stale PerfStats
            t_call = time.perf_counter()
            status = self.lib.functions["TIDLRT_invoke"](self._handle, self._in_ptrs, self._out_ptrs)
            t_call = time.perf_counter() - t_call
            key = self.family.key
            for s in (*self._ins, *self._outs):
                s.g.check("TIDLRT_invoke", key)
            self._stats.check("TIDLRT_invoke", key)
            if status != 0:
                raise TidlRtError(
                    f"{self.subgraph}: TIDLRT_invoke failed with status {status}; the library checks every tensor "
                    f"against the io descriptor (names, types, dims, pads): {_TRACE_HINT}",
                    call="TIDLRT_invoke", status=status, subgraph=self.subgraph)
            perf: PerfStats | None = PerfStats._make(_PERF.unpack(ctypes.string_at(self._stats.addr, 48)))
            ddr = self._ddr()
            transfers = tuple(plan[2] for plan in plans)
        if perf is not None and not any(perf):
            perf = None  # the library did not fill them
        # the library's call splits into its copies and the device; the rest is the binding's
        copies = min(perf.copy_in_seconds + perf.copy_out_seconds, t_call) if perf is not None else 0.0
        report = InvokeReport(transfers, time.perf_counter() - t0, t_call - copies,
                              perf.proc_seconds if perf is not None else t_call, 0.0, perf, ddr)
        self._last = report
        return report

    def _ddr(self) -> tuple[int, int] | None:
        f = self.lib.functions.get("TIDLRT_getDdrStats")
        if f is None:
            return None
        r, w, rp, wp = self._ddr_args
        if f(rp, wp) != 0:
            return None
        return int(r.value), int(w.value)

    def _plan(self, s: _Slot, value: Buffer) -> list[Any]:
        """[zero_copy, RtTensor, Transfer, struct snapshot]: TIDL-RT's path for one tensor."""
        t = s.tensor
        if isinstance(value, np.ndarray):
            buf = value
            if buf.dtype != t.dtype:
                raise BufferMismatchError(
                    f"{s.label}: buffer element type is {buf.dtype}, the descriptor's is {t.dtype}; pack() the "
                    f"data, or pass RtTensor.from_array(...) to have TIDL-RT convert it")
            if buf.ndim != 1 or not buf.flags.c_contiguous:
                raise BufferMismatchError(f"{s.label}: expected a contiguous 1-D buffer of {t.alloc_size} elements "
                                          f"(as alloc_input/alloc_output make), found shape {buf.shape}")
            if buf.shape[0] < t.alloc_size:
                raise BufferMismatchError(f"{s.label}: buffer has {buf.shape[0]} elements, the descriptor's buffer "
                                          f"size is {t.alloc_size} elements; TIDL-RT would access past its end")
            rt = RtTensor.for_tensor(t, buf, mem_type=MemType.SHARED if self.is_shared(buf) else MemType.USER)
        else:
            rt = value
            check_rt(t, rt)
            if rt.mem_type is None:
                rt = _with_mem(rt, MemType.SHARED if self.is_shared(rt.data) else MemType.USER)
            elif rt.mem_type == MemType.SHARED and not self.is_shared(rt.data):
                raise BufferMismatchError(f"{s.label}: RtTensor mem_type is SHARED but its data is not in TIDL-RT's "
                                          f"shared memory (alloc_shared); the C7x could not reach it")
        if s.kind == "output" and not rt.data.flags.writeable:
            raise BufferMismatchError(f"{s.label}: the output buffer is read-only; TIDL-RT writes the output there "
                                      f"(pass a writable array, e.g. from alloc_output or alloc_shared)")
        reasons = mismatches(t, rt)
        if reasons:
            if not rt.is_dense:
                raise BufferMismatchError(
                    f"{s.label}: TIDL-RT must convert this tensor ({'; '.join(reasons)}) and reads a converted "
                    f"tensor as dense, but this one has pads {rt.pads} / pitches {rt.pitches}")
            check_convertible(t, rt)
            path, nbytes = "reformat", t.size * s.item
        elif rt.mem_type == MemType.SHARED:
            path, nbytes = "zero-copy", 0
        else:
            check_memcpy(t)
            path, nbytes = "memcpy", min(t.num_batches * t.num_channels * t.dim1 * t.dim2 * t.channel_pitch,
                                         t.buffer_size) * s.item
            reasons = ["user memory, not shared (alloc_shared)"]
        return [path == "zero-copy", rt, Transfer(s.name, s.kind, path, nbytes, 0.0, tuple(reasons)), b""]

    def _fix_choice(self, s: _Slot, zero_copy: bool) -> None:
        if s.zero_copy is None:
            s.zero_copy = zero_copy
        elif s.zero_copy != zero_copy:
            was, now = ("zero copy", "a copied buffer") if s.zero_copy else ("a copied buffer", "zero copy")
            raise TidlRtError(
                f"{s.label}: the first invoke of this handle used {was} for this tensor and this one would use {now}; "
                f"TIDL-RT gives its own buffer up on the first zero-copy invoke, so switching is unsafe. Keep the "
                f"choice (alloc_shared buffers throughout, or user buffers throughout) or create a new runtime",
                call="TIDLRT_invoke", subgraph=self.subgraph)

    def _fill(self, s: _Slot, rt: RtTensor) -> None:
        st, fam = s.g.struct, self.family
        ctypes.memset(s.g.addr, 0, 512)
        ctypes.memmove(s.g.addr, s.name_bytes, len(s.name_bytes))
        st.elementType = rt.element_type
        n, d1, d2, c, h, w = rt.dims
        if fam.six_d:
            st.numDim, st.dimValues[:] = 6, [n, d1, d2, c, h, w]
            st.pitch[:] = list(rt.pitches)
        else:
            if d1 != 1 or d2 != 1:
                raise BufferMismatchError(f"{s.label}: DIM1 x DIM2 = {d1} x {d2}, but layout {fam.key} has 4-D "
                                          f"tensors (N, C, H, W)")
            st.numDim, st.dimValues[:] = 4, [n, c, h, w]
            st.pitch[:] = [rt.pitches[0], rt.pitches[3], rt.pitches[4]]
        st.padValues[:] = list(rt.pads)
        st.ptr = rt.data.ctypes.data
        line = rt.pitches[4] if rt.pitches[4] != -1 else (w * c if rt.layout == TensorLayout.NHWC else w)
        st.dataOffset = rt.pads[2] * line + rt.pads[0] * (c if rt.layout == TensorLayout.NHWC else 1)
        st.layout, st.zeroPoint, st.scale = rt.layout, rt.zero_point, rt.scale
        st.memType = int(rt.mem_type if rt.mem_type is not None else MemType.USER)
        if fam.has_buffer_size:
            st.bufferSize = rt.data.size if rt.buffer_size is None else rt.buffer_size


def _with_mem(rt: RtTensor, mem: MemType) -> RtTensor:
    return RtTensor(rt.name, rt.data, rt.element_type, rt.dims, rt.pitches, rt.pads, rt.layout, rt.scale,
                    rt.zero_point, mem, rt.buffer_size)


def _degraded(lib: Library) -> str:
    parts = []
    if not lib.has("TIDLRT_allocSharedMem"):
        parts.append("alloc_shared gives ordinary memory and TIDL-RT copies every tensor")
    if not lib.has("TIDLRT_isSharedMem"):
        parts.append("is_shared knows only blocks from alloc_shared")
    if not lib.has("TIDLRT_getDdrStats"):
        parts.append("reports carry no DDR statistics")
    if not lib.has("TIDLRT_deactivate"):
        parts.append("close() only deletes")
    return "; ".join(parts) or "no effect on tidl-io"


def _read_net(net: str | os.PathLike[str] | bytes | None, desc: Descriptor) -> bytes:
    if net is None:  # the net file the io file needs (Session passes None when there is none)
        raise PathNotFoundError(desc.source, "TIDL-RT needs the network: expected net= the *_tidl_net.bin beside "
                                "this io file (a path or its bytes), found None", errno.ENOENT)
    if isinstance(net, (bytes, bytearray, memoryview)):
        data = bytes(net)
        where = "<net bytes>"
    else:
        where = check_path(net, "TidlRtRuntime", "net", "; or the network's bytes")
        with open_regular(where, f"the *_tidl_net.bin TIDL compiled beside {Path(desc.source).name}") as fh:
            data = fh.read()
    if len(data) < 4:
        raise FormatError(where, f"the net file has {len(data)} bytes; expected a TIDL network (TIDL_NET_VERSION "
                                 f"first)")
    return data


def _priority(name: str, value: Any) -> int:
    v = _int(name, value)
    if not 0 <= v <= 7:
        raise OptionError(f"TidlRtRuntime: {name} must be 0 (highest) .. 7 (lowest), found {v} (TIDL-RT does not "
                          f"check)")
    return v


def _delay(name: str, value: Any) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise wrong_kind("TidlRtRuntime", name, value, "milliseconds (a number)") from None
    if not v >= 0:
        raise OptionError(f"TidlRtRuntime: {name} must be >= 0 ms (inf: never pre-empt), found {value!r}")
    return min(v, FLT_MAX)


def _int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise wrong_kind("TidlRtRuntime", name, value, "an integer")
    return int(value)


def _positive(name: str, value: Any) -> int:
    v = _int(name, value)
    if v < 1:
        raise OptionError(f"TidlRtRuntime: {name} must be >= 1, found {v} (refused before TIDL-RT is called)")
    return v


def _non_negative(name: str, value: Any) -> int:
    v = _int(name, value)
    if v < 0:
        raise OptionError(f"TidlRtRuntime: {name} must be >= 0, found {v} (refused before TIDL-RT is called)")
    return v


def is_available(library: str | os.PathLike[str] | None = None) -> bool:
    """Whether a TIDL-RT library loads (see :func:`~tidl_io.runtime.tidlrt.load_library`)."""
    try:
        load_library(library)
    except TidlRtError:
        return False
    return True


