"""Every file tidl-io writes goes through here: atomic where the path is a file, written through
where it is a device or a FIFO, refused where it is anything else.

What is at the path decides (a symlink is followed, never replaced):

- nothing, or a regular file: a temporary in the same folder, fsync, then rename over it, so a
  reader (or a process killed mid-write) sees the old file or the new one, never a torn one;
- a character device (``/dev/null``, a terminal) or a FIFO (``/dev/stdout`` into a pipe): the
  bytes are written through, as any Unix tool writes them -- the device is never replaced by a
  file (renaming over ``/dev/null`` as root would destroy it);
- a file reached through a process's ``/proc/<pid>/fd/N`` (``/dev/stdout`` redirected into a
  file): written at its end, never replaced (the process writing to it would lose it);
- a folder, a block device, a socket: a :class:`~tidl_io.PathError` naming the path and what it is.

Every failure is a :class:`~tidl_io.PathError` (an OSError too) naming the user's path -- never
the temporary's -- and nothing is left behind: a write that fails midway removes its temporary.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from .errors import ArgumentTypeError, PathError, PathIsFolderError, PathNotFoundError

__all__ = ["WRITABLE", "file_kind", "make_output_folder", "open_atomic", "write_bytes_atomic", "write_failure"]

WRITABLE = "a regular file (replaced atomically), a character device such as /dev/null, or a FIFO"
"""What an output path may be, for messages."""

_CANNOT_WRITE = "cannot write"
_MAX_LINKS = 40  # Linux's own limit on the symlinks of one lookup
_PROC_FD = re.compile(r"/proc/\d+(?:/task/\d+)?/fd")
_FILE_KINDS = ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
               (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes | bytearray | memoryview) -> None:
    """Write ``data`` to ``path`` as :func:`open_atomic` does: a file is replaced atomically
    (POSIX rename semantics; the new file keeps the mode of the file it replaces, else gets a
    plain write's mode, 0o666 less the umask, and the folder is fsynced after the rename so the
    rename is durable); a character device or a FIFO is written through."""
    with open_atomic(path) as fh:
        fh.write(data)


@contextlib.contextmanager
def open_atomic(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary file to write ``path`` through, for writers that stream (e.g. ``np.savez``).

    Where ``path`` (its symlinks followed) is a regular file or nothing, the file is a temporary
    beside it that replaces it when the block ends without an exception and is removed when it
    raises. Where it is a character device or a FIFO, the device itself (no temporary, no
    rename: the bytes stream through; a FIFO waits for its reader, as any writer does). A
    :class:`~tidl_io.PathError` naming ``path`` for anything else (a folder:
    :class:`~tidl_io.PathIsFolderError`; a missing folder: :class:`~tidl_io.PathNotFoundError`)
    and for a write that fails, before anything is written or with nothing left behind."""
    name = _path(path, "open_atomic")
    target, through = _destination(name)
    if through:
        with _write_through(name, target) as fh:
            yield fh
        return
    folder = os.path.dirname(target) or "."
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(target)}.", suffix=".tmp")
    except (FileNotFoundError, NotADirectoryError):  # name the user's path, not the temporary's
        raise PathNotFoundError(name, f"{_CANNOT_WRITE} it: {_no_folder(Path(folder))}", errno.ENOENT) from None
    except OSError as exc:
        raise _failed(name, exc) from None
    try:
        with _located(name):
            with os.fdopen(fd, "wb") as fh:
                if hasattr(os, "fchmod"):  # POSIX
                    os.fchmod(fh.fileno(), _mode_for(target))
                yield fh
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_folder(folder)


def make_output_folder(path: str | os.PathLike[str], expected: str) -> Path:
    """``path`` as a folder to write files into, made (with its parents) when missing; a
    :class:`~tidl_io.PathError` naming the path, what is there instead (a file, a device...) and
    ``expected`` when it is no folder or cannot be made."""
    name = _path(path, "make_output_folder")
    try:
        os.makedirs(name, exist_ok=True)
    except FileExistsError:
        pass  # something that is no folder (told below), or a symlink to nothing
    except ValueError:
        raise PathError(name, f"{_CANNOT_WRITE} into it: the name holds a NUL byte, which no file name can; "
                              f"expected {expected}", errno.EINVAL) from None
    except OSError as exc:
        raise PathError(name, f"{_CANNOT_WRITE} into it: {exc.strerror or exc}; expected {expected}",
                        exc.errno) from None
    try:
        mode = os.stat(name).st_mode
    except OSError as exc:
        raise PathError(name, f"{_CANNOT_WRITE} into it: {exc.strerror or exc} (a symbolic link to nothing?); "
                              f"expected {expected}", exc.errno) from None
    if not stat.S_ISDIR(mode):
        raise PathError(name, f"{_CANNOT_WRITE} into it: it is {file_kind(mode)}, not a folder; expected {expected}",
                        errno.ENOTDIR)
    return Path(name)


def file_kind(mode: int) -> str:
    """What a ``st_mode`` is, for a message: "a regular file", "a folder", "a FIFO (named pipe)",
    "a character device", "a block device", "a socket" (else "a special file")."""
    return next((text for test, text in _FILE_KINDS if test(mode)), "a special file")


def _no_folder(folder: Path) -> str:
    """What ``folder`` is, when no file could be created in it: missing, a file, or a folder
    that takes no new file (``/proc``: the system says "no such file" there)."""
    name = os.fspath(folder)
    if folder.is_dir():
        return f"the folder {name!r} takes no new file (a read-only or virtual file system?)"
    if os.path.lexists(folder):
        return f"{name!r} is a file, not a folder" if folder.is_file() else f"{name!r} is not a folder"
    return f"the folder {name!r} does not exist"


def write_failure(exc: OSError, path: str | os.PathLike[str]) -> str:
    """The one line for a write to ``path`` that failed with ``exc``: the path, then the OS's
    reason once (``out/r.html: cannot write: Permission denied``; a missing folder, as
    :func:`open_atomic` says it: ``out/r.html: cannot write it: the folder 'out' does not exist``;
    a refused path: ``/dev/sda: cannot write it: it is a block device; ...``)."""
    why = str(exc.strerror or exc)
    return f"{os.fspath(path)}: {why if why.startswith(_CANNOT_WRITE) else f'{_CANNOT_WRITE}: {why}'}"


def _path(value: object, func: str) -> str:
    """``value`` as a str path (this module imports nothing but the errors: a child process loads
    it alone, see tests/test_atomic.py; the wording is base/check.check_path's)."""
    name = os.fspath(value) if isinstance(value, (str, os.PathLike)) else None
    if not isinstance(name, str):
        raise ArgumentTypeError(f"{func}: path: expected a path (str or os.PathLike), found {type(value).__name__}")
    return name


def _destination(name: str) -> tuple[str, bool]:
    """Where a write to ``name`` lands (its symlinks followed) and whether it is written through
    (a device, a FIFO, a file held by a process's fd) rather than replaced; a PathError for a
    path that cannot be written at all."""
    try:
        st: os.stat_result | None = os.stat(name)
    except (FileNotFoundError, NotADirectoryError):
        st = None  # nothing there (or a symlink to nothing: written at its target)
    except ValueError:
        raise PathError(name, f"{_CANNOT_WRITE} it: the name holds a NUL byte, which no file name can",
                        errno.EINVAL) from None
    except OSError as exc:
        raise _failed(name, exc) from None
    if st is not None:
        mode = st.st_mode
        if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
            return name, True
        if stat.S_ISDIR(mode):
            raise PathIsFolderError(name, f"{_CANNOT_WRITE} it: it is a folder; expected {WRITABLE}", errno.EISDIR)
        if not stat.S_ISREG(mode):
            raise PathError(name, f"{_CANNOT_WRITE} it: it is {file_kind(mode)}; expected {WRITABLE}", errno.EINVAL)
    target, held = _follow(name)
    return target, held and st is not None


def _follow(name: str) -> tuple[str, bool]:
    """The path a chain of symlinks at ``name`` ends at (the last one's target, which may not
    exist yet), and whether the chain passes through a process's ``/proc/<pid>/fd`` (whose
    links name open files: writing there must not replace the file)."""
    current = name
    for _ in range(_MAX_LINKS):
        folder = os.path.dirname(current) or "."
        if _PROC_FD.fullmatch(os.path.realpath(folder)):
            return current, True
        try:
            link = os.readlink(current)
        except OSError:  # not a symlink (or nothing there): the end of the chain
            return current, False
        current = os.path.join(folder, link)
    raise PathError(name, f"{_CANNOT_WRITE} it: more than {_MAX_LINKS} symbolic links", errno.ELOOP)


@contextlib.contextmanager
def _write_through(name: str, target: str) -> Iterator[BinaryIO]:
    """``target`` opened for writing as it is (a device, a FIFO, a file held by a process: at
    its end), checked again on the open descriptor so the file checked is the file written."""
    flags = os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(target, flags)
    except OSError as exc:
        raise _failed(name, exc) from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as exc:
        os.close(fd)
        raise _failed(name, exc) from None
    if not (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISREG(mode)):  # it changed since it was looked at
        os.close(fd)
        raise PathError(name, f"{_CANNOT_WRITE} it: it is {file_kind(mode)}; expected {WRITABLE}", errno.EINVAL)
    with _located(name), _Stream(io.FileIO(fd, "wb")) as fh:  # the close's flush located too (ENOSPC)
        yield fh
        fh.flush()


class _Stream(io.BufferedWriter):
    """A device, a FIFO or a file held open elsewhere, written in order: no position to tell or
    seek to (/dev/null's is always 0), so a writer that would seek back (``zipfile``, under
    ``np.savez``) counts the bytes itself and streams."""

    def seekable(self) -> bool:
        return False

    def tell(self) -> int:
        raise io.UnsupportedOperation("a device or a FIFO is written in order: no position")

    def seek(self, offset: int, whence: int = 0) -> int:
        raise io.UnsupportedOperation("a device or a FIFO is written in order: no seeking")


@contextlib.contextmanager
def _located(name: str) -> Iterator[None]:
    """An OSError of a write (no file name of its own: ENOSPC, EPIPE, EIO...) or of the rename
    as a PathError naming the user's path."""
    try:
        yield
    except PathError:
        raise
    except OSError as exc:
        if exc.filename is not None and exc.filename != name and not os.path.basename(
                os.fspath(exc.filename)).endswith(".tmp"):
            raise  # another file's error, raised by the caller's block: not ours to rename
        raise _failed(name, exc) from None


def _failed(name: str, exc: OSError) -> PathError:
    reason = exc.strerror or str(exc)
    if isinstance(exc, FileNotFoundError):
        return PathNotFoundError(name, f"{_CANNOT_WRITE}: {reason}", exc.errno)
    if isinstance(exc, IsADirectoryError):
        return PathIsFolderError(name, f"{_CANNOT_WRITE}: {reason}", exc.errno)
    return PathError(name, f"{_CANNOT_WRITE}: {reason}", exc.errno)


def _mode_for(target: str) -> int:
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)  # no /proc: read it by setting it (and restore at once)
    os.umask(mask)
    return mask


def _fsync_folder(folder: str) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
