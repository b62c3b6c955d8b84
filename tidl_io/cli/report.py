"""The ``tidl-io report`` command: arguments to :func:`tidl_io.report`, its page to a file (or
its text / JSON to stdout). Registered by :mod:`tidl_io.cli.app`; no logic lives here.

Exit codes like ``doctor``: 0 no section found a problem, 1 a finding in any section, 2 could
not do the job (a MODEL nothing can read, a folder of model folders, an -o file that cannot be
written; with ``--json`` also the failure document).
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ..base.atomic import write_bytes_atomic, write_failure
from ..base.errors import TidlIoError
from ..iodesc.format import dumps_json
from .codes import EXIT_FINDING, EXIT_OK, fail, failure_path, output_path


def add_commands(sub: Any) -> None:
    r = sub.add_parser("report", help="one page per model: doctor, the net, perf, why, quant, compare/advise",
                       description="Run every part of tidl-io on a model or artifacts folder and write one "
                                   "self-contained offline HTML page (inline CSS and SVG, no script, nothing "
                                   "fetched): doctor's findings first, the model (layers, graph), where the time "
                                   "goes, what was split and why, quantization, and with --traces/--golden the "
                                   "accuracy (compare, advise); the emulator against TI's dumps when they are "
                                   "there. Each section says what it read, or which missing file would fill it. "
                                   "--json: each section's document, equal to its command's --json. Exit 0 no "
                                   "finding, 1 a finding in any section, 2 could not.")
    r.add_argument("path", metavar="MODEL", help="a model folder or its artifacts folder")
    r.add_argument("-o", "--output", metavar="REPORT_HTML", type=output_path, default="report.html",
                   help="where to write the page (atomically; default report.html; '-': the page to stdout)")
    r.add_argument("--json", action="store_true", help="every section's document to stdout (strict JSON), no page")
    r.add_argument("--traces", metavar="DIR", help="TIDL's layer traces of the model (with --golden): compare, advise")
    r.add_argument("--golden", metavar="G", help="a golden .npz or the .onnx/.tflite (tidl-io golden); alone: the "
                                                 "calibration dumps are compared")
    r.add_argument("--board", action="append", default=[], metavar="CSV",
                   help="TIDL-RT's measured tidl_trace_subgraph_<N>_perf.csv, beside the simulation (repeatable)")
    r.add_argument("--no-library", action="store_true", help="skip doctor's TIDL-RT library check")
    r.set_defaults(run=cmd_report)


def cmd_report(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..overview import report  # start-up

    json_out = out if args.json else None
    for what, value in (("MODEL", args.path), ("-o", args.output)):
        if value == "":
            return fail("report", f"{what} is empty; expected a path", err, json_out)
    try:
        found = report(args.path, traces=args.traces, golden=args.golden, board=args.board,
                       check_library=not args.no_library)
    except (TidlIoError, OSError) as exc:
        return fail("report", str(exc), err, json_out, failure_path(exc))
    if args.json:
        out.write(dumps_json(found.to_dict()) + "\n")
    elif args.output == "-":
        out.write(found.to_html())
    else:
        try:
            write_bytes_atomic(args.output, found.to_html().encode("utf-8"))
        except OSError as exc:
            return fail("report", write_failure(exc, args.output), err, None, args.output)
        except TidlIoError as exc:
            return fail("report", str(exc), err, None, args.output)
        out.write(found.to_text() + f"\nwritten: {args.output}\n")
    return EXIT_OK if found.ok else EXIT_FINDING
