"""Run a compiled model N times and time each stage: what ``tidl-io run`` prints.

>>> result = run_model("artifacts/", repeat=20)              # doctest: +SKIP
>>> print(format_run(result))                                 # doctest: +SKIP

Stages per run (summed over subgraphs): ``pack`` (preprocess, quantize and write the padded
input buffers), ``copy-in`` / ``copy-out`` (the runtime's copies and conversions: TIDL-RT's
PerfStats, or the mock's), ``device`` (the accelerator's work), ``runtime`` (the runtime's
own overhead: checks, structs, bookkeeping), ``unpack`` (read and dequantize the outputs).
Inputs not given are random values over each input's representable range.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..base.check import check_int
from ..base.errors import OptionError, TidlRtError
from ..data.arrays import check_no_nan, load_npy
from ..data.quant import qparams
from ..iodesc.descriptor import Tensor
from ..runtime.models import model_shape
from ..runtime.protocol import InvokeReport

__all__ = ["STAGES", "RunResult", "format_run", "load_inputs", "random_input", "run_model", "run_to_dict"]

STAGES = ("pack", "copy-in", "device", "copy-out", "runtime", "unpack")


@dataclass
class RunResult:
    """Timings (seconds per stage per run), transfer paths and an output summary."""

    path: str
    runtime: str
    repeat: int
    notes: list[str]
    stages: dict[str, list[float]]
    transfers: list[dict[str, Any]]
    outputs: dict[str, dict[str, Any]]
    generated: list[str] = field(default_factory=list)

    def stats(self, stage: str) -> tuple[float, float, float]:
        v = self.stages[stage]
        return min(v), statistics.median(v), max(v)


def random_input(t: Tensor, rng: np.random.Generator, image: bool) -> np.ndarray:
    """Random real values of ``t``'s model shape over what its element type can carry
    (quantized: ``(min - zp) / scale .. (max - zp) / scale``; float: 0..255 for images, else -1..1)."""
    shape = model_shape(t)
    if t.dtype.kind == "f":
        lo, hi = (0.0, 255.0) if image else (-1.0, 1.0)
    else:
        qp = qparams(t)  # the one check of a quantized tensor's scale (a located GeometryError)
        lo, hi = sorted(((qp.lo - qp.zero_point) / qp.scale, (qp.hi - qp.zero_point) / qp.scale))
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def load_inputs(specs: list[str], names: tuple[str, ...]) -> dict[str, np.ndarray]:
    """``NAME=FILE.npy`` items (or one bare ``FILE.npy`` for a one-input model) -> arrays."""
    out: dict[str, np.ndarray] = {}
    for spec in specs:
        name, sep, file = spec.partition("=")
        if not sep:
            if len(names) != 1:
                raise OptionError(f"--input {spec!r}: this model has {len(names)} inputs "
                                  f"({', '.join(names)}); write NAME=FILE.npy")
            name, file = names[0], spec
        # the one bounded reader: PathError (missing, folder, FIFO), FormatError naming the file
        out[name] = check_no_nan(load_npy(file, f"a .npy array of numbers (--input {spec!r})"), f"{file} ({name})")
    return out


def _report_stages(rep: InvokeReport) -> dict[str, float]:
    if rep.perf is not None:
        cin, cout = rep.perf.copy_in_seconds, rep.perf.copy_out_seconds
    else:
        cin = sum(t.seconds for t in rep.transfers if t.kind == "input")
        cout = sum(t.seconds for t in rep.transfers if t.kind == "output")
    return {"copy-in": cin, "device": rep.device_seconds, "copy-out": cout, "runtime": rep.overhead_seconds}


def _first_create_apart(path: str | os.PathLike[str], runtime: str) -> tuple[str, list[str]]:
    """``runtime`` "auto" or "tidlrt" with TIDL-RT's first create tried in a child process
    first (:func:`~tidl_io.runtime.tidlrt.trial_create`): the runtime to use and notes.
    "auto" falls back to the mock, with the reason, when the trial fails; "tidlrt" raises."""
    from ..runtime.tidlrt import load_library, preflight, trial_create  # start-up
    from .session import find_artifacts  # start-up

    arts = find_artifacts(path)
    try:
        lib = load_library()  # dlopen and symbols only: TI's runtime starts in TIDLRT_create
    except TidlRtError:
        if runtime == "tidlrt":
            raise
        return runtime, []  # Session's "auto" says why it runs the mock
    if None in arts.net_files:
        return runtime, []  # Session names the missing net file ("auto": the mock)
    try:
        preflight(lib)  # in this process: no call into TI's library
        notes = trial_create(arts.io_files, arts.net_files)
    except TidlRtError as exc:
        if runtime == "tidlrt":
            raise
        return "mock", [f"runtime: the host mock ({exc})"]
    return "tidlrt", ([f"runtime: TIDL-RT ({lib.path}, {lib.how})"] if runtime == "auto" else []) + notes


def run_model(path: str | os.PathLike[str], *, runtime: Any = "auto", inputs: Mapping[str, Any] | None = None,
              repeat: int = 10, seed: int = 0, isolate: bool = False, **session_kw: Any) -> RunResult:
    """Open a :class:`~tidl_io.Session` on ``path``, run it ``repeat`` times with ``inputs``
    (missing ones random) and collect per-stage timings. The first run is a warm-up and is
    not timed. ``isolate`` (``tidl-io run``): with ``runtime`` "auto" or "tidlrt", TIDL-RT's
    first create runs in a child process first, so a crash inside TI's library becomes a
    :class:`~tidl_io.TidlRtError` naming the signal and the call ("auto": the mock, with
    that reason in ``notes``)."""
    from .session import Session  # start-up

    check_int(repeat, "run_model", "repeat", 1, "a whole number")
    rng = np.random.default_rng(seed)
    first: list[str] = []
    if isolate and runtime in ("auto", "tidlrt") and not session_kw.get("model"):
        runtime, first = _first_create_apart(path, runtime)
    with Session(path, runtime=runtime, **session_kw) as s:
        feeds = dict(inputs or {})
        image = s.params.input_mean is not None or s.params.task_type in ("classification", "detection",
                                                                           "segmentation")
        alias = {onnx: t.name for sg in s._subgraphs for onnx, t in zip(sg.onnx_inputs, sg.desc.inputs)}
        given = {alias.get(k, k) for k in feeds}
        generated = []
        for t in s.inputs:
            if t.name not in given:
                feeds[t.name] = random_input(t, rng, image)
                generated.append(t.name)
        s.run(feeds)  # warm-up: first-invoke setup is not what a loop costs
        stages: dict[str, list[float]] = {k: [] for k in STAGES}
        outs: dict[str, np.ndarray] = {}
        for _ in range(repeat):
            outs = s.run(feeds)
            per = {k: 0.0 for k in STAGES}
            per["pack"], per["unpack"] = s.last_stages["pack"], s.last_stages["unpack"]
            for rep in s.last_reports:
                for k, v in _report_stages(rep).items():
                    per[k] += v
            for k in STAGES:
                stages[k].append(per[k])
        transfers = [{"subgraph": sg_name, "tensor": t.name, "kind": t.kind, "path": t.path, "bytes": t.nbytes,
                      "reasons": list(t.reasons)}
                     for sg_name, rep in zip((sg.name for sg in s._subgraphs), s.last_reports) for t in rep.transfers]
        kind = type(s.runtimes[0]).__name__ if s.runtimes else "?"
        summary = {k: {"shape": list(v.shape), "dtype": str(v.dtype),
                       "min": float(np.nanmin(v)) if v.size else None, "max": float(np.nanmax(v)) if v.size else None,
                       "mean": float(np.nanmean(v)) if v.size else None} for k, v in outs.items()}
        return RunResult(str(path), kind, repeat, first + list(s.notes), stages, transfers, summary, generated)


def _ms(v: float) -> str:
    return f"{v * 1e3:9.3f}"


def format_run(r: RunResult) -> str:
    """The text ``tidl-io run`` prints."""
    lines = [f"{r.path}: {r.runtime}, {r.repeat} run(s) after one warm-up"]
    lines += [f"  note: {n}" for n in r.notes]
    if r.generated:
        lines.append(f"  random inputs for: {', '.join(r.generated)}")
    lines.append(f"  {'stage':<10} {'min ms':>9} {'median ms':>9} {'max ms':>9}")
    for k in STAGES:
        lo, med, hi = r.stats(k)
        lines.append(f"  {k:<10} {_ms(lo)} {_ms(med)} {_ms(hi)}")
    lines.append("  tensors:")
    for t in r.transfers:
        why = f" ({'; '.join(t['reasons'])})" if t["reasons"] else ""
        lines.append(f"    {t['kind']:<6} {t['tensor']!r}: {t['path']}{why}")
    lines.append("  outputs:")
    for name, o in r.outputs.items():
        lines.append(f"    {name!r}: {o['dtype']} {tuple(o['shape'])}, min {o['min']:.6g}, max {o['max']:.6g}, "
                     f"mean {o['mean']:.6g}" if o["min"] is not None else f"    {name!r}: empty")
    return "\n".join(lines)


def run_to_dict(r: RunResult) -> dict[str, Any]:
    """The JSON ``tidl-io run --json`` prints (seconds)."""
    return {"path": r.path, "runtime": r.runtime, "repeat": r.repeat, "notes": r.notes,
            "random_inputs": r.generated,
            "stages": {k: dict(zip(("min", "median", "max"), r.stats(k))) for k in STAGES},
            "tensors": r.transfers, "outputs": r.outputs}
