"""``tidl-io inspect NET.bin``: the text table and --json checked against TI's netLog of each
real net (parsed by test_net_real's own parser), the fixtures, exit codes, folders, --html/--svg."""

from __future__ import annotations

import io
import json
import re
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from net_fixtures import V1101, sample_layers
from test_net_real import _log, _netlog, _nets

from tidl_io.cli.app import main
from tidl_io.net import parse_net
from tidl_io.net.build import build_net
from tidl_io.net.graph import net_svg, ranks

from conftest import REALDATA


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def fixture_net(tmp_path: Path) -> Path:
    path = tmp_path / "fx_tidl_net.bin"
    path.write_bytes(build_net(V1101, sample_layers(V1101), cores=4))
    return path


@pytest.mark.parametrize("path", _nets())
def test_json_layers_match_netlog(path: Path) -> None:
    code, out, err = run("inspect", "--json", str(path))
    assert code == 0, err
    doc = json.loads(out)  # one net file: the document is the net itself, as the issue promises
    assert doc["schema_version"] == 1 and doc["path"] == str(path) and "nets" not in doc
    assert doc["release"].split("/")[0] in path.as_posix() and doc["net_version_hex"] == f"{doc['net_version']:#010x}"
    _, rows = _netlog(_log(path, "_netLog.txt"))
    by_id = {la["data_id"]: la for la in doc["layers"] if la["num_out"] > 0}
    for row in rows:
        if row["outs"] < 0:
            continue
        la = by_id[row["out_id"]]
        assert (la["type"], la["inputs"], la["dims"]) == (row["type"], row["inputs"], row["out_dims"])
        assert set(la) >= {"index", "type", "name", "inputs", "data_id", "shape", "element_type", "scale",
                           "zero_point", "pads", "pitches"}
    outputs = [r for r in rows if r["outs"] < 0]  # TI's netLog: #Outs -1, an output data layer
    assert outputs and len(outputs) == sum(la["role"] == "output" for la in doc["layers"])
    for la in doc["layers"]:
        defined = la["role"] != "output"
        for key in ("data_id", "shape", "element_type", "element_code", "scale", "zero_point", "pads", "pitches"):
            assert (la[key] is not None) == defined, (la["index"], key, la[key])
        assert la["element_type"] is None or la["element_type"][0].isupper()  # a name, never a number


@pytest.mark.parametrize("path", _nets())
def test_text_table_has_a_row_per_layer_in_execution_order(path: Path) -> None:
    code, out, _ = run("inspect", str(path))
    assert code == 0
    count, rows = _netlog(_log(path, "_netLog.txt"))
    lines = out.splitlines()
    assert re.search(r"TIDL network, netVersion 0x[0-9a-f]{8} \(TIDL [0-9./]+, layout ", lines[0])
    table = lines[3:]
    assert len(table) == count and [int(t.split()[0]) for t in table] == list(range(count))
    types = {r["out_id"]: r["type"][5:-5] for r in rows if r["outs"] > 0}
    for line in table:
        cells = line.split()
        if "(output)" not in line:
            data_id = int(cells[-6])
            assert cells[1] == types[data_id], line


def test_fixture_text_and_exit_codes(fixture_net: Path, tmp_path: Path) -> None:
    code, out, _ = run("inspect", str(fixture_net))
    assert code == 0 and "layout 11.0/c4, 1 core(s)), 9 layers" in out
    assert re.search(r"^\s+1\s+DataConvert\s+0\s+1\s+int8\s+1x3x32x48\s+2\s+-3\s+1/1$", out, re.MULTILINE), out
    bad = tmp_path / "bad_tidl_net.bin"
    data = bytearray(fixture_net.read_bytes())
    struct.pack_into("<I", data, 0, 0x20990101)
    bad.write_bytes(bytes(data))
    code, out, err = run("inspect", str(bad))
    assert code == 1 and out == "" and err.count("\n") == 1 and "netVersion 0x20990101" in err
    bad.write_bytes(fixture_net.read_bytes()[:5000])
    code, _, err = run("inspect", str(bad))
    assert code == 1 and err.count("\n") == 1 and "truncated" in err and "TIDLLayers[2]" in err
    assert run("inspect", str(tmp_path / "none_tidl_net.bin"))[0] == 2  # nothing there: could not do the job
    assert run("inspect", "--json", "--html", str(fixture_net))[0] == 2


def test_folder_shows_io_then_net() -> None:
    folder = REALDATA / "net" / "bbai64-deeplabv3-mnv2-8.2"
    if not folder.is_dir():
        pytest.skip("../shared/realdata not present")
    code, out, _ = run("inspect", str(folder))
    assert code == 0
    io_at, net_at = out.index("201_tidl_io_1.bin: TIDL"), out.index("201_tidl_net.bin: TIDL network")
    assert io_at < net_at
    code, out, _ = run("inspect", "--json", str(folder))
    doc = json.loads(out)
    assert len(doc["descriptors"]) == 1 and len(doc["nets"]) == 1 and doc["nets"][0]["release"] == "8.2"


def test_json_document_always_has_both_arrays(fixture_net: Path, tmp_path: Path) -> None:
    """A net that fails alone, an io file alone, a net plus an io file: descriptors and nets both
    present; one net file read alone is the net object (its element_type names are TI's)."""
    from conftest import EXAMPLES

    bad = tmp_path / "bad_tidl_net.bin"
    bad.write_bytes(fixture_net.read_bytes()[:100])
    code, out, err = run("inspect", "--json", str(bad))
    doc = json.loads(out)
    assert code == 1 and err and doc["descriptors"] == [] and doc["nets"] == []  # a cut net: a finding
    assert [e["path"] for e in doc["errors"]] == [str(bad)]  # said in the document too, not only on stderr
    assert "offset 0x64" in doc["errors"][0]["message"] and "truncated" in doc["errors"][0]["message"]
    io_file = EXAMPLES / "detector_tidl_io_1.bin"
    doc = json.loads(run("inspect", "--json", str(io_file))[1])
    assert len(doc["descriptors"]) == 1 and doc["nets"] == []
    doc = json.loads(run("inspect", "--json", str(io_file), str(fixture_net))[1])
    assert len(doc["descriptors"]) == 1 and len(doc["nets"]) == 1
    one = json.loads(run("inspect", "--json", str(fixture_net))[1])
    assert [la["element_type"] for la in one["layers"][:3]] == ["UnsignedChar", "SignedChar", "SignedChar"]
    assert [la["element_code"] for la in one["layers"][:3]] == [0, 1, 1]


def test_json_release_and_releases_name_the_same_releases(fixture_net: Path) -> None:
    """release is the printed label ("11.1"), releases TI's numbering (["11.01"]): the same ones."""
    doc = json.loads(run("inspect", "--json", str(fixture_net))[1])
    assert doc["release"] == "11.1" and doc["releases"] == ["11.01"]


def test_graph_svg(fixture_net: Path, tmp_path: Path) -> None:
    net = parse_net(fixture_net.read_bytes())
    assert ranks(net) == [0, 1, 2, 3, 4, 4, 5, 6, 7]
    root = ET.fromstring(net_svg(net))
    nodes = root.findall(".//{http://www.w3.org/2000/svg}g")
    assert [int(g.get("data-layer")) for g in nodes] == list(range(9))
    edges = [p for p in root.iter("{http://www.w3.org/2000/svg}path") if p.get("data-edge")]
    assert sorted(p.get("data-edge") for p in edges) == sorted({f"{a}-{b}" for a, b, _ in net.edges})
    code, _, _ = run("inspect", "--svg", str(fixture_net), "-o", str(tmp_path / "svg"))
    assert code == 0 and [p.name for p in (tmp_path / "svg").iterdir()] == ["fx_tidl_net.graph.svg"]
    code, page, _ = run("inspect", "--html", str(fixture_net))
    assert code == 0 and page.count('class="tidl-io-net"') == 1 and 'data-tidl-io-nets="1"' in page


def test_hostile_layer_name_is_escaped(tmp_path: Path) -> None:
    path = tmp_path / "evil_tidl_net.bin"
    path.write_bytes(build_net(V1101, sample_layers(V1101), cores=1))
    rest = "".join(f"{i} {i} layer{i}\n" for i in range(1, 8)) + "8 0 out\n"  # a line per layer: names are used
    (tmp_path / "evil_tidl_net.bin.layer_info.txt").write_text('0 0 <script>alert(1)</script>"x\n' + rest)
    code, page, _ = run("inspect", "--html", str(path))
    assert code == 0 and "<script>" not in page and "&lt;script&gt;" in page


def test_control_characters_in_names_reach_no_terminal(tmp_path: Path) -> None:
    """layer_info.txt is text anyone can edit: an escape sequence in a name must not drive the
    terminal, nor a tab break the columns; the table shows them as Python escapes."""
    path = tmp_path / "evil_tidl_net.bin"
    path.write_bytes(build_net(V1101, sample_layers(V1101), cores=1))
    rest = "".join(f"{i} {i} layer{i}\n" for i in range(2, 8)) + "8 0 out\n"  # a line per layer: names are used
    (tmp_path / "evil_tidl_net.bin.layer_info.txt").write_text("0 0 \x1b[31mred\x07\n1 1 a\tb\n" + rest)
    code, text, _ = run("inspect", str(path))
    assert code == 0 and not any(ord(c) < 32 for c in text.replace("\n", "")), repr(text)
    rows = text.splitlines()
    assert "\\x1b[31mred\\x07" in rows[3] and "a\\tb" in rows[4]


def test_readme_shows_the_example_as_inspect_prints_it(readme_cwd: Path) -> None:
    from conftest import ROOT

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("For the bundled example:\n\n```text\n", 1)[1].split("\n```", 1)[0]
    code, out, _ = run("inspect", "tidl_io/examples/detector_tidl_net.bin")
    assert code == 0 and out.rstrip("\n") == block


def test_physical_columns_follow_the_pitches() -> None:
    from conftest import EXAMPLES

    code, out, _ = run("inspect", "--physical", str(EXAMPLES / "detector_tidl_net.bin"))
    assert code == 0
    row = next(line.split() for line in out.splitlines() if "images_netFormat" in line)
    chan, line = (int(v) for v in row[-3].split("/")[3:])
    first = 1 * line + 1  # padH * line pitch + padW, pads 1/1
    last = first + 2 * chan + 95 * line + 159  # element (c=2, h=95, w=159) of 1x3x96x160, uint8
    assert (int(row[-2]), int(row[-1])) == (first, last + 1)
    assert run("inspect", "--json", str(EXAMPLES / "detector_tidl_net.bin"))[1].count('"releases": ["10.00"]') == 1
