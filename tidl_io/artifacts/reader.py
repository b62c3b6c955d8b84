"""A compiled model's folder, read once: :func:`read_artifacts_folder`.

It takes what the user named (an io file, an artifacts folder, a model folder holding
``artifacts/``, a network file, or a folder of nets without io files), does all the path
probing and file reading a check of the whole model needs, and returns one
:class:`ArtifactsFolder`: the subgraphs in TIDL's order with their io descriptor and net
(:class:`SubgraphFiles`), ``onnxrtMetaData.txt``, ``allowedNode.txt``, ``param.yaml`` and the
16-bit name lists' sources. A file that cannot be used is data here too (a
:class:`FileProblem`: the file and one located line), never an exception: judging them is the
caller's (``tidl-io doctor``); nothing here judges or prints.

It also says what the path is when there is nothing to check there
(:attr:`ArtifactsFolder.checkable`): a path that cannot be used (``problem``), a folder of
model folders (``subfolders``), a net file whose io descriptor is beside it (``given_net``), a
file that is neither an io descriptor nor a net (``other_file``, told from its bytes by
:func:`~tidl_io.iodesc.descriptor.looks_like_io` and :func:`~tidl_io.net.parse.looks_like_net`).
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from ..base.check import check_path, list_folder, open_regular, path_kind
from ..base.errors import PathError, TidlIoError
from ..base.findings import read_text, reason
from ..base.releases import Release, release_table
from ..iodesc.descriptor import Descriptor, load, looks_like_io
from ..net import Network, load_net
from ..net.parse import find_layer_info, io_file_of, is_version_word, looks_like_net
from ..precision.names import NameLists, read_name_lists
from .folder import (
    ALLOWED_FILE,
    METADATA_FILE,
    ModelParams,
    OnnxrtMetadata,
    artifact_subfolders,
    load_param_yaml,
    locate_io_files,
    net_candidate,
    net_file_of,
    param_file_of,
    parse_allowed_nodes,
    parse_onnxrt_metadata,
    sort_io_files,
    subgraph_name,
)

__all__ = ["ArtifactsFolder", "FileProblem", "GivenNet", "SubgraphFiles", "read_artifacts_folder"]

_T = TypeVar("_T")
_EXPECTED = "an artifacts folder, a model folder holding artifacts/, or an io descriptor"


@dataclass(frozen=True)
class FileProblem:
    """A path that could not be looked at or a file that could not be used: ``source`` (the
    path, as named) and ``message`` (one line, located, without the path); ``error``: the
    exception that said so (not compared)."""

    source: str
    message: str
    error: BaseException | None = field(default=None, compare=False, repr=False)


def _problem(exc: BaseException, source: str | Path) -> FileProblem:
    return FileProblem(str(source), reason(exc, str(source)), exc)


@dataclass(frozen=True)
class SubgraphFiles:
    """One subgraph's two files as read: the io descriptor ``io`` (where TI's tools put it when
    ``io_missing``: only the net is there) and the network file ``net_path`` beside it (None
    when none is there; ``net_expected`` is where it would be). ``desc`` and ``net`` are None
    when not read; then ``io_problem`` / ``net_problem`` say why. ``net_unusable``: something
    that is no regular file under the net's name. ``layer_info``: the net's layer_info.txt when it
    was there and not used (:attr:`~tidl_io.net.Network.layer_info_error` says why)."""

    name: str
    io: Path
    net_path: Path | None
    net_expected: Path
    desc: Descriptor | None = None
    net: Network | None = None
    io_missing: bool = False
    net_unusable: FileProblem | None = None
    io_problem: FileProblem | None = None
    net_problem: FileProblem | None = None
    layer_info: Path | None = None


@dataclass(frozen=True)
class GivenNet:
    """The path named a network file whose io descriptor is beside it: its first word
    (netVersion; None when shorter than 4 bytes), the releases that write it (() when none is
    known) and whether the word has netVersion's shape (of a newer release, say)."""

    word: int | None
    releases: tuple[Release, ...]
    version_shaped: bool


@dataclass(frozen=True)
class ArtifactsFolder:
    """What :func:`read_artifacts_folder` found at ``given``.

    ``folder`` holds the io files (or the nets, or is the parent of a file named). When
    ``problem``, ``given_net`` or ``other_file`` is set nothing else was read (``subfolders``:
    the folders one level down that hold artifacts, when ``given`` holds none; ``other_file``:
    what the file named is, when it is neither an io descriptor nor a net file). ``net_only``: no io file, the
    nets alone. The sidecars are read only beside io files: ``metadata`` (``metadata_there``:
    any file under its name), ``allowed`` (the node groups of ``allowedNode.txt``;
    ``allowed_there``), ``params`` (of ``param_file``); each with its ``*_problem``.
    ``listed``: the subgraphs whose io file is in ``folder`` (``given`` may name one of them);
    ``model_folder``: ``given`` is a folder other than ``folder``; ``params_name_folder``: whether
    param.yaml's ``session.artifacts_folder`` (relative to param.yaml) is ``folder`` (None: it names none)."""

    given: str
    folder: Path
    problem: FileProblem | None = None
    given_net: GivenNet | None = None
    subfolders: tuple[Path, ...] = ()
    subgraphs: tuple[SubgraphFiles, ...] = ()
    net_only: bool = False
    listed: frozenset[str] = frozenset()
    metadata: OnnxrtMetadata | None = None
    metadata_problem: FileProblem | None = None
    metadata_there: bool = False
    allowed: tuple[tuple[int, ...], ...] | None = None
    allowed_problem: FileProblem | None = None
    allowed_there: bool = False
    param_file: Path | None = None
    params: ModelParams | None = None
    param_problem: FileProblem | None = None
    model_folder: bool = False
    params_name_folder: bool | None = None
    name_lists: NameLists | None = None
    other_file: str | None = None

    @property
    def checkable(self) -> bool:
        """Whether ``given`` names files to check: False for a path that cannot be used, a
        folder of model folders, a net file whose io descriptor is beside it, a file that is
        neither an io descriptor nor a net file."""
        return self.problem is None and self.given_net is None and self.other_file is None

    @property
    def allowed_file(self) -> Path:
        return self.folder / ALLOWED_FILE

    @property
    def metadata_file(self) -> Path:
        return self.folder / METADATA_FILE


def read_artifacts_folder(path: str | os.PathLike[str], who: str = "read_artifacts_folder") -> ArtifactsFolder:
    """Read the compiled model at ``path`` once (see the module docstring). Raises only for a
    ``path`` of the wrong kind (:class:`~tidl_io.ArgumentTypeError`, naming ``who``); a path
    that is not there or cannot be read is :attr:`ArtifactsFolder.problem`."""
    given = check_path(path, who, "path")
    try:
        kind = path_kind(given, _EXPECTED)
    except PathError as exc:
        return ArtifactsFolder(given, Path(given), _problem(exc, given))
    if kind == "file" and looks_like_net(given):
        try:
            io_missing = path_kind(io_file_of(given), "an io descriptor") is None
        except PathError:
            io_missing = True
        if io_missing:  # its io file is not there: the net alone
            return _with_names(ArtifactsFolder(given, Path(given).parent, subgraphs=(_net_alone(Path(given)),),
                                               net_only=True), Path(given))
        return ArtifactsFolder(given, Path(given).parent, given_net=_given_net(given))
    if kind == "file" and not looks_like_io(given):
        return ArtifactsFolder(given, Path(given).parent, other_file=_what_file(given))
    try:
        folder, ios = locate_io_files(given, who)
    except (TidlIoError, OSError) as exc:
        nets = _nets_in(Path(given)) if kind == "folder" else []
        if nets:
            return _with_names(ArtifactsFolder(given, Path(given), subgraphs=tuple(_net_alone(n) for n in nets),
                                               net_only=True), Path(given))
        below = artifact_subfolders(Path(given)) if kind == "folder" else []
        return ArtifactsFolder(given, Path(given), _problem(exc, given), subfolders=tuple(below))
    meta, meta_problem = _sidecar(folder / METADATA_FILE, parse_onnxrt_metadata)
    subs = tuple(_subgraph(io) for io in sort_io_files(ios, meta))
    try:  # a folder named: its io files are all listed already; a file named: the others beside it
        listed = {subgraph_name(f) for f in (ios if kind == "folder" else locate_io_files(folder)[1])}
    except (TidlIoError, OSError):
        listed = set()
    allowed, allowed_problem = _sidecar(folder / ALLOWED_FILE, parse_allowed_nodes)
    param_file = param_file_of(folder)
    params, param_problem = _params(param_file)
    model_folder = Path(given).is_dir() and Path(given).resolve() != folder.resolve()
    art = ArtifactsFolder(given, folder, subgraphs=subs, listed=frozenset(listed | {s.name for s in subs}),
                          metadata=meta, metadata_problem=meta_problem,
                          metadata_there=(folder / METADATA_FILE).exists(), allowed=allowed,
                          allowed_problem=allowed_problem, allowed_there=(folder / ALLOWED_FILE).is_file(),
                          param_file=param_file, params=params, param_problem=param_problem,
                          model_folder=model_folder, params_name_folder=_names_folder(param_file, params, folder))
    return _with_names(art, Path(given))


def _with_names(art: ArtifactsFolder, given: Path) -> ArtifactsFolder:
    """``art`` with the 16-bit name lists' sources read (tidl_io.precision owns them)."""
    return replace(art, name_lists=read_name_lists(given, art.folder))


# ---- one subgraph ----------------------------------------------------------------------

def _subgraph(io: Path) -> SubgraphFiles:
    """The io file ``io`` and the net beside it, read."""
    name, expected = subgraph_name(io), net_candidate(io)
    net_path, unusable = None, None
    try:
        net_path = net_file_of(io)
    except (TidlIoError, OSError) as exc:  # a folder or FIFO under the net's name: said once, there
        unusable = _problem(exc, expected)
    desc, io_problem = None, None
    try:
        desc = load(io)
    except (TidlIoError, OSError) as exc:
        io_problem = _problem(exc, io)
    net, net_problem = _net(net_path)
    return SubgraphFiles(name, io, net_path, expected, desc, net, False, unusable, io_problem, net_problem,
                         _layer_info(net))


def _net_alone(net_path: Path) -> SubgraphFiles:
    """A subgraph of which only the net is there; ``io`` is the name TI's tools would give its io file."""
    io = io_file_of(net_path)
    net, net_problem = _net(net_path)
    return SubgraphFiles(subgraph_name(io), io, net_path, net_path, None, net, True, None, None, net_problem, _layer_info(net))


def _net(net_path: Path | None) -> tuple[Network | None, FileProblem | None]:
    if net_path is None:
        return None, None
    try:
        return load_net(net_path), None
    except (TidlIoError, OSError) as exc:
        return None, _problem(exc, net_path)


def _layer_info(net: Network | None) -> Path | None:
    """The layer_info.txt TI left for ``net`` when :func:`~tidl_io.load_net` did not use it
    (:attr:`Network.layer_info_error` says why)."""
    return None if net is None or net.layer_info_error is None else find_layer_info(str(net.source))


def _nets_in(folder: Path) -> list[Path]:
    """The net files directly in ``folder`` (or its ``artifacts/``), for a folder without io files."""
    for where in (folder, folder / "artifacts"):
        try:
            if path_kind(where, "a folder") != "folder":
                continue
            names = list_folder(where, "a folder of artifacts")
        except PathError:
            continue
        found = [where / n for n in names if n.endswith(".bin") and looks_like_net(where / n)]
        if found:
            return found
    return []


def _given_net(path: str) -> GivenNet:
    """The first word of the network file at ``path`` and the releases it names."""
    try:
        with open_regular(path, "a network file") as fh:
            head = fh.read(4)
    except OSError:
        head = b""
    word = int.from_bytes(head, "little") if len(head) == 4 else None
    if word is None:
        return GivenNet(None, (), False)
    return GivenNet(word, release_table().of_net_version(word), is_version_word(word))


def _what_file(path: str) -> str:
    """What the file at ``path`` is, told from its first bytes, for one that is neither an io
    descriptor nor a net file: its size, and whether it reads as text."""
    try:
        with open_regular(path, "a file") as fh:
            size = os.fstat(fh.fileno()).st_size
            head = fh.read(4096)
    except (OSError, PathError):
        return "a file that cannot be read"
    try:  # a multi-byte character cut at the end of what was read is text too
        text = b"\0" not in head and bool(codecs.getincrementaldecoder("utf-8")().decode(head, final=size <= len(head)))
    except UnicodeDecodeError:
        text = False
    return f"a {'text' if text else 'binary'} file of {size} byte(s)" if size else "an empty file"


# ---- the sidecars ------------------------------------------------------------------------

def _sidecar(path: Path, parse: Callable[[str, str], _T]) -> tuple[_T | None, FileProblem | None]:
    """The text file at ``path`` parsed by ``parse(text, source)``: None when it is not there,
    or cannot be used (then why)."""
    if not path.is_file():
        return None, None
    try:
        return parse(read_text(path), str(path)), None
    except (TidlIoError, OSError) as exc:
        return None, _problem(exc, path)


def _params(path: Path | None) -> tuple[ModelParams | None, FileProblem | None]:
    if path is None:
        return None, None
    try:
        return load_param_yaml(path), None  # bounded: size, depth, aliases (tidl_io.base.safe_yaml)
    except (TidlIoError, OSError) as exc:
        return None, _problem(exc, path)


def _names_folder(param_file: Path | None, params: ModelParams | None, folder: Path) -> bool | None:
    """Whether param.yaml's ``session.artifacts_folder`` is ``folder`` (None when it names none)."""
    sess = params.raw.get("session") if params is not None and param_file is not None else None
    named = sess.get("artifacts_folder") if isinstance(sess, dict) else None
    if named is None or param_file is None:
        return None
    try:
        return (param_file.parent / str(named)).resolve() == folder.resolve()
    except (OSError, ValueError, RuntimeError):  # a NUL byte or a symlink loop names no folder
        return False
