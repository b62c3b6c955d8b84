"""The error types of tidl_io: one root, a few located subclasses.

Every message names where the problem is (file, byte offset, TI field or tensor) and
what was expected, e.g. ``io_1.bin: offset 0x0, numInputBuf: expected 0..32, found 1000``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


class TidlIoError(Exception):
    """Root of every error tidl_io raises on purpose."""


class FormatError(TidlIoError, ValueError):
    """The bytes are not a descriptor file of any known layout, or are inconsistent."""

    def __init__(self, source: str, message: str, offset: int | None = None, field: str | None = None):
        self.source = source
        self.offset = offset
        self.field = field
        self.detail = message
        where = [source]
        if offset is not None:
            where.append(f"offset {offset:#x}")
        if field is not None:
            where.append(field)
        super().__init__(f"{', '.join(where)}: {message}")


class GeometryError(TidlIoError, ValueError):
    """A tensor's geometry (dims, pads, pitches, element type) cannot describe a buffer."""


class BufferMismatchError(TidlIoError, ValueError):
    """A buffer or user array does not fit the tensor it is used with (its size, shape,
    dtype, alignment or values). Not for options: a bad option value is an
    :class:`OptionError`, an argument of the wrong kind an :class:`ArgumentTypeError`."""


class OptionError(TidlIoError, ValueError):
    """An option has the right kind but a value it does not take (``rounding="up"``,
    ``stride=0``, ``max_bytes=-1``, ``core_num=-1``, ``--repeat 0``); also a ValueError.
    The message names the function (or command-line option), what it takes and what it found."""


class TensorNotFoundError(TidlIoError, KeyError):
    """No tensor with that index or name (a KeyError, so ``except KeyError`` still works)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class AllocationLimitError(TidlIoError, MemoryError):
    """An allocation would exceed TIDL_IO_MAX_ALLOC_BYTES (or the per-call cap)."""


class TidlRtError(TidlIoError, RuntimeError):
    """TI's TIDL-RT library refused or failed a call, or cannot be used safely (missing,
    wrong layout, guard band overwritten, closed handle). ``call`` and ``status`` name the
    C call and its return value when there was one."""

    def __init__(self, message: str, *, call: str | None = None, status: int | None = None,
                 subgraph: str | None = None) -> None:
        self.call, self.status, self.subgraph = call, status, subgraph
        super().__init__(message)


class LibraryNotFoundError(TidlRtError, FileNotFoundError):
    """No TIDL-RT library (``libvx_tidl_rt.so``) where tidl-io looked; ``tried`` lists where."""

    def __init__(self, message: str, tried: tuple[str, ...] = ()) -> None:
        self.tried = tried
        super().__init__(message)


class UnsupportedLayerError(TidlIoError, NotImplementedError):
    """The emulator (:func:`tidl_io.emulate`) meets a layer type or parameter it does not
    implement: one located line (net file, layer index, type, name, what is missing); it
    never guesses. ``index``, ``layer_type`` and ``name`` locate the layer."""

    def __init__(self, message: str, *, index: int | None = None, layer_type: str | None = None,
                 name: str | None = None) -> None:
        self.index, self.layer_type, self.name = index, layer_type, name
        super().__init__(message)


class ArgumentTypeError(TidlIoError, TypeError):
    """A public function got an argument of the wrong kind (a TypeError too); the message
    names the function, the argument, what it expected and what it found."""


class PathError(TidlIoError, OSError):
    """A path given to tidl_io cannot be used: missing, a folder, not a regular file,
    unreadable. An OSError with ``errno`` and ``filename``; the message names the path and
    what was expected there. Missing paths and folders raise the subclasses that are also
    FileNotFoundError and IsADirectoryError."""

    def __init__(self, path: str, message: str, errno: int | None = None) -> None:
        super().__init__(errno, message, path)

    def __str__(self) -> str:
        name = self.filename if str(self.filename).isprintable() else repr(self.filename)
        return f"{name}: {self.strerror}"

    def __reduce__(self) -> tuple[object, ...]:  # pickles with this __init__'s arguments
        return type(self), (self.filename, self.strerror, self.errno)


class PathNotFoundError(PathError, FileNotFoundError):
    """No file or folder at the path (also a FileNotFoundError): the one error for every
    missing file tidl-io needs (an io file, a net file, a param.yaml). ``filename`` is the
    path; the message names it and what was expected there. ``MissingFileError``, its
    former name for a missing net file, is a deprecated alias of this class."""


MissingFileError = PathNotFoundError
"""Deprecated alias of :class:`PathNotFoundError` (the same class): kept so that code
written against the first runtime release still catches a missing net file."""


class PathIsFolderError(PathError, IsADirectoryError):
    """A folder where a file was expected (also an IsADirectoryError)."""


class TidlIoWarning(UserWarning):
    """A setting tidl_io does not understand (an environment variable's value, say) and
    replaces by its default; the message names the setting, the value and what is used."""


def check_out(out: object, shape: tuple[int, ...], dtypes: tuple[object, ...], label: str) -> np.ndarray:
    """``out`` if it is a writable numpy array of ``shape`` and one of ``dtypes`` (no
    casting); an :class:`ArgumentTypeError` if it is no array, a :class:`BufferMismatchError`
    naming ``label`` and what was expected if it does not fit."""
    import numpy as np  # start-up

    if not isinstance(out, np.ndarray):
        raise ArgumentTypeError(f"{label}: out: expected a numpy array (or None), found {type(out).__name__}")
    if out.shape != tuple(shape):
        raise BufferMismatchError(f"{label}: out has shape {out.shape}, expected {tuple(shape)}")
    if out.dtype not in dtypes:
        raise BufferMismatchError(f"{label}: out has dtype {out.dtype}, expected "
                                  f"{' or '.join(str(d) for d in dtypes)} (no casting)")
    if not out.flags.writeable:
        raise BufferMismatchError(f"{label}: out is read-only")
    return out


__all__ = ["AllocationLimitError", "ArgumentTypeError", "BufferMismatchError", "FormatError", "GeometryError",
           "LibraryNotFoundError", "OptionError", "PathError", "PathIsFolderError", "PathNotFoundError",
           "TidlIoError", "TidlIoWarning", "TidlRtError"]
