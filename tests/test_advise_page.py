"""``tidl-io advise --html`` (advisor/page.py) on the hand-made model (tests/advise_fixtures.py):
the picked layers marked in the order the JSON ranks them, the ready line shown."""

from __future__ import annotations

import io
import json
from pathlib import Path

from advise_fixtures import write_model

from tidl_io.cli.app import main


def test_page_marks_the_picked_layers(tmp_path: Path) -> None:
    art = write_model(tmp_path)
    dest = tmp_path / "a.html"
    out, err = io.StringIO(), io.StringIO()
    assert main(["advise", str(art), "--compare", str(art / "compare.json"), "--json", "--html", str(dest)],
                out=out, err=err) == 0, err.getvalue()
    doc = json.loads(out.getvalue())
    page = dest.read_text(encoding="utf-8")
    assert page.count('<tr class="picked"') == len(doc["picked"]) == 3
    assert "advanced_options:output_feature_16bit_names_list: &#x27;conv2,conv5,conv3&#x27;" in page
    rows = [page.index(f"<td>{name}</td>") for name in doc["picked"]]
    assert rows == sorted(rows)
    out, err = io.StringIO(), io.StringIO()
    assert main(["advise", str(art), "--compare", str(art / "compare.json"), "--html", str(tmp_path / "x" / "a.html")],
                out=out, err=err) == 2 and "does not exist" in err.getvalue() and out.getvalue() == ""
