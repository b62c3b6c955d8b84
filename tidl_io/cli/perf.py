"""The ``tidl-io perf`` command: arguments to :func:`tidl_io.load_perf` /
:func:`tidl_io.perf.diff_perf`, their reports to the terminal. Registered by :mod:`tidl_io.cli.app`.

Exit codes like ``diff``: 0 the report; for ``perf A B`` 0 when nothing differs, 1 when
something does; 2 when the job cannot be done (usage, nothing to read, a cut or malformed
file), with one line on stderr and no traceback.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ..base.atomic import write_bytes_atomic
from ..base.text import escape
from ..iodesc.format import dumps_json
from .codes import EXIT_INVALID as EXIT_FINDING
from .codes import EXIT_OK, EXIT_USAGE, one_line_failures, top


def add_commands(sub: Any) -> None:
    p = sub.add_parser("perf", help="where the time goes: per-layer cycles, memory placement and DDR traffic",
                       description="Read TI's compile-time performance simulation (tempDir/<sg>_tidl_net/"
                                   "tempDir_*.csv), bufinfolog(_0).csv and netLog of a model or artifacts folder and "
                                   "show each layer's time, share, cycles (kernel / core loop / setup / DMA), what it "
                                   "waits for, its DDR traffic and where its buffers live; per-type totals and TI's "
                                   "totals. With B: two compilations of one model side by side, matched by layer name. "
                                   "Exit 0 the report (A B: nothing differs), 1 (A B) something differs, 2 could not.")
    p.add_argument("paths", nargs="+", metavar="PATH", help="a model or artifacts folder; two to compare them (A B)")
    p.add_argument("--top", type=top, metavar="N",
                   help="only the N slowest layers, slowest first (0: all, in execution order, as without --top)")
    p.add_argument("--board", nargs="+", metavar="CSV", default=[],
                   help="TIDL-RT's measured tidl_trace_subgraph_<N>_perf.csv (debug level >= 1): beside the "
                        "simulation, with their ratio; a log of several runs (blocks ending in 'Sum of Layer "
                        "Cycles'): each layer's mean over all of them (min, max and the run count in --json)")
    p.add_argument("--json", action="store_true", help="machine-readable report")
    p.add_argument("--html", metavar="REPORT_HTML", help="also write a self-contained HTML page (atomically)")
    p.set_defaults(run=_run)


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    return one_line_failures("perf", _perf, args, out, err)


def _perf(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..perf import diff_perf, load_perf  # start-up

    if len(args.paths) > 2:
        print("tidl-io perf: error: give one folder, or two to compare (A B)", file=err)
        return EXIT_USAGE
    if len(args.paths) == 2:
        if args.board or args.html:
            print("tidl-io perf: error: --board and --html are for one folder, not for A B", file=err)
            return EXIT_USAGE
        diff = diff_perf(load_perf(args.paths[0]), load_perf(args.paths[1]))
        out.write((dumps_json(diff.to_dict()) if args.json else diff.to_text(top=args.top)) + "\n")
        return EXIT_FINDING if diff.changed else EXIT_OK
    perf = load_perf(args.paths[0], board=args.board)
    report = dumps_json(perf.to_dict()) if args.json else perf.to_text(top=args.top)
    if args.html:  # before the report: a page that cannot be written is one line and exit 2, nothing on stdout
        try:
            write_bytes_atomic(args.html, perf.to_html().encode("utf-8"))
        except OSError as exc:  # name the user's path, not the temporary file beside it
            print(f"tidl-io perf: error: {escape(args.html)}: {escape(exc.strerror or str(exc))}", file=err)
            return EXIT_USAGE
    out.write(report + "\n")
    return EXIT_OK
