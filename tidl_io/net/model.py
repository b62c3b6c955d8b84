"""What a compiled network is made of: :class:`Network`, its :class:`Layer` s and :class:`Section` s.

Frozen objects built by :func:`tidl_io.load_net` / :func:`tidl_io.parse_net` from the
structure part of ``*_tidl_net.bin``. Raw TI fields go in; shapes, element types, geometry
and the graph are derived here, each in one place.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..base.check import check_kind, wrong_kind
from ..base.errors import ArgumentTypeError, TensorNotFoundError
from ..iodesc.descriptor import Descriptor, Tensor
from ..iodesc.geometry import BufferGeometry
from ..iodesc.tensor import ELEMENT_BY_CODE, ElementType
from .schema import NetLayout

__all__ = ["UNNAMED_TYPE", "IoLink", "Layer", "Network", "Section"]

UNNAMED_TYPE = "TIDL layer type "
"""How :attr:`Layer.type` names a type code the release's table has no name for (+ the code)."""


@dataclass(frozen=True)
class Section:
    """One buffer of the file: ``name`` (``structure``, ``parameters``, ``compiler``,
    ``graph_compiler``), byte ``offset`` and ``size`` (``netBufInfo[i]``, or derived for 8.2)."""

    name: str
    offset: int
    size: int

    @property
    def end(self) -> int:
        return self.offset + self.size


@dataclass(frozen=True, eq=False)
class Layer:
    """One ``sTIDL_Layer_t``: the layer at position :attr:`index` in execution order.

    :attr:`data_id` is the dataId of its output buffer (``outData.dataId``), None for an
    output data layer, which produces no buffer (its stored ``outData`` is zeros in some
    files and a copy of its input's in others: dataId 0, the input's, is no dataId of its
    own); :attr:`inputs` the dataIds it reads (``inData[:numInBufs]``). TI stores -1 in
    :attr:`num_in` of an input data layer and in :attr:`num_out` of an output data layer.
    """

    index: int  # position in the file = execution order
    type_code: int  # layerType
    type: str  # TI's name, e.g. "TIDL_ConvolutionLayer"; "TIDL layer type N" when the release's table has none
    name: str | None  # from layer_info.txt, when TI left one
    inputs: tuple[int, ...]
    data_id: int | None  # None for an output data layer (it produces no buffer)
    num_in: int
    num_out: int
    element_code: int
    dims: tuple[int, ...]  # dimValues as stored: (N, C, H, W), or (N, DIM1, DIM2, C, H, W) from 10.0 on
    pads: tuple[int, int]  # (padW, padH) as stored: TI pads left = right = padW, top = bottom = padH
    pitches: tuple[int, ...]  # pitch[] as stored: (ROI, [DIM1, DIM2,] channel, line)
    scale: float  # tensorScale: TIDL's multiplier, real = (q - zero_point) / scale
    zero_point: int
    params: Mapping[str, Any] = field(repr=False)  # the type's parameters (TI names) where the schema knows them, else {}
    raw: Mapping[str, Any] = field(repr=False)  # every sTIDL_Layer_t member but the params union, TI names, nested
    layout: str | None = "NCHW"  # of the output buffer: "NCHW", "NHWC", or None when the file does not tell

    @property
    def element_type(self) -> ElementType | None:
        """The output's :class:`~tidl_io.ElementType` (None for a code TI does not define)."""
        return ELEMENT_BY_CODE.get(self.element_code)

    @property
    def dtype(self) -> np.dtype | None:
        element = self.element_type
        return None if element is None else element.dtype

    @property
    def is_input(self) -> bool:
        """An input data layer (TIDL_DataLayer with numInBufs -1)."""
        return self.type_code == 0 and self.num_in < 0

    @property
    def is_output(self) -> bool:
        """An output data layer (TIDL_DataLayer with numOutBufs -1): it produces no buffer."""
        return self.type_code == 0 and self.num_out < 0

    @property
    def shape(self) -> tuple[int, ...]:
        """The output shape, NCHW: 4-D (N, C, H, W), or the 6-D (N, DIM1, DIM2, C, H, W) when
        DIM1 or DIM2 is above 1 (only 10.0 and later store them)."""
        if len(self.dims) == 6:
            n, d1, d2, c, h, w = self.dims
            return self.dims if d1 > 1 or d2 > 1 else (n, c, h, w)
        return self.dims

    @property
    def dims6(self) -> tuple[int, int, int, int, int, int]:
        """The output dims as (N, DIM1, DIM2, C, H, W), the order of an io tensor's ``shape``:
        six as stored, or four (N, C, H, W) with DIM1 = DIM2 = 1."""
        d = self.dims
        return (d[0], d[1], d[2], d[3], d[4], d[5]) if len(d) == 6 else (d[0], 1, 1, d[1], d[2], d[3])

    @functools.cached_property
    def geometry(self) -> BufferGeometry | None:
        """The output buffer's :class:`tidl_io.iodesc.geometry.BufferGeometry`, from :attr:`layout`,
        dims, pads and pitches; None where the file does not define one: an output data
        layer (it produces no buffer), a :attr:`layout` the file does not tell, or pitches
        under which two valid elements would share an address."""
        return _geometry(self)

    def __repr__(self) -> str:
        name = f" {self.name!r}" if self.name else ""
        out = "-" if self.data_id is None else self.data_id
        return f"Layer({self.index} {self.type}{name} in={list(self.inputs)} out={out} shape={self.shape})"


def _geometry(layer: Layer) -> BufferGeometry | None:
    """The one place a layer's pitches become a buffer geometry.

    NCHW: planes ``channel`` apart, lines ``line`` apart, as stored. NHWC (an input data
    layer read by an NHWC DataConvert, or an output DataConvert writing NHWC): TI keeps the
    buffer as the planar tensor (C' = H, H' = W, W' = C), so the stored *channel* pitch is
    the NHWC line pitch (W x C, TI's bufinfolog row pitch) and the stored line pitch is not
    one of this buffer's (TI's own code recomputes it); pixels are C apart, channels 1.
    """
    if layer.is_output or layer.layout is None:
        return None
    dims = layer.dims6
    p = layer.pitches
    roi, dim1, dim2, channel, line = (p[0], p[0], p[0], p[1], p[2]) if len(p) == 3 else p
    pad_w, pad_h = layer.pads
    c, h, w = dims[3:]
    element = layer.element_type
    itemsize = 1 if element is None else element.dtype.itemsize
    if layer.layout == "NHWC":
        row = channel
        pad_r = max(0, (row // c if c > 0 else 0) - w - pad_w)
        pad_b = max(0, (roi // row if row > 0 else 0) - h - pad_h)
        g = BufferGeometry.planar(dims, pad_l=pad_w, pad_t=pad_h, pad_r=pad_r, pad_b=pad_b, line_pitch=row,
                                  nhwc=True, itemsize=itemsize)
        g = replace(g, strides=(roi, dim1, dim2) + g.strides[3:])
    else:
        pad_r = max(0, line - w - pad_w)
        pad_b = max(0, (channel // line if line > 0 else 0) - h - pad_h)
        g = BufferGeometry(dims, (roi, dim1, dim2, channel, line, 1), pad_h * line + pad_w, itemsize,
                           None, (pad_w, pad_h, pad_r, pad_b))
    return None if g.overlap() is not None or g.first_offset < 0 or min(g.used_strides) < 0 else g


_NHWC = 1  # TIDL_LT_NHWC, the DataConvert layer's ``layout``
_DC_INPUT, _DC_OUTPUT = 0, 1  # TIDL_DC_TYPE_INPUT / _OUTPUT


def _pitch_layouts(layer: Layer) -> set[str]:
    """The layouts a layer's stored pitches fit: NCHW (planes of H lines of at least W),
    NHWC (TI's signature: channel pitch = C x line pitch, line pitch >= W)."""
    p = layer.pitches
    channel, line = (p[1], p[2]) if len(p) == 3 else (p[3], p[4])
    c, h, w = layer.dims6[3:]
    fits = set()
    if line >= w and channel >= line * h:
        fits.add("NCHW")
    if c > 1 and line >= w and channel == c * line:
        fits.add("NHWC")
    return fits


def decide_layouts(layers: Sequence[Layer]) -> list[str | None]:
    """Each layer's output layout, from what the file says.

    TIDL computes in NCHW; only the buffers TI exchanges with the user can be NHWC. The
    DataConvert layer's ``layout`` says which: for an input convert (``type`` 0) it is the
    layout of the data layer it reads, for an output convert (``type`` 1) that of its own
    output; a stated layout the pitches do not fit is None (unknown). Where a release's
    schema has no DataConvert parameters (8.2) or no convert reads an input data layer, the
    pitches decide when exactly one layout fits them, else the layout is None. Output data
    layers produce no buffer: None.
    """
    out: list[str | None] = [None if la.is_output else "NCHW" for la in layers]
    producers = {la.data_id: la.index for la in layers if la.num_out > 0 and la.data_id is not None}
    told: set[int] = set()
    for la in layers:
        if la.type != "TIDL_DataConvertLayer" or "layout" not in la.params or "type" not in la.params:
            continue
        layout = "NHWC" if la.params["layout"] == _NHWC else "NCHW"
        if la.params["type"] == _DC_OUTPUT:
            out[la.index] = layout if layout in _pitch_layouts(la) else None
        elif la.params["type"] == _DC_INPUT:
            for d in la.inputs:
                k = producers.get(d)
                if k is not None and layers[k].is_input:
                    out[k] = layout if layout in _pitch_layouts(layers[k]) else None
                    told.add(k)
    for la in layers:
        if la.is_input and la.index not in told:
            fits = _pitch_layouts(la)
            out[la.index] = fits.pop() if len(fits) == 1 else None
    return out


@dataclass(frozen=True)
class IoLink:
    """How one io-descriptor tensor meets the net: the layer that produces its dataId (for an
    input, the input data layer; for an output, the layer whose result it is), or None, and
    what disagrees (empty when the dims, as far as both store them, agree)."""

    kind: str  # "input" or "output"
    index: int
    name: str
    data_id: int
    layer: Layer | None
    problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.layer is not None and not self.problems


@dataclass(frozen=True, eq=False)
class Network:
    """A parsed ``*_tidl_net.bin``: header fields, layers in execution order, sections.

    ``net_version`` is the file's first word (TIDL_NET_VERSION); ``release`` the TIDL
    release(s) whose importer writes it, from the one release table (``schemas/releases.yaml``,
    :mod:`tidl_io.base.releases`); ``layout`` the schema variant used (see
    :attr:`layout_key`). ``header`` holds sTIDL_Network_t's members by TI's names (nested
    structs as dicts, arrays as lists; ``netBufInfo`` as a list of ``{base, size, offset}``).
    ``sections`` come from ``netBufInfo`` (8.6 on) or, for 8.2, from the structure size and
    ``dataFlowInfo``; all lie inside the file and do not overlap. ``source`` is the path
    (:func:`load_net`) or the name given to :func:`parse_net`.

    ``layer_info`` is the ``layer_info.txt`` the layer names come from (None: no names);
    ``layer_info_error`` says why a ``layer_info.txt`` found beside the net was not used
    (a line that is no ``layerId dataId name``, a line count other than the layer count,
    dataIds or data-layer names other than the net's and io descriptor's: the file of
    another model), None when there was none or it was used. Names come from all of the
    file or from none of it.
    """

    net_version: int
    release: str  # the TIDL release(s) whose importer writes this netVersion, e.g. "9.0/9.1"
    layout: NetLayout = field(repr=False)
    layers: tuple[Layer, ...] = field(repr=False)
    sections: tuple[Section, ...]
    header: Mapping[str, Any] = field(repr=False)
    file_size: int
    source: str
    layer_info: str | None = None
    layer_info_error: str | None = None

    @property
    def releases(self) -> tuple[str, ...]:
        """The TIDL releases whose importer writes this netVersion, as TI numbers them
        (``("09.00", "09.01")``): rows of the release table."""
        from .schema import net_versions  # start-up

        return net_versions()[self.net_version].releases

    @property
    def layout_key(self) -> str:
        """The layout used, e.g. ``"10.0/c1"`` (family / header core count) or ``"8.2"``."""
        return self.layout.key

    @property
    def num_cores(self) -> int:
        """The header's numCores (1 where the release stores none)."""
        return int(self.header.get("numCores", 1))

    @functools.cached_property
    def _producers(self) -> dict[int, Layer]:
        out: dict[int, Layer] = {}
        for layer in self.layers:
            if layer.num_out > 0 and layer.data_id is not None:
                out.setdefault(layer.data_id, layer)
        return out

    def layer_by_data_id(self, data_id: int) -> Layer:
        """The layer producing buffer ``data_id`` (TI's "Tensor N" in error messages and trace
        file names); output data layers produce none."""
        if not isinstance(data_id, (int, np.integer)) or isinstance(data_id, bool):
            raise wrong_kind("layer_by_data_id", "data_id", data_id, "an int (a dataId)")
        hit = self._producers.get(int(data_id))
        if hit is None:
            ids = sorted(self._producers)
            raise TensorNotFoundError(f"{self.source}: no layer produces dataId {data_id}; dataIds "
                                      f"{_ranges(ids)} ({len(ids)} buffers)")
        return hit

    def layer(self, *, data_id: int | None = None, name: str | None = None, index: int | None = None) -> Layer:
        """One layer by exactly one of ``data_id``, ``name`` or ``index``."""
        given = [k for k, v in (("data_id", data_id), ("name", name), ("index", index)) if v is not None]
        if len(given) != 1:
            raise ArgumentTypeError(f"layer: give exactly one of data_id=, name=, index=; found {given or 'none'}")
        if data_id is not None:
            return self.layer_by_data_id(data_id)
        if name is not None:
            return self.layer_by_name(name)
        if not isinstance(index, (int, np.integer)) or isinstance(index, bool):
            raise wrong_kind("layer", "index", index, "an int (a position in execution order)")
        if not 0 <= index < len(self.layers):
            raise TensorNotFoundError(f"{self.source}: no layer {index}; it has {len(self.layers)} layers")
        return self.layers[index]

    def layer_by_name(self, name: str) -> Layer:
        """The first layer (execution order) named ``name`` in layer_info.txt."""
        if not isinstance(name, str):
            raise wrong_kind("layer_by_name", "name", name, "a str (a layer name from layer_info.txt)")
        for layer in self.layers:
            if layer.name == name:
                return layer
        named = [repr(la.name) for la in self.layers if la.name]
        if not named:
            raise TensorNotFoundError(f"{self.source}: no layer named {name!r}: no layer has a name (no "
                                      f"layer_info.txt beside the net nor in tempDir/)")
        shown = ", ".join(named[:20]) + (f", ... ({len(named)} in all)" if len(named) > 20 else "")
        raise TensorNotFoundError(f"{self.source}: no layer named {name!r}; names: {shown}")

    @functools.cached_property
    def edges(self) -> list[tuple[int, int, int]]:
        """``(producer index, consumer index, dataId)`` for every input of every layer whose
        buffer some layer produces, in execution order of the consumers."""
        out = []
        for layer in self.layers:
            for d in layer.inputs:
                producer = self._producers.get(d)
                if producer is not None:
                    out.append((producer.index, layer.index, d))
        return out

    @property
    def input_layers(self) -> tuple[Layer, ...]:
        return tuple(la for la in self.layers if la.is_input)

    @property
    def output_layers(self) -> tuple[Layer, ...]:
        return tuple(la for la in self.layers if la.is_output)

    def link_io(self, desc: Descriptor) -> dict[tuple[str, int], IoLink]:
        """Each tensor of io descriptor ``desc``, keyed ``("input", i)`` / ``("output", i)``,
        matched to the layer producing its dataId (``inDataId`` / ``outDataId``) and checked
        by dims (N, C, H, W and, where both store them, DIM1/DIM2)."""

        check_kind(desc, Descriptor, "link_io", "desc")
        links: dict[tuple[str, int], IoLink] = {}
        for kind, tensors in (("input", desc.inputs), ("output", desc.outputs)):
            for t in tensors:
                links[(kind, t.index)] = self._link(kind, t)
        return links

    def _link(self, kind: str, t: Tensor) -> IoLink:
        layer = self._producers.get(t.data_id)
        if layer is None:
            return IoLink(kind, t.index, t.name, t.data_id, None,
                          (f"{kind} {t.index} {t.name!r}: dataId {t.data_id} is produced by no layer of the net",))
        problems = []
        if kind == "input" and not layer.is_input:
            problems.append(f"{kind} {t.index} {t.name!r}: dataId {t.data_id} is layer {layer.index} "
                            f"({layer.type}), not an input data layer")
        dims = layer.dims6
        want = tuple(t.shape)  # (N, DIM1, DIM2, C, H, W)
        if tuple(dims) != want:
            problems.append(f"{kind} {t.index} {t.name!r}: shape {'x'.join(map(str, want))} in the io descriptor, "
                            f"{'x'.join(map(str, dims))} in layer {layer.index} ({layer.type}, dataId {t.data_id})")
        return IoLink(kind, t.index, t.name, t.data_id, layer, tuple(problems))

    def __repr__(self) -> str:
        return (f"Network({self.source!r}, netVersion={self.net_version:#010x} (TIDL {self.release}), "
                f"{len(self.layers)} layers)")


def _ranges(ids: list[int]) -> str:
    """``[0, 1, 2, 5]`` -> ``"0-2, 5"``."""
    parts: list[str] = []
    for i in ids:
        if parts and parts[-1].split("-")[-1] == str(i - 1):
            parts[-1] = parts[-1].split("-")[0] + f"-{i}"
        else:
            parts.append(str(i))
    return ", ".join(parts)
