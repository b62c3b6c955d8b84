"""``tidl-io quant --html`` (precision/page.py): one row per layer of paramDebug (its LayerId
column read here with the csv module, the oracle), 16-bit activations marked, the worst weight
error first, names escaped."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from tidl_io.cli.app import main
from tidl_io.precision.page import quant_body
from tidl_io.precision.report import load_quant

from conftest import REALDATA

OD = REALDATA / "net" / "od-8220-yolox-10.0"


def test_od_8220_page(tmp_path: Path) -> None:
    dest = tmp_path / "q.html"
    out, err = io.StringIO(), io.StringIO()
    assert main(["quant", str(OD), "--html", str(dest)], out=out, err=err) == 0, err.getvalue()
    page = dest.read_text(encoding="utf-8")
    with open(OD / "artifacts" / "tempDir" / "subgraph_0_tidl_net.bin_paramDebug.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    ids = {r[0].strip() for r in rows[1:] if r and r[0].strip().isdigit()}
    report = load_quant(OD)
    assert page.count("<tr") - 1 == len(report.layers) >= len(ids) > 0
    sixteen = sum(1 for lay in report.layers if lay.activation is not None and lay.activation.bits == 16)
    assert page.count('class="bits16"') == sixteen > 0
    body = quant_body(report, "quant")
    assert body.count('id="quant-subgraph_0-') == len(report.layers)
    first = report.layers[0]
    assert body.index(f'id="quant-subgraph_0-{first.index}"') < body.index(f'id="quant-subgraph_0-{report.layers[1].index}"')
