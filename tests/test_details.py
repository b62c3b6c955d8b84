"""TFLite-style details (tidl_io/data/details.py) of real and fixture descriptors: TFLite's keys with
TFLite's meanings, TIDL's keys beside them, and shapes that round-trip through pack / unpack."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import tidl_io
from tidl_io.data.buffers import alloc_output, pack, unpack, view
from tidl_io.data.details import get_input_details, get_output_details

from conftest import FIXTURES
from test_buffers import RNG


def test_details_in_tflite_shape(realdata: Path) -> None:
    desc = tidl_io.load(realdata / "monodepth__fastdepth__artifacts__424_tidl_io_1.bin")
    (inp,) = get_input_details(desc)
    (out,) = get_output_details(desc)
    assert inp["name"] == "input.1" and inp["index"] == 0 and inp["dtype"] is np.float32
    assert inp["shape"].dtype == np.int32 and inp["shape"].tolist() == [1, 3, 224, 224]
    assert inp["quantization"] == (0.0, 0) and inp["layout"] == "NCHW" and inp["buffer_size"] == 200704
    assert out["dtype"] is np.uint8 and out["shape"].tolist() == [1, 1, 224, 224]
    scale = float(np.float32(35.142269134521484))
    assert out["tidl_scale"] == scale and out["tidl_zero_point"] == 0
    assert out["quantization"] == (1.0 / scale, 0)
    np.testing.assert_array_equal(out["quantization_parameters"]["scales"], np.array([1.0 / scale], np.float32))
    # TFLite's formula with TFLite's step gives unpack's values (up to float32 rounding of the step)
    buf = alloc_output(desc, 0)
    view(desc.output(0), buf)[...] = 200
    step, zp = out["quantization"]
    np.testing.assert_allclose(unpack(desc.output(0), buf), (200 - zp) * step, rtol=1e-6)
    tfl = tidl_io.load(realdata / "bbai64__go__model__TFL-CL-0000-mobileNetV1-mlperf__artifacts__87_tidl_io_1.bin")
    assert get_input_details(tfl)[0]["layout"] == "NHWC"


def test_details_shape_is_nhwc_for_nhwc_tensors() -> None:
    desc = tidl_io.load(FIXTURES / "l2_c4_nhwc_tidl_io_1.bin")  # a TFLite-style NHWC input (1, 3, 10, 20)
    (d,) = get_input_details(desc)
    t = desc.input(0)
    assert t.layout == "NHWC" and (t.num_batches, t.num_channels, t.height, t.width) == (1, 3, 10, 20)
    assert d["layout"] == "NHWC" and d["shape"].tolist() == [1, 10, 20, 3] and d["shape"].dtype == np.int32
    assert d["shape_signature"].tolist() == [1, 10, 20, 3] and d["shape_nchw"].tolist() == [1, 3, 10, 20]
    # TFLite's keys are all there, with TFLite's meanings
    assert {"name", "index", "shape", "shape_signature", "dtype", "quantization", "quantization_parameters",
            "sparsity_parameters"} <= set(d)
    # the shape round-trips through pack and unpack with layout=d["layout"]
    x = RNG.random(tuple(d["shape"]), dtype=np.float32)
    buf = pack(t, x, layout=d["layout"], rounding="nearest")
    assert unpack(t, buf, layout=d["layout"]).shape == tuple(d["shape"])
    assert unpack(t, buf).shape == tuple(d["shape_nchw"])
    nchw = get_output_details(desc)[0]
    assert nchw["layout"] == "NCHW" and nchw["shape"].tolist() == nchw["shape_nchw"].tolist()


def test_details_of_the_real_tflite_model(realdata: Path) -> None:
    tfl = tidl_io.load(realdata / "bbai64__go__model__TFL-CL-0000-mobileNetV1-mlperf__artifacts__87_tidl_io_1.bin")
    (d,) = get_input_details(tfl)
    assert d["shape"].tolist() == [1, 224, 224, 3] and d["shape_nchw"].tolist() == [1, 3, 224, 224]


def test_still_importable_from_buffers() -> None:
    """get_input_details / get_output_details lived in tidl_io.data.buffers: old imports keep working."""
    from tidl_io.data import details
    from tidl_io.data.buffers import get_input_details as old_in
    from tidl_io.data.buffers import get_output_details as old_out

    assert old_in is details.get_input_details and old_out is details.get_output_details
    assert tidl_io.get_input_details is details.get_input_details
