"""The one way tidl-io reads YAML that a user hands it (``param.yaml``, a model spec).

PyYAML builds whatever the text describes: 5 000 nested brackets overflow Python's stack
while it composes them, and a 315-byte "billion laughs" (anchors of lists of aliases of
lists) describes a value of 10^9 items that a ``repr`` or a walk then expands. Here the
text's *events* are read first, without building anything, and refused, with a
:class:`~tidl_io.FormatError` naming the source and the line, when

- the text is longer than ``max_bytes`` (a param.yaml is a few KB),
- collections nest deeper than ``max_depth``,
- the value, with every alias expanded, would have more than ``max_nodes`` nodes;
- a plain scalar PyYAML would turn into a number is longer than :data:`MAX_NUMBER_CHARS`
  (PyYAML's ``int()`` of 5 000 digits raises Python's digit-limit ValueError, ``1:1:…`` builds
  a sexagesimal integer of thousands of digits);

only then does PyYAML build it (its C loader when present). The schemas tidl-io ships are
read by :mod:`tidl_io.iodesc.schema`, not here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from .check import open_regular, read_limited
from .errors import FormatError
from .text import escape

__all__ = ["MAX_BYTES", "MAX_DEPTH", "MAX_NODES", "MAX_NUMBER_CHARS", "load_yaml", "load_yaml_file"]

MAX_BYTES = 1 << 20  # a param.yaml is ~1-6 KB
MAX_DEPTH = 64  # edgeai's param.yaml nests 4 deep
MAX_NODES = 100_000  # scalars and collections, aliases expanded
MAX_NUMBER_CHARS = 64  # a number in a param.yaml: a count, a mean, a scale
_NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str, source: str, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH,
              max_nodes: int = MAX_NODES) -> Any:
    """The value of YAML ``text`` (safe types only), after the bounds above are checked on
    its events; FormatError naming ``source`` (and the line) otherwise."""
    if len(text) > max_bytes:
        raise FormatError(source, f"{len(text)} characters of YAML; at most {max_bytes} are read (a param.yaml "
                          f"is a few KB)")
    try:
        _check_events(text, source, max_depth, max_nodes)
        return yaml.load(text, Loader=_Loader)  # a safe loader: SafeLoader or its C twin
    except yaml.YAMLError as exc:
        raise FormatError(source, f"not valid YAML: {_one_line(exc)}") from None
    except RecursionError:  # not expected after the depth check; never a traceback
        raise FormatError(source, f"nests too deeply (more than {max_depth} levels)") from None


def load_yaml_file(path: str | os.PathLike[str], *, expected: str | None = None, max_bytes: int = MAX_BYTES,
                   max_depth: int = MAX_DEPTH, max_nodes: int = MAX_NODES) -> Any:
    """:func:`load_yaml` of the file at ``path`` (a regular file, read up to ``max_bytes``;
    :class:`~tidl_io.PathError` for a path that cannot be read, saying ``expected``)."""
    name = os.fspath(path)
    with open_regular(name, expected or f"a YAML file ({Path(name).name})") as fh:
        data = read_limited(fh, max_bytes)
    if len(data) > max_bytes:
        raise FormatError(name, f"more than {max_bytes} bytes of YAML; at most {max_bytes} are read (a param.yaml "
                          f"is a few KB)")
    return load_yaml(data.decode("utf-8", errors="replace"), name, max_bytes=max_bytes, max_depth=max_depth,
                     max_nodes=max_nodes)


def _check_events(text: str, source: str, max_depth: int, max_nodes: int) -> None:
    """Walk the parser's events: depth, and each collection's size with aliases expanded."""
    stack: list[list[Any]] = []  # per open collection: [nodes inside it so far, its anchor]
    anchors: dict[str, int] = {}
    loader = _Loader(text)
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                if len(stack) >= max_depth:
                    raise FormatError(source, f"line {_line(event)}: collections nest more than {max_depth} deep")
                stack.append([1, event.anchor])
                continue
            if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                size, anchor = stack.pop()
            elif isinstance(event, yaml.ScalarEvent):
                size, anchor = 1, event.anchor
                if (len(event.value) > MAX_NUMBER_CHARS and not event.style  # plain: None, or "" from the C parser
                        and loader.resolve(yaml.ScalarNode, event.value, event.implicit) in _NUMBER_TAGS):
                    raise FormatError(source, f"line {_line(event)}: a number of {len(event.value)} characters; "
                                              f"at most {MAX_NUMBER_CHARS} are read")
            elif isinstance(event, yaml.AliasEvent):
                size, anchor = anchors.get(event.anchor, 1), None
            else:
                continue
            if anchor is not None:
                anchors[anchor] = size
            if stack:
                stack[-1][0] += size
                if stack[-1][0] > max_nodes:
                    raise FormatError(source, f"line {_line(event)}: the value holds more than {max_nodes} items "
                                      f"once its aliases (*name) are expanded (an alias bomb?)")
    finally:
        loader.dispose()


def _line(event: Any) -> int:
    mark = getattr(event, "start_mark", None)
    return 1 + int(getattr(mark, "line", 0) or 0)


def _one_line(exc: BaseException, limit: int = 300) -> str:
    text = escape(" ".join(str(exc).split()))
    return text if len(text) <= limit else text[: limit - 3] + "..."
