"""check_padding (tidl_io/data/padding.py): counts against a mask of the valid region built by the
spec's index formula (test_buffers.valid_mask), on a real descriptor and on edge geometries."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io import make_descriptor
from tidl_io.data.buffers import alloc_output, unpack, view
from tidl_io.data.padding import check_padding

from test_buffers import make_tensor, spec_index, valid_mask

# Every test here runs on the NumPy path and again on the native kernels.
pytestmark = pytest.mark.usefixtures("both_paths")


def test_check_padding_on_the_real_jdakaze_output(realdata: Path) -> None:
    desc = tidl_io.load(realdata / "ti-psdk-11.01__j721e__psdkra__tidl_models__tidl_io_onnx_tiad_jdakaze_pw2_1.bin")
    t = desc.output(0)
    buf = alloc_output(desc, 0)
    view(t, buf)[...] = -1
    mask = valid_mask(t, buf.size)
    report = check_padding(t, buf)
    assert report.clean and report.checked == np.count_nonzero(~mask) and report.first_dirty is None
    # one dirty element of each kind: the head, a row joint, a plane gap, the spare plane
    spots = [0, spec_index(t, 0, 0, 0, 5, 7, 191) + 1, spec_index(t, 0, 0, 0, 9, 95, 191) + 50, buf.size - 1]
    for spot in spots:
        assert not mask[spot]
        buf[spot] = 3
        r = check_padding(t, buf)
        assert (r.dirty, r.first_dirty) == (1, spot), spot
        buf[spot] = 0
    buf[spots] = 1
    assert (check_padding(t, buf).dirty, check_padding(t, buf).first_dirty) == (4, 0)
    longer = np.concatenate([buf, np.ones(5, buf.dtype)])  # memory past the buffer is not the tensor's
    assert (check_padding(t, longer).dirty, check_padding(t, longer).checked) == (4, report.checked)


def test_absurd_pitches_of_size_one_axes_are_ignored() -> None:
    """outPadCh near 2**31 with N = DIM1 = DIM2 = 1: a batch pitch of ~2**65 bytes that no
    valid element uses (found by tools/fuzz.py)."""
    i32 = 2**31 - 1
    fields = {"name_bytes": "o", "width": 4, "height": 2, "num_channels": 1, "num_batches": 1, "dim1": 1,
              "dim2": 1, "channel_pitch": i32, "pad_ch": i32 - 1, "buf_size": 8, "element_type": 8,
              "num_valid_dims": 4}
    t = make_descriptor("10.x", 1, inputs=[], outputs=[fields]).outputs[0]
    buf = np.arange(8, dtype=np.int64)
    assert view(t, buf)[0, 0, 0, 0].tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert unpack(t, buf, dequantize=False).shape == (1, 1, 2, 4)
    assert check_padding(t, buf).checked == 0


def test_negative_zero_pads_are_dirty() -> None:
    t = make_tensor(dtype="float32", c=1, h=2, w=3, pads=(1, 0, 0, 0))
    buf = np.zeros(t.buffer_size, np.float32)
    buf[0] = -0.0
    assert check_padding(t, buf).first_dirty == 0


def test_still_importable_from_buffers() -> None:
    """check_padding and PaddingReport lived in tidl_io.data.buffers: old imports keep working."""
    from tidl_io.data import buffers, padding
    from tidl_io.data.buffers import PaddingReport
    from tidl_io.data.buffers import check_padding as old

    assert old is padding.check_padding and PaddingReport is padding.PaddingReport
    assert tidl_io.check_padding is padding.check_padding
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        buffers.nope  # noqa: B018
