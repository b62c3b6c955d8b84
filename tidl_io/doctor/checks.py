"""``tidl-io doctor``: do the files of a compiled model agree with each other?

:func:`diagnose` takes an artifacts folder (or a model folder holding ``artifacts/`` and
``param.yaml``) and checks, per subgraph and for the model as a whole:

- which TIDL release built it: the net file's ``netVersion`` and the io descriptor's size
  must name the same release (artifacts of two releases is the classic "Config file size
  (37272) does not match size of sTIDL_IOBufDesc_t (37256)");
- io descriptor and net agree: as many inputs/outputs as the net has data layers, and each
  io tensor's dims, element type, scale, zero point (where both store one) and left/top
  pads equal those of the net layer with its dataId; a ``layer_info.txt`` that does not
  match the net's layers (stale) is named;
- ``onnxrtMetaData.txt``, ``allowedNode.txt`` and ``param.yaml`` agree with the io files;
- whether the TIDL-RT library tidl-io would load serves that release (TI's words when not:
  "Network version - 0x…, Expected version - 0x…"); no library is a note, not an error;
- optionally, what TI's error numbers name: ``"DIM Error - For Tensor 20"`` is dataId 20.

Nothing here prints: the result is a :class:`Diagnosis` holding located :class:`DoctorFinding`
objects, with ``to_text()``, ``to_dict()`` and ``to_html()`` (rendered by ``tidl_io.iodesc.format``).
Public as ``tidl_io.diagnose``.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..artifacts.reader import ArtifactsFolder, GivenNet, SubgraphFiles, read_artifacts_folder
from ..base.check import check_flag, wrong_kind
from ..base.errors import (
    LibraryNotFoundError,
    OptionError,
    PathError,
    TensorNotFoundError,
    TidlIoError,
    TidlRtError,
)
from ..base.findings import ERROR, NOTE, DoctorFinding, dims_text, reason
from ..base.releases import release_table, releases_label, releases_text
from ..base.text import short, short_repr
from ..iodesc.descriptor import Descriptor, ElementType, Tensor
from ..iodesc.schema import Layout, layouts
from ..net import IoLink, Layer, Network
from ..precision.names import judge_16bit_names
from .report import Diagnosis, SubgraphReport
from .sidecars import check_sidecars

__all__ = ["Diagnosis", "DoctorFinding", "SubgraphReport", "diagnose", "parse_explain"]

# ---- explain: TI's numbers -------------------------------------------------------------

_SEP = r"\s*[:=#]?\s*(-?)\s*([0-9]+)"  # "Tensor 20", "dataId: 20", "layer=5"; a "-" before the digits is a sign
_EXPLAIN = (  # (pattern, what the number is)
    (re.compile(r"\bdata\s*-?\s*id" + _SEP, re.IGNORECASE | re.ASCII), "dataId"),
    (re.compile(r"\btensor\s*(?:id\s*)?" + _SEP, re.IGNORECASE | re.ASCII), "dataId"),
    (re.compile(r"\blayer\s*(?:id\s*|num\s*)?" + _SEP, re.IGNORECASE | re.ASCII), "layer"),
    (re.compile(r"^\s*(-?)([0-9]+)\s*$", re.ASCII), "dataId"),
)
_MAX_NUMBER = 2**31 - 1  # TI's ids are int32


def parse_explain(text: str) -> tuple[str, int]:
    """What a TI message's number names: ``("dataId", 20)`` for ``"DIM Error - For Tensor
    20"`` (TIDL-RT numbers tensors by dataId), or a bare ``"20"``; ``("layer", 5)`` for
    ``"Layer 5"`` (the layer's index in execution order). An OptionError (a ValueError) if it
    has no number, a negative one (``"Tensor -1"``) or one past TI's int32 ids; an
    ArgumentTypeError if it is no str."""
    if not isinstance(text, str):
        raise wrong_kind("parse_explain", "text", text, "a str (a TI message such as 'DIM Error - For Tensor 20')")
    for pattern, kind in _EXPLAIN:
        m = pattern.search(text)
        if m:
            sign, digits = m.group(1), m.group(2).lstrip("0") or "0"
            if sign:
                raise OptionError(f"--explain {short_repr(text)}: {kind} -{short(digits, 12)} is negative; TI numbers "
                                  f"tensors and layers from 0")
            if len(digits) > 10 or int(digits) > _MAX_NUMBER:
                raise OptionError(f"--explain {short_repr(text)}: {kind} {short(digits, 12)} ({len(digits)} digits) "
                                  f"is past TI's ids (0..{_MAX_NUMBER})")
            return kind, int(digits)
    raise OptionError(f"--explain must be a message naming 'Tensor N', 'dataId N' or 'Layer N', or a "
                      f"number (a dataId), found {short_repr(text)}")


# ---- the diagnosis ---------------------------------------------------------------------

def diagnose(path: str | os.PathLike[str], *, library: str | os.PathLike[str] | None = None,
             explain: Sequence[str | tuple[str, int]] = (), check_library: bool = True) -> Diagnosis:
    """Check the artifacts at ``path`` (see the module docstring) and return the
    :class:`Diagnosis` (``to_text()``, ``to_dict()``, ``to_html()``: what ``tidl-io doctor``
    prints). ``library``: the TIDL-RT library to compare with (default: the one
    :class:`~tidl_io.TidlRtRuntime` would load); ``check_library=False`` skips that check.
    ``explain``: TI messages or numbers to name (see :func:`parse_explain`).

    A folder (or net file) with a net and no io descriptor is checked from the net alone:
    the missing io file is an error named as TI names it, and ``explain`` still answers.

    Raises when it cannot check, one located line saying why (:class:`~tidl_io.PathError`,
    the message starting with ``path``): a path that is not there or cannot be used
    (:class:`~tidl_io.PathNotFoundError` also for a folder with no io descriptor or net to
    check), a folder of model folders (naming them: give one), a net file whose io descriptor
    is beside it (give the folder), a file that is neither an io descriptor nor a net file
    (told from its bytes); also for arguments of the wrong kind and an ``explain`` without a
    usable number (:class:`~tidl_io.ArgumentTypeError`, :class:`~tidl_io.OptionError`).
    Otherwise returns a :class:`Diagnosis` whose findings are what is wrong with the files that
    could be read: a file that cannot be used inside a folder being checked is a finding.

    The folder is read once (:func:`tidl_io.artifacts.reader.read_artifacts_folder`, which
    says what the path is); the checks below only judge what it read."""
    art = read_artifacts_folder(path, "diagnose")
    keys = _explain_keys(explain)
    check_library = check_flag(check_library, "diagnose", "check_library")
    refusal = _cannot_check(art)
    if refusal is not None:
        raise refusal
    subs = art.subgraphs
    findings = [] if art.metadata_problem is None else [
        DoctorFinding(ERROR, "metadata", art.metadata_problem.source, art.metadata_problem.message)]
    reports = []
    for s in subs:
        report, found_here = _check_subgraph(s)
        reports.append(report)
        findings += found_here
    findings += _check_releases_agree(subs)
    releases = _releases_of(subs)
    if not art.net_only:
        findings += check_sidecars(art, releases)
    if art.name_lists is not None:
        findings += judge_16bit_names(art.name_lists)  # the 16-bit name lists (tidl_io.precision owns the check)
    lib_text: str | None = "not checked"
    if check_library:
        lib_text, lib_findings = _check_library(subs, library)
        findings += lib_findings
    for kind, number in keys:
        findings += _explain(kind, number, subs)
    return Diagnosis(art.given, str(art.folder), tuple(reports), releases, lib_text, tuple(findings))


def _cannot_check(art: ArtifactsFolder) -> TidlIoError | None:
    """Why doctor cannot check what ``art`` read (the error :func:`diagnose` raises), or None
    when there are files to check (:attr:`ArtifactsFolder.checkable`)."""
    given = art.given
    if art.given_net is not None:
        return PathError(given, _given_net_text(art.given_net, art.folder))
    if art.other_file is not None:
        return PathError(given, f"not an io descriptor (*_tidl_io_1.bin), a net file (*_tidl_net.bin) or an "
                                f"artifacts folder: {art.other_file}; doctor checks {_EXPECTED}")
    if art.problem is None:
        return None
    if art.subfolders:
        below = art.subfolders
        names = ", ".join(str(b) for b in below[:8]) + (" ..." if len(below) > 8 else "")
        return PathError(given, f"a folder of model folders: give one model's artifacts folder; found {len(below)}: "
                                f"{names} (tidl-io doctor {shlex.quote(str(below[0]))})")
    error = art.problem.error
    kind = type(error) if isinstance(error, PathError) else PathError
    return kind(art.problem.source, art.problem.message, getattr(error, "errno", None))


_EXPECTED = "a model's artifacts folder, a model folder holding artifacts/, an io descriptor or a net file"


def _given_net_text(net: GivenNet, folder: Path) -> str:
    """What to say when PATH is a network file rather than a folder (or an io file)."""
    word = net.word
    what = (f"a network file (netVersion {word:#010x}, TIDL {releases_text(net.releases)})" if net.releases else
            f"a network file of a release tidl-io does not know (netVersion {word:#010x})"
            if word is not None and net.version_shaped else "named like a network file (*_tidl_net.bin)")
    return (f"{what}, not an artifacts folder: doctor checks the folder holding each io descriptor and its net "
            f"(tidl-io doctor {shlex.quote(str(folder))})")


def _explain_keys(explain: Any) -> list[tuple[str, int]]:
    """``diagnose``'s ``explain``: TI messages, or ``("dataId" | "layer", number)`` pairs."""
    if isinstance(explain, (str, bytes)) or not isinstance(explain, Iterable):
        raise wrong_kind("diagnose", "explain", explain, "a list of TI messages or (kind, number) pairs, e.g. "
                         "['DIM Error - For Tensor 20']")
    keys = []
    for i, e in enumerate(explain):
        if isinstance(e, str):
            keys.append(parse_explain(e))
        elif (isinstance(e, tuple) and len(e) == 2 and e[0] in ("dataId", "layer")
              and isinstance(e[1], (int, np.integer)) and not isinstance(e[1], bool)):
            if not 0 <= e[1] <= _MAX_NUMBER:
                raise OptionError(f"diagnose: explain[{i}]: {e[0]} must be 0..{_MAX_NUMBER} (TI's ids), found "
                                  f"{short_repr(e[1])}")
            keys.append((str(e[0]), int(e[1])))
        else:
            raise wrong_kind("diagnose", f"explain[{i}]", e, "a TI message (str) or a (kind, number) pair with "
                             "kind 'dataId' or 'layer'")
    return keys


# ---- one subgraph: io file, net file, release, io <-> net --------------------------------

def _check_subgraph(s: SubgraphFiles) -> tuple[SubgraphReport, list[DoctorFinding]]:
    """What one subgraph's files say (its report), and what is wrong with them."""
    io = str(s.io)
    out = [DoctorFinding(ERROR, "files", p.source, p.message, subgraph=s.name)
           for p in (s.net_unusable, s.io_problem) if p is not None]
    if s.net_path is None and s.name == s.io.name:  # neither of TI's names: no net name to look for
        out.append(DoctorFinding(ERROR, "files", io, "named neither NAME_tidl_io_1.bin nor tidl_io_NAME_1.bin, "
                                 "so its network file (NAME_tidl_net.bin / tidl_net_NAME.bin) cannot be found: "
                                 "keep the names TI's tools gave the pair", subgraph=s.name))
    elif s.net_path is None:
        if s.net_unusable is None:  # what is under the net's name was found unusable already
            out.append(DoctorFinding(ERROR, "files", io, f"no {s.net_expected.name} beside it: TIDL-RT "
                                     f"needs the network file of subgraph {s.name!r}", subgraph=s.name))
    elif s.net_problem is not None:
        out.append(DoctorFinding(ERROR, "files", s.net_problem.source, s.net_problem.message, subgraph=s.name))
    d, n = s.desc, s.net
    report = SubgraphReport(
        s.name, io, None if s.net_path is None else str(s.net_path),
        io_layout=None if d is None else d.layout.key, io_title=None if d is None else d.layout.title,
        io_size=None if d is None else d.nbytes, net_version=None if n is None else int(n.net_version),
        net_release=None if n is None else str(n.release), num_layers=None if n is None else len(n.layers),
        num_inputs=None if d is None else d.num_inputs, num_outputs=None if d is None else d.num_outputs,
        io_missing=s.io_missing)
    if s.io_missing and n is not None:  # a net that cannot be read is the first problem: said alone
        out.insert(0, DoctorFinding(ERROR, "files", str(s.net_path), f"no {s.io.name} beside it: TIDL-RT needs the "
                                    f"io descriptor of subgraph {s.name!r} (TI's tools write it as "
                                    f"{s.io.name}); checked from the net alone", subgraph=s.name))
    if d is not None and n is not None:
        problem = _release_problem(d, n, s)
        if problem is not None:
            out.append(problem)  # io <-> net is meaningless across releases
        else:
            out += _check_io_net(d, n, s)
    if n is not None:
        out += _check_layer_info(n, s)
    return report, out


def _layouts_of(release: str) -> list[Layout]:
    return [lay for lay in layouts() if release in lay.releases]


def _release_problem(d: Descriptor, net: Any, s: SubgraphFiles) -> DoctorFinding | None:
    """An error when the io descriptor's layout is not one the net's release writes."""
    rels = net.releases
    if not rels or set(rels) & set(d.layout.releases):
        return None
    want = sorted({lay.size for r in rels for lay in _layouts_of(r)})
    sizes = " or ".join(str(x) for x in want) or "unknown"
    ti = f'; TIDL-RT of that release says "Config file size ({d.layout.size}) does not match size of ' \
         f'sTIDL_IOBufDesc_t ({want[0]})"' if len(want) == 1 else ""
    return DoctorFinding(ERROR, "release", str(s.io),
                   f"{d.layout.size} bytes is the {d.layout.title} io descriptor, but {Path(net.source).name} has "
                   f"netVersion {int(net.net_version):#010x} ({net.release}), whose io descriptor has {sizes} bytes: "
                   f"files of two TIDL releases (recompile, or copy both from one artifacts folder){ti}",
                   ("file size",), s.name)


def _check_releases_agree(subs: Sequence[SubgraphFiles]) -> list[DoctorFinding]:
    """Every subgraph of one release: the nets' netVersions equal, and the io layouts of
    subgraphs without a readable net sharing a release with the rest."""
    seen = [(s, net) for s, net in _nets(subs)]
    out = []
    if seen:
        first, ref = seen[0]
        out += [DoctorFinding(ERROR, "release", str(s.net_path), f"netVersion {net.net_version:#010x} ({net.release}) "
                        f"differs from {first.net_path.name if first.net_path else first.name}'s "
                        f"{ref.net_version:#010x} ({ref.release}): subgraphs of two TIDL releases",
                        subgraph=s.name) for s, net in seen[1:] if net.net_version != ref.net_version]
    ios = [(s, s.desc) for s in subs if s.desc is not None and s.net is None]
    if ios:
        want = set(seen[0][1].releases) if seen else set(ios[0][1].layout.releases)
        where = (f"{seen[0][0].net_path.name if seen[0][0].net_path else seen[0][0].name}'s netVersion" if seen
                 else f"{ios[0][0].io.name}'s layout")
        out += [DoctorFinding(ERROR, "release", str(s.io), f"the {d.layout.title} io descriptor ({d.layout.size} bytes) "
                        f"is of another release than {where} ({releases_label(want)}): subgraphs of two TIDL "
                        f"releases", ("file size",), s.name)
                for s, d in ios if want and not want & set(d.layout.releases)]
    return out


def _nets(subs: Sequence[SubgraphFiles]) -> list[tuple[SubgraphFiles, Network]]:
    return [(s, s.net) for s in subs if s.net is not None]


def _releases_of(subs: Sequence[SubgraphFiles]) -> tuple[str, ...]:
    """The releases the artifacts need: the nets' (else the io layouts')."""
    nets = [set(net.releases) for _, net in _nets(subs)]
    if nets:
        return tuple(sorted(set.union(*nets)))
    ios = [set(s.desc.layout.releases) for s in subs if s.desc is not None]
    return tuple(sorted(set.intersection(*ios))) if ios else ()


# ---- io descriptor <-> net --------------------------------------------------------------

def _element_name(code: int) -> str:
    try:
        return ElementType(code).name
    except ValueError:
        return f"element type {code}"


def _layer_text(layer: Layer) -> str:
    name = f" {layer.name!r}" if layer.name else ""
    return f"layer {layer.index} {layer.type}{name}"


_QUANT = ("scale", "zero_point")  # what a recalibration changes; the other checks name the model


def _has_zero_point(layer: Layer) -> bool:
    """Whether the net's layout stores tensorZeroPoint (8.2's does not)."""
    out = layer.raw.get("outData")
    out = out[0] if isinstance(out, list) and out else out
    return isinstance(out, dict) and "tensorZeroPoint" in out


def _tensor_problems(t: Tensor, link: IoLink) -> list[tuple[str, str, str]]:
    """(kind, TI field or "", message) for each disagreement of io tensor ``t`` with its net
    layer: the link's own (dataId, dims), then element type, scale, zero point (where both
    files store one) and the left/top pads (TI's importer copies the data layer's padW/padH
    into inPadL/inPadT; an output's come from its layer the same way)."""
    prefix = f"{t.kind} {t.index} {t.name!r}: "
    problems = [("link", t.ti_name("data_id") if link.layer is None else "", p.removeprefix(prefix))
                for p in link.problems]
    layer = link.layer
    if layer is None:
        return problems
    has = {attr for _, attr in t.ti_names}
    if int(t.element_type) != int(layer.element_code):
        problems.append(("element_type", t.ti_name("element_type"), (
            f"{_element_name(t.element_type)}, but {_layer_text(layer)} has {_element_name(layer.element_code)}")))
    if np.float32(t.scale) != np.float32(layer.scale):
        problems.append(("scale", t.ti_name("scale"), (f"scale {float(np.float32(t.scale))!r}, but {_layer_text(layer)} "
                                                       f"has {float(np.float32(layer.scale))!r}")))
    if "zero_point" in has and _has_zero_point(layer) and int(t.zero_point) != int(layer.zero_point):
        problems.append(("zero_point", t.ti_name("zero_point"), (f"zero point {int(t.zero_point)}, but "
                                                                 f"{_layer_text(layer)} has {int(layer.zero_point)}")))
    if (int(t.pad_l), int(t.pad_t)) != tuple(layer.pads):
        problems.append(("pads", t.ti_name("pad_l"), (
            f"pads left/top {int(t.pad_l)}/{int(t.pad_t)}, but {_layer_text(layer)} has padW/padH "
            f"{layer.pads[0]}/{layer.pads[1]}")))
    return problems


def _check_io_net(d: Descriptor, net: Network, s: SubgraphFiles) -> list[DoctorFinding]:
    io, netname = str(s.io), Path(str(net.source)).name
    lines: list[tuple[str, tuple[str, ...], str]] = []
    links = net.link_io(d)
    agree = 0
    for key in ("numCores", "inferenceMode"):  # written by the same compilation into both files
        mine, theirs = d.header.get(key), net.header.get(key)
        if mine is not None and theirs is not None and int(mine) != int(theirs):
            lines.append(("header", (key,), f"{mine}, but {netname} has {key} {int(theirs)}: not one compilation"))
    for kind, tensors, have in (("input", d.inputs, len(net.input_layers)),
                                ("output", d.outputs, len(net.output_layers))):
        if len(tensors) != have:
            count = "numInputBuf" if kind == "input" else "numOutputBuf"
            lines.append(("count", (count,), f"{len(tensors)} {kind}(s), but {netname} has {have} {kind} data layer(s)"))
        for t in tensors:
            problems = _tensor_problems(t, links[(kind, t.index)])
            agree += not problems
            lines += [(what, (t.label, ti) if ti else (t.label,), msg) for what, ti, msg in problems]
    if links and not agree:  # nothing matches: one line for the cause
        first = "; ".join(f"{', '.join(w)}: {m}" for _, w, m in lines[:2])
        more = "; ..." if len(lines) > 2 else ""
        if all(what in _QUANT for what, _, _ in lines):  # same model, other quantization
            return [DoctorFinding(ERROR, "io-net", io, f"scales differ: every tensor of this io descriptor has "
                                  f"other quantization than {netname} (the same model calibrated twice? copy both "
                                  f"files from one compilation) ({first}{more})", subgraph=s.name)]
        return [DoctorFinding(ERROR, "io-net", io, f"no tensor of this io descriptor matches {netname} (dataIds, dims, "
                              f"element types, scales): the io descriptor of another model? ({first}{more})",
                              subgraph=s.name)]
    return [DoctorFinding(ERROR, "io-net", io, msg, where, s.name) for _, where, msg in lines]


def _check_layer_info(net: Network, s: SubgraphFiles) -> list[DoctorFinding]:
    """The net's layer_info.txt when it was not used (:attr:`Network.layer_info_error`: a
    hostile line, another line count, other dataIds or data-layer names: the file of another
    model). Read once, by :func:`~tidl_io.load_net`."""
    if net.layer_info_error is None:
        return []
    source = str(s.layer_info) if s.layer_info is not None else str(net.source)
    message = net.layer_info_error
    if message.startswith(source):
        message = message[len(source):].lstrip(",: ")
    return [DoctorFinding(ERROR, "layer-info", source, message, subgraph=s.name)]


# ---- TIDL-RT: which release would load this -------------------------------------------------

def _check_library(subs: Sequence[SubgraphFiles], library: str | os.PathLike[str] | None) -> tuple[str | None, list[DoctorFinding]]:
    from ..runtime.tidlrt import families, load_library, probe, releases  # start-up

    try:
        lib = load_library(library)
        fp = probe(lib)
    except LibraryNotFoundError as exc:
        if library is not None:  # asked for by name: that it cannot load is a problem
            why = "; ".join(t.split(": ", 1)[-1] for t in exc.tried) or reason(exc, "")
            return "none found", [DoctorFinding(ERROR, "library", str(library), f"cannot load it: {why}")]
        tried = ", ".join(t.split(":")[0] for t in exc.tried) or str(exc)
        return "none found", [DoctorFinding(NOTE, "library", "TIDL-RT", f"no library found (tried {tried}), so which "
                                      f"release it serves is not checked")]
    except TidlRtError as exc:
        where = str(library) if library is not None else "TIDL-RT"
        return None, [DoctorFinding(ERROR, "library", where, reason(exc, where))]
    if len(fp.matches) != 1:
        return f"{lib.path} (layout not identified)", [DoctorFinding(
            NOTE, "library", lib.path, f"its TIDLRT_setParamsDefault/setTensorDefault {fp.summary()}: which "
            f"release it is cannot be told, so the net versions are not compared")]
    key = fp.matches[0]
    table = release_table()
    served = [r.ti for r in table.with_tidlrt(key)]
    text = f"{lib.path} ({releases_label(served)}, layout {families()[key].key}, found via {lib.how})"
    expected = sorted(w for w, rels in table.net_versions().items() if {r.ti for r in rels} & set(served))
    out = []
    for s, net in _nets(subs):
        rels = net.releases
        word = int(net.net_version)
        if set(rels) & set(served):
            if len(expected) > 1:
                out.append(DoctorFinding(NOTE, "library", lib.path, f"its layout {key} serves {releases_label(served)}, "
                                   f"which differ in netVersion; TIDL-RT accepts {Path(str(s.net_path)).name} only "
                                   f"if it is TIDL {net.release} itself (netVersion {word:#010x})",
                                   subgraph=s.name))
            continue
        if rels and all(releases().get(r) is None for r in rels):
            out.append(DoctorFinding(NOTE, "library", lib.path, f"{releases_label(rels)}'s TIDL-RT layout is not in "
                               f"tidl-io's table; the library's defaults match {key} ({releases_label(served)}): "
                               f"if it is not a {releases_label(rels)} library, TIDL-RT will refuse the net",
                               subgraph=s.name))
            continue
        exp = " or ".join(f"0x{w:08X}" for w in expected) or f"(unknown for {releases_label(served)})"
        out.append(DoctorFinding(ERROR, "library", lib.path, f"Network version - 0x{word:08X}, Expected version - {exp}: "
                           f"this TIDL-RT library is {releases_label(served)} (layout {key}), "
                           f"{Path(str(s.net_path)).name} is {net.release}: use TIDL-RT {net.release}, or "
                           f"recompile the model with the tools of {releases_label(served)}", subgraph=s.name))
    return text, out


# ---- explain ------------------------------------------------------------------------------

def _explain(kind: str, number: int, subs: Sequence[SubgraphFiles]) -> list[DoctorFinding]:
    asked = f"{'Tensor' if kind == 'dataId' else 'Layer'} {number}"
    out = []
    for s, net in _nets(subs):
        source = str(s.net_path)
        try:
            layer = net.layer_by_data_id(number) if kind == "dataId" else net.layer(index=number)
        except TensorNotFoundError as exc:
            out.append(DoctorFinding(NOTE, "explain", source, f"{asked}: {reason(exc, source)}", subgraph=s.name))
            continue
        if layer.data_id is None:  # an output data layer: it reads a buffer and makes none
            out.append(DoctorFinding(NOTE, "explain", source, _output_text(net, layer),
                                     (f"layer {layer.index}",), s.name))
            continue
        readers = [x.index for x in net.layers if layer.data_id in x.inputs]
        out.append(DoctorFinding(NOTE, "explain", source,
                           f"{asked} is dataId {layer.data_id}, the output of {_layer_text(layer)}: "
                           f"{dims_text(layer.shape)} {_element_name(layer.element_code)}, scale "
                           f"{float(np.float32(layer.scale))!r}, zero point {layer.zero_point}; read by layer(s) "
                           f"{', '.join(map(str, readers)) or 'none'}", (f"layer {layer.index}",), s.name))
    return out


def _output_text(net: Network, layer: Layer) -> str:
    """``layer 81 is the output data layer; it reads dataId 80 (ArgMax, layer 80 TIDL_ArgMaxLayer)``."""
    parts = []
    for d in layer.inputs:
        try:
            src = net.layer_by_data_id(d)
        except TensorNotFoundError:
            parts.append(f"dataId {d} (made by no layer)")
            continue
        label = src.name or src.type.removeprefix("TIDL_").removesuffix("Layer")
        parts.append(f"dataId {d} ({label}, layer {src.index} {src.type})")
    reads = " and ".join(parts) or "nothing"
    return f"layer {layer.index} is the output data layer; it reads {reads}"
