"""The advisor's model: every formula of ``tidl-io advise`` lives here and nowhere else.

**Noise** (relative to the layer's signal power; measured by ``tidl-io compare``):

- a layer's relative noise is ``n = 10 ** (-snr_db / 10)`` (:func:`relative_noise`; an SNR
  of +inf, written null by compare, is ``n = 0``: no noise);
- what the layer *adds* is its noise minus what it inherits, ``added = max(0, n - n_in)``,
  ``n_in`` the largest relative noise among its nearest compared producers in the net's graph
  (relative noise passes through a layer roughly unchanged, to first order);
- the noise its own 8-bit output step adds, uniform rounding noise ``step**2 / 12``
  (``step = 1 / tensorScale``), as a share of its measured error power, the error taken as
  uniform too (mean square ``4/3 * mean_abs**2``): ``share = (step / (4 * mean_abs)) ** 2``,
  at most 1 (:func:`rounding_share`; 1 when the error is exactly the layer's own rounding);
- 16 bits spans the same range with 256x the codes, so every quantization noise of the layer
  (its output step and, as TIDL switches both together, its weights) shrinks by
  ``256 ** 2 = 65536``. What 16 bits can remove at the layer is ``g = min(n, max(added,
  share * n))`` (:func:`removable`): all it adds when that is quantization noise, at least
  its own rounding. The layer's SNR after is ``-10 log10(n - g * (1 - 2**-16))``
  (:func:`snr_after_db`). Clipping (saturation) is not removed by 16 bits: a layer whose
  added noise is many times its rounding noise is flagged, not hidden.

**Cost** (the simulated time of the layer, ``perf``): a layer at 16 bits takes
``time * factor`` (:func:`cost_factor`). From TI's cycle split (``LayerCycles = coreLoop +
setup + dmaPipeup``, the core loop running the kernel while the DMA streams data):
``factor = (max(4 * kernel, 2 * coreLoop) + setup + 2 * dma) / (coreLoop + setup + dma)``:
the MMA does a quarter of the MACs per cycle at 16 bits (:data:`COMPUTE_FACTOR`) and every
byte moved is two (:data:`MEMORY_FACTOR`); setup does not grow. Evidence: TI's C7x MMA does
``MATPANELSIZE**2`` 8-bit MACs a cycle (32 x 32 = 1024 on the AM62A class, SPRAD74; 4K on
TDA4VM, SPRY344); od-8220's simulation is a 16-bit compile with ``MATPANELSIZE 32`` and its
convolutions reach at most 233 MACs per kernel cycle, 91 % of ``16 x 16 = 256``: a quarter of
the 8-bit peak. Without the cycle split the factor is :data:`COMPUTE_FACTOR` (the worst
case); a flat ``factor`` given by the user replaces the model.

**Ranking**: removable noise per extra microsecond ``g / (time * (factor - 1))``
(:func:`rank_key`); relative noise removed at different layers adds up at the network's
output to first order, so picking by this ratio under a time budget is the greedy knapsack
(:func:`pick`); a layer that would remove less than :data:`MIN_SHARE` of all the removable noise
is not worth a recompilation and is never picked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

__all__ = ["COMPUTE_FACTOR", "MEMORY_FACTOR", "MIN_SHARE", "NOISE_16_PER_8", "cost_factor", "pick", "rank_key", "relative_noise",
           "removable", "rounding_share", "snr_after_db"]

COMPUTE_FACTOR = 4.0
"""Kernel cycles at 16 bits / at 8 bits: the MMA's 8-bit MACs per cycle over its 16-bit ones."""
MEMORY_FACTOR = 2.0
"""Bytes moved at 16 bits / at 8 bits."""
NOISE_16_PER_8 = 2.0 ** -16
"""Quantization noise power at 16 bits / at 8 bits over one range: (1/256)**2."""
MIN_SHARE = 0.01
"""A layer whose removable noise is under this share of all the layers' is never picked."""


def relative_noise(snr_db: float | None) -> float:
    """Noise power / signal power from an SNR in dB (None: +inf dB, no noise: 0)."""
    if snr_db is None or snr_db == math.inf:
        return 0.0
    try:
        return 10.0 ** (-snr_db / 10.0)
    except OverflowError:  # an SNR under about -3000 dB
        return math.inf


def rounding_share(step: float | None, mean_abs: float | None) -> float | None:
    """The share of a layer's error power that its own uniform rounding (``step**2 / 12``)
    explains, the error being uniform too (``4/3 * mean_abs**2``): ``(step / (4 mean_abs))**2``,
    at most 1; None without a step or an error."""
    if step is None or mean_abs is None or not (step > 0 and math.isfinite(step)):
        return None
    if not (mean_abs > 0 and math.isfinite(mean_abs)):
        return None
    ratio = step / (4.0 * mean_abs)
    return 1.0 if not ratio < 1.0 else ratio * ratio


def removable(n: float, n_in: float, share: float | None) -> tuple[float, float]:
    """(added, removable): the relative noise a layer adds over ``n_in``, and what 16 bits can
    remove of its ``n``: ``min(n, max(added, share * n))``."""
    added = max(0.0, n - n_in)
    own = 0.0 if share is None else share * n
    return added, min(n, max(added, own))


def snr_after_db(n: float, g: float) -> float | None:
    """The layer's SNR with ``g`` of its relative noise ``n`` made 16-bit (None when ``n`` is 0)."""
    after = n - g * (1.0 - NOISE_16_PER_8)
    if n <= 0 or after <= 0:
        return None
    return -10.0 * math.log10(after)


def cost_factor(perf_layer: Any | None, flat: float | None = None) -> tuple[float, str]:
    """(time at 16 bits / time at 8 bits, where it came from) for a layer of the simulation
    (a :class:`tidl_io.perf.LayerPerf`, or None)."""
    if flat is not None:
        return flat, "given"
    if perf_layer is None:
        return COMPUTE_FACTOR, "worst case (no cycles)"
    k, core, setup, dma = (perf_layer.kernel_cycles, perf_layer.core_loop_cycles, perf_layer.setup_cycles,
                           perf_layer.dma_cycles)
    if None in (k, core, setup, dma) or core + setup + dma <= 0:
        return COMPUTE_FACTOR, "worst case (no cycles)"
    new = max(COMPUTE_FACTOR * k, MEMORY_FACTOR * core) + setup + MEMORY_FACTOR * dma
    return new / (core + setup + dma), "cycles"


def rank_key(gain: float, extra_us: float | None) -> tuple[int, float, float]:
    """Sort key, best first: timed layers by gain per extra µs (a free layer first), then
    layers without a time by gain."""
    if extra_us is None:
        return (1, -gain, 0.0)
    per = math.inf if extra_us <= 0 else gain / extra_us
    return (0, -per, -gain)


def pick(extra_us: Sequence[float | None], worth: Sequence[bool], budget_us: float | None,
         top: int | None) -> list[int]:
    """Positions (into the ranked list) picked: in rank order, each ``worth`` it that still
    fits the budget (a layer that does not fit is passed over, a later cheaper one may still
    fit; a layer without a time never fits a budget), at most ``top``."""
    out: list[int] = []
    spent = 0.0
    for i, (cost, ok) in enumerate(zip(extra_us, worth)):
        if top is not None and len(out) >= top:
            break
        if not ok:
            continue
        if budget_us is not None:
            if cost is None or spent + cost > budget_us:
                continue
            spent += cost
        out.append(i)
    return out
