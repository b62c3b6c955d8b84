"""The advisor's formulas (tidl_io.advisor.model) against numbers worked out by hand."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import pytest

from tidl_io.advisor.model import (
    cost_factor,
    pick,
    rank_key,
    relative_noise,
    removable,
    rounding_share,
    snr_after_db,
)


def test_relative_noise() -> None:
    assert relative_noise(20.0) == pytest.approx(0.01)
    assert relative_noise(-10.0) == pytest.approx(10.0)
    assert relative_noise(None) == 0.0 and relative_noise(math.inf) == 0.0
    assert relative_noise(-1e308) == math.inf and relative_noise(1e308) == 0.0  # no OverflowError


def test_rounding_share_is_one_for_pure_rounding() -> None:
    step = 1 / 64
    assert rounding_share(step, step / 4) == pytest.approx(1.0)  # uniform error: mean |e| = step / 4
    assert rounding_share(step, step / 2) == pytest.approx(0.25)
    assert rounding_share(step, step / 8) == 1.0  # capped
    assert rounding_share(None, 0.1) is None and rounding_share(step, 0.0) is None
    assert rounding_share(step, math.nan) is None and rounding_share(math.inf, 1.0) is None
    assert rounding_share(1.0, 1e-300) == 1.0 and rounding_share(1e-300, 1e300) == 0.0  # no OverflowError


def test_removable() -> None:
    assert removable(0.01, 0.0001, 0.0061) == pytest.approx((0.0099, 0.0099))
    assert removable(0.001, 0.01, 1.0) == pytest.approx((0.0, 0.001))  # inherits more: its own rounding still goes
    assert removable(0.001, 0.01, 0.5) == pytest.approx((0.0, 0.0005))
    assert removable(0.001, 0.0, None) == pytest.approx((0.001, 0.001))


def test_snr_after() -> None:
    assert snr_after_db(0.01, 0.0099) == pytest.approx(-10 * math.log10(0.01 - 0.0099 * (1 - 2 ** -16)))
    assert snr_after_db(0.01, 0.01) == pytest.approx(20 + 10 * math.log10(2 ** 16))  # all of it: 16 bits' floor
    assert snr_after_db(0.0, 0.0) is None


def test_cost_factor_from_cycles() -> None:
    compute = SimpleNamespace(kernel_cycles=10000.0, core_loop_cycles=10000.0, setup_cycles=0.0, dma_cycles=0.0)
    assert cost_factor(compute) == (4.0, "cycles")
    memory = SimpleNamespace(kernel_cycles=40000.0, core_loop_cycles=100000.0, setup_cycles=20000.0,
                             dma_cycles=30000.0)
    f, how = cost_factor(memory)
    assert how == "cycles" and f == pytest.approx((200000 + 20000 + 60000) / 150000)
    setup = SimpleNamespace(kernel_cycles=100.0, core_loop_cycles=100.0, setup_cycles=9800.0, dma_cycles=100.0)
    assert cost_factor(setup)[0] == pytest.approx((400 + 9800 + 200) / 10000)
    assert cost_factor(None) == (4.0, "worst case (no cycles)")
    assert cost_factor(SimpleNamespace(kernel_cycles=None, core_loop_cycles=1.0, setup_cycles=1.0,
                                       dma_cycles=1.0))[0] == 4.0
    assert cost_factor(compute, 2.5) == (2.5, "given")


def test_rank_and_pick() -> None:
    keys = [rank_key(0.0099, 130.0), rank_key(0.00316, 60.0), rank_key(0.001, 30.0), rank_key(0.5, None),
            rank_key(1e-6, 0.0)]
    order = sorted(range(5), key=keys.__getitem__)
    assert order == [4, 0, 1, 2, 3]  # free first, then per µs, then untimed
    costs = [130.0, 60.0, 30.0, None]
    assert pick(costs, [True] * 4, 100.0, None) == [1, 2]  # 130 passed over, 60 + 30 fit
    assert pick(costs, [True] * 4, 200.0, None) == [0, 1]
    assert pick(costs, [True] * 4, None, 3) == [0, 1, 2]
    assert pick(costs, [True, False, True, True], None, None) == [0, 2, 3]
    assert pick(costs, [True] * 4, 0.0, None) == []


def test_od_8220_16_bit_compile_backs_the_compute_factor(realdata: Path) -> None:
    """TI's own 16-bit simulation (od-8220: tensor_bits 16, MATPANELSIZE 32, whose MMA does
    32 x 32 = 1024 8-bit MACs a cycle): its convolutions, MACs from the netLog over the
    simulation's kernelOnlyCycles, read here with csv / str.split, reach at most 16 x 16 = 256
    MACs per cycle, and come within 10 % of it: a quarter of the 8-bit peak (COMPUTE_FACTOR)."""
    import csv

    from tidl_io.advisor.model import COMPUTE_FACTOR

    temp = realdata / "net" / "od-8220-yolox-10.0" / "artifacts" / "tempDir"
    (sim,) = (temp / "subgraph_0_tidl_net").glob("tempDir_*.csv")
    lines = sim.read_text().splitlines()
    assert any(line.split("=")[0].strip() == "MATPANELSIZE" and int(line.split("=")[1]) == 32 for line in lines)
    rows = list(csv.reader(lines))
    head = [h.strip() for h in rows[0]]
    kernel = {}
    for row in rows[1:]:
        if len(row) >= len(head) - 1 and row[0].strip().isdigit() and row[1].strip() == "TIDL_ConvolutionLayer":
            kernel[int(row[0])] = float(row[head.index("kernelOnlyCycles")])
    macs = {}
    for line in (temp / "subgraph_0_tidl_net.bin_netLog.txt").read_text().splitlines():
        cells = line.split("|")
        if len(cells) > 10 and cells[0].strip().isdigit():
            macs[int(cells[0])] = int(cells[10])
    rates = [macs[k] / kernel[k] for k in kernel if kernel[k] > 0 and macs.get(k)]
    assert len(rates) > 50
    peak_16 = (32 // 2) ** 2
    assert 0.9 * peak_16 < max(rates) <= peak_16
    assert 32 ** 2 / peak_16 == COMPUTE_FACTOR
