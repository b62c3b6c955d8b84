"""tidl_io.perf.diff: two compilations matched by layer name, against fixtures whose
differences are made here."""

from __future__ import annotations

import json
from pathlib import Path

from tidl_io import load_perf
from tidl_io.perf import diff_perf

from perf_fixtures import TINY_SIM_NAME, write_tiny


def test_same_folder_is_unchanged(tmp_path: Path) -> None:
    a = load_perf(write_tiny(tmp_path / "a"))
    d = diff_perf(a, load_perf(write_tiny(tmp_path / "b")))
    assert not d.changed and [r.name for r in d.subgraphs[0].rows] == ["image", "conv1", "conv2", "conv2"]
    assert d.subgraphs[0].rows[1].ratio == 1.0


def test_a_slower_layer_and_a_renamed_one(tmp_path: Path) -> None:
    a = load_perf(write_tiny(tmp_path / "a"))
    b_dir = write_tiny(tmp_path / "b")
    sim = b_dir / "tempDir" / "tiny_tidl_net" / TINY_SIM_NAME
    sim.write_text(sim.read_text().replace("  300.25,300250.00", "  600.50,600500.00"))
    info = b_dir / "tempDir" / "tiny_tidl_net.bin.layer_info.txt"
    info.write_text(info.read_text().replace("1 1 conv1", "1 1 first"))
    d = diff_perf(a, load_perf(b_dir))
    rows = d.subgraphs[0].rows
    assert [(r.name, r.a is not None, r.b is not None) for r in rows] == [
        ("image", True, True), ("conv1", True, False), ("conv2", True, True), ("conv2", True, True),
        ("first", False, True)]
    assert rows[2].ratio == 600.5 / 300.25 and rows[3].ratio is None  # the output data layer: 0 µs both
    assert d.changed
    doc = json.loads(json.dumps(d.to_dict(), allow_nan=False))
    assert doc["schema_version"] == 1 and doc["subgraphs"][0]["layers"][2]["b"]["time_us"] == 600.5
    text = d.to_text()
    assert "absent" in text and "2.00" in text
    assert d.to_text(top=1).count("conv2") == 1


def test_names_with_control_characters_are_escaped(tmp_path: Path) -> None:
    """diff's text escapes a layer name the way base.text.escape does (ESC as ``\\x1b``, DEL as ``\\x7f``)."""
    a = load_perf(write_tiny(tmp_path / "a"))
    b_dir = write_tiny(tmp_path / "b")
    info = b_dir / "tempDir" / "tiny_tidl_net.bin.layer_info.txt"
    info.write_text(info.read_text().replace("1 1 conv1", "1 1 c\x1b[2J\x7fv"))
    text = diff_perf(a, load_perf(b_dir)).to_text()
    assert "\x1b" not in text and "\x7f" not in text and "c\\x1b[2J\\x7fv" in text
