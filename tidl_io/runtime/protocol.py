"""The runtime protocol: what tidl-io needs from a TIDL runtime, and the types it speaks.

:class:`Runtime` mirrors TIDL-RT's C API (spec §7): create from an io descriptor (and the
net file), ``invoke(inputs, outputs)``, ``close()``, and the shared-memory calls
``alloc_shared`` / ``is_shared``. :class:`RtTensor` is ``sTIDLRT_Tensor_t`` (a buffer
described with its own properties), :class:`InvokeReport` what one invoke did. The host
mock (:mod:`tidl_io.runtime.mock`) and the TIDL-RT binding (:mod:`tidl_io.runtime.tidlrt`)
both implement it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

from ..base.check import as_array, check_layout, wrong_kind
from ..base.errors import BufferMismatchError
from ..base.layouts import dims_of
from ..data.buffers import as_buffer
from ..iodesc.descriptor import Descriptor, ElementType, Tensor, TensorLayout

__all__ = [
    "Buffer",
    "InvokeReport",
    "MemType",
    "PerfStats",
    "RtTensor",
    "Runtime",
    "RuntimeFactory",
    "Tensors",
    "Transfer",
    "alloc_shared_buffers",
]

DEFAULT_ALIGNMENT = 128


class MemType(IntEnum):
    """``sTIDLRT_Tensor_t.memType``."""

    USER = 0
    SHARED = 1
    NATIVE = 2



# ---- a tensor described with its own properties ----------------------------------------

@dataclass(frozen=True, eq=False)
class RtTensor:
    """``sTIDLRT_Tensor_t``: a buffer described with its own properties.

    ``dims`` is the logical (N, DIM1, DIM2, C, H, W) shape whatever the layout;
    ``pitches`` are TIDL-RT's five (batch, DIM1, DIM2, channel, line) in elements;
    ``pads`` are (L, R, T, B). ``mem_type`` None lets the runtime tell with
    ``is_shared(data)``. ``data`` is not copied.
    """

    name: str
    data: np.ndarray = field(repr=False)
    element_type: int
    dims: tuple[int, int, int, int, int, int]
    pitches: tuple[int, int, int, int, int]
    pads: tuple[int, int, int, int] = (0, 0, 0, 0)
    layout: int = TensorLayout.NCHW
    scale: float = 1.0
    zero_point: int = 0
    mem_type: MemType | None = None
    buffer_size: int | None = None  # elements; None or -1: not set (data.size)

    @classmethod
    def for_tensor(cls, tensor: Tensor, data: np.ndarray, *, mem_type: MemType | None = None) -> RtTensor:
        """``data`` (a padded 1-D buffer) described with the descriptor tensor's own
        properties: what TIDL-RT needs for zero copy."""
        p = tensor.strides
        return cls(tensor.name, data, tensor.element_type, tensor.shape,
                   (p[0], p[1], p[2], tensor.channel_pitch, tensor.line_pitch),
                   (tensor.pad_l, tensor.pad_r, tensor.pad_t, tensor.pad_b), tensor.layout_code,
                   float(tensor.scale), int(tensor.zero_point), mem_type, int(np.size(data)))

    @classmethod
    def from_array(cls, name: str, array: np.ndarray, *, layout: str = "NCHW", scale: float = 1.0,
                   zero_point: int = 0, mem_type: MemType | None = None) -> RtTensor:
        """A dense user tensor over ``array`` (not copied), for the runtime to convert (the
        reformat path). Its element type comes from its dtype; float data has scale 1 and
        zero point 0 in TIDL-RT.

        ``layout`` (any case) says how ``array``'s axes map to ``dims`` (N, DIM1, DIM2, C, H, W):

        - "NCHW", 4 axes (N, C, H, W) -> (N, 1, 1, C, H, W); fewer axes get leading 1s
          ((C, H, W) is one image, N = 1); 6 axes are (N, DIM1, DIM2, C, H, W) as they are;
          5 axes are (DIM1, DIM2, C, H, W) with N = 1: the 6-D shape without its leading
          axis, as :func:`tidl_io.data.buffers.pack` accepts it and ``Tensor.squeezed_shape``
          gives it for a 5-D tensor;
        - "NHWC", at most 4 axes (N, H, W, C) -> (N, 1, 1, C, H, W), fewer axes leading 1s;
        - "CHW" / "HWC": one image, exactly 3 axes, as NCHW / NHWC with N = 1.

        (The same layout names and resolver as :func:`tidl_io.data.buffers.pack`:
        :func:`tidl_io.base.layouts.dims_of`.)

        >>> RtTensor.from_array("img", np.zeros((2, 3, 4, 5), np.uint8)).dims
        (2, 1, 1, 3, 4, 5)
        >>> RtTensor.from_array("img", np.zeros((2, 4, 5, 3), np.uint8), layout="nhwc").dims
        (2, 1, 1, 3, 4, 5)
        """
        func = "RtTensor.from_array"
        if not isinstance(name, str):
            raise wrong_kind(func, "name", name, "a str (the tensor's name in the io descriptor, or '')")
        a = as_array(array, func, "array")
        code = check_layout(layout, f"{func} {name!r}")
        if not isinstance(scale, (int, float, np.integer, np.floating)) or isinstance(scale, bool):
            raise wrong_kind(func, "scale", scale, "a number")
        if not isinstance(zero_point, (int, np.integer)) or isinstance(zero_point, bool):
            raise wrong_kind(func, "zero_point", zero_point, "an integer")
        etype = _element_type_of(a.dtype, name)
        dims, channels_last = dims_of(a.shape, code, repr(name))
        layout_code = TensorLayout.NHWC if channels_last else TensorLayout.NCHW
        return cls(name, a, etype, dims, _dense_pitches(dims, layout_code), (0, 0, 0, 0), int(layout_code),
                   float(scale), int(zero_point), mem_type, int(a.size))

    @property
    def size(self) -> int:
        return int(np.prod(self.dims, dtype=np.int64))

    @property
    def is_dense(self) -> bool:
        """What TIDL-RT's conversion can read: no pads, and the channel and line pitches of
        a dense array of ``dims`` in ``layout`` (-1 meaning exactly that)."""
        dense = _dense_pitches(self.dims, self.layout)
        return self.pads == (0, 0, 0, 0) and self.pitches[3] in (-1, dense[3]) and self.pitches[4] in (-1, dense[4])


def _dense_pitches(dims: tuple[int, ...], layout: int) -> tuple[int, int, int, int, int]:
    _, d1, d2, c, h, w = dims
    if layout == TensorLayout.NHWC:
        return (c * h * w, c * h * w, c * h * w, h * w, c * w)
    return (d1 * d2 * c * h * w, d2 * c * h * w, c * h * w, h * w, w)


def _element_type_of(dtype: np.dtype, name: str) -> int:
    for e in ElementType:
        if e.dtype == dtype:
            return int(e)
    known = ", ".join(str(e.dtype) for e in ElementType)
    raise BufferMismatchError(f"{name!r}: TIDL-RT has no element type for dtype {dtype}; use one of {known}")


# ---- the report ------------------------------------------------------------------------

class Transfer(NamedTuple):
    """How one tensor crossed between the application and the device in one invoke.

    ``path`` is ``"zero-copy"`` (used in place), ``"memcpy"`` (same properties, user
    memory) or ``"reformat"`` (converted); ``nbytes`` is what the runtime wrote (0 for zero
    copy); ``reasons`` says why it was not zero copy."""

    name: str
    kind: str
    path: str
    nbytes: int
    seconds: float
    reasons: tuple[str, ...] = ()


class PerfStats(NamedTuple):
    """``sTIDLRT_PerfStats_t`` of one invoke, in nanoseconds (TIDL-RT's clock)."""

    cpIn_time_start: int
    cpIn_time_end: int
    proc_time_start: int
    proc_time_end: int
    cpOut_time_start: int
    cpOut_time_end: int

    @property
    def copy_in_seconds(self) -> float:
        return max(self.cpIn_time_end - self.cpIn_time_start, 0) * 1e-9

    @property
    def proc_seconds(self) -> float:
        return max(self.proc_time_end - self.proc_time_start, 0) * 1e-9

    @property
    def copy_out_seconds(self) -> float:
        return max(self.cpOut_time_end - self.cpOut_time_start, 0) * 1e-9


class InvokeReport(NamedTuple):
    """What one ``invoke`` did. ``device_seconds`` is the (emulated) accelerator's work
    (mock: dequantize inputs, run the model, quantize and store outputs, poison pads;
    TIDL-RT: the library's call less its copies); ``model_seconds`` is the model call
    alone (TIDL-RT: PerfStats' processing time); ``copy_seconds`` the copies and
    conversions (TIDL-RT: PerfStats' copy-in + copy-out); ``overhead_seconds`` everything
    else the runtime spent (name matching, checks, filling structs, bookkeeping).
    ``perf`` and ``ddr_bytes`` (read, written) are TIDL-RT's own, when it gives them."""

    transfers: tuple[Transfer, ...]
    total_seconds: float
    device_seconds: float
    model_seconds: float
    pad_check_seconds: float = 0.0
    perf: PerfStats | None = None
    ddr_bytes: tuple[int, int] | None = None

    @property
    def zero_copy(self) -> tuple[str, ...]:
        """Names of the tensors used in place."""
        return tuple(t.name for t in self.transfers if t.path == "zero-copy")

    @property
    def copied(self) -> tuple[str, ...]:
        """Names of the tensors the runtime copied or converted."""
        return tuple(t.name for t in self.transfers if t.path != "zero-copy")

    @property
    def bytes_copied(self) -> int:
        return sum(t.nbytes for t in self.transfers)

    @property
    def copy_seconds(self) -> float:
        if self.perf is not None:  # TIDL-RT's clock, bounded by the call it happened in
            return min(self.perf.copy_in_seconds + self.perf.copy_out_seconds,
                       self.total_seconds - self.device_seconds)
        return sum(t.seconds for t in self.transfers)

    @property
    def overhead_seconds(self) -> float:
        return self.total_seconds - self.device_seconds - self.copy_seconds

    def __str__(self) -> str:
        head = (f"invoke: {self.total_seconds * 1e3:.3f} ms total, device {self.device_seconds * 1e3:.3f} ms "
                f"(model {self.model_seconds * 1e3:.3f} ms), copies {self.copy_seconds * 1e3:.3f} ms, "
                f"runtime overhead {self.overhead_seconds * 1e6:.1f} us")
        lines = [head]
        if self.ddr_bytes is not None:
            lines.append(f"  DDR: {self.ddr_bytes[0]} bytes read, {self.ddr_bytes[1]} bytes written")
        for t in self.transfers:
            why = f" ({'; '.join(t.reasons)})" if t.reasons else ""
            lines.append(f"  {t.kind} {t.name!r}: {t.path}, {t.nbytes} bytes{why}")
        return "\n".join(lines)


# ---- the protocol ----------------------------------------------------------------------

Buffer = np.ndarray | RtTensor
Tensors = Mapping[Any, Buffer] | Sequence[RtTensor]
"""Buffers by tensor name (or slot index), or RtTensors matched by name then position."""


@runtime_checkable
class Runtime(Protocol):
    """What tidl-io needs from a TIDL runtime (``TIDLRT_create`` .. ``TIDLRT_delete``)."""

    @property
    def descriptor(self) -> Descriptor: ...

    @property
    def last_report(self) -> InvokeReport | None: ...

    def alloc_shared(self, size: int, alignment: int = DEFAULT_ALIGNMENT) -> np.ndarray:
        """``TIDLRT_allocSharedMem``: ``size`` bytes (a 1-D uint8 array)."""
        ...

    def is_shared(self, buf: np.ndarray) -> bool:
        """``TIDLRT_isSharedMem``."""
        ...

    def invoke(self, inputs: Tensors, outputs: Tensors) -> InvokeReport:
        """``TIDLRT_invoke``: run once with these input and output buffers."""
        ...

    def close(self) -> None:
        """``TIDLRT_delete``."""
        ...


class RuntimeFactory(Protocol):
    """``TIDLRT_create``: a runtime for one descriptor and its net file (path or bytes;
    None when the artifacts folder has none)."""

    def __call__(self, desc: Descriptor, net: str | os.PathLike[str] | bytes | None = None) -> Runtime: ...


def alloc_shared_buffers(runtime: Runtime) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """One zero-filled buffer per input and per output of the runtime's descriptor, in its
    shared memory (so invokes are zero copy): flat arrays of the tensor's dtype and buffer
    size (as :func:`tidl_io.data.buffers.alloc_input` makes, typed by
    :func:`tidl_io.data.buffers.as_buffer`), by name. NEW memory, zeroed here once (TIDL-RT's
    shared heap is dirty, and input pads must be zero)."""
    def one(t: Tensor) -> np.ndarray:
        buf = as_buffer(t, runtime.alloc_shared(t.alloc_size * t.itemsize, DEFAULT_ALIGNMENT))
        buf.view(np.uint8)[...] = 0
        return buf

    desc = runtime.descriptor
    return {t.name: one(t) for t in desc.inputs}, {t.name: one(t) for t in desc.outputs}
