"""The sidecar files beside a compiled model (tidl_io.doctor.sidecars): allowedNode.txt read against the real
ones (oracle: onnxrtMetaData.txt's numGraphNodes, an independent file of the same import), and each
disagreement of onnxrtMetaData.txt / allowedNode.txt / param.yaml with the io files as one located line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from tidl_io import FormatError
from tidl_io.artifacts.folder import parse_allowed_nodes
from tidl_io.doctor.checks import diagnose

from conftest import EXAMPLES

EAST, ZERO_DCE = "edgeai-tidl-east-9.0", "real-time-llve-zero-dce-10.0"


def test_real_allowed_nodes(realdata: Path) -> None:
    net = realdata / "net"
    assert parse_allowed_nodes((net / EAST / "allowedNode.txt").read_text()) == (tuple(range(119)), (120,))
    assert parse_allowed_nodes((net / "bbai64-deeplabv3-mnv2-8.2" / "allowedNode.txt").read_text()) == \
        (tuple(range(81)),)
    assert parse_allowed_nodes((net / ZERO_DCE / "artifacts" / "allowedNode.txt").read_text()) == (tuple(range(51)),)


def test_sidecar_allowed_nodes_cover_numgraphnodes(realdata: Path) -> None:
    # every sidecar set with onnxrtMetaData.txt: one subgraph offloading the whole ONNX graph, so its
    # node list is 0 .. numGraphNodes-1 (the EAST model leaves node 119 to the ARM side)
    checked = 0
    for meta in sorted((realdata / "sidecar").glob("*.onnxrtMetaData.txt")):
        nodes = int(meta.read_text().splitlines()[0].split("=")[1])
        groups = parse_allowed_nodes(Path(str(meta).replace("onnxrtMetaData", "allowedNode")).read_text())
        flat = sorted(n for g in groups for n in g)
        assert flat == (list(range(nodes)) if "east" not in meta.name else [*range(119), 120]), meta.name
        checked += 1
    assert checked == 4


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty"),
    ("1\n2\n0\nx\n", "line 4: expected a whole number, found 'x'"),
    ("2\n1\n0\n", "ends after 1 of 2 subgraphs"),
    ("1\n3\n0\n1\n", "line 2: subgraph 0 lists 3 nodes, but 2 lines follow"),
    ("1\n1\n0\n7\n", "line 4: 1 more line(s) after the 1 subgraph(s)"),
    ("-1\n", "line 1: number of subgraphs must be >= 0, found -1"),
])
def test_malformed_allowed_nodes(text: str, message: str) -> None:
    with pytest.raises(FormatError, match=message.replace("(", r"\(").replace(")", r"\)")) as err:
        parse_allowed_nodes(text, "a/allowedNode.txt")
    assert str(err.value).startswith("a/allowedNode.txt: ")


# ---- disagreements, one located line each ------------------------------------------------

@pytest.fixture
def east(realdata: Path, tmp_path: Path) -> Path:
    """Subgraph '625' of the real EAST folder, with sidecars that agree with it."""
    folder = tmp_path / "east"
    folder.mkdir()
    for name in ("625_tidl_net.bin", "625_tidl_io_1.bin"):
        shutil.copy(realdata / "net" / EAST / name, folder / name)
    (folder / "onnxrtMetaData.txt").write_text("numGraphNodes=121\n0:subGraphName=625\n"
                                               "0:inDataNames=onnx::Concat_616,onnx::Concat_624\n0:outDataNames=625\n")
    (folder / "allowedNode.txt").write_text("1\n1\n120\n")
    assert diagnose(folder, check_library=False).ok
    return folder


@pytest.fixture
def zero_dce(realdata: Path, tmp_path: Path) -> Path:
    """The real zero-dce model folder with a param.yaml that agrees with its artifacts."""
    model = tmp_path / "zdce"
    shutil.copytree(realdata / "net" / ZERO_DCE / "artifacts", model / "artifacts",
                    ignore=shutil.ignore_patterns("tempDir"))
    param = yaml.safe_load((realdata / "net" / ZERO_DCE / "param.yaml").read_text())
    param["session"]["output_details"] = [{"name": "StatefulPartitionedCall_1:0", "shape": [1, 400, 600, 3]}]
    (model / "param.yaml").write_text(yaml.safe_dump(param))
    assert diagnose(model, check_library=False).ok
    return model


def only_error(path: Path) -> str:
    found = diagnose(path, check_library=False)
    assert len(found.errors) == 1, [str(f) for f in found.errors]
    return str(found.errors[0])


def test_metadata_names_disagree(east: Path) -> None:
    meta = east / "onnxrtMetaData.txt"
    meta.write_text(meta.read_text().replace("onnx::Concat_624", "other"))
    assert only_error(east) == (f"error: {meta}, subgraph 0 '625', 0:inDataNames: 'onnx::Concat_616,other', but "
                                f"625_tidl_io_1.bin has 'onnx::Concat_616,onnx::Concat_624'")


def test_metadata_misses_an_io_file(east: Path) -> None:
    shutil.copy(east / "625_tidl_io_1.bin", east / "9_tidl_io_1.bin")
    shutil.copy(east / "625_tidl_net.bin", east / "9_tidl_net.bin")
    assert only_error(east) == (f"error: {east / 'onnxrtMetaData.txt'}: lists no subgraph '9', but 9_tidl_io_1.bin "
                                f"is in the folder")


def test_malformed_metadata(east: Path) -> None:
    (east / "onnxrtMetaData.txt").write_text("numGraphNodes=x\n")
    line = only_error(east)
    assert line.startswith(f"error: {east / 'onnxrtMetaData.txt'}: line 1: numGraphNodes: expected a whole number")


@pytest.mark.parametrize(("text", "where", "message"), [
    ("2\n1\n120\n1\n119\n", "line 1", "2 subgraph(s), but onnxrtMetaData.txt lists 1"),
    ("1\n1\n121\n", "subgraph 0", "node 121 is outside the model's 121 nodes"),
    ("1\n2\n120\n120\n", "subgraph 0", "node(s) 120 listed twice"),
    ("1\n1\nx\n", None, "line 3: expected a whole number, found 'x'"),
])
def test_allowed_nodes_disagree(east: Path, text: str, where: str | None, message: str) -> None:
    (east / "allowedNode.txt").write_text(text)
    line = only_error(east)
    assert line.startswith(f"error: {east / 'allowedNode.txt'}{', ' + where if where else ''}: {message}"), line


@pytest.mark.parametrize(("edit", "where", "message"), [
    (lambda s: s.update(artifacts_folder="elsewhere"), "session.artifacts_folder", "'elsewhere' is not the folder"),
    (lambda s: s["runtime_options"].update(version="8.2") if "runtime_options" in s
     else s.update(runtime_options={"version": "8.2"}), "session.runtime_options.version",
     "'8.2', but the net files are TIDL 10.0"),
    (lambda s: s.update(input_data_layout="NCHW"), "session.input_data_layout",
     "NCHW, but input 0 'serving_default_args_0:0' is NHWC"),
    (lambda s: s.update(input_mean=[0, 0]), "session.input_mean", "2 values, but input 0"),
    (lambda s: s["input_details"][0].update(shape=[1, 3, 40, 60]), "session.input_details[0]",
     "'serving_default_args_0:0' has shape [1, 3, 40, 60], but input 0 'serving_default_args_0:0' is 1x3x400x600 (NHWC)"),
])
def test_param_yaml_disagrees(zero_dce: Path, edit, where: str, message: str) -> None:
    param = yaml.safe_load((zero_dce / "param.yaml").read_text())
    edit(param["session"])
    (zero_dce / "param.yaml").write_text(yaml.safe_dump(param))
    line = only_error(zero_dce)
    assert line.startswith(f"error: {zero_dce / 'param.yaml'}, {where}: {message}"), line


def test_malformed_param_yaml(zero_dce: Path) -> None:
    (zero_dce / "param.yaml").write_text("session: [1, 2\n")
    line = only_error(zero_dce)  # PyYAML's message spans lines: the finding keeps it on one
    assert line.startswith(f"error: {zero_dce / 'param.yaml'}: not valid YAML") and "\n" not in line


def test_details_of_nodes_outside_tidl(east: Path) -> None:
    # 1 of the graph's 121 nodes is in TIDL: a model output TIDL does not produce is a note, not an error
    (east / "param.yaml").write_text("session:\n  artifacts_folder: .\n  output_details:\n  - {name: boxes, shape: [1, 4]}\n")
    found = diagnose(east, check_library=False)
    assert found.ok and [str(f) for f in found.findings] == [
        (f"note: {east / 'param.yaml'}, session.output_details[0]: 'boxes' is no output of the io files: a node "
        f"outside TIDL's subgraphs, not checked")]
    # the same when TIDL holds the whole graph (1 node, all of it in the one subgraph): an error
    (east / "onnxrtMetaData.txt").write_text((east / "onnxrtMetaData.txt").read_text().replace("=121", "=1"))
    (east / "allowedNode.txt").write_text("1\n1\n0\n")
    assert only_error(east).startswith(f"error: {east / 'param.yaml'}, session.output_details[0]: 'boxes' [1, 4] is "
                                       f"no output of the compiled model (its outputs: '625' 1x5x176x320)")


def test_one_io_file_of_a_two_subgraph_folder(east: Path) -> None:
    """PATH an io file: the sidecars describe the whole folder, so a subgraph the user did not name
    is not missing when its io file is there (oracle: the folder's own listing)."""
    shutil.copy(east / "625_tidl_io_1.bin", east / "9_tidl_io_1.bin")
    shutil.copy(east / "625_tidl_net.bin", east / "9_tidl_net.bin")
    (east / "onnxrtMetaData.txt").write_text(
        "numGraphNodes=121\n0:subGraphName=625\n0:inDataNames=onnx::Concat_616,onnx::Concat_624\n"
        "0:outDataNames=625\n1:subGraphName=9\n1:inDataNames=onnx::Concat_616,onnx::Concat_624\n1:outDataNames=625\n")
    (east / "allowedNode.txt").write_text("2\n1\n120\n1\n119\n")
    assert diagnose(east, check_library=False).ok
    found = diagnose(east / "625_tidl_io_1.bin", check_library=False)
    assert found.ok, [str(f) for f in found.errors]
    (east / "onnxrtMetaData.txt").unlink()  # allowedNode.txt's count is then checked against the io files
    assert diagnose(east, check_library=False).ok
    found = diagnose(east / "9_tidl_io_1.bin", check_library=False)
    assert found.ok, [str(f) for f in found.errors]
    (east / "9_tidl_io_1.bin").unlink()  # and a subgraph really missing is still found
    assert only_error(east / "625_tidl_io_1.bin") == (f"error: {east / 'allowedNode.txt'}, line 1: 2 subgraph(s), "
                                                      f"but the folder has io files of 1")


# ---- issue 24: a hostile param.yaml is one located error, in bounded time and memory --------------

_BOMB = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{k}: &{k} [{', '.join([f'*{p}'] * 9)}]\n" for p, k in zip("abcdefgh", "bcdefghi"))


@pytest.mark.parametrize(("text", "message"), [
    ("[" * 5000 + "]" * 5000, "nest"),
    (_BOMB, "once its aliases"),
    ("session:\n  input_mean: " + "[" * 100 + "]" * 100 + "\n", "nest more than 64 deep"),
    ("k: " + "x" * 17_000_000, "at most 1048576"),
])
def test_hostile_param_yaml_is_one_located_error(tmp_path: Path, text: str, message: str) -> None:
    import time
    import tracemalloc

    from tidl_io import __file__ as pkg

    folder = tmp_path / "model"
    shutil.copytree(Path(pkg).parent / "examples", folder)
    (folder / "param.yaml").write_text(text)
    tracemalloc.start()
    start = time.process_time()
    found = diagnose(folder, check_library=False)
    spent, peak = time.process_time() - start, tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    errors = [f for f in found.findings if f.level == "error"]
    assert len(errors) == 1 and errors[0].check == "param" and errors[0].source == str(folder / "param.yaml")
    assert message in errors[0].message and len(errors[0].message) < 400, errors[0].message
    assert spent < 2.0 and peak < 200 << 20, (spent, peak)


def test_artifacts_folder_with_a_nul_byte(tmp_path: Path) -> None:
    """A param.yaml whose artifacts_folder holds a NUL byte is one located error, not a ValueError."""
    folder = tmp_path / "m"
    shutil.copytree(EXAMPLES, folder)
    text = (folder / "param.yaml").read_text()
    (folder / "param.yaml").write_text(text.replace("artifacts_folder: .", 'artifacts_folder: "a\\0b"'))
    found = [str(f) for f in diagnose(folder, check_library=False).findings]
    assert found == [(f"error: {folder / 'param.yaml'}, session.artifacts_folder: 'a\\x00b' is not the folder of "
                      f"the io files ({folder})")]


def test_allowed_nodes_hostile_numbers_are_located() -> None:
    with pytest.raises(FormatError, match=r"a.txt: line 3: expected a whole number of at most 24 digits"):
        parse_allowed_nodes("1\n1\n" + "9" * 5000 + "\n", "a.txt")
