"""Read a folder of TIDL layer traces against the network they came from.

>>> net = tidl_io.load_net("artifacts/74_tidl_net.bin")              # doctest: +SKIP
>>> traces = tidl_io.load_traces("traces", net)                     # doctest: +SKIP
>>> traces[4].shape, traces[4].dtype                                  # doctest: +SKIP
((1, 32, 400, 600), dtype('float32'))

:func:`load_traces` looks at names and sizes only; each array is read when asked for, one
file at a time (a 55-layer 400x600 model traces ~0.6 GB of floats). Files are keyed by the
layer's output **dataId**. For each file:

- the dims in its name must be the layer's (N, DIM1, DIM2, C, W x H; older names have no
  DIM1/DIM2 and may give H x W);
- its size tells the layout: dense (N*DIM1*DIM2*C*H*W elements) or padded (the layer's
  pitches and pads, :attr:`Layer.geometry`: up to the last valid element, or the whole
  buffer); any other size is an error naming the file and the sizes expected and found.
  A layer whose buffer geometry the net does not define (``Layer.geometry`` None: layout
  unknown, or pitches that overlap) is read dense only;
- a dense trace is in the layer's own element order: (N, C, H, W) for NCHW layers and, an
  assumption (no real trace of an NHWC data layer checked), (N, H, W, C) for the NHWC
  buffers TI exchanges with the user (``Layer.layout == "NHWC"``: an NHWC input data layer
  or output DataConvert), transposed here to NCHW like every array :class:`Traces` gives;
- ``.y`` files hold codes in the layer's element type, dequantized with the layer's scale
  and zero point (``(q - zero_point) / scale``; :meth:`Traces.codes` gives the codes);
  ``_float.bin`` files hold float32 values. When both exist, values come from ``.y``.

Problems that concern one file (wrong size, dims, a dataId the net lacks) are collected in
:attr:`Traces.problems` (file -> message) and that file is left out; ``strict=True`` raises
them instead. Files whose names are no trace's are listed in :attr:`Traces.ignored`.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..base import layouts as _layouts
from ..base.check import check_flag, check_kind, check_path, list_folder, path_kind, wrong_kind
from ..base.errors import FormatError, PathError, PathNotFoundError
from ..base.text import report_repr
from ..data.quant import dequantize_codes
from ..net import Layer, Network
from .metrics import Quantized
from .names import TraceName, parse_trace_name

__all__ = ["ReadBuffer", "TraceFile", "Traces", "load_traces"]


@dataclass(frozen=True)
class TraceFile:
    """One trace file matched to its layer: ``layout`` is ``"dense"`` or ``"padded"``."""

    path: Path
    name: TraceName
    layer: Layer
    layout: str
    swapped_wh: bool = False  # an older name that gives H x W

    @property
    def kind(self) -> str:
        return self.name.kind


def _geometry_6d(layer: Layer) -> tuple[int, ...]:
    return tuple(int(v) for v in layer.dims6)


def _check_dims(tn: TraceName, layer: Layer, path: Path) -> bool:
    """Whether W and H are swapped (older names); FormatError when the dims disagree."""
    n, d1, d2, c, h, w = _geometry_6d(layer)
    want: tuple[int, ...] = (n, d1, d2, c)
    got: tuple[int, ...] = (tn.batch, tn.dim1, tn.dim2, tn.channels)
    if tn.legacy:  # N, C, W x H only: DIM1 and DIM2 fold into N
        want, got = (n * d1 * d2, c), (tn.batch, tn.channels)
    if got == want and (tn.width, tn.height) == (w, h):
        return False
    if tn.legacy and got == want and (tn.height, tn.width) == (w, h):
        return True
    layer_dims = f"N={n} DIM1={d1} DIM2={d2} C={c} W={w} H={h}"
    name_dims = (f"N={tn.batch} C={tn.channels} {tn.width}x{tn.height}" if tn.legacy else
                 f"N={tn.batch} DIM1={tn.dim1} DIM2={tn.dim2} C={tn.channels} W={tn.width} H={tn.height}")
    raise FormatError(str(path), f"dims in the name ({name_dims}) disagree with layer {layer.index} "
                      f"(dataId {layer.data_id}, {layer.type}) of the net: {layer_dims}")


def _dtype(tn: TraceName, layer: Layer, path: Path) -> np.dtype:
    """The element type of the file: float32, or the layer's (a FormatError when TI defines none)."""
    if tn.kind == "float":
        return np.dtype("<f4")
    if layer.dtype is None:
        raise FormatError(str(path), f"layer {layer.index} (dataId {layer.data_id}, {layer.type}) has element type "
                          f"code {layer.element_code}, which TI does not define: its .y codes cannot be read")
    return np.dtype(layer.dtype).newbyteorder("<")


def _sizes(tn: TraceName, layer: Layer, item: int) -> dict[int, str]:
    """Accepted file sizes (bytes) -> layout: dense, or padded (up to the last valid
    element, the whole buffer, or the batch pitch times N) when the pitches describe a
    buffer at least as large as the dense one."""
    dense = math.prod(_geometry_6d(layer))
    sizes = {dense * item: "dense"}
    g = layer.geometry  # None where the net defines no buffer geometry (Layer.geometry)
    if g is not None:
        for elems in (g.required_size, g.padded_size, int(g.shape[0]) * int(g.strides[0])):
            if elems > dense:
                sizes.setdefault(elems * item, "padded")
    return sizes


def _match(path: Path, tn: TraceName, net: Network) -> TraceFile:
    try:
        layer = net.layer_by_data_id(tn.data_id)
    except (KeyError, LookupError, ValueError):
        layer = None
    if layer is None:
        raise FormatError(str(path), f"dataId {tn.data_id} is no layer's output in {net.source}")
    swapped = _check_dims(tn, layer, path)
    dtype = _dtype(tn, layer, path)
    sizes = _sizes(tn, layer, dtype.itemsize)
    try:
        found = path.stat().st_size
    except OSError as exc:
        raise PathError(str(path), f"cannot read: {exc.strerror or exc}; expected a trace file", exc.errno) from None
    if found not in sizes:
        what = "codes of " + str(dtype) if tn.kind == "y" else "float32"
        expected = " or ".join(f"{k} ({v})" for k, v in sizes.items())
        raise FormatError(str(path), f"{found} bytes fits layer {layer.index} (dataId {tn.data_id}, "
                          f"{layer.type}) neither dense nor padded: expected {expected} bytes of {what}")
    return TraceFile(path, tn, layer, sizes[found], swapped)


class ReadBuffer:
    """One byte buffer reused for reading traces one after another (no fresh memory, so no page
    faults, per layer): each read overwrites the previous one's array."""

    def __init__(self) -> None:
        self._data = np.empty(0, np.uint8)

    def read(self, path: Path, nbytes: int) -> np.ndarray:
        """The ``nbytes`` bytes of ``path`` (uint8, a view of the buffer); FormatError if it has fewer."""
        if self._data.size < nbytes:
            self._data = np.empty(nbytes, np.uint8)
        view = self._data[:nbytes]
        got = 0
        with open(path, "rb", buffering=0) as fh:
            mv = view.data
            while got < nbytes:
                k = fh.readinto(mv[got:])
                if not k:
                    break
                got += k
        if got != nbytes:
            raise FormatError(str(path), f"{got} bytes read, expected {nbytes} (the file changed after load_traces)")
        return view


class Traces(Mapping[int, np.ndarray]):
    """dataId -> float32 array in the layer's shape (NCHW), read from its file on each
    access (nothing is cached: hold the array while you need it)."""

    def __init__(self, folder: Path, net: Network, files: dict[int, dict[str, TraceFile]],
                 problems: dict[str, str], ignored: tuple[str, ...], notes: tuple[str, ...] = ()) -> None:
        self.folder = folder
        self.net = net
        self.files = files
        self.problems = problems
        self.ignored = ignored
        self.notes = notes

    def __repr__(self) -> str:
        return report_repr(self, self.folder, net=Path(str(self.net.source)).name, traces=len(self.files),
                           problems=len(self.problems), ignored=len(self.ignored))

    def __getitem__(self, data_id: int) -> np.ndarray:
        f = self.entry(data_id)
        if f.kind == "float":
            return self._read(f)
        layer = f.layer
        return dequantize_codes(self._read(f), float(layer.scale), int(layer.zero_point),
                                label=f"{f.path.name} (layer {layer.index})")

    def quantized(self, data_id: int, buffer: ReadBuffer | None = None) -> np.ndarray | Quantized:
        """What ``traces[data_id]`` holds, without dequantizing all of it: the float32 array,
        or the codes with their scale and zero point (:class:`~tidl_io.trace.metrics.Quantized`).
        With ``buffer``, a dense trace is read into it (a view, valid until its next read)."""
        f = self.entry(data_id)
        data = self._read(f, buffer)
        if f.kind == "float" or data.dtype.kind == "f":
            return data.astype(np.float32, copy=False)
        return Quantized(data, float(f.layer.scale), int(f.layer.zero_point))

    def __iter__(self) -> Iterator[int]:
        order: dict[int, int] = {}
        for i, layer in enumerate(self.net.layers):
            if layer.data_id is not None:  # an output data layer writes no buffer
                order.setdefault(layer.data_id, i)
        return iter(sorted(self.files, key=lambda d: (order.get(d, len(order)), d)))

    def __len__(self) -> int:
        return len(self.files)

    def entry(self, data_id: int) -> TraceFile:
        """The file the values of ``data_id`` come from (``.y`` when there is one)."""
        kinds = self.files.get(data_id)
        if kinds is None:
            raise KeyError(data_id)
        return kinds.get("y") or kinds["float"]

    def codes(self, data_id: int) -> np.ndarray | None:
        """The raw codes of the layer's ``.y`` trace (element type, NCHW), or None when only a
        float trace exists."""
        f = self.files.get(data_id, {}).get("y")
        return None if f is None else self._read(f)

    def _read(self, f: TraceFile, buffer: ReadBuffer | None = None) -> np.ndarray:
        try:
            return self._read_file(f, buffer)
        except OSError as exc:  # a mode-000 trace, a file gone since load_traces: a PathError
            if isinstance(exc, PathError):
                raise
            raise PathError(str(f.path), f"cannot read: {exc.strerror or exc}; expected a trace file",
                            exc.errno) from None

    def _read_file(self, f: TraceFile, buffer: ReadBuffer | None) -> np.ndarray:
        layer = f.layer
        dtype = _dtype(f.name, layer, f.path)
        if buffer is not None and f.layout == "dense":
            buf = buffer.read(f.path, math.prod(_geometry_6d(layer)) * dtype.itemsize).view(dtype)
        else:
            buf = np.fromfile(f.path, dtype=dtype)
        shape6 = _geometry_6d(layer)
        n, d1, d2, c, h, w = shape6
        if f.layout == "dense":  # the buffer's own order (NHWC: channels last), see the module docstring
            arr6 = _layouts.canonical(buf, shape6, layer.layout == "NHWC")
        else:
            geom = layer.geometry
            assert geom is not None  # a padded layout is only accepted with a geometry (_sizes)
            if geom.itemsize != dtype.itemsize:  # a float trace of an integer layer: same element strides
                geom = dataclasses.replace(geom, itemsize=dtype.itemsize)
            arr6 = geom.view(buf)
        out = arr6.reshape(n * d1 * d2, c, h, w) if arr6.flags.c_contiguous else \
            np.ascontiguousarray(arr6).reshape(n * d1 * d2, c, h, w)
        shape = tuple(int(v) for v in layer.shape)
        return out.reshape(shape) if math.prod(shape) == out.size else out


def _int_or_none(value: object, arg: str) -> int | None:
    if value is None or (isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))):
        return None if value is None else int(value)
    raise wrong_kind("load_traces", arg, value, "an int or None")


def load_traces(path: str | os.PathLike[str], net: Network, *, subgraph: int | None = None,
                core: int | None = None, strict: bool = False) -> Traces:
    """The traces in folder ``path`` of the network ``net`` (a :class:`tidl_io.Network`).

    A folder may hold the traces of several subgraphs or cores (``<base>_<sg>_...``,
    ``C7X_<n>_...``): pick one with ``subgraph`` / ``core``; with several and none picked,
    a FormatError lists them. A folder with no trace file is a PathNotFoundError."""
    from ..net import Network  # start-up

    folder = Path(check_path(path, "load_traces", "path"))
    check_kind(net, Network, "load_traces", "net")
    subgraph, core = _int_or_none(subgraph, "subgraph"), _int_or_none(core, "core")
    check_flag(strict, "load_traces", "strict")
    expected = "a folder of TIDL trace files (*.y, *_float.bin)"
    if path_kind(folder, expected) != "folder":  # PathError for a path that cannot be looked at
        raise PathNotFoundError(str(folder), f"expected {expected}")
    parsed: list[tuple[Path, TraceName]] = []
    ignored = []
    for p in (folder / n for n in list_folder(folder, expected)):
        tn = parse_trace_name(p.name) if p.is_file() else None
        if tn is None:
            ignored.append(p.name)
        else:
            parsed.append((p, tn))
    if not parsed:
        seen = f"; files seen: {', '.join(ignored[:8])}{' ...' if len(ignored) > 8 else ''}" if ignored else ""
        raise PathNotFoundError(str(folder), "no TIDL trace file here (names like tidl_trace_subgraph_0_"
                                f"0001_0001_0001_00001_00032_000600x00400.y or _float.bin){seen}")
    parsed = [(p, t) for p, t in parsed if (subgraph is None or t.subgraph == subgraph)
              and (core is None or t.core == core)]
    groups = sorted({t.group for _, t in parsed}, key=lambda g: (g[0] or -1, g[1], g[2] or -1))
    if len(groups) != 1:
        def say(g: tuple[int | None, str, int | None]) -> str:
            core_, base, sg = g
            return f"{f'C7X_{core_} ' if core_ is not None else ''}{base!r} subgraph {sg}"
        if not groups:
            raise FormatError(str(folder), "no trace of " + " / ".join(
                [f"subgraph {subgraph}"] * (subgraph is not None) + [f"core {core}"] * (core is not None)) + " here")
        raise FormatError(str(folder), f"traces of several runs here ({'; '.join(say(g) for g in groups)}): "
                          "pick one with subgraph= / core= (--subgraph / --core)")
    files: dict[int, dict[str, TraceFile]] = {}
    problems: dict[str, str] = {}
    notes = []
    for p, tn in parsed:
        try:
            f = _match(p, tn, net)
        except (FormatError, PathError) as exc:
            if strict:
                raise
            problems[p.name] = str(exc)
            continue
        if f.swapped_wh:
            notes.append(f"{p.name}: the name gives height x width (TI's older example does): read as "
                         f"{tn.height}x{tn.width}")
        slot = files.setdefault(tn.data_id, {})
        if tn.kind in slot:
            raise FormatError(str(p), f"a second {tn.kind} trace of dataId {tn.data_id} "
                              f"(the first: {slot[tn.kind].path.name})")
        slot[tn.kind] = f
    if getattr(net, "layer_info_error", None):  # names from all of the net's layer_info.txt or none: say why none
        notes.insert(0, f"layer names not used: {net.layer_info_error}")
    return Traces(folder, net, files, problems, tuple(ignored), tuple(notes))
