"""Where the advisor's measurements come from: a ``tidl-io compare`` report, read through
its JSON shape only (``layers[]`` with ``index``, ``data_id``, ``name``, ``type``,
``status``, ``snr_db``, ``mean_abs``, ``worst_counted_channel`` …) by one adapter,
:func:`measured_rows`. It takes the document of ``tidl-io compare --json`` (a file, or its
parsed mapping) or any report object with ``to_dict()``.

Both spellings of a non-finite SNR are understood: numbers or null (null is +inf, no noise,
unless the row says ``"identical": false``: then it is -inf or NaN, not a measurement) and
the older strings ``"inf"``, ``"-inf"``, ``"nan"``.

:func:`compare_document` runs the comparison itself from traces and a golden run (the public
:func:`tidl_io.compare_traces`) and gives the same document.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.check import open_regular, read_limited
from ..base.errors import FormatError
from ..base.numtext import NumberError, read_float, read_int
from ..base.text import short_repr

__all__ = ["Measured", "compare_document", "measured_rows", "read_compare"]

# a compare report of a very large net is a few MB (500 layers of 1000 channels: about 10 MB and
# 600 000 values); the bounds hold a parse of the worst text within them under 200 MB
_MAX_JSON = 32 << 20  # bytes
_MAX_VALUES = 1_000_000  # commas: the values and members of all arrays and objects, at most
_MAX_CONTAINERS = 250_000  # '[' and '{': arrays and objects, at most


@dataclass(frozen=True)
class Measured:
    """One compared layer as the advisor uses it. ``snr_db`` None: no noise (identical);
    ``finite`` False: the SNR is -inf or NaN (no measurement to rank by). ``worst_channel``:
    compare's worst channel that counts (``worst_counted_channel``: none below one step of the
    layer), the worst of all in a report older than that key."""

    index: int
    data_id: int | None
    name: str | None
    type: str | None
    snr_db: float | None
    finite: bool
    mean_abs: float | None
    worst_channel: int | None
    worst_channel_snr_db: float | None
    saturated: float | None


def read_compare(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The document of a saved ``tidl-io compare --json``; a FormatError naming the file,
    line and column for JSON that does not parse."""
    p = str(path)
    limit = f"a compare report is at most {_MAX_JSON >> 20} MiB"
    with open_regular(p, "a tidl-io compare --json report") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > _MAX_JSON:  # before reading: refused at once, not after holding it whole
            raise FormatError(p, f"{size} bytes: {limit}")
        raw = read_limited(fh, _MAX_JSON)
    if len(raw) > _MAX_JSON:  # a file that grew, or one fstat does not size
        raise FormatError(p, f"more than {_MAX_JSON} bytes: {limit}")
    values, containers = raw.count(b","), raw.count(b"[") + raw.count(b"{")
    if values > _MAX_VALUES or containers > _MAX_CONTAINERS:  # bounded before the parse allocates them
        raise FormatError(p, f"{values} commas and {containers} arrays/objects: a compare report has at most "
                             f"{_MAX_VALUES} and {_MAX_CONTAINERS}")
    text = raw.decode("utf-8", errors="replace")
    del raw
    try:  # every number through the one bounded reader (a 5000-digit one hit Python's digit limit)
        doc = json.loads(text, parse_int=read_int, parse_float=read_float)
    except json.JSONDecodeError as exc:
        raise FormatError(p, f"line {exc.lineno}, column {exc.colno}: not JSON ({exc.msg})") from None
    except NumberError as exc:
        raise FormatError(p, f"a number: {exc.detail}") from None
    except RecursionError:
        raise FormatError(p, "JSON nested too deeply") from None
    if not isinstance(doc, dict):
        raise FormatError(p, f"expected the JSON object of 'tidl-io compare --json', found {type(doc).__name__}")
    return doc


def _number(value: Any, where: str, key: str, source: str) -> float | None:
    """A metric: a number, null, or one of the strings older reports wrote for non-finite ones."""
    if value is None:
        return None
    if isinstance(value, str) and value in ("inf", "-inf", "nan"):
        return float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FormatError(source, f"{where}: {key}: expected a number or null, found {short_repr(value, 40)}")
    if isinstance(value, int) and not -(1 << 1023) < value < 1 << 1023:  # float() would overflow
        raise FormatError(source, f"{where}: {key}: expected a finite number, found {short_repr(value, 40)}")
    return float(value)


def _int(value: Any, where: str, key: str, source: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise FormatError(source, f"{where}: {key}: expected a whole number or null, found {value!r:.40}")
    return value


def _text(value: Any, where: str, key: str, source: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise FormatError(source, f"{where}: {key}: expected a string or null, found {value!r:.40}")


def measured_rows(report: Any, source: str = "compare report") -> list[Measured]:
    """The compared layers of a compare report (its ``to_dict()`` document, or an object
    with ``to_dict()``), in its order. Rows not compared (no reference, a shape mismatch …)
    are left out; a row that is not of the expected shape is a FormatError naming it."""
    doc = report.to_dict() if hasattr(report, "to_dict") else report
    if not isinstance(doc, Mapping):
        raise FormatError(source, f"expected a compare report (a mapping with 'layers'), found {type(doc).__name__}")
    layers = doc.get("layers")
    if not isinstance(layers, Sequence) or isinstance(layers, (str, bytes)):
        raise FormatError(source, "no 'layers' list: not a 'tidl-io compare --json' report")
    out = []
    for i, row in enumerate(layers):
        where = f"layers[{i}]"
        if not isinstance(row, Mapping):
            raise FormatError(source, f"{where}: expected an object, found {type(row).__name__}")
        status = row.get("status")
        if status != "compared":
            continue
        index = _int(row.get("index"), where, "index", source)
        if index is None or index < 0:
            raise FormatError(source, f"{where}: index: a compared row needs the net's layer index, found "
                                      f"{row.get('index')!r:.40}")
        snr = _number(row.get("snr_db"), where, "snr_db", source)
        identical = row.get("identical")
        finite = True
        if snr is None and identical is False:  # compare's null for -inf / NaN
            finite = False
        elif snr is not None and not snr < math.inf:  # +inf, or NaN
            finite = not math.isnan(snr)
            snr = None
        elif snr is not None and snr == -math.inf:
            finite = False
        # compare's worst channel that counts (channels below one step of the layer are not counted,
        # as compare's own table shows it); an older report without it: its worst channel of all
        key = "worst_counted_channel" if "worst_counted_channel" in row else "worst_channel"
        worst = _int(row.get(key), where, key, source)
        worst_db = _number(row.get(f"{key}_snr_db"), where, f"{key}_snr_db", source)
        out.append(Measured(index, _int(row.get("data_id"), where, "data_id", source),
                            _text(row.get("name"), where, "name", source), _text(row.get("type"), where, "type", source),
                            snr if finite else None, finite, _number(row.get("mean_abs"), where, "mean_abs", source),
                            worst, worst_db,
                            _number(row.get("saturated"), where, "saturated", source)))
    return out


def compare_document(traces: str | os.PathLike[str], net: Any, *, golden: Any, inputs: Sequence[str] = (),
                     params: Any = None, golden_layout: str | None = None,
                     subgraph: int | str | None = None) -> dict[str, Any]:
    """``tidl-io compare``'s document for the traces in ``traces`` of ``net`` against ``golden``
    (an ``.npz``, an ``.onnx``/``.tflite`` run on ``inputs``, or arrays by tensor name): the
    ``.to_dict()`` of the public :func:`tidl_io.compare_traces` on the net's artifacts folder
    (which holds its io files, as TI leaves it), without simulated times. ``subgraph`` None:
    the folder's only subgraph (or the one the trace names pin); else the one of ``net``,
    named to compare by its file name."""
    from ..trace.api import compare_traces  # start-up

    source = Path(net.source)
    name = source.name.removesuffix("_tidl_net.bin")
    report = compare_traces(traces, artifacts=source.parent, golden=golden, inputs=tuple(inputs), params=params,
                            golden_layout=golden_layout, subgraph=None if subgraph is None else name, perf=False)
    return report.to_dict()
