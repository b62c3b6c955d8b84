"""tidl_io.perf.page: the --html page is self-contained (no script, nothing fetched), every
picture is XML, and in headless Chromium it shows a bar per timed layer stacked by cycle kind
whose widths are proportional to the fixture's cycles, DDR bars, coloured memory cells.

The browser part skips without Chromium, but FAILS when ``TIDL_IO_REQUIRE_BROWSER=1`` (CI)."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tidl_io import load_perf

from headless import Browser, distinct_colours, find_chromium
from perf_fixtures import write_tiny


def test_page_is_self_contained(tmp_path: Path) -> None:
    folder = write_tiny(tmp_path)
    info = folder / "tempDir" / "tiny_tidl_net.bin.layer_info.txt"
    info.write_text(info.read_text().replace("conv1", "<script>x</script>"))
    page = load_perf(folder).to_html()
    assert "default-src 'none'" in page and "<script>" not in page and "&lt;script&gt;" in page
    assert page.count("<svg") == 2  # cycles, DDR
    for svg in page.split("<svg")[1:]:
        ET.fromstring("<svg" + svg.split("</svg>")[0] + "</svg>")
    for attr in ("src=", "href="):
        assert attr not in page
    assert 'data-tidl-io-perf="4"' in page


def test_page_without_a_simulation(tmp_path: Path) -> None:
    page = load_perf(write_tiny(tmp_path, sim=False)).to_html()
    assert "<svg" not in page and "no simulation" in page and "background:#fed7d7" in page  # DDR cells coloured


def test_page_in_chromium(tmp_path: Path) -> None:
    exe = find_chromium()
    if exe is None:
        if os.environ.get("TIDL_IO_REQUIRE_BROWSER") == "1":
            pytest.fail("TIDL_IO_REQUIRE_BROWSER=1 but no chromium found (apt-get install -y chromium)")
        pytest.skip("chromium not installed (CI installs it and sets TIDL_IO_REQUIRE_BROWSER=1)")
    page = tmp_path / "perf.html"
    page.write_text(load_perf(write_tiny(tmp_path / "art")).to_html(), encoding="utf-8")
    with Browser(exe, width=1200, height=1000) as b:
        b.load(page)
        found = b.evaluate("""(() => {
            const widths = g => Object.fromEntries([...g.querySelectorAll('rect')].map(
                r => [r.getAttribute('class'), r.getBoundingClientRect().width]));
            return {
              marker: document.body.dataset.tidlIoPerf,
              bars: [...document.querySelectorAll('svg.tidl-io-perf-cycles g.layer')].map(
                g => [g.dataset.index, widths(g)]),
              ddr: [...document.querySelectorAll('svg.tidl-io-perf-ddr g.layer')].map(g => [g.dataset.index, widths(g)]),
              rows: document.querySelectorAll('tbody tr').length,
              coloured: [...document.querySelectorAll('td.mem')].filter(
                td => getComputedStyle(td).backgroundColor !== 'rgba(0, 0, 0, 0)').length,
              scripts: document.querySelectorAll('script').length,
              resources: performance.getEntriesByType('resource').length};
        })()""")
        assert b.console_problems() == []
        assert found["marker"] == "4" and found["rows"] == 4
        assert (found["scripts"], found["resources"]) == (0, 0)
        bars = dict(found["bars"])
        assert list(bars) == ["0", "1", "2", "3"]
        assert bars["0"] == {} and bars["3"] == {}  # data layers: no cycles
        conv1, conv2 = bars["1"], bars["2"]
        assert set(conv1) == {"kernel", "wait", "setup", "dma"} and set(conv2) == {"kernel", "setup", "dma"}
        # widths in the fixture's proportions: conv2's kernel 280000 cycles is the widest bar part
        unit = conv2["kernel"] / 280000
        for part, cycles in (("kernel", 40000), ("wait", 60000), ("setup", 8000), ("dma", 12500)):
            assert conv1[part] == pytest.approx(cycles * unit, abs=0.6), part
        ddr = dict(found["ddr"])
        assert ddr["1"]["read"] == pytest.approx(ddr["1"]["write"] * 5, abs=0.6)  # 0.25 MB read, 0.05 written
        assert found["coloured"] == 4 * 6 - 4  # every memory cell but the four NONE sides
        assert distinct_colours(b.screenshot()) > 8
