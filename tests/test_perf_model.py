"""tidl_io.perf.model: the bound formula on literal cycle counts, the share, the per-type sums
(against literal loops) and the lookups compare will use."""

from __future__ import annotations

from pathlib import Path

import pytest

from tidl_io import ArgumentTypeError, TensorNotFoundError, load_perf
from tidl_io.perf.model import bound

from conftest import REALDATA
from perf_fixtures import write_tiny


@pytest.mark.parametrize(("cycles", "expected"), [
    ((40000.0, 100000.0, 8000.0, 12500.0), "memory"),      # the core loop waited 60k cycles for data
    ((280000.0, 280000.0, 8000.0, 12250.0), "compute"),    # the core loop is the kernel
    ((121.22, 121.22, 8500.0, 14750.0), "setup"),          # TI's DetectionOutput: setup and pipe-up dominate
    ((0.0, 0.0, 0.0, 0.0), None),                          # a data layer
    ((None, 10.0, 1.0, 1.0), None),
    ((5.0, 5.0, 5.0, 0.0), "compute"),                     # setup + DMA equal to the core loop: not above it
])
def test_bound(cycles: tuple, expected: str | None) -> None:
    assert bound(*cycles) == expected


def test_bound_on_every_real_row() -> None:
    """TI's LayerCycles is coreLoop + setup + DMA pipe-up; the core loop exceeds the kernel
    exactly when TI's IO cycles do (so "memory" means what the simulator says)."""
    path = REALDATA / "net" / "od-8220-yolox-10.0"
    if not path.is_dir():
        pytest.skip("../shared/realdata not present")
    s = load_perf(path).subgraphs[0]
    seen = set()
    for lay in s.layers:
        assert lay.cycles == pytest.approx(lay.core_loop_cycles + lay.setup_cycles + lay.dma_cycles, abs=0.02)
        if lay.bound in ("memory", "compute"):
            assert (lay.bound == "memory") == (lay.io_cycles > lay.kernel_cycles), lay.index
        seen.add(lay.bound)
    assert seen == {None, "compute", "memory", "setup"}


@pytest.fixture
def tiny(tmp_path: Path):
    return load_perf(write_tiny(tmp_path))


def test_share_and_types(tiny) -> None:
    s = tiny.subgraphs[0]
    assert s.share(s.layers[1]) == 120.5 / 420.75 and s.share(s.layers[0]) == 0.0
    types = {t.type: t for t in s.by_type()}
    conv = types["TIDL_ConvolutionLayer"]
    assert (conv.count, conv.time_us, conv.cycles) == (2, 120.5 + 300.25, 120500.0 + 300250.0)
    assert (conv.ddr_read_mb, conv.ddr_write_mb) == (0.25 + 0.01, 0.05 + 0.0)
    assert [t.type for t in s.by_type()] == ["TIDL_ConvolutionLayer", "TIDL_DataLayer"]
    assert [lay.index for lay in s.slowest()] == [2, 1, 0, 3] and [lay.index for lay in s.slowest(1)] == [2]


def test_lookups(tiny) -> None:
    assert tiny.layer_time_us(1) == 120.5
    assert tiny.layer_time_us(data_id=2) == 300.25
    assert tiny.layer_time_us(data_id=0) == 0.0  # the input layer, not the output data layer (also dataId 0)
    assert tiny.subgraphs[0].layer(data_id=0).index == 0
    assert tiny.layer_time_us(name="conv1", subgraph="tiny") == 120.5
    with pytest.raises(TensorNotFoundError, match="no layer with index 9"):
        tiny.layer_time_us(9)
    with pytest.raises(TensorNotFoundError, match="no subgraph 1"):
        tiny.layer_time_us(1, subgraph=1)
    with pytest.raises(ArgumentTypeError, match="exactly one"):
        tiny.layer_time_us(1, data_id=1)
    with pytest.raises(ArgumentTypeError):
        tiny.layer_time_us("1")


def test_lookup_without_a_simulation(tmp_path: Path) -> None:
    perf = load_perf(write_tiny(tmp_path, sim=False))
    assert perf.layer_time_us(1) is None


def test_repr_is_short(tmp_path: Path) -> None:
    """load_perf's Performance printed every layer, buffer and config value (51 KB on od-8220)."""
    from tidl_io.perf import LayerPerf, Performance, SubgraphPerf, Totals

    layers = tuple(LayerPerf(k, k, "TIDL_ConvolutionLayer", f"conv{k}" * 20, k, (1, 8, 4, 4), 10, 1.5, 1.0, 1.0, 1.0,
                             0.0, 0.0, None, 0.1, 0.1, {"in": ("DDR", "L2")}) for k in range(500))
    perf = Performance("model/artifacts", (SubgraphPerf("sg0", {"cpu_mhz": 1000}, Totals(time_ms=2.5), layers, {}),
                                           SubgraphPerf("sg1", {}, Totals(), layers[:3], {})), ("a note",))
    text = repr(perf)
    assert len(text) <= 300 and text.startswith("Performance('model/artifacts'")
    for part in ("subgraphs=('sg0', 'sg1')", "layers=503", "time_ms=(2.5, None)", "notes=1"):
        assert part in text
