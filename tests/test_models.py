"""Built-in mock models against plain-NumPy and literal-loop oracles written from their
docstrings and from spec reorg-permute.md §1."""

from __future__ import annotations

import struct

import numpy as np
import pytest

import tidl_io
from tidl_io import GeometryError, load, make_descriptor
from tidl_io.data.buffers import alloc_input, alloc_output, unpack
from tidl_io.runtime.models import (
    DEMO_COLORS,
    chain,
    color_boxes,
    detection,
    identity,
    model_shape,
    permute,
    ramp,
    reorg,
    resolve_model,
)

from conftest import REALDATA, corpus, real_files


def _t(prefix: str, name: str, c: int, h: int, w: int, **kw):
    p = prefix
    spec = {f"{p}DataName": name, f"{p}NumBatches": 1, f"{p}DIM1": 1, f"{p}DIM2": 1, f"{p}NumChannels": c,
            f"{p}Height": h, f"{p}Width": w, f"{p}ChannelPitch": h * w, f"{p}ElementType": 6,
            f"{p}TensorScale": 1.0}
    if p == "out":
        spec["numValidTensorDims"] = 4
    spec.update(kw)
    return spec


def _desc(inputs, outputs):
    return make_descriptor("10.x", 1, inputs=[_t("in", *a) if isinstance(a, tuple) else a for a in inputs],
                           outputs=[_t("out", *a) if isinstance(a, tuple) else a for a in outputs])


def _feeds(desc, seed=0):
    rng = np.random.default_rng(seed)
    return {t.name: rng.normal(size=model_shape(t)) for t in desc.inputs}


def test_identity_pairs_by_index_and_reshapes() -> None:
    d = _desc([("a", 2, 3, 4), ("b", 1, 1, 6)], [("y", 4, 3, 2), ("z", 1, 2, 3)])
    f = _feeds(d)
    out = identity(d)(f)
    assert out["y"].shape == (1, 4, 3, 2) and (out["y"].ravel() == f["a"].ravel()).all()
    assert (out["z"].ravel() == f["b"].ravel()).all()


@pytest.mark.parametrize("name", [p.name for p in real_files()][:3] or ["none"])
def test_identity_refuses_real_classifiers(name: str) -> None:
    if name == "none":
        pytest.skip("no realdata")
    desc = load(REALDATA / name)
    if len(desc.inputs) == len(desc.outputs) and all(i.size == o.size for i, o in zip(desc.inputs, desc.outputs)):
        pytest.skip("shapes allow identity")
    with pytest.raises(GeometryError, match="model 'identity'"):
        identity(desc)
    assert resolve_model(None, desc).__name__ == "run"  # falls back to ramp


def _ramp_oracle(desc, feeds):
    """Literal loops over the docstring's formula."""
    total = sum(float(v.sum()) for v in feeds.values())
    count = sum(v.size for v in feeds.values())
    m = total / count if count else 0.0
    result = {}
    for j, o in enumerate(desc.outputs):
        if o.is_float:
            lo, hi = -8.0, 8.0
        else:
            info = np.iinfo(o.dtype)
            lo = max((info.min - o.zero_point) / o.scale, -8.0)
            hi = min((info.max - o.zero_point) / o.scale, 8.0)
        vals = []
        for k in range(o.size):
            t = (0.25 * m + 0.6180339887498949 * (k + 1) + 0.1 * j) % 1.0
            vals.append(lo + (hi - lo) * t)
        result[o.name] = np.array(vals).reshape(model_shape(o))
    return result


def test_ramp_follows_its_formula() -> None:
    d = make_descriptor("10.x", 1, inputs=[_t("in", "a", 2, 3, 4)], outputs=[
        _t("out", "y", 3, 2, 2, outElementType=0, outTensorScale=35.14),
        _t("out", "z", 1, 1, 7, outElementType=1, outTensorScale=10.5, outZeroPoint=-7),
        _t("out", "w", 1, 2, 5)])
    f = _feeds(d, 4)
    got = ramp(d)(f)
    want = _ramp_oracle(d, f)
    for name in want:
        assert got[name].shape == want[name].shape
        np.testing.assert_allclose(got[name], want[name], rtol=0, atol=1e-12)
    # uint8 with scale 35.14 represents [0, 255/35.14]; int8 zp -7 scale 10.5 [-121/10.5, 134/10.5] capped at 8
    assert got["y"].min() >= 0 and got["y"].max() < 255 / 35.14
    assert got["z"].min() >= -121 / 10.5 and got["z"].max() < 8


def test_permute_and_reorg_against_spec_formulas() -> None:
    d = _desc([("x", 8, 4, 6)], [("y", 32, 2, 3)])
    x = np.arange(8 * 4 * 6, dtype=np.float64).reshape(1, 8, 4, 6)
    s = 2
    n, c, h, w = x.shape
    darknet = x.reshape(n, c // (s * s), h, s, w, s).transpose(0, 3, 5, 1, 2, 4).reshape(n, c * s * s, h // s, w // s)
    assert (reorg(d, 2)({"x": x})["y"] == darknet).all()
    dcr = np.zeros((1, 32, 2, 3))
    crd = np.zeros((1, 32, 2, 3))
    for ci in range(c):
        for hh in range(h):
            for ww in range(w):
                ph, pw = hh % s, ww % s
                dcr[0, (ph * s + pw) * c + ci, hh // s, ww // s] = x[0, ci, hh, ww]
                crd[0, ci * s * s + ph * s + pw, hh // s, ww // s] = x[0, ci, hh, ww]
    assert (reorg(d, 2, "dcr")({"x": x})["y"] == dcr).all()
    assert (reorg(d, 2, "crd")({"x": x})["y"] == crd).all()
    p = _desc([("x", 8, 4, 6)], [("y", 4, 6, 8)])
    assert (permute(p, [0, 2, 3, 1])({"x": x})["y"] == np.transpose(x, (0, 2, 3, 1))).all()
    with pytest.raises(GeometryError, match="stride"):
        reorg(_desc([("x", 3, 4, 6)], [("y", 12, 2, 3)]), 2)


def test_chain_from_yaml_text() -> None:
    d = _desc([("x", 4, 2, 2)], [("y", 16, 1, 1)])
    spec = """
    model: chain
    ops:
      - reorg: {stride: 2, mode: crd}
      - mul: 0.5
      - add: 1
      - clip: [0, 2]
      - relu
    """
    model = resolve_model(spec, d)
    x = np.linspace(-4, 6, 16).reshape(1, 4, 2, 2)
    expect = np.maximum(np.clip(x.reshape(1, 4, 1, 2, 1, 2).transpose(0, 1, 3, 5, 2, 4).reshape(1, 16, 1, 1) * 0.5
                                + 1, 0, 2), 0)
    assert np.array_equal(model({"x": x})["y"], expect)


def test_chain_per_output_and_errors() -> None:
    d = _desc([("a", 1, 2, 3), ("b", 1, 1, 1)], [("mean", 1, 2, 3), ("copy", 1, 1, 1)])
    m = chain(d, outputs={"mean": {"input": "a", "ops": ["mean"]}, "copy": {"input": "b"}})
    f = {"a": np.arange(6.0).reshape(1, 1, 2, 3), "b": np.full((1, 1, 1, 1), 9.0)}
    r = m(f)
    assert (r["mean"] == 2.5).all() and r["copy"].item() == 9.0
    with pytest.raises(GeometryError, match="no ops for output"):
        chain(d, outputs={"mean": {"input": "a"}})
    with pytest.raises(GeometryError, match="produces shape"):
        chain(d, outputs={"mean": {"input": "b"}, "copy": {"input": "b"}})
    with pytest.raises(GeometryError, match="unknown op 'fft'"):
        chain(d, [{"fft": 1}])
    with pytest.raises(GeometryError, match="not a permutation"):
        chain(d, [{"permute": [0, 1]}])


@pytest.mark.parametrize("spec,text", [
    ("nonsense", "expected a built-in name"), ("model: [", "nor valid YAML"), ("- a\n- b", "mapping with a 'model' key"),
    ({"model": "permute", "axes": [1]}, "bad arguments"), ({"model": "gru"}, "must be one of"),
])
def test_resolve_model_errors(spec, text: str) -> None:
    with pytest.raises(tidl_io.OptionError, match=text):  # a model= value it does not take
        resolve_model(spec, _desc([("x", 1, 1, 2)], [("y", 1, 1, 2)]))


def test_model_shape_keeps_dim1_dim2_of_inputs() -> None:
    t = make_descriptor("10.x", 1, inputs=[_t("in", "clip", 3, 8, 16, inNumBatches=2, inDIM1=2, inDIM2=3)]).inputs[0]
    assert model_shape(t) == (2, 2, 3, 3, 8, 16)
    o = make_descriptor("10.x", 1, outputs=[_t("out", "p", 1, 1, 7, outDIM2=5, numValidTensorDims=5)]).outputs[0]
    assert model_shape(o) == (1, 5, 1, 1, 7)


def _image(h: int, w: int) -> np.ndarray:
    img = np.full((3, h, w), 128.0)
    img[:, 10:30, 5:25] = np.array(DEMO_COLORS[0][1])[:, None, None]      # red 20 x 20 at (5, 10)
    img[:, 40:50, 60:100] = np.array(DEMO_COLORS[2][1])[:, None, None]    # blue 40 x 10 at (60, 40)
    return img[None]


def test_detection_model_writes_tidl_od_format() -> None:
    d = make_descriptor("10.x", 1, inputs=[_t("in", "image", 3, 64, 128, inElementType=0)],
                        outputs=[_t("out", "detections", 1, 1, 145, numValidTensorDims=1)])
    y = detection(d)({"image": _image(64, 128)})["detections"]
    raw = np.float32(y).tobytes()
    n, size, nkp, off = struct.unpack_from("<4f", raw)
    assert (n, size, nkp, off, struct.unpack_from("<i", raw, 16)[0]) == (2, 28, 0, 20, 1)
    recs = [struct.unpack_from("<7f", raw, 20 + 28 * k) for k in range(2)]
    by_label = {int(r[1]): r for r in recs}
    assert by_label[0][3:] == pytest.approx((5 / 128, 10 / 64, 25 / 128, 30 / 64))
    assert by_label[2][3:] == pytest.approx((60 / 128, 40 / 64, 100 / 128, 50 / 64))
    assert by_label[0][2] == 1.0 and by_label[2][2] == 1.0
    assert struct.unpack_from("<7f", raw, 20 + 28 * 2) == (0.0,) * 7


def test_detection_model_needs_room_and_an_image() -> None:
    small = make_descriptor("10.x", 1, inputs=[_t("in", "image", 3, 8, 8)],
                            outputs=[_t("out", "d", 1, 1, 11, numValidTensorDims=1)])
    with pytest.raises(GeometryError, match="too few for a header and one record"):
        detection(small)
    gray = make_descriptor("10.x", 1, inputs=[_t("in", "image", 1, 8, 8)],
                           outputs=[_t("out", "d", 1, 1, 40, numValidTensorDims=1)])
    with pytest.raises(GeometryError, match="expected one 3-channel image"):
        color_boxes(gray)


def test_custom_detector_is_truncated_to_capacity() -> None:
    d = make_descriptor("10.x", 1, inputs=[_t("in", "image", 3, 4, 4)],
                        outputs=[_t("out", "d", 1, 1, 5 + 7 * 2, numValidTensorDims=1)])
    rows = np.array([[0, 0, 1, 1, 1, 0.9], [0, 0, 1, 1, 2, 0.8], [0, 0, 1, 1, 3, 0.7]])
    y = detection(d, detector=lambda feeds: rows)({"image": np.zeros((1, 3, 4, 4))})["d"]
    assert y[0] == 2 and y[5 + 1] == 1 and y[5 + 7 + 1] == 2


@pytest.mark.parametrize("path", [pytest.param(p, id=p.name[:50]) for p in corpus()])
def test_model_shape_is_what_unpack_returns(path) -> None:
    desc = load(path)
    for t in (*desc.inputs, *desc.outputs):
        assert model_shape(t) == unpack(t, alloc_input(desc, t.index) if t.kind == "input"
                                        else alloc_output(desc, t.index)).shape, t.label


def test_model_trial_arrays_respect_the_allocation_cap(monkeypatch) -> None:
    """A huge input must give the library's AllocationLimitError, not NumPy's 'array is too big'."""
    import tidl_io
    from tidl_io.runtime import models

    desc = tidl_io.make_descriptor("10.x", inputs=[{"inDataName": "x", "inWidth": 2**30, "inHeight": 2**30,
                                                    "inNumChannels": 1, "inChannelPitch": 2**30,
                                                    "inNumBatches": 1, "inDIM1": 1, "inDIM2": 1,
                                                    "inTensorScale": 1.0, "inElementType": 6}],
                                   outputs=[{"outDataName": "y", "outWidth": 4, "outHeight": 1,
                                             "outNumChannels": 1, "outChannelPitch": 4, "outNumBatches": 1,
                                             "outDIM1": 1, "outDIM2": 1, "outTensorScale": 1.0,
                                             "outElementType": 6, "numValidTensorDims": 1}])
    monkeypatch.setenv("TIDL_IO_MAX_ALLOC_BYTES", str(64 * 2**20))
    with pytest.raises(tidl_io.AllocationLimitError, match="model 'chain': a float64 trial array for input 0 'x'"):
        models.chain(desc, ["mean"])


def test_build_od_argument_errors_are_library_errors() -> None:
    import tidl_io
    from tidl_io.data.detection import build_od

    with pytest.raises(tidl_io.OptionError, match="^build_od: obj_info_size must be a multiple of 4 and >= 28, "
                                                  "found 3$"):
        build_od(np.zeros((1, 6)), obj_info_size=3)
    with pytest.raises(tidl_io.BufferMismatchError, match="2 detections do not fit a capacity of 1 records"):
        build_od(np.zeros((2, 6)), capacity=1)
