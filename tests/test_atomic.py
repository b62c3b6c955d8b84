"""write_bytes_atomic: a reader sees the old file or the new one, never a torn one -- even
when the writer is SIGKILLed mid-write -- and no temporary is left after a normal write or
an exception."""

from __future__ import annotations

import os
import random
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tidl_io.base import atomic as _atomic
from tidl_io.base.atomic import write_bytes_atomic

ATOMIC = Path(_atomic.__file__).resolve()

# The child loads _atomic.py by path (stdlib only): a fast start, so many kills stay cheap.
# It writes payload 0, 1, 0, 1, ... over the target and prints "done <i>" after write i.
CHILD = r"""
import importlib.util, sys
spec = importlib.util.spec_from_file_location("_atomic_under_test", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
target, n = sys.argv[2], int(sys.argv[3])
payloads = [b"A" * n, b"B" * (n // 2 + 3)]
print("ready", flush=True)
i = 0
while True:
    mod.write_bytes_atomic(target, payloads[i % 2])
    print("done", i, flush=True)
    i += 1
"""


def _leftovers(folder: Path, target: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p != target)


def _temp_pattern(target: Path) -> re.Pattern[str]:
    return re.compile(rf"\.{re.escape(target.name)}\..+\.tmp")


def test_sigkill_mid_write_leaves_the_old_or_the_new_file(tmp_path: Path) -> None:
    n = 16 << 20  # big enough that most kills land inside a write (16 MiB + fsync), small enough to be quick
    old = b"O" * n
    payloads = [b"A" * n, b"B" * (n // 2 + 3)]  # different sizes: a torn file cannot pass as either
    target = tmp_path / "big_tidl_io_1.bin"
    t0 = time.perf_counter()
    write_bytes_atomic(tmp_path / "probe.bin", payloads[0])
    one_write = time.perf_counter() - t0
    (tmp_path / "probe.bin").unlink()
    rng = random.Random(20240601)
    pattern = _temp_pattern(target)
    outcomes = {"after a complete write": 0, "killed mid-write (temp left)": 0}
    write_bytes_atomic(target, old)
    before = old  # what the target holds when the next child starts (the previous outcome)
    for kill in range(60):  # 20 kills, more (with longer delays) until both outcomes were seen
        if kill >= 20 and all(outcomes.values()):
            break
        proc = subprocess.Popen([sys.executable, "-S", "-c", CHILD, str(ATOMIC), str(target), str(n)],
                                stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        assert proc.stdout is not None
        try:
            assert proc.stdout.readline() == "ready\n"
            # anywhere in the first ~2 writes; a loaded machine writes slower than the probe did
            time.sleep(rng.uniform(0, (2 + kill // 10) * one_write))
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=60)
            # "done i" lines, i = 0, 1, ...; the kill may cut the last one short ("do"), but its
            # write had completed before the print began: count the lines, not their numbers
            completed = [line for line in proc.stdout.read().splitlines() if line.startswith("d")]
        finally:
            proc.kill()
            proc.wait(timeout=60)
            proc.stdout.close()
        assert proc.returncode == -signal.SIGKILL
        data = target.read_bytes()
        # write i is complete when "done i" was printed; write i+1 may have renamed before the kill
        last = len(completed) - 1
        allowed = [payloads[last % 2] if last >= 0 else before, payloads[(last + 1) % 2]]
        assert any(data == a for a in allowed), (
            f"kill {kill}: torn file of {len(data)} bytes starting {data[:1]!r} after {last + 1} complete writes")
        outcomes["after a complete write"] += last >= 0
        before = data
        left = _leftovers(tmp_path, target)
        assert all(pattern.fullmatch(name) for name in left), left  # only our own hidden temporaries
        assert len(left) <= 1
        if left:
            outcomes["killed mid-write (temp left)"] += 1
        for name in left:
            (tmp_path / name).unlink()
    # the kills landed both inside writes and after complete ones (timing-dependent, but with delays
    # spread over two write times both are all but certain)
    assert outcomes["after a complete write"] > 0 and outcomes["killed mid-write (temp left)"] > 0, outcomes


def test_normal_write_and_overwrite_leave_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "x.bin"
    write_bytes_atomic(target, b"first")
    write_bytes_atomic(target, bytearray(b"second, longer"))
    write_bytes_atomic(str(target), memoryview(b"third"))
    assert target.read_bytes() == b"third"
    assert _leftovers(tmp_path, target) == []


@pytest.mark.parametrize("exc", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_exception_mid_write_keeps_the_old_file_and_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 exc: BaseException) -> None:
    target = tmp_path / "x.bin"
    write_bytes_atomic(target, b"old content")

    def failing_fsync(fd: int) -> None:
        raise exc

    monkeypatch.setattr(_atomic.os, "fsync", failing_fsync)
    with pytest.raises(type(exc)):
        write_bytes_atomic(target, b"new content that never lands")
    monkeypatch.undo()
    assert target.read_bytes() == b"old content"
    assert _leftovers(tmp_path, target) == []


def test_failed_rename_keeps_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "x.bin"
    target.mkdir()  # os.replace of a file onto a folder fails
    with pytest.raises(OSError):
        write_bytes_atomic(target, b"data")
    assert target.is_dir()
    assert _leftovers(tmp_path, target) == []


def test_missing_folder_is_an_error_and_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        write_bytes_atomic(tmp_path / "no" / "such" / "x.bin", b"data")
    assert list(tmp_path.iterdir()) == []


def test_cwd_relative_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_bytes_atomic("rel.bin", b"abc")
    assert (tmp_path / "rel.bin").read_bytes() == b"abc"
    assert sorted(os.listdir(tmp_path)) == ["rel.bin"]


def test_permissions_are_those_of_a_plain_write(tmp_path: Path) -> None:
    old_mask = os.umask(0o022)
    try:
        write_bytes_atomic(tmp_path / "new.bin", b"x")
        assert stat.S_IMODE((tmp_path / "new.bin").stat().st_mode) == 0o644  # 0o666 less the umask
        kept = tmp_path / "kept.bin"
        kept.write_bytes(b"")
        kept.chmod(0o640)
        write_bytes_atomic(kept, b"y")
        assert stat.S_IMODE(kept.stat().st_mode) == 0o640  # an overwrite keeps the file's mode
    finally:
        os.umask(old_mask)


def test_write_failure_says_the_path_and_the_reason_once(tmp_path: Path) -> None:
    from tidl_io.base.atomic import open_atomic, write_failure

    dest = tmp_path / "no" / "r.html"
    with pytest.raises(OSError) as info, open_atomic(dest):
        pass
    assert write_failure(info.value, dest) == f"{dest}: cannot write it: the folder '{dest.parent}' does not exist"
    assert write_failure(PermissionError(13, "Permission denied"), "out/r.html") == \
        "out/r.html: cannot write: Permission denied"
