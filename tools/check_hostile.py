"""Measure each hostile input of issue 24 through the library and the CLI: peak Python memory
(tracemalloc), CPU time, and what the user sees. Exit 1 if any input raises something other
than a ``TidlIoError`` (or makes the CLI print a traceback) or exceeds 200 MB or 2 s.

    python tools/check_hostile.py            # a table, one row per input

Inputs are made in a temporary folder: a ``layer_info.txt`` with ``²`` digits, a 4 300-digit
id, 25 MB of lines; ``param.yaml`` with 5 000 nested brackets, a 342-byte alias bomb, 17 MB;
``--explain`` with 5 000 digits and ``-1``; a 300-byte name and a path over PATH_MAX; the
8.2 DeepLab net cut to 3 000 000 bytes (when ``../shared/realdata`` is there); and issue 32's
hostile numbers, graphvizInfo.txt files, names and prototxt values (:func:`_numbers`) and advise's
inputs of item 13: a 256 MiB compare report, one of 2 000 000 objects, a golden .npz member claiming
20 000 frames and 2 000 wrongly named members (:func:`_advise_inputs`).
"""

from __future__ import annotations

import io
import shutil
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

LIMIT_BYTES, LIMIT_S = 200 << 20, 2.0
BOMB = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{k}: &{k} [{', '.join([f'*{p}'] * 9)}]\n" for p, k in zip("abcdefgh", "bcdefghi"))


def _run(fn: Callable[[], Any]) -> tuple[str, bool]:
    import tidl_io

    try:
        value = fn()
        return f"ok: {str(value)[:90]}", True
    except tidl_io.TidlIoError as exc:
        return f"{type(exc).__name__}: {str(exc)[-90:]}", True
    except Exception as exc:  # noqa: BLE001 - what this tool looks for
        return f"UNEXPECTED {type(exc).__name__}: {str(exc)[:80]}", False


def _measure(fn: Callable[[], Any]) -> tuple[str, float, int, bool]:
    """(what happened, CPU seconds, peak bytes, acceptable): the CPU time of a run without
    tracemalloc (whose hook on every allocation slows allocation-heavy code 5-10 times), then
    the peak of a second run under it."""
    start = time.process_time()
    what, ok = _run(fn)
    spent = time.process_time() - start
    if spent < 4 * LIMIT_S:  # (one over the limit is reported as is, not measured twice)
        tracemalloc.start()
        _run(fn)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    else:
        peak = 0
    return what, spent, peak, ok and spent < LIMIT_S and peak < LIMIT_BYTES


def _cli(*argv: str) -> str:
    from tidl_io.cli.app import main

    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    text = out.getvalue() + err.getvalue()
    if "Traceback" in text:
        raise RuntimeError("the CLI printed a traceback")
    last = [line for line in text.splitlines() if line.startswith(("error", "tidl-io"))] or text.splitlines()[-1:]
    return f"exit {code}: {last[0][-80:] if last else ''}"


def _inputs(tmp: Path) -> list[tuple[str, Callable[[], Any]]]:
    import tidl_io
    from tidl_io.artifacts.folder import load_param_yaml
    from tidl_io.doctor.checks import parse_explain

    examples = Path(tidl_io.__file__).resolve().parent / "examples"
    out: list[tuple[str, Callable[[], Any]]] = []

    def net_with_info(name: str, text: str) -> Path:
        folder = tmp / name
        folder.mkdir()
        shutil.copy(examples / "detector_tidl_net.bin", folder)
        (folder / "detector_tidl_net.bin.layer_info.txt").write_text(text)
        return folder

    for label, text in (("layer_info '²' line", "0 0 a\n\u00b21 1 b\n"),
                        ("layer_info 4300-digit id", "9" * 4300 + " 0 x\n")):
        folder = net_with_info(label.split()[1].strip("'"), text)
        out.append((f"{label}: load_net", lambda f=folder: tidl_io.load_net(f / "detector_tidl_net.bin")
                    .layer_info_error))
        out.append((f"{label}: inspect", lambda f=folder: _cli("inspect", str(f / "detector_tidl_net.bin"))))
    big = net_with_info("big", "")
    with open(big / "detector_tidl_net.bin.layer_info.txt", "w") as fh:
        line = "1 1 " + "x" * 250 + "\n"
        fh.write(line * (25_000_000 // len(line)))
    out.append(("layer_info 25 MB: load_net", lambda: tidl_io.load_net(big / "detector_tidl_net.bin")
                .layer_info_error))
    for label, text in (("param.yaml 5000 brackets", "[" * 5000 + "]" * 5000), ("param.yaml alias bomb", BOMB),
                        ("param.yaml 17 MB", "k: " + "x" * 17_000_000)):
        folder = tmp / label.replace(" ", "_")
        shutil.copytree(examples, folder)
        (folder / "param.yaml").write_text(text)
        out.append((f"{label}: load_param_yaml", lambda f=folder: load_param_yaml(f / "param.yaml")))
        out.append((f"{label}: doctor", lambda f=folder: _cli("doctor", "--no-library", str(f))))
    for text in ("Tensor " + "9" * 5000, "Tensor -1"):
        out.append((f"--explain {text[:12]!r}: parse_explain", lambda t=text: parse_explain(t)))
        out.append((f"--explain {text[:12]!r}: doctor", lambda t=text: _cli("doctor", "--explain", t, str(examples))))
    long_name, deep = tmp / ("a" * 300), tmp / "/".join(["b" * 200] * 25)
    net = tidl_io.load_net(examples / "detector_tidl_net.bin")
    for label, path in (("300-byte name", long_name), ("path over PATH_MAX", deep)):
        out.append((f"{label}: diagnose", lambda p=path: tidl_io.diagnose(p, check_library=False)))  # raises PathError
        out.append((f"{label}: doctor", lambda p=path: _cli("doctor", "--no-library", str(p))))
        out.append((f"{label}: inspect", lambda p=path: _cli("inspect", str(p))))
        out.append((f"{label}: load_traces", lambda p=path: tidl_io.load_traces(p, net)))
        out.append((f"{label}: load_calibration", lambda p=path: tidl_io.load_calibration(p)))
    deeplab = ROOT.parent / "shared" / "realdata" / "net" / "bbai64-deeplabv3-mnv2-8.2"
    if (deeplab / "201_tidl_net.bin").is_file():
        cut = tmp / "cut"
        cut.mkdir()
        shutil.copy(deeplab / "201_tidl_io_1.bin", cut)
        (cut / "201_tidl_net.bin").write_bytes((deeplab / "201_tidl_net.bin").read_bytes()[:3000000])
        out.append(("8.2 net cut to 3000000: doctor", lambda: _cli("doctor", "--no-library", str(cut))))
    out += _numbers(tmp, examples)
    return out + _advise_inputs(tmp)


def _numbers(tmp: Path, examples: Path) -> list[tuple[str, Callable[[], Any]]]:
    """Issue 32 items 9-11 and 14: numbers no reader may convert as they stand (1e999999999,
    5000 digits, '²'), graphvizInfo.txt lines and node counts, long names, repeated prototxt
    values. The perf and quant inputs are mutations of od-8220's real compile (when
    ``../shared/realdata`` is there); the others are made here."""
    import re

    from tidl_io.advisor.source import read_compare
    from tidl_io.precision import load_quant_params
    from tidl_io.support import load_support

    out: list[tuple[str, Callable[[], Any]]] = []
    od = ROOT.parent / "shared" / "realdata" / "net" / "od-8220-yolox-10.0"
    digits = "9" * 5000

    def model(name: str, edit: Callable[[Path], None]) -> Path:
        folder = tmp / name
        shutil.copytree(od, folder)
        for f in folder.rglob("*"):
            f.chmod(0o755 if f.is_dir() else 0o644)
        edit(folder)
        return folder

    def sub(pattern: str, new: str, glob: str) -> Callable[[Path], None]:
        def edit(folder: Path) -> None:
            f = next(folder.rglob(glob))
            f.write_text(re.sub(pattern, lambda m: m.group(1) + new, f.read_text(), count=1))
        return edit

    if od.is_dir():
        for label, pattern, new, glob in (
                ("perf CSV total 1e999999999", r"(?i)(total network time \(us\)\s*=\s*)\S+", "1e999999999", "tempDir_*.csv"),
                ("perf CSV CPUFREQ_MHZ 1e999999999", r"(CPUFREQ_MHZ\s*=\s*)\S+", "1e999999999", "tempDir_*.csv"),
                ("perf CSV 5000-digit cycles", r"(\n(?:[^,\n]*,){19})[^,\n]*", digits, "tempDir_*.csv"),
                ("netLog GMACs 1e999999999", r"(Total Giga Macs\s*:\s*)\S+", "1e999999999", "*netLog.txt"),
                ("graphvizInfo 5000-digit index", r"(\n)0 ", digits + " ", "graphvizInfo.txt"),
                ("paramDebug histogram '²'", r"(\n[^\n]*,)(\d+)(?=,?\s*\n)", "\u00b2", "*paramDebug.csv")):
            folder = model(label.split()[0] + str(len(out)), sub(pattern, new, glob))
            command = {"perf": "perf", "netLog": "perf", "graphvizInfo": "why", "paramDebug": "quant"}[label.split()[0]]
            out.append((f"{label}: {command}", lambda f=folder, c=command: _cli(c, str(f))))
        big = model("many_values", lambda f: None)
        (big / "model" / "model_qparams.prototxt").write_text(
            "layers {\n  outputs {\n" + "    value: 0.5\n" * 1_000_000 + "  }\n}\n")
        out.append(("prototxt 10^6 repeated values: load_quant_params",
                    lambda: load_quant_params(big / "model" / "model_qparams.prototxt")))
        out.append(("prototxt 10^6 repeated values: quant", lambda: _cli("quant", str(big))))
        limit = model("max_subgraphs", lambda f: (f / "param.yaml").write_text(
            (f / "param.yaml").read_text().replace("runtime_options:", "runtime_options:\n    max_num_subgraphs: "
                                                   + digits, 1)))
        out.append(("param.yaml max_num_subgraphs 5000 digits: why", lambda: _cli("why", str(limit))))
        out.append(("why --node 5000 digits", lambda: _cli("why", str(od), "--node", digits)))
        out.append(("why --node 500000-character name", lambda: _cli("why", str(od), "--node", "\u4e00" * 500_000)))

    gv = tmp / "graphviz"
    (gv / "tempDir").mkdir(parents=True)
    line = "0 " + "x outputAdjNodes " * 20_000 + "\n"  # 340 KB: the old pattern backtracked > 15 s
    for label, text in (("graphvizInfo 340 KB line", "1\n" + line), ("graphvizInfo 10^6 nodes", f"{10**6}\n"),
                        ("graphvizInfo 32 768-node cycle (the cap)", "32768\n" + "".join(
                            f"{i} n{i} Relu outputAdjNodes 1 {(i + 1) % 32768} inputAdjNodes 1 {(i - 1) % 32768} "
                            "diagInfo\n" for i in range(32768))), ("graphvizInfo 32 769 nodes", "32769\n")):
        folder = gv / str(len(out))
        (folder / "tempDir").mkdir(parents=True)
        (folder / "tempDir" / "graphvizInfo.txt").write_text(text)
        out.append((f"{label}: load_support", lambda f=folder: load_support(f)))
        out.append((f"{label}: why --json", lambda f=folder: _cli("why", "--json", str(f))))
    report = tmp / "compare.json"
    report.write_text('{"layers": [{"index": 0, "status": "compared", "snr_db": ' + digits + "}]}")
    out.append(("compare report 5000-digit number: read_compare", lambda: read_compare(report)))
    out.append(("compare report 5000-digit number: advise", lambda: _cli("advise", str(examples), "--compare",
                                                                         str(report))))
    names = tmp / "names"
    shutil.copytree(examples, names)
    text = (names / "param.yaml").read_text().replace(
        "session:\n", "session:\n  runtime_options:\n    advanced_options:output_feature_16bit_names_list: "
                      + "backbone_conv_" * 35_715 + ", images\n", 1)
    (names / "param.yaml").write_text(text)
    out.append(("16-bit name of 500 000 characters: doctor", lambda: _cli("doctor", "--no-library", str(names))))
    return out


def _advise_inputs(tmp: Path) -> list[tuple[str, Callable[[], Any]]]:
    """Issue 32 item 13: advise's compare report and golden .npz, bounded before they are read."""
    import zipfile

    import numpy as np

    import tidl_io
    from tidl_io.emulator.result import trace_name

    examples = ROOT / "tidl_io" / "examples"
    out: list[tuple[str, Callable[[], Any]]] = []
    big = tmp / "big.json"
    with open(big, "wb") as fh:
        fh.truncate(256 << 20)  # sparse
    many = tmp / "many.json"
    many.write_text('{"layers": [' + ",".join(["{}"] * 2_000_000) + "]}")
    for label, report in (("256 MiB compare report", big), ("2 000 000-object compare report", many)):
        out.append((f"{label}: advise", lambda r=report: tidl_io.advise(examples, compare=r)))
        out.append((f"{label}: advise CLI", lambda r=report: _cli("advise", str(examples), "--compare", str(r),
                                                                  "--json")))
    traces = tmp / "traces"
    traces.mkdir()
    net = tidl_io.load_net(examples / "detector_tidl_net.bin")
    layer = net.layer_by_data_id(2)
    np.zeros(layer.shape, layer.dtype).tofile(traces / trace_name(0, layer, "y"))
    frames = tmp / "frames.npz"  # a member named as the layer, claiming 20 000 frames, inflated from 17 KB
    with zipfile.ZipFile(frames, "w", zipfile.ZIP_DEFLATED) as z, z.open(f"{layer.name}.npy", "w") as fh:
        np.lib.format.write_array_header_1_0(fh, {"descr": "<f4", "fortran_order": False, "shape": (20000, 3, 8, 8)})
        fh.write(bytes(4 * 20000 * 3 * 8 * 8))
    names = tmp / "names.npz"  # 2 000 members, none named as a layer
    with zipfile.ZipFile(names, "w", zipfile.ZIP_DEFLATED) as z:
        for k in range(2000):
            with z.open(f"wrong{k}.npy", "w") as fh:
                np.lib.format.write_array(fh, np.zeros((1, 16, 48, 80), np.float32))
    for label, golden in (("golden member of 20 000 frames", frames), ("2 000 wrongly named golden members", names)):
        out.append((f"{label}: advise CLI", lambda g=golden: _cli("advise", str(examples), "--traces", str(traces),
                                                                  "--golden-npz", str(g), "--json")))
    return out


def main() -> int:
    bad = 0
    with tempfile.TemporaryDirectory(prefix="tidl-io-hostile-") as name:
        rows = [(label, *_measure(fn)) for label, fn in _inputs(Path(name))]
    width = max(len(r[0]) for r in rows)
    print(f"{'input':<{width}}  {'CPU s':>6}  {'peak MB':>8}  result")
    for label, what, spent, peak, ok in rows:
        bad += not ok
        print(f"{label:<{width}}  {spent:6.3f}  {peak / 1e6:8.2f}  {'' if ok else '!! '}{what}")
    print(f"{len(rows)} inputs, {bad} over {LIMIT_BYTES >> 20} MB / {LIMIT_S} s or not a TidlIoError")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
