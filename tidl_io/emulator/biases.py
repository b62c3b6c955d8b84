"""The biases TI's last stats run used, recovered from its ``LayerPerChannelMean.bin``.

TI's import with bias calibration moves every bias after each fixed-point stats run, and
writes the net after the last move with no stats run after it: the net's biases are one move
ahead of the dumps (``stats_tool_out``, the means). :func:`recover_biases` finds, layer by
layer in execution order and channel by channel, the int16 bias code whose channel mean on
the calibration frames equals TI's (the mean is monotonic in the code; the earlier layers are
exact by then), searching outward from the net's code, nearest first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .means import channel_means, means_equal
from .ops import Op

__all__ = ["BiasMoves", "recover_biases"]

WINDOW = 64  # codes searched either side of the net's (TI moves a bias by a fraction of a mean per iteration)


@dataclass(frozen=True)
class BiasMoves:
    """Per layer index: ``(channel, codes moved from the net's)`` for each moved channel;
    ``unresolved``: the channels no code within the window made equal (kept as the net's)."""

    moved: Mapping[int, tuple[tuple[int, int], ...]]
    unresolved: Mapping[int, tuple[int, ...]]


def recover_biases(ops: Sequence[Op], inputs: Mapping[int, np.ndarray], ti_means: Mapping[int, np.ndarray],
                   window: int = WINDOW) -> tuple[tuple[Op, ...], BiasMoves, dict[int, np.ndarray]]:
    """``ops`` (from :func:`~tidl_io.emulator.decode`) with each biased layer's int16 bias codes
    replaced by those whose channel means on ``inputs`` (the calibration frames, by dataId)
    equal ``ti_means[layer index]``; what moved; and every layer's codes on ``inputs`` with
    the recovered biases (by dataId)."""
    buffers: dict[int, np.ndarray] = {}
    out_ops: list[Op] = []
    moved: dict[int, tuple[tuple[int, int], ...]] = {}
    unresolved: dict[int, tuple[int, ...]] = {}
    for op in ops:
        args = [buffers[d] for d in op.inputs]
        raw = getattr(op, "raw_bias", None)  # a layer with a bias (a role: ops that have one say so)
        ti = ti_means.get(op.index)
        if raw is None or ti is None:
            out = op.run(args, inputs)
        else:
            acc = op.accumulate(args[0])  # type: ignore[attr-defined]
            codes = np.array(raw, np.int64)
            lost = []
            for c in range(len(codes)):
                if not _channel_equal(op, acc, c, int(raw[c]), ti):
                    hit = next((int(raw[c]) + k for k in sorted(range(-window, window + 1), key=abs)
                                if -32768 <= raw[c] + k <= 32767
                                and _channel_equal(op, acc, c, int(raw[c]) + k, ti)), None)
                    if hit is None:
                        lost.append(c)
                    else:
                        codes[c] = hit
            op = op.with_raw_bias(codes)  # type: ignore[attr-defined]
            moved[op.index] = tuple((int(c), int(codes[c] - raw[c])) for c in np.flatnonzero(codes != raw))
            unresolved[op.index] = tuple(lost)
            out = op.finish(acc)
        out_ops.append(op)
        if not op.layer.is_output:
            buffers[op.data_id] = out
    return tuple(out_ops), BiasMoves(moved, unresolved), buffers


def _channel_equal(op: Op, acc: np.ndarray, c: int, code: int, ti: np.ndarray) -> bool:
    bias = op.bias_of(np.array([code]))  # type: ignore[attr-defined]
    out = op.finish(acc[:, c:c + 1], bias)  # type: ignore[attr-defined]
    return bool(means_equal(channel_means(out, op.layer.scale, op.layer.zero_point), ti[c:c + 1])[0])
