"""A host mock of TIDL-RT on the C7x.

:class:`MockC7xRuntime` implements the :class:`~tidl_io.runtime.Runtime` protocol
on the host and handles buffers the way TIDL-RT does (``tidl_rt_ovx_datamove.cpp``):

- a tensor in shared memory whose properties match the descriptor's is used **in place**
  (zero copy). TIDL-RT's test (``is_tidlrt_in_tensor_same`` / ``_out_``) compares element
  type, channel pitch (NCHW with C > 1 only), layout (C > 1 only), zero point and scale;
  the mock also requires pads L/R/T and the buffer size (spec §7) to be equal, and like
  TIDL-RT compares no line, DIM or batch pitch nor pad B (see :func:`mismatches`). A
  plain 1-D buffer (not an RtTensor) carries the descriptor's own properties;
- the same properties in user memory: ``memcpy`` of N·DIM1·DIM2·C·channelPitch elements
  (pads included: dirty pads travel to the device; refused when valid data lies beyond
  that span, which TIDL-RT would silently drop);
- anything else is **reformatted**: read as a dense NCHW/NHWC tensor, converted in float32
  arithmetic to the descriptor's element type and written into a padded device buffer.
  Inputs: ``q = sat((x - zpU) * (scale / scaleU))``, truncated (C cast), where the zero
  point term is dropped when ``zpU`` equals the descriptor's (TIDL-RT's four copy
  branches); float user data has scaleU 1, zpU 0; a float device tensor has scale 1 and
  zero point 0 (its buffer holds real values). Outputs: ``u = sat((q + zpU) * (scaleU /
  scale))`` with the same branch and float rules (float user, quantized device: q / scale).

It refuses, with a :class:`~tidl_io.BufferMismatchError` naming the tensor, what the board
rejects or silently gets wrong: unknown or missing names, a buffer of the wrong size or
element type, a padded buffer handed to the reformat path (TIDL-RT would read it as dense),
"shared" memory that is not, values a C cast cannot represent, and non-zero input padding
(``input_pads="error"``; ``"warn"`` issues a :class:`PaddingWarning`, ``"off"`` skips).

The device step dequantizes each input's valid region (``float32(q - zp) / float32(scale)``,
:func:`tidl_io.data.quant.dequantize`; float as is), calls the model (see :mod:`tidl_io.runtime.models`)
with float64 arrays, quantizes each result to the output type (``rint(y * scale + zp)``,
half to even, saturated, NaN read as 0: :func:`tidl_io.data.quant.quantize`; float outputs as
float32) and writes it into the padded output buffer after filling every non-valid
element with poison (0xA5 bytes; a quiet NaN 0x7FC0A5A5 for float32), so code that reads
output pads is caught. Each invoke returns an :class:`InvokeReport` (also kept as
``runtime.last_report``). Invokes that reuse the same buffer objects (the allocate-once
loop) reuse the previous invoke's checks: the zero-copy path adds ~20-40 us
(``tools/bench_runtime.py``).
"""

from __future__ import annotations

import os
import time
import warnings
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.check import check_choice, check_flag, check_kind, check_path, open_regular, wrong_kind
from ..base.errors import BufferMismatchError, FormatError, GeometryError, TidlRtError
from ..base.limits import check_alloc
from ..data.buffers import zeroed
from ..data.padding import check_padding
from ..data.quant import dequantize, quantize
from ..iodesc.descriptor import Descriptor, Tensor, TensorLayout
from ..iodesc.validate import geometry_problems
from ._datamove import (
    PlanMemo,
    _convert_in,
    _convert_out,
    _dense_logical,
    _dense_write,
    _given_size,
    _memcpy_elements,
    aligned_block,
    byte_bounds,
    check_convertible,
    check_memcpy,
    check_rt,
    match_buffers,
    mismatches,
)
from .models import Model, model_shape, resolve_model
from .protocol import (
    DEFAULT_ALIGNMENT,
    Buffer,
    InvokeReport,
    MemType,
    RtTensor,
    Tensors,
    Transfer,
    _dense_pitches,
)

__all__ = ["POISON_BYTE", "POISON_FLOAT32_BITS", "MockC7xRuntime", "PaddingWarning", "poison_value"]

POISON_BYTE = 0xA5
POISON_FLOAT32_BITS = 0x7FC0A5A5  # a quiet NaN whose low bytes are the 0xA5 pattern


class PaddingWarning(UserWarning):
    """Non-zero input padding, reported as a warning (``input_pads="warn"``)."""



def poison_value(dtype: np.dtype | str) -> np.generic:
    """The value output pads are filled with: every byte 0xA5, or NaN 0x7FC0A5A5 for float32."""
    dt = np.dtype(dtype)
    if dt == np.float32:
        return np.array([POISON_FLOAT32_BITS], np.uint32).view(np.float32)[0]
    return np.frombuffer(bytes([POISON_BYTE]) * dt.itemsize, dtype=dt)[0]



# ---- geometry plans --------------------------------------------------------------------

@dataclass(frozen=True)
class _PadPlan:
    """Where a tensor's non-valid buffer elements are: the strided blocks
    ``(start, shape, strides)`` of :meth:`tidl_io.iodesc.geometry.BufferGeometry.gaps` up to
    ``buffer_size`` (a few per tensor whatever its number of planes)."""

    blocks: tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...]

    @classmethod
    def of(cls, t: Tensor) -> _PadPlan:
        return cls(t.geometry.gaps(t.buffer_size))

    def views(self, buf: np.ndarray) -> list[np.ndarray]:
        """The pad blocks of ``buf`` as views."""
        item = buf.itemsize
        return [np.ndarray(shape, buf.dtype, buffer=buf, offset=start * item, strides=tuple(s * item for s in strides))
                for start, shape, strides in self.blocks]


def _bit_views(block: np.ndarray) -> list[np.ndarray]:
    """Unsigned-integer views covering every byte of ``block`` (a view), wide where it is
    contiguous: their max is 0 exactly when all bytes are 0 (a -0.0 float is non-zero)."""
    if block.size == 0:
        return []
    if block.ndim == 1 and block.flags.c_contiguous:
        raw = block.view(np.uint8)
        n8 = raw.shape[0] & ~7
        parts = [raw[:n8].view(np.uint64)] if n8 else []
        return parts + ([raw[n8:]] if raw.shape[0] > n8 else [])
    return [block if block.dtype.kind == "u" else block.view(f"u{block.itemsize}")]


def _device_quantize(y: np.ndarray, t: Tensor, out: np.ndarray) -> None:
    """The device's store of real values ``y`` into ``out`` (the valid-region view):
    :func:`tidl_io.data.quant.quantize` with round-half-to-even and NaN read as 0 (float
    outputs take the values as float32)."""
    quantize(t, y, rounding="nearest", nan="zero", out=out)


def _dequantize(q: np.ndarray, t: Tensor) -> np.ndarray:
    """The device's read of a valid region: :func:`tidl_io.data.quant.dequantize` (float32
    arithmetic), handed to the model as float64."""
    out = np.empty(q.shape, np.float64)
    dequantize(t, q, out=out)
    return out


# ---- the mock --------------------------------------------------------------------------

_Plan_t = tuple[str, tuple[str, ...], np.ndarray, "RtTensor | None"]
"""(path, reasons, data, rt): how one tensor goes to or from the device."""


class _Slot:
    """One descriptor tensor with everything the hot path needs precomputed."""

    __slots__ = ("_bits_cache", "dtype", "internal", "is_float", "item", "label", "memcpy_n", "model_shape", "name",
                 "nbytes", "offset", "pad_plan", "shape", "size", "squeezed", "strides", "tensor")

    def __init__(self, t: Tensor) -> None:
        self.tensor = t
        self.name, self.label = t.name, t.label
        self.dtype, self.item = t.dtype, t.itemsize
        self.size = t.alloc_size  # what alloc_input/alloc_output allocate
        self.nbytes = self.size * t.itemsize
        self.shape = t.shape
        self.offset = t.first_offset * t.itemsize
        self.strides = tuple(s * t.itemsize for s in t.strides)
        self.model_shape = model_shape(t)
        self.squeezed = _squeezed(self.model_shape)
        self.memcpy_n = min(_memcpy_elements(t), t.buffer_size)
        self.is_float = t.is_float
        self.pad_plan = _PadPlan.of(t)
        self.internal: np.ndarray | None = None
        self._bits_cache: tuple[weakref.ref[np.ndarray], list[np.ndarray]] | None = None

    def pad_bits(self, buf: np.ndarray) -> list[np.ndarray]:
        """Views over the pad bytes of ``buf`` (see :func:`_bit_views`), cached for the
        last buffer seen: invokes usually reuse the same buffers."""
        hit = self._bits_cache
        if hit is not None and hit[0]() is buf:
            return hit[1]
        views = [v for block in self.pad_plan.views(buf) for v in _bit_views(block)]
        self._bits_cache = (weakref.ref(buf), views)
        return views

    def view(self, buf: np.ndarray) -> np.ndarray:
        """The 6-D view of the valid elements of a buffer laid out as the descriptor says."""
        return np.ndarray(self.shape, self.dtype, buffer=buf, offset=self.offset, strides=self.strides)


def check_model_kind(model: Any, func: str) -> None:
    """``model=``: None, a callable, a built-in model name or a model spec; an
    ArgumentTypeError naming ``func`` for anything else."""
    if model is not None and not (callable(model) or isinstance(model, (str, Mapping))):
        raise wrong_kind(func, "model", model, "a callable, a built-in model name or a model spec "
                         "(mapping or YAML text; see tidl_io.runtime.models)")


class MockC7xRuntime:
    """A host stand-in for TIDL-RT on the C7x (see the module docstring).

    ``model`` is a callable, a built-in name or spec (see :func:`tidl_io.runtime.models.resolve_model`;
    default identity when shapes allow it, else ramp). ``net`` is the ``*_tidl_net.bin``
    path or bytes: only checked to be a regular, non-empty file (None is accepted: the mock
    needs no network; a missing file raises :class:`~tidl_io.PathNotFoundError`). ``input_pads`` is "error", "warn" or "off"; ``poison`` fills output pads.
    """

    def __init__(self, desc: Descriptor, net: str | os.PathLike[str] | bytes | None = None, *,
                 model: Model | str | Mapping[str, Any] | None = None, input_pads: str = "error",
                 poison: bool = True) -> None:
        check_kind(desc, Descriptor, "MockC7xRuntime", "desc")
        self.input_pads = check_choice(input_pads, ("error", "warn", "off"), "MockC7xRuntime", "input_pads")
        self.poison = check_flag(poison, "MockC7xRuntime", "poison")
        problems = [f"{t.label}: {f}: {m}" for t in (*desc.inputs, *desc.outputs) for f, m in geometry_problems(t)]
        if problems:
            raise GeometryError(f"{desc.source}: cannot run this descriptor: " + "; ".join(problems))
        self._desc = desc
        self.net_nbytes = _check_net(net)
        check_model_kind(model, "MockC7xRuntime")
        self.model: Model = resolve_model(model, desc)
        self._inputs = [_Slot(t) for t in desc.inputs]
        self._outputs = [_Slot(t) for t in desc.outputs]
        self._in_names = {s.name: i for i, s in enumerate(self._inputs)}
        self._out_names = {s.name: i for i, s in enumerate(self._outputs)}
        self._shared: list[tuple[int, int, np.ndarray]] = []
        self._shared_cache: dict[int, tuple[weakref.ref[np.ndarray], bool]] = {}
        self._memo = PlanMemo()
        self._closed = False
        self._last: InvokeReport | None = None

    # -- protocol ---------------------------------------------------------------------
    @property
    def descriptor(self) -> Descriptor:
        return self._desc

    @property
    def last_report(self) -> InvokeReport | None:
        """The report of the last successful invoke."""
        return self._last

    def alloc_shared(self, size: int, alignment: int = DEFAULT_ALIGNMENT) -> np.ndarray:
        """``TIDLRT_allocSharedMem(alignment, size)``: a new zero-filled 1-D uint8 array of
        ``size`` bytes whose address is a multiple of ``alignment``. Views into it count
        as shared. ``.view(dtype)`` gives a typed buffer."""
        buf = aligned_block(size, alignment)
        addr = buf.ctypes.data
        self._shared.append((addr, addr + buf.nbytes, buf))  # buf holds its block
        self._shared_cache.clear()
        self._memo.clear()
        return buf

    def free_shared(self, buf: np.ndarray) -> None:
        """``TIDLRT_freeSharedMem``: forget the block holding ``buf``. A ``buf`` from no
        block of this runtime's :meth:`alloc_shared` (ordinary memory, another runtime's,
        already freed) is a BufferMismatchError: TI's call would free memory it does not own."""
        if not isinstance(buf, np.ndarray):
            raise wrong_kind("MockC7xRuntime.free_shared", "buf", buf, "a numpy array from alloc_shared")
        lo, hi = byte_bounds(buf)
        keep = [b for b in self._shared if not (b[0] <= lo and hi <= b[1])]
        if len(keep) == len(self._shared):
            raise BufferMismatchError(
                f"MockC7xRuntime.free_shared: buf ({buf.nbytes} bytes at {lo:#x}) is in no block of this "
                f"runtime's alloc_shared: ordinary memory, another runtime's block, or freed already")
        self._shared = keep
        self._shared_cache.clear()
        self._memo.clear()

    def is_shared(self, buf: np.ndarray) -> bool:
        """``TIDLRT_isSharedMem``: whether all of ``buf`` lies in one block from
        :meth:`alloc_shared` (a view into one counts)."""
        if not isinstance(buf, np.ndarray) or not self._shared:
            return False
        hit = self._shared_cache.get(id(buf))
        if hit is not None and hit[0]() is buf:
            return hit[1]
        lo, hi = byte_bounds(buf)
        result = any(start <= lo and hi <= end for start, end, _ in self._shared)
        if len(self._shared_cache) > 256:
            self._shared_cache.clear()
        self._shared_cache[id(buf)] = (weakref.ref(buf), result)
        return result

    def close(self) -> None:
        """``TIDLRT_delete``: drop internal buffers; later invokes raise. Shared blocks the
        application holds stay valid."""
        self._closed = True
        self._memo.clear()
        for slot in (*self._inputs, *self._outputs):
            slot.internal = None

    def __enter__(self) -> MockC7xRuntime:  # noqa: PYI034 (typing.Self is 3.11+; hints resolve at run time)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- invoke -----------------------------------------------------------------------
    def invoke(self, inputs: Tensors, outputs: Tensors) -> InvokeReport:
        """Run once. ``inputs``/``outputs`` map tensor names (or slot indices) to padded
        1-D buffers laid out as the descriptor says (``alloc_input``/``alloc_output``, or
        shared ones) or to :class:`RtTensor`; a sequence of RtTensor is matched by name,
        falling back to position for empty names. Inputs are not modified; output buffers
        are written in place. Returns the :class:`InvokeReport`."""
        t0 = time.perf_counter()
        if self._closed:
            raise TidlRtError(f"{self._desc.source}: invoke after close()", call="TIDLRT_invoke")
        cached = self._memo.get(inputs, outputs)
        if cached is not None:
            in_plans, out_plans = cached
        else:
            ins = match_buffers(inputs, self._inputs, self._in_names, "input")
            outs = match_buffers(outputs, self._outputs, self._out_names, "output")
            in_plans = [self._plan(slot, value) for slot, value in zip(self._inputs, ins)]
            out_plans = [self._plan(slot, value) for slot, value in zip(self._outputs, outs)]
            self._memo.put(inputs, outputs, (in_plans, out_plans))

        transfers: list[Transfer] = []
        pad_seconds = 0.0
        device_in: list[np.ndarray] = []
        for slot, plan in zip(self._inputs, in_plans):
            path = plan[0]
            if path != "reformat" and self.input_pads != "off":
                t_pad = time.perf_counter()
                self._check_pads(slot, plan[2])
                pad_seconds += time.perf_counter() - t_pad
            buf, transfer = self._stage_input(slot, plan)
            device_in.append(buf)
            transfers.append(transfer)
        device_out = [plan[2] if plan[0] == "zero-copy" else self._internal(slot)
                      for slot, plan in zip(self._outputs, out_plans)]

        t_dev = time.perf_counter()
        model_seconds = self._device(device_in, device_out)
        device_seconds = time.perf_counter() - t_dev

        for slot, plan, buf in zip(self._outputs, out_plans, device_out):
            transfers.append(self._unstage_output(slot, plan, buf))
        report = InvokeReport(tuple(transfers), time.perf_counter() - t0, device_seconds, model_seconds, pad_seconds)
        self._last = report
        return report

    # -- steps ------------------------------------------------------------------------
    def _plan(self, slot: _Slot, value: Buffer) -> _Plan_t:
        """(path, reasons, data, rt): TIDL-RT's choice of zero-copy, memcpy or reformat."""
        data = value.data if isinstance(value, RtTensor) else value
        if slot.tensor.kind == "output" and isinstance(data, np.ndarray) and not data.flags.writeable:
            raise BufferMismatchError(f"{slot.label}: the output buffer is read-only; the runtime writes the output "
                                      f"there (pass a writable array, e.g. from alloc_output or alloc_shared)")
        if isinstance(value, np.ndarray):
            buf = value
            if buf.dtype != slot.dtype:
                t = slot.tensor
                raise BufferMismatchError(
                    f"{slot.label}: buffer element type is {buf.dtype}, the descriptor's is {slot.dtype} "
                    f"({t.element.name if t.element is not None else t.element_type}); pack() the data, or pass "
                    f"RtTensor.from_array(...) to have the runtime convert it")
            if buf.ndim != 1 or not buf.flags.c_contiguous:
                raise BufferMismatchError(
                    f"{slot.label}: expected a contiguous 1-D buffer of {slot.size} elements (as alloc_input/"
                    f"alloc_output make), found shape {buf.shape}" + ("" if buf.flags.c_contiguous else
                                                                      " (not contiguous)"))
            if buf.shape[0] != slot.size:
                raise BufferMismatchError(
                    f"{slot.label}: buffer has {buf.shape[0]} elements ({buf.nbytes} bytes), the descriptor's "
                    f"buffer size is {slot.size} elements ({slot.nbytes} bytes)")
            if self.is_shared(buf):
                return "zero-copy", (), buf, None
            check_memcpy(slot.tensor)
            return "memcpy", ("user memory, not shared (alloc_shared)",), buf, None
        return self._plan_rt(slot, value)

    def _plan_rt(self, slot: _Slot, rt: RtTensor) -> _Plan_t:
        t = slot.tensor
        check_rt(t, rt)
        reasons = mismatches(t, rt)
        shared = self.is_shared(rt.data)
        mem = rt.mem_type if rt.mem_type is not None else (MemType.SHARED if shared else MemType.USER)
        if mem == MemType.SHARED and not shared:
            raise BufferMismatchError(f"{t.label}: RtTensor mem_type is SHARED but its data is not in this "
                                      f"runtime's shared memory (alloc_shared); the C7x could not reach it")
        data = rt.data.reshape(-1)
        if reasons:
            if not rt.is_dense:
                raise BufferMismatchError(
                    f"{t.label}: TIDL-RT must convert this tensor ({'; '.join(reasons)}) and its conversion reads "
                    f"the user tensor as a dense {'NHWC' if rt.layout == TensorLayout.NHWC else 'NCHW'} array, but "
                    f"this one has pads {rt.pads} / pitches {rt.pitches} (dense would be "
                    f"{_dense_pitches(rt.dims, rt.layout)}): the board would read the wrong elements")
            size = _given_size(rt)
            if size < rt.size:
                raise BufferMismatchError(f"{t.label}: a dense {rt.dims} tensor needs {rt.size} elements, found {size}")
            check_convertible(t, rt)
            return "reformat", tuple(reasons), data, rt
        if mem != MemType.SHARED:
            check_memcpy(slot.tensor)
            return "memcpy", ("user memory, not shared (alloc_shared)",), data, rt
        return "zero-copy", (), data, rt

    def _internal(self, slot: _Slot) -> np.ndarray:
        """The runtime's own padded buffer for a tensor (allocated on first use, zero-filled)."""
        if slot.internal is None:
            check_alloc(slot.nbytes, f"{slot.label}: runtime buffer")
            slot.internal = zeroed(slot.size, slot.dtype)
        return slot.internal

    def _stage_input(self, slot: _Slot, plan: _Plan_t) -> tuple[np.ndarray, Transfer]:
        path, reasons, data, rt = plan
        if path == "zero-copy":
            return data, Transfer(slot.name, "input", path, 0, 0.0)
        t1 = time.perf_counter()
        dev = self._internal(slot)
        if path == "memcpy":
            n = slot.memcpy_n
            np.copyto(dev[:n], data[:n])
            nbytes = n * slot.item
        else:
            assert rt is not None
            t = slot.tensor
            slot.view(dev)[...] = _convert_in(_dense_logical(rt, t), rt, t)
            nbytes = t.size * slot.item
        return dev, Transfer(slot.name, "input", path, nbytes, time.perf_counter() - t1, reasons)

    def _unstage_output(self, slot: _Slot, plan: _Plan_t, dev: np.ndarray) -> Transfer:
        path, reasons, data, rt = plan
        if path == "zero-copy":
            return Transfer(slot.name, "output", path, 0, 0.0)
        t1 = time.perf_counter()
        if path == "memcpy":
            n = slot.memcpy_n
            np.copyto(data[:n], dev[:n])
            if self.poison and n < data.shape[0]:
                data[n:] = poison_value(slot.dtype)  # what TIDL-RT leaves there is unspecified
            nbytes = n * slot.item
        else:
            assert rt is not None
            t = slot.tensor
            _dense_write(rt, _convert_out(slot.view(dev), rt, t))
            nbytes = t.size * rt.data.itemsize
        return Transfer(slot.name, "output", path, nbytes, time.perf_counter() - t1, reasons)

    def _check_pads(self, slot: _Slot, buf: np.ndarray) -> None:
        dirty = any(v.max() for v in slot.pad_bits(buf))
        if not dirty:
            return
        message = _pad_message(slot.tensor, buf)
        if self.input_pads == "error":
            raise BufferMismatchError(message)
        warnings.warn(message, PaddingWarning, stacklevel=3)

    def _device(self, device_in: list[np.ndarray], device_out: list[np.ndarray]) -> float:
        """The emulated accelerator: returns the model's own time."""
        feeds = {s.name: _dequantize(s.view(buf), s.tensor).reshape(s.model_shape)
                 for s, buf in zip(self._inputs, device_in)}
        t_model = time.perf_counter()
        result = self.model(feeds)
        model_seconds = time.perf_counter() - t_model
        if not isinstance(result, Mapping):
            raise BufferMismatchError(f"model returned {type(result).__name__}, expected a mapping output name -> "
                                      f"array")
        extra = [k for k in result if k not in self._out_names]
        if extra:
            raise BufferMismatchError(f"model returned unknown output(s) {', '.join(map(repr, extra))}; outputs: "
                                      f"{', '.join(repr(s.name) for s in self._outputs)}")
        for slot, buf in zip(self._outputs, device_out):
            if slot.name not in result:
                raise BufferMismatchError(f"model returned no value for {slot.label}")
            y = np.asarray(result[slot.name])
            if y.dtype.kind not in "fiub":
                raise BufferMismatchError(f"model output for {slot.label} has dtype {y.dtype}, expected numbers")
            if y.shape != slot.model_shape and _squeezed(y.shape) != slot.squeezed:
                raise BufferMismatchError(f"model output for {slot.label}: expected shape {slot.model_shape} "
                                          f"(size-1 axes may be dropped or added), found {y.shape}; a model must "
                                          f"return the tensor's own axis order (e.g. NCHW, not NHWC)")
            if self.poison:
                _poison(slot, buf)
            _device_quantize(y.reshape(slot.shape), slot.tensor, slot.view(buf))
        return model_seconds


def _squeezed(shape: tuple[int, ...]) -> tuple[int, ...]:
    """``shape`` without its size-1 axes (what ``np.squeeze`` leaves)."""
    return tuple(d for d in shape if d != 1)


def _poison(slot: _Slot, buf: np.ndarray) -> None:
    value = poison_value(slot.tensor.dtype)
    for v in slot.pad_plan.views(buf):
        v.fill(value)



def _pad_message(t: Tensor, buf: np.ndarray) -> str:
    """Where the first non-zero input pad element is (from :func:`tidl_io.data.padding.check_padding`)."""
    report = check_padding(t, buf)
    i = report.first_dirty if report.first_dirty is not None else 0
    value = buf[i].item()
    if i < t.first_offset:
        where = "before the first valid element (top/left pad)"
    elif i > t.last_offset:
        where = "after the last valid element (bottom pad / spare plane)"
    else:
        line, col = divmod(i, t.line_pitch)
        where = f"between valid elements (buffer line {line}, column {col}: a pad column or pad row)"
    return (f"{t.label}: input padding must be zero (TIDL reads it as data), found {report.dirty} non-zero pad "
            f"element(s) of {report.checked}; first at element {i} (byte {i * t.itemsize}) {where}: expected 0, "
            f"found {value!r}. Zero the pads once (alloc_input does) and write only the valid region "
            f"(pack / view)")


def _check_net(net: str | os.PathLike[str] | bytes | None) -> int | None:
    """The mock only checks that a given net file exists and is not empty; returns its size."""
    if net is None:
        return None
    if isinstance(net, (bytes, bytearray, memoryview)):
        if len(net) == 0:
            raise FormatError("<net bytes>", "the network is empty (0 bytes)")
        return len(net)
    path = check_path(net, "MockC7xRuntime", "net", "; or the network's bytes, or None (the mock needs none)")
    with open_regular(path, "the *_tidl_net.bin TIDL compiled beside the io file, its bytes, or net=None "
                            "(the mock needs no network)") as fh:
        size = os.fstat(fh.fileno()).st_size
    if size == 0:
        raise FormatError(path, "the net file is empty (0 bytes)")
    return size
