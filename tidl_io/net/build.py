"""Build ``*_tidl_net.bin`` bytes from field values: fixtures for the releases with no public
real file (8.6, 11.x), and corrupted nets for tests and the fuzzer.

The values use TI's member names, nested as :attr:`Layer.raw` and :attr:`Network.header`
give them back, so ``build_net(net.net_version, spec_of(net))`` rebuilds a parsed net's
structure part. Sections after the structure are zeros of the sizes asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .schema import NetLayout, fields_of, layout_for

__all__ = ["build_net", "spec_of"]


def _layout(net_version: int, cores: int | None) -> NetLayout:
    variants = layout_for(net_version)
    if not variants:
        raise ValueError(f"build_net: unknown netVersion {net_version:#010x}")
    for lay in variants:
        if cores is None or lay.cores == cores:
            return lay
    raise ValueError(f"build_net: {variants[0].title} has header variants for "
                     f"{[v.cores for v in variants]} cores, not {cores}")


def _fill(arr: np.ndarray, i: int, values: Mapping[str, Any], where: str) -> None:
    """Write ``values`` (TI member name -> value, nested) into row ``i`` of structured ``arr``."""
    fields = fields_of(arr.dtype)
    for key, value in values.items():
        if key not in fields:
            raise KeyError(f"build_net: {where} has no member {key!r}; members: {', '.join(fields)}")
        col = arr[key]
        if col.dtype.names and isinstance(value, Mapping):
            _fill(col, i, value, f"{where}.{key}")
        elif col.dtype.names:  # an array of structs: a list of mappings
            for j, item in enumerate(value):
                _fill(col[:, j], i, item, f"{where}.{key}[{j}]")
        elif col.ndim == 2:  # an array member: shorter lists are padded with zeros
            row = np.zeros(col.shape[1], col.dtype)
            row[: len(value)] = value
            col[i] = row
        else:
            col[i] = value


def _layer_type(layout: NetLayout, value: int | str) -> int:
    if isinstance(value, str):
        if value not in layout.layer_types:
            raise ValueError(f"build_net: {layout.title} has no layer type {value!r}")
        return layout.layer_types.index(value)
    return int(value)


def build_net(net_version: int, layers: Sequence[Mapping[str, Any]], *, cores: int | None = None,
              header: Mapping[str, Any] | None = None, section_sizes: Sequence[int] | None = None) -> bytes:
    """The bytes of a net file of ``net_version`` (header variant ``cores`` where the release
    has several) holding ``layers``: each a mapping of sTIDL_Layer_t members (``layerType``
    may be TI's name; ``layerParams`` a mapping of that type's parameter members).

    ``header`` overrides sTIDL_Network_t members; netVersion, numLayers, numCores, the
    netBufInfo table (or 8.2's dataFlowInfo) are filled in unless given. ``section_sizes``
    are the sizes of the sections after the structure (parameters, compiler, ...), placed one
    after the other; they default to 64 bytes each. The file ends after the last section.
    """
    layout = _layout(net_version, cores)
    n = len(layers)
    head = np.zeros(1, layout.header)
    arr = np.zeros(n, layout.layer)
    union = fields_of(layout.layer)["layerParams"][0].itemsize
    for i, spec in enumerate(layers):
        values = dict(spec)
        params = values.pop("layerParams", None) or {}
        values["layerType"] = _layer_type(layout, values.get("layerType", 0))
        _fill(arr, i, values, f"TIDLLayers[{i}]")
        if params:
            name = layout.type_name(values["layerType"])
            dtype = layout.params.get(name or "")
            if dtype is None:
                raise ValueError(f"build_net: no parameter layout for {name} in {layout.title}")
            row = np.zeros(1, dtype)
            _fill(row, 0, params, f"TIDLLayers[{i}].layerParams")
            arr["layerParams"][i] = np.void(row.tobytes().ljust(union, b"\0"))
    end = layout.structure_end(n)
    names = layout.sections[1:] if layout.sections else ("parameters", "compiler")
    sizes = list(section_sizes) if section_sizes is not None else [64] * len(names)
    if len(sizes) != len(names):
        raise ValueError(f"build_net: {layout.title} has {len(names)} sections after the structure "
                         f"({', '.join(names)}); found {len(sizes)} sizes")
    offsets, pos = [], end
    for size in sizes:
        offsets.append(pos)
        pos += size
    auto: dict[str, Any] = {"netVersion": net_version, "numLayers": n}
    head_fields = fields_of(layout.header)
    if "numCores" in head_fields:
        auto["numCores"] = 1
    if layout.sections:
        table = [{"base": 0, "size": end, "offset": 0}]
        table += [{"base": 0, "size": s, "offset": o} for s, o in zip(sizes, offsets)]
        auto["netBufInfo"] = table
        by_name = dict(zip(layout.sections, [0, *offsets]))
        auto["dataFlowInfo"] = by_name.get("compiler", 0)
        if "originalGcBufInfoOffset" in head_fields:
            auto["originalGcBufInfoOffset"] = by_name.get("graph_compiler", 0)
    else:
        auto["dataFlowInfo"] = offsets[1] if len(offsets) > 1 else 0
    auto.update(header or {})
    auto["netVersion"] = np.array(auto["netVersion"]).astype(np.uint32).astype(np.int32)
    _fill(head, 0, auto, "sTIDL_Network_t")
    if layout.sections:  # a header given by the caller may place sections beyond the sizes asked for
        pos = max([pos] + [int(e["offset"]) + int(e["size"]) for e in head["netBufInfo"][0]])
    body = head.tobytes() + arr.tobytes()
    return body + bytes(end - len(body)) + bytes(max(pos - end, 0))


def spec_of(net: Any) -> dict[str, Any]:
    """``{"header": ..., "layers": [...]}`` of a parsed :class:`~tidl_io.net.Network`, the
    arguments that make :func:`build_net` write its structure part again (the layerParams
    union keeps only the members the schema knows)."""
    layers = []
    for layer in net.layers:
        values = dict(layer.raw)
        if layer.params:
            values["layerParams"] = dict(layer.params)
        layers.append(values)
    return {"header": dict(net.header), "layers": layers}
