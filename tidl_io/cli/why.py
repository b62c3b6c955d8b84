"""The ``tidl-io why`` command: arguments to :func:`tidl_io.support.load_support`, its report to
text, JSON or a page (``--html``). Registered by :mod:`tidl_io.cli.app`; no logic lives here.

Exit codes: 0 every node on TIDL (and no disagreement), 1 a finding (a node unsupported or on
the ARM, more subgraphs than TIDL's limit, run.log disagreeing), 2 could not read the files.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ..base.atomic import write_bytes_atomic
from ..base.errors import TidlIoError
from ..iodesc.format import dumps_json
from .codes import EXIT_FINDING, EXIT_OK, fail, failure_path, output_path


def add_commands(sub: Any) -> None:
    w = sub.add_parser("why", help="why a model was split: TI's verdict per node, where it landed, what to do",
                       description="Read tempDir/graphvizInfo.txt (TI's verdict on every node of the original "
                                   "model), allowedNode.txt / onnxrtMetaData.txt (the subgraph each node landed in, "
                                   "or the ARM) and run.log's Subgraph Information Summary; group the nodes by "
                                   "TI's reason, count the subgraphs against TIDL's limit (max_num_subgraphs) and "
                                   "say what TI documents a user can do. Exit 0 all nodes on TIDL, 1 a finding, "
                                   "2 unreadable input.")
    w.add_argument("path", metavar="PATH", help="a model folder, its artifacts folder, tempDir, or graphvizInfo.txt")
    w.add_argument("--node", metavar="NAME", help="show one node (its name, or its index in graphvizInfo.txt)")
    w.add_argument("--json", action="store_true", help="machine-readable report (strict JSON)")
    w.add_argument("--html", metavar="FILE", type=output_path, help="also write the report as one self-contained HTML page (atomically)")
    w.set_defaults(run=cmd_why)


def cmd_why(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..support import load_support  # start-up

    try:
        report = load_support(args.path)
        text = None if args.json else report.to_text(node=args.node)
        if args.json and args.node is not None:
            node = report.node(args.node).to_dict()
        if args.html:  # before the report: a page that cannot be written is one line and exit 2 (a PathError)
            write_bytes_atomic(args.html, report.to_html().encode("utf-8"))
    except (TidlIoError, OSError) as exc:
        return fail("why", str(exc), err, out if args.json else None, failure_path(exc))
    if args.json:
        doc = report.to_dict() if args.node is None else {"schema_version": 1, "source": report.source,
                                                           "node": node}
        out.write(dumps_json(doc) + "\n")
    else:
        out.write(f"{text}\n")
    if args.node is not None:
        n = report.node(args.node)
        return EXIT_OK if n.status.value == "supported" and not (report.subgraphs is not None and n.on_arm) \
            else EXIT_FINDING
    return EXIT_OK if report.ok else EXIT_FINDING
