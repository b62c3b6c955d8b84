"""Check a descriptor for values TIDL-RT would reject or silently get wrong.

``validate(desc)`` never raises for bad values: it returns :class:`Finding` objects, each
naming the tensor, the TI field and the byte offset of the value in the file. Quirks seen
in real files are valid: large ``outPadCh``, ``rawDataInElementType = -1``, a channel
pitch smaller than the padded plane (pad rows of neighbouring channels overlap).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from ..base.check import check_kind
from .descriptor import Descriptor, ElementType, Tensor

__all__ = ["Finding", "geometry_problems", "quant_problems", "validate"]

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Finding:
    """One problem: ``level`` is "error" or "warning"; ``tensor`` is e.g. ``input 0 'x'``."""

    level: str
    message: str
    field: str | None = None
    tensor: str | None = None
    offset: int | None = None
    source: str = "<bytes>"

    def __str__(self) -> str:
        where = [self.source]
        if self.offset is not None:
            where.append(f"offset {self.offset:#x}")
        if self.tensor is not None:
            where.append(self.tensor)
        if self.field is not None:
            where.append(self.field)
        return f"{self.level}: {', '.join(where)}: {self.message}"


def validate(desc: Descriptor) -> list[Finding]:
    """Every finding for ``desc`` (and its subgraphs), errors and warnings, in file order."""
    return list(_descriptor_findings(check_kind(desc, Descriptor, "validate", "desc")))


def own_findings(desc: Descriptor) -> list[Finding]:
    """The findings of ``desc`` itself, without its subgraphs' (what ``inspect`` flags per table)."""
    return list(_descriptor_findings(desc, subgraphs=False))


def quant_problems(t: Tensor) -> list[tuple[str, str]]:
    """(TI field, message) pairs that make quantizing or dequantizing the tensor meaningless.

    For integer element types: a scale that is not a finite multiplier > 0, a zero point
    outside the element type's range (every code would saturate). Float element types
    have none (TIDL forces scale 1, zero point 0). :func:`validate` reports them as errors
    and ``inspect`` flags them. quantize/pack refuse only the scale; with a zero point out
    of range they saturate, as their tests pin.
    """
    element = t.element
    if element is None or element is ElementType.SinglePrecFloat:
        return []
    problems = []
    if not math.isfinite(t.scale) or t.scale <= 0:
        problems.append((t.ti_name("scale"), f"tensor scale must be finite and > 0, found {t.scale!r}"))
    info = np.iinfo(element.dtype)
    if not int(info.min) <= t.zero_point <= int(info.max):
        message = f"zero point {t.zero_point} is outside the {element.dtype} range {info.min}..{info.max}"
        problems.append((t.ti_name("zero_point"), message + ": every code would saturate"))
    return problems


def geometry_problems(t: Tensor) -> list[tuple[str, str]]:
    """(TI field, message) pairs that make the tensor's buffer geometry unusable: the tensor's own
    :attr:`~tidl_io.iodesc.tensor.Tensor.geometry_problems` (computed once per tensor), shared by
    :func:`validate` and by every buffer operation, which refuse such a tensor before touching
    memory."""
    return list(t.geometry_problems)


def _descriptor_findings(desc: Descriptor, subgraphs: bool = True) -> Iterator[Finding]:
    layout, src = desc.layout, desc.source

    def finding(level: str, message: str, field: str | None = None, tensor: str | None = None,
                offset: int | None = None) -> Finding:
        return Finding(level, message, field, tensor, offset, src)

    header = desc.header
    capacities = {"numInputBuf": layout.in_slots, "numOutputBuf": layout.out_slots}
    bad_counts = False
    for name, capacity in capacities.items():
        if not 0 <= header[name] <= capacity:
            bad_counts = True
            yield finding(ERROR, f"expected 0..{capacity}, found {header[name]}", name,
                          offset=layout.member(name).offset)
    if header["numInputBuf"] == 0 and not bad_counts:
        yield finding(WARNING, "descriptor has no inputs", "numInputBuf", offset=layout.member("numInputBuf").offset)
    if "inferenceMode" in header and header["inferenceMode"] not in (0, 1, 2):
        yield finding(WARNING, f"unknown inference mode {header['inferenceMode']} (expected 0, 1 or 2)",
                      "inferenceMode", offset=layout.member("inferenceMode").offset)
    if "numCores" in header and not 1 <= header["numCores"] <= max(layout.cores, 4):
        yield finding(WARNING, f"expected 1..{max(layout.cores, 4)}, found {header['numCores']}", "numCores",
                      offset=layout.member("numCores").offset)
    if bad_counts:
        return

    for kind, tensors in (("input", desc.inputs), ("output", desc.outputs)):
        # A used slot with every field zero is one finding per run of such slots, not one per
        # field: a corrupt count (say numOutputBuf = 512) must not bury the report.
        filled = _filled_slots(desc, kind, len(tensors))
        count_name = "numInputBuf" if kind == "input" else "numOutputBuf"
        for first, last in _runs(~filled):
            slots = f"slot {first} is" if first == last else f"slots {first}..{last} are"
            yield finding(ERROR, f"{slots} empty (every field zero, no name): {count_name} = {len(tensors)} "
                          f"counts more {kind}s than the file describes", count_name,
                          offset=layout.member(count_name).offset)
        names: dict[str, int] = {}
        for t in tensors:
            if not filled[t.index]:
                continue
            yield from _tensor_findings(desc, t, finding)
            if t.name in names:
                yield finding(WARNING, f"same name as {t.kind} {names[t.name]}; TIDL-RT matches tensors by name",
                              t.ti_name("name_bytes"), t.label,
                              layout.member(t.ti_name("name_bytes")).slot_offset(t.index))
            names.setdefault(t.name, t.index)

    for m in layout.members:
        if m.kind == "header":
            continue
        used = desc.num_inputs if m.kind == "input" else desc.num_outputs
        rest = np.asarray(desc.fields[m.name])[used:]
        nonzero = np.flatnonzero(rest != rest.dtype.type(0)) if rest.dtype.kind != "S" else \
            np.flatnonzero(rest != b"")
        if nonzero.size:
            slot = used + int(nonzero[0])
            yield finding(WARNING, f"unused slot {slot} (of {nonzero.size} unused slots with data) is not zero",
                          f"{m.name}[{slot}]", offset=m.slot_offset(slot))

    s = layout.size
    for i, entry in enumerate(desc.container):
        if entry.size != s:
            yield finding(WARNING, f"entry size {entry.size}, expected {s}", f"container entry {i}",
                          offset=s + 8 + 16 * i)
    for sub in desc.subgraphs if subgraphs else ():
        yield from _descriptor_findings(sub)


def _filled_slots(desc: Descriptor, kind: str, count: int) -> np.ndarray:
    """Boolean per used slot: whether any of its fields is non-zero (or its name non-empty)."""
    filled = np.zeros(count, bool)
    for m in desc.layout.members_of(kind):
        values = np.asarray(desc.fields[m.name])[:count]
        filled |= values != (b"" if values.dtype.kind == "S" else 0)
    return filled


def _runs(mask: np.ndarray) -> Iterator[tuple[int, int]]:
    """(first, last) index of each run of True in ``mask``."""
    padded = np.concatenate(([False], mask, [False])).astype(np.int8)
    edges = np.flatnonzero(np.diff(padded))
    for first, end in zip(edges[::2].tolist(), edges[1::2].tolist()):
        yield first, end - 1


def _tensor_findings(desc: Descriptor, t: Tensor, finding: Callable[..., Finding]) -> Iterator[Finding]:
    layout = desc.layout

    def at(attr: str) -> int | None:
        ti = t.ti_name(attr)
        return layout.member(ti).slot_offset(t.index) if layout.has(ti) else None

    def offset_of(field: str) -> int | None:
        return layout.member(field).slot_offset(t.index) if layout.has(field) else None

    for field, message in geometry_problems(t):
        yield finding(ERROR, message, field, t.label, offset_of(field))

    for field, message in quant_problems(t):
        yield finding(ERROR, message, field, t.label, offset_of(field))
    if t.element is ElementType.SinglePrecFloat and t.scale != 1.0:
        yield finding(WARNING, f"float tensor with scale {t.scale!r}; TIDL forces scale 1 for float",
                      t.ti_name("scale"), t.label, at("scale"))
    if t.raw_element_type is not None and t.raw_element_type not in (-1, *range(9)):
        yield finding(WARNING, f"unknown raw element type {t.raw_element_type} (expected -1..8)",
                      "rawDataInElementType", t.label, at("raw_element_type"))
    if t.num_valid_dims is not None and not 1 <= t.num_valid_dims <= 6:
        yield finding(WARNING, f"expected 1..6, found {t.num_valid_dims}; shape stays (N, C, H, W)",
                      "numValidTensorDims", t.label, at("num_valid_dims"))
    if t.kind == "input" and t.pad_ch != 0:
        yield finding(WARNING, f"input channel pad {t.pad_ch} is ignored by TIDL's geometry",
                      t.ti_name("pad_ch"), t.label, at("pad_ch"))

    name_field = t.ti_name("name_bytes")
    name_at = at("name_bytes")
    raw_name = np.asarray(desc.fields[name_field])[t.index:t.index + 1].tobytes()
    if b"\0" not in raw_name:
        yield finding(ERROR, f"name has no NUL terminator within {len(raw_name)} bytes", name_field, t.label,
                      name_at)
    else:
        head, tail = raw_name.split(b"\0", 1)
        if tail.strip(b"\0"):
            yield finding(WARNING, f"bytes after the name's NUL at {len(head)} are not zero (ignored)",
                          name_field, t.label, name_at)
        if not head:
            yield finding(WARNING, "empty tensor name; TIDL-RT can only match it by index", name_field,
                          t.label, name_at)
