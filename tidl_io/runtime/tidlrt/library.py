"""Finding and loading TI's TIDL-RT library, looking its functions up, and the memory the
binding hands to it: structs inside guard bands, and shared-heap blocks owned by NumPy arrays.

Search order (spec tidlrt.md §1, §4b): ``library=``, else ``$TIDL_IO_TIDLRT_LIBRARY`` (a
path), else ``libvx_tidl_rt.so`` and ``libvx_tidl_rt.so.1.0`` through the dynamic loader,
else both names in ``$TIDL_TOOLS_PATH``. A loaded library is never unloaded (TI notes
leaked IPC descriptors on reload): loads are cached for the life of the process.
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
import threading
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ...base.errors import ArgumentTypeError, LibraryNotFoundError, OptionError, TidlRtError
from .._datamove import check_alloc_args
from .structs import StructLayout

__all__ = ["ENV_LIBRARY", "ENV_VERSION", "Guarded", "Library", "SharedBlock", "load_library"]

ENV_LIBRARY = "TIDL_IO_TIDLRT_LIBRARY"
ENV_VERSION = "TIDL_IO_TIDLRT_VERSION"
ENV_TOOLS = "TIDL_TOOLS_PATH"
NAMES = ("libvx_tidl_rt.so", "libvx_tidl_rt.so.1.0")

_I32, _P, _U64P = ctypes.c_int32, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64)
# name -> (restype, argtypes, required)
_SYMBOLS: dict[str, tuple[Any, list[Any], bool]] = {
    "TIDLRT_setParamsDefault": (_I32, [_P], True),
    "TIDLRT_setTensorDefault": (_I32, [_P], True),
    "TIDLRT_create": (_I32, [_P, ctypes.POINTER(_P)], True),
    "TIDLRT_invoke": (_I32, [_P, _P, _P], True),
    "TIDLRT_delete": (_I32, [_P], True),
    "TIDLRT_deactivate": (_I32, [_P], False),
    "TIDLRT_getDdrStats": (_I32, [_U64P, _U64P], False),
    "TIDLRT_allocSharedMem": (_P, [_I32, _I32], False),
    "TIDLRT_freeSharedMem": (None, [_P], False),
    "TIDLRT_isSharedMem": (_I32, [_P], False),
}


@dataclass
class Library:
    """A loaded TIDL-RT library: where it came from, how it was found, its functions."""

    path: str
    how: str
    handle: Any = field(repr=False)
    functions: dict[str, Any] = field(repr=False, default_factory=dict)
    lock: threading.Lock = field(repr=False, default_factory=threading.Lock)  # TI's pools have no lock

    def has(self, name: str) -> bool:
        return name in self.functions

    def fn(self, name: str) -> Any:
        try:
            return self.functions[name]
        except KeyError:
            raise TidlRtError(f"{self.path}: this TIDL-RT library has no {name} (an older release); "
                              f"tidl-io cannot use that function with it", call=name) from None

    @property
    def missing(self) -> tuple[str, ...]:
        """Optional functions this library lacks."""
        return tuple(n for n in _SYMBOLS if n not in self.functions)


_LOADED: dict[str, Library] = {}
_LOAD_LOCK = threading.Lock()


def _candidates(library: str | os.PathLike[str] | None) -> list[tuple[str, str]]:
    """(what to dlopen, how it was chosen), in search order."""
    if library is not None:
        return [(os.fspath(library), "library= argument")]
    env = os.environ.get(ENV_LIBRARY)
    if env:
        return [(env, f"${ENV_LIBRARY}")]
    found = [(name, "dynamic loader") for name in NAMES]
    tools = os.environ.get(ENV_TOOLS)
    if tools:
        found += [(str(Path(tools) / name), f"${ENV_TOOLS}") for name in NAMES]
    return found


def _where_loaded(name: str) -> str:
    """The file the loader picked for ``name`` (from /proc/self/maps; ``name`` elsewhere)."""
    try:
        with open("/proc/self/maps") as fh:
            for line in fh:
                path = line.rstrip("\n").split(maxsplit=5)[-1]
                if path.startswith("/") and Path(path).name.startswith("libvx_tidl_rt"):
                    return path
    except OSError:
        pass
    return name


def load_library(library: str | os.PathLike[str] | None = None) -> Library:
    """Load TIDL-RT (see the module docstring for the search order). Raises
    :class:`~tidl_io.LibraryNotFoundError` listing every place tried and why it failed, or
    :class:`~tidl_io.TidlRtError` when a required function is missing."""
    if library is not None and not isinstance(library, (str, os.PathLike)):
        raise ArgumentTypeError(f"TIDL-RT: library: expected a path to libvx_tidl_rt.so (str or os.PathLike) "
                                f"or None, found {type(library).__name__}")
    tried: list[str] = []
    with _LOAD_LOCK:
        for target, how in _candidates(library):
            explicit = "/" in target
            if explicit and not Path(target).is_file():
                tried.append(f"{target} ({how}): " + _not_a_file(Path(target)))
                continue
            key = str(Path(target).resolve()) if explicit else target
            if key in _LOADED:  # same handle, functions and lock; "how" is this lookup's
                return dataclasses.replace(_LOADED[key], how=how)
            try:
                handle = ctypes.CDLL(target, mode=getattr(os, "RTLD_GLOBAL", 0) | getattr(os, "RTLD_LAZY", 0))
            except OSError as exc:
                tried.append(f"{target} ({how}): {exc}")
                continue
            lib = Library(key if explicit else _where_loaded(target), how, handle)
            _bind(lib)
            _LOADED[key] = lib
            return lib
    raise LibraryNotFoundError(
        "TIDL-RT library not found; tried: " + "; ".join(tried) + f". Set {ENV_LIBRARY} to the library's path "
        f"(on a PC: {ENV_TOOLS} to TI's tidl_tools folder), or install the board's libvx_tidl_rt.so "
        f"(add the libvx_tidl_rt.so -> libvx_tidl_rt.so.1.0 symlink if only the latter exists)", tuple(tried))


def _not_a_file(path: Path) -> str:
    """Why ``path`` (not a regular file) cannot be the library: missing, or a folder."""
    if path.is_dir():
        inside = [name for name in NAMES if (path / name).is_file()]
        hint = f"; it holds {inside[0]}: give {path / inside[0]}" if inside else ""
        return f"is a folder, expected the library file itself (libvx_tidl_rt.so){hint}"
    return "no such file"


def _bind(lib: Library) -> None:
    missing = []
    for name, (restype, argtypes, required) in _SYMBOLS.items():
        try:
            f = getattr(lib.handle, name)
        except AttributeError:
            if required:
                missing.append(name)
            continue
        f.restype, f.argtypes = restype, argtypes
        lib.functions[name] = f
    if missing:
        raise TidlRtError(f"{lib.path}: not a usable TIDL-RT library: missing function(s) {', '.join(missing)} "
                          f"(found via {lib.how})", call="dlsym")


# ---- structs with guard bands ------------------------------------------------------------

GUARD = 64
_GUARD_BYTES = bytes((0xC3 + 7 * i) & 0xFF for i in range(GUARD))


class Guarded:
    """One C struct in a block of its own with :data:`GUARD` pattern bytes on each side;
    :meth:`check` after every library call finds a write outside the struct."""

    __slots__ = ("addr", "layout", "raw", "struct", "what")

    def __init__(self, layout: StructLayout, what: str) -> None:
        self.layout, self.what = layout, what
        self.raw = ctypes.create_string_buffer(GUARD + layout.size + GUARD)
        ctypes.memmove(self.raw, _GUARD_BYTES, GUARD)
        ctypes.memmove(ctypes.addressof(self.raw) + GUARD + layout.size, _GUARD_BYTES, GUARD)
        self.struct = layout.ctype.from_buffer(self.raw, GUARD)
        self.addr = ctypes.addressof(self.struct)

    def check(self, call: str, family: str) -> None:
        before = ctypes.string_at(self.addr - GUARD, GUARD)
        after = ctypes.string_at(self.addr + self.layout.size, GUARD)
        if before == _GUARD_BYTES and after == _GUARD_BYTES:
            return
        where = []
        if after != _GUARD_BYTES:
            n = max(i for i in range(GUARD) if after[i] != _GUARD_BYTES[i]) + 1
            where.append(f"up to {n} byte(s) past its end")
        if before != _GUARD_BYTES:
            n = GUARD - min(i for i in range(GUARD) if before[i] != _GUARD_BYTES[i])
            where.append(f"{n} byte(s) before its start")
        raise TidlRtError(
            f"{call} wrote outside {self.what} ({self.layout.name}, {self.layout.size} bytes in layout {family}): "
            f"{' and '.join(where)}. The library was probably built for a larger layout than {family} "
            f"(another TIDL release); tidl-io stops here rather than corrupt memory. Check the library's "
            f"version and pass version= / ${ENV_VERSION} or another library (${ENV_LIBRARY})", call=call)


# ---- shared-heap blocks owned by NumPy arrays -----------------------------------------------

class SharedBlock:
    """``size`` bytes at ``ptr`` from ``TIDLRT_allocSharedMem``, exposed to NumPy through
    ``__array_interface__``: every array over it keeps this object (its ``base``) alive, and
    the block is freed exactly once, when the last of them is gone."""

    __slots__ = ("__array_interface__", "__weakref__", "_finalizer", "ptr", "size")

    def __init__(self, lib: Library, ptr: int, size: int, registry: dict[int, int]) -> None:
        self.ptr, self.size = ptr, size
        self.__array_interface__ = {"shape": (size,), "typestr": "|u1", "data": (ptr, False), "version": 3}
        registry[ptr] = size
        self._finalizer = weakref.finalize(self, _free, lib, ptr, registry)

    @property
    def alive(self) -> bool:
        return self._finalizer.alive


def _free(lib: Library, ptr: int, registry: dict[int, int]) -> None:
    registry.pop(ptr, None)
    with lib.lock:
        lib.fn("TIDLRT_freeSharedMem")(ptr)


def alloc_shared(lib: Library, size: int, alignment: int, registry: dict[int, int]) -> np.ndarray:
    """A 1-D uint8 array over a new block of TIDL-RT's shared heap (NOT zeroed: that heap
    is dirty, like malloc)."""
    size, alignment = check_alloc_args(size, alignment)
    if size + alignment > 0x7FFFFFFF:
        raise OptionError(f"alloc_shared: size must fit TIDLRT_allocSharedMem's int32 size, found {size} bytes")
    with lib.lock:
        ptr = lib.fn("TIDLRT_allocSharedMem")(alignment, max(size, 1))
    if not ptr:
        raise TidlRtError(f"TIDLRT_allocSharedMem({alignment}, {size}) returned NULL. TI's board runtime sets its "
                          f"shared heap up in TIDLRT_create: before a create, or when its heap device or the remote "
                          f"cores are missing, every allocation fails, and TI prints 'MEM: ERROR: Alloc failed with "
                          f"status = N' where N is the errno of its DMA-heap ioctl (25 ENOTTY or 9 EBADF: heap not "
                          f"opened; 38 ENOSYS: no DMA heaps here, e.g. qemu; 12 ENOMEM: heap full). Otherwise the "
                          f"heap or its table (128 blocks) is full: free buffers you no longer need",
                          call="TIDLRT_allocSharedMem")
    if ptr % alignment:
        raise TidlRtError(f"TIDLRT_allocSharedMem({alignment}, {size}) returned {ptr:#x}, not {alignment}-aligned",
                          call="TIDLRT_allocSharedMem")
    block = SharedBlock(lib, ptr, size, registry)
    return np.asarray(block)


def owner_of(buf: np.ndarray) -> SharedBlock | None:
    """The :class:`SharedBlock` a view was made from, if any."""
    base: Any = buf
    while base is not None:
        if isinstance(base, SharedBlock):
            return base
        base = getattr(base, "base", None)
    return None
