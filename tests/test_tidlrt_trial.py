"""tidl_io.runtime.tidlrt._trial: TIDL-RT's first create in a child process.

Oracles: the stand-in's forced create status (TIDLRT_STANDIN_CREATE_STATUS) and its board build's
SIGSEGV, seen from outside; literal child reports and TI output lines for the verdict; the
`signal` and `errno` modules for names."""

from __future__ import annotations

from pathlib import Path

import pytest

import tidl_io
from tidl_io import TidlRtError
from tidl_io.run.runner import run_model
from tidl_io.runtime.tidlrt import ENV_PREFLIGHT, trial_create
from tidl_io.runtime.tidlrt._trial import _verdict

from runtime_oracles import PADDED, PADDED_OUT, _small, net_for


@pytest.fixture
def art(tmp_path: Path) -> Path:
    desc = _small(family="8.x", inputs=[PADDED], outputs=[PADDED_OUT])
    folder = tmp_path / "artifacts"
    folder.mkdir()
    (folder / "m_tidl_io_1.bin").write_bytes(tidl_io.build(desc))
    (folder / "m_tidl_net.bin").write_bytes(net_for("T4P-b"))
    return folder


def files(art: Path) -> tuple[list[Path], list[Path]]:
    return [art / "m_tidl_io_1.bin"], [art / "m_tidl_net.bin"]


def test_a_working_library_passes_and_its_heap_answers(tidlrt_standin, art: Path) -> None:
    notes = trial_create(*files(art), library=tidlrt_standin("T4P-b"))
    assert notes == [("TIDL-RT: a trial TIDLRT_create in a child process succeeded and TI's shared heap answered a "
                      "4 KiB probe allocation")]


def test_a_failed_create_is_reported_with_its_status(tidlrt_standin, art: Path, monkeypatch) -> None:
    monkeypatch.setenv("TIDLRT_STANDIN_CREATE_STATUS", "-7")
    with pytest.raises(TidlRtError) as err:
        trial_create(*files(art), library=tidlrt_standin("T4P-b"))
    e = err.value
    assert (e.call, e.status, e.subgraph) == ("TIDLRT_create", -7, "m_tidl_io_1.bin")
    assert str(e).startswith("m_tidl_io_1.bin: TIDLRT_create failed with status -7") \
        and "(in a trial process, during TIDLRT_create (m_tidl_io_1.bin))" in str(e)


def test_a_crash_names_the_signal_and_the_call(tidlrt_standin, art: Path, monkeypatch) -> None:
    monkeypatch.setenv(ENV_PREFLIGHT, "0")
    with pytest.raises(TidlRtError) as err:
        trial_create(*files(art), library=tidlrt_standin("T4P-b", variant="board"))
    e = err.value
    assert (e.call, e.status, e.subgraph) == ("TIDLRT_create", None, "m_tidl_io_1.bin")
    assert str(e).startswith("TIDLRT_create (m_tidl_io_1.bin) crashed a trial process with signal SIGSEGV (")
    assert "TI's runtime said: APP_LOG: ERROR: Unable to open /dev/mem !!!" in str(e)


def test_the_verdict_on_literal_reports() -> None:
    create = {"step": "call", "call": "TIDLRT_create", "subgraph": "a_tidl_io_1.bin"}
    alloc = {"step": "call", "call": "TIDLRT_allocSharedMem"}
    with pytest.raises(TidlRtError, match=r"^TIDLRT_create \(a_tidl_io_1.bin\) did not return within 5 s"):
        _verdict(None, [create], b"", 5)
    with pytest.raises(TidlRtError) as err:
        _verdict(0, [create, alloc, {"step": "probe", "ok": False, "size": 4096, "align": 128}, {"step": "ok"}],
                 b"APP: Init ... Done !!!\nMEM: ERROR: Alloc failed with status = 38 !!!\n", 5)
    assert err.value.call == "TIDLRT_allocSharedMem"
    assert str(err.value) == ("TIDLRT_allocSharedMem(128, 4096) returned NULL right after a successful TIDLRT_create "
                              "(in a trial process): TI's shared heap does not answer. TI's runtime said: MEM: ERROR: "
                              "Alloc failed with status = 38 !!!. Its failed allocation: errno 38 (ENOSYS): the "
                              "DMA-heap ioctl is not implemented here (qemu-user does not emulate it, or the kernel "
                              "has no DMA heaps).")
    notes = _verdict(-6, [create, {"step": "ok"}], b"", 5)
    assert notes[-1] == "the trial process ended with signal SIGABRT (Aborted) after TIDLRT_delete (at exit)"
    with pytest.raises(TidlRtError, match=r"^starting Python crashed a trial process with exit status 1;"):
        _verdict(1, [], b"", 5)


def test_run_model_isolates_the_first_create(tidlrt_standin, art: Path, monkeypatch) -> None:
    monkeypatch.setenv("TIDL_IO_TIDLRT_LIBRARY", str(tidlrt_standin("T4P-b")))
    r = run_model(art, repeat=1, isolate=True)
    assert r.runtime == "TidlRtRuntime"
    assert r.notes[0].startswith("runtime: TIDL-RT (") and r.notes[1].startswith("TIDL-RT: a trial TIDLRT_create")
    monkeypatch.setenv("TIDLRT_STANDIN_CREATE_STATUS", "-7")
    r = run_model(art, repeat=1, isolate=True)
    assert r.runtime == "MockC7xRuntime" and r.notes[0].startswith("runtime: the host mock (m_tidl_io_1.bin: "
                                                                    "TIDLRT_create failed with status -7")
    with pytest.raises(TidlRtError, match="status -7"):
        run_model(art, runtime="tidlrt", repeat=1, isolate=True)


def test_no_python_to_start_is_an_error(tidlrt_standin, art: Path, monkeypatch) -> None:
    import sys

    monkeypatch.setattr(sys, "executable", str(art / "no-python"))
    with pytest.raises(TidlRtError, match="cannot start a trial process for TIDLRT_create with .*no-python"):
        trial_create(*files(art), library=tidlrt_standin("T4P-b"))
