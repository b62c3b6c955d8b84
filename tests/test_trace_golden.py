"""Golden runs (tidl_io.trace.golden): a tiny ONNX model built here with onnx.helper, and the
real Zero-DCE .tflite. Needs the extra 'golden' (skips without it; CI's golden stage sets
TIDL_IO_REQUIRE_GOLDEN=1 so they fail there instead)."""

from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io.cli.app import main
from tidl_io.trace import golden as G

from conftest import ROOT, ZERO_DCE

TFLITE = "model/zero_dce_model.tflite"


def tiny_onnx(path: Path) -> None:
    """X (1,2,3,4) -> relu -> r; r * 3 -> m; m + X -> Y."""
    import onnx
    from onnx import TensorProto, helper

    three = helper.make_tensor("three", TensorProto.FLOAT, [1], [3.0])
    graph = helper.make_graph(
        [helper.make_node("Relu", ["X"], ["r"]), helper.make_node("Mul", ["r", "three"], ["m"]),
         helper.make_node("Add", ["m", "X"], ["Y"])],
        "tiny", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 2, 3, 4])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 2, 3, 4])], initializer=[three])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))


def test_onnx_every_intermediate_tensor(golden_extra: None, tmp_path: Path) -> None:
    model = tmp_path / "tiny.onnx"
    tiny_onnx(model)
    x = np.random.default_rng(0).normal(size=(1, 2, 3, 4)).astype(np.float32)
    run = G.run_golden(model, {"X": x})
    r = np.maximum(x, 0)
    assert run.layout == "NCHW" and set(run.tensors) == {"X", "r", "m", "Y"}
    assert np.array_equal(run.tensors["r"], r) and np.array_equal(run.tensors["m"], r * np.float32(3))
    assert np.array_equal(run.tensors["Y"], r * np.float32(3) + x)
    # through the command line, to an .npz, from an NHWC .npy (transposed, and said so)
    np.save(tmp_path / "x.npy", x.transpose(0, 2, 3, 1))
    out = io.StringIO()
    assert main(["golden", str(model), "--input", str(tmp_path / "x.npy"), "-o", str(tmp_path / "g.npz")],
                out=out, err=io.StringIO()) == 0
    assert "NHWC -> NCHW" in out.getvalue() and "4 tensor(s) of tiny.onnx (NCHW)" in out.getvalue()
    with np.load(tmp_path / "g.npz") as z:
        assert set(z.files) == {"X", "r", "m", "Y", G.META_KEY}
        assert np.array_equal(z["Y"], run.tensors["Y"]) and np.array_equal(z["X"], x)
        assert json.loads(str(z[G.META_KEY]))["layout"] == "NCHW"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary left


def test_onnx_input_errors(golden_extra: None, tmp_path: Path) -> None:
    model = tmp_path / "tiny.onnx"
    tiny_onnx(model)
    np.save(tmp_path / "bad.npy", np.zeros((1, 2, 3, 5), np.float32))
    with pytest.raises(tidl_io.BufferMismatchError, match=r"bad.npy: shape \(1, 2, 3, 5\) fits neither the model "
                                                          r"input 'X' \(1, 2, 3, 4\)"):
        G.load_model_inputs(model, [str(tmp_path / "bad.npy")])
    with pytest.raises(tidl_io.FormatError, match="expected an .onnx or .tflite"):
        G.run_golden(tmp_path / "bad.npy", {})


@pytest.fixture(scope="module")
def zero_dce(realdata: Path) -> Path:
    return realdata / ZERO_DCE


def test_tflite_all_tensors(golden_extra: None, zero_dce: Path, tmp_path: Path) -> None:
    x = (np.random.default_rng(1).random((1, 3, 400, 600)) * 0.1).astype(np.float32)  # NCHW, as TIDL sees it
    np.save(tmp_path / "x.npy", x)
    notes: list[str] = []
    feeds = G.load_model_inputs(zero_dce / TFLITE, [str(tmp_path / "x.npy")], notes=notes)
    assert "transposed NCHW -> NHWC" in notes[0]
    run = G.run_golden(zero_dce / TFLITE, feeds)
    assert run.layout == "NHWC"
    # the spec: 53 of the 55 layer_info names are tensor names of this .tflite (the 2 others: *_netFormat)
    names = [line.split(" ", 2)[2].strip() for line in
             (zero_dce / "artifacts/tempDir/74_tidl_net.bin.layer_info.txt").read_text().splitlines()]
    assert len(names) == 55 and sum(n in run.tensors for n in names) == 53
    assert all(n.endswith("_netFormat") for n in names if n not in run.tensors)
    # TI's netLog: layer 2 'zero_dce_1/Mul' takes dataId 1 twice (x * x), layer 3 'sub' takes (2, 1): x*x - x
    xh = x.transpose(0, 2, 3, 1)
    assert np.array_equal(run.tensors["serving_default_args_0:0"], xh)
    assert np.array_equal(run.tensors["zero_dce_1/Mul"], xh * xh)
    assert np.array_equal(run.tensors["zero_dce_1/sub"], xh * xh - xh)
    assert run.tensors["StatefulPartitionedCall_1:0"].shape == (1, 400, 600, 3)


def _png(pixels: np.ndarray) -> bytes:
    h, w, _ = pixels.shape
    raw = b"".join(b"\x00" + pixels[y].tobytes() for y in range(h))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def test_tflite_picture_with_param_yaml(golden_extra: None, zero_dce: Path, tmp_path: Path) -> None:
    """param.yaml: mean 0, scale 0.003922, reverse_channels false, NHWC: x = pixel * 0.003922."""
    pixels = np.random.default_rng(2).integers(0, 40, size=(400, 600, 3)).astype(np.uint8)
    (tmp_path / "dark.png").write_bytes(_png(pixels))
    notes: list[str] = []
    feeds = G.load_model_inputs(zero_dce / TFLITE, [str(tmp_path / "dark.png")], notes=notes)
    want = pixels[None].astype(np.float32) * np.float32(0.003922)
    assert np.array_equal(feeds["serving_default_args_0:0"], want)
    text = "\n".join(notes)
    assert "no resize" in text and "RGB order" in text and "normalised" in text and "0.003922" in text
    small = np.zeros((10, 20, 3), np.uint8)
    (tmp_path / "small.png").write_bytes(_png(small))
    with pytest.raises(tidl_io.BufferMismatchError, match="picture is 20x10.*takes 600x400"):
        G.load_model_inputs(zero_dce / TFLITE, [str(tmp_path / "small.png")])


def test_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("onnx", "onnxruntime", "ai_edge_litert", "ai_edge_litert.interpreter", "tflite_runtime",
                 "tflite_runtime.interpreter", "tensorflow", "tensorflow.lite"):
        monkeypatch.setitem(sys.modules, name, None)  # import raises ImportError
    (tmp_path / "m.onnx").write_bytes(b"")
    with pytest.raises(G.GoldenUnavailableError, match=r"pip install 'tidl-io\[golden\]'"):
        G.run_golden(tmp_path / "m.onnx", {})
    err = io.StringIO()
    assert main(["golden", str(tmp_path / "m.onnx"), "--input", "x.npy", "-o", str(tmp_path / "g.npz")],
                out=io.StringIO(), err=err) == 2  # could not do the job (no extra): 2, as diff
    assert "tidl-io[golden]" in err.getvalue() and "Traceback" not in err.getvalue()


def test_nothing_else_imports_the_extra() -> None:
    code = ("import sys, tidl_io, tidl_io.cli.app, tidl_io.trace, tidl_io.trace.compare, tidl_io.cli.trace, "
            "tidl_io.trace.report, tidl_io.trace.golden\n"
            "tidl_io.cli.app.build_parser()\n"
            "bad = [m for m in ('onnx', 'onnxruntime', 'ai_edge_litert', 'tflite_runtime', 'tensorflow') "
            "if m in sys.modules]\nassert not bad, bad\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=ROOT)


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_unusable_input_files_are_one_located_line(golden_extra: None, tmp_path: Path) -> None:
    """An empty, cut, pickled or YAML --input (or one holding NaN) is one line naming the file and exit 2
    (was: an EOFError traceback, NumPy's message advising allow_pickle=True, NaN goldens)."""
    model = tmp_path / "tiny.onnx"
    tiny_onnx(model)
    good = io.BytesIO()
    np.save(good, np.ones((1, 2, 3, 4), np.float32))
    nan = np.zeros((1, 2, 3, 4), np.float32)
    nan[0, 1, 2, 3] = np.nan
    files = {"empty.npy": b"", "cut.npy": good.getvalue()[:-7], "yaml.npy": b"session:\n  input_mean: [0]\n" * 4,
             "obj.npy": b"", "empty.npz": b"", "nan.npy": b"", "nan.npz": b""}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    np.save(tmp_path / "obj.npy", np.array([{"x": 1}], dtype=object))
    np.save(tmp_path / "nan.npy", nan)
    np.savez(tmp_path / "nan.npz", X=nan)
    says = {"empty.npy": "empty file (0 bytes)", "cut.npy": "but 89 bytes of data follow the header",
            "yaml.npy": "no \\x93NUMPY magic", "obj.npy": "a pickle, never loaded", "empty.npz": "not an .npz",
            "nan.npy": "1 NaN value(s), the first at index (0, 1, 2, 3)",
            "nan.npz": "1 NaN value(s), the first at index (0, 1, 2, 3)"}
    for name, phrase in says.items():
        f = tmp_path / name
        with pytest.raises(tidl_io.TidlIoError, match=r"^" + str(f).replace(".", r"\.")):
            G.load_model_inputs(model, [str(f)])
        code, _, err = _cli("golden", str(model), "--input", str(f), "-o", str(tmp_path / "g.npz"))
        assert code == 2 and err.count("\n") == 1 and str(f) in err and phrase in err, (name, err)
        assert "allow_pickle" not in err and "Traceback" not in err
    assert not (tmp_path / "g.npz").exists()  # no NaN golden written


def test_compare_and_advise_inputs_are_read_the_same(golden_extra: None, realdata: Path, tmp_path: Path) -> None:
    """compare/advise --golden MODEL --input X read X as golden does: one line naming it, exit 2."""
    east = realdata / "net" / "edgeai-tidl-east-9.0"
    model = tmp_path / "tiny.onnx"
    tiny_onnx(model)
    raw = np.fromfile(east / "tempDir" / "625_calib_raw_data.bin", np.float32).reshape(3, -1)[:1]
    np.savez(tmp_path / "in.npz", raw[:, : 4 * 176 * 320].reshape(1, 4, 176, 320),
             raw[:, 4 * 176 * 320:].reshape(1, 1, 176, 320))
    assert _cli("emulate", str(east), "--input", str(tmp_path / "in.npz"), "--traces", str(tmp_path / "tr"))[0] == 0
    (tmp_path / "empty.npy").write_bytes(b"")
    np.save(tmp_path / "obj.npy", np.array([None], dtype=object))
    for name, says in (("empty.npy", "empty file (0 bytes)"), ("obj.npy", "a pickle, never loaded")):
        f = str(tmp_path / name)
        for argv in (("compare", str(tmp_path / "tr"), "--artifacts", str(east)),
                     ("advise", str(east), "--traces", str(tmp_path / "tr"))):
            code, _, err = _cli(*argv, "--golden", str(model), "--input", f)
            assert code == 2 and err.count("\n") == 1 and f in err and says in err, (argv[0], err)


def test_an_npz_input_of_another_size_is_refused_before_it_is_read(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    """Issue 32 item 13: an .npz input member of many frames (500 MB inflated from a few)
    is refused from its header: it was inflated whole, then found not to fit. The model's inputs
    stand in for the extra (not needed to read a header)."""
    import tracemalloc
    import zipfile

    monkeypatch.setattr(G, "model_inputs", lambda path: (G.ModelInput("x", (1, 5, 176, 320), np.dtype("f4")),))
    shape = (200, 5, 176, 320)  # 225 MB inflated (the 20 000 frames would take minutes to write)
    with zipfile.ZipFile(tmp_path / "in.npz", "w", zipfile.ZIP_DEFLATED) as z, \
            z.open("x.npy", "w", force_zip64=True) as fh:
        np.lib.format.write_array_header_1_0(fh, {"descr": "<f4", "fortran_order": False, "shape": shape})
        zeros = bytes(1 << 22)
        left = 4 * int(np.prod(shape))
        while left > 0:
            fh.write(zeros[:min(left, len(zeros))])
            left -= len(zeros)
    tracemalloc.start()
    with pytest.raises(tidl_io.BufferMismatchError, match=r"in.npz\[x\]: shape \(200, 5, 176, 320\) fits neither"):
        G.load_model_inputs(tmp_path / "m.onnx", [str(tmp_path / "in.npz")])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 16 << 20
