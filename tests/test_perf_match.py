"""tidl_io.perf.match: which simulated subgraph is a net's, checked layer by layer, and the join of a
row to its simulated layer by dataId and name. Hand-made simulations and nets with literal values."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

import tidl_io
from tidl_io.perf import LayerPerf, PerformanceData, SubgraphPerf, Totals
from tidl_io.perf.match import net_simulation, same_layer_name, simulated_layer

LONG = "backbone/stage4/block2/conv3/Relu;backbone/stage4/block2/conv3/BiasAdd;x"  # 72 characters
TYPES = ("TIDL_DataLayer", "TIDL_ConvolutionLayer", "TIDL_ConvolutionLayer", "TIDL_DataLayer")
NAMES = ("in", "conv1", LONG, "out")
DATA = (0, 1, 2, None)


def _sim(name: str, names: tuple[str | None, ...] = NAMES, types: tuple[str, ...] = TYPES) -> SubgraphPerf:
    layers = tuple(LayerPerf(k, k, types[k], names[k], DATA[k], None, None, 10.0 * (k + 1), None, None, None, None,
                             None, None, None, None, {}) for k in range(len(names)))
    return SubgraphPerf(name, {}, Totals(), layers, {})


def _net(source: str = "art/7_tidl_net.bin", names: tuple[str | None, ...] = NAMES) -> Any:
    return SimpleNamespace(source=source, layers=[SimpleNamespace(index=k, type=TYPES[k], name=names[k], data_id=DATA[k])
                                                  for k in range(len(names))])


def test_names_agree_when_equal_unknown_or_cut_by_the_netlog() -> None:
    assert len(LONG) == 72
    assert same_layer_name(LONG, LONG[-50:]) and same_layer_name(LONG[-50:], LONG)
    assert same_layer_name(None, "x") and same_layer_name("x", None)
    assert not same_layer_name(LONG, LONG[-49:]) and not same_layer_name(LONG, LONG[:50])
    assert not same_layer_name("conv1", "conv2")


def test_the_subgraph_by_name_else_the_only_one() -> None:
    perf = PerformanceData("sim", (_sim("3"), _sim("7")))
    assert net_simulation(perf, _net()) is perf.subgraphs[1]
    assert net_simulation(PerformanceData("sim", (_sim("subgraph_0"),)), _net()).name == "subgraph_0"
    assert net_simulation(PerformanceData("sim", (_sim("3"), _sim("5"))), _net()) is None
    cut = (NAMES[0], NAMES[1], LONG[-50:], NAMES[3])  # names from a netLog: the long one cut
    assert net_simulation(PerformanceData("sim", (_sim("7", cut),)), _net()) is not None


@pytest.mark.parametrize(("sim", "message"), [
    (_sim("7", NAMES[:3], TYPES[:3]), "3 layers simulated, 4 in the net .*layer number.* 3 in one only"),
    (_sim("7", ("in", "conv9", LONG, "out")), "layer 1 is 'conv9' in the simulation, 'conv1' in the net"),
    (_sim("7", types=("TIDL_DataLayer", "TIDL_PoolingLayer", *TYPES[2:])),
     "layer 1 is a TIDL_PoolingLayer in the simulation, a TIDL_ConvolutionLayer in the net"),
])
def test_another_model_is_a_located_format_error(sim: SubgraphPerf, message: str) -> None:
    with pytest.raises(tidl_io.FormatError, match=f"^sim: subgraph 7 against net 7_tidl_net.bin: {message}"):
        net_simulation(PerformanceData("sim", (sim,)), _net())


def test_rows_join_by_data_id_and_name_never_by_number() -> None:
    sg = _sim("7")
    hit = simulated_layer(sg, data_id=2, name=LONG)
    assert hit is not None and hit.index == 2 and hit.time_us == 30.0
    assert simulated_layer(sg, data_id=2, name=None) is hit
    assert simulated_layer(sg, data_id=2, name="conv1") is None  # the dataId's producer has another name
    assert simulated_layer(sg, data_id=9, name=None) is None and simulated_layer(sg, data_id=None) is None
