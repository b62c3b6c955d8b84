"""Fixtures for 8.6 and 11.x (no public real file) built with tidl_io.net.build from the
headers' field lists, read back with tidl_io.net, and checked byte by byte at the offsets TI's
headers give (worked out by hand from itidl_ti.h, independently of the YAML layout compiler)."""

from __future__ import annotations

import struct

import pytest
from net_fixtures import V86, V110, V1101, sample_layers

from tidl_io.net import parse_net
from tidl_io.net.build import build_net, spec_of

# (netVersion, cores) -> header bytes, layer bytes, and offsets inside a layer: layerType, numInBufs,
# numOutBufs, inData, outData; inside outData: tensorScale, tensorZeroPoint, padW, pitch, dimValues;
# inside the conv params: kernelW; netBufInfo in the header
_F86 = {"header": 136, "layer": 1792, "type": 1560, "num_in": 1564, "num_out": 1568, "in_data": 1572, "out": 1668,
        "scale": 32, "zp": 36, "pad_w": 40, "pitch": 68, "dims": 80, "ndims": 4, "kernel_w": 44, "netbuf": 88}
_F11 = {"header": 176, "layer": 1848, "type": 1584, "num_in": 1592, "num_out": 1596, "in_data": 1600, "out": 1696,
        "scale": 32, "zp": 36, "pad_w": 44, "pitch": 72, "dims": 92, "ndims": 6, "kernel_w": 56, "netbuf": 104}
HEADER_FACTS = {(V86, None): _F86, (V110, 1): _F11, (V1101, 1): _F11, (V1101, 2): _F11,
                (V1101, 4): {**_F11, "header": 184, "netbuf": 112}}
CASES = [pytest.param(v, c, id=f"{v:#x}-c{c}") for v, c in HEADER_FACTS]


def _build(version: int, cores: int | None) -> bytes:
    return build_net(version, sample_layers(version), cores=cores, section_sizes=[640, 128, 256][: 3 if version != V86
                                                                                                else 2])


@pytest.mark.parametrize(("version", "cores"), CASES)
def test_bytes_sit_where_the_header_says(version: int, cores: int | None) -> None:
    facts = HEADER_FACTS[(version, cores)]
    data = _build(version, cores)
    spec = sample_layers(version)
    assert struct.unpack_from("<I", data, 0)[0] == version
    assert struct.unpack_from("<i", data, 8)[0] == len(spec)
    structure = -(-(facts["header"] + len(spec) * facts["layer"]) // 64) * 64
    assert struct.unpack_from("<Qii", data, facts["netbuf"]) == (0, structure, 0)
    for i, layer in enumerate(spec):
        base = facts["header"] + i * facts["layer"]
        code, n_in, n_out = (struct.unpack_from("<i", data, base + facts[k])[0] for k in ("type", "num_in", "num_out"))
        assert (n_in, n_out) == (layer["numInBufs"], layer["numOutBufs"])
        ins = struct.unpack_from(f"<{max(n_in, 0)}i", data, base + facts["in_data"])
        assert list(ins) == layer.get("inData", [])
        out = layer.get("outData")
        if out is None:
            continue
        o = base + facts["out"]
        assert struct.unpack_from("<i", data, o)[0] == out["dataId"]
        assert struct.unpack_from("<f", data, o + facts["scale"])[0] == out["tensorScale"]
        assert struct.unpack_from("<i", data, o + facts["zp"])[0] == out.get("tensorZeroPoint", 0)
        assert struct.unpack_from("<i", data, o + facts["pad_w"])[0] == out["padW"]
        assert list(struct.unpack_from(f"<{facts['ndims']}i", data, o + facts["dims"])) == out["dimValues"]
        assert list(struct.unpack_from(f"<{facts['ndims'] - 1}i", data, o + facts["pitch"])) == out["pitch"]
        if code == 1:
            assert struct.unpack_from("<i", data, base + facts["kernel_w"])[0] == layer["layerParams"]["kernelW"]


@pytest.mark.parametrize(("version", "cores"), CASES)
def test_parse_reads_back_the_fixture(version: int, cores: int | None) -> None:
    data = _build(version, cores)
    net = parse_net(data, source="fixture")
    spec = sample_layers(version)
    assert net.net_version == version and len(net.layers) == len(spec)
    assert net.layout.cores == cores and net.file_size == len(data)
    assert net.release == {V86: "8.6", V110: "11.0", V1101: "11.1"}[version]
    assert [s.name for s in net.sections][:3] == ["structure", "parameters", "compiler"]
    assert max(s.end for s in net.sections) == len(data)
    for layer, want in zip(net.layers, spec):
        assert layer.type == want["layerType"]
        assert list(layer.inputs) == want.get("inData", [])
        out = want.get("outData")
        if out is not None:
            assert layer.data_id == out["dataId"] and list(layer.dims) == out["dimValues"]
            assert layer.scale == out["tensorScale"] and layer.zero_point == out.get("tensorZeroPoint", 0)
            assert layer.pads == (out["padW"], out["padH"]) and list(layer.pitches) == out["pitch"]
            assert layer.shape == tuple(out["dimValues"][i] for i in ((0, 3, 4, 5) if len(out["dimValues"]) == 6
                                                                       else (0, 1, 2, 3)))
        for key, value in want.get("layerParams", {}).items():
            assert layer.params[key] == value, (layer, key)
    assert [la.index for la in net.input_layers] == [0] and [la.index for la in net.output_layers] == [8]
    assert net.edges == [(0, 1, 0), (1, 2, 1), (2, 3, 2), (3, 4, 3), (3, 5, 3), (4, 6, 4), (5, 6, 5),
                         (6, 7, 6), (6, 7, 6), (7, 8, 7)]


@pytest.mark.parametrize(("version", "cores"), CASES)
def test_build_of_parse_is_identity(version: int, cores: int | None) -> None:
    data = _build(version, cores)
    net = parse_net(data)
    spec = spec_of(net)
    again = build_net(version, spec["layers"], cores=cores, header=spec["header"],
                      section_sizes=[s.size for s in net.sections[1:]])
    assert again == data


def test_unknown_member_is_refused_by_the_builder() -> None:
    with pytest.raises(KeyError, match="kernelWidth"):
        build_net(V1101, [{"layerType": "TIDL_ConvolutionLayer", "layerParams": {"kernelWidth": 3}}])
    with pytest.raises(ValueError, match="cores"):
        build_net(V1101, sample_layers(V1101), cores=3)
