"""The checks every input goes through, and what counts as unexpected: each operation must
succeed or raise a ``tidl_io.TidlIoError`` whose message locates the problem."""

from __future__ import annotations

import random
import traceback
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .inputs import FuzzInput

SOURCE = "fuzz_tidl_io_1.bin"


class Unexpected(Exception):
    """An invariant broken without an exception (round trip, CLI output, buffers vs validate)."""


class Hang(BaseException):
    """Raised by the per-input alarm."""


@dataclass
class Failure:
    index: int
    op: str
    kind: str
    message: str
    trace: str = ""


@dataclass
class Stats:
    inputs: int = 0
    ops: dict[str, list[int]] = field(default_factory=dict)  # op -> [ok, library error, unexpected]
    failures: list[Failure] = field(default_factory=list)
    over: int = 0
    max_cpu_ms: float = 0.0
    max_wall_ms: float = 0.0
    slowest: tuple[float, int] = (0.0, -1)
    over_indices: list[int] = field(default_factory=list)

    def count(self, op: str, outcome: int) -> None:
        self.ops.setdefault(op, [0, 0, 0])[outcome] += 1


def _located(message: str, where: tuple[str, ...]) -> bool:
    return bool(message.strip()) and any(w in message for w in where)


class Checker:
    """Runs the operations on one input; collects outcomes into :class:`Stats`.

    Per input (see the package docstring): parse, validate, build (round trip), then the
    targets given (:data:`fuzz.targets.TARGETS`, by :func:`fuzz.dispatch.make_checker`) that select it (one input in ``cli_every`` goes
    through the CLI only; the others alternate between the formatter and the buffer
    operations).
    """

    def __init__(self, stats: Stats, scratch: Path, cli_every: int, tensors: int, verbose: bool = False,
                 targets: Sequence[Any] = ()):
        import tidl_io

        self.targets = tuple(targets)  # the target modules, in dispatch order (fuzz.targets.TARGETS)
        self.tidl_io = tidl_io
        self.stats = stats
        self.scratch = scratch
        self.cli_every = cli_every
        self.tensors = tensors
        self.verbose = verbose
        from tidl_io.data import buffers

        self.buffers = buffers
        from tidl_io.base.limits import max_alloc_bytes

        self.cap = max_alloc_bytes()

    def op(self, index: int, op: str, fn: Callable[[], Any], where: tuple[str, ...]) -> Any:
        """Run ``fn``; returns its value, or None after a library error or a failure.
        Warnings are errors: a NumPy RuntimeWarning escaping the library is a failure."""
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                value = fn()
        except self.tidl_io.TidlIoError as exc:
            message = str(exc)
            if not _located(message, where):
                self._fail(index, op, "unlocated message", f"{type(exc).__name__}: {message!r}", exc)
                return None
            self.stats.count(op, 1)
            if self.verbose:
                print(f"  {op}: {type(exc).__name__}: {message[:300]}")
            return None
        except Exception as exc:  # noqa: BLE001 - this is what the fuzzer looks for
            kind = "broken invariant" if isinstance(exc, Unexpected) else type(exc).__name__
            self._fail(index, op, kind, str(exc)[:500], exc)
            return None
        self.stats.count(op, 0)
        return value

    def _fail(self, index: int, op: str, kind: str, message: str, exc: BaseException) -> None:
        self.stats.count(op, 2)
        trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=-8))
        self.stats.failures.append(Failure(index, op, kind, message, trace))
        if self.verbose:
            print(trace)

    def run(self, index: int, item: FuzzInput, rng: random.Random) -> None:
        """The first raw-bytes target that selects the input takes it alone; else parse,
        validate and build (round trip), then the first descriptor target that selects it."""
        tio = self.tidl_io
        data = item.data
        where = (SOURCE,)
        for target in self.targets:
            if target.STAGE == "bytes" and target.selects(self, index):
                target.run(self, index, item, None, rng)
                return
        desc = self.op(index, "parse", lambda: tio.parse(data, SOURCE), where)
        if desc is None:
            return
        self.op(index, "validate", lambda: tio.validate(desc), where)

        def round_trip() -> None:
            if tio.build(desc) != data:
                raise Unexpected("build(parse(b)) != b")

        self.op(index, "build", round_trip, where)
        for target in self.targets:
            if target.STAGE == "descriptor" and target.selects(self, index):
                target.run(self, index, item, desc, rng)
                return

    def warm_up(self, corpus: list[tuple[str, bytes]]) -> None:
        """One-time costs (imports, construct structs, caches) before anything is timed."""
        cli = next((t for t in self.targets if t.NAME == "cli"), None)
        stats, self.stats = self.stats, Stats()
        try:
            one_per_layout = {len(data): data for _, data in corpus}
            for i, data in enumerate(one_per_layout.values()):
                for r in (1, 3, 4, 5):
                    self.run(r + 6 * i if self.cli_every != 1 else 1, FuzzInput(data, "", []), random.Random(i))
            for k in range(5 if cli is not None else 0):
                cli.run(self, k * self.cli_every, FuzzInput(corpus[0][1], "", []), None, random.Random(k))
        finally:
            self.stats = stats
