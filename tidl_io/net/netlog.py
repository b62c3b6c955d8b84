"""The model importer's ``<net>_netLog.txt``: the network as a table (``Num|TIDL Layer Name|Out
Data Name|Group|#Ins|#Outs|Inbuf Ids|Outbuf Id|In NCHW|Out NCHW|MACS|``), one row per layer by
layer number, then ``Total Giga Macs : 13.3203``. The same layout from 8.2 to 10.x (10.x
writes six dims). :func:`parse_netlog` is a pure function of the text; :func:`load_netlog`
reads a file (at most :data:`~tidl_io.base.tilog.MAX_TEXT_BYTES`) and parses it. The one
netLog reader: perf (MACs, shapes), precision and the advisor (Out Data Names) call it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from decimal import Decimal

from ..base.tilog import MAX_LAYERS, located, read_text, split_lines, to_decimal, to_int

__all__ = ["NAME_CUT", "NetLog", "NetLogLayer", "load_netlog", "parse_netlog"]

NAME_CUT = 50
"""TI's netLog writes the last 50 characters of a longer output name."""

_FIELDS_AFTER_NAME = 9  # Group, #Ins, #Outs, Inbuf Ids, Outbuf Id, In NCHW, Out NCHW, MACS, the closing ""


@dataclass(frozen=True)
class NetLogLayer:
    """A row: ``index`` (Num), ``type``, ``name`` (Out Data Name: TI cuts it to 50
    characters), ``num_in``/``num_out`` (#Ins/#Outs, -1 on data layers), ``data_id`` (Outbuf
    Id), ``shape`` (Out NCHW as written), ``macs``."""

    line: int
    index: int
    type: str
    name: str
    num_in: int
    num_out: int
    data_id: int
    shape: tuple[int, ...]
    macs: int


@dataclass(frozen=True)
class NetLog:
    source: str
    layers: tuple[NetLogLayer, ...]
    total_gmacs: Decimal | None  # "Total Giga Macs", None where the file has no such line


def _row(line: str, lineno: int, source: str) -> NetLogLayer:
    parts = line.split("|")
    if len(parts) < 3 + _FIELDS_AFTER_NAME:
        raise located(source, lineno, f"expected {2 + _FIELDS_AFTER_NAME} '|'-separated fields, found {len(parts)} "
                                      "(a cut or malformed row)")
    starts = [0]
    for p in parts[:-1]:
        starts.append(starts[-1] + len(p) + 1)
    tail = len(parts) - _FIELDS_AFTER_NAME  # the name may itself hold a '|'

    def cell(i: int) -> tuple[int, str]:  # (column of the text after TI's padding, the text)
        return starts[i] + len(parts[i]) - len(parts[i].lstrip()) + 1, parts[i].strip()

    def whole(i: int, label: str, minimum: int | None = None) -> int:
        column, text = cell(i)
        return to_int(text, source, lineno, column, label, minimum=minimum, maximum=(1 << 63) - 1)

    index = whole(0, "Num", 0)
    if index > MAX_LAYERS:
        raise located(source, lineno, f"expected a layer number <= {MAX_LAYERS}, found {index}", 1, "Num")
    out_column, out_text = cell(tail + 6)
    shape = []
    for word in out_text.split():
        shape.append(to_int(word, source, lineno, out_column, "Out NCHW", maximum=(1 << 63) - 1))
    return NetLogLayer(line=lineno, index=index, type=parts[1].strip(), name="|".join(parts[2:tail]).strip(),
                       num_in=whole(tail + 1, "#Ins", None), num_out=whole(tail + 2, "#Outs", None),
                       data_id=whole(tail + 4, "Outbuf Id", None), shape=tuple(shape),
                       macs=whole(tail + 7, "MACS", 0))


def _column(line: str, sep: str) -> int:
    """1-based column of the text after the first ``sep``."""
    at = line.index(sep) + 1
    return at + len(line[at:]) - len(line[at:].lstrip()) + 1


def parse_netlog(text: str, source: str = "netLog.txt") -> NetLog:
    """The table and the total in ``text`` (``source`` names it in errors). Raises a located
    :class:`~tidl_io.FormatError`: no ``Num|`` header (not a netLog), a cut or malformed row,
    a number that is not one, a layer number twice, fewer rows than "Num of Layer Detected"."""
    lines = split_lines(text, source, "TI's netLog (Num of Layer Detected, the Num|... table)")
    head = next((k for k, line in enumerate(lines) if line.strip().startswith("Num|")), None)
    if head is None:
        raise located(source, 1, "no 'Num|TIDL Layer Name|...' table header: this is no netLog TI wrote")
    declared = None
    for k, line in enumerate(lines[:head]):
        if line.strip().lower().startswith("num of layer detected"):
            _, _, value = line.partition(":")
            declared = to_int(value.strip(), source, k + 1, _column(line, ":"), "Num of Layer Detected",
                              maximum=MAX_LAYERS)
    layers: list[NetLogLayer] = []
    seen: dict[int, int] = {}
    total = None
    for k in range(head + 1, len(lines)):
        stripped = lines[k].strip()
        if not stripped or set(stripped) == {"-"}:
            continue
        if stripped.lower().startswith("total giga macs"):
            _, colon, value = stripped.partition(":")
            if not colon:
                raise located(source, k + 1, f"expected 'Total Giga Macs : N', found {stripped[:60]!r}")
            total = to_decimal(value.strip(), source, k + 1, _column(lines[k], ":"), "Total Giga Macs")
            break
        if len(layers) >= MAX_LAYERS:
            raise located(source, k + 1, f"more than {MAX_LAYERS} layer rows")
        layer = _row(lines[k], k + 1, source)
        if layer.index in seen:
            raise located(source, k + 1, f"layer {layer.index} again (first on line {seen[layer.index]})", 1, "Num")
        seen[layer.index] = k + 1
        layers.append(layer)
    if declared is not None and len(layers) != declared:
        raise located(source, len(lines), f"'Num of Layer Detected : {declared}' but {len(layers)} layer row(s) "
                                          "(a cut file?)")
    return NetLog(source=source, layers=tuple(layers), total_gmacs=total)


def load_netlog(path: str | os.PathLike[str]) -> NetLog:
    """:func:`parse_netlog` of the file at ``path`` (a regular file of at most 64 MiB of UTF-8
    text; PathError / FormatError naming it)."""
    name = os.fspath(path)
    return parse_netlog(read_text(name, "TI's netLog (<net>_netLog.txt)"), name)
