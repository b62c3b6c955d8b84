"""The exit codes of every command, as ``diff``'s (0 all good, 1 a finding, 2 could not do the
job), the one way a command turns a failure into its one line on stderr, and the argument
types the command families share."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TextIO

from ..base.errors import TidlIoError
from ..base.numtext import NumberError, read_int, show
from ..base.text import escape

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2
EXIT_FINDING = EXIT_INVALID  # a finding: an invalid file, a bad layer, a doctor error

Body = Callable[[argparse.Namespace, TextIO, TextIO], int]


def one_line_failures(command: str, body: Body, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``body(args, out, err)``; a library error or an OS error (a file that cannot be read or
    written) becomes ``tidl-io COMMAND: error: ...`` on ``err`` (escaped) and exit 2."""
    try:
        return body(args, out, err)
    except TidlIoError as exc:
        message = str(exc)
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        message = f"{where}{exc.strerror or exc}"
    print(f"tidl-io {command}: error: {escape(message)}", file=err)
    return EXIT_USAGE


def _whole(text: str, least: int, hint: str) -> int:
    try:
        value = read_int(text)
    except NumberError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= {least}{hint}, found {show(text)}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"expected a whole number >= {least}{hint}, found {value}")
    return value


def top(text: str) -> int | None:
    """An argparse type for ``--top N``: a whole number >= 0, where 0 means all (None); the same
    in every command that has ``--top`` (argparse names the option and exits 2 otherwise)."""
    return _whole(text, 0, " (0: all)") or None


def count(text: str) -> int:
    """An argparse type: a whole number >= 1 (argparse names the option and exits 2 otherwise)."""
    return _whole(text, 1, "")
