"""Built-in models for the mock C7x runtime: plain functions on dequantized float arrays.

A model is any callable ``model(inputs) -> outputs``: ``inputs`` maps each input name to a
float64 array of that input's squeezed logical shape (values already dequantized), and
the result maps every output name to a float array of that output's squeezed shape (or of
the same number of elements). The runtime quantizes the result to the output element
type. :func:`resolve_model` turns a name, a spec (mapping or YAML text) or a callable into
a model checked against a descriptor:

>>> model = resolve_model("identity", desc)                              # doctest: +SKIP
>>> model = resolve_model({"model": "permute", "perm": [0, 2, 3, 1]}, desc)  # doctest: +SKIP
>>> model = resolve_model('''
... model: chain
... ops: [{reorg: {stride: 2}}, {mul: 0.5}, {clip: [0, 6]}]
... ''', desc)                                                             # doctest: +SKIP

Built-ins: ``identity`` (input i to output i, equal element counts), ``ramp`` (any shapes:
a deterministic function of the inputs, see :func:`ramp`), ``permute``, ``reorg``,
``chain`` (a small op chain for fixtures) and ``detection`` (TIDL's detection-layer
output, from a pluggable detector; the default finds solid coloured boxes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..base.check import check_choice
from ..base.errors import FormatError, GeometryError, OptionError
from ..base.limits import check_alloc
from ..base.safe_yaml import load_yaml
from ..base.text import short_repr
from ..data.detection import OD_HEADER_NBYTES, build_od
from ..data.permute import permute as _permute_op
from ..data.reorg import reorg as _reorg_op
from ..iodesc.descriptor import Descriptor, Tensor

__all__ = [
    "DEMO_COLORS",
    "Model",
    "chain",
    "color_boxes",
    "detection",
    "identity",
    "model_shape",
    "permute",
    "ramp",
    "reorg",
    "resolve_model",
]

Model = Callable[[Mapping[str, np.ndarray]], Mapping[str, Any]]
"""``model({input name: float array}) -> {output name: float array}``."""

Detector = Callable[[Mapping[str, np.ndarray]], np.ndarray]
"""``detector(inputs) -> rows`` [K, 6] (x1, y1, x2, y2, label, score)."""

_GOLDEN = 0.6180339887498949


# ---- helpers ---------------------------------------------------------------------------

def _pick(tensors: Sequence[Tensor], key: int | str | None, default: int, what: str) -> Tensor:
    if key is None:
        key = default
    if isinstance(key, int):
        if 0 <= key < len(tensors):
            return tensors[key]
        raise GeometryError(f"{what} {key} does not exist; there are {len(tensors)}")
    for t in tensors:
        if t.name == key:
            return t
    raise GeometryError(f"no {what} named {key!r}; {what}s: {', '.join(repr(t.name) for t in tensors)}")


def model_shape(t: Tensor) -> tuple[int, ...]:
    """The shape a model sees for ``t``, the one :func:`tidl_io.data.buffers.unpack` returns:
    the last ``numValidTensorDims`` axes where only size-1 axes are dropped (a leading
    axis larger than 1 is kept), else (N, C, H, W) when DIM1 = DIM2 = 1, else the 6-D
    (N, DIM1, DIM2, C, H, W)."""
    return t.squeezed_shape


def _fit(y: np.ndarray, out: Tensor, model: str) -> np.ndarray:
    """``y`` reshaped to the output's model shape (equal element counts required)."""
    shape = model_shape(out)
    if y.shape == shape:
        return y
    if y.size != out.size:
        raise GeometryError(f"model {model!r}: produces shape {y.shape} ({y.size} elements) for {out.label}, "
                            f"which has shape {shape} ({out.size} elements)")
    return y.reshape(shape)


def _real_range(t: Tensor, cap: float = 8.0) -> tuple[float, float]:
    """The real values the tensor can represent, intersected with [-cap, cap]."""
    if t.is_float:
        return -cap, cap
    info = np.iinfo(t.dtype)
    lo = (float(info.min) - t.zero_point) / t.scale
    hi = (float(info.max) - t.zero_point) / t.scale
    return max(lo, -cap), min(hi, cap)


# ---- identity / ramp -------------------------------------------------------------------

def identity(desc: Descriptor) -> Model:
    """Output i = input i, reshaped to the output's shape. Needs as many inputs as outputs
    and equal element counts pair by pair (GeometryError otherwise)."""
    ins, outs = desc.inputs, desc.outputs
    if len(ins) != len(outs):
        raise GeometryError(f"model 'identity': {len(ins)} input(s) but {len(outs)} output(s); "
                            f"use 'ramp' or a callable")
    for i, o in zip(ins, outs):
        if i.size != o.size:
            raise GeometryError(f"model 'identity': {i.label} has {i.size} elements {model_shape(i)}, "
                                f"{o.label} has {o.size} {model_shape(o)}")
    pairs = [(i.name, o) for i, o in zip(ins, outs)]

    def run(inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {o.name: _fit(np.asarray(inputs[name]), o, "identity") for name, o in pairs}

    return run


def ramp(desc: Descriptor) -> Model:
    """Any shapes: a deterministic function of the inputs for every output.

    With ``m`` the mean of every element of every input (0 without inputs), output ``j``
    (descriptor order) with ``n`` elements is, in C order over its squeezed shape::

        t[k] = frac(0.25 * m + 0.6180339887498949 * (k + 1) + 0.1 * j),   k = 0 .. n-1
        y[k] = lo + (hi - lo) * t[k]

    where [lo, hi] is the real range the output can represent, ((qmin - zp) / scale,
    (qmax - zp) / scale), intersected with [-8, 8] ([-8, 8] for float outputs). Values
    spread over the whole range, so quantization is exercised everywhere.
    """
    outs = desc.outputs
    ranges = [_real_range(o) for o in outs]

    def run(inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        total = sum(float(np.sum(a, dtype=np.float64)) for a in inputs.values())
        count = sum(int(np.size(a)) for a in inputs.values())
        m = total / count if count else 0.0
        result = {}
        for j, (o, (lo, hi)) in enumerate(zip(outs, ranges)):
            k = np.arange(1, o.size + 1, dtype=np.float64)
            t = np.mod(0.25 * m + _GOLDEN * k + 0.1 * j, 1.0)
            result[o.name] = (lo + (hi - lo) * t).reshape(model_shape(o))
        return result

    return run


# ---- layout ops (tidl_io.permute / tidl_io.reorg) ---------------------------------------

def _permute_array(x: np.ndarray, perm: Sequence[int]) -> np.ndarray:
    return np.asarray(_permute_op(x, tuple(perm)))


def _reorg_array(x: np.ndarray, stride: int, mode: str) -> np.ndarray:
    return np.asarray(_reorg_op(x, stride, mode=mode))


def _as_4d(x: np.ndarray) -> np.ndarray:
    if x.ndim > 4:
        lead = x.shape[: x.ndim - 4]
        if any(d != 1 for d in lead):
            raise GeometryError(f"reorg: cannot view shape {x.shape} as (N, C, H, W)")
        return x.reshape(x.shape[x.ndim - 4:])
    return x.reshape((1,) * (4 - x.ndim) + x.shape)


def _op(x: np.ndarray, op: Mapping[str, Any] | str) -> np.ndarray:
    if isinstance(op, str):
        op = {op: None}
    if len(op) != 1:
        raise GeometryError(f"chain: each op is a one-key mapping like {{mul: 0.5}}, found {dict(op)!r}")
    (name, arg), = op.items()
    if name == "permute":
        perm = list(arg)
        if sorted(perm) != list(range(x.ndim)):
            raise GeometryError(f"permute: {perm} is not a permutation of the {x.ndim} axes of shape {x.shape}")
        return _permute_array(x, perm)
    if name == "reorg":
        spec = arg if isinstance(arg, Mapping) else {"stride": arg}
        return _reorg_array(_as_4d(x), int(spec.get("stride", 2)), str(spec.get("mode", "darknet")))
    if name == "reshape":
        shape = tuple(int(d) for d in arg)
        try:
            return x.reshape(shape)
        except ValueError:
            raise GeometryError(f"reshape: cannot reshape {x.shape} to {shape}") from None
    if name == "mul":
        return x * float(arg)
    if name == "add":
        return x + float(arg)
    if name == "clip":
        lo, hi = arg
        return np.clip(x, lo, hi)
    if name == "relu":
        return np.maximum(x, 0.0)
    if name == "mean":
        return np.full(x.shape, np.mean(x, dtype=np.float64))
    raise GeometryError(f"chain: unknown op {name!r} (permute, reorg, reshape, mul, add, clip, relu, mean)")


def _chain_plan(desc: Descriptor, outputs: Mapping[str | int, Any]) -> list[tuple[str, Tensor, list[Any]]]:
    plan = []
    for key, spec in outputs.items():
        spec = spec or {}
        o = _pick(desc.outputs, key, 0, "output")
        default = o.index if o.index < len(desc.inputs) else 0
        src = _pick(desc.inputs, spec.get("input"), default, "input")
        plan.append((src.name, o, list(spec.get("ops", []))))
    # Check the plan on zeros of the right shapes now, so errors come at build time.
    for name, o, steps in plan:
        src = _pick(desc.inputs, name, 0, "input")
        check_alloc(src.size * 8, f"model 'chain': a float64 trial array for {src.label}")
        x = np.zeros(model_shape(src))
        for step in steps:
            x = _op(x, step)
        _fit(x, o, "chain")
    return plan


def _run_plan(plan: list[tuple[str, Tensor, list[Any]]], inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    result = {}
    for name, o, steps in plan:
        x = np.asarray(inputs[name], dtype=np.float64)
        for step in steps:
            x = _op(x, step)
        result[o.name] = _fit(x, o, "chain")
    return result


def chain(desc: Descriptor, ops: Sequence[Mapping[str, Any] | str] = (), *,
          outputs: Mapping[str | int, Any] | None = None) -> Model:
    """A small op chain per output, for fixtures. Ops (one-key mappings, applied in order
    to the input's squeezed float array): ``permute: [axes]``, ``reorg: {stride, mode}``
    (or ``reorg: 2``; darknet/dcr/crd on (N, C, H, W)), ``reshape: [shape]``, ``mul: f``,
    ``add: f``, ``clip: [lo, hi]``, ``relu``, ``mean`` (every element set to the mean).

    ``ops`` applies to input i -> output i for every output; ``outputs`` maps an output
    name or index to ``{input: name-or-index, ops: [...]}`` instead (every output needs
    an entry). The result must have the output's element count (it is reshaped to the
    output's shape). Shapes are checked now (GeometryError).
    """
    if outputs is None:
        if len(desc.inputs) < len(desc.outputs):
            raise GeometryError(f"model 'chain': {len(desc.outputs)} outputs but {len(desc.inputs)} inputs; "
                                "give 'outputs' with an input for each")
        outputs = {o.name: {"input": i.name, "ops": list(ops)} for i, o in zip(desc.inputs, desc.outputs)}
    plan = _chain_plan(desc, outputs)
    missing = {o.name for o in desc.outputs} - {o.name for _, o, _ in plan}
    if missing:
        raise GeometryError(f"model 'chain': no ops for output(s) {', '.join(sorted(map(repr, missing)))}")

    def run(inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        return _run_plan(plan, inputs)

    return run


def permute(desc: Descriptor, perm: Sequence[int], *, input: int | str = 0, output: int | str = 0) -> Model:
    """Output = input transposed by ``perm`` (axes of the input's squeezed shape), then
    reshaped to the output's shape; other outputs get :func:`ramp` values."""
    return _single(desc, input, output, [{"permute": list(perm)}])


def reorg(desc: Descriptor, stride: int = 2, mode: str = "darknet", *, input: int | str = 0,
          output: int | str = 0) -> Model:
    """Output = reorg of the input viewed as (N, C, H, W) (spec reorg-permute.md §1; ``mode``
    darknet, dcr or crd); other outputs get :func:`ramp` values."""
    return _single(desc, input, output, [{"reorg": {"stride": stride, "mode": mode}}])


def _single(desc: Descriptor, input: int | str, output: int | str, ops: list[Any]) -> Model:
    i = _pick(desc.inputs, input, 0, "input")
    o = _pick(desc.outputs, output, 0, "output")
    plan = _chain_plan(desc, {o.name: {"input": i.name, "ops": ops}})
    rest = ramp(desc) if len(desc.outputs) > 1 else None

    def run(inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        result = dict(rest(inputs)) if rest is not None else {}
        result.update(_run_plan(plan, inputs))
        return result

    return run


# ---- detection -------------------------------------------------------------------------

DEMO_COLORS: tuple[tuple[str, tuple[int, int, int]], ...] = (
    ("red", (220, 40, 40)),
    ("green", (40, 200, 60)),
    ("blue", (40, 80, 230)),
    ("yellow", (240, 220, 40)),
)
"""Label order and RGB values of the boxes :func:`color_boxes` finds (label = index)."""


def color_boxes(desc: Descriptor, *, colors: Sequence[tuple[str, tuple[int, int, int]]] = DEMO_COLORS,
                tolerance: float = 24.0, min_pixels: int = 4, input_scale: float = 1.0,
                channel_order: str = "RGB", input: int | str = 0) -> Detector:
    """A toy detector for an image input: for each colour, the bounding box of the pixels
    within ``tolerance`` of it on every channel (after multiplying the input by
    ``input_scale``, e.g. 255 for a [0, 1] input), score = fraction of the box those pixels
    fill, label = the colour's index. Boxes are normalised to [0, 1]: x1 = col0 / W,
    x2 = (col1 + 1) / W (same for y). Rows come sorted by score, highest first."""
    check_choice(channel_order, ("RGB", "BGR"), "color_boxes", "channel_order")
    refs = np.array([c for _, c in colors], dtype=np.float64).reshape(-1, 3)
    if channel_order == "BGR":
        refs = refs[:, ::-1]
    t = _pick(desc.inputs, input, 0, "input")
    if t.num_channels != 3 or t.num_batches * t.dim1 * t.dim2 != 1:
        raise GeometryError(f"color_boxes: {t.label} has shape {t.shape}; expected one 3-channel image")

    def detect(inputs: Mapping[str, np.ndarray]) -> np.ndarray:
        x = np.asarray(inputs[t.name], dtype=np.float64).reshape(t.shape[3:]) * input_scale
        _, h, w = x.shape
        rows = []
        for label, ref in enumerate(refs):
            mask = np.all(np.abs(x - ref[:, None, None]) <= tolerance, axis=0)
            count = int(mask.sum())
            if count < min_pixels:
                continue
            ys = np.flatnonzero(mask.any(axis=1))
            xs = np.flatnonzero(mask.any(axis=0))
            area = (ys[-1] - ys[0] + 1) * (xs[-1] - xs[0] + 1)
            rows.append((xs[0] / w, ys[0] / h, (xs[-1] + 1) / w, (ys[-1] + 1) / h, label, count / area))
        rows.sort(key=lambda r: -r[5])
        return np.array(rows, dtype=np.float64).reshape(-1, 6)

    return detect


def detection(desc: Descriptor, detector: Detector | None = None, *, output: int | str = 0,
              **color_box_options: Any) -> Model:
    """Write a detector's rows in TIDL's detection-layer format (spec §8) to a float32
    output: header (``objInfoOffset`` 20) then 28-byte records, as many as fit the
    output's valid elements (the rest of a long list is dropped). ``detector(inputs) ->
    rows`` [K, 6] (x1, y1, x2, y2, label, score); default :func:`color_boxes` with
    ``color_box_options``. Other outputs get :func:`ramp` values."""
    o = _pick(desc.outputs, output, 0, "output")
    if not o.is_float:
        raise GeometryError(f"model 'detection': {o.label} is {o.dtype}; TIDL's detection layer writes float32")
    capacity = (o.size * 4 - OD_HEADER_NBYTES) // 28
    if capacity < 1:
        raise GeometryError(f"model 'detection': {o.label} has {o.size} elements, too few for a header and one "
                            f"record ({(OD_HEADER_NBYTES + 28) // 4})")
    detect = detector if detector is not None else color_boxes(desc, **color_box_options)
    rest = ramp(desc) if len(desc.outputs) > 1 else None

    def run(inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        result = dict(rest(inputs)) if rest is not None else {}
        rows = np.asarray(detect(inputs), dtype=np.float64).reshape(-1, 6)[:capacity]
        check_alloc(o.size * 4, f"model 'detection': the float32 output {o.label}")
        flat = np.zeros(o.size, np.float32)
        build_od(rows, capacity=capacity, out=flat)
        result[o.name] = flat.reshape(model_shape(o))
        return result

    return run


# ---- resolve ---------------------------------------------------------------------------

_BUILTINS = ("identity", "ramp", "permute", "reorg", "chain", "detection")


def resolve_model(spec: Model | str | Mapping[str, Any] | None, desc: Descriptor) -> Model:
    """A model for ``desc`` from a callable (used as is), a built-in name, a mapping or YAML
    text ``{model: NAME, ...arguments}``, or None (``identity`` when the shapes allow it,
    else ``ramp``). Built-ins check the descriptor's shapes now (GeometryError)."""
    if spec is None:
        try:
            return identity(desc)
        except GeometryError:
            return ramp(desc)
    if callable(spec):
        return spec
    if isinstance(spec, str):
        if spec.strip() in _BUILTINS:
            spec = {"model": spec.strip()}
        else:
            try:
                loaded = load_yaml(spec, "model spec")  # bounded: size, depth, aliases
            except FormatError as exc:
                raise OptionError(f"model spec is not a built-in name ({', '.join(_BUILTINS)}) nor valid YAML: "
                                  f"{exc.detail}") from None
            if not isinstance(loaded, Mapping):
                raise OptionError(f"model {short_repr(spec)}: expected a built-in name ({', '.join(_BUILTINS)}) or a "
                                  "mapping with a 'model' key")
            spec = loaded
    args = dict(spec)
    name = args.pop("model", None)
    if name not in _BUILTINS:
        raise OptionError(f"model spec: 'model' must be one of {', '.join(_BUILTINS)}, found {name!r}")
    try:
        if name == "identity":
            return identity(desc, **args)
        if name == "ramp":
            return ramp(desc, **args)
        if name == "permute":
            return permute(desc, **args)
        if name == "reorg":
            return reorg(desc, **args)
        if name == "chain":
            return chain(desc, **args)
        return detection(desc, **args)
    except TypeError as exc:
        raise OptionError(f"model {name!r}: bad arguments {sorted(args)}: {exc}") from None
