"""tidl_io.artifacts.folder: io-file discovery, artifacts folders and the two sidecars, against the
real sidecar files in ../shared/realdata/sidecar (what edgeai-tidl-tools wrote) and literal
folder layouts built here."""

from __future__ import annotations

from pathlib import Path

import pytest

import tidl_io
from tidl_io import FormatError
from tidl_io.artifacts.folder import (
    ModelParams,
    find_artifacts,
    load_param_yaml,
    locate_io_files,
    order_io_files,
    parse_onnxrt_metadata,
    parse_param_yaml,
)

from conftest import EXAMPLES, REALDATA

SIDECAR = REALDATA / "sidecar"


# ---- io files ----------------------------------------------------------------------------

def test_find_io_files_both_namings(tmp_path: Path) -> None:
    for name in ("a_tidl_io_1.bin", "tidl_io_net_1.bin", "x_tidl_io_onnx_y_1.bin", "a_tidl_net.bin"):
        (tmp_path / name).write_bytes(b"")
    assert [p.name for p in tidl_io.find_io_files(tmp_path)] == ["a_tidl_io_1.bin", "tidl_io_net_1.bin",
                                                                 "x_tidl_io_onnx_y_1.bin"]


def test_locate_io_files_finds_a_model_folders_artifacts(tmp_path: Path) -> None:
    art = tmp_path / "model" / "artifacts"
    art.mkdir(parents=True)
    (art / "a_tidl_io_1.bin").write_bytes(b"")
    assert locate_io_files(tmp_path / "model") == (art, [art / "a_tidl_io_1.bin"])
    assert locate_io_files(art) == (art, [art / "a_tidl_io_1.bin"])
    assert locate_io_files(art / "a_tidl_io_1.bin") == (art, [art / "a_tidl_io_1.bin"])
    with pytest.raises(FileNotFoundError, match=r"no \*_tidl_io_1.bin file in this folder \(nor in .*artifacts\)"):
        locate_io_files(tmp_path)
    with pytest.raises(tidl_io.PathError, match="no such file or folder"):
        locate_io_files(tmp_path / "gone")


# ---- sidecars -----------------------------------------------------------------------------

def test_onnxrt_metadata_of_the_real_files(realdata: Path) -> None:
    east = parse_onnxrt_metadata((SIDECAR / ("edgeai-tidl-sp__model-artifacts__east-mobilenet-simplified-no-norm__"
                                             "625_tidl_io_1.bin.onnxrtMetaData.txt")).read_text())
    assert east.num_graph_nodes == 121
    assert [s.name for s in east.subgraphs] == ["onnx::Div_622onnx::Concat_616output", "625"]
    assert east.subgraphs[0].output_names == ("output", "onnx::Concat_616", "onnx::Div_622")
    assert east.subgraphs[1].input_names == ("onnx::Concat_616", "onnx::Concat_624")
    assert east.subgraphs[1].input_idx == (0, 1)
    od = parse_onnxrt_metadata((SIDECAR / ("od-8220__od-8220-20250514-supposed-final-model__artifacts__subgraph_0_"
                                           "tidl_io_1.bin.onnxrtMetaData.txt")).read_text())
    assert od.num_graph_nodes == 271 and od.subgraph("subgraph_0").output_names == ("labels", "dets")
    assert od.subgraph("nope") is None


@pytest.mark.parametrize("text,match", [("numGraphNodes", "line 1: expected key=value"),
                                        ("x:subGraphName=a", "subgraph index: expected a whole number, found 'x'"),
                                        ("numGraphNodes=many", "numGraphNodes: expected a whole number")])
def test_onnxrt_metadata_errors(text: str, match: str) -> None:
    with pytest.raises(FormatError, match=match):
        parse_onnxrt_metadata(text, "meta.txt")


def test_param_yaml_of_the_real_files(realdata: Path) -> None:
    def load(prefix: str) -> ModelParams:
        (path,) = SIDECAR.glob(prefix + "*param.yaml")
        return parse_param_yaml(path.read_text(), path.name)

    mono = load("monodepth")
    assert mono.input_mean == (0.0, 0.0, 0.0) and mono.input_scale == (0.00392157,) * 3
    assert mono.input_optimization is False and mono.normalizes and mono.input_data_layout == "NCHW"
    assert mono.task_type == "segmentation" and mono.formatter is None
    od = load("od-8220")
    assert od.reverse_channels is True and od.input_scale == (1.0, 1.0, 1.0) and od.normalized_detections is False
    assert (od.formatter.name, od.formatter.src_indices, od.formatter.dst_indices) == \
        ("DetectionBoxSL2BoxLS", (5, 4), (4, 5))
    assert od.detection_threshold == 0.1
    ssd = load("bbai64__go__model__ssdLite")
    assert ssd.input_mean is None and ssd.input_optimization is True and not ssd.normalizes
    assert ssd.input_data_layout == "NHWC" and ssd.normalized_detections is True
    assert ssd.formatter.src_indices == (1, 0, 3, 2) and ssd.detection_threshold == 0.3
    bean = load("roast")  # duplicate top-level key, detection_thr and detection_threshold both present
    assert bean.detection_threshold == 0.5 and bean.input_scale == (0.003921569790691137,) * 3


@pytest.mark.parametrize("text,match", [
    ("session: [1]", "session: expected a mapping"),
    ("session: {input_mean: abc}", "session.input_mean: expected a number or a list of numbers, found 'abc'"),
    ("session: {input_scale: [1, x]}", "session.input_scale: expected a number, found 'x'"),
    ("session: {input_data_layout: CHW}", "expected NCHW or NHWC, found 'CHW'"),
    ("postprocess: {formatter: DetectionYXYX2XYXY}", "postprocess.formatter: expected a mapping"),
    ("a: [", "not valid YAML"),
    ("- 1", "expected a mapping at the top"),
])
def test_param_yaml_errors(text: str, match: str) -> None:
    with pytest.raises(FormatError, match=match):
        parse_param_yaml(text)


# ---- artifacts folders --------------------------------------------------------------------

def test_find_artifacts_layouts(tmp_path: Path) -> None:
    ex = tidl_io.load(EXAMPLES / "detector_tidl_io_1.bin")
    data = tidl_io.build(ex)
    art = tmp_path / "m" / "artifacts"
    art.mkdir(parents=True)
    for name in ("subgraph_10", "subgraph_2"):
        (art / f"{name}_tidl_io_1.bin").write_bytes(data)
    (art / "subgraph_2_tidl_net.bin").write_bytes(b"net")
    (art / "tidl_io_rtos_1.bin").write_bytes(data)       # RTOS naming, net tidl_net_rtos.bin
    (art / "tidl_net_rtos.bin").write_bytes(b"n")
    (tmp_path / "m" / "param.yaml").write_text("task_type: detection\n")
    found = find_artifacts(tmp_path / "m")
    assert found.subgraph_names == ("subgraph_2", "subgraph_10", "rtos")  # natural order of the file names
    assert [p.name if p else None for p in found.net_files] == ["subgraph_2_tidl_net.bin", None, "tidl_net_rtos.bin"]
    assert found.param_file == tmp_path / "m" / "param.yaml" and found.metadata_file is None
    (art / "onnxrtMetaData.txt").write_text("0:subGraphName=subgraph_10\n1:subGraphName=subgraph_2\n")
    assert find_artifacts(art).subgraph_names[:2] == ("subgraph_10", "subgraph_2")  # metadata order first
    one = find_artifacts(art / "subgraph_2_tidl_io_1.bin")
    assert one.io_files == (art / "subgraph_2_tidl_io_1.bin",)
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        find_artifacts(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="no \\*_tidl_io_1.bin file in this folder"):
        find_artifacts(tmp_path / "empty")


# ---- issue 24: param.yaml through the one bounded loader; sidecars never repr() a whole value ----

BOMB = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{k}: &{k} [{', '.join([f'*{p}'] * 9)}]\n" for p, k in zip("abcdefgh", "bcdefghi"))


@pytest.mark.parametrize(("text", "message"), [
    ("session: " + "[" * 5000 + "]" * 5000, "nest"),
    (BOMB, "once its aliases"),
    ("session:\n  input_mean: *x\n", "not valid YAML"),
    ("k: " + "x" * 17_000_000, "at most 1048576"),
])
def test_hostile_param_yaml(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "param.yaml").write_text(text)
    for read in (lambda: load_param_yaml(tmp_path / "param.yaml"), lambda: parse_param_yaml(text, "param.yaml")):
        with pytest.raises(FormatError, match=message) as info:
            read()
        assert len(str(info.value)) < 400


def test_param_yaml_values_are_cut_in_messages() -> None:
    """A value of the wrong kind is named, never repr()'d whole (an alias bomb's value, or
    one 1 MB string, would be a 25 MB error line)."""
    huge = {"session": {"input_mean": "x" * 500_000}}
    with pytest.raises(FormatError, match="expected a number") as info:
        parse_param_yaml(huge)
    assert len(str(info.value)) < 300
    nested = "a: &a [lol, lol, lol]\nb: &b [*a, *a, *a]\nsession:\n  input_data_layout: [*b, *b, *b]\n"
    with pytest.raises(FormatError, match="expected NCHW or NHWC") as info:
        parse_param_yaml(nested)
    assert len(str(info.value)) < 300
    with pytest.raises(FormatError) as info:
        parse_onnxrt_metadata("0:subGraphName=a\n" + "y" * 1_000_000 + "\n")
    assert len(str(info.value)) < 300 and "line 2: expected key=value" in str(info.value)


def test_load_param_yaml_reads_the_real_one(realdata: Path) -> None:
    path = realdata / "net" / "od-8220-yolox-10.0" / "param.yaml"
    import yaml

    raw = yaml.safe_load(path.read_text())  # the oracle: PyYAML on its own, on a file known to be benign
    p = load_param_yaml(path)
    assert p.raw == raw and p.input_mean == tuple(float(v) for v in raw["session"]["input_mean"])


def test_io_files_in_onnxrt_metadata_order(tmp_path: Path) -> None:
    files = [tmp_path / f"{n}_tidl_io_1.bin" for n in ("a", "b10", "b9", "z")]
    (tmp_path / "onnxrtMetaData.txt").write_text("0:subGraphName=z\n1:subGraphName=b10\n")
    assert [f.name[0:3] for f in order_io_files(tmp_path, files)] == ["z_t", "b10", "a_t", "b9_"]
    (tmp_path / "onnxrtMetaData.txt").write_text("0:subGraphName=z\nnot a line\n")
    assert [f.name[0:3] for f in order_io_files(tmp_path, files)] == ["a_t", "b9_", "b10", "z_t"]
    with pytest.raises(FormatError):
        order_io_files(tmp_path, files, strict=True)


@pytest.mark.parametrize("name", ["a" * 300, "/".join(["b" * 200] * 25)])
def test_locate_io_files_unusable_path_is_a_path_error(tmp_path: Path, name: str) -> None:
    with pytest.raises(tidl_io.PathError, match="cannot look at it"):
        locate_io_files(tmp_path / name)
    with pytest.raises(tidl_io.PathError):
        find_artifacts(tmp_path / name)
