"""How long ``tidl-io compare`` takes against reading the trace bytes it compares.

Builds, in a temporary folder, the traces of every layer of the real Zero-DCE 10.0 net
(../shared/realdata; 400x600, up to 64 channels: 52 layers) from random codes in each layer's
element type, a second trace set with a few codes changed, and a golden ``.npz`` (float32,
NHWC as TFLite writes it). Then, best of --repeat runs, page cache warm:

- ``read``: ``np.fromfile`` of every test trace (the bytes compare must read at least);
- ``load``: every layer of the test traces as a float32 NCHW array (``load_traces``, read
  and dequantized), one after the other;
- ``read+ref``: the same plus the reference's bytes (second traces, or the golden file);
- ``compare``: :func:`tidl_io.trace.compare.compare_traces`, all layers, one at a time
  (read, dequantize, orient the reference, metrics), no output formatting and no histograms
  (those are for ``--html`` alone, which the command computes only then): ``.y`` traces
  against the second set and against the golden, and the same traces as ``_float.bin``
  (what TI's debug_level 4 also writes) against the golden.

    python tools/bench_compare.py [--layers N] [--repeat 3]

Target (issue 17): compare within 3x the time of reading the trace bytes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tidl_io
from tidl_io.trace.compare import compare_traces, golden_lookup, traces_lookup
from tidl_io.trace.load import load_traces
from tidl_io.trace.npz import NpzArrays

NET = ROOT.parent / "shared" / "realdata" / "net" / "real-time-llve-zero-dce-10.0" / "artifacts" / "74_tidl_net.bin"


def build(work: Path, layers: int) -> tuple[tidl_io.Network, Path, Path, Path, Path]:
    net = tidl_io.load_net(NET)
    rng = np.random.default_rng(0)
    test, ref, floats = work / "test", work / "ref", work / "float"
    test.mkdir()
    ref.mkdir()
    floats.mkdir()
    golden = {}
    done = 0
    for layer in net.layers:
        if layer.num_out <= 0 or layer.name is None or done >= layers:
            continue
        n, c, h, w = layer.shape
        name = f"tidl_trace_subgraph_0_{layer.data_id:04d}_{n:04d}_0001_00001_{c:05d}_{w:06d}x{h:05d}.y"
        if layer.dtype.kind == "f":
            q = rng.normal(size=layer.shape).astype(layer.dtype)
        else:
            info = np.iinfo(layer.dtype)
            q = rng.integers(info.min, info.max + 1, size=layer.shape, dtype=layer.dtype)
        order = (0, 2, 3, 1) if layer.layout == "NHWC" else (0, 1, 2, 3)  # a dense trace in the buffer's order
        q.transpose(order).tofile(ref / name)
        golden[layer.name] = np.ascontiguousarray(
            (q.astype(np.float32) / np.float32(layer.scale or 1)).transpose(0, 2, 3, 1))
        q.reshape(-1)[::97] = 0
        q.transpose(order).tofile(test / name)
        real = q.astype(np.float32) if layer.dtype.kind == "f" else \
            (q.astype(np.float32) - np.float32(layer.zero_point)) / np.float32(layer.scale)
        real.transpose(order).tofile(floats / name.replace(".y", "_float.bin"))
        done += 1
    np.savez(work / "golden.npz", **golden)
    return net, test, ref, floats, work / "golden.npz"


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=1000, help="at most this many layers (default: all)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not NET.is_file():
        print(f"needs ../shared/realdata ({NET.name} not found)")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        net, test, ref, floats, golden = build(Path(tmp), args.layers)
        files = sorted(test.iterdir())
        nbytes = sum(f.stat().st_size for f in files)

        def read(folder: Path) -> None:
            for f in sorted(folder.iterdir()):
                np.fromfile(f, np.uint8)

        def read_golden() -> None:
            np.fromfile(golden, np.uint8)

        traces = load_traces(test, net)
        t_read = best(lambda: read(test), args.repeat)

        def load_all() -> None:
            for d in traces:
                traces[d]

        t_load = best(load_all, args.repeat)
        t_read_ref = best(lambda: read(ref), args.repeat)
        t_read_golden = best(read_golden, args.repeat)
        t_ref = best(lambda: compare_traces(traces, traces_lookup(load_traces(ref, net), "ref"), histograms=False), args.repeat)

        def with_golden() -> None:
            compare_traces(traces, golden_lookup(NpzArrays(golden), "golden"), histograms=False)

        t_gold = best(with_golden, args.repeat)
        float_traces = load_traces(floats, net)
        t_read_float = best(lambda: read(floats), args.repeat)

        def float_golden() -> None:
            compare_traces(float_traces, golden_lookup(NpzArrays(golden), "golden"), histograms=False)

        t_float_gold = best(float_golden, args.repeat)
        print(f"{len(files)} layers, {nbytes / 1e6:.1f} MB of .y traces "
              f"({sum(layer.shape[1] for layer in net.layers if layer.data_id in traces)} channels)")
        print(f"read the .y traces     {t_read * 1e3:8.1f} ms, the _float.bin traces {t_read_float * 1e3:.1f} ms, "
              f"the golden {t_read_golden * 1e3:.1f} ms")
        print(f"load_traces: every layer as float32 NCHW {t_load * 1e3:8.1f} ms ({t_load / t_read:.2f}x the read)")
        print(f"compare --ref TRACES2  {t_ref * 1e3:8.1f} ms  = {t_ref / t_read:5.2f}x the trace read, "
              f"{t_ref / (t_read + t_read_ref):5.2f}x reading both sets")
        print(f"compare --golden NPZ   {t_gold * 1e3:8.1f} ms  = {t_gold / t_read:5.2f}x the trace read, "
              f"{t_gold / (t_read + t_read_golden):5.2f}x reading traces + golden")
        print(f"_float.bin vs golden   {t_float_gold * 1e3:8.1f} ms  = {t_float_gold / t_read_float:5.2f}x the trace read, "
              f"{t_float_gold / (t_read_float + t_read_golden):5.2f}x reading traces + golden")
    return 0


if __name__ == "__main__":
    sys.exit(main())
