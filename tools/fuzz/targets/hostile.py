"""Target ``hostile``: the text files and names a user's folder can hold, instead of a
descriptor, on one input in 16 (index % 16 == 9: odd, so never one the cli target selects with
an even ``--cli-every``, and not the net target's 3).

Each input is one of (drawn from ``rng``, so ``(seed, index)`` reproduces it):

- a ``layer_info.txt`` beside a built 9-layer net: lines with ``²`` or other non-ASCII digits,
  ids of up to 5 000 digits, control characters in names, too many lines, lines of 10 KB,
  random bytes; ``load_net`` must name every layer or none (``layer_info_error``);
- a ``param.yaml``: nesting up to 6 000 deep, alias bombs, byte mutations of a real one;
  ``load_param_yaml`` (and one time in four ``diagnose`` of a folder holding it);
- an ``--explain`` text: digits of every script, signs, up to 6 000 digits; ``parse_explain``
  gives a number in 0..2**31-1 or an OptionError;
- a path: names over NAME_MAX, paths over PATH_MAX, control characters; ``diagnose`` raises a
  located PathError (it cannot check a path that is not there: a library error, never a
  report), ``load_traces`` / ``load_net`` / ``load_calibration`` raise a TidlIoError, and
  ``tidl-io doctor`` / ``inspect`` exit 0..2 with no traceback and no control character in
  their output. ``diagnose`` of a folder holding a hostile param.yaml may raise only what the
  folder reader says it cannot check (:attr:`ArtifactsFolder.checkable`).
"""

from __future__ import annotations

import functools
import io
import itertools
import random
from pathlib import Path
from typing import Any

from ..checker import Checker, Unexpected
from ..corpus import EXAMPLES, ROOT
from ..inputs import FuzzInput

NAME = "hostile"
STAGE = "bytes"
_NET = "h_tidl_net.bin"
_DIGITS = "0123456789²³¹٠١٢٣߀०१۲๓๔༡၁႐០᠑᥆᧑᪑᭑᮱᱁᱑꘠꣐꤁꧐꩐꯰０１"  # str.isdigit() says yes to all of these
_CONTROL = "\x1b[2J\x07\n\t\r\x00\x9b\u2028\x7f"


def selects(checker: Checker, index: int) -> bool:
    return index % 16 == 9  # odd, and no other raw-bytes target takes 9 mod 16


@functools.cache
def _net_bytes() -> bytes:
    from tidl_io.net.build import build_net

    from .net import _layers, _sizes

    return build_net(0x20250821, _layers(0x20250821), cores=1, section_sizes=_sizes(0x20250821))


def _real_param() -> bytes:
    path = ROOT.parent / "shared" / "realdata" / "net" / "od-8220-yolox-10.0" / "param.yaml"
    try:
        return path.read_bytes()
    except OSError:
        return (EXAMPLES / "param.yaml").read_bytes()


def _number(rng: random.Random) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        return str(rng.randrange(0, 12))
    if kind == 1:
        return "".join(rng.choice(_DIGITS) for _ in range(rng.randrange(1, 6)))
    if kind == 2:
        return rng.choice("-+") + str(rng.randrange(0, 10))
    return "9" * rng.choice((11, 4300, 4301, 5000))


def _layer_info(rng: random.Random) -> str:
    lines = [f"{i} {i if i < 4 else 0} n{i}" for i in range(4)]  # the built net: 4 layers, the last an output
    for _ in range(rng.randrange(1, 4)):
        kind = rng.randrange(6)
        k = rng.randrange(len(lines) + 1)
        if kind == 0:
            lines.insert(k, f"{_number(rng)} {_number(rng)} x")
        elif kind == 1:
            lines.insert(k, f"{k} {k} " + "".join(rng.choice(_CONTROL + "ab") for _ in range(8)))
        elif kind == 2:
            lines += [f"{i} {i} extra" for i in range(rng.choice((1, 100, 20_000)))]
        elif kind == 3:
            lines.insert(k, f"{k} {k} " + "y" * rng.choice((100, 9000, 100_000)))
        elif kind == 4:
            lines.insert(k, "".join(chr(rng.randrange(0, 0x3000)) for _ in range(rng.randrange(1, 40))))
        elif lines:
            del lines[rng.randrange(len(lines)):]
    return "\n".join(lines) + "\n"


def _param_yaml(rng: random.Random) -> bytes:
    kind = rng.randrange(4)
    if kind == 0:
        depth = rng.choice((10, 63, 65, 1000, 6000))
        return ("session: " + "[" * depth + "]" * depth + "\n").encode()
    if kind == 1:
        width, levels = rng.randrange(2, 12), rng.randrange(2, 12)
        names = [f"a{i}" for i in range(levels)]
        text = f"{names[0]}: &{names[0]} [" + ", ".join(["lol"] * width) + "]\n"
        for p, k in itertools.pairwise(names):
            text += f"{k}: &{k} [" + ", ".join([f"*{p}"] * width) + "]\n"
        return (text + f"session:\n  input_mean: *{names[-1]}\n").encode()
    data = bytearray(_real_param())
    for _ in range(rng.randrange(1, 8)):
        data[rng.randrange(len(data))] = rng.choice(b"[]{}&*!:-'\"\n #|>%@`\x00\xff")
    if kind == 3:
        data += b"k: " + b"x" * rng.choice((10, 2_000_000))
    return bytes(data)


def _path(base: Path, rng: random.Random) -> Path:
    kind = rng.randrange(4)
    if kind == 0:
        return base / ("a" * rng.choice((255, 256, 300, 5000)))
    if kind == 1:
        return base / "/".join(["b" * 200] * rng.choice((10, 21, 40)))
    if kind == 2:
        return base / ("x" + "".join(rng.choice(_CONTROL.replace("\x00", "")) for _ in range(6)))
    return base / ("c" * 300) / "h_tidl_io_1.bin"


def run(checker: Checker, index: int, item: FuzzInput, desc: Any, rng: random.Random) -> None:
    import tidl_io
    from tidl_io.base.atomic import write_bytes_atomic

    base = Path(checker.scratch) / f"hostile{index % 4}"
    base.mkdir(exist_ok=True)
    kind = rng.randrange(4)
    if kind == 0:
        path = base / _NET
        write_bytes_atomic(path, _net_bytes())
        (base / (_NET + ".layer_info.txt")).write_bytes(_layer_info(rng).encode("utf-8", "surrogatepass"))

        def names() -> None:
            net = tidl_io.load_net(path)
            named = [la.name is not None for la in net.layers]
            if net.layer_info_error is not None and any(named):
                raise Unexpected("names used from a layer_info.txt that was not")
            if net.layer_info_error is None and net.layer_info is not None and not all(named):
                raise Unexpected("a layer_info.txt used for some layers only")

        checker.op(index, "hostile layer_info", names, (str(path),))
    elif kind == 1:
        from tidl_io.artifacts.folder import load_param_yaml

        folder = base / "model"
        if not folder.is_dir():
            import shutil

            shutil.copytree(EXAMPLES, folder)
        write_bytes_atomic(folder / "param.yaml", _param_yaml(rng))
        checker.op(index, "hostile param.yaml", lambda: load_param_yaml(folder / "param.yaml"),
                    (str(folder / "param.yaml"),))
        if index % 64 == 9:  # one hostile input in four
            checker.op(index, "hostile doctor param.yaml", lambda: _doctor(str(folder)), (str(folder),))
            checker.op(index, "hostile diagnose param.yaml", lambda: _diagnose(folder), (str(folder),))
    elif kind == 2:
        from tidl_io.doctor.checks import parse_explain

        text = rng.choice(("Tensor ", "Layer ", "dataId ", "DIM Error - For Tensor ", "")) + _number(rng)

        def explain() -> None:
            what, number = parse_explain(text)
            if not 0 <= number <= 2**31 - 1 or not text.strip():
                raise Unexpected(f"parse_explain({text[:40]!r}) gave {what} {number}")

        checker.op(index, "hostile explain", explain, ("--explain",))
    else:
        path = _path(base, rng)
        where = (str(path)[:60], "path")

        def paths() -> None:
            _doctor(str(path))
            _inspect(str(path))
            try:
                tidl_io.diagnose(path, check_library=False)
            except tidl_io.PathError:
                raise  # the library error it must be: the checker asks that it names the path
            except tidl_io.TidlIoError as exc:
                raise Unexpected(f"diagnose raised {type(exc).__name__}, not a PathError, for a path that is not "
                                 f"there") from exc
            raise Unexpected("diagnose returned a report for a path that is not there")

        # PathError names a path with control characters as repr() does
        checker.op(index, "hostile path diagnose", paths, (*where, repr(str(path))[:60]))
        checker.op(index, "hostile path load_traces",
                    lambda: tidl_io.load_traces(path, tidl_io.load_net(EXAMPLES /
                                                                       "detector_tidl_net.bin")), where)
        checker.op(index, "hostile path load_calibration", lambda: tidl_io.load_calibration(path), where)


def _diagnose(folder: Path) -> None:
    """``diagnose`` raises only when the folder reader says there is nothing to check: findings stay findings."""
    import tidl_io
    from tidl_io.artifacts.reader import read_artifacts_folder

    try:
        tidl_io.diagnose(folder, check_library=False)
    except tidl_io.TidlIoError as exc:
        if read_artifacts_folder(folder).checkable:
            raise Unexpected(f"diagnose raised {type(exc).__name__} for a folder it can check: {exc}") from exc
        raise


def _doctor(path: str) -> None:
    from tidl_io.cli.app import main

    out, err = io.StringIO(), io.StringIO()
    code = main(["doctor", "--no-library", path], out=out, err=err)
    if code not in (0, 1, 2) or "Traceback" in out.getvalue() + err.getvalue():
        raise Unexpected(f"tidl-io doctor exited {code} or printed a traceback")
    text = (out.getvalue() + err.getvalue()).replace("\n", "")  # exit 2 says why on stderr
    if any(not c.isprintable() for c in text):
        raise Unexpected("tidl-io doctor printed a control character")


def _inspect(path: str) -> None:
    from tidl_io.cli.app import main

    out, err = io.StringIO(), io.StringIO()
    code = main(["inspect", path], out=out, err=err)
    if code not in (0, 1, 2) or "Traceback" in err.getvalue():  # 2: a path that cannot be read
        raise Unexpected(f"tidl-io inspect exited {code} or printed a traceback")
    if any(not c.isprintable() for c in (out.getvalue() + err.getvalue()).replace("\n", "")):
        raise Unexpected("tidl-io inspect printed a control character")
