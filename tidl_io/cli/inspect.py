"""``tidl-io inspect`` and ``tidl-io validate``: io descriptors, nets and artifacts folders as
tables, JSON, HTML and SVG; the validation findings. Argument parsing and printing only.

``inspect`` takes io descriptors (``*_tidl_io_1.bin``), nets (``*_tidl_net.bin``) and artifacts
folders (each subgraph's io descriptor, then its net); a folder without io files shows the
nets in it, or else each subfolder holding artifacts (a folder of models, one level down).
``validate`` finds its io files the same way (:func:`_targets`, on ``tidl_io.artifacts``'s
discovery).

Exit codes (the README's "Exit codes"): 0 every file read and valid, 1 a finding (a file that was
read but is not a valid io descriptor or net of a release tidl-io knows: cut, malformed, an unknown
size or netVersion, a ``layer_info.txt`` of another model), 2 could not do the job (a path that is
missing, cannot be read or holds nothing to read, an output that cannot be written, usage). When
both happen, 2.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TextIO, TypeVar

from ..artifacts.folder import locate_io_files
from ..base.errors import PathNotFoundError, TidlIoError
from ..base.text import escape, escape_lines
from ..iodesc.descriptor import Descriptor, load

if TYPE_CHECKING:
    from ..net import Network

from ..base.atomic import make_output_folder, write_bytes_atomic, write_failure
from ..base.check import list_folder, path_kind
from ..iodesc.format import (
    descriptor_to_dict,
    document,
    dumps_json,
    finding_to_dict,
    format_descriptor,
    format_findings,
)
from ..iodesc.validate import validate
from .codes import EXIT_INVALID, EXIT_OK, EXIT_USAGE, output_path

T = TypeVar("T")


def _targets(path: str, nets: bool = False, notes: list[str] | None = None) -> Iterator[Path]:
    """The files PATH names; for a folder its io files (in onnxrtMetaData.txt's order, as
    doctor and TIDL run them) and, with ``nets``, each one's net after it. What is skipped
    is said in ``notes``. A path that cannot be looked at or listed is a one-line failure."""

    p = Path(path)
    try:
        kind = path_kind(p, "an io descriptor, a net file or an artifacts folder")
    except TidlIoError as exc:
        raise _Fail(str(exc), EXIT_USAGE) from None
    if kind == "folder":  # a folder of io files, or a model folder holding artifacts/ (as Session finds it)
        try:
            folder, files = locate_io_files(p)
        except PathNotFoundError as exc:
            yield from _other_folder(p, exc, nets, notes)
            return
        except (TidlIoError, OSError) as exc:
            raise _Fail(_one_line(exc, str(p)), _code_of(exc)) from None
        from ..artifacts.folder import order_io_files  # start-up

        for io_file in order_io_files(folder, files):
            yield io_file
            if nets:
                from ..artifacts.folder import net_file_of  # start-up

                try:
                    net = net_file_of(io_file)
                except TidlIoError as exc:
                    raise _Fail(str(exc), _code_of(exc)) from None
                if net is not None:
                    yield net
    else:
        yield p


def _other_folder(p: Path, exc: TidlIoError, nets: bool, notes: list[str] | None) -> Iterator[Path]:
    """A folder without io files: with ``nets``, the net files in it; else (or when it holds
    none) each subfolder holding artifacts (one level down: a folder of models), each as a
    folder of its own; neither: the error, which names those subfolders. A subfolder holding
    nets but no io file is skipped with a note."""
    from ..artifacts.folder import artifact_subfolders  # start-up
    from ..net.parse import looks_like_net  # start-up

    try:
        names = list_folder(p, "a folder of artifacts")
    except TidlIoError as err:
        raise _Fail(str(err), EXIT_USAGE) from None
    if nets:
        found = [p / n for n in names if n.endswith(".bin") and looks_like_net(p / n)]
        if found:
            yield from found
            return
    below = artifact_subfolders(p)
    if below and notes is not None:
        for n in names:
            sub = p / n
            if sub in below or not sub.is_dir():
                continue
            if _holds_net(sub):
                notes.append(f"{sub}: skipped: it holds a net file but no io descriptor "
                             f"(tidl-io inspect {sub} shows the net)")
    if below:
        for sub in below:
            yield from _targets(str(sub), nets, notes)
        return
    raise _Fail(str(exc), EXIT_USAGE) from None


def _holds_net(folder: Path) -> bool:
    """Whether ``folder`` (or its artifacts/) holds a net file (names only)."""
    for where in (folder, folder / "artifacts"):
        try:
            if any("tidl_net" in n and n.endswith(".bin") for n in os.listdir(where)):
                return True
        except (OSError, ValueError):
            continue
    return False


def _one_line(exc: BaseException, path: str) -> str:
    if isinstance(exc, TidlIoError):
        return str(exc)
    return f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}"


def _code_of(exc: BaseException) -> int:
    """2 for a path that could not be read (tidl_io's path errors are OSErrors too), 1 for a
    file that was read and is wrong (a format error, an unknown release)."""
    return EXIT_USAGE if isinstance(exc, OSError) or not isinstance(exc, TidlIoError) else EXIT_INVALID


class _Fail(Exception):
    """A one-line failure for stderr, with its exit code (1 a finding, 2 could not read)."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


class _Failure(NamedTuple):
    """A PATH (or a file found in it) that failed: for stderr, ``--json``'s ``errors`` and the exit code."""

    path: str
    message: str
    code: int

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "message": self.message}


def _status(failures: Sequence[_Failure]) -> int:
    """0 without failures, else the worst: 2 (could not read) over 1 (a finding)."""
    return max((f.code for f in failures), default=EXIT_OK)


def _load(path: Path) -> Descriptor:
    return _read(load, path)


def _load_any(path: Path) -> Descriptor | Network:
    """A net file (``*tidl_net*.bin`` or a known netVersion) as a Network, else a descriptor. A
    file not named as a net is read as a descriptor first: the net reader (and its schemas) is
    loaded only for a net, or for a file that is no descriptor."""
    if "tidl_net" not in path.name:
        try:
            return _load(path)
        except _Fail:
            from ..net.parse import looks_like_net  # start-up

            if not looks_like_net(path):
                raise
    from ..net.parse import load_net, looks_like_net  # start-up

    return _read(load_net, path) if looks_like_net(path) else _load(path)


def _read(reader: Callable[[Path], T], path: Path) -> T:
    """``reader(path)``, its failure as one line. tidl_io's path errors are OSErrors too and say
    what they are themselves ("cannot open: Permission denied; expected ..."); only a bare
    OSError gets "cannot read"."""
    try:
        return reader(path)
    except FileNotFoundError:
        raise _Fail(f"{path}: no such file", EXIT_USAGE) from None
    except IsADirectoryError:
        raise _Fail(f"{path}: is a folder", EXIT_USAGE) from None
    except TidlIoError as exc:
        raise _Fail(str(exc), _code_of(exc)) from None
    except OSError as exc:
        raise _Fail(f"{path}: cannot read: {exc.strerror or exc}", EXIT_USAGE) from None


def _fail(failures: list[_Failure], err: TextIO, path: str, message: str, code: int) -> None:
    failures.append(_Failure(path, message, code))
    print(f"tidl-io: error: {escape(message)}", file=err)


def _each(paths: Sequence[str], failures: list[_Failure], err: TextIO, load: Callable[[Path], T],
          nets: bool) -> Iterator[tuple[Path, T]]:
    """``load`` of each file the PATH arguments name (files; folders: each io file, then its net
    when ``nets``), in order. A file or folder that fails is reported on ``err`` in one line,
    appended to ``failures`` and skipped."""
    for path in paths:
        notes: list[str] = []
        try:
            for target in _targets(path, nets=nets, notes=notes):
                try:
                    item = load(target)
                except _Fail as exc:
                    _fail(failures, err, str(target), str(exc), exc.code)
                    continue
                yield target, item
        except _Fail as exc:
            _fail(failures, err, path, str(exc), exc.code)
        for note in notes:
            print(f"tidl-io: note: {escape(note)}", file=err)


def _items(paths: Sequence[str], failures: list[_Failure], err: TextIO) -> Iterator[tuple[Path, Descriptor | Network]]:
    """Each descriptor and net of the PATH arguments, in order (see :func:`_each`)."""
    return _each(paths, failures, err, _load_any, nets=True)


def _descriptors(paths: Sequence[str], failures: list[_Failure], err: TextIO) -> Iterator[tuple[Path, Descriptor]]:
    """Each descriptor of the PATH arguments (files, artifacts folders), in order (see :func:`_each`)."""
    return _each(paths, failures, err, _load, nets=False)


def _cmd_inspect(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.html or args.svg:
        return _cmd_pictures(args, out, err)
    if args.output is not None:
        print("tidl-io: error: -o/--output goes with --html or --svg", file=err)
        return EXIT_USAGE
    items, nets, texts = [], [], []
    failures: list[_Failure] = []
    cut = False  # a descriptor's name was cut (a net's text says so itself)
    for target, item in _items(args.paths, failures, err):
        if isinstance(item, Descriptor):
            if args.json:
                items.append(descriptor_to_dict(item, str(target)))
            else:
                texts.append(format_descriptor(item, escape(str(target)), physical=args.physical, wide=args.wide))
                cut = cut or any(len(t.name) > 40 for t in item.inputs + item.outputs)
            continue
        from ..net.format import format_net, net_to_dict  # start-up

        if item.layer_info_error is not None:  # names from all of the file or none: say why none
            _fail(failures, err, str(target), item.layer_info_error, EXIT_INVALID)
        if args.json:
            nets.append(net_to_dict(item, str(target)))
        else:
            texts.append(format_net(item, escape(str(target)), physical=args.physical, wide=args.wide))
    status = _status(failures)
    if args.json:
        out.write(dumps_json(_json_document(args.paths, items, nets, failures)) + "\n")
    elif texts:
        out.write(escape_lines("\n\n".join(texts)) + "\n")
        if not args.wide and cut:
            print("tidl-io: note: names are cut to 40 characters in the tables; --wide shows them whole", file=err)
    return status


def _json_document(paths: Sequence[str], items: list[dict[str, Any]], nets: list[dict[str, Any]],
                   failures: Sequence[_Failure]) -> dict[str, Any]:
    """``inspect --json``'s document. One PATH naming a net file that was read: the net's own
    object (``net_version``, ``release``, ``layers[]``, ...) with ``schema_version``. Anything
    else (io files, folders, several paths, a file that failed): ``{"schema_version",
    "descriptors": [...], "nets": [...]}``, both arrays always present. Both end with
    ``errors``: each PATH or file that failed, ``{"path", "message"}`` (empty when none did)."""

    errors = [f.to_dict() for f in failures]
    if len(paths) == 1 and nets and not items and not Path(paths[0]).is_dir():
        (net,) = nets
        return {"schema_version": document([])["schema_version"], **net, "errors": errors}
    doc = document(items)
    doc["nets"] = nets
    doc["errors"] = errors
    return doc


def _cmd_pictures(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``inspect --html`` (one page, to -o or stdout) and ``--svg`` (one file per tensor in -o)."""

    if args.json:
        print("tidl-io: error: --json and --html/--svg exclude each other", file=err)
        return EXIT_USAGE
    if args.svg and args.output is None:
        print("tidl-io: error: --svg needs -o FOLDER (one .svg per tensor is written there)", file=err)
        return EXIT_USAGE
    errors: list[_Failure] = []
    items = [(str(target), item) for target, item in _items(args.paths, errors, err)]
    status = _status(errors)
    dest = args.output
    if not items and dest not in (None, "-"):  # nothing to show: no error-only page, no empty folder
        print(f"tidl-io: error: no descriptor could be read; nothing written to {escape(dest)}", file=err)
        return status
    try:
        if args.html:
            from .html import render_html  # start-up

            page = render_html(items, [f.message for f in errors])
            if dest is None or dest == "-":
                out.write(page)
            else:
                write_bytes_atomic(dest, page.encode("utf-8"))
        else:
            from ..iodesc.picture import svg_files  # start-up
            from ..net.graph import net_svg_files  # start-up

            folder = make_output_folder(dest, "a folder for the .svg files (--svg -o FOLDER)")
            files = svg_files((p, d) for p, d in items if isinstance(d, Descriptor))
            files += net_svg_files((p, n) for p, n in items if not isinstance(n, Descriptor))
            for name, svg in files:
                dest = str(folder / name)
                write_bytes_atomic(dest, svg.encode("utf-8"))
            print(f"{len(files)} picture(s) written to {folder}", file=out)
    except OSError as exc:
        print(f"tidl-io: error: {escape(write_failure(exc, str(dest)))}", file=err)
        return EXIT_USAGE
    return status


def _cmd_validate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:

    failures: list[_Failure] = []
    items = []

    def failed(path: str, exc: _Fail) -> None:
        failures.append(_Failure(path, str(exc), exc.code))
        if exc.code == EXIT_USAGE:  # could not read it: stderr says so, as every command does
            print(f"tidl-io: error: {escape(str(exc))}", file=err)
        items.append({"path": path, "valid": False, "layout": None,
                      "findings": [{"level": "error", "message": str(exc), "field": None, "tensor": None,
                                    "offset": getattr(exc.__context__, "offset", None)}]})
        if not args.json:
            verdict = "invalid (cannot parse)" if exc.code == EXIT_INVALID else "not checked (cannot read)"
            print(f"{escape(path)}: {verdict}\n"
                  f"  error: {escape(str(exc))}", file=out)

    for path in args.paths:
        notes: list[str] = []
        try:
            targets = list(_targets(path, notes=notes))
        except _Fail as exc:
            failed(path, exc)
            targets = []
        for note in notes:
            print(f"tidl-io: note: {escape(note)}", file=err)
        for target in targets:
            try:
                desc = _load(target)
            except _Fail as exc:
                failed(str(target), exc)
                continue
            findings = validate(desc)
            entry = {"path": str(target), "valid": not any(f.level == "error" for f in findings),
                     "layout": desc.layout.key,
                     "findings": [finding_to_dict(f) for f in findings] if args.json else []}
            if not entry["valid"]:
                failures.append(_Failure(str(target), "invalid", EXIT_INVALID))
            items.append(entry)
            if not args.json:  # only what is printed
                print(escape_lines(format_findings(escape(str(target)), findings)), file=out)
    if args.json:
        out.write(dumps_json(document(items, key="files")) + "\n")
    return _status(failures)


def add_commands(sub: argparse._SubParsersAction) -> None:
    """``inspect`` and ``validate``."""
    p = sub.add_parser("inspect", help="show tensors: logical view, or --physical buffer layout; a net's layers",
                       description="Show each tensor of descriptor files: name, dtype, shape, layout and "
                                   "quantization; --physical adds pads, pitches, offsets and buffer sizes. For a "
                                   "net file (*_tidl_net.bin): its TIDL release and each layer in execution order "
                                   "(type, name, inputs, dataId, element type, shape, scale, zero point, pads). "
                                   "A folder shows each subgraph's io descriptor and net.")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="an io_1.bin file, a tidl_net.bin file or an artifacts folder")
    p.add_argument("--json", action="store_true", help="machine-readable output with every raw TI field")
    p.add_argument("--physical", action="store_true", help="add the physical buffer view to the table")
    p.add_argument("--wide", action="store_true", help="names whole (the table cuts them to 40 characters)")
    pictures = p.add_mutually_exclusive_group()
    pictures.add_argument("--html", action="store_true",
                          help="one self-contained HTML page: the tables and a picture of every tensor's buffer "
                               "and of every net's layer graph (to -o FILE, else stdout)")
    pictures.add_argument("--svg", action="store_true",
                          help="only the pictures: one .svg per tensor into the folder -o FOLDER")
    p.add_argument("-o", "--output", metavar="OUT", type=output_path, help="where --html / --svg write (atomically)")
    p.set_defaults(run=_cmd_inspect)

    v = sub.add_parser("validate", help="check descriptors for values TIDL-RT rejects or gets wrong",
                       description="Report errors and warnings, each with its tensor, TI field and byte "
                                   "offset. Exit 1 when any file has an error.")
    v.add_argument("paths", nargs="+", metavar="PATH", help="an io_1.bin file or an artifacts folder")
    v.add_argument("--json", action="store_true", help="machine-readable findings")
    v.set_defaults(run=_cmd_validate)

