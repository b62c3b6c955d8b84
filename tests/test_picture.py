"""The SVG pictures: every number on them equals ``inspect --json`` / the raw TI fields, for
every corpus file; they parse as XML, escape names, and draw to scale only when they say so."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tidl_io
from tidl_io.cli.app import main
from tidl_io.iodesc.descriptor import make_descriptor
from tidl_io.iodesc.picture import svg_files, tensor_svg

from conftest import EXAMPLES, FIXTURES, corpus_params, real_files

NS = "{http://www.w3.org/2000/svg}"


def inspect_json(path: Path) -> dict:
    out, err = io.StringIO(), io.StringIO()
    assert main(["inspect", "--json", "--physical", str(path)], out=out, err=err) == 0, err.getvalue()
    (doc,) = json.loads(out.getvalue())["descriptors"]
    return doc


def json_tensors(doc: dict) -> list[dict]:
    """Tensors of a descriptor document and of its subgraphs, in picture order."""
    parts = [doc] + doc.get("subgraphs", [])
    return [t | {"kind": kind} for part in parts for kind in ("input", "output") for t in part[kind + "s"]]


def legend(root: ET.Element) -> dict[str, ET.Element]:
    return {e.get("data-key"): e for e in root.iter(NS + "text") if e.get("data-key")}


def raw_field(t: dict, suffix: str) -> int:
    return t["raw"][("in" if t["kind"] == "input" else "out") + suffix]


# Legend key -> (JSON physical key of the element count, JSON key of the byte count or None)
JSON_KEYS = {
    "line_pitch": ("line_pitch", None), "channel_pitch": ("channel_pitch", None),
    "dim2_pitch": ("dim2_pitch", None), "dim1_pitch": ("dim1_pitch", None), "batch_pitch": ("batch_pitch", None),
    "first_offset": ("first_offset", "first_byte_offset"), "valid_elements": ("valid_elements", None),
    "required_size": ("required_size", None), "buffer_size": ("buffer_size", "buffer_nbytes"),
    "slack_elements": ("slack_elements", "slack_bytes"),
}


@pytest.mark.parametrize("path", corpus_params())
def test_numbers_on_the_picture_equal_inspect_json(path: Path) -> None:
    doc = inspect_json(path)
    desc = tidl_io.load(path)
    tensors = [t for part in (desc, *desc.subgraphs) for t in part.inputs + part.outputs]
    expected = json_tensors(doc)
    assert len(tensors) == len(expected)
    for tensor, jt in zip(tensors, expected):
        root = ET.fromstring(tensor_svg(tensor))
        assert root.tag == NS + "svg"
        phys = jt["physical"]
        itemsize = None if phys["buffer_nbytes"] is None else phys["buffer_nbytes"] // max(phys["buffer_size"], 1)
        # root attributes: the same names as the JSON
        assert root.get("data-tensor") == jt["name"] and root.get("data-kind") == jt["kind"]
        for side in ("left", "top", "right", "bottom", "channel"):
            assert int(root.get(f"data-pad-{side[0] if side != 'channel' else 'ch'}")) == phys["pad"][side]
        for key in ("line_pitch", "channel_pitch", "dim2_pitch", "dim1_pitch", "batch_pitch", "first_offset",
                    "buffer_size", "slack_elements", "slack_bytes", "first_byte_offset", "buffer_nbytes"):
            assert int(root.get("data-" + key.replace("_", "-"))) == phys[key], key
        # visible legend: data-value equals the JSON, and the visible text shows that number
        labels = legend(root)
        shown: dict[str, int] = {}
        for key, elem in labels.items():
            if elem.get("data-value") is None or key == "scale":
                continue
            value = int(elem.get("data-value"))
            shown[key] = value
            assert re.search(rf"(?<![\d.]){value}(?![\d.])", elem.text or ""), (key, elem.text)
            if elem.get("data-bytes") is not None:
                assert f"{elem.get('data-bytes')} B" in elem.text
        pads = {"pad_l": ("PadL", "left"), "pad_t": ("PadT", "top"), "pad_r": ("PadR", "right"),
                "pad_b": ("PadB", "bottom"), "pad_ch": ("PadCh", "channel")}
        for key, (suffix, side) in pads.items():
            assert shown[key] == raw_field(jt, suffix) == phys["pad"][side], key
        for key, (count, nbytes) in JSON_KEYS.items():
            assert shown[key] == phys[count], key
            if nbytes is not None and phys[nbytes] is not None:
                assert int(labels[key].get("data-bytes")) == phys[nbytes], key
        assert shown["channel_pitch"] == raw_field(jt, "ChannelPitch")
        assert shown["tail_elements"] == phys["buffer_size"] - phys["required_size"]
        # the padded plane and the extra planes, from the raw TI fields
        w, h = raw_field(jt, "Width"), raw_field(jt, "Height")
        plane = (h + phys["pad"]["top"] + phys["pad"]["bottom"]) * (w + phys["pad"]["left"] + phys["pad"]["right"])
        groups = jt["shape"][0] * jt["shape"][1] * jt["shape"][2]
        assert shown["padded_plane"] == plane
        extra = 1 if jt["kind"] == "input" else phys["pad"]["channel"]
        assert shown["extra_planes"] == extra * plane * groups
        if jt["layout"] == "NCHW" and phys["channel_pitch"] < plane:
            assert shown["overlap"] == plane - phys["channel_pitch"]
        else:
            assert "overlap" not in shown
        if itemsize is not None:
            assert int(labels["line_pitch"].get("data-bytes")) == phys["line_pitch"] * itemsize


def next_plane_text(t: tidl_io.Tensor) -> str | None:
    elem = legend(ET.fromstring(tensor_svg(t))).get("next_plane")
    return None if elem is None else elem.text


# Independent reading (PROVENANCE.md): the real files whose stored channel pitch is smaller than
# the padded plane (H+padT+padB)·(W+padL+padR), so that neighbouring planes share pad rows.
OVERLAPPING = {
    ("ti-psdk-11.01__j721e__psdkra__tidl_models__tidl_io_onnx_tiad_jdakaze_pw2_1.bin", "input", 0):
        (296835, 387 * 769, 386, 1),  # 768x384, pads 1/1/0/2: line 769, chPitch 296835 = 386*769 + 1
    ("ti-psdk-11.01__j721e__psdkra__tidl_models__tidl_io_onnx_tiad_jdakaze_pw2_1.bin", "output", 0):
        (18915, 99 * 193, 98, 1),  # 192x96 C=64, pads 1/1/0/2: 18915 = 98*193 + 1
    ("ti-psdk-11.01__j721e__psdkra__tidl_models__tidl_io_onnx_tiad_jdakaze_pw2_1.bin", "output", 1):
        (365184, 474 * 771, 473, 501),  # 768x384 C=1 + outPadCh 1, pads 3/3/0/87
    ("ti-psdk-11.01__j721e__tivx__tidl_models__tidl_io_mobilenet_v1_1.bin", "input", 0):
        (50851, 227 * 225, 226, 1),  # 224x224, pads 1/1/0/2
    ("monodepth__fastdepth__artifacts__424_tidl_io_1.bin", "output", 0):
        (57920, 259 * 224, 258, 128),  # 224x224 uint8, pads 0/1/0/34, outPadCh 1
}


def test_real_files_with_a_channel_pitch_below_the_padded_plane(realdata: Path) -> None:
    found = {}
    for path in real_files():
        desc = tidl_io.load(path)
        for t in desc.inputs + desc.outputs:
            text = next_plane_text(t)
            if text and "share" in text:
                found[(path.name, t.kind, t.index)] = text
    assert set(found) == set(OVERLAPPING)
    for key, (pitch, plane, row, col) in OVERLAPPING.items():
        assert f"starts at element {pitch} = row {row}, col {col}" in found[key]
        assert f"share {plane - pitch} pad elements" in found[key]


def test_equal_pitch_and_gap_are_told_apart() -> None:
    volume = tidl_io.load(FIXTURES / "l3_c2_dims_tidl_io_1.bin").output("volume")  # 8 rows x 7 = 56 = pitch
    assert next_plane_text(volume) == "channel 1 starts right after this plane, at element 56"
    gap = _one({"width": 4, "height": 2, "num_channels": 2, "channel_pitch": 10})
    assert next_plane_text(gap) == "channel 1 starts at element 10, after a gap of 2 elements"
    assert next_plane_text(_one({"width": 4, "height": 2, "num_channels": 1, "channel_pitch": 8})) is None


def _one(fields: dict, kind: str = "input", family: str = "10.x") -> tidl_io.Tensor:
    base = {"width": 4, "height": 2, "num_channels": 1, "channel_pitch": 8, "num_batches": 1, "scale": 1.0}
    if family != "8.x":
        base |= {"dim1": 1, "dim2": 1}
    desc = make_descriptor(family, **{kind + "s": [base | fields]})
    return (desc.inputs if kind == "input" else desc.outputs)[0]


def rects(root: ET.Element, part: str) -> list[ET.Element]:
    return [r for r in root.iter(NS + "rect") if r.get("data-part") == part]


def test_small_planes_are_drawn_to_scale() -> None:
    t = tidl_io.load(FIXTURES / "l3_c2_dims_tidl_io_1.bin").output("volume")  # 6x5, pads 1/1/0/2
    root = ET.fromstring(tensor_svg(t))
    assert legend(root)["scale"].get("data-value") == "1" and legend(root)["scale"].text == "to scale"
    (plane,), (valid,) = rects(root, "plane"), rects(root, "valid")
    px = float(plane.get("width")) / 7  # line pitch 7 elements
    assert float(plane.get("height")) == pytest.approx(8 * px, abs=0.15)  # 1 + 5 + 2 rows
    assert float(valid.get("width")) == pytest.approx(6 * px, abs=0.15)
    assert float(valid.get("x")) - float(plane.get("x")) == pytest.approx(1 * px, abs=0.15)  # pad L 1
    assert float(valid.get("y")) - float(plane.get("y")) == pytest.approx(1 * px, abs=0.15)  # pad T 1


def test_thin_pads_make_a_labelled_schematic(realdata: Path) -> None:
    t = tidl_io.load(realdata / "ti-psdk-11.01__j721e__tivx__tidl_models__tidl_io_mobilenet_v1_1.bin").input(0)
    root = ET.fromstring(tensor_svg(t))
    assert legend(root)["scale"].get("data-value") == "0"
    assert "not to scale" in legend(root)["scale"].text
    texts = [e.text for e in root.iter(NS + "text")]
    assert {"pad L 1", "pad T 1 row(s)", "pad B 2 row(s)", "valid 224 x 224 elements"} <= set(texts)


def test_corner_cells_hold_their_element_index() -> None:
    t = tidl_io.load(EXAMPLES / "detector_tidl_io_1.bin").input(0)  # line pitch 161, pads L1 T1
    root = ET.fromstring(tensor_svg(t))
    cells = rects(root, "cell")
    assert cells
    texts = [e.text for e in root.iter(NS + "text")]
    for cell in cells:
        r, c = int(cell.get("data-row")), int(cell.get("data-col"))
        assert str(r * 161 + c) in texts
        assert cell.get("data-pad") == str(int(r < 1 or c < 1))
    (first,) = [c for c in cells if c.get("stroke") != "#ffffff"]
    assert (first.get("data-row"), first.get("data-col")) == ("1", "1")  # element 162 = 1*161 + 1


def test_nhwc_is_drawn_as_interleaved_pixels() -> None:
    t = tidl_io.load(FIXTURES / "l2_c4_nhwc_tidl_io_1.bin").input(0)  # 20x10x3, NHWC
    root = ET.fromstring(tensor_svg(t))
    row0 = sorted((int(c.get("data-col")), int(c.get("data-channel"))) for c in rects(root, "cell")
                  if c.get("data-row") == "0")
    assert [ch for _, ch in row0] == [k % 3 for k in range(len(row0))] and len(row0) >= 6
    texts = [e.text for e in root.iter(NS + "text")]
    assert "valid 20 x 10 pixels" in texts and "60" in texts  # row 1 starts at element 3*20


def test_names_are_escaped_and_xml_safe() -> None:
    name = '<script>alert(1)</script>&"\'\x01'
    t = _one({"name_bytes": name.encode()})
    svg = tensor_svg(t)
    assert "<script" not in svg
    root = ET.fromstring(svg)  # would fail on a raw \x01 or an unescaped <
    assert root.get("data-tensor") == '<script>alert(1)</script>&"\'\\x01'
    assert root.find(NS + "title").text == 'input 0 <script>alert(1)</script>&"\'\\x01'


def test_undrawable_geometry_still_gives_a_picture() -> None:
    t = _one({"width": 0, "pad_l": -3, "element_type": 42})
    root = ET.fromstring(tensor_svg(t))
    assert "cannot draw the planes" in legend(root)["problem"].text
    assert legend(root)["pad_l"].get("data-value") == "-3"
    assert root.get("data-buffer-nbytes") is None  # unknown element type: no byte counts
    assert "? B" in legend(root)["buffer_size"].text


def test_svg_file_names() -> None:
    desc = tidl_io.load(FIXTURES / "container_l3_c1_tidl_io_1.bin")
    names = [n for n, _ in svg_files([("a/x y_tidl_io_1.bin", desc), ("b/x y_tidl_io_1.bin", desc)])]
    assert names[:4] == ["x_y_tidl_io_1.input0.svg", "x_y_tidl_io_1.output0.svg", "x_y_tidl_io_1.sg0.input0.svg",
                         "x_y_tidl_io_1.sg0.output0.svg"]
    assert names[6] == "x_y_tidl_io_1-2.input0.svg" and len(set(names)) == len(names) == 12


geometry = st.integers(-3, 40) | st.sampled_from([0, 1, 2**31 - 1, -(2**31)])


@settings(max_examples=150, deadline=None)
@given(w=geometry, h=geometry, c=geometry, pitch=geometry, pads=st.lists(geometry, min_size=5, max_size=5),
       dims=st.lists(st.integers(-1, 5), min_size=3, max_size=3), layout=st.integers(-1, 2),
       kind=st.sampled_from(["input", "output"]), etype=st.integers(-1, 9))
def test_any_geometry_gives_well_formed_svg(w, h, c, pitch, pads, dims, layout, kind, etype) -> None:
    fields = {"width": w, "height": h, "num_channels": c, "channel_pitch": pitch, "pad_l": pads[0],
              "pad_t": pads[1], "pad_r": pads[2], "pad_b": pads[3], "pad_ch": pads[4], "num_batches": dims[0],
              "dim1": dims[1], "dim2": dims[2], "layout_code": layout, "element_type": etype}
    root = ET.fromstring(tensor_svg(_one(fields, kind)))
    assert root.tag == NS + "svg" and int(root.get("height")) > 100
    labels = legend(root)
    assert int(labels["pad_b"].get("data-value")) == pads[3]
    assert int(labels["padded_plane"].get("data-value")) == (h + pads[1] + pads[3]) * (w + pads[0] + pads[2])
    assert len([r for r in root.iter(NS + "rect") if r.get("data-part") == "cell"]) <= 6 * 12
    drawable = min(w, h, c, pitch, *dims) > 0 and min(pads[:4]) >= 0 and (kind == "input" or pads[4] >= 0)
    assert ("problem" not in labels) == drawable


def test_many_planes_are_drawn_per_group(realdata: Path) -> None:
    """ssdLite's first output: 1 float and outPadCh 1151 (PROVENANCE.md): too many planes to draw
    one by one, so the bar shows the channel planes and the outPadCh planes as two spans."""
    desc = tidl_io.load(realdata / "bbai64__go__model__ssdLite-mobDet-DSP-coco-320x320__artifacts__321_tidl_io_1.bin")
    texts = [e.text for e in ET.fromstring(tensor_svg(desc.output(0))).iter(NS + "text")]
    assert "1151 outPadCh planes" in texts
    assert "the first outPadCh plane starts right after this plane, at element 1" in texts
