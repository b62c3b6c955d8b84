"""Target ``net``: mutated ``*_tidl_net.bin`` files instead of descriptors, on one input in
8 (index % 8 == 3: odd, so never one the cli target selects with an even ``--cli-every``).

The net comes from ``rng`` (so ``(seed, index)`` reproduces it): the structure part of a real
net in ``../shared/realdata/net`` or a net built with tidl-io's builder for a layout with no
public file (8.6, 9.x, 10.x and 11.x at every header core count), then 1..4 mutations: random
bytes, int32 extremes or small values at the fields the parser reads (numLayers, netBufInfo,
numInBufs/numOutBufs, inData, dims, pitches, pads, layerType), truncation, extension.
Operations: ``parse_net`` (or ``load_net`` on a temp file, with a layer_info.txt beside it
one time in four), then the text table, ``net_to_dict`` + strict JSON, the graph SVG, the
edges and each layer's shape, dtype, raw fields, params and geometry.
"""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path
from typing import Any

from ..checker import Checker
from ..corpus import ROOT
from ..inputs import FuzzInput
from ._raw import change_byte, cut, extend

NAME = "net"
STAGE = "bytes"
NET_SOURCE = "fuzz_tidl_net.bin"
_EXTREMES = (0, 1, -1, 2, 3, 4, 6, 24, 1024, 1536, 65535, 2**31 - 1, -(2**31), 2**30, 0x20250821)


def selects(checker: Checker, index: int) -> bool:
    return index % 8 == 3  # odd: never one the cli target takes (index % cli_every == 0, even)


@functools.cache
def _seeds() -> tuple[tuple[str, bytes], ...]:
    from tidl_io.net import load_net
    from tidl_io.net.build import build_net

    seeds: list[tuple[str, bytes]] = []
    for path in sorted((ROOT.parent / "shared" / "realdata" / "net").rglob("*_tidl_net.bin")):
        size = load_net(path).sections[0].size
        with open(path, "rb") as fh:  # the structure part and a little after: the rest is never read
            seeds.append((path.name, fh.read(size + 256)))
    for version, cores in ((0x20211201, None), (0x20230208, None), (0x20230802, None), (0x20240719, 1),
                           (0x20240719, 4), (0x20250821, 1), (0x20250821, 2), (0x20250821, 4)):
        seeds.append((f"built {version:#010x} c{cores}", build_net(version, _layers(version), cores=cores,
                                                                    section_sizes=_sizes(version))))
    return tuple(seeds)


def _sizes(version: int) -> list[int]:
    return [96, 32] if version == 0x20211201 else [96, 32] if version == 0x20230208 else [96, 32, 64]


def _layers(version: int) -> list[dict[str, Any]]:
    """input -> conv -> concat(conv, input) -> output, in the release's own field shapes."""
    six = version >= 0x20240719
    old = version == 0x20211201

    def out(data_id: int, c: int) -> Any:
        dims = [1, 1, 1, c, 8, 8] if six else [1, c, 8, 8]
        pitch = [64 * c, 64 * c, 64 * c, 64, 8] if six else [64 * c, 64, 8]
        value = {"dataId": data_id, "elementType": 1, "tensorScale": 2.0, "dimValues": dims, "pitch": pitch}
        return [value] if old else value

    def ids(*values: int) -> Any:
        return [{"dataId": v} for v in values] if old else list(values)

    return [{"layerType": 0, "numInBufs": -1, "numOutBufs": 1, "outData": out(0, 3)},
            {"layerType": 1, "numInBufs": 1, "numOutBufs": 1, "inData": ids(0), "outData": out(1, 4)},
            {"layerType": 12, "numInBufs": 2, "numOutBufs": 1, "inData": ids(1, 0), "outData": out(2, 7)},
            {"layerType": 0, "numInBufs": 1, "numOutBufs": -1, "inData": ids(2)}]


def _field_offsets(data: bytes) -> list[int]:
    """Byte offsets of the fields the parser reads, for the seed's own layout."""
    import struct

    from tidl_io.net.schema import layout_for

    variants = layout_for(struct.unpack_from("<I", data)[0]) if len(data) >= 4 else ()
    if not variants:
        return [0, 8]
    lay = variants[0]
    offsets = [0, 8]
    if "netBufInfo" in lay.header.names:
        base = lay.offset("netBufInfo", "header")
        offsets += [base + 16 * i + k for i in range(len(lay.sections)) for k in (8, 12)]
    if "numCores" in lay.header.names:
        offsets.append(lay.offset("numCores", "header"))
    inner = ["layerType", "numInBufs", "numOutBufs", "inData"]
    out = lay.offset("outData")
    for k in range(3):
        base = lay.header_size + k * lay.layer_size
        offsets += [base + lay.offset(name) for name in inner]
        offsets += [base + out + d for d in range(0, 116, 4)]
    return offsets


def make_net(rng: random.Random) -> tuple[bytes, str]:
    """A seed net and 1..4 mutations; the steps as text."""
    import struct

    name, original = rng.choice(_seeds())
    data = bytearray(original)
    steps = [name]
    fields = _field_offsets(original)
    for _ in range(rng.choice((1, 1, 2, 3, 4))):
        kind = rng.choice(("field", "field", "field", "byte", "cut", "extend"))
        if kind == "field":
            pos = rng.choice(fields)
            value = rng.choice(_EXTREMES) if rng.random() < 0.6 else rng.randrange(-2**31, 2**31)
            if pos + 4 <= len(data):
                struct.pack_into("<i", data, pos, value)
            steps.append(f"int32 {value} @ {pos}")
        elif kind == "byte" and data:
            steps.append(change_byte(data, rng))
        elif kind == "cut":
            steps.append(cut(data, rng))
        else:
            steps.append(extend(data, rng, 4096))
    return bytes(data), " | ".join(steps)


def run(checker: Checker, index: int, item: FuzzInput, desc: Any, rng: random.Random) -> None:
    from tidl_io.net import load_net, parse_net

    data, steps = make_net(rng)
    if checker.verbose:
        print(f"  net input: {steps}")
    where = (NET_SOURCE,)
    if index % 32 == 3:  # the file path: bounded reads, layer_info.txt
        from tidl_io.base.atomic import write_bytes_atomic

        path = Path(checker.scratch) / NET_SOURCE
        write_bytes_atomic(path, data)
        info = Path(checker.scratch) / (NET_SOURCE + ".layer_info.txt")
        info.write_text("".join(f"{i} {i} layer<{i}>\n" for i in range(rng.randrange(0, 6))) + "x y\n")
        net = checker.op(index, "net load_net", lambda: load_net(path), (str(path),))
    else:
        net = checker.op(index, "net parse_net", lambda: parse_net(data, NET_SOURCE), where)
    if net is None:
        return
    _use(checker, index, net)


def _use(checker: Checker, index: int, net: Any) -> None:
    from tidl_io.net.format import format_net, net_to_dict
    from tidl_io.net.graph import net_svg

    where = (NET_SOURCE,)
    checker.op(index, "net format", lambda: format_net(net, NET_SOURCE, physical=index % 16 == 3), where)
    checker.op(index, "net to_dict+json", lambda: json.dumps(net_to_dict(net, NET_SOURCE), allow_nan=False), where)
    if len(net.layers) <= 64:  # the picture's cost grows with the layers, not with what is fuzzed
        checker.op(index, "net svg", lambda: net_svg(net), where)

    def layers() -> None:
        _ = (net.edges, net.input_layers, net.output_layers, repr(net))
        for layer in net.layers:
            g = layer.geometry
            _ = (layer.shape, layer.dtype, dict(layer.raw), dict(layer.params), repr(layer),
                 None if g is None else g.required_size)

    checker.op(index, "net layers", layers, where)
