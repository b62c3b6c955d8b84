"""Tensor: one slot's fields and derived geometry, against the decodes in
../shared/realdata/PROVENANCE.md and literal values (tidl_io/iodesc/tensor.py; the geometry formulas
themselves are tested in test_geometry.py)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io.iodesc.descriptor import ElementType, make_descriptor

from conftest import FIXTURES, corpus

# ---- geometry -----------------------------------------------------------------------------

def test_geometry_of_the_padded_real_input(realdata: Path) -> None:
    """jdakaze input: 768x384x3 uint8, pads L1/T1/R0/B2, stored pitch smaller than the plane."""
    t = tidl_io.load(realdata / "ti-psdk-11.01__j721e__psdkra__tidl_models__tidl_io_onnx_tiad_jdakaze_pw2_1.bin"
                     ).inputs[0]
    line = 768 + 1 + 0
    assert t.line_pitch == line
    assert t.channel_pitch == 296835 < (384 + 1 + 2) * line  # never recomputed
    assert t.first_offset == 1 * line + 1
    assert t.strides == (296835 * 3, 296835 * 3, 296835 * 3, 296835, line, 1)
    assert t.last_offset == line + 1 + 2 * 296835 + 383 * line + 767
    assert t.buffer_size == t.buf_size == 4 * 387 * 769 == t.computed_buf_size
    assert t.dtype == np.uint8 and t.buffer_nbytes == t.buffer_size


def test_input_channel_pad_is_not_geometry() -> None:
    """Spec §4: dim2Pitch = chPitch * (C + padCh) with padCh 0 for inputs."""
    desc = make_descriptor("10.x", inputs=[{"inWidth": 4, "inHeight": 2, "inNumChannels": 2, "inChannelPitch": 8,
                                            "inNumBatches": 1, "inDIM1": 1, "inDIM2": 2, "inPadCh": 3,
                                            "inTensorScale": 1.0, "inElementType": 0, "inBufSize": 48}],
                           outputs=[{"outWidth": 4, "outHeight": 2, "outNumChannels": 2, "outChannelPitch": 8,
                                     "outNumBatches": 1, "outDIM1": 1, "outDIM2": 2, "outPadCh": 3,
                                     "outTensorScale": 1.0, "outElementType": 0, "outBufSize": 80}])
    assert desc.inputs[0].dim2_pitch == 8 * 2
    assert desc.outputs[0].dim2_pitch == 8 * (2 + 3)


def test_geometry_nhwc(realdata: Path) -> None:
    t = tidl_io.load(realdata / "bbai64__go__model__TFL-CL-0000-mobileNetV1-mlperf__artifacts__87_tidl_io_1.bin"
                     ).inputs[0]
    assert t.layout == "NHWC" and t.channel_pitch == 224 * 224
    assert t.strides[3:] == (1, 224 * 3, 3)  # C, H, W steps
    assert t.last_offset == 224 * 224 * 3 - 1


def test_geometry_six_dims_literal() -> None:
    """Strides from the spec's formulas, written out for one 6-D padded output."""
    desc = tidl_io.load(FIXTURES / "l3_c2_dims_tidl_io_1.bin")
    t = desc.output("volume")
    line = 6 + 1 + 0
    ch = (5 + 1 + 2) * line
    dim2 = ch * (4 + 1)
    dim1 = dim2 * 2
    batch = dim1 * 3
    assert t.shape == (2, 3, 2, 4, 5, 6)
    assert t.strides == (batch, dim1, dim2, ch, line, 1)
    assert t.squeezed_shape == (2, 3, 2, 4, 5, 6)
    # numValidTensorDims 5 would drop N = 2: the batch axis is kept rather than lose elements
    assert desc.output("pooled").squeezed_shape == (2, 1, 5, 1, 1, 7)
    assert desc.output("pooled").squeezed_axes == (0, 1, 2, 3, 4, 5)
    assert t.dtype == np.int16 and t.scale == 128.0 and t.quant_step == 1 / 128


def test_squeezed_shape_rules(realdata: Path) -> None:
    od = tidl_io.load(realdata / "od-8220__od-8220-20250514-supposed-final-model__artifacts__subgraph_0_tidl_io_1.bin")
    assert od.output("dets").squeezed_shape == (1, 200, 5)       # numValidTensorDims 3
    assert od.output("labels").squeezed_shape == (1, 200)        # numValidTensorDims 2
    v8 = tidl_io.load(FIXTURES / "v8_batch_tidl_io_1.bin")
    assert v8.input(0).squeezed_shape == (2, 3, 10, 12)           # no field: (N, C, H, W)
    dims = tidl_io.load(FIXTURES / "l3_c2_dims_tidl_io_1.bin")
    assert dims.input(0).squeezed_shape == (2, 2, 3, 3, 8, 16)    # no field, DIM1/DIM2 > 1: all 6 axes


def test_element_types_map_to_numpy() -> None:
    expected = ["uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "uint64", "int64"]
    assert [ElementType(i).dtype.name for i in range(9)] == expected
    assert all(ElementType(i).dtype.byteorder in "<=|" for i in range(9))


def test_unknown_element_type_is_kept_raw_and_reported() -> None:
    desc = make_descriptor("10.x", inputs=[{"inWidth": 4, "inHeight": 1, "inNumChannels": 1,
                                            "inChannelPitch": 4, "inElementType": 42, "inNumBatches": 1,
                                            "inDIM1": 1, "inDIM2": 1, "inTensorScale": 1.0}])
    t = desc.inputs[0]
    assert t.element_type == 42 and t.element is None
    with pytest.raises(tidl_io.GeometryError, match=r"input 0 '': inElementType = 42"):
        _ = t.dtype


def test_tensor_hash_is_cached_per_object_and_never_pickled() -> None:
    """Tensor caches its hash (pack and unpack look tensors up in caches); equal tensors hash
    equal, a changed field changes it, and a pickled tensor does not carry the cached value into
    another process, where str hashes differ."""
    import dataclasses
    import pickle
    import subprocess
    import sys

    path = corpus()[0]  # a real file when ../shared/realdata is there, else a fixture: any tensor will do
    t = tidl_io.load(path).inputs[0]
    same = dataclasses.replace(t)  # a different object with equal fields
    assert same is not t and same == t and hash(same) == hash(t)
    assert {t: "found"}[same] == "found"
    assert hash(dataclasses.replace(t, width=t.width + 1)) != hash(t)
    blob = pickle.dumps(t)
    assert "_hash" not in pickle.loads(blob).__dict__
    # a tensor whose hash was cached here, looked up against a fresh equal tensor in a process
    # with another hash seed
    code = ("import pickle, sys, tidl_io\n"
            "t = pickle.loads(sys.stdin.buffer.read())\n"
            f"fresh = tidl_io.load({str(path)!r}).inputs[0]\n"
            "print({fresh: 'found'}.get(t, 'missing'))\n")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code], input=blob, capture_output=True, env=env, check=True)
    assert out.stdout.decode().strip() == "found"
