"""tidl_io.artifacts.subgraphs: TIDL's subgraph numbers (onnxrtMetaData.txt), the one resolver
of every command's --subgraph (issue 32 item 5: advise counted by file order, compare and emulate
by TIDL's number)."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io.artifacts.folder import find_artifacts
from tidl_io.artifacts.subgraphs import net_subgraphs, pick_subgraph, subgraphs
from tidl_io.cli.app import main

from conftest import EAST, ZERO_DCE


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()


@pytest.fixture
def reordered(realdata: Path, tmp_path: Path) -> Path:
    """Subgraph "z" (EAST's 625, with its calibration dumps) is TIDL's 0 and "a" (Zero-DCE's 74)
    its 1, as onnxrtMetaData.txt lists them: the file names sort the other way."""
    art = tmp_path / "art"
    (art / "tempDir").mkdir(parents=True)
    east, dce = realdata / EAST, realdata / ZERO_DCE / "artifacts"
    for kind in ("io_1", "net"):
        shutil.copyfile(east / f"625_tidl_{kind}.bin", art / f"z_tidl_{kind}.bin")
        shutil.copyfile(dce / f"74_tidl_{kind}.bin", art / f"a_tidl_{kind}.bin")
    for suffix in ("_calib_raw_data.bin", "_tidl_io__stats_tool_out.bin", "_tidl_net.bin.layer_info.txt"):
        shutil.copyfile(east / "tempDir" / f"625{suffix}", art / "tempDir" / f"z{suffix}")
    (art / "onnxrtMetaData.txt").write_text("0:subGraphName=z\n1:subGraphName=a\n")
    return art


def test_numbers_are_tidls_not_the_file_order(reordered: Path) -> None:
    listed = [(s.number, s.name) for s in subgraphs(find_artifacts(reordered))]
    assert listed == [(0, "z"), (1, "a")]
    folder, nets = net_subgraphs(reordered)
    assert folder == reordered and [(s.number, s.name, s.io_file is not None) for s in nets] == [
        (0, "z", True), (1, "a", True)]
    (reordered / "onnxrtMetaData.txt").unlink()  # without the metadata: the folder's (natural) order
    assert [(s.number, s.name) for s in net_subgraphs(reordered)[1]] == [(0, "a"), (1, "z")]


def test_pick_by_number_or_name(reordered: Path) -> None:
    subs = subgraphs(find_artifacts(reordered))
    assert pick_subgraph(subs, 0).name == "z" and pick_subgraph(subs, "1").name == "a"
    assert pick_subgraph(subs, "a").number == 1
    with pytest.raises(tidl_io.OptionError, match=r"no subgraph '2' .*subgraphs: 0 \(z\), 1 \(a\)"):
        pick_subgraph(subs, 2, where="art")
    with pytest.raises(tidl_io.OptionError, match="say which one to advise on with --subgraph N"):
        pick_subgraph(subs, None, where="art", purpose="to advise on")


def test_net_subgraphs_of_nets_alone(reordered: Path, tmp_path: Path) -> None:
    for f in reordered.glob("*_tidl_io_1.bin"):
        f.unlink()
    _, subs = net_subgraphs(reordered / "z_tidl_net.bin")
    assert [(s.number, s.name, s.io_file) for s in subs] == [(0, "z", None)]
    assert net_subgraphs(reordered / "tempDir")[0] == reordered  # tempDir/: the folder above
    (tmp_path / "empty").mkdir()
    with pytest.raises(tidl_io.PathNotFoundError, match="advise needs the compiled net"):
        net_subgraphs(tmp_path / "empty", "advise")


def _east_traces(folder: Path, art: Path) -> None:
    """Traces of subgraph 0 (TIDL's number of z): EAST's concat layer, dataId 4."""
    folder.mkdir()
    layer = tidl_io.load_net(art / "z_tidl_net.bin").layer_by_data_id(4)
    codes = np.random.default_rng(0).integers(-100, 100, size=layer.shape).astype(np.int8)
    n, c, h, w = layer.shape
    codes.tofile(folder / f"tidl_trace_subgraph_0_0004_{n:04d}_0001_00001_{c:05d}_{w:06d}x{h:05d}.y")


def test_every_command_picks_the_same_subgraph(reordered: Path, tmp_path: Path) -> None:
    """--subgraph 0 is "z" for compare (traces and calibration), emulate and advise alike; advise
    took the first file by name ("a") before."""
    traces = tmp_path / "traces"
    _east_traces(traces, reordered)
    rc, out, err = _run("compare", str(traces), "--artifacts", str(reordered), "--ref", str(traces),
                        "--subgraph", "0", "--json")
    report = json.loads(out)
    assert rc == 0, err
    assert "(net z_tidl_net.bin)" in report["test"]
    (tmp_path / "compare.json").write_text(out)

    east_golden = tmp_path / "golden.npz"
    calib = tidl_io.load_calibration(reordered, "z")
    np.savez(east_golden, **{"625": np.stack([f["625"] for f in calib.outputs])})
    rc, out, err = _run("compare", "--calibration", str(reordered), "--golden", str(east_golden), "--subgraph", "0",
                        "--json")
    assert rc == 0, err
    assert json.loads(out)["test"].startswith("z_tidl_io__stats_tool_out.bin")

    inputs = tmp_path / "in.npz"
    np.savez(inputs, **{"onnx::Concat_616": np.ones((1, 4, 176, 320), np.float32),
                        "onnx::Concat_624": np.ones((1, 1, 176, 320), np.float32)})
    rc, out, err = _run("emulate", str(reordered), "--input", str(inputs), "--subgraph", "0", "--json")
    assert rc == 0, err
    assert Path(json.loads(out)["net"]).name == "z_tidl_net.bin"

    rc, out, err = _run("advise", str(reordered), "--compare", str(tmp_path / "compare.json"), "--subgraph", "0",
                        "--no-perf", "--json")
    assert rc == 0, err
    assert json.loads(out)["subgraph"] == "z"
    rc, out, err = _run("advise", str(reordered), "--compare", str(tmp_path / "compare.json"), "--subgraph", "a",
                        "--no-perf", "--json")
    assert rc == 0 and json.loads(out)["subgraph"] == "a", err  # by name
    advice = tidl_io.advise(reordered, compare=tmp_path / "compare.json", subgraph=0, perf=False)
    assert advice.subgraph == "z"


def test_swapped_numeric_names_pick_by_number_and_name_prefix_by_name() -> None:
    """The second probe of issue 32: subgraph 0 named '1' and subgraph 1 named '0' could not be picked at all
    (every spelling was 'ambiguous'). TIDL's number wins; name:X picks by name."""
    from tidl_io.artifacts.subgraphs import Subgraph, pick_subgraph

    subs = [Subgraph(0, "1", None, None), Subgraph(1, "0", None, None)]
    assert pick_subgraph(subs, "1").number == 1 and pick_subgraph(subs, 0).number == 0
    assert pick_subgraph(subs, "name:1").number == 0 and pick_subgraph(subs, "name:0").number == 1
    assert pick_subgraph([Subgraph(0, "625", None, None)], "625").number == 0  # a name that is no number of any
