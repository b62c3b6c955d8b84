"""The ``tidl-io advise`` command: arguments to :func:`tidl_io.advise`, its advice to the
terminal. Registered by :mod:`tidl_io.cli.app`.

Exit codes like ``diff``: 0 the advice (whatever it says); 2 when it cannot be given (usage,
an unreadable, malformed or mismatched input), with one located line on stderr and no
traceback.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ..base.atomic import write_bytes_atomic, write_failure
from ..base.errors import OptionError
from ..base.numtext import NumberError, read_float
from ..iodesc.format import dumps_json
from .codes import EXIT_OK, one_line_failures, output_path, report_failure, top

_DESCRIPTION = (
    "Rank the layers of a compiled model where 16 bits would buy the most accuracy per microsecond, and print a "
    "ready 'advanced_options:output_feature_16bit_names_list' line of names TIDL accepts (layer_info.txt), with "
    "the expected gain and cost. Measurements: a saved 'tidl-io compare --json' report (--compare), or TIDL "
    "traces (--traces) compared here with a golden run (--golden MODEL --input X, or --golden-npz). Time: TI's "
    "performance simulation in ART (tidl-io perf), when it is there. "
    "MODEL: a layer's relative noise is n = 10^(-SNR/10); it adds max(0, n - n_in) over its nearest compared "
    "producers; its own 8-bit step (1/tensorScale) adds uniform rounding noise step^2/12, a share "
    "(step / (4 mean|error|))^2 of its error power; 16 bits spans the range with 256x the codes, dividing every "
    "quantization noise of the layer (output and weights) by 65536, so it removes g = min(n, max(added, share * n)). "
    "COST: the simulated layer time x (max(4 kernel, 2 core loop) + setup + 2 DMA cycles) / cycles: the C7x MMA "
    "does a quarter of the MACs per cycle at 16 bits (od-8220's 16-bit simulation reaches at most 233 of 256 "
    "16-bit MACs per kernel cycle where 1024 8-bit ones are the peak) and every byte moved is two; --factor F "
    "replaces this by a flat F. Layers are ranked by g per extra microsecond and picked in that order while they "
    "fit --budget-ms. This is advice from a first-order model, never a measurement: recompile with the line and "
    "run 'tidl-io compare' again. Exit 0 the advice, 2 could not.")



def _top(text: str) -> int:
    """``--top N`` as every command reads it (0: all), kept as 0 here: the advisor's default
    (10 without a budget) is what an absent ``--top`` means."""
    return top(text) or 0

def _number(minimum: float) -> Any:
    def parse(text: str) -> float:
        try:
            return read_float(text, minimum=minimum)
        except NumberError as exc:
            raise argparse.ArgumentTypeError(exc.detail) from None

    return parse


def _subgraph(text: str) -> int | str:
    return int(text) if text.isascii() and text.isdigit() and len(text) < 10 else text


def add_commands(sub: Any) -> None:
    p = sub.add_parser("advise", help="which layers to put in 16 bits: accuracy per microsecond, a ready 16-bit list",
                       description=_DESCRIPTION)
    p.add_argument("artifacts", metavar="ART", help="the model's artifacts folder (net, layer_info.txt, tempDir/)")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--compare", metavar="REPORT_JSON", help="a saved 'tidl-io compare --json' report of ART")
    src.add_argument("--traces", metavar="DIR", help="TIDL's layer traces of ART, compared here with the golden run")
    gold = p.add_mutually_exclusive_group()
    gold.add_argument("--golden", metavar="MODEL_OR_NPZ", help="with --traces: the .onnx/.tflite (with --input) or a "
                                                               "golden .npz")
    gold.add_argument("--golden-npz", metavar="NPZ", help="with --traces: a golden .npz (tidl-io golden)")
    p.add_argument("--input", action="append", default=[], metavar="[NAME=]X", help="input(s) for --golden MODEL")
    p.add_argument("--params", metavar="PARAM_YAML", help="param.yaml for picture inputs")
    p.add_argument("--golden-layout", choices=("NCHW", "NHWC"), help="settle golden arrays whose shape reads both ways")
    p.add_argument("--subgraph", type=_subgraph, metavar="N|NAME", help="the subgraph, when ART has several")
    p.add_argument("--budget-ms", type=_number(0.0), metavar="X", help="pick layers while their extra time sums to at "
                                                                       "most X ms (needs the simulation)")
    p.add_argument("--top", type=_top, metavar="N",
                   help="pick at most N layers (default 10 without a budget; 0: no limit)")
    p.add_argument("--factor", type=_number(1.0), metavar="F", help="time at 16 bits = F x the simulated time, for "
                                                                    "every layer (instead of the cycle model)")
    p.add_argument("--no-perf", action="store_true", help="ignore the performance simulation (rank by gain alone)")
    p.add_argument("--json", action="store_true", help="machine-readable advice")
    p.add_argument("--html", metavar="FILE", type=output_path, help="also write the advice as one self-contained HTML page (atomically)")
    p.set_defaults(run=_run)


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """The advice; a failure is one line on stderr, exit 2, and with --json also a JSON document
    naming what failed (``errors``, as ``inspect --json``), so stdout is never empty."""
    try:
        return one_line_failures("advise", _advise, args, out, err, as_json=args.json)
    except ValueError as exc:  # a model the runtime refuses
        return report_failure("advise", " ".join(str(exc).split())[:300], None, out, err, args.json)


def _advise(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..advisor import advise  # start-up
    from ..artifacts.folder import require_one_model  # start-up

    require_one_model(args.artifacts, "advise", net_file=True)  # a folder of model folders: say so
    golden = args.golden if args.golden is not None else args.golden_npz
    if args.compare is None and args.traces is None:
        raise OptionError("give the measurements: --compare REPORT_JSON, or --traces DIR with --golden/--golden-npz")
    if args.traces is not None and golden is None:
        raise OptionError("--traces needs --golden MODEL --input X, or --golden-npz NPZ")
    if args.compare is not None and (golden is not None or args.input):
        raise OptionError("--golden/--golden-npz/--input go with --traces, not with --compare")
    if args.golden_npz is not None and args.input:
        raise OptionError("--input goes with --golden MODEL, not with --golden-npz")
    advice = advise(args.artifacts, compare=args.compare, traces=args.traces, golden=golden, inputs=args.input,
                    params=args.params, golden_layout=args.golden_layout, subgraph=args.subgraph,
                    perf=False if args.no_perf else None, budget_ms=args.budget_ms, top=args.top, factor=args.factor)
    if args.html:  # before the advice: a page that cannot be written is one line and exit 2
        try:
            write_bytes_atomic(args.html, advice.to_html().encode("utf-8"))
        except OSError as exc:
            return report_failure("advise", write_failure(exc, args.html), args.html, out, err, args.json)
    out.write((dumps_json(advice.to_dict()) if args.json else advice.to_text()) + "\n")
    return EXIT_OK
