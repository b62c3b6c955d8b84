"""TIDL's quantization-parameters prototxt (``advanced_options:quant_params_proto_path``):
read it into objects, change a layer, write it back.

TI's importer writes the file when the path names no file ("write mode": per layer its name,
type, ``bit_depth`` and, per tensor — ``outputs``, ``weights``, ``bias``, ``slope`` —
``min``, ``max``, ``size``, ``element_type``, ``scale``, ``zero_point`` and the bias ``value``s)
and reads it back when it exists ("read mode": calibration is skipped and the scales are derived
from the ``min``/``max`` ranges). TI's message ``TIDLNetQuantParams`` in text format, one field
per line, as TI writes it.

:func:`parse_quant_params` (bytes) / :func:`load_quant_params` (a path) give a
:class:`QuantParams`; :meth:`QuantParams.to_bytes` gives the bytes back — the same bytes when
nothing changed, and when a field changed only that field's line(s) are rewritten (a field the
file did not have goes on a new line at the start of its block). :meth:`QuantParams.save` writes
atomically.
"""

from __future__ import annotations

import math
import numbers
import os
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..base.atomic import write_bytes_atomic
from ..base.check import check_path, open_regular, read_limited
from ..base.errors import ArgumentTypeError, FormatError, OptionError, TensorNotFoundError
from ..base.numtext import NumberError, read_float, read_int
from ..base.text import short_repr

__all__ = ["LayerQuantParams", "QuantParams", "TensorQuantParams", "load_quant_params", "parse_quant_params"]

_MAX_BYTES = 1 << 24  # 16 MiB: TI's file of a 122-layer YOLOX is 406 KB (a 1536-layer net: ~5 MB)
_MAX_LINES = 1 << 18  # that file has 14 533; every line is kept (save() writes it back byte for byte)
_MAX_VALUES = 1 << 18  # numbers of repeated fields (value, scale, zero_point): 11 600 in that file
_MAX_DEPTH = 32
_FLT_MAX = 3.4028234663852886e38
_INT_MAX = 2**31 - 1  # TI's integer fields are 32-bit
_FLOAT_RANGE = f"a finite number inside float range (|x| < {_FLT_MAX!r}, as TI's read mode needs)"
_STRING = re.compile(r'^"((?:[^"\\]|\\.)*)"$')
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\"}

# kinds of fields: int, float, ident (an enum name), str; repeated ones end in "*"
_TOP_FIELDS = {"num_layers": "int", "quant_type": "ident", "calib_type": "ident"}
_LAYER_FIELDS = {"layer_name": "str", "layer_type": "str", "bit_depth": "int"}
_TENSOR_FIELDS = {"min": "float", "max": "float", "size": "int", "element_type": "int",
                  "scale": "float*", "zero_point": "int*", "value": "float*"}
_TENSOR_KINDS = ("outputs", "weights", "bias", "slope")
_KIND_FIELDS = {"file": _TOP_FIELDS, "layer": _LAYER_FIELDS, "tensor": _TENSOR_FIELDS}


@dataclass(eq=False)
class _Block:
    """Where a message sits in the file: its opening line (-1 for the file itself), the indent
    of its fields, the line(s) of each field and the values as read (to see what changed)."""

    open_line: int
    indent: str
    lines: dict[str, list[int]] = field(default_factory=dict)
    read: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False)
class TensorQuantParams:
    """One ``TidlTensorQuantParams``: ``kind`` is the block it came from (outputs, weights,
    bias, slope). Settable; ``scale``, ``zero_point`` and ``value`` are lists."""

    FIELDS: ClassVar[dict[str, str]] = _TENSOR_FIELDS
    kind: str
    min: float | None = None
    max: float | None = None
    size: int | None = None
    element_type: int | None = None
    scale: list[float] = field(default_factory=list)
    zero_point: list[int] = field(default_factory=list)
    value: list[float] = field(default_factory=list)
    line: int = 0  # 1-based line of its opening brace
    _block: _Block = field(default_factory=lambda: _Block(-1, "  "), repr=False)


@dataclass(eq=False)
class LayerQuantParams:
    """One ``TidlLayerQuantParams`` (a net layer, in the net's order): ``name``, ``type``,
    ``bit_depth`` as TI writes it, and its tensors. ``bit_depth`` is settable."""

    FIELDS: ClassVar[dict[str, str]] = {"name": "str", "type": "str", "bit_depth": "int"}
    index: int
    name: str | None = None
    type: str | None = None
    bit_depth: int | None = None
    outputs: list[TensorQuantParams] = field(default_factory=list)
    weights: list[TensorQuantParams] = field(default_factory=list)
    bias: list[TensorQuantParams] = field(default_factory=list)
    slope: list[TensorQuantParams] = field(default_factory=list)
    line: int = 0
    _block: _Block = field(default_factory=lambda: _Block(-1, "  "), repr=False)

    @property
    def output(self) -> TensorQuantParams | None:
        """The first output tensor (the activation), or None."""
        return self.outputs[0] if self.outputs else None

    def tensors(self) -> list[TensorQuantParams]:
        return [*self.outputs, *self.weights, *self.bias, *self.slope]


_LAYER_KEYS = {"layer_name": "name", "layer_type": "type", "bit_depth": "bit_depth"}


@dataclass(eq=False)
class QuantParams:
    """A whole ``TIDLNetQuantParams`` file. ``layers`` in file order (TI writes the net's
    order). Change fields of its layers and tensors, then :meth:`save`."""

    num_layers: int | None
    quant_type: str | None
    calib_type: str | None
    layers: list[LayerQuantParams]
    source: str = "quant_params.prototxt"
    _lines: list[str] = field(default_factory=list, repr=False)
    _block: _Block = field(default_factory=lambda: _Block(-1, ""), repr=False)
    _shape: list[tuple[LayerQuantParams, list[tuple[str, TensorQuantParams]]]] = field(default_factory=list,
                                                                                      repr=False)

    def layer(self, name: str) -> LayerQuantParams:
        """The layer named ``name``; a :class:`~tidl_io.TensorNotFoundError` (a KeyError) otherwise."""
        for lay in self.layers:
            if lay.name == name:
                return lay
        raise TensorNotFoundError(f"{self.source}: no layer named {name!r} among its {len(self.layers)} layers")

    def problems(self) -> list[str]:
        """What TI's read mode needs and this file lacks (TI's documented rules): num_layers equal
        to the layers, every tensor with a finite min and max inside float range and min <= max,
        every scale a finite number >= 0, and a bias with as many values as its size. Located
        strings; empty when the file is usable."""
        out = []
        if self.num_layers is not None and self.num_layers != len(self.layers):
            out.append(f"{self.source}: num_layers is {self.num_layers}, but the file has {len(self.layers)} layers")
        for lay in self.layers:
            where = f"{self.source}: line {lay.line}: layer {lay.index} {lay.name!r}"
            for t in lay.tensors():
                for what in ("min", "max"):
                    v = getattr(t, what)
                    if v is None or not _in_float_range(v):
                        out.append(f"{where}, {t.kind} (line {t.line}): {what} is {short_repr(v)}; read mode needs a finite "
                                   f"value inside float range")
                if t.min is not None and t.max is not None and _in_float_range(t.min) and _in_float_range(t.max) \
                        and t.min > t.max:
                    out.append(f"{where}, {t.kind} (line {t.line}): min {t.min!r} is above max {t.max!r}")
                bad = [v for v in t.scale if not (_in_float_range(v) and v >= 0)]
                if bad:  # (0: a float tensor's, as the net's tensorScale of a float output)
                    out.append(f"{where}, {t.kind} (line {t.line}): scale {short_repr(bad[0])}; a scale is a finite "
                               f"number, 0 or more ({len(bad)} of {len(t.scale)} are not)")
                if t.kind == "bias" and t.size is not None and t.size != len(t.value):
                    out.append(f"{where}, bias (line {t.line}): size {t.size}, but {len(t.value)} value(s)")
        return out

    def to_bytes(self) -> bytes:
        """The file's bytes: the bytes read when nothing changed; else only the changed fields'
        lines differ. OptionError / ArgumentTypeError naming the layer, the field and the value
        for a value a field cannot hold (a float field: a finite number inside float range, as
        :meth:`problems` asks; an integer field: 0..2**31-1), or for layers or tensors added or
        removed (not supported)."""
        return self._bytes(f"QuantParams.to_bytes: {self.source}")

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_bytes` to ``path`` atomically (the old file or the new one, never a torn
        one; a device such as /dev/null is written through). Everything is checked before anything
        is written: a value :meth:`to_bytes` refuses (the message names ``path``), a folder or a
        missing folder (a :class:`~tidl_io.PathError`)."""
        name = check_path(path, "QuantParams.save", "path")
        write_bytes_atomic(name, self._bytes(f"QuantParams.save: {name}"))

    def _bytes(self, label: str) -> bytes:
        edits: dict[int, list[str]] = {}
        inserts: dict[int, list[str]] = {}
        self._check_shape()
        _diff(self, {k: k for k in _TOP_FIELDS}, _TOP_FIELDS, self._block, self._lines, edits, inserts,
              f"{label}: file")
        for lay, tensors in self._shape:
            where = f"{label}: layer {lay.index} {lay.name!r}"
            _diff(lay, _LAYER_KEYS, _LAYER_FIELDS, lay._block, self._lines, edits, inserts, where)
            for kind, t in tensors:
                _diff(t, {k: k for k in _TENSOR_FIELDS}, _TENSOR_FIELDS, t._block, self._lines, edits, inserts,
                      f"{where}, {kind}")
        out: list[str] = inserts.get(-1, [])[:]
        for i, line in enumerate(self._lines):
            out.extend(edits.get(i, [line]))
            out.extend(inserts.get(i, ()))
        return "".join(out).encode("utf-8")

    def _check_shape(self) -> None:
        if [lay for lay, _ in self._shape] != self.layers or any(a is not b for a, b in zip(
                self.layers, [lay for lay, _ in self._shape])):
            raise OptionError(f"{self.source}: layers were added, removed or replaced; QuantParams.save writes "
                              f"changed fields of the layers read, not new layers")
        for lay, tensors in self._shape:
            now = [(k, t) for k in _TENSOR_KINDS for t in getattr(lay, k)]
            if len(now) != len(tensors) or any(a[1] is not b[1] for a, b in zip(now, tensors)):
                raise OptionError(f"{self.source}: layer {lay.index} {lay.name!r}: tensors were added, removed or "
                                  f"replaced; only their fields can change")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b or (isinstance(a, (int, float)) and isinstance(b, (int, float))
                                             and not isinstance(a, bool) and not isinstance(b, bool) and a == b)


def _in_float_range(value: float) -> bool:
    """TI's read mode's rule for a float field: finite and inside float (32-bit) range."""
    try:
        v = float(value)
    except OverflowError:  # an int past float range
        return False
    return math.isfinite(v) and abs(v) < _FLT_MAX


def _render(value: Any, kind: str, where: str) -> str:
    """A field's value as its line writes it; ``where`` (the function, the path, the layer, the
    field) starts every message."""
    base = kind.rstrip("*")
    if base == "int":
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise ArgumentTypeError(f"{where}: expected an int, found {type(value).__name__}")
        number = int(value)
        if not 0 <= number <= _INT_MAX:
            raise OptionError(f"{where}: expected 0..{_INT_MAX} (a 32-bit field), found {short_repr(number)}")
        return str(number)
    if base == "float":
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ArgumentTypeError(f"{where}: expected a number, found {type(value).__name__}")
        exact = int(value) if isinstance(value, numbers.Integral) else float(value)
        if not _in_float_range(exact):
            shown = short_repr(exact)
            raise OptionError(f"{where}: expected {_FLOAT_RANGE}, found {shown}")
        v = float(exact)
        if v.is_integer() and abs(v) < 2**53:
            return str(int(v))
        return repr(v)
    if base == "ident":
        if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z_]\w*", value):
            raise OptionError(f"{where}: expected an enum name such as SYMMETRIC, found {short_repr(value)}")
        return value
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{where}: expected a str, found {type(value).__name__}")
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _diff(obj: Any, attrs: dict[str, str], kinds: dict[str, str], block: _Block, lines: list[str],
          edits: dict[int, list[str]], inserts: dict[int, list[str]], where: str) -> None:
    """Record the new lines of every field of ``obj`` that differs from what was read."""
    for key, attr in attrs.items():
        now, kind = getattr(obj, attr), kinds[key]
        if _same(now, block.read.get(key)):
            continue
        if kind.endswith("*"):
            if not isinstance(now, (list, tuple)):
                raise ArgumentTypeError(f"{where}, {key}: expected a list, found "
                                        f"{type(now).__name__}")
            values = list(now)
        else:
            values = [] if now is None else [now]
        at = block.lines.get(key, [])
        anchor = at[0] if at else block.open_line
        ref = lines[anchor] if 0 <= anchor < len(lines) else (lines[0] if lines else "\n")
        eol = ref[len(ref.rstrip("\r\n")):] or "\n"
        indent = re.match(r"\s*", lines[at[0]]).group(0) if at else block.indent  # type: ignore[union-attr]
        new = [f"{indent}{key}: {_render(v, kind, f'{where}, {key}')}{eol}" for v in values]
        if at:
            edits[at[0]] = new
            for i in at[1:]:
                edits[i] = []
        else:
            inserts.setdefault(block.open_line, []).extend(new)


# ---- reading -------------------------------------------------------------------------------------

def _scalar(text: str, kind: str, source: str, lineno: int, key: str) -> Any:
    base = kind.rstrip("*")
    try:
        if base == "float":
            if len(text) > 1 and text[-1] in "fF" and text[-2:-1] not in ("", "n", "N"):  # C's 1.5f (not "inf")
                text = text[:-1]
            return read_float(text, finite=False)  # nan / inf read as written: problems() names them
        if base == "int":
            return read_int(text)
    except NumberError as exc:
        raise FormatError(source, f"line {lineno}: {key}: {exc.detail}") from None
    if base == "str":
        m = _STRING.match(text)
        if m is None:
            raise FormatError(source, f"line {lineno}: {key}: expected a quoted string, found {text[:60]!r}")
        return re.sub(r"\\(.)", lambda e: _ESCAPES.get(e.group(1), e.group(1)), m.group(1))
    if not re.fullmatch(r"[A-Za-z_]\w*|-?\d+", text):
        raise FormatError(source, f"line {lineno}: {key}: expected an enum name, found {text[:60]!r}")
    return text


def _uncomment(body: str) -> str:
    """``body`` without a trailing ``# comment`` (a '#' inside a quoted string is kept)."""
    if '"' in body:
        m = re.match(r'^([^"#]*"(?:[^"\\]|\\.)*")\s*(#.*)?$', body)
        return m.group(1) if m else body
    return body.split("#", 1)[0].rstrip() or body


def _values(text: str) -> list[str]:
    if text.startswith("[") and text.endswith("]"):
        return [v.strip() for v in text[1:-1].split(",") if v.strip()]
    return [text]


def parse_quant_params(data: bytes, source: str = "quant_params.prototxt") -> QuantParams:
    """A :class:`QuantParams` from the file's bytes (UTF-8 text, one field per line as TI writes
    it). Unknown fields and blocks are kept as they are. A :class:`~tidl_io.FormatError` naming
    the line for a malformed line, a value of the wrong kind, an unbalanced brace or a cut file."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ArgumentTypeError(f"parse_quant_params: data: expected bytes, found {type(data).__name__}")
    if len(data) > _MAX_BYTES:
        raise FormatError(source, f"{len(data)} bytes; at most {_MAX_BYTES} are read")
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError(source, f"not UTF-8 text: {exc.reason}", offset=exc.start) from None
    if text.count("\n") > _MAX_LINES:
        raise FormatError(source, f"more than {_MAX_LINES} lines; TIDL's file of a 122-layer net has 14 533")
    lines = text.splitlines(keepends=True)
    repeated = 0
    q = QuantParams(None, None, None, [], source, lines, _Block(-1, ""))
    # the stack: (kind, object or None for an unknown block, its block, 1-based line)
    stack: list[tuple[str, Any, _Block | None, int]] = [("file", q, q._block, 0)]
    for i, raw in enumerate(lines):
        body = raw.strip()
        if not body or body[0] == "#":
            continue
        if "#" in body:
            body = _uncomment(body)
        lineno = i + 1
        kind, obj, block, _ = stack[-1]
        if body[-1] == "{":
            key = body[:-1].rstrip().rstrip(":").rstrip()
            if not key.replace(".", "_").isidentifier():
                raise FormatError(source, f"line {lineno}: expected 'name {{', found {body[:60]!r}")
            if len(stack) > _MAX_DEPTH:
                raise FormatError(source, f"line {lineno}: blocks nested deeper than {_MAX_DEPTH}")
            indent = raw[:len(raw) - len(raw.lstrip())] + "  "
            if kind == "file" and key == "layers":
                lay = LayerQuantParams(len(q.layers), line=lineno, _block=_Block(i, indent))
                q.layers.append(lay)
                q._shape.append((lay, []))
                stack.append(("layer", lay, lay._block, lineno))
            elif kind == "layer" and key in _TENSOR_KINDS:
                t = TensorQuantParams(key, line=lineno, _block=_Block(i, indent))
                getattr(obj, key).append(t)
                q._shape[-1][1].append((key, t))
                stack.append(("tensor", t, t._block, lineno))
            else:
                stack.append(("unknown", None, None, lineno))
            continue
        if body == "}":
            if len(stack) == 1:
                raise FormatError(source, f"line {lineno}: '}}' closes no block")
            stack.pop()
            continue
        key, sep, value = body.partition(":")
        key, value = key.rstrip(), value.strip()
        if not sep or not key.isidentifier() or not value:
            raise FormatError(source, f"line {lineno}: expected 'name: value', 'name {{' or '}}', found "
                                      f"{body[:60]!r}")
        fields = _KIND_FIELDS.get(kind)
        if block is None or fields is None or key not in fields:
            continue  # an unknown field (or inside an unknown block): kept as it is
        ftype = fields[key]
        attr = _LAYER_KEYS.get(key, key) if kind == "layer" else key
        block.lines.setdefault(key, []).append(i)
        if ftype[-1] == "*":
            repeated += 1 + value.count(",")
            if repeated > _MAX_VALUES:
                raise FormatError(source, f"line {lineno}: more than {_MAX_VALUES} values of repeated fields (value, "
                                          f"scale, zero_point); TIDL's files have tens of thousands")
            parsed = [_scalar(v, ftype, source, lineno, key) for v in _values(value)]
            getattr(obj, attr).extend(parsed)
            block.read.setdefault(key, []).extend(parsed)
        else:
            v = _scalar(value, ftype, source, lineno, key)
            setattr(obj, attr, v)
            block.read[key] = v
    if len(stack) > 1:
        what = {"layer": "layers", "tensor": "tensor", "unknown": "block"}[stack[-1][0]]
        raise FormatError(source, f"line {stack[-1][3]}: {what} block never closed (file cut short?)")
    for key in _TOP_FIELDS:
        q._block.read.setdefault(key, None)
    for lay, tensors in q._shape:
        for key in _LAYER_FIELDS:
            lay._block.read.setdefault(key, None)
        for _, t in tensors:
            for key, ftype in _TENSOR_FIELDS.items():
                t._block.read.setdefault(key, [] if ftype.endswith("*") else None)
    return q


def load_quant_params(path: str | os.PathLike[str]) -> QuantParams:
    """:func:`parse_quant_params` of the file at ``path`` (a ``*qparams*.prototxt``)."""

    p = check_path(path, "load_quant_params", "path")
    with open_regular(p, "TIDL's quantization-parameters prototxt") as fh:
        data = read_limited(fh, _MAX_BYTES)
    return parse_quant_params(data, p)
