"""Environment variables read one way (tidl_io.base.env): yes/no flags in the usual spellings,
whole numbers; a value not understood is a TidlIoWarning naming the variable and the value,
and the default is used. The oracle is the documented table of spellings."""

from __future__ import annotations

import itertools

import pytest

from tidl_io import TidlIoWarning
from tidl_io.base.env import FALSE, TRUE, env_flag, env_int

VAR = "TIDL_IO_TEST_SETTING"


def _cases(words: tuple[str, ...]) -> list[str]:
    """Each spelling in lower, upper and title case, with and without surrounding blanks."""
    return [pad + form + pad for w in words for form in {w, w.upper(), w.title()} for pad in ("", " ")]


@pytest.mark.parametrize("default", [True, False])
def test_flags_in_every_spelling(default: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    assert set(TRUE) == {"1", "true", "on", "yes"} and set(FALSE) == {"0", "false", "off", "no"}
    for value, expected in itertools.chain(((v, True) for v in _cases(TRUE)), ((v, False) for v in _cases(FALSE))):
        monkeypatch.setenv(VAR, value)
        assert env_flag(VAR, default) is expected, value
    for blank in ("", "  "):
        monkeypatch.setenv(VAR, blank)
        assert env_flag(VAR, default) is default
    monkeypatch.delenv(VAR)
    assert env_flag(VAR, default) is default


@pytest.mark.parametrize("value", ["2", "y", "nope", "enable", "on1"])
def test_a_flag_not_understood_warns_and_keeps_the_default(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VAR, value)
    with pytest.warns(TidlIoWarning) as record:
        assert env_flag(VAR, True) is True
    assert str(record[0].message) == (f"{VAR}={value!r} is not understood (expected one of 1/true/on/yes or "
                                      f"0/false/off/no, any case); using the default (on)")


def test_whole_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    for value, expected in (("1", 1), (" 7 ", 7), ("16", 16)):
        monkeypatch.setenv(VAR, value)
        assert env_int(VAR, 2) == expected
    monkeypatch.setenv(VAR, "0")
    assert env_int(VAR, 2, minimum=0) == 0
    monkeypatch.delenv(VAR)
    assert env_int(VAR, 2) == 2


@pytest.mark.parametrize("value", ["banana", "-3", "0", "2.5", "1e3", "0x10", "9" * 30, "\u0663"])
def test_a_number_not_understood_warns_and_keeps_the_default(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VAR, value)
    with pytest.warns(TidlIoWarning, match=rf"^{VAR}='{value}' is not understood \(expected a whole number >= 1\); "
                                           r"using the default \(2\)$"):
        assert env_int(VAR, 2) == 2
