"""The ``tidl-io golden`` and ``tidl-io compare`` commands: arguments to calls, results to
text. Registered by :mod:`tidl_io.cli.app`; the work is done in this package's modules."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..base.atomic import write_bytes_atomic
from ..base.errors import OptionError
from ..base.text import escape
from .codes import EXIT_INVALID as EXIT_BAD
from .codes import EXIT_OK, EXIT_USAGE, one_line_failures, output_path, report_failure

if TYPE_CHECKING:
    from ..trace.report import CompareReport

_MODELS = (".onnx", ".tflite")


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    g = sub.add_parser("golden", help="run the float model (.onnx/.tflite) and save every intermediate tensor",
                       description="Run MODEL on --input with every intermediate tensor exposed (ONNX: added as "
                                   "outputs in memory; TFLite: all tensors preserved) and save each under its "
                                   "tensor name in an .npz. Needs the extra: pip install 'tidl-io[golden]'. "
                                   "Exit 0 written, 2 could not (usage, an unreadable model or input, no extra).")
    g.add_argument("model", metavar="MODEL", help="an .onnx or .tflite model")
    g.add_argument("--input", action="append", required=True, metavar="[NAME=]X",
                   help="an .npy / .npz (used as given) or a picture (.png/.ppm/.pgm: param.yaml preprocessing); "
                        "repeat for several inputs")
    g.add_argument("--params", metavar="PARAM_YAML", help="param.yaml (default: beside the model or one folder up)")
    g.add_argument("-o", "--output", required=True, metavar="GOLDEN_NPZ", type=output_path, help="where to write (atomically)")
    g.set_defaults(run=_guarded(cmd_golden))

    c = sub.add_parser("compare", help="which layer loses accuracy: TIDL traces vs a float golden run",
                       description="Compare TIDL's layer traces (a folder of .y / _float.bin) with a golden run "
                                   "(matched by layer_info name) or another trace folder (matched by dataId), "
                                   "layer by layer: SNR, per-channel SNR, cosine, max/mean |error|, saturation. "
                                   "Exit status like diff: 0 if every compared layer is at or above --min-snr, "
                                   "1 if one is under it, 2 if the comparison could not be made (usage, a missing "
                                   "or unreadable input, traces of several runs, an unusable trace file, nothing "
                                   "compared, an --html path in a folder that does not exist).")
    c.add_argument("traces", nargs="?", metavar="TRACES", help="the folder of TIDL traces")
    c.add_argument("--artifacts", metavar="ART", help="the artifacts folder (net file, tempDir/layer_info.txt)")
    ref = c.add_mutually_exclusive_group()
    ref.add_argument("--golden", metavar="NPZ_OR_MODEL", help="a golden .npz, or an .onnx/.tflite run with --input")
    ref.add_argument("--ref", metavar="TRACES2", help="a second trace folder of the same net (e.g. float, x86)")
    c.add_argument("--input", action="append", metavar="[NAME=]X", help="input(s) for --golden MODEL")
    c.add_argument("--params", metavar="PARAM_YAML", help="param.yaml for picture inputs")
    c.add_argument("--golden-layout", choices=("NCHW", "NHWC"), help="settle golden arrays whose shape reads both ways")
    c.add_argument("--calibration", metavar="ART", help="compare the calibration dumps of ART (tempDir/"
                   "*_tidl_io__stats_tool_out.bin) instead of traces: --golden is an .npz with each output's frames "
                   "on a leading axis, or MODEL (run on the calibration inputs)")
    c.add_argument("--subgraph", metavar="N_OR_NAME",
                   help="the subgraph, by TIDL's number (its index in onnxrtMetaData.txt, the N of "
                        "tidl_trace_subgraph_N_...) or its name (625 for 625_tidl_io_1.bin); for traces and "
                        "--calibration alike, when the folder holds several")
    c.add_argument("--core", type=int, metavar="N", help="the C7X_<n>_ core, when the folder holds several")
    c.add_argument("--min-snr", type=float, default=None, metavar="DB",
                   help="a layer whose SNR or any channel's SNR is under DB is bad (default 20); channels whose "
                        "reference never reaches one quantization step do not count")
    times = c.add_mutually_exclusive_group()
    times.add_argument("--perf", metavar="DIR", help="each layer's simulated time beside its SNR, from TI's performance "
                                                     "simulation in DIR (default: in ART when it is there)")
    times.add_argument("--no-perf", action="store_true", help="no layer times")
    c.add_argument("--json", action="store_true", help="machine-readable report")
    c.add_argument("--html", metavar="REPORT_HTML", type=output_path, help="also write a self-contained HTML report (atomically)")
    c.set_defaults(run=_guarded(cmd_compare))


def _guarded(run: Callable[[argparse.Namespace, TextIO, TextIO], int]
             ) -> Callable[[argparse.Namespace, TextIO, TextIO], int]:
    """A command whose errors (a library error, a missing or unreadable file, not an array, a
    missing extra, usage) end in one line on stderr and exit 2 (could not do the job, as
    ``diff``), not a traceback: golden and compare alike; with ``--json`` stdout also holds a
    JSON document naming what failed (``errors``, as ``inspect --json``)."""

    def guarded(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
        as_json = bool(getattr(args, "json", False))
        try:
            return one_line_failures(args.command, run, args, out, err, as_json=as_json)
        except ValueError as exc:  # a model the runtime refuses
            return report_failure(args.command, str(exc), None, out, err, as_json)

    return guarded


def cmd_golden(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..trace.golden import load_model_inputs, run_golden, save_golden  # start-up

    notes: list[str] = []
    feeds = load_model_inputs(args.model, args.input, params=args.params, notes=notes)
    run = run_golden(args.model, feeds)
    run.notes[:0] = notes
    save_golden(args.output, run)
    for n in run.notes:
        print(f"note: {n}", file=out)
    print(f"{len(run.tensors)} tensor(s) of {Path(args.model).name} ({run.layout}) written to {args.output}", file=out)
    return EXIT_OK


def cmd_compare(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..trace.api import MODELS, compare_calibration, compare_traces  # start-up
    from ..trace.compare import DEFAULT_MIN_SNR_DB  # start-up

    min_snr = DEFAULT_MIN_SNR_DB if args.min_snr is None else args.min_snr
    if not math.isfinite(min_snr):
        raise OptionError(f"--min-snr {args.min_snr}: expected a finite number of dB")
    if args.html is not None:
        folder = Path(args.html).parent
        if not folder.is_dir():
            raise OptionError(f"--html {args.html}: the folder {str(folder)!r} does not exist")
    if args.calibration is not None:
        if args.traces is not None or args.ref is not None:
            raise OptionError("--calibration compares the calibration dumps: no TRACES and no --ref")
        if args.golden is None:
            raise OptionError("--calibration needs --golden (an .npz of output frames, or the model)")
        report = compare_calibration(args.calibration, golden=args.golden, subgraph=args.subgraph,
                                     golden_layout=args.golden_layout, min_snr_db=min_snr,
                                     histograms=args.html is not None)
    else:
        if args.traces is None or args.artifacts is None:
            raise OptionError("give TRACES and --artifacts ART (or --calibration ART)")
        if args.golden is None and args.ref is None:
            raise OptionError("give a reference: --golden golden.npz, --golden MODEL --input X, or --ref TRACES2")
        if args.golden is not None and Path(args.golden).suffix.lower() in MODELS and not args.input:
            raise OptionError("--golden MODEL needs --input X")
        report = compare_traces(args.traces, artifacts=args.artifacts, golden=args.golden, ref=args.ref,
                                inputs=args.input or (), params=args.params, golden_layout=args.golden_layout,
                                subgraph=args.subgraph, core=args.core, min_snr_db=min_snr,
                                histograms=args.html is not None, perf=False if args.no_perf else args.perf)
    return _emit(report, args, out, err)


def _emit(report: CompareReport, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:

    if args.html:  # first: a page that cannot be written fails before stdout holds the report
        write_bytes_atomic(args.html, report.to_html().encode("utf-8"))
    out.write((report.to_json() if args.json else report.to_text()) + "\n")
    if not report.compared:
        print(f"tidl-io compare: error: {escape(report.why_nothing_compared)}", file=err)
        return EXIT_USAGE
    if report.warnings:
        print(f"tidl-io compare: error: {len(report.warnings)} trace file(s) could not be used (see the warnings)",
              file=err)
        return EXIT_USAGE
    return EXIT_BAD if report.first_bad is not None else EXIT_OK
