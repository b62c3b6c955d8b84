"""The one bounded reader of numbers written as text: every number tidl-io takes from one of
TI's files (logs, CSVs, graphvizInfo.txt, paramDebug, prototxt, allowedNode.txt), a saved
report or the command line goes through :func:`read_int`, :func:`read_float` or
:func:`read_decimal`.

The text is checked before anything converts it: at most :data:`MAX_INT_DIGITS` digits for a
whole number (TI writes nothing wider than 64 bits), at most :data:`MAX_NUMBER_CHARS`
characters for a decimal (``%f`` of the largest double is 317) and an exponent of at most
:data:`MAX_EXPONENT`; only ASCII digits, a sign, one point and ``e`` (Python's ``float`` would
also take ``1_0``, ``Infinity`` and other scripts' digits, ``int`` would build a
billion-digit integer from ``1e999999999`` written as a Decimal). A decimal must be a finite
double. A refusal is a :class:`NumberError` whose ``detail`` says what was expected and shows
the value cut short; readers locate it (file, line, column, field) with their own error
(:func:`tidl_io.base.tilog.to_int` and friends, ``OptionError`` for the command line).
"""

from __future__ import annotations

import math
import re
import sys
from decimal import Decimal

from .errors import TidlIoError

__all__ = ["MAX_EXPONENT", "MAX_INT_DIGITS", "MAX_NUMBER_CHARS", "NumberError", "natural_key", "read_decimal",
           "read_float", "read_int", "show"]

MAX_INT_DIGITS = 24  # int64 has 19 digits; a few leading zeros are allowed
MAX_NUMBER_CHARS = 400  # %f of the largest finite double: sign, 309 digits, point, 6 decimals
MAX_EXPONENT = 400  # written exponents; a finite double needs |e| <= 308 (+ 15 for its digits)
_SHOWN = 40

_INT = re.compile(r"[+-]?[0-9]+\Z")
_HEX = re.compile(r"[0-9a-fA-F]+\Z")
_DEC = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE](?P<exp>[+-]?[0-9]+))?\Z")
_NONFINITE = re.compile(r"[+-]?(?:inf|infinity|nan)\Z", re.IGNORECASE)
_FLOAT_MAX = Decimal(sys.float_info.max)


class NumberError(TidlIoError, ValueError):
    """Text that is no number of the kind expected (or one out of bounds). ``detail`` is the
    message (``expected a whole number, found '9999…' (5000 characters)``), ``text`` the text."""

    def __init__(self, detail: str, text: str) -> None:
        self.detail, self.text = detail, text
        super().__init__(detail)


def show(text: str) -> str:
    """``text`` for a message: its repr, cut to 40 characters (then its length)."""
    if len(text) <= _SHOWN:
        return repr(text)
    return f"{text[:_SHOWN] + '…'!r} ({len(text)} characters)"


def read_int(text: str, *, minimum: int | None = None, maximum: int | None = None, base: int = 10) -> int:
    """The whole number ``text`` (``base`` 16: hexadecimal digits, TI's addresses), of at most
    :data:`MAX_INT_DIGITS` digits, within ``minimum`` .. ``maximum``."""
    if base == 10 and len(text) <= MAX_INT_DIGITS and text.isascii() and text.isdigit():  # the common case
        value = int(text)
        if (minimum is None or value >= minimum) and (maximum is None or value <= maximum):
            return value
    what = "a whole number" if base == 10 else "a hexadecimal number"
    digits = len(text) - (base == 10 and text[:1] in "+-")
    if not 0 < digits <= MAX_INT_DIGITS or (_INT if base == 10 else _HEX).match(text) is None:
        longer = f" of at most {MAX_INT_DIGITS} digits" if digits > MAX_INT_DIGITS else ""
        raise NumberError(f"expected {what}{longer}, found {show(text)}", text)
    value = int(text, base)
    _bounds(value, text, minimum, maximum, "a whole number")
    return value


def _bounds(value: float | Decimal, text: str, minimum: float | None, maximum: float | None, what: str) -> None:
    for bound, sign, out in ((minimum, ">=", minimum is not None and value < minimum),
                             (maximum, "<=", maximum is not None and value > maximum)):
        if out:
            shown = f"{bound:g}" if isinstance(bound, float) else bound
            raise NumberError(f"expected {what} {sign} {shown}, found {show(text)}", text)


def _checked(text: str) -> None:
    """Refuse ``text`` unless it is a decimal number within the caps (before any conversion)."""
    if len(text) <= 9 and _NONFINITE.match(text):
        raise NumberError(f"expected a finite number, found {show(text)}", text)
    if len(text) > MAX_NUMBER_CHARS or (m := _DEC.match(text)) is None:
        longer = f" of at most {MAX_NUMBER_CHARS} characters" if len(text) > MAX_NUMBER_CHARS else ""
        raise NumberError(f"expected a number{longer}, found {show(text)}", text)
    exp = m.group("exp")
    if exp is not None and (len(exp) > 6 or abs(int(exp)) > MAX_EXPONENT):
        raise NumberError(f"expected a finite number (an exponent within ±{MAX_EXPONENT}), found {show(text)}", text)


def read_decimal(text: str) -> Decimal:
    """The number ``text`` exactly as written (TI's totals), a finite double's magnitude at most."""
    _checked(text)
    value = Decimal(text)
    if abs(value) > _FLOAT_MAX:  # a comparison: no decimal.Overflow
        raise NumberError(f"expected a finite number (at most {sys.float_info.max:.6g}), found {show(text)}", text)
    return value


def read_float(text: str, *, minimum: float | None = None, maximum: float | None = None,
               finite: bool = True) -> float:
    """The number ``text`` as a double, within ``minimum`` .. ``maximum``; ``finite=False``
    also takes C's spellings of infinity and NaN (``inf``, ``-nan``: what ``printf("%f")``
    writes)."""
    if not finite and len(text) <= 9 and _NONFINITE.match(text):
        return float(text)
    _checked(text)
    value = float(text)  # correctly rounded, as float(Decimal(text)) is
    if value in (math.inf, -math.inf):
        raise NumberError(f"expected a finite number (at most {sys.float_info.max:.6g}), found {show(text)}", text)
    _bounds(value, text, minimum, maximum, "a number")
    return value


_DIGIT_RUNS = re.compile(r"([0-9]+)")


def natural_key(name: str) -> list[str | tuple[int, str]]:
    """A sort key putting ``a2`` before ``a10`` without converting a digit run to an int (a run
    of any length compares by its length without leading zeros, then its digits)."""
    parts: list[str | tuple[int, str]] = []
    for i, part in enumerate(_DIGIT_RUNS.split(name)):
        if i % 2:
            digits = part.lstrip("0")
            parts.append((len(digits), digits))
        else:
            parts.append(part)
    return parts
