"""Independent oracles shared by the runtime tests (mock, datamove, protocol, TIDL-RT).

Buffer indices from the spec §4 formula written out here, quantization and dequantization
from spec §5 (``q = saturate(trunc(x * scale + zp))`` for inputs as pack writes them,
``float32(q - zp) / float32(scale)`` for reads, ``rint(y * scale + zp)`` saturated for the
device's output store), and a deterministic test model."""

from __future__ import annotations

import struct
import sys

import numpy as np

import tidl_io
from tidl_io.runtime import poison_value

from conftest import ROOT, corpus

sys.path.insert(0, str(ROOT / "tools"))
from make_fixture import descriptor_from_spec


def valid_index(t) -> np.ndarray:
    """Flat buffer index of every valid element, C order over (N, DIM1, DIM2, C, H, W),
    from the spec's formula and the raw fields only."""
    n, d1, d2, c, h, w = (t.num_batches, t.dim1, t.dim2, t.num_channels, t.height, t.width)
    line = t.width + t.pad_l + t.pad_r
    dim2_pitch = t.channel_pitch * (c + t.pad_ch)
    dim1_pitch = dim2_pitch * d2
    batch_pitch = dim1_pitch * d1
    def ax(k: int, size: int) -> np.ndarray:  # arange along axis k of 6, broadcastable
        shape = [1] * 6
        shape[k] = size
        return np.arange(size, dtype=np.int64).reshape(shape)

    N, D1, D2, C, H, W = (ax(k, size) for k, size in enumerate((n, d1, d2, c, h, w)))
    base = N * batch_pitch + D1 * dim1_pitch + D2 * dim2_pitch
    if t.layout_code == 1:  # NHWC: channel step 1, pixel step C, line step C * line
        idx = base + (t.pad_t + H) * line * c + (t.pad_l + W) * c + C
    else:
        idx = base + C * t.channel_pitch + (t.pad_t + H) * line + t.pad_l + W
    return idx.ravel()


def pad_mask(t, size: int) -> np.ndarray:
    m = np.ones(size, bool)
    m[valid_index(t)] = False
    return m


def q_in(t, x: np.ndarray) -> np.ndarray:
    """Spec §5 input quantization as pack does it: trunc(x * scale + zp), saturated."""
    dt = t.dtype
    if dt.kind == "f":
        return x.astype(dt)
    info = np.iinfo(dt)
    return np.clip(np.trunc(x * t.scale + t.zero_point), info.min, info.max).astype(dt)


def deq(t, q: np.ndarray) -> np.ndarray:
    if t.dtype.kind == "f":
        return q.astype(np.float64)
    return ((q.astype(np.float64) - t.zero_point).astype(np.float32) / np.float32(t.scale)).astype(np.float64)


def q_out(t, y: np.ndarray) -> np.ndarray:
    dt = t.dtype
    if dt.kind == "f":
        return y.astype(dt)
    info = np.iinfo(dt)
    return np.clip(np.rint(y * t.scale + t.zero_point), info.min, info.max).astype(dt)


def test_model(desc):
    """The test's own deterministic model: output j = mean of all inputs + a ramp inside
    the output's range. Records what it was fed."""
    seen = {}

    def model(feeds):
        seen.clear()
        seen.update({k: np.array(v) for k, v in feeds.items()})
        m = float(np.mean([v.mean() for v in feeds.values()])) if feeds else 0.0
        out = {}
        for j, o in enumerate(desc.outputs):
            if o.dtype.kind == "f":
                lo, hi = -5.0, 5.0
            else:
                info = np.iinfo(o.dtype)
                lo = max((info.min - o.zero_point) / o.scale, -5.0)
                hi = min((info.max - o.zero_point) / o.scale, 5.0)
            k = np.arange(o.size)
            y = lo + (hi - lo) * (((k * 7 + j) % 23) / 23.0) + 0.01 * np.tanh(m)
            out[o.name] = y.reshape(tidl_io.runtime.models.model_shape(o))
        return out

    return model, seen


test_model.__test__ = False  # not a pytest test


def fill_inputs(desc, bufs, seed: int) -> dict[str, np.ndarray]:
    """Random real values, quantized by the oracle and written at the oracle's indices."""
    rng = np.random.default_rng(seed)
    codes = {}
    for t in desc.inputs:
        if t.dtype.kind == "f":
            x = rng.normal(size=t.size)
        else:
            info = np.iinfo(t.dtype)
            lo, hi = (info.min - t.zero_point) / t.scale, (info.max - t.zero_point) / t.scale
            x = rng.uniform(lo - 0.1 * (hi - lo), hi + 0.1 * (hi - lo), size=t.size)  # some saturate
        q = q_in(t, x)
        bufs[t.name][valid_index(t)] = q
        codes[t.name] = q
    return codes


def check_outputs(desc, model_oracle, seen, codes, out_bufs, poison: bool = True) -> None:
    for t in desc.inputs:  # the model saw dequantize(quantize(x))
        np.testing.assert_array_equal(seen[t.name].ravel(), deq(t, codes[t.name]))
    expect = model_oracle({t.name: deq(t, codes[t.name]).reshape(tidl_io.runtime.models.model_shape(t))
                           for t in desc.inputs})
    for t in desc.outputs:
        buf = out_bufs[t.name]
        got = buf[valid_index(t)]
        want = q_out(t, np.asarray(expect[t.name], np.float64).ravel())
        np.testing.assert_array_equal(got, want, err_msg=t.label)
        if poison:
            bits = buf.view(f"u{buf.itemsize}")[pad_mask(t, buf.size)]
            pv = np.array([poison_value(t.dtype)]).view(f"u{buf.itemsize}")[0]
            assert (bits == pv).all(), f"{t.label}: a pad element is not poison"




def _small(family="10.x", inputs=(), outputs=()):
    return descriptor_from_spec({"family": family, "inputs": list(inputs), "outputs": list(outputs)})


PADDED = dict(inDataName="img", inWidth=7, inHeight=5, inNumChannels=3, inPadL=1, inPadT=1, inPadB=2,
              inChannelPitch=(5 + 2) * 8 + 1, inElementType=0)
PADDED_OUT = dict(outDataName="feat", outWidth=4, outHeight=3, outNumChannels=5, outPadL=1, outPadT=1, outPadB=2,
                  outPadCh=2, outElementType=1, outTensorScale=16.0)


def _capture(desc):
    seen = {}

    def model(feeds):
        seen.update({k: np.array(v) for k, v in feeds.items()})
        return {o.name: np.zeros(tidl_io.runtime.models.model_shape(o)) for o in desc.outputs}

    return model, seen


# ---- TIDL-RT stand-in helpers ------------------------------------------------------------------

NET_WORD = {"T4P-b": 0x20211201, "T4P-c": 0x20230208, "T6P-d": 0x20250821}
IO_FAMILY = {"T4P-a": "8.x", "T4P-b": "8.x", "T4P-c": "8.x", "T6P-d": "10.x"}


def net_for(family: str) -> bytes:
    return struct.pack("<I", NET_WORD.get(family, 0x20230208)) + bytes(60)


def descs_for(family: str) -> list:
    out = []
    for p in corpus():
        d = tidl_io.load(p)
        if d.family == IO_FAMILY[family]:  # 11.x containers too: TIDL-RT takes them whole
            out.append(d)
    return out
