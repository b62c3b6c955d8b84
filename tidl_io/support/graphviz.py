"""``tempDir/graphvizInfo.txt``: one line per node of the original ONNX / TFLite model, with its
adjacency and TI's verdict (``diagInfo``), as TI's importer writes it.

Line 1 is the node count; then, per node::

    <index> <name> <op> outputAdjNodes <n> <ids…> [names…] inputAdjNodes <n> <ids…> [names…]
        [additionalOutput <n> …] diagInfo <TI's text>

The ids are node indices; a count of 0 is followed by the model's own input or output name.
TI's text (facts from TI's importer sources, edgeai-tidl-tools / TIDL import) takes these forms:

- empty: supported (8.x/9.x write nothing for a node TIDL takes);
- a kind before a colon, after an optional stage (``[PARSER] SUPPORTED: …``): TI's model
  diagnostics. ``SUPPORTED``, ``INFORMATION`` (also ``INFORMATION -- …``) and ``SUGGESTION``
  (supported, may not perform well) leave the node on TIDL; ``UNSUPPORTED``, ``ERROR``,
  ``WARNING`` (not verified), ``TIDL ALLOWLISTING LAYER CHECK`` and ``UNKNOWN ERROR`` keep it off
  (TI's ``isOKToOffload``);
- 8.x/9.x's allow-listing sentences without a kind: ``ALLOWLISTING : <layer> : <check>``,
  ``Layer type not supported by TIDL --- …``, ``Node not in allow list...delegated to ARM``,
  ``Layer delegated to ARM since …``, ``Cannot read constant tensor : …``: all keep it off.

TI ends a message with its source line: ``-- [tidl_onnxRtImport_core.cpp, 529]`` (10.x) or
``-- file info - <file> , <function> , <line>`` (8.x/9.x); :func:`split_diag` takes it off as
the origin. Text of none of these forms is :attr:`Status.UNKNOWN` (shown verbatim).

:func:`parse_graphviz` is a pure function of the text; :class:`Status` is decided once here.
"""

from __future__ import annotations

import enum
import functools
import re
from dataclasses import dataclass

from ..base.errors import FormatError
from ..base.numtext import NumberError, read_int
from ..base.text import short_repr

__all__ = ["MAX_LINE", "MAX_NODES", "GraphNode", "Status", "parse_graphviz", "split_diag", "status_of"]

MAX_NODES = 1 << 15
"""Most nodes a graphvizInfo.txt may list (32 768): above what TIDL can offload (TIDL's default
``max_num_subgraphs`` of 16 × ``TIDL_NUM_MAX_LAYERS`` = 1536 layers per net in 9.0 to 11.0 =
24 576 nodes) and 120 times the real files seen (51 to 271 nodes); low enough that ``tidl-io
why --json`` on a file at the cap takes about a second within tens of MB."""
_STAGE = re.compile(r"^\[([A-Za-z_ ]+)\]\s*")
_ORIGIN = re.compile(r"\s*--\s*\[([^\[\]]+?),\s*(\d+)\]\s*$")


class Status(str, enum.Enum):
    """TI's verdict on one node, decided from its diagInfo by :func:`status_of`."""

    SUPPORTED = "supported"  # empty, or a SUPPORTED / INFORMATION / SUGGESTION message
    UNSUPPORTED = "unsupported"  # any other of TI's forms: the reason TIDL did not take the node
    UNKNOWN = "unknown"  # text of none of TI's forms (shown verbatim)


# TI's diagnostic kinds (the word before the colon) and whether the node stays on TIDL
_KINDS = {"SUPPORTED": True, "INFORMATION": True, "SUGGESTION": True,
          "UNSUPPORTED": False, "ERROR": False, "FATAL ERROR": False, "WARNING": False,
          "TIDL ALLOWLISTING LAYER CHECK": False, "UNKNOWN ERROR": False}
_KIND = re.compile(r"^(" + "|".join(sorted(_KINDS, key=len, reverse=True)) + r")\s*(?::|--)", re.IGNORECASE)
# 8.x/9.x's allow-listing sentences (no kind before them): every one keeps the node off TIDL
_REJECTION = re.compile(r"^(?:allow[- ]?listing\s*:|layer type not supported|node not in allow list|"
                        r"layer delegated to arm|cannot read constant tensor)", re.IGNORECASE)
_SAYS_NO = re.compile(r"not supported|unsupported|delegated to (?:the )?arm", re.IGNORECASE)
_FILE_INFO = re.compile(r"\s*--+\s*file info\s*-\s*([^,]*?)\s*,\s*([^,]*?)\s*,\s*(\d+)\s*$")


@dataclass(frozen=True)
class GraphNode:
    """One node line. ``diag`` is TI's text verbatim (trailing blanks removed)."""

    index: int
    name: str
    op: str
    outputs: tuple[int, ...]  # indices of the nodes reading this one
    inputs: tuple[int, ...]  # indices of the nodes it reads
    output_names: tuple[str, ...]  # the model's own outputs it writes (TI lists them when count is 0)
    input_names: tuple[str, ...]  # the model's own inputs it reads
    diag: str
    line: int

    @property
    def status(self) -> Status:
        return status_of(self.diag)

    @property
    def stage(self) -> str | None:
        """TI's bracketed prefix (``PARSER``), or None."""
        return split_diag(self.diag)[0]

    @property
    def reason(self) -> str:
        """TI's words without the stage prefix and the source-line suffix."""
        return split_diag(self.diag)[1]

    @property
    def origin(self) -> str | None:
        """The importer's source line TI names (``tidl_onnxRtImport_core.cpp:529``), or None."""
        return split_diag(self.diag)[2]


@functools.lru_cache(maxsize=1024)  # a pure function of TI's text: most nodes share theirs (empty, mostly)
def split_diag(diag: str) -> tuple[str | None, str, str | None]:
    """(stage, reason, origin) of a diagInfo text: ``[PARSER] SUPPORTED: x -- [f.cpp, 529]`` is
    ``("PARSER", "SUPPORTED: x", "f.cpp:529")``; ``ALLOWLISTING : x -- file info - f.cpp , g , 7``
    is ``(None, "ALLOWLISTING : x", "f.cpp:7 (g)")``."""
    text = diag.strip()
    stage = None
    m = _STAGE.match(text)
    if m:
        stage, text = m.group(1).strip(), text[m.end():]
    origin = None
    m = _ORIGIN.search(text)
    if m:
        origin, text = f"{m.group(1).strip()}:{m.group(2)}", text[:m.start()]
    else:
        m = _FILE_INFO.search(text)
        if m:
            origin, text = f"{m.group(1)}:{m.group(3)}" + (f" ({m.group(2)})" if m.group(2) else ""), \
                text[:m.start()]
    return stage, text.strip(), origin


def status_of(diag: str) -> Status:
    """The one place TI's diagInfo becomes a :class:`Status` (TI's forms: the module docstring)."""
    reason = split_diag(diag)[1]
    if not reason:
        return Status.SUPPORTED
    m = _KIND.match(reason)
    if m:
        return Status.SUPPORTED if _KINDS[m.group(1).upper()] else Status.UNSUPPORTED
    if _REJECTION.match(reason) or _SAYS_NO.search(reason):
        return Status.UNSUPPORTED
    return Status.UNKNOWN


def _adjacency(text: str, source: str, lineno: int, what: str, count: int) -> tuple[tuple[int, ...], tuple[str, ...]]:
    tokens = text.split()
    if not tokens:
        raise FormatError(source, f"line {lineno}: {what}: expected a count, found nothing")
    n = _whole(tokens[0], source, lineno, f"{what}: the count", minimum=0, maximum=len(tokens) - 1)
    ids = tuple(_whole(tok, source, lineno, f"{what}: a node index", minimum=0, maximum=count - 1)
                for tok in tokens[1:1 + n])
    return ids, tuple(tokens[1 + n:])


def _whole(text: str, source: str, lineno: int, what: str, minimum: int, maximum: int) -> int:
    try:
        return read_int(text, minimum=minimum, maximum=maximum)
    except NumberError as exc:
        raise FormatError(source, f"line {lineno}: {what}: {exc.detail}") from None


def _fields(line: str) -> tuple[str, str, str, str, str, str] | None:
    """(index, name, op, outputs, inputs, diag) of a node line, or None when it is not one;
    linear time (``str.find`` from left to right, no backtracking): the name is everything
    between the index and the last word before the first `` outputAdjNodes ``, the inputs end
    at the first `` additionalOutput `` or `` diagInfo`` after `` inputAdjNodes ``, the diag is
    the rest after ``diagInfo``."""
    sp = line.find(" ")
    at_out = line.find(" outputAdjNodes ", sp)
    if sp <= 0 or at_out < 0:
        return None
    head = line[sp + 1:at_out]
    cut = head.rfind(" ")
    op = head[cut + 1:]
    if cut < 0 or not op or len(op.split()) != 1 or op != op.strip():
        return None
    start_out = at_out + len(" outputAdjNodes ")
    at_in = line.find(" inputAdjNodes ", start_out - 1)
    if at_in < 0:
        return None
    start_in = at_in + len(" inputAdjNodes ")
    end_in, diag = len(line), ""
    extra = line.find(" additionalOutput ", start_in - 1)
    at_diag = line.find(" diagInfo", start_in - 1)
    while at_diag >= 0 and line[at_diag + 9:at_diag + 10] not in ("", " "):  # "diagInfo" as a word
        at_diag = line.find(" diagInfo", at_diag + 1)
    if at_diag >= 0:
        end_in, diag = at_diag, line[at_diag + 10:]
    if 0 <= extra < end_in:
        end_in = extra
    return line[:sp], head[:cut], op, line[start_out:at_in], line[start_in:end_in], diag


MAX_LINE = 1 << 16
"""The longest node line read (TI's real lines: 40 to 600 characters)."""


def parse_graphviz(text: str, source: str = "graphvizInfo.txt") -> tuple[GraphNode, ...]:
    """Every node line of a graphvizInfo.txt, in file order; a :class:`~tidl_io.FormatError`
    naming the line for a malformed or cut file (fewer node lines than line 1 says), a count
    past :data:`MAX_NODES`, or a number that is none (the one bounded reader,
    :mod:`tidl_io.base.numtext`). Linear in the text's length."""
    lines = text.splitlines()
    first = next((i for i, s in enumerate(lines) if s.strip()), None)
    if first is None:
        raise FormatError(source, "empty; expected the node count on line 1")
    count = _whole(lines[first].strip(), source, first + 1, "the node count", minimum=0, maximum=MAX_NODES)
    nodes: list[GraphNode] = []
    for i, raw in enumerate(lines[first + 1:], first + 2):
        line = raw.rstrip()
        if not line:
            continue
        if len(line) > MAX_LINE:
            raise FormatError(source, f"line {i}: {len(line)} characters; a node line is at most {MAX_LINE} (TI's "
                                      f"are under 1 000: a name, its edges and its verdict)")
        parts = _fields(line)
        if parts is None:
            raise FormatError(source, f"line {i}: expected '<index> <name> <op> outputAdjNodes … inputAdjNodes … "
                                      f"diagInfo …', found {short_repr(line)}")
        index = _whole(parts[0], source, i, "the node index", minimum=0, maximum=MAX_NODES)
        if index != len(nodes):
            raise FormatError(source, f"line {i}: expected node {len(nodes)}, found node {index}")
        if index >= count:
            raise FormatError(source, f"line {i}: node {index}, but line {first + 1} says {count} nodes")
        outs, out_names = _adjacency(parts[3], source, i, "outputAdjNodes", count)
        ins, in_names = _adjacency(parts[4], source, i, "inputAdjNodes", count)
        nodes.append(GraphNode(index, parts[1], parts[2], outs, ins, out_names, in_names, parts[5].strip(), i))
    if len(nodes) != count:
        raise FormatError(source, f"line {first + 1} says {count} nodes, but the file has {len(nodes)} "
                                  f"(cut short?)")
    return tuple(nodes)
