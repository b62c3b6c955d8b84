"""A model's files: io descriptors, network files and the sidecars beside them.

Where a model's files are and what its text sidecars say, with no runtime involved:

- :func:`find_io_files` / :func:`locate_io_files`: the ``*_tidl_io_1.bin`` files of a folder
  (or of its ``artifacts/`` subfolder), what ``tidl-io inspect`` and :class:`~tidl_io.Session` open;
- :func:`find_artifacts`: io files in run order, the ``*_tidl_net.bin`` beside each,
  ``onnxrtMetaData.txt`` and ``param.yaml`` (:class:`Artifacts`);
- :func:`parse_onnxrt_metadata` / :func:`parse_param_yaml`: those two sidecars
  (:func:`load_onnxrt_metadata` reads the first, bounded).

(All still importable from :mod:`tidl_io.run.session`; the io-file finders also from
:mod:`tidl_io.iodesc.descriptor`.)
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..base.check import check_path, layout_name, open_regular, path_kind, read_limited
from ..base.errors import FormatError, PathError, PathNotFoundError
from ..base.numtext import NumberError, natural_key, read_int
from ..base.safe_yaml import load_yaml, load_yaml_file
from ..base.text import short_repr
from ..data.detection import Formatter
from ..iodesc.descriptor import Descriptor
from ..iodesc.tensor import Tensor

__all__ = [
    "ALLOWED_FILE",
    "IO_FILE_PATTERNS",
    "Artifacts",
    "ModelParams",
    "OnnxrtMetadata",
    "SubgraphInfo",
    "check_one_model",
    "find_artifacts",
    "find_io_files",
    "load_onnxrt_metadata",
    "load_param_yaml",
    "locate_io_files",
    "order_io_files",
    "param_file_of",
    "parse_allowed_nodes",
    "parse_onnxrt_metadata",
    "parse_param_yaml",
    "require_one_model",
    "sort_io_files",
]

_EXPECTED_FILE = "a TIDL I/O descriptor file (*_tidl_io_1.bin)"


# ---- io files --------------------------------------------------------------------------

# <net>_tidl_io_1.bin (edgeai-tidl-tools) and tidl_io_<net>_1.bin (RTOS SDK test vectors)
IO_FILE_PATTERNS = ("*tidl_io_1.bin", "*tidl_io_*_1.bin")


def find_io_files(folder: str | os.PathLike[str]) -> list[Path]:
    """The io descriptor files directly inside ``folder``, sorted by name (empty when it holds
    none). A missing folder is a :class:`~tidl_io.PathNotFoundError`, a file or anything else
    that is no folder a :class:`~tidl_io.PathError`."""
    base = Path(check_path(folder, "find_io_files", "folder"))
    if not base.is_dir():
        if not base.exists():
            raise PathNotFoundError(str(base), "no such folder; expected a folder of *_tidl_io_1.bin files",
                                    errno.ENOENT)
        what = "is a file, not a folder" if base.is_file() else "is not a folder"
        raise PathError(str(base), f"{what}; expected a folder of *_tidl_io_1.bin files (to read "
                        f"one file use tidl_io.load(path))", errno.ENOTDIR)
    return sorted({p for pattern in IO_FILE_PATTERNS for p in base.glob(pattern) if p.is_file()})


def locate_io_files(path: str | os.PathLike[str], who: str = "locate_io_files") -> tuple[Path, list[Path]]:
    """The folder and io files that ``path`` names: an io file itself; the io files of a
    folder; else those of its ``artifacts/`` subfolder (an edgeai model folder holds
    ``param.yaml`` and ``artifacts/``). What ``tidl-io inspect`` and :class:`Session` both
    use. Raises :class:`~tidl_io.PathError` (PathNotFoundError when nothing is there)."""
    p = Path(check_path(path, who, "path"))
    kind = path_kind(p, f"{_EXPECTED_FILE} or a folder of them")  # PathError for a path that cannot be looked at
    if kind == "folder":
        files = find_io_files(p)
        if not files and (p / "artifacts").is_dir():
            files = find_io_files(p / "artifacts")
            if files:
                return p / "artifacts", files
        if not files:
            below = artifact_subfolders(p)
            hint = (f"; its subfolders hold artifacts: {', '.join(str(b) for b in below[:8])}"
                    f"{' ...' if len(below) > 8 else ''} (give one of them)") if below else ""
            raise PathNotFoundError(str(p), f"no *_tidl_io_1.bin file in this folder (nor in {p / 'artifacts'})"
                                    f"{hint}", errno.ENOENT)
        return p, files
    if kind == "file":
        return p.parent, [p]
    if kind is not None:
        raise PathError(str(p), f"not a regular file or a folder; expected {_EXPECTED_FILE} or a folder of them")
    raise PathNotFoundError(str(p), "no such file or folder", errno.ENOENT)


def artifact_subfolders(folder: Path) -> list[Path]:
    """The subfolders of ``folder`` (one level down) that hold io files, directly or in their
    ``artifacts/`` (a model folder: :func:`locate_io_files` takes either), sorted by name.
    Unreadable subfolders are skipped."""
    out = []
    try:
        children = sorted(c for c in folder.iterdir() if c.is_dir())
    except OSError:
        return []
    for child in children:
        for candidate in (child, child / "artifacts"):
            try:
                if candidate.is_dir() and find_io_files(candidate):
                    out.append(child)
                    break
            except OSError:
                break
    return out


def require_one_model(path: str | os.PathLike[str], command: str, *, net_file: bool = False) -> None:
    """Raise the PathError saying why ``path`` is not one model for ``tidl-io COMMAND``: a
    network file (the command reads the folder holding it: say which; not raised with
    ``net_file``, for a command that takes one), or a folder that holds no model itself (no io
    file, net, ``tempDir/`` or ``artifacts/``) but model folders one level down (say to give
    one). why, quant, perf and advise say it alike (doctor words it from its reader)."""
    refusal = _one_model_problem(path, command)
    if refusal is not None and not (net_file and Path(path).is_file()):
        raise refusal


def _one_model_problem(path: str | os.PathLike[str], command: str) -> PathError | None:
    import shlex  # start-up

    p = Path(path)
    try:
        if p.is_file():
            from ..net.parse import looks_like_net  # start-up

            if not looks_like_net(p):
                return None
            return PathError(str(p), f"a network file, not a model folder: tidl-io {command} reads the model's "
                                     f"folder (its artifacts folder, with tempDir/): tidl-io {command} "
                                     f"{shlex.quote(str(p.parent))}", errno.EISDIR)
        if not p.is_dir() or find_io_files(p) or any(p.glob("*tidl_net*.bin")) or \
                (p / "tempDir").is_dir() or (p / "artifacts").is_dir():
            return None
        below = artifact_subfolders(p)
    except (OSError, PathError):
        return None
    if not below:
        return None
    names = ", ".join(str(b) for b in below[:8]) + (" ..." if len(below) > 8 else "")
    return PathError(str(p), f"a folder of model folders: give one model's folder; found {len(below)}: {names} "
                             f"(tidl-io {command} {shlex.quote(str(below[0]))})", errno.EISDIR)


METADATA_FILE = "onnxrtMetaData.txt"
PARAMS_FILE = "param.yaml"
ALLOWED_FILE = "allowedNode.txt"


def param_file_of(folder: Path) -> Path | None:
    """The edgeai ``param.yaml`` of the artifacts in ``folder``: beside them, else in the parent
    folder (edgeai's model folder holds ``param.yaml`` and ``artifacts/``); None when neither."""
    return next((c for c in (folder / PARAMS_FILE, folder.parent / PARAMS_FILE) if c.is_file()), None)


# ---- onnxrtMetaData.txt ----------------------------------------------------------------

@dataclass(frozen=True)
class SubgraphInfo:
    """One subgraph of ``onnxrtMetaData.txt``: ``k:subGraphName``, ``k:inDataNames``, ...."""

    index: int
    name: str
    input_names: tuple[str, ...] = ()
    output_names: tuple[str, ...] = ()
    input_idx: tuple[int, ...] = ()


@dataclass(frozen=True)
class OnnxrtMetadata:
    """``onnxrtMetaData.txt``: the ONNX graph's node count and the offloaded subgraphs."""

    num_graph_nodes: int | None
    subgraphs: tuple[SubgraphInfo, ...]

    def subgraph(self, name: str) -> SubgraphInfo | None:
        for s in self.subgraphs:
            if s.name == name:
                return s
        return None


def parse_onnxrt_metadata(text: str, source: str = METADATA_FILE) -> OnnxrtMetadata:
    """Parse the ``key=value`` lines of ``onnxrtMetaData.txt`` (``k:key=value`` per subgraph).

    Unknown keys are ignored; a malformed line or a non-integer count raises FormatError
    naming the line.
    """
    nodes: int | None = None
    per: dict[int, dict[str, str]] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise FormatError(source, f"line {lineno}: expected key=value, found {short_repr(line)}")
        index, colon, name = key.partition(":")
        if not colon:
            if key == "numGraphNodes":
                nodes = _int(value, source, lineno, key)
            continue
        per.setdefault(_int(index, source, lineno, "subgraph index"), {})[name] = value.strip()
    subs = []
    for k in sorted(per):
        f = per[k]

        def names(key: str, f: dict[str, str] = f) -> tuple[str, ...]:
            return tuple(n for n in f.get(key, "").split(",") if n)

        idx = tuple(_int(v, source, 0, f"{k}:inputIdx") for v in f.get("inputIdx", "").split(",") if v.strip())
        subs.append(SubgraphInfo(k, f.get("subGraphName", str(k)), names("inDataNames"), names("outDataNames"), idx))
    return OnnxrtMetadata(nodes, tuple(subs))


def load_onnxrt_metadata(path: str | os.PathLike[str]) -> OnnxrtMetadata:
    """``onnxrtMetaData.txt`` at ``path`` read (at most 1 MiB: TI's is a few hundred bytes) and
    parsed; a PathError when it cannot be read, a FormatError naming the line when malformed."""
    return parse_onnxrt_metadata(_read_text(Path(path)), str(path))


def _read_text(path: Path, limit: int = 1 << 20) -> str:
    """A sidecar's text (at most ``limit`` bytes: onnxrtMetaData.txt is a few hundred);
    PathError when it cannot be read."""
    with open_regular(str(path), f"a text file ({path.name})") as fh:
        return read_limited(fh, limit)[:limit].decode("utf-8", errors="replace")


def _int(value: str, source: str, lineno: int, what: str) -> int:
    try:
        return read_int(value.strip())
    except NumberError as exc:
        where = f"line {lineno}: " if lineno else ""
        raise FormatError(source, f"{where}{what}: {exc.detail}") from None


# ---- param.yaml ------------------------------------------------------------------------

@dataclass(frozen=True)
class ModelParams:
    """The facts a session needs from an edgeai ``param.yaml``; ``raw`` keeps the whole file.

    ``input_mean``/``input_scale`` are edgeai's: normalised = (x - mean) * scale, per
    channel. ``input_optimization`` true means TIDL folded them into the network.
    """

    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)
    input_mean: tuple[float, ...] | None = None
    input_scale: tuple[float, ...] | None = None
    input_data_layout: str | None = None
    input_optimization: bool | None = None
    reverse_channels: bool = False
    formatter: Formatter | None = None
    normalized_detections: bool | None = None
    detection_threshold: float | None = None
    task_type: str | None = None
    source: str = PARAMS_FILE

    @property
    def normalizes(self) -> bool:
        """Whether the application must apply mean/scale itself (given, and not folded)."""
        given = self.input_mean is not None or self.input_scale is not None
        return given and not self.input_optimization


def parse_param_yaml(text: str | Mapping[str, Any], source: str = PARAMS_FILE) -> ModelParams:
    """Read an edgeai ``param.yaml`` (text or an already-loaded mapping). Text is read by
    :func:`tidl_io.base.safe_yaml.load_yaml`: size, nesting depth and aliases are bounded first.

    Reads ``session.input_mean/input_scale/input_data_layout/input_optimization``,
    ``preprocess.reverse_channels`` (and ``data_layout`` when the session has none),
    ``postprocess.formatter/normalized_detections/detection_threshold`` (or
    ``detection_thr``) and ``task_type``. Values of the wrong kind raise FormatError.
    """
    if isinstance(text, Mapping):
        raw: Any = text
    else:
        raw = load_yaml(text, source)  # bounded: size, depth, aliases (tidl_io.base.safe_yaml)
    raw = raw or {}
    if not isinstance(raw, Mapping):
        raise FormatError(source, f"expected a mapping at the top, found {type(raw).__name__}")
    sess = _section(raw, "session", source)
    pre = _section(raw, "preprocess", source)
    post = _section(raw, "postprocess", source)
    layout = sess.get("input_data_layout") or pre.get("data_layout")
    if layout is not None and layout_name(layout) not in ("NCHW", "NHWC"):
        raise FormatError(source, f"expected NCHW or NHWC, found {short_repr(layout)} (in any letter case)",
                          field="session.input_data_layout")
    formatter = None
    if post.get("formatter"):
        if not isinstance(post["formatter"], Mapping):
            raise FormatError(source, f"expected a mapping, found {short_repr(post['formatter'])}", field="postprocess.formatter")
        formatter = Formatter.from_mapping(post["formatter"], source)
    threshold = post.get("detection_threshold", post.get("detection_thr"))
    return ModelParams(
        raw=raw,
        input_mean=_floats(sess.get("input_mean"), source, "session.input_mean"),
        input_scale=_floats(sess.get("input_scale"), source, "session.input_scale"),
        input_data_layout=None if layout is None else layout_name(layout),
        input_optimization=None if sess.get("input_optimization") is None else bool(sess["input_optimization"]),
        reverse_channels=bool(pre.get("reverse_channels") or False),
        formatter=formatter,
        normalized_detections=None if post.get("normalized_detections") is None
        else bool(post["normalized_detections"]),
        detection_threshold=None if threshold is None else _float(threshold, source, "postprocess.detection_threshold"),
        task_type=None if raw.get("task_type") is None else str(raw["task_type"]),
        source=source,
    )


def load_param_yaml(path: str | os.PathLike[str]) -> ModelParams:
    """:func:`parse_param_yaml` of the file at ``path``, read by the one bounded YAML loader
    (:func:`tidl_io.base.safe_yaml.load_yaml_file`: at most 1 MiB, 64 levels, 100 000 items with
    aliases expanded); PathError for a path that cannot be read, FormatError otherwise."""

    name = check_path(path, "load_param_yaml", "path")
    raw = load_yaml_file(name, expected="an edgeai param.yaml")
    if raw is not None and not isinstance(raw, Mapping):
        raise FormatError(name, f"expected a mapping at the top, found {type(raw).__name__}")
    return parse_param_yaml(raw or {}, name)


def _section(raw: Mapping[str, Any], name: str, source: str) -> Mapping[str, Any]:
    value = raw.get(name) or {}
    if not isinstance(value, Mapping):
        raise FormatError(source, f"expected a mapping, found {short_repr(value)}", field=name)
    return value


def _float(value: Any, source: str, name: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise FormatError(source, f"expected a number, found {short_repr(value)}", field=name) from None


def _floats(value: Any, source: str, name: str) -> tuple[float, ...] | None:
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return (float(value),)
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise FormatError(source, f"expected a number or a list of numbers, found {short_repr(value)}", field=name)
    return tuple(_float(v, source, name) for v in value)


# ---- artifacts folder ------------------------------------------------------------------

@dataclass(frozen=True)
class Artifacts:
    """What :func:`find_artifacts` found: io files in run order, the net file beside each
    (None when missing), and the sidecars."""

    io_files: tuple[Path, ...]
    net_files: tuple[Path | None, ...]
    subgraph_names: tuple[str, ...]
    metadata_file: Path | None = None
    param_file: Path | None = None


def subgraph_name(io: Path) -> str:
    name = io.name
    if name.endswith("_tidl_io_1.bin"):
        return name[: -len("_tidl_io_1.bin")]
    m = re.fullmatch(r"tidl_io_(.*)_1\.bin", name)
    return m.group(1) if m else name


def net_candidate(io: Path) -> Path:
    """Where the network file of io file ``io`` is (whether or not it exists)."""
    name = io.name
    if name.endswith("_tidl_io_1.bin"):
        return io.with_name(name[: -len("_tidl_io_1.bin")] + "_tidl_net.bin")
    return io.with_name("tidl_net_" + subgraph_name(io) + ".bin")


def net_file_of(io: Path) -> Path | None:
    candidate = net_candidate(io)
    if candidate.is_file():
        return candidate
    if candidate.exists():  # a folder or a FIFO under the net file's name: a runtime would fail or block on it
        raise PathError(str(candidate), "is not a regular file; expected the network file beside "
                        f"{io.name} (or nothing there)", errno.EINVAL)
    return None


def check_one_model(io_files: Sequence[Path], descs: Sequence[Descriptor]) -> None:
    """Refuse io files that cannot be the subgraphs of one compiled model, with a
    :class:`~tidl_io.FormatError` saying "these are not one model" and why: descriptors of
    different TIDL layouts (one compile writes one), an output made by two subgraphs, or a
    tensor that two subgraphs take, or one takes from another, with different sizes."""
    if len(descs) < 2:
        return
    folder = io_files[0].parent

    def refuse(why: str) -> None:
        raise FormatError(str(folder), f"these are not one model: {why}; give one io file, or a folder holding "
                          f"the artifacts of one model")

    first, first_desc = io_files[0], descs[0]
    for io, desc in zip(io_files[1:], descs[1:]):
        if desc.layout.key != first_desc.layout.key:
            refuse(f"{first.name} is {first_desc.layout.description} but {io.name} is {desc.layout.description}")
    made: dict[str, tuple[Path, Tensor]] = {}
    taken: dict[str, tuple[Path, Tensor]] = {}
    for io, desc in zip(io_files, descs):
        for t in desc.inputs:
            seen = made.get(t.name) or taken.get(t.name)
            if seen is not None and seen[1].size != t.size:
                verb = "makes" if t.name in made else "takes"
                refuse(f"{io.name} takes {t.name!r} of {t.size} elements {t.shape} but {seen[0].name} {verb} it "
                       f"with {seen[1].size} {seen[1].shape}")
            taken.setdefault(t.name, (io, t))
        for t in desc.outputs:
            if t.name in made:
                refuse(f"output {t.name!r} is made by both {made[t.name][0].name} and {io.name}")
            made[t.name] = (io, t)


def order_io_files(folder: Path, ios: Sequence[Path], strict: bool = False) -> list[Path]:
    """``ios`` in TIDL's order: as ``folder/onnxrtMetaData.txt`` lists their subgraphs, then
    (those it does not list, or all when there is none) by name in natural order. An
    unreadable metadata file raises its error with ``strict``, else is ignored here (doctor
    and inspect report it where they check it)."""
    meta = folder / METADATA_FILE
    info = None
    if meta.is_file():
        try:
            info = parse_onnxrt_metadata(_read_text(meta), str(meta))
        except (FormatError, PathError):
            if strict:
                raise
    return sort_io_files(ios, info)


def sort_io_files(ios: Sequence[Path], meta: OnnxrtMetadata | None) -> list[Path]:
    """``ios`` in TIDL's order: as ``meta`` (onnxrtMetaData.txt) lists their subgraphs, then those it
    does not list (all, when ``meta`` is None) by name in natural order."""
    order = {s.name: s.index for s in meta.subgraphs} if meta is not None else {}
    return sorted(ios, key=lambda f: (order.get(subgraph_name(f), len(order)), natural_key(f.name)))


def find_artifacts(path: str | os.PathLike[str]) -> Artifacts:
    """Locate a model's files from an io file, an artifacts folder, or a model folder
    holding ``artifacts/``. Subgraphs are ordered as ``onnxrtMetaData.txt`` lists them,
    else by name (natural order). ``param.yaml`` is looked for beside the io files, then
    in the parent folder (edgeai layout: ``model_dir/param.yaml``, ``model_dir/artifacts/``).
    Raises :class:`~tidl_io.PathError` (a FileNotFoundError when nothing is there)."""
    folder, ios = locate_io_files(path, "find_artifacts")
    meta = folder / METADATA_FILE
    meta_file = meta if meta.is_file() else None
    param_file = param_file_of(folder)
    ios = order_io_files(folder, ios, strict=True)
    return Artifacts(tuple(ios), tuple(net_file_of(f) for f in ios), tuple(subgraph_name(f) for f in ios),
                     meta_file, param_file)


# ---- allowedNode.txt -------------------------------------------------------------------

def parse_allowed_nodes(text: str, source: str = "allowedNode.txt") -> tuple[tuple[int, ...], ...]:
    """The node indices each subgraph took from the original model, as TI's importer writes
    ``allowedNode.txt``: the number of subgraphs, then per subgraph its node count and
    that many node indices, one integer per line. FormatError naming the line otherwise."""
    values: list[tuple[int, int]] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            values.append((lineno, read_int(line.strip())))
        except NumberError as exc:
            raise FormatError(source, f"line {lineno}: {exc.detail}") from None
    if not values:
        raise FormatError(source, "empty; expected the number of subgraphs on line 1")
    pos, subgraphs = 1, list[tuple[int, ...]]()
    count_line, count = values[0]
    if count < 0:
        raise FormatError(source, f"line {count_line}: number of subgraphs must be >= 0, found {count}")
    for k in range(count):
        if pos >= len(values):
            raise FormatError(source, f"ends after {len(subgraphs)} of {count} subgraphs (line 1 says {count})")
        lineno, n = values[pos]
        if n < 0 or pos + 1 + n > len(values):
            have = len(values) - pos - 1
            raise FormatError(source, f"line {lineno}: subgraph {k} lists {n} nodes, but {have} lines follow")
        subgraphs.append(tuple(v for _, v in values[pos + 1:pos + 1 + n]))
        pos += 1 + n
    if pos != len(values):
        raise FormatError(source, f"line {values[pos][0]}: {len(values) - pos} more line(s) after the {count} "
                          f"subgraph(s) line 1 announces")
    return tuple(subgraphs)
