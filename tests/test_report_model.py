"""The one page per model in headless Chromium: the od-8220 and EAST pages show every section
(boxes measured on the rendered page, screenshots with colours counted), nothing runs or is
fetched, a layer's links land on its rows, the od-8220 page is under 2 MB and renders in under
2 s; scope_css keeps one part's style in its section (checked on the rendered page too).

Skips without Chromium, but FAILS when ``TIDL_IO_REQUIRE_BROWSER=1`` (CI sets it)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import tidl_io
from tidl_io.overview.model import scope_css

from headless import Browser, distinct_colours, find_chromium

REQUIRED = os.environ.get("TIDL_IO_REQUIRE_BROWSER") == "1"
KEYS = ["doctor", "model", "perf", "support", "quant", "compare", "advise", "emulation"]

PROBE = """(() => {
  const secs = [...document.querySelectorAll('section.part')].map(s => {
    const r = s.getBoundingClientRect();
    return {key: s.id, status: s.className, height: r.height, width: r.width,
            missing: (s.querySelector(':scope > p.missing') || {}).textContent || null,
            pres: s.querySelectorAll('pre').length, tables: s.querySelectorAll('table').length, svgs: s.querySelectorAll('svg').length};
  });
  return {sections: secs, scripts: document.querySelectorAll('script').length,
          resources: performance.getEntriesByType('resource').length,
          handlers: [...document.querySelectorAll('*')].filter(e => [...e.attributes].some(
            a => a.name.startsWith('on'))).length};
})()"""


def test_scope_css() -> None:
    css = "\nbody{font:14px sans-serif;margin:1em;color:#111}\nh1{font-size:2em}th,td{padding:2px}tr.bad td{x:y}\n"
    assert scope_css(css, "#perf") == ("#perf{color:#111}\n#perf h1{font-size:2em}\n#perf th,#perf td{padding:2px}\n"
                                       "#perf tr.bad td{x:y}\n")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    exe = find_chromium()
    if exe is None:
        if REQUIRED:
            pytest.fail("TIDL_IO_REQUIRE_BROWSER=1 but no chromium found (apt-get install -y chromium)")
        pytest.skip("chromium not installed (CI installs it and sets TIDL_IO_REQUIRE_BROWSER=1)")
    with Browser(exe, width=1300, height=1000) as b:
        yield b


def page_of(folder: Path, tmp_path: Path) -> Path:
    dest = tmp_path / f"{folder.name}.html"
    dest.write_text(tidl_io.report(folder, check_library=False).to_html(), encoding="utf-8")
    return dest


@pytest.mark.parametrize("name, shown", [
    ("od-8220-yolox-10.0", {"doctor", "model", "perf", "support", "quant"}),
    ("edgeai-tidl-east-9.0", {"doctor", "model", "perf", "support", "quant", "emulation"})])
def test_page_shows_the_sections(browser: Browser, realdata: Path, tmp_path: Path, name: str, shown: set[str]) -> None:
    page = page_of(realdata / "net" / name, tmp_path)
    start = time.perf_counter()
    browser.load(page)
    found = browser.evaluate(PROBE)
    seconds = time.perf_counter() - start
    assert browser.console_problems() == []
    assert (found["scripts"], found["resources"], found["handlers"]) == (0, 0, 0)
    assert [s["key"] for s in found["sections"]] == KEYS
    for s in found["sections"]:
        if s["key"] in shown:  # a part with its data: tables on screen, not the "nothing to show" line
            assert s["missing"] is None and s["tables"] + s["svgs"] + s["pres"] >= 1 and s["height"] > 150, s
        else:  # says which file would fill it, and shows no empty table
            assert s["missing"].startswith("nothing to show: ") and s["tables"] == 0 and s["height"] < 200, s
    if name.startswith("od-8220"):
        assert page.stat().st_size < 2_000_000 and seconds < 2.0, (page.stat().st_size, seconds)
        perf = next(s for s in found["sections"] if s["key"] == "perf")
        assert perf["svgs"] >= 2  # the bars and the DDR traffic
    png = browser.screenshot(full_page=False)
    assert distinct_colours(png) >= 16
    for key in shown:  # each shown section, scrolled to, is not blank
        y = browser.evaluate(f"document.getElementById('{key}').getBoundingClientRect().top + window.scrollY")
        shot = browser.screenshot(clip={"x": 0, "y": y, "width": 1300, "height": 600})
        assert distinct_colours(shot) >= 8, key


def test_layer_links_land_on_rows(browser: Browser, realdata: Path, tmp_path: Path) -> None:
    browser.load(page_of(realdata / "net" / "edgeai-tidl-east-9.0", tmp_path))
    links = browser.evaluate("[...document.querySelectorAll('#model td a')].map(a => a.getAttribute('href'))")
    assert links and all(browser.evaluate(f"!!document.getElementById({h[1:]!r})") for h in links)
    assert browser.evaluate("document.querySelector('#perf tr[id]').id") == "perf-625-0"
    # one part's CSS stays in its section: quant's right-aligned cells do not reach the doctor's table
    assert browser.evaluate("getComputedStyle(document.querySelector('#quant td')).textAlign") == "right"
    assert browser.evaluate("getComputedStyle(document.querySelector('#doctor td')).textAlign") == "left"
