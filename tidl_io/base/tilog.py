"""What every reader of TI's text logs shares (net's netLog and layer_info, perf's simulation,
bufinfolog and board logs): the size cap, decoding, CSV fields with their columns, numbers
parsed where they stand (through the one bounded reader, :mod:`tidl_io.base.numtext`), and
errors that say file, line and column."""

from __future__ import annotations

from decimal import Decimal

from .check import open_regular, read_limited
from .errors import FormatError
from .numtext import NumberError, read_decimal, read_float, read_int

MAX_TEXT_BYTES = 64 << 20  # TI's logs of a thousand-layer net are a few MB
MAX_LAYERS = 1 << 16  # layer numbers and row counts beyond any TIDL net

__all__ = ["MAX_LAYERS", "MAX_TEXT_BYTES", "Row", "decode", "fields", "located", "read_text", "split_lines", "to_decimal",
           "to_float", "to_int"]


def located(source: str, line: int, message: str, column: int | None = None, name: str | None = None) -> FormatError:
    """A :class:`~tidl_io.FormatError` at ``source, line L[, column C][ (name)]: message``."""
    where = f"line {line}" + (f", column {column}" if column is not None else "") + (f" ({name})" if name else "")
    return FormatError(source, message, field=where)


def decode(data: bytes, source: str) -> str:
    """UTF-8 text (TI writes ASCII); a byte that is not UTF-8 is a located error, never a guess."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FormatError(source, f"byte {data[exc.start]:#04x} is not UTF-8 text", offset=exc.start,
                          field=f"line {line}") from None


def read_text(path: str, expected: str) -> str:
    """The text of the regular file ``path`` (at most :data:`MAX_TEXT_BYTES`), decoded."""
    with open_regular(path, expected) as fh:
        data = read_limited(fh, MAX_TEXT_BYTES)
    if len(data) > MAX_TEXT_BYTES:
        raise FormatError(path, f"larger than {MAX_TEXT_BYTES >> 20} MiB; expected {expected}")
    return decode(data, path)


def fields(line: str, sep: str = ",") -> list[tuple[int, str]]:
    """``(column, text)`` of each ``sep``-separated field: the 1-based column of its text, the
    text stripped of blanks (TI pads its columns)."""
    out = []
    start = 0
    for part in line.split(sep):
        out.append((start + len(part) - len(part.lstrip()) + 1, part.strip()))
        start += len(part) + 1
    return out


def split_lines(text: str, source: str, expected: str) -> list[str]:
    """The lines of a whole TI log: empty text, or a last line without its line end (TI ends
    every line with one: a file cut in the middle of a line), is a located error."""
    if not text.strip():
        raise located(source, 1, f"empty; expected {expected}")
    lines = text.splitlines()
    if not text.endswith(("\n", "\r")):
        raise located(source, len(lines), f"the last line has no line end: a cut file? (found {lines[-1][-40:]!r})")
    return lines


class Row:
    """One line split at ``sep``: ``texts`` (stripped fields) and numbers read from them; the
    column of a field is worked out only for an error message (a row is read in one pass)."""

    __slots__ = ("line", "parts", "source", "texts")

    def __init__(self, text: str, line: int, source: str, sep: str = ","):
        self.parts = text.split(sep)
        self.texts = [p.strip() for p in self.parts]
        self.line, self.source = line, source

    def __len__(self) -> int:
        return len(self.texts)

    def column(self, i: int) -> int:
        """1-based column of field ``i``'s text (after TI's padding)."""
        part = self.parts[i]
        return sum(len(p) for p in self.parts[:i]) + i + len(part) - len(part.lstrip()) + 1

    def whole(self, i: int, name: str, minimum: int | None = 0, maximum: int | None = None, base: int = 10) -> int:
        try:
            return to_int(self.texts[i], self.source, self.line, None, name, minimum, maximum, base)
        except FormatError:
            return to_int(self.texts[i], self.source, self.line, self.column(i), name, minimum, maximum, base)

    def number(self, i: int, name: str, minimum: float | None = 0.0) -> float:
        try:
            return to_float(self.texts[i], self.source, self.line, None, name, minimum)
        except FormatError:
            return to_float(self.texts[i], self.source, self.line, self.column(i), name, minimum)


def to_decimal(text: str, source: str, line: int, column: int | None, name: str) -> Decimal:
    """A finite decimal number as written (TI's totals: converted once, exactly), through the
    one bounded reader (:func:`tidl_io.base.numtext.read_decimal`)."""
    try:
        return read_decimal(text)
    except NumberError as exc:
        raise located(source, line, exc.detail, column, name) from None


def to_float(text: str, source: str, line: int, column: int | None, name: str, minimum: float | None = 0.0) -> float:
    """A finite float as written, at least ``minimum`` (None: any)."""
    try:
        return read_float(text, minimum=minimum)
    except NumberError as exc:
        raise located(source, line, exc.detail, column, name) from None


def to_int(text: str, source: str, line: int, column: int | None, name: str, minimum: int | None = 0,
           maximum: int | None = None, base: int = 10) -> int:
    """A whole number as written (``base`` 16 for TI's addresses), within the bounds given."""
    try:
        return read_int(text, minimum=minimum, maximum=maximum, base=base)
    except NumberError as exc:
        raise located(source, line, exc.detail, column, name) from None
