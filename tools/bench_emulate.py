"""Benchmark ``tidl_io.emulate``: time per frame on the TIDL 9.0 fcnn-cnn5 subgraph (four 3x3
convolutions, 238 M MACs per frame) and where the 82-layer 8.2 DeepLab stops.

    python tools/bench_emulate.py [--quick]

Prints the median time per frame of ``emulate`` (one frame, and three frames in one call)
against a baseline measured in the same run: the same four convolutions as bare float64
matrix products of NumPy (already-built columns), the floor of the NumPy path. Then the
time ``emulate`` takes to refuse the 8.2 DeepLab (its first layer it does not implement).
Needs ../shared/realdata; without it, the synthetic 9.0 net stands in.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_parse import median_time  # the same timing rule as the other benchmarks

import tidl_io

NET = ROOT.parent / "shared" / "realdata" / "net"
FCNN = NET / "edgeai-tidl-fcnn-cnn5-9.0"
NAME = "_cnn_cnn.5_relu_Relu_output_0"
DEEPLAB = NET / "bbai64-deeplabv3-mnv2-8.2" / "201_tidl_net.bin"


def _baseline(shapes: list[tuple[int, int, int]], rng: np.random.Generator) -> float:
    """Seconds of the bare products: (cout, cin*9) @ (cin*9, h*w) for each convolution."""
    mats = [(rng.integers(-128, 128, (co, ci * 9)).astype(np.float64),
             rng.integers(0, 255, (ci * 9, hw)).astype(np.float64)) for co, ci, hw in shapes]
    return median_time(lambda: [a @ b for a, b in mats], repeat=7)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else 7
    rng = np.random.default_rng(0)
    net: tidl_io.Network | bytes
    if FCNN.is_dir():
        net = tidl_io.load_net(FCNN / f"{NAME}_tidl_net.bin")
        frames = np.fromfile(FCNN / "tempDir" / f"{NAME}_calib_raw_data.bin", np.float32).reshape(3, 1, 32, 100)
        label = "fcnn-cnn5 9.0"
    else:
        from tidl_io.emulator._fixture import tiny_net

        net, _ = tiny_net(0)
        frames = rng.normal(0, 1, (3, 2, 8, 12)).astype(np.float32)
        label = "synthetic 9.0 (no realdata)"
    tidl_io.emulate(net, frames[:1])  # warm: imports, first allocations
    one = median_time(lambda: tidl_io.emulate(net, frames[:1]), repeat=repeat)
    three = median_time(lambda: tidl_io.emulate(net, frames), repeat=repeat) / 3
    convs = [(64, 1, 3200), (128, 64, 800), (256, 128, 200), (256, 256, 200)]
    base = _baseline(convs, rng) if FCNN.is_dir() else float("nan")
    print(f"{label}: emulate {1000 * one:.1f} ms per frame (1 frame a call), {1000 * three:.1f} ms per frame "
          f"(3 a call)")
    if FCNN.is_dir():
        print(f"  baseline: the four convolutions as bare float64 products {1000 * base:.1f} ms; "
              f"emulate / baseline = {one / base:.2f}")
    if DEEPLAB.is_file():
        x = np.zeros((1, 3, 512, 512), np.uint8)

        def refuse() -> None:
            try:
                tidl_io.emulate(DEEPLAB, x)
            except tidl_io.UnsupportedLayerError:
                return
            raise AssertionError("the 8.2 DeepLab ran")

        try:
            tidl_io.emulate(DEEPLAB, x)
        except tidl_io.UnsupportedLayerError as exc:
            print(f"82-layer 8.2 DeepLab: stops in {1000 * median_time(refuse, repeat=repeat):.1f} ms: {exc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
