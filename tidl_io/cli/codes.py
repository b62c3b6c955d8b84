"""The exit codes of every command, as ``diff``'s (0 all good, 1 a finding, 2 could not do the
job), the one way a command turns a failure into its one line on stderr, and the argument
types the command families share."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TextIO

from ..base.errors import FormatError, TidlIoError
from ..base.text import escape
from ..iodesc.format import SCHEMA_VERSION, dumps_json

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2
EXIT_FINDING = EXIT_INVALID  # a finding: an invalid file, a bad layer, a doctor error

Body = Callable[[argparse.Namespace, TextIO, TextIO], int]


def failure_path(exc: BaseException) -> str | None:
    """The file a failure names (a reader's source, an OS error's file name), else None."""
    if isinstance(exc, FormatError):
        return str(exc.source)
    name = getattr(exc, "filename", None) if isinstance(exc, OSError) else None
    return None if name is None else str(name)


def failure_document(message: str, path: str | None = None) -> str:
    """The ``--json`` document of a command that could not do its job, as ``inspect --json``
    lists what failed: ``{"schema_version": 1, "errors": [{"path", "message"}]}``."""
    return dumps_json({"schema_version": SCHEMA_VERSION, "errors": [{"path": path, "message": message}]})


def report_failure(command: str, message: str, path: str | None, out: TextIO, err: TextIO, as_json: bool) -> int:
    """``tidl-io COMMAND: error: MESSAGE`` on ``err`` (escaped), with ``as_json`` the failure
    document on ``out`` too; exit 2."""
    if as_json:
        out.write(failure_document(message, path) + "\n")
    print(f"tidl-io {command}: error: {escape(message)}", file=err)
    return EXIT_USAGE


def one_line_failures(command: str, body: Body, args: argparse.Namespace, out: TextIO, err: TextIO,
                      *, as_json: bool = False) -> int:
    """``body(args, out, err)``; a library error or an OS error (a file that cannot be read or
    written) becomes ``tidl-io COMMAND: error: ...`` on ``err`` (escaped) and exit 2; with
    ``as_json``, also the failure document (:func:`failure_document`) on ``out``."""
    try:
        return body(args, out, err)
    except TidlIoError as exc:
        message, path = str(exc), failure_path(exc)
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        message, path = f"{where}{exc.strerror or exc}", failure_path(exc)
    return report_failure(command, message, path, out, err, as_json)


def _whole(text: str, least: int, hint: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= {least}{hint}, found {text!r}") from None
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
