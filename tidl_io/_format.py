"""Text for humans and JSON for scripts: the only module that formats descriptors.

Two views, after Hailo's ``parse-hef`` and RKNN's tensor attributes: a *logical* view
(name, dtype, shape, layout, quantization) and a *physical* view (pads, pitches, offset of
the first element, buffer size in elements and bytes, slack).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._text import escape, short
from .descriptor import Descriptor, ElementType, Tensor, TensorLayout
from .releases import releases_text
from .validate import Finding, own_findings

if TYPE_CHECKING:
    from .doctor import Diagnosis

SCHEMA_VERSION = 1

__all__ = [
    "SCHEMA_VERSION",
    "descriptor_to_dict",
    "diagnosis_to_dict",
    "diagnosis_to_html",
    "document",
    "dumps_json",
    "format_descriptor",
    "format_diagnosis",
    "format_findings",
]


def _num(value: float) -> float | str:
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
            "tidl_scale": _num(t.scale),
            "zero_point": t.zero_point,
            "step": _num(t.quant_step),
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
        "raw": {k: _num(v) if isinstance(v, float) else v for k, v in t.raw.items()},
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
    """JSON text for ``inspect --json`` / ``validate --json``: the document's skeleton
    indented by 2, and each *record* on one line — a mapping none of whose values is a
    list of mappings (a tensor, a finding, the header, a container entry). Records go through
    the standard library's C encoder, so 1000 tensors take milliseconds; ``json.loads``
    reads it like any JSON, and a record per line suits grep.
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
    return json.dumps(value)


def _is_record(value: dict[str, Any]) -> bool:
    """A mapping none of whose own values is a list of mappings (deeper ones stay inline)."""
    return not any(isinstance(v, (list, tuple)) and any(isinstance(i, dict) for i in v) for v in value.values())


def document(items: Iterable[dict[str, Any]], key: str = "descriptors") -> dict[str, Any]:
    """The top-level JSON document: ``{"schema_version": 1, key: [...]}``."""
    return {"schema_version": SCHEMA_VERSION, key: list(items)}


# ---- text -------------------------------------------------------------------------------

def _short(name: str, width: int = 40) -> str:
    """``name`` for a table cell (:func:`tidl_io._text.short`: controls escaped, at most
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


def _table(rows: list[list[str]], indent: str = "  ") -> list[str]:
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


def _tensor_rows(tensors: tuple[Tensor, ...], physical: bool, flagged: frozenset[str] = frozenset(),
                 width: int = 40) -> list[list[str]]:
    """Table rows; the index of a tensor whose label is in ``flagged`` gets a "!"; names cut
    to ``width`` (0: whole)."""
    head = ["#", "name", "dtype", "shape", "layout", "quantization"]
    if physical:
        head += ["pad L/T/R/B/Ch", "pitch line/ch/batch", "first @", "buffer elems", "bytes", "slack"]
    rows = [head]
    for t in tensors:
        row = [f"{t.index}!" if t.label in flagged else str(t.index), _short(t.name, width), _dtype_text(t), "x".join(map(str, shape_in_layout(t))), t.layout,
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
            lines += _table(_tensor_rows(tensors, physical, flagged, 0 if wide else 40), indent + "  ")
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


# ---- doctor -------------------------------------------------------------------------------

def format_diagnosis(d: Diagnosis) -> str:
    """``tidl-io doctor``'s text (:meth:`Diagnosis.to_text`): what each subgraph's files say,
    then one line per finding (``error: file, place: message``) and a verdict line. Every
    line is escaped (:func:`tidl_io._text.escape`): a name holding ESC or a newline cannot
    drive the terminal or split a finding over two lines."""
    lines = ([f"{d.folder}: TIDL {releases_text(d.releases, 'unknown')}, {len(d.subgraphs)} subgraph(s)"]
             if d.subgraphs else [])
    for s in d.subgraphs:
        io = f"{Path(s.io_file).name} {s.io_title} ({s.io_size} bytes)" if s.io_title else Path(s.io_file).name
        if s.io_missing:
            io = f"no {Path(s.io_file).name}"
        if s.net_version is not None:
            net = f"{Path(s.net_file or '').name} netVersion {s.net_version:#010x} (TIDL {s.net_release}), " \
                  f"{s.num_layers} layers"
        else:
            net = f"{Path(s.net_file).name} (unreadable)" if s.net_file else "no net file"
        io_count = f"; {s.num_inputs} input(s), {s.num_outputs} output(s)" if s.num_inputs is not None else ""
        lines.append(f"  subgraph {s.name!r}: {io}; {net}{io_count}")
    if d.subgraphs:
        lines.append(f"  TIDL-RT: {d.library or 'no library identified (see the notes)'}")
    lines += [str(f) for f in d.findings]
    errors, notes = len(d.errors), len(d.findings) - len(d.errors)
    verdict = "all files agree" if d.ok else f"{errors} problem(s)"
    lines.append(f"{d.folder}: {verdict} ({errors} error(s), {notes} note(s))")
    return "\n".join(escape(line) for line in lines)


def diagnosis_to_dict(d: Diagnosis) -> dict[str, Any]:
    """``tidl-io doctor --json`` (:meth:`Diagnosis.to_dict`): the subgraphs, the releases, the
    library and every finding; names as they are (JSON escapes what needs it)."""
    return {
        "schema_version": SCHEMA_VERSION, "path": d.path, "folder": d.folder, "ok": d.ok,
        "releases": list(d.releases), "library": d.library,
        "subgraphs": [dataclasses.asdict(s) for s in d.subgraphs],
        "findings": [{"level": f.level, "check": f.check, "source": f.source, "where": list(f.where),
                      "subgraph": f.subgraph, "message": f.message} for f in d.findings],
    }


_DOCTOR_CSS = """
body { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; margin: 24px; color: #1a202c; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 24px; border-bottom: 2px solid #2b6cb0; }
table { border-collapse: collapse; font-size: 12px; } th { background: #edf2f7; }
th, td { border: 1px solid #cbd5e0; padding: 3px 8px; text-align: left; vertical-align: top; }
td.msg { word-break: break-word; max-width: 900px; } tr.error td.level { color: #c53030; font-weight: bold; }
tr.note td.level { color: #2b6cb0; } p.ok { color: #276749; font-weight: bold; } p.bad { color: #c53030;
font-weight: bold; }
"""


def diagnosis_to_html(d: Diagnosis) -> str:
    """``tidl-io doctor --html`` (:meth:`Diagnosis.to_html`): one small self-contained page
    (no script, nothing fetched: ``default-src 'none'``) with the subgraphs, each finding and
    the verdict; every name and message is HTML-escaped."""
    from html import escape as html_escape

    from . import __version__

    def esc(text: str) -> str:  # control characters as Python escapes, then HTML's
        return html_escape(escape(text))

    def row(cells: Iterable[str], cls: str = "") -> str:
        klass = f' class="{cls}"' if cls else ""
        return f"<tr{klass}>" + "".join(cells) + "</tr>"

    subs = [row(f"<td>{esc(str(v))}</td>" for v in (
        s.name, ("missing: " if s.io_missing else "") + Path(s.io_file).name, s.io_title or "-",
        Path(s.net_file).name if s.net_file else "-",
        "-" if s.net_version is None else f"{s.net_version:#010x} (TIDL {s.net_release})",
        "-" if s.num_layers is None else s.num_layers)) for s in d.subgraphs]
    finds = [row((f'<td class="level">{esc(f.level)}</td>', f"<td>{esc(f.check)}</td>",
                  f"<td>{esc(', '.join((f.source, *f.where)))}</td>", f'<td class="msg">{esc(f.message)}</td>'),
                 f.level) for f in d.findings]
    errors, notes = len(d.errors), len(d.findings) - len(d.errors)
    verdict = "all files agree" if d.ok else f"{errors} problem(s)"
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>tidl-io doctor: {esc(d.folder)}</title><style>{_DOCTOR_CSS}</style></head><body>",
        f"<h1>tidl-io doctor: {esc(d.folder)}</h1>",
        f"<p>TIDL {esc(releases_text(d.releases, 'unknown'))}; TIDL-RT: {esc(d.library or 'no library identified')}</p>",
        f'<p class="{"ok" if d.ok else "bad"}">{esc(verdict)} ({errors} error(s), {notes} note(s))</p>',
    ]
    if subs:
        head = "".join(f"<th>{h}</th>" for h in ("subgraph", "io file", "io layout", "net file", "netVersion",
                                                 "layers"))
        parts.append(f"<h2>Subgraphs</h2><table><thead><tr>{head}</tr></thead><tbody>{''.join(subs)}</tbody></table>")
    if finds:
        head = "".join(f"<th>{h}</th>" for h in ("level", "check", "where", "message"))
        parts.append(f"<h2>Findings</h2><table><thead><tr>{head}</tr></thead><tbody>{''.join(finds)}</tbody></table>")
    parts.append(f"<p><small>tidl-io {esc(__version__)}</small></p></body></html>")
    return "\n".join(parts) + "\n"
