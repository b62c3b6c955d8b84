"""TIDL releases: the one table (``schemas/releases.yaml``) and the one way to spell a release.

>>> r = Release.parse("08_06_00_10")
>>> r.ti, r.short, r < Release.parse("9.0")
('08.06', '8.6', True)
>>> find_release(0x20230802).ti, releases_text(("09.00", "09.01"))   # a netVersion: its first release
('09.00', '9.0/9.1')

Each row of the table names a release, the TIDL_NET_VERSION values its importer writes, the
net layout file of those values, its io descriptor layout family, its TIDL-RT layout family and
the evidence for each. The io, net and TIDL-RT layouts, doctor and the TIDL-RT binding read
their release lists and look-ups here; nothing else parses or prints a release.

:func:`release_table` is the shipped table, or the one :func:`using_table` installs for a
``with`` block (a table with one more row, from :func:`load_table`, makes a release known
everywhere without touching the installed files). Low floor: imports only ``_errors``,
``_check``, the standard library and PyYAML.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import itertools
import numbers
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .check import check_kind, check_path, open_regular, read_limited, wrong_kind
from .errors import FormatError, OptionError, PathNotFoundError

__all__ = [
    "TABLE_FILE",
    "Release",
    "ReleaseRow",
    "ReleaseTable",
    "find_release",
    "load_table",
    "parse_table",
    "release_table",
    "releases_label",
    "releases_text",
    "using_table",
]

TABLE_FILE = "releases.yaml"
"""The table's file name in the schemas folder (the io schema loader skips it)."""

_MAX_TABLE_BYTES = 1 << 20
_SPELLING = re.compile(r"(\d{1,2})[._-](\d{1,2})(?:[._-]\d{1,2}){0,2}")
_EXPECTED = "TI's 'MM.NN' such as '08.06', '8.6', '8.6.0' or a tools version '08_06_00_10'"


@dataclass(frozen=True, order=True)
class Release:
    """One TIDL release, ordered by (major, minor): ``Release(8, 6)`` is TI's "08.06"."""

    major: int
    minor: int

    def __post_init__(self) -> None:
        for name in ("major", "minor"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise wrong_kind("Release", name, value, "an integer 0..99")
            if not 0 <= value <= 99:
                raise OptionError(f"Release: {name} must be 0..99 (TI numbers releases MM.NN), found {value}")

    @classmethod
    def parse(cls, text: str) -> Release:
        """``"08.06"``, ``"8.6"``, ``"8.6.0"``, ``"08_06_00_10"``, ``"11-01"`` -> the release
        (patch and build numbers do not change it); an :class:`OptionError` for anything else."""
        if not isinstance(text, str):
            raise wrong_kind("Release.parse", "text", text, f"a string ({_EXPECTED})")
        m = _SPELLING.fullmatch(text.strip())
        if m is None:
            raise OptionError(f"Release.parse: {text!r} is not a TIDL release; expected {_EXPECTED}")
        return cls(int(m.group(1)), int(m.group(2)))

    @functools.cached_property  # a frozen value: its text never changes
    def ti(self) -> str:
        """TI's spelling, the table's key: ``"08.06"``."""
        return f"{self.major:02d}.{self.minor:02d}"

    @property
    def short(self) -> str:
        """How people write it: ``"8.6"``."""
        return f"{self.major}.{self.minor}"

    def __str__(self) -> str:
        return self.ti

    def __repr__(self) -> str:
        return f"Release({self.ti!r})"


@dataclass(frozen=True)
class ReleaseRow:
    """One row of the table; ``None`` where the table says ``null`` (not known)."""

    release: Release
    net_versions: tuple[int, ...]  # TIDL_NET_VERSION values its importer writes
    net: str | None  # the net layout file (schemas/net/) of those values
    io: str | None  # the io descriptor layout family ("8.x", "9.0", "9.1", "10.x")
    tidlrt: str | None  # the TIDL-RT layout family ("T4P-b", ...)
    evidence: Mapping[str, str] = field(default_factory=dict, compare=False)  # column -> where it comes from


@dataclass(frozen=True, eq=False)
class ReleaseTable:
    """The rows, oldest release first, and the look-ups every part uses. Compared and hashed
    by identity, so a part may cache what it derives per table."""

    rows: tuple[ReleaseRow, ...]
    source: str
    _by_release: dict[Release, ReleaseRow] = field(init=False, repr=False)
    _by_word: dict[int, tuple[ReleaseRow, ...]] = field(init=False, repr=False)
    _by_io: dict[str | None, tuple[Release, ...]] = field(init=False, repr=False)
    _by_tidlrt: dict[str | None, tuple[Release, ...]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        by_word: dict[int, list[ReleaseRow]] = {}
        by_io: dict[str | None, list[Release]] = {}
        by_tidlrt: dict[str | None, list[Release]] = {}
        for row in self.rows:
            for word in row.net_versions:
                by_word.setdefault(word, []).append(row)
            by_io.setdefault(row.io, []).append(row.release)
            by_tidlrt.setdefault(row.tidlrt, []).append(row.release)
        object.__setattr__(self, "_by_release", {row.release: row for row in self.rows})
        object.__setattr__(self, "_by_word", {w: tuple(rows) for w, rows in sorted(by_word.items())})
        object.__setattr__(self, "_by_io", {k: tuple(v) for k, v in by_io.items()})
        object.__setattr__(self, "_by_tidlrt", {k: tuple(v) for k, v in by_tidlrt.items()})

    def __iter__(self) -> Iterator[ReleaseRow]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def row(self, release: Release) -> ReleaseRow | None:
        """The row of ``release``, None when the table has none."""
        return self._by_release.get(release)

    def find(self, value: str | int | Release) -> Release | None:
        """The release ``value`` names, if the table has it: a release in any spelling
        (:meth:`Release.parse`), or a netVersion (an int, or ``"0x20230802"``): the first
        release that writes it. None for anything else."""
        if isinstance(value, Release):
            return value if value in self._by_release else None
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):  # NumPy's integers too
            rows = self._by_word.get(int(value))
            return rows[0].release if rows else None
        if not isinstance(value, str):
            raise wrong_kind("find_release", "value", value, "a TIDL release (str or Release) or a netVersion (int)")
        text = value.strip()
        if text[:2].lower() == "0x":
            try:
                return self.find(int(text, 16))
            except ValueError:
                return None
        try:
            return self.find(Release.parse(text))
        except OptionError:
            return None

    def net_versions(self) -> dict[int, tuple[Release, ...]]:
        """TIDL_NET_VERSION -> the releases that write it (oldest first), by value."""
        return {w: tuple(r.release for r in rows) for w, rows in self._by_word.items()}

    def of_net_version(self, word: int) -> tuple[Release, ...]:
        """The releases whose importer writes netVersion ``word``; () when none is known."""
        return tuple(r.release for r in self._by_word.get(int(word), ()))

    def net_layout(self, word: int) -> str | None:
        """The net layout file of netVersion ``word``, None when it is not known."""
        rows = self._by_word.get(int(word))
        return rows[0].net if rows else None

    def with_io(self, family: str) -> tuple[Release, ...]:
        """The releases that write io descriptor layout ``family`` ("8.x", ...)."""
        return self._by_io.get(family, ()) if family is not None else ()

    def with_tidlrt(self, family: str) -> tuple[Release, ...]:
        """The releases whose TIDL-RT uses layout ``family`` ("T4P-c", ...)."""
        return self._by_tidlrt.get(family, ()) if family is not None else ()


# ---- spelling several releases ---------------------------------------------------------------

def _spelled(value: str | Release) -> str:
    if isinstance(value, Release):
        return value.short
    try:
        return Release.parse(value).short
    except OptionError:
        return str(value)


def _order(value: str | Release) -> tuple[int, int, int, str]:
    """Sort key: releases oldest first, then any text that is no release."""
    try:
        r = value if isinstance(value, Release) else Release.parse(value)
    except OptionError:
        return (1, 0, 0, str(value))
    return (0, r.major, r.minor, "")


def releases_text(releases: Iterable[str | Release], empty: str = "") -> str:
    """``("09.00", "09.01")`` -> ``"9.0/9.1"``, in the order given; ``empty`` when there are
    none. A text that is no release is kept as it is."""
    return "/".join(_spelled(r) for r in releases) or empty


def releases_label(releases: Iterable[str | Release]) -> str:
    """``{"09.01", "09.00"}`` -> ``"TIDL 9.0/9.1"`` (oldest first); ``"TIDL ?"`` when there are none."""
    ordered = sorted(releases, key=_order)
    return "TIDL " + releases_text(ordered, "?")


# ---- reading the table -----------------------------------------------------------------------

def _text_or_null(value: Any, where: str, source: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise FormatError(source, f"{where}: expected a name or null, found {type(value).__name__} {value!r}")
    return value


def _row(entry: Any, i: int, source: str) -> ReleaseRow:
    where = f"releases[{i}]"
    if not isinstance(entry, dict):
        raise FormatError(source, f"{where}: expected a mapping (release, net_versions, net, io, tidlrt, evidence), "
                          f"found {type(entry).__name__}")
    unknown = sorted(set(map(str, entry)) - {"release", "net_versions", "net", "io", "tidlrt", "evidence"})
    if unknown:
        raise FormatError(source, f"{where}: unknown column(s) {', '.join(unknown)}")
    text = entry.get("release")
    if not isinstance(text, str):
        raise FormatError(source, f"{where}.release: expected TI's \"MM.NN\" as a quoted string, found "
                          f"{type(text).__name__} {text!r}")
    try:
        release = Release.parse(text)
    except OptionError:
        raise FormatError(source, f"{where}.release: expected TI's \"MM.NN\", found {text!r}") from None
    if text != release.ti:
        raise FormatError(source, f"{where}.release: write {release.ti!r} (TI's spelling), found {text!r}")
    where = f"{where} ({release.ti})"
    words = entry.get("net_versions", [])
    if not isinstance(words, list) or not all(isinstance(w, int) and not isinstance(w, bool) and
                                              0 <= w < 1 << 32 for w in words):
        raise FormatError(source, f"{where}.net_versions: expected a list of 32-bit numbers (0x20230802), "
                          f"found {words!r}")
    if len(set(words)) != len(words):
        raise FormatError(source, f"{where}.net_versions: a value listed twice: {words!r}")
    net = _text_or_null(entry.get("net"), f"{where}.net", source)
    if bool(words) != (net is not None):
        raise FormatError(source, f"{where}: net names the layout of net_versions: both or neither, found "
                          f"net_versions {words!r} and net {net!r}")
    evidence = entry.get("evidence") or {}
    if not isinstance(evidence, dict) or not all(isinstance(v, str) for v in evidence.values()):
        raise FormatError(source, f"{where}.evidence: expected a mapping of column to text, found {evidence!r}")
    return ReleaseRow(release, tuple(words), net, _text_or_null(entry.get("io"), f"{where}.io", source),
                      _text_or_null(entry.get("tidlrt"), f"{where}.tidlrt", source),
                      {str(k): v for k, v in evidence.items()})


def parse_table(text: str | bytes, source: str = TABLE_FILE) -> ReleaseTable:
    """The table in ``text`` (the YAML of ``schemas/releases.yaml``); a :class:`FormatError`
    naming ``source``, the row and the column for anything malformed: rows out of order or
    twice, releases sharing a netVersion with different net layouts."""
    import yaml  # start-up time: only when a table is read

    try:
        doc = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        raise FormatError(source, f"not YAML: {' '.join(str(exc).split())}") from None
    entries = doc.get("releases") if isinstance(doc, dict) else None
    if not isinstance(entries, list) or not entries:
        raise FormatError(source, "expected a mapping with a non-empty list 'releases' (one row per TIDL release)")
    rows = tuple(_row(entry, i, source) for i, entry in enumerate(entries))
    for before, row in itertools.pairwise(rows):
        if row.release <= before.release:
            raise FormatError(source, f"releases: {row.release.ti} after {before.release.ti}: one row per release, "
                              f"oldest first")
    layout_of: dict[int, ReleaseRow] = {}
    for row in rows:
        for word in row.net_versions:
            first = layout_of.setdefault(word, row)
            if first.net != row.net:
                raise FormatError(source, f"releases: netVersion {word:#010x} has net layout {first.net} in "
                                  f"{first.release.ti} but {row.net} in {row.release.ti}: one value, one layout")
    return ReleaseTable(rows, source)


def load_table(path: str | os.PathLike[str]) -> ReleaseTable:
    """The table in the file ``path`` (see :func:`parse_table`)."""
    name = check_path(path, "load_table", "path")
    with open_regular(name, "a TIDL release table (releases.yaml)") as fh:
        data = read_limited(fh, _MAX_TABLE_BYTES)
    if len(data) > _MAX_TABLE_BYTES:
        raise FormatError(name, f"more than {_MAX_TABLE_BYTES} bytes: not a release table")
    return parse_table(data, name)


def _package_dir() -> Path:
    # this module's package root, wherever in it the module sits (tidl_io/ or tidl_io/base/)
    return Path(__file__).resolve().parents[__name__.count(".") - 1]


def _table_path() -> Path:
    here = _package_dir()
    for candidate in (here / "schemas", here.parent / "schemas"):  # installed, then a checkout
        if (candidate / TABLE_FILE).is_file():
            return candidate / TABLE_FILE
    raise PathNotFoundError(str(here / "schemas" / TABLE_FILE), "no such file; expected the TIDL release table "
                            "installed with tidl_io (a broken installation: reinstall tidl-io)", errno.ENOENT)


@functools.cache
def _shipped() -> ReleaseTable:
    return load_table(str(_table_path()))


_ACTIVE: list[ReleaseTable] = []  # the tables using_table installed, innermost last


def release_table() -> ReleaseTable:
    """The table in use: the shipped ``schemas/releases.yaml``, or the one :func:`using_table` set."""
    return _ACTIVE[-1] if _ACTIVE else _shipped()


@contextlib.contextmanager
def using_table(table: ReleaseTable) -> Iterator[ReleaseTable]:
    """Use ``table`` instead of the shipped one inside a ``with`` block, in the whole process
    (threads included); the table before comes back at the end of the block."""
    _ACTIVE.append(check_kind(table, ReleaseTable, "using_table", "table"))
    try:
        yield table
    finally:
        _ACTIVE.remove(table)


def find_release(value: str | int | Release) -> Release | None:
    """The release ``value`` names in the table in use (:meth:`ReleaseTable.find`): a release in
    any spelling, or a netVersion. None when it is none the table knows."""
    return release_table().find(value)
