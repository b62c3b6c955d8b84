"""``tempDir/<subgraph>_tidl_net.bin_paramDebug.csv``: how much each layer's parameters lost
when TIDL quantized them, as TI's importer writes it.

A header line (``LayerId , meanDifference, maxDifference, meanOrigFloat, meanRelDifference,
orgmax, quantizedMax,orgAtmaxDiff, quantizedAtMaxDiff,maxRelDifference, Scale , , , , Hist``),
then two rows per layer id — the bias first, then the weights — each with the ten numbers, three
empty cells and a histogram (1000 counts in the files seen). The layer id is the layer's index
in the net (execution order); the Scale is TIDL's multiplier (quantized = real × Scale).

:func:`parse_param_debug` is a pure function of the text.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..base.errors import FormatError
from ..base.numtext import NumberError, read_float, read_int

__all__ = ["COLUMNS", "ParamStats", "parse_param_debug"]

# TI's header names, in file order, and the snake_case names tidl-io uses
COLUMNS = (("meanDifference", "mean_difference"), ("maxDifference", "max_difference"),
           ("meanOrigFloat", "mean_orig_float"), ("meanRelDifference", "mean_rel_difference"),
           ("orgmax", "org_max"), ("quantizedMax", "quantized_max"), ("orgAtmaxDiff", "org_at_max_diff"),
           ("quantizedAtMaxDiff", "quantized_at_max_diff"), ("maxRelDifference", "max_rel_difference"),
           ("Scale", "scale"))
_MAX_ROWS = 1 << 20
_MAX_BINS = 1 << 16


@dataclass(frozen=True)
class ParamStats:
    """One row: a layer's bias or weights. Numbers as TI printed them (``%f``)."""

    layer_id: int
    kind: str  # "bias" or "weights"
    mean_difference: float
    max_difference: float
    mean_orig_float: float
    mean_rel_difference: float
    org_max: float
    quantized_max: float
    org_at_max_diff: float
    quantized_at_max_diff: float
    max_rel_difference: float
    scale: float
    hist: tuple[int, ...]
    line: int

    def to_dict(self, hist: bool = False) -> dict[str, Any]:
        """The ten numbers in snake_case (None for a NaN or infinity: strict JSON) and the line;
        the histogram with ``hist=True``."""
        out: dict[str, Any] = {snake: _finite(getattr(self, snake)) for _, snake in COLUMNS}
        out["line"] = self.line
        if hist:
            out["hist"] = list(self.hist)
        return out


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _number(text: str, source: str, lineno: int, where: str, whole: bool = False) -> float:
    """A cell through the one bounded reader: a whole number >= 0 (layer ids, counts), or a
    number as ``printf("%f")`` writes it (``inf`` and ``nan`` included); a located refusal."""
    try:
        return read_int(text, minimum=0) if whole else read_float(text, finite=False)
    except NumberError as exc:
        raise FormatError(source, f"line {lineno}: {where}: {exc.detail}") from None


def _header_ok(cells: list[str]) -> bool:
    names = [c.strip().lower() for c in cells]
    want = ["layerid"] + [ti.lower() for ti, _ in COLUMNS]
    return names[:len(want)] == want


def parse_param_debug(text: str, source: str = "paramDebug.csv") -> tuple[ParamStats, ...]:
    """Every row in file order, each tagged ``bias`` or ``weights`` (see the module docstring).
    A :class:`~tidl_io.FormatError` naming the line for a wrong header, a cell that is no
    number, or a layer id that does not have exactly its two rows next to each other."""
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise FormatError(source, "empty; expected TI's header 'LayerId , meanDifference, …' on line 1")
    if not text.endswith(("\n", "\r")):  # TI ends every row with a line end: a file cut mid-row
        raise FormatError(source, f"line {len(lines)}: cut short (the last row has no line end; TI ends every "
                                  f"row with one)")
    if not _header_ok(lines[0].split(",")):
        raise FormatError(source, f"line 1: expected TI's header 'LayerId , meanDifference, maxDifference, …, "
                                  f"Scale', found {lines[0][:80]!r}")
    rows: list[tuple[int, int, list[float], tuple[int, ...]]] = []
    for lineno, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        if len(rows) >= _MAX_ROWS:
            raise FormatError(source, f"line {lineno}: more than {_MAX_ROWS} rows")
        cells = line.split(",")
        if len(cells) < 11:
            raise FormatError(source, f"line {lineno}: expected a layer id and 10 numbers, found {len(cells)} "
                                      f"cell(s) (file cut short?)")
        layer_id = int(_number(cells[0].strip(), source, lineno, "LayerId", whole=True))
        values = [_number(cell.strip(), source, lineno, f"layer {layer_id}, {ti}") for (ti, _), cell in
                  zip(COLUMNS, cells[1:11])]
        tail = [c.strip() for c in cells[11:]]
        while tail and not tail[-1]:
            tail.pop()
        lead = 0
        while lead < len(tail) and not tail[lead]:
            lead += 1
        if len(tail) - lead > _MAX_BINS:
            raise FormatError(source, f"line {lineno}: layer {layer_id}: more than {_MAX_BINS} histogram bins")
        hist = tuple(int(_number(c, source, lineno, f"layer {layer_id}, Hist", whole=True)) for c in tail[lead:])
        rows.append((lineno, layer_id, values, hist))
    out: list[ParamStats] = []
    i = 0
    while i < len(rows):
        lineno, layer_id, _, _ = rows[i]
        if i + 1 >= len(rows) or rows[i + 1][1] != layer_id:
            raise FormatError(source, f"line {lineno}: layer {layer_id} has one row; TIDL writes two (bias, then "
                                      f"weights)")
        if i + 2 < len(rows) and rows[i + 2][1] == layer_id:
            raise FormatError(source, f"line {rows[i + 2][0]}: a third row for layer {layer_id}; TIDL writes two "
                                      f"(bias, then weights)")
        for kind, (ln, lid, values, hist) in zip(("bias", "weights"), rows[i:i + 2]):
            (mean_d, max_d, mean_o, mean_r, org_max, q_max, org_at, q_at, max_r, scale) = values
            out.append(ParamStats(lid, kind, mean_d, max_d, mean_o, mean_r, org_max, q_max, org_at, q_at, max_r,
                                  scale, hist, ln))
        i += 2
    seen: dict[int, int] = {}
    for p in out[::2]:
        if p.layer_id in seen:
            raise FormatError(source, f"line {p.line}: layer {p.layer_id} again (first on line {seen[p.layer_id]})")
        seen[p.layer_id] = p.line
    return tuple(out)
