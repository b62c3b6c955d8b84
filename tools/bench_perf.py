"""Benchmark ``tidl_io.load_perf`` on the 122-layer YOLOX-s folder (od-8220-yolox-10.0: the
simulation CSV, bufinfolog_0.csv, the netLog and layer_info.txt) against ``import numpy``,
both measured in this run.

    python tools/bench_perf.py [FOLDER] [--repeat N]

Prints the median of ``load_perf`` in this process (find the files, read and check the four
texts, join 122 layers), its first call in a fresh interpreter (imports excluded), and the
median time of ``import numpy`` in a fresh interpreter; then the ratios. Target: reading
the folder takes well under the time of ``import numpy`` (ratio < 0.5). Without
../shared/realdata a stand-in folder of 122 layers is written from the bundled example's rows.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tidl_io
from tidl_io.perf import load_perf

REAL = ROOT.parent / "shared" / "realdata" / "net" / "od-8220-yolox-10.0"
EXAMPLE = Path(tidl_io.__file__).resolve().parent / "examples" / "tempDir" / "detector_tidl_net"


def stand_in(folder: Path, layers: int = 122) -> Path:
    """The example's simulation and bufinfolog with its convolution row repeated to ``layers``."""
    sub = folder / "tempDir" / "bench_tidl_net"
    sub.mkdir(parents=True)
    for src in EXAMPLE.iterdir():
        lines = src.read_text().splitlines()
        head, rows, tail = lines[0], lines[1:8], lines[8:]
        conv = rows[3].split(",", 1)[1]
        body = [rows[0]] + [f"{i:8d},{conv}" if src.name != "bufinfolog_0.csv" else f" {i},{conv}"
                            for i in range(1, layers)]
        (sub / src.name.replace("detector", "bench")).write_text("\n".join([head, *body, *tail]) + "\n")
    return folder


def fresh(code: str, repeat: int) -> float:
    """Median of the seconds a fresh interpreter prints for ``code``."""
    times = []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=ROOT)
        times.append(float(out.stdout))
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", type=Path, help="a model or artifacts folder (default: od-8220-yolox-10.0)")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.folder or (REAL if REAL.is_dir() else stand_in(Path(tmp)))
        layers = sum(len(s.layers) for s in load_perf(folder).subgraphs)
        warm = []
        for _ in range(args.repeat * 3):
            t0 = time.perf_counter()
            load_perf(folder)
            warm.append(time.perf_counter() - t0)
        read = statistics.median(warm)
        cold = fresh("import sys, time; from tidl_io.perf import load_perf; t = time.perf_counter(); "
                     f"load_perf({str(folder)!r}); print(time.perf_counter() - t)", args.repeat)
        numpy = fresh("import time; t = time.perf_counter(); import numpy; print(time.perf_counter() - t)", args.repeat)
    print(f"folder: {folder.name} ({layers} layers)")
    print(f"load_perf, warm (median of {len(warm)}):   {read * 1e3:8.2f} ms")
    print(f"load_perf, first call in a fresh process: {cold * 1e3:8.2f} ms (imports excluded)")
    print(f"import numpy, fresh process (median of {args.repeat}): {numpy * 1e3:8.2f} ms")
    print(f"ratio load_perf / import numpy: warm {read / numpy:.3f}, first call {cold / numpy:.3f} (target < 0.5)")
    return 0 if cold / numpy < 0.5 else 1


if __name__ == "__main__":
    sys.exit(main())
