"""``tidl-io demo``, ``tidl-io run`` and ``tidl-io info``: the bundled example, timed runs of a
compiled model, what this machine has. Argument parsing and printing only."""

from __future__ import annotations

import argparse
from typing import TextIO

from ..base.errors import OptionError
from ..base.text import escape_lines
from ..iodesc.format import dumps_json
from .codes import EXIT_OK, count, one_line_failures


def _cmd_demo(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..run.demo import run_demo  # start-up

    return int(run_demo(out=out))


def _cmd_run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``tidl-io run``: a failure is one line on stderr (and, with --json, the failure document)."""
    return one_line_failures("run", _run, args, out, err, as_json=args.json)


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..run.runner import format_run, load_inputs, run_model, run_to_dict  # start-up
    from ..run.session import find_artifacts  # start-up

    runtime: object = args.runtime
    if args.trace and args.runtime == "mock":
        raise OptionError("--trace is for TIDL-RT; the mock has no traces")
    if args.trace:
        import functools  # start-up

        from ..runtime.tidlrt import TidlRtRuntime  # start-up

        runtime = functools.partial(TidlRtRuntime, trace_log_level=2, trace_write_level=1)
    find_artifacts(args.path)  # nothing to run: could not do the job (a located PathError)
    names: tuple[str, ...] = ()
    if args.input:
        from ..run.session import Session  # start-up

        with Session(args.path, runtime="mock") as probe:  # names only: no device is touched
            names = probe.input_names
    inputs = load_inputs(args.input or [], names)  # an input file that cannot be used: could not do the job
    result = run_model(args.path, runtime=runtime, inputs=inputs, repeat=args.repeat,
                       isolate=True)  # TIDL-RT's first create in a child process: a crash there is an error
    out.write((dumps_json(run_to_dict(result)) if args.json else escape_lines(format_run(result))) + "\n")
    return EXIT_OK


def _cmd_info(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..runtime.info import collect, format_info  # start-up

    out.write(escape_lines(format_info(collect())) + "\n")
    return EXIT_OK


def add_commands(sub: argparse._SubParsersAction) -> None:
    """``demo``, ``run`` and ``info``."""
    d = sub.add_parser("demo", help="run the bundled example end to end on the mock C7x runtime",
                       description="Preprocess a generated image, pack it into TIDL's padded buffer, invoke "
                                   "the mock runtime, unpack and parse detections, explaining each step.")
    d.set_defaults(run=_cmd_demo)

    r = sub.add_parser("run", help="run a compiled model N times and time each stage",
                       description="Run an artifacts folder on TI's TIDL-RT (board or PC emulation) or the host "
                                   "mock: per stage (pack, copy-in, device, copy-out, runtime, unpack) min/median/"
                                   "max over N runs, zero copy or not per tensor, an output summary. Inputs not "
                                   "given are random values of each input's range.")
    r.add_argument("path", metavar="PATH", help="an artifacts folder, a model folder holding artifacts/, or an io file")
    r.add_argument("--runtime", choices=("auto", "tidlrt", "mock"), default="auto",
                   help="auto (default): TIDL-RT when its library loads and can run here (its first create is "
                        "tried in a child process), else the mock")
    r.add_argument("--input", action="append", metavar="NAME=FILE.npy", help="an input array (repeatable)")
    r.add_argument("--repeat", type=count, default=10, metavar="N", help="timed runs after one warm-up (default 10)")
    r.add_argument("--json", action="store_true", help="machine-readable timings (seconds) and summary")
    r.add_argument("--trace", action="store_true", help="TIDL-RT with trace_log_level 2 and trace_write_level 1")
    r.set_defaults(run=_cmd_run)

    i = sub.add_parser("info", help="what this machine has: TIDL-RT library, layout, shared memory, NumPy",
                       description="Report the TIDL-RT library (found or not, where), its layout and release, "
                                   "whether its shared memory works, and the Python and NumPy versions.")
    i.set_defaults(run=_cmd_info)
