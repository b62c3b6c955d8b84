"""``tidl-io inspect --html`` / ``--svg``: the page holds the same tables as ``inspect
--physical`` (golden files) and one SVG per tensor, fetches nothing, escapes names, and the
command writes atomically with located errors."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

import tidl_io
from tidl_io.cli.app import main
from tidl_io.cli.html import render_html
from tidl_io.iodesc.descriptor import build, make_descriptor

from conftest import EXAMPLES, FIXTURES, GOLDEN, ROOT, corpus_params
from headless import distinct_colours, png_pixels


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


class Page(HTMLParser):
    """Tags, table rows (cell texts) and the raw SVG markup of a report."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None
        self.feed(text)
        self.close()
        self.svgs = re.findall(r"<svg .*?</svg>", text, flags=re.DOTALL)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def golden_rows(path: Path) -> list[list[str]]:
    """The table rows of the golden ``inspect --physical`` text, split on 2+ spaces."""
    rows = []
    for line in (GOLDEN / (path.name + ".txt")).read_text().splitlines():
        cells = re.split(r" {2,}", line.strip())
        if line.startswith(("  ", "    ")) and len(cells) >= 6 and not line.strip().startswith("*"):
            rows.append(cells)
    return rows


@pytest.mark.parametrize("path", corpus_params())
def test_report_tables_equal_inspect_physical_and_one_svg_per_tensor(path: Path, tmp_path: Path) -> None:
    report = tmp_path / "r.html"
    code, out, err = run("inspect", "--html", str(path), "-o", str(report))
    assert (code, out, err) == (0, "", "")
    page = Page(report.read_text(encoding="utf-8"))
    # each logical table and the physical table after it make one row of the text table
    merged = []
    for logical, physical in zip(page.tables[::2], page.tables[1::2]):
        assert [r[:2] for r in logical] == [r[:2] for r in physical]
        merged += [lr + pr[2:] for lr, pr in zip(logical, physical)]
    assert merged == golden_rows(path)
    desc = tidl_io.load(path)
    tensors = [t for part in (desc, *desc.subgraphs) for t in part.inputs + part.outputs]
    assert len(page.svgs) == len(tensors) == sum(tag == "figure" for tag, _ in page.tags)
    for svg, t in zip(page.svgs, tensors):
        root = ET.fromstring(svg)
        assert root.get("data-tensor") == t.name and int(root.get("data-index")) == t.index
    body = next(attrs for tag, attrs in page.tags if tag == "body")
    assert body["data-tidl-io-report"] == str(len(tensors))


def test_page_fetches_nothing() -> None:
    desc = tidl_io.load(EXAMPLES / "detector_tidl_io_1.bin")
    text = render_html([("d.bin", desc)])
    page = Page(text)
    tags = {tag for tag, _ in page.tags}
    assert not tags & {"script", "link", "img", "iframe", "object", "embed", "image", "use"}
    csp = [a["content"] for tag, a in page.tags if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert csp == ["default-src 'none'; style-src 'unsafe-inline'"]
    # the only URL is the SVG namespace name, which is never fetched
    assert set(re.findall(r"https?://[^\"' )]+", text)) == {"http://www.w3.org/2000/svg"}
    assert "url(" not in re.sub(r"url\(#t\d+-hatch\)", "", text)  # only in-page pattern references


def test_hostile_names_cannot_inject(tmp_path: Path) -> None:
    name = '"><script>alert(1)</script><img src=x onerror=alert(2)>\x07'
    desc = make_descriptor("10.x", inputs=[{"inDataName": name, "width": 4, "height": 2, "num_channels": 1,
                                            "channel_pitch": 8, "num_batches": 1, "dim1": 1, "dim2": 1}])
    src = tmp_path / "evil_tidl_io_1.bin"
    src.write_bytes(build(desc))
    report = tmp_path / "r.html"
    assert run("inspect", "--html", str(src), "-o", str(report))[0] == 0
    page = Page(report.read_text(encoding="utf-8"))
    assert not {tag for tag, _ in page.tags} & {"script", "img"}
    assert not any(k.startswith("on") for _, attrs in page.tags for k in attrs)
    (fig,) = [a for tag, a in page.tags if tag == "figure"]
    assert fig["data-tensor"] == name.replace("\x07", "\\x07")


def test_svg_folder_one_file_per_tensor(tmp_path: Path) -> None:
    folder = tmp_path / "pics"
    code, out, err = run("inspect", "--svg", str(FIXTURES / "container_l3_c1_tidl_io_1.bin"),
                         str(EXAMPLES), "-o", str(folder))
    assert code == 0 and err == "" and out.strip() == f"9 picture(s) written to {folder}"
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted(["container_l3_c1_tidl_io_1.input0.svg", "container_l3_c1_tidl_io_1.output0.svg",
                            "container_l3_c1_tidl_io_1.sg0.input0.svg", "container_l3_c1_tidl_io_1.sg0.output0.svg",
                            "container_l3_c1_tidl_io_1.sg1.input0.svg", "container_l3_c1_tidl_io_1.sg1.output0.svg",
                            "detector_tidl_io_1.input0.svg", "detector_tidl_io_1.output0.svg",
                            "detector_tidl_net.graph.svg"])  # the folder's net: its layer graph
    root = ET.parse(folder / "detector_tidl_io_1.input0.svg").getroot()
    assert root.get("data-tensor") == "images" and root.get("data-first-offset") == "162"


def test_html_to_stdout_and_usage_errors(tmp_path: Path) -> None:
    code, out, _ = run("inspect", "--html", str(EXAMPLES / "detector_tidl_io_1.bin"))
    assert code == 0 and out.startswith("<!DOCTYPE html>") and out.count("<svg ") == 2
    assert run("inspect", "--svg", str(EXAMPLES))[0] == 2  # --svg needs -o
    assert run("inspect", "--html", "--svg", str(EXAMPLES), "-o", str(tmp_path / "x"))[0] == 2
    assert run("inspect", "--html", "--json", str(EXAMPLES))[0] == 2
    code, _, err = run("inspect", str(EXAMPLES), "-o", str(tmp_path / "x"))
    assert code == 2 and "-o/--output goes with --html or --svg" in err


def test_bad_input_is_reported_and_the_rest_still_drawn(tmp_path: Path) -> None:
    bad = tmp_path / "bad_tidl_io_1.bin"
    bad.write_bytes(b"\0" * 100)
    report = tmp_path / "r.html"
    code, _, err = run("inspect", "--html", str(bad), str(EXAMPLES / "detector_tidl_io_1.bin"), "-o", str(report))
    assert code == 1 and err.count("\n") == 1 and "size 100 bytes matches no known layout" in err
    text = report.read_text(encoding="utf-8")
    assert text.count("<svg ") == 2 and "size 100 bytes matches no known layout" in text


def test_unwritable_destination_is_located_and_leaves_nothing(tmp_path: Path) -> None:
    dest = tmp_path / "no" / "such" / "folder" / "r.html"
    code, _, err = run("inspect", "--html", str(EXAMPLES), "-o", str(dest))
    assert code == 2 and err == f"tidl-io: error: {dest}: cannot write it: the folder '{dest.parent}' does not exist\n"
    assert list(tmp_path.iterdir()) == []


def test_output_over_an_existing_file_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = tmp_path / "r.html"
    report.write_text("old")
    from tidl_io.base import atomic

    def boom(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", boom)
    code, _, err = run("inspect", "--html", str(EXAMPLES), "-o", str(report))
    assert code == 2 and err == f"tidl-io: error: {report}: cannot write: No space left on device\n"
    assert report.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]


def test_svg_destination_that_is_a_file(tmp_path: Path) -> None:
    dest = tmp_path / "file"
    dest.write_text("x")
    code, _, err = run("inspect", "--svg", str(EXAMPLES), "-o", str(dest))
    assert code == 2 and err.startswith(f"tidl-io: error: {dest}: cannot write")


def test_artifacts_folder_gives_every_file(tmp_path: Path) -> None:
    for name in ("a_tidl_io_1.bin", "b_tidl_io_1.bin"):
        shutil.copy(FIXTURES / "v8_batch_tidl_io_1.bin", tmp_path / name)
    code, out, _ = run("inspect", "--html", str(tmp_path))
    assert code == 0 and out.count("<svg ") == 4 and out.count('<section class="descriptor"') == 2


def test_plain_inspect_does_not_import_the_pictures() -> None:
    code = ("import sys, io; from tidl_io.cli.app import main; "
            f"main(['inspect', '--physical', {str(EXAMPLES)!r}], out=io.StringIO()); "
            "print(sorted(m for m in sys.modules if m in ('tidl_io.iodesc.picture', 'tidl_io.cli.html', 'html')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert proc.stdout.strip() == "[]"


def test_readme_picture_is_small_and_not_blank() -> None:
    png = (ROOT / "docs" / "detector_input.png").read_bytes()
    assert len(png) < 300_000
    width, height, _ = png_pixels(png)
    assert width > 600 and height > 400 and distinct_colours(png) > 50
    assert "](docs/detector_input.png)" in (ROOT / "README.md").read_text(encoding="utf-8")
