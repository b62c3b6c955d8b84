"""write_bytes_atomic: a reader sees the old file or the new one, never a torn one -- even
when the writer is SIGKILLed mid-write -- and no temporary is left after a normal write or
an exception."""

from __future__ import annotations

import contextlib
import os
import random
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tidl_io.base import atomic as _atomic
from tidl_io.base.atomic import write_bytes_atomic
from tidl_io.base.errors import PathError

ATOMIC = Path(_atomic.__file__).resolve()

# The child loads base/atomic.py and base/errors.py (stdlib only) without the package's __init__:
# a fast start, so many kills stay cheap. It writes payload 0, 1, 0, 1, ... over the target and
# prints "done <i>" after write i.
CHILD = r"""
import importlib, os, sys, types
base = os.path.dirname(sys.argv[1])
for name, folder in (("tidl_io", os.path.dirname(base)), ("tidl_io.base", base)):
    package = types.ModuleType(name)
    package.__path__ = [folder]
    sys.modules[name] = package
mod = importlib.import_module("tidl_io.base.atomic")
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


# ---- what is at the path decides: a device or a FIFO is written through, never replaced (issue 32 item 3) ----

NULL = os.makedev(1, 3)  # /dev/null's major and minor (Linux)
FULL = os.makedev(1, 7)  # /dev/full: every write fails with ENOSPC


def make_node(path: Path, device: int = NULL, kind: int = stat.S_IFCHR) -> Path:
    """A device node of our own at ``path`` (never the machine's /dev/null). Needs root
    (CAP_MKNOD) and a file system that allows devices: skipped otherwise, except under CI
    (CI=true runs as root), where not being able to make it is a failure."""
    try:
        os.mknod(path, kind | 0o666, device)
        if kind == stat.S_IFCHR:
            os.close(os.open(path, os.O_WRONLY))  # a nodev mount refuses the open, not the mknod
    except OSError as exc:
        with contextlib.suppress(OSError):
            path.unlink()
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but no device node could be made at {path} ({exc}): CI must run these as root")
        pytest.skip(f"cannot make a device node here ({exc}): run as root to test writing over devices")
    return path


def assert_null_device(path: Path, device: int = NULL) -> None:
    st = os.lstat(path)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == device, f"{path} was replaced: mode {st.st_mode:o}"


@pytest.fixture()
def null(tmp_path: Path) -> Path:
    return make_node(tmp_path / "null")


def test_a_character_device_is_written_through_not_replaced(null: Path) -> None:
    write_bytes_atomic(null, b"x" * 100_000)
    assert_null_device(null)
    with _atomic.open_atomic(str(null)) as fh:  # streaming writers (np.savez) alike
        np.savez(fh, a=np.arange(10))
    assert_null_device(null)
    assert sorted(p.name for p in null.parent.iterdir()) == ["null"]  # no temporary beside it


def test_a_symlink_is_followed_never_replaced(tmp_path: Path, null: Path) -> None:
    to_null = tmp_path / "to_null"
    to_null.symlink_to("null")  # relative, as ln -s makes them
    write_bytes_atomic(to_null, b"data")
    assert to_null.is_symlink() and os.readlink(to_null) == "null"
    assert_null_device(null)
    (tmp_path / "sub").mkdir()
    real = tmp_path / "sub" / "real.bin"
    real.write_bytes(b"old")
    chain = tmp_path / "chain"
    (tmp_path / "link1").symlink_to(Path("sub") / "real.bin")
    chain.symlink_to(tmp_path / "link1")  # a chain: absolute -> relative -> the file
    before = real.stat().st_ino
    write_bytes_atomic(chain, b"new")
    assert chain.is_symlink() and (tmp_path / "link1").is_symlink()
    assert real.read_bytes() == b"new" and real.stat().st_ino != before  # replaced atomically, at the target
    assert sorted(p.name for p in (tmp_path / "sub").iterdir()) == ["real.bin"]
    dangling = tmp_path / "dangling"
    dangling.symlink_to(Path("sub") / "later.bin")
    write_bytes_atomic(dangling, b"made")
    assert dangling.is_symlink() and (tmp_path / "sub" / "later.bin").read_bytes() == b"made"


def test_a_fifo_is_written_through_to_its_reader(tmp_path: Path) -> None:
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as fh:
            got.append(fh.read())

    for write in (lambda: write_bytes_atomic(fifo, b"abc" * 100_000),  # more than a pipe's buffer
                  lambda: _savez_into(fifo)):
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        write()
        reader.join(timeout=60)
        assert not reader.is_alive() and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert got[0] == b"abc" * 100_000
    import io

    with np.load(io.BytesIO(got[1])) as z:  # a zip written to a stream that cannot seek
        assert np.array_equal(z["a"], np.arange(1000))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def _savez_into(path: Path) -> None:
    with _atomic.open_atomic(path) as fh:
        np.savez(fh, a=np.arange(1000))


def test_a_file_held_through_proc_fd_is_appended_to_not_replaced(tmp_path: Path) -> None:
    """/dev/stdout redirected into a file: replacing the file would hide it from the shell."""
    held = tmp_path / "out.txt"
    with open(held, "wb") as fh:
        fh.write(b"report\n")
        fh.flush()
        before = held.stat().st_ino
        write_bytes_atomic(f"/proc/self/fd/{fh.fileno()}", b"page\n")
    assert held.read_bytes() == b"report\npage\n" and held.stat().st_ino == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_a_failing_device_write_is_located_and_keeps_the_device(tmp_path: Path) -> None:
    full = make_node(tmp_path / "full", FULL)
    with pytest.raises(PathError) as info:
        write_bytes_atomic(full, b"x" * 10_000)
    assert str(info.value) == f"{full}: cannot write: No space left on device"
    assert_null_device(full, FULL)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full"]


def test_what_cannot_be_written_is_refused_with_one_line(tmp_path: Path) -> None:
    import socket
    import tempfile

    block = make_node(tmp_path / "block", os.makedev(7, 250), stat.S_IFBLK)  # a loop device's numbers
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "keep").write_text("k")
    with tempfile.TemporaryDirectory(prefix="s") as short:  # AF_UNIX paths are short (not under tmp_path)
        sock_path = Path(short) / "s"
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(str(sock_path))
            cases = [(block, "a block device"), (folder, "a folder"), (sock_path, "a socket")]
            for path, what in cases:
                link = tmp_path / f"link_to_{path.name}"
                link.symlink_to(path)
                for name in (path, link):
                    with pytest.raises(PathError) as info:
                        write_bytes_atomic(name, b"data")
                    line = str(info.value)
                    assert line == f"{name}: cannot write it: it is {what}; expected {_atomic.WRITABLE}", line
                    assert "\n" not in line and info.value.filename == str(name)
            assert stat.S_ISSOCK(os.lstat(sock_path).st_mode)
    assert stat.S_ISBLK(os.lstat(block).st_mode) and os.lstat(block).st_rdev == os.makedev(7, 250)
    assert isinstance(info.value, OSError) and sorted(p.name for p in folder.iterdir()) == ["keep"]
    with pytest.raises(IsADirectoryError):
        write_bytes_atomic(folder, b"data")


def test_an_output_folder_is_made_or_refused(tmp_path: Path, null: Path) -> None:
    made = _atomic.make_output_folder(tmp_path / "a" / "b", "a folder for traces")
    assert made.is_dir()
    (tmp_path / "file").write_text("x")
    for path, what in ((null, "a character device"), (tmp_path / "file", "a regular file")):
        with pytest.raises(PathError) as info:
            _atomic.make_output_folder(path, "a folder for traces")
        assert str(info.value) == f"{path}: cannot write into it: it is {what}, not a folder; expected a folder for traces"
    assert_null_device(null)


# ---- every writer of the package, library and command line, over a device node of our own ----

def _cli(*argv: str) -> tuple[int, str, str]:
    import io

    from tidl_io.cli.app import main

    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def _east() -> Path:
    from conftest import EAST, REALDATA

    if not (REALDATA / EAST).is_dir():
        pytest.skip("../shared/realdata not present")
    return REALDATA / EAST


def _emulate_args(tmp_path: Path) -> list[str]:
    from tidl_io.emulator._fixture import tiny_net

    data, _ = tiny_net(0)
    (tmp_path / "x_tidl_net.bin").write_bytes(data)
    np.save(tmp_path / "x.npy", np.zeros((4, 2, 8, 12), np.float32))
    return ["emulate", str(tmp_path / "x_tidl_net.bin"), "--input", str(tmp_path / "x.npy")]


def _compare_args(tmp_path: Path) -> list[str]:
    import tidl_io

    east = _east()
    number = next(int(line.split(":")[0]) for line in (east / "onnxrtMetaData.txt").read_text().splitlines()
                  if line.endswith("subGraphName=625"))
    layer = tidl_io.load_net(east / "625_tidl_net.bin").layer_by_data_id(4)
    n, c, h, w = layer.shape
    (tmp_path / "tr").mkdir(exist_ok=True)
    np.zeros(layer.shape, layer.dtype).tofile(
        tmp_path / "tr" / f"tidl_trace_subgraph_{number}_0004_{n:04d}_0001_00001_{c:05d}_{w:06d}x{h:05d}.y")
    return ["compare", str(tmp_path / "tr"), "--artifacts", str(east), "--ref", str(tmp_path / "tr")]


def _golden_args(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from tidl_io.trace import golden

    run = golden.GoldenRun("m.onnx", "NCHW", {"x": np.arange(6.0)}, ())
    monkeypatch.setattr(golden, "load_model_inputs", lambda *a, **k: {})  # no onnxruntime needed to write
    monkeypatch.setattr(golden, "run_golden", lambda *a, **k: run)
    return ["golden", str(tmp_path / "m.onnx"), "--input", "x.npy"]


def _perf_args(tmp_path: Path) -> list[str]:
    from perf_fixtures import write_tiny

    return ["perf", str(write_tiny(tmp_path / "perf"))]


from conftest import EXAMPLES

# (id, the command line before the output path, its output option, the exit code of a good run)
CLI_FILE_WRITERS = [
    ("inspect --html -o", lambda tmp, mp: ["inspect", "--html", str(EXAMPLES)], "-o", 0),
    ("doctor --html", lambda tmp, mp: ["doctor", "--no-library", str(EXAMPLES)], "--html", 0),
    ("perf --html", lambda tmp, mp: _perf_args(tmp), "--html", 0),
    ("compare --html", lambda tmp, mp: _compare_args(tmp), "--html", 0),
    ("golden -o", _golden_args, "-o", 0),
    ("emulate --output", lambda tmp, mp: _emulate_args(tmp), "--output", 0),
]
CLI_FOLDER_WRITERS = [
    ("inspect --svg -o", lambda tmp, mp: ["inspect", "--svg", str(EXAMPLES)], "-o"),
    ("emulate --traces", lambda tmp, mp: _emulate_args(tmp), "--traces"),
]


@pytest.mark.parametrize(("args", "option", "good"), [pytest.param(*w[1:], id=w[0]) for w in CLI_FILE_WRITERS])
def test_every_cli_file_output_writes_through_a_device_and_refuses_a_block_device(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: Any, option: str, good: int) -> None:
    argv = args(tmp_path, monkeypatch)
    null = make_node(tmp_path / "null")
    code, _, err = _cli(*argv, option, str(null))
    assert (code, err) == (good, "")
    assert_null_device(null)
    link = tmp_path / "link"
    link.symlink_to(null)
    code, _, err = _cli(*argv, option, str(link))
    assert (code, err) == (good, "") and link.is_symlink()
    assert_null_device(null)
    block = make_node(tmp_path / "block", os.makedev(7, 250), stat.S_IFBLK)
    code, _, err = _cli(*argv, option, str(block))
    assert code == 2 and err.count("\n") == 1 and f"{block}: cannot write it: it is a block device" in err, err
    assert stat.S_ISBLK(os.lstat(block).st_mode)
    names = {p.name for p in tmp_path.iterdir()}
    assert not any(n.endswith(".tmp") for n in names), names


@pytest.mark.parametrize(("args", "option"), [pytest.param(*w[1:], id=w[0]) for w in CLI_FOLDER_WRITERS])
def test_every_cli_folder_output_refuses_a_device_and_writes_through_one_inside(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: Any, option: str) -> None:
    argv = args(tmp_path, monkeypatch)
    null = make_node(tmp_path / "null")
    code, _, err = _cli(*argv, option, str(null))
    assert code == 2 and err.count("\n") == 1, err
    assert f"{null}: cannot write into it: it is a character device, not a folder" in err, err
    assert_null_device(null)
    folder = tmp_path / "out"
    code, _, err = _cli(*argv, option, str(folder))  # a good run, to learn the names it writes
    assert (code, err) == (0, "")
    names = sorted(p.name for p in folder.iterdir())
    assert names
    for name in names:
        (folder / name).unlink()
        make_node(folder / name)
    code, _, err = _cli(*argv, option, str(folder))
    assert (code, err) == (0, "")
    for name in names:
        assert_null_device(folder / name)
    assert sorted(p.name for p in folder.iterdir()) == names


def test_every_library_writer_writes_through_a_device(tmp_path: Path, null: Path) -> None:
    from test_precision_qparams import HAND

    import tidl_io
    from tidl_io.emulator._fixture import tiny_net
    from tidl_io.precision.qparams import parse_quant_params
    from tidl_io.trace.golden import GoldenRun, save_golden

    parse_quant_params(HAND).save(null)
    assert_null_device(null)
    save_golden(null, GoldenRun("m.onnx", "NCHW", {"x": np.arange(6.0)}, ()))
    assert_null_device(null)
    data, _ = tiny_net(0)
    (tmp_path / "x_tidl_net.bin").write_bytes(data)
    emulation = tidl_io.emulate(tmp_path / "x_tidl_net.bin", np.zeros((4, 2, 8, 12), np.float32))
    with pytest.raises(tidl_io.PathError, match=r"null: cannot write into it: it is a character device, not a folder"):
        emulation.write_traces(null)
    assert_null_device(null)
    names = [p.name for p in emulation.write_traces(tmp_path / "tr")]
    for name in names:
        (tmp_path / "tr" / name).unlink()
        make_node(tmp_path / "tr" / name)
    emulation.write_traces(tmp_path / "tr")
    for name in names:
        assert_null_device(tmp_path / "tr" / name)


# Every place in tidl_io/ that writes a file: each goes through base/atomic (open_atomic,
# write_bytes_atomic, make_output_folder), so the rules above hold for all of them. A new writer
# that does not fails here; files allowed to write on their own say why.
_WRITES = re.compile(r"open\([^)]*['\"][wax]b?\+?['\"]|\.write_(?:text|bytes)\(|np\.save(?:z|z_compressed|txt)?\("
                     r"|\.tofile\(|\.mkdir\(|os\.makedirs\(|shutil\.copy|os\.replace\(|os\.rename\(|O_WRONLY|O_CREAT")
_OWN_WRITES = {
    "base/atomic.py": "the writer itself",
    "native/build.py": "pip's build step: the package's own library, in its own folder",
    "runtime/tidlrt/_trial.py": "a temporary folder of its own (the request to the child process)",
    "cli/app.py": "stdout onto os.devnull after a broken pipe (opens the machine's /dev/null, writes nothing)",
}


def test_every_writer_goes_through_base_atomic() -> None:
    package = ATOMIC.parent.parent
    found = []
    for source in sorted(package.rglob("*.py")):
        rel = source.relative_to(package).as_posix()
        if rel in _OWN_WRITES:
            continue
        for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            for match in _WRITES.finditer(code):
                if match.group(0).startswith("np.save") and re.search(r"np\.savez?\((fh|stream)\b", code):
                    continue  # into a file open_atomic gave
                found.append(f"{rel}:{number}: {line.strip()}")
    assert found == [], "write these through tidl_io.base.atomic:\n" + "\n".join(found)
