"""The compare adapter (tidl_io.advisor.source): hand-made documents in both spellings of a
non-finite SNR (numbers or null with "identical", and the older "inf" strings), located errors."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tidl_io import FormatError, PathError
from tidl_io.advisor.source import measured_rows, read_compare


def _row(**kw: Any) -> dict[str, Any]:
    row = {"index": 3, "data_id": 4, "name": "conv", "type": "TIDL_ConvolutionLayer", "status": "compared",
           "snr_db": 21.5, "mean_abs": 0.25, "worst_channel": 2, "worst_channel_snr_db": 9.0, "saturated": 0.125}
    row.update(kw)
    return row


def test_rows() -> None:
    doc = {"layers": [_row(), _row(index=5, status="no reference", snr_db=None)]}
    (m,) = measured_rows(doc)
    assert (m.index, m.data_id, m.name, m.type, m.snr_db, m.finite, m.mean_abs, m.worst_channel,
            m.worst_channel_snr_db, m.saturated) == (3, 4, "conv", "TIDL_ConvolutionLayer", 21.5, True, 0.25, 2, 9.0,
                                                    0.125)


def test_the_worst_channel_is_the_one_compare_counts() -> None:
    """Zero-DCE's concat layer 10 (review): channel 35 is 0.0 dB but below one step, so compare counts
    channel 43 (21.1 dB); advise showed 35: 0.0. A report without the counted keys: the worst of all."""
    counted = _row(worst_channel=35, worst_channel_snr_db=0.0, worst_counted_channel=43,
                   worst_counted_channel_snr_db=21.1, channels_below_one_step=[35])
    quiet = _row(worst_counted_channel=None, worst_counted_channel_snr_db=None)  # every channel below one step
    m, q, old = measured_rows({"layers": [counted, quiet, _row()]})
    assert (m.worst_channel, m.worst_channel_snr_db) == (43, 21.1)
    assert (q.worst_channel, q.worst_channel_snr_db) == (None, None)
    assert (old.worst_channel, old.worst_channel_snr_db) == (2, 9.0)
    with pytest.raises(FormatError, match=r"layers\[0\]: worst_counted_channel: expected a whole number"):
        measured_rows({"layers": [_row(worst_counted_channel="43")]})


@pytest.mark.parametrize(("snr", "identical", "expect"), [
    (None, True, (None, True)), (None, None, (None, True)), (None, False, (None, False)),
    ("inf", None, (None, True)), ("-inf", None, (None, False)), ("nan", None, (None, False)),
])
def test_non_finite(snr: Any, identical: Any, expect: tuple[Any, bool]) -> None:
    row = _row(snr_db=snr)
    if identical is not None:
        row["identical"] = identical
    (m,) = measured_rows({"layers": [row]})
    assert (m.snr_db, m.finite) == expect


def test_report_object_with_to_dict() -> None:
    class Report:
        def to_dict(self) -> dict[str, Any]:
            return {"layers": [_row()]}

    assert measured_rows(Report())[0].index == 3


@pytest.mark.parametrize(("doc", "message"), [
    ([], "expected a compare report"),
    ({"rows": []}, "no 'layers' list"),
    ({"layers": [7]}, "layers[0]: expected an object"),
    ({"layers": [_row(index=None)]}, "layers[0]: index"),
    ({"layers": [_row(snr_db="loud")]}, "layers[0]: snr_db: expected a number or null"),
    ({"layers": [_row(snr_db=True)]}, "layers[0]: snr_db"),
    ({"layers": [_row(), _row(worst_channel=1.5)]}, "layers[1]: worst_channel"),
    ({"layers": [_row(name=3)]}, "layers[0]: name: expected a string"),
])
def test_malformed_rows_are_located(doc: Any, message: str) -> None:
    with pytest.raises(FormatError, match="report.json") as exc:
        measured_rows(doc, "report.json")
    assert message in str(exc.value)


def test_read_compare(tmp_path: Path) -> None:
    p = tmp_path / "c.json"
    p.write_text(json.dumps({"layers": [_row()]}))
    assert measured_rows(read_compare(p))[0].snr_db == 21.5
    p.write_text('{"layers": [\n  {"index": 1,,}]}')
    with pytest.raises(FormatError, match=r"c\.json: line 2, column 15: not JSON"):
        read_compare(p)
    p.write_text("[1, 2]")
    with pytest.raises(FormatError, match="expected the JSON object"):
        read_compare(p)
    p.write_text("[" * 100000)
    with pytest.raises(FormatError, match="c.json"):
        read_compare(p)
    with pytest.raises(PathError):
        read_compare(tmp_path / "missing.json")
    with pytest.raises(PathError):
        read_compare(tmp_path)


@pytest.mark.parametrize("number, says", [
    ("9" * 5000, "a number: expected a whole number of at most 24 digits, found '9999"),  # was ValueError
    ("1e999999999", "a number: expected a finite number (an exponent within ±400)"),
    ("1" + "0" * 400 + ".5", "a number: expected a number of at most 400 characters"),
])
def test_read_compare_bounds_its_numbers(tmp_path: Path, number: str, says: str) -> None:
    path = tmp_path / "report.json"
    path.write_text('{"layers": [{"index": 0, "status": "compared", "snr_db": ' + number + "}]}")
    with pytest.raises(FormatError, match=re.escape(says)) as err:
        read_compare(path)
    assert str(err.value).startswith(str(path)) and len(str(err.value)) < 400


def test_measured_rows_refuses_an_int_no_float_holds() -> None:
    doc = {"layers": [{"index": 0, "status": "compared", "snr_db": 10 ** 400}]}
    with pytest.raises(FormatError, match=r"layers\[0\]: snr_db: expected a finite number"):
        measured_rows(doc)


def _bounded(fn: Any) -> tuple[BaseException | None, int]:
    """(what ``fn()`` raised, the tracemalloc peak in bytes)."""
    import tracemalloc

    tracemalloc.start()
    try:
        fn()
        raised = None
    except Exception as exc:  # noqa: BLE001 - the test looks at it
        raised = exc
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return raised, peak


def test_read_compare_is_bounded_before_it_reads(tmp_path: Path) -> None:
    """Issue 32 item 13: a 256 MiB report is refused from its size alone (it was read whole, ~1 GB
    with the decode and the parse); one under the size cap with more values than a report of a
    very large net holds is refused from a count of its bytes, before the parse allocates them."""
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:
        fh.truncate(256 << 20)  # sparse: no disk used
    raised, peak = _bounded(lambda: read_compare(big))
    assert isinstance(raised, FormatError) and "268435456 bytes: a compare report is at most 32 MiB" in str(raised)
    assert peak < 1 << 20
    many = tmp_path / "many.json"
    many.write_text('{"layers": [' + ",".join(["{}"] * 300_000) + "]}")
    raised, peak = _bounded(lambda: read_compare(many))
    assert isinstance(raised, FormatError) and str(many) in str(raised) and "arrays/objects" in str(raised)
    assert peak < 8 << 20  # the file's bytes, never its objects
    fine = tmp_path / "fine.json"
    fine.write_text('{"layers": [' + ",".join(['{"index": 1, "channel_snr_db": [1.5, 2.5]}'] * 100_000) + "]}")
    assert len(read_compare(fine)["layers"]) == 100_000  # 100 000 layers of a real shape still read
