"""BufferGeometry against independent oracles: padded buffers built with ``np.pad`` and
flattening (no pitch arithmetic), literal index loops, and the TIDL formulas written out
per field for every real descriptor and fixture."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io.iodesc.geometry import BufferGeometry

from conftest import corpus_params

RNG = np.random.default_rng(19)


def _random_case(rng: np.random.Generator) -> dict:
    return {"shape": tuple(int(v) for v in (rng.integers(1, 3), rng.integers(1, 3), rng.integers(1, 3),
                                            rng.integers(1, 4), rng.integers(1, 5), rng.integers(1, 5))),
            "pad_l": int(rng.integers(0, 3)), "pad_t": int(rng.integers(0, 3)),
            "pad_r": int(rng.integers(0, 3)), "pad_b": int(rng.integers(0, 3)),
            "pad_ch": int(rng.integers(0, 2)), "nhwc": bool(rng.integers(0, 2))}


def _padded_buffer(data: np.ndarray, case: dict) -> np.ndarray:
    """The flat buffer TIDL would hold for ``data`` (N, DIM1, DIM2, C, H, W), built by
    padding and flattening: no strides or offsets computed here."""
    pl, pt, pr, pb, pch = case["pad_l"], case["pad_t"], case["pad_r"], case["pad_b"], case["pad_ch"]
    n, d1, d2, _, h, w = data.shape
    if case["nhwc"]:
        planes = np.pad(data.transpose(0, 1, 2, 4, 5, 3), [(0, 0)] * 3 + [(pt, pb), (pl, pr), (0, 0)])
        per_channel_plane = (h + pt + pb) * (w + pl + pr)
        blocks = planes.reshape(n, d1, d2, -1)  # one DIM2 block: C interleaved planes
        blocks = np.pad(blocks, [(0, 0)] * 3 + [(0, pch * per_channel_plane)])
    else:
        planes = np.pad(data, [(0, 0)] * 3 + [(0, pch), (pt, pb), (pl, pr)])
        blocks = planes
    return blocks.ravel()


@pytest.mark.parametrize("seed", range(60))
def test_planar_view_matches_a_padded_buffer(seed: int) -> None:
    case = _random_case(np.random.default_rng(seed))
    data = np.arange(1, 1 + int(np.prod(case["shape"])), dtype=np.int32).reshape(case["shape"])
    buf = _padded_buffer(data, case)
    g = BufferGeometry.planar(case["shape"], pad_l=case["pad_l"], pad_t=case["pad_t"], pad_r=case["pad_r"],
                              pad_b=case["pad_b"], pad_ch=case["pad_ch"], nhwc=case["nhwc"], itemsize=4,
                              buffer_size=buf.size)
    v = g.view(buf)
    assert v.shape == data.shape
    np.testing.assert_array_equal(v, data)
    assert np.shares_memory(v, buf)
    # every valid element is inside the buffer, the rest of the buffer is padding (zero)
    assert g.required_size <= buf.size
    assert int(np.count_nonzero(buf)) == data.size
    assert buf[g.first_offset] == 1 and buf[g.last_offset] == data.size
    assert g.padded_size == buf.size and g.nbytes == 4 * buf.size
    assert g.size == data.size
    assert g.pads == (case["pad_l"], case["pad_t"], case["pad_r"], case["pad_b"])
    assert g.padded_plane == (case["shape"][5] + case["pad_l"] + case["pad_r"]) * \
        (case["shape"][4] + case["pad_t"] + case["pad_b"])


def _loop_offsets(shape, first, pitches) -> dict:
    """Offset of every element by walking the loops as TIDL's C code does (pointer bumps)."""
    out = {}
    n_base = first
    for n in range(shape[0]):
        d1_base = n_base
        for d1 in range(shape[1]):
            d2_base = d1_base
            for d2 in range(shape[2]):
                c_base = d2_base
                for c in range(shape[3]):
                    row = c_base
                    for h in range(shape[4]):
                        col = row
                        for w in range(shape[5]):
                            out[(n, d1, d2, c, h, w)] = col
                            col += pitches[5]
                        row += pitches[4]
                    c_base += pitches[3]
                d2_base += pitches[2]
            d1_base += pitches[1]
        n_base += pitches[0]
    return out


@pytest.mark.parametrize("seed", range(40))
def test_view_of_arange_gives_each_elements_offset(seed: int) -> None:
    rng = np.random.default_rng(1000 + seed)
    case = _random_case(rng)
    _, d1, d2, c, h, w = case["shape"]
    line = (w + case["pad_l"] + case["pad_r"]) * (c if case["nhwc"] else 1) + int(rng.integers(0, 3))
    chp = line * (h + case["pad_t"] + case["pad_b"]) + int(rng.integers(0, 5))
    g = BufferGeometry.planar(case["shape"], pad_l=case["pad_l"], pad_t=case["pad_t"], line_pitch=line,
                              channel_pitch=chp, pad_ch=case["pad_ch"], nhwc=case["nhwc"], itemsize=8)
    # literal pitches of each loop, from TIDL's definitions
    dim2 = chp * (c + case["pad_ch"])
    pitches = (dim2 * d2 * d1, dim2 * d2, dim2, 1 if case["nhwc"] else chp, line, c if case["nhwc"] else 1)
    first = case["pad_t"] * line + case["pad_l"] * (c if case["nhwc"] else 1)
    offsets = _loop_offsets(case["shape"], first, pitches)
    assert g.last_offset == max(offsets.values()) and g.first_offset == min(offsets.values())
    buf = np.arange(g.required_size, dtype=np.int64)
    v = g.view(buf)
    for idx, off in offsets.items():
        assert v[idx] == off
    # writable view of the same memory
    v[(0,) * 6] = -1
    assert buf[first] == -1


@pytest.mark.parametrize("seed", range(30))
def test_is_dense_matches_contiguity(seed: int) -> None:
    case = _random_case(np.random.default_rng(2000 + seed))
    g = BufferGeometry.planar(case["shape"], pad_l=case["pad_l"], pad_t=case["pad_t"], pad_r=case["pad_r"],
                              pad_b=case["pad_b"], pad_ch=case["pad_ch"], nhwc=case["nhwc"])
    buf = np.arange(g.required_size, dtype=np.uint8) if g.required_size < 256 else \
        np.arange(g.required_size, dtype=np.int64).astype(np.uint8)
    big = np.arange(g.required_size, dtype=np.int64)
    g8 = BufferGeometry(g.shape, g.strides, g.first_offset, 8)
    oracle = bool(np.array_equal(np.sort(g8.view(big).ravel()), np.arange(g.size)))
    assert g.is_dense() == oracle
    assert g.view(buf).shape == g.shape


def test_dense_cases() -> None:
    assert BufferGeometry.planar((1, 3, 4, 5)).is_dense()
    assert BufferGeometry.planar((2, 1, 1, 3, 4, 5), nhwc=True).is_dense()
    assert not BufferGeometry.planar((1, 3, 4, 5), pad_r=1).is_dense()
    assert BufferGeometry.planar((1, 3, 4, 5), pad_ch=1).is_dense()  # the spare plane follows the data
    assert not BufferGeometry.planar((2, 3, 4, 5), pad_ch=1).is_dense()


def test_empty_geometry() -> None:
    g = BufferGeometry.planar((1, 0, 4, 5), pad_t=1, pad_l=2)
    assert g.size == 0 and g.last_offset == g.first_offset - 1 and g.required_size == g.first_offset
    assert g.view(np.zeros(g.required_size, np.uint8)).shape == (1, 1, 1, 0, 4, 5)


def test_view_refuses_buffers_that_do_not_fit() -> None:
    g = BufferGeometry.planar((1, 2, 3, 4), pad_l=1, itemsize=2)
    with pytest.raises(tidl_io.BufferMismatchError, match="last valid element is at index"):
        g.view(np.zeros(g.required_size - 1, np.int16))
    with pytest.raises(tidl_io.BufferMismatchError, match="1-D"):
        g.view(np.zeros((2, g.required_size), np.int16))
    with pytest.raises(tidl_io.BufferMismatchError, match="2"):
        g.view(np.zeros(g.required_size, np.float32))
    with pytest.raises(tidl_io.BufferMismatchError):
        g.view(bytearray(100))  # type: ignore[arg-type]
    ro = np.zeros(g.required_size, np.int16)
    ro.flags.writeable = False
    assert not g.view(ro).flags.writeable


def test_planar_accepts_4d_and_refuses_other_ranks() -> None:
    assert BufferGeometry.planar((2, 3, 4, 5)).shape == (2, 1, 1, 3, 4, 5)
    with pytest.raises(tidl_io.GeometryError, match="shape"):
        BufferGeometry.planar((3, 4, 5))


def test_docstring_example() -> None:
    g = BufferGeometry.planar((1, 3, 2, 4), pad_l=1, pad_t=1, pad_r=1, pad_b=1)
    # lines of 1+4+1 = 6, planes of 6*(1+2+1) = 24 elements; first element after one line and one pad
    assert g.strides == (72, 72, 72, 24, 6, 1) and g.first_offset == 7
    assert g.last_offset == 7 + 2 * 24 + 1 * 6 + 3 and g.required_size == 65


# ---- every real descriptor: the Tensor's geometry is TIDL's formulas ---------------------

@pytest.mark.parametrize("path", corpus_params())
def test_tensor_geometry_matches_the_formulas(path: Path) -> None:
    desc = tidl_io.load(path)
    for d in (desc, *desc.subgraphs):
        for t in d.inputs + d.outputs:
            nhwc = t.layout_code == 1
            c = t.num_channels
            line = (t.width + t.pad_l + t.pad_r) * (c if nhwc else 1)
            dim2 = t.channel_pitch * (c + (t.pad_ch if t.kind == "output" else 0))
            strides = (dim2 * t.dim2 * t.dim1, dim2 * t.dim2, dim2, 1 if nhwc else t.channel_pitch, line,
                       c if nhwc else 1)
            first = t.pad_t * line + t.pad_l * (c if nhwc else 1)
            assert t.strides == strides and t.line_pitch == line and t.dim2_pitch == dim2
            assert (t.batch_pitch, t.dim1_pitch) == strides[:2]
            assert t.first_offset == first
            corners = [first + sum(i * s for i, s in zip(idx, strides))
                       for idx in itertools.product(*[(0, d - 1) for d in t.shape])]
            assert t.last_offset == max(corners)
            assert t.required_size == max(corners) + 1
            assert t.alloc_size == max(t.buffer_size, max(corners) + 1)
            assert t.size == int(np.prod(t.shape))
            assert t.padded_plane == (t.width + t.pad_l + t.pad_r) * (t.height + t.pad_t + t.pad_b)
            planes = c + (1 if t.kind == "input" else t.pad_ch)
            assert t.computed_buf_size == t.num_batches * t.dim1 * t.dim2 * planes * t.padded_plane
            g = t.geometry
            assert g is t.geometry  # cached
            assert (g.shape, g.strides, g.first_offset, g.itemsize) == (t.shape, strides, first, t.itemsize)
            assert g.padded_size == t.alloc_size and g.nbytes == t.alloc_size * t.itemsize


@pytest.mark.parametrize("path", corpus_params())
def test_tensor_geometry_view_equals_buffers_view(path: Path) -> None:
    from tidl_io.data.buffers import alloc_input, view

    desc = tidl_io.load(path)
    for i, t in enumerate(desc.inputs):
        buf = alloc_input(desc, i)
        buf[:] = np.arange(buf.size) % 251
        np.testing.assert_array_equal(t.geometry.view(buf), view(t, buf))


def test_unknown_element_type_keeps_offsets_but_has_no_geometry() -> None:
    desc = tidl_io.make_descriptor("10.x", inputs=[{"width": 4, "height": 2, "num_channels": 1, "channel_pitch": 8,
                                                    "num_batches": 1, "dim1": 1, "dim2": 1,
                                                    "element_type": 42}])
    t = desc.inputs[0]
    assert t.strides == (8, 8, 8, 8, 4, 1) and t.required_size == 8
    with pytest.raises(tidl_io.GeometryError, match="element type"):
        t.geometry  # noqa: B018


# ---- padding blocks and overlap -----------------------------------------------------------

def _random_pitched(seed: int) -> BufferGeometry:
    rng = np.random.default_rng(3000 + seed)
    case = _random_case(rng)
    _, _, _, c, h, w = case["shape"]
    line = (w + case["pad_l"] + case["pad_r"]) * (c if case["nhwc"] else 1)
    plane = line * (h + case["pad_t"] + case["pad_b"])
    chp = max(1, plane + int(rng.integers(-line - 2, 3)))  # sometimes inside the previous plane's pads
    return BufferGeometry.planar(case["shape"], pad_l=case["pad_l"], pad_t=case["pad_t"], pad_r=case["pad_r"],
                                 pad_b=case["pad_b"], channel_pitch=chp, pad_ch=case["pad_ch"], nhwc=case["nhwc"],
                                 itemsize=8)


@pytest.mark.parametrize("seed", range(80))
def test_gaps_are_exactly_the_complement_of_the_valid_region(seed: int) -> None:
    g = _random_pitched(seed)
    offsets = g.view(np.arange(g.required_size, dtype=np.int64)).ravel()
    duplicates = offsets.size != np.unique(offsets).size
    if duplicates:  # two valid elements at one address: overlap() must say so
        assert g.overlap() is not None
    if g.overlap() is not None:
        return
    span = g.required_size + seed % 5
    valid = np.zeros(span, bool)
    valid[offsets] = True
    seen = np.zeros(span, np.int64)
    for start, shape, strides in g.gaps(span):
        idx = start + sum(np.indices(shape)[k] * s for k, s in enumerate(strides))
        flat = idx.ravel()
        assert (np.diff(flat) > 0).all()  # ascending address order within a block
        np.add.at(seen, flat, 1)
    np.testing.assert_array_equal(seen, (~valid).astype(np.int64))  # every pad element once, nothing else


def test_overlap_names_the_axis() -> None:
    # (C, H, W) = (2, 3, 4) with a channel pitch of 5: plane 1 starts inside plane 0's valid rows
    g = BufferGeometry.planar((1, 2, 3, 4), channel_pitch=5)
    assert g.overlap() == (3, 5, 2 * 4 + 3 + 1)  # axis C, its step, the 12 elements H and W span
    assert BufferGeometry.planar((1, 2, 3, 4), channel_pitch=12).overlap() is None
    assert g.view(np.arange(g.required_size, dtype=np.uint8))[0, 0, 0, 1, 0, 0] == 5
