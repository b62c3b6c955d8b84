"""Run a compiled model end to end: artifacts folder in, dequantized outputs by name out.

>>> with Session("model/artifacts") as s:                       # doctest: +SKIP
...     out = s.run({"input": image})                           # float or uint8; NCHW, NHWC or HWC
...     out["dets"].shape
(200, 5)

A :class:`Session` finds every ``*_tidl_io_1.bin`` in an artifacts folder (one per
offloaded subgraph), the ``onnxrtMetaData.txt`` beside them (output order) and the model's
``param.yaml`` (in the folder or its parent; preprocessing facts). It creates one runtime
per subgraph (TI's TIDL-RT when its library loads, else the host mock
:class:`~tidl_io.runtime.MockC7xRuntime`; see :class:`Session`),
allocates every buffer once in the runtime's shared memory (so invokes are zero-copy) and
reuses them on every :meth:`Session.run`.

What ``run`` does to an input array, in order:

1. layout: the array may be NCHW, NHWC, HWC or CHW (or the tensor's exact squeezed
   shape); it is matched against the tensor's (N, C, H, W) shape, ties broken by
   param.yaml's ``session.input_data_layout``, then NCHW.
2. ``reverse_channels`` (param.yaml ``preprocess.reverse_channels``): flips the channel
   axis of 3-channel inputs (edgeai convention: images arrive RGB; true means the network
   wants BGR).
3. normalisation, edgeai convention ``(x - input_mean) * input_scale`` per channel, applied
   only when param.yaml gives them **and** ``session.input_optimization`` is false. With
   ``input_optimization: true`` TIDL folded mean and scale into the network, so raw pixels
   go in unchanged. Pass ``normalize=True/False`` to override.
4. quantization to the input's element type with TIDL-RT's input rule (``q = x * scale``,
   saturated, truncated), written into the padded buffer (pads stay zero). Every feed is
   REAL values, integer arrays included (TIDL-RT reads a user tensor of scale 1, zero
   point 0 that way): a uint8 image into a uint8 input of scale 0.5 gives codes
   ``trunc(x * 0.5)``, exactly as the same values in float would. Integer data of the
   element type is copied unchanged only when that is the same thing (scale 1, zero
   point 0). ``run(..., codes=True)`` takes already-quantized codes of the element type
   instead, written unchanged (no channel reversal, no normalisation).

Steps 2 and 3 apply to every feed, float or integer: they are what a raw camera frame
needs. Feeds already preprocessed the way onnxruntime users pass them (reversed,
normalised float) would be preprocessed twice: pass ``run(..., preprocessed=True)``,
which skips steps 2 and 3 and keeps 1 and 4.

Outputs are returned dequantized (``(q - zero_point) / scale``) and squeezed, as new
arrays that stay valid after the next run, in ``onnxrtMetaData.txt`` order when present.

A real artifacts folder has ``<name>_tidl_net.bin`` beside each io file. The mock does not
need it: when it is missing the session still runs on the mock and says so in
:attr:`Session.notes` (TIDL-RT, or a real runtime factory given ``net=None``, refuses).
"""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Mapping
from typing import Any, cast

import numpy as np

from ..artifacts.folder import (
    Artifacts,
    ModelParams,
    OnnxrtMetadata,
    SubgraphInfo,
    check_one_model,
    find_artifacts,
    load_param_yaml,
    net_candidate,
    parse_onnxrt_metadata,
    parse_param_yaml,
)
from ..base.check import as_array, check_choice, check_flag, check_layout, check_path, wrong_kind
from ..base.errors import (
    BufferMismatchError,
    FormatError,
    OptionError,
    PathNotFoundError,
    TensorNotFoundError,
    TidlRtError,
)
from ..base.layouts import canonical, detect
from ..base.safe_yaml import load_yaml
from ..data.buffers import pack, unpack
from ..data.detection import denormalize, rows_from_outputs, select
from ..iodesc.descriptor import Descriptor, Tensor, load
from ..runtime import InvokeReport, MockC7xRuntime, Runtime, RuntimeFactory, alloc_shared_buffers
from ..runtime.mock import check_model_kind
from ..runtime.models import model_shape

__all__ = [
    "Artifacts",
    "ModelParams",
    "OnnxrtMetadata",
    "Session",
    "SubgraphInfo",
    "find_artifacts",
    "parse_onnxrt_metadata",
    "parse_param_yaml",
]

# ---- the session -----------------------------------------------------------------------

class _Subgraph:
    """One io file: its descriptor, runtime and the buffers allocated once for it."""

    def __init__(self, name: str, desc: Descriptor, runtime: Runtime, meta: SubgraphInfo | None) -> None:
        self.name, self.desc, self.runtime = name, desc, runtime
        self.in_bufs, self.out_bufs = alloc_shared_buffers(runtime)
        # ONNX names for the inputs (onnxrtMetaData.txt), when they are listed one per input.
        self.onnx_inputs: tuple[str, ...] = ()
        outputs = list(desc.outputs)
        if meta is not None:
            if len(meta.input_names) == len(desc.inputs):
                self.onnx_inputs = meta.input_names
            by_name = {t.name: t for t in outputs}
            if set(meta.output_names) <= set(by_name) and meta.output_names:
                listed = [by_name[n] for n in meta.output_names]
                outputs = listed + [t for t in outputs if t.name not in meta.output_names]
        self.outputs: tuple[Tensor, ...] = tuple(outputs)


class Session:
    """A compiled model ready to run: see the module docstring for what :meth:`run` does.

    ``path`` is an io file, an artifacts folder or a model folder holding ``artifacts/``.
    ``runtime``: "auto" (default: TI's TIDL-RT, :class:`~tidl_io.TidlRtRuntime`, when its
    library loads and every subgraph has its net file, else the host mock; ``notes`` says
    which), "tidlrt", "mock" (:class:`~tidl_io.runtime.MockC7xRuntime` with ``model`` and
    ``input_pads``), a factory ``f(desc, net) -> Runtime`` (e.g.
    ``functools.partial(TidlRtRuntime, version="08.06")``), or a Runtime instance for a
    one-subgraph model (the session closes it).
    ``params`` overrides the param.yaml found (a path, text, mapping or ModelParams).
    ``normalize`` / ``reverse_channels`` override param.yaml's decisions.
    """

    def __init__(self, path: str | os.PathLike[str], *, runtime: str | RuntimeFactory | Runtime = "auto",
                 model: Any = None, params: str | os.PathLike[str] | Mapping[str, Any] | ModelParams | None = None,
                 normalize: bool | None = None, reverse_channels: bool | None = None,
                 input_pads: str = "error") -> None:
        check_path(path, "Session", "path")
        check_model_kind(model, "Session")
        check_choice(input_pads, ("error", "warn", "off"), "Session", "input_pads")
        self.artifacts = find_artifacts(path)
        self.notes: list[str] = []
        self.params = self._params(params)
        self.metadata: OnnxrtMetadata | None = None
        if self.artifacts.metadata_file is not None:
            self.metadata = parse_onnxrt_metadata(self.artifacts.metadata_file.read_text(errors="replace"),
                                                  str(self.artifacts.metadata_file))
        factory, kind = _choose_runtime(runtime, model, input_pads, self.artifacts, self.notes)
        descs = [load(io) for io in self.artifacts.io_files]
        check_one_model(self.artifacts.io_files, descs)  # before any runtime is made
        if kind == "tidlrt":
            _check_net_files(self.artifacts)
        self._subgraphs: list[_Subgraph] = []
        try:
            for io, net, name, desc in zip(self.artifacts.io_files, self.artifacts.net_files,
                                           self.artifacts.subgraph_names, descs):
                if net is None and kind == "mock":
                    self.notes.append(f"{io.name}: no net file beside it; the mock runs without one (a board "
                                      f"needs {net_candidate(io).name})")
                meta = self.metadata.subgraph(name) if self.metadata is not None else None
                self._subgraphs.append(_Subgraph(name, desc, factory(desc, net), meta))
        except BaseException:
            self.close()
            raise
        self.normalize = self.params.normalizes if normalize is None else check_flag(normalize, "Session", "normalize")
        self.reverse_channels = (self.params.reverse_channels if reverse_channels is None
                                 else check_flag(reverse_channels, "Session", "reverse_channels"))
        self._explain()
        self.last_reports: tuple[InvokeReport, ...] = ()
        self.last_stages: dict[str, float] = {}  # seconds of the last run's pack and unpack steps

    def _params(self, params: Any) -> ModelParams:
        """``params=``: ModelParams, a mapping, YAML text (several lines, or one line that
        is a mapping), else a path: a missing file or a folder is a PathError."""
        if isinstance(params, ModelParams):
            return params
        if isinstance(params, Mapping):
            return parse_param_yaml(params, "<params>")
        if isinstance(params, str) and ("\n" in params or _yaml_mapping(params)):
            return parse_param_yaml(params, "<params>")
        if params is not None:
            name = check_path(params, "Session", "params",
                              "; or YAML text, a mapping or ModelParams")
            return load_param_yaml(name)  # bounded: size, depth, aliases (tidl_io.base.safe_yaml)
        if self.artifacts.param_file is not None:
            return load_param_yaml(self.artifacts.param_file)
        return ModelParams()

    def _explain(self) -> None:
        p = self.params
        given = p.input_mean is not None or p.input_scale is not None
        if self.normalize:
            self.notes.append(f"inputs are normalised here as (x - {list(p.input_mean or (0.0,))}) * "
                              f"{list(p.input_scale or (1.0,))} (param.yaml, input_optimization false)")
        elif given and p.input_optimization:
            self.notes.append("param.yaml's input_mean/input_scale are folded into the network "
                              "(input_optimization true): raw values go in unchanged")
        if self.reverse_channels:
            self.notes.append("3-channel inputs are flipped RGB -> BGR (reverse_channels true)")
        if self.normalize or self.reverse_channels:
            self.notes.append("run() applies these to every feed, float or integer; pass run(..., "
                              "preprocessed=True) for feeds already preprocessed (as for onnxruntime)")
        produced: set[str] = set()
        for sg in self._subgraphs:
            for t in sg.desc.inputs:
                if t.name in produced:
                    self.notes.append(f"subgraph {sg.name!r} input {t.name!r} comes from an earlier subgraph")
            produced.update(t.name for t in sg.desc.outputs)

    # -- introspection ----------------------------------------------------------------
    @property
    def descriptors(self) -> tuple[Descriptor, ...]:
        return tuple(sg.desc for sg in self._subgraphs)

    @property
    def runtimes(self) -> tuple[Runtime, ...]:
        return tuple(sg.runtime for sg in self._subgraphs)

    @property
    def inputs(self) -> tuple[Tensor, ...]:
        """The tensors run() needs from the caller (subgraph inputs no earlier subgraph makes)."""
        produced: set[str] = set()
        need = []
        for sg in self._subgraphs:
            need += [t for t in sg.desc.inputs if t.name not in produced]
            produced.update(t.name for t in sg.desc.outputs)
        return tuple(need)

    @property
    def outputs(self) -> tuple[Tensor, ...]:
        """Every subgraph output, in onnxrtMetaData.txt order (else descriptor order)."""
        return tuple(t for sg in self._subgraphs for t in sg.outputs)

    @property
    def input_names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.inputs)

    @property
    def output_names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.outputs)

    def buffers(self, subgraph: int | str = 0) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """The padded input and output buffers of a subgraph, by index (as ``descriptors``)
        or name (``artifacts.subgraph_names``): the session's own (views)."""
        names = [sg.name for sg in self._subgraphs]
        if isinstance(subgraph, str):
            index = names.index(subgraph) if subgraph in names else None
        elif isinstance(subgraph, (int, np.integer)) and not isinstance(subgraph, bool):
            index = int(subgraph) if -len(names) <= subgraph < len(names) else None
        else:
            raise wrong_kind("Session.buffers", "subgraph", subgraph, "a subgraph index (int) or name (str)")
        if index is None:
            raise OptionError(f"Session.buffers: subgraph must be 0..{len(names) - 1} or one of "
                              f"{', '.join(map(repr, names))}, found {subgraph!r}")
        sg = self._subgraphs[index]
        return sg.in_bufs, sg.out_bufs

    # -- running ----------------------------------------------------------------------
    def run(self, feeds: Mapping[str, Any] | np.ndarray, *, layout: str | None = None,
            codes: bool = False, preprocessed: bool = False) -> dict[str, np.ndarray]:
        """Preprocess and pack the inputs, invoke every subgraph, return dequantized,
        squeezed outputs by name (new arrays). ``feeds`` maps input names (io names or the
        ONNX names of onnxrtMetaData.txt) to arrays, or is one array for a one-input model.
        ``layout`` ("NCHW", "NHWC", "HWC", "CHW") settles an ambiguous array shape.

        Feeds are real values whatever their dtype: integer arrays are quantized with
        the input's scale and zero point like float ones (see the module docstring).
        ``codes=True``: the feeds are already-quantized codes of each input's element
        type, written unchanged (no channel reversal, no normalisation); other dtypes
        are refused.

        ``preprocessed=True``: the feeds are already what the network takes, as
        onnxruntime users pass them (channels reversed and ``(x - mean) * scale`` applied
        by the caller): steps 2 and 3 of the module docstring are skipped, layout matching
        and quantization (steps 1 and 4) still happen. The default (False) applies
        param.yaml's ``reverse_channels`` and mean/scale to every feed, float or integer,
        as to raw camera frames."""
        codes = check_flag(codes, "Session.run", "codes")
        layout = None if layout is None else check_layout(layout, "Session.run")
        preprocessed = check_flag(preprocessed, "Session.run", "preprocessed")
        if isinstance(feeds, np.ndarray) or not isinstance(feeds, Mapping):
            needed = self.inputs
            if len(needed) != 1:
                raise BufferMismatchError(f"this model has {len(needed)} inputs "
                                          f"({', '.join(repr(t.name) for t in needed)}); pass a mapping name -> array")
            feeds = {needed[0].name: feeds}
        aliases = {onnx: t.name for sg in self._subgraphs for onnx, t in zip(sg.onnx_inputs, sg.desc.inputs)}
        given: dict[str, Any] = {}
        for key, value in feeds.items():
            name = key if key in self.input_names else aliases.get(key, key)
            if name not in self.input_names:
                raise TensorNotFoundError(f"unknown input {key!r}: this model's inputs are "
                                          f"{', '.join(repr(n) for n in self.input_names)}")
            if name in given:
                raise BufferMismatchError(f"input {name!r} given twice (under two names)")
            given[name] = value
        missing = [n for n in self.input_names if n not in given]
        if missing:
            raise BufferMismatchError(f"missing input(s): {', '.join(repr(n) for n in missing)}")

        results: dict[str, np.ndarray] = {}
        reports = []
        stages = {"pack": 0.0, "unpack": 0.0}
        t_start = time.perf_counter()
        for sg in self._subgraphs:
            for t in sg.desc.inputs:
                if t.name in given:
                    x = self._prepare(t, given[t.name], layout, codes, preprocessed)
                    _pack(t, x, sg.in_bufs[t.name])
                else:  # produced by an earlier subgraph: already dequantized, logical shape
                    _pack(t, np.asarray(results[t.name], dtype=np.float64).reshape(t.shape), sg.in_bufs[t.name])
            t_pack = time.perf_counter()
            reports.append(sg.runtime.invoke(sg.in_bufs, sg.out_bufs))
            t_unpack = time.perf_counter()
            for t in sg.outputs:
                results[t.name] = _unpack(t, sg.out_bufs[t.name])
            stages["pack"] += t_pack - t_start
            stages["unpack"] += time.perf_counter() - t_unpack
            t_start = time.perf_counter()
        self.last_reports = tuple(reports)
        self.last_stages = stages
        return {t.name: results[t.name] for t in self.outputs}

    def _prepare(self, t: Tensor, value: Any, layout: str | None, codes: bool = False,
                 preprocessed: bool = False) -> np.ndarray:
        """User data -> the tensor's logical 6-D (N, DIM1, DIM2, C, H, W) values: real
        values (float, or integers of the element type when scale 1 and zero point 0
        make codes and values the same), or codes with ``codes``; ``preprocessed`` skips
        channel reversal and normalisation."""
        x = as_array(value, "Session.run", f"feeds[{t.name!r}]")
        if x.dtype.kind not in "fiub":
            raise BufferMismatchError(f"{t.label}: expected numbers, found dtype {x.dtype}")
        x6 = _to_logical(t, x, layout, self.params.input_data_layout)
        if codes:
            if x6.dtype != t.dtype:
                raise BufferMismatchError(f"{t.label}: codes=True takes codes of the element type {t.dtype}, "
                                          f"found dtype {x6.dtype}; pass real values with codes=False")
            return x6
        x6 = _as_values(t, x6)
        if preprocessed:
            return x6
        c = t.num_channels
        if self.reverse_channels and c == 3:
            x6 = x6[:, :, :, ::-1]
        if self.normalize:
            p = self.params
            mean = np.asarray(p.input_mean if p.input_mean is not None else (0.0,), np.float64)
            scale = np.asarray(p.input_scale if p.input_scale is not None else (1.0,), np.float64)
            for what, arr in (("input_mean", mean), ("input_scale", scale)):
                if arr.size not in (1, c):
                    raise FormatError(p.source, f"{what} has {arr.size} values for the {c} channels of {t.label}",
                                      field=f"session.{what}")
            x6 = (x6.astype(np.float64) - mean.reshape(-1, 1, 1)) * scale.reshape(-1, 1, 1)
        return x6

    def detections(self, outputs: Mapping[str, Any], *, width: float | None = None, height: float | None = None,
                   threshold: float | None = None) -> np.ndarray:
        """Detection rows (x1, y1, x2, y2, label, score) from :meth:`run`'s outputs, a new
        float32 [K, 6] array: the form is recognised by
        :func:`~tidl_io.data.detection.rows_from_outputs` with param.yaml's ``formatter``; rows
        scoring below ``threshold`` (default param.yaml's ``detection_threshold``, else
        none) are dropped; with ``normalized_detections: true`` and ``width``/``height``
        given, boxes are scaled to pixels."""
        rows = rows_from_outputs(outputs, self.params.formatter)
        limit = threshold if threshold is not None else self.params.detection_threshold
        if limit is not None:
            rows = select(rows, limit)
        if self.params.normalized_detections and width is not None and height is not None:
            rows = denormalize(rows, width, height)
        return rows

    # -- lifetime ---------------------------------------------------------------------
    def close(self) -> None:
        """Close every runtime (idempotent)."""
        for sg in getattr(self, "_subgraphs", ()):
            sg.runtime.close()

    def __enter__(self) -> Session:  # noqa: PYI034 (typing.Self is 3.11+; hints resolve at run time)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        subs = ", ".join(sg.name for sg in self._subgraphs)
        return (f"Session({len(self._subgraphs)} subgraph(s): {subs}; inputs {list(self.input_names)}; "
                f"outputs {list(self.output_names)})")


def _yaml_mapping(text: str) -> bool:
    """Whether one line of text is YAML for a mapping (else Session takes it as a path)."""
    from ..base.errors import FormatError  # start-up

    try:
        return isinstance(load_yaml(text, "model spec"), Mapping)
    except FormatError:
        return False


def _mock_factory(model: Any, input_pads: str) -> RuntimeFactory:
    def make(desc: Descriptor, net: str | os.PathLike[str] | bytes | None = None) -> Runtime:
        return MockC7xRuntime(desc, net, model=model, input_pads=input_pads)
    return make


def _choose_runtime(runtime: Any, model: Any, input_pads: str, artifacts: Artifacts,
                    notes: list[str]) -> tuple[RuntimeFactory, str]:
    """(factory, "mock" | "tidlrt" | "custom") for Session's ``runtime=`` (see Session)."""
    if isinstance(runtime, str):
        if runtime not in ("auto", "tidlrt", "mock"):
            raise OptionError(f"Session: runtime must be 'auto', 'tidlrt', 'mock', a factory f(desc, net) or "
                              f"a Runtime, found {runtime!r}")
        if runtime == "tidlrt" and model is not None:
            raise OptionError("Session: model= is for the host mock; TIDL-RT runs the compiled network "
                              "(expected runtime='mock' or 'auto' with model=)")
        if runtime == "auto":
            runtime = _auto(model, artifacts, notes)
        if runtime == "mock":
            return _mock_factory(model, input_pads), "mock"
        from ..runtime.tidlrt import TidlRtRuntime  # start-up

        def tidlrt(desc: Descriptor, net: str | os.PathLike[str] | bytes | None = None) -> Runtime:
            return TidlRtRuntime(desc, net)

        return tidlrt, "tidlrt"
    if model is not None:
        raise OptionError("Session: model= is for the default mock runtime and runtime= replaces it; "
                          "expected one of them, found both (pass the model to your runtime factory)")
    if not isinstance(runtime, type) and isinstance(runtime, Runtime):
        count = len(artifacts.io_files)
        if count != 1:
            raise OptionError(
                f"Session: a Runtime instance serves one subgraph, but {artifacts.io_files[0].parent} has {count} "
                f"({', '.join(artifacts.subgraph_names)}); pass a factory f(desc, net) -> Runtime instead")
        instance = runtime

        def given(desc: Descriptor, net: str | os.PathLike[str] | bytes | None = None) -> Runtime:
            return instance

        return given, "custom"
    if callable(runtime):
        factory = cast(RuntimeFactory, runtime)
        return factory, "custom"
    raise wrong_kind("Session", "runtime", runtime, "'auto', 'tidlrt', 'mock', a factory f(desc, net) or a Runtime")


def _check_net_files(artifacts: Artifacts) -> None:
    """TIDL-RT needs every subgraph's network file: the first missing one is a
    PathNotFoundError naming it, before TI's library is touched."""
    for io, net in zip(artifacts.io_files, artifacts.net_files):
        if net is None:
            expected = net_candidate(io)
            raise PathNotFoundError(str(expected), f"no such file; TIDL-RT needs the network file beside {io.name} "
                                    f"(only the host mock runs without one)", errno.ENOENT)


def _auto(model: Any, artifacts: Artifacts, notes: list[str]) -> str:
    """runtime="auto": TIDL-RT when its library loads, every net file is there and the
    machine has what TI's runtime needs (its preflight), else the mock."""
    if model is not None:
        notes.append("runtime: the host mock (model= given)")
        return "mock"
    from ..runtime.tidlrt import load_library  # start-up

    try:
        lib = load_library()
    except TidlRtError as exc:
        notes.append(f"runtime: the host mock (no TIDL-RT: {exc})")
        return "mock"
    missing = [io.name for io, net in zip(artifacts.io_files, artifacts.net_files) if net is None]
    if missing:
        notes.append(f"runtime: the host mock (TIDL-RT found at {lib.path}, but no net file beside "
                     f"{', '.join(missing)})")
        return "mock"
    # TI's board runtime without its devices would crash in TIDLRT_create: the mock instead
    from ..runtime.tidlrt import preflight  # start-up

    try:
        preflight(lib)
    except TidlRtError as exc:
        notes.append(f"runtime: the host mock ({exc})")
        return "mock"
    notes.append(f"runtime: TIDL-RT ({lib.path}, {lib.how})")
    return "tidlrt"


def _to_logical(t: Tensor, x: np.ndarray, layout: str | None, hint: str | None = None) -> np.ndarray:
    """A view of ``x`` as the tensor's 6-D logical shape. The array's layout is whichever
    the resolver (:func:`tidl_io.base.layouts.detect`) finds its shape fits, channels first
    (the tensor's exact shapes, NCHW, CHW) before channels last (NHWC, HWC); ``layout``
    insists on one, ``hint`` (param.yaml's) breaks ties."""
    layout = None if layout is None else check_layout(layout, f"{t.label}: run")
    hint = None if hint is None else check_layout(hint, f"{t.label}: param.yaml input_data_layout")
    found = detect(t.shape, x.shape, layout, hint)
    if found is None:
        n, _, _, c, h, w = t.shape
        forms = [f"NCHW {(n, c, h, w)}", f"NHWC {(n, h, w, c)}"] + ([f"HWC {(h, w, c)}"] if n == 1 else [])
        given = f" with layout {layout!r}" if layout is not None else ""
        raise BufferMismatchError(f"{t.label}: array shape {x.shape}{given} fits none of {', '.join(forms)} nor "
                                  f"the tensor's shape {model_shape(t)}")
    return canonical(x, t.shape, found[1])


def _as_values(t: Tensor, x: np.ndarray) -> np.ndarray:
    """Integer (or bool) user data as real values for :func:`tidl_io.data.buffers.pack`: the
    array itself when its codes are those values (the element type, scale 1, zero point 0:
    a plain copy follows), else a float32 copy (float64 for 32/64-bit integers, which
    float32 cannot hold exactly). Float data is returned as is."""
    if x.dtype.kind == "f":
        return x
    if x.dtype == t.dtype and np.float32(t.scale) == 1 and t.zero_point == 0:
        return x
    return x.astype(np.float64 if x.dtype.itemsize >= 4 else np.float32)


def _pack(t: Tensor, x6: np.ndarray, buf: np.ndarray) -> None:
    """Write logical 6-D values into the padded buffer in place (quantized, truncating)."""
    pack(t, x6, out=buf, layout="NCHW", rounding="trunc")


def _unpack(t: Tensor, buf: np.ndarray) -> np.ndarray:
    """The dequantized valid region, squeezed (a new float32 array)."""
    return unpack(t, buf, dequantize=True, squeeze=True)
