"""The 16-bit name lists (``advanced_options:output_feature_16bit_names_list`` and
``advanced_options:params_16bit_names_list``) against the names of the compiled model.

TIDL matches each entry against its layers' names — the "Out Data Name" column of the
``*_tidl_net.bin_netLog.txt`` it writes (also ``layer_info.txt``'s third column) — and ignores
an entry that names none (its compile log says "Invalid Layer Name" deep in the parser output).
:func:`check_16bit_names` reports each such entry as a located :class:`DoctorFinding` with the
closest real names; ``tidl-io doctor`` calls it.

Lists are read from ``param.yaml`` (``session.runtime_options``) and edgeai's ``config.yaml``
(the same keys), beside the artifacts folder or in it; an entry in both is reported once, at
the first file, naming the other.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..base.errors import TidlIoError
from ..base.findings import ERROR, NOTE, DoctorFinding, read_text, reason
from ..base.safe_yaml import load_yaml
from ..base.text import CLOSE_CHARS, CLOSE_NAMES, closest, short_repr
from ..net.layerinfo import read_layer_info
from ..net.netlog import NAME_CUT, load_netlog

__all__ = [
    "KEYS",
    "NameLists",
    "check_16bit_names",
    "close_layer_names",
    "judge_16bit_names",
    "model_names",
    "read_name_lists",
    "split_names",
]

KEYS = ("output_feature_16bit_names_list", "params_16bit_names_list")
_CHECK = "16bit-names"
_SHOWN = 100  # wrong entries of one list reported one by one; the rest are counted in one finding


def model_names(art: Path) -> tuple[list[str], list[str]]:
    """(names TIDL accepts, the files they came from) for the artifacts folder ``art``: every
    netLog's Out Data Names and every layer_info.txt's names (in ``art`` and ``art/tempDir``).
    Both count: TI's netLog cuts a name to its last 50 characters (Zero-DCE's are 126 long) and
    layer_info.txt holds them whole, while od-8220's layer_info calls its outputs "input" where
    the netLog says dets / labels."""
    names: list[str] = []
    used: list[str] = []
    for pattern, read in (("*_tidl_net.bin_netLog.txt", _log_names), ("*_tidl_net.bin.layer_info.txt", _info_names)):
        files = sorted({*art.glob(pattern), *art.glob(f"tempDir/{pattern}")})
        for f in files:
            names += read(f)
            used.append(str(f))
    return list(dict.fromkeys(names)), used


def _log_names(path: Path) -> list[str]:
    return [x.name for x in load_netlog(path).layers]


def _info_names(path: Path) -> list[str]:
    return read_layer_info(path).names


def split_names(value: Any) -> list[str]:
    """A 16-bit list as TIDL reads it: a comma-separated string (or a YAML list), blanks dropped."""
    if value is None:
        return []
    items = value if isinstance(value, list) else str(value).split(",")
    return [str(v).strip() for v in items if str(v).strip()]


def _options(path: Path) -> tuple[dict[str, list[str]], str]:
    """{key: entries} of ``session.runtime_options`` in a param.yaml / config.yaml, and its text."""

    text = read_text(path)
    doc = load_yaml(text, str(path))  # the one bounded YAML reader: size, depth, aliases
    sess = doc.get("session") if isinstance(doc, dict) else None
    opts = sess.get("runtime_options") if isinstance(sess, dict) else None
    out: dict[str, list[str]] = {}
    if isinstance(opts, dict):
        nested = opts.get("advanced_options")
        for key in KEYS:
            value = opts.get(f"advanced_options:{key}")
            if value is None and isinstance(nested, dict):
                value = nested.get(key)
            if split_names(value):
                out[key] = split_names(value)
    return out, text


def _lines(text: str, key: str) -> dict[str, int]:
    """{entry: its line} of the list ``key`` in a param.yaml / config.yaml text, from the YAML
    parser's own positions (the list may be wrapped over several lines or be a YAML sequence);
    computed once per file and key."""
    import yaml  # start-up

    try:
        root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # C: 0.5 s less on 500 KB
    except yaml.YAMLError:
        return {}
    node = _child(_child(root, "session"), "runtime_options")
    value = _child(node, f"advanced_options:{key}") or _child(_child(node, "advanced_options"), key)
    out: dict[str, int] = {}
    if isinstance(value, yaml.SequenceNode):
        for item in value.value:
            if isinstance(item, yaml.ScalarNode):
                out.setdefault(str(item.value).strip(), item.start_mark.line + 1)
    elif isinstance(value, yaml.ScalarNode):  # 'a, b, c' as written, maybe over several lines
        raw, first = text[value.start_mark.index:value.end_mark.index], value.start_mark.line + 1
        cursor, line = 0, first
        for entry in split_names(value.value):
            at = raw.find(entry, cursor)
            if at < 0:  # written with escapes or folded inside the entry: the list's first line
                out.setdefault(entry, first)
                continue
            line += raw.count("\n", cursor, at)
            out.setdefault(entry, line)
            line += raw.count("\n", at, at + len(entry))
            cursor = at + len(entry)
    return out


def _child(node: Any, key: str) -> Any:
    """The value node of ``key`` in a YAML mapping node (None when ``node`` is no mapping or lacks it)."""
    import yaml  # start-up

    if not isinstance(node, yaml.MappingNode):
        return None
    return next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == key), None)


def _invalid_lines(art: Path) -> dict[str, int]:
    """Entries TI's compile log calls "Invalid Layer Name", with the first line saying so."""
    for log in (art / "run.log", art.parent / "run.log"):
        if log.is_file():
            out: dict[str, int] = {}
            for lineno, line in enumerate(read_text(log).splitlines(), 1):
                if line.startswith("Invalid Layer Name"):
                    out.setdefault(line[len("Invalid Layer Name"):].strip(), lineno)
            return out
    return {}


@dataclass(frozen=True)
class NameLists:
    """What the 16-bit check reads from a compiled model's files (:func:`read_name_lists`): the
    lists found (file, its text, {key: entries}), the ``config.yaml`` files that could not be
    read (file, why), the layer names TIDL accepts and the files they came from (or why they
    could not be read), and the entries TI's run.log calls "Invalid Layer Name" (with the line)."""

    folder: Path
    found: tuple[tuple[Path, str, dict[str, list[str]]], ...] = ()
    unread: tuple[tuple[Path, str], ...] = ()
    names: tuple[str, ...] = ()
    used: tuple[str, ...] = ()
    names_unread: str | None = None
    invalid: dict[str, int] = field(default_factory=dict)


def read_name_lists(given: Path, folder: Path) -> NameLists:
    """The 16-bit name lists of ``param.yaml`` / ``config.yaml`` in ``folder`` (the artifacts
    folder), its parent and ``given`` (what the user named), and, when there is a list, the
    model's layer names to check them against. Files that cannot be read are data here."""
    sources = [f for f in dict.fromkeys(c for d in (folder, folder.parent, given) for c in
                                         (d / "param.yaml", d / "config.yaml")) if f.is_file()]
    found: list[tuple[Path, str, dict[str, list[str]]]] = []
    unread: list[tuple[Path, str]] = []
    for f in sources:
        try:
            opts, text = _options(f)
        except (TidlIoError, OSError) as exc:
            if f.name == "config.yaml":  # param.yaml's own errors are the param check's
                unread.append((f, reason(exc, str(f))))
            continue
        if opts:
            found.append((f, text, opts))
    if not found:
        return NameLists(folder, (), tuple(unread))
    try:
        names, used = model_names(folder)
    except (TidlIoError, OSError) as exc:
        return NameLists(folder, tuple(found), tuple(unread), names_unread=reason(exc, str(folder)))
    invalid = _invalid_lines(folder) if names else {}
    return NameLists(folder, tuple(found), tuple(unread), tuple(names), tuple(used), None, invalid)


def check_16bit_names(given: Path, folder: Path) -> list[DoctorFinding]:
    """One ERROR finding per 16-bit list entry that names no layer of the compiled model in
    ``folder`` (the artifacts folder; ``given`` is what the user named). Files without such a
    list give none; lists without a netLog or layer_info to check against give one NOTE."""
    return judge_16bit_names(read_name_lists(given, folder))


def judge_16bit_names(lists: NameLists) -> list[DoctorFinding]:
    """:func:`check_16bit_names`'s findings from what :func:`read_name_lists` read."""
    out = [DoctorFinding(NOTE, _CHECK, str(f), f"not read: {why}") for f, why in lists.unread]
    found, names, used = lists.found, list(lists.names), lists.used
    if not found:
        return out
    if lists.names_unread is not None:
        out.append(DoctorFinding(NOTE, _CHECK, str(lists.folder), f"16-bit name list(s) not checked: layer names not "
                                                                  f"read: {lists.names_unread}"))
        return out
    if not names:
        f = found[0][0]
        out.append(DoctorFinding(NOTE, _CHECK, str(f), "16-bit name list(s) not checked: no *_netLog.txt or "
                                                       "layer_info.txt in the artifacts (keep tempDir)"))
        return out
    known = set(names)
    invalid = lists.invalid
    lines = {(f, key): _lines(text, key) for f, text, opts in found for key in opts}
    sets = {(f, key): set(entries) for f, _, opts in found for key, entries in opts.items()}
    seen: set[tuple[str, str]] = set()
    for f, _, opts in found:
        for key, entries in opts.items():
            wrong = [(i, e) for i, e in enumerate(entries) if e not in known and (key, e) not in seen]
            seen.update((key, e) for _, e in wrong)
            for i, entry in wrong[:_SHOWN]:
                also = [f"{g.name} line {lines[g, key].get(entry, '?')}" for g, _, o in found
                        if g != f and entry in sets.get((g, key), ())]
                out.append(_finding(f, key, i, lines[f, key].get(entry), entry, names, used, also,
                                    invalid.get(entry)))
            if len(wrong) > _SHOWN:
                i, entry = wrong[_SHOWN]
                out.append(DoctorFinding(ERROR, _CHECK, str(f),
                                         f"{len(wrong) - _SHOWN} more entries of this list name no layer of the "
                                         f"compiled model (the first {_SHOWN} are listed one by one), from "
                                         f"{entry!r} on: TIDL ignores them",
                                         (*((f"line {lines[f, key][entry]}",) if entry in lines[f, key] else ()),
                                          f"session.runtime_options.advanced_options:{key}[{i}]")))
    return out


_PARTS = re.compile(r"[A-Za-z]+|[0-9]+")  # a name's parts: runs of letters, runs of digits (case folded)


def _parts(name: str) -> Counter[str]:
    return Counter(p.lower() for p in _PARTS.findall(name[:4 * CLOSE_CHARS]))


def close_layer_names(entry: str, names: Sequence[str], n: int = 3) -> tuple[list[str], str | None]:
    """(the ``n`` layer names most like ``entry``, the TIDL name that holds ``entry`` or None).

    TIDL names a layer by its output tensor, and a converter's fused layer by several tensor
    names joined with ';' (the netLog keeps the last 50 characters): an entry that is one of
    those tensor names (or ends with a cut name) is held by that layer, and TIDL accepts only
    the layer's whole name. Otherwise names are ranked by the parts they share with ``entry``
    (runs of letters and of digits: ``conv2d_3`` shares conv, d, 3 with ``Conv2D_3/Relu``),
    then by difflib's ratio (:func:`tidl_io.base.text.closest`). Bounded: the first
    :data:`~tidl_io.base.text.CLOSE_NAMES` names, each name's first 512 characters."""
    pool = list(names[:CLOSE_NAMES])
    held = next((x for x in pool if entry in x.split(";") or (len(x) >= NAME_CUT and entry.endswith(x))), None)
    mine = _parts(entry)
    shared = {x: sum((mine & _parts(x)).values()) for x in pool}
    most = [x for x in sorted(pool, key=lambda x: -shared[x])[:20] if shared[x] > 0]  # sharing the most parts
    candidates = list(dict.fromkeys([*most, *closest(entry, pool, 20)]))  # and the most alike letter by letter
    ranked = sorted(closest(entry, candidates, len(candidates)), key=lambda x: -shared[x])  # ties: by ratio
    if held is not None:
        ranked = [held, *(x for x in ranked if x != held)]
    return ranked[:n], held


def _finding(f: Path, key: str, i: int, line: int | None, entry: str, names: Sequence[str], used: Sequence[str],
             also: list[str], invalid: int | None) -> DoctorFinding:
    close, held = close_layer_names(entry, names, 3)
    where = (f"line {line}",) if line is not None else ()
    kind = "activations" if key.startswith("output") else "parameters"
    what = (f"{short_repr(entry, 120)} names no layer of the compiled model: TIDL ignores it (no layer's {kind} get 16 bits "
            f"from it; every layer keeps tensor_bits)")
    if held is not None:
        what += f"; it is one of the tensors of the layer TIDL named {short_repr(held, 120)}: give that name"
    elif not entry.isdigit() and 2 * sum(n.isdigit() for n in names[:CLOSE_NAMES]) > len(names[:CLOSE_NAMES]):
        what += ("; most of the compiled model's layer names are numbers: the model's tensors were renamed before "
                 "TIDL compiled it (an ONNX simplifier does that), so its own names are gone: give TIDL's numbers")
    what += f"; closest names TIDL accepts: {', '.join(repr(c) for c in close)}"
    what += f" (all {len(names)}: Out Data Names in {Path(used[0]).name}{' …' if len(used) > 1 else ''})"
    if invalid is not None:
        what += f"; TI's run.log line {invalid} says 'Invalid Layer Name'"
    if also:
        what += f"; also in {', '.join(also)}"
    return DoctorFinding(ERROR, _CHECK, str(f), what, (*where, f"session.runtime_options.advanced_options:{key}[{i}]"))
