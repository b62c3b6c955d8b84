"""Text for humans and JSON for scripts: the only module that formats descriptors.

Two views, after Hailo's ``parse-hef`` and RKNN's tensor attributes: a *logical* view
(name, dtype, shape, layout, quantization) and a *physical* view (pads, pitches, offset of
the first element, buffer size in elements and bytes, slack).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from ..base.text import short
from .descriptor import Descriptor, ElementType, Tensor, TensorLayout
from .validate import Finding, own_findings

SCHEMA_VERSION = 1

__all__ = [
    "SCHEMA_VERSION",
    "descriptor_to_dict",
    "document",
    "dumps_json",
    "format_descriptor",
    "format_findings",
]


def num_text(value: float) -> float | str:
    """JSON has no NaN or infinity: spell those as strings, keep other floats exact."""
    if math.isfinite(value):
        return float(value)
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def tensor_to_dict(t: Tensor) -> dict[str, Any]:
    """The JSON object of one tensor: derived logical and physical values, and ``raw``."""
    element = t.element
    itemsize = None if element is None else _ITEMSIZES[element]  # derived byte values are null if unknown
    strides = t.strides  # (batch, dim1, dim2, channel step, line, pixel step) pitches
    size, buffer_size = t.size, t.buffer_size
    slack = buffer_size - size
    return {
        "index": t.index,
        "name": t.name,
        "dtype": None if element is None else _DTYPE_NAMES[element],
        "element_type": t.element_type if element is None else element.name,
        "shape": list(t.shape),
        "squeezed_shape": list(t.squeezed_shape),
        "layout": t.layout,
        "quantization": {
            "tidl_scale": num_text(t.scale),
            "zero_point": t.zero_point,
            "step": num_text(t.quant_step),
            "formula": "real = (q - zero_point) / tidl_scale",
        },
        "physical": {
            "pad": {"left": t.pad_l, "top": t.pad_t, "right": t.pad_r, "bottom": t.pad_b,
                    "channel": t.pad_ch},
            "line_pitch": strides[4],
            "channel_pitch": t.channel_pitch,
            "dim2_pitch": strides[2],
            "dim1_pitch": strides[1],
            "batch_pitch": strides[0],
            "strides": list(strides),
            "first_offset": t.first_offset,
            "first_byte_offset": None if itemsize is None else t.first_offset * itemsize,
            "valid_elements": size,
            "buffer_size": buffer_size,
            "buffer_size_source": "stored" if t.buf_size is not None else "computed",
            "buffer_nbytes": None if itemsize is None else buffer_size * itemsize,
            "required_size": t.required_size,
            "slack_elements": slack,
            "slack_bytes": None if itemsize is None else slack * itemsize,
        },
        "raw": {k: num_text(v) if isinstance(v, float) else v for k, v in t.raw.items()},
    }


_DTYPE_NAMES = {e: e.dtype.name for e in ElementType}
_ITEMSIZES = {e: e.dtype.itemsize for e in ElementType}


def descriptor_to_dict(desc: Descriptor, path: str | None = None) -> dict[str, Any]:
    """The JSON object of one descriptor (and its subgraphs, for a container)."""
    lay = desc.layout
    out: dict[str, Any] = {}
    if path is not None:
        out["path"] = path
    out["file_size"] = desc.nbytes
    out["layout"] = {"family": lay.family, "title": lay.title, "cores": lay.cores, "size": lay.size,
                     "in_slots": lay.in_slots, "out_slots": lay.out_slots, "key": lay.key}
    out["header"] = desc.header
    out["inputs"] = [tensor_to_dict(t) for t in desc.inputs]
    out["outputs"] = [tensor_to_dict(t) for t in desc.outputs]
    if desc.subgraphs:
        out["container"] = [{"offset": e.offset, "size": e.size, "reserved0": e.reserved0,
                             "reserved1": e.reserved1} for e in desc.container]
        out["subgraphs"] = [descriptor_to_dict(sub) for sub in desc.subgraphs]
    return out


def dumps_json(doc: Any) -> str:
    """JSON text for every command's ``--json``: the document's skeleton indented by 2, and
    each *record* on one line — a mapping none of whose values is a list of mappings (a tensor,
    a finding, the header, a container entry). Records go through the standard library's C
    encoder, so 1000 tensors take milliseconds; ``json.loads`` reads it like any JSON, and a
    record per line suits grep.

    Strict JSON: a non-finite number (infinity, NaN: no JSON value) is written null, never
    ``Infinity`` / ``NaN``, which strict parsers reject. Reports say what null means where it
    can occur (``trace/report``'s ``identical``); this is the guard for every other number.
    """
    return _dumps(doc, "")


def _dumps(value: Any, pad: str) -> str:
    inner = pad + "  "
    if isinstance(value, dict) and not _is_record(value):
        if not value:
            return "{}"
        items = [f"{inner}{json.dumps(str(k))}: {_dumps(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, (list, tuple)) and any(isinstance(v, dict) for v in value):
        return "[\n" + ",\n".join(inner + _dumps(v, inner) for v in value) + "\n" + pad + "]"
    try:
        return json.dumps(value, allow_nan=False)
    except ValueError:  # a non-finite number somewhere in this record: null (rare, so walked only then)
        return json.dumps(_finite(value), allow_nan=False)


def _finite(value: Any) -> Any:
    """``value`` with each non-finite float replaced by None (lists and tuples become lists)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _is_record(value: dict[str, Any]) -> bool:
    """A mapping none of whose own values is a list of mappings (deeper ones stay inline)."""
    return not any(isinstance(v, (list, tuple)) and any(isinstance(i, dict) for i in v) for v in value.values())


def document(items: Iterable[dict[str, Any]], key: str = "descriptors") -> dict[str, Any]:
    """The top-level JSON document: ``{"schema_version": 1, key: [...]}``."""
    return {"schema_version": SCHEMA_VERSION, key: list(items)}


# ---- text -------------------------------------------------------------------------------

def short_text(name: str, width: int = 40) -> str:
    """``name`` for a table cell (:func:`tidl_io.base.text.short`: controls escaped, at most
    ``width``; ``width`` 0 keeps it whole)."""
    return short(name, width)


def _quant_text(t: Tensor) -> str:
    if t.is_float and t.scale == 1.0 and t.zero_point == 0:
        return "float (none)"
    zp = f" zp {t.zero_point}" if t.zero_point else ""
    return f"x{t.scale:.6g} (step {t.quant_step:.6g}){zp}"


def _dtype_text(t: Tensor) -> str:
    element = t.element
    return element.dtype.name if element is not None else f"type{t.element_type}?"


def text_table(rows: list[list[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]


def shape_in_layout(t: Tensor) -> tuple[int, ...]:
    """The logical shape in the tensor's own axis order: :attr:`Tensor.squeezed_shape` for
    NCHW, channels last for NHWC ((1, 3, 224, 224) shows as (1, 224, 224, 3)), as
    ``unpack(..., layout="NHWC")`` returns it."""
    axes = t.squeezed_axes
    if t.layout_code == TensorLayout.NHWC and 3 in axes:  # C (axis 3 of N, DIM1, DIM2, C, H, W) goes last
        axes = tuple(a for a in axes if a != 3) + (3,)
    return tuple(t.shape[a] for a in axes)


def tensor_rows(tensors: tuple[Tensor, ...], physical: bool, flagged: frozenset[str] = frozenset(),
                 width: int = 40) -> list[list[str]]:
    """Table rows; the index of a tensor whose label is in ``flagged`` gets a "!"; names cut
    to ``width`` (0: whole)."""
    head = ["#", "name", "dtype", "shape", "layout", "quantization"]
    if physical:
        head += ["pad L/T/R/B/Ch", "pitch line/ch/batch", "first @", "buffer elems", "bytes", "slack"]
    rows = [head]
    for t in tensors:
        row = [f"{t.index}!" if t.label in flagged else str(t.index), short_text(t.name, width), _dtype_text(t), "x".join(map(str, shape_in_layout(t))), t.layout,
               _quant_text(t)]
        if physical:
            itemsize = None if t.element is None else _ITEMSIZES[t.element]
            nbytes = None if itemsize is None else t.buffer_size * itemsize
            first = None if itemsize is None else t.first_offset * itemsize
            row += [
                f"{t.pad_l}/{t.pad_t}/{t.pad_r}/{t.pad_b}/{t.pad_ch}",
                f"{t.line_pitch}/{t.channel_pitch}/{t.batch_pitch}",
                f"{t.first_offset}" + (f" ({first} B)" if first is not None and first != t.first_offset else ""),
                f"{t.buffer_size}" + ("" if t.buf_size is not None else "*"),
                "?" if nbytes is None else str(nbytes),
                f"{t.slack}",
            ]
        rows.append(row)
    return rows


def format_descriptor(desc: Descriptor, path: str, physical: bool = False, indent: str = "", wide: bool = False
                      ) -> str:
    """A compact table per tensor group, Polygraphy-style, with the detected family; names
    cut to 40 characters (``wide``: whole).

    Tensors with an error that :func:`~tidl_io.validate` reports (the same rules: a NaN
    scale, a zero point out of range, unusable geometry) are marked "!" and each error is
    listed under the tables."""
    errors = [f for f in own_findings(desc) if f.level == "error"]
    flagged = frozenset(f.tensor for f in errors if f.tensor is not None)
    hdr = desc.header
    extras = ", ".join(f"{k}={v}" for k, v in hdr.items() if k not in ("numInputBuf", "numOutputBuf"))
    lines = [f"{indent}{path}: {desc.layout.description}" + (f"; {extras}" if extras else "")]
    for title, tensors in (("Input", desc.inputs), ("Output", desc.outputs)):
        lines.append(f"{indent}---- {len(tensors)} {title}(s) ----")
        if tensors:
            lines += text_table(tensor_rows(tensors, physical, flagged, 0 if wide else 40), indent + "  ")
    if physical and any(t.buf_size is None for t in desc.inputs + desc.outputs):
        lines.append(f"{indent}  * buffer size computed from the geometry (this layout stores none)")
    lines += [f"{indent}  ! {f}" for f in errors]
    for i, sub in enumerate(desc.subgraphs):
        lines.append(f"{indent}---- subgraph {i} of {len(desc.subgraphs)} ----")
        lines.append(format_descriptor(sub, f"{path}[subgraph {i}]", physical, indent + "  ", wide))
    return "\n".join(lines)


def format_findings(path: str, findings: list[Finding]) -> str:
    errors = sum(f.level == "error" for f in findings)
    warnings = len(findings) - errors
    verdict = "invalid" if errors else "ok"
    lines = [f"{path}: {verdict} ({errors} error(s), {warnings} warning(s))"]
    lines += [f"  {f}" for f in findings]
    return "\n".join(lines)


def finding_to_dict(f: Finding) -> dict[str, Any]:
    return {"level": f.level, "message": f.message, "field": f.field, "tensor": f.tensor, "offset": f.offset}
