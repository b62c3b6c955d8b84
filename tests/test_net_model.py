"""Network and Layer: look-ups, their errors, the graph, geometry and io linking, on fixtures
(values chosen in tests/net_fixtures.py) and the real nets."""

from __future__ import annotations

import pytest
from net_fixtures import V86, V1101, sample_layers

import tidl_io
from tidl_io import ElementType, TensorNotFoundError
from tidl_io.net import load_net, parse_net
from tidl_io.net._build import build_net

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
