"""``tidl-io doctor``: argument parsing and printing only. The checks are
:func:`tidl_io.diagnose`; the CLI prints its :class:`~tidl_io.doctor.checks.Diagnosis` with
``to_text()``, ``to_dict()`` (``--json``) or ``to_html()`` (``--html``).

Exit codes like ``diff``: 0 all files agree, 1 a finding (an error of the files), 2 could not
do the job (usage: a bad ``--explain``, an empty PATH, an ``--html`` file that cannot be
written; a PATH that is missing or no file or folder, a folder with nothing to check, a folder
of model folders, a net file whose io descriptor is beside it: :func:`_refusal`, said before
:func:`tidl_io.diagnose` runs, which would report these as findings).
"""

from __future__ import annotations

import argparse
import dataclasses
import shlex
from pathlib import Path
from typing import TextIO

from ..base.atomic import write_bytes_atomic, write_failure
from ..base.check import list_folder, path_kind
from ..base.errors import PathError, TidlIoError
from ..base.text import escape
from ..iodesc.format import dumps_json

__all__ = ["add_commands"]

EXIT_OK, EXIT_FINDING, EXIT_USAGE = 0, 1, 2

_EXPECTED = "a model's artifacts folder, a model folder holding artifacts/, an io descriptor or a net file"


def _refusal(path: str) -> str | bool | None:
    """Whether doctor cannot check PATH (exit 2): a message for a folder of model folders
    (one model at a time); True when :func:`tidl_io.diagnose`'s one error says why (nothing
    there, no file or folder, a path that cannot be looked at, a folder with nothing to
    check or that cannot be listed, a net file whose io descriptor is beside it: doctor
    checks the folder); None when it can."""
    from ..artifacts.folder import artifact_subfolders, locate_io_files  # start-up
    from ..net.parse import io_file_of, looks_like_net  # start-up

    p = Path(path)
    try:
        kind = path_kind(p, _EXPECTED)
    except PathError:
        return True
    if kind not in ("file", "folder"):
        return True
    if kind == "file":
        if not looks_like_net(p):
            return None  # an io descriptor (or a file that is none: a finding)
        try:
            return path_kind(io_file_of(p), "an io descriptor") == "file" or None
        except PathError:
            return None  # its io file is not there: the net is checked alone
    try:
        locate_io_files(p, "doctor")
        return None
    except PathError:
        if _has_nets(p):
            return None  # checked from the net alone
        below = artifact_subfolders(p)
        if not below:
            return True
        names = ", ".join(str(b) for b in below[:8]) + (" ..." if len(below) > 8 else "")
        return (f"{path}: a folder of model folders: give one model's artifacts folder; found {len(below)}: "
                f"{names} (tidl-io doctor {shlex.quote(str(below[0]))})")
    except (TidlIoError, OSError):
        return None  # what diagnose reports as a finding of the files


def _has_nets(folder: Path) -> bool:
    """Whether ``folder`` (or its artifacts/) holds a net file, which doctor checks alone."""
    from ..net.parse import looks_like_net  # start-up

    for where in (folder, folder / "artifacts"):
        try:
            if path_kind(where, "a folder") != "folder":
                continue
            if any(n.endswith(".bin") and looks_like_net(where / n) for n in list_folder(where, "a folder")):
                return True
        except PathError:
            continue
    return False


def _cmd_doctor(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..doctor.checks import diagnose, parse_explain  # start-up

    def usage(message: str) -> int:
        print(f"tidl-io doctor: error: {escape(message)}", file=err)
        return EXIT_USAGE

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
    refused = _refusal(args.path)
    if isinstance(refused, str):
        return usage(refused)
    found = diagnose(args.path, library=args.library, explain=keys, check_library=not args.no_library)
    if refused and found.errors:  # diagnose's error says why it could not check: not a finding
        return usage("; ".join(f"{f.source}: {f.message}" for f in found.errors))
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
    return EXIT_OK if found.ok else EXIT_FINDING


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
                                   "model folders: give one). The same as "
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
    p.add_argument("--html", metavar="FILE", help="also write the report as one self-contained HTML page to FILE "
                                                  "('-': the page instead of the text, to stdout)")
    p.set_defaults(run=_cmd_doctor)
