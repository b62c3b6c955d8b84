"""``tidl-io doctor``: argument parsing and printing only. The checks are
:func:`tidl_io.diagnose`; the CLI prints its :class:`~tidl_io.doctor.checks.Diagnosis` with
``to_text()``, ``to_dict()`` (``--json``) or ``to_html()`` (``--html``).

Exit codes like ``diff``: 0 all files agree, 1 a finding (an error of the files), 2 could not
do the job (usage: a bad ``--explain``, an empty PATH, an ``--html`` file that cannot be
written; a PATH that doctor cannot check: :func:`tidl_io.diagnose` raises a TidlIoError saying
why, printed as its one line).
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import TextIO

from ..base.atomic import write_bytes_atomic, write_failure
from ..base.errors import TidlIoError
from ..iodesc.format import dumps_json
from .codes import EXIT_INVALID, EXIT_OK, fail, failure_path, output_path

__all__ = ["add_commands"]


def _cmd_doctor(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..doctor.checks import diagnose, parse_explain  # start-up

    def usage(message: str, path: str | None = None) -> int:
        return fail("doctor", message, err, out if args.json else None, path)

    try:
        keys = [parse_explain(text) for text in args.explain or ()]
    except TidlIoError as exc:
        return usage(str(exc))
    if args.no_library and args.library is not None:
        return usage("--library and --no-library exclude each other")
    if args.json and args.html:
        return usage("--json and --html exclude each other")
    for what, value in (("PATH", args.path), ("--library", args.library), ("--html", args.html)):
        if value == "":
            return usage(f"{what} is empty; expected a path")
    try:
        found = diagnose(args.path, library=args.library, explain=keys, check_library=not args.no_library)
    except TidlIoError as exc:  # it cannot check PATH: could not do the job, not a finding
        return usage(str(exc), failure_path(exc))
    if found.library is not None and args.library is not None:  # the CLI names its own option
        found = dataclasses.replace(found, library=found.library.replace("library= argument", "--library"))
    if args.html:

        page = found.to_html()
        if args.html == "-":
            out.write(page)
        else:
            try:
                write_bytes_atomic(args.html, page.encode("utf-8"))
            except OSError as exc:
                return usage(write_failure(exc, args.html))
            except TidlIoError as exc:
                return usage(str(exc))
            out.write(found.to_text() + "\n")
    elif args.json:
        out.write(dumps_json(found.to_dict()) + "\n")
    else:
        out.write(found.to_text() + "\n")
    return EXIT_OK if found.ok else EXIT_INVALID


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Add ``doctor`` to the ``tidl-io`` command line."""
    p = sub.add_parser("doctor", help="do the files of a compiled model agree? (releases, io <-> net, sidecars)",
                       description="Check an artifacts folder (or a model folder holding artifacts/ and "
                                   "param.yaml, or a net file whose io descriptor is missing): which TIDL release "
                                   "built it (netVersion and io descriptor size must agree), io descriptor against "
                                   "net (counts, dims, element types, scales by dataId), layer_info.txt, "
                                   "onnxrtMetaData.txt / allowedNode.txt / param.yaml, and whether the TIDL-RT "
                                   "library tidl-io would load is that release. Exit 0 when all agree, 1 with one "
                                   "located line per problem, 2 when it cannot check (usage, a missing PATH, a folder of "
                                   "model folders: give one; a file that is neither an io descriptor nor a net "
                                   "file). The same as "
                                   "tidl_io.diagnose(PATH) in Python.")
    p.add_argument("path", metavar="PATH", help="an artifacts folder, a model folder holding artifacts/, or a net "
                                                "file whose io descriptor is missing")
    p.add_argument("--explain", action="append", metavar="MESSAGE",
                   help="name what a TI message's number is: 'DIM Error - For Tensor 20' (dataId 20), "
                        "'Layer 5', or a bare dataId (repeatable)")
    p.add_argument("--library", metavar="LIB", help="the libvx_tidl_rt.so to compare with (default: the one "
                                                     "tidl-io would load)")
    p.add_argument("--no-library", action="store_true", help="skip the TIDL-RT library check")
    p.add_argument("--json", action="store_true", help="machine-readable report")
    p.add_argument("--html", metavar="FILE", type=output_path, help="also write the report as one self-contained HTML page to FILE "
                                                  "('-': the page instead of the text, to stdout)")
    p.set_defaults(run=_cmd_doctor)
