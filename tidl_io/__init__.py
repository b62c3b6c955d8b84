"""tidl-io: TI TIDL I/O buffer descriptors (``*_tidl_io_1.bin``) and networks (``*_tidl_net.bin``) for Python.

The descriptor core (parse, build, validate) loads eagerly; everything else (rearrange, buffers,
the native kernels, the mock runtime, sessions, detection parsing, the reports) loads on first
use, so ``tidl-io inspect`` starts fast (tests/test_cli.py pins what it loads).
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING, Any

from .base.errors import (
    AllocationLimitError,
    ArgumentTypeError,
    BufferMismatchError,
    FormatError,
    GeometryError,
    LibraryNotFoundError,
    OptionError,
    PathError,
    PathIsFolderError,
    PathNotFoundError,
    TensorNotFoundError,
    TidlIoError,
    TidlIoWarning,
    TidlRtError,
    UnsupportedLayerError,
)
from .base.version import __version__ as __version__
from .iodesc.descriptor import (
    Descriptor,
    ElementType,
    Tensor,
    TensorLayout,
    build,
    load,
    make_descriptor,
    parse,
)
from .iodesc.validate import Finding, validate

if TYPE_CHECKING:  # the lazily loaded names' real types, for mypy and editors (see _LAZY)
    from .advisor import Advice, advise
    from .artifacts.folder import find_io_files
    from .data.buffers import (
        alloc_input,
        alloc_inputs,
        alloc_output,
        alloc_outputs,
        as_buffer,
        pack,
        unpack,
        view,
    )
    from .data.details import get_input_details, get_output_details
    from .data.detection import parse_od, rows_from_outputs
    from .data.padding import PaddingReport, check_padding
    from .data.permute import PermutePlan, permute, plan_permute
    from .data.quant import dequantize, quantize
    from .data.reorg import reorg, reorg_inverse
    from .doctor.checks import Diagnosis, diagnose
    from .emulator import Emulation, emulate
    from .net import Layer, Network, load_net, parse_net
    from .overview import ModelReport, report
    from .perf import Performance, load_perf
    from .precision import QuantParams, QuantReport, load_quant, load_quant_params
    from .run.session import Session
    from .runtime import InvokeReport, MockC7xRuntime, RtTensor, Runtime
    from .runtime.tidlrt import TidlRtRuntime
    from .support import SupportReport, load_support
    from .trace import CompareReport, compare_calibration, compare_traces, load_calibration, load_traces
    from .trace.emucheck import EmulationCheck, check_emulation


__all__ = [
    "Advice",
    "AllocationLimitError",
    "ArgumentTypeError",
    "BufferMismatchError",
    "CompareReport",
    "Descriptor",
    "Diagnosis",
    "ElementType",
    "Emulation",
    "EmulationCheck",
    "Finding",
    "FormatError",
    "GeometryError",
    "InvokeReport",
    "Layer",
    "LibraryNotFoundError",
    "MockC7xRuntime",
    "ModelReport",
    "Network",
    "OptionError",
    "PaddingReport",
    "PathError",
    "PathIsFolderError",
    "PathNotFoundError",
    "Performance",
    "PermutePlan",
    "QuantParams",
    "QuantReport",
    "RtTensor",
    "Runtime",
    "Session",
    "SupportReport",
    "Tensor",
    "TensorLayout",
    "TensorNotFoundError",
    "TidlIoError",
    "TidlIoWarning",
    "TidlRtError",
    "TidlRtRuntime",
    "UnsupportedLayerError",
    "advise",
    "alloc_input",
    "alloc_inputs",
    "alloc_output",
    "alloc_outputs",
    "as_buffer",
    "build",
    "check_emulation",
    "check_padding",
    "compare_calibration",
    "compare_traces",
    "dequantize",
    "diagnose",
    "emulate",
    "find_io_files",
    "get_input_details",
    "get_output_details",
    "load",
    "load_calibration",
    "load_net",
    "load_perf",
    "load_quant",
    "load_quant_params",
    "load_support",
    "load_traces",
    "make_descriptor",
    "native_info",
    "pack",
    "parse",
    "parse_net",
    "parse_od",
    "permute",
    "plan_permute",
    "quantize",
    "reorg",
    "reorg_inverse",
    "report",
    "rows_from_outputs",
    "unpack",
    "validate",
    "view",
]

# name -> submodule, for the names loaded on first use (PEP 562)
_LAZY = {
    "find_io_files": "artifacts.folder",
    "PaddingReport": "data.padding", "alloc_input": "data.buffers", "alloc_inputs": "data.buffers",
    "alloc_output": "data.buffers", "alloc_outputs": "data.buffers", "as_buffer": "data.buffers",
    "check_padding": "data.padding", "get_input_details": "data.details", "get_output_details": "data.details",
    "pack": "data.buffers", "unpack": "data.buffers", "view": "data.buffers",
    "dequantize": "data.quant", "quantize": "data.quant",
    "PermutePlan": "data.permute", "permute": "data.permute", "plan_permute": "data.permute",
    "reorg": "data.reorg", "reorg_inverse": "data.reorg",
    "InvokeReport": "runtime", "MockC7xRuntime": "runtime", "RtTensor": "runtime", "Runtime": "runtime",
    "Session": "run.session",
    "TidlRtRuntime": "runtime.tidlrt",
    "parse_od": "data.detection", "rows_from_outputs": "data.detection",
    "Layer": "net", "Network": "net", "load_net": "net", "parse_net": "net",
    "load_calibration": "trace", "load_traces": "trace",
    "CompareReport": "trace", "compare_calibration": "trace", "compare_traces": "trace",
    "Diagnosis": "doctor.checks", "diagnose": "doctor.checks",
    "QuantParams": "precision", "QuantReport": "precision", "load_quant": "precision", "load_quant_params": "precision",
    "SupportReport": "support", "load_support": "support",
    "Performance": "perf", "load_perf": "perf",
    "Emulation": "emulator", "emulate": "emulator",
    "EmulationCheck": "trace.emucheck", "check_emulation": "trace.emucheck",
    "Advice": "advisor", "advise": "advisor",
    "ModelReport": "overview", "report": "overview",
}


def native_info() -> dict[str, Any]:
    """Which kernel path is active and why: ``{"active": bool, "path": str | None, "reason": str,
    "threads": int, "isa": str | None}`` (the native kernels are optional; ``TIDL_IO_NATIVE=0``
    forces the NumPy path)."""
    from .native import info  # start-up
    return info()


# deprecated name -> the public name it is an alias of (same object; a DeprecationWarning on use)
_DEPRECATED = {"MissingFileError": "PathNotFoundError"}


def __getattr__(name: str) -> Any:
    if name in _DEPRECATED:
        new = _DEPRECATED[name]
        warnings.warn(f"tidl_io.{name} is deprecated: it is the same class as tidl_io.{new}, the error for "
                      f"every missing file; use {new}", DeprecationWarning, stacklevel=2)
        return globals()[new]
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tidl_io' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
