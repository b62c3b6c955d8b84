"""The joined picture of where the time goes: per subgraph, each layer's simulated time and
cycles, its DDR traffic, where its buffers live, what the board measured, and TI's totals.
Built by :func:`tidl_io.perf.load.load_perf`; shown by :mod:`.report` and :mod:`.page`.

The formulas live here and nowhere else: :func:`bound`, :data:`BYTES_PER_TI_MB`, a layer's
share of the total (:meth:`SubgraphPerf.share`), the per-type sums (:meth:`SubgraphPerf.by_type`)
and the mean of a board log's runs (:func:`board_mean`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..base.errors import ArgumentTypeError, TensorNotFoundError
from ..base.text import report_repr
from .bufinfo import Buffer

__all__ = ["BYTES_PER_TI_MB", "DATA_LAYER", "BoardCycles", "LayerPerf", "PerformanceData", "SubgraphPerf", "Totals", "TypeTotal",
           "board_mean", "bound"]

BYTES_PER_TI_MB = 1000 * 1024
"""TI's simulation counts "Mega Bytes" of 1000 KiB (a row's ``inVol(KB)`` / 1000 is its
``DDRBW-R(M)``); the board's byte counts are shown in the same unit so the two compare."""

BOUNDS = ("compute", "memory", "setup")

DATA_LAYER = "TIDL_DataLayer"
"""The type of an input or output data layer: TIDL-RT executes none (no board row, no cycles)."""


def board_mean(values: Sequence[int]) -> int | float:
    """The mean of one count over a board log's runs: exact, a whole number stays an int
    (one run's numbers come out as TIDL-RT wrote them)."""
    total, n = sum(values), len(values)
    return total // n if total % n == 0 else total / n


def bound(kernel: float | None, core_loop: float | None, setup: float | None, dma: float | None) -> str | None:
    """What a layer waits for, from its cycles (TI's ``LayerCycles`` = ``coreLoopCycles`` +
    ``LayerSetupCycles`` + ``dmaPipeupCycles``, and the core loop runs the kernel while the DMA
    moves data):

    - ``"setup"``: layer setup and DMA pipe-up take longer than the core loop itself;
    - ``"memory"``: the core loop takes longer than the kernel alone (it waited for data);
    - ``"compute"``: the core loop is the kernel's own time;
    - None: no cycles (a data layer), or a cycle count the file does not give.
    """
    if kernel is None or core_loop is None or setup is None or dma is None or core_loop + setup + dma <= 0:
        return None
    if setup + dma > core_loop:
        return "setup"
    return "memory" if core_loop > kernel else "compute"


@dataclass(frozen=True)
class BoardCycles:
    """A layer's cycles measured by TIDL-RT (``tidl_trace_subgraph_<N>_perf.csv``): with a log
    of several runs, each count is the mean over the ``runs`` (:func:`board_mean`) and
    ``cycles_min`` / ``cycles_max`` bound its cycles; ``time_us`` at the simulation's CPU
    clock, ``ratio`` = measured / simulated cycles (None where either is missing or the
    simulation says 0)."""

    exec_id: int
    cycles: int | float
    kernel_cycles: int | float | None
    core_loop_cycles: int | float | None
    setup_cycles: int | float | None
    dma_cycles: int | float | None
    ddr_read_mb: float | None
    ddr_write_mb: float | None
    time_us: float | None
    ratio: float | None
    runs: int = 1
    cycles_min: int | None = None
    cycles_max: int | None = None

    @property
    def bound(self) -> str | None:
        return bound(self.kernel_cycles, self.core_loop_cycles, self.setup_cycles, self.dma_cycles)


@dataclass(frozen=True)
class LayerPerf:
    """One layer. ``index`` is its number in the net (TI's ``lyrNum``, netLog ``Num``),
    ``position`` its place in execution order. Times and cycles are the simulation's, as
    written (None without a simulation); ``memory`` maps ``in``/``out``/``weights`` to
    (source, destination) memory as TI writes it (``"DDR"``, ``"MSMC"``, ``"L2"``, ``"NONE"``:
    no such buffer; None: no file says); ``buffers`` the bufinfolog's groups when there is one."""

    index: int
    position: int
    type: str | None
    name: str | None
    data_id: int | None
    shape: tuple[int, ...] | None
    macs: int | None
    time_us: float | None
    cycles: float | None
    kernel_cycles: float | None
    core_loop_cycles: float | None
    setup_cycles: float | None
    dma_cycles: float | None
    io_cycles: float | None
    ddr_read_mb: float | None
    ddr_write_mb: float | None
    memory: Mapping[str, tuple[str | None, str | None]]
    buffers: Mapping[str, Buffer | None] | None = field(default=None, repr=False)
    board: BoardCycles | None = None

    @property
    def bound(self) -> str | None:
        """``"compute"``, ``"memory"``, ``"setup"`` or None (see :func:`bound`)."""
        return bound(self.kernel_cycles, self.core_loop_cycles, self.setup_cycles, self.dma_cycles)

    @property
    def macs_per_kernel_cycle(self) -> float | None:
        """The netLog's MACs over the simulation's kernel-only cycles: how much of the C7x's
        matrix unit (MMA) the kernel keeps busy; None without both (or no kernel cycles)."""
        if self.macs is None or not self.kernel_cycles:
            return None
        return self.macs / self.kernel_cycles

    @property
    def is_data(self) -> bool:
        """An input or output data layer (:data:`DATA_LAYER`), which TIDL-RT never executes."""
        return self.type == DATA_LAYER


@dataclass(frozen=True)
class Totals:
    """TI's own totals: the simulation's "Network summary" (``time_ms``, ``ddr_mb``,
    ``ddr_read_mb``, ``ddr_write_mb``, ``msmc_mb``) and the netLog's "Total Giga Macs"
    (``gmacs``); None where no file says."""

    time_ms: float | None = None
    ddr_mb: float | None = None
    ddr_read_mb: float | None = None
    ddr_write_mb: float | None = None
    msmc_mb: float | None = None
    gmacs: float | None = None


@dataclass(frozen=True)
class TypeTotal:
    """The layers of one type: how many, their time, cycles, DDR traffic and MACs summed
    (None where no layer of the type has the number)."""

    type: str
    count: int
    time_us: float | None
    cycles: float | None
    ddr_read_mb: float | None
    ddr_write_mb: float | None
    macs: int | None = None


def _sum(values: list[Any]) -> Any:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


@dataclass(frozen=True)
class SubgraphPerf:
    """One subgraph (``name``: ``"subgraph_0"``, ``"625"``): its ``layers`` in execution
    order, TI's ``total``, the simulator's ``config`` and the files read (``sources``)."""

    name: str
    config: Mapping[str, Any]
    total: Totals
    layers: tuple[LayerPerf, ...]
    sources: Mapping[str, str]
    board_total_cycles: int | float | None = None  # TI's "Sum of Layer Cycles", the mean over board_runs
    board_runs: int | None = None  # blocks (runs, frames) in the board log

    def share(self, layer: LayerPerf) -> float | None:
        """``layer``'s time as a fraction of TI's total time (None without both)."""
        total = self.total.time_ms
        if layer.time_us is None or not total:
            return None
        return layer.time_us / (total * 1000.0)

    def by_type(self) -> list[TypeTotal]:
        """Per layer type, slowest first (then the most MACs first, then by name)."""
        groups: dict[str, list[LayerPerf]] = {}
        for lay in self.layers:
            groups.setdefault(lay.type or "?", []).append(lay)
        out = [TypeTotal(kind, len(ls), _sum([x.time_us for x in ls]), _sum([x.cycles for x in ls]),
                         _sum([x.ddr_read_mb for x in ls]), _sum([x.ddr_write_mb for x in ls]),
                         _sum([x.macs for x in ls]))
               for kind, ls in groups.items()]
        return sorted(out, key=lambda t: (-(t.time_us or 0.0), -(t.macs or 0), t.type))

    def slowest(self, n: int | None = None) -> list[LayerPerf]:
        """The layers with a time, slowest first (ties in execution order); at most ``n``."""
        timed = sorted((x for x in self.layers if x.time_us is not None), key=lambda x: (-(x.time_us or 0.0), x.position))
        return timed if n is None else timed[:n]

    def most_macs(self, n: int | None = None) -> list[LayerPerf]:
        """The layers with the netLog's MACs, the most first (ties in execution order); at most ``n``."""
        known = sorted((x for x in self.layers if x.macs is not None), key=lambda x: (-(x.macs or 0), x.position))
        return known if n is None else known[:n]

    def layer(self, index: int | None = None, *, data_id: int | None = None, name: str | None = None) -> LayerPerf:
        """The layer with net layer number ``index``, or producing ``data_id``, or named
        ``name`` (exactly one of them); a :class:`~tidl_io.TensorNotFoundError` if none."""
        given = [(k, v) for k, v in (("index", index), ("data_id", data_id), ("name", name)) if v is not None]
        if len(given) != 1:
            raise ArgumentTypeError("layer: give exactly one of index, data_id, name; found "
                                    f"{', '.join(k for k, _ in given) or 'none'}")
        key, value = given[0]
        if key != "name" and (isinstance(value, bool) or not isinstance(value, int)):
            raise ArgumentTypeError(f"layer: {key}: expected an int, found {type(value).__name__}")
        if key == "name" and not isinstance(value, str):
            raise ArgumentTypeError(f"layer: name: expected a str, found {type(value).__name__}")
        for lay in self.layers:  # the first in execution order: an output data layer repeats its input's dataId
            if getattr(lay, key) == value:
                return lay
        raise TensorNotFoundError(f"{self.name}: no layer with {key} {value!r} ({len(self.layers)} layers)")


@dataclass(frozen=True)
class PerformanceData:
    """Where the time goes, for every subgraph of a compiled model: the numbers
    (:class:`~tidl_io.perf.performance.Performance` adds their text, JSON and page).

    ``subgraphs`` in TI's order, ``source`` the folder read, ``notes`` what could not be
    joined or was left out; :meth:`layer_time_us` looks a layer up.
    """

    source: str
    subgraphs: tuple[SubgraphPerf, ...]
    notes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return report_repr(self, self.source, subgraphs=tuple(s.name for s in self.subgraphs),
                           layers=sum(len(s.layers) for s in self.subgraphs),
                           time_ms=tuple(s.total.time_ms for s in self.subgraphs), notes=len(self.notes))

    def subgraph(self, which: int | str = 0) -> SubgraphPerf:
        """A subgraph by position (0 = the first) or by name."""
        if isinstance(which, str):
            for s in self.subgraphs:
                if s.name == which:
                    return s
            raise TensorNotFoundError(f"{self.source}: no subgraph {which!r} "
                                      f"({', '.join(s.name for s in self.subgraphs)})")
        if isinstance(which, bool) or not isinstance(which, int):
            raise ArgumentTypeError(f"subgraph: expected an int or a str, found {type(which).__name__}")
        if not 0 <= which < len(self.subgraphs):
            raise TensorNotFoundError(f"{self.source}: no subgraph {which} ({len(self.subgraphs)} subgraph(s))")
        return self.subgraphs[which]

    def layer_time_us(self, index: int | None = None, *, data_id: int | None = None, name: str | None = None,
                      subgraph: int | str = 0) -> float | None:
        """The simulated time in µs of one layer, by net layer number ``index``, by the
        ``data_id`` it produces or by ``name`` (exactly one): None when the folder has no
        simulation; a :class:`~tidl_io.TensorNotFoundError` if there is no such layer."""
        return self.subgraph(subgraph).layer(index, data_id=data_id, name=name).time_us
