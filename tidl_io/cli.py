"""``tidl-io`` command line: ``inspect``, ``validate``, ``demo``, ``run``, ``info``, ``doctor``, ``golden`` and
``compare`` (the last two in :mod:`tidl_io.trace.commands`). No logic lives here.

``inspect`` takes io descriptors (``*_tidl_io_1.bin``), nets (``*_tidl_net.bin``) and artifacts
folders (each subgraph's io descriptor, then its net); a folder without io files shows the
nets in it, or else each subfolder holding artifacts (a folder of models, one level down).

Exit codes: 0 ok, 1 invalid or unsupported file, 2 usage error. Diagnostics go to stderr
in one line, without a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from . import __version__
from ._errors import PathNotFoundError, TidlIoError
from ._text import escape, escape_lines
from .descriptor import Descriptor, load, locate_io_files

if TYPE_CHECKING:
    from .net import Network

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2
T = TypeVar("T")



def _targets(path: str, nets: bool = False, notes: list[str] | None = None) -> Iterator[Path]:
    """The files PATH names; for a folder its io files (in onnxrtMetaData.txt's order, as
    doctor and TIDL run them) and, with ``nets``, each one's net after it. What is skipped
    is said in ``notes``. A path that cannot be looked at or listed is a one-line failure."""
    from ._check import path_kind

    p = Path(path)
    try:
        kind = path_kind(p, "an io descriptor, a net file or an artifacts folder")
    except TidlIoError as exc:
        raise _Fail(str(exc)) from None
    if kind == "folder":  # a folder of io files, or a model folder holding artifacts/ (as Session finds it)
        try:
            folder, files = locate_io_files(p)
        except PathNotFoundError as exc:
            yield from _other_folder(p, exc, nets, notes)
            return
        except (TidlIoError, OSError) as exc:
            raise _Fail(_one_line(exc, str(p))) from None
        from .artifacts import order_io_files

        for io_file in order_io_files(folder, files):
            yield io_file
            if nets:
                from .artifacts import _net_file

                try:
                    net = _net_file(io_file)
                except TidlIoError as exc:
                    raise _Fail(str(exc)) from None
                if net is not None:
                    yield net
    else:
        yield p


def _other_folder(p: Path, exc: TidlIoError, nets: bool, notes: list[str] | None) -> Iterator[Path]:
    """A folder without io files: with ``nets``, the net files in it, else each subfolder
    holding artifacts (one level down: a folder of models), each as a folder of its own;
    neither: the error, which names those subfolders. A subfolder holding nets but no io
    file is skipped with a note."""
    from ._check import list_folder
    from .artifacts import artifact_subfolders
    from .net._parse import looks_like_net

    if nets:
        try:
            names = list_folder(p, "a folder of artifacts")
        except TidlIoError as err:
            raise _Fail(str(err)) from None
        found = [p / n for n in names if n.endswith(".bin") and looks_like_net(p / n)]
        if found:
            yield from found
            return
        below = artifact_subfolders(p)
        if notes is not None:
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
    raise _Fail(str(exc)) from None


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


class _Fail(Exception):
    """A one-line failure for stderr."""


def _load(path: Path) -> Descriptor:
    return _read(load, path)


def _load_any(path: Path) -> Descriptor | Network:
    """A net file (``*tidl_net*.bin`` or a known netVersion) as a Network, else a descriptor."""
    from .net._parse import load_net, looks_like_net

    return _read(load_net, path) if looks_like_net(path) else _load(path)


def _read(reader: Callable[[Path], T], path: Path) -> T:
    """``reader(path)``, its failure as one line. tidl_io's path errors are OSErrors too and say
    what they are themselves ("cannot open: Permission denied; expected ..."); only a bare
    OSError gets "cannot read"."""
    try:
        return reader(path)
    except FileNotFoundError:
        raise _Fail(f"{path}: no such file") from None
    except IsADirectoryError:
        raise _Fail(f"{path}: is a folder") from None
    except TidlIoError as exc:
        raise _Fail(str(exc)) from None
    except OSError as exc:
        raise _Fail(f"{path}: cannot read: {exc.strerror or exc}") from None


def _each(paths: Sequence[str], failures: list[str], err: TextIO, load: Callable[[Path], T],
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
                    failures.append(str(exc))
                    print(f"tidl-io: error: {escape(str(exc))}", file=err)
                    continue
                yield target, item
        except _Fail as exc:
            failures.append(str(exc))
            print(f"tidl-io: error: {escape(str(exc))}", file=err)
        for note in notes:
            print(f"tidl-io: note: {escape(note)}", file=err)


def _items(paths: Sequence[str], failures: list[str], err: TextIO) -> Iterator[tuple[Path, Descriptor | Network]]:
    """Each descriptor and net of the PATH arguments, in order (see :func:`_each`)."""
    return _each(paths, failures, err, _load_any, nets=True)


def _descriptors(paths: Sequence[str], failures: list[str], err: TextIO) -> Iterator[tuple[Path, Descriptor]]:
    """Each descriptor of the PATH arguments (files, artifacts folders), in order (see :func:`_each`)."""
    return _each(paths, failures, err, _load, nets=False)


def _cmd_inspect(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.html or args.svg:
        return _cmd_pictures(args, out, err)
    if args.output is not None:
        print("tidl-io: error: -o/--output goes with --html or --svg", file=err)
        return EXIT_USAGE
    from ._format import descriptor_to_dict, dumps_json, format_descriptor
    from .net._format import format_net, net_to_dict

    items, nets, texts = [], [], []
    failures: list[str] = []
    cut = False  # a descriptor's name was cut (a net's text says so itself)
    for target, item in _items(args.paths, failures, err):
        if isinstance(item, Descriptor):
            if args.json:
                items.append(descriptor_to_dict(item, str(target)))
            else:
                texts.append(format_descriptor(item, escape(str(target)), physical=args.physical, wide=args.wide))
                cut = cut or any(len(t.name) > 40 for t in item.inputs + item.outputs)
            continue
        if item.layer_info_error is not None:  # names from all of the file or none: say why none
            failures.append(item.layer_info_error)
            print(f"tidl-io: error: {escape(item.layer_info_error)}", file=err)
        if args.json:
            nets.append(net_to_dict(item, str(target)))
        else:
            texts.append(format_net(item, escape(str(target)), physical=args.physical, wide=args.wide))
    status = EXIT_INVALID if failures else EXIT_OK
    if args.json:
        out.write(dumps_json(_json_document(args.paths, items, nets)) + "\n")
    elif texts:
        out.write(escape_lines("\n\n".join(texts)) + "\n")
        if not args.wide and cut:
            print("tidl-io: note: names are cut to 40 characters in the tables; --wide shows them whole", file=err)
    return status


def _json_document(paths: Sequence[str], items: list[dict[str, Any]], nets: list[dict[str, Any]]) -> dict[str, Any]:
    """``inspect --json``'s document. One PATH naming a net file that was read: the net's own
    object (``net_version``, ``release``, ``layers[]``, ...) with ``schema_version``. Anything
    else (io files, folders, several paths, a file that failed): ``{"schema_version",
    "descriptors": [...], "nets": [...]}``, both arrays always present."""
    from ._format import document

    if len(paths) == 1 and nets and not items and not Path(paths[0]).is_dir():
        (net,) = nets
        return {"schema_version": document([])["schema_version"], **net}
    doc = document(items)
    doc["nets"] = nets
    return doc


def _cmd_pictures(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``inspect --html`` (one page, to -o or stdout) and ``--svg`` (one file per tensor in -o)."""
    from ._atomic import write_bytes_atomic

    if args.json:
        print("tidl-io: error: --json and --html/--svg exclude each other", file=err)
        return EXIT_USAGE
    if args.svg and args.output is None:
        print("tidl-io: error: --svg needs -o FOLDER (one .svg per tensor is written there)", file=err)
        return EXIT_USAGE
    errors: list[str] = []
    items = [(str(target), item) for target, item in _items(args.paths, errors, err)]
    status = EXIT_INVALID if errors else EXIT_OK
    dest = args.output
    if not items and dest not in (None, "-"):  # nothing to show: no error-only page, no empty folder
        print(f"tidl-io: error: no descriptor could be read; nothing written to {dest}", file=err)
        return EXIT_INVALID
    try:
        if args.html:
            from ._html import render_html

            page = render_html(items, errors)
            if dest is None or dest == "-":
                out.write(page)
            else:
                write_bytes_atomic(dest, page.encode("utf-8"))
        else:
            from .net._graph import net_svg_files
            from .picture import svg_files

            folder = Path(dest)
            folder.mkdir(parents=True, exist_ok=True)
            files = svg_files((p, d) for p, d in items if isinstance(d, Descriptor))
            files += net_svg_files((p, n) for p, n in items if not isinstance(n, Descriptor))
            for name, svg in files:
                dest = str(folder / name)
                write_bytes_atomic(dest, svg.encode("utf-8"))
            print(f"{len(files)} picture(s) written to {folder}", file=out)
    except OSError as exc:
        print(f"tidl-io: error: {dest}: cannot write: {exc.strerror or exc}", file=err)
        return EXIT_INVALID
    return status


def _cmd_validate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ._format import document, dumps_json, finding_to_dict, format_findings
    from .validate import validate

    status = EXIT_OK
    items = []
    for path in args.paths:
        try:
            targets = list(_targets(path))
        except _Fail as exc:
            print(f"tidl-io: error: {escape(str(exc))}", file=err)
            status = EXIT_INVALID
            continue
        for target in targets:
            try:
                desc = _load(target)
                findings = validate(desc)
                entry = {"path": str(target), "valid": not any(f.level == "error" for f in findings),
                         "layout": desc.layout.key,
                         "findings": [finding_to_dict(f) for f in findings] if args.json else []}
                text = "" if args.json else format_findings(escape(str(target)), findings)  # only what is printed
            except _Fail as exc:
                entry = {"path": str(target), "valid": False, "layout": None,
                         "findings": [{"level": "error", "message": str(exc), "field": None, "tensor": None,
                                       "offset": getattr(exc.__context__, "offset", None)}]}
                text = f"{escape(str(target))}: invalid (cannot parse)\n  error: {escape(str(exc))}"
            if not entry["valid"]:
                status = EXIT_INVALID
            items.append(entry)
            if not args.json:
                print(escape_lines(text), file=out)
    if args.json:
        out.write(dumps_json(document(items, key="files")) + "\n")
    return status


def _cmd_demo(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .demo import run_demo

    return int(run_demo(out=out))


def _cmd_run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ._format import dumps_json
    from .runner import format_run, load_inputs, run_model, run_to_dict
    from .session import find_artifacts

    runtime: object = args.runtime
    if args.trace and args.runtime == "mock":
        print("tidl-io: error: --trace is for TIDL-RT; the mock has no traces", file=err)
        return EXIT_USAGE
    if args.trace:
        import functools

        from .runtime.tidlrt import TidlRtRuntime

        runtime = functools.partial(TidlRtRuntime, trace_log_level=2, trace_write_level=1)
    try:
        find_artifacts(args.path)
    except FileNotFoundError as exc:
        print(f"tidl-io: error: {escape(str(exc))}", file=err)
        return EXIT_INVALID
    names: tuple[str, ...] = ()
    if args.input:
        from .session import Session

        with Session(args.path, runtime="mock") as probe:  # names only: no device is touched
            names = probe.input_names
    result = run_model(args.path, runtime=runtime, inputs=load_inputs(args.input or [], names), repeat=args.repeat,
                       isolate=True)  # TIDL-RT's first create in a child process: a crash there is an error
    out.write((dumps_json(run_to_dict(result)) if args.json else escape_lines(format_run(result))) + "\n")
    return EXIT_OK


def _cmd_info(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .info import collect, format_info

    out.write(escape_lines(format_info(collect())) + "\n")
    return EXIT_OK


def _count(text: str) -> int:
    """An argparse type: a whole number >= 1 (argparse names the option and exits 2 otherwise)."""
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, found {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, found {value}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tidl-io",
        description="Inspect and check TIDL I/O buffer descriptors (*_tidl_io_1.bin).",
    )
    parser.add_argument("--version", action="version", version=f"tidl-io {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

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
    p.add_argument("-o", "--output", metavar="OUT", help="where --html / --svg write (atomically)")
    p.set_defaults(run=_cmd_inspect)

    v = sub.add_parser("validate", help="check descriptors for values TIDL-RT rejects or gets wrong",
                       description="Report errors and warnings, each with its tensor, TI field and byte "
                                   "offset. Exit 1 when any file has an error.")
    v.add_argument("paths", nargs="+", metavar="PATH", help="an io_1.bin file or an artifacts folder")
    v.add_argument("--json", action="store_true", help="machine-readable findings")
    v.set_defaults(run=_cmd_validate)

    d = sub.add_parser("demo", help="run the bundled example end to end on the mock C7x runtime",
                       description="Preprocess a generated image, pack it into TIDL's padded buffer, invoke "
                                   "the mock runtime, unpack and parse detections, explaining each step.")
    d.set_defaults(run=_cmd_demo)

    r = sub.add_parser("run", help="run a compiled model N times and time each stage",
                       description="Run an artifacts folder on TI's TIDL-RT (board or PC emulation) or the host "
                                   "mock: per stage (pack, copy-in, device, copy-out, runtime, unpack) min/median/"
                                   "max over N runs, zero copy or not per tensor, an output summary. Inputs not "
                                   "given are random values of each input's range.")
    r.add_argument("path", metavar="PATH", help="an artifacts folder, a model folder holding artifacts/, or an io file")
    r.add_argument("--runtime", choices=("auto", "tidlrt", "mock"), default="auto",
                   help="auto (default): TIDL-RT when its library loads and can run here (its first create is "
                        "tried in a child process), else the mock")
    r.add_argument("--input", action="append", metavar="NAME=FILE.npy", help="an input array (repeatable)")
    r.add_argument("--repeat", type=_count, default=10, metavar="N", help="timed runs after one warm-up (default 10)")
    r.add_argument("--json", action="store_true", help="machine-readable timings (seconds) and summary")
    r.add_argument("--trace", action="store_true", help="TIDL-RT with trace_log_level 2 and trace_write_level 1")
    r.set_defaults(run=_cmd_run)

    i = sub.add_parser("info", help="what this machine has: TIDL-RT library, layout, shared memory, NumPy",
                       description="Report the TIDL-RT library (found or not, where), its layout and release, "
                                   "whether its shared memory works, and the Python and NumPy versions.")
    i.set_defaults(run=_cmd_info)
    from .cli_doctor import add_commands as add_doctor  # doctor (tidl_io.diagnose)

    add_doctor(sub)

    from .trace.commands import add_commands  # golden, compare (their imports happen when they run)

    add_commands(sub)
    from . import cli_precision, cli_support  # why, quant (their imports happen when they run)

    cli_support.add_commands(sub)
    cli_precision.add_commands(sub)
    from .cli_perf import add_commands as add_perf  # perf (its imports happen when it runs)
    add_perf(sub)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run the command line; returns the exit code."""
    if out is None:
        out = sys.stdout
        # names can hold any character: never die on a terminal or pipe that cannot show one
        reconfigure = getattr(out, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    err = err or sys.stderr
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: 0 for --help/--version, 2 for usage errors
        return int(exc.code or 0)
    try:
        return int(args.run(args, out, err))
    except BrokenPipeError:  # e.g. piped into head: not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except TidlIoError as exc:
        print(f"tidl-io: error: {escape(str(exc))}", file=err)
        return EXIT_INVALID


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
