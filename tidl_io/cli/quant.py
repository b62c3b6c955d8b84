"""The ``tidl-io quant`` command: arguments to :func:`tidl_io.precision.report.load_quant`, its
report to text, JSON or a page (``--html``). Registered by :mod:`tidl_io.cli.app`; no logic lives here.

Exit codes: 0 the files agree, 1 a finding (a scale or name that disagrees between the net,
paramDebug and the prototxt), 2 could not read the files.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ..base.atomic import write_bytes_atomic
from ..base.errors import TidlIoError
from ..iodesc.format import dumps_json
from .codes import EXIT_INVALID as EXIT_FINDING
from .codes import EXIT_OK, fail, failure_path, output_path, top


def add_commands(sub: Any) -> None:
    q = sub.add_parser("quant", help="which layers lose precision: paramDebug weight error, prototxt ranges",
                       description="Per layer of the compiled model: the weight and bias error TIDL measured "
                                   "(tempDir/*_tidl_net.bin_paramDebug.csv, worst maxRelDifference first) and the "
                                   "activation range, bit depth, scale and zero point from model/*qparams*.prototxt "
                                   "(advanced_options:quant_params_proto_path), checked against the net's own "
                                   "scales. Exit 0 the files agree, 1 a disagreement, 2 unreadable input.")
    q.add_argument("path", metavar="PATH", help="a model folder, its artifacts folder, or tempDir")
    q.add_argument("--top", type=top, default=20, metavar="N", help="layers in the text table (0: all; default 20)")
    q.add_argument("--json", action="store_true", help="machine-readable report (strict JSON), every layer")
    q.add_argument("--html", metavar="FILE", type=output_path, help="also write the report as one self-contained HTML page (atomically)")
    q.set_defaults(run=cmd_quant)


def cmd_quant(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..artifacts.folder import require_one_model  # start-up
    from ..precision.report import load_quant  # start-up

    try:
        require_one_model(args.path, "quant")  # a net file, a folder of model folders: say so
        report = load_quant(args.path)
        if args.html:  # before the report: a page that cannot be written is one line and exit 2 (a PathError)
            write_bytes_atomic(args.html, report.to_html().encode("utf-8"))
    except (TidlIoError, OSError) as exc:
        return fail("quant", str(exc), err, out if args.json else None, failure_path(exc))
    if args.json:
        out.write(dumps_json(report.to_dict()) + "\n")
    else:
        out.write(report.to_text(top=args.top) + "\n")
    return EXIT_OK if report.ok else EXIT_FINDING
