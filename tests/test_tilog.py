"""tidl_io.base.tilog: what every reader of TI's text logs shares. Expected values are written
here: columns counted by hand on the literal lines, messages as a user reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tidl_io.base.errors import FormatError, PathNotFoundError
from tidl_io.base.tilog import (
    MAX_TEXT_BYTES,
    Row,
    decode,
    fields,
    located,
    read_text,
    split_lines,
    to_decimal,
    to_float,
    to_int,
)


def test_located_names_file_line_column_and_field() -> None:
    err = located("log.txt", 7, "expected a number, found 'x'", 12, "MACs")
    assert isinstance(err, FormatError)
    assert str(err).startswith("log.txt") and "line 7, column 12 (MACs)" in str(err)
    assert "expected a number, found 'x'" in str(err)
    assert "column" not in str(located("log.txt", 3, "empty"))


def test_decode_refuses_bytes_that_are_not_utf8_at_their_line() -> None:
    assert decode("a,b\nµ\n".encode(), "f") == "a,b\nµ\n"
    with pytest.raises(FormatError) as err:
        decode(b"ok\nok\n\xff bad\n", "f.csv")
    assert "byte 0xff is not UTF-8 text" in str(err.value) and "line 3" in str(err.value)


def test_fields_give_the_column_of_each_padded_field() -> None:
    #        1234567890123456
    line = "  12,   conv1 ,x"
    assert fields(line) == [(3, "12"), (9, "conv1"), (16, "x")]
    assert fields("a b", " ") == [(1, "a"), (3, "b")]


def test_row_reads_numbers_and_locates_the_bad_one() -> None:
    row = Row(" 3 ,  4.5, ff ,  oops", 9, "sim.csv")
    assert len(row) == 4 and row.texts == ["3", "4.5", "ff", "oops"]
    assert row.whole(0, "layer") == 3 and row.number(1, "time") == 4.5 and row.whole(2, "addr", base=16) == 255
    assert row.column(3) == 18  # " 3 ,  4.5, ff ," is 15 characters, two blanks, then "oops"
    with pytest.raises(FormatError) as err:
        row.number(3, "cycles")
    assert "line 9, column 18 (cycles)" in str(err.value) and "expected a number, found 'oops'" in str(err.value)


def test_split_lines_refuses_an_empty_or_cut_log() -> None:
    assert split_lines("a\nb\n", "f", "a log") == ["a", "b"]
    with pytest.raises(FormatError, match="empty; expected a log"):
        split_lines(" \n", "f", "a log")
    with pytest.raises(FormatError, match="line 2.*no line end: a cut file"):
        split_lines("a\nb", "f", "a log")


@pytest.mark.parametrize("text, kwargs, says", [
    ("1e999", {}, "expected a finite number"),
    ("nan", {}, "expected a finite number"),
    ("-1", {}, "expected a number >= 0"),
    ("", {}, "expected a number, found ''"),
])
def test_to_float_bounds(text: str, kwargs: dict[str, float], says: str) -> None:
    with pytest.raises(FormatError, match=says):
        to_float(text, "f", 1, None, "x", **kwargs)


def test_to_float_and_to_int_accept_what_ti_writes() -> None:
    assert to_float("-2.5", "f", 1, None, "x", minimum=None) == -2.5
    assert to_int("0042", "f", 1, None, "n") == 42 and to_int("7FFF", "f", 1, None, "a", base=16) == 32767
    assert to_decimal("0.10", "f", 1, None, "t") * 3 == to_decimal("0.30", "f", 1, None, "t")  # exact
    for text, says in (("1.0", "expected a whole number"), ("1" * 25, "expected a whole number"),
                       ("-3", "expected a whole number >= 0"), ("70000", "<= 65536")):
        with pytest.raises(FormatError, match=says):
            to_int(text, "f", 1, None, "n", 0, 65536)
    with pytest.raises(FormatError, match="expected a hexadecimal number"):
        to_int("0x10", "f", 1, None, "a", base=16)
    with pytest.raises(FormatError, match="expected a finite number"):
        to_decimal("Infinity", "f", 1, None, "t")


def test_read_text_caps_and_names_the_file(tmp_path: Path) -> None:
    good = tmp_path / "netLog.txt"
    good.write_text("x\n")
    assert read_text(str(good), "a netLog") == "x\n"
    with pytest.raises(PathNotFoundError, match="expected a netLog"):
        read_text(str(tmp_path / "absent.txt"), "a netLog")
    big = tmp_path / "big.txt"
    with big.open("wb") as fh:  # sparse: one byte over the cap
        fh.seek(MAX_TEXT_BYTES)
        fh.write(b"\n")
    with pytest.raises(FormatError, match=f"larger than {MAX_TEXT_BYTES >> 20} MiB; expected a netLog"):
        read_text(str(big), "a netLog")
