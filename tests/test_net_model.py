"""Network and Layer: look-ups, their errors, the graph, geometry and io linking, on fixtures
(values chosen in tests/net_fixtures.py) and the real nets."""

from __future__ import annotations

import pytest
from net_fixtures import V86, V1101, sample_layers

import tidl_io
from tidl_io import ElementType, TensorNotFoundError
from tidl_io.net import load_net, parse_net
from tidl_io.net.build import build_net

from conftest import REALDATA


@pytest.fixture(scope="module")
def net() -> tidl_io.Network:
    return parse_net(build_net(V1101, sample_layers(V1101), cores=1), source="fixture_tidl_net.bin")


def test_lookups(net: tidl_io.Network) -> None:
    assert net.layer_by_data_id(2).index == 2 and net.layer(data_id=6).type == "TIDL_ConcatLayer"
    assert net.layer(index=8).is_output and net.layer_by_data_id(0).is_input  # not the output layer's zeros
    with pytest.raises(TensorNotFoundError, match=r"no layer produces dataId 99; dataIds 0-7 \(8 buffers\)"):
        net.layer_by_data_id(99)
    with pytest.raises(TensorNotFoundError, match="no layer 9; it has 9 layers"):
        net.layer(index=9)
    with pytest.raises(TensorNotFoundError, match="no layer has a name"):
        net.layer_by_name("conv")
    with pytest.raises(tidl_io.ArgumentTypeError, match="exactly one"):
        net.layer(data_id=1, index=1)
    with pytest.raises(tidl_io.ArgumentTypeError, match="data_id: expected an int"):
        net.layer_by_data_id("2")
    with pytest.raises(tidl_io.ArgumentTypeError, match="expected a tidl_io.Descriptor"):
        net.link_io(net)


def test_layer_values(net: tidl_io.Network) -> None:
    conv = net.layers[2]
    assert conv.element_type is ElementType.SignedChar and conv.dtype == "int8"
    assert conv.shape == (1, 16, 16, 24) and conv.dims == (1, 1, 1, 16, 16, 24)
    assert conv.params["kernelH"] == 5 and conv.raw["outData"]["tensorScale"] == 8.5
    assert net.layers[1].zero_point == -3 and net.layers[0].element_type is ElementType.UnsignedChar
    assert net.num_cores == 1 and net.layout_key == "11.0/c1" and "11.1" in repr(net)


def test_geometry_places_elements_like_the_pitches_say(net: tidl_io.Network) -> None:
    layer = net.layers[2]  # pads (1, 1): line = W + 1, channel = line * (H + 2) + 16
    g = layer.geometry
    _, _, _, chan, line = layer.pitches
    for c, h, w in [(0, 0, 0), (3, 5, 7), (15, 15, 23)]:
        offset = g.first_offset + sum(i * s for i, s in zip((0, 0, 0, c, h, w), g.strides))
        assert offset == layer.pads[1] * line + layer.pads[0] + c * chan + h * line + w
    assert g.shape == (1, 1, 1, 16, 16, 24) and g.itemsize == 1


def test_six_dims_shape_when_dim1_or_dim2_is_used() -> None:
    layers = sample_layers(V1101)
    layers[0]["outData"]["dimValues"] = [1, 2, 1, 3, 32, 48]
    net = parse_net(build_net(V1101, layers, cores=1))
    assert net.layers[0].shape == (1, 2, 1, 3, 32, 48)
    four = parse_net(build_net(V86, sample_layers(V86)))
    assert four.layers[2].shape == four.layers[2].dims == (1, 16, 16, 24)


def test_dims6_is_n_dim1_dim2_c_h_w() -> None:
    """The one (N, DIM1, DIM2, C, H, W) of a layer, the order of an io tensor's shape: 8.6 stores
    four dims (DIM1 = DIM2 = 1), 11.x six, as set here."""
    layers = sample_layers(V1101)
    layers[0]["outData"]["dimValues"] = [1, 2, 1, 3, 32, 48]
    assert parse_net(build_net(V1101, layers, cores=1)).layers[0].dims6 == (1, 2, 1, 3, 32, 48)
    four = parse_net(build_net(V86, sample_layers(V86)))
    assert four.layers[2].dims6 == (1, 1, 1, 16, 16, 24)


def _real(folder: str, name: str):
    path = next((REALDATA / "net" / folder).rglob(name), None)
    if path is None:
        pytest.skip("../shared/realdata not present")
    return path


def test_names_lookup_on_a_real_net() -> None:
    net = load_net(_real("edgeai-tidl-east-9.0", "625_tidl_net.bin"))
    assert net.layer_by_name("625_netFormat").type == "TIDL_ConcatLayer"
    with pytest.raises(TensorNotFoundError, match="names: 'onnx::Concat_616'"):
        net.layer_by_name("nope")


def test_io_of_another_model_does_not_link() -> None:
    net = load_net(_real("bbai64-deeplabv3-mnv2-8.2", "201_tidl_net.bin"))
    other = tidl_io.load(_real("edgeai-tidl-east-9.0", "625_tidl_io_1.bin"))
    links = net.link_io(other)
    bad = [lk for lk in links.values() if not lk.ok]
    assert bad and all(p for lk in bad for p in lk.problems)
    assert "shape 1x1x1x4x176x320 in the io descriptor, 1x1x1x3x512x512 in layer 0" in links[("input", 0)].problems[0]
    assert links[("input", 1)].layer.index == 1  # dataId 1 is the DataConvert, not an input data layer
    assert "not an input data layer" in links[("input", 1)].problems[0]


def test_bundled_example_net_links_to_the_example_io() -> None:
    from conftest import EXAMPLES

    net = load_net(EXAMPLES / "detector_tidl_net.bin")
    desc = tidl_io.load(EXAMPLES / "detector_tidl_io_1.bin")
    links = net.link_io(desc)
    assert all(link.ok for link in links.values()), [link.problems for link in links.values()]
    assert links[("input", 0)].layer.name == "images" and links[("output", 0)].layer.name == "detections"
    assert net.release == "10.0" and [la.type for la in net.layers][-2:] == ["TIDL_DetectionOutputLayer",
                                                                             "TIDL_DataLayer"]
    conv = net.layer_by_name("backbone/conv1")
    assert (conv.params["kernelW"], conv.params["strideW"], conv.raw["actParams"]["actType"]) == (3, 2, 1)


def test_layer_by_name_of_the_wrong_kind(net: tidl_io.Network) -> None:
    """A name that is no str is an argument of the wrong kind, not a name the net lacks."""
    with pytest.raises(tidl_io.ArgumentTypeError, match=r"layer_by_name: name: expected a str"):
        net.layer_by_name(5)  # type: ignore[arg-type]
    with pytest.raises(tidl_io.ArgumentTypeError, match=r"layer_by_name: name: expected a str"):
        net.layer(name=b"conv")  # type: ignore[arg-type]


def _bufinfo_out_write(net_path) -> dict[int, tuple[int, int]]:
    """layer -> (Out-Write pitch, Out-Write height) from TI's tempDir/<net>/bufinfolog_0.csv."""
    import csv

    path = net_path.parent / "tempDir" / net_path.stem / "bufinfolog_0.csv"
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    head = [h.strip() for h in rows[0]]
    pitch, height = head.index("Out-Write-pitch"), head.index("Out-Write-height")
    return {int(r[0]): (int(r[pitch]), int(r[height])) for r in rows[1:] if r and r[0].strip().isdigit()}


def test_nhwc_buffers_of_the_real_10_0_net_match_ti_bufinfolog() -> None:
    """Layer 0 (float input read by an NHWC DataConvert) and 53 (output DataConvert, NHWC): TI's
    bufinfolog says 400 rows of 7200 bytes; each element (c, h, w) at h * 7200 + (w * C + c) * 4."""
    path = _real("real-time-llve-zero-dce-10.0", "74_tidl_net.bin")
    net = load_net(path)
    info = _bufinfo_out_write(path)
    for index in (0, 53):
        layer = net.layers[index]
        g = layer.geometry
        row, rows = info[index]
        assert layer.layout == "NHWC" and g is not None and g.overlap() is None
        assert g.required_size * g.itemsize == row * rows == 2880000
        _, _, _, c, h, w = layer.dims6
        for cc, hh, ww in [(0, 0, 0), (2, 0, 0), (0, 0, 1), (1, 7, 5), (c - 1, h - 1, w - 1)]:
            at = g.first_offset + sum(i * s for i, s in zip((0, 0, 0, cc, hh, ww), g.strides))
            assert at * g.itemsize == hh * row + (ww * c + cc) * g.itemsize
    convert = net.layers[1]  # NCHW int8: bufinfolog's pitch is the channel pitch, 3 planes
    row, rows = info[1]
    assert convert.layout == "NCHW" and convert.geometry.required_size == row * rows == 720000
    assert net.layers[54].geometry is None and net.layers[54].layout is None


def test_a_layout_the_pitches_do_not_fit_gives_no_geometry() -> None:
    """The fixture's input convert says NHWC (layout 1) but the data layer's pitches are planar
    (channel pitch = a padded plane, not C x line): the file contradicts itself, no numbers."""
    layers = sample_layers(V1101)
    net = parse_net(build_net(V1101, layers, cores=1))
    assert net.layers[0].layout is None and net.layers[0].geometry is None
    layers[1]["layerParams"]["layout"] = 0  # NCHW: the planar pitches fit
    assert parse_net(build_net(V1101, layers, cores=1)).layers[0].geometry.strides[3:] == (32 * 48 + 16, 48, 1)
    layers[1]["layerParams"]["layout"] = 1
    layers[0]["outData"]["pitch"] = [3 * 48 * 32, 3 * 48 * 32, 3 * 48 * 32, 3 * 48, 48]  # TI's NHWC signature
    g = parse_net(build_net(V1101, layers, cores=1)).layers[0].geometry
    assert g.strides[3:] == (1, 3 * 48, 3) and g.required_size == 3 * 32 * 48


def test_without_a_convert_the_pitches_decide_or_nothing() -> None:
    """8.6 fixture, the input's convert removed: NCHW pitches read as NCHW, NHWC ones as NHWC,
    pitches that fit both (C = H) leave the layout unknown."""
    layers = sample_layers(V86)
    layers[1] = {"layerType": "TIDL_PoolingLayer", "numInBufs": 1, "numOutBufs": 1, "inData": [0],
                 "outData": layers[1]["outData"], "layerParams": {"numChannels": 3}}
    assert parse_net(build_net(V86, layers)).layers[0].layout == "NCHW"
    layers[0]["outData"]["pitch"] = [3 * 48 * 32, 3 * 48, 48]
    assert parse_net(build_net(V86, layers)).layers[0].layout == "NHWC"
    layers[0]["outData"]["dimValues"] = [1, 3, 3, 48]  # C = H = 3: channel = 3 x line fits both
    layers[0]["outData"]["pitch"] = [3 * 3 * 48, 3 * 48, 48]
    net = parse_net(build_net(V86, layers))
    assert net.layers[0].layout is None and net.layers[0].geometry is None
