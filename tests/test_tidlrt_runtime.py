"""TidlRtRuntime (tidl_io.runtime.tidlrt.runtime) against the C stand-in of TIDL-RT, every layout family.

Oracles: the host mock (an independent implementation of TIDL-RT's buffer rules and the same
default model) for output bytes; the stand-in's own record of its zero-copy decisions
(``standin_last_paths``) and of the tensors it was handed (it refuses any field that disagrees
with the io descriptor); spec numbers written here."""

from __future__ import annotations

import ctypes
import errno
import gc
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io import (
    ArgumentTypeError,
    BufferMismatchError,
    OptionError,
    PathError,
    PathIsFolderError,
    PathNotFoundError,
    Session,
    TidlRtError,
)
from tidl_io.data.buffers import view
from tidl_io.runtime import MemType, MockC7xRuntime, RtTensor, Runtime, alloc_shared_buffers
from tidl_io.runtime.tidlrt import TidlRtRuntime

from conftest import STANDIN_FAMILIES, corpus
from runtime_oracles import IO_FAMILY, PADDED, PADDED_OUT, _small, descs_for, net_for, valid_index


def make(lib: Path, family: str, desc, **kw) -> TidlRtRuntime:
    if family == "T4P-a":  # no release in the table: name the layout
        kw.setdefault("version", "T4P-a")
    return TidlRtRuntime(desc, net_for(family), library=lib, **kw)


def last_paths(lib: Path, rt: TidlRtRuntime) -> list[str]:
    c = ctypes.CDLL(str(lib))
    n_in, n_out = len(rt.descriptor.inputs), len(rt.descriptor.outputs)
    a, b = (ctypes.c_int32 * n_in)(), (ctypes.c_int32 * n_out)()
    c.standin_last_paths.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p,
                                     ctypes.c_int32]
    assert c.standin_last_paths(rt._handle, a, n_in, b, n_out) == 0
    names = {0: "zero-copy", 1: "memcpy", 2: "reformat"}
    return [names[v] for v in (*a, *b)]


def fill(desc, bufs, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for t in desc.inputs:
        b = bufs[t.name]
        if t.dtype.kind == "f":
            b[valid_index(t)] = rng.normal(size=t.size).astype(t.dtype)
        else:
            info = np.iinfo(t.dtype)
            b[valid_index(t)] = rng.integers(max(info.min, -1000), min(info.max, 1000), size=t.size, endpoint=True)


# ---- end to end, every family ---------------------------------------------------------------

@pytest.mark.parametrize("family", STANDIN_FAMILIES)
def test_outputs_match_the_mock_and_zero_copy_is_tidl_rts(tidlrt_standin, family: str) -> None:
    lib = tidlrt_standin(family)
    descs = descs_for(family)
    assert descs, f"no descriptor of io layout {IO_FAMILY[family]} in the corpus"
    if family == "T4P-a":  # user memory only: TIDL-RT's memcpy must reach every valid element
        descs = [d for d in descs if all(
            t.num_batches * t.num_channels * t.dim1 * t.dim2 * t.channel_pitch > valid_index(t).max()
            for t in (*d.inputs, *d.outputs))]
    for i, desc in enumerate(descs):
        with make(lib, family, desc) as rt:
            assert isinstance(rt, Runtime) and rt.family.key == family
            ins, outs = alloc_shared_buffers(rt)
            fill(desc, ins, i)
            rep = rt.invoke(ins, outs)
            mock = MockC7xRuntime(desc)
            m_ins, m_outs = alloc_shared_buffers(mock)
            for k in ins:
                m_ins[k][...] = ins[k]
            mock.invoke(m_ins, m_outs)
            for t in desc.outputs:
                np.testing.assert_array_equal(view(t, outs[t.name]), view(t, m_outs[t.name]), err_msg=t.label)
            want = "zero-copy" if family != "T4P-a" else "memcpy"  # pre-8.0: no shared memory
            assert [tr.path for tr in rep.transfers] == [want] * len(rep.transfers)
            assert last_paths(lib, rt) == [want] * len(rep.transfers)
            assert rep.perf is not None and rep.perf.proc_time_end >= rep.perf.proc_time_start > 0
            assert rep.ddr_bytes is not None and rep.ddr_bytes[0] > 0
            # a second invoke on the same buffers (the memoised path) gives the same outputs
            before = {k: v.copy() for k, v in outs.items()}
            rt.invoke(ins, outs)
            for k in outs:
                np.testing.assert_array_equal(view(desc.outputs[list(outs).index(k)], outs[k]),
                                              view(desc.outputs[list(outs).index(k)], before[k]))


def test_user_memory_and_converted_tensors(tidlrt_standin) -> None:
    lib = tidlrt_standin("T6P-d")
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    t_in, t_out = desc.inputs[0], desc.outputs[0]
    rt = make(lib, "T6P-d", desc)
    mock = MockC7xRuntime(desc)
    x = np.random.default_rng(3).uniform(0, 255, (1, 3, 5, 7)).astype(np.float32)
    y_rt = np.zeros((1, 5, 3, 4), np.float32)
    y_mock = np.zeros_like(y_rt)
    rep = rt.invoke([RtTensor.from_array("img", x)], [RtTensor.from_array("feat", y_rt)])
    mock.invoke([RtTensor.from_array("img", x)], [RtTensor.from_array("feat", y_mock)])
    np.testing.assert_array_equal(y_rt, y_mock)
    assert [tr.path for tr in rep.transfers] == ["reformat", "reformat"] == last_paths(lib, rt)
    rt2 = make(lib, "T6P-d", desc)
    user_in, user_out = np.zeros(t_in.alloc_size, np.uint8), np.zeros(t_out.alloc_size, np.int8)
    rep = rt2.invoke({"img": user_in}, {"feat": user_out})
    assert [tr.path for tr in rep.transfers] == ["memcpy", "memcpy"] == last_paths(lib, rt2)
    assert rep.transfers[0].reasons == ("user memory, not shared (alloc_shared)",)


def test_session_runs_on_tidlrt_and_auto_says_which(tidlrt_standin, tmp_path: Path, monkeypatch,
                                                    realdata: Path) -> None:  # a real 10.x mobilenet_v1
    lib = tidlrt_standin("T6P-d")
    src = next(p for p in corpus() if "mobilenet_v1" in p.name and tidl_io.load(p).family == "10.x")
    art = tmp_path / "artifacts"
    art.mkdir()
    shutil.copy(src, art / "model_tidl_io_1.bin")
    (art / "model_tidl_net.bin").write_bytes(net_for("T6P-d"))
    monkeypatch.setenv("TIDL_IO_TIDLRT_LIBRARY", str(lib))
    x = np.random.default_rng(0).uniform(0, 255, (224, 224, 3)).astype(np.float32)
    with Session(art, runtime="tidlrt") as s, Session(art, runtime="mock") as m:
        assert isinstance(s.runtimes[0], TidlRtRuntime) and isinstance(m.runtimes[0], MockC7xRuntime)
        a, b = s.run(x), m.run(x)
        assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
        assert s.last_reports[0].zero_copy == tuple(t.name for t in (*s.inputs, *s.outputs))
    with Session(art) as s:
        assert isinstance(s.runtimes[0], TidlRtRuntime) and any("runtime: TIDL-RT" in n for n in s.notes)
    monkeypatch.setenv("TIDL_IO_TIDLRT_LIBRARY", str(tmp_path / "nowhere.so"))
    with Session(art) as s:
        assert isinstance(s.runtimes[0], MockC7xRuntime)
        assert any("runtime: the host mock (no TIDL-RT: TIDL-RT library not found" in n for n in s.notes)
    with pytest.raises(TidlRtError, match="library not found; tried: .*nowhere.so"):
        Session(art, runtime="tidlrt")


def test_session_accepts_a_runtime_instance_for_one_subgraph(tidlrt_standin, tmp_path: Path) -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    art = tmp_path / "a"
    art.mkdir()
    (art / "one_tidl_io_1.bin").write_bytes(tidl_io.build(desc))
    rt = make(tidlrt_standin("T6P-d"), "T6P-d", desc)
    x = np.random.default_rng(1).uniform(0, 200, (3, 5, 7))
    with Session(art, runtime=rt) as s, Session(art, runtime="mock") as m:
        assert s.runtimes == (rt,)
        a, b = s.run(x)["feat"], m.run(x)["feat"]
        assert a.size == 60 and np.array_equal(a, b)
    (art / "two_tidl_io_1.bin").write_bytes(tidl_io.build(desc))
    with pytest.raises(OptionError, match="a Runtime instance serves one subgraph, but .* has 2 "
                                                  r"\(one, two\); pass a factory"):
        Session(art, runtime=MockC7xRuntime(desc))


# ---- faults -----------------------------------------------------------------------------------

def test_create_and_invoke_failures_carry_status_and_hint(tidlrt_standin, monkeypatch) -> None:
    lib = tidlrt_standin("T6P-d")
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    monkeypatch.setenv("TIDLRT_STANDIN_CREATE_STATUS", "-7")
    with pytest.raises(TidlRtError, match=r"TIDLRT_create failed with status -7 .*trace_log_level=2") as err:
        make(lib, "T6P-d", desc)
    assert (err.value.call, err.value.status) == ("TIDLRT_create", -7)
    monkeypatch.delenv("TIDLRT_STANDIN_CREATE_STATUS")
    rt = make(lib, "T6P-d", desc)
    ins, outs = alloc_shared_buffers(rt)
    monkeypatch.setenv("TIDLRT_STANDIN_INVOKE_STATUS", "-3")
    with pytest.raises(TidlRtError, match=r": TIDLRT_invoke failed with status -3; the library checks every tensor") as err:
        rt.invoke(ins, outs)
    assert (err.value.status, err.value.subgraph) == (-3, rt.subgraph)
    monkeypatch.delenv("TIDLRT_STANDIN_INVOKE_STATUS")
    rt.invoke(ins, outs)


def test_guard_bands_catch_writes_past_a_struct(tidlrt_standin, monkeypatch) -> None:
    lib = tidlrt_standin("T4P-c")
    desc = descs_for("T4P-c")[0]
    monkeypatch.setenv("TIDLRT_STANDIN_SCRIBBLE_PARAMS", "12")
    with pytest.raises(TidlRtError, match=r"TIDLRT_create wrote outside sTIDLRT_Params_t \(sTIDLRT_Params_t, 104 "
                                          r"bytes in layout T4P-c\): up to 12 byte\(s\) past its end\. The library "
                                          r"was probably built for a larger layout"):
        make(lib, "T4P-c", desc)
    monkeypatch.delenv("TIDLRT_STANDIN_SCRIBBLE_PARAMS")
    rt = make(lib, "T4P-c", desc)
    ins, outs = alloc_shared_buffers(rt)
    monkeypatch.setenv("TIDLRT_STANDIN_SCRIBBLE_TENSOR", "4")
    with pytest.raises(TidlRtError, match=r"TIDLRT_invoke wrote outside the sTIDLRT_Tensor_t of input 0 .*600 bytes"):
        rt.invoke(ins, outs)


def test_net_file_and_parameters_are_checked(tidlrt_standin, tmp_path: Path) -> None:
    lib = tidlrt_standin("T4P-c")
    desc = descs_for("T4P-c")[0]
    missing = tmp_path / "missing_tidl_net.bin"
    with pytest.raises(PathNotFoundError) as err:
        TidlRtRuntime(desc, missing, library=lib)
    assert isinstance(err.value, FileNotFoundError) and isinstance(err.value, tidl_io.TidlIoError)
    assert err.value.filename == str(missing) and err.value.errno == errno.ENOENT
    assert str(err.value) == (f"{missing}: no such file; expected the *_tidl_net.bin TIDL compiled beside "
                              f"{Path(desc.source).name}")
    with pytest.warns(DeprecationWarning, match="MissingFileError is deprecated"):
        old_name = tidl_io.MissingFileError
    with pytest.raises(old_name, match="missing_tidl_net.bin: no such file; expected the"):  # old code still catches it
        TidlRtRuntime(desc, missing, library=lib)
    with pytest.raises(PathNotFoundError) as err:
        TidlRtRuntime(desc, None, library=lib)
    assert err.value.filename == desc.source and isinstance(err.value, old_name)
    assert str(err.value) == (f"{desc.source}: TIDL-RT needs the network: expected net= the *_tidl_net.bin beside "
                              f"this io file (a path or its bytes), found None")
    (tmp_path / "dir_tidl_net.bin").mkdir()
    with pytest.raises(PathIsFolderError, match=r"dir_tidl_net.bin: is a folder; expected the \*_tidl_net.bin"):
        TidlRtRuntime(desc, tmp_path / "dir_tidl_net.bin", library=lib)
    if hasattr(os, "mkfifo"):  # refused at once, not read (a FIFO would block forever)
        os.mkfifo(tmp_path / "fifo_tidl_net.bin")
        with pytest.raises(PathError, match=r"fifo_tidl_net.bin: is a FIFO \(named pipe\), not a regular file"):
            TidlRtRuntime(desc, tmp_path / "fifo_tidl_net.bin", library=lib)
    with pytest.raises(OptionError, match=r"^TidlRtRuntime: core_start_idx must be >= 0, found -1"):  # its own name
        make(lib, "T4P-c", desc, core_start_idx=-1)
    with pytest.raises(OptionError, match=r"^TidlRtRuntime: target_priority must be 0 \(highest\) .. 7 \(lowest\), "
                                          r"found 8"):
        make(lib, "T4P-c", desc, target_priority=8)
    with pytest.raises(TidlRtError, match=r"coreStartIdx = 2 was given, but this library's sTIDLRT_Params_t "
                                          r"\(layout T4P-c"):
        make(lib, "T4P-c", desc, core_start_idx=2)
    rt = make(lib, "T4P-c", desc, target_priority=3, core_num=1, max_pre_empt_delay=2.5, trace_base_name="/x/y")
    assert rt._params.struct.targetPriority == 3 and rt._params.struct.maxPreEmptDelay == 2.5
    assert ctypes.string_at(rt._params.struct.traceBaseName) == b"/x/y"
    d = make(tidlrt_standin("T6P-d"), "T6P-d", descs_for("T6P-d")[0], core_start_idx=0, trace_base_name="tr/a")
    assert d._params.struct.coreStartIdx == 0 and d._params.struct.traceBaseName == b"tr/a"


# ---- lifetime, threads, memory -------------------------------------------------------------------

def test_close_is_idempotent_and_frees_the_handle(tidlrt_standin) -> None:
    lib = tidlrt_standin("T6P-d")
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    for _ in range(40):  # TI's pool holds 32 handles: each close must give one back
        with make(lib, "T6P-d", desc) as rt:
            ins, outs = alloc_shared_buffers(rt)
            rt.invoke(ins, outs)
        rt.close()
    with pytest.raises(TidlRtError, match="invoke after close"):
        rt.invoke(ins, outs)


def test_zero_copy_choice_is_fixed_per_handle(tidlrt_standin) -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    rt = make(tidlrt_standin("T6P-d"), "T6P-d", desc)
    ins, outs = alloc_shared_buffers(rt)
    rt.invoke(ins, outs)
    with pytest.raises(TidlRtError, match=r"input 0 'img': the first invoke of this handle used zero copy .* this "
                                          r"one would use a copied buffer"):
        rt.invoke({"img": ins["img"].copy()}, outs)
    other_in, _ = alloc_shared_buffers(rt)
    rt.invoke(other_in, outs)  # another shared buffer is still zero copy


def test_read_only_output_is_refused(tidlrt_standin) -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    rt = make(tidlrt_standin("T6P-d"), "T6P-d", desc)
    ins, outs = alloc_shared_buffers(rt)
    outs["feat"].flags.writeable = False
    with pytest.raises(BufferMismatchError, match=r"output 0 'feat': the output buffer is read-only"):
        rt.invoke(ins, outs)


def test_shared_memory_is_dirty_kept_alive_by_views_and_freed_once(tidlrt_standin) -> None:
    lib = tidlrt_standin("T6P-d")
    rt = make(lib, "T6P-d", _small(inputs=[PADDED], outputs=[PADDED_OUT]))
    c = ctypes.CDLL(str(lib))
    c.TIDLRT_isSharedMem.argtypes, c.TIDLRT_isSharedMem.restype = [ctypes.c_void_p], ctypes.c_int32
    a = rt.alloc_shared(4096, 256)
    assert a.dtype == np.uint8 and a.shape == (4096,) and a.ctypes.data % 256 == 0
    assert a.any(), "the stand-in's shared heap is dirty: alloc_shared must not hide it"
    ins, _ = alloc_shared_buffers(rt)
    assert not ins["img"].any()  # ...but buffers for tensors are zeroed once
    ptr = a.ctypes.data
    v = a[100:200].view(np.uint16)
    del a
    gc.collect()
    assert rt.is_shared(v) and c.TIDLRT_isSharedMem(ptr) == 1
    v[:] = 7  # still valid memory
    del v
    gc.collect()
    assert c.TIDLRT_isSharedMem(ptr) == 0  # freed when the last view went
    assert not rt.is_shared(np.zeros(10, np.uint8))
    with pytest.raises(OptionError, match="alloc_shared: alignment must be a power of two, found 3"):
        rt.alloc_shared(10, 3)


def test_older_library_without_shared_memory_degrades(tidlrt_standin, realdata: Path) -> None:  # a real 8.x file
    lib = tidlrt_standin("T4P-c", variant="no-shared")
    desc = descs_for("T4P-c")[0]
    rt = make(lib, "T4P-c", desc)
    assert any("lacks TIDLRT_getDdrStats, TIDLRT_allocSharedMem" in n and "TIDL-RT copies every tensor" in n
               for n in rt.notes)
    ins, outs = alloc_shared_buffers(rt)
    rep = rt.invoke(ins, outs)
    assert {tr.path for tr in rep.transfers} == {"memcpy"} and rep.ddr_bytes is None
    # its alloc_shared gives ordinary aligned memory and checks its arguments as the shared heap's does
    bufs = [rt.alloc_shared(100, 4096) for _ in range(4)]  # by chance alone 4096-aligned once in 64 tries
    assert all(b.dtype == np.uint8 and b.shape == (100,) and b.ctypes.data % 4096 == 0 for b in bufs)
    assert not rt.is_shared(bufs[0])  # ordinary memory: the library cannot tell it is shared
    with pytest.raises(ArgumentTypeError, match="^alloc_shared: size: expected an integer number of bytes, found "
                                                "str '3'"):
        rt.alloc_shared("3")  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="^alloc_shared: alignment must be a power of two, found 3$"):
        rt.alloc_shared(16, 3)


def test_runtime_is_exported_and_memtype_follows_the_buffer(tidlrt_standin) -> None:
    assert tidl_io.TidlRtRuntime is TidlRtRuntime
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    rt = make(tidlrt_standin("T6P-d"), "T6P-d", desc)
    ins, outs = alloc_shared_buffers(rt)
    rep = rt.invoke([RtTensor.for_tensor(desc.inputs[0], ins["img"], mem_type=MemType.SHARED)],
                    [RtTensor.for_tensor(desc.outputs[0], outs["feat"])])
    assert rep.zero_copy == ("img", "feat")
    st = rt._ins[0].g.struct  # what the library was handed: spec order L, R, T, B; N, DIM1, DIM2, C, H, W
    assert st.memType == 1 and list(st.padValues) == [1, 0, 1, 2] and list(st.dimValues) == [1, 1, 1, 3, 5, 7]
    assert st.elementType == 0 and st.numDim == 6 and st.bufferSize == ins["img"].size
    assert list(st.pitch)[3:] == [(5 + 2) * 8 + 1, 8] and st.dataOffset == 1 * 8 + 1
    assert ctypes.string_at(ctypes.addressof(st), 4) == b"img\0"


def test_one_handle_per_subgraph_in_order_and_invokes_serialised(tidlrt_standin, tmp_path: Path,
                                                                   monkeypatch) -> None:
    import threading

    lib = tidlrt_standin("T6P-d")
    monkeypatch.setenv("TIDL_IO_TIDLRT_LIBRARY", str(lib))
    first = _small(inputs=[PADDED], outputs=[dict(PADDED_OUT, outElementType=6, outTensorScale=1.0)])
    second = _small(inputs=[dict(inDataName="feat", inWidth=4, inHeight=3, inNumChannels=5, inElementType=6,
                                 inChannelPitch=12)],
                    outputs=[dict(outDataName="out", outWidth=4, outHeight=3, outNumChannels=5, outElementType=6,
                                  outChannelPitch=12)])
    art = tmp_path / "art"
    art.mkdir()
    for name, d in (("a", first), ("b", second)):
        (art / f"{name}_tidl_io_1.bin").write_bytes(tidl_io.build(d))
        (art / f"{name}_tidl_net.bin").write_bytes(net_for("T6P-d"))
    x = np.random.default_rng(2).uniform(0, 255, (3, 5, 7))
    with Session(art, runtime="tidlrt") as s, Session(art, runtime="mock") as m:
        handles = [rt._handle for rt in s.runtimes]
        assert len(handles) == 2 and handles[0] != handles[1] and s.input_names == ("img",)
        a, b = s.run(x), m.run(x)
        assert np.array_equal(a["out"], b["out"]) and np.array_equal(a["feat"], b["feat"])
        rt = s.runtimes[1]
        ins, outs = s.buffers(1)
        want = {k: v.copy() for k, v in outs.items()}
        errors: list[BaseException] = []

        def loop() -> None:
            try:
                for _ in range(20):
                    rt.invoke(ins, outs)
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=loop) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors and all(np.array_equal(outs[k], want[k]) for k in outs)
