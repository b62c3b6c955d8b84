"""TI's ``<net>.layer_info.txt``: one line per layer, ``layerId dataId name`` (TI writes
``"%d %d %s \\n"``), beside the net or in ``tempDir/``. The one layer_info reader: the net's
layer names (:func:`~tidl_io.net.load_net`), perf, precision and the advisor call it.

- :func:`parse_layer_info` is a pure function of the text -> :class:`LayerInfo` (one
  :class:`LayerInfoLine` per line, in file order);
- :func:`read_layer_info` reads a file, line by line, never more than ``max_lines`` lines
  (and :data:`~tidl_io.base.tilog.MAX_LAYERS`) of at most 8 KiB each, and parses them.

Every error is a :class:`~tidl_io.FormatError` at ``file, line N: ...``: a line that is not two
whole numbers (ASCII digits: ``"²".isdigit()`` is True) and a name, a layerId given twice, a
layerId past any net, more lines than allowed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..base.check import open_regular
from ..base.errors import PathError
from ..base.text import short_repr
from ..base.tilog import MAX_LAYERS, decode, located

__all__ = ["LayerInfo", "LayerInfoLine", "parse_layer_info", "read_layer_info"]

_LINE = re.compile(r"([0-9]{1,10}) (-?[0-9]{1,10})(?: (.*))?")  # ASCII digits only
MAX_LINE_BYTES = 1 << 13  # a line: two numbers and a name (8.2's longest is ~260 bytes)
_EXPECTED = "expected 'layerId dataId name' (two whole numbers, then the name)"


@dataclass(frozen=True)
class LayerInfoLine:
    """One line: ``index`` (layerId: the layer's number in the net, netLog's Num),
    ``data_id`` (the buffer it writes; TI writes 0 for an output data layer), ``name`` (TI's
    full name, stripped; "" when the line has none), ``line`` (1-based, for messages)."""

    line: int
    index: int
    data_id: int
    name: str


@dataclass(frozen=True)
class LayerInfo:
    """A whole layer_info.txt: ``source`` (its name in messages) and ``lines`` in file order."""

    source: str
    lines: tuple[LayerInfoLine, ...]

    def __iter__(self) -> Iterator[LayerInfoLine]:
        return iter(self.lines)

    def __len__(self) -> int:
        return len(self.lines)

    def by_index(self) -> dict[int, LayerInfoLine]:
        """``{layerId: line}`` (each layerId is on one line only)."""
        return {x.index: x for x in self.lines}

    @property
    def names(self) -> list[str]:
        """The names in file order."""
        return [x.name for x in self.lines]


def parse_layer_info(text: str, source: str = "layer_info.txt", max_lines: int | None = None) -> LayerInfo:
    """The ``layerId dataId name`` lines of ``text`` (blank lines skipped; lines end at ``\\n``,
    a ``\\r`` before it is dropped). ``max_lines`` (default :data:`MAX_LAYERS`): one line more
    is a located FormatError, like a malformed line or a layerId given twice."""
    limit = MAX_LAYERS if max_lines is None else min(max_lines, MAX_LAYERS)
    out: list[LayerInfoLine] = []
    seen: dict[int, int] = {}
    for lineno, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line:
            continue
        if len(out) >= limit:
            what = f"the net's {max_lines} layers" if max_lines is not None and max_lines <= MAX_LAYERS else \
                f"{limit} layers"
            raise located(source, lineno, f"more lines than {what}")
        m = _LINE.fullmatch(line)
        if m is None:
            raise located(source, lineno, f"{_EXPECTED}, found {short_repr(line)}")
        index = int(m.group(1))
        if index >= MAX_LAYERS:
            raise located(source, lineno, f"layerId {index} is past any net (at most {MAX_LAYERS - 1})")
        if index in seen:
            raise located(source, lineno, f"layer {index} is named a second time (first on line {seen[index]})")
        seen[index] = lineno
        out.append(LayerInfoLine(lineno, index, int(m.group(2)), (m.group(3) or "").strip()))
    return LayerInfo(source, tuple(out))


def read_layer_info(path: str | os.PathLike[str], max_lines: int | None = None) -> LayerInfo:
    """:func:`parse_layer_info` of the file at ``path``, read line by line: at most
    ``max_lines`` non-blank lines (one more is read to say so, nothing past it) of at most
    8 KiB each. PathError for the path, FormatError (file, line) for its text."""
    name = os.fspath(path)
    limit = MAX_LAYERS if max_lines is None else min(max_lines, MAX_LAYERS)
    chunks: list[bytes] = []
    count = 0
    with open_regular(name, "a layer_info.txt (layerId dataId name per line)") as fh:
        try:
            while True:
                raw = fh.readline(MAX_LINE_BYTES + 1)
                if not raw:
                    break
                if len(raw) > MAX_LINE_BYTES:
                    raise located(name, len(chunks) + 1, f"longer than {MAX_LINE_BYTES} bytes; {_EXPECTED}")
                chunks.append(raw)
                count += bool(raw.strip())
                if count > limit:  # one too many is enough to say so
                    break
        except OSError as exc:
            raise PathError(name, f"cannot read: {exc.strerror or exc}; expected a layer_info.txt", exc.errno) from None
    return parse_layer_info(decode(b"".join(chunks), name), name, max_lines)
