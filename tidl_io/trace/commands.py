"""The ``tidl-io golden`` and ``tidl-io compare`` commands: arguments to calls, results to
text. Registered by :mod:`tidl_io.cli`; the work is done in this package's modules."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

EXIT_OK, EXIT_BAD, EXIT_USAGE = 0, 1, 2
_MODELS = (".onnx", ".tflite")


def add_commands(sub: Any) -> None:
    g = sub.add_parser("golden", help="run the float model (.onnx/.tflite) and save every intermediate tensor",
                       description="Run MODEL on --input with every intermediate tensor exposed (ONNX: added as "
                                   "outputs in memory; TFLite: all tensors preserved) and save each under its "
                                   "tensor name in an .npz. Needs the extra: pip install 'tidl-io[golden]'.")
    g.add_argument("model", metavar="MODEL", help="an .onnx or .tflite model")
    g.add_argument("--input", action="append", required=True, metavar="[NAME=]X",
                   help="an .npy / .npz (used as given) or a picture (.png/.ppm/.pgm: param.yaml preprocessing); "
                        "repeat for several inputs")
    g.add_argument("--params", metavar="PARAM_YAML", help="param.yaml (default: beside the model or one folder up)")
    g.add_argument("-o", "--output", required=True, metavar="GOLDEN_NPZ", help="where to write (atomically)")
    g.set_defaults(run=_guarded(cmd_golden))

    c = sub.add_parser("compare", help="which layer loses accuracy: TIDL traces vs a float golden run",
                       description="Compare TIDL's layer traces (a folder of .y / _float.bin) with a golden run "
                                   "(matched by layer_info name) or another trace folder (matched by dataId), "
                                   "layer by layer: SNR, per-channel SNR, cosine, max/mean |error|, saturation. "
                                   "Exit 0 if no layer is under --min-snr, 1 if one is (or a trace file was "
                                   "unusable, or nothing could be compared), 2 for usage.")
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
    c.add_argument("--subgraph", type=int, metavar="N", help="the traces' subgraph, when the folder holds several")
    c.add_argument("--core", type=int, metavar="N", help="the C7X_<n>_ core, when the folder holds several")
    c.add_argument("--min-snr", type=float, default=None, metavar="DB",
                   help="a layer whose SNR or any channel's SNR is under DB is bad (default 20)")
    c.add_argument("--json", action="store_true", help="machine-readable report")
    c.add_argument("--html", metavar="REPORT_HTML", help="also write a self-contained HTML report (atomically)")
    c.set_defaults(run=_guarded(cmd_compare))


def _guarded(run: Any) -> Any:
    """A command whose file errors (missing, unreadable, not an array) end in one line on
    stderr and exit 1, not a traceback."""

    def guarded(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
        try:
            return int(run(args, out, err))
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            print(f"tidl-io {args.command}: error: {where}{exc.strerror or exc}", file=err)
        except ValueError as exc:  # np.load of a file that is no array, a model the runtime refuses
            print(f"tidl-io {args.command}: error: {exc}", file=err)
        return EXIT_BAD

    return guarded


def cmd_golden(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .golden import load_model_inputs, run_golden, save_golden

    notes: list[str] = []
    feeds = load_model_inputs(args.model, args.input, params=args.params, notes=notes)
    run = run_golden(args.model, feeds)
    run.notes[:0] = notes
    save_golden(args.output, run)
    for n in run.notes:
        print(f"note: {n}", file=out)
    print(f"{len(run.tensors)} tensor(s) of {Path(args.model).name} ({run.layout}) written to {args.output}", file=out)
    return EXIT_OK


def _usage(err: TextIO, message: str) -> int:
    print(f"tidl-io compare: error: {message}", file=err)
    return EXIT_USAGE


def _golden_source(args: argparse.Namespace, feeds_from: Any = None) -> tuple[Any, str]:
    """(mapping name -> array, description) of --golden."""
    from .golden import load_model_inputs, read_meta, run_golden
    from .npz import NpzArrays

    g = Path(args.golden)
    if g.suffix.lower() in _MODELS:
        feeds = feeds_from if feeds_from is not None else load_model_inputs(g, args.input, params=args.params)
        run = run_golden(g, feeds)
        return run.tensors, f"golden run of {g.name} ({run.layout}, in memory)"
    z = NpzArrays(g)
    meta = read_meta(z)
    what = f" of {meta['model']} ({meta.get('layout')})" if meta.get("model") else ""
    return z, f"{g.name}{what}"


def _net_for(args: argparse.Namespace) -> Any:
    from .. import load_net
    from .._errors import FormatError
    from ..artifacts import find_artifacts
    from .names import parse_trace_name

    arts = find_artifacts(args.artifacts)
    nets = [n for n in arts.net_files if n is not None]
    if not nets:
        raise FormatError(str(args.artifacts), "no *_tidl_net.bin beside the io files: traces need the net")
    if len(arts.net_files) == 1:
        return load_net(nets[0])
    sg = args.subgraph
    if sg is None and Path(args.traces).is_dir():
        seen = {t.subgraph for t in (parse_trace_name(p.name) for p in Path(args.traces).iterdir()) if t is not None}
        if len(seen) == 1:
            sg = seen.pop()
    if sg is None or not 0 <= sg < len(arts.net_files) or arts.net_files[sg] is None:
        raise FormatError(str(args.artifacts), f"{len(arts.net_files)} subgraphs ({', '.join(arts.subgraph_names)}): "
                          "say which one the traces are of with --subgraph N (0 = the first)")
    return load_net(arts.net_files[sg])


def cmd_compare(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .compare import DEFAULT_MIN_SNR_DB

    min_snr = DEFAULT_MIN_SNR_DB if args.min_snr is None else args.min_snr
    if args.calibration is not None:
        if args.traces is not None or args.ref is not None:
            return _usage(err, "--calibration compares the calibration dumps: no TRACES and no --ref")
        if args.golden is None:
            return _usage(err, "--calibration needs --golden (an .npz of output frames, or the model)")
        report = _calibration_report(args, min_snr)
    else:
        if args.traces is None or args.artifacts is None:
            return _usage(err, "give TRACES and --artifacts ART (or --calibration ART)")
        if args.golden is None and args.ref is None:
            return _usage(err, "give a reference: --golden golden.npz, --golden MODEL --input X, or --ref TRACES2")
        if args.golden is not None and Path(args.golden).suffix.lower() in _MODELS and not args.input:
            return _usage(err, "--golden MODEL needs --input X")
        report = _traces_report(args, min_snr)
    return _emit(report, args, out, err)


def _traces_report(args: argparse.Namespace, min_snr: float) -> Any:
    from .compare import compare_traces, golden_lookup, traces_lookup
    from .load import load_traces

    net = _net_for(args)
    traces = load_traces(args.traces, net, subgraph=args.subgraph, core=args.core)
    if args.ref is not None:
        ref = load_traces(args.ref, net, subgraph=args.subgraph, core=args.core)
        lookup = traces_lookup(ref, f"traces in {args.ref}")
    else:
        tensors, describe = _golden_source(args)
        lookup = golden_lookup(tensors, describe, args.golden_layout)
    return compare_traces(traces, lookup, min_snr_db=min_snr, test=f"traces in {args.traces} (net {Path(net.source).name})",
                          histograms=args.html is not None)


def _calibration_report(args: argparse.Namespace, min_snr: float) -> Any:
    import numpy as np

    from .calibration import load_calibration
    from .compare import calibration_golden, compare_calibration, orient
    from .golden import model_inputs, run_golden

    calib = load_calibration(args.calibration, None)
    g = Path(args.golden)
    if g.suffix.lower() not in _MODELS:
        tensors, describe = _golden_source(args)
        ref = calibration_golden(tensors, len(calib.outputs), args.golden_layout)
        return compare_calibration(calib, ref, min_snr_db=min_snr, describe=describe, histograms=args.html is not None)
    ins = {i.name: i for i in model_inputs(g)}
    runs: dict[int, Any] = {}

    def reference(frame: int, name: str, shape: tuple[int, ...]) -> tuple[Any, str]:
        if frame not in runs:
            runs.clear()
            feeds = {}
            for k, v in calib.inputs[frame].items():
                want = ins[k].shape if k in ins else v.shape
                feeds[k] = v if v.shape == tuple(want) else np.ascontiguousarray(v.transpose(0, 2, 3, 1))
            runs[frame] = run_golden(g, feeds).tensors
        tensors = runs[frame]
        if name not in tensors:
            return None, f"no reference: {g.name} has no tensor named {name!r}"
        return orient(np.asarray(tensors[name]), shape, args.golden_layout)

    return compare_calibration(calib, reference, min_snr_db=min_snr, describe=f"{g.name} run on the calibration inputs",
                               histograms=args.html is not None)


def _emit(report: Any, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .._atomic import write_bytes_atomic
    from .._format import dumps_json
    from .report import format_report, render_html, report_to_dict

    if args.json:
        out.write(dumps_json(report_to_dict(report)) + "\n")
    else:
        out.write(format_report(report) + "\n")
    if args.html:
        write_bytes_atomic(args.html, render_html(report).encode("utf-8"))
    if not report.compared:
        print("tidl-io compare: error: no layer could be compared (see the rows' notes)", file=err)
        return EXIT_BAD
    return EXIT_BAD if report.first_bad is not None or report.warnings else EXIT_OK
