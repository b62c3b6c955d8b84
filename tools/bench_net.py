"""Benchmark ``tidl_io.load_net`` on the 82-layer TIDL 8.2 net (3.5 MB, mostly weights).

    python tools/bench_net.py [NET.bin] [--quick]

Prints, in one run, the median time of ``load_net`` (open, read the structure part, parse
the 82 layers, read layer_info.txt, build the Layer objects) against a plain
``open(...).read()`` of the same whole file, the first (cold) call that also compiles the
schema, and the tracemalloc peak of one ``load_net`` against the file size. Targets:
<= 20 ms, and memory far below the file size (the weights are never read). Without
../shared/realdata the 8.2 layout is rebuilt at the same size with tidl-io's own builder.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_parse import median_time  # the same timing rule as the io-descriptor benchmark

from tidl_io.net import load_net
from tidl_io.net.build import build_net

REAL = ROOT.parent / "shared" / "realdata" / "net" / "bbai64-deeplabv3-mnv2-8.2" / "201_tidl_net.bin"




def stand_in(folder: Path) -> Path:
    """An 8.2 net of 82 convolution-sized layers and 3.2 MB of sections, like the real one."""
    layers = [{"layerType": 0, "numInBufs": -1, "numOutBufs": 1, "outData": [{"dataId": 0, "dimValues": [1, 3, 512, 512]}]}]
    layers += [{"layerType": 1, "numInBufs": 1, "numOutBufs": 1, "inData": [{"dataId": i - 1}],
                "outData": [{"dataId": i, "dimValues": [1, 32, 256, 256], "pitch": [2123904, 66368, 257]}]}
               for i in range(1, 81)]
    layers.append({"layerType": 0, "numInBufs": 1, "numOutBufs": -1, "inData": [{"dataId": 80}]})
    path = folder / "201_tidl_net.bin"
    path.write_bytes(build_net(0x20211201, layers, section_sizes=[2274432, 928352]))
    return path


def cold_ms(path: Path) -> float:
    """One load_net in a fresh interpreter (schema compile included), imports excluded."""
    code = ("import time, sys; sys.path.insert(0, sys.argv[2]); from tidl_io.net import load_net; "
            "t = time.perf_counter(); load_net(sys.argv[1]); print((time.perf_counter() - t) * 1e3)")
    out = subprocess.run([sys.executable, "-c", code, str(path), str(ROOT)], check=True, capture_output=True,
                         text=True)
    return float(out.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", type=Path)
    parser.add_argument("--quick", action="store_true", help="few repeats (smoke run)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = args.file or (REAL if REAL.is_file() else stand_in(Path(tmp)))
        repeat = 5 if args.quick else 31
        size = path.stat().st_size
        net = load_net(path)

        def read() -> bytes:
            with open(path, "rb") as fh:
                return fh.read()

        t_cold = cold_ms(path)
        t_load = median_time(lambda: load_net(path), repeat)
        t_read = median_time(read, repeat)
        tracemalloc.start()
        load_net(path)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"file: {path.name} ({size} bytes, TIDL {net.release}, {len(net.layers)} layers, structure "
              f"{net.sections[0].size} bytes)")
        print(f"  load_net (median of {repeat})   {t_load * 1e3:8.3f} ms   target <= 20 ms: "
              f"{'met' if t_load <= 0.020 else 'MISSED'}")
        print(f"  plain read of the whole file  {t_read * 1e3:8.3f} ms   ratio load_net/read = {t_load / t_read:.2f}")
        print(f"  first call, fresh process (schema compile included) {t_cold:.1f} ms")
        print(f"  tracemalloc peak of load_net  {peak} bytes = {peak / size:.3f} x the file size "
              f"({'far below' if peak < size / 4 else 'NOT far below'} the file size)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
