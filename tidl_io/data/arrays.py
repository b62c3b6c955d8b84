"""Users' array files (``.npy``, ``.npz``) read as untrusted input: the one reader every command uses.

``tidl-io emulate --input``, ``golden``/``compare``/``advise --input``, ``run --input`` and the golden
``.npz`` of ``compare`` all read through here; ``np.load`` is called nowhere. What is read:

- an ``.npy`` (:func:`load_npy`): the ``\\x93NUMPY`` magic, version 1.0, 2.0 or 3.0, a header of
  at most 64 KiB that is a Python literal (read with :func:`ast.literal_eval`: nothing is called),
  a dict of ``descr``, ``fortran_order`` and ``shape``, a shape of at most 32 whole numbers >= 0,
  a numeric dtype (no object, string, structured or datetime arrays: so never a pickle), and a
  data size that is exactly what the file holds after the header and within the allocation cap
  (:func:`tidl_io.base.limits.check_alloc`) -- all before the data is read;
- an ``.npz`` (:class:`NpzArrays`): the zip directory, then each member as an ``.npy`` with the
  same checks, read one array at a time when asked for. ``np.load`` reads each member through
  :mod:`zipfile`, which computes a CRC-32 on the way: for a golden run of a few hundred MB that
  costs as much as a comparison. A stored member (what ``np.savez`` writes) is read in place with
  ``np.fromfile`` (a copy, no CRC); a compressed one is inflated a bounded chunk at a time into
  the array (zipfile checks its CRC at the end).

Every error is a :class:`~tidl_io.base.errors.TidlIoError` naming the file (and the member): a
:class:`~tidl_io.base.errors.PathError` for a missing file, a folder or a FIFO, a
:class:`~tidl_io.base.errors.FormatError` for bytes that are no such array (what was expected, what
was found), an :class:`~tidl_io.base.errors.AllocationLimitError` past the cap.

>>> x = load_npy("frame.npy")                  # doctest: +SKIP
>>> arrays = load_arrays("inputs.npz")         # doctest: +SKIP  (ndarray for .npy, dict for .npz)
"""

from __future__ import annotations

import ast
import math
import os
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import IO

import numpy as np

from ..base.check import nan_found, open_regular
from ..base.errors import FormatError
from ..base.limits import check_alloc

__all__ = ["INPUT_KINDS", "Member", "NpzArrays", "check_no_nan", "load_arrays", "load_npy"]

_LOCAL_HEADER = struct.Struct("<4s5H3I2H")  # PK\3\4 ... name length, extra length (30 bytes)
_MAGIC = b"\x93NUMPY"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")  # a member first, or the end of an empty archive
_MAX_HEADER = 1 << 16  # bytes of an .npy header (numpy writes under 100; its own reader stops at 10 000)
_MAX_DIMS = 32  # numpy's own limit on ndim
_CHUNK = 1 << 22  # bytes inflated at a time
_NUMERIC = "iuf"  # a golden tensor: integers and floats
INPUT_KINDS = _INPUT = "biuf"  # a user's input: booleans too
_INPUT_WORDS = "numeric (booleans, integers or floats)"
_MAX_TEXT = 1 << 20  # characters of a text member (read_text)


@dataclass(frozen=True)
class Member:
    """What an ``.npy`` header says: ``shape``, ``dtype``, ``fortran`` order, and where its data
    starts (``data_offset`` bytes into the ``.npy``) and how many bytes it holds."""

    key: str
    shape: tuple[int, ...]
    dtype: np.dtype
    fortran: bool
    data_offset: int
    nbytes: int


def _found(head: bytes) -> str:
    """How a message shows the first bytes of a file that is not what was expected."""
    if not head:
        return "an empty file (0 bytes)"
    if head.startswith(_ZIP_MAGICS):
        return "a zip archive (an .npz?)"
    if head[:1] == b"\x80":
        return "a Python pickle"
    return f"bytes {head[:16]!r}"


def read_header(fh: IO[bytes], size: int, key: str, fail: Callable[[str], FormatError]) -> Member:
    """The checked ``.npy`` header at ``fh``'s position, for an ``.npy`` of ``size`` bytes in all
    (``fail(what)`` makes the located error). The one header check of every array file."""
    start = fh.read(8)
    if len(start) != 8 or start[:6] != _MAGIC:
        raise fail(f"not an .npy array (no \\x93NUMPY magic): found {_found(start + fh.read(8))}")
    version = (start[6], start[7])
    if version == (1, 0):
        size_bytes = fh.read(2)
        head_len = struct.unpack("<H", size_bytes)[0] if len(size_bytes) == 2 else -1
        prefix = 10
    elif version in ((2, 0), (3, 0)):
        size_bytes = fh.read(4)
        head_len = struct.unpack("<I", size_bytes)[0] if len(size_bytes) == 4 else -1
        prefix = 12
    else:
        raise fail(f".npy format version {version[0]}.{version[1]} is none of 1.0, 2.0, 3.0")
    if head_len < 0:
        raise fail(f"the .npy header's length is cut short: the file is {size} bytes")
    if head_len > _MAX_HEADER:
        raise fail(f".npy header of {head_len} bytes: expected at most {_MAX_HEADER}")
    raw = fh.read(head_len)
    if len(raw) != head_len:
        raise fail(f".npy header cut short: {len(raw)} of {head_len} bytes")
    try:
        text = raw.decode("utf-8" if version == (3, 0) else "latin1")
        head = ast.literal_eval(text)  # literals only: nothing is called
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        raise fail("the .npy header is not a Python literal") from None
    if not isinstance(head, dict) or set(head) != {"descr", "fortran_order", "shape"}:
        raise fail("the .npy header is not a dict of descr, fortran_order and shape")
    shape = head["shape"]
    if (not isinstance(shape, tuple) or len(shape) > _MAX_DIMS
            or not all(type(d) is int and d >= 0 for d in shape)):
        raise fail(f"shape {str(shape)[:80]}: expected at most {_MAX_DIMS} whole numbers >= 0")
    if not isinstance(head["fortran_order"], bool):
        raise fail("fortran_order is not True or False")
    try:
        dtype = np.lib.format.descr_to_dtype(head["descr"])
    except (TypeError, ValueError, KeyError, IndexError, SyntaxError):
        raise fail(f"dtype {str(head['descr'])[:80]!r} is not one numpy reads") from None
    count = math.prod(shape)
    nbytes = count * dtype.itemsize  # Python ints: no overflow
    have = size - prefix - head_len
    if not dtype.hasobject and nbytes != have:
        raise fail(f"shape {shape} of {dtype} is {nbytes} bytes, but {have} bytes of data follow the header")
    return Member(key, shape, dtype, head["fortran_order"], prefix + head_len, nbytes)


def _check_kind(member: Member, kinds: str, fail: Callable[[str], FormatError], what: str) -> None:
    dtype = member.dtype
    if dtype.hasobject or dtype.kind not in kinds or dtype.fields is not None:
        raise fail(f"dtype {dtype} is not {what}"
                   + (" (Python objects: a pickle, never loaded)" if dtype.hasobject else ""))


def load_npy(path: str | os.PathLike[str], what: str = "an .npy array of numbers") -> np.ndarray:
    """The array of the ``.npy`` file ``path`` (a new array), every header check passed first;
    ``what`` says what was expected in the messages."""
    name = os.fspath(path)

    def fail(message: str) -> FormatError:
        return FormatError(name, message)

    with open_regular(name, what) as fh:
        size = os.fstat(fh.fileno()).st_size
        member = read_header(fh, size, "", fail)
        _check_kind(member, _INPUT, fail, _INPUT_WORDS)
        check_alloc(member.nbytes, name)
        count = math.prod(member.shape)
        try:
            data = np.fromfile(fh, dtype=member.dtype, count=count) if count else np.empty(0, member.dtype)
        except (OSError, ValueError) as exc:
            raise fail(f"cannot be read: {exc}") from None
    if data.size != count:
        raise fail(f"{data.size * member.dtype.itemsize} of {member.nbytes} data bytes present")
    return data.reshape(member.shape, order="F" if member.fortran else "C")


def load_arrays(path: str | os.PathLike[str], what: str = "an .npy or .npz of numbers"
                ) -> np.ndarray | dict[str, np.ndarray]:
    """An ``.npy`` file's array, or an ``.npz`` file's arrays by name (in the archive's order),
    told apart by their first bytes; each read and checked as :func:`load_npy` does."""
    name = os.fspath(path)
    with open_regular(name, what) as fh:
        head = fh.read(16)
    if head.startswith(_ZIP_MAGICS):
        z = NpzArrays(name, what)
        if not z.files:
            raise FormatError(name, f"expected {what}, found a zip archive with no .npy member")
        return {k: z.read(k, _INPUT) for k in z.files}
    if not head.startswith(_MAGIC):
        raise FormatError(name, f"not an .npy array (no \\x93NUMPY magic) nor an .npz (zip) archive: found "
                          f"{_found(head)}; expected {what}")
    return load_npy(name, what)


def check_no_nan(x: np.ndarray, label: str) -> np.ndarray:
    """``x`` unchanged, or a :class:`~tidl_io.base.errors.BufferMismatchError` naming ``label``
    and the first NaN's index: a user's input file holds no NaN (pack's ``nan="error"``)."""
    error = nan_found(label, x, "the array")
    if error is not None:
        raise error
    return x


class NpzArrays(Mapping[str, np.ndarray]):
    """Numeric arrays of an ``.npz`` by name, each read from the file when asked for (not cached).
    Before any data is read, a member's header is checked (:meth:`header`), so callers can look
    at the shape (:meth:`shape`) first. ``what`` names the file's role in messages."""

    def __init__(self, path: str | os.PathLike[str], what: str = "a golden .npz") -> None:
        self.path = os.fspath(path)
        self.what = what
        with open_regular(self.path, what):  # PathError: missing, a folder, a FIFO
            pass
        try:
            with zipfile.ZipFile(self.path) as zf:
                infos = zf.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, OSError) as exc:
            raise FormatError(self.path, f"not an .npz (zip) file ({exc}); expected {what}") from None
        self._infos = {i.filename[:-4]: i for i in infos if i.filename.endswith(".npy")}
        self._headers: dict[str, Member] = {}
        self.files = list(self._infos)

    def __iter__(self) -> Iterator[str]:
        return iter(self._infos)

    def __len__(self) -> int:
        return len(self._infos)

    def __contains__(self, key: object) -> bool:
        return key in self._infos

    def _fail(self, info: zipfile.ZipInfo, what: str) -> FormatError:
        return FormatError(self.path, f"member {info.filename!r}: {what}")

    # ---- the header ------------------------------------------------------------------------

    def header(self, key: str) -> Member:
        """The checked header of member ``key`` (its data is not read); a FormatError says
        what is wrong with it."""
        if key not in self._headers:
            info = self._infos[key]
            with self._open(info) as fh:
                try:
                    self._headers[key] = read_header(fh, info.file_size, key, lambda m: self._fail(info, m))
                except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:  # a broken compressed stream
                    raise self._fail(info, f"cannot be read: {exc}") from None
        return self._headers[key]

    def shape(self, key: str) -> tuple[int, ...]:
        """The shape of member ``key``, from its header alone."""
        return self.header(key).shape

    # ---- the data --------------------------------------------------------------------------

    def _open(self, info: zipfile.ZipInfo) -> IO[bytes]:
        """The member's bytes: the file itself at the member's data (stored), else an inflating stream."""
        if info.compress_type == zipfile.ZIP_STORED:
            fh = open(self.path, "rb")  # noqa: SIM115 (closed by the caller's with)
            try:
                fh.seek(info.header_offset)
                head = fh.read(_LOCAL_HEADER.size)
                if len(head) != _LOCAL_HEADER.size or head[:4] != b"PK\x03\x04":
                    raise self._fail(info, f"no local file header at offset {info.header_offset:#x}")
                name_len, extra_len = _LOCAL_HEADER.unpack(head)[-2:]
                fh.seek(info.header_offset + _LOCAL_HEADER.size + name_len + extra_len)
            except BaseException:
                fh.close()
                raise
            return fh
        try:
            zf = zipfile.ZipFile(self.path)
            stream = zf.open(info)
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError, ValueError, EOFError, OSError) as exc:
            raise self._fail(info, f"cannot be read: {exc}") from None
        zf.close()  # the stream keeps its own handle
        return stream

    def _checked(self, key: str, kinds: str, what: str) -> Member:
        member = self.header(key)
        info = self._infos[key]
        _check_kind(member, kinds, lambda m: self._fail(info, m), what)
        if info.compress_type == zipfile.ZIP_STORED and member.nbytes > os.path.getsize(self.path):
            raise self._fail(info, f"claims {member.nbytes} bytes of data, more than the whole file holds")
        check_alloc(member.nbytes, f"{self.path}: member {info.filename!r}")
        return member

    def __getitem__(self, key: str) -> np.ndarray:
        return self._read(self._checked(key, _NUMERIC, "numeric (integers or floats): a golden tensor holds numbers"))

    def read(self, key: str, kinds: str = _NUMERIC) -> np.ndarray:
        """Member ``key`` as a new array, its dtype one of the NumPy ``kinds`` (default: integers
        and floats)."""
        return self._read(self._checked(key, kinds, _INPUT_WORDS if kinds == _INPUT else f"of the kinds {kinds!r}"))

    def read_text(self, key: str) -> str:
        """A text member (a 0-d unicode array, as :func:`~tidl_io.trace.golden.save_golden`'s note)."""
        member = self._checked(key, "U", "text")
        if member.shape != () or member.dtype.itemsize > 4 * _MAX_TEXT:
            raise self._fail(self._infos[key], f"expected one text of at most {_MAX_TEXT} characters, found "
                             f"shape {member.shape} of {member.dtype}")
        return str(self._read(member)[()])

    def _read(self, member: Member) -> np.ndarray:
        info = self._infos[member.key]
        count = math.prod(member.shape)
        with self._open(info) as fh:
            try:
                if info.compress_type == zipfile.ZIP_STORED:
                    fh.seek(member.data_offset, os.SEEK_CUR)
                    data = np.fromfile(fh, dtype=member.dtype, count=count) if count else np.empty(0, member.dtype)
                    got = data.size * member.dtype.itemsize
                else:
                    fh.read(member.data_offset)  # the header, read before
                    data = np.empty(count, member.dtype)
                    view = data.view(np.uint8).reshape(-1)
                    got = 0
                    while got < member.nbytes:  # a bounded chunk at a time, straight into the array
                        chunk = fh.read(min(_CHUNK, member.nbytes - got))
                        if not chunk:
                            break
                        view[got:got + len(chunk)] = np.frombuffer(chunk, np.uint8)
                        got += len(chunk)
                    if got == member.nbytes:
                        fh.read(1)  # to the end: zipfile checks the CRC there
            except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as exc:
                raise self._fail(info, f"cannot be read: {exc}") from None
        if got != member.nbytes:
            raise self._fail(info, f"{got} of {member.nbytes} data bytes present")
        return data.reshape(member.shape, order="F" if member.fortran else "C")
