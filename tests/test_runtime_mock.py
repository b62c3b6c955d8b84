"""The mock C7x runtime (tidl_io.runtime.mock), end to end over every real descriptor and
the fixtures. Oracles are independent of the library (see runtime_oracles.py) plus the
test's own model function."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io import (
    ArgumentTypeError,
    BufferMismatchError,
    FormatError,
    GeometryError,
    OptionError,
    PathError,
    PathNotFoundError,
    TensorNotFoundError,
    TidlRtError,
)
from tidl_io.runtime import (
    POISON_FLOAT32_BITS,
    MemType,
    MockC7xRuntime,
    PaddingWarning,
    RtTensor,
    Runtime,
    alloc_shared_buffers,
)

from conftest import ROOT, corpus
from runtime_oracles import (
    PADDED,
    PADDED_OUT,
    _capture,
    _small,
    check_outputs,
    fill_inputs,
    pad_mask,
    q_out,
    test_model,
    valid_index,
)

CORPUS = [pytest.param(p, id=p.name[:50]) for p in corpus()]


# ---- end to end over the corpus -----------------------------------------------------------

@pytest.mark.parametrize("path", CORPUS)
def test_end_to_end_zero_copy_and_memcpy(path: Path) -> None:
    desc = tidl_io.load(path)
    model, seen = test_model(desc)
    oracle, _ = test_model(desc)
    rt = MockC7xRuntime(desc, model=model)
    ins, outs = alloc_shared_buffers(rt)
    codes = fill_inputs(desc, ins, seed=len(path.name))
    report = rt.invoke(ins, outs)
    names = [t.name for t in (*desc.inputs, *desc.outputs)]
    assert list(report.zero_copy) == names and report.copied == () and report.bytes_copied == 0
    assert rt.last_report is report
    check_outputs(desc, oracle, seen, codes, outs)

    # The same data in ordinary memory: every tensor is memcpy'd, N*C*DIM1*DIM2*chPitch elements,
    # which TIDL-RT gets wrong when valid data lies beyond that (refused).
    user_in = {k: v.copy() for k, v in ins.items()}
    user_out = {k: np.zeros_like(v) for k, v in outs.items()}
    short = [t for t in (*desc.inputs, *desc.outputs)
             if t.num_batches * t.dim1 * t.dim2 * t.num_channels * t.channel_pitch <= int(valid_index(t).max())]
    if short:
        with pytest.raises(BufferMismatchError, match="TIDL-RT copies only N\\*C\\*DIM1\\*DIM2\\*channelPitch"):
            rt.invoke(user_in, user_out)
        return
    report = rt.invoke(user_in, user_out)
    assert report.zero_copy == () and list(report.copied) == names
    for tr, t in zip(report.transfers, (*desc.inputs, *desc.outputs)):
        n = min(t.num_batches * t.dim1 * t.dim2 * t.num_channels * t.channel_pitch, t.buffer_size)
        assert (tr.path, tr.nbytes) == ("memcpy", n * t.itemsize)
    check_outputs(desc, oracle, seen, codes, user_out)

def test_random_geometries_poison_exactly_the_pads() -> None:
    rng = np.random.default_rng(7)
    for i in range(60):
        w, h, c = (int(v) for v in rng.integers(1, 7, 3))
        pl, pt, pb, pch = (int(v) for v in rng.integers(0, 3, 4))
        layout = int(rng.integers(0, 2)) if pl == pt == pb == 0 else 0
        line = w + pl
        rows = h + pt + pb
        pitch = rows * line + int(rng.integers(-pb * line if pb else 0, 3)) if layout == 0 else h * w
        pitch = max(pitch, (h + pt) * line)
        etype = int(rng.choice([0, 1, 3, 6]))
        spec_in = dict(inDataName="x", inWidth=w, inHeight=h, inNumChannels=c, inElementType=etype, inLayout=layout,
                       inPadL=pl, inPadT=pt, inPadB=pb, inChannelPitch=pitch, inNumBatches=int(rng.integers(1, 3)),
                       inTensorScale=float(rng.choice([1.0, 4.0])))
        spec_out = dict(outDataName="y", outWidth=w, outHeight=h, outNumChannels=c, outElementType=etype,
                        outLayout=layout, outPadL=pl, outPadT=pt, outPadB=pb, outPadCh=pch, outChannelPitch=pitch,
                        outNumBatches=spec_in["inNumBatches"], outTensorScale=2.0)
        n = spec_in["inNumBatches"]
        spec_in["inBufSize"] = n * (c + 1) * max(pitch, rows * line) + int(rng.integers(0, 4))
        spec_out["outBufSize"] = n * (c + pch) * max(pitch, rows * line) + int(rng.integers(0, 4))
        desc = _small(inputs=[spec_in], outputs=[spec_out])
        model, seen = test_model(desc)
        oracle, _ = test_model(desc)
        rt = MockC7xRuntime(desc, model=model)
        ins, outs = alloc_shared_buffers(rt)
        codes = fill_inputs(desc, ins, seed=i)
        rt.invoke(ins, outs)
        check_outputs(desc, oracle, seen, codes, outs)


# ---- zero copy exactly when the conditions hold -------------------------------------------

def test_zero_copy_conditions() -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    t_in, t_out = desc.inputs[0], desc.outputs[0]
    rt = MockC7xRuntime(desc, model="ramp")
    shared_in, shared_out = alloc_shared_buffers(rt)
    user_in, user_out = np.zeros_like(shared_in["img"]), np.zeros_like(shared_out["feat"])

    def paths(i, o):
        return [tr.path for tr in rt.invoke({"img": i}, {"feat": o}).transfers]

    assert paths(shared_in["img"], shared_out["feat"]) == ["zero-copy", "zero-copy"]
    assert paths(user_in, shared_out["feat"]) == ["memcpy", "zero-copy"]
    assert paths(shared_in["img"], user_out) == ["zero-copy", "memcpy"]
    # Described with its own properties: same as the bare buffer.
    assert paths(RtTensor.for_tensor(t_in, shared_in["img"]), RtTensor.for_tensor(t_out, user_out)) == \
        ["zero-copy", "memcpy"]
    # The memType flag decides, like TIDL-RT: USER on shared memory is copied.
    assert paths(RtTensor.for_tensor(t_in, shared_in["img"], mem_type=MemType.USER), shared_out["feat"]) == \
        ["memcpy", "zero-copy"]
    with pytest.raises(BufferMismatchError, match="mem_type is SHARED but its data is not in this runtime's"):
        rt.invoke({"img": RtTensor.for_tensor(t_in, user_in, mem_type=MemType.SHARED)}, {"feat": user_out})
    # A view into a shared block is shared; a view of a view too.
    block = rt.alloc_shared(t_in.buffer_nbytes + 256)
    inner = block[128:128 + t_in.buffer_nbytes].view(np.uint8)
    assert rt.is_shared(inner) and rt.is_shared(inner[3:9]) and not rt.is_shared(inner.copy())
    assert paths(inner, shared_out["feat"])[0] == "zero-copy"
    # A dense float tensor is converted (reformat), never zero copy, even in shared memory.
    x = np.zeros((1, 3, 5, 7), np.float32)
    sx = rt.alloc_shared(x.nbytes).view(np.float32).reshape(x.shape)
    tr = rt.invoke({"img": RtTensor.from_array("img", sx)}, {"feat": shared_out["feat"]}).transfers[0]
    assert tr.path == "reformat" and "element type SinglePrecFloat (float32) vs UnsignedChar (uint8)" in tr.reasons[0]
    rt.free_shared(shared_in["img"])
    assert not rt.is_shared(shared_in["img"]) and paths(shared_in["img"], shared_out["feat"])[0] == "memcpy"


def test_alloc_shared_alignment_and_zeros() -> None:
    rt = MockC7xRuntime(_small(inputs=[PADDED], outputs=[PADDED_OUT]))
    for align in (1, 64, 128, 4096):
        buf = rt.alloc_shared(1000, align)
        assert buf.dtype == np.uint8 and buf.shape == (1000,) and buf.ctypes.data % align == 0
        assert not buf.any()
    with pytest.raises(OptionError, match="alloc_shared: alignment must be a power of two, found 3"):
        rt.alloc_shared(10, 3)
    with pytest.raises(OptionError, match="alloc_shared: size must be >= 0 bytes, found -1"):
        rt.alloc_shared(-1)
    with pytest.raises(ArgumentTypeError, match="alloc_shared: size: expected an integer number of bytes, found "
                                                "str '1'"):
        rt.alloc_shared("1")  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="alloc_shared: alignment: expected an integer .* found float 64.0"):
        rt.alloc_shared(10, 64.0)  # type: ignore[arg-type]
    assert isinstance(rt, Runtime)

# ---- faults ---------------------------------------------------------------------------------

def test_every_dirty_input_pad_is_caught() -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    t = desc.inputs[0]
    rt = MockC7xRuntime(desc)
    ins, outs = alloc_shared_buffers(rt)
    buf = ins["img"]
    pads = np.flatnonzero(pad_mask(t, buf.size))
    assert pads.size == buf.size - t.size
    for i in pads.tolist():
        buf[i] = 7
        with pytest.raises(BufferMismatchError) as info:
            rt.invoke(ins, outs)
        msg = str(info.value)
        assert msg.startswith("input 0 'img': input padding must be zero") and f"first at element {i} " in msg
        assert "expected 0, found 7" in msg
        buf[i] = 0
    rt.invoke(ins, outs)  # clean again


def test_dirty_pads_in_user_memory_warn_mode_and_off() -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    user = np.zeros(desc.inputs[0].buffer_size, np.uint8)
    user[0] = 1
    strict = MockC7xRuntime(desc)
    outs = alloc_shared_buffers(strict)[1]
    with pytest.raises(BufferMismatchError, match="first at element 0 .*before the first valid element"):
        strict.invoke({"img": user}, outs)
    lenient = MockC7xRuntime(desc, input_pads="warn")
    outs = alloc_shared_buffers(lenient)[1]
    with pytest.warns(PaddingWarning, match="input padding must be zero"):
        rep = lenient.invoke({"img": user}, outs)
    assert rep.transfers[0].path == "memcpy"
    off = MockC7xRuntime(desc, input_pads="off")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        off.invoke({"img": user}, alloc_shared_buffers(off)[1])


def test_float_minus_zero_pad_is_dirty() -> None:
    desc = _small(inputs=[dict(PADDED, inElementType=6)], outputs=[PADDED_OUT])
    rt = MockC7xRuntime(desc)
    ins, outs = alloc_shared_buffers(rt)
    ins["img"][-1] = -0.0
    with pytest.raises(BufferMismatchError, match=r"found -0\.0"):
        rt.invoke(ins, outs)


@pytest.mark.parametrize("fault,text", [
    ("short", "buffer has 255 elements (255 bytes), the descriptor's buffer size is 256 elements"),
    ("long", "buffer has 257 elements"),
    ("dtype", "buffer element type is float32, the descriptor's is uint8 (UnsignedChar)"),
    ("2d", "expected a contiguous 1-D buffer of 256 elements"),
    ("strided", "(not contiguous)"),
    ("name", "unknown input 'image': the descriptor's inputs are 'img'"),
    ("missing", "missing output buffer(s): output 0 'feat'"),
    ("twice", "input 0 'img' given twice"),
    ("index", "input index 3: the descriptor has 1 input(s)"),
    ("object", "expected a numpy buffer or an RtTensor, found list"),
    ("rtname", "given under that name but the RtTensor is named 'other'"),
    ("rtdtype", "RtTensor says element type SignedChar (int8) but its data is uint8"),
    ("rtdims", "RtTensor dims (N, DIM1, DIM2, C, H, W) = (1, 1, 1, 3, 7, 5), the descriptor's are (1, 1, 1, 3, 5, 7)"),
    ("notmap", "inputs: expected a mapping name -> buffer, or a sequence of RtTensor, found int"),
])
def test_bad_buffers_are_refused(fault: str, text: str) -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    rt = MockC7xRuntime(desc)
    ins, outs = alloc_shared_buffers(rt)
    good = ins["img"]
    assert good.size == 256
    inputs: object = {"img": good}
    outputs: object = outs
    if fault == "short":
        inputs = {"img": good[:-1]}
    elif fault == "long":
        inputs = {"img": np.zeros(257, np.uint8)}
    elif fault == "dtype":
        inputs = {"img": np.zeros(256, np.float32)}
    elif fault == "2d":
        inputs = {"img": np.zeros((2, 128), np.uint8)}
    elif fault == "strided":
        inputs = {"img": np.zeros(512, np.uint8)[::2]}
    elif fault == "name":
        inputs = {"image": good}
    elif fault == "missing":
        outputs = {}
    elif fault == "twice":
        inputs = {"img": good, 0: good}
    elif fault == "index":
        inputs = {3: good}
    elif fault == "object":
        inputs = {"img": [0] * 256}
    elif fault == "rtname":
        inputs = {"img": RtTensor.from_array("other", np.zeros((1, 3, 5, 7), np.uint8))}
    elif fault == "rtdtype":
        inputs = {"img": RtTensor("img", np.zeros((1, 3, 5, 7), np.uint8), 1, (1, 1, 1, 3, 5, 7),
                                  (105, 105, 105, 35, 7))}
    elif fault == "rtdims":
        inputs = {"img": RtTensor.from_array("img", np.zeros((1, 3, 7, 5), np.uint8))}
    elif fault == "notmap":
        inputs = 5
    kind = {"name": TensorNotFoundError, "index": TensorNotFoundError, "object": ArgumentTypeError,
            "notmap": ArgumentTypeError}.get(fault, BufferMismatchError)  # unknown names; wrong kinds
    with pytest.raises(kind) as info:
        rt.invoke(inputs, outputs)  # type: ignore[arg-type]
    assert text in str(info.value)


def test_sequence_of_rt_tensors_matches_by_name_then_position() -> None:
    desc = _small(inputs=[dict(PADDED, inDataName="a"), dict(PADDED, inDataName="b")], outputs=[PADDED_OUT])
    model, seen = _capture(desc)
    rt = MockC7xRuntime(desc, model=model)
    _, outs = alloc_shared_buffers(rt)
    a = np.full((1, 3, 5, 7), 1, np.uint8)
    b = np.full((1, 3, 5, 7), 2, np.uint8)
    rt.invoke([RtTensor.from_array("", a), RtTensor.from_array("b", b)], outs)  # "" -> slot 0 by position
    assert (seen["a"] == 1).all() and (seen["b"] == 2).all()
    with pytest.raises(BufferMismatchError, match="input 1 'b' given twice"):
        rt.invoke([RtTensor.from_array("b", b), RtTensor.from_array("", a)], outs)  # "" at position 1 is 'b'
    with pytest.raises(ArgumentTypeError, match="expected a sequence of RtTensor objects .*found ndarray at item 0"):
        rt.invoke([a], outs)


def test_reading_an_output_pad_is_detectable() -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT, dict(outDataName="score", outWidth=3, outHeight=1,
                                                             outNumChannels=1, outPadCh=2)])
    rt = MockC7xRuntime(desc, model="ramp")
    ins, outs = alloc_shared_buffers(rt)
    rt.invoke(ins, outs)
    feat, score = desc.outputs
    right = outs["feat"][valid_index(feat)].reshape(1, 5, 3, 4)
    naive = outs["feat"][: feat.size].reshape(1, 5, 3, 4)  # ignores pads and pitches
    assert (naive == np.int8(-0x5B)).any() and not (right == np.int8(-0x5B)).all()
    assert not np.array_equal(naive, right)
    naive_f = outs["score"][: score.size + 1]  # one element too many: reads the channel pad
    assert np.isnan(naive_f[-1]) and naive_f[-1:].view(np.uint32)[0] == POISON_FLOAT32_BITS
    assert not np.isnan(outs["score"][: score.size]).any()
    off = MockC7xRuntime(desc, model="ramp", poison=False)
    ins2, outs2 = alloc_shared_buffers(off)
    off.invoke(ins2, outs2)
    assert not outs2["feat"][pad_mask(feat, outs2["feat"].size)].any()


@pytest.mark.parametrize("result,text", [
    (lambda d: {"feat": np.zeros((2, 2))}, ("model output for output 0 'feat': expected shape (1, 5, 3, 4) "
                                           "(size-1 axes may be dropped or added), found (2, 2)")),
    # the right element count in another axis order (NHWC for an NCHW output) is not reshaped
    (lambda d: {"feat": np.zeros((1, 3, 4, 5))}, ("model output for output 0 'feat': expected shape (1, 5, 3, 4) "
                                                 "(size-1 axes may be dropped or added), found (1, 3, 4, 5)")),
    (lambda d: {"feat": np.zeros(60)}, ("expected shape (1, 5, 3, 4) (size-1 axes may be dropped or added), "
                                       "found (60,)")),
    (lambda d: {}, "model returned no value for output 0 'feat'"),
    (lambda d: {"feat": np.zeros(60), "x": 1}, "model returned unknown output(s) 'x'"),
    (lambda d: [1], "model returned list, expected a mapping"),
    (lambda d: {"feat": np.array(["a"] * 60)}, "has dtype <U1, expected numbers"),
])
def test_model_results_are_checked(result, text: str) -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    rt = MockC7xRuntime(desc, model=lambda feeds: result(feeds))
    ins, outs = alloc_shared_buffers(rt)
    with pytest.raises(BufferMismatchError) as info:
        rt.invoke(ins, outs)
    assert text in str(info.value)


def test_model_output_may_drop_or_add_size_one_axes() -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    t = desc.outputs[0]
    y = np.arange(60, dtype=np.float64).reshape(5, 3, 4) / 8
    for shape in ((5, 3, 4), (1, 1, 5, 3, 4), (5, 1, 3, 4, 1)):
        rt = MockC7xRuntime(desc, model=lambda f, shape=shape: {"feat": y.reshape(shape)})
        ins, outs = alloc_shared_buffers(rt)
        rt.invoke(ins, outs)
        np.testing.assert_array_equal(outs["feat"][valid_index(t)], q_out(t, y.ravel()))


def test_model_values_saturate_and_nan_reads_as_zero() -> None:
    desc = _small(inputs=[PADDED], outputs=[dict(outDataName="y", outWidth=4, outHeight=1, outNumChannels=1,
                                                 outElementType=0, outTensorScale=2.0, outZeroPoint=10)])
    rt = MockC7xRuntime(desc, model=lambda f: {"y": np.array([np.nan, 1e9, -1e9, 2.25])})
    ins, outs = alloc_shared_buffers(rt)
    rt.invoke(ins, outs)
    assert outs["y"][:4].tolist() == [10, 255, 0, 14]  # rint(2.25 * 2 + 10) = rint(14.5) = 14 (half to even)


# ---- lifetime, net file, descriptor ---------------------------------------------------------

def test_net_file_checks(tmp_path: Path) -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    net = tmp_path / "x_tidl_net.bin"
    net.write_bytes(b"\x01\x02")
    assert MockC7xRuntime(desc, net).net_nbytes == 2
    assert MockC7xRuntime(desc, b"abc").net_nbytes == 3
    assert MockC7xRuntime(desc, None).net_nbytes is None
    with pytest.raises(FileNotFoundError) as err:
        MockC7xRuntime(desc, tmp_path / "missing.bin")
    assert type(err.value) is PathNotFoundError and err.value.errno == errno.ENOENT
    assert err.value.filename == str(tmp_path / "missing.bin")
    assert str(err.value) == (f"{tmp_path / 'missing.bin'}: no such file; expected the *_tidl_net.bin TIDL compiled "
                              f"beside the io file, its bytes, or net=None (the mock needs no network)")
    with pytest.raises(tidl_io.PathIsFolderError) as folder:
        MockC7xRuntime(desc, tmp_path)
    assert str(folder.value).startswith(f"{tmp_path}: is a folder; expected the *_tidl_net.bin")
    if hasattr(os, "mkfifo"):  # refused at once, never opened for a blocking read
        os.mkfifo(tmp_path / "fifo.bin")
        with pytest.raises(PathError, match=r"fifo.bin: is a FIFO \(named pipe\), not a regular file; expected"):
            MockC7xRuntime(desc, tmp_path / "fifo.bin")
    with pytest.raises(ArgumentTypeError, match=r"^MockC7xRuntime: net: expected a path \(str or os.PathLike\), "
                                                r"found int 3; or the network's bytes"):
        MockC7xRuntime(desc, 3)  # type: ignore[arg-type]
    (tmp_path / "empty.bin").write_bytes(b"")
    with pytest.raises(FormatError, match="empty.bin: the net file is empty"):
        MockC7xRuntime(desc, tmp_path / "empty.bin")
    with pytest.raises(FormatError, match="the network is empty"):
        MockC7xRuntime(desc, b"")


def test_bad_geometry_and_options_are_refused_at_create() -> None:
    bad = _small(inputs=[dict(PADDED, inPadL=-1)], outputs=[PADDED_OUT])
    with pytest.raises(GeometryError, match="cannot run this descriptor: input 0 'img': inPadL: expected >= 0"):
        MockC7xRuntime(bad)
    ok = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    with pytest.raises(OptionError, match="^MockC7xRuntime: input_pads must be one of 'error', 'warn', "
                                          "'off', found 'loud'$"):
        MockC7xRuntime(ok, input_pads="loud")
    with pytest.raises(ArgumentTypeError, match="^MockC7xRuntime: input_pads: expected one of 'error', 'warn', "
                                                "'off', found True"):
        MockC7xRuntime(ok, input_pads=True)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match=r"^MockC7xRuntime: desc: expected a tidl_io.Descriptor .* found "
                                                r"None"):
        MockC7xRuntime(None)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="^MockC7xRuntime: poison: expected True or False, found str 'no'"):
        MockC7xRuntime(ok, poison="no")  # type: ignore[arg-type]


def test_close_and_context_manager() -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    with MockC7xRuntime(desc) as rt:
        ins, outs = alloc_shared_buffers(rt)
        rt.invoke(ins, outs)
    with pytest.raises(TidlRtError, match="invoke after close"):
        rt.invoke(ins, outs)

def test_bench_quick_smoke() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "bench_runtime.py"), "--quick"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "zero-copy" in proc.stdout and "overhead" in proc.stdout and "x copyto" in proc.stdout


def test_friction_bad_model_missing_net_and_read_only_output(tmp_path: Path) -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    with pytest.raises(ArgumentTypeError, match=r"^MockC7xRuntime: model: expected a callable, a built-in model "
                                                r"name or a model spec .* found int 3$"):
        MockC7xRuntime(desc, model=3)  # type: ignore[arg-type]
    with pytest.warns(DeprecationWarning, match=r"tidl_io.MissingFileError is deprecated: it is the same class as "
                                                r"tidl_io.PathNotFoundError"):
        old_name = tidl_io.MissingFileError
    assert old_name is tidl_io.PathNotFoundError
    for name in (old_name, tidl_io.PathNotFoundError):  # code written for issue 9 still catches it
        with pytest.raises(name, match=r"gone_tidl_net.bin: no such file; expected the \*_tidl_net.bin .* or "
                                       r"net=None"):
            MockC7xRuntime(desc, tmp_path / "gone_tidl_net.bin")
    rt = MockC7xRuntime(desc)
    ins, outs = alloc_shared_buffers(rt)
    rt.invoke(ins, outs)
    outs["feat"].flags.writeable = False  # the same object, now read-only: the memo must not hide it
    with pytest.raises(BufferMismatchError, match=r"output 0 'feat': the output buffer is read-only"):
        rt.invoke(ins, outs)
    ro = RtTensor.from_array("feat", np.zeros((1, 5, 3, 4), np.float32))
    ro.data.flags.writeable = False
    with pytest.raises(BufferMismatchError, match=r"output 0 'feat': the output buffer is read-only"):
        rt.invoke(ins, [ro])
