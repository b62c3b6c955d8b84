"""TIDL's buffer placement log ``tempDir/<sg>_tidl_net/bufinfolog.csv`` (8.x, 9.x) or
``bufinfolog_0.csv`` (10.x on, one per core): per layer, where each buffer lives.

A header (``Layer, Type, Ni, inW, ..., kernelFreq, In-Read-memSpace, In-Read-accessor,
In-Read-pitch, In-Read-width, In-Read-height, In-Read-size, In-Read-accessOffset,
In-Read-baseAddress, In-Write-..., Out-Read-..., Out-Write-..., Wt-Read-..., Wt-Write-...,
Wt-Oneshot-...``), then one row per layer in execution order; a group TI leaves empty (eight
empty fields) is a buffer it does not log. Groups are found by their ``-memSpace`` column, so
a release with other groups reads the same way. Base addresses are hexadecimal
(``ffffffff``: none). :func:`parse_bufinfolog` is a pure function of the text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..base.tilog import MAX_LAYERS, Row, fields, located, split_lines

__all__ = ["BufInfoLayer", "BufInfoLog", "Buffer", "parse_bufinfolog"]

_PARTS = ("memSpace", "accessor", "pitch", "width", "height", "size", "accessOffset", "baseAddress")
_MAX_VALUE = (1 << 64) - 1


@dataclass(frozen=True)
class Buffer:
    """One logged buffer: ``mem_space`` as written (``"L2"``, ``"MSMC"``, ``"DDR"``,
    ``"DDR_PERSIST"``, ``"NONE"``), ``accessor`` (``"DMA"``, ``"CPU"``, ``"DMA_ONCE"``), line
    ``pitch``, ``width``, ``height``, ``size`` and ``access_offset`` in bytes, ``base_address``."""

    mem_space: str
    accessor: str
    pitch: int
    width: int
    height: int
    size: int
    access_offset: int
    base_address: int


@dataclass(frozen=True)
class BufInfoLayer:
    """A row: the layer number (``Layer``), its type as this log writes it, and its buffers by
    group (``"In-Read"``, ``"In-Write"``, ``"Out-Read"``, ... -> :class:`Buffer` or None)."""

    line: int
    index: int
    type: str
    buffers: Mapping[str, Buffer | None]
    values: Mapping[str, str] = field(repr=False)  # the other columns as written (Ni, inW, dataflowType ...)

    def memory(self) -> dict[str, tuple[str | None, str | None]]:
        """``in``/``out``/``weights`` -> (Read, Write) memory space, None where not logged."""
        def space(group: str) -> str | None:
            b = self.buffers.get(group)
            return None if b is None else b.mem_space

        return {part: (space(f"{tag}-Read"), space(f"{tag}-Write"))
                for part, tag in (("in", "In"), ("out", "Out"), ("weights", "Wt"))}


@dataclass(frozen=True)
class BufInfoLog:
    source: str
    groups: tuple[str, ...]
    layers: tuple[BufInfoLayer, ...]  # file order = execution order


def _header(line: str, source: str) -> tuple[list[str], dict[str, int]]:
    names = [t for _, t in fields(line)]
    while names and not names[-1]:
        names.pop()
    if len(names) < 2 or names[0] != "Layer" or names[1] != "Type":
        raise located(source, 1, "expected TI's bufinfolog header (Layer, Type, Ni, inW, ..., "
                                 f"In-Read-memSpace, ...), found {line.strip()[:60]!r}")
    groups: dict[str, int] = {}
    for i, n in enumerate(names):
        if n.endswith("-memSpace"):
            group = n[: -len("-memSpace")]
            want = [f"{group}-{p}" for p in _PARTS]
            if names[i:i + len(_PARTS)] != want:
                got = ", ".join(names[i:i + len(_PARTS)])
                raise located(source, 1, f"group {group!r}: expected the columns {', '.join(want)}, found {got}",
                              name=n)
            groups[group] = i
    if not groups:
        raise located(source, 1, "no '...-memSpace' column: this is no bufinfolog TI wrote")
    return names, groups


def _buffer(row: Row, start: int, group: str) -> Buffer | None:
    t = row.texts
    if not any(t[start:start + len(_PARTS)]):
        return None
    pitch, width, height, size, offset = (row.whole(start + k, f"{group}-{_PARTS[k]}", None, _MAX_VALUE)
                                          for k in range(2, len(_PARTS) - 1))
    address = row.whole(start + len(_PARTS) - 1, f"{group}-baseAddress", 0, _MAX_VALUE, base=16)
    return Buffer(t[start], t[start + 1], pitch, width, height, size, offset, address)


def parse_bufinfolog(text: str, source: str = "bufinfolog.csv") -> BufInfoLog:
    """The log in ``text`` (``source`` names it in errors). Raises a located
    :class:`~tidl_io.FormatError`: a header of another file, a cut or malformed row (fewer
    fields than the header, a number that is not one, a last line without its line end), a
    layer number twice. (A file cut at a line end reads as fewer layers: :func:`load_perf`
    notes a bufinfolog whose layers are not the simulation's.)"""
    lines = split_lines(text, source, "TI's bufinfolog header (Layer, Type, ...)")
    names, groups = _header(lines[0], source)
    width = len(names)
    plain = [i for i in range(2, width) if not any(g <= i < g + len(_PARTS) for g in groups.values())]
    layers: list[BufInfoLayer] = []
    seen: dict[int, int] = {}
    for k, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        if len(layers) >= MAX_LAYERS:
            raise located(source, k, f"more than {MAX_LAYERS} layer rows")
        row = Row(line, k, source)
        if len(row) < width:
            raise located(source, k, f"expected {width} fields as in the header, found {len(row)} "
                                     "(a cut or malformed row)")
        index = row.whole(0, "Layer", maximum=MAX_LAYERS)
        if index in seen:
            raise located(source, k, f"layer {index} again (first on line {seen[index]})", 1, "Layer")
        seen[index] = k
        buffers = {g: _buffer(row, i, g) for g, i in groups.items()}
        layers.append(BufInfoLayer(line=k, index=index, type=row.texts[1], buffers=buffers,
                                   values={names[i]: row.texts[i] for i in plain}))
    return BufInfoLog(source=source, groups=tuple(groups), layers=tuple(layers))
