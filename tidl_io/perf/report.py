"""How ``tidl-io perf`` shows a :class:`~tidl_io.perf.model.PerformanceData`: the ``--json``
document and the text table (execution order or the slowest first, per-type totals, TI's
totals). The page is :mod:`.page`; the diff of two compilations :mod:`.diff`."""

from __future__ import annotations

from typing import Any

from ..base.text import escape
from ..iodesc.format import document
from .model import BoardCycles, LayerPerf, PerformanceData, SubgraphPerf

__all__ = ["config_line", "count", "fmt", "format_perf", "kcycles", "perf_to_dict", "place", "totals_line"]


def _board_dict(b: BoardCycles | None) -> dict[str, Any] | None:
    if b is None:
        return None
    return {"exec_id": b.exec_id, "cycles": b.cycles, "kernel_cycles": b.kernel_cycles,
            "core_loop_cycles": b.core_loop_cycles, "setup_cycles": b.setup_cycles, "dma_cycles": b.dma_cycles,
            "ddr_read_mb": b.ddr_read_mb, "ddr_write_mb": b.ddr_write_mb, "time_us": b.time_us, "ratio": b.ratio,
            "bound": b.bound, "runs": b.runs, "cycles_min": b.cycles_min, "cycles_max": b.cycles_max}


def _layer_dict(lay: LayerPerf) -> dict[str, Any]:
    return {"index": lay.index, "type": lay.type, "name": lay.name, "data_id": lay.data_id, "time_us": lay.time_us,
            "cycles": lay.cycles, "kernel_cycles": lay.kernel_cycles, "core_loop_cycles": lay.core_loop_cycles,
            "setup_cycles": lay.setup_cycles, "dma_cycles": lay.dma_cycles, "io_cycles": lay.io_cycles,
            "ddr_read_mb": lay.ddr_read_mb, "ddr_write_mb": lay.ddr_write_mb,
            "memory": {k: list(v) for k, v in lay.memory.items()}, "bound": lay.bound, "macs": lay.macs,
            "macs_per_kernel_cycle": lay.macs_per_kernel_cycle, "board": _board_dict(lay.board)}


def _subgraph_dict(s: SubgraphPerf) -> dict[str, Any]:
    t = s.total
    return {"name": s.name, "config": dict(s.config),
            "total": {"time_ms": t.time_ms, "ddr_mb": t.ddr_mb, "ddr_read_mb": t.ddr_read_mb,
                      "ddr_write_mb": t.ddr_write_mb, "msmc_mb": t.msmc_mb, "gmacs": t.gmacs},
            "board": None if s.board_runs is None else {"total_cycles": s.board_total_cycles, "runs": s.board_runs},
            "layers": [_layer_dict(lay) for lay in s.layers]}


def perf_to_dict(perf: PerformanceData) -> dict[str, Any]:
    """``{"schema_version": 1, "subgraphs": [{"name", "config", "total", "layers"}]}``:
    numbers or null (null where no file says), never NaN."""
    return document((_subgraph_dict(s) for s in perf.subgraphs), key="subgraphs")


# ---- text -------------------------------------------------------------------------------

def fmt(x: float | None, spec: str = ".2f", none: str = "-") -> str:
    return none if x is None else format(x, spec)


def kcycles(x: float | None) -> str:
    """Cycles in thousands, one decimal (``84480.0`` -> ``84.5k``)."""
    return "-" if x is None else f"{x / 1000:.1f}k"


def count(x: int | None) -> str:
    """A count in thousands, millions or billions (``442368`` -> ``442.4k``; None -> ``-``)."""
    if x is None:
        return "-"
    for scale, suffix, spec in ((10**9, "G", ".2f"), (10**6, "M", ".1f"), (10**3, "k", ".1f")):
        if abs(x) >= scale:
            return f"{x / scale:{spec}}{suffix}"
    return str(x)


def place(pair: tuple[str | None, str | None]) -> str:
    """``("DDR", "L2")`` -> ``DDR>L2``; a side no file says is ``?``."""
    src, dst = pair
    return "-" if src is None and dst is None else f"{escape(src or '?')}>{escape(dst or '?')}"


def short_type(kind: str | None) -> str:
    return "?" if kind is None else escape(kind.removeprefix("TIDL_").removesuffix("Layer"))


def _short(name: str | None, width: int = 32) -> str:
    text = escape(name or "-")
    if len(text) <= width:
        return text
    keep = width - 1
    return text[: keep // 2] + "…" + text[len(text) - (keep - keep // 2):]


def config_line(s: SubgraphPerf) -> str:
    c = s.config
    if c.get("release") is None and c.get("cpu_mhz") is None:
        return "no simulation"
    bits = [f"{escape(str(c['release']))} simulation" if c.get("release") else "simulation"]
    if c.get("cores") is not None and c.get("cpu_mhz") is not None:
        bits.append(f"{c['cores']} core(s) at {c['cpu_mhz']} MHz")
    if c.get("ddr_mhz") is not None:
        eff = f" at {c['ddr_efficiency']:g} efficiency" if c.get("ddr_efficiency") is not None else ""
        bits.append(f"DDR {c['ddr_mhz']} MHz{eff}")
    if c.get("msmc_kb") is not None:
        bits.append(f"MSMC {c['msmc_kb']} KB")
    if c.get("l2_kb") is not None:
        bits.append(f"L2 {c['l2_kb']} KB")
    if c.get("width") is not None and c.get("height") is not None:
        bits.append(f"input {c['width']}x{c['height']}")
    return ", ".join(bits)


def totals_line(s: SubgraphPerf) -> str:
    """The totals as TI's summary and netLog say them."""
    t = s.total
    parts = []
    if t.time_ms is not None:
        parts.append(f"{t.time_ms * 1000:.2f} µs = {t.time_ms!r} ms")
    if t.ddr_mb is not None:
        rw = f" (read {t.ddr_read_mb:.2f}, write {t.ddr_write_mb:.2f})" \
            if t.ddr_read_mb is not None and t.ddr_write_mb is not None else ""
        parts.append(f"DDR {t.ddr_mb:.2f} MB{rw}")
    if t.msmc_mb is not None:
        parts.append(f"MSMC {t.msmc_mb:.2f} MB")
    if t.gmacs is not None:
        parts.append(f"{t.gmacs!r} GMACs")
    if s.board_total_cycles is not None:
        runs = f" (mean of {s.board_runs} runs)" if s.board_runs and s.board_runs > 1 else ""
        total = s.board_total_cycles
        parts.append(f"board: {total:.1f} cycles{runs}" if isinstance(total, float) else f"board: {total} cycles{runs}")
    return "total: " + (", ".join(parts) if parts else "no totals (no simulation, no netLog)")


def _table(rows: list[list[str]], right: set[int], keep: int = 0) -> list[str]:
    """The rows as text columns (``right``: right-aligned); a column past the first ``keep``
    where no row has a value (only ``-``: no file says) is left out."""
    shown = [i for i in range(len(rows[0])) if i < keep or any(r[i] != "-" for r in rows[1:])]
    rows = [[r[i] for i in shown] for r in rows]
    right = {k for k, i in enumerate(shown) if i in right}
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
            for r in rows]


def _layer_rows(s: SubgraphPerf, layers: list[LayerPerf], board: bool) -> list[str]:
    head = ["exec", "layer", "type", "name", "time µs", "share", "kernel", "core loop", "setup", "DMA", "bound",
            "DDR R MB", "DDR W MB", "in", "out", "weights", "MACs", "MACs/cyc"]
    if board:
        head += ["board cyc", "board/sim"]
    rows = [head]
    for lay in layers:
        share = s.share(lay)
        row = [str(lay.position), str(lay.index), short_type(lay.type), _short(lay.name), fmt(lay.time_us),
               fmt(None if share is None else 100 * share, ".1f") + ("%" if share is not None else ""),
               kcycles(lay.kernel_cycles), kcycles(lay.core_loop_cycles), kcycles(lay.setup_cycles),
               kcycles(lay.dma_cycles), lay.bound or "-", fmt(lay.ddr_read_mb), fmt(lay.ddr_write_mb),
               place(lay.memory["in"]), place(lay.memory["out"]), place(lay.memory["weights"]), count(lay.macs),
               fmt(lay.macs_per_kernel_cycle)]
        if board:
            b = lay.board
            row += [kcycles(b.cycles if b else None), fmt(b.ratio if b else None, ".2f")]
        rows.append(row)
    return _table(rows, {0, 1, 4, 5, 6, 7, 8, 9, 11, 12, 16, 17, 18, 19}, keep=4)


def _type_rows(s: SubgraphPerf) -> list[str]:
    rows = [["type", "layers", "time µs", "share", "cycles", "DDR R MB", "DDR W MB", "MACs"]]
    total = s.total.time_ms
    for t in s.by_type():
        share = None if t.time_us is None or not total else 100 * t.time_us / (total * 1000)
        rows.append([short_type(t.type), str(t.count), fmt(t.time_us), fmt(share, ".1f") + ("%" if share is not None
                                                                                          else ""),
                     kcycles(t.cycles), fmt(t.ddr_read_mb), fmt(t.ddr_write_mb), count(t.macs)])
    return _table(rows, {1, 2, 3, 4, 5, 6, 7}, keep=2)


def format_perf(perf: PerformanceData, top: int | None = None) -> str:
    """The text report: per subgraph, its configuration, the layers (execution order, or the
    ``top`` slowest first; without a simulation the ``top`` with the most MACs), the per-type
    totals and TI's totals. A column no file fills (only ``-``) is left out."""
    out = [f"where the time goes: {escape(perf.source)}"]
    for s in perf.subgraphs:
        board = any(lay.board is not None for lay in s.layers)
        out.append("")
        out.append(f"{escape(s.name)}: {len(s.layers)} layers; {config_line(s)}")
        if top is not None and s.slowest(1):
            out.append(f"the {top} slowest layers:")
            out += _layer_rows(s, s.slowest(top), board)
        elif top is not None and s.most_macs(1):  # a netLog without a simulation: rank by its MACs
            out.append(f"no simulation: the {top} layers with the most MACs (the netLog's):")
            out += _layer_rows(s, s.most_macs(top), board)
        elif top is not None:  # nothing to rank: the placement and sizes of every layer still tell
            out.append("no layer has a time to rank by (no performance simulation, no board log): "
                       "every layer in execution order:")
            out += _layer_rows(s, list(s.layers), board)
        else:
            out += _layer_rows(s, list(s.layers), board)
        out.append("per type:")
        out += _type_rows(s)
        out.append(totals_line(s))
    out += [f"note: {escape(n)}" for n in perf.notes]
    if any(s.total.time_ms is not None for s in perf.subgraphs):
        out.append("note: the times are TI's compile-time simulation at the configuration shown; a board run "
                   "(--board) is the truth")
    return "\n".join(out)
