"""tidl_io.load_support against the real model folders: counts read literally here (str.split of
graphvizInfo.txt / allowedNode.txt, run.log's table), and hand-made folders."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

import tidl_io
from tidl_io import FormatError, PathNotFoundError
from tidl_io.support import Status

from conftest import REALDATA

NET = REALDATA / "net"
MODELS = {"od-8220-yolox-10.0": "artifacts", "edgeai-tidl-east-9.0": ".", "real-time-llve-zero-dce-10.0": "artifacts"}


def _need(p: Path) -> Path:
    if not p.exists():
        pytest.skip("../shared/realdata not present")
    return p


def _allowed(path: Path) -> list[list[int]]:
    values = [int(v) for v in path.read_text().split()]
    groups, pos = [], 1
    for _ in range(values[0]):
        n = values[pos]
        groups.append(values[pos + 1:pos + 1 + n])
        pos += 1 + n
    return groups


@pytest.mark.parametrize("model", sorted(MODELS))
def test_counts_equal_a_literal_reading(model: str) -> None:
    folder = _need(NET / model)
    art = folder / MODELS[model]
    report = tidl_io.load_support(folder)
    lines = (art / "tempDir" / "graphvizInfo.txt").read_text().splitlines()[1:]
    diags = [line.partition(" diagInfo")[2].lower() for line in lines]
    groups = _allowed(art / "allowedNode.txt")
    taken = {v for g in groups for v in g}
    c = report.counts
    assert c["total"] == len(lines)
    assert c["unsupported"] == sum("not supported" in d for d in diags)
    assert c["supported"] == len(lines) - c["unsupported"]
    assert c["on_tidl"] == len(taken) and c["on_arm"] == len(lines) - len(taken)
    assert report.subgraphs is not None and [s.nodes for s in report.subgraphs] == [len(g) for g in groups]
    for k, g in enumerate(groups):
        assert {n.index for n in report.nodes if n.subgraph == k} == set(g)
    doc = json.loads(json.dumps(report.to_dict(), allow_nan=False))
    assert doc["schema_version"] == 1 and doc["counts"]["total"] == len(lines)
    assert [n["name"] for n in doc["nodes"]] == [" ".join(x.split(" outputAdjNodes ")[0].split(" ")[1:-1])
                                                 for x in lines]
    assert {tuple(sorted(n["name"] for n in doc["nodes"] if n["subgraph"] == k)) for k in range(len(groups))} == {
        tuple(sorted(doc["nodes"][i]["name"] for i in g)) for g in groups}


def test_od_8220_agrees_with_run_log() -> None:
    folder = _need(NET / "od-8220-yolox-10.0")
    report = tidl_io.load_support(folder)
    row = next(line for line in (folder / "run.log").read_text(errors="replace").splitlines()
               if line.startswith("| C7x"))
    nodes, subgraphs = (int(c) for c in row.strip("| \n").split("|")[1:3])
    assert (nodes, subgraphs) == (271, 1)
    assert report.counts["on_tidl"] == nodes and report.subgraphs is not None and len(report.subgraphs) == subgraphs
    assert report.counts["supported"] == 271 and report.problems == () and report.ok
    info = [g for g in report.groups if g.reason.startswith("INFORMATION: Not part of backbone")]
    assert sum(g.count for g in info) == 82 and all(g.advice for g in info)


def test_east_names_the_div_and_its_advice() -> None:
    report = tidl_io.load_support(_need(NET / "edgeai-tidl-east-9.0"))
    first = report.groups[0]
    assert (first.status, first.op, first.nodes, first.on_arm) == (Status.UNSUPPORTED, "Div", ("Div_192",), 1)
    assert first.advice and "Mul" in first.advice
    assert report.node("Div_192").on_arm and not report.ok
    assert report.subgraphs is not None and [s.name for s in report.subgraphs] == [
        "onnx::Div_622onnx::Concat_616output", "625"]
    text = report.to_text()
    assert "1 node Div (unsupported) [1 on the ARM]" in text and "2 subgraph(s) (TIDL's limit 16)" in text
    assert "runs on the ARM" in report.to_text(node="Div_192")
    with pytest.raises(KeyError, match="closest: 'Div_192'"):
        report.node("Div_19")
    assert report.node("119").name == "Div_192"


def _folder(tmp_path: Path, graph: str, allowed: str | None = None, log: str | None = None,
            param: str | None = None) -> Path:
    art = tmp_path / "artifacts"
    (art / "tempDir").mkdir(parents=True)
    (art / "tempDir" / "graphvizInfo.txt").write_text(graph)
    if allowed is not None:
        (art / "allowedNode.txt").write_text(allowed)
    if log is not None:
        (tmp_path / "run.log").write_text(log)
    if param is not None:
        (tmp_path / "param.yaml").write_text(param)
    return tmp_path


GRAPH = """3
0 a Conv outputAdjNodes 1 1 inputAdjNodes 0 input diagInfo
1 b Div outputAdjNodes 1 2 inputAdjNodes 1 0 diagInfo Layer type not supported by TIDL --- layer type - Div
2 c Relu outputAdjNodes 0 out inputAdjNodes 1 1 diagInfo
"""
LOG = """------------------------- Subgraph Information Summary -------------------------
| C7x                     |                     2 |                       2 |
| CPU                     |                     1 |                       x |
"""


def test_hand_made_folder(tmp_path: Path) -> None:
    folder = _folder(tmp_path, GRAPH, "2\n1\n0\n1\n2\n", LOG, "session:\n  runtime_options:\n    max_num_subgraphs: 1\n")
    r = tidl_io.load_support(folder)
    assert [(n.name, n.status.value, n.subgraph) for n in r.nodes] == [
        ("a", "supported", 0), ("b", "unsupported", None), ("c", "supported", 1)]
    assert r.max_subgraphs == 1 and r.problems == () and not r.ok
    assert "2 subgraphs, but TIDL offloads at most 1" in r.to_text()
    # the same from tempDir and from the file itself
    assert tidl_io.load_support(folder / "artifacts" / "tempDir").counts == r.counts
    assert tidl_io.load_support(folder / "artifacts" / "tempDir" / "graphvizInfo.txt").counts == r.counts


def test_disagreeing_run_log_is_a_problem(tmp_path: Path) -> None:
    r = tidl_io.load_support(_folder(tmp_path, GRAPH, "1\n2\n0\n2\n", LOG))
    assert any("C7x 2 subgraph(s), but allowedNode.txt has 1" in p for p in r.problems)
    assert any("run.log: line 2" in p for p in r.problems)


def test_without_allowed_nodes(tmp_path: Path) -> None:
    r = tidl_io.load_support(_folder(tmp_path, GRAPH))
    assert r.subgraphs is None and all(n.subgraph is None for n in r.nodes)
    assert "on_arm" not in r.counts and any("no allowedNode.txt" in n for n in r.notes)


@pytest.mark.parametrize("allowed, match", [("2\n1\n0\n", "allowedNode.txt"), ("x\n", "line 1")])
def test_malformed_sidecar_is_located(tmp_path: Path, allowed: str, match: str) -> None:
    with pytest.raises(FormatError, match=match):
        tidl_io.load_support(_folder(tmp_path, GRAPH, allowed))


def test_missing(tmp_path: Path) -> None:
    with pytest.raises(PathNotFoundError, match="no graphvizInfo.txt"):
        tidl_io.load_support(tmp_path)
    with pytest.raises(PathNotFoundError):
        tidl_io.load_support(tmp_path / "nope")


def test_real_tempdir_copy_cut_short(tmp_path: Path) -> None:
    src = _need(NET / "edgeai-tidl-east-9.0" / "tempDir" / "graphvizInfo.txt")
    (tmp_path / "tempDir").mkdir()
    data = src.read_bytes()
    (tmp_path / "tempDir" / "graphvizInfo.txt").write_bytes(data[:len(data) // 2])
    shutil.copy(src.parent.parent / "allowedNode.txt", tmp_path)
    with pytest.raises(FormatError, match=r"graphvizInfo.txt.*(cut short|line \d+)"):
        tidl_io.load_support(tmp_path)


@pytest.mark.parametrize("param", ["[" * 5000 + "]" * 5000,
                                   "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
                                       f"{k}: &{k} [{', '.join([f'*{p}'] * 9)}]\n" for p, k in zip("abcdefgh", "bcdefghi"))])
def test_hostile_param_yaml_is_a_note(tmp_path: Path, param: str) -> None:
    """param.yaml through the one bounded YAML reader (issue 24): 5 000 brackets were a
    RecursionError traceback; an alias bomb is refused before it is built."""
    r = tidl_io.load_support(_folder(tmp_path, GRAPH, "2\n1\n0\n1\n2\n", LOG, param))
    assert any("param.yaml: not read" in n and "default limit" in n for n in r.notes), r.notes


@pytest.mark.parametrize("name", ["graphvizInfo.txt", "allowedNode.txt"])
def test_bytes_that_are_not_text_are_a_located_error_not_replaced(tmp_path: Path, name: str) -> None:
    folder = _folder(tmp_path, GRAPH, "2\n1\n0\n1\n2\n")
    path = next(folder.rglob(name))
    data = path.read_bytes()
    at = data.index(b"\n") + 1  # the start of line 2
    path.write_bytes(data[:at] + b"\xff\xfe" + data[at:])
    with pytest.raises(FormatError, match=rf"{name}, offset {at:#x}, line 2: byte 0xff is not UTF-8"):
        tidl_io.load_support(folder)


def test_node_by_index_name_or_wrong_kind(tmp_path: Path) -> None:
    r = tidl_io.load_support(_folder(tmp_path, GRAPH))
    assert r.node(1).name == "b" and r.node("1").name == "b" and r.node("c").index == 2  # an int is an index
    assert "node 1 b (Div)" in r.to_text(node=1)
    for missing in (3, -1, "²", "٣", "9" * 5000, "\u4e00" * 500_000):  # "²".isdigit() is True, but int("²") fails;
        start = time.process_time()  # "٣" is an Arabic-Indic 3; 5000 digits were a ValueError (the digit limit)
        with pytest.raises(tidl_io.TensorNotFoundError) as err:
            r.node(missing)
        assert time.process_time() - start < 0.5 and len(str(err.value)) < 300
    for wrong in (1.5, True, None, b"b"):
        with pytest.raises(tidl_io.ArgumentTypeError, match="node"):
            r.node(wrong)  # type: ignore[arg-type]


def test_repr_is_short(tmp_path: Path) -> None:
    """SupportReport printed every node with TI's reasons (84 KB on od-8220): 200 nodes here, a
    Conv and a Div (unsupported) in turn."""
    lines = [f"{k} n{k} Conv outputAdjNodes 0 out inputAdjNodes 0 input diagInfo" if k % 2 == 0 else
             f"{k} n{k} Div outputAdjNodes 0 out inputAdjNodes 0 input diagInfo Layer type not supported by TIDL "
             "--- layer type - Div" for k in range(200)]
    r = tidl_io.load_support(_folder(tmp_path, "200\n" + "\n".join(lines) + "\n"))
    text = repr(r)
    assert len(text) <= 300 and text.startswith("SupportReport(") and "graphvizInfo.txt" in text
    for part in ("nodes=200", "supported=100", "unsupported=100", "subgraphs=None", "problems=0"):
        assert part in text


ALLOWLISTING = """3
0 a Conv outputAdjNodes 1 1 inputAdjNodes 0 input diagInfo
1 b Mul outputAdjNodes 1 2 inputAdjNodes 1 0 diagInfo ALLOWLISTING : ADD/MUL/SUB layer : The variable inputs of \
layer must have 4 dimensions  --  file info - tidl_import_common.cpp , TIDL_checkAddMulSubDivTensorProperties , 171
2 c Relu outputAdjNodes 0 out inputAdjNodes 1 1 diagInfo Conv looks fine to me
"""


def test_allowlisting_rejection_is_unsupported_with_ti_words(tmp_path: Path) -> None:
    r = tidl_io.load_support(_folder(tmp_path, ALLOWLISTING, "2\n1\n0\n1\n2\n"))
    b = r.node("b")
    assert b.status is Status.UNSUPPORTED and b.on_arm
    assert b.reason == "ALLOWLISTING : ADD/MUL/SUB layer : The variable inputs of layer must have 4 dimensions"
    assert b.origin == "tidl_import_common.cpp:171 (TIDL_checkAddMulSubDivTensorProperties)"
    assert r.counts["unsupported"] == 1 and r.counts["unknown"] == 1
    # unknown only for text of none of TI's forms, and the report says so (text and JSON)
    assert r.node("c").status is Status.UNKNOWN
    note = [n for n in r.notes if "none of TI's" in n]
    assert len(note) == 1 and "'c'" in note[0] and "subgraph 1" in note[0]
    assert note[0] in r.to_dict()["notes"] and note[0] in r.to_text()


def test_a_graphviz_file_past_16_mib_is_refused_from_its_size(tmp_path: Path) -> None:
    """The second probe of issue 32: a file of 10^6 nodes, refused at line 1, was read whole first (323 MB)."""
    (tmp_path / "tempDir").mkdir()
    with open(tmp_path / "tempDir" / "graphvizInfo.txt", "wb") as fh:
        fh.write(b"1000000\n")
        fh.truncate((16 << 20) + 1)
    with pytest.raises(FormatError, match="larger than 16 MiB"):
        tidl_io.load_support(tmp_path)
