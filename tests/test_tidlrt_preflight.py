"""tidl_io.runtime.tidlrt.devices: what TI's board runtime needs, checked before any call
that can crash; and, end to end, what `tidl-io run` / `info` and Session do with a board build
of the C stand-in (``-DSTANDIN_BOARD``: appInit fails without the devices, its allocation
returns NULL, TIDLRT_create then dies with a real SIGSEGV, as TIDL-RT 8.4 does under qemu).

Oracles: the device paths and status lines written in the stand-in's C source (and seen in TI's
8.4 library) spelled out here; fake /dev and /sys trees built here; errno numbers from the
`errno` module; the parent process itself surviving what would have been a SIGSEGV."""

from __future__ import annotations

import ctypes
import errno
import io
from pathlib import Path

import pytest

import tidl_io
from tidl_io import Session, TidlRtError
from tidl_io.cli.app import main
from tidl_io.runtime import MockC7xRuntime
from tidl_io.runtime.tidlrt import ENV_PREFLIGHT, TidlRtRuntime, load_library, preflight
from tidl_io.runtime.tidlrt.devices import Needs, alloc_status_cause, check_devices, library_needs
from tidl_io.runtime.tidlrt.library import alloc_shared

from runtime_oracles import PADDED, PADDED_OUT, _small, net_for

HEAP = "/dev/dma_heap/vision_apps_shared-memories"
BOARD_DEVICES = ("/dev/mem", HEAP, "/dev/dma-buf-phys")  # what TI's 8.4 library names, in its order


@pytest.fixture
def board(tidlrt_standin, monkeypatch) -> Path:
    lib = tidlrt_standin("T4P-b", variant="board")
    monkeypatch.setenv("TIDL_IO_TIDLRT_LIBRARY", str(lib))
    monkeypatch.delenv(ENV_PREFLIGHT, raising=False)
    return lib


@pytest.fixture
def art(tmp_path: Path) -> Path:
    """An 8.x artifacts folder (one subgraph, its net file of TIDL 8.2)."""
    desc = _small(family="8.x", inputs=[PADDED], outputs=[PADDED_OUT])
    folder = tmp_path / "artifacts"
    folder.mkdir()
    (folder / "m_tidl_io_1.bin").write_bytes(tidl_io.build(desc))
    (folder / "m_tidl_net.bin").write_bytes(net_for("T4P-b"))
    return folder


def fake_board(root: Path, *, state: str = "running", name: str = "64800000.dsp", devices=BOARD_DEVICES) -> Path:
    for d in devices:
        p = root / d.lstrip("/")
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"")
    (root / "dev" / "rpmsg_ctrl0").write_bytes(b"")
    rp = root / "sys" / "class" / "remoteproc" / "remoteproc2"
    rp.mkdir(parents=True)
    (rp / "name").write_text(name + "\n")
    (rp / "state").write_text(state + "\n")
    return root


# ---- what a library needs ------------------------------------------------------------------------

def test_a_pc_build_needs_nothing_and_a_board_build_its_devices(tidlrt_standin) -> None:
    pc = library_needs(str(tidlrt_standin("T4P-b")))
    assert pc == Needs((), False) and not pc.board
    board = library_needs(str(tidlrt_standin("T4P-b", variant="board")))
    assert board == Needs(BOARD_DEVICES, True) and board.board
    assert check_devices(pc) == []


def test_device_checks_on_a_fake_root(tmp_path: Path) -> None:
    needs = Needs(BOARD_DEVICES, True)
    ok = check_devices(needs, fake_board(tmp_path / "ok"))
    assert [c.name for c in ok] == [*BOARD_DEVICES, "/dev/rpmsg_ctrl*", "remote cores"] and all(c.ok for c in ok)
    assert ok[-1].found == "remoteproc2 64800000.dsp: running"
    offline = {c.name: c for c in check_devices(needs, fake_board(tmp_path / "off", state="offline"))}
    assert not offline["remote cores"].ok and offline["remote cores"].found == "remoteproc2 64800000.dsp: offline"
    no_heap = {c.name: c for c in check_devices(needs, fake_board(tmp_path / "noheap", devices=("/dev/mem",)))}
    assert not no_heap[HEAP].ok and no_heap[HEAP].found == "missing" and no_heap["/dev/mem"].ok
    empty = {c.name: c for c in check_devices(needs, tmp_path / "empty")}
    assert not any(c.ok for c in empty.values())
    assert empty["/dev/rpmsg_ctrl*"].found == "none"
    assert "remoteproc is missing or empty" in empty["remote cores"].found


def test_preflight_names_what_is_missing_and_can_be_switched_off(board, tmp_path: Path, monkeypatch) -> None:
    lib = load_library()
    with pytest.raises(TidlRtError) as err:
        preflight(lib, tmp_path)
    msg = str(err.value)
    assert err.value.call == "preflight" and msg.startswith(f"{board} is TI's board runtime and cannot run here")
    for d in BOARD_DEVICES:
        assert f"{d} (" in msg
    assert "runtime='mock'" in msg and "SIGSEGV" in msg and f"${ENV_PREFLIGHT}=0" in msg
    assert len(preflight(lib, fake_board(tmp_path / "board"))) == 5
    monkeypatch.setenv(ENV_PREFLIGHT, "0")
    assert preflight(lib, tmp_path) == []


def test_alloc_status_is_the_heap_ioctls_errno() -> None:
    assert alloc_status_cause(38).startswith("errno 38 (ENOSYS): the DMA-heap ioctl is not implemented here (qemu")
    assert alloc_status_cause(errno.ENOTTY).startswith(f"errno {errno.ENOTTY} (ENOTTY): ") \
        and "before any create" in alloc_status_cause(errno.ENOTTY)
    assert "full" in alloc_status_cause(errno.ENOMEM) and "full" not in alloc_status_cause(38)


def test_alloc_before_create_fails_and_the_message_does_not_blame_a_full_heap(board, capfd) -> None:
    lib = load_library()
    c = ctypes.CDLL(str(board))
    c.TIDLRT_allocSharedMem.restype = ctypes.c_void_p
    c.TIDLRT_allocSharedMem.argtypes = [ctypes.c_int32, ctypes.c_int32]
    assert c.TIDLRT_allocSharedMem(128, 4096) is None
    # TI's line, with the ioctl's errno on descriptor 0: ENOTTY from a kernel, ENOSYS from qemu-user
    said = capfd.readouterr().out
    assert said.strip() in (f"MEM: ERROR: Alloc failed with status = {e} !!!"
                            for e in (errno.ENOTTY, errno.EBADF, errno.ENOSYS))
    with pytest.raises(TidlRtError) as err:
        alloc_shared(lib, 4096, 128, {})
    assert "sets its shared heap up in TIDLRT_create" in str(err.value) and "38 ENOSYS" in str(err.value)


# ---- end to end: Session, tidl-io run and info with the board build ----------------------------------

def test_session_tidlrt_raises_and_auto_runs_the_mock(board, art: Path) -> None:
    with pytest.raises(TidlRtError, match=f"is TI's board runtime and cannot run here; it needs: .*{HEAP}"):
        Session(art, runtime="tidlrt")
    with pytest.raises(TidlRtError, match="cannot run here"):
        TidlRtRuntime(tidl_io.load(art / "m_tidl_io_1.bin"), art / "m_tidl_net.bin")
    with Session(art) as s:
        assert isinstance(s.runtimes[0], MockC7xRuntime)
        assert s.notes[0].startswith(f"runtime: the host mock ({board} is TI's board runtime and cannot run here")


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_run_auto_uses_the_mock_with_a_note_and_tidlrt_exits_2(board, art: Path) -> None:
    code, out, err = run_cli("run", str(art), "--repeat", "1")
    assert code == 0 and err == "" and out.startswith(f"{art}: MockC7xRuntime, 1 run(s)")
    assert f"  note: runtime: the host mock ({board} is TI's board runtime" in out and HEAP in out
    code, out, err = run_cli("run", str(art), "--runtime", "tidlrt", "--repeat", "1")
    assert code == 2 and out == ""  # the run could not be done here: 2, as diff
    assert err.startswith(f"tidl-io run: error: {board} is TI's board runtime and cannot run here") and HEAP in err


def test_run_turns_a_crash_in_create_into_an_error(board, art: Path, monkeypatch) -> None:
    """Past the preflight (switched off), TIDLRT_create of the board build dies with SIGSEGV:
    in the trial child, so this process carries on and says which call and which signal."""
    monkeypatch.setenv(ENV_PREFLIGHT, "0")
    code, out, err = run_cli("run", str(art), "--runtime", "tidlrt", "--repeat", "1")
    assert code == 2 and out == ""  # TI's library crashed: the run could not be done
    assert err.startswith("tidl-io run: error: TIDLRT_create (m_tidl_io_1.bin) crashed a trial process with signal "
                          "SIGSEGV")
    assert f"MEM: ERROR: Failed to initialize DMA HEAP [{HEAP}] !!!" in err
    assert "Its failed allocation: errno " in err
    code, out, err = run_cli("run", str(art), "--repeat", "1")
    assert code == 0 and err == "" and "MockC7xRuntime" in out.splitlines()[0]
    assert "  note: runtime: the host mock (TIDLRT_create (m_tidl_io_1.bin) crashed a trial process with signal " \
           "SIGSEGV" in out


def test_info_reads_the_layout_names_the_devices_and_probes_nothing(board, capfd) -> None:
    code, out, err = run_cli("info")
    lines = dict(line.split(": ", 1) for line in out.splitlines())
    assert code == 0 and err == ""
    assert lines["TIDL-RT layout"].lstrip().startswith("T4P-b (") and "08.04" in lines["TIDL-RT layout"]
    assert lines["TIDL-RT devices"].lstrip().startswith("missing (TI's board runtime") and HEAP in out
    assert lines["shared memory"].lstrip().startswith("not probed: TI's board runtime sets its heap up in "
                                                      "TIDLRT_create")
    assert "Alloc failed" not in capfd.readouterr().out  # the library was not asked to allocate


def test_info_says_ready_on_a_board(board, tmp_path: Path, monkeypatch) -> None:
    from tidl_io.runtime import info

    root = fake_board(tmp_path)
    real = check_devices
    monkeypatch.setattr("tidl_io.runtime.tidlrt.devices.check_devices", lambda needs, r="/": real(needs, root))
    assert dict(info.collect())["TIDL-RT devices"] == ("ready (TI's board runtime: /dev/mem, "
                                                       f"{HEAP}, /dev/dma-buf-phys, /dev/rpmsg_ctrl*, remote cores)")
