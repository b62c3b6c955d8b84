"""Golden ``.npz`` files read one array at a time, straight from the file.

``np.load`` of an ``.npz`` reads each member through :mod:`zipfile`, which computes the
member's CRC-32 on the way: for a golden run of a few hundred MB that costs as much as the
comparison. An uncompressed member (what ``np.savez`` and :func:`tidl_io.trace.golden.save_golden`
write) is a plain ``.npy`` inside the zip: its header is read in place and its data with
``np.fromfile`` (a copy, no CRC). Compressed members fall back to ``np.load``.
"""

from __future__ import annotations

import errno
import math
import os
import struct
import zipfile
from collections.abc import Iterator, Mapping

import numpy as np

from .._errors import FormatError, PathNotFoundError

__all__ = ["NpzArrays"]

_LOCAL_HEADER = struct.Struct("<4s5H3I2H")  # PK\3\4 ... name length, extra length (30 bytes)


class NpzArrays(Mapping[str, np.ndarray]):
    """Arrays of an ``.npz`` by name, each read from the file when asked for (not cached)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        if not os.path.isfile(self.path):
            raise PathNotFoundError(self.path, "no such file (expected a golden .npz)", errno.ENOENT)
        try:
            with zipfile.ZipFile(self.path) as zf:
                infos = zf.infolist()
        except zipfile.BadZipFile as exc:
            raise FormatError(self.path, f"not an .npz (zip) file: {exc}") from None
        self._infos = {i.filename[:-4]: i for i in infos if i.filename.endswith(".npy")}
        self.files = list(self._infos)

    def __iter__(self) -> Iterator[str]:
        return iter(self._infos)

    def __len__(self) -> int:
        return len(self._infos)

    def __contains__(self, key: object) -> bool:
        return key in self._infos

    def __getitem__(self, key: str) -> np.ndarray:
        info = self._infos[key]
        if info.compress_type != zipfile.ZIP_STORED:
            with np.load(self.path) as z:
                return np.asarray(z[key])
        with open(self.path, "rb") as fh:
            fh.seek(info.header_offset)
            head = fh.read(_LOCAL_HEADER.size)
            if len(head) != _LOCAL_HEADER.size or head[:4] != b"PK\x03\x04":
                raise FormatError(self.path, f"member {info.filename!r}: no local file header at "
                                  f"offset {info.header_offset:#x}")
            name_len, extra_len = _LOCAL_HEADER.unpack(head)[-2:]
            fh.seek(info.header_offset + _LOCAL_HEADER.size + name_len + extra_len)
            try:
                version = np.lib.format.read_magic(fh)
                if version not in ((1, 0), (2, 0)):  # 3.0 (UTF-8 field names): numpy's own reader
                    with np.load(self.path) as z:
                        return np.asarray(z[key])
                header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                          else np.lib.format.read_array_header_2_0)
                shape, fortran, dtype = header(fh)
            except ValueError as exc:
                raise FormatError(self.path, f"member {info.filename!r}: not an .npy array: {exc}") from None
            if dtype.hasobject:
                raise FormatError(self.path, f"member {info.filename!r}: object arrays are not read (no pickle)")
            count = math.prod(shape)
            data = np.fromfile(fh, dtype=dtype, count=count)
        if data.size != count:
            raise FormatError(self.path, f"member {info.filename!r}: {data.size} of {count} elements present")
        return data.reshape(shape, order="F" if fortran else "C")
