"""tidl_io.data.plan: the routes and steps a plan decides on shapes, against NumPy's own verdict.

A layout change goes by groups of (n, d1, d2) slabs only where those three axes merge into one
as a view, on the buffer's side and the user's; the oracle is NumPy: ``reshape`` of an array
with the tensor's strides (the descriptor's pitches, ``Tensor.strides``) returns a view exactly
when the axes merge (a copy is new memory: ``np.may_share_memory`` with the original), and that view's strides are the
merged ones. Values moved along every route are pinned by tests/test_buffers.py.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest

from tidl_io import make_descriptor
from tidl_io.data.plan import plan_buffer, plan_pack, plan_unpack


def tensor(n: int, d1: int, d2: int, *, c: int = 3, h: int = 4, w: int = 5, pad_b: int = 0, layout: int = 0,
           loose: int = 0) -> Any:
    """An int8 input of (n, d1, d2, c, h, w); ``loose`` elements between channel planes."""
    line, rows = w, h + pad_b
    pitch = (rows * line + loose) if layout == 0 else rows * line
    fields = {"name_bytes": "t", "num_batches": n, "dim1": d1, "dim2": d2, "num_channels": c, "height": h,
              "width": w, "channel_pitch": pitch, "pad_b": pad_b, "element_type": 1, "layout_code": layout,
              "scale": 2.0, "buf_size": 2 * n * d1 * d2 * (c + 1) * (rows * line + loose) * c}  # room to spare
    return make_descriptor("10.x", 1, inputs=[fields]).inputs[0]


def numpy_merge(shape6: tuple[int, ...], byte_strides: tuple[int, ...], itemsize: int) -> tuple[int, ...] | None:
    """NumPy's verdict: the strides of ``a.reshape(count, C, H, W)`` for an array ``a`` of that
    shape and those strides when it is a view of ``a``, else None."""
    base = np.zeros(1, np.int8 if itemsize == 1 else np.float32)
    a = np.lib.stride_tricks.as_strided(base, shape=shape6, strides=byte_strides)  # never read
    r = a.reshape((math.prod(shape6[:3]), *shape6[3:]))
    return r.strides if np.may_share_memory(r, a) else None


CASES = [(1, 1, 1), (2, 1, 1), (1, 3, 1), (1, 1, 4), (2, 3, 4), (3, 1, 2)]


@pytest.mark.parametrize("dims", CASES)
@pytest.mark.parametrize("layout,pad_b,loose", [(0, 0, 0), (0, 1, 0), (0, 0, 7), (1, 0, 0), (1, 2, 0)])
def test_buffer_routes_merge_where_numpy_reshapes_without_a_copy(dims: tuple[int, int, int], layout: int,
                                                                   pad_b: int, loose: int) -> None:
    t = tensor(*dims, layout=layout, pad_b=pad_b, loose=loose)
    shape6 = tuple(t.shape)
    strides = tuple(0 if n == 1 else s for n, s in zip(shape6, t.strides))  # a size-1 axis takes any stride
    expected = numpy_merge(shape6, strides, 1)
    for channels_last in (False, True):
        route = plan_buffer(t).routes[channels_last]
        assert route.same_order == (channels_last == (layout == 1))
        if route.same_order:
            continue
        if math.prod(dims) == 1 or expected is None:
            assert route.merged is None
            continue
        assert route.merged is not None
        shape, merged = route.merged
        order = (1, 2, 0) if layout == 1 else (0, 1, 2)  # the buffer's memory order of (C, H, W)
        assert shape == (math.prod(dims), *(shape6[3 + i] for i in order))
        assert merged == (expected[0], *(expected[1 + i] for i in order))


def user_arrays(user6: tuple[int, ...]) -> list[np.ndarray]:
    """The same data as contiguous, sliced along N (steps over whole slabs: merges only when N
    alone is larger than 1), with reversed rows, and with N and the last axis swapped."""
    rng = np.random.default_rng(3)
    full = rng.uniform(0, 100, (2 * user6[0], *user6[1:])).astype(np.float32)
    arrays = [np.ascontiguousarray(full[:user6[0]]), full[::2], full[:user6[0], :, :, :, ::-1]]
    swapped = np.ascontiguousarray(np.swapaxes(full[:user6[0]], 0, 5))
    arrays.append(np.swapaxes(swapped, 0, 5))
    return arrays


@pytest.mark.parametrize("dims", CASES)
def test_pack_groups_slabs_only_where_the_user_array_merges_too(dims: tuple[int, int, int]) -> None:
    t = tensor(*dims)  # NCHW buffer; the user array NHWC: a layout change
    user6 = (*dims, t.height, t.width, t.num_channels)
    for x in user_arrays(user6):
        plan, _ = plan_pack(t, x, "NHWC", "trunc", "error")
        steps = plan.steps
        assert steps is not None
        buffer_side = numpy_merge(tuple(t.shape), tuple(0 if n == 1 else s for n, s in zip(t.shape, t.strides)), 1)
        user_side = numpy_merge(x.shape, x.strides, 4)
        # slabs of 60 elements: always within the scratch budget (at least 256 elements)
        assert (steps.group > 0) == (math.prod(dims) > 1 and buffer_side is not None and user_side is not None)
        assert steps.rows >= 1


def test_unpack_plans_steps_per_result_dtype() -> None:
    """Each dtype ``out`` may have gets its own scratch budget; codes have one dtype."""
    t = tensor(2, 3, 1)
    buf = np.zeros(t.buffer_size, np.int8)
    plan, typed = plan_unpack(t, buf, "NHWC", True, False)
    assert typed is buf and set(plan.steps) == {np.dtype(np.float32), np.dtype(np.float64)}
    assert all(s.group > 0 for s in plan.steps.values())  # 6 slabs of 60 elements, contiguous: groups
    codes, _ = plan_unpack(t, buf, "NHWC", False, False)
    assert set(codes.steps) == {np.dtype(np.int8)} and codes.qp is None


def test_slabs_in_c_order() -> None:
    t = tensor(2, 3, 4)
    assert list(plan_buffer(t).slabs) == list(itertools.product(range(2), range(3), range(4)))
