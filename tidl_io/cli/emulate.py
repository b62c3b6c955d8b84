"""The ``tidl-io emulate`` command: arguments to :func:`tidl_io.emulate`, its result to text,
JSON, an .npz and trace files. Registered by :mod:`tidl_io.cli.app`; no logic lives here.

Exit 0 when the net ran, 2 when it could not (usage, unreadable or inconsistent input, a
layer the emulator does not implement, an --output / --traces folder that does not exist: one
line, no traceback; with ``--json`` also a JSON document naming what failed,
:func:`~tidl_io.cli.codes.failure_document`). Everything that can be checked before the
emulation (the paths to write, ``--frame``) is checked before it. ``--check``
(:func:`cmd_check`): 0 every layer and output equal TI's, 1 some differ, 2 could not.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from ..base.atomic import open_atomic
from ..base.errors import FormatError, OptionError, PathError, PathNotFoundError, TidlIoError
from ..iodesc.descriptor import load
from ..iodesc.format import dumps_json
from .codes import EXIT_FINDING, EXIT_OK, fail, failure_path, output_path


def add_commands(sub: argparse._SubParsersAction) -> None:
    e = sub.add_parser("emulate", help="run a compiled net on the host in TIDL's integer arithmetic",
                       description="Run the compiled network of ART (an artifacts folder or a *_tidl_net.bin) on "
                                   "--input in TIDL's fixed-point reference arithmetic, without TI's tools or a board. "
                                   "Prints the outputs' shapes and ranges; --output saves them (.npz, by the io "
                                   "descriptor's names), --traces writes every layer under TIDL's trace names for "
                                   "tidl-io compare. Exit 0 done, 2 could not (a layer it does not implement: one "
                                   "line naming it).")
    e.add_argument("artifacts", metavar="ART", help="an artifacts folder, or a *_tidl_net.bin")
    e.add_argument("--input", metavar="X",
                   help=".npy (a one-input net) or .npz (arrays by input name, or arr_0.. in input order); NCHW, "
                        "frames stacked on the first axis (needed unless --check)")
    e.add_argument("--subgraph", metavar="N_OR_NAME",
                   help="which subgraph of ART (needed when several), by TIDL's number (its index in "
                        "onnxrtMetaData.txt, the N of tidl_trace_subgraph_N_...) or its name (625 for "
                        "625_tidl_io_1.bin), as tidl-io compare takes it; --traces are named with that number")
    e.add_argument("--output", metavar="OUT_NPZ", type=output_path, help="save the outputs (float32 as TIDL-RT returns them), atomically")
    e.add_argument("--traces", metavar="DIR", type=output_path, help="write every layer's codes (.y) and floats (_float.bin) here")
    e.add_argument("--frame", type=int, default=0, metavar="K", help="the frame --traces writes (default 0)")
    e.add_argument("--json", action="store_true", help="machine-readable summary")
    add_check_argument(e)
    add_biases_argument(e)
    e.set_defaults(run=cmd_emulate)


def add_check_argument(e: argparse.ArgumentParser) -> None:
    """``--check``: the emulator against TI's own run on the folder's calibration frames."""
    e.add_argument("--check", action="store_true",
                   help="emulate the calibration frames TI left in ART's tempDir/ and compare with TI's own run: "
                        "each output with stats_tool_out bit for bit, each layer's channel means with "
                        "LayerPerChannelMean.bin (equal: relative difference <= 1e-5 or absolute <= 1e-6); exit 0 "
                        "all equal, 1 some differ, 2 could not (a missing dump is named); takes no --input")


def add_biases_argument(e: argparse.ArgumentParser) -> None:
    """``--biases net|recovered``: the net's biases (the board's) or TI's last stats run's."""
    e.add_argument("--biases", choices=("net", "recovered"), default=None,
                   help="net (the default): the net file's biases, what the board runs; recovered: the biases TI's "
                        "last fixed-point stats run used, recovered from tempDir/'s LayerPerChannelMean.bin on TI's "
                        "calibration frames (reproduces TI's stats_tool_out; needs bias calibration)")


def _pick(args: argparse.Namespace) -> tuple[Path, Path | None, int]:
    """(net file, io file or None, TIDL's subgraph number for the trace names) of ART and
    --subgraph: a folder's subgraph by TIDL's number or name, as ``tidl-io compare`` picks it
    (:func:`tidl_io.artifacts.subgraphs.pick_subgraph`, the one resolver)."""
    from ..artifacts.folder import find_artifacts  # start-up
    from ..artifacts.subgraphs import pick_subgraph, subgraphs  # start-up

    art = Path(args.artifacts)
    sg = args.subgraph
    if art.is_file():
        if sg is not None and not (sg.isascii() and sg.isdigit() and len(sg) < 10):
            raise OptionError(f"--subgraph {sg!r}: with a net file, give TIDL's subgraph number (the N of "
                              "tidl_trace_subgraph_N_...), or give the artifacts folder to pick it by name")
        io_file = art.with_name(art.name.replace("_tidl_net.bin", "_tidl_io_1.bin"))
        return art, io_file if io_file != art and io_file.is_file() else None, int(sg or 0)
    if not art.exists():
        raise PathNotFoundError(str(art), "expected an artifacts folder or a *_tidl_net.bin")
    subs = subgraphs(find_artifacts(art))
    sub = pick_subgraph(subs, sg, where=str(art), purpose="to emulate")
    if sub.net_file is None or sub.io_file is None:
        raise FormatError(str(sub.io_file), "no *_tidl_net.bin beside this io file: the emulator needs the net")
    number = sub.number if sub.number is not None else subs.index(sub)  # no onnxrtMetaData.txt: the position
    return sub.net_file, sub.io_file, number


def _inputs(path: str) -> Any:
    from ..data.arrays import load_arrays  # start-up

    loaded = load_arrays(path, "an .npy or .npz of input arrays")
    if not isinstance(loaded, dict):
        return loaded
    keys = list(loaded)
    if keys and all(k == f"arr_{i}" for i, k in enumerate(keys)):
        return [loaded[k] for k in keys]
    return loaded


def cmd_emulate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    json_out = out if args.json else None
    if args.check:
        return cmd_check(args, out, err)
    if args.input is None:
        return fail("emulate", "--input is needed (or --check: TI's calibration frames)", err, json_out, None)
    try:
        return _emulate(args, out)
    except TidlIoError as exc:  # could not do the job: one line, exit 2 (and the JSON document)
        return fail("emulate", str(exc), err, json_out, failure_path(exc))
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        return fail("emulate", f"{where}{exc.strerror or exc}", err, json_out, failure_path(exc))


def _folder_to_write(option: str, path: str) -> None:
    """``path`` can be written to: its folder exists (``--output`` and ``--traces`` alike: a
    missing folder is refused, naming it, never created)."""
    parent = Path(path).parent
    if not parent.is_dir():
        if parent.exists():
            raise PathError(path, f"{option}: {str(parent)!r} is a file, not a folder")
        raise PathNotFoundError(path, f"{option}: the folder {str(parent)!r} does not exist")


def _emulate(args: argparse.Namespace, out: TextIO) -> int:
    import numpy as np  # start-up

    from ..emulator import emulate  # start-up

    if args.frame < 0:
        raise OptionError(f"--frame must be >= 0, found {args.frame}")
    if args.frame and args.traces is None:
        raise OptionError("--frame picks the frame --traces writes: give --traces DIR too")
    for option, value in (("--output", args.output), ("--traces", args.traces)):
        if value is not None:
            _folder_to_write(option, value)
    net_file, io_file, number = _pick(args)
    desc = load(io_file) if io_file is not None else None
    inputs = _inputs(args.input)
    result = emulate(net_file, inputs, io=desc, frame=args.frame if args.traces is not None else None,
                     biases=args.biases or "net")
    if args.traces is not None:
        result.write_traces(args.traces, subgraph=number, frame=args.frame)
    if args.output is not None:
        with open_atomic(args.output) as fh:  # streamed: a file atomically, a device or a FIFO written through
            np.savez(fh, **dict(result.outputs))  # type: ignore[arg-type]
    if args.json:
        out.write(dumps_json(result.to_dict()) + "\n")
    else:
        out.write(result.to_text() + "\n")
    return EXIT_OK


def cmd_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``tidl-io emulate ART --check``: print :func:`tidl_io.check_emulation`'s report; exit 0
    every layer and output equal TI's, 1 some differ, 2 could not."""
    from ..trace.emucheck import check_emulation  # start-up

    json_out = out if args.json else None
    for option in ("input", "output", "traces", "biases"):
        if getattr(args, option) is not None:
            why = "reports both biases" if option == "biases" else "runs TI's calibration frames"
            return fail("emulate", f"--check {why}: it takes no --{option}", err, json_out, None)
    try:
        report = check_emulation(args.artifacts, args.subgraph)
    except TidlIoError as exc:
        return fail("emulate", str(exc), err, json_out, failure_path(exc))
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        return fail("emulate", f"{where}{exc.strerror or exc}", err, json_out, failure_path(exc))
    out.write((dumps_json(report.to_dict()) if args.json else report.to_text()) + "\n")
    return EXIT_OK if report.ok else EXIT_FINDING
