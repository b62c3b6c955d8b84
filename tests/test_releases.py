"""tidl_io.base.releases: the one release table and the Release value.

Oracles: literal expectations written here (the spellings and their numbers, the table as the
three tables it replaces listed it: the io schemas' release lists and the versions tables that
schemas/tidlrt and schemas/net held before the move), hand-written YAML rows, and the shipped
layout files (every name the table uses must exist there)."""

from __future__ import annotations

import ast
import re
import struct
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io.base.releases import (
    Release,
    ReleaseTable,
    find_release,
    load_table,
    parse_table,
    release_table,
    releases_label,
    releases_text,
    using_table,
)
from tidl_io.iodesc import schema as _schema

from conftest import PACKAGE, SCHEMAS

SHIPPED = SCHEMAS / "releases.yaml"

# release -> (net_versions, net layout, io family, TIDL-RT family): the three old tables, merged by hand
TABLE = {
    "08.00": ((), None, "8.x", None),
    "08.01": ((), None, "8.x", None),
    "08.02": ((0x20211201,), "tidl_8_2.yaml", "8.x", "T4P-b"),
    "08.04": ((), None, "8.x", "T4P-b"),
    "08.05": ((), None, "8.x", "T4P-b"),
    "08.06": ((0x20230208,), "tidl_8_6.yaml", "8.x", "T4P-c"),
    "09.00": ((0x20230802,), "tidl_9_0.yaml", "9.0", None),
    "09.01": ((0x20230802,), "tidl_9_0.yaml", "9.1", None),
    "09.02": ((0x20240401,), "tidl_9_0.yaml", "9.1", None),
    "10.00": ((0x20240719,), "tidl_10_0.yaml", "10.x", "T6P-d"),
    "10.01": ((0x20241120,), "tidl_10_0.yaml", "10.x", "T6P-d"),
    "11.00": ((0x20250429, 0x20250630), "tidl_11_0.yaml", "10.x", "T6P-d"),
    "11.01": ((0x20250821,), "tidl_11_0.yaml", "10.x", "T6P-d"),
}


# ---- the Release value -------------------------------------------------------------------

@pytest.mark.parametrize(("text", "major", "minor"), [
    ("08_06_00_10", 8, 6), ("8.6", 8, 6), ("08.06", 8, 6), ("8.6.0", 8, 6), ("11.01.00", 11, 1),
    ("11_01_06_00", 11, 1), ("10-00", 10, 0), (" 9.1 ", 9, 1), ("8.10", 8, 10), ("7.0", 7, 0),
])
def test_parse_every_spelling(text: str, major: int, minor: int) -> None:
    r = Release.parse(text)
    assert (r.major, r.minor) == (major, minor) and r == Release(major, minor)


def test_print_ti_and_short() -> None:
    r = Release.parse("08_06_00_10")
    assert (r.ti, r.short, str(r), repr(r)) == ("08.06", "8.6", "08.06", "Release('08.06')")
    assert (Release(11, 1).ti, Release(11, 1).short, Release(10, 0).short) == ("11.01", "11.1", "10.0")


def test_order_is_numeric() -> None:
    texts = ["10.00", "8.10", "9.2", "08.06", "11.1", "9.0"]
    assert [r.ti for r in sorted(map(Release.parse, texts))] == ["08.06", "08.10", "09.00", "09.02", "10.00", "11.01"]
    assert Release(8, 6) < Release(9, 0) < Release(10, 0) and Release(9, 1) >= Release(9, 1)
    assert len({Release.parse("8.6"), Release.parse("08_06_00_10"), Release(8, 6)}) == 1
    with pytest.raises(TypeError):
        _ = Release(8, 6) < "09.00"  # type: ignore[operator]


@pytest.mark.parametrize("text", ["x", "", "8", "10", "8.6.0.10.1", "100.1", "8.100", "8.6rc", "v8.6", "8..6",
                                  "9.0/9.1", "0x20230802"])
def test_not_a_release(text: str) -> None:
    with pytest.raises(tidl_io.OptionError, match=rf"Release.parse: {re.escape(repr(text))} is not a TIDL release; "
                                                   r"expected TI's 'MM.NN'"):
        Release.parse(text)


def test_wrong_kinds_and_ranges() -> None:
    with pytest.raises(tidl_io.ArgumentTypeError, match=r"Release.parse: text: expected a string .* found float 8.6"):
        Release.parse(8.6)  # type: ignore[arg-type]
    with pytest.raises(tidl_io.ArgumentTypeError, match=r"Release: major: expected an integer 0..99, found True"):
        Release(True, 0)
    with pytest.raises(tidl_io.OptionError, match=r"Release: minor must be 0..99 .* found 100"):
        Release(8, 100)
    with pytest.raises(tidl_io.ArgumentTypeError, match=r"find_release: value: expected .* found float 8.6"):
        find_release(8.6)  # type: ignore[arg-type]


# ---- spelling several ---------------------------------------------------------------------

def test_text_and_label() -> None:
    assert releases_text(("09.00", "09.01")) == "9.0/9.1"
    assert releases_text([Release(10, 0)]) == "10.0" and releases_text(["11.01", "08.02"]) == "11.1/8.2"
    assert releases_text(()) == "" and releases_text((), "unknown") == "unknown"
    assert releases_text(["09.00", "T4P-a"]) == "9.0/T4P-a"  # a text that is no release stays as it is
    assert releases_label(["09.01", "09.00"]) == "TIDL 9.0/9.1"
    assert releases_label({"10.00", "09.02", "08.06"}) == "TIDL 8.6/9.2/10.0"  # by number, not by text
    assert releases_label(["8.10", "08.09"]) == "TIDL 8.9/8.10"
    assert releases_label([]) == "TIDL ?"


# ---- the shipped table --------------------------------------------------------------------

def test_shipped_table_rows() -> None:
    table = release_table()
    assert {r.release.ti: (r.net_versions, r.net, r.io, r.tidlrt) for r in table} == TABLE
    assert [r.release.ti for r in table] == list(TABLE)  # oldest first
    assert len(table) == 13 and table.source.endswith("releases.yaml")
    assert all(set(r.evidence) <= {"net", "io", "tidlrt"} and r.evidence for r in table)


def test_shipped_table_lookups() -> None:
    table = release_table()
    assert {w: [r.ti for r in rels] for w, rels in table.net_versions().items()} == {
        0x20211201: ["08.02"], 0x20230208: ["08.06"], 0x20230802: ["09.00", "09.01"], 0x20240401: ["09.02"],
        0x20240719: ["10.00"], 0x20241120: ["10.01"], 0x20250429: ["11.00"], 0x20250630: ["11.00"],
        0x20250821: ["11.01"]}
    assert list(table.net_versions()) == sorted(table.net_versions())
    assert table.of_net_version(0x12345678) == () and table.net_layout(0x12345678) is None
    assert table.net_layout(0x20240401) == "tidl_9_0.yaml"
    assert [r.ti for r in table.with_io("9.1")] == ["09.01", "09.02"]
    assert [r.ti for r in table.with_tidlrt("T4P-b")] == ["08.02", "08.04", "08.05"]
    assert table.with_tidlrt("T4P-a") == () and table.with_io("7.x") == ()
    row = table.row(Release(8, 6))
    assert row is not None and row.tidlrt == "T4P-c" and table.row(Release(7, 0)) is None


@pytest.mark.parametrize(("value", "ti"), [
    ("8.6", "08.06"), ("08_06_00_10", "08.06"), ("11.1", "11.01"), (Release(9, 2), "09.02"), (0x20230802, "09.00"),
    ("0x20230802", "09.00"), ("0X20250630", "11.00"), (0x20250821, "11.01"),
    (np.uint32(0x20240719), "10.00"), ("7.0", None), ("x", None), (Release(8, 3), None), (0x12345678, None), ("0xzz", None), (True, None),
])
def test_find_release(value: object, ti: str | None) -> None:
    if isinstance(value, bool):
        with pytest.raises(tidl_io.ArgumentTypeError):
            find_release(value)
        return
    found = find_release(value)  # type: ignore[arg-type]
    assert (None if found is None else found.ti) == ti


def test_every_name_in_the_table_exists() -> None:
    from tidl_io.net.schema import layout_for
    from tidl_io.runtime.tidlrt import families

    io_families = {lay.family for lay in _schema.layouts()}
    for r in release_table():
        assert r.io in io_families, r
        assert r.tidlrt is None or r.tidlrt in families(), r
        assert r.net is None or (SCHEMAS / "net" / r.net).is_file(), r
        assert all(layout_for(w) for w in r.net_versions), r


def test_release_lists_live_in_one_file() -> None:
    """No other schema file lists releases; no module but releases.py spells one."""
    import yaml

    others = [p for p in SCHEMAS.rglob("*.yaml") if p.name != "releases.yaml"]
    assert others and not any(p.name == "versions.yaml" for p in others)
    for p in others:
        doc = yaml.safe_load(p.read_text())
        assert not (isinstance(doc, dict) and "releases" in doc), p
    spelling = re.compile(r":02d\}\.\{|int\(r\[:2\]\)|partition\(\"\.\"\)")
    found = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
             if p.name != "releases.py" and spelling.search(p.read_text())]
    assert found == []


def test_low_floor_imports() -> None:
    """releases.py imports only _errors, _check, the standard library and yaml (it moves to base/)."""
    tree = ast.parse((PACKAGE / "base" / "releases.py").read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names.add(("." * node.level) + (node.module or ""))
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    assert names == {"__future__", "contextlib", "errno", "functools", "itertools", "numbers", "os", "re",
                     "collections.abc", "dataclasses", "pathlib", "typing", ".check", ".errors", "yaml"}


# ---- reading a table ----------------------------------------------------------------------

ROW = """  - release: "{rel}"
    net_versions: {words}
    net: {net}
    io: "10.x"
    tidlrt: T6P-d
    evidence: {{net: "a test row"}}
"""


def _table(*rows: str) -> str:
    return "releases:\n" + "".join(rows)


def test_parse_a_small_table() -> None:
    t = parse_table(_table(ROW.format(rel="10.00", words="[0x20240719]", net="tidl_10_0.yaml"),
                           ROW.format(rel="11.00", words="[]", net="null")), "t.yaml")
    assert [(r.release, r.net_versions, r.net, r.io, r.tidlrt) for r in t] == [
        (Release(10, 0), (0x20240719,), "tidl_10_0.yaml", "10.x", "T6P-d"), (Release(11, 0), (), None, "10.x", "T6P-d")]
    assert dict(t.rows[0].evidence) == {"net": "a test row"} and t.source == "t.yaml"
    assert t.find("11.0") == Release(11, 0) and t.find("9.0") is None
    assert t != parse_table(_table(ROW.format(rel="10.00", words="[]", net="null")))  # tables compare by identity


@pytest.mark.parametrize(("text", "message"), [
    ("releases: [", r"t.yaml: not YAML: "),
    ("[1, 2]", r"t.yaml: expected a mapping with a non-empty list 'releases'"),
    ("releases: []", r"t.yaml: expected a mapping with a non-empty list 'releases'"),
    (_table("  - 5\n"), r"t.yaml: releases\[0\]: expected a mapping \(release, .*found int"),
    (_table(ROW.format(rel="8.6", words="[]", net="null")),
     r"t.yaml: releases\[0\].release: write '08.06' \(TI's spelling\), found '8.6'"),
    (_table(ROW.format(rel="8.x", words="[]", net="null")), r"releases\[0\].release: expected TI's \"MM.NN\", found '8.x'"),
    (_table(ROW.format(rel="10.00", words="[]", net="null").replace('"10.00"', "10.00")),
     r"releases\[0\].release: expected TI's \"MM.NN\" as a quoted string, found float 10.0"),
    (_table(ROW.format(rel="10.00", words="[]", net="null"), ROW.format(rel="09.00", words="[]", net="null")),
     r"t.yaml: releases: 09.00 after 10.00: one row per release, oldest first"),
    (_table(ROW.format(rel="10.00", words="[]", net="null"), ROW.format(rel="10.00", words="[]", net="null")),
     r"releases: 10.00 after 10.00: one row per release"),
    (_table(ROW.format(rel="10.00", words="[0x20240719]", net="a.yaml"),
            ROW.format(rel="10.01", words="[0x20240719]", net="b.yaml")),
     r"netVersion 0x20240719 has net layout a.yaml in 10.00 but b.yaml in 10.01: one value, one layout"),
    (_table(ROW.format(rel="10.00", words="[0x20240719]", net="null")),
     r"releases\[0\] \(10.00\): net names the layout of net_versions: both or neither"),
    (_table(ROW.format(rel="10.00", words="[]", net="a.yaml")), r"\(10.00\): net names the layout"),
    (_table(ROW.format(rel="10.00", words="[-1]", net="a.yaml")),
     r"releases\[0\] \(10.00\).net_versions: expected a list of 32-bit numbers"),
    (_table(ROW.format(rel="10.00", words="[1, 1]", net="a.yaml")), r"net_versions: a value listed twice"),
    (_table(ROW.format(rel="10.00", words="[]", net="null") + "    layout: x\n"),
     r"releases\[0\]: unknown column\(s\) layout"),
    (_table(ROW.format(rel="10.00", words="[]", net="null").replace("tidlrt: T6P-d", "tidlrt: 6")),
     r"releases\[0\] \(10.00\).tidlrt: expected a name or null, found int 6"),
    (_table(ROW.format(rel="10.00", words="[]", net="null").replace('{net: "a test row"}', "[1]")),
     r"\(10.00\).evidence: expected a mapping of column to text"),
])
def test_malformed_tables_are_located(text: str, message: str) -> None:
    with pytest.raises(tidl_io.FormatError, match=message):
        parse_table(text, "t.yaml")


def test_load_table_edges(tmp_path: Path) -> None:
    with pytest.raises(tidl_io.PathNotFoundError, match=r"no such file; expected a TIDL release table"):
        load_table(tmp_path / "none.yaml")
    with pytest.raises(tidl_io.PathIsFolderError):
        load_table(tmp_path)
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * ((1 << 20) + 1))
    with pytest.raises(tidl_io.FormatError, match=r"big.yaml: more than 1048576 bytes"):
        load_table(big)
    with pytest.raises(tidl_io.ArgumentTypeError, match=r"load_table: path: expected a path"):
        load_table(5)  # type: ignore[arg-type]
    with (pytest.raises(tidl_io.ArgumentTypeError, match=r"using_table: table: expected a ReleaseTable"),
          using_table("x")):  # type: ignore[arg-type]
        pass
    t = load_table(SHIPPED)
    assert isinstance(t, ReleaseTable) and [r.release for r in t] == [r.release for r in release_table()]


# ---- adding a release is one row ------------------------------------------------------------

NEW_WORD = 0x20251212  # a netVersion no TIDL release has (yet)


def test_one_more_row_makes_a_release_known_everywhere(tmp_path: Path) -> None:
    from net_fixtures import sample_layers

    from tidl_io.net import parse_net
    from tidl_io.net.build import build_net
    from tidl_io.net.schema import known_versions_text, layout_for, net_versions
    from tidl_io.runtime.tidlrt import releases as tidlrt_releases

    path = tmp_path / "releases.yaml"
    path.write_text(SHIPPED.read_text() + ROW.format(rel="11.02", words=f"[{NEW_WORD:#x}]", net="tidl_11_0.yaml"))
    before_io = _schema.find_layout("10.x").releases
    assert find_release("11.2") is None and layout_for(NEW_WORD) == ()
    with using_table(load_table(path)) as table:
        assert release_table() is table and len(table) == 14
        assert find_release("11.2") == Release(11, 2) and find_release(NEW_WORD) == Release(11, 2)
        # the net reader: version table, layouts, messages, a net file of the new value
        assert net_versions()[NEW_WORD].release == "11.2" and net_versions()[NEW_WORD].releases == ("11.02",)
        assert layout_for(NEW_WORD) == layout_for(0x20250821)
        assert "0x20251212 (11.2)" in known_versions_text()
        net = parse_net(build_net(NEW_WORD, sample_layers(NEW_WORD), cores=1), "new_tidl_net.bin")
        assert (net.net_version, net.release, net.releases) == (NEW_WORD, "11.2", ("11.02",))
        # the io layouts and the descriptor reader's hint
        assert _schema.find_layout("10.x").releases == (*before_io, "11.02")
        assert _schema.find_layout("8.x").releases == ("08.00", "08.01", "08.02", "08.04", "08.05", "08.06")
        with pytest.raises(tidl_io.FormatError, match=r"first word 0x20251212 is the netVersion of a TIDL 11.2 "
                                                       r"network file"):
            tidl_io.parse(struct.pack("<I", NEW_WORD) + bytes(60), "x.bin")
        # the TIDL-RT binding's table
        assert tidlrt_releases()["11.02"] == "T6P-d"
    assert find_release("11.2") is None and layout_for(NEW_WORD) == () and "11.02" not in tidlrt_releases()
    assert _schema.find_layout("10.x").releases == before_io


def test_the_binding_picks_the_new_release(tmp_path: Path, tidlrt_standin) -> None:
    from tidl_io.runtime.tidlrt import TidlRtRuntime

    from runtime_oracles import descs_for

    path = tmp_path / "releases.yaml"
    path.write_text(SHIPPED.read_text() + ROW.format(rel="11.02", words=f"[{NEW_WORD:#x}]", net="tidl_11_0.yaml"))
    desc, lib = descs_for("T6P-d")[0], tidlrt_standin("T6P-d")
    net = struct.pack("<I", NEW_WORD) + bytes(60)
    with pytest.raises(tidl_io.TidlRtError, match=r"TIDL_NET_VERSION 0x20251212 is not in tidl-io's table"):
        TidlRtRuntime(desc, net, library=lib)
    with using_table(load_table(path)):
        rt = TidlRtRuntime(desc, net, library=lib)
        assert (rt.family.key, rt.release) == ("T6P-d", "11.02")
        assert TidlRtRuntime(desc, net, library=lib, version="11_02_00_00").release == "11.02"


def test_using_table_nests_and_reaches_threads() -> None:
    import threading

    shipped = release_table()
    a = parse_table(_table(ROW.format(rel="10.00", words="[]", net="null")), "a.yaml")
    b = parse_table(_table(ROW.format(rel="11.00", words="[]", net="null")), "b.yaml")
    seen = []
    with using_table(a):
        with using_table(b):
            worker = threading.Thread(target=lambda: seen.append(release_table().source))
            worker.start()
            worker.join()
            assert release_table() is b and find_release("10.0") is None
        assert release_table() is a and find_release("10.0") == Release(10, 0)
    assert release_table() is shipped and seen == ["b.yaml"]
