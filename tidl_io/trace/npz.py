"""Golden ``.npz`` files read one array at a time, straight from the file, as untrusted input.

``np.load`` of an ``.npz`` reads each member through :mod:`zipfile`, which computes the
member's CRC-32 on the way: for a golden run of a few hundred MB that costs as much as the
comparison. An uncompressed member (what ``np.savez`` and :func:`tidl_io.trace.golden.save_golden`
write) is a plain ``.npy`` inside the zip: its header is read in place and its data with
``np.fromfile`` (a copy, no CRC). A compressed member is inflated a bounded chunk at a time
into the array (zipfile checks its CRC at the end).

Before any data is read, a member's ``.npy`` header is checked (:meth:`NpzArrays.header`):
version 1.0, 2.0 or 3.0, a header of at most 64 KiB, a shape of whole numbers >= 0, a numeric
dtype (integers and floats: no bool, complex, string, datetime, structured or object arrays,
so no pickle), and a size that is exactly the member's data in the zip directory and within
the allocation cap (:func:`tidl_io.base.limits.check_alloc`). Callers can look at the shape
(:meth:`NpzArrays.shape`) before reading the data at all.
"""

from __future__ import annotations

import ast
import errno
import math
import os
import struct
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import IO

import numpy as np

from ..base.errors import FormatError, PathNotFoundError
from ..base.limits import check_alloc

__all__ = ["Member", "NpzArrays"]

_LOCAL_HEADER = struct.Struct("<4s5H3I2H")  # PK\3\4 ... name length, extra length (30 bytes)
_MAGIC = b"\x93NUMPY"
_MAX_HEADER = 1 << 16  # bytes of an .npy header (numpy writes under 100; its own reader stops at 10 000)
_MAX_DIMS = 32  # numpy's own limit on ndim
_CHUNK = 1 << 22  # bytes inflated at a time
_NUMERIC = "iuf"
_MAX_TEXT = 1 << 20  # characters of a text member (read_text)


@dataclass(frozen=True)
class Member:
    """What a member's ``.npy`` header says: ``shape``, ``dtype``, ``fortran`` order, and where
    its data starts (``data_offset`` bytes into the member) and how many bytes it holds."""

    key: str
    shape: tuple[int, ...]
    dtype: np.dtype
    fortran: bool
    data_offset: int
    nbytes: int


class NpzArrays(Mapping[str, np.ndarray]):
    """Numeric arrays of an ``.npz`` by name, each read from the file when asked for (not cached)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        if not os.path.isfile(self.path):
            raise PathNotFoundError(self.path, "no such file (expected a golden .npz)", errno.ENOENT)
        try:
            with zipfile.ZipFile(self.path) as zf:
                infos = zf.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as exc:
            raise FormatError(self.path, f"not an .npz (zip) file: {exc}") from None
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
                    self._headers[key] = self._read_header(key, info, fh)
                except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:  # a broken compressed stream
                    raise self._fail(info, f"cannot be read: {exc}") from None
        return self._headers[key]

    def shape(self, key: str) -> tuple[int, ...]:
        """The shape of member ``key``, from its header alone."""
        return self.header(key).shape

    def _read_header(self, key: str, info: zipfile.ZipInfo, fh: IO[bytes]) -> Member:
        start = fh.read(8)
        if len(start) != 8 or start[:6] != _MAGIC:
            raise self._fail(info, "not an .npy array (no \\x93NUMPY magic)")
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
            raise self._fail(info, f".npy format version {version[0]}.{version[1]} is none of 1.0, 2.0, 3.0")
        if not 0 <= head_len <= _MAX_HEADER:
            raise self._fail(info, f".npy header of {head_len} bytes (at most {_MAX_HEADER} read)")
        raw = fh.read(head_len)
        if len(raw) != head_len:
            raise self._fail(info, f".npy header cut short: {len(raw)} of {head_len} bytes")
        try:
            text = raw.decode("utf-8" if version == (3, 0) else "latin1")
            head = ast.literal_eval(text)  # literals only: nothing is called
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
            raise self._fail(info, "the .npy header is not a Python literal") from None
        if not isinstance(head, dict) or set(head) != {"descr", "fortran_order", "shape"}:
            raise self._fail(info, "the .npy header is not a dict of descr, fortran_order and shape")
        shape = head["shape"]
        if (not isinstance(shape, tuple) or len(shape) > _MAX_DIMS
                or not all(type(d) is int and d >= 0 for d in shape)):
            raise self._fail(info, f"shape {str(shape)[:80]}: expected at most {_MAX_DIMS} whole numbers >= 0")
        if not isinstance(head["fortran_order"], bool):
            raise self._fail(info, "fortran_order is not True or False")
        try:
            dtype = np.lib.format.descr_to_dtype(head["descr"])
        except (TypeError, ValueError, KeyError, IndexError, SyntaxError):
            raise self._fail(info, f"dtype {str(head['descr'])[:80]!r} is not one numpy reads") from None
        count = math.prod(shape)
        nbytes = count * dtype.itemsize  # Python ints: no overflow
        have = info.file_size - prefix - head_len
        if nbytes != have:
            raise self._fail(info, f"shape {shape} of {dtype} is {nbytes} bytes, but the member holds {have} "
                             "bytes of data")
        return Member(key, shape, dtype, head["fortran_order"], prefix + head_len, nbytes)

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
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError, ValueError, EOFError) as exc:
            raise self._fail(info, f"cannot be read: {exc}") from None
        zf.close()  # the stream keeps its own handle
        return stream

    def _checked(self, key: str, kinds: str) -> Member:
        member = self.header(key)
        if member.dtype.hasobject or member.dtype.kind not in kinds or member.dtype.fields is not None:
            raise self._fail(self._infos[key], f"dtype {member.dtype} is not numeric (integers or floats): "
                             "a golden tensor holds numbers")
        info = self._infos[key]
        if info.compress_type == zipfile.ZIP_STORED and member.nbytes > os.path.getsize(self.path):
            raise self._fail(info, f"claims {member.nbytes} bytes of data, more than the whole file holds")
        check_alloc(member.nbytes, f"{self.path}: member {info.filename!r}")
        return member

    def __getitem__(self, key: str) -> np.ndarray:
        member = self._checked(key, _NUMERIC)
        return self._read(member)

    def read_text(self, key: str) -> str:
        """A text member (a 0-d unicode array, as :func:`~tidl_io.trace.golden.save_golden`'s note)."""
        member = self._checked(key, "U")
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
