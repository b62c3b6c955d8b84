"""Benchmark descriptor parsing and the ``tidl-io inspect`` process.

    python tools/bench_parse.py [FILE] [--quick]

Prints, in one run, the median time to parse FILE (default: the 378 392-byte 4-core
layout, from ../shared/realdata or a fixture of that size) with ``tidl_io.parse``
(including building the tensors; it reads through the schema's structured dtype) against:

- a plain construct version of the same layout (``Array(n, Int32sl)`` etc., derived from
  the same schema), the reference the target is stated against (<= 1 ms and <= 1/10);
- ``numpy.frombuffer`` of the whole struct with a structured dtype: the floor;

then the wall time of a whole ``tidl-io inspect FILE`` process against
``python -c "import numpy"`` (target <= 2x).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import construct
import numpy as np

import tidl_io
from tidl_io.iodesc.schema import Layout


def plain_struct(layout: Layout) -> construct.Struct:
    """The same layout with construct's element-by-element arrays."""
    fields = []
    for m in layout.members:
        if m.kind == "header":
            fields.append(m.name / construct.Int32sl)
        elif m.ctype == "int8_t":
            fields.append(m.name / construct.Array(m.count, construct.Bytes(m.itemsize)))
        elif m.ctype == "float32_tidl":
            fields.append(m.name / construct.Array(m.count, construct.Float32l))
        else:
            fields.append(m.name / construct.Array(m.count, construct.Int32sl))
    return construct.Struct(*fields)


def structured_dtype(layout: Layout) -> np.dtype:
    return np.dtype([(m.name, m.dtype, m.shape[:1]) if m.shape else (m.name, "<i4") for m in layout.members])


def median_time(fn, repeat: int, number: int = 1) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


def process_time(argv: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def default_file() -> Path:
    real = ROOT.parent / "shared" / "realdata" / "ti-psdk-11.01__j742s2__tivx__tidl_models__tidl_io_mobilenet_v1_1.bin"
    return real if real.exists() else ROOT / "tests" / "fixtures" / "l3_c4_many_tidl_io_1.bin"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", type=Path, default=default_file())
    parser.add_argument("--quick", action="store_true", help="few repeats (smoke run)")
    args = parser.parse_args(argv)
    data = args.file.read_bytes()
    desc = tidl_io.parse(data)
    layout = desc.layout
    repeat = 5 if args.quick else 31

    def ours() -> None:
        d = tidl_io.parse(data)
        d.inputs, d.outputs  # noqa: B018 - include building the tensors

    plain = plain_struct(layout)
    assert plain.sizeof() == len(data)
    dtype = structured_dtype(layout)
    assert dtype.itemsize == len(data)

    t_ours = median_time(ours, repeat, 10 if not args.quick else 2)
    t_plain = median_time(lambda: plain.parse(data), max(3, repeat // 4))
    t_adapter = median_time(lambda: layout.struct.parse(data), repeat, 10 if not args.quick else 2)
    t_floor = median_time(lambda: np.frombuffer(data, dtype), repeat, 100)
    print(f"file: {args.file.name} ({len(data)} bytes, {layout.description})")
    print(f"  tidl_io.parse (+ tensors)   {t_ours * 1e3:8.3f} ms")
    print(f"  plain construct Array       {t_plain * 1e3:8.3f} ms   ratio ours/plain = {t_ours / t_plain:.3f} "
          f"(target <= 0.100)")
    print(f"  construct struct, numpy adapters (build path) {t_adapter * 1e3:.3f} ms")
    print(f"  numpy.frombuffer (floor)    {t_floor * 1e3:8.3f} ms   ratio ours/floor = {t_ours / t_floor:.1f}")
    print(f"  target ours <= 1 ms: {'met' if t_ours <= 1e-3 else 'MISSED'}; "
          f"<= 1/10 plain: {'met' if t_ours <= t_plain / 10 else 'MISSED'}")

    prepeat = 3 if args.quick else 11
    t_numpy = process_time([sys.executable, "-c", "import numpy"], prepeat)
    t_cli = process_time([sys.executable, "-m", "tidl_io", "inspect", str(args.file)], prepeat)
    print(f"process: python -c 'import numpy' {t_numpy * 1e3:7.1f} ms; tidl-io inspect {t_cli * 1e3:7.1f} ms; "
          f"ratio {t_cli / t_numpy:.2f} (target <= 2.00: {'met' if t_cli <= 2 * t_numpy else 'MISSED'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
