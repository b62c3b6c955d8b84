"""Runtimes: the protocol tidl-io speaks, the host mock, and (in :mod:`.tidlrt`) TI's TIDL-RT.

- :mod:`.protocol`: :class:`Runtime`, :class:`RtTensor`, :class:`MemType`,
  :class:`InvokeReport`, :class:`Transfer`, :func:`alloc_shared_buffers`;
- :mod:`._datamove`: TIDL-RT's buffer rules (zero copy, copy/convert branches), shared by
  the mock and the binding;
- :mod:`.mock`: :class:`MockC7xRuntime`, the host stand-in for the C7x.
"""

from __future__ import annotations

from .mock import POISON_BYTE, POISON_FLOAT32_BITS, MockC7xRuntime, PaddingWarning, poison_value
from .protocol import (
    Buffer,
    InvokeReport,
    MemType,
    PerfStats,
    RtTensor,
    Runtime,
    RuntimeFactory,
    Tensors,
    Transfer,
    alloc_shared_buffers,
)

__all__ = [
    "POISON_BYTE",
    "POISON_FLOAT32_BITS",
    "Buffer",
    "InvokeReport",
    "MemType",
    "MockC7xRuntime",
    "PaddingWarning",
    "PerfStats",
    "RtTensor",
    "Runtime",
    "RuntimeFactory",
    "Tensors",
    "Transfer",
    "alloc_shared_buffers",
    "poison_value",
]
