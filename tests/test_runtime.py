"""The mock C7x runtime, end to end over every real descriptor and the fixtures.

Oracles are independent of the library: buffer indices from the spec §4 formula written
out here, quantization and dequantization from spec §5 (``q = saturate(trunc(x * scale +
zp))`` for inputs as pack writes them, ``float32(q - zp) / float32(scale)`` for reads,
``rint(y * scale + zp)`` saturated for the device's output store), TIDL-RT's conversion
branches from ``tidl_rt_ovx_datamove.cpp`` evaluated element by element with float32
scalars, and the test's own model function."""

from __future__ import annotations

import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io import BufferMismatchError, FormatError, GeometryError
from tidl_io.runtime import (
    POISON_FLOAT32_BITS,
    InvokeReport,
    MemType,
    MockC7xRuntime,
    PaddingWarning,
    RtTensor,
    Runtime,
    alloc_shared_buffers,
    poison_value,
)

from conftest import ROOT, corpus

sys.path.insert(0, str(ROOT / "tools"))
from make_fixture import descriptor_from_spec  # noqa: E402

# ---- oracles ------------------------------------------------------------------------------


def valid_index(t) -> np.ndarray:
    """Flat buffer index of every valid element, C order over (N, DIM1, DIM2, C, H, W),
    from the spec's formula and the raw fields only."""
    n, d1, d2, c, h, w = (t.num_batches, t.dim1, t.dim2, t.num_channels, t.height, t.width)
    line = t.width + t.pad_l + t.pad_r
    dim2_pitch = t.channel_pitch * (c + t.pad_ch)
    dim1_pitch = dim2_pitch * d2
    batch_pitch = dim1_pitch * d1
    def ax(k: int, size: int) -> np.ndarray:  # arange along axis k of 6, broadcastable
        shape = [1] * 6
        shape[k] = size
        return np.arange(size, dtype=np.int64).reshape(shape)

    N, D1, D2, C, H, W = (ax(k, size) for k, size in enumerate((n, d1, d2, c, h, w)))
    base = N * batch_pitch + D1 * dim1_pitch + D2 * dim2_pitch
    if t.layout_code == 1:  # NHWC: channel step 1, pixel step C, line step C * line
        idx = base + (t.pad_t + H) * line * c + (t.pad_l + W) * c + C
    else:
        idx = base + C * t.channel_pitch + (t.pad_t + H) * line + t.pad_l + W
    return idx.ravel()


def pad_mask(t, size: int) -> np.ndarray:
    m = np.ones(size, bool)
    m[valid_index(t)] = False
    return m


def q_in(t, x: np.ndarray) -> np.ndarray:
    """Spec §5 input quantization as pack does it: trunc(x * scale + zp), saturated."""
    dt = t.dtype
    if dt.kind == "f":
        return x.astype(dt)
    info = np.iinfo(dt)
    return np.clip(np.trunc(x * t.scale + t.zero_point), info.min, info.max).astype(dt)


def deq(t, q: np.ndarray) -> np.ndarray:
    if t.dtype.kind == "f":
        return q.astype(np.float64)
    return ((q.astype(np.float64) - t.zero_point).astype(np.float32) / np.float32(t.scale)).astype(np.float64)


def q_out(t, y: np.ndarray) -> np.ndarray:
    dt = t.dtype
    if dt.kind == "f":
        return y.astype(dt)
    info = np.iinfo(dt)
    return np.clip(np.rint(y * t.scale + t.zero_point), info.min, info.max).astype(dt)


def test_model(desc):
    """The test's own deterministic model: output j = mean of all inputs + a ramp inside
    the output's range. Records what it was fed."""
    seen = {}

    def model(feeds):
        seen.clear()
        seen.update({k: np.array(v) for k, v in feeds.items()})
        m = float(np.mean([v.mean() for v in feeds.values()])) if feeds else 0.0
        out = {}
        for j, o in enumerate(desc.outputs):
            if o.dtype.kind == "f":
                lo, hi = -5.0, 5.0
            else:
                info = np.iinfo(o.dtype)
                lo = max((info.min - o.zero_point) / o.scale, -5.0)
                hi = min((info.max - o.zero_point) / o.scale, 5.0)
            k = np.arange(o.size)
            y = lo + (hi - lo) * (((k * 7 + j) % 23) / 23.0) + 0.01 * np.tanh(m)
            out[o.name] = y.reshape(tidl_io.models.model_shape(o))
        return out

    return model, seen


test_model.__test__ = False  # not a pytest test


def fill_inputs(desc, bufs, seed: int) -> dict[str, np.ndarray]:
    """Random real values, quantized by the oracle and written at the oracle's indices."""
    rng = np.random.default_rng(seed)
    codes = {}
    for t in desc.inputs:
        if t.dtype.kind == "f":
            x = rng.normal(size=t.size)
        else:
            info = np.iinfo(t.dtype)
            lo, hi = (info.min - t.zero_point) / t.scale, (info.max - t.zero_point) / t.scale
            x = rng.uniform(lo - 0.1 * (hi - lo), hi + 0.1 * (hi - lo), size=t.size)  # some saturate
        q = q_in(t, x)
        bufs[t.name][valid_index(t)] = q
        codes[t.name] = q
    return codes


def check_outputs(desc, model_oracle, seen, codes, out_bufs, poison: bool = True) -> None:
    for t in desc.inputs:  # the model saw dequantize(quantize(x))
        np.testing.assert_array_equal(seen[t.name].ravel(), deq(t, codes[t.name]))
    expect = model_oracle({t.name: deq(t, codes[t.name]).reshape(tidl_io.models.model_shape(t))
                           for t in desc.inputs})
    for t in desc.outputs:
        buf = out_bufs[t.name]
        got = buf[valid_index(t)]
        want = q_out(t, np.asarray(expect[t.name], np.float64).ravel())
        np.testing.assert_array_equal(got, want, err_msg=t.label)
        if poison:
            bits = buf.view(f"u{buf.itemsize}")[pad_mask(t, buf.size)]
            pv = np.array([poison_value(t.dtype)]).view(f"u{buf.itemsize}")[0]
            assert (bits == pv).all(), f"{t.label}: a pad element is not poison"


CORPUS = [pytest.param(p, id=p.name[:50]) for p in corpus()]


# ---- end to end over the corpus -----------------------------------------------------------

@pytest.mark.parametrize("path", CORPUS)
def test_end_to_end_zero_copy_and_memcpy(path: Path) -> None:
    desc = tidl_io.load(path)
    model, seen = test_model(desc)
    oracle, _ = test_model(desc)
    rt = MockC7xRuntime(desc, model=model)
    ins, outs = alloc_shared_buffers(rt)
    codes = fill_inputs(desc, ins, seed=len(path.name))
    report = rt.invoke(ins, outs)
    names = [t.name for t in (*desc.inputs, *desc.outputs)]
    assert list(report.zero_copy) == names and report.copied == () and report.bytes_copied == 0
    assert rt.last_report is report
    check_outputs(desc, oracle, seen, codes, outs)

    # The same data in ordinary memory: every tensor is memcpy'd, N*C*DIM1*DIM2*chPitch elements,
    # which TIDL-RT gets wrong when valid data lies beyond that (refused).
    user_in = {k: v.copy() for k, v in ins.items()}
    user_out = {k: np.zeros_like(v) for k, v in outs.items()}
    short = [t for t in (*desc.inputs, *desc.outputs)
             if t.num_batches * t.dim1 * t.dim2 * t.num_channels * t.channel_pitch <= int(valid_index(t).max())]
    if short:
        with pytest.raises(BufferMismatchError, match="TIDL-RT copies only N\\*C\\*DIM1\\*DIM2\\*channelPitch"):
            rt.invoke(user_in, user_out)
        return
    report = rt.invoke(user_in, user_out)
    assert report.zero_copy == () and list(report.copied) == names
    for tr, t in zip(report.transfers, (*desc.inputs, *desc.outputs)):
        n = min(t.num_batches * t.dim1 * t.dim2 * t.num_channels * t.channel_pitch, t.buffer_size)
        assert (tr.path, tr.nbytes) == ("memcpy", n * t.itemsize)
    check_outputs(desc, oracle, seen, codes, user_out)


def _small(family="10.x", inputs=(), outputs=()):
    return descriptor_from_spec({"family": family, "inputs": list(inputs), "outputs": list(outputs)})


PADDED = dict(inDataName="img", inWidth=7, inHeight=5, inNumChannels=3, inPadL=1, inPadT=1, inPadB=2,
              inChannelPitch=(5 + 2) * 8 + 1, inElementType=0)
PADDED_OUT = dict(outDataName="feat", outWidth=4, outHeight=3, outNumChannels=5, outPadL=1, outPadT=1, outPadB=2,
                  outPadCh=2, outElementType=1, outTensorScale=16.0)


def test_random_geometries_poison_exactly_the_pads() -> None:
    rng = np.random.default_rng(7)
    for i in range(60):
        w, h, c = (int(v) for v in rng.integers(1, 7, 3))
        pl, pt, pb, pch = (int(v) for v in rng.integers(0, 3, 4))
        layout = int(rng.integers(0, 2)) if pl == pt == pb == 0 else 0
        line = w + pl
        rows = h + pt + pb
        pitch = rows * line + int(rng.integers(-pb * line if pb else 0, 3)) if layout == 0 else h * w
        pitch = max(pitch, (h + pt) * line)
        etype = int(rng.choice([0, 1, 3, 6]))
        spec_in = dict(inDataName="x", inWidth=w, inHeight=h, inNumChannels=c, inElementType=etype, inLayout=layout,
                       inPadL=pl, inPadT=pt, inPadB=pb, inChannelPitch=pitch, inNumBatches=int(rng.integers(1, 3)),
                       inTensorScale=float(rng.choice([1.0, 4.0])))
        spec_out = dict(outDataName="y", outWidth=w, outHeight=h, outNumChannels=c, outElementType=etype,
                        outLayout=layout, outPadL=pl, outPadT=pt, outPadB=pb, outPadCh=pch, outChannelPitch=pitch,
                        outNumBatches=spec_in["inNumBatches"], outTensorScale=2.0)
        n = spec_in["inNumBatches"]
        spec_in["inBufSize"] = n * (c + 1) * max(pitch, rows * line) + int(rng.integers(0, 4))
        spec_out["outBufSize"] = n * (c + pch) * max(pitch, rows * line) + int(rng.integers(0, 4))
        desc = _small(inputs=[spec_in], outputs=[spec_out])
        model, seen = test_model(desc)
        oracle, _ = test_model(desc)
        rt = MockC7xRuntime(desc, model=model)
        ins, outs = alloc_shared_buffers(rt)
        codes = fill_inputs(desc, ins, seed=i)
        rt.invoke(ins, outs)
        check_outputs(desc, oracle, seen, codes, outs)


# ---- zero copy exactly when the conditions hold -------------------------------------------

def test_zero_copy_conditions() -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    t_in, t_out = desc.inputs[0], desc.outputs[0]
    rt = MockC7xRuntime(desc, model="ramp")
    shared_in, shared_out = alloc_shared_buffers(rt)
    user_in, user_out = np.zeros_like(shared_in["img"]), np.zeros_like(shared_out["feat"])

    def paths(i, o):
        return [tr.path for tr in rt.invoke({"img": i}, {"feat": o}).transfers]

    assert paths(shared_in["img"], shared_out["feat"]) == ["zero-copy", "zero-copy"]
    assert paths(user_in, shared_out["feat"]) == ["memcpy", "zero-copy"]
    assert paths(shared_in["img"], user_out) == ["zero-copy", "memcpy"]
    # Described with its own properties: same as the bare buffer.
    assert paths(RtTensor.for_tensor(t_in, shared_in["img"]), RtTensor.for_tensor(t_out, user_out)) == \
        ["zero-copy", "memcpy"]
    # The memType flag decides, like TIDL-RT: USER on shared memory is copied.
    assert paths(RtTensor.for_tensor(t_in, shared_in["img"], mem_type=MemType.USER), shared_out["feat"]) == \
        ["memcpy", "zero-copy"]
    with pytest.raises(BufferMismatchError, match="mem_type is SHARED but its data is not in this runtime's"):
        rt.invoke({"img": RtTensor.for_tensor(t_in, user_in, mem_type=MemType.SHARED)}, {"feat": user_out})
    # A view into a shared block is shared; a view of a view too.
    block = rt.alloc_shared(t_in.buffer_nbytes + 256)
    inner = block[128:128 + t_in.buffer_nbytes].view(np.uint8)
    assert rt.is_shared(inner) and rt.is_shared(inner[3:9]) and not rt.is_shared(inner.copy())
    assert paths(inner, shared_out["feat"])[0] == "zero-copy"
    # A dense float tensor is converted (reformat), never zero copy, even in shared memory.
    x = np.zeros((1, 3, 5, 7), np.float32)
    sx = rt.alloc_shared(x.nbytes).view(np.float32).reshape(x.shape)
    tr = rt.invoke({"img": RtTensor.from_array("img", sx)}, {"feat": shared_out["feat"]}).transfers[0]
    assert tr.path == "reformat" and "element type SinglePrecFloat (float32) vs UnsignedChar (uint8)" in tr.reasons[0]
    rt.free_shared(shared_in["img"])
    assert not rt.is_shared(shared_in["img"]) and paths(shared_in["img"], shared_out["feat"])[0] == "memcpy"


def test_alloc_shared_alignment_and_zeros() -> None:
    rt = MockC7xRuntime(_small(inputs=[PADDED], outputs=[PADDED_OUT]))
    for align in (1, 64, 128, 4096):
        buf = rt.alloc_shared(1000, align)
        assert buf.dtype == np.uint8 and buf.shape == (1000,) and buf.ctypes.data % align == 0
        assert not buf.any()
    with pytest.raises(BufferMismatchError, match="alloc_shared: alignment must be a power of two, found 3"):
        rt.alloc_shared(10, 3)
    with pytest.raises(BufferMismatchError, match="alloc_shared: size must be >= 0 bytes, found -1"):
        rt.alloc_shared(-1)
    with pytest.raises(BufferMismatchError, match="alloc_shared: size must be an integer number of bytes, found "
                                                  "str '1'"):
        rt.alloc_shared("1")  # type: ignore[arg-type]
    with pytest.raises(BufferMismatchError, match="alloc_shared: alignment must be an integer .* found float 64.0"):
        rt.alloc_shared(10, 64.0)  # type: ignore[arg-type]
    assert isinstance(rt, Runtime)


# ---- TIDL-RT's conversions (reformat path) ------------------------------------------------

def _ti_sat(v: np.float32, dtype: np.dtype) -> float:
    """tidl_rt_sat<T>: clamp in float, then a C cast (truncation); NaN -> 0 (ARM)."""
    if dtype.kind == "f":
        lim = float(np.finfo(np.float32).max)
        return float(min(max(float(v), -lim), lim))
    info = np.iinfo(dtype)
    f = float(v)
    if math.isnan(f):
        return 0.0
    return float(math.trunc(min(max(f, float(info.min)), float(info.max))))


def _ti_in(x: float, user_float: bool, scale_u: float, zp_u: int, t) -> float:
    """copy_asis / copy_scale / copy_zf / copy_zfscale, chosen as cp_data_in_tidlrt_tensor_tiovx does."""
    f32 = np.float32
    su, zu = (f32(1.0), 0) if user_float else (f32(scale_u), zp_u)
    sd = f32(1.0) if t.dtype.kind == "f" else f32(t.scale)
    data = f32(x)
    if zu == t.zero_point and su == sd:
        return _ti_sat(data, t.dtype)
    if zu == t.zero_point:
        return _ti_sat(f32(data * f32(sd / su)), t.dtype)
    if su == sd:
        return _ti_sat(f32(data - f32(zu)), t.dtype)
    return _ti_sat(f32(f32(data - f32(zu)) * f32(sd / su)), t.dtype)


def _capture(desc):
    seen = {}

    def model(feeds):
        seen.update({k: np.array(v) for k, v in feeds.items()})
        return {o.name: np.zeros(tidl_io.models.model_shape(o)) for o in desc.outputs}

    return model, seen


@pytest.mark.parametrize("etype,scale,zp,user_dtype,scale_u,zp_u,lo,hi", [
    (0, 1.0, 0, np.float32, 1.0, 0, 0.0, 255.9),        # as-is: C cast truncates
    (3, 32768.0, 0, np.float32, 1.0, 0, -1.5, 1.5),     # scale branch, saturating (the bean detector)
    (0, 2.0, 0, np.uint8, 4.0, 3, 0, 255),              # zero point and scale differ
    (1, 1.0, 0, np.int16, 1.0, -20, -100, 100),         # zero point only
    (2, 8.0, 0, np.int16, 8.0, 0, 0, 8000),             # int16 codes into uint16, as is
    (6, 1.0, 0, np.uint8, 0.5, 10, 0, 255),             # float tensor: scale 1, zp subtracted
    (1, 3.0, 0, np.float64, 1.0, 0, -50.0, 50.0),       # float64 user data: not a TIDL-RT type
])
def test_reformat_input_matches_tidl_rt(etype, scale, zp, user_dtype, scale_u, zp_u, lo, hi) -> None:
    desc = _small(inputs=[dict(PADDED, inElementType=etype, inTensorScale=scale, inZeroPoint=zp)],
                  outputs=[PADDED_OUT])
    t = desc.inputs[0]
    model, seen = _capture(desc)
    rt = MockC7xRuntime(desc, model=model)
    _, outs = alloc_shared_buffers(rt)
    rng = np.random.default_rng(etype)
    x = rng.uniform(lo, hi, size=(1, 3, 5, 7))
    x = x.astype(user_dtype) if np.dtype(user_dtype).kind == "f" else np.rint(x).astype(user_dtype)
    if np.dtype(user_dtype) == np.float64:
        with pytest.raises(BufferMismatchError, match="no element type for dtype float64"):
            RtTensor.from_array("img", x)
        return
    rep = rt.invoke({"img": RtTensor.from_array("img", x, scale=scale_u, zero_point=zp_u)}, outs)
    assert rep.transfers[0].path == "reformat" and rep.transfers[0].nbytes == t.size * t.itemsize
    user_float = np.dtype(user_dtype).kind == "f"
    codes = np.array([_ti_in(v, user_float, scale_u, zp_u, t) for v in x.ravel().tolist()])
    np.testing.assert_array_equal(seen["img"].ravel(), deq(t, codes.astype(t.dtype)))
    # The runtime's own buffer keeps zero pads (they were never written).
    assert not rt._inputs[0].internal[pad_mask(t, t.buffer_size)].any()


def test_reformat_nan_and_inf_saturate_like_arm() -> None:
    desc = _small(inputs=[dict(PADDED, inElementType=3, inTensorScale=100.0)], outputs=[PADDED_OUT])
    t = desc.inputs[0]
    model, seen = _capture(desc)
    rt = MockC7xRuntime(desc, model=model)
    _, outs = alloc_shared_buffers(rt)
    x = np.zeros((1, 3, 5, 7), np.float32)
    x.flat[:6] = [np.nan, np.inf, -np.inf, 327.675, -1e30, 1.2345]
    rt.invoke({"img": RtTensor.from_array("img", x)}, outs)
    codes = [_ti_in(v, True, 1.0, 0, t) for v in x.ravel().tolist()]
    assert codes[:6] == [0.0, 32767.0, -32768.0, 32767.0, -32768.0, 123.0]
    np.testing.assert_array_equal(seen["img"].ravel(), deq(t, np.array(codes).astype(np.int16)))


def test_reformat_nhwc_user_tensor_and_nhwc_descriptor() -> None:
    nchw = _small(inputs=[dict(PADDED, inElementType=0)], outputs=[PADDED_OUT])
    model, seen = _capture(nchw)
    rt = MockC7xRuntime(nchw, model=model)
    _, outs = alloc_shared_buffers(rt)
    hwc = np.arange(5 * 7 * 3, dtype=np.uint8).reshape(1, 5, 7, 3)
    rt.invoke({"img": RtTensor.from_array("img", hwc, layout="NHWC")}, outs)
    np.testing.assert_array_equal(seen["img"], hwc.transpose(0, 3, 1, 2).astype(np.float64))
    nhwc = _small(inputs=[dict(inDataName="cam", inWidth=4, inHeight=3, inNumChannels=3, inLayout=1,
                               inElementType=0)], outputs=[PADDED_OUT])
    model, seen = _capture(nhwc)
    rt = MockC7xRuntime(nhwc, model=model)
    ins, outs = alloc_shared_buffers(rt)
    x = np.arange(36, dtype=np.float32).reshape(1, 3, 3, 4)
    rt.invoke({"cam": RtTensor.from_array("cam", x)}, outs)
    dev = rt._inputs[0].internal
    assert dev[:36].tolist() == x[0].transpose(1, 2, 0).ravel().tolist()  # pixel-interleaved in memory
    np.testing.assert_array_equal(seen["cam"], x.astype(np.float64))


def test_reformat_output_to_float_and_to_other_scale() -> None:
    # fastdepth-like output: uint8, scale 35.14, padded; user wants float (q / scale) or int16 (q * 100 / scale).
    out = dict(outDataName="depth", outWidth=6, outHeight=4, outNumChannels=1, outPadT=1, outPadB=3, outPadCh=1,
               outElementType=0, outTensorScale=35.142269134521484, outChannelPitch=(4 + 4) * 6 + 2)
    desc = _small(inputs=[dict(inDataName="x", inWidth=6, inHeight=4, inNumChannels=1)], outputs=[out])
    t = desc.outputs[0]
    rt = MockC7xRuntime(desc, model="ramp")
    ins, outs = alloc_shared_buffers(rt)
    ref = np.zeros_like(outs["depth"])
    rt.invoke(ins, {"depth": ref})  # memcpy path: codes as the device wrote them
    q = ref[valid_index(t)].astype(np.float32)
    user = np.full((1, 1, 4, 6), -1.0, np.float32)
    rep = rt.invoke(ins, {"depth": RtTensor.from_array("depth", user)})
    assert rep.transfers[-1].path == "reformat"
    ratio = np.float32(np.float32(1.0) / np.float32(t.scale))
    np.testing.assert_array_equal(user.ravel(), (q * ratio).astype(np.float32))
    user16 = np.zeros((1, 1, 4, 6), np.int16)
    rt.invoke(ins, {"depth": RtTensor.from_array("depth", user16, scale=100.0, zero_point=0)})
    ratio = np.float32(np.float32(100.0) / np.float32(t.scale))
    np.testing.assert_array_equal(user16.ravel(), np.trunc(q * ratio).astype(np.int16))


def test_float_output_reformat_uses_scale_one() -> None:
    # A float32 device output whose stored outTensorScale is 2: its buffer holds the model's
    # values as they are (float outputs are not scaled), so a float32 user tensor on the
    # reformat path gets the same values as the buffer path: 1 2 3 4, not q / 2.
    desc = _small(inputs=[dict(inDataName="x", inWidth=4, inHeight=1, inNumChannels=1, inElementType=6)],
                  outputs=[dict(outDataName="y", outWidth=4, outHeight=1, outNumChannels=1, outElementType=6,
                                outTensorScale=2.0)])
    rt = MockC7xRuntime(desc, model=lambda f: {"y": np.array([1.0, 2.0, 3.0, 4.0])})
    ins, outs = alloc_shared_buffers(rt)
    rt.invoke(ins, outs)
    assert outs["y"][valid_index(desc.outputs[0])].tolist() == [1.0, 2.0, 3.0, 4.0]
    user = np.zeros((1, 1, 1, 4), np.float32)
    rep = rt.invoke(ins, {"y": RtTensor.from_array("y", user)})
    assert rep.transfers[-1].path == "reformat"  # TIDL-RT compares the raw scale field: 1 vs 2
    assert user.ravel().tolist() == [1.0, 2.0, 3.0, 4.0]
    # an int16 user tensor of scale 10 gets trunc(value * 10)
    user16 = np.zeros((1, 1, 1, 4), np.int16)
    rt.invoke(ins, {"y": RtTensor.from_array("y", user16, scale=10.0)})
    assert user16.ravel().tolist() == [10, 20, 30, 40]


def test_float_input_reformat_ignores_the_float_scales() -> None:
    # float32 device input with a stored scale of 4 and a float32 user tensor: values as they are.
    desc = _small(inputs=[dict(inDataName="x", inWidth=4, inHeight=1, inNumChannels=1, inElementType=6,
                               inTensorScale=4.0)],
                  outputs=[dict(outDataName="y", outWidth=4, outHeight=1, outNumChannels=1, outElementType=6)])
    seen = {}
    rt = MockC7xRuntime(desc, model=lambda f: (seen.update(f), {"y": np.zeros(4)})[1])
    _, outs = alloc_shared_buffers(rt)
    rt.invoke({"x": RtTensor.from_array("x", np.array([[[[0.5, -1.25, 3.0, 7.75]]]], np.float32))}, outs)
    assert seen["x"].ravel().tolist() == [0.5, -1.25, 3.0, 7.75]
    # uint8 user data of scale 0.5 (TIDL-RT: x * 1 / 0.5)
    rt.invoke({"x": RtTensor.from_array("x", np.array([[[[1, 2, 3, 255]]]], np.uint8), scale=0.5)}, outs)
    assert seen["x"].ravel().tolist() == [2.0, 4.0, 6.0, 510.0]


def test_as_is_cast_out_of_range_is_refused() -> None:
    desc = _small(inputs=[dict(PADDED, inElementType=0)], outputs=[PADDED_OUT])
    rt = MockC7xRuntime(desc)
    _, outs = alloc_shared_buffers(rt)
    x = np.full((1, 3, 5, 7), 10.0, np.float32)
    x[0, 1, 2, 3] = 300.0
    with pytest.raises(BufferMismatchError, match="input 0 .img.: value 300.0 cannot be represented as uint8 and TIDL-RT "
                                                  "converts it with a bare C cast"):
        rt.invoke({"img": RtTensor.from_array("img", x)}, outs)


def test_padded_user_tensor_cannot_be_reformatted() -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    t = desc.inputs[0]
    rt = MockC7xRuntime(desc)
    ins, outs = alloc_shared_buffers(rt)
    wrong_scale = RtTensor(t.name, ins["img"], 0, t.shape, RtTensor.for_tensor(t, ins["img"]).pitches,
                           (1, 0, 1, 2), 0, scale=2.0)
    with pytest.raises(BufferMismatchError, match=r"must convert this tensor \(scale 2.0 vs 1.0\).*read the "
                                                  "wrong elements"):
        rt.invoke({"img": wrong_scale}, outs)
    with pytest.raises(BufferMismatchError, match="cannot convert UnsignedChar data into a SignedWord tensor"):
        d32 = _small(inputs=[dict(PADDED, inElementType=5, inTensorScale=2.0)], outputs=[PADDED_OUT])
        rt32 = MockC7xRuntime(d32)
        rt32.invoke({"img": RtTensor.from_array("img", np.zeros((1, 3, 5, 7), np.uint8))},
                    alloc_shared_buffers(rt32)[1])


# ---- faults ---------------------------------------------------------------------------------

def test_every_dirty_input_pad_is_caught() -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    t = desc.inputs[0]
    rt = MockC7xRuntime(desc)
    ins, outs = alloc_shared_buffers(rt)
    buf = ins["img"]
    pads = np.flatnonzero(pad_mask(t, buf.size))
    assert pads.size == buf.size - t.size
    for i in pads.tolist():
        buf[i] = 7
        with pytest.raises(BufferMismatchError) as info:
            rt.invoke(ins, outs)
        msg = str(info.value)
        assert msg.startswith("input 0 'img': input padding must be zero") and f"first at element {i} " in msg
        assert "expected 0, found 7" in msg
        buf[i] = 0
    rt.invoke(ins, outs)  # clean again


def test_dirty_pads_in_user_memory_warn_mode_and_off() -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    user = np.zeros(desc.inputs[0].buffer_size, np.uint8)
    user[0] = 1
    strict = MockC7xRuntime(desc)
    outs = alloc_shared_buffers(strict)[1]
    with pytest.raises(BufferMismatchError, match="first at element 0 .*before the first valid element"):
        strict.invoke({"img": user}, outs)
    lenient = MockC7xRuntime(desc, input_pads="warn")
    outs = alloc_shared_buffers(lenient)[1]
    with pytest.warns(PaddingWarning, match="input padding must be zero"):
        rep = lenient.invoke({"img": user}, outs)
    assert rep.transfers[0].path == "memcpy"
    off = MockC7xRuntime(desc, input_pads="off")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        off.invoke({"img": user}, alloc_shared_buffers(off)[1])


def test_float_minus_zero_pad_is_dirty() -> None:
    desc = _small(inputs=[dict(PADDED, inElementType=6)], outputs=[PADDED_OUT])
    rt = MockC7xRuntime(desc)
    ins, outs = alloc_shared_buffers(rt)
    ins["img"][-1] = -0.0
    with pytest.raises(BufferMismatchError, match=r"found -0\.0"):
        rt.invoke(ins, outs)


@pytest.mark.parametrize("fault,text", [
    ("short", "buffer has 255 elements (255 bytes), the descriptor's buffer size is 256 elements"),
    ("long", "buffer has 257 elements"),
    ("dtype", "buffer element type is float32, the descriptor's is uint8 (UnsignedChar)"),
    ("2d", "expected a contiguous 1-D buffer of 256 elements"),
    ("strided", "(not contiguous)"),
    ("name", "unknown input 'image': the descriptor's inputs are 'img'"),
    ("missing", "missing output buffer(s): output 0 'feat'"),
    ("twice", "input 0 'img' given twice"),
    ("index", "input index 3: the descriptor has 1 input(s)"),
    ("object", "expected a numpy buffer or an RtTensor, found list"),
    ("rtname", "given under that name but the RtTensor is named 'other'"),
    ("rtdtype", "RtTensor says element type SignedChar (int8) but its data is uint8"),
    ("rtdims", "RtTensor dims (N, DIM1, DIM2, C, H, W) = (1, 1, 1, 3, 7, 5), the descriptor's are (1, 1, 1, 3, 5, 7)"),
    ("notmap", "inputs: expected a mapping name -> buffer, found int"),
])
def test_bad_buffers_are_refused(fault: str, text: str) -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    rt = MockC7xRuntime(desc)
    ins, outs = alloc_shared_buffers(rt)
    good = ins["img"]
    assert good.size == 256
    inputs: object = {"img": good}
    outputs: object = outs
    if fault == "short":
        inputs = {"img": good[:-1]}
    elif fault == "long":
        inputs = {"img": np.zeros(257, np.uint8)}
    elif fault == "dtype":
        inputs = {"img": np.zeros(256, np.float32)}
    elif fault == "2d":
        inputs = {"img": np.zeros((2, 128), np.uint8)}
    elif fault == "strided":
        inputs = {"img": np.zeros(512, np.uint8)[::2]}
    elif fault == "name":
        inputs = {"image": good}
    elif fault == "missing":
        outputs = {}
    elif fault == "twice":
        inputs = {"img": good, 0: good}
    elif fault == "index":
        inputs = {3: good}
    elif fault == "object":
        inputs = {"img": [0] * 256}
    elif fault == "rtname":
        inputs = {"img": RtTensor.from_array("other", np.zeros((1, 3, 5, 7), np.uint8))}
    elif fault == "rtdtype":
        inputs = {"img": RtTensor("img", np.zeros((1, 3, 5, 7), np.uint8), 1, (1, 1, 1, 3, 5, 7),
                                  (105, 105, 105, 35, 7))}
    elif fault == "rtdims":
        inputs = {"img": RtTensor.from_array("img", np.zeros((1, 3, 7, 5), np.uint8))}
    elif fault == "notmap":
        inputs = 5
    with pytest.raises(BufferMismatchError) as info:
        rt.invoke(inputs, outputs)  # type: ignore[arg-type]
    assert text in str(info.value)


def test_sequence_of_rt_tensors_matches_by_name_then_position() -> None:
    desc = _small(inputs=[dict(PADDED, inDataName="a"), dict(PADDED, inDataName="b")], outputs=[PADDED_OUT])
    model, seen = _capture(desc)
    rt = MockC7xRuntime(desc, model=model)
    _, outs = alloc_shared_buffers(rt)
    a = np.full((1, 3, 5, 7), 1, np.uint8)
    b = np.full((1, 3, 5, 7), 2, np.uint8)
    rt.invoke([RtTensor.from_array("", a), RtTensor.from_array("b", b)], outs)  # "" -> slot 0 by position
    assert (seen["a"] == 1).all() and (seen["b"] == 2).all()
    with pytest.raises(BufferMismatchError, match="input 1 'b' given twice"):
        rt.invoke([RtTensor.from_array("b", b), RtTensor.from_array("", a)], outs)  # "" at position 1 is 'b'
    with pytest.raises(BufferMismatchError, match="a sequence must hold RtTensor objects, item 0 is ndarray"):
        rt.invoke([a], outs)


def test_reading_an_output_pad_is_detectable() -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT, dict(outDataName="score", outWidth=3, outHeight=1,
                                                             outNumChannels=1, outPadCh=2)])
    rt = MockC7xRuntime(desc, model="ramp")
    ins, outs = alloc_shared_buffers(rt)
    rt.invoke(ins, outs)
    feat, score = desc.outputs
    right = outs["feat"][valid_index(feat)].reshape(1, 5, 3, 4)
    naive = outs["feat"][: feat.size].reshape(1, 5, 3, 4)  # ignores pads and pitches
    assert (naive == np.int8(-0x5B)).any() and not (right == np.int8(-0x5B)).all()
    assert not np.array_equal(naive, right)
    naive_f = outs["score"][: score.size + 1]  # one element too many: reads the channel pad
    assert np.isnan(naive_f[-1]) and naive_f[-1:].view(np.uint32)[0] == POISON_FLOAT32_BITS
    assert not np.isnan(outs["score"][: score.size]).any()
    off = MockC7xRuntime(desc, model="ramp", poison=False)
    ins2, outs2 = alloc_shared_buffers(off)
    off.invoke(ins2, outs2)
    assert not outs2["feat"][pad_mask(feat, outs2["feat"].size)].any()


@pytest.mark.parametrize("result,text", [
    (lambda d: {"feat": np.zeros((2, 2))}, "model output for output 0 'feat': expected shape (1, 5, 3, 4) "
                                           "(size-1 axes may be dropped or added), found (2, 2)"),
    # the right element count in another axis order (NHWC for an NCHW output) is not reshaped
    (lambda d: {"feat": np.zeros((1, 3, 4, 5))}, "model output for output 0 'feat': expected shape (1, 5, 3, 4) "
                                                 "(size-1 axes may be dropped or added), found (1, 3, 4, 5)"),
    (lambda d: {"feat": np.zeros(60)}, "expected shape (1, 5, 3, 4) (size-1 axes may be dropped or added), "
                                       "found (60,)"),
    (lambda d: {}, "model returned no value for output 0 'feat'"),
    (lambda d: {"feat": np.zeros(60), "x": 1}, "model returned unknown output(s) 'x'"),
    (lambda d: [1], "model returned list, expected a mapping"),
    (lambda d: {"feat": np.array(["a"] * 60)}, "has dtype <U1, expected numbers"),
])
def test_model_results_are_checked(result, text: str) -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    rt = MockC7xRuntime(desc, model=lambda feeds: result(feeds))
    ins, outs = alloc_shared_buffers(rt)
    with pytest.raises(BufferMismatchError) as info:
        rt.invoke(ins, outs)
    assert text in str(info.value)


def test_model_output_may_drop_or_add_size_one_axes() -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    t = desc.outputs[0]
    y = np.arange(60, dtype=np.float64).reshape(5, 3, 4) / 8
    for shape in ((5, 3, 4), (1, 1, 5, 3, 4), (5, 1, 3, 4, 1)):
        rt = MockC7xRuntime(desc, model=lambda f, shape=shape: {"feat": y.reshape(shape)})
        ins, outs = alloc_shared_buffers(rt)
        rt.invoke(ins, outs)
        np.testing.assert_array_equal(outs["feat"][valid_index(t)], q_out(t, y.ravel()))


def test_model_values_saturate_and_nan_reads_as_zero() -> None:
    desc = _small(inputs=[PADDED], outputs=[dict(outDataName="y", outWidth=4, outHeight=1, outNumChannels=1,
                                                 outElementType=0, outTensorScale=2.0, outZeroPoint=10)])
    rt = MockC7xRuntime(desc, model=lambda f: {"y": np.array([np.nan, 1e9, -1e9, 2.25])})
    ins, outs = alloc_shared_buffers(rt)
    rt.invoke(ins, outs)
    assert outs["y"][:4].tolist() == [10, 255, 0, 14]  # rint(2.25 * 2 + 10) = rint(14.5) = 14 (half to even)


# ---- lifetime, net file, descriptor ---------------------------------------------------------

def test_net_file_checks(tmp_path: Path) -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    net = tmp_path / "x_tidl_net.bin"
    net.write_bytes(b"\x01\x02")
    assert MockC7xRuntime(desc, net).net_nbytes == 2
    assert MockC7xRuntime(desc, b"abc").net_nbytes == 3
    assert MockC7xRuntime(desc, None).net_nbytes is None
    with pytest.raises(FileNotFoundError, match="no such net file"):
        MockC7xRuntime(desc, tmp_path / "missing.bin")
    (tmp_path / "empty.bin").write_bytes(b"")
    with pytest.raises(FormatError, match="empty.bin: the net file is empty"):
        MockC7xRuntime(desc, tmp_path / "empty.bin")
    with pytest.raises(FormatError, match="the network is empty"):
        MockC7xRuntime(desc, b"")


def test_bad_geometry_and_options_are_refused_at_create() -> None:
    bad = _small(inputs=[dict(PADDED, inPadL=-1)], outputs=[PADDED_OUT])
    with pytest.raises(GeometryError, match="cannot run this descriptor: input 0 'img': inPadL: expected >= 0"):
        MockC7xRuntime(bad)
    with pytest.raises(BufferMismatchError, match="input_pads: expected 'error', 'warn' or 'off', found 'loud'"):
        MockC7xRuntime(_small(inputs=[PADDED], outputs=[PADDED_OUT]), input_pads="loud")
    with pytest.raises(BufferMismatchError, match="input_pads: expected .* found 'x'"):
        MockC7xRuntime(_small(inputs=[PADDED], outputs=[PADDED_OUT]), input_pads="x")
    with pytest.raises(BufferMismatchError, match="desc: expected a tidl_io Descriptor .* found NoneType"):
        MockC7xRuntime(None)  # type: ignore[arg-type]


def test_close_and_context_manager() -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    with MockC7xRuntime(desc) as rt:
        ins, outs = alloc_shared_buffers(rt)
        rt.invoke(ins, outs)
    with pytest.raises(BufferMismatchError, match="invoke after close"):
        rt.invoke(ins, outs)


def test_report_text_and_totals() -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    rt = MockC7xRuntime(desc, model="ramp")
    ins, outs = alloc_shared_buffers(rt)
    rep = rt.invoke({"img": ins["img"].copy()}, outs)
    assert isinstance(rep, InvokeReport)
    assert rep.bytes_copied == 3 * 57 and rep.copied == ("img",) and rep.zero_copy == ("feat",)
    assert rep.total_seconds >= rep.device_seconds + rep.copy_seconds >= rep.model_seconds >= 0
    text = str(rep)
    assert "input 'img': memcpy, 171 bytes (user memory, not shared (alloc_shared))" in text
    assert "output 'feat': zero-copy, 0 bytes" in text


def test_bench_quick_smoke() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "bench_runtime.py"), "--quick"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "zero-copy" in proc.stdout and "overhead" in proc.stdout and "x copyto" in proc.stdout
