"""TIDL layer-trace file names: parse them, never touch a file.

TIDL writes one file per traced layer, keyed by the layer's output **dataId** (not its
index). The namings seen in TI's documents and runs, all parsed here:

>>> parse_trace_name("tidl_trace_subgraph_0_0001_0001_0001_00004_00002_000128x00064_float.bin")
TraceName(data_id=1, batch=1, dim1=1, dim2=4, channels=2, width=128, height=64, kind='float', \
subgraph=0, core=None, base='tidl_trace_subgraph', legacy=False)

- 10.x/11.x: ``<base>_<sg>_<dataId>_<batch>_<dim1>_<dim2>_<C>_<W>x<H>`` + ``.y`` (codes) or
  ``_float.bin`` (dequantized float32); numbers zero-padded (4, 4, 4, 5, 5, 6 x 5 digits,
  wider when the value needs it);
- older: ``<base><dataId>_<batch>_<C>_<W>x<H>.y`` (no dim1/dim2; TI's own example shows the
  last two as height x width, so :func:`tidl_io.load_traces` accepts either order when the
  net tells them apart);
- a custom ``traceBaseName`` (any ``<base>``), the ``_<sg>_`` TIDL appends per subgraph,
  and a ``C7X_<n>_`` prefix on multi-core runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["TraceName", "parse_trace_name"]

_SUFFIXES = (("_float.bin", "float"), (".y", "y"))
# six numbers then WxH (10.x/11.x) and three numbers then WxH (older), anchored at the end; the
# dataId has at least the 4 digits TIDL pads it to, so a base ending in digits ("run2_0_...")
# is not read as one
_NEW = re.compile(r"(?<!\d)(?P<data_id>\d{4,})_(?P<batch>\d+)_(?P<dim1>\d+)_(?P<dim2>\d+)_(?P<channels>\d+)_"
                  r"(?P<width>\d+)x(?P<height>\d+)\Z")
_OLD = re.compile(r"(?<!\d)(?P<data_id>\d{4,})_(?P<batch>\d+)_(?P<channels>\d+)_(?P<width>\d+)x(?P<height>\d+)\Z")
_CORE = re.compile(r"C7X_(\d+)_")
_SUBGRAPH = re.compile(r"(?P<base>.*)_(?P<sg>\d+)_\Z", re.DOTALL)


@dataclass(frozen=True)
class TraceName:
    """What a trace file's name says. ``kind`` is ``"y"`` (codes in the layer's element
    type) or ``"float"`` (float32); ``subgraph`` and ``core`` are None when the name has
    none; ``legacy`` marks the older naming (no dim1/dim2: they are 1, and ``width`` /
    ``height`` may be swapped)."""

    data_id: int
    batch: int
    dim1: int
    dim2: int
    channels: int
    width: int
    height: int
    kind: str
    subgraph: int | None = None
    core: int | None = None
    base: str = ""
    legacy: bool = False

    @property
    def group(self) -> tuple[int | None, str, int | None]:
        """(core, base, subgraph): the files of one traced run of one subgraph share it."""
        return (self.core, self.base, self.subgraph)


def parse_trace_name(name: str) -> TraceName | None:
    """The fields of a trace file name (the name only, no folder), or None when it is not
    one (``perf.csv``, a log): callers list those, never drop them silently."""
    for suffix, kind in _SUFFIXES:
        if name.endswith(suffix):
            stem = name[: -len(suffix)]
            break
    else:
        return None
    legacy = False
    m = _NEW.search(stem)
    if m is not None:
        dim1, dim2 = int(m["dim1"]), int(m["dim2"])
    else:
        m = _OLD.search(stem)
        if m is None:
            return None
        dim1 = dim2 = 1
        legacy = True
    prefix = stem[: m.start()]
    core = None
    c = _CORE.match(prefix)
    if c is not None:
        core = int(c.group(1))
        prefix = prefix[c.end():]
    subgraph = None
    s = _SUBGRAPH.match(prefix)
    if s is not None:
        subgraph, prefix = int(s["sg"]), s["base"]
    elif prefix.endswith("_"):
        prefix = prefix[:-1]
    return TraceName(int(m["data_id"]), int(m["batch"]), dim1, dim2, int(m["channels"]), int(m["width"]),
                     int(m["height"]), kind, subgraph, core, prefix, legacy)
