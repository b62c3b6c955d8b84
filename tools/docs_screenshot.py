"""Regenerate docs/detector_input.png: headless Chromium's rendering of the input picture in
``tidl-io inspect --html tidl_io/examples/`` (the README shows it).

    python tools/docs_screenshot.py          # rewrite the PNG
    python tools/docs_screenshot.py --check  # exit 1 if the page's picture changed size

Needs Debian's ``chromium``; uses the DevTools client of tests/headless.py (standard library).
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import tidl_io
from tidl_io.base.atomic import write_bytes_atomic
from tidl_io.cli.app import main as cli_main

from headless import Browser, find_chromium, png_pixels

DEST = ROOT / "docs" / "detector_input.png"


def render() -> bytes:
    exe = find_chromium()
    if exe is None:
        raise SystemExit("chromium not found (apt-get install -y chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        err = io.StringIO()
        if cli_main(["inspect", "--html", str(Path(tidl_io.__file__).resolve().parent / "examples"), "-o", str(page)],
                    out=io.StringIO(), err=err) != 0:
            raise SystemExit(err.getvalue())
        with Browser(exe, width=1000, height=900) as b:
            b.load(page)
            x, y, w, h = b.evaluate("(() => { const r = document.querySelector('figure svg').getBoundingClientRect();"
                                    " return [r.left + scrollX, r.top + scrollY, r.width, r.height]; })()")
            return b.screenshot(clip={"x": x, "y": y, "width": w, "height": h}, fast=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare the picture's size with the stored PNG")
    args = parser.parse_args()
    png = render()
    if args.check:
        same = png_pixels(png)[:2] == png_pixels(DEST.read_bytes())[:2]
        print(f"{DEST.name}: {'same size' if same else 'size changed: regenerate it'}")
        return 0 if same else 1
    DEST.parent.mkdir(exist_ok=True)
    write_bytes_atomic(DEST, png)
    width, height, _ = png_pixels(png)
    print(f"wrote {DEST.relative_to(ROOT)}: {width}x{height}, {len(png)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
