"""``tidl-io demo``: one image through a small detector on the mock C7x runtime.

The bundled example (``tidl_io/examples/``: a TIDL 10.x io descriptor with a padded uint8
input and TIDL's detection-layer output, its ``param.yaml`` and ``onnxrtMetaData.txt``)
is run end to end on a procedurally drawn image, printing each step: what the descriptor
says, what param.yaml decides, packing into the padded buffer, the invoke (zero copy or
not, bytes, times), unpacking, parsing the detection records, and the result checked
against the boxes that were drawn. No board, no network file, no image file needed.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TextIO

import numpy as np

from ..data.buffers import pack, unpack
from ..data.detection import denormalize, parse_od, select
from ..data.padding import check_padding
from ..runtime.models import DEMO_COLORS
from .session import Session

__all__ = ["EXAMPLES", "demo_image", "run_demo"]

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
"""The bundled example artifacts folder."""

# (colour index, x0, y0, x1, y1) in pixels, end exclusive. Green is partly hidden by blue.
_BOXES = ((0, 12, 10, 52, 40), (1, 70, 20, 110, 70), (2, 96, 44, 140, 84), (3, 20, 60, 44, 88))


def demo_image(height: int = 96, width: int = 160, seed: int = 0
               ) -> tuple[np.ndarray, list[tuple[int, int, int, int, int]]]:
    """A new HWC uint8 RGB image: a noisy grey background and solid coloured boxes.
    Returns the image and the boxes as drawn ``(label, x0, y0, x1, y1)`` (end exclusive)."""
    rng = np.random.default_rng(seed)
    img = (rng.integers(70, 90, size=(height, width, 3))).astype(np.uint8)
    drawn = []
    for label, x0, y0, x1, y1 in _BOXES:
        x1, y1 = min(x1, width), min(y1, height)
        img[y0:y1, x0:x1] = DEMO_COLORS[label][1]
        drawn.append((label, x0, y0, x1, y1))
    return img, drawn


def _yaml(value: object) -> str:
    return "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms"


def run_demo(out: TextIO = sys.stdout, *, folder: str | Path | None = None, seed: int = 0) -> int:
    """Run the demo, printing to ``out``. Returns 0 when every drawn box is found, else 1."""
    t_start = time.perf_counter()
    folder = Path(folder) if folder is not None else EXAMPLES

    def say(text: str = "") -> None:
        print(text, file=out)

    say("tidl-io demo: one image through a detector on the mock C7x runtime (no board needed)")
    say()
    t0 = time.perf_counter()
    session = Session(folder, model="detection")
    t_open = time.perf_counter() - t0
    with session:
        desc = session.descriptors[0]
        tin, tout = desc.inputs[0], desc.outputs[0]
        io_file = session.artifacts.io_files[0]
        say(f"[1] descriptor  {io_file.name}: {desc.layout.description}; session opened in {_ms(t_open)}")
        for t in (tin, tout):
            pads = f"pads L{t.pad_l} T{t.pad_t} R{t.pad_r} B{t.pad_b}" + (f" Ch{t.pad_ch}" if t.kind == "output" else "")
            say(f"      {t.kind:6s} {t.index} {t.name!r}: {t.dtype} {t.layout} shape {t.shape[3:] if t.kind == 'input' else (t.size,)}, "
                f"scale {t.scale:g}; {pads}, channel pitch {t.channel_pitch}; buffer {t.buffer_size} elements "
                f"({t.buffer_nbytes} bytes) for {t.size} values")
        p = session.params
        say(f"[2] param.yaml  input_optimization {_yaml(p.input_optimization)}: "
            + ("mean/scale are folded into the network, raw pixels go in" if not session.normalize
               else "the session normalises (x - mean) * scale")
            + f"; reverse_channels {_yaml(session.reverse_channels)}; normalized_detections "
              f"{_yaml(p.normalized_detections)}; detection_threshold {p.detection_threshold}")
        for note in session.notes:
            say(f"      note: {note}")

        h, w = tin.height, tin.width
        image, drawn = demo_image(h, w, seed)
        say(f"[3] image       generated {h}x{w} RGB uint8 (HWC) with {len(drawn)} boxes: "
            + ", ".join(f"{DEMO_COLORS[lab][0]} x {x0}..{x1} y {y0}..{y1}" for lab, x0, y0, x1, y1 in drawn))

        in_bufs, out_bufs = session.buffers()
        buf_in, buf_out = in_bufs[tin.name], out_bufs[tout.name]
        runtime = session.runtimes[0]
        t0 = time.perf_counter()
        pack(tin, image, out=buf_in, layout="HWC")
        t_pack = time.perf_counter() - t0
        padding = check_padding(tin, buf_in)
        say(f"[4] pack        HWC {image.shape} -> NCHW into the padded buffer: {tin.size} of {tin.buffer_size} "
            f"elements written, {padding.checked} pad elements left zero ({'clean' if padding.clean else 'DIRTY'}); "
            f"{_ms(t_pack)}")

        report = runtime.invoke(in_bufs, out_bufs)
        zero = ", ".join(report.zero_copy) or "none"
        say(f"[5] invoke      buffers from alloc_shared, so zero copy: {zero}; {report.bytes_copied} bytes copied; "
            f"device {_ms(report.device_seconds)} (model {_ms(report.model_seconds)}); runtime overhead "
            f"{report.overhead_seconds * 1e6:.0f} us (first invoke)")
        user_in = np.zeros_like(buf_in)
        np.copyto(user_in, buf_in)
        user_out = np.zeros_like(buf_out)
        copy_report = runtime.invoke({tin.name: user_in}, {tout.name: user_out})
        say(f"      (the same buffers in ordinary memory instead of alloc_shared: "
            f"{', '.join(f'{t.name} {t.path}' for t in copy_report.transfers)}, {copy_report.bytes_copied} bytes "
            f"copied per invoke)")

        t0 = time.perf_counter()
        values = unpack(tout, buf_out)
        t_unpack = time.perf_counter() - t0
        pad_view = buf_out[tout.size:]
        say(f"[6] unpack      {tout.name!r} -> float32 {values.shape} (scale {tout.scale:g}: values as stored); "
            f"{_ms(t_unpack)}. The {pad_view.size} pad elements after it hold the mock's poison "
            f"({'NaN' if np.isnan(pad_view).all() else 'not NaN'}): code that reads pads is caught")

        od = parse_od(values, source=tout.name)
        hd = od.header
        say(f"[7] parse       TIDL detection layer: numDetObjects {hd.num_objects}, objInfoSize {hd.obj_info_size}, "
            f"objInfoOffset {hd.obj_info_offset}, keypoints {hd.num_keypoints}")
        threshold = p.detection_threshold if p.detection_threshold is not None else 0.5
        rows = select(od.rows(), threshold)
        if p.normalized_detections:
            rows = denormalize(rows, w, h)

        say(f"[8] result      {len(rows)} object(s) with score >= {threshold} (boxes in pixels):")
        found = 0
        for x1, y1, x2, y2, label, score in rows.tolist():
            name = DEMO_COLORS[int(label)][0] if 0 <= int(label) < len(DEMO_COLORS) else str(int(label))
            match = [d for d in drawn if d[0] == int(label)]
            ok = bool(match) and np.allclose((x1, y1, x2, y2), match[0][1:], atol=0.5)
            found += ok
            say(f"      {name:7s} score {score:.2f}  x {x1:6.1f}..{x2:6.1f}  y {y1:6.1f}..{y2:6.1f}  "
                f"{'= drawn box' if ok else 'does not match a drawn box'}")

        again = session.run(image, layout="HWC")[tout.name]
        same = np.array_equal(again, values, equal_nan=True)
        say(f"    Session.run(image) does steps 4-6 in one call: {'same' if same else 'DIFFERENT'} output")
    total = time.perf_counter() - t_start
    say()
    if found == len(drawn) and len(rows) == len(drawn) and same:
        say(f"ok: all {len(drawn)} drawn boxes found ({_ms(total)} in all)")
        return 0
    say(f"FAILED: {found} of {len(drawn)} drawn boxes found ({_ms(total)} in all)")
    return 1
