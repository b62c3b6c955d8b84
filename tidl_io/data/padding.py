"""Is a buffer's padding zero? TIDL requires clean pads in input buffers.

:func:`check_padding` counts the non-zero elements of a buffer outside the tensor's valid
region (pad rows and columns, gaps between planes, spare planes) and says where the first one
is, reading only the padding (a few strided passes over the blocks
:meth:`~tidl_io.iodesc.geometry.BufferGeometry.gaps` finds).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.check import check_kind
from ..iodesc.descriptor import Tensor
from .plan import plan_buffer, typed_buffer

__all__ = ["PaddingReport", "check_padding"]


@dataclass(frozen=True)
class PaddingReport:
    """What :func:`check_padding` found.

    ``checked``: buffer elements outside the valid region (pads, spare planes) that were
    inspected; ``dirty``: how many of them are not all-zero bytes; ``first_dirty``: the
    element index (into the flat buffer) of the lowest dirty one, or None.
    """

    tensor: str
    checked: int
    dirty: int
    first_dirty: int | None

    @property
    def clean(self) -> bool:
        return self.dirty == 0

    def __str__(self) -> str:
        if self.clean:
            return f"{self.tensor}: all {self.checked} padding elements are zero"
        return (f"{self.tensor}: {self.dirty} of {self.checked} padding elements are not zero, the first at "
                f"buffer index {self.first_dirty}")


def check_padding(tensor: Tensor, buf: Any) -> PaddingReport:
    """Count the non-zero padding elements of a buffer (reads only; no copy).

    Padding is every element of ``[0, buffer_size)`` outside the valid region: pad rows
    and columns, the gaps between channel planes, spare planes. "Zero" means all-zero
    bytes (a float ``-0.0`` is dirty). TIDL requires clean pads in input buffers;
    outputs' pads hold whatever the accelerator left. Reads only the padding, in a few
    strided passes.
    """
    plan = plan_buffer(check_kind(tensor, Tensor, "check_padding", "tensor"))
    typed = typed_buffer(plan, buf, "buf", "check_padding")
    span = min(typed.size, plan.size)
    bits = typed[:span].view(np.dtype(f"u{plan.itemsize}"))
    checked = dirty = 0
    first: int | None = None
    for start, shape, strides in tensor.geometry.gaps(span):
        block = np.ndarray(shape, bits.dtype, buffer=bits, offset=start * plan.itemsize,
                           strides=tuple(s * plan.itemsize for s in strides))
        checked += block.size
        count = int(np.count_nonzero(block))
        if count:
            dirty += count
            index = np.unravel_index(int(np.argmax(block != 0)), shape)
            address = start + sum(int(i) * s for i, s in zip(index, strides))
            first = address if first is None else min(first, address)
    return PaddingReport(plan.label, checked, dirty, first)
