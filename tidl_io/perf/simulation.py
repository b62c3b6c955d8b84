"""TI's compile-time performance simulation: ``tempDir/<sg>_tidl_net/tempDir_<sg>_tidl_net_
DSP1_FRQ1000_..._640x640.csv``, written by the model importer (TIDL tools 8.x to 11.x).

The file is a table (``lyrNum, LyrType, ..., procTime(us), LayerCycles, kernelOnlyCycles,
coreLoopCycles, LayerSetupCycles, dmaPipeupCycles, IOcyles, ..., srcMem-IN, dstMem-IN, ...,
DDRBW-R(M), DDRBW-W(M), dataFlow``; one row per layer in execution order), then a "Network
summary" (``total Network time (us) = 367462.84``, ``DDR BW (Mega Bytes) : Total = 187.58``
...), then the simulator's configuration (``CPUFREQ_MHZ = 1000`` ...). The file name encodes
the configuration too (``DSP1_FRQ1000_DT1_SIMD32_L3S968_DDRE0.60_EMIFP1_DDR3200_640x640``).

:func:`parse_simulation` is a pure function of the text; every value is taken as written,
never recomputed. TI's "Mega Bytes" are 1000 KiB (the ``inVol(KB)`` of a row over 1000).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import PurePath

from ..base.numtext import read_float, read_int
from ..base.tilog import MAX_LAYERS, Row, fields, located, split_lines, to_decimal, to_int

__all__ = ["SimLayer", "SimSummary", "Simulation", "is_simulation_name", "parse_simulation", "parse_simulation_name"]

# our name -> TI's column (the first of several spellings found)
_REQUIRED = {"index": ("lyrNum",), "type": ("LyrType",), "time_us": ("procTime(us)",), "cycles": ("LayerCycles",),
             "kernel_cycles": ("kernelOnlyCycles",), "core_loop_cycles": ("coreLoopCycles",),
             "setup_cycles": ("LayerSetupCycles",), "dma_cycles": ("dmaPipeupCycles",)}
_OPTIONAL = {"io_cycles": ("IOcyles", "IOcycles"), "ddr_read_mb": ("DDRBW-R(M)",), "ddr_write_mb": ("DDRBW-W(M)",),
             "msmc_read_mb": ("MSMCBW-R(M)",), "msmc_write_mb": ("MSMCBW-W(M)",)}
_MEMORY = {"in": ("srcMem-IN", "dstMem-IN"), "out": ("srcMem-OUT", "dstMem-OUT"), "weights": ("srcMem-WT", "dstMem-WT")}
# TI's summary line (blanks collapsed, lower case) -> our name
_SUMMARY = {"total network cycles (mega)": "cycles_mega", "total network time (us)": "time_us",
            "msmc sram bw (mega bytes) : read": "msmc_read_mb", "msmc sram bw (mega bytes) : write": "msmc_write_mb",
            "msmc sram bw (mega bytes) : total": "msmc_mb", "ddr bw (mega bytes) : read": "ddr_read_mb",
            "ddr bw (mega bytes) : write": "ddr_write_mb", "ddr bw (mega bytes) : total": "ddr_mb"}
_NEEDED = ("time_us", "ddr_mb")
_NAME = re.compile(r"^(?:tempDir_)?(?P<sg>.+?)_tidl_net_(?P<cfg>[^/\\]*)\.csv$")
_TOKEN = re.compile(r"^(?P<key>[A-Za-z][A-Za-z0-9]*?)(?P<value>\d+(?:\.\d+)?)$")
_WHOLE = re.compile(r"[+-]?[0-9]+\Z")
_RESOLUTION = re.compile(r"^(?P<w>\d{1,6})x(?P<h>\d{1,6})$")


@dataclass(frozen=True)
class SimLayer:
    """One row: a layer as the simulator ran it. Numbers as written; None for a column this
    release does not write. ``memory`` maps ``in``/``out``/``weights`` to (source, destination)
    memory as written (``"DDR"``, ``"MSMC"``, ``"L2"``, ``"NONE"``: no such buffer; None: no
    such column)."""

    line: int
    index: int  # lyrNum: the layer's number in the net (netLog's Num, layer_info's first column)
    type: str
    time_us: float
    cycles: float
    kernel_cycles: float
    core_loop_cycles: float
    setup_cycles: float
    dma_cycles: float
    io_cycles: float | None
    ddr_read_mb: float | None
    ddr_write_mb: float | None
    msmc_read_mb: float | None
    msmc_write_mb: float | None
    memory: Mapping[str, tuple[str | None, str | None]]
    values: Mapping[str, str] = field(repr=False)  # every column as written, TI's names


@dataclass(frozen=True)
class SimSummary:
    """TI's "Network summary" lines, as exact decimals (None where the file has no such line)."""

    release: str | None
    time_us: Decimal
    ddr_mb: Decimal
    cycles_mega: Decimal | None = None
    ddr_read_mb: Decimal | None = None
    ddr_write_mb: Decimal | None = None
    msmc_read_mb: Decimal | None = None
    msmc_write_mb: Decimal | None = None
    msmc_mb: Decimal | None = None


@dataclass(frozen=True)
class Simulation:
    """A whole simulation file: ``layers`` in the file's (execution) order, the ``summary``,
    the configuration lines (``parameters``: ``{"CPUFREQ_MHZ": 1000, ...}``) and what the
    file name says (``name_config``: ``{"DSP": 1, "FRQ": 1000, ..., "width": 640, ...}``)."""

    source: str
    subgraph: str | None
    layers: tuple[SimLayer, ...]
    summary: SimSummary
    parameters: Mapping[str, int | float]
    name_config: Mapping[str, int | float]


def is_simulation_name(name: str) -> bool:
    """Whether ``name`` is shaped like a simulation file's name (``tempDir_<sg>_tidl_net_*.csv``)."""
    return name.startswith("tempDir_") and _NAME.match(name) is not None


def parse_simulation_name(name: str) -> tuple[str | None, dict[str, int | float]]:
    """(subgraph name, configuration) from the file name: ``DSP1`` -> ``{"DSP": 1}``,
    ``DDRE0.60`` -> ``{"DDRE": 0.6}``, ``640x640`` -> ``{"width": 640, "height": 640}``;
    tokens of another shape are left out. ``(None, {})`` for a name of another shape."""
    m = _NAME.match(PurePath(name).name)
    if m is None:
        return None, {}
    config: dict[str, int | float] = {}
    for token in m.group("cfg").split("_"):
        t, r = _TOKEN.match(token), _RESOLUTION.match(token)
        if t is not None and len(token) <= 32:
            text = t.group("value")
            config[t.group("key")] = read_float(text) if "." in text else read_int(text)
        elif r is not None:
            config["width"], config["height"] = read_int(r.group("w")), read_int(r.group("h"))
    return m.group("sg"), config


def _columns(names: list[str], source: str) -> dict[str, int]:
    """Our name (TI's for the memory columns) -> column index, for every column found; a
    required one missing is an error."""
    where = {n: i for i, n in reversed(list(enumerate(names))) if n}
    out: dict[str, int] = {n: where[n] for pair in _MEMORY.values() for n in pair if n in where}
    for ours, spellings in (*_REQUIRED.items(), *_OPTIONAL.items()):
        hit = next((where[s] for s in spellings if s in where), None)
        if hit is not None:
            out[ours] = hit
        elif ours in _REQUIRED:
            raise located(source, 1, f"no {spellings[0]!r} column; expected TI's performance simulation header "
                                     f"(lyrNum, LyrType, ..., procTime(us), LayerCycles, ...)")
    return out


def _row(line: str, lineno: int, names: list[str], cols: dict[str, int], source: str) -> SimLayer:
    row = Row(line, lineno, source)
    width = len(names)
    if len(row) < width:
        raise located(source, lineno, f"expected {width} fields as in the header, found {len(row)} "
                                      "(a cut or malformed row)")
    extra = next((i for i in range(width, len(row)) if row.texts[i]), None)
    if extra is not None:
        raise located(source, lineno, f"expected {width} fields as in the header, found {len(row)}", row.column(extra))
    t = row.texts

    def num(ours: str) -> float | None:
        i = cols.get(ours)
        return None if i is None else row.number(i, names[i])

    def need(ours: str) -> float:
        i = cols[ours]
        return row.number(i, names[i])

    index = row.whole(cols["index"], "lyrNum", maximum=MAX_LAYERS)
    kind = t[cols["type"]]
    if not kind:
        raise located(source, lineno, "expected a layer type, found an empty field", row.column(cols["type"]), "LyrType")
    memory: dict[str, tuple[str | None, str | None]] = {}
    for part, (src, dst) in _MEMORY.items():
        a, b = (t[cols[n]] if n in cols else "" for n in (src, dst))
        memory[part] = (a or None, b or None)
    return SimLayer(line=lineno, index=index, type=kind, time_us=need("time_us"), cycles=need("cycles"),
                    kernel_cycles=need("kernel_cycles"), core_loop_cycles=need("core_loop_cycles"),
                    setup_cycles=need("setup_cycles"), dma_cycles=need("dma_cycles"), io_cycles=num("io_cycles"),
                    ddr_read_mb=num("ddr_read_mb"), ddr_write_mb=num("ddr_write_mb"),
                    msmc_read_mb=num("msmc_read_mb"), msmc_write_mb=num("msmc_write_mb"), memory=memory,
                    values={n: t[i] for i, n in enumerate(names) if n})


def _key_value(line: str, lineno: int, source: str) -> tuple[str, str, int]:
    key, eq, value = line.partition("=")
    if not eq:
        raise located(source, lineno, f"expected 'NAME = value', found {line.strip()[:60]!r}")
    return " ".join(key.split()), value.strip(), len(key) + 1 + (len(value) - len(value.lstrip())) + 1


def _is_rule(text: str) -> bool:
    return len(text) >= 3 and set(text) == {"-"}


def parse_simulation(text: str, source: str = "simulation.csv", file_name: str | None = None) -> Simulation:
    """The simulation in ``text``. ``source`` names it in errors; ``file_name`` (default: the
    last part of ``source``) gives the subgraph and the configuration in the name.

    Raises :class:`~tidl_io.FormatError` at ``source, line L, column C (TI's column)``: a
    missing required column, a cut (a last line without its line end) or malformed row, a number that is not one, a layer twice,
    no "Network summary" (a cut file), a summary without its time or DDR total.
    """
    lines = split_lines(text, source, "TI's performance simulation header (lyrNum, LyrType, ...)")
    names = [t for _, t in fields(lines[0])]
    while names and not names[-1]:
        names.pop()
    cols = _columns(names, source)
    layers: list[SimLayer] = []
    seen: dict[int, int] = {}
    i = 1
    while i < len(lines) and lines[i].strip() and not lines[i].lstrip().startswith("-"):
        if len(layers) >= MAX_LAYERS:
            raise located(source, i + 1, f"more than {MAX_LAYERS} layer rows")
        layer = _row(lines[i], i + 1, names, cols, source)
        if layer.index in seen:
            raise located(source, i + 1, f"layer {layer.index} again (first on line {seen[layer.index]})", 1, "lyrNum")
        seen[layer.index] = i + 1
        layers.append(layer)
        i += 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i >= len(lines):
        raise located(source, len(lines), f"the file ends after {len(layers)} layer row(s), before TI's "
                                          "'Network summary' (a cut file?)")
    if "network summary" not in lines[i].lower():
        raise located(source, i + 1, f"expected TI's '---Network summary---' line, found {lines[i].strip()[:60]!r}")
    i += 1
    found: dict[str, Decimal] = {}
    release = None
    while i < len(lines) and not _is_rule(lines[i].strip()) and "configuration parameters" not in lines[i].lower():
        if lines[i].strip():
            key, value, column = _key_value(lines[i], i + 1, source)
            ours = _SUMMARY.get(key.lower())
            if key.lower() == "release version":
                release = value
            elif ours is not None:
                found[ours] = to_decimal(value, source, i + 1, column, key)
        i += 1
    for ours in _NEEDED:
        if ours not in found:
            label = next(k for k, v in _SUMMARY.items() if v == ours)
            raise located(source, min(i + 1, len(lines)), f"TI's summary has no '{label}' line (a cut file?)")
    parameters: dict[str, int | float] = {}
    for j in range(i, len(lines)):
        stripped = lines[j].strip()
        if not stripped or _is_rule(stripped) or stripped.startswith("*"):
            continue
        key, value, column = _key_value(lines[j], j + 1, source)
        # a whole number as written stays one (CPUFREQ_MHZ = 1000); any other number is a float
        parameters[key] = (to_int(value, source, j + 1, column, key, minimum=None) if _WHOLE.match(value)
                           else float(to_decimal(value, source, j + 1, column, key)))
    summary = SimSummary(release=release, time_us=found["time_us"], ddr_mb=found["ddr_mb"],
                         cycles_mega=found.get("cycles_mega"), ddr_read_mb=found.get("ddr_read_mb"),
                         ddr_write_mb=found.get("ddr_write_mb"), msmc_read_mb=found.get("msmc_read_mb"),
                         msmc_write_mb=found.get("msmc_write_mb"), msmc_mb=found.get("msmc_mb"))
    subgraph, name_config = parse_simulation_name(file_name if file_name is not None else PurePath(source).name)
    return Simulation(source=source, subgraph=subgraph, layers=tuple(layers), summary=summary,
                      parameters=parameters, name_config=name_config)
