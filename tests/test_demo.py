"""``tidl-io demo``: it runs, says what each step did, and finds the boxes it drew.

The drawn boxes come from :func:`demo_image`, checked here pixel by pixel against the
demo's colour table; the printed result must list exactly those boxes."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import numpy as np

from tidl_io.run.demo import EXAMPLES, demo_image, run_demo
from tidl_io.runtime.models import DEMO_COLORS


def test_demo_image_draws_solid_boxes() -> None:
    img, drawn = demo_image(96, 160)
    assert img.shape == (96, 160, 3) and img.dtype == np.uint8
    painted = np.full((96, 160), -1)
    for label, x0, y0, x1, y1 in drawn:  # later boxes cover earlier ones
        painted[y0:y1, x0:x1] = label
    for y in range(96):
        for x in range(160):
            if painted[y, x] >= 0:
                assert tuple(img[y, x]) == DEMO_COLORS[painted[y, x]][1]
            else:
                assert 70 <= img[y, x].min() and img[y, x].max() < 90  # grey background
    assert (painted == 1).sum() < 40 * 50  # the green box is partly hidden


def test_run_demo_reports_every_step_and_finds_the_boxes() -> None:
    out = io.StringIO()
    assert run_demo(out) == 0
    text = out.getvalue()
    for step in range(1, 9):
        assert f"[{step}] " in text
    assert "zero copy: images, detections; 0 bytes copied" in text
    assert "images memcpy, detections memcpy, 47917 bytes copied per invoke" in text  # 3 * 15779 + 145 * 4
    assert "hold the mock's poison (NaN)" in text
    assert "numDetObjects 4, objInfoSize 28, objInfoOffset 20" in text
    _, drawn = demo_image(96, 160)
    rows = re.findall(r"^\s+(\w+)\s+score ([\d.]+)\s+x\s+([\d.]+)\.\.\s*([\d.]+)\s+y\s+([\d.]+)\.\.\s*([\d.]+)\s+= drawn box",
                      text, re.MULTILINE)
    assert len(rows) == len(drawn) == 4
    found = {name: tuple(float(v) for v in coords) for name, _score, *coords in rows}
    for label, x0, y0, x1, y1 in drawn:
        assert found[DEMO_COLORS[label][0]] == (x0, x1, y0, y1)
    assert "Session.run(image) does steps 4-6 in one call: same output" in text
    assert text.rstrip().splitlines()[-1].startswith("ok: all 4 drawn boxes found")


def test_run_demo_fails_loudly_when_a_box_is_missed(tmp_path: Path) -> None:
    folder = tmp_path / "ex"
    shutil.copytree(EXAMPLES, folder)
    yaml = (folder / "param.yaml").read_text().replace("detection_threshold: 0.5", "detection_threshold: 0.9")
    (folder / "param.yaml").write_text(yaml)  # the partly hidden green box scores 0.82
    out = io.StringIO()
    assert run_demo(out, folder=folder) == 1
    assert out.getvalue().rstrip().splitlines()[-1].startswith("FAILED: 3 of 4 drawn boxes found")
