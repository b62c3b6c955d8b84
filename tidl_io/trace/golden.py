"""Golden runs: the float model (``.onnx`` or ``.tflite``) with every intermediate tensor.

Needs the optional extra ``golden`` (``pip install 'tidl-io[golden]'``: onnxruntime, onnx,
ai-edge-litert), imported here only, on first use; without it a :class:`GoldenUnavailableError`
names the extra. TI's recipe, done in memory:

- ONNX: every node output is added to the graph's outputs of a copy of the model, which
  onnxruntime then runs (CPU);
- TFLite: ``Interpreter(..., experimental_preserve_all_tensors=True)``, then each op's output
  tensor (and each input) is read after ``invoke`` (``ai_edge_litert``; ``tflite_runtime``
  or ``tensorflow.lite`` when that is what is installed).

Tensors are saved under their model names, in the model's own layout (TFLite: NHWC).
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import json
import math
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..artifacts.folder import ModelParams, load_param_yaml
from ..base import layouts as _layouts
from ..base.atomic import open_atomic
from ..base.errors import BufferMismatchError, FormatError, PathNotFoundError, TidlIoError
from ..data.arrays import INPUT_KINDS, NpzArrays, check_no_nan, load_npy

__all__ = ["META_KEY", "GoldenRun", "GoldenUnavailableError", "fit_input", "load_model_inputs", "model_inputs",
           "run_golden", "save_golden"]

EXTRA = "golden"
META_KEY = "__tidl_io_golden__"
_IMAGES = (".png", ".ppm", ".pgm", ".jpg", ".jpeg", ".bmp")


class GoldenUnavailableError(TidlIoError, ImportError):
    """The runtime a golden run needs is not installed (install the ``golden`` extra)."""


def _require(*modules: str) -> Any:
    """The first importable module of ``modules``, else a GoldenUnavailableError naming the extra."""
    for name in modules:
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise GoldenUnavailableError(f"golden runs need {' or '.join(modules)}: pip install 'tidl-io[{EXTRA}]' "
                                 f"(the optional extra {EXTRA!r}: onnxruntime, onnx, ai-edge-litert)")


@dataclass(frozen=True)
class ModelInput:
    name: str
    shape: tuple[int, ...]
    dtype: np.dtype


@dataclass
class GoldenRun:
    """Every tensor of one float run (name -> array, model layout), the model's inputs,
    its layout for 4-D tensors (``"NHWC"`` for TFLite, ``"NCHW"`` for ONNX) and notes on what
    was done (input preprocessing, tensors that could not be read)."""

    model: str
    layout: str
    tensors: dict[str, np.ndarray]
    inputs: tuple[ModelInput, ...]
    notes: list[str] = field(default_factory=list)


def _kind(model: Path) -> str:
    suffix = model.suffix.lower()
    if suffix not in (".onnx", ".tflite"):
        raise FormatError(str(model), f"expected an .onnx or .tflite model, found {suffix or 'no suffix'!r}")
    return suffix[1:]


def _model_file(model: str | os.PathLike[str]) -> Path:
    path = Path(model)
    _kind(path)
    if not path.is_file():
        raise PathNotFoundError(str(path), "no such model file (expected an .onnx or .tflite)", errno.ENOENT)
    return path


def _tflite_interpreter(model: Path) -> Any:
    mod = _require("ai_edge_litert.interpreter", "tflite_runtime.interpreter", "tensorflow.lite")
    with warnings.catch_warnings():  # the debugging-only warning of preserve_all_tensors: we want that
        warnings.simplefilter("ignore")
        it = mod.Interpreter(model_path=str(model), experimental_preserve_all_tensors=True)
    it.allocate_tensors()
    return it


def _onnx_session(model: Path, all_outputs: bool) -> Any:
    onnx = _require("onnx")
    ort = _require("onnxruntime")
    proto = onnx.load(str(model))
    if all_outputs:
        have = {o.name for o in proto.graph.output}
        for node in proto.graph.node:
            for name in node.output:
                if name and name not in have:
                    proto.graph.output.append(onnx.ValueInfoProto(name=name))
                    have.add(name)
    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    return ort.InferenceSession(proto.SerializeToString(), opts, providers=["CPUExecutionProvider"])


_ORT_TYPES = {"tensor(float)": np.float32, "tensor(double)": np.float64, "tensor(uint8)": np.uint8,
              "tensor(int8)": np.int8, "tensor(int16)": np.int16, "tensor(int32)": np.int32,
              "tensor(int64)": np.int64, "tensor(float16)": np.float16}


def model_inputs(model: str | os.PathLike[str]) -> tuple[ModelInput, ...]:
    """The model's inputs: name, shape (unknown dims as 1) and dtype."""
    path = _model_file(model)
    if _kind(path) == "tflite":
        it = _tflite_interpreter(path)
        return tuple(ModelInput(d["name"], tuple(int(s) for s in d["shape"]), np.dtype(d["dtype"]))
                     for d in it.get_input_details())
    sess = _onnx_session(path, all_outputs=False)
    return tuple(ModelInput(i.name, tuple(s if isinstance(s, int) and s > 0 else 1 for s in i.shape),
                            np.dtype(_ORT_TYPES.get(i.type, np.float32))) for i in sess.get_inputs())


def fit_input(x: np.ndarray, inp: ModelInput, layout: str, source: str, notes: list[str]) -> np.ndarray:
    """``x`` in the model input's shape (``layout``: the model's, "NCHW" or "NHWC"): as is, or
    in the other order when only that fits, decided by :mod:`tidl_io.base.layouts` (the one
    resolver); a shape that fits both orders differently, or neither, is a BufferMismatchError."""
    if x.shape == inp.shape:
        return x.astype(inp.dtype, copy=False)
    if len(inp.shape) != 4:
        if x.ndim == len(inp.shape) - 1 and (1,) + x.shape == inp.shape:
            return x.reshape(inp.shape).astype(inp.dtype, copy=False)
    else:
        model_cl = layout == "NHWC"
        n, a, b, c = inp.shape
        shape6 = (n, 1, 1, c, a, b) if model_cl else (n, 1, 1, a, b, c)
        readings = [cl for cl in (False, True) if _layouts.fits(shape6, x.shape, cl, False)]
        if len(readings) == 2 and shape6[3] > 1 and shape6[4] * shape6[5] > 1:
            raise BufferMismatchError(f"{source}: shape {x.shape} reads as NCHW and as NHWC for the model input "
                                      f"{inp.name!r} {inp.shape}: give it in the model's own shape")
        if readings:
            cl = readings[0]
            x6 = _layouts.canonical(x, shape6, cl)  # (N, DIM1, DIM2, C, H, W), a view
            y = (x6.transpose(_layouts.CL) if model_cl else x6).reshape(inp.shape)
            if cl != model_cl:
                notes.append(f"{source}: transposed {'NHWC -> NCHW' if cl else 'NCHW -> NHWC'} to the model's "
                             f"{inp.shape}")
            return np.ascontiguousarray(y).astype(inp.dtype, copy=False)
    raise BufferMismatchError(f"{source}: shape {x.shape} fits neither the model input {inp.name!r} "
                              f"{inp.shape} nor its NCHW/NHWC transpose")


def _image_input(path: Path, inp: ModelInput, params: ModelParams | None, layout: str,
                 notes: list[str]) -> np.ndarray:
    from ..data.picture import read_image  # start-up

    img = read_image(path).astype(np.float32)
    h, w, c = img.shape
    steps = [f"decoded {path.name}: {w}x{h}, {c} channel(s), RGB order"]
    shape = inp.shape
    want = (shape[1], shape[2]) if layout == "NHWC" else (shape[2], shape[3])
    if len(shape) != 4 or (h, w) != want:
        raise BufferMismatchError(f"{path}: picture is {w}x{h}, the model input {inp.name!r} {shape} takes "
                                  f"{want[1]}x{want[0]}: resize and crop it first (tidl-io does not resample)")
    steps.append("no resize or crop (the picture has the model's size)")
    if params is not None and params.reverse_channels and c == 3:
        img = img[..., ::-1]
        steps.append("reverse_channels: RGB -> BGR")
    else:
        steps.append("channels kept in RGB order (reverse_channels false or absent)")
    if params is not None and (params.input_mean is not None or params.input_scale is not None):
        mean = np.asarray(params.input_mean or (0.0,), np.float32)
        scale = np.asarray(params.input_scale or (1.0,), np.float32)
        img = (img - mean) * scale
        steps.append(f"normalised (x - {list(params.input_mean or (0.0,))}) * {list(params.input_scale or (1.0,))} "
                     f"in float32, from {params.source} "
                     "(the float model always takes normalised input, input_optimization or not)")
    else:
        steps.append("not normalised (no param.yaml input_mean/input_scale)")
    x = img[None] if layout == "NHWC" else img.transpose(2, 0, 1)[None]
    steps.append(f"HWC -> {layout} {x.shape}")
    notes.extend(steps)
    return fit_input(np.ascontiguousarray(x), inp, layout, str(path), notes)


def find_params(model: str | os.PathLike[str]) -> Path | None:
    """``param.yaml`` beside the model, or in its parent folder (edgeai: model/x.onnx)."""
    folder = Path(model).resolve().parent
    for candidate in (folder / "param.yaml", folder.parent / "param.yaml"):
        if candidate.is_file():
            return candidate
    return None


def load_model_inputs(model: str | os.PathLike[str], inputs: Sequence[str], *,
                      params: str | os.PathLike[str] | None = None,
                      notes: list[str] | None = None) -> dict[str, np.ndarray]:
    """Feeds for ``model`` from files: ``X`` (one input) or ``NAME=X`` each, X an ``.npy``
    (used as given, NCHW/NHWC transposed if only that fits), an ``.npz`` (arrays by input
    name) or a picture (param.yaml preprocessing: see :func:`_image_input`). ``notes``
    receives what was done."""
    notes = [] if notes is None else notes
    path = Path(model)
    layout = "NHWC" if _kind(path) == "tflite" else "NCHW"
    ins = model_inputs(path)
    by_name = {i.name: i for i in ins}
    pfile = Path(params) if params is not None else find_params(path)
    mp = None
    if pfile is not None:
        mp = load_param_yaml(pfile)  # the one bounded YAML reader
    feeds: dict[str, np.ndarray] = {}
    for spec in inputs:
        name, sep, file = spec.rpartition("=")
        if not sep or name not in by_name:
            name, file = "", spec
        f = Path(file)
        if f.suffix.lower() == ".npz":
            z = NpzArrays(f, "an .npz of model inputs")
            for key in z.files:
                if key not in by_name:
                    raise BufferMismatchError(f"{f}: array {key!r} is not a model input; inputs: "
                                              f"{', '.join(by_name)}")
                have = z.shape(key)  # from the header: a member of another size is refused before it is read
                if math.prod(have) != math.prod(by_name[key].shape):
                    raise BufferMismatchError(f"{f}[{key}]: shape {have} fits neither the model input {key!r} "
                                              f"{by_name[key].shape} nor its NCHW/NHWC transpose")
                x = check_no_nan(z.read(key, INPUT_KINDS), f"{f}[{key}]")
                feeds[key] = fit_input(x, by_name[key], layout, f"{f}[{key}]", notes)
            continue
        if not name:
            missing = [i for i in ins if i.name not in feeds]
            if not missing:
                raise BufferMismatchError(f"{f}: every model input already has a value; name it NAME={f}")
            name = missing[0].name
        inp = by_name[name]
        if f.suffix.lower() == ".npy":
            x = check_no_nan(load_npy(f, "an .npy array of numbers (a model input)"), str(f))
            feeds[name] = fit_input(x, inp, layout, str(f), notes)
            notes.append(f"{f.name} -> {name!r}: used as given (no preprocessing for .npy)")
        elif f.suffix.lower() in _IMAGES:
            feeds[name] = _image_input(f, inp, mp, layout, notes)
        else:
            raise FormatError(str(f), f"expected an .npy, .npz or picture ({', '.join(_IMAGES)}) file")
    unset = [i.name for i in ins if i.name not in feeds]
    if unset:
        raise BufferMismatchError(f"{model}: no value for input(s) {', '.join(unset)}")
    return feeds


def run_golden(model: str | os.PathLike[str], feeds: Mapping[str, np.ndarray]) -> GoldenRun:
    """Run the float model on ``feeds`` (input name -> array in the model's shape) and
    return every intermediate tensor."""
    path = _model_file(model)
    notes: list[str] = []
    if _kind(path) == "tflite":
        it = _tflite_interpreter(path)
        details = it.get_input_details()
        ins = tuple(ModelInput(d["name"], tuple(int(s) for s in d["shape"]), np.dtype(d["dtype"])) for d in details)
        for d in details:
            it.set_tensor(d["index"], np.asarray(feeds[d["name"]], dtype=d["dtype"]))
        it.invoke()
        wanted = {d["index"] for d in details}
        get_ops = getattr(it, "_get_ops_details", None)
        if get_ops is not None:
            for op in get_ops():
                wanted.update(int(i) for i in op["outputs"] if i >= 0)
        tensors = {}
        for d in it.get_tensor_details():
            if get_ops is not None and d["index"] not in wanted:
                continue
            try:
                tensors[d["name"]] = np.array(it.get_tensor(d["index"]))
            except ValueError as exc:
                notes.append(f"tensor {d['name']!r}: not readable ({exc})")
        return GoldenRun(str(path), "NHWC", tensors, ins, notes)
    sess = _onnx_session(path, all_outputs=True)
    ins = tuple(ModelInput(i.name, tuple(s if isinstance(s, int) and s > 0 else 1 for s in i.shape),
                           np.dtype(_ORT_TYPES.get(i.type, np.float32))) for i in sess.get_inputs())
    names = [o.name for o in sess.get_outputs()]
    values = sess.run(names, {k: np.asarray(v) for k, v in feeds.items()})
    tensors = {i.name: np.asarray(feeds[i.name]) for i in ins}
    tensors.update({n: np.asarray(v) for n, v in zip(names, values)})
    return GoldenRun(str(path), "NCHW", tensors, ins, notes)


def save_golden(path: str | os.PathLike[str], run: GoldenRun) -> None:
    """Write ``run`` as an uncompressed ``.npz`` (one array per tensor name, plus a JSON
    note under ``__tidl_io_golden__``: model, layout, notes), as :func:`~tidl_io.base.atomic.open_atomic`
    writes (a file atomically, a device or a FIFO streamed through)."""
    meta = json.dumps({"model": os.path.basename(run.model), "layout": run.layout, "notes": run.notes})
    arrays: dict[str, Any] = dict(run.tensors)
    arrays[META_KEY] = np.array(meta)
    with open_atomic(path) as fh:  # a PathError naming path when it cannot be written
        np.savez(fh, **arrays)


def read_meta(npz: NpzArrays | Mapping[str, np.ndarray]) -> dict[str, Any]:
    """The JSON note of a golden ``.npz`` (an :class:`~tidl_io.trace.npz.NpzArrays`, or opened with
    ``np.load``; {} when absent or not a JSON object)."""
    if META_KEY not in npz:
        return {}
    with contextlib.suppress(ValueError):  # FormatError included: a note that is no text is no note
        text = npz.read_text(META_KEY) if isinstance(npz, NpzArrays) else str(npz[META_KEY])
        meta = json.loads(text)
        if isinstance(meta, dict):
            return meta
    return {}
