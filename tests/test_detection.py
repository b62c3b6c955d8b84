"""Detection outputs: TIDL's detection-layer format against records built independently
with ``struct.pack`` (spec §8 and TI's reference reader: records at header start +
objInfoOffset, stepped by objInfoSize; the pose in the record's last 36 bytes, TI's
test-bench reader's convention, which spec §8's "after the last used keypoint" equals when
objInfoSize = 28 + 12·nkp + 36, as TI's layer writes it), and the plain
forms (YOLOX dets/labels, TFLite PostProcess) against hand-worked rows."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest

from tidl_io import FormatError
from tidl_io.base.errors import ArgumentTypeError, BufferMismatchError
from tidl_io.data.detection import (
    Formatter,
    ObjectType,
    apply_formatter,
    build_od,
    denormalize,
    parse_od,
    rows_from_dets_labels,
    rows_from_outputs,
    rows_from_tflite,
    select,
)


def _od_bytes(records, *, nkp=0, pose=False, size=None, offset=20, count=None, otype=None, tail=0):
    """Independent encoder: header then records (7 f32, keypoints, zero fill, pose at the end).

    The pose goes in the record's LAST 36 bytes: TI's test-bench reader's convention
    (``bboxPtr + objInfoSize - sizeof(TIDL_ODLayerObjectPose)``), not spec §8's "right after
    the last used keypoint"; the two agree when size == 28 + 12·nkp + 36 (see
    test_pose_where_both_readings_agree)."""
    need = 28 + 12 * nkp + (36 if pose else 0)
    size = need if size is None else size
    otype = (1 | (4 if nkp else 0) | (8 if pose else 0)) if otype is None else otype
    n = len(records) if count is None else count
    head = struct.pack("<4fi", n, size, nkp, offset, otype)
    body = bytearray(b"\x11" * (offset - 20))  # junk between header and record 0
    for rec in records:
        r = bytearray(size)
        struct.pack_into("<7f", r, 0, *rec["box"])
        for k, kp in enumerate(rec.get("kp", [])):
            struct.pack_into("<3f", r, 28 + 12 * k, *kp)
        if pose:
            struct.pack_into("<9f", r, size - 36, *rec["pose"])
        body += r
    return head + bytes(body) + b"\0" * tail


def _rand_records(rng, k, nkp=0, pose=False):
    recs = []
    for i in range(k):
        box = [float(i), float(rng.integers(0, 90)), *np.float32(rng.random(5)).tolist()]
        rec = {"box": box, "kp": np.float32(rng.random((nkp, 3))).tolist()}
        if pose:
            rec["pose"] = np.float32(rng.normal(size=9)).tolist()
        recs.append(rec)
    return recs


@pytest.mark.parametrize("nkp,pose,extra,offset", [(0, False, 0, 20), (17, False, 8, 20), (3, True, 4, 28),
                                                    (0, True, 0, 20), (32, True, 0, 24)])
def test_parse_matches_struct_records(nkp: int, pose: bool, extra: int, offset: int) -> None:
    rng = np.random.default_rng(nkp * 10 + extra)
    recs = _rand_records(rng, 5, nkp, pose)
    size = 28 + 12 * nkp + (36 if pose else 0) + extra
    data = _od_bytes(recs, nkp=nkp, pose=pose, size=size, offset=offset, tail=12)
    od = parse_od(np.frombuffer(data, np.float32).copy() if len(data) % 4 == 0 else data)
    h = od.header
    assert (h.num_objects, h.obj_info_size, h.num_keypoints, h.obj_info_offset) == (5, size, nkp, offset)
    assert h.has_pose == pose and bool(h.object_type & ObjectType.KEYPOINTS) == bool(nkp)
    for k, rec in enumerate(recs):
        r = od.records[k]
        got = [float(r[f]) for f in ("obj_id", "label", "score", "xmin", "ymin", "xmax", "ymax")]
        assert got == rec["box"]
        if nkp:
            assert r["keypoints"].tolist() == rec["kp"]
        if pose:
            assert r["pose"].tolist() == rec["pose"]
    rows = od.rows()
    expect = [[rec["box"][3], rec["box"][4], rec["box"][5], rec["box"][6], rec["box"][1], rec["box"][2]]
              for rec in recs]
    assert rows.dtype == np.float32 and rows.tolist() == np.float32(expect).tolist()


@pytest.mark.parametrize("nkp", [0, 2, 32])
def test_pose_where_both_readings_agree(nkp: int) -> None:
    # objInfoSize exactly 28 + 12*nkp + 36 (what TI's detection layer writes): the pose is the
    # 9 floats right after the last used keypoint (spec §8) AND the record's last 36 bytes (TI's
    # reader). Encoded here by offset 28 + 12*nkp, independently of _od_bytes.
    size = 28 + 12 * nkp + 36
    rng = np.random.default_rng(40 + nkp)
    box = [[float(k), float(k + 3), *np.float32(rng.random(5)).tolist()] for k in range(3)]
    kps = [np.float32(rng.random((nkp, 3))).tolist() for _ in range(3)]
    poses = [np.float32(rng.normal(size=9)).tolist() for _ in range(3)]
    raw = bytearray(struct.pack("<4fi", 3, size, nkp, 20, 1 | 8 | (4 if nkp else 0)))
    for k in range(3):
        r = bytearray(size)
        struct.pack_into("<7f", r, 0, *box[k])
        for j, kp in enumerate(kps[k]):
            struct.pack_into("<3f", r, 28 + 12 * j, *kp)
        struct.pack_into("<9f", r, 28 + 12 * nkp, *poses[k])  # after the last used keypoint
        raw += r
    od = parse_od(bytes(raw))
    assert od.header.has_pose and od.header.obj_info_size == size
    assert od.records["pose"].tolist() == poses
    if nkp:
        assert od.records["keypoints"].tolist() == kps


def test_records_are_a_view_of_a_float32_buffer() -> None:
    data = np.frombuffer(_od_bytes(_rand_records(np.random.default_rng(1), 2)), np.float32).copy()
    od = parse_od(data)
    assert np.shares_memory(od.records, data)
    od.records["score"][0] = 0.5  # writes go through to the buffer: record 0 score is float 7
    assert data[7] == np.float32(0.5)


def test_accepts_bytes_float64_and_strided_views() -> None:
    raw = _od_bytes(_rand_records(np.random.default_rng(2), 3), tail=4)
    f32 = np.frombuffer(raw, np.float32)
    a = parse_od(raw).rows()
    b = parse_od(f32.astype(np.float64)).rows()  # a dequantized copy (scale 1) keeps the bits
    strided = np.zeros(2 * f32.size, np.float32)
    strided[::2] = f32
    c = parse_od(strided[::2]).rows()
    assert a.tolist() == b.tolist() == c.tolist()
    with pytest.raises(BufferMismatchError, match="float32 data, found dtype int32"):
        parse_od(np.zeros(10, np.int32))


def test_zero_detections() -> None:
    od = parse_od(struct.pack("<4fi", 0, 28, 0, 20, 1))
    assert len(od) == 0 and od.rows().shape == (0, 6)


def _header(n=1.0, size=28.0, nkp=0.0, off=20.0, otype=1, tail_records=1):
    return struct.pack("<4fi", n, size, nkp, off, otype) + b"\0" * (28 * tail_records)


@pytest.mark.parametrize("data,field,offset,text", [
    (_header(n=2.5), "numDetObjects", 0, "integer >= 0"),
    (_header(n=-1.0), "numDetObjects", 0, "found -1.0"),
    (_header(n=math.nan), "numDetObjects", 0, "nan"),
    (_header(size=27.0), "objInfoSize", 4, "integer >= 28"),
    (_header(size=28.5), "objInfoSize", 4, "28.5"),
    (_header(nkp=33.0), "odNumKeyPoints", 8, "0..32"),
    (_header(nkp=1.0, otype=5), "objInfoSize", 4, "cannot hold 7 floats + 1 keypoints"),
    (_header(otype=9), "objInfoSize", 4, "9-float pose"),
    (_header(off=-4.0), "objInfoOffset", 12, "integer >= 0"),
    (_header(off=8.0), "objInfoOffset", 12, "overlaps the 20-byte header"),
    (_header(off=21.5), "objInfoOffset", 12, "21.5"),
    (_header(n=2.0), "numDetObjects", 0, "end at byte 76, past the end of the 48-byte output"),
    (_header(off=24.0), "numDetObjects", 0, "record 0 starts at byte 24"),
    (_header(otype=64), "odObjectType", 16, "unknown object type bits 0x40"),
    (b"\0" * 16, "numDetObjects", 0, "20-byte header"),
])
def test_header_errors_name_offset_and_field(data: bytes, field: str, offset: int, text: str) -> None:
    with pytest.raises(FormatError) as info:
        parse_od(data, source="detections")
    msg = str(info.value)
    assert info.value.field == field and info.value.offset == offset
    assert msg.startswith(f"detections, offset {offset:#x}, {field}: ") and text in msg


def test_build_od_bytes_equal_struct_encoding() -> None:
    rng = np.random.default_rng(3)
    rows = np.float32(rng.random((4, 6))).astype(np.float64)
    kps = np.float32(rng.random((4, 2, 3))).astype(np.float64)
    pose = np.float32(rng.random((4, 9))).astype(np.float64)
    got = build_od(rows, capacity=6, num_keypoints=2, keypoints=kps, pose=pose)
    recs = [{"box": [float(k), rows[k, 4], rows[k, 5], *rows[k, :4]], "kp": kps[k].tolist(), "pose": pose[k].tolist()}
            for k in range(4)]
    expect = _od_bytes(recs, nkp=2, pose=True, tail=2 * (28 + 24 + 36))
    assert got.dtype == np.float32 and got.tobytes() == expect
    out = np.full(got.size + 3, 7.0, np.float32)
    build_od(rows, capacity=6, num_keypoints=2, keypoints=kps, pose=pose, out=out)
    assert out[: got.size].tobytes() == expect and (out[got.size:] == 7.0).all()


def test_build_od_limits() -> None:
    with pytest.raises(ValueError, match="3 detections do not fit a capacity of 2"):
        build_od(np.zeros((3, 6)), capacity=2)
    with pytest.raises(ValueError, match="multiple of 4 and >= 28"):
        build_od(np.zeros((1, 6)), obj_info_size=30)
    with pytest.raises(BufferMismatchError, match="1-D float32 array of >= 12 elements"):
        build_od(np.zeros((1, 6)), out=np.zeros(5, np.float32))


# ---- formatters and plain forms ---------------------------------------------------------

def test_formatters_from_param_yaml_values() -> None:
    sl2ls = Formatter.from_mapping({"name": "DetectionBoxSL2BoxLS", "src_indices": [5, 4], "dst_indices": [4, 5]})
    yxyx = Formatter.from_mapping({"name": "DetectionYXYX2XYXY"})  # known name: default indices
    assert (yxyx.src_indices, yxyx.dst_indices) == ((1, 0, 3, 2), (0, 1, 2, 3))
    row = np.array([[1, 2, 3, 4, 0.9, 7]], np.float32)  # x1 y1 x2 y2 score label
    assert apply_formatter(row, sl2ls).tolist() == [[1, 2, 3, 4, 7, np.float32(0.9)]]
    yx = np.array([[10, 20, 30, 40, 3, 0.5]], np.float32)  # y1 x1 y2 x2 class score
    assert apply_formatter(yx, yxyx).tolist() == [[20, 10, 40, 30, 3, 0.5]]
    assert apply_formatter(yx, None).tolist() == yx.tolist()
    with pytest.raises(FormatError, match="no src_indices/dst_indices"):
        Formatter.from_mapping({"name": "Mystery"})
    with pytest.raises(FormatError, match="2 src_indices vs 1 dst_indices"):
        Formatter.from_mapping({"name": "x", "src_indices": [1, 2], "dst_indices": [1]})
    with pytest.raises(BufferMismatchError, match="index 9 is outside rows of 6 columns"):
        apply_formatter(row, {"name": "x", "src_indices": [9], "dst_indices": [0]})


def test_yolox_dets_labels_shapes_of_od_8220() -> None:
    dets = np.zeros((1, 200, 5), np.float32)  # od-8220: dets (1, 200, 5), labels (1, 200)
    labels = np.zeros((1, 200), np.float32)
    dets[0, 0] = [5, 6, 50, 60, 0.75]
    labels[0, 0] = 3
    dets[0, 1] = [1, 1, 2, 2, 0.05]
    rows = rows_from_dets_labels(dets, labels)
    assert rows.shape == (200, 6)
    assert rows[0].tolist() == [5, 6, 50, 60, 3, 0.75]
    assert select(rows, 0.1).tolist() == [[5, 6, 50, 60, 3, 0.75]]
    with pytest.raises(BufferMismatchError, match="expected 200 labels for 200 dets, found 199"):
        rows_from_dets_labels(dets, labels[:, :199])
    with pytest.raises(BufferMismatchError, match="last axis of 5"):
        rows_from_dets_labels(np.zeros((3, 4)), np.zeros(3))


def test_tflite_postprocess_outputs_of_ssdlite() -> None:
    boxes = np.zeros((1, 1, 100, 4), np.float32)  # ssdLite: (1,1,100,4) yxyx, classes/scores (1,1,1,100)
    boxes[..., 0, :] = [0.1, 0.2, 0.3, 0.4]
    boxes[..., 1, :] = [0.5, 0.6, 0.7, 0.8]
    classes = np.zeros((1, 1, 1, 100), np.float32)
    classes[..., :2] = [17, 2]
    scores = np.zeros((1, 1, 1, 100), np.float32)
    scores[..., :2] = [0.9, 0.4]
    count = np.array([[[[2.0]]]], np.float32)
    rows = rows_from_tflite(boxes, classes, scores, count)
    assert rows.tolist() == np.float32([[0.2, 0.1, 0.4, 0.3, 17, 0.9], [0.6, 0.5, 0.8, 0.7, 2, 0.4]]).tolist()
    named = {"TFLite_Detection_PostProcess:3": count, "TFLite_Detection_PostProcess:1": classes,
             "TFLite_Detection_PostProcess:2": scores, "TFLite_Detection_PostProcess": boxes}
    assert rows_from_outputs(named).tolist() == rows.tolist()
    with pytest.raises(BufferMismatchError, match="count: expected an integer in 0..100, found 2.5"):
        rows_from_tflite(boxes, classes, scores, np.array([2.5]))
    px = denormalize(rows, 320, 240)
    assert px[0, :4].tolist() == np.float32([0.2 * 320, 0.1 * 240, 0.4 * 320, 0.3 * 240]).tolist()


def test_bad_outputs_and_formatter_arguments_raise_library_errors() -> None:
    dets = {"dets": np.zeros((3, 5)), "labels": np.zeros(3)}
    with pytest.raises(ArgumentTypeError, match="^rows_from_outputs: outputs: expected a mapping output name -> "
                                                "array .*found list"):
        rows_from_outputs([1])  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="^rows_from_outputs: formatter: expected a Formatter, a mapping .* "
                                                "found str 'name'"):
        rows_from_outputs(dets, formatter="name")  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="^apply_formatter: formatter: expected .* found int 3"):
        apply_formatter(np.zeros((1, 6)), 3)  # type: ignore[arg-type]


def test_rows_from_outputs_recognises_forms() -> None:
    single = np.zeros((1, 1, 200, 6), np.float32)  # bean detector: rows (x1 y1 x2 y2 score label)
    single[0, 0, 0] = [1, 2, 3, 4, 0.8, 5]
    assert rows_from_outputs({"detections": single})[0].tolist() == np.float32([1, 2, 3, 4, 5, 0.8]).tolist()
    od = np.frombuffer(_od_bytes([{"box": [0, 4, 0.5, 1, 2, 3, 4]}]), np.float32)
    assert rows_from_outputs({"detections": od}).tolist() == np.float32([[1, 2, 3, 4, 4, 0.5]]).tolist()
    dets = {"dets": np.zeros((2, 5)), "labels": np.zeros(2)}
    assert rows_from_outputs(dets).shape == (2, 6)
    with pytest.raises(BufferMismatchError, match="cannot tell which detection format"):
        rows_from_outputs({"a": np.zeros(3), "b": np.zeros(3)})
