"""The fuzz run: worker processes (each runs a range of inputs under a per-input alarm), the
parent that spawns, watches and restarts them, the report, ``--replay`` and the command line."""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .checker import Failure, Hang, Stats
from .corpus import ROOT, default_corpus_dirs, load_corpus
from .dispatch import make_checker
from .inputs import make_input

DEFAULT_MAX_ALLOC = 64 * 1024 * 1024
ENTRY = ROOT / "tools" / "fuzz.py"  # what the workers run: the same command line as the user's


def _peak_rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024.0  # kilobytes on Linux


def _worker(args: argparse.Namespace) -> int:
    """Run inputs [start, stop): print ``S <i>`` before each, ``F <json>`` per failure,
    ``D <json>`` (stats) at the end."""
    corpus = load_corpus(args.corpus)
    stats = Stats()
    # the parent owns the scratch root and removes it, even after a worker was killed
    scratch = Path(tempfile.mkdtemp(prefix=f"worker-{args.start}-", dir=args.scratch))
    checker = make_checker(stats, scratch, args.cli_every, args.tensors)
    out = sys.stdout
    limit_ms = args.max_ms

    def alarm(signum: int, frame: Any) -> None:
        raise Hang()

    signal.signal(signal.SIGALRM, alarm)
    selftests = {int(index): what for what, _, index in
                 (item.partition(":") for item in (args.selftest or "").split(",") if item)}
    checker.warm_up(corpus)
    gc.collect()
    gc.freeze()
    try:
        for i in range(args.start, args.stop):
            out.write(f"S {i}\n")
            out.flush()
            item = make_input(corpus, args.seed, i)
            rng = random.Random(f"tidl-io-fuzz-ops:{args.seed}:{i}")
            signal.setitimer(signal.ITIMER_REAL, args.hang_s)
            c0, w0 = time.process_time(), time.perf_counter()
            try:
                if i in selftests:
                    _selftest(selftests[i], args.hang_s)
                checker.run(i, item, rng)
            except Hang:
                stats.failures.append(Failure(i, "?", "hang", f"no result after {args.hang_s} s"))
            except Exception as exc:  # noqa: BLE001 - a bug of the harness itself: report it, go on
                trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=-6))
                stats.failures.append(Failure(i, "harness", type(exc).__name__, str(exc)[:300], trace))
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            cpu_ms, wall_ms = 1e3 * (time.process_time() - c0), 1e3 * (time.perf_counter() - w0)
            stats.inputs += 1
            if cpu_ms > limit_ms:
                stats.over += 1
                stats.over_indices.append(i)
            stats.max_cpu_ms = max(stats.max_cpu_ms, cpu_ms)
            stats.max_wall_ms = max(stats.max_wall_ms, wall_ms)
            if cpu_ms > stats.slowest[0]:
                stats.slowest = (cpu_ms, i)
            while stats.failures:
                f = stats.failures.pop()
                out.write("F " + json.dumps(f.__dict__) + "\n")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)  # files, and the folders the hostile target makes
    done = {"inputs": stats.inputs, "ops": stats.ops, "over": stats.over, "over_indices": stats.over_indices[:50],
            "max_cpu_ms": stats.max_cpu_ms, "max_wall_ms": stats.max_wall_ms, "slowest": stats.slowest,
            "peak_rss_mb": _peak_rss_mb()}
    out.write("D " + json.dumps(done) + "\n")
    out.flush()
    return 0


def _selftest(what: str, hang_s: float) -> None:
    """Planted faults that prove the harness reports them (tests/test_fuzz.py)."""
    if what == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif what == "hang":
        time.sleep(hang_s * 5)
    elif what == "slow":
        end = time.process_time() + 0.25
        while time.process_time() < end:
            pass


@dataclass
class _Job:
    start: int
    stop: int
    proc: subprocess.Popen[str] | None = None
    current: int = -1
    last_seen: float = 0.0
    buf: str = ""


def _spawn(args: argparse.Namespace, job: _Job, env: dict[str, str]) -> None:
    cmd = [sys.executable, str(ENTRY), "--worker", "--seed", str(args.seed),
           "--start", str(job.start), "--stop", str(job.stop), "--max-ms", str(args.max_ms),
           "--cli-every", str(args.cli_every), "--tensors", str(args.tensors), "--hang-s", str(args.hang_s),
           "--scratch", str(args.scratch)]
    if args.selftest:
        cmd += ["--selftest", args.selftest]
    for c in args.corpus:
        cmd += ["--corpus", str(c)]
    job.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=env,
                                bufsize=1)
    job.current = job.start - 1
    job.last_seen = time.monotonic()


def run_parent(args: argparse.Namespace) -> int:
    env = dict(os.environ)
    env["TIDL_IO_MAX_ALLOC_BYTES"] = str(args.max_alloc)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    save_dir = Path(args.save_dir) if args.save_dir else Path(tempfile.mkdtemp(prefix="tidl-io-fuzz-"))
    save_dir.mkdir(parents=True, exist_ok=True)
    corpus = load_corpus(args.corpus)
    t0 = time.perf_counter()
    n, jobs = args.n, max(1, args.jobs)
    chunk = -(-n // jobs)
    pending = [_Job(s, min(s + chunk, n)) for s in range(0, n, chunk)]
    sel = selectors.DefaultSelector()
    for job in pending:
        _spawn(args, job, env)
        assert job.proc is not None and job.proc.stdout is not None
        sel.register(job.proc.stdout, selectors.EVENT_READ, job)
    totals: dict[str, Any] = {"inputs": 0, "over": 0, "over_indices": [], "max_cpu_ms": 0.0, "max_wall_ms": 0.0,
                              "slowest": (0.0, -1), "peak_rss_mb": 0.0, "ops": {}}
    failures: list[dict[str, Any]] = []
    live = len(pending)
    next_report = time.monotonic() + args.progress_s

    def absorb(d: dict[str, Any]) -> None:
        totals["over"] += d["over"]
        totals["over_indices"] += d["over_indices"]
        totals["max_cpu_ms"] = max(totals["max_cpu_ms"], d["max_cpu_ms"])
        totals["max_wall_ms"] = max(totals["max_wall_ms"], d["max_wall_ms"])
        totals["slowest"] = max(totals["slowest"], tuple(d["slowest"]))
        totals["peak_rss_mb"] = max(totals["peak_rss_mb"], d["peak_rss_mb"])
        for op, counts in d["ops"].items():
            acc = totals["ops"].setdefault(op, [0, 0, 0])
            for k in range(3):
                acc[k] += counts[k]

    def lost(job: _Job, kind: str, message: str) -> None:
        """The worker died or hung on job.current: record it, restart after it."""
        nonlocal live
        failures.append({"index": job.current, "op": "?", "kind": kind, "message": message, "trace": ""})
        if job.current + 1 < job.stop:
            job.start = job.current + 1
            _spawn(args, job, env)
            assert job.proc is not None and job.proc.stdout is not None
            sel.register(job.proc.stdout, selectors.EVENT_READ, job)
        else:
            live -= 1

    while live:
        events = sel.select(timeout=1.0)
        for key, _ in events:
            job = key.data
            assert job.proc is not None
            line = job.proc.stdout.readline() if job.proc.stdout else ""
            if not line:  # EOF: the worker exited
                sel.unregister(key.fileobj)
                code = job.proc.wait()
                if job.buf != "done":
                    why = f"worker exited {code}" + (f" (signal {-code})" if code < 0 else "")
                    lost(job, "crash", why)
                else:
                    live -= 1
                continue
            job.last_seen = time.monotonic()
            tag, _, rest = line.rstrip("\n").partition(" ")
            if tag == "S":
                job.current = int(rest)
                totals["inputs"] += 1
            elif tag == "F":
                failures.append(json.loads(rest))
            elif tag == "D":
                absorb(json.loads(rest))
                job.buf = "done"
        now = time.monotonic()
        for key in list(sel.get_map().values()):
            job = key.data
            if now - job.last_seen > args.hang_s * 3 + 10:  # stuck where the alarm cannot reach (C code)
                sel.unregister(key.fileobj)
                assert job.proc is not None
                job.proc.kill()
                job.proc.wait()
                lost(job, "hang", f"no progress for {now - job.last_seen:.0f} s (killed)")
        if args.progress_s and now >= next_report:
            next_report = now + args.progress_s
            print(f"fuzz: {totals['inputs']}/{n} inputs, {len(failures)} unexpected, {time.perf_counter() - t0:.0f} s",
                  file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - t0
    totals["peak_rss_mb"] = max(totals["peak_rss_mb"], _peak_rss_mb(resource.RUSAGE_CHILDREN))

    from tidl_io.base.atomic import write_bytes_atomic

    for f in failures:
        if f["index"] >= 0:
            item = make_input(corpus, args.seed, f["index"])
            f["steps"] = item.steps
            path = save_dir / f"fuzz-seed{args.seed}-{f['index']}.bin"
            write_bytes_atomic(path, item.data)
            f["saved"] = str(path)
    report(args, totals, failures, elapsed, save_dir)
    summary = {"seed": args.seed, "inputs": totals["inputs"], "unexpected": len(failures),
               "over_max_ms": totals["over"], "max_ms": args.max_ms, "max_cpu_ms": round(totals["max_cpu_ms"], 2),
               "max_wall_ms": round(totals["max_wall_ms"], 2), "peak_rss_mb": round(totals["peak_rss_mb"], 1),
               "elapsed_s": round(elapsed, 1), "ops": totals["ops"], "failures": failures}
    if args.json:
        write_bytes_atomic(args.json, json.dumps(summary, indent=1).encode())
    if failures:
        return 1
    return 3 if totals["over"] else 0


def report(args: argparse.Namespace, totals: dict[str, Any], failures: list[dict[str, Any]], elapsed: float,
           save_dir: Path) -> None:
    print(f"tidl-io fuzz: seed {args.seed}, {totals['inputs']} inputs, {args.jobs} job(s), "
          f"TIDL_IO_MAX_ALLOC_BYTES={args.max_alloc}, {elapsed:.1f} s")
    print(f"{'operation':<28}{'ok':>9}{'lib error':>11}{'unexpected':>12}")
    for op in sorted(totals["ops"]):
        ok, lib, bad = totals["ops"][op]
        print(f"{op:<28}{ok:>9}{lib:>11}{bad:>12}")
    print(f"unexpected: {len(failures)}")
    for f in failures[:20]:
        print(f"  seed {args.seed} index {f['index']}: {f['op']}: {f['kind']}: {f['message'][:300]}")
        if f.get("steps"):
            print(f"    input: {f['steps'][:300]}")
        if f.get("saved"):
            print(f"    saved: {f['saved']}   replay: python tools/fuzz.py --seed {args.seed} --replay {f['index']}")
        if f.get("trace"):
            print("    " + f["trace"].strip().replace("\n", "\n    "))
    print(f"inputs over {args.max_ms:g} ms (CPU): {totals['over']}"
          + (f" (indices {totals['over_indices'][:10]})" if totals["over"] else ""))
    _, slow_i = totals["slowest"]
    print(f"max time per input: {totals['max_cpu_ms']:.1f} ms CPU (index {slow_i}), {totals['max_wall_ms']:.1f} ms "
          "wall")
    print(f"peak RSS (largest worker): {totals['peak_rss_mb']:.1f} MB")
    if failures:
        print(f"reproducers saved in {save_dir}")
    elif not any(save_dir.iterdir()):
        save_dir.rmdir()


def replay(args: argparse.Namespace) -> int:
    os.environ.setdefault("TIDL_IO_MAX_ALLOC_BYTES", str(args.max_alloc))
    corpus = load_corpus(args.corpus)
    item = make_input(corpus, args.seed, args.replay)
    print(f"seed {args.seed} index {args.replay}: {len(item.data)} bytes: {item.steps}")
    stats = Stats()
    with tempfile.TemporaryDirectory(prefix="tidl-io-fuzz-replay-") as scratch:
        checker = make_checker(stats, Path(scratch), args.cli_every, args.tensors, verbose=True)
        checker.warm_up(corpus)
        rng = random.Random(f"tidl-io-fuzz-ops:{args.seed}:{args.replay}")
        c0 = time.process_time()
        checker.run(args.replay, item, rng)
        print(f"{1e3 * (time.process_time() - c0):.1f} ms CPU; ops {stats.ops}")
    if args.save_dir:
        from tidl_io.base.atomic import write_bytes_atomic

        path = Path(args.save_dir) / f"fuzz-seed{args.seed}-{args.replay}.bin"
        write_bytes_atomic(path, item.data)
        print(f"saved {path}")
    return 1 if stats.failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fuzz tidl-io with mutated descriptor files: only the library's "
                                     "own errors, in bounded time.")
    parser.add_argument("--n", type=int, default=1000, help="number of inputs (default 1000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-ms", type=float, default=100.0, help="time bound per input, CPU ms (default 100)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--cli-every", type=int, default=10, help="run the CLI on one input in K (default 10)")
    parser.add_argument("--tensors", type=int, default=2, help="tensors per input through the buffer operations")
    parser.add_argument("--max-alloc", type=int, default=DEFAULT_MAX_ALLOC,
                        help="TIDL_IO_MAX_ALLOC_BYTES for the run (default 64 MiB)")
    parser.add_argument("--hang-s", type=float, default=10.0, help="an input taking longer is a hang")
    parser.add_argument("--corpus", type=Path, action="append", default=None,
                        help="a corpus file or folder (repeatable; default: realdata, fixtures, examples)")
    parser.add_argument("--save-dir", help="where reproducers go (default: a new temp folder)")
    parser.add_argument("--json", type=Path, help="also write the summary as JSON here")
    parser.add_argument("--progress-s", type=float, default=30.0, help="progress line every S seconds (0: none)")
    parser.add_argument("--replay", type=int, help="run input INDEX in-process, verbosely")
    parser.add_argument("--selftest", help=argparse.SUPPRESS)  # crash|hang|slow:INDEX,..., for the tests
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--scratch", help=argparse.SUPPRESS)  # the workers' temp folder, owned by the parent
    parser.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--stop", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.corpus = args.corpus or default_corpus_dirs()
    if args.worker:
        return _worker(args)
    if args.replay is not None:
        return replay(args)
    with tempfile.TemporaryDirectory(prefix="tidl-io-fuzz-scratch-") as scratch:
        args.scratch = scratch
        return run_parent(args)
