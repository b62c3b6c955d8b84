"""Object-detection outputs: TIDL's detection-layer format and the plain forms real models use.

TIDL's built-in detection post-processing writes one float32 tensor (spec §8), read from
its first valid element: a 20-byte header (``numDetObjects``, ``objInfoSize``,
``odNumKeyPoints``, ``objInfoOffset`` as float32, ``odObjectType`` as an int32 bit mask),
then one record per object at byte ``objInfoOffset + k * objInfoSize`` from the header start
(what TI's reference reader does): ObjId, label, score, xmin, ymin, xmax, ymax, then
``odNumKeyPoints`` keypoints of (x, y, confidence). With the pose bit, the pose (r11 r21
r31 r12 r22 r32 tx ty tz) is read from the record's LAST 36 bytes, as TI's test-bench
reader does (``tidl_tb_postProc``: ``objectPosePtr = bboxPtr + objInfoSize -
sizeof(TIDL_ODLayerObjectPose)``). TI's header comment (``itidl_ti.h``) and spec §8 place
it right after the last used keypoint (byte 28 + 12·odNumKeyPoints); TI's detection layer
writes ``objInfoSize = 28 + 12·numKeypoints + 36`` with the pose, where both readings are
the same bytes. They differ only for a record padded beyond that size.

>>> od = parse_od(output)                           # doctest: +SKIP
>>> od.header.num_objects, od.records["score"]      # doctest: +SKIP
(3, array([0.98, 0.97, 0.91], dtype=float32))

Many models end in plain tensors instead; :func:`rows_from_dets_labels` (YOLOX ``dets``
[K, 5] + ``labels`` [K]) and :func:`rows_from_tflite` (TFLite's four PostProcess outputs)
turn them into the rows every helper here returns: float32 [K, 6] = (x1, y1, x2, y2, label,
score). param.yaml's ``postprocess.formatter`` is applied with :func:`apply_formatter`.
"""

from __future__ import annotations

import math
import struct as _struct
from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntFlag
from typing import Any

import numpy as np

from ..base.check import as_array, wrong_kind
from ..base.errors import BufferMismatchError, FormatError, OptionError
from ..base.text import short_repr

__all__ = [
    "OD_HEADER_NBYTES",
    "ROW_COLUMNS",
    "Formatter",
    "ObjectType",
    "OdHeader",
    "OdOutput",
    "apply_formatter",
    "build_od",
    "denormalize",
    "od_record_dtype",
    "parse_od",
    "rows_from_dets_labels",
    "rows_from_outputs",
    "rows_from_tflite",
    "select",
]

OD_HEADER_NBYTES = 20
_BOX_NBYTES = 28  # ObjId, label, score, xmin, ymin, xmax, ymax
_KEYPOINT_NBYTES = 12
_POSE_NBYTES = 36
_MAX_KEYPOINTS = 32
_HEADER_FIELDS = ("numDetObjects", "objInfoSize", "odNumKeyPoints", "objInfoOffset", "odObjectType")
ROW_COLUMNS = ("x1", "y1", "x2", "y2", "label", "score")  # the columns of every rows array here


class ObjectType(IntFlag):
    """``odObjectType`` bits."""

    BOX_2D = 1
    BOX_3D = 2
    KEYPOINTS = 4
    POSE = 8
    RAW = 16


@dataclass(frozen=True)
class OdHeader:
    """The validated header: counts and byte sizes as ints, ``object_type`` as flags."""

    num_objects: int
    obj_info_size: int
    num_keypoints: int
    obj_info_offset: int
    object_type: ObjectType

    @property
    def has_pose(self) -> bool:
        return bool(self.object_type & ObjectType.POSE)


@dataclass(frozen=True, eq=False)
class OdOutput:
    """A parsed detection-layer output. ``records`` is a structured array (see
    :func:`od_record_dtype`), a view of the parsed buffer when that was contiguous."""

    header: OdHeader
    records: np.ndarray

    def __len__(self) -> int:
        return int(self.records.shape[0])

    def rows(self) -> np.ndarray:
        """A new float32 [K, 6] array (xmin, ymin, xmax, ymax, label, score)."""
        r = self.records
        cols = [r["xmin"], r["ymin"], r["xmax"], r["ymax"], r["label"], r["score"]]
        return np.stack(cols, axis=-1).astype(np.float32) if len(r) else np.zeros((0, 6), np.float32)


def od_record_dtype(obj_info_size: int, num_keypoints: int = 0, pose: bool = False) -> np.dtype:
    """The structured dtype of one record: float32 fields ``obj_id, label, score, xmin,
    ymin, xmax, ymax``, then ``keypoints`` (num_keypoints, 3) if any, ``pose`` (9,) at the
    record's last 36 bytes if ``pose`` (TI's reader; see the module docstring); itemsize
    ``obj_info_size``."""
    names = ["obj_id", "label", "score", "xmin", "ymin", "xmax", "ymax"]
    formats: list[Any] = ["<f4"] * 7
    offsets = [4 * i for i in range(7)]
    if num_keypoints:
        names.append("keypoints")
        formats.append(("<f4", (num_keypoints, 3)))
        offsets.append(_BOX_NBYTES)
    if pose:
        names.append("pose")
        formats.append(("<f4", (9,)))
        offsets.append(obj_info_size - _POSE_NBYTES)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": obj_info_size})


def _as_bytes(data: Any, source: str) -> np.ndarray:
    """A 1-D uint8 array over the float32 bytes of ``data`` (a view when possible)."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        return np.frombuffer(data, dtype=np.uint8)
    arr = as_array(data, "parse_od", "data")
    if arr.dtype.kind != "f":
        raise BufferMismatchError(f"{source}: a detection-layer output is float32 data, found dtype {arr.dtype}")
    if arr.dtype != np.float32:
        arr = arr.astype(np.float32)  # lossless for values that were float32 (dequantized with scale 1)
    arr = np.ascontiguousarray(arr.reshape(-1))
    return arr.view(np.uint8)


def _header_int(value: float, name: str, source: str, minimum: int, maximum: float = math.inf) -> int:
    offset = 4 * _HEADER_FIELDS.index(name)
    if not math.isfinite(value) or value != int(value) or not minimum <= value <= maximum:
        bound = f"an integer >= {minimum}" if maximum == math.inf else f"an integer in {minimum}..{int(maximum)}"
        raise FormatError(source, f"expected {bound} (stored as float32), found {value!r}", offset=offset,
                          field=name)
    return int(value)


def parse_od(data: Any, source: str = "detections") -> OdOutput:
    """Parse TIDL's detection-layer output from its first element.

    ``data`` is the output's valid elements (float32, any shape; a float64 copy of float32
    values is accepted) or raw bytes. Header counts and offsets are floats: a non-integral,
    negative or out-of-range value, a record size too small for its contents, or records
    running past the end raise :class:`FormatError` naming the byte offset and field.
    ``records`` is a view of ``data`` when it is a contiguous float32 array, else of a copy.
    """
    raw = _as_bytes(data, source)
    nbytes = raw.shape[0]
    if nbytes < OD_HEADER_NBYTES:
        raise FormatError(source, f"a detection-layer output needs a {OD_HEADER_NBYTES}-byte header, found "
                          f"{nbytes} bytes", offset=0, field="numDetObjects")
    head = raw[:OD_HEADER_NBYTES].tobytes()
    num_f, size_f, nkp_f, off_f = _struct.unpack_from("<4f", head)
    (otype,) = _struct.unpack_from("<i", head, 16)
    num = _header_int(num_f, "numDetObjects", source, 0)
    nkp = _header_int(nkp_f, "odNumKeyPoints", source, 0, _MAX_KEYPOINTS)
    size = _header_int(size_f, "objInfoSize", source, _BOX_NBYTES)
    offset = _header_int(off_f, "objInfoOffset", source, 0)
    flags = ObjectType(otype & 0x1F) if otype >= 0 else None
    if flags is None or otype & ~0x1F:
        raise FormatError(source, f"unknown object type bits {otype:#x} (known: 0x1f)", offset=16,
                          field="odObjectType")
    need = _BOX_NBYTES + _KEYPOINT_NBYTES * nkp + (_POSE_NBYTES if flags & ObjectType.POSE else 0)
    if size < need:
        what = f"7 floats + {nkp} keypoints" + (" + a 9-float pose" if flags & ObjectType.POSE else "")
        raise FormatError(source, f"records of {size} bytes cannot hold {what} ({need} bytes)", offset=4,
                          field="objInfoSize")
    if num and offset < OD_HEADER_NBYTES:
        raise FormatError(source, f"record 0 at byte {offset} overlaps the {OD_HEADER_NBYTES}-byte header",
                          offset=12, field="objInfoOffset")
    end = offset + num * size
    if end > nbytes:
        k = max(0, (nbytes - offset) // size)
        raise FormatError(source, f"{num} records of {size} bytes from byte {offset} end at byte {end}, past the "
                          f"end of the {nbytes}-byte output (record {k} starts at byte {offset + k * size})",
                          offset=0, field="numDetObjects")
    header = OdHeader(num, size, nkp, offset, flags)
    dtype = od_record_dtype(size, nkp, bool(flags & ObjectType.POSE))
    records = np.ndarray((num,), dtype=dtype, buffer=raw, offset=offset) if num else np.zeros(0, dtype)
    return OdOutput(header, records)


def build_od(
    rows: Any,
    *,
    capacity: int | None = None,
    num_keypoints: int = 0,
    keypoints: Any = None,
    pose: Any = None,
    obj_info_size: int | None = None,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Encode detections in TIDL's detection-layer format (what the mock's detection model writes).

    ``rows`` is [K, 6] (x1, y1, x2, y2, label, score); ObjId is the row index. ``keypoints``
    is [K, num_keypoints, 3], ``pose`` [K, 9] (sets the pose bit). Records follow the header
    (``objInfoOffset`` = 20), each ``obj_info_size`` bytes (default: just large enough).
    Returns a new float32 array of ``20/4 + capacity * obj_info_size/4`` elements (zero
    after the last record), or fills ``out`` (float32, 1-D) in place.
    """
    r = np.asarray(rows, dtype=np.float64).reshape(-1, 6)
    k = r.shape[0]
    has_pose = pose is not None
    need = _BOX_NBYTES + _KEYPOINT_NBYTES * num_keypoints + (_POSE_NBYTES if has_pose else 0)
    size = need if obj_info_size is None else int(obj_info_size)
    if size < need or size % 4:
        raise OptionError(f"build_od: obj_info_size must be a multiple of 4 and >= {need}, found {size}")
    cap = k if capacity is None else int(capacity)
    if k > cap:
        raise BufferMismatchError(f"build_od: {k} detections do not fit a capacity of {cap} records")
    total = (OD_HEADER_NBYTES + cap * size) // 4
    if out is None:
        out = np.zeros(total, np.float32)
    elif not isinstance(out, np.ndarray):
        raise wrong_kind("build_od", "out", out, "a 1-D float32 numpy array or None")
    elif out.dtype != np.float32 or out.ndim != 1 or out.shape[0] < total:
        raise BufferMismatchError(f"out: expected a 1-D float32 array of >= {total} elements, found "
                                  f"{out.dtype} {out.shape}")
    else:
        out[:total] = 0
    otype = ObjectType.BOX_2D | (ObjectType.KEYPOINTS if num_keypoints else 0) | (ObjectType.POSE if has_pose else 0)
    raw = out.view(np.uint8)
    raw[:OD_HEADER_NBYTES] = np.frombuffer(
        _struct.pack("<4fi", k, size, num_keypoints, OD_HEADER_NBYTES, int(otype)), np.uint8)
    if k:
        rec = np.ndarray((k,), dtype=od_record_dtype(size, num_keypoints, has_pose), buffer=raw,
                         offset=OD_HEADER_NBYTES)
        rec["obj_id"] = np.arange(k)
        rec["label"], rec["score"] = r[:, 4], r[:, 5]
        rec["xmin"], rec["ymin"], rec["xmax"], rec["ymax"] = r[:, 0], r[:, 1], r[:, 2], r[:, 3]
        if num_keypoints:
            rec["keypoints"] = np.asarray(keypoints, np.float64).reshape(k, num_keypoints, 3)
        if has_pose:
            rec["pose"] = np.asarray(pose, np.float64).reshape(k, 9)
    return out


# ---- plain forms ------------------------------------------------------------------------

@dataclass(frozen=True)
class Formatter:
    """param.yaml's ``postprocess.formatter``: ``row[dst] = row[src]`` (edgeai's
    DetectionFormatting), mapping a model's columns to (x1, y1, x2, y2, label, score)."""

    name: str
    src_indices: tuple[int, ...]
    dst_indices: tuple[int, ...]

    @classmethod
    def from_mapping(cls, spec: Mapping[str, Any], source: str = "param.yaml") -> Formatter:
        """From param.yaml's mapping (``name``, ``src_indices``, ``dst_indices``); the known
        names DetectionBoxSL2BoxLS and DetectionYXYX2XYXY get their default indices."""

        name = spec.get("name", "")
        name = name if isinstance(name, str) and len(name) <= 80 else short_repr(name)
        default = _FORMATTERS.get(name)
        src = spec.get("src_indices", default[0] if default else None)
        dst = spec.get("dst_indices", default[1] if default else None)
        if src is None or dst is None:
            raise FormatError(source, f"formatter {name!r} has no src_indices/dst_indices and is not one of "
                              f"{', '.join(sorted(_FORMATTERS))}", field="postprocess.formatter")
        try:
            src_t, dst_t = tuple(int(i) for i in src), tuple(int(i) for i in dst)
        except (TypeError, ValueError):
            raise FormatError(source, f"formatter {name!r}: indices must be lists of integers, found src {short_repr(src)}, "
                              f"dst {short_repr(dst)}", field="postprocess.formatter") from None
        if len(src_t) != len(dst_t):
            raise FormatError(source, f"formatter {name!r}: {len(src_t)} src_indices vs {len(dst_t)} dst_indices",
                              field="postprocess.formatter")
        return cls(name, src_t, dst_t)


_FORMATTERS: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "DetectionBoxSL2BoxLS": ((5, 4), (4, 5)),
    "DetectionYXYX2XYXY": ((1, 0, 3, 2), (0, 1, 2, 3)),
}


def apply_formatter(rows: Any, formatter: Formatter | Mapping[str, Any] | None) -> np.ndarray:
    """A new float32 [K, 6] array: ``out[:, dst] = rows[:, src]`` (a plain copy if None)."""
    r = np.asarray(rows, dtype=np.float32)
    if r.ndim != 2 or r.shape[1] < 6:
        raise BufferMismatchError(f"detection rows: expected shape [K, >=6], found {r.shape}")
    f = _formatter(formatter)
    out = np.array(r[:, :6], dtype=np.float32, copy=True)
    if f is None:
        return out
    bad = [i for i in (*f.src_indices, *f.dst_indices) if not 0 <= i < r.shape[1]]
    if bad:
        raise BufferMismatchError(f"formatter {f.name!r}: index {bad[0]} is outside rows of {r.shape[1]} columns")
    out[:, list(f.dst_indices)] = r[:, list(f.src_indices)]
    return out


def _formatter(formatter: Any, func: str = "apply_formatter") -> Formatter | None:
    """A Formatter from what the helpers accept, or an ArgumentTypeError naming the argument."""
    if formatter is None or isinstance(formatter, Formatter):
        return formatter
    if isinstance(formatter, Mapping):
        return Formatter.from_mapping(formatter)
    raise wrong_kind(func, "formatter", formatter, "a Formatter, a mapping with name/src_indices/dst_indices "
                     "(param.yaml's postprocess.formatter) or None")


def rows_from_dets_labels(dets: Any, labels: Any, formatter: Formatter | Mapping[str, Any] | None = None
                          ) -> np.ndarray:
    """YOLOX-style outputs to rows: ``dets`` [..., K, 5] (x1, y1, x2, y2, score) and
    ``labels`` [..., K] are joined to (x1, y1, x2, y2, score, label) and formatted; without a
    formatter, DetectionBoxSL2BoxLS is used (the one every such model's param.yaml names).
    Returns a new float32 [K, 6] array."""
    d = np.asarray(dets, dtype=np.float32)
    lab = np.asarray(labels, dtype=np.float32)
    if d.shape[-1] != 5:
        raise BufferMismatchError(f"dets: expected a last axis of 5 (x1, y1, x2, y2, score), found shape {d.shape}")
    d = d.reshape(-1, 5)
    lab = lab.reshape(-1)
    if lab.shape[0] != d.shape[0]:
        raise BufferMismatchError(f"labels: expected {d.shape[0]} labels for {d.shape[0]} dets, found {lab.shape[0]}")
    joined = np.concatenate([d, lab[:, None]], axis=1)
    return apply_formatter(joined, formatter if formatter is not None else _default("DetectionBoxSL2BoxLS"))


def rows_from_tflite(boxes: Any, classes: Any, scores: Any, count: Any = None,
                     formatter: Formatter | Mapping[str, Any] | None = None) -> np.ndarray:
    """TFLite ``TFLite_Detection_PostProcess`` outputs to rows: ``boxes`` [..., K, 4]
    (ymin, xmin, ymax, xmax), ``classes`` [K], ``scores`` [K], ``count`` (keeps the first
    ``count`` rows). Joined as (y1, x1, y2, x2, class, score) and formatted; without a
    formatter, DetectionYXYX2XYXY. Returns a new float32 [K, 6] array."""
    b = np.asarray(boxes, dtype=np.float32)
    if b.shape[-1] != 4:
        raise BufferMismatchError(f"boxes: expected a last axis of 4 (ymin, xmin, ymax, xmax), found {b.shape}")
    b = b.reshape(-1, 4)
    c = np.asarray(classes, dtype=np.float32).reshape(-1)
    s = np.asarray(scores, dtype=np.float32).reshape(-1)
    k = b.shape[0]
    for name, arr in (("classes", c), ("scores", s)):
        if arr.shape[0] != k:
            raise BufferMismatchError(f"{name}: expected {k} values for {k} boxes, found {arr.shape[0]}")
    if count is not None:
        n = float(np.asarray(count, dtype=np.float64).reshape(-1)[0])
        if not math.isfinite(n) or n != int(n) or not 0 <= n <= k:
            raise BufferMismatchError(f"count: expected an integer in 0..{k}, found {n!r}")
        b, c, s = b[: int(n)], c[: int(n)], s[: int(n)]
    joined = np.concatenate([b, c[:, None], s[:, None]], axis=1)
    return apply_formatter(joined, formatter if formatter is not None else _default("DetectionYXYX2XYXY"))


def _default(name: str) -> Formatter:
    src, dst = _FORMATTERS[name]
    return Formatter(name, src, dst)


def rows_from_outputs(outputs: Mapping[str, Any], formatter: Formatter | Mapping[str, Any] | None = None
                      ) -> np.ndarray:
    """Rows from a model's dequantized outputs, recognising the form by names and shapes:
    ``dets`` + ``labels``; TFLite's four PostProcess outputs (names ending ``:1`` classes,
    ``:2`` scores, ``:3`` count, and the boxes); one output whose last axis is 6 (rows of
    (x1, y1, x2, y2, score, label) before formatting); else one float output parsed as
    TIDL's detection-layer format. Returns a new float32 [K, 6] array."""
    if not isinstance(outputs, Mapping):
        raise wrong_kind("rows_from_outputs", "outputs", outputs,
                         "a mapping output name -> array (what Session.run returns)")
    formatter = _formatter(formatter, "rows_from_outputs")
    names = list(outputs)
    if "dets" in outputs and "labels" in outputs:
        return rows_from_dets_labels(outputs["dets"], outputs["labels"], formatter)
    by_suffix = {n.rsplit(":", 1)[1] if ":" in n else "": n for n in names}
    if len(names) == 4 and set(by_suffix) == {"", "1", "2", "3"}:
        return rows_from_tflite(outputs[by_suffix[""]], outputs[by_suffix["1"]], outputs[by_suffix["2"]],
                                outputs[by_suffix["3"]], formatter)
    if len(names) == 1:
        only = np.asarray(outputs[names[0]])
        if only.ndim >= 2 and only.shape[-1] == 6:
            return apply_formatter(only.reshape(-1, 6),
                                   formatter if formatter is not None else _default("DetectionBoxSL2BoxLS"))
        return parse_od(only, source=names[0]).rows()  # already (x1, y1, x2, y2, label, score)
    shapes = ", ".join(f"{n!r} {np.shape(outputs[n])}" for n in names)
    raise BufferMismatchError(f"cannot tell which detection format these outputs are: {shapes}; call "
                              f"parse_od, rows_from_dets_labels or rows_from_tflite directly")


def select(rows: Any, threshold: float) -> np.ndarray:
    """The rows whose score (column 5) is >= ``threshold``, in order (a new array)."""
    r = np.asarray(rows, dtype=np.float32).reshape(-1, 6)
    return r[r[:, 5] >= threshold].copy()


def denormalize(rows: Any, width: float, height: float) -> np.ndarray:
    """Boxes in [0, 1] (``normalized_detections: true``) to pixels: x * width, y * height
    (a new array)."""
    r = np.array(np.asarray(rows, dtype=np.float32).reshape(-1, 6), copy=True)
    r[:, [0, 2]] *= np.float32(width)
    r[:, [1, 3]] *= np.float32(height)
    return r
