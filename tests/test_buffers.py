"""alloc / as_buffer / view / pack / unpack / check_padding / details, against oracles
written from spec §4 and §5 independently of the library's geometry code:

- ``spec_index``: the element index of (n, d1, d2, c, h, w) from the raw TI fields,
  literally ``n*batchPitch + d1*dim1Pitch + d2*dim2Pitch + c*chPitch + (padT + h)*linePitch
  + padL + w`` (and the NHWC variant), used in per-element Python loops (a sample of the
  elements for big tensors) and, vectorized, for the mask of valid elements;
- plain NumPy quantize / dequantize (``np.clip(np.trunc(x * scale + zp), lo, hi)``,
  ``(q - zp) / scale`` in float32).

Every tensor of every real descriptor and fixture is packed and unpacked; Hypothesis
draws synthetic geometries (NHWC with pads, DIM1/DIM2 > 1, N > 1, the channel pitch
smaller than the padded plane, outPadCh, 8.x without DIM fields, every element type).
"""

from __future__ import annotations

import ctypes
import itertools
import mmap
import re
import subprocess
import sys
from multiprocessing import shared_memory
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tidl_io
from tidl_io import AllocationLimitError, BufferMismatchError, GeometryError, OptionError, make_descriptor
from tidl_io.data import buffers
from tidl_io.data.buffers import (
    alloc_input,
    alloc_inputs,
    alloc_output,
    alloc_outputs,
    as_buffer,
    pack,
    unpack,
    view,
)
from tidl_io.data.padding import check_padding
from tidl_io.iodesc.validate import geometry_problems

from conftest import FIXTURES, ROOT, corpus_params

# Every test here runs on the NumPy path and again on the native kernels.
pytestmark = pytest.mark.usefixtures("both_paths")

CODES = {"uint8": 0, "int8": 1, "uint16": 2, "int16": 3, "int32": 5, "float32": 6}
RNG = np.random.default_rng(20240601)


# ---- oracles ----------------------------------------------------------------------------

def spec_index(t: Any, n: Any, d1: Any, d2: Any, c: Any, h: Any, w: Any) -> Any:
    """Spec §4 from the raw fields (works on ints and on broadcasting arrays)."""
    C, W = t.num_channels, t.width
    dim2_pitch = t.channel_pitch * (C + (t.pad_ch if t.kind == "output" else 0))  # padCh is 0 for inputs
    dim1_pitch = dim2_pitch * t.dim2
    batch_pitch = dim1_pitch * t.dim1
    base = n * batch_pitch + d1 * dim1_pitch + d2 * dim2_pitch
    if t.layout_code == 0:  # NCHW
        line = W + t.pad_l + t.pad_r
        return base + c * t.channel_pitch + (t.pad_t + h) * line + t.pad_l + w
    line = C * (W + t.pad_l + t.pad_r)  # NHWC: channel step 1, pixel step C
    return base + (t.pad_t + h) * line + (t.pad_l + w) * C + c


def shape6(t: Any) -> tuple[int, ...]:
    return (t.num_batches, t.dim1, t.dim2, t.num_channels, t.height, t.width)


def valid_mask(t: Any, size: int) -> np.ndarray:
    idx = spec_index(t, *np.ogrid[tuple(slice(0, d) for d in shape6(t))])
    mask = np.zeros(size, bool)
    mask[idx.ravel()] = True
    assert np.count_nonzero(mask) == idx.size  # no two valid elements share an index
    return mask


def sample_positions(t: Any, limit: int = 1500) -> list[tuple[int, ...]]:
    dims = shape6(t)
    if int(np.prod(dims)) <= limit:
        return list(itertools.product(*(range(d) for d in dims)))
    corners = list(itertools.product(*({0, d - 1} for d in dims)))
    return corners + [tuple(int(RNG.integers(0, d)) for d in dims) for _ in range(limit)]


def oracle_codes(t: Any, x: np.ndarray, rounding: str = "trunc") -> np.ndarray:
    dt = t.dtype
    if dt.kind == "f":
        return x.astype(dt)
    info = np.iinfo(dt)
    ct = np.float64 if dt.itemsize >= 4 else np.float32  # the documented compute type
    v = x.astype(ct) * ct(t.scale) + ct(t.zero_point)
    v = np.trunc(v) if rounding == "trunc" else np.rint(v)
    return np.clip(v, info.min, info.max).astype(dt)


def oracle_real(t: Any, q: np.ndarray) -> np.ndarray:
    if t.dtype.kind == "f":
        return q.astype(np.float32)
    diff = (q.astype(np.float64) - t.zero_point).astype(np.float32)  # exact, then one rounding (32-bit codes)
    return diff / np.float32(t.scale)


def user_data(t: Any, rng: np.random.Generator = RNG) -> np.ndarray:
    """Random 6-D data: floats for every tensor (some beyond the element range)."""
    dims = shape6(t)
    if t.dtype.kind == "f":
        return rng.standard_normal(dims).astype(np.float32)
    info = np.iinfo(t.dtype)
    lo = (float(info.min) - t.zero_point) / t.scale
    hi = (float(info.max) - t.zero_point) / t.scale
    span = hi - lo
    return rng.uniform(lo - 0.05 * span, hi + 0.05 * span, dims).astype(np.float32)


def check_packed(t: Any, buf: np.ndarray, expected6: np.ndarray, untouched: int | None = 0) -> None:
    """Every sampled element at its spec index (literal loop); nothing else changed."""
    assert buf.ndim == 1 and buf.dtype == t.dtype
    for pos in sample_positions(t):
        got, want = buf[spec_index(t, *pos)], expected6[pos]
        assert got == want or (np.isnan(got) and np.isnan(want)), (t.label, pos, got, want)
    if untouched is not None:
        rest = buf.view(f"u{t.dtype.itemsize}")[~valid_mask(t, buf.size)]
        assert np.all(rest == untouched), f"{t.label}: {np.count_nonzero(rest != untouched)} pad elements written"


def user_shape_nchw(t: Any) -> tuple[int, ...]:
    dims = shape6(t)
    return (dims[0],) + dims[3:] if dims[1] == dims[2] == 1 else dims


# ---- synthetic descriptors --------------------------------------------------------------

def make_tensor(kind: str = "input", *, n: int = 1, d1: int = 1, d2: int = 1, c: int = 3, h: int = 4,
                w: int = 5, pads: tuple[int, int, int, int] = (0, 0, 0, 0), pad_ch: int = 0,
                dtype: str = "uint8", layout: int = 0, scale: float = 1.0, zp: int = 0,
                pitch: str = "plane", family: str = "10.x", name: str = "t") -> Any:
    pl, pt, pr, pb = pads
    line, rows = w + pl + pr, h + pt + pb
    if layout == 1:
        ch_pitch = rows * (w + pl + pr) if any(pads) else h * w
    elif pitch == "quirk" and pb > 0:  # TI's importer: (rows - 1) * line + 1 < the padded plane
        ch_pitch = (rows - 1) * line + 1
    elif pitch == "loose":
        ch_pitch = rows * line + 7
    else:
        ch_pitch = rows * line
    fields: dict[str, Any] = {"name_bytes": name, "width": w, "height": h, "num_channels": c,
                              "channel_pitch": ch_pitch, "num_batches": n, "pad_l": pl, "pad_t": pt,
                              "pad_r": pr, "pad_b": pb, "pad_ch": pad_ch, "element_type": CODES[dtype],
                              "layout_code": layout, "scale": scale, "zero_point": zp}
    if family == "8.x":
        assert d1 == d2 == 1
    else:
        fields.update(dim1=d1, dim2=d2)
    if family == "10.x":
        planes = c + (1 if kind == "input" else pad_ch)
        formula = n * d1 * d2 * planes * rows * line
        last = spec_index(_Raw(fields, d1, d2, kind), n - 1, d1 - 1, d2 - 1, c - 1, h - 1, w - 1)
        fields["buf_size"] = max(formula, last + 1)
        if kind == "output":
            fields["num_valid_dims"] = 4
    if kind == "input":
        return make_descriptor(family, 1, inputs=[fields]).inputs[0]
    return make_descriptor(family, 1, inputs=[], outputs=[fields]).outputs[0]


class _Raw:
    def __init__(self, fields: dict[str, Any], d1: int, d2: int, kind: str):
        self.__dict__.update(fields, dim1=d1, dim2=d2, kind=kind)


@st.composite
def geometries(draw: Any) -> Any:
    family = draw(st.sampled_from(["10.x", "8.x", "9.1"]))
    kind = draw(st.sampled_from(["input", "output"]))
    dims = {k: draw(st.integers(1, hi)) for k, hi in (("n", 3), ("c", 4), ("h", 5), ("w", 6))}
    if family != "8.x":
        dims.update(d1=draw(st.integers(1, 3)), d2=draw(st.integers(1, 3)))
    pads = tuple(draw(st.integers(0, 3)) for _ in range(4))
    dtype = draw(st.sampled_from(sorted(CODES)))
    scale = float(np.float32(draw(st.sampled_from([1.0, 16.0, 35.142269134521484, 32768.0, 0.25]))))
    zp = draw(st.sampled_from([0, 0, 3, -5])) if dtype != "float32" else 0
    t = make_tensor(kind, **dims, pads=pads, pad_ch=draw(st.integers(0, 3)),  # inputs too: inPadCh must not move elements
                    dtype=dtype, layout=draw(st.sampled_from([0, 0, 1])), scale=scale, zp=zp,
                    pitch=draw(st.sampled_from(["plane", "quirk", "loose"])), family=family)
    assert geometry_problems(t) == []
    return t


def corpus_tensors(path: Path) -> list[Any]:
    desc = tidl_io.load(path)
    return list(desc.inputs) + list(desc.outputs)


# ---- pack / unpack over the corpus -------------------------------------------------------

@pytest.mark.parametrize("path", corpus_params())
def test_pack_and_unpack_every_corpus_tensor(path: Path) -> None:
    for t in corpus_tensors(path):
        x6 = user_data(t)
        q6 = oracle_codes(t, x6)
        x = x6.reshape(user_shape_nchw(t))
        buf = pack(t, x)
        assert buf.size == max(t.buffer_size, t.required_size) and buf.ctypes.data % 64 == 0
        check_packed(t, buf, q6)
        report = check_padding(t, buf)
        assert report.clean and report.checked == buf.size - q6.size
        # into a dirty buffer: only the valid elements change
        sentinel = np.full(buf.size * t.dtype.itemsize, 0xA5, np.uint8)
        out = sentinel.view(t.dtype)
        assert pack(t, x, out) is out
        check_packed(t, out, q6, untouched=int.from_bytes(b"\xa5" * t.dtype.itemsize, "little"))
        # channels-last data gives the same buffer
        assert np.array_equal(pack(t, np.moveaxis(x6, 3, 5), layout="NHWC").view(np.uint8), buf.view(np.uint8))
        # unpack(pack(x)) against the plain quantize-dequantize
        real = unpack(t, buf, squeeze=False)
        np.testing.assert_array_equal(real, oracle_real(t, q6))
        np.testing.assert_array_equal(unpack(t, buf, layout="NHWC", squeeze=False), np.moveaxis(real, 3, 5))
        np.testing.assert_array_equal(unpack(t, buf), real.reshape(unpack(t, buf).shape))


def test_fastdepth_output_dequantizes_with_its_scale(realdata: Path) -> None:
    t = tidl_io.load(realdata / "monodepth__fastdepth__artifacts__424_tidl_io_1.bin").output(0)
    assert t.dtype == np.uint8 and (t.pad_t, t.pad_b) == (1, 34)
    buf = np.full(t.buffer_size, 77, np.uint8)  # pads hold garbage, as on the device
    q = RNG.integers(0, 256, (224, 224), dtype=np.uint8)
    for h in range(224):  # literal placement, spec §4
        start = spec_index(t, 0, 0, 0, 0, h, 0)
        buf[start:start + 224] = q[h]
    real = unpack(t, buf)
    assert real.shape == (1, 1, 224, 224) and real.dtype == np.float32
    np.testing.assert_array_equal(real[0, 0], q.astype(np.float32) / np.float32(35.142269134521484))
    assert not check_padding(t, buf).clean


# ---- synthetic geometries ----------------------------------------------------------------

@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(geometries(), st.data())
def test_synthetic_geometries_against_the_spec(t: Any, data: Any) -> None:
    x6 = user_data(t, np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))))
    q6 = oracle_codes(t, x6)
    buf = pack(t, x6)
    check_packed(t, buf, q6)  # every element: these tensors are small
    check_packed(t, pack(t, x6, rounding="nearest"), oracle_codes(t, x6, "nearest"))
    mask = valid_mask(t, buf.size)
    # the view is exactly the valid region, in place
    v = view(t, buf)
    assert v.shape == shape6(t) and np.shares_memory(v, buf)
    np.testing.assert_array_equal(v, q6)
    # channels-last input, rank-reduced forms
    np.testing.assert_array_equal(pack(t, np.moveaxis(x6, 3, 5), layout="NHWC"), buf)
    if t.num_batches == t.dim1 == t.dim2 == 1:
        np.testing.assert_array_equal(pack(t, x6[0, 0, 0], layout="CHW"), buf)
        np.testing.assert_array_equal(pack(t, np.moveaxis(x6[0, 0, 0], 0, 2), layout="HWC"), buf)
    # unpack: dequantized copies in both layouts, codes as views
    real = oracle_real(t, q6)
    np.testing.assert_array_equal(unpack(t, buf, squeeze=False), real)
    np.testing.assert_array_equal(unpack(t, buf, squeeze=False, layout="NHWC"), np.moveaxis(real, 3, 5))
    codes = unpack(t, buf, dequantize=False, squeeze=False, layout="NHWC")
    assert np.shares_memory(codes, buf)
    np.testing.assert_array_equal(codes, np.moveaxis(q6, 3, 5))
    out = np.empty(codes.shape, t.dtype)
    assert unpack(t, buf, dequantize=False, squeeze=False, layout="NHWC", out=out) is out
    np.testing.assert_array_equal(out, codes)
    # padding: clean, then dirty at chosen pad elements
    assert check_padding(t, buf).clean
    pads = np.flatnonzero(~mask)
    if pads.size:
        chosen = sorted(set(data.draw(st.lists(st.sampled_from(pads.tolist()), min_size=1, max_size=3))))
        raw = buf.view(f"u{t.dtype.itemsize}")
        raw[chosen] = 1
        report = check_padding(t, buf)
        assert (report.dirty, report.first_dirty, report.checked) == (len(chosen), chosen[0], pads.size)
        assert f"{len(chosen)} of {pads.size} padding elements are not zero" in str(report)


@pytest.mark.parametrize("layout", [0, 1])
@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32"])
def test_layout_change_in_row_blocks(layout: int, dtype: str) -> None:
    """Tensors big enough that pack/unpack with a layout change work in several row blocks."""
    t = make_tensor("input", n=2, c=3, h=150, w=101, pads=(1, 1, 0, 2), dtype=dtype, layout=layout,
                    scale=16.0 if dtype != "float32" else 1.0, zp=2 if dtype != "float32" else 0, pitch="quirk")
    x6 = user_data(t)
    q6 = oracle_codes(t, x6)
    for data, lay in ((x6, "NCHW"), (np.moveaxis(x6, 3, 5), "NHWC")):
        buf = pack(t, data[:, 0, 0], layout=lay)
        check_packed(t, buf, q6)
        if dtype == "float32":  # float64 data is cast on the way
            check_packed(t, pack(t, data[:, 0, 0].astype(np.float64), layout=lay), q6)
        else:  # codes of the other byte order are copied as codes
            check_packed(t, pack(t, q6.astype(q6.dtype.newbyteorder())[:, 0, 0], layout="NCHW"), q6)
            swapped = np.moveaxis(q6, 3, 5).astype(q6.dtype.newbyteorder())[:, 0, 0]
            check_packed(t, pack(t, swapped, layout="NHWC"), q6)
        for out_layout in ("NCHW", "NHWC"):
            got = unpack(t, buf, layout=out_layout)
            want = oracle_real(t, q6)[:, 0, 0]
            np.testing.assert_array_equal(got, np.moveaxis(want, 1, 3) if out_layout == "NHWC" else want)
            out64 = np.empty(got.shape, np.float64)
            np.testing.assert_array_equal(unpack(t, buf, layout=out_layout, out=out64), got.astype(np.float64))


def test_hwc_camera_frame_into_padded_nchw() -> None:
    t = make_tensor(c=3, h=108, w=192, pads=(1, 1, 0, 2), pitch="quirk")
    frame = RNG.integers(0, 256, (108, 192, 3), dtype=np.uint8)
    buf = pack(t, frame, layout="HWC")
    check_packed(t, buf, frame.transpose(2, 0, 1)[None, None, None])
    bgr_view = frame[:, :, ::-1]  # a negative-stride view is fine
    check_packed(t, pack(t, bgr_view, layout="HWC"), frame[:, :, ::-1].transpose(2, 0, 1)[None, None, None])


def test_nhwc_buffer_from_channels_first_data() -> None:
    t = make_tensor(c=3, h=10, w=20, layout=1, dtype="uint8", pads=(2, 1, 1, 0))
    x = RNG.integers(0, 256, (1, 3, 10, 20), dtype=np.uint8)
    buf = pack(t, x)
    check_packed(t, buf, x[:, None, None])
    np.testing.assert_array_equal(unpack(t, buf, dequantize=False, layout="NHWC"), x.transpose(0, 2, 3, 1))


# ---- pack: data forms and errors ---------------------------------------------------------

def test_pack_accepts_the_documented_shapes() -> None:
    t = make_tensor(c=3, h=4, w=5, pads=(1, 1, 0, 2), pitch="quirk")
    x = RNG.uniform(0, 255, (3, 4, 5)).astype(np.float32)
    ref = pack(t, x)
    for data, layout in ((x, "NCHW"), (x, "CHW"), (x[None], "NCHW"), (x[None, None], "NCHW"),
                         (x[None, None, None], "NCHW"), (x.transpose(1, 2, 0), "HWC"),
                         (x.transpose(1, 2, 0)[None], "NHWC"), (x.transpose(1, 2, 0)[None, None, None], "NHWC"),
                         (x.tolist(), "CHW")):
        np.testing.assert_array_equal(pack(t, data, layout=layout), ref)


def test_pack_refuses_wrong_shapes_with_the_accepted_ones() -> None:
    t = make_tensor(c=3, h=4, w=5)
    with pytest.raises(BufferMismatchError, match=r"input 0 't': data of shape \(4, 5, 3\) does not fit layout "
                       r"'NCHW'.*accepted shapes: \(1, 1, 1, 3, 4, 5\), \(1, 1, 3, 4, 5\), \(1, 3, 4, 5\), "
                       r"\(3, 4, 5\); for channels-last data pass layout='NHWC'"):
        pack(t, np.zeros((4, 5, 3), np.float32))
    with pytest.raises(BufferMismatchError, match="accepted shapes: none of rank 3"):
        pack(make_tensor(n=2, c=3, h=4, w=5), np.zeros((3, 4, 5), np.float32), layout="CHW")
    with pytest.raises(OptionError, match="layout must be one of 'NCHW', 'NHWC', 'CHW', 'HWC'"):
        pack(t, np.zeros((3, 4, 5), np.float32), layout="NWHC")
    t6 = make_tensor(n=2, d1=2, c=3, h=4, w=5)
    with pytest.raises(BufferMismatchError, match=r"accepted shapes: \(2, 2, 1, 3, 4, 5\); for channels-last"):
        pack(t6, np.zeros((2, 3, 4, 5), np.float32))


def test_pack_refuses_integer_data_of_another_type() -> None:
    t = make_tensor(dtype="uint8", scale=2.0)
    with pytest.raises(BufferMismatchError, match=r"data has dtype int32, which does not go into a uint8 tensor; "
                       r"refusing to wrap int32 into uint8"):
        pack(t, np.full((3, 4, 5), 300, np.int32))
    codes = RNG.integers(0, 256, (3, 4, 5), dtype=np.uint8)
    check_packed(t, pack(t, codes), codes[None, None, None])  # codes of the element type: copied


def test_pack_nan_and_infinities() -> None:
    t = make_tensor(dtype="int8", scale=4.0, zp=-3)
    x = np.zeros((3, 4, 5), np.float32)
    x[2, 1, 3] = np.nan
    with pytest.raises(BufferMismatchError, match=r"input 0 't': data holds 1 NaN value\(s\), the first at index "
                       r"\(2, 1, 3\); pass nan='zero'"):
        pack(t, x)
    x[0, 0, 0], x[0, 0, 1] = np.inf, -np.inf
    v = view(t, pack(t, x, nan="zero"))[0, 0, 0]
    assert (v[2, 1, 3], v[0, 0, 0], v[0, 0, 1], v[1, 1, 1]) == (-3, 127, -128, -3)


def test_pack_into_caller_memory() -> None:
    t = make_tensor(dtype="int16", scale=128.0, pads=(1, 1, 0, 2))
    x = RNG.uniform(-1, 1, (3, 4, 5)).astype(np.float32)
    raw = bytearray(t.buffer_size * 2)
    buf = pack(t, x, raw)  # raw bytes are reinterpreted; the bytearray itself is filled
    assert np.shares_memory(buf, np.frombuffer(raw, np.uint8))
    check_packed(t, np.frombuffer(raw, np.int16), oracle_codes(t, x)[None, None, None])
    with pytest.raises(BufferMismatchError, match="out is read-only"):
        pack(t, x, bytes(raw))
    with pytest.raises(BufferMismatchError, match="out has dtype float32, expected int16"):
        pack(t, x, np.zeros(t.buffer_size, np.float32))


def test_pack_refuses_unusable_geometry_before_touching_memory() -> None:
    t = make_tensor(c=3, h=4, w=5, pads=(-1, 0, 0, 0))
    with pytest.raises(GeometryError, match=r"input 0 't': unusable buffer geometry: inPadL: expected >= 0, found -1"):
        pack(t, np.zeros((3, 4, 5), np.float32))
    for fn in (lambda: view(t, np.zeros(1000, np.uint8)), lambda: alloc_input(_desc(t), 0),
               lambda: check_padding(t, np.zeros(1000, np.uint8)), lambda: unpack(t, np.zeros(1000, np.uint8))):
        with pytest.raises(GeometryError, match="inPadL"):
            fn()
    bad_type = make_descriptor("10.x", 1, inputs=[{"width": 2, "height": 2, "num_channels": 1, "dim1": 1,
                                                   "dim2": 1, "num_batches": 1, "channel_pitch": 4,
                                                   "element_type": 11}]).inputs[0]
    with pytest.raises(GeometryError, match="inElementType.*unknown element type 11"):
        pack(bad_type, np.zeros((2, 2), np.float32))


def _desc(t: Any) -> Any:
    raw = {k: v for k, v in t.raw.items()}
    return make_descriptor("10.x", 1, inputs=[raw])


# ---- unpack ------------------------------------------------------------------------------

def test_unpack_codes_is_a_writable_view() -> None:
    t = make_tensor("output", c=2, h=3, w=4, pads=(1, 1, 0, 2), pad_ch=1, dtype="int8", scale=8.0)
    buf = alloc_output(_out_desc(t), 0)
    codes = unpack(t, buf, dequantize=False)
    assert codes.shape == (1, 2, 3, 4) and np.shares_memory(codes, buf)
    codes[0, 1, 2, 3] = -7
    assert buf[spec_index(t, 0, 0, 0, 1, 2, 3)] == -7
    assert unpack(t, buf)[0, 1, 2, 3] == np.float32(-7) / np.float32(8)
    ro = unpack(t, bytes(buf.tobytes()), dequantize=False)
    assert not ro.flags.writeable and ro[0, 1, 2, 3] == -7


def _out_desc(t: Any) -> Any:
    return make_descriptor("10.x", 1, inputs=[], outputs=[dict(t.raw)])


def test_unpack_squeezes_as_num_valid_tensor_dims_says(realdata: Path) -> None:
    od = tidl_io.load(realdata / "od-8220__od-8220-20250514-supposed-final-model__artifacts__subgraph_0_tidl_io_1.bin")
    buf = alloc_output(od, "dets")
    assert unpack(od.output("dets"), buf).shape == (1, 200, 5)
    assert unpack(od.output("labels"), alloc_output(od, "labels")).shape == (1, 200)
    assert unpack(od.output("dets"), buf, squeeze=False).shape == (1, 1, 1, 1, 200, 5)
    assert unpack(od.output("dets"), buf, layout="NHWC").shape == (200, 5, 1)  # (C, H, W) kept, C moved last
    jd = tidl_io.load(realdata / "ti-psdk-11.01__j721e__psdkra__tidl_models__tidl_io_onnx_tiad_jdakaze_pw2_1.bin")
    assert unpack(jd.output(0), alloc_output(jd, 0)).shape == (1, 1, 1, 64, 96, 192)
    assert unpack(jd.output(0), alloc_output(jd, 0), layout="NHWC").shape == (1, 1, 1, 96, 192, 64)
    mob = tidl_io.load(realdata / "ti-psdk-11.01__j721e__tivx__tidl_models__tidl_io_mobilenet_v1_1.bin")
    assert unpack(mob.input(0), alloc_input(mob, 0)).shape == (1, 3, 224, 224)  # no numValidTensorDims
    assert unpack(mob.input(0), alloc_input(mob, 0), layout="NHWC").shape == (1, 224, 224, 3)


def test_unpack_keeps_a_leading_axis_that_num_valid_dims_would_drop() -> None:
    dims = tidl_io.load(FIXTURES / "l3_c2_dims_tidl_io_1.bin")
    t = dims.output("pooled")
    assert t.shape == (2, 1, 5, 1, 1, 7) and t.num_valid_dims == 5
    assert unpack(t, alloc_output(dims, "pooled")).shape == (2, 1, 5, 1, 1, 7)


def test_unpack_out_errors() -> None:
    t = make_tensor("output", c=2, h=3, w=4, dtype="uint8", scale=2.0)
    buf = np.zeros(t.buffer_size, np.uint8)
    with pytest.raises(BufferMismatchError, match=r"output 0 't': out has shape \(2, 3, 4\), expected \(1, 2, 3, 4\)"):
        unpack(t, buf, out=np.zeros((2, 3, 4), np.float32))
    with pytest.raises(BufferMismatchError, match="out has dtype float32, expected uint8"):
        unpack(t, buf, dequantize=False, out=np.zeros((1, 2, 3, 4), np.float32))
    with pytest.raises(OptionError, match=r"layout must be one of 'NCHW', 'NHWC', 'CHW', 'HWC' \(any case\), "
                                          r"found 'HWX'"):
        unpack(t, buf, layout="HWX")
    with pytest.raises(AllocationLimitError, match="output 0 't': allocating 96 bytes"):
        unpack(t, buf, max_bytes=95)


# ---- view --------------------------------------------------------------------------------

def test_view_uses_the_stored_pitches(realdata: Path) -> None:
    desc = tidl_io.load(realdata / "ti-psdk-11.01__j721e__tivx__tidl_models__tidl_io_mobilenet_v1_1.bin")
    t = desc.input(0)
    assert (t.channel_pitch, t.pad_l, t.pad_t) == (50851, 1, 1)  # smaller than the 227 x 225 padded plane
    buf = alloc_input(desc, 0)
    v = view(t, buf)
    assert v.shape == (1, 1, 1, 3, 224, 224) and v.strides[3:] == (50851, 225, 1)
    v[0, 0, 0, 2, 223, 223] = 9
    assert buf[spec_index(t, 0, 0, 0, 2, 223, 223)] == 9 == buf[2 * 50851 + 224 * 225 + 1 + 223]


def test_view_accepts_raw_bytes_and_refuses_bad_buffers() -> None:
    t = make_tensor(dtype="int16", c=2, h=3, w=4, pads=(1, 0, 0, 1))
    raw = np.zeros(t.buffer_size * 2 + 1, np.uint8)
    v = view(t, raw[:-1])
    v[0, 0, 0, 1, 2, 3] = -2
    assert raw[:-1].view(np.int16)[spec_index(t, 0, 0, 0, 1, 2, 3)] == -2
    assert not view(t, bytes(raw)).flags.writeable
    cases = [
        (np.zeros((2, t.buffer_size), np.int16), r"buf must be a flat 1-D buffer .*found shape \(2, "),
        (np.zeros(t.buffer_size, np.float32), "buf has dtype float32, expected int16 \\(or raw uint8 bytes\\)"),
        (np.zeros(t.required_size - 1, np.int16), (f"buf holds {t.required_size - 1} elements of int16; the last "
                                                   f"valid element is at index {t.required_size - 1}")),
        (np.zeros(2 * t.buffer_size, np.int16)[::2], "buf must be contiguous, found a stride of 4 bytes"),
        (raw[1:], "raw bytes of buf are not aligned to the 2-byte element size of int16"),
    ]
    for buf, message in cases:
        with pytest.raises(BufferMismatchError, match=message):
            view(t, buf)
    for wrong in (object(), None, "buf", [0, 1]):  # no buffer at all: a wrong kind of argument
        with pytest.raises(tidl_io.ArgumentTypeError, match=r"^view: buf: expected a numpy array or a bytes-like "
                                                            r"buffer .*, found .*\(input 0 't'\)$"):
            view(t, wrong)


# ---- allocation --------------------------------------------------------------------------

def test_alloc_gives_zeroed_aligned_buffers_by_index_and_name() -> None:
    desc = tidl_io.load(FIXTURES / "l3_c4_many_tidl_io_1.bin")
    bufs = alloc_inputs(desc)
    assert list(bufs) == [t.name for t in desc.inputs]
    for t in desc.inputs:
        b = bufs[t.name]
        assert b.shape == (t.buffer_size,) and b.dtype == t.dtype and not b.any() and b.ctypes.data % 64 == 0
        assert b.flags.writeable and b.flags.c_contiguous
    assert alloc_input(desc, "in_05").dtype == np.int8 and alloc_input(desc, 5).size == desc.input(5).buffer_size
    outs = alloc_outputs(desc)
    assert [b.dtype for b in outs.values()] == [np.float32, np.int8]
    assert alloc_output(desc, "max").size == 8
    with pytest.raises(KeyError, match="no input named 'nope'"):
        alloc_input(desc, "nope")


def test_alloc_by_name_refuses_duplicate_names() -> None:
    f = {"width": 2, "height": 1, "num_channels": 1, "channel_pitch": 2, "num_batches": 1, "dim1": 1, "dim2": 1,
         "name_bytes": "same"}
    desc = make_descriptor("10.x", 1, inputs=[f, f])
    with pytest.raises(BufferMismatchError, match="input 1 'same': same name as input 0 'same'"):
        alloc_inputs(desc)


def test_allocation_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    huge = make_descriptor("10.x", 1, inputs=[{"width": 1 << 16, "height": 1 << 14, "num_channels": 1,
                                               "channel_pitch": 1 << 30, "num_batches": 1, "dim1": 1, "dim2": 1,
                                               "name_bytes": "huge", "buf_size": (1 << 31) - 1,
                                               "element_type": 6}])
    with pytest.raises(AllocationLimitError, match=r"input 0 'huge': allocating 8589934588 bytes .* exceeds the "
                       r"limit of 1073741824 bytes \(TIDL_IO_MAX_ALLOC_BYTES\)"):
        alloc_input(huge, 0)
    with pytest.raises(AllocationLimitError, match="input 0 'huge'"):
        pack(huge.input(0), np.broadcast_to(np.float32(0), (1 << 14, 1 << 16)))
    small = make_tensor(c=1, h=4, w=8)
    desc = _desc(small)
    assert alloc_input(desc, 0, max_bytes=64).size == 64
    with pytest.raises(AllocationLimitError, match=r"allocating 64 bytes .* limit of 63 bytes \(max_bytes\)"):
        alloc_input(desc, 0, max_bytes=63)
    monkeypatch.setenv("TIDL_IO_MAX_ALLOC_BYTES", "32")
    with pytest.raises(AllocationLimitError, match="limit of 32 bytes"):
        alloc_inputs(desc)
    with pytest.raises(AllocationLimitError, match="limit of 32 bytes"):
        pack(small, np.zeros((1, 4, 8), np.float32))
    assert pack(small, np.zeros((1, 4, 8), np.float32), max_bytes=64).size == 64
    monkeypatch.setenv("TIDL_IO_MAX_ALLOC_BYTES", "lots")
    with pytest.raises(AllocationLimitError, match="TIDL_IO_MAX_ALLOC_BYTES='lots'"):
        alloc_input(desc, 0)


# ---- caller memory -----------------------------------------------------------------------

def test_as_buffer_over_caller_memory() -> None:
    t = make_tensor(dtype="int16", c=2, h=3, w=4, pads=(1, 1, 0, 2), scale=64.0)
    nbytes = t.buffer_size * 2
    x = RNG.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    want = oracle_codes(t, x)[None, None, None]
    shm = shared_memory.SharedMemory(create=True, size=nbytes + 64)
    try:
        memories: list[Any] = [bytearray(nbytes), mmap.mmap(-1, nbytes), (ctypes.c_int16 * t.buffer_size)(),
                               shm.buf]
        for memory in memories:
            buf = as_buffer(t, memory)
            assert buf.shape == (t.buffer_size,) and buf.dtype == np.int16
            assert pack(t, x, buf) is buf
            check_packed(t, np.frombuffer(memory, np.int16, count=t.buffer_size), want)
            del buf
        buf = as_buffer(t, shm.buf, offset=64, align=64)  # shared memory is page-aligned
        assert np.shares_memory(buf, np.frombuffer(shm.buf, np.uint8))
        del buf
        memories[1].close()
    finally:
        shm.close()
        shm.unlink()
    assert not as_buffer(t, bytes(nbytes)).flags.writeable
    with pytest.raises(BufferMismatchError, match=f"memory holds {nbytes - 1} bytes.*the buffer needs {nbytes} "
                       "bytes"):
        as_buffer(t, bytearray(nbytes - 1))
    with pytest.raises(BufferMismatchError, match="is not aligned to the 2-byte element size"):
        as_buffer(t, bytearray(nbytes + 1), offset=1)
    block = np.zeros(nbytes + 128, np.uint8)
    start = -block.ctypes.data % 64
    assert as_buffer(t, block, offset=start, align=64).ctypes.data % 64 == 0
    with pytest.raises(BufferMismatchError, match="is not 64-byte aligned \\(it is 2 bytes past a boundary\\)"):
        as_buffer(t, block, offset=start + 2, align=64)
    with pytest.raises(tidl_io.ArgumentTypeError, match="^as_buffer: memory: expected a numpy array or a bytes-like "
                                                        "buffer .*, found int 5"):
        as_buffer(t, 5)


# ---- the benchmark runs ------------------------------------------------------------------

def test_bench_buffers_quick_prints_every_case() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "bench_buffers.py"), "--quick"],
                          check=False, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    for needle in ("numpy/copy", "numpy/ref", "peak mem", "pack f32", "pack HWC uint8",
                   "unpack int8", "unpack uint8", "unpack int16", "check_padding"):
        assert needle in proc.stdout, needle



@pytest.mark.parametrize("kwargs,error,message", [
    ({"offset": 1.5}, tidl_io.ArgumentTypeError, "offset: expected a whole number of bytes >= 0, found float 1.5"),
    ({"offset": "1"}, tidl_io.ArgumentTypeError, "offset: expected a whole number of bytes >= 0, found str '1'"),
    ({"offset": -8}, OptionError, "offset must be >= 0, found -8"),
    ({"align": 64.0}, tidl_io.ArgumentTypeError, ("align: expected a whole number of bytes (or None) >= 0, found "
                                                  "float 64.0")),
])
def test_as_buffer_refuses_bad_offsets_and_alignments(kwargs: dict, error: type, message: str) -> None:
    t = make_tensor("input")
    with pytest.raises(error, match=re.escape(f"as_buffer: input 0 't': {message}")):
        as_buffer(t, bytearray(4096), **kwargs)


# ---- friction (issue 11): layout names, NHWC details -------------------------------------------

@pytest.mark.parametrize("buffer_layout", [0, 1])
def test_layout_names_in_any_case_and_unpack_takes_packs_names(buffer_layout: int) -> None:
    t = make_tensor("output", c=3, h=4, w=5, pads=(1, 1, 2, 0), dtype="int16", layout=buffer_layout, scale=4.0)
    buf = np.zeros(t.buffer_size, np.int16)
    codes = RNG.integers(-500, 500, (3, 4, 5)).astype(np.int16)  # (C, H, W)
    for c, h, w in itertools.product(range(3), range(4), range(5)):  # the spec's index, element by element
        buf[spec_index(t, 0, 0, 0, c, h, w)] = codes[c, h, w]
    real = codes.astype(np.float32) / np.float32(4.0)
    for name, want in (("chw", real), ("CHW", real), ("hwc", real.transpose(1, 2, 0)), ("Hwc", real.transpose(1, 2, 0)),
                       ("nchw", real[None]), ("nhwc", real.transpose(1, 2, 0)[None])):
        got = unpack(t, buf, layout=name)
        assert got.shape == want.shape, name
        np.testing.assert_array_equal(got, want, err_msg=name)
    np.testing.assert_array_equal(unpack(t, buf, layout="hwc", dequantize=False), codes.transpose(1, 2, 0))
    inp = make_tensor("input", c=3, h=4, w=5, pads=(1, 1, 2, 0), dtype="int16", layout=buffer_layout, scale=4.0)
    for name, x in (("hwc", real.transpose(1, 2, 0)), ("nHwC", real.transpose(1, 2, 0)[None]), ("chw", real)):
        packed = pack(inp, x, layout=name)
        assert [packed[spec_index(inp, 0, 0, 0, c, h, w)] for c, h, w in itertools.product(range(3), range(4), range(5))] \
            == codes.ravel().tolist(), name


def test_unpack_one_image_layouts_refuse_batches() -> None:
    t = make_tensor("output", n=2, c=3, h=4, w=5)
    with pytest.raises(BufferMismatchError, match=r"output 0 't': layout 'HWC' is one image, but the tensor has "
                                                  r"\(N, DIM1, DIM2\) = \(2, 1, 1\); use 'NHWC'"):
        unpack(t, np.zeros(t.buffer_size, np.uint8), layout="hwc")


def test_planned_calls_still_check_what_changes_per_call() -> None:
    """pack / unpack plan once per (tensor, user array geometry, layout, options): a repeated call with
    the same geometry reuses the plan (buffers._PACKS / _UNPACKS) but still checks ``out``, the buffer
    and the values (NaN), and options that equal a planned one without being one (1 for True) are still
    refused; every result against the NumPy oracle (oracle_codes / oracle_real), pads untouched."""
    rng = np.random.default_rng(7)
    t = make_tensor("input", c=3, h=5, w=6, pads=(1, 2, 1, 1), dtype="int16", scale=3.5, zp=-2)
    o = make_tensor("output", c=3, h=5, w=6, pads=(1, 2, 1, 1), dtype="int16", scale=3.5, zp=-2)
    for rounding in ("trunc", "nearest", "trunc"):
        for _ in range(2):
            x = rng.uniform(-1e4, 1e4, (1, 3, 5, 6)).astype(np.float32)
            buf = np.full(t.alloc_size, -7, np.int16)
            assert pack(t, x, buf, rounding=rounding) is buf
            check_packed(t, buf, oracle_codes(t, x, rounding).reshape(shape6(t)), untouched=-7 & 0xFFFF)
    key = (t, x.shape, x.strides, x.dtype, "NCHW", "trunc", "error")
    assert buffers._PACKS[key].qp.scale == 3.5  # planned once, kept
    with pytest.raises(BufferMismatchError, match="out is read-only"):
        ro = np.zeros(t.alloc_size, np.int16)
        ro.flags.writeable = False
        pack(t, x, ro)
    with pytest.raises(BufferMismatchError, match="holds 3 elements"):
        pack(t, x, np.zeros(3, np.int16))
    with pytest.raises(BufferMismatchError, match="NaN"):
        y = x.copy()
        y[0, 1, 2, 3] = np.nan
        pack(t, y, np.zeros(t.alloc_size, np.int16))
    with pytest.raises(BufferMismatchError, match="has dtype int32"):  # same shape, another dtype: planned anew
        pack(t, x.astype(np.int32), np.zeros(t.alloc_size, np.int16))
    q = rng.integers(-2000, 2000, shape6(o), dtype=np.int16)
    obuf = np.zeros(o.alloc_size, np.int16)
    view(o, obuf)[...] = q
    for _ in range(2):
        np.testing.assert_array_equal(unpack(o, obuf), oracle_real(o, q).reshape(1, 3, 5, 6))
        np.testing.assert_array_equal(unpack(o, obuf, dequantize=False), q.reshape(1, 3, 5, 6))
    assert (o, "NCHW", True, True) in buffers._UNPACKS
    with pytest.raises(tidl_io.ArgumentTypeError, match="dequantize"):
        unpack(o, obuf, dequantize=1)  # type: ignore[arg-type]
    with pytest.raises(BufferMismatchError, match="holds 3 elements"):
        unpack(o, np.zeros(3, np.int16))
    with pytest.raises(BufferMismatchError, match="out has dtype float16"):
        unpack(o, obuf, out=np.zeros((1, 3, 5, 6), np.float16))
