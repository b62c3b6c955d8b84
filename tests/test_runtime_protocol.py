"""The runtime protocol types (tidl_io.runtime.protocol): InvokeReport's totals and text,
RtTensor.from_array's axes and dense pitches (against NumPy's own strides and literals)."""

from __future__ import annotations

import numpy as np
import pytest

import tidl_io
from tidl_io import ArgumentTypeError, BufferMismatchError, TensorLayout
from tidl_io.runtime import (
    InvokeReport,
    MockC7xRuntime,
    RtTensor,
    alloc_shared_buffers,
)
from tidl_io.runtime.protocol import _dense_pitches

from runtime_oracles import (
    PADDED,
    PADDED_OUT,
    _small,
)


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


# ---- RtTensor.from_array: axes -> (N, DIM1, DIM2, C, H, W), dense pitches ----------------------

@pytest.mark.parametrize("shape,layout,dims", [
    ((2, 3, 4, 5), "NCHW", (2, 1, 1, 3, 4, 5)),  # N > 1 stays N (it once landed in DIM2)
    ((7, 1, 1, 1), "NCHW", (7, 1, 1, 1, 1, 1)),
    ((3, 4, 5), "NCHW", (1, 1, 1, 3, 4, 5)),  # fewer axes: leading 1s of (N, C, H, W)
    ((4, 5), "NCHW", (1, 1, 1, 1, 4, 5)),
    ((5,), "NCHW", (1, 1, 1, 1, 1, 5)),
    ((), "NCHW", (1, 1, 1, 1, 1, 1)),
    ((2, 3, 4, 5, 6), "NCHW", (1, 2, 3, 4, 5, 6)),  # 5 axes: (DIM1, DIM2, C, H, W), N = 1
    ((2, 3, 4, 5, 6, 7), "NCHW", (2, 3, 4, 5, 6, 7)),
    ((2, 4, 5, 3), "NHWC", (2, 1, 1, 3, 4, 5)),
    ((4, 5, 3), "NHWC", (1, 1, 1, 3, 4, 5)),
])
def test_from_array_axes(shape: tuple[int, ...], layout: str, dims: tuple[int, ...]) -> None:
    a = np.zeros(shape, np.uint8)
    for name in (layout, layout.lower(), layout.capitalize()):  # layout names in any case
        rt = RtTensor.from_array("t", a, layout=name)
        assert rt.dims == dims and rt.size == a.size and rt.data is a
        assert rt.layout == (TensorLayout.NHWC if layout == "NHWC" else TensorLayout.NCHW)
        assert rt.is_dense and rt.pads == (0, 0, 0, 0) and rt.buffer_size == a.size


def test_from_array_5d_follows_pack_and_squeezed_shape() -> None:
    """5 axes mean what they mean to pack (the 6-D shape without its leading N = 1) and what
    a tensor with numValidTensorDims = 5 squeezes to: (DIM1, DIM2, C, H, W)."""
    desc = _small(inputs=[dict(inDataName="v", inWidth=4, inHeight=3, inNumChannels=2, inDIM1=5, inDIM2=6,
                               inElementType=6)],
                  outputs=[dict(outDataName="y", outWidth=4, outHeight=3, outNumChannels=2, outDIM1=5, outDIM2=6,
                                numValidTensorDims=5, outElementType=6)])
    t, o = desc.input(0), desc.output(0)
    assert t.shape == o.shape == (1, 5, 6, 2, 3, 4) and o.squeezed_shape == (5, 6, 2, 3, 4)
    x = np.arange(t.size, dtype=np.float32).reshape(5, 6, 2, 3, 4)
    buf = tidl_io.alloc_input(desc, 0)
    tidl_io.pack(t, x, out=buf)
    v = tidl_io.view(t, buf)
    assert v[0, 4, 5, 1, 2, 3] == x[4, 5, 1, 2, 3] and v[0, 1, 2, 0, 1, 2] == x[1, 2, 0, 1, 2]
    assert RtTensor.from_array("v", x).dims == t.shape == (1,) + x.shape


def _numpy_pitches(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Element strides of a C-order array of ``shape`` (NumPy's, not tidl_io's)."""
    return tuple(s // 4 for s in np.empty(shape, np.float32).strides)


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (3, 1, 2, 2), (2, 3, 4, 5, 6, 7), (3, 2, 1, 4, 1, 5)])
def test_dense_nchw_pitches_are_numpys_strides(shape: tuple[int, ...]) -> None:
    rt = RtTensor.from_array("t", np.zeros(shape, np.float32))
    n, d1, d2, c, h, w = rt.dims
    strides = _numpy_pitches((n, d1, d2, c, h, w))
    assert rt.pitches == strides[:5]  # batch, DIM1, DIM2, channel, line
    assert _dense_pitches(rt.dims, TensorLayout.NCHW) == strides[:5]
    assert rt.dims == ((shape[0], 1, 1) + shape[1:] if len(shape) == 4 else shape)


def test_every_element_of_a_two_batch_array_sits_where_dims_and_pitches_say() -> None:
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    rt = RtTensor.from_array("t", x)
    flat = rt.data.reshape(-1)
    for n, c, h, w in np.ndindex(*x.shape):  # literal loop: (N, C, H, W) is (N, 1, 1, C, H, W)
        at = n * rt.pitches[0] + c * rt.pitches[3] + h * rt.pitches[4] + w
        assert flat[at] == x[n, c, h, w]


def test_dense_pitches_literal_for_two_batches() -> None:
    # (N, C, H, W) = (2, 3, 4, 5): batch 3*4*5 = 60, DIM1 and DIM2 steps 60 (size 1), channel 4*5 = 20, line 5
    assert RtTensor.from_array("t", np.zeros((2, 3, 4, 5), np.uint8)).pitches == (60, 60, 60, 20, 5)
    # NHWC (N, H, W, C) = (2, 4, 5, 3): batch 4*5*3 = 60, channel plane 4*5 = 20, line 5*3 = 15
    assert RtTensor.from_array("t", np.zeros((2, 4, 5, 3), np.uint8), layout="NHWC").pitches == (60, 60, 60, 20, 15)
    # 6-D (2, 3, 4, 5, 6, 7): 3*4*5*6*7, 4*5*6*7, 5*6*7, 6*7, 7
    assert _dense_pitches((2, 3, 4, 5, 6, 7), TensorLayout.NCHW) == (2520, 840, 210, 42, 7)


def test_from_array_refuses_other_layouts_and_too_many_axes() -> None:
    a = np.zeros((1, 3, 4, 5), np.uint8)
    for bad in ("NCWH", "", "CWH"):
        with pytest.raises(tidl_io.OptionError) as err:
            RtTensor.from_array("img", a, layout=bad)
        assert str(err.value) == (f"RtTensor.from_array 'img': layout must be one of 'NCHW', 'NHWC', 'CHW', 'HWC' "
                                  f"(any case), found {bad!r}")
    with pytest.raises(ArgumentTypeError, match=r"^RtTensor.from_array 'img': layout: expected one of 'NCHW', "
                                                r"'NHWC', 'CHW', 'HWC' \(any case\), found None"):
        RtTensor.from_array("img", a, layout=None)  # type: ignore[arg-type]
    for three in ("CHW", "hwc"):  # one image: exactly three axes
        with pytest.raises(BufferMismatchError, match=rf"^'img': a {three.upper()} array has 3 axes .*found shape "
                                                      r"\(1, 3, 4, 5\)"):
            RtTensor.from_array("img", a, layout=three)
    with pytest.raises(BufferMismatchError, match=r"^'img': an NHWC array has at most 4 axes \(N, H, W, C\), found "
                                                  r"shape \(1, 1, 3, 4, 5\)"):
        RtTensor.from_array("img", a[None], layout="nhwc")
    with pytest.raises(BufferMismatchError, match=r"^'img': an NCHW array has at most 6 axes"):
        RtTensor.from_array("img", np.zeros((1,) * 7, np.uint8))


@pytest.mark.parametrize("layout", ["CHW", "HWC", "chw", "hwc"])
def test_from_array_takes_one_image_in_chw_and_hwc(layout: str) -> None:
    """(C, H, W) = (3, 4, 5): CHW is NCHW with N = 1; HWC (4, 5, 3) is NHWC with N = 1. Every
    element is found where a literal loop over the array says, through the stored pitches."""
    hwc = layout.upper() == "HWC"
    x = np.arange(3 * 4 * 5, dtype=np.uint8).reshape((4, 5, 3) if hwc else (3, 4, 5))
    rt = RtTensor.from_array("img", x, layout=layout)
    assert rt.dims == (1, 1, 1, 3, 4, 5)
    assert rt.layout == (TensorLayout.NHWC if hwc else TensorLayout.NCHW)
    assert np.shares_memory(rt.data, x) and rt.is_dense
    flat = rt.data.reshape(-1)
    for c, h, w in np.ndindex(3, 4, 5):
        if hwc:  # channel step 1, pixel step C, line = pitches[4]
            at, want = h * rt.pitches[4] + w * 3 + c, x[h, w, c]
        else:
            at, want = c * rt.pitches[3] + h * rt.pitches[4] + w, x[c, h, w]
        assert flat[at] == want
    same = RtTensor.from_array("img", x[None], layout="NHWC" if hwc else "NCHW")
    assert (same.dims, same.pitches, same.layout) == (rt.dims, rt.pitches, rt.layout)
