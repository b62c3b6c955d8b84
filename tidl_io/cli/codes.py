"""The exit codes of every command, as ``diff``'s (0 all good, 1 a finding, 2 could not do the
job), the one way a command turns a failure into its one line on stderr (and, with
``--json``, a JSON document naming what failed), and the argument types the command families
share."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TextIO

from ..base.errors import TidlIoError
from ..base.numtext import NumberError, read_int, show
from ..base.text import escape
from ..iodesc.format import document, dumps_json

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2
EXIT_FINDING = EXIT_INVALID  # a finding: an invalid file, a bad layer, a doctor error

Body = Callable[[argparse.Namespace, TextIO, TextIO], int]


def report_failure(command: str, message: str, path: str | None, out: TextIO, err: TextIO, as_json: bool) -> int:
    """:func:`fail` with the command's ``--json`` flag: ``tidl-io COMMAND: error: MESSAGE`` on
    ``err``, with ``as_json`` the failure document on ``out`` too; exit 2."""
    return fail(command, message, err, out if as_json else None, path)


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


def failure_document(message: str, path: str | None = None) -> dict[str, Any]:
    """The ``--json`` document of a command that could not do its job (exit 2):
    ``{"schema_version": 1, "errors": [{"path", "message"}]}``, ``inspect --json``'s ``errors``
    array (``path`` the file or folder that failed, null when the failure is of the arguments)."""
    return {"schema_version": document([])["schema_version"], "errors": [{"path": path, "message": message}]}


def failure_path(exc: BaseException) -> str | None:
    """The file an error names: a :class:`~tidl_io.FormatError`'s ``source``, an OS error's
    ``filename`` (tidl_io's path errors are OS errors), else None."""
    where = getattr(exc, "source", None) or getattr(exc, "filename", None)
    return None if where is None else str(where)


def fail(command: str, message: str, err: TextIO, out: TextIO | None = None, path: str | None = None) -> int:
    """Exit 2, could not do the job: ``tidl-io COMMAND: error: MESSAGE`` on ``err`` (escaped); with
    ``out`` (the command's ``--json``), also :func:`failure_document` on ``out``, so that a
    ``--json`` reader always gets a document."""
    print(f"tidl-io {command}: error: {escape(message)}", file=err)
    if out is not None:
        out.write(dumps_json(failure_document(message, path)) + "\n")
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


def output_path(text: str) -> str:
    """An argparse type for every option naming what a command writes (``-o``, ``--output``,
    ``--html``, ``--traces``): an empty one is refused (it wrote into the current folder, or
    nothing, silently)."""
    if text == "":
        raise argparse.ArgumentTypeError("is empty; expected a path to write")
    return text
