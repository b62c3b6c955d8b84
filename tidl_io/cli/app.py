"""``tidl-io`` command line: the parser and :func:`main`. Each command family lives in a module
of its own (:mod:`.inspect`: inspect, validate; :mod:`.run`: demo, run, info; :mod:`.doctor`;
:mod:`.trace`: golden, compare; :mod:`.perf`; :mod:`.why`; :mod:`.quant`; :mod:`.emulate`;
:mod:`.advise`; :mod:`.report`), each with ``add_commands(sub)``. No logic lives here.

Exit codes, as ``diff``'s (:mod:`.codes`; the README's "Exit codes"): 0 ok, 1 a finding, 2 could
not do the job. A library error or an OS error a command lets through means the job could not be
done: exit 2. Diagnostics go to stderr in one line, without a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn, TextIO

from ..base.errors import TidlIoError
from ..base.text import escape
from ..base.version import __version__
from ..iodesc.format import dumps_json
from . import advise as cli_advise
from . import doctor as cli_doctor
from . import emulate as cli_emulate
from . import inspect as cli_inspect
from . import perf as cli_perf
from . import quant as cli_quant
from . import report as cli_report
from . import run as cli_run
from . import trace as cli_trace
from . import why as cli_why
from .codes import EXIT_OK, EXIT_USAGE, failure_document


class _UsageError(Exception):
    """argparse refused the arguments: (message, usage, prog) for :func:`main` to print."""


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage error :func:`main` can also give as a ``--json`` document
    (the sub-parsers of the commands are of this class too)."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(message, self.format_usage(), self.prog)


def build_parser() -> argparse.ArgumentParser:
    """The whole ``tidl-io`` parser, every command's options (docs and tests read it)."""
    parser = _Parser(
        prog="tidl-io",
        description="Inspect and check TIDL I/O buffer descriptors (*_tidl_io_1.bin).",
    )
    parser.add_argument("--version", action="version", version=f"tidl-io {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    for family in (cli_inspect, cli_run, cli_doctor, cli_trace, cli_why, cli_quant, cli_emulate, cli_perf, cli_advise,
                   cli_report):
        family.add_commands(sub)  # each imports what its commands need when they run
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run the command line; returns the exit code."""
    if out is None:
        out = sys.stdout
        # names can hold any character: never die on a terminal or pipe that cannot show one
        reconfigure = getattr(out, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    err = err or sys.stderr
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(words)
    except SystemExit as exc:  # argparse: 0 for --help/--version
        return int(exc.code or 0)
    except _UsageError as exc:  # argparse's usage and line on stderr; a --json reader gets the document too
        message, usage, prog = exc.args
        sys.stderr.write(usage)  # where argparse itself writes them (main's err is for the commands)
        print(f"{prog}: error: {escape(message)}", file=sys.stderr)
        if "--json" in words:
            out.write(dumps_json(failure_document(message)) + "\n")
        return EXIT_USAGE
    try:
        return int(args.run(args, out, err))
    except BrokenPipeError:  # e.g. piped into head: not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except TidlIoError as exc:
        print(f"tidl-io: error: {escape(str(exc))}", file=err)
        return EXIT_USAGE
    except OSError as exc:  # a file a command could not read or write
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"tidl-io: error: {escape(where + str(exc.strerror or exc))}", file=err)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
