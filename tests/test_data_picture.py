"""Pictures for golden runs (tidl_io.trace.image): PNG rows encoded here with each of the five
filter types, as the PNG specification defines them, and binary PGM/PPM."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io.data.picture import read_image


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def _filter(kind: int, line: bytes, prev: bytes, bpp: int) -> bytes:
    """PNG spec 9.2, literally: Filt(x) = Orig(x) - predictor(a, b, c) mod 256."""
    out = bytearray()
    for x, v in enumerate(line):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        pred = [0, a, b, (a + b) // 2, _paeth(a, b, c)][kind]
        out.append((v - pred) % 256)
    return bytes(out)


def _png(pixels: np.ndarray, colour: int) -> bytes:
    h, w, bpp = pixels.shape
    rows, prev = [], bytes(w * bpp)
    for y in range(h):
        line = pixels[y].tobytes()
        kind = y % 5  # every filter type, in turn
        rows.append(bytes([kind]) + _filter(kind, line, prev, bpp))
        prev = line

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, colour, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"".join(rows))) + chunk(b"IEND", b""))


@pytest.mark.parametrize(("colour", "channels"), [(0, 1), (2, 3), (4, 2), (6, 4)])
def test_png_every_filter(tmp_path: Path, colour: int, channels: int) -> None:
    pixels = np.random.default_rng(colour).integers(0, 256, size=(11, 7, channels)).astype(np.uint8)
    (tmp_path / "p.png").write_bytes(_png(pixels, colour))
    got = read_image(tmp_path / "p.png")
    want = {1: pixels, 3: pixels, 2: pixels[..., :1], 4: pixels[..., :3]}[channels]  # alpha dropped
    assert got.dtype == np.uint8 and np.array_equal(got, want)


def test_pnm(tmp_path: Path) -> None:
    rgb = np.random.default_rng(5).integers(0, 256, size=(4, 6, 3)).astype(np.uint8)
    (tmp_path / "a.ppm").write_bytes(b"P6\n# a comment\n6 4\n255\n" + rgb.tobytes())
    assert np.array_equal(read_image(tmp_path / "a.ppm"), rgb)
    (tmp_path / "g.pgm").write_bytes(b"P5 6 4 255\n" + rgb[..., 0].tobytes())
    assert np.array_equal(read_image(tmp_path / "g.pgm"), rgb[..., :1])


def test_bad_pictures(tmp_path: Path) -> None:
    (tmp_path / "short.ppm").write_bytes(b"P6\n6 4\n255\n" + bytes(10))
    with pytest.raises(tidl_io.FormatError, match=r"^\S*short\.ppm: PNM holds 10 pixel bytes, expected 72"):
        read_image(tmp_path / "short.ppm")
    (tmp_path / "x.ppm").write_bytes(b"P6\n6 4\n65535\n")
    with pytest.raises(tidl_io.FormatError, match="maxval 65535"):
        read_image(tmp_path / "x.ppm")
    png = bytearray(_png(np.zeros((2, 2, 3), np.uint8), 2))
    png[24] = 16  # bit depth 16
    (tmp_path / "deep.png").write_bytes(bytes(png))
    with pytest.raises(tidl_io.FormatError, match="bit depth 16"):
        read_image(tmp_path / "deep.png")


def test_unusable_pictures_are_located_errors(tmp_path: Path) -> None:
    """Empty, a folder, a cut IHDR, a PNG whose data inflates past its size: a TidlIoError naming
    the file, nothing inflated past what the header allows."""
    (tmp_path / "empty.png").write_bytes(b"")
    with pytest.raises(tidl_io.FormatError, match=r"empty\.png: an empty file \(0 bytes\)"):
        read_image(tmp_path / "empty.png")
    (tmp_path / "dir.png").mkdir()
    with pytest.raises(tidl_io.PathIsFolderError, match=r"dir\.png: is a folder"):
        read_image(tmp_path / "dir.png")
    with pytest.raises(tidl_io.PathNotFoundError, match=r"gone\.png: no such file"):
        read_image(tmp_path / "gone.png")
    png = _png(np.zeros((2, 2, 3), np.uint8), 0)
    (tmp_path / "cut.png").write_bytes(png[:8] + struct.pack(">I", 5) + b"IHDR" + png[16:21] + png[29:])
    with pytest.raises(tidl_io.FormatError, match=r"cut\.png, offset 0x8: PNG IHDR chunk of 5 bytes: expected 13"):
        read_image(tmp_path / "cut.png")
    # a 4x4 RGB PNG whose IDAT inflates to 64 MiB: refused by its size, read no further than the picture
    bomb = zlib.compress(bytes(64 << 20), 9)
    ihdr = struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    (tmp_path / "bomb.png").write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", bomb)
                                        + chunk(b"IEND", b""))
    with pytest.raises(tidl_io.FormatError, match=r"bomb\.png: PNG image data holds 53 bytes, expected 52"):
        read_image(tmp_path / "bomb.png")
