"""The compare report (tidl_io.trace.report): JSON, text and the self-contained HTML page,
checked as data and, in headless Chromium, as a rendered page."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from tidl_io.iodesc.format import dumps_json
from tidl_io.trace.compare import CompareReport, Row, _add_histograms
from tidl_io.trace.metrics import compare_arrays
from tidl_io.trace.report import format_report, render_html, report_to_dict

from headless import Browser, distinct_colours, find_chromium

NASTY = 'conv<script>alert(1)</script>&"x"'


def _report() -> CompareReport:
    rng = np.random.default_rng(0)
    rep = CompareReport("golden.npz of m.tflite (NHWC)", "traces in t", 20.0)
    ref = rng.normal(size=(1, 4, 8, 8)).astype(np.float32)
    rows = [Row(0, 0, "input", "TIDL_DataLayer", (1, 4, 8, 8), "compared", compare_arrays(ref, ref.copy()), "y")]
    bad = ref + rng.normal(scale=0.01, size=ref.shape).astype(np.float32)
    bad[0, 2] = 0
    rows.append(Row(1, 7, NASTY, "TIDL_ConvolutionLayer", (1, 4, 8, 8), "compared", compare_arrays(ref, bad), "y"))
    rows.append(Row(2, 8, "missing", "TIDL_ReluLayer", (1, 4, 8, 8), "no reference",
                    note="no reference: no golden tensor named 'missing'"))
    for r in rows:
        r.bad = r.metrics is not None and r.metrics.below(rep.min_snr_db)
    rep.rows = rows
    _add_histograms(rep, rows[1], ref, bad, 1)
    rep.warnings.append("f.y: 3 bytes fits layer 9 neither dense nor padded")
    return rep


def test_json_document() -> None:
    doc = json.loads(dumps_json(report_to_dict(_report())))
    assert doc["first_bad"] == {"index": 1, "data_id": 7, "name": NASTY}
    first, second, third = doc["layers"]
    # issue 24 item 3: +inf is null, never the string "inf"; "identical" tells +inf from -inf / NaN
    assert first["snr_db"] is None and first["worst_channel_snr_db"] is None and first["cosine"] == 1.0
    assert first["identical"] is True and first["identical_channels"] == [0, 1, 2, 3]
    assert second["identical"] is False and second["identical_channels"] == []
    assert second["worst_channel"] == 2 and second["worst_channel_snr_db"] == 0.0 and second["below_min_snr"]
    assert third["status"] == "no reference" and third["snr_db"] is None
    assert doc["unmatched"] == [{"index": 2, "data_id": 8, "name": "missing", "status": "no reference",
                                 "note": "no reference: no golden tensor named 'missing'"}]
    assert doc["warnings"] and doc["min_snr_db"] == 20.0
    json.dumps(doc, allow_nan=False)  # strict JSON


def test_text() -> None:
    text = format_report(_report())
    assert "first bad (SNR or a channel's SNR < 20 dB): layer 1, dataId 7" in text and "worst channel 2 at 0.0 dB" in text
    assert "not compared: layer 2 (dataId 8) 'missing': no reference" in text
    assert "warning: f.y: 3 bytes" in text


def test_html_is_self_contained() -> None:
    page = render_html(_report())
    assert "default-src 'none'" in page and "<script" not in page and "&lt;script&gt;" in page
    assert page.count("<svg") == 3  # SNR per layer + two histograms (layer, worst channel)
    for svg in page.split("<svg")[1:]:
        ET.fromstring("<svg" + svg.split("</svg>")[0] + "</svg>")  # each picture is XML
    assert 'class="bad"' in page and "not compared: layer 2" in page
    for attr in ("src=", "href="):
        assert attr not in page


def test_html_in_chromium(tmp_path: Path) -> None:
    exe = find_chromium()
    if exe is None:
        if os.environ.get("TIDL_IO_REQUIRE_BROWSER") == "1":
            pytest.fail("TIDL_IO_REQUIRE_BROWSER=1 but no chromium found (apt-get install -y chromium)")
        pytest.skip("chromium not installed (CI installs it and sets TIDL_IO_REQUIRE_BROWSER=1)")
    page = tmp_path / "report.html"
    page.write_text(render_html(_report()), encoding="utf-8")
    with Browser(exe, width=1000, height=1200) as b:
        b.load(page)
        found = b.evaluate("""(() => ({
            marker: document.body.dataset.tidlIoCompare,
            svgs: [...document.querySelectorAll('svg')].map(s => { const r = s.getBoundingClientRect();
                                                             return [r.width, r.height]; }),
            dots: document.querySelectorAll('svg.snr circle').length,
            rows: document.querySelectorAll('tbody tr').length,
            bad: document.querySelectorAll('tbody tr.bad').length,
            scripts: document.querySelectorAll('script').length,
            resources: performance.getEntriesByType('resource').length }))()""")
        assert b.console_problems() == []
        assert found["marker"] == "3" and found["rows"] == 3 and found["bad"] == 1 and found["dots"] == 2
        assert (found["scripts"], found["resources"]) == (0, 0)
        assert len(found["svgs"]) == 3 and all(w > 300 and h > 150 for w, h in found["svgs"])
        assert distinct_colours(b.screenshot()) > 8


def test_names_from_files_never_drive_the_terminal() -> None:
    """Issue 24 item 16 in compare's text: a name holding ESC or a newline is printed escaped."""
    rep = _report()
    rep.notes.append("1 file(s) with no trace name ignored: x\x1b[2J\ny.txt")
    rep.rows[2].name = "evil\x1b[2Jname\nsecond"
    text = format_report(rep)
    assert "\x1b" not in text and "x\\x1b[2J\\ny.txt" in text and "evil\\x1b[2Jname\\nsecond" in text


def test_repr_is_short_and_says_what_the_report_is() -> None:
    """A report of 2000 rows (its dataclass repr printed every row: ~40 KB on Zero-DCE)."""
    rows = [Row(k, k, f"layer{k}", "TIDL_ConvolutionLayer", (1, 8, 4, 4), "no reference") for k in range(2000)]
    rows[7].bad = True
    rep = CompareReport("golden.npz of m.tflite (NHWC)", "traces in t (net 74_tidl_net.bin)", 20.0, rows=rows)
    text = repr(rep)
    assert len(text) <= 300 and text.startswith("CompareReport('traces in t (net 74_tidl_net.bin)'")
    for part in ("reference='golden.npz of m.tflite (NHWC)'", "rows=2000", "compared=0", "first_bad=7", "ok=False"):
        assert part in text
