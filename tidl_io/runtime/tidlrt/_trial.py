"""A trial of TIDL-RT in a child process: the first ``TIDLRT_create`` of a model (and a
probe allocation of TI's shared heap after it), run where a crash cannot take the caller
down. :func:`trial_create` turns whatever happens there into a result or a
:class:`~tidl_io.TidlRtError`: a signal (SIGSEGV inside TI's library) is named with the
call that was running and TI's last error lines.

The child is a new Python (``python -m tidl_io.runtime.tidlrt._trial``), not a fork: the
caller has not called into TI's runtime yet (loading the library and reading its defaults
do not start it), so TI's runtime is never set up twice in one process and no thread of it
is copied into the child. The child reports each step as one JSON line in a file, written
before the step, so the last line names the call that was running when it died.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...base.errors import TidlIoError, TidlRtError
from ...iodesc.descriptor import load
from .devices import alloc_status_cause

__all__ = ["trial_create"]

TIMEOUT = 300.0  # seconds: a create that waits on remote cores that never answer
_PROBE = (128, 4096)  # alignment, bytes
_TI_LINES = 6
_ALLOC_FAILED = re.compile(rb"Alloc failed with status = (-?\d+)")


def trial_create(io_files: Sequence[str | os.PathLike[str]], net_files: Sequence[str | os.PathLike[str] | None], *,
                 library: str | os.PathLike[str] | None = None, version: str | None = None,
                 options: Mapping[str, Any] | None = None, timeout: float = TIMEOUT) -> list[str]:
    """Create (then delete) a :class:`~tidl_io.TidlRtRuntime` for every io file in a child
    process, and probe TI's shared heap there after the first create. Returns notes on
    what was seen; raises :class:`~tidl_io.TidlRtError` naming the call, the status or the
    signal, and TI's last error lines, when the child failed or died."""
    request = {"io": [os.fspath(p) for p in io_files],
               "net": [None if n is None else os.fspath(n) for n in net_files],
               "library": None if library is None else os.fspath(library), "version": version,
               "options": dict(options or {})}
    package_parent = str(Path(__file__).resolve().parents[3])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH")) if p)
    with tempfile.TemporaryDirectory(prefix="tidl-io-trial-") as tmp:
        req, steps = Path(tmp, "request.json"), Path(tmp, "steps.jsonl")
        req.write_text(json.dumps(request))
        steps.touch()
        try:
            done = subprocess.run([sys.executable, "-m", __name__, str(req), str(steps)], env=env,
                                  stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, check=False)
            code, output = done.returncode, done.stdout + done.stderr
        except subprocess.TimeoutExpired as exc:
            code, output = None, (exc.stdout or b"") + (exc.stderr or b"")
        except OSError as exc:  # no Python to start (an embedded interpreter without sys.executable)
            raise TidlRtError(f"cannot start a trial process for TIDLRT_create with {sys.executable!r}: {exc}",
                              call="TIDLRT_create") from None
        lines = [json.loads(x) for x in steps.read_text().splitlines() if x.strip()]
    return _verdict(code, lines, output, timeout)


def _ti_said(output: bytes) -> str:
    """TI's last error lines (its own ``ERROR`` messages), one line each."""
    errors = [x.decode(errors="replace").strip() for x in output.splitlines() if b"ERROR" in x]
    return " | ".join(errors[-_TI_LINES:])


def _verdict(code: int | None, lines: list[dict[str, Any]], output: bytes, timeout: float) -> list[str]:
    calls = [x for x in lines if x["step"] == "call"]
    last: dict[str, Any] = calls[-1] if calls else {"call": "starting Python", "subgraph": None}
    where = str(last["call"]) + (f" ({last['subgraph']})" if last.get("subgraph") else "")
    ti, cause = _ti_said(output), alloc_failure(output)
    said = (f" TI's runtime said: {ti}." if ti else "") + (f" Its failed allocation: {cause}." if cause else "")
    ok = any(x["step"] == "ok" for x in lines)
    error = next((x for x in lines if x["step"] == "error"), None)
    notes = []
    probed = next((x for x in lines if x["step"] == "probe"), None)
    if probed is not None and probed["ok"]:
        notes.append(f"TIDL-RT: a trial TIDLRT_create in a child process succeeded and TI's shared heap answered "
                     f"a {probed['size'] // 1024} KiB probe allocation")
    elif probed is not None:
        raise TidlRtError(f"TIDLRT_allocSharedMem({probed['align']}, {probed['size']}) returned NULL right after a "
                          f"successful TIDLRT_create (in a trial process): TI's shared heap does not answer.{said}",
                          call="TIDLRT_allocSharedMem")
    elif ok:
        notes.append("TIDL-RT: a trial TIDLRT_create in a child process succeeded")
    if ok:
        if code:
            notes.append(f"the trial process ended with {_how(code)} after TIDLRT_delete (at exit)")
        return notes
    if error is not None:
        raise TidlRtError(f"{error['message']} (in a trial process, during {where}).{said}",
                          call=error.get("call") or last["call"], status=error.get("status"),
                          subgraph=last.get("subgraph"))
    if code is None:
        raise TidlRtError(f"{where} did not return within {timeout:g} s in a trial process (stopped): TI's runtime "
                          f"waits for remote cores that do not answer; check their firmware "
                          f"(/sys/class/remoteproc/*/state).{said}", call=last["call"], subgraph=last.get("subgraph"))
    raise TidlRtError(f"{where} crashed a trial process with {_how(code)}; tidl-io ran it apart, so this process "
                      f"survives.{said} TI's runtime cannot run on this machine as it is: on a board, check that the "
                      f"remote cores run their firmware (/sys/class/remoteproc/*/state) and that TI's devices "
                      f"(/dev/dma_heap/..., /dev/rpmsg_ctrl*, /dev/mem) are there and usable by this user; "
                      f"elsewhere use the host mock (runtime='mock')", call=last["call"],
                      subgraph=last.get("subgraph"))


def _how(code: int) -> str:
    if code < 0:
        try:
            sig = signal.Signals(-code)
        except ValueError:
            return f"signal {-code}"
        return f"signal {sig.name} ({signal.strsignal(sig) or sig.name})"
    return f"exit status {code}"


# ---- the child ----------------------------------------------------------------------------

def _child(request_file: str, steps_file: str) -> int:
    import resource  # start-up

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crash here is expected: no core file
    fd = os.open(steps_file, os.O_WRONLY | os.O_APPEND)

    def step(kind: str, **kw: Any) -> None:
        os.write(fd, (json.dumps({"step": kind, **kw}) + "\n").encode())

    from ._select import probe  # start-up
    from .library import load_library  # start-up
    from .runtime import TidlRtRuntime  # start-up

    try:
        req = json.loads(Path(request_file).read_text())
        step("call", call="dlopen")
        lib = load_library(req["library"])
        step("call", call="TIDLRT_setParamsDefault / TIDLRT_setTensorDefault (layout fingerprint)")
        probe(lib)
        runtimes = []
        for io, net in zip(req["io"], req["net"]):
            desc = load(io)
            step("call", call="TIDLRT_create", subgraph=Path(io).name)
            runtimes.append(TidlRtRuntime(desc, net, library=req["library"], version=req["version"],
                                          **req["options"]))
        if runtimes and lib.has("TIDLRT_allocSharedMem") and lib.has("TIDLRT_freeSharedMem"):
            align, size = _PROBE
            step("call", call="TIDLRT_allocSharedMem")
            with lib.lock:
                ptr = lib.fn("TIDLRT_allocSharedMem")(align, size)
            if ptr:
                step("call", call="TIDLRT_freeSharedMem")
                with lib.lock:
                    lib.fn("TIDLRT_freeSharedMem")(ptr)
            step("probe", ok=bool(ptr), size=size, align=align)
        for rt in runtimes:
            step("call", call="TIDLRT_delete", subgraph=rt.subgraph)
            rt.close()
        step("ok")
    except TidlIoError as exc:
        step("error", message=str(exc), call=getattr(exc, "call", None), status=getattr(exc, "status", None))
        return 3
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which raises
        step("error", message=f"{type(exc).__name__}: {exc}", call=None, status=None)
        return 4
    return 0


def alloc_failure(output: bytes) -> str | None:
    """The cause of TI's ``Alloc failed with status = N`` in ``output``, if printed."""
    m = _ALLOC_FAILED.search(output)
    return None if m is None else alloc_status_cause(int(m.group(1)))


if __name__ == "__main__":  # pragma: no cover - run by trial_create in a child process
    sys.exit(_child(sys.argv[1], sys.argv[2]))
