"""The ``tidl-io perf`` command: arguments to :func:`tidl_io.load_perf` /
:func:`tidl_io.perf.diff_perf`, their reports to the terminal. Registered by :mod:`tidl_io.cli.app`.

Exit codes like ``diff``: 0 the report; for ``perf A B`` 0 when nothing differs, 1 when
something does; 2 when the job cannot be done (usage, nothing to read, a cut or malformed
file, a board log of another model, A and B of two models), with one line on stderr and no
traceback; with ``--json`` also a JSON document on stdout naming what failed (``errors``,
each ``{"path", "message"}``, as ``inspect --json``).
"""

from __future__ import annotations

import argparse
import os
from typing import Any, TextIO

from ..base.atomic import write_bytes_atomic, write_failure
from ..base.errors import FormatError, TidlIoError
from ..base.text import escape
from ..iodesc.format import document, dumps_json
from .codes import EXIT_INVALID as EXIT_FINDING
from .codes import EXIT_OK, EXIT_USAGE, output_path, top


def add_commands(sub: Any) -> None:
    p = sub.add_parser("perf", help="where the time goes: per-layer cycles, memory placement and DDR traffic",
                       description="Read TI's compile-time performance simulation (tempDir/<sg>_tidl_net/"
                                   "tempDir_*.csv), bufinfolog(_0).csv and netLog of a model or artifacts folder and "
                                   "show each layer's time, share, cycles (kernel / core loop / setup / DMA), what it "
                                   "waits for, its DDR traffic, where its buffers live and its MACs; per-type totals "
                                   "and TI's totals. With B: two compilations of one model side by side, the largest "
                                   "change first. Exit 0 the report (A B: nothing differs), 1 (A B) something "
                                   "differs, 2 could not (with --json, also a JSON document naming what failed).")
    p.add_argument("paths", nargs="+", metavar="PATH", help="a model or artifacts folder; two to compare them (A B)")
    p.add_argument("--top", type=top, metavar="N",
                   help="only the N slowest layers, slowest first (without a simulation: the N with the most MACs; "
                        "A B: the N largest changes); 0: all, as without --top")
    p.add_argument("--board", action="append", metavar="CSV", default=[],
                   help="TIDL-RT's measured tidl_trace_subgraph_<N>_perf.csv (debug level >= 1), one per --board "
                        "(--board a.csv --board b.csv for several subgraphs): beside the simulation, with their "
                        "ratio; a log of several runs (blocks ending in 'Sum of Layer Cycles'): each layer's mean "
                        "over all of them (min, max and the run count in --json)")
    p.add_argument("--json", action="store_true", help="machine-readable report")
    p.add_argument("--html", metavar="REPORT_HTML", type=output_path, help="also write a self-contained HTML page (atomically)")
    p.set_defaults(run=_run)


class _Failed(Exception):
    """The job could not be done: ``message`` for stderr and ``--json``, ``path`` what failed
    (None: the arguments)."""

    def __init__(self, message: str, path: str | None) -> None:
        super().__init__(message)
        self.path = path


def _path_of(exc: BaseException, args: argparse.Namespace) -> str | None:
    """The file or folder a library error is about: the one it names, else the PATH given."""
    if isinstance(exc, FormatError):
        return exc.source
    if isinstance(exc, OSError) and exc.filename is not None:
        return os.fsdecode(exc.filename)
    return args.paths[0] if len(args.paths) == 1 else None


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """:func:`_perf`; a failure is one line on ``err`` (escaped), with ``--json`` also the
    document naming it on ``out``, and exit 2."""
    try:
        return _perf(args, out)
    except _Failed as exc:
        message, path = str(exc), exc.path
    except TidlIoError as exc:
        message, path = str(exc), _path_of(exc, args)
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        message, path = f"{where}{exc.strerror or exc}", _path_of(exc, args)
    print(f"tidl-io perf: error: {escape(message)}", file=err)
    if args.json:
        out.write(dumps_json(_failure_document(args, message, path)) + "\n")
    return EXIT_USAGE


def _failure_document(args: argparse.Namespace, message: str, path: str | None) -> dict[str, Any]:
    """The ``--json`` document of a run that failed: the report's keys, empty, and ``errors``."""
    doc = document([], key="subgraphs")
    if len(args.paths) == 2:
        doc.update({"a": args.paths[0], "b": args.paths[1], "notes": []})
    doc["errors"] = [{"path": path, "message": message}]
    return doc


def _perf(args: argparse.Namespace, out: TextIO) -> int:
    from ..perf import diff_perf, load_perf  # start-up

    if len(args.paths) > 2:
        raise _Failed("give one folder, or two to compare (A B)", None)
    from ..artifacts.folder import require_one_model  # start-up

    for path in args.paths:
        require_one_model(path, "perf")  # a net file, a folder of model folders: say so
    if len(args.paths) == 2:
        if args.board:
            files = [p for p in args.paths if os.path.isfile(p)]
            if files:  # perf model/ --board a.csv b.csv: b.csv became the second PATH
                raise _Failed(f"{files[0]} is a file, not a model folder: give each board log its own --board "
                              "(--board a.csv --board b.csv)", files[0])
            raise _Failed("--board is for one folder, not for A B", None)
        if args.html:
            raise _Failed("--html is for one folder, not for A B", None)
        diff = diff_perf(load_perf(args.paths[0]), load_perf(args.paths[1]))
        doc = diff.to_dict()
        out.write((dumps_json({**doc, "errors": []}) if args.json else diff.to_text(top=args.top)) + "\n")
        return EXIT_FINDING if diff.changed else EXIT_OK
    perf = load_perf(args.paths[0], board=args.board)
    report = dumps_json({**perf.to_dict(), "errors": []}) if args.json else perf.to_text(top=args.top)
    if args.html:  # before the report: a page that cannot be written is one line and exit 2, nothing else on stdout
        try:
            write_bytes_atomic(args.html, perf.to_html().encode("utf-8"))
        except OSError as exc:  # name the user's path, not the temporary file beside it
            raise _Failed(write_failure(exc, args.html), args.html) from None
    out.write(report + "\n")
    return EXIT_OK
