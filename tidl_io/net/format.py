"""Text and JSON of a :class:`~tidl_io.net.Network` for ``tidl-io inspect NET.bin``: the only
place that formats nets. The table is TI's netLog from the file itself, in execution order,
with what the netLog leaves out: element type, scale, zero point, pads."""

from __future__ import annotations

from typing import Any

from ..iodesc.format import num_text, short_text, text_table
from .model import Layer, Network

__all__ = ["format_net", "layer_to_dict", "net_rows", "net_to_dict", "short_type"]


def short_type(layer: Layer) -> str:
    """``TIDL_ConvolutionLayer`` -> ``Convolution``."""
    name = layer.type.removeprefix("TIDL_")
    return name[:-5] if name.endswith("Layer") and len(name) > 5 else name


def _role(layer: Layer) -> str:
    return " (input)" if layer.is_input else " (output)" if layer.is_output else ""


def _dtype_text(layer: Layer) -> str:
    if layer.is_output:
        return "-"
    dtype = layer.dtype
    return dtype.name if dtype is not None else f"type{layer.element_code}?"


def _shape_text(layer: Layer) -> str:
    return "-" if layer.is_output else "x".join(map(str, layer.shape))


def net_header_line(net: Network, path: str) -> str:
    cores = f", {net.num_cores} core(s)" if "numCores" in net.header else ""
    return (f"{path}: TIDL network, netVersion {net.net_version:#010x} (TIDL {net.release}, layout "
            f"{net.layout_key}{cores}), {len(net.layers)} layers, {net.file_size} bytes")


def sections_line(net: Network) -> str:
    return "sections: " + ", ".join(f"{s.name} {s.size} B @ {s.offset}" for s in net.sections)


def format_net(net: Network, path: str, indent: str = "", physical: bool = False, wide: bool = False) -> str:
    """The header line, the sections, and one table row per layer in execution order;
    ``physical`` adds each output buffer's pitches, first element and size; names are cut
    to 40 characters (``wide``: whole). A line says where the names come from when none
    show or some are cut."""
    lines = [indent + net_header_line(net, path), indent + "  " + sections_line(net) + _names_note(net, wide)]
    lines += text_table(net_rows(net, physical, wide), indent + "  ")
    return "\n".join(lines)


def _names_note(net: Network, wide: bool) -> str:
    """What the name column shows, when it is not every name whole."""
    if net.layer_info_error is not None:
        return "; names: none (its layer_info.txt is not this net's: see the error)"
    if not any(la.name for la in net.layers):
        return "; names: none (no layer_info.txt beside the net nor in tempDir/)"
    if not wide and any(la.name and len(la.name) > 40 for la in net.layers):
        return "; names cut to 40 characters (--wide: whole)"
    return ""


def _physical(la: Layer) -> list[str]:
    if la.is_output:
        return ["-", "-", "-", "-"]
    g = la.geometry
    pitches = "/".join(map(str, la.pitches))
    if g is None:  # the file does not tell the layout, or its pitches overlap: no number rather than a wrong one
        return [la.layout or "?", pitches, "?", "?"]
    return [str(la.layout), pitches, str(g.first_offset), str(g.required_size * g.itemsize)]


def net_rows(net: Network, physical: bool = False, wide: bool = False) -> list[list[str]]:
    """The layer table: a head row, then one row per layer (names shortened to 40);
    ``physical`` adds the output buffer's layout (NCHW, NHWC, ``?`` where the file does not
    tell), pitches (as stored), the first valid element and the bytes up to the last valid
    element (``?`` where the layout or pitches define no buffer)."""
    rows = [["#", "type", "name", "inputs", "dataId", "dtype", "shape", "scale", "zp", "pad W/H"]
            + (["layout", "pitches", "first @", "bytes"] if physical else [])]
    for la in net.layers:
        rows.append([str(la.index), short_type(la) + _role(la), short_text(la.name or "", 0 if wide else 40),
                     ",".join(map(str, la.inputs)) or "-", "-" if la.is_output else str(la.data_id),
                     _dtype_text(la), _shape_text(la), "-" if la.is_output else f"{la.scale:.6g}",
                     "-" if la.is_output else str(la.zero_point),
                     "-" if la.is_output else f"{la.pads[0]}/{la.pads[1]}"] + (_physical(la) if physical else []))
    return rows


def layer_to_dict(la: Layer) -> dict[str, Any]:
    """The JSON object of one layer (values as stored; ``params`` by TI member name).

    ``element_type`` is TI's name (``"SignedChar"``) or null for a code TI does not define;
    ``element_code`` the stored number. An output data layer produces no buffer: its output
    fields (``data_id``, ``shape``, ``dims``, ``element_type``, ``element_code``, ``dtype``,
    ``scale``, ``zero_point``, ``pads``, ``pitches``, ``layout``) are null, as the table's
    ``-``. ``layout`` is ``"NCHW"``, ``"NHWC"`` or null where the file does not tell.
    """
    element = la.element_type
    out: dict[str, Any] = {
        "index": la.index, "type": la.type, "type_code": la.type_code, "name": la.name,
        "inputs": list(la.inputs), "data_id": la.data_id, "num_in": la.num_in, "num_out": la.num_out,
        "role": "input" if la.is_input else "output" if la.is_output else None,
        "shape": list(la.shape), "dims": list(la.dims),
        "element_type": element.name if element is not None else None, "element_code": la.element_code,
        "dtype": None if la.dtype is None else la.dtype.name,
        "scale": num_text(la.scale), "zero_point": la.zero_point, "pads": list(la.pads), "pitches": list(la.pitches),
        "layout": la.layout,
        "params": {k: _jsonable(v) for k, v in la.params.items()},
    }
    if la.is_output:
        out.update(dict.fromkeys(_OUTPUT_FIELDS))
    return out


_OUTPUT_FIELDS = ("data_id", "shape", "dims", "element_type", "element_code", "dtype", "scale", "zero_point",
                  "pads", "pitches", "layout")


def _jsonable(value: Any) -> Any:
    if isinstance(value, float):
        return num_text(value)
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def net_to_dict(net: Network, path: str | None = None) -> dict[str, Any]:
    """The JSON object of a net: version, release, layout, sections, header (TI names), layers, edges.

    ``release`` is the label tidl-io prints (``"9.0/9.1"``: the releases whose importer writes
    this netVersion); ``releases`` the same releases as TI numbers them (``["09.00",
    "09.01"]``, the form of TI's tools versions and of ``doctor --json``'s ``releases``)."""
    out: dict[str, Any] = {}
    if path is not None:
        out["path"] = path
    out.update({
        "net_version": net.net_version, "net_version_hex": f"{net.net_version:#010x}", "release": net.release,
        "releases": list(net.releases),
        "layout": net.layout_key, "file_size": net.file_size, "num_cores": net.num_cores,
        "sections": [{"name": s.name, "offset": s.offset, "size": s.size} for s in net.sections],
        "header": _jsonable(_flat_header(net.header)),
        "layer_info": net.layer_info, "layer_info_error": net.layer_info_error,
        "layers": [layer_to_dict(la) for la in net.layers],
        "edges": [list(e) for e in net.edges],
    })
    return out


def _flat_header(header: Any) -> dict[str, Any]:
    """The header with nested structs kept as objects but the netBufInfo table as lists, so the
    JSON writer keeps the header on one line."""
    out = dict(header)
    if "netBufInfo" in out:
        out["netBufInfo"] = [[e["base"], e["size"], e["offset"]] for e in out["netBufInfo"]]
    return out
