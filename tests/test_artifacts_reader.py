"""tidl_io.artifacts.reader: a compiled model's folder read once into an ArtifactsFolder, against the
real folders in ../shared/realdata/net (their sizes, first words and text lines read here with
os / int.from_bytes / str.split) and folders built here whose expected values are written below."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tidl_io import ArgumentTypeError
from tidl_io.artifacts.reader import read_artifacts_folder

from conftest import EXAMPLES, FIXTURES

EAST, ZERO_DCE = "edgeai-tidl-east-9.0", "real-time-llve-zero-dce-10.0"
IO = FIXTURES / "l2_c1_padded_tidl_io_1.bin"


def _word(path: Path) -> int:
    return int.from_bytes(path.read_bytes()[:4], "little")


def test_real_artifacts_folder(realdata: Path) -> None:
    folder = realdata / "net" / EAST
    art = read_artifacts_folder(folder)
    assert art.problem is None and art.given_net is None and not art.net_only and not art.model_folder
    assert art.folder == folder and art.given == str(folder)
    [sub] = art.subgraphs
    assert (sub.name, sub.io, sub.net_path) == ("625", folder / "625_tidl_io_1.bin", folder / "625_tidl_net.bin")
    assert sub.desc is not None and sub.desc.nbytes == os.path.getsize(folder / "625_tidl_io_1.bin") == 37272
    assert sub.net is not None and int(sub.net.net_version) == _word(folder / "625_tidl_net.bin")
    assert (sub.io_problem, sub.net_problem, sub.net_unusable, sub.io_missing) == (None, None, None, False)
    lines = (folder / "onnxrtMetaData.txt").read_text().split()
    assert art.metadata is not None and art.metadata.num_graph_nodes == int(lines[0].split("=")[1]) == 121
    assert [s.name for s in art.metadata.subgraphs] == [x.split("=")[1] for x in lines if ":subGraphName=" in x]
    assert art.metadata_there and art.allowed_there and art.allowed == (tuple(range(119)), (120,))
    assert art.listed == {"625"} and art.param_file is None and art.params is None
    assert art.name_lists is not None and art.name_lists.found == ()  # no param.yaml, no 16-bit list


def test_real_model_folder(realdata: Path) -> None:
    model = realdata / "net" / ZERO_DCE
    art = read_artifacts_folder(model)
    assert art.folder == model / "artifacts" and art.model_folder
    assert [(s.name, s.net_path) for s in art.subgraphs] == [("74", model / "artifacts" / "74_tidl_net.bin")]
    assert art.param_file == model / "param.yaml" and art.params is not None
    assert art.params.input_data_layout == "NHWC" and art.params.input_scale == (0.003922,) * 3
    assert art.metadata is None and not art.metadata_there and art.metadata_problem is None
    assert art.allowed == (tuple(range(51)),)


def test_a_net_named_with_its_io_file_beside_it(realdata: Path) -> None:
    net = realdata / "net" / EAST / "625_tidl_net.bin"
    art = read_artifacts_folder(net)
    assert art.given_net is not None and art.given_net.word == _word(net) == 0x20230802
    assert [str(r) for r in art.given_net.releases] == ["09.00", "09.01"]  # schemas/releases.yaml: 9.0 and 9.1 write it
    assert art.given_net.version_shaped and art.subgraphs == () and art.folder == net.parent


def test_nets_alone(realdata: Path, tmp_path: Path) -> None:
    shutil.copy(realdata / "net" / ZERO_DCE / "artifacts" / "74_tidl_net.bin", tmp_path / "74_tidl_net.bin")
    for given in (tmp_path, tmp_path / "74_tidl_net.bin"):
        art = read_artifacts_folder(given)
        assert art.net_only and art.problem is None
        [sub] = art.subgraphs
        assert (sub.name, sub.io, sub.io_missing, sub.desc) == ("74", tmp_path / "74_tidl_io_1.bin", True, None)
        assert sub.net is not None and int(sub.net.net_version) == _word(tmp_path / "74_tidl_net.bin")


def test_hand_made_folder(tmp_path: Path) -> None:
    """Three io files (one broken), no nets but a folder under one net's name, and sidecars:
    TIDL's order from onnxrtMetaData.txt then natural order; every read error kept as data."""
    for name in ("b", "a10", "a2"):
        shutil.copy(IO, tmp_path / f"{name}_tidl_io_1.bin")
    (tmp_path / "a10_tidl_io_1.bin").write_bytes(b"\0" * 10)
    (tmp_path / "a2_tidl_net.bin").mkdir()
    (tmp_path / "onnxrtMetaData.txt").write_text("numGraphNodes=3\n0:subGraphName=b\n")
    (tmp_path / "allowedNode.txt").write_text("1\nx\n")
    (tmp_path / "param.yaml").write_text("session: [1, 2\n")
    art = read_artifacts_folder(tmp_path)
    assert [s.name for s in art.subgraphs] == ["b", "a2", "a10"]
    b, a2, a10 = art.subgraphs
    assert b.desc is not None and b.net_path is None and b.net_expected == tmp_path / "b_tidl_net.bin"
    assert a2.net_unusable is not None and a2.net_unusable.source == str(tmp_path / "a2_tidl_net.bin")
    assert "not a regular file" in a2.net_unusable.message
    assert a10.desc is None and a10.io_problem is not None and a10.io_problem.source == str(a10.io)
    assert "10 bytes" in a10.io_problem.message and not a10.io_problem.message.startswith(str(tmp_path))
    assert art.metadata is not None and art.metadata.num_graph_nodes == 3
    assert art.allowed is None and art.allowed_problem is not None and art.allowed_there
    assert art.allowed_problem.message == "line 2: expected a whole number, found 'x'"
    assert art.param_file == tmp_path / "param.yaml" and art.params is None and art.param_problem is not None
    assert art.listed == {"b", "a2", "a10"}


def test_one_io_file_named(tmp_path: Path) -> None:
    for name in ("x", "y"):
        shutil.copy(IO, tmp_path / f"{name}_tidl_io_1.bin")
    art = read_artifacts_folder(tmp_path / "y_tidl_io_1.bin")
    assert [s.name for s in art.subgraphs] == ["y"] and art.listed == {"x", "y"} and art.folder == tmp_path


def test_nothing_to_read(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    art = read_artifacts_folder(gone)
    assert art.problem is not None and (art.problem.source, art.problem.message) == (str(gone), "no such file or folder")
    (tmp_path / "m" / "artifacts").mkdir(parents=True)
    shutil.copy(IO, tmp_path / "m" / "artifacts" / "s_tidl_io_1.bin")
    art = read_artifacts_folder(tmp_path)
    assert art.problem is not None and art.subfolders == (tmp_path / "m",) and art.subgraphs == ()
    assert "no *_tidl_io_1.bin file in this folder" in art.problem.message


def test_path_of_the_wrong_kind() -> None:
    with pytest.raises(ArgumentTypeError, match="doctor_like"):
        read_artifacts_folder(3, "doctor_like")  # type: ignore[arg-type]


def test_param_yaml_artifacts_folder(tmp_path: Path) -> None:
    """session.artifacts_folder resolved against param.yaml's folder; a NUL byte in it names no
    folder (os.path.realpath raised ValueError from inside diagnose before)."""
    shutil.copytree(EXAMPLES, tmp_path / "m")
    text = (tmp_path / "m" / "param.yaml").read_text()
    assert "  artifacts_folder: .\n" in text
    assert read_artifacts_folder(tmp_path / "m").params_name_folder is True
    for value, expected in (('"a\\0b"', False), ("elsewhere", False), (str(tmp_path / "m"), True)):
        (tmp_path / "m" / "param.yaml").write_text(text.replace("artifacts_folder: .", f"artifacts_folder: {value}"))
        assert read_artifacts_folder(tmp_path / "m").params_name_folder is expected, value
    (tmp_path / "m" / "param.yaml").write_text(text.replace("  artifacts_folder: .\n", ""))
    assert read_artifacts_folder(tmp_path / "m").params_name_folder is None


def test_what_the_path_is_when_there_is_nothing_to_check(tmp_path: Path) -> None:
    """The reader says what the path is; nothing else is read then (diagnose raises from it)."""
    (tmp_path / "config.yaml").write_text("a: 1\n")  # 5 bytes of text
    (tmp_path / "blob.dat").write_bytes(b"\xff\xfe\x00\x01")  # 4 bytes, no netVersion, no io layout
    art = read_artifacts_folder(tmp_path / "config.yaml")
    assert art.other_file == "a text file of 5 byte(s)" and not art.checkable and art.subgraphs == ()
    assert art.problem is None and art.given_net is None
    assert read_artifacts_folder(tmp_path / "blob.dat").other_file == "a binary file of 4 byte(s)"
    gone = read_artifacts_folder(tmp_path / "gone")
    assert not gone.checkable and gone.problem is not None and type(gone.problem.error).__name__ == "PathNotFoundError"
    shutil.copy(IO, tmp_path / "io.dat")  # an io descriptor's bytes under another name: checked
    art = read_artifacts_folder(tmp_path / "io.dat")
    assert art.checkable and art.other_file is None and [s.io for s in art.subgraphs] == [tmp_path / "io.dat"]
    (tmp_path / "t_tidl_io_1.bin").write_bytes(b"\x01\x02")  # named as TI names io files: a broken one, checked
    art = read_artifacts_folder(tmp_path / "t_tidl_io_1.bin")
    assert art.checkable and art.subgraphs[0].io_problem is not None
