"""reorg / reorg_inverse against literal per-element loops: a port of darknet's reorg_cpu
(blas.c), the ONNX SpaceToDepth (DCR) and PyTorch pixel_unshuffle (CRD) index formulas, and the
worked example printed in TensorRT's reorgPlugin README."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tidl_io.base.errors import ArgumentTypeError, BufferMismatchError, GeometryError, OptionError
from tidl_io.data.reorg import MODES, reorg, reorg_inverse

# Every test here runs on the NumPy path and again on the native kernels.
pytestmark = pytest.mark.usefixtures("both_paths")

# TensorRT reorgPlugin README: input arange(288) as [2, 4, 6, 6], stride 2 -> this [2, 16, 3, 3]
# output, copied from the README (one channel of 3 x 3 per line).
TRT_EXAMPLE_OUTPUT = """
      0   2   4   6   8  10  24  26  28
     30  32  34  48  50  52  54  56  58
     72  74  76  78  80  82  96  98 100
    102 104 106 120 122 124 126 128 130
      1   3   5   7   9  11  25  27  29
     31  33  35  49  51  53  55  57  59
     73  75  77  79  81  83  97  99 101
    103 105 107 121 123 125 127 129 131
     12  14  16  18  20  22  36  38  40
     42  44  46  60  62  64  66  68  70
     84  86  88  90  92  94 108 110 112
    114 116 118 132 134 136 138 140 142
     13  15  17  19  21  23  37  39  41
     43  45  47  61  63  65  67  69  71
     85  87  89  91  93  95 109 111 113
    115 117 119 133 135 137 139 141 143
    144 146 148 150 152 154 168 170 172
    174 176 178 192 194 196 198 200 202
    216 218 220 222 224 226 240 242 244
    246 248 250 264 266 268 270 272 274
    145 147 149 151 153 155 169 171 173
    175 177 179 193 195 197 199 201 203
    217 219 221 223 225 227 241 243 245
    247 249 251 265 267 269 271 273 275
    156 158 160 162 164 166 180 182 184
    186 188 190 204 206 208 210 212 214
    228 230 232 234 236 238 252 254 256
    258 260 262 276 278 280 282 284 286
    157 159 161 163 165 167 181 183 185
    187 189 191 205 207 209 211 213 215
    229 231 233 235 237 239 253 255 257
    259 261 263 277 279 281 283 285 287
"""


def test_tensorrt_worked_example() -> None:
    expected = np.array(TRT_EXAMPLE_OUTPUT.split(), dtype=np.int64).reshape(2, 16, 3, 3)
    x = np.arange(288).reshape(2, 4, 6, 6)
    np.testing.assert_array_equal(reorg(x, 2), expected)
    np.testing.assert_array_equal(reorg(x, 2, mode="darknet"), expected)
    np.testing.assert_array_equal(reorg_inverse(expected, 2), x)


def darknet_reorg_cpu(x: list, w: int, h: int, c: int, batch: int, stride: int, forward: int) -> list:
    """darknet src/blas.c reorg_cpu, line by line. forward_reorg_layer calls it with forward=0 and
    the layer's INPUT w, h, c."""
    out = [None] * len(x)
    out_c = c // (stride * stride)
    for b in range(batch):
        for k in range(c):
            for j in range(h):
                for i in range(w):
                    in_index = i + w * (j + h * (k + c * b))
                    c2 = k % out_c
                    offset = k // out_c
                    w2 = i * stride + offset % stride
                    h2 = j * stride + offset // stride
                    out_index = w2 + w * stride * (h2 + h * stride * (c2 + out_c * b))
                    if forward:
                        out[out_index] = x[in_index]
                    else:
                        out[in_index] = x[out_index]
    return out


def space_to_depth_loop(x: np.ndarray, s: int, mode: str) -> np.ndarray:
    """The spec table: input element (c, h*s + ph, w*s + pw) goes to output channel
    (ph*s + pw)*C + c (DCR) or c*s*s + ph*s + pw (CRD)."""
    n, c, h, w = x.shape
    y = np.zeros((n, c * s * s, h // s, w // s), x.dtype)
    for b, ch, row, col in itertools.product(range(n), range(c), range(h), range(w)):
        ph, pw = row % s, col % s
        oc = (ph * s + pw) * c + ch if mode == "dcr" else ch * s * s + ph * s + pw
        y[b, oc, row // s, col // s] = x[b, ch, row, col]
    return y


def depth_to_space_loop(y: np.ndarray, s: int, mode: str) -> np.ndarray:
    n, cy, h, w = y.shape
    c = cy // (s * s)
    x = np.zeros((n, c, h * s, w * s), y.dtype)
    for b, ch, row, col in itertools.product(range(n), range(c), range(h * s), range(w * s)):
        ph, pw = row % s, col % s
        ic = (ph * s + pw) * c + ch if mode == "dcr" else ch * s * s + ph * s + pw
        x[b, ch, row, col] = y[b, ic, row // s, col // s]
    return x


def _cases(seed: int, darknet: bool):
    rng = np.random.default_rng(seed)
    dtypes = ["u1", "i2", "f4", "f8", "c8", "?"]
    for s in (2, 3):
        for _ in range(5):
            n = int(rng.integers(1, 3))
            c = int(rng.integers(1, 4)) * (s * s if darknet else 1)
            h, w = s * int(rng.integers(1, 4)), s * int(rng.integers(1, 4))
            dtype = dtypes[int(rng.integers(0, len(dtypes)))]
            yield s, rng.integers(0, 100, size=(n, c, h, w)).astype(dtype)


def test_darknet_equals_reorg_cpu() -> None:
    for s, x in _cases(1, darknet=True):
        n, c, h, w = x.shape
        y = reorg(x, s)                                           # darknet is the default
        assert y.shape == (n, c * s * s, h // s, w // s) and y.dtype == x.dtype
        expected = darknet_reorg_cpu(x.ravel().tolist(), w, h, c, n, s, forward=0)
        assert y.ravel().tolist() == expected
        back = darknet_reorg_cpu(y.ravel().tolist(), w, h, c, n, s, forward=1)
        assert reorg_inverse(y, s).ravel().tolist() == back == x.ravel().tolist()


@pytest.mark.parametrize("mode", ["dcr", "crd"])
def test_dcr_and_crd_equal_their_index_formulas(mode: str) -> None:
    for s, x in _cases(2, darknet=False):
        y = reorg(x, s, mode=mode)
        np.testing.assert_array_equal(y, space_to_depth_loop(x, s, mode))
        np.testing.assert_array_equal(reorg_inverse(y, s, mode=mode), x)
        z = np.random.default_rng(s).integers(0, 9, size=y.shape).astype(x.dtype)
        np.testing.assert_array_equal(reorg_inverse(z, s, mode=mode), depth_to_space_loop(z, s, mode))


def test_conventions_differ() -> None:
    x = np.arange(2 * 8 * 4 * 4).reshape(2, 8, 4, 4)
    ys = [reorg(x, 2, mode=m) for m in MODES]
    assert all(not np.array_equal(a, b) for a, b in itertools.combinations(ys, 2))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["u1", "i2", "f4", "f8"])
def test_round_trips_on_medium_arrays(mode: str, dtype: str) -> None:
    """Sizes above the in-cache threshold go through the blocked kernels (lane casts for s = 2)."""
    rng = np.random.default_rng(4)
    for s, shape in ((2, (2, 64, 96, 96)), (3, (1, 36, 90, 99))):
        x = rng.integers(0, 250, size=shape).astype(dtype)
        n, c, h, w = shape
        y = reorg(x, s, mode=mode)
        if mode == "darknet":      # the spec's closed form, run by NumPy
            ref = x.reshape(n, c // (s * s), h, s, w, s).transpose(0, 3, 5, 1, 2, 4)
        elif mode == "dcr":
            ref = x.reshape(n, c, h // s, s, w // s, s).transpose(0, 3, 5, 1, 2, 4)
        else:
            ref = x.reshape(n, c, h // s, s, w // s, s).transpose(0, 1, 3, 5, 2, 4)
        np.testing.assert_array_equal(y, ref.reshape(y.shape))
        np.testing.assert_array_equal(reorg_inverse(y, s, mode=mode), x)


@pytest.mark.parametrize("mode", MODES)
def test_out_strided_into_padded_buffer(mode: str) -> None:
    x = np.random.default_rng(3).integers(0, 200, size=(2, 8, 6, 4)).astype(np.float32)
    expected = reorg(x, 2, mode=mode)
    buf = np.full((2, 32 + 2, 3 + 1, 2 + 3), -1, np.float32)
    view = buf[:, 1:33, :3, 2:4]
    assert reorg(x, 2, mode=mode, out=view) is view
    np.testing.assert_array_equal(view, expected)
    assert (buf == -1).sum() == buf.size - view.size                  # padding left alone
    back = np.full((2, 8 + 1, 6, 4 + 2), -1, np.float32)[:, 1:, :, 1:5]
    assert reorg_inverse(expected, 2, mode=mode, out=back) is back
    np.testing.assert_array_equal(back, x)


def test_non_contiguous_input_and_stride_one() -> None:
    x = np.arange(2 * 8 * 8 * 8, dtype=np.int32).reshape(2, 8, 8, 8)[:, ::-1, :, ::1]
    for mode in MODES:
        np.testing.assert_array_equal(reorg(x, 2, mode=mode), reorg(np.ascontiguousarray(x), 2, mode=mode))
    y = reorg(x, 1)
    np.testing.assert_array_equal(y, x)
    assert not np.shares_memory(x, y)                                 # a copy, never a view


@pytest.mark.parametrize("shape,stride,mode,error,words", [
    ((1, 4, 5, 4), 2, "darknet", GeometryError, ["(1, 4, 5, 4)", "stride 2", "height 5"]),
    ((1, 4, 4, 7), 2, "dcr", GeometryError, ["(1, 4, 4, 7)", "width 7"]),
    ((1, 6, 4, 4), 2, "darknet", GeometryError, ["(1, 6, 4, 4)", "channels 6", "stride² = 4"]),
    ((1, 4, 4), 2, "darknet", GeometryError, ["(1, 4, 4)", "4-D"]),
    ((1, 4, 4, 4), 0, "darknet", OptionError, ["reorg: stride must be >= 1, found 0"]),
    ((1, 4, 4, 4), 2.0, "darknet", ArgumentTypeError, ["reorg: stride: expected an integer >= 1, found float 2.0"]),
    ((1, 4, 4, 4), True, "darknet", ArgumentTypeError, ["reorg: stride: ", "found True"]),
    ((1, 4, 4, 4), 2, "nchw", OptionError, ["reorg: mode must be one of 'darknet', 'dcr', 'crd', found 'nchw'"]),
])
def test_reorg_errors(shape, stride, mode, error, words) -> None:
    with pytest.raises(error) as err:
        reorg(np.zeros(shape), stride, mode=mode)
    assert isinstance(err.value, ValueError if error is not ArgumentTypeError else TypeError)
    for w in words:
        assert w in str(err.value)


def test_dcr_accepts_channels_not_multiple_of_s2() -> None:
    x = np.arange(3 * 16).reshape(1, 3, 4, 4)
    assert reorg(x, 2, mode="dcr").shape == reorg(x, 2, mode="crd").shape == (1, 12, 2, 2)


@pytest.mark.parametrize("shape,mode,words", [
    ((1, 8, 2, 2), "darknet", ["(1, 8, 2, 2)", "channels 8", "stride⁴ = 16"]),
    ((1, 6, 2, 2), "dcr", ["channels 6", "stride² = 4"]),
])
def test_inverse_errors(shape, mode, words) -> None:
    with pytest.raises(GeometryError) as err:
        reorg_inverse(np.zeros(shape), 2, mode=mode)
    for w in words:
        assert w in str(err.value)


def test_out_errors() -> None:
    x = np.zeros((1, 4, 4, 4), np.float32)
    with pytest.raises(BufferMismatchError, match=r"out has shape \(1, 16, 2, 3\), expected \(1, 16, 2, 2\)"):
        reorg(x, 2, out=np.zeros((1, 16, 2, 3), np.float32))
    with pytest.raises(BufferMismatchError, match="float64"):
        reorg(x, 2, out=np.zeros((1, 16, 2, 2), np.float64))
    with pytest.raises(BufferMismatchError, match="expected"):
        reorg_inverse(np.zeros((1, 16, 2, 2)), 2, out=np.zeros((1, 4, 4, 5)))
