"""One module per TI layer type, in one table: :data:`OPS` maps TI's type name to the type's
:class:`~.base.OpType` (its ``decode`` of the net's parameters into an :class:`~.base.Op`, whose
``run`` is the type's kernel; how many inputs it takes; what is emulated, for which releases,
and how it was checked).

Adding a type is one module here (its ``Op`` subclass, ``decode`` and ``TYPE``) and one row
in :data:`OPS`. The README's table of what is emulated is :func:`markdown_table` (tested).
"""

from __future__ import annotations

from collections.abc import Mapping

from . import concat, convolution, data, data_convert, pooling
from .base import Decoding, Op, OpType

__all__ = ["OPS", "Decoding", "Op", "OpType", "markdown_table"]

OPS: Mapping[str, OpType] = {t.name: t for t in (
    data.TYPE,
    data_convert.TYPE,
    convolution.TYPE,
    pooling.TYPE,
    concat.TYPE,
)}


def markdown_table() -> str:
    """The README's table: one row per emulated TI layer type."""
    rows = ["| TI layer type | emulated | releases | checked |", "|---|---|---|---|"]
    rows += [f"| `{t.name}` | {t.what} | {t.releases} | {t.checked} |" for t in OPS.values()]
    return "\n".join(rows)
