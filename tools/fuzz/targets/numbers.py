"""Target ``numbers``: the one bounded number reader (:mod:`tidl_io.base.numtext`) and its
located wrappers (:mod:`tidl_io.base.tilog`), on number-like text made from the input's rng:
TI's own numbers, then digits, signs, points, exponents (up to 1e999999999), other scripts'
digits (``²``, ``٣``), blanks and C's ``inf``/``nan``, up to 6000 characters. One input in 32:
index % 32 == 18 (even and 2 mod 4: no odd raw-bytes slot is free; the cli target keeps the
multiples of ``--cli-every`` it selects first).

Invariants beyond "a value or a TidlIoError": a value agrees with Python's own ``int()`` /
``float()`` / ``Decimal()`` of the same text (the oracle, on text it converts in bounded time);
every refusal is a ``NumberError`` whose message says what was expected and is under 300
characters (the value cut short); each read takes under 50 ms.
"""

from __future__ import annotations

import math
import random
import time
from decimal import Decimal
from typing import Any

from ..checker import Checker, Unexpected
from ..inputs import FuzzInput

NAME = "numbers"
STAGE = "bytes"
_SEEDS = ("367462.84", "1000", "0.60", "-0.000123", "1e-05", "254.999954", "601.9661865234375", "13.3203", "0042",
          "7FFF", "inf", "-nan", "3.4028234663852886e38", "1.7976931348623157e308", "5e-324", "0", "-0")
_PIECES = ("0", "1", "9", "9" * 30, "9" * 5000, ".", "e", "E", "+", "-", "e999999999", "e-400", "e308", "e309", "_",
           " ", "\t", "\u00b2", "\u0663", "\uff11", "inf", "nan", "x", "0x", ",", "\n")


def selects(checker: Checker, index: int) -> bool:
    return index % 32 == 18


def _text(rng: random.Random) -> str:
    if rng.random() < 0.3:
        text = rng.choice(_SEEDS)
        pos = rng.randrange(len(text) + 1)
        return text[:pos] + rng.choice(_PIECES) + text[pos:] if rng.random() < 0.7 else text
    return "".join(rng.choice(_PIECES) for _ in range(rng.randrange(1, 8)))


def _agrees(kind: str, text: str, value: Any) -> None:
    """The oracle: Python's own conversion of text the reader accepted."""
    if kind in ("int", "hex"):
        want: Any = int(text, 16 if kind == "hex" else 10)
    elif kind == "decimal":
        want = Decimal(text)
    else:
        want = float(text)
    if not (value == want or (math.isnan(value) and math.isnan(want))):
        raise Unexpected(f"{kind} {text[:60]!r}: read {value!r}, Python says {want!r}")


def run(checker: Checker, index: int, item: FuzzInput, desc: Any, rng: random.Random) -> None:
    from tidl_io.base import numtext, tilog

    for _ in range(20):
        text = _text(rng)
        if checker.verbose:
            print(f"  numbers input: {text[:80]!r} ({len(text)} characters)")
        for kind, read in (("int", lambda t=text: numtext.read_int(t)),
                           ("hex", lambda t=text: numtext.read_int(t, base=16)),
                           ("float", lambda t=text: numtext.read_float(t)),
                           ("float nonfinite", lambda t=text: numtext.read_float(t, finite=False)),
                           ("decimal", lambda t=text: numtext.read_decimal(t))):
            def one(kind: str = kind, read: Any = read, text: str = text) -> Any:
                start = time.process_time()
                try:
                    value = read()
                except numtext.NumberError as exc:
                    if len(str(exc)) > 300 or "expected" not in str(exc):
                        raise Unexpected(f"{kind}: message {str(exc)[:80]!r}… ({len(str(exc))} characters)") from None
                    raise
                finally:
                    if time.process_time() - start > 0.05:
                        raise Unexpected(f"{kind} {text[:40]!r}: {time.process_time() - start:.3f} s")
                _agrees(kind.split()[0], text, value)
                return value

            checker.op(index, f"numbers {kind}", one, ("expected",))
        where = ("fuzz.log, line 7",)
        checker.op(index, "numbers tilog.to_int", lambda t=text: tilog.to_int(t, "fuzz.log", 7, 3, "n", None), where)
        checker.op(index, "numbers tilog.to_float", lambda t=text: tilog.to_float(t, "fuzz.log", 7, 3, "x"), where)
        checker.op(index, "numbers tilog.to_decimal", lambda t=text: tilog.to_decimal(t, "fuzz.log", 7, 3, "t"),
                   where)
