"""Build a ``*_tidl_io_1.bin`` file from a small YAML spec, through ``tidl_io.build``.

Used to make the synthetic fixtures for layouts no real file covers (9.1/9.2, several
cores, containers, NHWC, DIM1/DIM2 > 1, N > 1) and the bundled example.

    python tools/make_fixture.py SPEC.yaml OUT.bin
    python tools/make_fixture.py --all        # every tools/fixtures/*.yaml -> tests/fixtures/*.bin

A spec with ``net_version`` is a network (``*_tidl_net.bin``) instead, built with
``tidl_io.net.build.build_net``: ``cores``, ``section_sizes`` and ``layers`` (sTIDL_Layer_t
members by TI's names; a layer's ``name`` goes to ``<net>.layer_info.txt`` beside it, written
as TI's importer does). These specs live in ``tools/fixtures/net/``; only the example's:
``net/example_<x>.yaml`` -> ``tidl_io/examples/<x>_tidl_net.bin``.

A spec names TI fields verbatim. Fields left out get what TIDL's importer would write,
computed here independently of the library's geometry code:

- ``in/outNumBatches``, ``in/outDIM1``, ``in/outDIM2``: 1; pads, zero point, layout: 0;
  ``in/outTensorScale``: 1.0; ``in/outElementType``: 6 (float32); ``inDataFormat``: 1;
- ``in/outChannelPitch``: (H + padT + padB)·(W + padL + padR) for NCHW, H·W for NHWC;
- ``resizeWidth``/``resizeHeight``: W/H; ``rawDataInElementType``: the element type;
- ``inBufSize``: N·DIM1·DIM2·(C + 1)·rows·line, ``outBufSize``: N·DIM1·DIM2·(C + padCh)·rows·line;
- ``numValidTensorDims``: 4; ``in/outDataId``: the slot number.

Spec layout::

    family: "10.x"          # 8.x, 9.0, 9.1, 10.x
    cores: 2
    header: {numCores: 2}   # optional; numInputBuf/numOutputBuf default to the counts
    inputs:  [{inDataName: x, inWidth: 8, inHeight: 4, inNumChannels: 3}]
    outputs: [{outDataName: y, outWidth: 8, outHeight: 4, outNumChannels: 3}]
    subgraphs: [...]        # optional: a multi-subgraph container of these specs
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tidl_io
from tidl_io.base.atomic import write_bytes_atomic
from tidl_io.iodesc.descriptor import make_descriptor

HEADER_DEFAULTS = {"numCores": 1, "numVirtualCores": 1, "numSuperBatches": 1, "inferenceMode": 0}


def _complete(spec: dict[str, Any], prefix: str, slot: int, family: str) -> dict[str, Any]:
    """Fill the fields TIDL's importer would derive (see module docstring)."""
    s = dict(spec)
    p = prefix
    g = s.get
    w, h, c = g(f"{p}Width", 1), g(f"{p}Height", 1), g(f"{p}NumChannels", 1)
    pad_l, pad_t, pad_r, pad_b = (g(f"{p}Pad{k}", 0) for k in "LTRB")
    pad_ch = g(f"{p}PadCh", 0)
    n = g(f"{p}NumBatches", 1)
    has_dims = family in ("9.1", "10.x")
    d1, d2 = (g(f"{p}DIM1", 1), g(f"{p}DIM2", 1)) if has_dims else (1, 1)
    layout = g(f"{p}Layout", 0)
    line = w + pad_l + pad_r
    rows = h + pad_t + pad_b
    s.setdefault(f"{p}Width", w)
    s.setdefault(f"{p}Height", h)
    s.setdefault(f"{p}NumChannels", c)
    s.setdefault(f"{p}NumBatches", n)
    s.setdefault(f"{p}ChannelPitch", h * w if layout == 1 else rows * line)
    s.setdefault(f"{p}ElementType", 6)
    s.setdefault(f"{p}TensorScale", 1.0)
    s.setdefault(f"{p}DataId", slot)
    if has_dims:
        s.setdefault(f"{p}DIM1", d1)
        s.setdefault(f"{p}DIM2", d2)
    if p == "in":
        s.setdefault("inDataFormat", 1)
        s.setdefault("resizeWidth", w)
        s.setdefault("resizeHeight", h)
        s.setdefault("rawDataInElementType", s["inElementType"])
        if family == "10.x":
            s.setdefault("inBufSize", n * d1 * d2 * (c + 1) * rows * line)
    else:
        if family == "10.x":
            s.setdefault("outBufSize", n * d1 * d2 * (c + pad_ch) * rows * line)
        if has_dims:
            s.setdefault("numValidTensorDims", 4)
    return s


def descriptor_from_spec(spec: dict[str, Any], source: str = "<spec>") -> tidl_io.Descriptor:
    family = str(spec["family"])
    cores = int(spec.get("cores", 1))
    header = dict(spec.get("header") or {})
    if family != "8.x":
        for key, value in HEADER_DEFAULTS.items():
            header.setdefault(key, value)
    inputs = [_complete(t, "in", i, family) for i, t in enumerate(spec.get("inputs") or [])]
    outputs = [_complete(t, "out", i, family) for i, t in enumerate(spec.get("outputs") or [])]
    subs = [descriptor_from_spec({"family": family, "cores": cores, **sub}, f"{source}[{i}]")
            for i, sub in enumerate(spec.get("subgraphs") or [])]
    return make_descriptor(family, cores, inputs=inputs, outputs=outputs, header=header, subgraphs=subs,
                           source=source)


def make_net(spec: dict[str, Any], out_path: Path) -> int:
    """A net file from a net spec, and its layer_info.txt (``layerId dataId name``)."""
    from tidl_io.net.build import build_net

    layers = [{k: v for k, v in layer.items() if k != "name"} for layer in spec["layers"]]
    data = build_net(int(spec["net_version"]), layers, cores=spec.get("cores"), section_sizes=spec.get("section_sizes"))
    write_bytes_atomic(out_path, data)
    ids = [layer.get("outData", {}).get("dataId", 0) for layer in spec["layers"]]
    info = "".join(f"{i} {d} {layer['name']} \n" for i, (d, layer) in enumerate(zip(ids, spec["layers"])))
    write_bytes_atomic(out_path.with_name(out_path.name + ".layer_info.txt"), info.encode())
    return len(data)


def make(spec_path: Path, out_path: Path) -> int:
    with spec_path.open() as fh:
        spec = yaml.safe_load(fh)
    if "net_version" in spec:
        return make_net(spec, out_path)
    data = tidl_io.build(descriptor_from_spec(spec, spec_path.name))
    write_bytes_atomic(out_path, data)
    return len(data)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("spec", nargs="?", type=Path, help="YAML spec")
    parser.add_argument("out", nargs="?", type=Path, help="output .bin")
    parser.add_argument("--all", action="store_true",
                        help="rebuild every tools/fixtures/*.yaml into tests/fixtures/ (example_* into "
                             "tidl_io/examples/), and tools/fixtures/net/example_*.yaml into tidl_io/examples/")
    args = parser.parse_args(argv)
    if args.all:
        for spec in sorted((ROOT / "tools" / "fixtures").glob("*.yaml")):
            if spec.stem.startswith("example_"):
                out = ROOT / "tidl_io" / "examples" / f"{spec.stem[len('example_'):]}_tidl_io_1.bin"
            else:
                out = ROOT / "tests" / "fixtures" / f"{spec.stem}_tidl_io_1.bin"
            print(f"{spec.relative_to(ROOT)} -> {out.relative_to(ROOT)} ({make(spec, out)} bytes)")
        for spec in sorted((ROOT / "tools" / "fixtures" / "net").glob("example_*.yaml")):
            out = ROOT / "tidl_io" / "examples" / f"{spec.stem[len('example_'):]}_tidl_net.bin"
            print(f"{spec.relative_to(ROOT)} -> {out.relative_to(ROOT)} ({make(spec, out)} bytes)")
        return 0
    if args.spec is None or args.out is None:
        parser.error("give SPEC and OUT, or --all")
    print(f"{args.out}: {make(args.spec, args.out)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
