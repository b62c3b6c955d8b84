"""tidl_io.base.numtext: the one bounded number reader. Oracles: Python's own float() / int() /
Decimal() on text they handle in bounded time, and literal expectations for what is refused."""

from __future__ import annotations

import math
import sys
import time
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tidl_io.base.errors import TidlIoError
from tidl_io.base.numtext import (
    MAX_INT_DIGITS,
    MAX_NUMBER_CHARS,
    NumberError,
    natural_key,
    read_decimal,
    read_float,
    read_int,
    show,
)


def test_accepts_what_ti_writes() -> None:
    assert read_float("367462.84") == 367462.84 and read_float("-0.000123") == -0.000123
    assert read_float("1e-05") == 1e-05 and read_float("1.5E+3") == 1500.0 and read_float(".5") == 0.5
    assert read_float("254.") == 254.0 and read_int("0042") == 42 and read_int("-7") == -7
    assert read_int("7FFF", base=16) == 32767
    assert read_decimal("0.10") * 3 == Decimal("0.30")
    biggest = f"{sys.float_info.max:f}"  # printf("%f") of the largest double: 317 characters
    assert read_float(biggest) == sys.float_info.max


@pytest.mark.parametrize("text", ["1e999999999", "-1E+999999999", "1e-999999999", "9" * 5000, "9" * 5000 + ".5",
                                  "1" + "0" * 399, "1e401", "2e308", "0x10", "1_000", "\u00b2", "\u0661", " 1",
                                  "", "+", ".", "e5", "1e", "1.2.3", "1e+", "--1"])
def test_refuses_in_bounded_time_with_the_value_cut_short(text: str) -> None:
    start = time.process_time()
    for read in (read_decimal, read_float):
        with pytest.raises(NumberError) as err:
            read(text)
        assert isinstance(err.value, TidlIoError) and isinstance(err.value, ValueError)
        assert "expected a" in err.value.detail and len(str(err.value)) < 200
    with pytest.raises(NumberError):
        read_int(text)
    assert time.process_time() - start < 0.5


def test_messages_say_what_and_cut_the_value() -> None:
    with pytest.raises(NumberError, match=r"expected a finite number \(an exponent within ±400\), found '1e999999999'"):
        read_decimal("1e999999999")
    with pytest.raises(NumberError, match=rf"of at most {MAX_INT_DIGITS} digits, found '9{{40}}…' \(5000 characters\)"):
        read_int("9" * 5000)
    with pytest.raises(NumberError, match=rf"of at most {MAX_NUMBER_CHARS} characters"):
        read_float("9" * 5000)
    with pytest.raises(NumberError, match="expected a finite number, found 'nan'"):
        read_float("nan")
    with pytest.raises(NumberError, match="expected a whole number >= 0, found '-3'"):
        read_int("-3", minimum=0)
    with pytest.raises(NumberError, match="expected a number <= 10, found '11'"):
        read_float("11", maximum=10)
    assert show("x" * 41) == repr("x" * 40 + "…") + " (41 characters)" and show("ab") == "'ab'"


def test_nonfinite_spellings_of_c_only_when_asked() -> None:
    for text in ("inf", "-inf", "nan", "-nan", "INF", "Infinity"):
        with pytest.raises(NumberError):
            read_float(text)
        value = read_float(text, finite=False)
        assert math.isnan(value) or value in (float("inf"), float("-inf"))


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_agrees_with_python_on_every_finite_double(x: float) -> None:
    for text in (repr(x), f"{x:e}", f"{x:.17g}", f"{x:f}"):
        assert read_float(text) == float(text)
        assert read_decimal(text) == Decimal(text)


@given(st.integers(min_value=-(10 ** 23) + 1, max_value=10 ** 23 - 1))
def test_int_agrees_with_python(n: int) -> None:
    assert read_int(str(n)) == n
    if n >= 0:
        assert read_int(f"{n:x}", base=16) == n


def test_natural_key_orders_digit_runs_by_value_without_int() -> None:
    names = ["a10", "a2", "a0002b", "a" + "9" * 5000, "a1", "b", "a\u00b2"]
    assert sorted(names, key=natural_key) == ["a1", "a2", "a0002b", "a10", "a" + "9" * 5000, "a\u00b2", "b"]
