"""``tidl-io doctor`` (tidl_io.doctor.checks): real artifacts folders, mixed releases, broken and foreign files,
the TIDL-RT library of another release, --explain, --json and usage errors.

Oracles: TI's own netLog and layer_info files beside the real nets, the first word of each net file
read here with ``struct``, file sizes, the spec's version table (netbin.md) and PROVENANCE.md."""

from __future__ import annotations

import io
import json
import os
import shutil
import struct
from pathlib import Path

import pytest

from tidl_io import OptionError
from tidl_io.cli.app import main
from tidl_io.doctor.checks import diagnose, parse_explain
from tidl_io.iodesc.schema import find_layout

DEEPLAB, EAST, ZERO_DCE = "bbai64-deeplabv3-mnv2-8.2", "edgeai-tidl-east-9.0", "real-time-llve-zero-dce-10.0"
MOBILENET_IO = "bbai64__go__model__TFL-CL-0000-mobileNetV1-mlperf__artifacts__87_tidl_io_1.bin"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["doctor", *argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def errors(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("error: ")]


def first_word(path: Path) -> int:
    return struct.unpack("<I", path.read_bytes()[:4])[0]


def netlog(path: Path) -> list[list[str]]:
    """TI's netLog rows: index, type, out name, group, #ins, #outs, inbufs, outbuf, in NCHW, out NCHW, MACs."""
    rows = []
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) >= 11 and cells[0].isdigit():
            rows.append(cells)
    return rows


def layer_info(path: Path) -> dict[int, tuple[int, str]]:
    """dataId -> (layerId, name) from TI's ``layer_info.txt``."""
    out = {}
    for line in path.read_text().splitlines():
        parts = line.split(" ", 2)
        if len(parts) >= 2 and parts[0].isdigit():
            out[int(parts[1])] = (int(parts[0]), parts[2].strip() if len(parts) > 2 else "")
    return out


@pytest.fixture
def net(realdata: Path) -> Path:
    return realdata / "net"


def copy_files(src: Path, dest: Path, *names: str) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(src / name, dest / name)
    return dest


# ---- the three real artifacts folders --------------------------------------------------

def test_real_8_2_folder_agrees(net: Path) -> None:
    folder = net / DEEPLAB
    code, out, err = run("--no-library", str(folder))
    assert (code, err, errors(out)) == (0, "", [])
    layers = len(netlog(folder / "201_tidl_net.bin_netLog.txt"))
    assert f"netVersion {first_word(folder / '201_tidl_net.bin'):#010x} (TIDL 8.2), {layers} layers" in out
    assert out.rstrip().endswith("all files agree (0 error(s), 0 note(s))")


def test_real_9_0_folder_lacks_subgraph_0(net: Path, tmp_path: Path) -> None:
    # The copy holds only subgraph 1 ('625') of the two onnxrtMetaData.txt lists (PROVENANCE.md names
    # every file copied): doctor must say so, and nothing else.
    folder = net / EAST
    provenance = (net / "PROVENANCE.md").read_text()
    assert "| edgeai-tidl-east-9.0 | 625_tidl_io_1.bin |" in provenance and "Concat_616output_tidl_io" not in provenance
    assert "0:subGraphName=onnx::Div_622onnx::Concat_616output" in (folder / "onnxrtMetaData.txt").read_text()
    code, out, _ = run("--no-library", str(folder))
    assert code == 1 and len(errors(out)) == 1
    assert errors(out)[0].startswith(f"error: {folder / 'onnxrtMetaData.txt'}, subgraph 0 "
                                     f"'onnx::Div_622onnx::Concat_616output': no onnx::Div_622onnx::Concat_616output"
                                     f"_tidl_io_1.bin in the folder")
    # the same folder with subgraph 1 alone in both sidecars: every file agrees
    alone = copy_files(folder, tmp_path / "east", "625_tidl_net.bin", "625_tidl_io_1.bin")
    (alone / "onnxrtMetaData.txt").write_text("numGraphNodes=121\n0:subGraphName=625\n0:numInputs=2\n0:numOutputs=1\n"
                                              "0:inputIdx=0,1\n0:inDataNames=onnx::Concat_616,onnx::Concat_624\n"
                                              "0:outDataNames=625\n")
    (alone / "allowedNode.txt").write_text("1\n1\n120\n")
    code, out, _ = run("--no-library", str(alone))
    assert (code, errors(out)) == (0, [])
    rows = netlog(folder / "tempDir" / "625_tidl_net.bin_netLog.txt")
    assert f"{len(rows)} layers; 2 input(s), 1 output(s)" in out


def test_real_10_0_param_yaml_names_the_input_as_output(net: Path, tmp_path: Path) -> None:
    # A real disagreement: param.yaml's output_details repeats the input's name with a shape [1, 400].
    # TI's netLog names the output data layer StatefulPartitionedCall_1:0, 1x1x1x3x400x600.
    import yaml

    model = net / ZERO_DCE
    param = yaml.safe_load((model / "param.yaml").read_text())["session"]
    assert param["output_details"][0]["name"] == param["input_details"][0]["name"] == "serving_default_args_0:0"
    out_layer = next(r for r in netlog(model / "artifacts" / "tempDir" / "74_tidl_net.bin_netLog.txt") if r[5] == "-1")
    assert out_layer[2] == "StatefulPartitionedCall_1:0" and out_layer[8].split() == ["1", "1", "1", "3", "400", "600"]
    code, out, _ = run("--no-library", str(model))
    assert code == 1 and len(errors(out)) == 1
    assert errors(out)[0].startswith(f"error: {model / 'param.yaml'}, session.output_details[0]: "
                                     f"'serving_default_args_0:0' [1, 400] is no output of the compiled model")
    assert errors(out)[0].endswith(f"(its outputs: '{out_layer[2]}' 1x1x1x3x400x600); it is the model's input")
    # the artifacts folder alone (no param.yaml beside it or above it): all agree
    alone = copy_files(model / "artifacts", tmp_path / "a", "74_tidl_net.bin", "74_tidl_io_1.bin", "allowedNode.txt")
    code, out, _ = run("--no-library", str(alone))
    assert (code, errors(out)) == (0, [])
    assert f"netVersion {first_word(alone / '74_tidl_net.bin'):#010x} (TIDL 10.0)" in out


# ---- the Done-means cases: one located line each, never a traceback ---------------------

def assert_refused(code: int, out: str, err: str, starts: str) -> str:
    """doctor could not check (exit 2): one line on stderr, diagnose's error without "error: "."""
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"tidl-io doctor: error: {starts.removeprefix('error: ')}"), err
    return "error: " + err.removeprefix("tidl-io doctor: error: ").rstrip("\n")


def assert_one_error(code: int, out: str, err: str, starts: str) -> str:
    assert code == 1 and err == "" and "Traceback" not in out
    assert len(errors(out)) == 1, out
    assert errors(out)[0].startswith(starts), errors(out)[0]
    return errors(out)[0]


def test_mixed_releases_8_2_net_with_9_0_io(net: Path, tmp_path: Path) -> None:
    folder = copy_files(net / DEEPLAB, tmp_path, "201_tidl_net.bin")
    shutil.copy(net / EAST / "625_tidl_io_1.bin", folder / "201_tidl_io_1.bin")
    io_90, io_82 = (net / EAST / "625_tidl_io_1.bin").stat().st_size, (net / DEEPLAB / "201_tidl_io_1.bin").stat().st_size
    line = assert_one_error(*run("--no-library", str(folder)), f"error: {folder / '201_tidl_io_1.bin'}, file size: ")
    assert f"netVersion {first_word(folder / '201_tidl_net.bin'):#010x} (8.2)" in line
    assert f'"Config file size ({io_90}) does not match size of sTIDL_IOBufDesc_t ({io_82})"' in line


@pytest.mark.parametrize(("model", "sub", "cuts"), [
    (DEEPLAB, "201", (3, 100_000)),  # 8.2 has no section table: only the structure part can be checked
    (ZERO_DCE + "/artifacts", "74", (3, 100_000, -1)),  # 10.0: netBufInfo's last section ends at the file's end
])
def test_truncated_net(net: Path, tmp_path: Path, model: str, sub: str, cuts: tuple[int, ...]) -> None:
    data = (net / model / f"{sub}_tidl_net.bin").read_bytes()
    for cut in cuts:
        folder = copy_files(net / model, tmp_path / str(cut), f"{sub}_tidl_io_1.bin")
        (folder / f"{sub}_tidl_net.bin").write_bytes(data[:cut])
        assert_one_error(*run("--no-library", str(folder)), f"error: {folder / f'{sub}_tidl_net.bin'}: ")


def test_unknown_net_version(net: Path, tmp_path: Path) -> None:
    folder = copy_files(net / ZERO_DCE / "artifacts", tmp_path, "74_tidl_io_1.bin", "74_tidl_net.bin", "allowedNode.txt")
    data = bytearray((folder / "74_tidl_net.bin").read_bytes())
    data[:4] = struct.pack("<I", 0x20990101)
    (folder / "74_tidl_net.bin").write_bytes(data)
    line = assert_one_error(*run("--no-library", str(folder)), f"error: {folder / '74_tidl_net.bin'}")
    assert "0x20990101" in line


def test_io_descriptor_of_another_model(net: Path, realdata: Path, tmp_path: Path) -> None:
    folder = copy_files(net / DEEPLAB, tmp_path, "201_tidl_net.bin")
    shutil.copy(realdata / MOBILENET_IO, folder / "201_tidl_io_1.bin")  # 8.2 too: same release, other model
    line = assert_one_error(*run("--no-library", str(folder)), f"error: {folder / '201_tidl_io_1.bin'}: ")
    assert "no tensor of this io descriptor matches 201_tidl_net.bin" in line and "another model" in line


def test_one_tensor_disagrees(net: Path, tmp_path: Path) -> None:
    folder = copy_files(net / DEEPLAB, tmp_path, "201_tidl_net.bin", "201_tidl_io_1.bin")
    data = bytearray((folder / "201_tidl_io_1.bin").read_bytes())
    offset = find_layout("8.x").member("outTensorScale").offset
    assert struct.unpack_from("<f", data, offset)[0] == 1.0  # PROVENANCE-style reading: ArgMax, scale 1
    struct.pack_into("<f", data, offset, 2.0)
    (folder / "201_tidl_io_1.bin").write_bytes(data)
    line = assert_one_error(*run("--no-library", str(folder)),
                            f"error: {folder / '201_tidl_io_1.bin'}, output 0 'ArgMax', outTensorScale: scale 2.0, but ")
    out_id = struct.unpack_from("<i", data, find_layout("8.x").member("outDataId").offset)[0]
    producer = next(r for r in netlog(net / DEEPLAB / "201_tidl_net.bin_netLog.txt") if r[7] == str(out_id))
    assert f"{producer[1]} " in line and line.endswith("has 1.0")


def _scale_every_tensor(folder: Path, io: str, family: str, factor: float) -> bytearray:
    data = bytearray((folder / io).read_bytes())
    for member in ("inTensorScale", "outTensorScale"):
        offset = find_layout(family).member(member).offset  # tensor 0 of each (deeplab: one in, one out)
        struct.pack_into("<f", data, offset, struct.unpack_from("<f", data, offset)[0] * factor)
    (folder / io).write_bytes(data)
    return data


def test_recalibrated_io_says_scales_differ_not_another_model(net: Path, tmp_path: Path) -> None:
    """Every tensor's scale doubled, nothing else touched: the same model quantized otherwise,
    not "the io descriptor of another model?"."""
    folder = copy_files(net / DEEPLAB, tmp_path, "201_tidl_net.bin", "201_tidl_io_1.bin")
    _scale_every_tensor(folder, "201_tidl_io_1.bin", "8.x", 2.0)
    line = assert_one_error(*run("--no-library", str(folder)), f"error: {folder / '201_tidl_io_1.bin'}: scales differ")
    assert "another model" not in line and "scale 2.0, but layer 0 TIDL_DataLayer" in line


def test_zero_point_and_pads_disagree(net: Path, tmp_path: Path) -> None:
    """9.0 stores a zero point in both files: inZeroPoint[0] = 5 and inPadL[1] = 2 in the io file
    (TI's netLog: both inputs are data layers 0 and 1 of the net, whose pads are 0)."""
    folder = copy_files(net / EAST, tmp_path, "625_tidl_net.bin", "625_tidl_io_1.bin")
    data = bytearray((folder / "625_tidl_io_1.bin").read_bytes())
    layout = find_layout("9.0")
    struct.pack_into("<i", data, layout.member("inZeroPoint").offset, 5)
    struct.pack_into("<i", data, layout.member("inPadL").offset + 4, 2)
    (folder / "625_tidl_io_1.bin").write_bytes(data)
    code, out, _ = run("--no-library", str(folder))
    lines = [x for x in errors(out) if "io_1.bin, input" in x]
    rows = netlog(net / EAST / "tempDir" / "625_tidl_net.bin_netLog.txt")
    assert code == 1 and len(lines) == 2, out
    assert "inZeroPoint: zero point 5, but layer 0 " in lines[0] and lines[0].endswith("has 0")
    assert "input 1" in lines[1] and "inPadL: pads left/top 2/0, but layer 1 " in lines[1]
    assert [r[1] for r in rows[:2]] == ["TIDL_DataLayer", "TIDL_DataLayer"]


def test_stale_layer_info_is_named(net: Path, tmp_path: Path) -> None:
    """layer_info.txt of another compilation: a line whose dataId is not the layer's, and one
    naming a layer the net lacks (TI's own file, two lines edited)."""
    folder = copy_files(net / DEEPLAB, tmp_path, "201_tidl_net.bin", "201_tidl_io_1.bin",
                        "201_tidl_net.bin.layer_info.txt")
    info = folder / "201_tidl_net.bin.layer_info.txt"
    lines = info.read_text().splitlines()
    count = len(netlog(net / DEEPLAB / "201_tidl_net.bin_netLog.txt"))
    lines[3] = "3 77 renamed"
    lines.append(f"{count + 4} {count + 4} extra")
    info.write_text("\n".join(lines) + "\n")
    line = assert_one_error(*run("--no-library", str(folder)), f"error: {info}: ")
    # used whole or not at all: the first thing wrong (one line more than the net's layers) rejects it
    assert f"more lines than the net's {count} layers" in line and "no layer names used" in line, line
    lines.pop()  # the count right, one dataId wrong: still rejected as a whole, naming the line's layer
    info.write_text("\n".join(lines) + "\n")
    line = assert_one_error(*run("--no-library", str(folder)), f"error: {info}: ")
    assert "line of layer 3: dataId 77, but layer 3 writes dataId 3" in line and "no layer names used" in line


def test_subgraphs_of_two_releases(net: Path, tmp_path: Path) -> None:
    folder = copy_files(net / DEEPLAB, tmp_path, "201_tidl_net.bin", "201_tidl_io_1.bin")
    copy_files(net / ZERO_DCE / "artifacts", folder, "74_tidl_net.bin", "74_tidl_io_1.bin")
    code, out, err = run("--no-library", str(folder))
    # subgraphs in natural order of their names (74 before 201): the first one's release is the reference
    line = assert_one_error(code, out, err, f"error: {folder / '201_tidl_net.bin'}: netVersion ")
    words = first_word(folder / "201_tidl_net.bin"), first_word(folder / "74_tidl_net.bin")
    assert f"{words[0]:#010x} (8.2) differs from 74_tidl_net.bin's {words[1]:#010x} (10.0)" in line
    assert out.count("  subgraph ") == 2  # both checked, each on its own


def test_header_disagrees(net: Path, tmp_path: Path) -> None:
    folder = copy_files(net / EAST, tmp_path, "625_tidl_net.bin", "625_tidl_io_1.bin")
    data = bytearray((folder / "625_tidl_io_1.bin").read_bytes())
    member = find_layout("9.0").member("inferenceMode")
    assert struct.unpack_from("<i", data, member.offset)[0] == 0  # PROVENANCE.md's reading: inferenceMode=0
    struct.pack_into("<i", data, member.offset, 2)
    (folder / "625_tidl_io_1.bin").write_bytes(data)
    assert_one_error(*run("--no-library", str(folder)), f"error: {folder / '625_tidl_io_1.bin'}, inferenceMode: 2, "
                                                        f"but 625_tidl_net.bin has inferenceMode 0")


def test_io_files_of_two_releases_without_nets(net: Path, realdata: Path, tmp_path: Path) -> None:
    folder = copy_files(net / DEEPLAB, tmp_path, "201_tidl_io_1.bin")  # 37256 bytes: TIDL 8.x
    shutil.copy(net / ZERO_DCE / "artifacts" / "74_tidl_io_1.bin", folder / "74_tidl_io_1.bin")  # 94616: 10.x
    found = diagnose(folder, check_library=False)
    assert [f.check for f in found.errors] == ["files", "files", "release"]  # two missing nets, then this
    assert str(found.errors[2]) == (f"error: {folder / '201_tidl_io_1.bin'}, file size: the TIDL 8.x io descriptor "
                                    f"(37256 bytes) is of another release than 74_tidl_io_1.bin's layout (TIDL "
                                    f"10.0/10.1/11.0/11.1): subgraphs of two TIDL releases")


def test_missing_net_file(net: Path, tmp_path: Path) -> None:
    folder = copy_files(net / DEEPLAB, tmp_path, "201_tidl_io_1.bin")
    line = assert_one_error(*run("--no-library", str(folder)), f"error: {folder / '201_tidl_io_1.bin'}: ")
    assert "no 201_tidl_net.bin beside it" in line


def test_missing_param_yaml_in_a_model_folder(net: Path, tmp_path: Path) -> None:
    copy_files(net / ZERO_DCE / "artifacts", tmp_path / "model" / "artifacts", "74_tidl_io_1.bin", "74_tidl_net.bin",
               "allowedNode.txt")
    line = assert_one_error(*run("--no-library", str(tmp_path / "model")), f"error: {tmp_path / 'model'}: ")
    assert "no param.yaml in this model folder" in line


def test_missing_allowed_nodes_and_metadata(net: Path, tmp_path: Path) -> None:
    folder = copy_files(net / EAST, tmp_path / "east", "625_tidl_net.bin", "625_tidl_io_1.bin")
    (folder / "onnxrtMetaData.txt").write_text("numGraphNodes=121\n0:subGraphName=625\n"
                                               "0:inDataNames=onnx::Concat_616,onnx::Concat_624\n0:outDataNames=625\n")
    line = assert_one_error(*run("--no-library", str(folder)), f"error: {folder}: ")
    assert "no allowedNode.txt" in line
    model = tmp_path / "zero"
    copy_files(net / ZERO_DCE / "artifacts", model / "artifacts", "74_tidl_io_1.bin", "74_tidl_net.bin",
               "allowedNode.txt")
    (model / "param.yaml").write_text("session:\n  session_name: onnxrt\n  artifacts_folder: artifacts\n")
    line = assert_one_error(*run("--no-library", str(model)), f"error: {model / 'artifacts'}: ")
    assert "no onnxrtMetaData.txt, but" in line and "session_name onnxrt" in line


def test_missing_path(tmp_path: Path) -> None:
    assert_refused(*run("--no-library", str(tmp_path / "nope")), f"error: {tmp_path / 'nope'}: ")


# ---- the TIDL-RT library --------------------------------------------------------------------

@pytest.fixture
def zero_dce(net: Path, tmp_path: Path) -> Path:
    return copy_files(net / ZERO_DCE / "artifacts", tmp_path / "zdce", "74_tidl_io_1.bin", "74_tidl_net.bin",
                      "allowedNode.txt")


def test_library_of_another_release(tidlrt_standin, zero_dce: Path) -> None:
    lib = tidlrt_standin("T4P-b")  # the TIDL 8.0-8.5 layout; 8.2's netVersion is 0x20211201 (netbin.md)
    code, out, err = run("--library", str(lib), str(zero_dce))
    word = first_word(zero_dce / "74_tidl_net.bin")
    line = assert_one_error(code, out, err, f"error: {lib.resolve()}: Network version - 0x{word:08X}, "
                                            f"Expected version - 0x20211201: ")
    assert "74_tidl_net.bin is 10.0" in line


def test_library_of_the_same_layout_family(tidlrt_standin, zero_dce: Path) -> None:
    code, out, _ = run("--library", str(tidlrt_standin("T6P-d")), str(zero_dce))
    assert (code, errors(out)) == (0, [])
    assert "TIDL-RT: " in out and "layout T6P-d" in out


def test_library_asked_for_but_missing(zero_dce: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "libvx_tidl_rt.so"
    line = assert_one_error(*run("--library", str(missing), str(zero_dce)), f"error: {missing}: cannot load it: ")
    assert "no such file" in line


def test_no_library_is_a_note(monkeypatch, zero_dce: Path, tmp_path: Path) -> None:
    monkeypatch.setenv("TIDL_IO_TIDLRT_LIBRARY", str(tmp_path / "none" / "libvx_tidl_rt.so"))
    code, out, _ = run(str(zero_dce))
    notes = [line for line in out.splitlines() if line.startswith("note: ")]
    assert (code, errors(out)) == (0, []) and len(notes) == 1 and "no library found" in notes[0]


# ---- --explain, --json, usage ---------------------------------------------------------------

def test_explain_tensor_number(net: Path) -> None:
    folder = net / DEEPLAB
    layer_id, name = layer_info(folder / "201_tidl_net.bin.layer_info.txt")[20]
    row = next(r for r in netlog(folder / "201_tidl_net.bin_netLog.txt") if r[7] == "20")
    code, out, _ = run("--no-library", "--explain", "DIM Error - For Tensor 20", "--explain", "dataId 9999", str(folder))
    notes = [line for line in out.splitlines() if line.startswith("note: ")]
    assert code == 0 and len(notes) == 2
    assert notes[0].startswith(f"note: {folder / '201_tidl_net.bin'}, layer {layer_id}: Tensor 20 is dataId 20, "
                               f"the output of layer {layer_id} {row[1]} {name!r}: {'x'.join(row[9].split())} ")
    assert notes[1].startswith(f"note: {folder / '201_tidl_net.bin'}: Tensor 9999: no layer produces dataId 9999")


@pytest.mark.parametrize(("text", "key"), [("DIM Error - For Tensor 20", ("dataId", 20)), ("20", ("dataId", 20)),
                                           ("tensor id 7", ("dataId", 7)), ("Layer 5 failed", ("layer", 5)),
                                           ("dataId=3", ("dataId", 3))])
def test_parse_explain(text: str, key: tuple[str, int]) -> None:
    assert parse_explain(text) == key


def test_json_structure(net: Path) -> None:
    code, out, _ = run("--no-library", "--json", str(net / ZERO_DCE))
    doc = json.loads(out)
    assert code == 1 and doc["ok"] is False and doc["schema_version"] == 1
    assert doc["releases"] == ["10.00"] and doc["folder"] == str(net / ZERO_DCE / "artifacts")
    (sub,) = doc["subgraphs"]
    assert sub["name"] == "74" and sub["net_version"] == first_word(net / ZERO_DCE / "artifacts" / "74_tidl_net.bin")
    assert sub["io_size"] == (net / ZERO_DCE / "artifacts" / "74_tidl_io_1.bin").stat().st_size
    (finding,) = doc["findings"]
    assert set(finding) == {"level", "check", "source", "where", "subgraph", "message"}
    assert (finding["level"], finding["check"], finding["where"]) == ("error", "param", ["session.output_details[0]"])


def test_api_never_raises_for_what_it_finds(tmp_path: Path) -> None:
    (tmp_path / "x_tidl_io_1.bin").write_bytes(b"\0" * 100)
    found = diagnose(tmp_path, check_library=False)
    assert not found.ok and [f.check for f in found.errors] == ["files", "files"]  # bad io, no net file
    from tidl_io import ArgumentTypeError

    with pytest.raises(ArgumentTypeError, match="diagnose: path: expected a path"):
        diagnose(3)  # type: ignore[arg-type]


@pytest.mark.parametrize("argv", [(), ("--explain", "no number", "."), ("--library", "x.so", "--no-library", "."),
                                  ("--bogus", "."), ("",), ("--library", "", ".")])
def test_usage_errors_exit_2(argv: tuple[str, ...]) -> None:
    code, out, err = run(*argv)
    assert code == 2 and out == "" and "Traceback" not in err
    assert not err.startswith("tidl-io: error: : "), err  # an empty path is named as the option it was given to


# ---- the bundled example and the README ------------------------------------------------------

def test_bundled_example_agrees_and_readme_shows_its_output(monkeypatch, readme_cwd: Path) -> None:
    import shlex

    from tidl_io import TidlRtError
    from tidl_io.runtime.tidlrt import load_library

    from conftest import ROOT

    monkeypatch.delenv("TIDL_IO_TIDLRT_LIBRARY", raising=False)
    monkeypatch.delenv("TIDL_TOOLS_PATH", raising=False)
    try:
        load_library()
        pytest.skip("a TIDL-RT library is installed here: the README shows the output without one")
    except TidlRtError:
        pass
    readme = (ROOT / "README.md").read_text()
    marker, shown = "<!-- readme-example: ", []
    start = readme.find(marker)
    while start >= 0:
        argv = shlex.split(readme[start + len(marker):readme.index(" -->", start)])
        body = readme.index("```text\n", start) + len("```text\n")
        shown.append((argv[argv.index("tidl-io") + 1:], readme[body:readme.index("```\n", body)]))
        start = readme.find(marker, body)
    assert [a[0] for a, _ in shown] == ["doctor"]  # the inspect block: tests/test_net_format.py
    for argv, text in shown:
        out, err = io.StringIO(), io.StringIO()
        assert (main(argv, out=out, err=err), err.getvalue()) == (0, "")
        assert out.getvalue() == text, argv


def test_mutated_folders_give_findings_never_exceptions(net: Path, tmp_path: Path) -> None:
    """Seeded mutations of the real folders' files (bytes flipped, cut, replaced): diagnose
    raises nothing, and every finding is one line."""
    import random

    rng = random.Random(16)
    originals = {}
    for model in (DEEPLAB, EAST, ZERO_DCE):
        for f in (net / model).rglob("*"):
            if f.is_file() and "tempDir" not in f.parts and f.suffix != ".tflite" and f.name != "PROVENANCE.md":
                originals[f] = f.read_bytes()
    for trial in range(40):
        model = rng.choice([DEEPLAB, EAST, ZERO_DCE])
        folder = tmp_path / str(trial)
        mine = {f: data for f, data in originals.items() if model in f.parts}
        victim = rng.choice(sorted(mine))
        for f, data in mine.items():
            out = bytearray(data)
            if f == victim:
                if rng.random() < 0.3:
                    out = out[:rng.randrange(len(out) + 1)]
                else:
                    for _ in range(rng.randrange(1, 16)):
                        out[rng.randrange(min(len(out), 20000))] = rng.randrange(256)
            dest = folder / f.relative_to(net / model)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(bytes(out))
        found = diagnose(folder, check_library=False, explain=["Tensor 3", "Layer 2"])
        assert all("\n" not in str(f) for f in found.findings), victim


# ---- PATH as users type it (review) ----------------------------------------------------------

def test_folder_with_trailing_slash_names_it_once(tmp_path: Path) -> None:
    """Shells complete folders with a trailing '/': the finding names the folder once, not twice."""
    line = assert_refused(*run("--no-library", f"{tmp_path}/"), f"error: {tmp_path}/: ")
    assert line.count(str(tmp_path)) == 2, line  # "error: DIR/: no *_tidl_io_1.bin ... (nor in DIR/artifacts)"
    assert line.startswith(f"error: {tmp_path}/: no *_tidl_io_1.bin file in this folder"), line


def test_io_file_of_no_ti_name_is_not_given_an_invented_net_name(net: Path, tmp_path: Path) -> None:
    """TI names the pair NAME_tidl_io_1.bin / NAME_tidl_net.bin or tidl_io_NAME_1.bin /
    tidl_net_NAME.bin; for any other name there is no net file name to look for."""
    shutil.copy(net / DEEPLAB / "201_tidl_io_1.bin", tmp_path / "io.bin")
    line = assert_one_error(*run("--no-library", str(tmp_path / "io.bin")), f"error: {tmp_path / 'io.bin'}: ")
    assert "tidl_net_io.bin.bin" not in line
    assert "NAME_tidl_io_1.bin" in line and "tidl_io_NAME_1.bin" in line


def test_net_file_given_as_path(net: Path, tmp_path: Path) -> None:
    """A *_tidl_net.bin named as PATH: one error saying what it is and what to give instead, not an
    io-descriptor size error about it."""
    folder = copy_files(net / DEEPLAB, tmp_path, "201_tidl_net.bin", "201_tidl_io_1.bin")
    line = assert_refused(*run("--no-library", str(folder / "201_tidl_net.bin")),
                            f"error: {folder / '201_tidl_net.bin'}: ")
    assert f"netVersion {first_word(folder / '201_tidl_net.bin'):#010x}" in line
    assert "matches no known layout" not in line and str(folder) in line.split(": ", 2)[2]


def test_net_of_a_newer_release_given_as_path(net: Path, tmp_path: Path) -> None:
    """A net of a release tidl-io does not know, named model.bin (no "tidl_net"): told by its
    first word (0x20YYMMDD), not read as an io descriptor."""
    data = bytearray((net / DEEPLAB / "201_tidl_net.bin").read_bytes())
    data[:4] = struct.pack("<I", 0x20270315)
    (tmp_path / "model.bin").write_bytes(data)
    line = assert_one_error(*run("--no-library", str(tmp_path / "model.bin")), f"error: {tmp_path / 'model.bin'}: ")
    # its io file is not beside it, so the net is checked alone (no "see the folder", which has none)
    assert "network file of a release tidl-io does not know (netVersion 0x20270315" in line


def test_folder_under_the_net_file_name_is_one_problem(net: Path, tmp_path: Path) -> None:
    """Something that is no regular file where the net should be: one line, located at that path
    (not at the io file), and no contradicting "no 201_tidl_net.bin beside it"."""
    folder = copy_files(net / DEEPLAB, tmp_path, "201_tidl_io_1.bin")
    (folder / "201_tidl_net.bin").mkdir()
    line = assert_one_error(*run("--no-library", str(folder)), f"error: {folder / '201_tidl_net.bin'}: ")
    assert "is not a regular file" in line and line.count(str(folder / "201_tidl_net.bin")) == 1, line


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"explain": [5]}, r"diagnose: explain\[0\]: expected a TI message \(str\) or a \(kind, number\) pair"),
    ({"explain": [("dataId",)]}, r"diagnose: explain\[0\]: expected"),
    ({"explain": [("tensor", 3)]}, r"diagnose: explain\[0\]: expected"),
    ({"explain": "Tensor 2"}, r"diagnose: explain: expected a list of TI messages"),
    ({"check_library": "no"}, r"diagnose: check_library: expected True or False"),
])
def test_diagnose_arguments_of_the_wrong_kind(kwargs: dict, message: str) -> None:
    """The docstring's promise: arguments of the wrong kind raise ArgumentTypeError (not a bare
    TypeError/IndexError from inside, nor a FormatError about the letter 'T')."""
    from tidl_io import ArgumentTypeError

    with pytest.raises(ArgumentTypeError, match=message):
        diagnose(Path(__file__).parent, **kwargs)
    with pytest.raises(ArgumentTypeError, match=r"parse_explain: text: expected a str"):
        parse_explain(20)  # type: ignore[arg-type]


def test_doctor_on_a_folder_of_models_names_each(tmp_path: Path) -> None:
    """One located line per subfolder holding artifacts, each with the command to run."""
    from conftest import EXAMPLES

    parent = tmp_path / "models"
    for folder in (parent / "a", parent / "b" / "artifacts", parent / "c"):
        folder.mkdir(parents=True)
    for folder in (parent / "a", parent / "b" / "artifacts"):
        copy_files(EXAMPLES, folder, "detector_tidl_io_1.bin", "detector_tidl_net.bin")
    from tidl_io import PathError

    with pytest.raises(PathError) as info:  # one model at a time: it cannot check, so it raises
        diagnose(parent, check_library=False)
    assert str(info.value) == (f"{parent}: a folder of model folders: give one model's artifacts folder; found 2: "
                               f"{parent / 'a'}, {parent / 'b'} (tidl-io doctor {parent / 'a'})")
    code, out, err = run("--no-library", str(parent))  # the command checks one model: could not do the job
    assert (code, out) == (2, "") and err == (f"tidl-io doctor: error: {parent}: a folder of model folders: give one "
                                              f"model's artifacts folder; found 2: {parent / 'a'}, {parent / 'b'} "
                                              f"(tidl-io doctor {parent / 'a'})\n")


# ---- issue 24: TIDL's numbers, net-only folders, layer_info, paths, names on the terminal --------

def test_explain_output_data_layer(net: Path) -> None:
    """Layer 81 of the 8.2 DeepLab is its output data layer (TI's netLog: the last row, a
    TIDL_DataLayer with 0 outputs, reading buffer 80): explain says so, not "dataId 0"."""
    rows = netlog(net / DEEPLAB / "201_tidl_net.bin_netLog.txt")
    last = rows[-1]
    assert int(last[0]) == 81 and "DataLayer" in last[1]
    code, out, _ = run("--no-library", "--explain", "Layer 81", str(net / DEEPLAB))
    notes = [line for line in out.splitlines() if line.startswith("note: ")]
    assert code == 0 and len(notes) == 1
    assert "layer 81 is the output data layer; it reads dataId 80 (ArgMax" in notes[0], notes[0]
    assert "dataId 0" not in notes[0]


@pytest.mark.parametrize(("text", "message"), [
    ("Tensor " + "9" * 5000, r"past TI's ids \(0\.\.2147483647\)"),
    ("Tensor -1", "dataId -1 is negative"),
    ("Layer-3", "layer -3 is negative"),
    ("dataId 2147483648", "past TI's ids"),
    ("Tensor \u0661\u0662", "must be a message naming"),  # Arabic-Indic digits are no TI number
])
def test_explain_numbers_are_tis(text: str, message: str) -> None:
    with pytest.raises(OptionError, match=message) as info:
        parse_explain(text)
    assert len(str(info.value)) < 300
    code, out, err = run("--no-library", "--explain", text, "anything")
    assert (code, out) == (2, "") and "Traceback" not in err and err.count("\n") == 1


def test_explain_numbers_in_range() -> None:
    assert parse_explain("DIM Error - For Tensor 20") == ("dataId", 20)
    assert parse_explain("Tensor 0007") == ("dataId", 7)
    assert parse_explain("layer: 2147483647") == ("layer", 2147483647)
    with pytest.raises(OptionError, match=r"explain\[0\]: dataId must be 0\.\.2147483647"):
        diagnose("anything", explain=[("dataId", 10**5000)], check_library=False)


def test_folder_with_a_net_and_no_io_file_answers_from_the_net(net: Path, tmp_path: Path) -> None:
    folder = copy_files(net / DEEPLAB, tmp_path / "m", "201_tidl_net.bin", "201_tidl_net.bin.layer_info.txt")
    code, out, _ = run("--no-library", "--explain", "Tensor 3", str(folder))
    line = assert_one_error(code, out, "", f"error: {folder / '201_tidl_net.bin'}: no 201_tidl_io_1.bin beside it")
    assert "TI's tools write it as 201_tidl_io_1.bin" in line
    notes = [x for x in out.splitlines() if x.startswith("note: ")]
    name = layer_info(net / DEEPLAB / "201_tidl_net.bin.layer_info.txt")[3][1]  # dataId 3's name, TI's file
    assert len(notes) == 1 and "Tensor 3 is dataId 3, the output of layer 3 TIDL_ConvolutionLayer" in notes[0]
    assert name in notes[0]


def test_a_net_file_whose_folder_has_no_io_file_does_not_send_the_user_back(net: Path, tmp_path: Path) -> None:
    """Given the net file: checked alone, never "run doctor on the folder" (which has no io
    file and would send the user back to the net)."""
    folder = copy_files(net / DEEPLAB, tmp_path / "m", "201_tidl_net.bin")
    for target in (folder / "201_tidl_net.bin", folder):
        code, out, _ = run("--no-library", str(target))
        assert code == 1 and "tidl-io doctor" not in out, out
        assert "no 201_tidl_io_1.bin beside it" in out and "82 layers" in out
    tidl = copy_files(net / DEEPLAB, tmp_path / "n", "201_tidl_net.bin")
    (tidl / "201_tidl_net.bin").rename(tidl / "tidl_net_deeplab.bin")  # the RTOS SDK's names
    assert "no tidl_io_deeplab_1.bin beside it" in run("--no-library", str(tidl))[1]


def test_layer_info_of_another_model_is_one_error_read_once(net: Path, tmp_path: Path, monkeypatch) -> None:
    """The 9.0 EAST's layer_info.txt (7 lines) beside the 8.2 DeepLab net (82 layers)."""
    from tidl_io.net import parse

    folder = copy_files(net / DEEPLAB, tmp_path / "m", "201_tidl_net.bin", "201_tidl_io_1.bin")
    shutil.copy(net / EAST / "tempDir" / "625_tidl_net.bin.layer_info.txt", folder / "201_tidl_net.bin.layer_info.txt")
    calls = []
    real = parse.read_layer_info
    monkeypatch.setattr(parse, "read_layer_info", lambda *a: calls.append(a) or real(*a))
    code, out, _ = run("--no-library", str(folder))
    info = folder / "201_tidl_net.bin.layer_info.txt"
    line = assert_one_error(code, out, "", f"error: {info}: 7 line(s) for layers 0..6, but the net has 82 layers")
    assert "no layer names used" in line and len(calls) == 1


@pytest.mark.parametrize("make", [
    lambda tmp: tmp / ("a" * 300),  # a name over NAME_MAX
    lambda tmp: tmp / "/".join(["b" * 200] * 25),  # a path over PATH_MAX
    lambda tmp: tmp / ("c" * 300) / "201_tidl_net.bin",
])
def test_unusable_paths_raise_a_path_error(tmp_path: Path, make) -> None:
    from tidl_io import PathError

    path = make(tmp_path)
    with pytest.raises(PathError) as info:  # a path that cannot be used: diagnose cannot check, so it raises
        diagnose(path, check_library=False)
    assert info.value.filename == str(path) and str(info.value).startswith(f"{path}: ")
    code, out, err = run("--no-library", str(path))  # could not check: one line, exit 2
    assert code == 2 and out == "" and "Traceback" not in err and err.count("\n") == 1


def test_names_reach_the_terminal_escaped(net: Path, tmp_path: Path) -> None:
    """A folder named with ESC[2J and a newline: doctor's text keeps one line per finding and
    no control character (JSON and HTML keep the name as it is, escaped their own way)."""
    folder = copy_files(net / DEEPLAB, tmp_path / "x\x1b[2J\ny", "201_tidl_io_1.bin")
    code, out, _ = run("--no-library", str(folder))
    assert code == 1 and not any(ord(c) < 32 for c in out.replace("\n", "")), repr(out)
    assert len(errors(out)) == 1 and "x\\x1b[2J\\ny" in errors(out)[0]
    doc = json.loads(run("--no-library", "--json", str(folder))[1])
    assert doc["findings"][0]["source"] == str(folder / "201_tidl_io_1.bin")  # JSON: the name as it is
    page = diagnose(folder, check_library=False).to_html()
    assert "x\\x1b[2J\\ny" in page and "\x1b" not in page


def test_diagnose_report_object() -> None:
    """tidl_io.diagnose is the facade's; its report object gives what the CLI prints (the
    bundled example: its io file, net and sidecars agree)."""
    import tidl_io

    folder = Path(tidl_io.__file__).parent / "examples"
    found = tidl_io.diagnose(folder, check_library=False)
    assert isinstance(found, tidl_io.Diagnosis) and found.ok
    text = found.to_text()
    assert text + "\n" == run("--no-library", str(folder))[1]
    doc = found.to_dict()
    assert json.loads(json.dumps(doc, allow_nan=False)) == json.loads(run("--no-library", "--json", str(folder))[1])
    page = found.to_html()
    assert page.startswith("<!DOCTYPE html>") and "default-src 'none'" in page and "all files agree" in page
    assert "detector_tidl_net.bin" in page and "<script" not in page


# ---- could not check: diagnose raises, the CLI says it on one line and exits 2 -------------

def _misuse(tmp_path: Path, case: str) -> Path:
    """A PATH doctor cannot check, built here (the example's files are copied byte for byte)."""
    from conftest import EXAMPLES

    if case == "missing":
        return tmp_path / "nope"
    if case == "empty folder":
        (tmp_path / "empty").mkdir()
        return tmp_path / "empty"
    if case == "net with its io beside it":
        return copy_files(EXAMPLES, tmp_path / "m", "detector_tidl_io_1.bin", "detector_tidl_net.bin") / \
            "detector_tidl_net.bin"
    if case == "text file":
        (tmp_path / "config.yaml").write_text("session:\n  artifacts_folder: artifacts\n")
        return tmp_path / "config.yaml"
    if case == "binary file":
        (tmp_path / "model.onnx").write_bytes(b"\x08\x07\x12\x00" + bytes(range(256)))
        return tmp_path / "model.onnx"
    assert case == "empty file"
    (tmp_path / "x.bin").write_bytes(b"")
    return tmp_path / "x.bin"


NOT_IO = ("not an io descriptor (*_tidl_io_1.bin), a net file (*_tidl_net.bin) or an artifacts folder: {what}; "
          "doctor checks a model's artifacts folder, a model folder holding artifacts/, an io descriptor or a net file")


@pytest.mark.parametrize(("case", "error", "says"), [
    ("missing", "PathNotFoundError", "no such file or folder"),
    ("empty folder", "PathNotFoundError", "no *_tidl_io_1.bin file in this folder (nor in {path}/artifacts)"),
    ("net with its io beside it", "PathError",
     ("a network file (netVersion 0x20240719, TIDL 10.0), not an artifacts folder: doctor checks the folder holding "
     "each io descriptor and its net (tidl-io doctor {parent})")),
    ("text file", "PathError", NOT_IO.format(what="a text file of 39 byte(s)")),  # 9 + 30 characters written above
    ("binary file", "PathError", NOT_IO.format(what="a binary file of 260 byte(s)")),
    ("empty file", "PathError", NOT_IO.format(what="an empty file")),
])
def test_what_doctor_cannot_check_raises_and_exits_2(tmp_path: Path, case: str, error: str, says: str) -> None:
    import tidl_io

    path = _misuse(tmp_path, case)
    expected = f"{path}: " + says.format(path=path, parent=path.parent)
    with pytest.raises(tidl_io.PathError) as info:
        diagnose(path, check_library=False)
    assert type(info.value) is getattr(tidl_io, error) and str(info.value) == expected
    code, out, err = run("--no-library", str(path))
    assert (code, out, err) == (2, "", f"tidl-io doctor: error: {expected}\n")
    code, out, err = run("--no-library", "--json", str(path))  # --json: no report, a document naming the failure
    assert (code, err) == (2, f"tidl-io doctor: error: {expected}\n")
    assert json.loads(out) == {"schema_version": 1, "errors": [{"path": str(path), "message": expected}]}


def test_real_config_yaml_is_not_a_subgraph(realdata: Path) -> None:
    """Review: a model folder's config.yaml as PATH was read as "subgraph 'config.yaml'", with a
    false error about param.yaml; it is one line saying what it is (size by os.path.getsize)."""
    from tidl_io import PathError

    config = realdata / "net" / "od-8220-yolox-10.0" / "config.yaml"
    assert b"\0" not in config.read_bytes() and config.read_bytes().decode("utf-8")  # text, as TI wrote it
    expected = f"{config}: " + NOT_IO.format(what=f"a text file of {os.path.getsize(config)} byte(s)")
    with pytest.raises(PathError) as info:
        diagnose(config, check_library=False)
    assert str(info.value) == expected
    code, out, err = run("--no-library", str(config))
    assert (code, out, err) == (2, "", f"tidl-io doctor: error: {expected}\n")
    assert "subgraph" not in err and "param.yaml" not in err


def test_a_checkable_folder_with_an_unusable_file_is_still_a_finding(tmp_path: Path) -> None:
    """Findings stay findings: a 10-byte io file in a folder is checked (exit 1), not refused."""
    (tmp_path / "s_tidl_io_1.bin").write_bytes(bytes(10))
    found = diagnose(tmp_path, check_library=False)
    assert not found.ok and next(f.source for f in found.errors) == str(tmp_path / "s_tidl_io_1.bin")
    assert run("--no-library", str(tmp_path))[0] == 1
