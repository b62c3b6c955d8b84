"""Session, artifacts discovery and sidecar parsing.

Sidecar parsing is checked against values read by hand from the real files in
../shared/realdata/sidecar. ``Session.run`` is checked end to end on temporary artifacts
folders built from every real descriptor (and its sidecars where they exist) against an
independent NumPy pipeline written here from the session's documented rules: layout ->
reverse_channels -> (x - mean) * scale when param.yaml asks for it -> trunc(x * scale + zp)
saturated -> float32(q - zp) / float32(scale) -> the test's model -> rint(y * scale + zp)
saturated -> float32 dequantize."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io import BufferMismatchError, FormatError
from tidl_io.run.session import ModelParams, Session, parse_onnxrt_metadata, parse_param_yaml
from tidl_io.runtime import MockC7xRuntime
from tidl_io.runtime.models import model_shape

from conftest import EXAMPLES, REALDATA, ROOT, real_files

SIDECAR = REALDATA / "sidecar"


def _sidecar(io: Path, suffix: str) -> Path | None:
    p = SIDECAR / f"{io.name}.{suffix}"
    return p if p.is_file() else None


# ---- artifacts folders --------------------------------------------------------------------

def _artifacts(tmp: Path, io: Path, name: str, *, net: bytes | None = None, meta: Path | None = None,
               params: Path | None = None) -> Path:
    art = tmp / "model" / "artifacts"
    art.mkdir(parents=True)
    shutil.copy(io, art / f"{name}_tidl_io_1.bin")
    if net is not None:
        (art / f"{name}_tidl_net.bin").write_bytes(net)
    if meta is not None:
        shutil.copy(meta, art / "onnxrtMetaData.txt")
    if params is not None:
        shutil.copy(params, tmp / "model" / "param.yaml")
    return tmp / "model"


# ---- the independent pipeline -------------------------------------------------------------

def _q_in(t, x):
    dt = t.dtype
    if dt.kind == "f":
        return x.astype(dt)
    info = np.iinfo(dt)
    return np.clip(np.trunc(x * t.scale + t.zero_point), info.min, info.max).astype(dt)


def _deq(t, q):
    if t.dtype.kind == "f":
        return q.astype(np.float32)
    return (q.astype(np.float64) - t.zero_point).astype(np.float32) / np.float32(t.scale)


def _q_out(t, y):
    dt = t.dtype
    if dt.kind == "f":
        return y.astype(dt)
    info = np.iinfo(dt)
    return np.clip(np.rint(y * t.scale + t.zero_point), info.min, info.max).astype(dt)


def _model_for(desc_list):
    """Output j of each subgraph: mean of its inputs + a ramp inside the output's range."""
    outs = {o.name: (j, o) for d in desc_list for j, o in enumerate(d.outputs)}
    ins = {d.inputs[0].name: d for d in desc_list}

    def model(feeds):
        d = next(ins[k] for k in feeds if k in ins)
        m = float(np.mean([np.mean(v) for v in feeds.values()]))
        result = {}
        for o in d.outputs:
            j = outs[o.name][0]
            if o.dtype.kind == "f":
                lo, hi = -3.0, 3.0
            else:
                info = np.iinfo(o.dtype)
                lo, hi = max((info.min - o.zero_point) / o.scale, -3.0), min((info.max - o.zero_point) / o.scale, 3.0)
            k = np.arange(o.size)
            y = lo + (hi - lo) * ((k * 5 + j) % 13) / 13.0 + 0.001 * np.tanh(m)
            result[o.name] = y.reshape(model_shape(o))
        return result

    return model


def _expected(t_in, x_nchw, params: ModelParams, normalize: bool, reverse: bool):
    x = np.asarray(x_nchw, np.float64) if normalize else np.asarray(x_nchw)
    if reverse and t_in.num_channels == 3:
        x = x[:, ::-1]
    if normalize:
        mean = np.asarray(params.input_mean or (0.0,), np.float64).reshape(-1, 1, 1)
        scale = np.asarray(params.input_scale or (1.0,), np.float64).reshape(-1, 1, 1)
        x = (x - mean) * scale
    if x.dtype.kind in "iu":  # integers are real values too, in float32 arithmetic (float64 for 32/64-bit)
        x = x.astype(np.float64 if x.dtype.itemsize >= 4 else np.float32)
    return _deq(t_in, _q_in(t_in, x))


@pytest.mark.parametrize("io", [pytest.param(p, id=p.name[:45]) for p in real_files()] or
                         [pytest.param(None, marks=pytest.mark.skip(reason="no realdata"))])
def test_run_end_to_end_on_real_artifacts(io: Path, tmp_path: Path) -> None:
    meta = _sidecar(io, "onnxrtMetaData.txt")
    params_file = _sidecar(io, "param.yaml")
    info = parse_onnxrt_metadata(meta.read_text()) if meta else None
    desc = tidl_io.load(io)
    name = next((s.name for s in (info.subgraphs if info else ())
                 if [t.name for t in desc.outputs] and set(s.output_names) >= {t.name for t in desc.outputs}),
                "model")
    folder = _artifacts(tmp_path, io, name, meta=meta, params=params_file)
    with Session(folder, model=_model_for([desc])) as s:
        assert s.artifacts.subgraph_names == (name,)
        assert any("no net file beside it" in n for n in s.notes)
        if info is not None and info.subgraph(name) is not None:
            listed = info.subgraph(name).output_names
            assert s.output_names[: len(listed)] == listed  # onnxrtMetaData.txt order
        rng = np.random.default_rng(len(io.name))
        feeds, expect_in = {}, {}
        for t in s.inputs:
            n, c, h, w = t.num_batches, t.num_channels, t.height, t.width
            if t.dtype.kind in "iu" and not s.normalize:
                x = rng.integers(np.iinfo(t.dtype).min, np.iinfo(t.dtype).max, (n, c, h, w), endpoint=True)
                x = x.astype(t.dtype)
            elif s.normalize:
                x = rng.integers(0, 256, (n, c, h, w)).astype(np.uint8)  # raw pixels
            else:
                x = rng.normal(size=(n, c, h, w)).astype(np.float32)
            expect_in[t.name] = _expected(t, x, s.params, s.normalize, s.reverse_channels)
            # feed channels-last where the model's param.yaml says so and the shape is unambiguous
            feeds[t.name] = x.transpose(0, 2, 3, 1) if (s.params.input_data_layout == "NHWC" and n == 1) else x
        got = s.run(feeds)
        reports = s.last_reports
    assert all(tr.path == "zero-copy" for r in reports for tr in r.transfers)
    assert list(got) == list(s.output_names)
    model = _model_for([desc])
    y = model({t.name: expect_in[t.name].reshape(model_shape(t)).astype(np.float64) for t in desc.inputs})
    for t in desc.outputs:
        want = _deq(t, _q_out(t, np.asarray(y[t.name], np.float64))).reshape(model_shape(t))
        assert got[t.name].dtype == np.float32 and got[t.name].shape == model_shape(t)
        np.testing.assert_array_equal(got[t.name], want, err_msg=t.label)


def _spec_desc(inputs, outputs):
    import sys
    sys.path.insert(0, str(ROOT / "tools"))
    from make_fixture import descriptor_from_spec
    return descriptor_from_spec({"family": "10.x", "inputs": inputs, "outputs": outputs})


def test_layouts_reverse_channels_and_normalisation(tmp_path: Path) -> None:
    art, t, model, seen = _normalising_model(tmp_path)
    x = np.random.default_rng(1).integers(0, 256, (1, 3, 4, 5)).astype(np.uint8)
    want = _expected(t, x, parse_param_yaml((art / "param.yaml").read_text()), True, True)
    with Session(art, model=model) as s:
        assert not any("no net file" in n for n in s.notes)
        assert s.normalize and s.reverse_channels
        for feed, layout in ((x, None), (x[0], None), (x.transpose(0, 2, 3, 1), None), (x[0].transpose(1, 2, 0), None),
                             (x[0].transpose(1, 2, 0), "HWC")):
            s.run({"img": feed}, layout=layout)
            np.testing.assert_array_equal(seen["img"].astype(np.float32), want)
    with Session(art, model=model, normalize=False, reverse_channels=False) as s:
        s.run(x.astype(np.int16))  # integers are real values: quantized like the same values in float
        np.testing.assert_array_equal(seen["img"].astype(np.float32), _deq(t, _q_in(t, x.astype(np.float32))))
        s.run(x.astype(np.float32))
        np.testing.assert_array_equal(seen["img"].astype(np.float32), _deq(t, _q_in(t, x.astype(np.float32))))


def _one_input(tmp_path: Path, etype: int, scale: float, zp: int = 0) -> Path:
    """An artifacts folder: input x (1, 1, 1, 5), element type ``etype``, ``scale``/``zp``; a
    float output y of the same shape."""
    i = dict(inDataName="x", inWidth=5, inHeight=1, inNumChannels=1, inElementType=etype, inTensorScale=scale,
             inZeroPoint=zp)
    o = dict(outDataName="y", outWidth=5, outHeight=1, outNumChannels=1, outElementType=6, outTensorScale=1.0)
    art = tmp_path / f"art_{etype}_{scale}_{zp}"
    art.mkdir()
    (art / "m_tidl_io_1.bin").write_bytes(tidl_io.build(_spec_desc([i], [o])))
    return art


@pytest.mark.parametrize("etype,scale,zp,dtype,feed,model_sees", [
    # uint8 input, scale 0.5: codes trunc(x * 0.5) = 0 0 1 50 127, the model sees codes / 0.5
    (0, 0.5, 0, np.uint8, [0, 1, 3, 100, 255], [0, 0, 2, 100, 254]),
    # uint8 image into an int8 input (scale 1): values saturate at 127
    (1, 1.0, 0, np.uint8, [0, 1, 3, 100, 255], [0, 1, 3, 100, 127]),
    # uint8 image into an int16 input of scale 4: codes 4x, back to the values
    (3, 4.0, 0, np.uint8, [0, 1, 3, 100, 255], [0, 1, 3, 100, 255]),
    # int16 into an int16 input with zero point 10, scale 1: q = x + 10, the model sees q - 10
    (3, 1.0, 10, np.int16, [-5, 0, 7, 32757, 32767], [-5, 0, 7, 32757, 32757]),
    # the fast path (same type, scale 1, zero point 0): codes are the values
    (0, 1.0, 0, np.uint8, [0, 1, 3, 100, 255], [0, 1, 3, 100, 255]),
    # int32 values into a uint8 input of scale 0.25 (float64 arithmetic): trunc(x / 4), saturated
    (0, 0.25, 0, np.int32, [-8, 7, 9, 1000, 2**31 - 1], [0, 4, 8, 1000, 1020]),
])
def test_integer_feeds_are_real_values(tmp_path: Path, etype, scale, zp, dtype, feed, model_sees) -> None:
    seen = {}

    def model(feeds):
        seen.update(feeds)
        return {"y": np.zeros(5)}

    with Session(_one_input(tmp_path, etype, scale, zp), model=model) as s:
        s.run(np.array(feed, dtype).reshape(1, 1, 1, 5))
        assert seen["x"].ravel().tolist() == model_sees
        s.run(np.array(feed, np.float64).reshape(1, 1, 1, 5))  # the same values in float: the same codes
        assert seen["x"].ravel().tolist() == model_sees


def test_codes_keyword_writes_codes_unchanged(tmp_path: Path) -> None:
    seen = {}

    def model(feeds):
        seen.update(feeds)
        return {"y": np.zeros(5)}

    with Session(_one_input(tmp_path, 0, 0.5), model=model) as s:
        s.run(np.array([0, 1, 3, 100, 255], np.uint8).reshape(1, 1, 1, 5), codes=True)
        assert seen["x"].ravel().tolist() == [0, 2, 6, 200, 510]  # codes / 0.5
        with pytest.raises(BufferMismatchError, match="codes=True takes codes of the element type uint8, found "
                                                      "dtype float32"):
            s.run(np.zeros((1, 1, 1, 5), np.float32), codes=True)


def test_ambiguous_shapes_follow_the_hint() -> None:
    from tidl_io.run.session import _to_logical
    t = _spec_desc([dict(inDataName="sq", inWidth=3, inHeight=3, inNumChannels=3)], []).inputs[0]
    x = np.arange(27).reshape(1, 3, 3, 3)
    assert (_to_logical(t, x, None)[0, 0, 0] == x[0]).all()              # NCHW by default
    assert (_to_logical(t, x, None, "NHWC")[0, 0, 0] == x[0].transpose(2, 0, 1)).all()  # param.yaml's hint
    assert (_to_logical(t, x, "NHWC", "NCHW")[0, 0, 0] == x[0].transpose(2, 0, 1)).all()  # run(layout=) wins
    assert (_to_logical(t, x[0], "HWC")[0, 0, 0] == x[0].transpose(2, 0, 1)).all()
    assert (_to_logical(t, x[0], None)[0, 0, 0] == x[0]).all()           # CHW before HWC
    with pytest.raises(BufferMismatchError, match="array shape \\(2, 3\\) fits none of NCHW \\(1, 3, 3, 3\\)"):
        _to_logical(t, np.zeros((2, 3)), None)
    assert (_to_logical(t, x[0], "NHWC")[0, 0, 0] == x[0].transpose(2, 0, 1)).all()  # channels last: HWC
    with pytest.raises(BufferMismatchError, match="array shape \\(1, 3, 3, 3\\) with layout 'HWC' fits none"):
        _to_logical(t, x, "HWC")
    with pytest.raises(tidl_io.OptionError, match="run: layout must be one of 'NCHW', 'NHWC', 'CHW', 'HWC' \\(any case\\), found 'WHC'"):
        _to_logical(t, x, "WHC")


def test_two_subgraphs_chain_in_metadata_order(tmp_path: Path) -> None:
    first = _spec_desc([dict(inDataName="image", inWidth=4, inHeight=2, inNumChannels=1)],
                       [dict(outDataName="feat", outWidth=4, outHeight=2, outNumChannels=1, outElementType=1,
                             outTensorScale=10.0)])
    second = _spec_desc([dict(inDataName="feat", inWidth=4, inHeight=2, inNumChannels=1),
                         dict(inDataName="extra", inWidth=1, inHeight=1, inNumChannels=1)],
                        [dict(outDataName="score", outWidth=8, outHeight=1, outNumChannels=1, numValidTensorDims=2)])
    art = tmp_path / "artifacts"
    art.mkdir()
    (art / "zz_first_tidl_io_1.bin").write_bytes(tidl_io.build(first))
    (art / "aa_second_tidl_io_1.bin").write_bytes(tidl_io.build(second))
    (art / "onnxrtMetaData.txt").write_text("numGraphNodes=9\n0:subGraphName=zz_first\n0:inDataNames=input.1\n"
                                            "0:outDataNames=feat\n1:subGraphName=aa_second\n"
                                            "1:inDataNames=feat,extra\n1:outDataNames=score\n")

    def model(feeds):
        if "image" in feeds:
            return {"feat": feeds["image"] * 2.0}
        return {"score": feeds["feat"].reshape(1, 8) + feeds["extra"].reshape(1, 1)}

    with Session(art, model=model) as s:
        assert s.input_names == ("image", "extra") and s.output_names == ("feat", "score")
        assert any("input 'feat' comes from an earlier subgraph" in n for n in s.notes)
        x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(1, 1, 2, 4)
        out = s.run({"input.1": x, "extra": np.full((1, 1, 1, 1), 0.5, np.float32)})  # ONNX input name alias
    feat = np.clip(np.rint(x.astype(np.float64) * 2.0 * 10.0), -128, 127).astype(np.int8)
    feat_real = feat.astype(np.float32) / np.float32(10.0)
    np.testing.assert_array_equal(out["feat"], feat_real)
    np.testing.assert_array_equal(out["score"], (feat_real.reshape(1, 8).astype(np.float64) + 0.5).astype(np.float32))


def test_run_errors(tmp_path: Path) -> None:
    desc = _spec_desc([dict(inDataName="a", inWidth=2, inHeight=2, inNumChannels=1),
                       dict(inDataName="b", inWidth=2, inHeight=2, inNumChannels=1)],
                      [dict(outDataName="y", outWidth=4, outHeight=2, outNumChannels=1)])
    path = tmp_path / "x_tidl_io_1.bin"
    path.write_bytes(tidl_io.build(desc))
    with Session(path, model="ramp") as s:
        z = np.zeros((1, 1, 2, 2), np.float32)
        with pytest.raises(BufferMismatchError, match="this model has 2 inputs \\('a', 'b'\\); pass a mapping"):
            s.run(z)
        with pytest.raises(tidl_io.TensorNotFoundError, match="unknown input 'c': this model's inputs are 'a', 'b'"):
            s.run({"a": z, "c": z})
        with pytest.raises(BufferMismatchError, match="missing input\\(s\\): 'b'"):
            s.run({"a": z})
        with pytest.raises(BufferMismatchError, match="input 0 'a': array shape \\(3,\\) fits none of"):
            s.run({"a": np.zeros(3), "b": z})
        with pytest.raises(BufferMismatchError, match="expected numbers, found dtype <U1"):
            s.run({"a": np.array(["x"] * 4).reshape(1, 1, 2, 2), "b": z})
        for bad, found in ((None, "None"), ("img.png", "str 'img.png'"), ({"x": 1}, "dict")):
            with pytest.raises(tidl_io.ArgumentTypeError) as err:
                s.run({"a": z, "b": bad})
            assert str(err.value) == (f"Session.run: feeds['b']: expected an array (a numpy array or nested lists of "
                                      f"numbers), found {found}")
    with pytest.raises(tidl_io.OptionError, match="Session: model= is for the default mock runtime and runtime= "
                                                  "replaces it; expected one of them, found both"):
        Session(path, model="ramp", runtime=MockC7xRuntime)


def test_custom_runtime_factory_gets_desc_and_net(tmp_path: Path) -> None:
    ex = EXAMPLES / "detector_tidl_io_1.bin"
    art = tmp_path / "art"
    art.mkdir()
    shutil.copy(ex, art / "det_tidl_io_1.bin")
    (art / "det_tidl_net.bin").write_bytes(b"\x07" * 10)
    calls = []

    def factory(desc, net=None):
        calls.append((desc.source, net))
        return MockC7xRuntime(desc, net, model="detection")

    with Session(art, runtime=factory) as s:
        assert calls == [(str(art / "det_tidl_io_1.bin"), art / "det_tidl_net.bin")]
        assert s.runtimes[0].net_nbytes == 10 and not s.notes
    (art / "det_tidl_net.bin").write_bytes(b"")
    with pytest.raises(FormatError, match="the net file is empty"):
        Session(art)


def test_params_override(tmp_path: Path) -> None:
    ex = EXAMPLES
    with Session(ex, model="detection", params={"session": {"input_mean": [1, 2, 3], "input_optimization": False}}) as s:
        assert s.normalize and s.params.input_mean == (1.0, 2.0, 3.0)
        assert any("normalised here as (x - [1.0, 2.0, 3.0]) * [1.0]" in n for n in s.notes)
    with Session(ex, model="detection") as s:
        assert not s.normalize and s.params.detection_threshold == 0.5  # the bundled param.yaml
        assert "Session(1 subgraph(s): detector" in repr(s)


def test_detections_from_run_outputs(tmp_path: Path) -> None:
    with Session(EXAMPLES, model="detection") as s:
        img = np.full((96, 160, 3), 80, np.uint8)
        img[10:40, 12:52] = (220, 40, 40)      # red, label 0
        img[60:88, 20:44] = (240, 220, 40)     # yellow, label 3
        img[0:3, 0:3] = (40, 200, 60)          # green, label 1...
        img[0, 2] = 80                          # ...8 of the 9 pixels of its box: score 8/9
        out = s.run(img)
        rows = s.detections(out, width=160, height=96)
        assert rows.tolist() == np.float32([[12, 10, 52, 40, 0, 1], [20, 60, 44, 88, 3, 1],
                                            [0, 0, 3, 3, 1, 8 / 9]]).tolist()
        assert s.detections(out, threshold=0.9).shape == (2, 6)
        assert s.detections(out)[0].tolist() == np.float32([12 / 160, 10 / 96, 52 / 160, 40 / 96, 0, 1]).tolist()
    params = {"postprocess": {"formatter": {"name": "DetectionBoxSL2BoxLS"}, "detection_threshold": 0.5}}
    with Session(EXAMPLES, model="detection", params=params) as s:
        dets = {"dets": np.array([[1, 2, 3, 4, 0.9], [5, 6, 7, 8, 0.2]]), "labels": np.array([7, 8])}
        assert s.detections(dets).tolist() == [[1, 2, 3, 4, 7, np.float32(0.9)]]


def test_runtime_choices_and_notes(tmp_path: Path, monkeypatch) -> None:
    ex = EXAMPLES / "detector_tidl_io_1.bin"
    art = tmp_path / "art"
    art.mkdir()
    shutil.copy(ex, art / "one_tidl_io_1.bin")
    monkeypatch.setenv("TIDL_IO_TIDLRT_LIBRARY", str(tmp_path / "no_such_libvx_tidl_rt.so"))
    with Session(art) as s:  # "auto" without a library: the mock, and the note says why
        assert isinstance(s.runtimes[0], MockC7xRuntime)
        assert any(n.startswith("runtime: the host mock (no TIDL-RT: TIDL-RT library not found; tried: ")
                   for n in s.notes)
        s.run(np.zeros((1, 3, 96, 160), np.float32))
        assert set(s.last_stages) == {"pack", "unpack"} and all(v >= 0 for v in s.last_stages.values())
    with Session(art, runtime="mock", model="ramp") as s:
        assert isinstance(s.runtimes[0], MockC7xRuntime)
    desc = tidl_io.load(ex)
    mine = MockC7xRuntime(desc, model="ramp")
    with Session(art, runtime=mine) as s:  # a Runtime instance for a one-subgraph model
        assert s.runtimes == (mine,)
    with pytest.raises(tidl_io.OptionError, match="runtime must be 'auto', 'tidlrt', 'mock', a factory f\\(desc, "
                                                  "net\\) or a Runtime, found 'board'"):
        Session(art, runtime="board")
    with pytest.raises(tidl_io.ArgumentTypeError, match="^Session: runtime: expected 'auto', 'tidlrt', 'mock', a "
                                                       "factory f\\(desc, net\\) or a Runtime, found int 3$"):
        Session(art, runtime=3)  # type: ignore[arg-type]
    with pytest.raises(tidl_io.OptionError, match="model= is for the host mock; TIDL-RT runs the compiled network"):
        Session(art, runtime="tidlrt", model="ramp")
    shutil.copy(ex, art / "two_tidl_io_1.bin")
    with pytest.raises(tidl_io.OptionError, match="a Runtime instance serves one subgraph, but .* has 2 \\(one, "
                                                  "two\\); pass a factory"):
        Session(art, runtime=mine)


# ---- friction (issue 11) ---------------------------------------------------------------------

def _normalising_model(tmp_path: Path):
    """An artifacts folder with an int16 input 'img' (3 channels,
    scale 1000), param.yaml reversing channels and normalising; and a model recording what it sees."""
    desc = _spec_desc([dict(inDataName="img", inWidth=5, inHeight=4, inNumChannels=3, inPadL=1, inPadT=1,
                            inPadB=2, inElementType=3, inTensorScale=1000.0)],
                      [dict(outDataName="y", outWidth=60, outHeight=1, outNumChannels=1)])
    art = tmp_path / "m"
    art.mkdir()
    (art / "net_tidl_io_1.bin").write_bytes(tidl_io.build(desc))
    (art / "net_tidl_net.bin").write_bytes(b"\x01")
    (art / "param.yaml").write_text("preprocess: {reverse_channels: true}\nsession: {input_mean: [10, 20, 30], "
                                    "input_scale: [0.5, 0.25, 0.125], input_optimization: false}\n")
    seen: dict = {}

    def model(feeds):
        seen.update(feeds)
        return {"y": np.zeros(60)}

    return art, desc.inputs[0], model, seen


def test_preprocessed_feeds_skip_reversal_and_normalisation(tmp_path: Path) -> None:
    art, t, model, seen = _normalising_model(tmp_path)
    raw = np.random.default_rng(3).integers(0, 256, (1, 3, 4, 5)).astype(np.uint8)
    # what an onnxruntime user feeds: reversed and normalised by hand, float32, NCHW
    mean, scale = np.array([10, 20, 30.0]).reshape(3, 1, 1), np.array([0.5, 0.25, 0.125]).reshape(3, 1, 1)
    ready = ((raw[:, ::-1].astype(np.float64) - mean) * scale).astype(np.float32)
    with Session(art, model=model) as s:
        assert any("preprocessed=True" in n for n in s.notes)
        s.run(ready, preprocessed=True)  # steps 2 and 3 skipped: the model sees the feed, quantized
        np.testing.assert_array_equal(seen["img"].astype(np.float32), _deq(t, _q_in(t, ready.astype(np.float32))))
        s.run(raw)  # the default: a raw frame is reversed and normalised here, as before
        want = _deq(t, _q_in(t, ((raw[:, ::-1].astype(np.float64) - mean) * scale)))
        np.testing.assert_array_equal(seen["img"].astype(np.float32), want)
        s.run(ready)  # ... and so is a float feed: the double preprocessing preprocessed=True avoids
        twice = ((ready[:, ::-1].astype(np.float64) - mean) * scale)
        np.testing.assert_array_equal(seen["img"].astype(np.float32), _deq(t, _q_in(t, twice)))
        s.run(ready[0].transpose(1, 2, 0), preprocessed=True, layout="hwc")  # layout still matched, any case
        np.testing.assert_array_equal(seen["img"].astype(np.float32), _deq(t, _q_in(t, ready.astype(np.float32))))
        with pytest.raises(tidl_io.ArgumentTypeError, match="Session.run: preprocessed: expected True or False"):
            s.run(ready, preprocessed="yes")


def test_params_path_missing_or_a_folder_says_so(tmp_path: Path) -> None:
    ex = EXAMPLES
    for params in (tmp_path / "nope.yaml", str(tmp_path / "nope.yaml"), "param.yml"):
        with pytest.raises(FileNotFoundError) as err:
            Session(ex, model="detection", params=params)
        assert isinstance(err.value, tidl_io.PathError)
        assert str(err.value) == f"{params}: no such file; expected an edgeai param.yaml"
    with pytest.raises(IsADirectoryError, match=rf"^{re.escape(str(tmp_path))}: is a folder; expected an edgeai "
                                                r"param.yaml"):
        Session(ex, model="detection", params=tmp_path)
    (tmp_path / "p.yaml").write_text("session: {input_data_layout: nhwc}\n")
    with Session(ex, model="detection", params=tmp_path / "p.yaml") as s:
        assert s.params.input_data_layout == "NHWC" and s.params.source == str(tmp_path / "p.yaml")
    with Session(ex, model="detection", params="{session: {input_mean: [1]}}") as s:  # one line of YAML text
        assert s.params.input_mean == (1.0,)


def test_session_path_errors(tmp_path: Path) -> None:
    with pytest.raises(tidl_io.ArgumentTypeError, match=r"^Session: path: expected a path \(str or os.PathLike\), "
                                                        r"found None"):
        Session(None)  # type: ignore[arg-type]
    with pytest.raises(tidl_io.PathError, match="no such file or folder") as err:
        Session(tmp_path / "missing")
    assert isinstance(err.value, FileNotFoundError) and err.value.filename == str(tmp_path / "missing")


def test_a_net_file_that_is_not_a_regular_file_is_refused(tmp_path: Path) -> None:
    art = tmp_path / "a"
    art.mkdir()
    shutil.copy(EXAMPLES / "detector_tidl_io_1.bin", art / "det_tidl_io_1.bin")
    (art / "det_tidl_net.bin").mkdir()
    with pytest.raises(tidl_io.PathError, match=r"det_tidl_net.bin: is not a regular file; expected the network "
                                                r"file beside det_tidl_io_1.bin"):
        Session(art, model="detection")
