"""Subgraphs by TIDL's number: the one resolver behind every ``--subgraph`` (``compare``,
``compare --calibration``, ``emulate``, ``advise``) and every ``subgraph=`` of the library.

TIDL numbers a model's subgraphs by their index in ``onnxrtMetaData.txt`` (the ``<N>`` of
``tidl_trace_subgraph_<N>_...``), not by the order of the file names: a model whose subgraph
``z`` is listed first has ``z`` as subgraph 0 although ``a_tidl_io_1.bin`` sorts before it.
Without that file, the number is the position in the folder's order (natural order of the
names). A subgraph may also be named by its name (``625`` for ``625_tidl_io_1.bin``).

- :func:`subgraphs`: the subgraphs of a folder's io files (:func:`~.folder.find_artifacts`),
  what ``compare`` and ``emulate`` take;
- :func:`net_subgraphs`: the subgraphs of a folder's nets, io files or not (``advise``, which
  needs the net alone);
- :func:`pick_subgraph`: the one a ``--subgraph`` value names, or the only one.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..base.check import check_path, require_folder
from ..base.errors import OptionError, PathNotFoundError
from .folder import (
    METADATA_FILE,
    Artifacts,
    OnnxrtMetadata,
    load_onnxrt_metadata,
    natural_key,
)

__all__ = ["NET_SUFFIX", "Subgraph", "net_subgraphs", "pick_subgraph", "subgraphs"]

NET_SUFFIX = "_tidl_net.bin"
IO_SUFFIX = "_tidl_io_1.bin"


@dataclass(frozen=True)
class Subgraph:
    """One subgraph of an artifacts folder: TIDL's ``number`` (its index in
    ``onnxrtMetaData.txt``; without that file its position in the folder's order; None when
    the file does not list it), its ``name``, its io file and net file (None when missing)."""

    number: int | None
    name: str
    io_file: Path | None
    net_file: Path | None

    def __str__(self) -> str:
        return f"{self.number if self.number is not None else '?'} ({self.name})"


def _numbers(names: Sequence[str], meta: OnnxrtMetadata | None) -> list[int | None]:
    """TIDL's number of each of ``names`` (given in the folder's order): its index in ``meta``,
    else (no metadata) its position."""
    if meta is None:
        return list(range(len(names)))
    index = {s.name: s.index for s in meta.subgraphs}
    return [index.get(n) for n in names]


def _metadata(folder: Path) -> OnnxrtMetadata | None:
    path = folder / METADATA_FILE
    return load_onnxrt_metadata(path) if path.is_file() else None


def subgraphs(arts: Artifacts) -> list[Subgraph]:
    """The subgraphs of ``arts`` (its io files, already in TIDL's order) with TIDL's numbers:
    from ``onnxrtMetaData.txt`` when there is one (a subgraph whose io file was not copied
    keeps its number free), else the position in the folder's order. A metadata file that
    cannot be read or parsed is its located error."""
    meta = load_onnxrt_metadata(arts.metadata_file) if arts.metadata_file is not None else None
    numbers = _numbers(arts.subgraph_names, meta)
    return [Subgraph(k, name, io, net)
            for k, io, net, name in zip(numbers, arts.io_files, arts.net_files, arts.subgraph_names)]


def net_subgraphs(path: str | os.PathLike[str], who: str = "net_subgraphs") -> tuple[Path, list[Subgraph]]:
    """(artifacts folder, its subgraphs in TIDL's order with TIDL's numbers) of a net file, an
    artifacts folder, its ``tempDir/`` or a model folder holding ``artifacts/``, from the
    ``*_tidl_net.bin`` files (the io file beside each, or None). A PathNotFoundError when no
    net is there."""
    p = Path(check_path(path, who, "artifacts"))
    if p.is_file() and p.name.endswith(NET_SUFFIX):
        folder, nets = p.parent, [p]
    else:
        require_folder(p, "the model's artifacts folder (with its *_tidl_net.bin), the model folder holding "
                          "artifacts/, or a *_tidl_net.bin")
        folder, nets = p, []
        for art in (p, p / "artifacts", p.parent if p.name == "tempDir" else p):
            nets = [f for f in art.glob(f"*{NET_SUFFIX}") if f.is_file()] if art.is_dir() else []
            if nets:
                folder = art
                break
        if not nets:
            raise PathNotFoundError(str(p), f"no *{NET_SUFFIX} here or in artifacts/: {who} needs the compiled net (scales, "
                                            "graph, names)")
    meta = _metadata(folder)
    names = [f.name[:-len(NET_SUFFIX)] for f in nets]
    order = {s.name: s.index for s in meta.subgraphs} if meta is not None else {}
    ranked = sorted(zip(names, nets), key=lambda t: (order.get(t[0], len(order)), natural_key(t[1].name)))
    numbers = _numbers([n for n, _ in ranked], meta)
    out = []
    for k, (name, net) in zip(numbers, ranked):
        io = net.with_name(name + IO_SUFFIX)
        out.append(Subgraph(k, name, io if io.is_file() else None, net))
    return folder, out


def pick_subgraph(subs: Sequence[Subgraph], value: int | str | None, seen: Sequence[int] = (),
                  where: str = "", purpose: str = "the traces are of") -> Subgraph:
    """The subgraph ``value`` names (TIDL's number first, else the name; ``"name:X"`` by name
    only, for a subgraph named like another one's number), or, with ``value`` None, the only one, else the
    one whose number is the only one in ``seen`` (the traces' names). An OptionError says
    which subgraphs there are; ``purpose`` ends its "say which one ..." (what the subgraph is
    for: "the traces are of", "to advise on" ...)."""
    listing = ", ".join(map(str, subs))
    if value is None:
        if len(subs) == 1:
            return subs[0]
        if len(set(seen)) == 1:
            number = next(iter(seen))
            hit = [s for s in subs if s.number == number]
            if hit:
                return hit[0]
            raise OptionError(f"{where}: the traces are of subgraph {number}, which is none of these "
                              f"{len(subs)} subgraphs: {listing}")
        raise OptionError(f"{where}: {len(subs)} subgraphs ({', '.join(s.name for s in subs)}): say which one "
                          f"{purpose} with --subgraph N (TIDL's number, its index in onnxrtMetaData.txt, "
                          f"or the name): {listing}")
    text = str(value)
    if text.startswith("name:"):  # by name only: a subgraph named like another one's number
        text = text[len("name:"):]
        by_number = []
    else:
        by_number = [s for s in subs if s.number is not None and text.isascii() and text.isdigit()
                     and len(text) < 10 and s.number == int(text)]
    by_name = [s for s in subs if s.name == text]
    if by_number:  # TIDL's number first (the N of tidl_trace_subgraph_N_); name:X picks by name
        return by_number[0]
    hits = {id(s): s for s in by_name}
    if not hits:
        raise OptionError(f"{where}: no subgraph {text!r} (by TIDL's number or name); subgraphs: {listing}")
    return next(iter(hits.values()))
