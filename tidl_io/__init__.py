"""tidl-io: TI TIDL I/O buffer descriptors (``*_tidl_io_1.bin``) for Python."""

from ._errors import AllocationLimitError, BufferMismatchError, FormatError, GeometryError, TidlIoError
from .descriptor import Descriptor, ElementType, Tensor, TensorLayout, build, load, make_descriptor, parse
from .validate import Finding, validate

__version__ = "0.1.0"

__all__ = [
    "AllocationLimitError",
    "BufferMismatchError",
    "Descriptor",
    "ElementType",
    "Finding",
    "FormatError",
    "GeometryError",
    "Tensor",
    "TensorLayout",
    "TidlIoError",
    "build",
    "load",
    "make_descriptor",
    "parse",
    "validate",
]
