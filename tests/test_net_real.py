"""Every real net in ../shared/realdata/net against TI's own logs: the importer's netLog
(layer count, type, inputs, output dataId, output dims, MACs) and layer_info.txt (names,
order). The logs are parsed here by a small parser of their own, not by tidl_io."""

from __future__ import annotations

import itertools
import math
import re
import struct
from pathlib import Path

import pytest

import tidl_io
from tidl_io.net import load_net

from conftest import REALDATA

NET_DIR = REALDATA / "net"


def _nets() -> list:
    files = sorted(NET_DIR.glob("*/*_tidl_net.bin")) + sorted(NET_DIR.glob("*/artifacts/*_tidl_net.bin"))
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason="../shared/realdata not present"), id="missing")]
    return [pytest.param(p, id=p.parent.name if p.parent.name != "artifacts" else p.parent.parent.name)
            for p in files]


def _log(net: Path, suffix: str) -> Path:
    for folder in (net.parent, net.parent / "tempDir"):
        p = folder / (net.name + suffix)
        if p.is_file():
            return p
    pytest.fail(f"no {suffix} beside {net}")


def _netlog(path: Path) -> tuple[int, list[dict]]:
    """TI's netLog table: one dict per row, cells as TI printed them."""
    text = path.read_text()
    count = int(re.search(r"Num of Layer Detected :\s*(\d+)", text).group(1))
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) < 11 or not cells[0].isdigit():
            continue
        ids = [int(x) for x in cells[6].split() if x != "x"]
        rows.append({"num": int(cells[0]), "type": cells[1], "ins": int(cells[4]), "outs": int(cells[5]),
                     "inputs": ids, "out_id": int(cells[7]), "in_dims": [int(x) for x in cells[8].split()],
                     "out_dims": [int(x) for x in cells[9].split()], "macs": int(cells[10])})
    return count, rows


def _release_of_folder(net: Path) -> str:
    folder = net.parent.name if net.parent.name != "artifacts" else net.parent.parent.name
    return folder.rsplit("-", 1)[1]  # PROVENANCE.md folders end in the TIDL release: "...-8.2"


@pytest.mark.parametrize("path", _nets())
def test_layers_match_netlog(path: Path) -> None:
    net = load_net(path)
    count, rows = _netlog(_log(path, "_netLog.txt"))
    assert len(net.layers) == count == len(rows)
    assert net.release.split("/")[0] == _release_of_folder(path)
    producers = {la.data_id: la for la in net.layers if la.num_out > 0}
    seen = set()
    for row in rows:
        if row["outs"] < 0:  # output data layer: produces nothing; match by what it reads
            matches = [la for la in net.layers if la.num_out < 0 and list(la.inputs) == row["inputs"]]
            assert len(matches) == 1, row
            layer = matches[0]
        else:
            layer = producers[row["out_id"]]
            assert list(layer.dims) == row["out_dims"], (layer, row)
        seen.add(layer.index)
        assert layer.type == row["type"], (layer, row)
        assert list(layer.inputs) == row["inputs"], (layer, row)
        assert (layer.num_in, layer.num_out) == (row["ins"], row["outs"]), (layer, row)
    assert seen == set(range(count))


@pytest.mark.parametrize("path", _nets())
def test_conv_params_give_netlog_macs(path: Path) -> None:
    """Kernel, groups and input channels, times the output size, are TI's MACs."""
    net = load_net(path)
    _, rows = _netlog(_log(path, "_netLog.txt"))
    convs = [r for r in rows if r["type"] == "TIDL_ConvolutionLayer"]
    for row in convs:
        p = net.layer_by_data_id(row["out_id"]).params
        per_output = p["kernelW"] * p["kernelH"] * p["numInChannels"] // p["numGroups"]
        assert math.prod(row["out_dims"]) * per_output == row["macs"], (row, p)
        assert p["numInChannels"] == row["in_dims"][-3] and p["numOutChannels"] == row["out_dims"][-3]


def test_nine_zero_conv_weights_and_biases_tile_the_parameters_section() -> None:
    """9.0 (fcnn-cnn5): each convolution's int8 weights (out x in/groups x kH x kW bytes at
    ``weights``) are followed by one int16 bias per output channel at ``bias``, and the four
    convolutions fill the parameters section (netBufInfo[1]) end to end, read here with struct."""
    path = NET_DIR / "edgeai-tidl-fcnn-cnn5-9.0" / "_cnn_cnn.5_relu_Relu_output_0_tidl_net.bin"
    if not path.is_file():
        pytest.skip("../shared/realdata not present")
    data = path.read_bytes()
    param_size, param_offset = struct.unpack_from("<ii", data, 96 + 16 + 8)  # netBufInfo[1].size, .offset
    net = load_net(path)
    cursor = param_offset
    convs = [la for la in net.layers if la.type == "TIDL_ConvolutionLayer"]
    assert len(convs) == 4
    for la in convs:
        p = la.params
        assert p["weights"] == cursor
        cursor += p["numOutChannels"] * p["numInChannels"] // p["numGroups"] * p["kernelW"] * p["kernelH"]
        assert p["bias"] == cursor
        cursor += 2 * p["numOutChannels"]
    assert cursor == param_offset + param_size == len(data)


def test_nine_zero_conv_scales_are_paramdebugs() -> None:
    """weightScale and biasScale of each 9.0 convolution are TI's paramDebug.csv scales of that
    layer (its last numeric column; two rows per layer: bias, then weights)."""
    path = NET_DIR / "edgeai-tidl-fcnn-cnn5-9.0" / "_cnn_cnn.5_relu_Relu_output_0_tidl_net.bin"
    if not path.is_file():
        pytest.skip("../shared/realdata not present")
    rows = [ln.split(",") for ln in _log(path, "_paramDebug.csv").read_text().splitlines()[1:] if ln.strip()]
    scales: dict[int, list[float]] = {}
    for r in rows:
        scales.setdefault(int(r[0]), []).append(float(r[10]))
    net = load_net(path)
    convs = [la for la in net.layers if la.type == "TIDL_ConvolutionLayer"]
    assert sorted(scales) == [la.index for la in convs]
    for la in convs:
        bias_scale, weight_scale = scales[la.index]
        assert la.params["biasScale"] == pytest.approx(bias_scale, rel=1e-6)
        assert la.params["weightScale"] == pytest.approx(weight_scale, rel=1e-6)


@pytest.mark.parametrize("path", _nets())
def test_names_and_order_match_layer_info(path: Path) -> None:
    net = load_net(path)
    lines = [ln.split(" ", 2) for ln in _log(path, ".layer_info.txt").read_text().splitlines() if ln.strip()]
    assert [int(a) for a, _, _ in lines] == list(range(len(net.layers)))
    for layer_id, data_id, name in lines:
        layer = net.layers[int(layer_id)]
        if layer.num_out < 0:  # TI writes dataId 0 here; tidl-io names it after its input, as the netLog does
            assert layer.name == net.layer_by_data_id(layer.inputs[0]).name
            continue
        assert layer.data_id == int(data_id)
        assert layer.name == name.strip()
        assert net.layer_by_name(layer.name).data_id == layer.data_id or layer.name in \
            [la.name for la in net.layers[: layer.index]]


@pytest.mark.parametrize("path", _nets())
def test_sections_inside_file_and_disjoint(path: Path) -> None:
    net = load_net(path)
    size = path.stat().st_size
    assert net.file_size == size
    spans = sorted((s.offset, s.end) for s in net.sections if s.size)
    assert spans[0][0] == 0 and all(a[1] <= b[0] for a, b in itertools.pairwise(spans)) and spans[-1][1] <= size
    structure = net.sections[0]
    assert structure.name == "structure" and structure.size % 64 == 0
    assert structure.size - 64 < net.layout.header_size + len(net.layers) * net.layout.layer_size <= structure.size


def test_ten_zero_sections_reach_the_end_of_the_file() -> None:
    path = NET_DIR / "real-time-llve-zero-dce-10.0" / "artifacts" / "74_tidl_net.bin"
    if not path.is_file():
        pytest.skip("../shared/realdata not present")
    net = load_net(path)
    assert max(s.end for s in net.sections) == path.stat().st_size == 1551948


@pytest.mark.parametrize("path", _nets())
def test_link_io_finds_each_io_tensor(path: Path) -> None:
    io = sorted(path.parent.glob("*_tidl_io_1.bin"))
    desc = tidl_io.load(io[0])
    net = load_net(path)
    links = net.link_io(desc)
    assert len(links) == desc.num_inputs + desc.num_outputs
    for (kind, i), link in links.items():
        assert link.ok, link.problems
        t = desc.input(i) if kind == "input" else desc.output(i)
        assert link.layer.data_id == t.data_id
        if kind == "input":
            assert link.layer in net.input_layers
        else:  # the output data layer reads what this layer writes
            assert any(link.layer.data_id in o.inputs for o in net.output_layers)


def test_public_names() -> None:
    assert tidl_io.load_net is load_net
    for name in ("load_net", "parse_net", "Network", "Layer"):
        assert name in tidl_io.__all__ and getattr(tidl_io, name) is not None


def test_readme_conv_line_tells_the_stride_from_the_buffer_pitches() -> None:
    """The README's ``net.layers[2]`` line (8.2 DeepLab): ``strideW`` is the conv stride (netLog: 512
    wide in, 256 out), and ``geometry.strides`` is said to be the buffer's element pitches (each
    line of 256 outputs and its pad: 257), with the numbers the file gives."""
    from conftest import ROOT

    net_file = NET_DIR / "bbai64-deeplabv3-mnv2-8.2" / "201_tidl_net.bin"
    if not net_file.is_file():
        pytest.skip("../shared/realdata not present")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    params = next(line for line in readme.splitlines() if line.startswith("conv = net.layers[2];"))
    pitches = next(line for line in readme.splitlines() if line.startswith("conv.geometry.strides"))
    assert 'conv.params["strideW"]' in params and "element pitches, not the conv stride" in pitches
    kernel_w, stride_w, scale = (float(v) for v in params.split("# (")[1].rstrip(")").split(","))
    first, *_, line_pitch, one = (v.strip() for v in pitches.split(": (")[1].rstrip(")").split(","))
    _, rows = _netlog(_log(net_file, "_netLog.txt"))
    in_w, out_w = rows[2]["in_dims"][3], rows[2]["out_dims"][3]
    conv = load_net(net_file).layers[2]
    assert (conv.params["kernelW"], conv.params["strideW"]) == (kernel_w, stride_w) == (3, in_w // out_w)
    assert conv.scale == pytest.approx(scale, abs=0.005)
    assert (conv.geometry.strides[0], conv.geometry.strides[-2], conv.geometry.strides[-1]) == \
        (int(first), int(line_pitch), int(one)) == (conv.geometry.strides[0], out_w + 1, 1)
