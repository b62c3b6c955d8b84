"""TIDL-RT's conversion branches (tidl_io.runtime._datamove), through the mock's reformat
path: each case against ``tidl_rt_ovx_datamove.cpp``'s branches evaluated element by
element with float32 scalars (the oracle below)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from tidl_io import BufferMismatchError
from tidl_io.runtime import (
    MockC7xRuntime,
    RtTensor,
    alloc_shared_buffers,
)

from runtime_oracles import (
    PADDED,
    PADDED_OUT,
    _capture,
    _small,
    deq,
    pad_mask,
    valid_index,
)

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
    # one image in HWC and CHW (exactly three axes): the same values reach the model
    rt.invoke({"img": RtTensor.from_array("img", hwc[0], layout="HWC")}, outs)
    np.testing.assert_array_equal(seen["img"], hwc.transpose(0, 3, 1, 2).astype(np.float64))
    rt.invoke({"img": RtTensor.from_array("img", hwc[0].transpose(2, 0, 1).copy(), layout="chw")}, outs)
    np.testing.assert_array_equal(seen["img"], hwc.transpose(0, 3, 1, 2).astype(np.float64))
    nhwc = _small(inputs=[dict(inDataName="cam", inWidth=4, inHeight=3, inNumChannels=3, inLayout=1,
                               inElementType=0)], outputs=[PADDED_OUT])
    model, seen = _capture(nhwc)
    rt = MockC7xRuntime(nhwc, model=model)
    _ins, outs = alloc_shared_buffers(rt)
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



# ---- the zero-copy rule, TIDL-RT 11.01 (spec tidlrt.md §4): one test per condition ------------

def _rule_rig(inp=PADDED, out=PADDED_OUT):
    desc = _small(inputs=[inp], outputs=[out])
    rt = MockC7xRuntime(desc, model="ramp")
    ins, outs = alloc_shared_buffers(rt)
    return desc, rt, ins, outs


def _path(rt, i, o) -> tuple[str, str]:
    a, b = rt.invoke({"img": i}, {"feat": o}).transfers
    return a.path, b.path


def test_rule_pads_left_right_top_are_compared_bottom_is_not() -> None:
    import dataclasses

    desc, rt, ins, outs = _rule_rig()
    t = desc.inputs[0]
    own = RtTensor.for_tensor(t, ins["img"])
    assert own.pads == (1, 0, 1, 2)
    assert _path(rt, dataclasses.replace(own, pads=(1, 0, 1, 0)), outs["feat"])[0] == "zero-copy"  # B differs
    for pads in ((0, 0, 1, 2), (1, 1, 1, 2), (1, 0, 0, 2)):  # L, R, T differ: not the descriptor's tensor
        with pytest.raises(BufferMismatchError, match=re.escape(f"pads L/R/T {pads[:3]} vs (1, 0, 1)")):
            rt.invoke({"img": dataclasses.replace(own, pads=pads)}, {"feat": outs["feat"]})


def test_rule_buffer_size_minus_one_is_unset_else_at_least_the_descriptors() -> None:
    import dataclasses

    desc, rt, ins, outs = _rule_rig()
    t_in, t_out = desc.inputs[0], desc.outputs[0]
    own = RtTensor.for_tensor(t_in, ins["img"])
    big = rt.alloc_shared(ins["img"].nbytes + 64)
    assert _path(rt, dataclasses.replace(own, buffer_size=-1), outs["feat"])[0] == "zero-copy"
    assert _path(rt, dataclasses.replace(own, data=big, buffer_size=big.size), outs["feat"])[0] == "zero-copy"
    small = dataclasses.replace(own, buffer_size=t_in.buffer_size - 1)  # < inBufSize: not the same tensor
    with pytest.raises(BufferMismatchError, match=rf"buffer size {t_in.buffer_size - 1} < inBufSize "
                                                  rf"{t_in.buffer_size} elements"):
        rt.invoke({"img": small}, {"feat": outs["feat"]})
    # outputs: TIDL-RT does not compare the size, but a zero-copy output must hold the whole buffer
    o = RtTensor.for_tensor(t_out, outs["feat"])
    assert _path(rt, ins["img"], dataclasses.replace(o, buffer_size=-1))[1] == "zero-copy"
    with pytest.raises(BufferMismatchError, match=rf"output 0 'feat': buffer has {t_out.buffer_size - 1} elements"):
        rt.invoke({"img": ins["img"]}, {"feat": dataclasses.replace(o, buffer_size=t_out.buffer_size - 1)})


def test_rule_channel_pitch_minus_one_means_w_times_h() -> None:
    import dataclasses

    dense_in = dict(inDataName="img", inWidth=7, inHeight=5, inNumChannels=3, inChannelPitch=35, inElementType=0)
    desc, rt, ins, outs = _rule_rig(inp=dense_in)
    own = RtTensor.for_tensor(desc.inputs[0], ins["img"])
    p = own.pitches
    assert _path(rt, dataclasses.replace(own, pitches=(p[0], p[1], p[2], -1, p[4])), outs["feat"])[0] == "zero-copy"
    desc, rt, ins, outs = _rule_rig()  # padded: W*H = 35 is not the stored pitch 57
    own = RtTensor.for_tensor(desc.inputs[0], ins["img"])
    p = own.pitches
    with pytest.raises(BufferMismatchError, match=r"channel pitch -1 vs 57"):
        rt.invoke({"img": dataclasses.replace(own, pitches=(p[0], p[1], p[2], -1, p[4]))}, {"feat": outs["feat"]})


def test_output_zero_point_and_scale_branch_is_tidl_rts() -> None:
    # device int8 scale 16, user uint8 scale 4 zero point 128: TI's zfscale branch
    # sat((q - zf) * (sU / sD)) with zf = float(-zpU) * sD / sU, in float32, then a C cast.
    desc = _small(inputs=[dict(inDataName="x", inWidth=4, inHeight=2, inNumChannels=1)],
                  outputs=[dict(outDataName="y", outWidth=4, outHeight=2, outNumChannels=1, outElementType=1,
                                outTensorScale=16.0)])
    t = desc.outputs[0]
    rt = MockC7xRuntime(desc, model="ramp")
    ins, outs = alloc_shared_buffers(rt)
    rt.invoke(ins, outs)
    q = outs["y"][valid_index(t)]
    user = np.zeros((1, 1, 2, 4), np.uint8)
    rt.invoke(ins, {"y": RtTensor.from_array("y", user, scale=4.0, zero_point=128)})
    f32 = np.float32
    want = []
    for v in q.tolist():
        zf = f32(f32(f32(-128) * f32(16.0)) / f32(4.0))
        x = f32(f32(f32(v) - zf) * f32(f32(4.0) / f32(16.0)))
        want.append(int(min(max(float(x), 0.0), 255.0)))
    assert user.ravel().tolist() == want
    assert any(w != int(v) + 128 for v, w in zip(q.tolist(), want)), "the case must tell the old formula apart"
    # user scale -1 means the descriptor's: only the zero point branch, q + zpU
    user2 = np.zeros((1, 1, 2, 4), np.int16)
    rt.invoke(ins, {"y": RtTensor.from_array("y", user2, scale=-1.0, zero_point=3)})
    assert user2.ravel().tolist() == [int(v) + 3 for v in q.tolist()]
