"""Checks at the public boundaries: arguments of the wrong kind, layout names, paths.

Every wrong argument gets one message shape, an :class:`ArgumentTypeError` (also a
TypeError)::

    pack: tensor: expected a tidl_io.Tensor (desc.input(i) or desc.output(i)), found
    Descriptor; pick one of its tensors, e.g. desc.input(0)

The checks are plain calls at the top of public functions (no decorators): an
``isinstance`` on the fast path, the message built only on failure. Paths are opened
here too: only regular files, never blocking on a FIFO or a device.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Mapping
from typing import IO, Any, TypeVar

import numpy as np

from .atomic import file_kind
from .errors import (
    ArgumentTypeError,
    BufferMismatchError,
    OptionError,
    PathError,
    PathIsFolderError,
    PathNotFoundError,
)

T = TypeVar("T")

# What each of our classes is, for "expected ..." (by class name: no import of descriptor here).
_KINDS = {
    "Tensor": "a tidl_io.Tensor (desc.input(i) or desc.output(i))",
    "Descriptor": "a tidl_io.Descriptor (tidl_io.load(path) or tidl_io.parse(data))",
}


def found(value: object) -> str:
    """How a message names a value: its type, with the value for short scalars."""
    if value is None or isinstance(value, bool):
        return repr(value)
    kind = type(value).__name__
    if isinstance(value, (str, bytes, int, float)):
        text = repr(value)
        return f"{kind} {text if len(text) <= 40 else text[:37] + '...'}"
    return kind


def _hint(expected: str, value: object) -> str:
    """What the caller probably meant, for the usual confusions."""
    kind = type(value).__name__
    if expected == "Tensor":
        if kind == "Descriptor":
            return "; pick one of its tensors, e.g. desc.input(0) or desc.output(0)"
        if isinstance(value, str):
            return f"; for the tensor named {value!r} pass desc.input({value!r}) or desc.output({value!r})"
        if isinstance(value, int) and not isinstance(value, bool):
            return f"; for tensor {value} pass desc.input({value}) or desc.output({value})"
    if expected == "Descriptor":
        if kind == "Tensor":
            return "; this is one tensor: pass the Descriptor it belongs to"
        if kind == "Session":
            return "; a Session holds one per subgraph: session.descriptors[i]"
        if isinstance(value, (str, os.PathLike)):
            return "; to read a file use tidl_io.load(path)"
        if isinstance(value, (bytes, bytearray, memoryview)):
            return "; to parse a file's bytes use tidl_io.parse(data)"
    return ""


def wrong_kind(func: str, arg: str, value: object, expected: str, hint: str = "") -> ArgumentTypeError:
    """The error for argument ``arg`` of ``func``: ``expected`` (a phrase), found ``value``."""
    return ArgumentTypeError(f"{func}: {arg}: expected {expected}, found {found(value)}{hint}")


def check_kind(value: Any, kind: type[T], func: str, arg: str) -> T:
    """``value`` if it is a ``kind`` (one of our classes), else an ArgumentTypeError."""
    if isinstance(value, kind):
        return value
    raise kind_error(value, kind, func, arg)


def kind_error(value: object, kind: type, func: str, arg: str) -> ArgumentTypeError:
    """The error :func:`check_kind` raises for a ``value`` that is no ``kind``, for a caller that
    tests ``isinstance`` itself."""
    name = kind.__name__
    return wrong_kind(func, arg, value, _KINDS.get(name, f"a {name}"), _hint(name, value))


def check_flag(value: Any, func: str, arg: str) -> bool:
    """A yes/no argument: True or False (NumPy's bools too); anything else is refused
    rather than read by its truth value (``squeeze="no"`` would mean yes)."""
    if value is True or value is False:
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    raise wrong_kind(func, arg, value, "True or False")


def check_path(value: Any, func: str, arg: str, hint: str = "") -> str:
    """A filesystem path (str or os.PathLike of str) as str."""
    if isinstance(value, str):
        return value
    if isinstance(value, os.PathLike):
        path = os.fspath(value)
        if isinstance(path, str):
            return path
    raise wrong_kind(func, arg, value, "a path (str or os.PathLike)", hint)


def as_array(value: Any, func: str, arg: str) -> np.ndarray:
    """Array-like ``value`` as a numpy array (no copy for arrays): numbers, nested lists,
    anything with ``__array__``. None, strings, mappings and sets, ragged lists and other
    objects NumPy can only wrap as a 0-d object array are refused."""
    if isinstance(value, np.ndarray):
        return value
    expected = "an array (a numpy array or nested lists of numbers)"
    if value is None or isinstance(value, (str, bytes, Mapping, set, frozenset)):
        raise wrong_kind(func, arg, value, expected)
    try:
        array = np.asarray(value)
    except (ValueError, TypeError) as exc:  # ragged nesting, a failing __array__
        raise wrong_kind(func, arg, value, expected, f" ({exc})") from None
    if array.dtype.kind == "O" and not isinstance(value, (list, tuple)):
        raise wrong_kind(func, arg, value, expected)
    return array


def check_choice(value: Any, allowed: tuple[str, ...], func: str, arg: str) -> str:
    """``value`` if it is one of the names ``allowed`` (exact case); an ArgumentTypeError
    for a non-string, an :class:`OptionError` (a ValueError) for another name."""
    if type(value) is str and value in allowed:  # the usual call
        return value
    choices = ", ".join(map(repr, allowed))
    if not isinstance(value, str):
        raise wrong_kind(func, arg, value, f"one of {choices}")
    if value in allowed:
        return str(value)
    raise OptionError(f"{func}: {arg} must be one of {choices}, found {value!r}")


def check_int(value: Any, func: str, arg: str, minimum: int | None = None, what: str = "an integer") -> int:
    """A whole number (Python or NumPy integer, not a bool) >= ``minimum``: an
    ArgumentTypeError for another kind (a float, a string), an :class:`OptionError` (a
    ValueError) below ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise wrong_kind(func, arg, value, what if minimum is None else f"{what} >= {minimum}")
    number = int(value)
    if minimum is not None and number < minimum:
        raise OptionError(f"{func}: {arg} must be >= {minimum}, found {number}")
    return number


# ---- layout names ---------------------------------------------------------------------

LAYOUTS = ("NCHW", "NHWC", "CHW", "HWC")
"""Array layout names every layout= argument understands (in any letter case)."""


def layout_name(value: object) -> str | None:
    """The canonical (upper-case) name of a layout, or None if ``value`` names none."""
    if isinstance(value, str):
        name = value.upper()
        if name in LAYOUTS:
            return name
    return None


def check_layout(value: Any, where: str, allowed: tuple[str, ...] = LAYOUTS) -> str:
    """The canonical name of layout ``value`` (any case) among ``allowed``; an
    ArgumentTypeError for a non-string, an :class:`OptionError` (a ValueError) for another name."""
    if type(value) is str and value in allowed:  # the usual call: nothing to normalise
        return value
    choices = ", ".join(map(repr, allowed))
    if not isinstance(value, str):
        raise wrong_kind(where, "layout", value, f"one of {choices} (any case)")
    name = layout_name(value)
    if name not in allowed:
        raise OptionError(f"{where}: layout must be one of {choices} (any case), found {value!r}")
    return name


# ---- paths ------------------------------------------------------------------------------

def open_regular(path: str, expected: str) -> IO[bytes]:
    """``path`` opened for binary reading if it is a regular file, else a :class:`PathError`
    naming the path, what it is and ``expected`` (a phrase: "a descriptor file ...").

    Opened without blocking (a FIFO would wait for a writer forever) and checked with
    ``fstat`` on the open descriptor, so the file checked is the file read.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise PathNotFoundError(path, f"no such file; expected {expected}", errno.ENOENT) from None
    except IsADirectoryError:
        raise PathIsFolderError(path, f"is a folder; expected {expected}", errno.EISDIR) from None
    except OSError as exc:
        raise PathError(path, f"cannot open: {exc.strerror or exc}; expected {expected}", exc.errno) from None
    except ValueError:  # "embedded null byte": no file name holds one
        raise PathError(path, f"holds a NUL byte, which no file name can; expected {expected}",
                        errno.EINVAL) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise PathIsFolderError(path, f"is a folder; expected {expected}", errno.EISDIR)
        if not stat.S_ISREG(mode):
            raise PathError(path, f"is {file_kind(mode)}, not a regular file; expected {expected}")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_limited(fh: IO[bytes], limit: int) -> bytes:
    """At most ``limit + 1`` bytes of ``fh`` (one more than allowed tells the caller the file is
    too long), reading no more than the file holds.

    ``fh.read(n)`` allocates ``n`` bytes before it reads, so a generous limit would cost that
    much memory on every call (a board has little); here the first read asks for the size
    ``fstat`` reports plus one, and only a file still growing (or a /proc file reporting 0)
    reads on, in chunks, up to the limit.
    """
    try:
        hint = os.fstat(fh.fileno()).st_size
    except (OSError, AttributeError, ValueError):
        hint = 0
    want = limit + 1
    ask = min(hint + 1, want)
    parts = [fh.read(ask)]
    got = len(parts[0])
    while len(parts[-1]) == ask and got < want:  # a short read is the end of the file
        ask = min(1 << 20, want - got)
        parts.append(fh.read(ask))
        got += len(parts[-1])
    return parts[0] if len(parts) == 1 else b"".join(parts)


def path_kind(path: str | os.PathLike[str], expected: str) -> str | None:
    """What is at ``path``: ``"folder"``, ``"file"`` (a regular file), ``"other"`` (a FIFO,
    a device...) or None when nothing is there (or a part of it is no folder). A path that
    cannot even be looked at -- a name over NAME_MAX, a path over PATH_MAX, a folder on the
    way that may not be searched, a symlink loop, a NUL byte -- is a :class:`PathError`
    naming it and ``expected``, never a bare OSError."""
    name = os.fspath(path)
    try:
        mode = os.stat(name).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise PathError(name, f"cannot look at it: {exc.strerror or exc}; expected {expected}", exc.errno) from None
    except ValueError:
        raise PathError(name, f"holds a NUL byte, which no file name can; expected {expected}", errno.EINVAL) from None
    return "folder" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"


def require_folder(path: str | os.PathLike[str], expected: str) -> None:
    """Nothing when ``path`` is a folder; else a :class:`PathError` saying what is there
    instead -- :class:`PathNotFoundError` "no such file or folder", or "is a file, not a
    folder" -- and ``expected``."""
    name = os.fspath(path)
    kind = path_kind(name, expected)
    if kind is None:
        raise PathNotFoundError(name, f"no such file or folder; expected {expected}", errno.ENOENT)
    if kind != "folder":
        what = "a file" if kind == "file" else "not a regular file"
        raise PathError(name, f"is {what}, not a folder; expected {expected}", errno.ENOTDIR)


def list_folder(path: str | os.PathLike[str], expected: str) -> list[str]:
    """The names in folder ``path``, sorted; a :class:`PathError` (PathNotFoundError when it is
    gone) when it cannot be listed (no permission, too long a path...)."""
    name = os.fspath(path)
    try:
        return sorted(os.listdir(name))
    except FileNotFoundError:
        raise PathNotFoundError(name, f"no such folder; expected {expected}", errno.ENOENT) from None
    except OSError as exc:
        raise PathError(name, f"cannot list it: {exc.strerror or exc}; expected {expected}", exc.errno) from None
    except ValueError:
        raise PathError(name, f"holds a NUL byte, which no file name can; expected {expected}", errno.EINVAL) from None


def nan_found(label: str, x: np.ndarray, what: str, advice: str = "") -> BufferMismatchError | None:
    """The error for NaN in ``x`` (``label: what holds N NaN value(s), the first at index (i, j, ..)``
    and ``advice``), or None when ``x`` holds none (integers never do). The one wording of NaN in
    user data: pack's ``nan="error"``, the emulator's inputs and the input files of the commands."""
    if x.dtype.kind not in "fc" or not x.size:
        return None
    mask = np.isnan(x)
    count = int(np.count_nonzero(mask))
    if not count:
        return None
    first = tuple(int(i) for i in np.unravel_index(int(np.argmax(mask)), x.shape)) if x.ndim else ()
    return BufferMismatchError(f"{label}: {what} holds {count} NaN value(s), the first at index {first}"
                               + (f"; {advice}" if advice else ""))
