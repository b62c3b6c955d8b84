"""The TIDL-RT C stand-in (tests/tidlrt_standin) on its own, through plain ctypes calls.

Structs, io bytes and geometry come from tests/tidlrt_standin/client.py, written from the spec's
offsets (tidlrt.md §2/§4b, iobufdesc.md §2/§4), not from tidl_io; expected values are NumPy
oracles of TIDL-RT's rules (spec §4, TI 11.01 tidl_rt_ovx_datamove.cpp as the spec describes it).
"""

from __future__ import annotations

import ctypes
import struct

import numpy as np
import pytest
from tidlrt_standin.client import FAMILIES, PARAMS, PerfStats, Standin, Tensor4, Tensor6, TSpec, pack_io

from conftest import STANDIN_FAMILIES

GUARD = 0xCD
FLT_MAX = struct.pack("<f", np.finfo(np.float32).max)


@pytest.fixture(scope="module")
def libs(tidlrt_standin):
    return {f: Standin(tidlrt_standin(f), f) for f in STANDIN_FAMILIES}


def _io(family: str, inputs: list[TSpec], outputs: list[TSpec]) -> bytes:
    for t in outputs:
        t.kind = "output"
    return pack_io(FAMILIES[family].io, inputs, outputs)


# ---- layouts and defaults (the fingerprint) ------------------------------------------------------

def test_client_structs_match_the_spec_offsets():
    assert ctypes.sizeof(PerfStats) == 48
    assert (ctypes.sizeof(Tensor4), Tensor4.ptr.offset, Tensor4.memType.offset) == (600, 568, 592)
    assert (ctypes.sizeof(Tensor6), Tensor6.ptr.offset, Tensor6.bufferSize.offset) == (616, 584, 612)
    assert (Tensor6.dimValues.offset, Tensor6.pitch.offset, Tensor6.padValues.offset) == (520, 544, 564)


def _expected_params(family: str) -> tuple[bytearray, int]:
    """The guard-filled block after setParamsDefault, and the offset of TIDLVprintf."""
    b = bytearray([GUARD]) * 4096
    i32, f32 = (lambda v: struct.pack("<i", v)), (lambda v: struct.pack("<f", v))
    params = FAMILIES[family].params
    if params == "P-d":
        writes = {0: bytes(16), 16: bytes(8), 36: i32(0), 40: f32(1.0), 44: f32(0.0), 48: i32(0), 52: FLT_MAX,
                  56: i32(1), 60: i32(1), 72: bytes(8), 80: b"/tmp/tidl_trace\0", 1104: b"/dev/shm\0",
                  1616: bytes(8), 1632: bytes(16)}
        vprintf = 1624
    else:
        writes = {0: bytes(16), 16: bytes(8), 24: bytes(12), 40: bytes(8), 48: f32(1.0), 52: f32(0.0)}
        if params == "P-a":
            writes.update({64: bytes(24)})
            vprintf = 56
        else:
            writes.update({56: FLT_MAX, 72: bytes(24), 96: i32(0)})
            vprintf = 64
            if params == "P-c":
                writes[100] = i32(1)
    for off, data in writes.items():
        b[off:off + len(data)] = data
    return b, vprintf


@pytest.mark.parametrize("family", STANDIN_FAMILIES)
def test_set_params_default_writes_exactly_the_spec_defaults(libs, family):
    block = ctypes.create_string_buffer(bytes([GUARD]) * 4096, 4096)
    assert libs[family].lib.TIDLRT_setParamsDefault(block) == 0
    got = bytearray(block.raw)
    expected, vprintf = _expected_params(family)
    assert struct.unpack_from("<Q", got, vprintf)[0] not in (0, 0xCDCDCDCDCDCDCDCD)  # vprintf
    got[vprintf:vprintf + 8] = expected[vprintf:vprintf + 8]
    changed = [i for i in range(4096) if got[i] != expected[i]]
    assert not changed, f"{family}: bytes differ from the spec defaults at {changed[:16]}"
    assert max(i for i in range(4096) if got[i] != GUARD) < PARAMS[FAMILIES[family].params][0]


@pytest.mark.parametrize("family", STANDIN_FAMILIES)
def test_set_tensor_default_writes_exactly_the_spec_defaults(libs, family):
    block = ctypes.create_string_buffer(bytes([GUARD]) * 1024, 1024)
    assert libs[family].lib.TIDLRT_setTensorDefault(block) == 0
    expected = bytearray([GUARD]) * 1024
    i32 = [struct.pack("<i", v) for v in (0, -1)]
    if FAMILIES[family].dims == 6:  # N, DIM1, DIM2, C, H, W at 520; ROI, DIM1, DIM2, CH, LINE at 544
        writes = {512: bytes(8), 520: i32[1], 532: i32[1] * 3, 544: i32[1], 556: i32[1], 564: bytes(16),
                  584: bytes(8), 592: bytes(12), 604: struct.pack("<f", 1.0), 608: i32[0], 612: i32[1]}
    else:  # N, C, H, W at 520; ROI, CH, LINE at 536
        writes = {512: bytes(8), 520: i32[1] * 4, 536: i32[1] * 2, 548: bytes(16), 568: bytes(8), 576: bytes(12),
                  588: struct.pack("<f", 1.0), 592: i32[0]}
    for off, data in writes.items():
        expected[off:off + len(data)] = data
    changed = [i for i in range(1024) if block.raw[i] != expected[i]]
    assert not changed, f"{family}: tensor defaults differ at {changed[:16]}"


@pytest.mark.parametrize("family,variant", [(f, v) for f in STANDIN_FAMILIES for v in ("", "no-shared")])
def test_older_libraries_lack_the_shared_memory_functions(tidlrt_standin, family, variant):
    lib = ctypes.CDLL(str(tidlrt_standin(family, variant=variant)))
    shared = variant == "" and family != "T4P-a"
    for name in ("TIDLRT_allocSharedMem", "TIDLRT_freeSharedMem", "TIDLRT_isSharedMem"):
        assert hasattr(lib, name) == shared, name
    assert hasattr(lib, "TIDLRT_getDdrStats") == (variant == "")
    for name in ("TIDLRT_create", "TIDLRT_invoke", "TIDLRT_delete", "TIDLRT_deactivate", "TIDLRT_setParamsDefault",
                 "TIDLRT_setTensorDefault"):
        assert hasattr(lib, name), name


# ---- create ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("family", STANDIN_FAMILIES)
def test_create_refuses_inconsistent_params(libs, family):
    s = libs[family]
    io = _io(family, [TSpec("x", c=3, h=4, w=5)], [TSpec("y", c=3, h=4, w=5)])
    status, handle, _ = s.create(io)
    assert status == 0 and handle
    assert s.lib.TIDLRT_deactivate(handle) == 0
    assert s.delete(handle) == 0
    assert s.delete(handle) < 0 and "unknown handle" in s.error
    assert s.lib.TIDLRT_create(None, None) < 0
    assert s.create(io, net=b"\x01\x02")[0] < 0 and "network" in s.error
    status, _, _ = s.create(io, io_capacity=len(io) - 4)
    assert status < 0 and "Config file size" in s.error
    other = _io("T6P-d" if FAMILIES[family].io == "8x" else "T4P-c", [TSpec("x", c=3)], [TSpec("y", c=3)])
    assert s.create(other)[0] < 0 and "does not match" in s.error
    bad = _io(family, [TSpec("x", c=3, h=0, w=5)], [TSpec("y", c=3, h=4, w=5)])
    assert s.create(bad)[0] < 0 and "must be >= 1" in s.error
    bad = _io(family, [TSpec("x", c=3, h=4, w=5, etype=9)], [TSpec("y", c=3, h=4, w=5)])
    assert s.create(bad)[0] < 0 and "element type 9" in s.error
    bad = _io(family, [TSpec("x", c=3, h=4, w=5, etype=1, scale=0.0)], [TSpec("y", c=3, h=4, w=5)])
    assert s.create(bad)[0] < 0 and "scale" in s.error


def test_create_accepts_the_11x_container_and_refuses_a_bad_one(libs):
    s = libs["T6P-d"]
    one = _io("T6P-d", [TSpec("x", c=2, h=3, w=4)], [TSpec("y", c=2, h=3, w=4)])
    n = 2
    container = one + struct.pack("<II", 0xFF00FF00, n) + b"".join(
        struct.pack("<4I", len(one) + 8 + 16 * n + i * len(one), len(one), 0, 0) for i in range(n)) + one * n
    status, handle, _ = s.create(container)
    assert status == 0, s.error
    s.delete(handle)
    broken = bytearray(container)
    broken[len(one):len(one) + 4] = bytes(4)
    assert s.create(bytes(broken))[0] < 0 and "container" in s.error


# ---- shared memory ----------------------------------------------------------------------------

def test_shared_memory_is_dirty_aligned_and_tracked(libs):
    s = libs["T6P-d"]
    blocks = [s.shared(n, 64) for n in (1, 100, 4096)]
    for b in blocks:
        assert b.ctypes.data % 64 == 0
        assert np.count_nonzero(b) == b.size, "shared memory must not come zeroed (like malloc)"
        assert s.lib.TIDLRT_isSharedMem(ctypes.c_void_p(b.ctypes.data + b.size - 1)) == 1
    big = blocks[2]
    assert s.lib.TIDLRT_isSharedMem(ctypes.c_void_p(big.ctypes.data + big.size)) in (0, 1)  # may touch a neighbour
    plain = np.zeros(64, np.uint8)
    assert s.lib.TIDLRT_isSharedMem(ctypes.c_void_p(plain.ctypes.data)) == 0
    address = big.ctypes.data
    for b in blocks:
        s.free(b)
    assert s.lib.TIDLRT_isSharedMem(ctypes.c_void_p(address)) == 0
    assert s.lib.TIDLRT_allocSharedMem(3, 16) is None and "power of two" in s.error


def test_shared_memory_table_holds_128_blocks(libs):
    s = libs["T4P-c"]
    ptrs = [s.lib.TIDLRT_allocSharedMem(16, 8) for _ in range(128)]
    assert all(ptrs)
    assert s.lib.TIDLRT_allocSharedMem(16, 8) is None and "128" in s.error
    for p in ptrs:
        s.lib.TIDLRT_freeSharedMem(ctypes.c_void_p(p))
    p = s.lib.TIDLRT_allocSharedMem(16, 8)
    assert p
    s.lib.TIDLRT_freeSharedMem(ctypes.c_void_p(p))


# ---- invoke: the zero-copy rule and the paths -----------------------------------------------------

IN = TSpec("in", c=3, h=4, w=5, pads=(1, 1, 0, 2), etype=1, zp=0, scale=16.0)
OUT = TSpec("out", c=3, h=4, w=5, pads=(1, 1, 0, 2), etype=6, kind="output")


def _runtime(s: Standin, family: str, inputs: list[TSpec], outputs: list[TSpec]):
    status, handle, keep = s.create(_io(family, inputs, outputs))
    assert status == 0, s.error
    return handle, keep


def _buffer(s: Standin, spec: TSpec, shared: bool, fill: int = 0) -> np.ndarray:
    nbytes = spec.alloc * spec.dtype.itemsize
    raw = s.shared(nbytes) if shared else np.empty(nbytes, np.uint8)
    raw[:] = fill
    return raw.view(spec.dtype)


# (tensor changes, input path) for a shared input with the descriptor's own properties otherwise
ZERO_COPY_CASES = [
    ({}, "zero-copy"),
    ({"mem_type": 0}, "memcpy"),
    ({"scale": 8.0}, "reformat"),
    ({"zp": 1}, "reformat"),
    ({"etype": 0}, "reformat"),
    ({"ch_pitch": 20}, "reformat"),  # a dense tensor: W*H, the descriptor's pitch is 42
    ({"layout": 1}, "reformat"),
    ({"ch_pitch": -1}, "reformat"),  # -1 means W*H = 20, the descriptor's pitch is 42
    ({"buffer_size": -1}, "zero-copy"),
    ({"buffer_size": 10**6}, "zero-copy"),
    ({"buffer_size": "desc-1"}, "reformat"),
]


@pytest.mark.parametrize("family,changes,path", [
    pytest.param(f, c, p, id=f"{f}-{c}") for f in ("T4P-c", "T6P-d") for c, p in ZERO_COPY_CASES
    if f == "T6P-d" or "buffer_size" not in c])  # T4 has no bufferSize
def test_zero_copy_rule(libs, family, changes, path):
    s = libs[family]
    handle, _keep = _runtime(s, family, [IN], [OUT])
    x, y = _buffer(s, IN, True), _buffer(s, OUT, True)
    x[IN.valid_index()] = np.arange(IN.size) % 100
    kw = dict(changes)
    mem = kw.pop("mem_type", 1)
    if kw.get("buffer_size") == "desc-1":
        kw["buffer_size"] = IN.bufsize - 1
    dense = path == "reformat"
    if dense:  # a converted tensor is read as dense: hand a dense one
        xd = s.shared(IN.size * (1 if kw.get("etype", 1) < 2 else 4)).view(np.uint8 if kw.get("etype") == 0 else np.int8)
        logical = (np.arange(IN.size) % 100).reshape(1, 3, 4, 5)
        xd[:] = logical.transpose(0, 2, 3, 1).reshape(-1) if kw.get("layout") == 1 else logical.reshape(-1)
        t_in = s.tensor(IN, xd, mem_type=mem, dense=True, **kw)
    else:
        t_in = s.tensor(IN, x, mem_type=mem, **kw)
    t_out = s.tensor(OUT, y, mem_type=1)
    assert s.invoke(handle, [t_in], [t_out]) == 0, s.error
    assert s.paths(handle, 1, 1) == ([path], ["zero-copy"])
    scale = np.float32(kw.get("scale", 16.0))
    codes = (np.arange(IN.size) % 100).astype(np.float32)
    if path == "reformat" and kw.get("etype") != 0:  # int8 user codes converted into the descriptor's int8
        codes = codes - np.float32(kw.get("zp", 0))
        codes = np.trunc(np.clip(codes * np.float32(np.float32(16.0) / scale), -128, 127)).astype(np.float32)
    np.testing.assert_array_equal(y[OUT.valid_index()], codes / np.float32(16.0))
    s.delete(handle)


def test_channel_pitch_and_layout_are_not_compared_for_one_channel(libs):
    s = libs["T6P-d"]
    one_in = TSpec("in", c=1, h=3, w=4, pads=(1, 1, 1, 1), etype=0)
    one_out = TSpec("out", c=1, h=3, w=4, pads=(1, 1, 1, 1), etype=0, kind="output")
    handle, _keep = _runtime(s, "T6P-d", [one_in], [one_out])
    x, y = _buffer(s, one_in, True), _buffer(s, one_out, True)
    x[one_in.valid_index()] = np.arange(12)
    t_in = s.tensor(one_in, x, mem_type=1, ch_pitch=-1, layout=1)
    assert s.invoke(handle, [t_in], [s.tensor(one_out, y, mem_type=1)]) == 0, s.error
    assert s.paths(handle, 1, 1) == (["zero-copy"], ["zero-copy"])
    np.testing.assert_array_equal(y[one_out.valid_index()], np.arange(12))


@pytest.mark.parametrize("family", ["T4P-b", "T6P-d"])
def test_memcpy_moves_n_c_channel_pitch_elements_and_output_pads_are_poisoned(libs, family):
    s = libs[family]
    spec_out = TSpec("out", c=2, h=2, w=3, pads=(1, 1, 1, 1), pad_ch=3, etype=3, scale=4.0, kind="output")
    spec_in = TSpec("in", c=2, h=2, w=3, pads=(1, 1, 1, 1), etype=3, scale=4.0)
    handle, _keep = _runtime(s, family, [spec_in], [spec_out])
    x = _buffer(s, spec_in, False)
    x[spec_in.valid_index()] = np.arange(-6, 6)
    y = _buffer(s, spec_out, False, fill=0x11)
    assert s.invoke(handle, [s.tensor(spec_in, x, mem_type=0)], [s.tensor(spec_out, y, mem_type=0)]) == 0, s.error
    assert s.paths(handle, 1, 1) == (["memcpy"], ["memcpy"])
    n = min(2 * spec_out.cp, spec_out.bufsize)
    valid = np.zeros(spec_out.alloc, bool)
    valid[spec_out.valid_index()] = True
    np.testing.assert_array_equal(y[spec_out.valid_index()], np.arange(-6, 6))
    assert (y[:n][~valid[:n]].view(np.uint16) == 0xA5A5).all()
    assert (y[n:].view(np.uint16) == 0x1111).all(), "beyond N*C*chPitch TIDL-RT copies nothing"


# ---- conversions against NumPy oracles ---------------------------------------------------------

def _sat(v: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """TIDL-RT's tidl_rt_sat: clamp in float, C cast (truncation); NaN -> 0."""
    if dtype.kind == "f":
        lim = np.finfo(np.float32).max
        return np.clip(v, -lim, lim).astype(dtype)
    info = np.iinfo(dtype)
    d = np.nan_to_num(v.astype(np.float64), nan=0.0)
    return np.trunc(np.clip(d, info.min, info.max)).astype(dtype)


@pytest.mark.parametrize("seed", range(6))
def test_input_conversion_matches_tidlrt_formula(libs, seed):
    rng = np.random.default_rng(seed)
    s = libs["T6P-d"]
    dev_type = int(rng.choice([0, 1, 2, 3]))
    spec_in = TSpec("in", c=2, h=3, w=4, pads=(1, 0, 2, 1), etype=dev_type, zp=int(rng.integers(-3, 4)),
                    scale=float(np.float32(rng.uniform(0.5, 4))))
    spec_out = TSpec("out", c=2, h=3, w=4, etype=6, kind="output")
    handle, _keep = _runtime(s, "T6P-d", [spec_in], [spec_out])
    user_type = int(rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8]))
    dt = np.dtype(["u1", "i1", "<u2", "<i2", "<u4", "<i4", "<f4", "<u8", "<i8"][user_type])
    if dt.kind == "f":
        x = rng.uniform(-300, 300, spec_in.size).astype(dt)
    else:
        info = np.iinfo(dt)
        x = rng.integers(max(info.min, -1000), min(info.max, 1000), spec_in.size, endpoint=True).astype(dt)
    su = np.float32(rng.choice([1.0, 0.25, 3.0, spec_in.scale]))
    zu = int(rng.choice([0, spec_in.zp, 5]))
    layout = int(rng.integers(0, 2))
    user = x if layout == 0 else np.ascontiguousarray(x.reshape(1, 2, 3, 4).transpose(0, 2, 3, 1)).reshape(-1)
    y = _buffer(s, spec_out, True)
    t_in = s.tensor(spec_in, user, mem_type=0, dense=True, etype=user_type, scale=su, zp=zu, layout=layout)
    status = s.invoke(handle, [t_in], [s.tensor(spec_out, y, mem_type=1)])
    # oracle: TIDL-RT's branches in float32
    f = x.astype(np.float32)
    if dt.kind == "f":
        su, zu = np.float32(1), 0
    sd = np.float32(spec_in.scale)
    same_zp, same_scale = zu == spec_in.zp, su == sd
    if same_zp and same_scale:
        info = np.iinfo(spec_in.dtype)
        if (f <= info.min - 1).any() or (f >= info.max + 1).any():
            assert status < 0 and "bare C cast" in s.error
            return
        q = np.trunc(f).astype(spec_in.dtype)
    else:
        v = f - np.float32(zu) if not same_zp else f
        v = v * np.float32(sd / su) if not same_scale else v
        q = _sat(v.astype(np.float32), spec_in.dtype)
    assert status == 0, s.error
    expected = (q.astype(np.float32) - np.float32(spec_in.zp)) / sd
    np.testing.assert_array_equal(y[spec_out.valid_index()], expected)


@pytest.mark.parametrize("seed", range(6))
def test_output_conversion_matches_tidlrt_formula(libs, seed):
    rng = np.random.default_rng(100 + seed)
    s = libs["T6P-d"]
    dev_type = int(rng.choice([0, 1, 2, 3]))
    spec_in = TSpec("in", c=3, h=2, w=5, etype=6)
    spec_out = TSpec("out", c=3, h=2, w=5, pads=(2, 1, 0, 1), pad_ch=2, etype=dev_type, kind="output",
                     zp=int(rng.integers(-2, 3)), scale=float(np.float32(rng.uniform(0.5, 8))))
    handle, _keep = _runtime(s, "T6P-d", [spec_in], [spec_out])
    x = _buffer(s, spec_in, True)
    real = rng.uniform(-40, 40, spec_in.size).astype(np.float32)
    x[spec_in.valid_index()] = real
    user_type = int(rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8]))
    dt = np.dtype(["u1", "i1", "<u2", "<i2", "<u4", "<i4", "<f4", "<u8", "<i8"][user_type])
    su = np.float32(rng.choice([1.0, 0.5, 2.0, spec_out.scale]))
    zu = int(rng.choice([0, spec_out.zp, -7]))
    layout = int(rng.integers(0, 2))
    y = np.zeros(spec_out.size, dt)
    t_out = s.tensor(spec_out, y, mem_type=0, dense=True, etype=user_type, scale=su, zp=zu, layout=layout)
    status = s.invoke(handle, [s.tensor(spec_in, x, mem_type=1)], [t_out])
    info = np.iinfo(spec_out.dtype)
    sd = np.float32(spec_out.scale)
    q = np.clip(np.rint(real.astype(np.float64) * np.float64(sd) + spec_out.zp), info.min, info.max)
    f = q.astype(np.float32)
    if dt.kind == "f":
        su, zu = np.float32(1), 0
    if zu == spec_out.zp and su == sd:
        if dt.kind != "f":
            uinfo = np.iinfo(dt)
            if (f <= uinfo.min - 1).any() or (f >= uinfo.max + 1).any():
                assert status < 0 and "bare C cast" in s.error
                return
        u = np.trunc(f).astype(dt) if dt.kind != "f" else f
    elif zu == spec_out.zp:
        u = _sat(f * np.float32(su / sd), dt)
    elif su == sd:
        u = _sat(f + np.float32(zu), dt)
    else:
        zf = np.float32(np.float32(-zu) * sd) / su
        u = _sat((f - zf) * np.float32(su / sd), dt)
    assert status == 0, s.error
    got = y if layout == 0 else y.reshape(1, 2, 5, 3).transpose(0, 3, 1, 2).reshape(-1)
    np.testing.assert_array_equal(got, u)


# ---- invoke: refusals, matching, statistics -------------------------------------------------------

def test_invoke_refuses_what_does_not_match_the_descriptor(libs):
    s = libs["T6P-d"]
    handle, _keep = _runtime(s, "T6P-d", [IN], [OUT])
    x, y = _buffer(s, IN, True), _buffer(s, OUT, True)
    good_in, good_out = s.tensor(IN, x, mem_type=1), s.tensor(OUT, y, mem_type=1)
    assert s.invoke(handle, [good_in], [good_out]) == 0, s.error
    wrong_dims = s.tensor(IN, x, mem_type=1)
    wrong_dims.dimValues[5] = 6
    assert s.invoke(handle, [wrong_dims], [good_out]) < 0 and "dimValues[5]" in s.error
    null_ptr = s.tensor(IN, x, mem_type=1)
    null_ptr.ptr = None
    assert s.invoke(handle, [null_ptr], [good_out]) < 0 and "ptr is NULL" in s.error
    x[0] = 1  # a dirty top-left pad, used in place
    assert s.invoke(handle, [good_in], [good_out]) < 0 and "pad element 0" in s.error
    x[0] = 0
    int_out = np.zeros(OUT.size, np.int32)  # device float32 -> user int32 is convertible
    assert s.invoke(handle, [good_in], [s.tensor(OUT, int_out, mem_type=0, dense=True, etype=5)]) == 0, s.error
    padded = s.tensor(IN, x, mem_type=1, scale=2.0)  # converted, but not dense
    assert s.invoke(handle, [padded], [good_out]) < 0 and "dense" in s.error
    s.delete(handle)
    assert s.invoke(handle, [good_in], [good_out]) < 0 and "unknown handle" in s.error


def test_output_device_types_without_a_copy_table_are_refused(libs):
    s = libs["T6P-d"]
    spec_in = TSpec("in", c=1, h=2, w=2, etype=5)
    spec_out = TSpec("out", c=1, h=2, w=2, etype=5, kind="output")
    handle, _keep = _runtime(s, "T6P-d", [spec_in], [spec_out])
    x, y = _buffer(s, spec_in, True), np.zeros(4, np.float32)
    t_out = s.tensor(spec_out, y, mem_type=0, dense=True, etype=6)
    assert s.invoke(handle, [s.tensor(spec_in, x, mem_type=1)], [t_out]) < 0 and "copy tables" in s.error


def test_tensors_are_matched_by_name_then_index(libs):
    s = libs["T4P-c"]
    a, b = TSpec("a", c=1, h=2, w=3, etype=0), TSpec("b", c=1, h=2, w=3, etype=0)
    oa, ob = TSpec("oa", c=1, h=2, w=3, etype=0, kind="output"), TSpec("ob", c=1, h=2, w=3, etype=0, kind="output")
    handle, _keep = _runtime(s, "T4P-c", [a, b], [oa, ob])
    xa, xb = _buffer(s, a, True), _buffer(s, b, True)
    xa[a.valid_index()], xb[b.valid_index()] = 1, 2
    ya, yb = _buffer(s, oa, True), _buffer(s, ob, True)
    ins = [s.tensor(b, xb, mem_type=1), s.tensor(a, xa, mem_type=1)]  # reversed, by name
    outs = [s.tensor(ob, yb, mem_type=1, name=""), s.tensor(oa, ya, mem_type=1, name="")]  # no names: by index
    assert s.invoke(handle, ins, outs) == 0, s.error
    assert (ya[oa.valid_index()] == 2).all() and (yb[ob.valid_index()] == 1).all()


def test_perf_stats_and_ddr_stats_are_filled(libs):
    s = libs["T6P-d"]
    status, handle, keep = s.create(_io("T6P-d", [IN], [OUT]))
    assert status == 0
    perf = keep[2]
    x, y = _buffer(s, IN, True), _buffer(s, OUT, True)
    assert s.invoke(handle, [s.tensor(IN, x, mem_type=1)], [s.tensor(OUT, y, mem_type=1)]) == 0
    times = [getattr(perf, n) for n, _ in PerfStats._fields_]
    assert times[0] > 0 and times == sorted(times)
    read, write = ctypes.c_uint64(), ctypes.c_uint64()
    assert s.lib.TIDLRT_getDdrStats(ctypes.byref(read), ctypes.byref(write)) == 0
    assert (read.value, write.value) == (IN.size * 1, OUT.size * 4)


def test_fault_injection_by_environment(libs, monkeypatch):
    s = libs["T4P-b"]
    io = _io("T4P-b", [TSpec("x", c=1, h=1, w=2)], [TSpec("y", c=1, h=1, w=2)])
    monkeypatch.setenv("TIDLRT_STANDIN_CREATE_STATUS", "-7")
    assert s.create(io)[0] == -7
    monkeypatch.delenv("TIDLRT_STANDIN_CREATE_STATUS")
    monkeypatch.setenv("TIDLRT_STANDIN_SCRIBBLE_PARAMS", "8")
    params = ctypes.create_string_buffer(bytes([GUARD]) * 256, 256)
    s.lib.TIDLRT_setParamsDefault(params)
    io_buf, net = ctypes.create_string_buffer(io, len(io)), ctypes.create_string_buffer(b"\x08\x02\x23\x20", 4)
    struct.pack_into("<QQii", params, 0, ctypes.addressof(net), ctypes.addressof(io_buf), 4, len(io))
    handle = ctypes.c_void_p()
    assert s.lib.TIDLRT_create(params, ctypes.byref(handle)) == 0
    assert params.raw[104:112] == b"\xee" * 8 and params.raw[112] == GUARD
    s.delete(handle)
