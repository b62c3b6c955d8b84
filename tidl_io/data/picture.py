"""Read an input picture for a golden run: PNG (8-bit grey, grey+alpha, RGB, RGBA; not
interlaced) and binary PGM/PPM (P5/P6, 8-bit) with the standard library and NumPy; any other
format through Pillow when it is installed. Returns (H, W, C) uint8 (alpha dropped).

A picture is untrusted input, read like users' arrays (:mod:`tidl_io.data.arrays`): only a
regular file, its size and every buffer its header implies checked against the allocation cap
(:func:`tidl_io.base.limits.check_alloc`) before they are read or inflated, every error a
:class:`~tidl_io.base.errors.TidlIoError` naming the file."""

from __future__ import annotations

import io
import os
import struct
import zlib
from pathlib import Path

import numpy as np

from ..base.check import open_regular, read_limited
from ..base.errors import FormatError
from ..base.limits import check_alloc
from ..base.numtext import NumberError, read_int

__all__ = ["read_image"]

_PNG_CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}


def _unfilter(raw: bytes, height: int, width: int, channels: int, source: str) -> np.ndarray:
    stride = width * channels
    if len(raw) != height * (stride + 1):
        raise FormatError(source, f"PNG image data holds {len(raw)} bytes, expected {height * (stride + 1)} "
                          f"for {width}x{height}x{channels}")
    rows = np.frombuffer(raw, np.uint8).reshape(height, stride + 1)
    out = np.zeros((height + 1, stride + channels), np.int32)  # a zero row above and zero pixel left
    for y in range(height):
        f, line = rows[y, 0], rows[y, 1:].astype(np.int32)
        prev = out[y, channels:]
        if f == 0:
            cur = line
        elif f == 1:  # Sub: running sum per channel
            cur = np.cumsum(line.reshape(width, channels), axis=0).reshape(-1) & 0xFF
        elif f == 2:  # Up
            cur = (line + prev) & 0xFF
        elif f in (3, 4):  # Average, Paeth: sequential along the row
            row = out[y + 1]
            for x in range(channels, stride + channels):
                a, b = int(row[x - channels]), int(out[y, x])
                if f == 3:
                    pred = (a + b) >> 1
                else:
                    c = int(out[y, x - channels])
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                row[x] = (int(line[x - channels]) + pred) & 0xFF
            continue
        else:
            raise FormatError(source, f"PNG row {y}: unknown filter type {f}")
        out[y + 1, channels:] = cur
    return out[1:, channels:].astype(np.uint8).reshape(height, width, channels)


def _png(data: bytes, source: str) -> np.ndarray:
    pos, idat = 8, []
    header = None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            if len(body) != 13:
                raise FormatError(source, f"PNG IHDR chunk of {len(body)} bytes: expected 13", pos)
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if header is None:
        raise FormatError(source, "PNG without an IHDR chunk")
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or interlace or colour not in _PNG_CHANNELS:
        raise FormatError(source, f"PNG of bit depth {depth}, colour type {colour}, interlace {interlace}: "
                          "expected 8-bit grey/RGB(A), not interlaced (install Pillow for the others)")
    channels = _PNG_CHANNELS[colour]
    expected = height * (width * channels + 1)
    check_alloc(4 * (height + 1) * (width + 1) * channels + expected, f"{source}: a {width}x{height} PNG")
    try:
        inflate = zlib.decompressobj()
        raw = inflate.decompress(b"".join(idat), expected + 1)  # never more than the picture holds, +1
    except zlib.error as exc:
        raise FormatError(source, f"PNG image data: {exc}") from None
    img = _unfilter(raw, height, width, channels, source)
    return img[..., :3] if colour == 6 else (img[..., :1] if colour == 4 else img)


def _pnm(data: bytes, source: str) -> np.ndarray:
    fields: list[bytes] = []
    pos = 2
    while len(fields) < 3:
        while pos < len(data) and data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos)
            continue
        end = pos
        while end < len(data) and not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    try:
        width, height, maxval = (read_int(f.decode("ascii", "replace"), minimum=0) for f in fields)
    except NumberError as exc:
        raise FormatError(source, f"not a valid PGM/PPM header: {exc.detail}") from None
    if min(width, height) < 0:
        raise ValueError(f"size {width}x{height}")
    if maxval != 255:
        raise FormatError(source, f"PNM with maxval {maxval}: expected 255 (8-bit)")
    channels = 3 if data[:2] == b"P6" else 1
    body = data[pos + 1:pos + 1 + width * height * channels]
    if len(body) != width * height * channels:
        raise FormatError(source, f"PNM holds {len(body)} pixel bytes, expected {width * height * channels}")
    return np.frombuffer(body, np.uint8).reshape(height, width, channels)


def read_image(path: str | Path) -> np.ndarray:
    """(H, W, C) uint8 pixels of a picture file (C = 1 or 3, RGB order)."""
    p = Path(path)
    expected = "a picture (PNG, PGM/PPM, or a format Pillow reads)"
    with open_regular(str(p), expected) as fh:  # PathError: missing, a folder, a FIFO
        size = os.fstat(fh.fileno()).st_size
        check_alloc(size, f"{p}: the picture file")
        data = read_limited(fh, size)
    if not data:
        raise FormatError(str(p), f"an empty file (0 bytes); expected {expected}")
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return _png(data, str(p))
    if data[:2] in (b"P5", b"P6"):
        try:
            return _pnm(data, str(p))
        except FormatError:
            raise
        except ValueError as exc:
            raise FormatError(str(p), f"not a valid PGM/PPM header: {exc}") from None
    try:
        from PIL import Image  # start-up
    except ImportError:
        raise FormatError(str(p), "not a PNG, PGM or PPM picture; other formats need Pillow "
                          "(pip install pillow)") from None
    try:
        with Image.open(io.BytesIO(data)) as im:
            check_alloc(3 * im.width * im.height, f"{p}: a {im.width}x{im.height} picture")
            return np.asarray(im.convert("RGB"))
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
        raise FormatError(str(p), f"not a picture Pillow reads ({type(exc).__name__}: {exc}); "
                          f"expected {expected}") from None
