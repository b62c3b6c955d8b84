"""tidl_io.base.text: names escaped for terminals, cut for tables, values bounded in messages."""

from __future__ import annotations

import pytest

from tidl_io.base.text import closest, escape, escape_lines, short, short_repr

from conftest import TIME_SCALE


@pytest.mark.parametrize(("name", "shown"), [
    ("plain/name:0", "plain/name:0"),
    ("a\x1b[2Jb", "a\\x1b[2Jb"),  # ESC: would clear the screen
    ("one\ntwo", "one\\ntwo"),  # a newline would split a one-line finding
    ("tab\there", "tab\\there"),
    ("bell\x07", "bell\\x07"),
    ("line\u2028sep", "line\\u2028sep"),
    ("Ünïcødé 名前", "Ünïcødé 名前"),  # printable text of any script stays
    ("\x9b31m", "\\x9b31m"),  # the 8-bit CSI
])
def test_escape_writes_every_control_character_as_an_escape(name: str, shown: str) -> None:
    assert escape(name) == shown
    assert all(c.isprintable() for c in escape(name))


def test_escape_lines_keeps_the_line_breaks_between_lines() -> None:
    assert escape_lines("a\x1b\nb\tc") == "a\\x1b\nb\\tc"


def test_short_cuts_in_the_middle_after_escaping() -> None:
    assert short("x" * 10, 10) == "x" * 10
    assert short("abcdefghijklmnop", 9) == "abcd…mnop"
    assert short("a\x1bbcdefghijklmnop", 0) == "a\\x1bbcdefghijklmnop"  # 0: whole
    assert len(short("y" * 500, 40)) == 40


def test_short_repr_never_builds_a_huge_repr() -> None:
    nested: list[object] = []
    for _ in range(5000):  # deeper than repr() can go
        nested = [nested]
    big = ["lol"] * 10**6
    for value in ("x" * 10**7, big, nested, {i: i for i in range(10**5)}, 10**5000):
        text = short_repr(value)
        assert len(text) <= 60, (type(value), len(text))
    assert short_repr("abc") == "'abc'" and short_repr([1, 2]) == "[1, 2]"


def test_report_repr_is_bounded_and_names_the_source() -> None:
    from tidl_io.base.text import REPR_LIMIT, report_repr

    class Report:
        pass

    assert REPR_LIMIT == 300
    assert report_repr(Report(), "model/art", rows=3, ok=False, name="x") == "Report('model/art', rows=3, ok=False, name='x')"
    long = "a" * 60 + "MIDDLE" + "z" * 60
    shown = report_repr(Report(), long)
    assert shown == "Report('" + "a" * 49 + "…" + "z" * 50 + "')"
    huge = report_repr(Report(), "src", rows=list(range(10**5)), names=tuple(f"n{k}" * 50 for k in range(10**4)),
                       a="x" * 10**6, b="y" * 10**6, c="z" * 10**6, d="w" * 10**6, e=1, f=2)
    assert len(huge) == 300 and huge.endswith("…)") and huge.startswith("Report('src', rows=[0, 1,")
    assert "\x1b" not in report_repr(Report(), "evil\x1b[2J", name="n\x1b")


def test_closest_agrees_with_difflib_on_short_names() -> None:
    import difflib

    names = ["backbone/conv1", "backbone/conv2", "head/cls", "head/reg", "images", "detections"]
    for name in ("conv1", "head_cls", "imgs", "zzz"):
        scores = sorted(((-difflib.SequenceMatcher(None, name, n, autojunk=False).ratio(), i, n)
                         for i, n in enumerate(names)))
        assert closest(name, names, 3) == [n for _, _, n in scores[:3]]
        assert set(closest(name, names, 3, cutoff=0.6)) == set(difflib.get_close_matches(name, names, 3, 0.6))


def test_closest_bounds_its_work() -> None:
    """A 500 000-character 16-bit name took doctor 7-8 s against a net's names."""
    import time

    names = [f"model/block_{k}/conv_{k}" + "\u4e00" * (k % 300) for k in range(3000)]
    start = time.process_time()
    assert len(closest("\u4e00" * 500_000, names, 3)) == 3
    exact = "model/block_7/conv_7" + "\u4e00" * 7
    assert closest(exact, names * 20, 1) == [exact]  # 60 000 names, past CLOSE_NAMES
    assert time.process_time() - start < 2.0 * TIME_SCALE
