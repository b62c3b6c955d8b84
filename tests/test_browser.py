"""The ``inspect --html`` report in a real browser: headless Chromium renders the report of
every real descriptor, fixture and bundled example, with no console error, an SVG for every
tensor that parses as XML, and non-blank screenshots (PNG decoded with zlib, colours counted).

Skips without Chromium, but FAILS when ``TIDL_IO_REQUIRE_BROWSER=1`` (CI sets it): a check
that CI skips is not a check.
"""

from __future__ import annotations

import io
import os
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

import tidl_io
from tidl_io.cli.app import main
from tidl_io.iodesc.descriptor import build, make_descriptor

from conftest import EXAMPLES, corpus, corpus_params
from headless import Browser, distinct_colours, find_chromium, png_pixels

REQUIRED = os.environ.get("TIDL_IO_REQUIRE_BROWSER") == "1"

# In-page probe: per tensor figure, the SVG's size on screen and its markup as the browser
# serialises it; plus anything that could run or fetch.
PROBE = """(() => {
  const figs = [...document.querySelectorAll('figure')];
  return {
    marker: document.body.dataset.tidlIoReport,
    figures: figs.map(f => {
      const svgs = f.querySelectorAll('svg.tidl-io-tensor');
      const s = svgs[0];
      const r = s ? s.getBoundingClientRect() : null;
      return {tensor: f.dataset.tensor, count: svgs.length,
              box: r ? [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height] : null,
              xml: s ? new XMLSerializer().serializeToString(s) : null};
    }),
    scripts: document.querySelectorAll('script').length,
    handlers: [...document.querySelectorAll('*')].filter(e => [...e.attributes].some(
      a => a.name.startsWith('on'))).length,
    resources: performance.getEntriesByType('resource').length,
  };
})()"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    exe = find_chromium()
    if exe is None:
        if REQUIRED:
            pytest.fail("TIDL_IO_REQUIRE_BROWSER=1 but no chromium found (apt-get install -y chromium)")
        pytest.skip("chromium not installed (CI installs it and sets TIDL_IO_REQUIRE_BROWSER=1)")
    with Browser(exe, width=1000, height=900) as b:
        yield b


def report(tmp_path: Path, *paths: Path) -> Path:
    dest = tmp_path / "report.html"
    out, err = io.StringIO(), io.StringIO()
    code = main(["inspect", "--html", *map(str, paths), "-o", str(dest)], out=out, err=err)
    assert code == 0, err.getvalue()
    return dest


def tensors_of(path: Path) -> list[tidl_io.Tensor]:
    desc = tidl_io.load(path)
    return [t for part in (desc, *desc.subgraphs) for t in part.inputs + part.outputs]


def check_page(b: Browser, page: Path, tensors: list[tidl_io.Tensor]) -> dict:
    b.load(page)
    found = b.evaluate(PROBE)
    assert b.console_problems() == []
    assert found["marker"] == str(len(tensors))
    assert (found["scripts"], found["handlers"], found["resources"]) == (0, 0, 0)
    assert [f["tensor"] for f in found["figures"]] == [t.name for t in tensors]
    for fig, t in zip(found["figures"], tensors):
        assert fig["count"] == 1, f"{t.label}: {fig['count']} pictures"
        root = ET.fromstring(fig["xml"])  # the SVG as the browser holds it is well-formed XML
        assert root.get("data-tensor") == t.name and int(root.get("data-first-offset")) == t.first_offset
        assert fig["box"][2] > 300 and fig["box"][3] > 100, f"{t.label}: picture box {fig['box']}"
    return found


@pytest.mark.parametrize("path", corpus_params())
def test_report_renders_every_tensor(browser: Browser, path: Path, tmp_path: Path) -> None:
    tensors = tensors_of(path)
    found = check_page(browser, report(tmp_path, path), tensors)
    page_png = browser.screenshot(full_page=True)
    assert distinct_colours(page_png) >= 16  # text, tables and pictures, not a blank page
    for fig, t in zip(found["figures"], tensors):
        x, y, w, h = fig["box"]
        png = browser.screenshot(clip={"x": x, "y": y, "width": w, "height": h})
        width, height, _ = png_pixels(png)
        assert (width, height) == (round(w), round(h)) or abs(width - w) <= 1
        assert distinct_colours(png) >= 8, f"{t.label}: picture looks blank"


def test_one_report_of_everything(browser: Browser, tmp_path: Path) -> None:
    files = corpus()
    tensors = [t for p in files for t in tensors_of(p)]
    check_page(browser, report(tmp_path, *files), tensors)


def test_svg_files_open_on_their_own(browser: Browser, tmp_path: Path) -> None:
    folder = tmp_path / "svg"
    out, err = io.StringIO(), io.StringIO()
    assert main(["inspect", "--svg", *map(str, corpus()), "-o", str(folder)], out=out, err=err) == 0
    files = sorted(folder.glob("*.svg"))
    assert len(files) == sum(len(tensors_of(p)) for p in corpus())
    for svg in files:
        browser.load(svg)
        # an XML error would give Chromium's error page, whose root is not an <svg>
        assert browser.evaluate("document.documentElement.namespaceURI + ' ' + document.documentElement.localName") \
            == "http://www.w3.org/2000/svg svg", svg.name
        assert browser.console_problems() == [], svg.name
    png = browser.screenshot()
    assert distinct_colours(png) >= 8


def test_hostile_name_stays_text(browser: Browser, tmp_path: Path) -> None:
    name = '"><script>console.error("injected")</script><img src=x onerror=console.error(2)>'
    desc = make_descriptor("10.x", inputs=[{"inDataName": name, "width": 8, "height": 4, "num_channels": 2,
                                            "channel_pitch": 32, "num_batches": 1, "dim1": 1, "dim2": 1}])
    src = tmp_path / "evil_tidl_io_1.bin"
    src.write_bytes(build(desc))
    found = check_page(browser, report(tmp_path, src), tensors_of(src))
    assert found["figures"][0]["tensor"] == name
    assert browser.evaluate("document.querySelector('figcaption b').textContent") == name


def test_a_broken_page_is_caught(browser: Browser, tmp_path: Path) -> None:
    """The checks can fail: a fetch blocked by the page's policy is a console error."""
    page = report(tmp_path, EXAMPLES / "detector_tidl_io_1.bin")
    text = page.read_text(encoding="utf-8").replace("</body>", '<img src="https://example.invalid/x.png"></body>')
    page.write_text(text, encoding="utf-8")
    browser.load(page)
    problems = browser.console_problems()
    assert problems and "Content Security Policy" in problems[0]


NET_PROBE = """(() => {
  const s = document.querySelector('svg.tidl-io-net');
  const r = s ? s.getBoundingClientRect() : null;
  return {nets: document.querySelectorAll('svg.tidl-io-net').length,
          layers: s ? s.querySelectorAll('g[data-layer]').length : 0,
          edges: s ? s.querySelectorAll('path[data-edge]').length : 0,
          box: r ? [r.left + window.scrollX, r.top + window.scrollY, r.width, Math.min(r.height, 800)] : null,
          xml: s ? new XMLSerializer().serializeToString(s) : null,
          scripts: document.querySelectorAll('script').length,
          resources: performance.getEntriesByType('resource').length};
})()"""


def test_net_report_draws_the_layer_graph(browser: Browser, tmp_path: Path) -> None:
    """``inspect --html`` of an artifacts folder: the io tensors and the net's layer graph."""
    from net_fixtures import V1101, sample_layers

    from tidl_io.net import load_net
    from tidl_io.net.build import build_net

    folder = tmp_path / "artifacts"
    folder.mkdir()
    (folder / "m_tidl_net.bin").write_bytes(build_net(V1101, sample_layers(V1101), cores=1))
    desc = make_descriptor("10.x", inputs=[{"width": 48, "height": 32, "num_channels": 3, "channel_pitch": 1536,
                                            "num_batches": 1, "dim1": 1, "dim2": 1}])
    (folder / "m_tidl_io_1.bin").write_bytes(build(desc))
    net = load_net(folder / "m_tidl_net.bin")
    browser.load(report(tmp_path, folder))
    found = browser.evaluate(NET_PROBE)
    assert browser.console_problems() == []
    assert (found["nets"], found["scripts"], found["resources"]) == (1, 0, 0)
    assert found["layers"] == len(net.layers) and found["edges"] == len(set(net.edges))
    ET.fromstring(found["xml"])
    x, y, w, h = found["box"]
    assert w > 300 and h > 300
    png = browser.screenshot(clip={"x": x, "y": y, "width": w, "height": h})
    assert distinct_colours(png) >= 8
