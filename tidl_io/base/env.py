"""Environment variables read the same way everywhere: yes/no flags and whole numbers.

A value tidl_io does not understand is never silently replaced: a :class:`TidlIoWarning`
names the variable, the value and what is used instead (the default). Unset or blank
means the default, without a warning.

>>> env_flag("TIDL_IO_NATIVE", True)          # TIDL_IO_NATIVE=off             # doctest: +SKIP
False
"""

from __future__ import annotations

import os
import warnings

from .errors import TidlIoWarning
from .numtext import NumberError, read_int

__all__ = ["FALSE", "TRUE", "env_flag", "env_int", "warn_setting"]

TRUE = ("1", "true", "on", "yes")
FALSE = ("0", "false", "off", "no")
"""The spellings of a yes/no variable, in any letter case."""


def warn_setting(name: str, raw: str, expected: str, used: str) -> None:
    """The one warning for a variable whose value is not understood."""
    warnings.warn(f"{name}={raw!r} is not understood (expected {expected}); using {used}",
                  TidlIoWarning, stacklevel=3)


def env_flag(name: str, default: bool) -> bool:
    """The yes/no variable ``name``: 1/true/on/yes or 0/false/off/no (any case)."""
    raw = os.environ.get(name, "")
    word = raw.strip().lower()
    if not word:
        return default
    if word in TRUE:
        return True
    if word in FALSE:
        return False
    warn_setting(name, raw, f"one of {'/'.join(TRUE)} or {'/'.join(FALSE)}, any case",
                 f"the default ({'on' if default else 'off'})")
    return default


def env_int(name: str, default: int, minimum: int = 1) -> int:
    """The whole-number variable ``name`` (>= ``minimum``); the default for anything else."""
    raw = os.environ.get(name, "")
    if not raw.strip():
        return default
    try:
        value: int | None = read_int(raw.strip())
    except NumberError:
        value = None
    if value is None or value < minimum:
        warn_setting(name, raw, f"a whole number >= {minimum}", f"the default ({default})")
        return default
    return value
