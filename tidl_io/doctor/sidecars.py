"""The text files TI's tools and edgeai leave beside a compiled model, checked against its io files.

- ``allowedNode.txt`` (TI's importer, read by TI's ONNX Runtime and TFLite delegates): which
  nodes of the original model each subgraph took; :func:`tidl_io.artifacts.folder.parse_allowed_nodes` reads it.
- ``onnxrtMetaData.txt`` (ONNX Runtime): the subgraphs, their input and output names
  (read by :func:`tidl_io.artifacts.folder.parse_onnxrt_metadata`).
- ``param.yaml`` (edgeai): the session's artifacts folder, tools version, input/output
  details, data layout, mean/scale (read by :func:`tidl_io.artifacts.folder.parse_param_yaml`).

:func:`check_sidecars` judges what :func:`tidl_io.artifacts.reader.read_artifacts_folder` read (it
opens no file) and returns :class:`~tidl_io.doctor.checks.DoctorFinding` objects for ``tidl-io
doctor``; nothing here prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..artifacts.folder import ALLOWED_FILE, METADATA_FILE, PARAMS_FILE, ModelParams, OnnxrtMetadata
from ..artifacts.reader import ArtifactsFolder, SubgraphFiles
from ..base.findings import ERROR, NOTE, DoctorFinding, dims_text
from ..base.releases import find_release, releases_label
from ..iodesc.descriptor import Tensor

__all__ = ["check_sidecars"]


def check_sidecars(art: ArtifactsFolder, releases: tuple[str, ...]) -> list[DoctorFinding]:
    """Every disagreement of the sidecar files of ``art`` (in its folder, and ``param.yaml``
    beside it or in its parent) with the io descriptors of its subgraphs; ``releases`` the
    releases the net files need."""
    out = []
    subs, meta, folder = art.subgraphs, art.metadata, art.folder
    if meta is not None:
        out += _check_metadata(meta, str(art.metadata_file), subs, art.listed)
    groups = None
    if art.allowed_problem is not None:
        out.append(DoctorFinding(ERROR, "allowed-nodes", art.allowed_problem.source, art.allowed_problem.message))
    elif art.allowed is not None:
        groups = art.allowed
        out += _check_allowed(str(art.allowed_file), groups, len(art.listed), meta)
    nodes = meta.num_graph_nodes if meta is not None else None
    # the io files hold the whole model: one subgraph that took every node of the ONNX graph
    whole = (len(subs) == 1 and nodes is not None and groups is not None and len(groups) == 1
             and sorted(groups[0]) == list(range(nodes)))
    param_file = art.param_file
    session: dict[str, Any] | None = None
    if param_file is not None and art.param_problem is not None:
        out.append(DoctorFinding(ERROR, "param", art.param_problem.source, art.param_problem.message))
        session = {}
    elif param_file is not None and art.params is not None:
        found, session = _check_params(art.params, param_file, folder, art.params_name_folder, subs, releases,
                                       whole)
        out += found
    elif art.model_folder:
        out.append(DoctorFinding(ERROR, "param", str(Path(art.given)), f"no {PARAMS_FILE} in this model folder (beside "
                                 f"{folder.name}/): edgeai's runtimes read the preprocessing from it"))
    if not art.allowed_there and (meta is not None or param_file is not None):
        out.append(DoctorFinding(ERROR, "allowed-nodes", str(folder), f"no {ALLOWED_FILE}: TI's ONNX Runtime and "
                                 f"TFLite delegates read it to know which nodes each subgraph runs"))
    name = session.get("session_name") if session else None
    if meta is None and not art.metadata_there and name == "onnxrt":
        out.append(DoctorFinding(ERROR, "metadata", str(folder), f"no {METADATA_FILE}, but {param_file} has "
                                 f"session_name onnxrt: TI's ONNX Runtime reads the subgraphs from it"))
    return out


# ---- onnxrtMetaData.txt and allowedNode.txt ------------------------------------------------

def _check_metadata(meta: OnnxrtMetadata, source: str, subs: Sequence[SubgraphFiles], present: frozenset[str]
                    ) -> list[DoctorFinding]:
    out = []
    by_name = {s.name: s for s in subs}
    for info in meta.subgraphs:
        where = (f"subgraph {info.index} {info.name!r}",)
        s = by_name.get(info.name)
        if s is None and info.name in present:  # in the folder, but PATH named another io file
            continue
        if s is None:
            out.append(DoctorFinding(ERROR, "metadata", source, f"no {info.name}_tidl_io_1.bin in the folder: TIDL cannot "
                               f"run this subgraph", where, info.name))
            continue
        if s.desc is None:
            continue
        for kind, listed, tensors in (("inDataNames", info.input_names, s.desc.inputs),
                                      ("outDataNames", info.output_names, s.desc.outputs)):
            names = [t.name for t in tensors]
            if sorted(listed) != sorted(names):
                out.append(DoctorFinding(ERROR, "metadata", source, f"{','.join(listed)!r}, but {s.io.name} has "
                                   f"{','.join(names)!r}", (*where, f"{info.index}:{kind}"), info.name))
    known = {i.name for i in meta.subgraphs}
    out += [DoctorFinding(ERROR, "metadata", source, f"lists no subgraph {s.name!r}, but {s.io.name} is in the folder",
                    subgraph=s.name) for s in subs if s.name not in known]
    return out


def _check_allowed(source: str, groups: tuple[tuple[int, ...], ...], num_io: int, meta: OnnxrtMetadata | None
                   ) -> list[DoctorFinding]:
    out = []
    expected = len(meta.subgraphs) if meta is not None else num_io
    if len(groups) != expected:
        what = "onnxrtMetaData.txt lists" if meta is not None else "the folder has io files of"
        out.append(DoctorFinding(ERROR, "allowed-nodes", source, f"{len(groups)} subgraph(s), but {what} {expected}",
                           ("line 1",)))
    seen: dict[int, int] = {}
    nodes = None if meta is None else meta.num_graph_nodes
    for k, group in enumerate(groups):
        twice = sorted({n for n in group if group.count(n) > 1})
        if twice:
            out.append(DoctorFinding(ERROR, "allowed-nodes", source, f"node(s) {', '.join(map(str, twice[:5]))} listed "
                               f"twice", (f"subgraph {k}",)))
        dup = sorted({n for n in group if n in seen})
        if dup:
            out.append(DoctorFinding(ERROR, "allowed-nodes", source, f"node(s) {', '.join(map(str, dup[:5]))} also in "
                               f"subgraph {seen[dup[0]]}: a node belongs to one subgraph", (f"subgraph {k}",)))
        seen.update({n: k for n in group})
        bad = [n for n in group if n < 0 or (nodes is not None and n >= nodes)]
        if bad:
            out.append(DoctorFinding(ERROR, "allowed-nodes", source, f"node {bad[0]} is outside the model's "
                               f"{nodes} nodes (onnxrtMetaData.txt numGraphNodes)", (f"subgraph {k}",)))
    return out


# ---- param.yaml ---------------------------------------------------------------------------

def _check_params(p: ModelParams, path: Path, folder: Path, names_folder: bool | None, subs: Sequence[SubgraphFiles],
                  releases: tuple[str, ...], whole: bool) -> tuple[list[DoctorFinding], dict[str, Any]]:
    """param.yaml (read as ``p``; ``names_folder``: whether its artifacts_folder is ``folder``) against the io files. Names in input/output_details that are
    no io tensor are errors when the io files hold the whole model (``whole``) or when they
    name a tensor of the other kind (an output listed as an input); else the node may run
    outside TIDL."""
    source = str(path)
    sess = p.raw.get("session") or {}
    if not isinstance(sess, dict):
        sess = {}
    out = []

    def error(where: str, message: str) -> None:
        out.append(DoctorFinding(ERROR, "param", source, message, (where,)))

    af = sess.get("artifacts_folder")
    if af is not None and names_folder is False:
        error("session.artifacts_folder", f"{af!r} is not the folder of the io files ({folder})")
    opts = sess.get("runtime_options")
    opts = opts if isinstance(opts, dict) else {}
    version, need = opts.get("version"), releases
    named = None if version is None else find_release(str(version))
    if version is not None and need and (named is None or named.ti not in need):
        error("session.runtime_options.version", f"{version!r}, but the net files are {releases_label(need)}")
    pairs = [(s, s.desc) for s in subs if s.desc is not None]
    inner = {t.name for _, d in pairs for t in d.outputs} & {t.name for _, d in pairs for t in d.inputs}
    inputs = [(s, t) for s, d in pairs for t in d.inputs if t.name not in inner]  # the model's own
    outputs = [(s, t) for s, d in pairs for t in d.outputs if t.name not in inner]
    for key, mine, other in (("input_details", inputs, outputs), ("output_details", outputs, inputs)):
        entries = sess.get(key) or []
        kind = key[:-len("_details")]
        for i, entry in enumerate(entries if isinstance(entries, list) else []):
            if not isinstance(entry, dict):
                continue
            name, shape = str(entry.get("name")), entry.get("shape")
            t = next((x for _, x in mine if x.name == name), None)
            if t is None:
                wrong = next((x for _, x in other if x.name == name), None)
                if whole or wrong is not None:
                    have = ", ".join(f"{x.name!r} {dims_text(x.squeezed_shape)}" for _, x in mine)
                    also = f"; it is the model's {wrong.kind}" if wrong is not None else ""
                    error(f"session.{key}[{i}]", f"{name!r} {shape} is no {kind} of the compiled model "
                                                 f"(its {kind}s: {have}){also}")
                else:
                    out.append(DoctorFinding(NOTE, "param", source, f"{name!r} is no {kind} of the io files: a node "
                                       f"outside TIDL's subgraphs, not checked", (f"session.{key}[{i}]",)))
                continue
            if isinstance(shape, list) and not _same_dims(shape, t):
                error(f"session.{key}[{i}]", f"{name!r} has shape {shape}, but {t.label} is "
                                             f"{dims_text(t.squeezed_shape)} ({t.layout})")
    for s, t in inputs:
        if p.input_data_layout is not None and t.layout != p.input_data_layout:
            error("session.input_data_layout", f"{p.input_data_layout}, but {t.label} is {t.layout} "
                                               f"(inLayout of {s.io.name})")
        for what, values in (("input_mean", p.input_mean), ("input_scale", p.input_scale)):
            if values is not None and len(values) not in (1, t.num_channels):
                error(f"session.{what}", f"{len(values)} values, but {t.label} has {t.num_channels} channel(s)")
    return out, sess


def _same_dims(shape: list[Any], t: Tensor) -> bool:
    """``shape`` (param.yaml) is the tensor's logical shape, NCHW or NHWC, up to axes of 1."""
    try:
        given = [int(v) for v in shape if int(v) != 1]
    except (TypeError, ValueError):
        return False
    n, d1, d2, c, h, w = t.shape
    return any(given == [v for v in order if v != 1] for order in ((n, d1, d2, c, h, w), (n, d1, d2, h, w, c)))


