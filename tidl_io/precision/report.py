"""``tidl-io quant``: per layer, what quantization did to it.

:func:`load_quant` finds, for the compiled model at a path (model folder, artifacts folder or
its ``tempDir``):

- each subgraph's ``tempDir/<sg>_tidl_net.bin_paramDebug.csv`` (the weight and bias error,
  :mod:`.paramdebug`),
- the quantization-parameters prototxt ``model/*qparams*.prototxt`` (activation range, bit depth,
  scale, zero point, :mod:`.qparams`; not the detection meta-architecture ``model.prototxt``
  beside it; TI writes it for a single subgraph only),
- the layers' names, types and dataIds from the net (``<sg>_tidl_net.bin``) or, without it,
  from ``layer_info.txt``.

Checks, where both sides exist: the prototxt's output scale against the net's tensorScale, and
paramDebug's scales against the prototxt's weight and bias scales. The result is a
:class:`QuantReport`, its layers ranked worst ``maxRelDifference`` of the weights first.
Per layer it keeps what an advisor needs: the activation's scale (the step of one code is
``1 / scale``), its bits and range.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.check import check_int, check_path, require_folder
from ..base.errors import PathNotFoundError, TensorNotFoundError, TidlIoError
from ..base.findings import read_text
from ..base.numtext import natural_key
from ..base.text import escape, report_repr
from ..iodesc.tensor import ElementType
from ..net.layerinfo import read_layer_info
from ..net.netlog import load_netlog
from .paramdebug import ParamStats, parse_param_debug
from .qparams import LayerQuantParams, QuantParams, load_quant_params

__all__ = ["Activation", "QuantLayer", "QuantReport", "find_quant_params", "load_quant"]

SCHEMA_VERSION = 1
_DEBUG_SUFFIX = "_tidl_net.bin_paramDebug.csv"
_RTOL = 1e-6  # paramDebug prints %f: 6 decimals of a float32


def _finite(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


@dataclass(frozen=True)
class Activation:
    """A layer's output as the prototxt gives it. ``scale`` is TIDL's multiplier (real =
    (q - zero_point) / scale); ``bit_depth`` as TI writes it (1 in its 8-bit example, 2 for the
    16-bit layers of od-8220); ``bits`` from ``element_type`` (TI's element types)."""

    bit_depth: int | None
    element_type: int | None
    min: float | None
    max: float | None
    scale: float | None
    zero_point: int | None

    @property
    def bits(self) -> int | None:

        try:
            return None if self.element_type is None else ElementType(self.element_type).dtype.itemsize * 8
        except ValueError:
            return None

    @property
    def step(self) -> float | None:
        """The real value of one code: ``1 / scale`` (None without a positive scale)."""
        return 1.0 / self.scale if self.scale and self.scale > 0 and math.isfinite(self.scale) else None

    def to_dict(self) -> dict[str, Any]:
        return {"bit_depth": self.bit_depth, "min": _finite(self.min), "max": _finite(self.max),
                "scale": _finite(self.scale), "zero_point": self.zero_point, "element_type": self.element_type,
                "bits": self.bits, "step": _finite(self.step)}


@dataclass(frozen=True)
class QuantLayer:
    """One layer of one subgraph: identity, paramDebug's rows, the prototxt's activation."""

    subgraph: str
    index: int  # the net's layer index = paramDebug's LayerId
    name: str | None
    type: str | None
    data_id: int | None
    weights: ParamStats | None
    bias: ParamStats | None
    activation: Activation | None
    net_scale: float | None  # the net's tensorScale, when the net was read
    problems: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "name": self.name, "type": self.type, "data_id": self.data_id,
                "subgraph": self.subgraph,
                "weights": None if self.weights is None else self.weights.to_dict(),
                "bias": None if self.bias is None else self.bias.to_dict(),
                "activation": None if self.activation is None else self.activation.to_dict(),
                "net_scale": _finite(self.net_scale), "problems": list(self.problems)}


def _rank(layer: QuantLayer) -> tuple[int, float, int]:
    w = layer.weights if layer.weights is not None else layer.bias
    v = w.max_rel_difference if w is not None and math.isfinite(w.max_rel_difference) else None
    return (1, 0.0, layer.index) if v is None else (0, -v, layer.index)


@dataclass(frozen=True)
class QuantReport:
    """The result of :func:`load_quant`: ``layers`` worst weights first (``maxRelDifference``;
    layers without paramDebug rows last, by index); ``problems`` are disagreements between the
    files (exit 1), ``notes`` what could not be used."""

    path: str
    layers: tuple[QuantLayer, ...]
    files: dict[str, Any]
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return report_repr(self, self.path, layers=len(self.layers), problems=len(self.problems), notes=len(self.notes), ok=self.ok)

    @property
    def ok(self) -> bool:
        return not self.problems

    def layer(self, name: str) -> QuantLayer:
        """The layer named ``name`` (TIDL's name: its output tensor's); a
        :class:`~tidl_io.TensorNotFoundError` (a KeyError) otherwise."""

        for lay in self.layers:
            if lay.name == name:
                return lay
        raise TensorNotFoundError(f"{self.path}: no layer named {name!r} among its {len(self.layers)} layers")

    def to_dict(self) -> dict[str, Any]:
        return {"schema_version": SCHEMA_VERSION, "path": self.path, "layers": [x.to_dict() for x in self.layers],
                "files": dict(self.files), "problems": list(self.problems), "notes": list(self.notes)}

    def to_html(self) -> str:
        """One self-contained page (``tidl-io quant --html``; :func:`tidl_io.precision.page.render_html`)."""
        from .page import render_html  # start-up: the page's module loads for --html only

        return render_html(self)

    def to_text(self, top: int | None = 20) -> str:
        """The table, worst weights first: the first ``top`` layers (None or 0: all)."""
        if top is not None:
            top = check_int(top, "QuantReport.to_text", "top", minimum=0) or None
        rows = [["#", "layer", "name", "type", "w maxRel", "w meanRel", "w scale", "b maxRel", "act bits",
                 "act range", "act scale"]]
        shown = self.layers if top is None else self.layers[:top]
        for lay in shown:
            a = lay.activation
            rows.append([str(lay.index), f"{lay.subgraph}" if len({x.subgraph for x in self.layers}) > 1 else "",
                         escape(lay.name or "-")[:40], (lay.type or "-").replace("TIDL_", "").replace("Layer", ""),
                         _g(lay.weights.max_rel_difference if lay.weights else None),
                         _g(lay.weights.mean_rel_difference if lay.weights else None),
                         _g(lay.weights.scale if lay.weights else None),
                         _g(lay.bias.max_rel_difference if lay.bias else None),
                         "-" if a is None or a.bits is None else str(a.bits),
                         "-" if a is None else f"{_g(a.min)}..{_g(a.max)}", "-" if a is None else _g(a.scale)])
        rows = [[r[0], *r[2:]] if not any(x[1] for x in rows[1:]) else r for r in rows]
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        weighed = any(lay.weights is not None for lay in self.layers)
        order = ("worst weights (maxRelDifference) first" if weighed else
                 "by layer index (no weight statistics: no paramDebug.csv rows were read)")
        lines = [f"{escape(self.path)}: {len(self.layers)} layer(s); {order}"]
        lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        if top is not None and len(self.layers) > top:
            lines.append(f"  … {len(self.layers) - top} more (--top 0 shows all, --json gives every row)")
        lines += [f"error: {escape(p)}" for p in self.problems] if len(self.problems) <= _SHOWN_PROBLEMS else \
            [f"error: {escape(self.problems_summary())}"]
        lines += [f"note: {escape(n)}" for n in self.notes]
        return "\n".join(lines)

    def problems_summary(self) -> str:
        """The disagreements in one line: how many of each kind, the first, and whether most layer
        names disagree (the files of two compiles)."""
        names = sum(1 for p in self.problems if _NAME_MISMATCH in p)
        scales = len(self.problems) - names
        in_net = max(names, sum(1 for lay in self.layers if lay.data_id is not None), 1)  # the net's layers
        other = (f"; {names} of the net's {in_net} layer names differ: the files of another compile?"
                 if names * 2 > in_net else "")
        return (f"{len(self.problems)} disagreement(s) between the files ({names} layer name(s), {scales} "
                f"scale(s)){other}; the first: {self.problems[0]}; --json lists every one")


_SHOWN_PROBLEMS = 5  # more disagreements than this are one summary line in the text (all in to_dict)
_NAME_MISMATCH = ", but the net names layer "


def _g(x: float | None) -> str:
    return "-" if x is None else f"{x:.6g}"


# ---- finding the files ---------------------------------------------------------------------

def _artifacts(path: Path) -> Path:
    if path.name == "tempDir":
        return path.parent
    if not (path / "tempDir").is_dir() and (path / "artifacts").is_dir():
        return path / "artifacts"
    return path


def find_quant_params(art: Path) -> Path | None:
    """The quantization-parameters prototxt of the model whose artifacts folder is ``art``:
    ``model/*qparams*.prototxt`` beside it (or in it); never ``model.prototxt``."""
    for folder in (art.parent / "model", art / "model", art.parent, art):
        found = sorted(p for p in folder.glob("*qparams*.prototxt") if p.is_file()) if folder.is_dir() else []
        if found:
            return found[0]
    return None


def load_quant(path: str | os.PathLike[str]) -> QuantReport:
    """Read the quantization results of the compiled model at ``path`` (see the module
    docstring). :class:`~tidl_io.PathNotFoundError` when there is neither a paramDebug.csv nor
    a quant-params prototxt; :class:`~tidl_io.FormatError` naming file and line for a
    malformed one."""

    given = Path(check_path(path, "load_quant", "path"))
    require_folder(given, "a model folder, its artifacts folder or tempDir")
    art = _artifacts(given)
    debugs = sorted({*art.glob(f"tempDir/*{_DEBUG_SUFFIX}"), *art.glob(f"*{_DEBUG_SUFFIX}")},
                    key=lambda p: natural_key(p.name))
    proto_path = find_quant_params(art)
    if not debugs and proto_path is None:
        raise PathNotFoundError(str(given), f"no tempDir/*{_DEBUG_SUFFIX} and no model/*qparams*.prototxt: TI's "
                                            f"importer writes them when it compiles (keep tempDir; set "
                                            f"advanced_options:quant_params_proto_path for the prototxt)")
    files: dict[str, Any] = {"param_debug": [str(p) for p in debugs], "quant_params": None, "nets": [],
                             "layer_info": []}
    problems: list[str] = []
    notes: list[str] = []
    proto = None
    if proto_path is not None:
        proto = load_quant_params(proto_path)
        files["quant_params"] = str(proto_path)
        problems += [f"read mode: {p}" for p in proto.problems()]  # TI's read mode refuses the file: a finding
    subgraphs = [p.name[:-len(_DEBUG_SUFFIX)] for p in debugs]
    if not subgraphs:  # a prototxt alone: one subgraph, named by its io file if there is one
        ios = sorted(art.glob("*_tidl_io_1.bin"))
        subgraphs = [ios[0].name[:-len("_tidl_io_1.bin")]] if len(ios) == 1 else ["0"]
    if proto is not None and len(subgraphs) > 1:
        notes.append(f"{proto_path}: TI writes the quant-params prototxt for single-subgraph models only; "
                     f"not joined with {len(subgraphs)} subgraphs")
        proto = None
    layers: list[QuantLayer] = []
    for k, sg in enumerate(subgraphs):
        rows: tuple[ParamStats, ...] = ()
        if k < len(debugs):
            rows = parse_param_debug(read_text(debugs[k]), str(debugs[k]))
        layers += _subgraph_layers(art, sg, rows, proto, files, problems, notes)
    return QuantReport(str(given), tuple(sorted(layers, key=_rank)), files, tuple(problems), tuple(notes))


def _identity(art: Path, sg: str, files: dict[str, Any], notes: list[str]
              ) -> dict[int, tuple[str | None, str | None, int | None, float | None]]:
    """layer index -> (name, type, dataId, net tensorScale) from the net, else layer_info."""
    net_path = art / f"{sg}_tidl_net.bin"
    if net_path.is_file():
        from ..net import load_net  # start-up

        try:
            net = load_net(net_path)
        except (TidlIoError, OSError) as exc:
            notes.append(f"{net_path}: not read ({' '.join(str(exc).split())[:160]}); names from layer_info")
        else:
            files["nets"].append(str(net_path))
            return {lay.index: (lay.name, lay.type, lay.data_id, lay.scale) for lay in net.layers}
    for folder in (art / "tempDir", art):
        log = folder / f"{sg}_tidl_net.bin_netLog.txt"
        if log.is_file():  # its Out Data Names are right for output data layers too (layer_info's are not)
            files["net_log"] = [*files.get("net_log", []), str(log)]
            return {x.index: (x.name, x.type, x.data_id, None) for x in load_netlog(log).layers}
    for info in (art / f"{sg}_tidl_net.bin.layer_info.txt", art / "tempDir" / f"{sg}_tidl_net.bin.layer_info.txt"):
        if info.is_file():
            files["layer_info"].append(str(info))
            return {x.index: (x.name, None, x.data_id, None) for x in read_layer_info(info)}
    return {}


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=_RTOL, abs_tol=1e-6)


def _subgraph_layers(art: Path, sg: str, rows: tuple[ParamStats, ...], proto: QuantParams | None,
                     files: dict[str, Any], problems: list[str], notes: list[str]) -> list[QuantLayer]:
    ident = _identity(art, sg, files, notes)
    by_id: dict[int, dict[str, ParamStats]] = {}
    for r in rows:
        by_id.setdefault(r.layer_id, {})[r.kind] = r
    player: dict[int, LayerQuantParams] = {lay.index: lay for lay in proto.layers} if proto is not None else {}
    out = []
    for index in sorted(set(ident) | set(by_id) | set(player)):
        name, type_, data_id, net_scale = ident.get(index, (None, None, None, None))
        pq = player.get(index)
        mine: list[str] = []
        act = None
        if pq is not None:
            if name is not None and pq.name is not None and pq.name != name:
                mine.append(f"{proto.source if proto else ''}: line {pq.line}: layer {index} is {pq.name!r}"
                            f"{_NAME_MISMATCH}{index} {name!r}")
            name, type_ = name if name is not None else pq.name, type_ if type_ is not None else pq.type
            o = pq.output
            if o is not None:
                act = Activation(pq.bit_depth, o.element_type, o.min, o.max, o.scale[0] if o.scale else None,
                                 o.zero_point[0] if o.zero_point else None)
                if net_scale is not None and act.scale is not None and not _close(act.scale, net_scale):
                    mine.append(f"{proto.source if proto else ''}: line {o.line}: layer {index} {name!r}: output "
                                f"scale {act.scale:.9g}, but the net's tensorScale is {net_scale:.9g}")
            for kind, tensors in (("weights", pq.weights), ("bias", pq.bias)):
                row = by_id.get(index, {}).get(kind)
                if row is not None and tensors and tensors[0].scale and not _close(tensors[0].scale[0], row.scale):
                    mine.append(f"paramDebug.csv line {row.line}: layer {index} {name!r}: {kind} Scale "
                                f"{row.scale:.9g}, but the prototxt's {kind} scale is {tensors[0].scale[0]:.9g}")
        got = by_id.get(index, {})
        problems += mine
        out.append(QuantLayer(sg, index, name, type_, data_id, got.get("weights"), got.get("bias"), act,
                              net_scale, tuple(mine)))
    return out
