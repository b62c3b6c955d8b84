"""Build the bundled example's network file and layer_info.txt from tools/example_detector_net.yaml.

    python tools/make_example_net.py          # -> tidl_io/examples/detector_tidl_net.bin (+ .layer_info.txt)

The net is made up (no TI file is copied): its data layers match detector_tidl_io_1.bin, so
``tidl-io doctor tidl_io/examples`` finds every file in agreement and ``tidl-io inspect`` has a
net to show. Written atomically; running it twice gives the same bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tidl_io._atomic import write_bytes_atomic
from tidl_io.net._build import build_net

SPEC = ROOT / "tools" / "example_detector_net.yaml"
OUT = ROOT / "tidl_io" / "examples" / "detector_tidl_net.bin"


def main() -> int:
    spec = yaml.safe_load(SPEC.read_text())
    layers = [{k: v for k, v in layer.items() if k != "name"} for layer in spec["layers"]]
    data = build_net(int(spec["net_version"]), layers, section_sizes=[256, 64, 64])
    info = "".join(f"{i} {layer.get('outData', {}).get('dataId', 0)} {layer['name']}\n"
                   for i, layer in enumerate(spec["layers"]))
    write_bytes_atomic(str(OUT), data)
    write_bytes_atomic(str(OUT) + ".layer_info.txt", info.encode())
    print(f"{OUT.relative_to(ROOT)}: {len(data)} bytes, {len(layers)} layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
