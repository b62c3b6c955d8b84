"""The checker with every target: :func:`make_checker` (the targets import the checker, so the
checker does not import them; this module, above both, puts them together)."""

from __future__ import annotations

from pathlib import Path

from .checker import Checker, Stats
from .targets import TARGETS


def make_checker(stats: Stats, scratch: Path, cli_every: int, tensors: int, verbose: bool = False) -> Checker:
    """A :class:`Checker` that dispatches to every target of :data:`TARGETS`."""
    return Checker(stats, scratch, cli_every, tensors, verbose=verbose, targets=TARGETS)
