""":func:`report`: each part run on one model folder, its own object kept with its own renderer.

A part that cannot be made (its file is not there, or cannot be read) is a :class:`Section`
without a document whose ``missing`` is the part's own one-line error (which names the file
that would fill it), never an exception: only a path that doctor cannot check at all raises."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from ..advisor import advise
from ..advisor.page import ADVICE_CSS, advice_body
from ..artifacts.reader import ArtifactsFolder, read_artifacts_folder
from ..base.check import check_flag, check_path, wrong_kind
from ..base.errors import TidlIoError
from ..base.text import layer_anchor
from ..doctor.checks import Diagnosis, diagnose
from ..doctor.report import DOCTOR_CSS, diagnosis_body
from ..iodesc.format import descriptor_to_dict, document, format_descriptor
from ..iodesc.picture import esc
from ..net.format import net_to_dict
from ..net.page import NET_CSS, net_body
from ..perf import load_perf
from ..perf.page import PERF_CSS, perf_body
from ..precision.page import QUANT_CSS, quant_body
from ..precision.report import load_quant
from ..support.page import SUPPORT_CSS, support_body
from ..support.report import load_support
from ..trace.api import compare_calibration, compare_traces
from ..trace.emucheck import check_emulation
from ..trace.report import COMPARE_CSS, compare_body
from .model import ModelReport, Section

__all__ = ["report"]

PathLike = str | os.PathLike[str]


def _failure(exc: BaseException) -> str:
    if isinstance(exc, OSError) and not isinstance(exc, TidlIoError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    return str(exc)


def _attempt(make: Callable[[], Section], key: str, title: str, command: str) -> Section:
    """``make()``; a part's own error (a missing or unreadable file) is the section's ``missing``."""
    try:
        return make()
    except (TidlIoError, OSError) as exc:
        return Section(key, title, command, None, missing=_failure(exc))


def _flat(files: Any) -> tuple[str, ...]:
    out: list[str] = []
    for v in (files.values() if isinstance(files, dict) else files):
        if isinstance(v, (list, tuple)):
            out += [str(x) for x in v]
        elif v:
            out.append(str(v))
    return tuple(dict.fromkeys(out))


def _model_section(folder: ArtifactsFolder, path: str, links: list[tuple[str, str, set[str]]]) -> Section:
    """``tidl-io inspect PATH --json``'s document: the io descriptors and the nets beside them."""
    descs, nets, errors, files, bodies = [], [], [], [], []
    for sub in folder.subgraphs:
        if sub.desc is not None:
            descs.append(descriptor_to_dict(sub.desc, str(sub.io)))
            files.append(str(sub.io))
            bodies.append(f"<h3>{esc(sub.name)}: io descriptor</h3><pre>"
                          f"{esc(format_descriptor(sub.desc, str(sub.io)))}</pre>")
        if sub.net is not None and sub.net_path is not None:
            nets.append(net_to_dict(sub.net, str(sub.net_path)))
            files.append(str(sub.net_path))
            if sub.net.layer_info_error is not None:
                errors.append({"path": str(sub.net_path), "message": sub.net.layer_info_error})
            bodies.append(f"<h3>{esc(sub.name)}: net</h3>"
                          + net_body(sub.net, str(sub.net_path), sub.name, "model", links))
        else:
            bodies.append(f'<p class="absent">{esc(sub.name)}: no net: {esc(sub.net_expected.name)} is not '
                          "there (TIDL's import writes it beside the io descriptor): no layers, no graph</p>")
    doc = document(descs)
    doc["nets"] = nets
    doc["errors"] = errors
    missing = None if descs or nets else f"{path}: no io descriptor (*_tidl_io_1.bin) and no net (*_tidl_net.bin)"
    body = "".join(bodies)
    return Section("model", "The model: layers, types, shapes, precision", f"tidl-io inspect {path} --json",
                   None if missing else doc, tuple(files), missing, bool(errors),
                   body=lambda: body, css=NET_CSS)


def report(path: PathLike, *, traces: PathLike | None = None, golden: PathLike | None = None,
           board: Sequence[PathLike] = (), check_library: bool = True) -> ModelReport:
    """One page per model: every part of tidl-io run on the model or artifacts folder ``path``.

    Sections, doctor's first: ``doctor`` (:func:`tidl_io.diagnose`), ``model`` (the io
    descriptors and nets, as ``tidl-io inspect``), ``perf`` (:func:`tidl_io.load_perf`, with the
    ``board`` logs), ``support`` (:func:`tidl_io.load_support`), ``quant``
    (:func:`tidl_io.load_quant`), ``compare`` and ``advise`` (with ``traces`` and ``golden``:
    :func:`tidl_io.compare_traces` and :func:`tidl_io.advise`; with ``golden`` alone, the
    calibration dumps: :func:`tidl_io.compare_calibration`), ``emulation``
    (:func:`tidl_io.check_emulation` against TI's dumps). Each section's ``document`` equals its
    command's ``--json``. Raises what :func:`tidl_io.diagnose` raises for a path it cannot
    check (a located :class:`~tidl_io.PathError`); a part that cannot be made is a section
    saying what is missing. A folder holding TI's logs but no io descriptor and no net (which
    doctor cannot check) still gives the parts that can be made, its doctor section saying what
    is missing and counted as a finding; with no part at all, doctor's error is raised."""
    p = check_path(path, "report", "path")
    t = None if traces is None else check_path(traces, "report", "traces")
    g = None if golden is None else check_path(golden, "report", "golden")
    if not isinstance(board, (list, tuple)):
        raise wrong_kind("report", "board", board, "a list of board logs (paths)")
    boards = [check_path(b, "report", "board") for b in board]
    check_library = check_flag(check_library, "report", "check_library")
    folder = read_artifacts_folder(p, "report")
    art = str(folder.folder)
    doctor_title, doctor_cmd = "Doctor: do the files agree?", f"tidl-io doctor {p} --json"
    try:
        diagnosis: Diagnosis | None = diagnose(p, check_library=check_library)
    except TidlIoError as exc:
        # a folder with TI's logs but no io descriptor and no net: the other parts may still say
        # something; anything else doctor cannot check (a missing path, a folder of model folders,
        # a file of another kind) is the report's failure too
        if folder.subfolders or not os.path.isdir(p):
            raise
        diagnosis, refused = None, exc
    if diagnosis is None:
        doctor = Section("doctor", doctor_title, doctor_cmd, None, missing=_failure(refused), finding=True)
    else:
        found = diagnosis
        doctor = Section("doctor", doctor_title, doctor_cmd, found.to_dict(),
                         _flat([s.io_file for s in found.subgraphs] + [s.net_file for s in found.subgraphs
                                                                         if s.net_file]),
                         finding=not found.ok, body=lambda: diagnosis_body(found), css=DOCTOR_CSS)
    sections: list[Section] = [doctor]

    def perf() -> Section:
        data = load_perf(p, board=boards)
        cmd = f"tidl-io perf {p}" + "".join(f" --board {b}" for b in boards) + " --json"
        return Section("perf", "Where the time goes", cmd, {**data.to_dict(), "errors": []},
                       _flat([str(v) for sg in data.subgraphs for v in sg.sources.values()] + boards), notes=(
                           "times are TI's compile-time simulation; a board log (--board) is the truth",),
                       body=lambda: perf_body(data, "perf"), css=PERF_CSS)

    def support() -> Section:
        r = load_support(p)
        return Section("support", "Support: what was split and why", f"tidl-io why {p} --json", r.to_dict(),
                       _flat(r.files), finding=not r.ok, body=lambda: support_body(r), css=SUPPORT_CSS)

    def quant() -> Section:
        r = load_quant(p)
        names = [f for f in (diagnosis.findings if diagnosis else ()) if f.check == "16bit-names" and f.level == "error"]
        note = ((f"the 16-bit name lists, checked against the net by doctor: {len(names)} name(s) that no layer has "
                "(see the doctor section)"),) if names else ()
        return Section("quant", "Quantization: weight error, activation ranges", f"tidl-io quant {p} --json",
                       r.to_dict(), _flat(r.files), finding=not r.ok, notes=note, body=lambda: quant_body(r, "quant"),
                       css=QUANT_CSS)

    first = folder.subgraphs[0].name if len(folder.subgraphs) == 1 else ""
    parts = [_attempt(perf, "perf", "Where the time goes", f"tidl-io perf {p} --json"),
             _attempt(support, "support", "Support: what was split and why", f"tidl-io why {p} --json"),
             _attempt(quant, "quant", "Quantization: weight error, activation ranges", f"tidl-io quant {p} --json"),
             *_accuracy(art, t, g, first)]
    sections.append(_model_section(folder, p, _links(parts, first)))
    sections += parts
    if diagnosis is None and all(x.document is None for x in sections):
        raise refused  # nothing at all to show: could not do the job, as doctor could not
    sections.append(_attempt(lambda: _emulation(art), "emulation", "The emulator against TI's own run",
                             f"tidl-io emulate {art} --check --json"))
    return ModelReport(p, tuple(sections))


def _links(sections: Sequence[Section], subgraph: str) -> list[tuple[str, str, set[str]]]:
    """(label, section, the ids of its layer rows) for the model table's links: a layer's time,
    weight error, SNR and 16-bit rank, each where its own part put it."""
    out = []
    for s in sections:
        d = s.document
        if d is None:
            continue
        if s.key == "perf":
            ids = {layer_anchor("perf", g["name"], lay["index"]) for g in d["subgraphs"] for lay in g["layers"]
                   if isinstance(lay.get("index"), int)}
        elif s.key == "quant":
            ids = {layer_anchor("quant", lay["subgraph"], lay["index"]) for lay in d["layers"]}
        elif s.key == "compare":
            ids = {layer_anchor("compare", subgraph, lay["index"]) for lay in d["layers"]
                   if isinstance(lay.get("index"), int)}
        elif s.key == "advise":
            ids = {layer_anchor("advise", d["subgraph"], lay["index"]) for lay in d["layers"]}
        else:
            continue
        out.append(({"perf": "time", "compare": "SNR", "advise": "16-bit"}.get(s.key, s.key), s.key, ids))
    return out


def _emulation(art: str) -> Section:
    r = check_emulation(art)
    text = r.to_text()
    return Section("emulation", "The emulator against TI's own run", f"tidl-io emulate {art} --check --json",
                   r.to_dict(), _flat(r.to_dict().get("files", {})), finding=not r.ok,
                   body=lambda: f"<pre>{esc(text)}</pre>")


def _accuracy(art: str, traces: str | None, golden: str | None, subgraph: str) -> list[Section]:
    """compare and advise: with traces and a golden run; compare alone with the calibration
    dumps and a golden run; else two sections saying what would fill them."""
    c_title, a_title = "Accuracy: which layer loses it", "Accuracy: what 16 bits would buy"
    if golden is None:
        why = ("no golden run given: tidl-io report --traces DIR --golden G (TIDL's layer traces and the float "
               "model's tensors, tidl-io golden) fills it; --golden G alone compares the calibration dumps")
        return [Section("compare", c_title, "tidl-io compare ... --json", None, missing=why),
                Section("advise", a_title, "tidl-io advise ... --json", None, missing=why)]
    g = golden
    if traces is None:
        cmd = f"tidl-io compare --calibration {art} --golden {g} --json"
        compare = _attempt(lambda: _compare(cmd, compare_calibration(art, golden=g, histograms=True), subgraph),
                           "compare", c_title, cmd)
        return [compare, Section("advise", a_title, "tidl-io advise ... --json", None,
                                 missing="no --traces DIR: the advice needs TIDL's layer traces beside the golden run")]
    t = traces
    cmd = f"tidl-io compare {t} --artifacts {art} --golden {g} --json"
    compare = _attempt(lambda: _compare(cmd, compare_traces(t, artifacts=art, golden=g, histograms=True), subgraph),
                       "compare", c_title, cmd)
    acmd = f"tidl-io advise {art} --traces {t} --golden {g} --json"

    def advice() -> Section:
        a = advise(art, traces=t, golden=g)
        return Section("advise", a_title, acmd, a.to_dict(), (t, g), body=lambda: advice_body(a, "advise"),
                       css=ADVICE_CSS)

    return [compare, _attempt(advice, "advise", a_title, acmd)]


def _compare(cmd: str, r: Any, subgraph: str) -> Section:
    return Section("compare", "Accuracy: which layer loses it", cmd, r.to_dict(), (r.test, r.reference),
                   finding=r.first_bad is not None, body=lambda: compare_body(r, "compare", subgraph),
                   css=COMPARE_CSS)


