"""The text files TI's tools and edgeai leave beside a compiled model, checked against its io files.

- ``allowedNode.txt`` (TI's importer, read by TI's ONNX Runtime and TFLite delegates): which
  nodes of the original model each subgraph took; :func:`tidl_io.artifacts.folder.parse_allowed_nodes` reads it.
- ``onnxrtMetaData.txt`` (ONNX Runtime): the subgraphs, their input and output names
  (read by :func:`tidl_io.artifacts.folder.parse_onnxrt_metadata`).
- ``param.yaml`` (edgeai): the session's artifacts folder, tools version, input/output
  details, data layout, mean/scale (read by :func:`tidl_io.artifacts.folder.parse_param_yaml`).

:func:`check_sidecars` returns :class:`~tidl_io.doctor.checks.DoctorFinding` objects for ``tidl-io
doctor``; nothing here prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from ..artifacts.folder import (
    METADATA_FILE,
    PARAMS_FILE,
    OnnxrtMetadata,
    load_param_yaml,
    parse_allowed_nodes,
    parse_onnxrt_metadata,
)
from ..base.errors import TidlIoError
from ..base.findings import ERROR, NOTE, DoctorFinding, dims_text, read_text, reason
from ..base.releases import find_release, releases_label
from ..iodesc.descriptor import Descriptor, Tensor

__all__ = ["check_sidecars", "read_metadata"]

_ALLOWED = "allowedNode.txt"


class _Subgraph(Protocol):
    name: str
    io: Path
    desc: Descriptor | None


def read_metadata(folder: Path) -> tuple[OnnxrtMetadata | None, list[DoctorFinding]]:
    """``folder/onnxrtMetaData.txt`` parsed (None when absent or unreadable, with the error)."""
    path = folder / METADATA_FILE
    if not path.is_file():
        return None, []
    try:
        return parse_onnxrt_metadata(read_text(path), str(path)), []
    except (TidlIoError, OSError) as exc:
        return None, [DoctorFinding(ERROR, "metadata", str(path), reason(exc, str(path)))]


def check_sidecars(given: Path, folder: Path, subs: Sequence[_Subgraph], meta: OnnxrtMetadata | None,
                   releases: tuple[str, ...]) -> list[DoctorFinding]:
    """Every disagreement of the sidecar files in ``folder`` (and ``param.yaml`` beside it or
    in its parent) with the io descriptors of ``subs``; ``given`` is the path the user
    named (a model folder, when the io files are in its ``artifacts/``); ``releases`` the
    releases the net files need."""
    out = []
    present = _subgraphs_present(folder, subs)
    metafile = folder / METADATA_FILE
    if meta is not None:
        out += _check_metadata(meta, str(metafile), subs, present)
    allowed, groups = folder / _ALLOWED, None
    if allowed.is_file():
        found, groups = _check_allowed(allowed, len(present), meta)
        out += found
    nodes = meta.num_graph_nodes if meta is not None else None
    # the io files hold the whole model: one subgraph that took every node of the ONNX graph
    whole = (len(subs) == 1 and nodes is not None and groups is not None and len(groups) == 1
             and sorted(groups[0]) == list(range(nodes)))
    param_file = next((c for c in (folder / PARAMS_FILE, folder.parent / PARAMS_FILE) if c.is_file()), None)
    params = None
    if param_file is not None:
        found, params = _check_params(param_file, folder, subs, releases, whole)
        out += found
    elif given.is_dir() and given.resolve() != folder.resolve():
        out.append(DoctorFinding(ERROR, "param", str(given), f"no {PARAMS_FILE} in this model folder (beside "
                           f"{folder.name}/): edgeai's runtimes read the preprocessing from it"))
    if not allowed.is_file() and (meta is not None or param_file is not None):
        out.append(DoctorFinding(ERROR, "allowed-nodes", str(folder), f"no {_ALLOWED}: TI's ONNX Runtime and TFLite "
                           f"delegates read it to know which nodes each subgraph runs"))
    session = params.get("session_name") if params else None
    if meta is None and not metafile.exists() and session == "onnxrt":
        out.append(DoctorFinding(ERROR, "metadata", str(folder), f"no {METADATA_FILE}, but {param_file} has session_name "
                           f"onnxrt: TI's ONNX Runtime reads the subgraphs from it"))
    return out


def _subgraphs_present(folder: Path, subs: Sequence[_Subgraph]) -> set[str]:
    """The subgraphs whose io file is in ``folder``: those checked, and those PATH (one io file)
    did not name; the sidecars describe the whole folder."""
    from ..artifacts.folder import locate_io_files, subgraph_name  # start-up

    try:
        listed = {subgraph_name(f) for f in locate_io_files(folder)[1]}
    except (TidlIoError, OSError):
        listed = set()
    return listed | {s.name for s in subs}


# ---- allowedNode.txt -------------------------------------------------------------------

# ---- onnxrtMetaData.txt and allowedNode.txt ------------------------------------------------

def _check_metadata(meta: OnnxrtMetadata, source: str, subs: Sequence[_Subgraph], present: set[str]
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


def _check_allowed(path: Path, num_io: int, meta: OnnxrtMetadata | None
                   ) -> tuple[list[DoctorFinding], tuple[tuple[int, ...], ...] | None]:
    source = str(path)
    try:
        groups = parse_allowed_nodes(read_text(path), source)
    except (TidlIoError, OSError) as exc:
        return [DoctorFinding(ERROR, "allowed-nodes", source, reason(exc, source))], None
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
    return out, groups


# ---- param.yaml ---------------------------------------------------------------------------

def _check_params(path: Path, folder: Path, subs: Sequence[_Subgraph], releases: tuple[str, ...],
                  whole: bool) -> tuple[list[DoctorFinding], dict[str, Any]]:
    """param.yaml against the io files. Names in input/output_details that are no io tensor
    are errors when the io files hold the whole model (``whole``) or when they name a tensor
    of the other kind (an output listed as an input); else the node may run outside TIDL."""
    source = str(path)
    try:
        p = load_param_yaml(path)  # bounded: size, depth, aliases (tidl_io.base.safe_yaml)
    except (TidlIoError, OSError) as exc:
        return [DoctorFinding(ERROR, "param", source, reason(exc, source))], {}
    sess = p.raw.get("session") or {}
    if not isinstance(sess, dict):
        sess = {}
    out = []

    def error(where: str, message: str) -> None:
        out.append(DoctorFinding(ERROR, "param", source, message, (where,)))

    af = sess.get("artifacts_folder")
    if af is not None and (path.parent / str(af)).resolve() != folder.resolve():
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


