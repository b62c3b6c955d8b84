"""What the targets of TI's text logs share (``perf_simulation``, ``perf_bufinfo``, ``perf_board``,
``net_netlog``, ``net_layerinfo``): their seed texts and the text mutations. Not a target itself.

Seeds: TI's real files in ``../shared/realdata/net`` (when present), the bundled example's
``tempDir`` and small built-in texts in TI's layouts (so a run without the real corpus still
has a seed of each kind). Mutations, 0..4 per input, all derived from ``rng``: a byte changed,
a cut at any byte (the same text cut mid-line or at a line end), a line dropped, repeated or
swapped with another, a field (between commas or bars) replaced by an extreme value (huge,
negative, NaN, inf, hex, empty, non-ASCII), bytes that are not UTF-8, and the text extended.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any

from ..checker import Checker
from ..corpus import EXAMPLES, ROOT

_EXTREMES = ("", " ", "-1", "0", "nan", "inf", "-inf", "1e308", "99999999999999999999999", "0x10", "ffffffff",
             "NONE", "é", "1.5", "--", "|", ",", "=", "\x00", "18446744073709551616", "65536", "-9223372036854775809")

_BOARD = ("             Layer,      Layer Cycles,  kernelOnlyCycles,    coreLoopCycles,  LayerSetupCycles,"
          "   dmaPipeupCycles,  DDRBWReadInBytes, DDRBWWriteInBytes,\n"
          "                 1,            150625,             41000,            130000,              8125,"
          "             12500,            262144,             52428,\n"
          "                 2,            300250,            285000,            285000,              5000,"
          "             10250,             10240,                 0,\n"
          " Sum of Layer Cycles 450875 \n")
_NETLOG = ("Num of Layer Detected :   2 \n" + "-" * 60 + "\n"
           "  Num|TIDL Layer Name               |Out Data Name |Group |#Ins  |#Outs |Inbuf Ids |Outbuf Id |In NCHW "
           "|Out NCHW |MACS       |\n" + "-" * 60 + "\n"
           "    0|TIDL_DataLayer                |image |     0|    -1|     1|  x   x |  0       |  0 0 0 0 "
           "|  1 3 8 8 |         0 |\n"
           "    1|TIDL_ConvolutionLayer         |conv1 |     0|     1|     1|  0   x |  1       |  1 3 8 8 "
           "|  1 4 8 8 |      6912 |\n" + "-" * 60 + "\nTotal Giga Macs : 0.0000\n" + "-" * 60 + "\n")

_LAYER_INFO = "0 0 image \n1 1 conv1 \n2 2 conv2 \n3 0 image \n"


@functools.cache
def seeds(kind: str) -> tuple[tuple[str, str], ...]:
    """(name, text) seeds of ``kind``: "simulation", "bufinfo", "netlog", "board" or "layer_info"."""
    real = ROOT.parent / "shared" / "realdata" / "net"
    example = EXAMPLES / "tempDir"
    patterns = {"simulation": "tempDir_*_tidl_net_*.csv", "bufinfo": "bufinfolog*.csv", "netlog": "*_netLog.txt",
                "board": "tidl_trace_subgraph_*_perf.csv", "layer_info": "*.layer_info.txt"}[kind]
    found = [(p.name, p.read_text()) for folder in (real, example) if folder.is_dir()
             for p in sorted(folder.rglob(patterns))]
    found += {"board": [("built-in board", _BOARD)], "netlog": [("built-in netLog", _NETLOG)],
              "layer_info": [("built-in layer_info", _LAYER_INFO)]}.get(kind, [])
    return tuple(found)


def mutate(text: str, rng: random.Random) -> tuple[bytes, list[str]]:
    lines = text.splitlines(keepends=True)
    steps = []
    data = None
    for _ in range(rng.choice((0, 1, 1, 2, 3, 4))):
        kind = rng.choice(("field", "field", "field", "line", "cut", "byte", "bytes", "extend"))
        if kind == "field" and lines:
            i = rng.randrange(len(lines))
            sep = "|" if lines[i].count("|") > 3 else "=" if "=" in lines[i] and "," not in lines[i] else ","
            body = lines[i].rstrip("\r\n")
            parts = body.split(sep)
            j = rng.randrange(len(parts))
            parts[j] = rng.choice(_EXTREMES) if rng.random() < 0.7 else str(rng.randrange(-2**40, 2**40))
            lines[i] = sep.join(parts) + lines[i][len(body):]
            steps.append(f"field {j} of line {i + 1}")
        elif kind == "line" and lines:
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            what = rng.choice(("drop", "repeat", "swap"))
            if what == "drop":
                del lines[i]
            elif what == "repeat":
                lines.insert(j, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            steps.append(f"{what} line {i + 1}")
        elif kind == "cut":
            joined = "".join(lines)
            at = rng.randrange(len(joined) + 1)
            lines = joined[:at].splitlines(keepends=True)
            steps.append(f"cut @ {at}")
        elif kind in ("byte", "bytes"):
            raw = bytearray("".join(lines).encode("utf-8", "surrogatepass"))
            if raw:
                at = rng.randrange(len(raw))
                raw[at] = rng.randrange(256) if kind == "byte" else 0xFF
            data = bytes(raw)
            lines = data.decode("utf-8", "replace").splitlines(keepends=True)
            steps.append(f"{kind} @ {at if raw else 0}")
        else:
            lines += lines[-rng.randrange(1, 4):] if lines else ["x\n"]
            steps.append("extend")
    out = data if data is not None and steps and steps[-1].startswith("byte") else "".join(lines).encode("utf-8",
                                                                                                 "surrogatepass")
    return out, steps


def run_reader(checker: Checker, index: int, rng: random.Random, kind: str, source: str,
               parse: Callable[[str, str], Any], use: Callable[[Any], Any] | None = None, label: str = "perf") -> None:
    """One mutated seed of ``kind`` through ``parse`` (and ``use`` on what it returns): only
    located TidlIoErrors may come out (``source`` in the message)."""
    from tidl_io.base.tilog import decode

    choices = seeds(kind)
    if not choices:
        return
    name, text = rng.choice(choices)
    data, steps = mutate(text, rng)
    if checker.verbose:
        print(f"  {kind} input: {name} | {' | '.join(steps)}")
    result = checker.op(index, f"{label} {kind} parse", lambda: parse(decode(data, source), source), (source,))
    if result is not None and use is not None:
        checker.op(index, f"{label} {kind} use", lambda: use(result), (source,))
