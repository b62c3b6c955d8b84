"""Write files atomically: a temporary in the same folder, fsync, then rename.

A reader (or a process killed mid-write) sees the old file or the new one, never a torn one.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

__all__ = ["open_atomic", "write_bytes_atomic", "write_failure"]

_CANNOT_WRITE = "cannot write"


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (POSIX rename semantics).

    The new file keeps the mode of the file it replaces, else gets a plain write's mode
    (0o666 less the umask); the folder is fsynced after the rename so the rename is durable.
    """
    with open_atomic(path) as fh:
        fh.write(data)


@contextlib.contextmanager
def open_atomic(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary file to write that replaces ``path`` atomically when the block ends without
    an exception (and is removed when it raises): for writers that stream, e.g. ``np.savez``.
    Same mode and durability as :func:`write_bytes_atomic`."""
    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except (FileNotFoundError, NotADirectoryError) as exc:  # name the user's path, not the temporary's
        raise type(exc)(exc.errno, f"{_CANNOT_WRITE} it: {_no_folder(target.parent)}", os.fspath(path)) from None
    try:
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
    _fsync_folder(target.parent)


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
    :func:`open_atomic` says it: ``out/r.html: cannot write it: the folder 'out' does not exist``)."""
    why = str(exc.strerror or exc)
    return f"{os.fspath(path)}: {why if why.startswith(_CANNOT_WRITE) else f'{_CANNOT_WRITE}: {why}'}"


def _mode_for(target: Path) -> int:
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


def _fsync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
