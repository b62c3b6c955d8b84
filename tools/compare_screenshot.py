"""Regenerate docs/compare_report.png: headless Chromium's rendering of the top of a
``tidl-io compare --html`` report (the README's "Which layer loses accuracy?").

The report is made the way the tests make theirs: a golden run of the real Zero-DCE model
(../shared/realdata) on a dark picture, its tensors quantized with the net's own scales and
written as TIDL ``.y`` traces, one channel of one layer set to zero.

    python tools/compare_screenshot.py            # rewrite the PNG (and keep the HTML with --keep DIR)

Needs the extra ``golden`` (onnxruntime, onnx, ai-edge-litert), ../shared/realdata and Debian's
``chromium``; uses the DevTools client of tests/headless.py (standard library).
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import tidl_io
from tidl_io.base.atomic import write_bytes_atomic
from tidl_io.cli.app import main as cli_main
from tidl_io.trace.golden import run_golden, save_golden

from headless import Browser, find_chromium, png_pixels

DEST = ROOT / "docs" / "compare_report.png"
MODEL = ROOT.parent / "shared" / "realdata" / "net" / "real-time-llve-zero-dce-10.0"
SPOILED, CHANNEL = 9, 5


def make_case(work: Path) -> tuple[Path, Path]:
    """(traces folder, golden.npz) of the Zero-DCE case."""
    art = MODEL / "artifacts"
    net = tidl_io.load_net(art / "74_tidl_net.bin")
    x = (np.random.default_rng(17).random((1, 400, 600, 3)) * 0.1).astype(np.float32)
    run = run_golden(MODEL / "model" / "zero_dce_model.tflite", {"serving_default_args_0:0": x})
    save_golden(work / "golden.npz", run)
    traces = work / "traces"
    traces.mkdir()
    for layer in net.layers:
        if layer.num_out <= 0 or layer.name not in run.tensors or layer.data_id > 20:
            continue
        ref = run.tensors[layer.name].transpose(0, 3, 1, 2)
        if layer.dtype.kind == "f":
            codes = ref.astype(layer.dtype)
        else:
            info = np.iinfo(layer.dtype)
            codes = np.clip(np.round(ref * layer.scale) + layer.zero_point, info.min, info.max).astype(layer.dtype)
        if layer.data_id == SPOILED:
            codes[:, CHANNEL] = layer.zero_point
        n, c, h, w = layer.shape
        if layer.layout == "NHWC":  # a dense trace is the buffer in its own order (tidl_io.trace.load)
            codes = codes.transpose(0, 2, 3, 1)
        codes.tofile(traces / f"tidl_trace_subgraph_0_{layer.data_id:04d}_{n:04d}_0001_00001_{c:05d}_{w:06d}x{h:05d}.y")
    return traces, work / "golden.npz"


def render(keep: Path | None) -> bytes:
    exe = find_chromium()
    if exe is None:
        raise SystemExit("chromium not found (apt-get install -y chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        work = keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        traces, golden = make_case(work)
        page = work / "report.html"
        err = io.StringIO()
        here = os.getcwd()
        os.chdir(work)  # the page shows the paths it was given: relative ones, no machine's folders
        try:
            rc = cli_main(["compare", traces.name, "--artifacts", str(MODEL / "artifacts"), "--golden", golden.name,
                           "--min-snr", "10", "--html", page.name], out=io.StringIO(), err=err)
        finally:
            os.chdir(here)
        if rc not in (0, 1):
            raise SystemExit(err.getvalue())
        with Browser(exe, width=1000, height=1600) as b:
            b.load(page)
            height = b.evaluate("(() => { const t = document.querySelector('table').getBoundingClientRect();"
                                " return Math.min(t.top + scrollY + 260, 1600); })()")
            return b.screenshot(clip={"x": 0, "y": 0, "width": 1000, "height": height}, fast=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, metavar="DIR", help="keep the traces, golden.npz and report.html there")
    args = parser.parse_args()
    png = render(args.keep)
    DEST.parent.mkdir(exist_ok=True)
    write_bytes_atomic(DEST, png)
    width, height, _ = png_pixels(png)
    print(f"wrote {DEST.relative_to(ROOT)}: {width}x{height}, {len(png)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
