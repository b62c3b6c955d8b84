"""What ``tidl-io doctor`` reports, and the small helpers its checks share
(:mod:`tidl_io.doctor.checks` for the io files, nets and TIDL-RT; :mod:`tidl_io.doctor.sidecars` for the
text files beside them). Nothing here checks anything itself.

:class:`DoctorFinding` is a cross-file result (a level, the check, the file and the place in
it); :class:`tidl_io.Finding` is :func:`tidl_io.validate`'s, about one io descriptor's fields.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .check import open_regular, read_limited
from .errors import FormatError, TidlIoError

__all__ = ["ERROR", "NOTE", "DoctorFinding", "dims_text", "read_text", "reason"]

ERROR, NOTE = "error", "note"


@dataclass(frozen=True)
class DoctorFinding:
    """One located result. ``level`` is "error" (the files disagree: exit 1) or "note";
    ``check`` names the check (files, release, io-net, metadata, allowed-nodes, param,
    library, explain); ``source`` the file it is about; ``where`` the place inside it
    (a tensor, a TI field, a layer, a line)."""

    level: str
    check: str
    source: str
    message: str
    where: tuple[str, ...] = ()
    subgraph: str | None = None

    def __str__(self) -> str:
        return f"{self.level}: {', '.join((self.source, *self.where))}: {self.message}"


def reason(exc: BaseException, path: str) -> str:
    """An error's message on one line (a YAML parser's spans several), without the path when
    the finding names it already (as typed, or as the message spells it: "DIR/" is "DIR")."""
    text = " ".join(str(exc).split())
    for name in dict.fromkeys((path, os.path.normpath(path) if path else path)):
        if isinstance(exc, FormatError) and exc.source == name:
            return text[len(name):].lstrip(",: ") or text
        for prefix in (f"{name}: ", f"{name}, "):
            if text.startswith(prefix):
                return text[len(prefix):]
    if isinstance(exc, OSError) and not isinstance(exc, TidlIoError):
        return f"cannot read: {exc.strerror or exc}"
    return text


def read_text(path: Path) -> str:

    with open_regular(str(path), f"a text file ({path.name})") as fh:
        return read_limited(fh, 1 << 24)[: 1 << 24].decode("utf-8", errors="replace")


def dims_text(dims: Sequence[int]) -> str:
    return "x".join(str(int(v)) for v in dims)
