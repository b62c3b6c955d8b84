"""Runtimes: the protocol tidl-io speaks, the host mock, and (in :mod:`.tidlrt`) TI's TIDL-RT.

- :mod:`.protocol`: :class:`Runtime`, :class:`RtTensor`, :class:`MemType`,
  :class:`InvokeReport`, :class:`Transfer`, :func:`alloc_shared_buffers`;
- :mod:`._datamove`: TIDL-RT's buffer rules (zero copy, copy/convert branches), shared by
  the mock and the binding;
- :mod:`.mock`: :class:`MockC7xRuntime`, the host stand-in for the C7x (loaded on first
  use of one of its names, like the lazily loaded names of :mod:`tidl_io`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:  # what mypy and editors see; at run time __getattr__ imports them on first use
    from .mock import POISON_BYTE, POISON_FLOAT32_BITS, MockC7xRuntime, PaddingWarning, poison_value

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

_LAZY = {name: "mock" for name in ("POISON_BYTE", "POISON_FLOAT32_BITS", "MockC7xRuntime", "PaddingWarning",
                                   "poison_value")}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
