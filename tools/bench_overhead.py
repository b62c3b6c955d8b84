"""Per-call overhead of the public buffer calls on a tiny tensor (argument checks included).

    python tools/bench_overhead.py [--repeat N]

A 1x3x4x4 uint8 input and output: the data work is negligible, so the time is what every
call pays before touching data (type checks, the cached plan, layout parsing). Printed as
the median of ``--repeat`` rounds of 2000 calls each, divided by the median time of
``np.copyto`` of a 48-byte array measured in the same rounds (a NumPy call's floor).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np

from tidl_io import make_descriptor
from tidl_io import native as _native
from tidl_io.data.buffers import alloc_input, alloc_output, pack, unpack, view
from tidl_io.data.details import get_input_details
from tidl_io.data.quant import quantize
from tidl_io.runtime.info import cpu_description

CALLS = 2000


def per_call(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    for _ in range(CALLS):
        fn()
    return (time.perf_counter() - t0) / CALLS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15, help="rounds per case (default 15)")
    args = parser.parse_args(argv)
    geometry = {"num_batches": 1, "dim1": 1, "dim2": 1, "num_channels": 3, "height": 4, "width": 4, "channel_pitch": 16,
                "element_type": 0, "scale": 2.0, "buf_size": 64}
    desc = make_descriptor("10.x", inputs=[{"name_bytes": "x", **geometry}],
                           outputs=[{"name_bytes": "y", **geometry}])
    t_in, t_out = desc.input(0), desc.output(0)
    ibuf, obuf = alloc_input(desc, 0), alloc_output(desc, 0)
    x = np.ones((1, 3, 4, 4), np.float32)
    x_hwc = np.ones((4, 4, 3), np.float32)
    out = np.empty((1, 3, 4, 4), np.float32)
    src, dst = np.ones(48, np.uint8), np.empty(48, np.uint8)
    cases: dict[str, Callable[[], Any]] = {
        "pack f32 NCHW, out=": lambda: pack(t_in, x, ibuf),
        "pack f32 HWC, out=": lambda: pack(t_in, x_hwc, ibuf, layout="HWC"),
        "unpack -> f32, out=": lambda: unpack(t_out, obuf, out=out),
        "unpack codes view": lambda: unpack(t_out, obuf, dequantize=False),
        "view": lambda: view(t_in, ibuf),
        "quantize": lambda: quantize(t_in, x),
        "get_input_details": lambda: get_input_details(desc),
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    copies: list[float] = []
    for fn in (*cases.values(),):
        fn()
    for _ in range(args.repeat):
        copies.append(per_call(lambda: np.copyto(dst, src)))
        for name, fn in cases.items():
            times[name].append(per_call(fn))
    copy = statistics.median(copies)
    print(f"cpu: {cpu_description()}")
    print(f"numpy {np.__version__}, {args.repeat} rounds of {CALLS} calls; np.copyto of 48 bytes: "
          f"{copy * 1e6:.2f} us; native: {_native.info()['reason']}")
    print(f"{'call':<24} {'us per call':>11} {'ratio to copyto':>15}")
    for name, ts in times.items():
        t = statistics.median(ts)
        print(f"{name:<24} {t * 1e6:>11.2f} {t / copy:>15.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
