"""The array-layout resolver against NumPy transposes of a known 6-D array and literal
lists of the shapes each layout takes."""

from __future__ import annotations

import numpy as np
import pytest

from tidl_io import BufferMismatchError, OptionError
from tidl_io.base.layouts import accepted_shapes, canonical, check_shape, detect, dims_of, fits, parse_layout

SHAPES = [(1, 1, 1, 3, 4, 5), (2, 1, 1, 3, 4, 5), (1, 2, 3, 3, 4, 5), (1, 1, 1, 1, 1, 7), (2, 2, 1, 3, 1, 5)]


def test_accepted_shapes_literal() -> None:
    assert accepted_shapes((1, 1, 1, 3, 4, 5), False) == ((1, 1, 1, 3, 4, 5), (1, 1, 3, 4, 5), (1, 3, 4, 5),
                                                          (3, 4, 5))
    assert accepted_shapes((1, 1, 1, 3, 4, 5), True) == ((1, 1, 1, 4, 5, 3), (1, 1, 4, 5, 3), (1, 4, 5, 3),
                                                         (4, 5, 3))
    assert accepted_shapes((2, 1, 1, 3, 4, 5), False) == ((2, 1, 1, 3, 4, 5), (2, 3, 4, 5))
    assert accepted_shapes((1, 2, 3, 3, 4, 5), True) == ((1, 2, 3, 4, 5, 3), (2, 3, 4, 5, 3))


@pytest.mark.parametrize("shape6", SHAPES)
def test_canonical_is_the_transpose_back(shape6: tuple[int, ...]) -> None:
    data = np.arange(int(np.prod(shape6))).reshape(shape6)
    for cl in (False, True):
        user6 = data.transpose((0, 1, 2, 4, 5, 3)) if cl else data
        for shape in accepted_shapes(shape6, cl):
            x = user6.reshape(shape)
            v = canonical(x, shape6, cl)
            np.testing.assert_array_equal(v, data)
            assert np.shares_memory(v, x)


@pytest.mark.parametrize("shape6", SHAPES)
def test_detect_prefers_channels_first_and_obeys_layout_and_hint(shape6: tuple[int, ...]) -> None:
    n, d1, d2, c, h, w = shape6
    candidates = {(n, d1, d2, c, h, w), (n, c, h, w), (c, h, w), (n, d1, d2, h, w, c), (n, h, w, c), (h, w, c),
                  (2, 3), (c * h * w,)}
    for shape in candidates:
        first = fits(shape6, shape, False, False)
        last = fits(shape6, shape, True, False)
        rank3 = len(shape) == 3
        expect = None
        if first:
            expect = ("CHW" if rank3 else "NCHW", False)
        elif last:
            expect = ("HWC" if rank3 else "NHWC", True)
        assert detect(shape6, shape, None, None) == expect
        if first and last:  # a tie: the hint decides, run(layout=) insists
            assert detect(shape6, shape, None, "NHWC") == ("HWC" if rank3 else "NHWC", True)
            assert detect(shape6, shape, "NHWC", "NCHW") == ("HWC" if rank3 else "NHWC", True)
        if expect is not None:
            other = "NHWC" if expect[0] in ("NCHW", "CHW") else "NCHW"
            assert detect(shape6, shape, None, other) == (detect(shape6, shape, other, None) or expect)
        if not rank3:
            assert detect(shape6, shape, "CHW", None) is None and detect(shape6, shape, "HWC", None) is None


def test_check_shape_message_lists_the_accepted_shapes() -> None:
    check_shape((1, 1, 1, 3, 4, 5), (4, 5, 3), True, True, "HWC", "input 0 't'")
    with pytest.raises(BufferMismatchError, match=r"input 0 't': data of shape \(4, 5, 3\) does not fit layout "
                                                  r"'NCHW'.*accepted shapes: \(1, 1, 1, 3, 4, 5\), "):
        check_shape((1, 1, 1, 3, 4, 5), (4, 5, 3), False, False, "NCHW", "input 0 't'")
    with pytest.raises(BufferMismatchError, match="none of rank 3"):
        check_shape((2, 1, 1, 3, 4, 5), (3, 4, 5), False, True, "CHW", "x")


@pytest.mark.parametrize("shape", [(5,), (4, 5), (3, 4, 5), (2, 3, 4, 5), (2, 2, 3, 4, 5), (1, 2, 2, 3, 4, 5)])
def test_dims_of_literal(shape: tuple[int, ...]) -> None:
    padded = (1,) * (6 - len(shape)) + shape if len(shape) > 4 else (1,) * (4 - len(shape)) + shape
    if len(shape) <= 4:
        n, c, h, w = padded
        assert dims_of(shape, "NCHW", "x") == ((n, 1, 1, c, h, w), False)
        n, h, w, c = padded
        assert dims_of(shape, "NHWC", "x") == ((n, 1, 1, c, h, w), True)
    else:
        assert dims_of(shape, "NCHW", "x") == (padded, False)
        with pytest.raises(BufferMismatchError, match="^x: an NHWC array has at most 4 axes"):
            dims_of(shape, "NHWC", "x")
    if len(shape) == 3:
        assert dims_of(shape, "CHW", "x") == ((1, 1, 1, *shape), False)
        h, w, c = shape
        assert dims_of(shape, "HWC", "x") == ((1, 1, 1, c, h, w), True)
    else:
        for layout in ("CHW", "HWC"):
            with pytest.raises(BufferMismatchError, match=f"^x: a {layout} array has 3 axes"):
                dims_of(shape, layout, "x")


def test_parse_layout_any_case() -> None:
    table = {"nchw": ("NCHW", False, False), "Nhwc": ("NHWC", True, False), "chw": ("CHW", False, True),
             "HWC": ("HWC", True, True)}
    for given, expect in table.items():
        assert parse_layout(given, "x") == expect
    with pytest.raises(OptionError, match="layout must be one of"):
        parse_layout("WHC", "x")
