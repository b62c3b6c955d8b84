"""A performance simulation beside a compiled net: which of its subgraphs is the net's, checked
layer by layer, and the one join of a layer of that net (or of one of its outputs) to its
simulated row. Every part that shows simulated times beside a net's layers (``tidl-io
compare --perf``, ``tidl-io advise``) goes through these two functions, so a simulation of
another model is refused the same way everywhere, never shown beside the wrong layers.

>>> sg = net_simulation(tidl_io.load_perf("model/artifacts"), tidl_io.load_net(net_file))  # doctest: +SKIP
>>> simulated_layer(sg, data_id=9, name="conv9").time_us                                  # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path

from ..base.errors import FormatError
from ..base.text import short
from ..net.model import UNNAMED_TYPE, Network
from ..net.netlog import NAME_CUT
from .model import DATA_LAYER, LayerPerf, PerformanceData, SubgraphPerf

__all__ = ["net_simulation", "same_layer_name", "simulated_layer"]

_NET = "_tidl_net.bin"


def same_layer_name(a: str | None, b: str | None) -> bool:
    """Whether two names of one layer agree: equal, or one is the netLog's cut of the other
    (its last 50 characters); an unknown name (None) agrees with any."""
    if a is None or b is None or a == b:
        return True
    cut, whole = (a, b) if len(a) < len(b) else (b, a)
    return len(cut) == NAME_CUT and whole.endswith(cut)


def net_simulation(performance: PerformanceData, net: Network) -> SubgraphPerf | None:
    """The subgraph of ``performance`` that simulates ``net`` (a :class:`tidl_io.Network`): the
    one named like the net file (``74`` for ``74_tidl_net.bin``), else the only one; None when
    there are several and none has that name.

    Raises :class:`~tidl_io.FormatError` (naming the simulation, the net and the first layer
    that differs) when its layers are not the net's: another count, another layer number,
    type or name at a layer. That is a simulation of another model (or compilation), whose
    times must never stand beside this net's layers."""
    stem = Path(str(net.source)).name
    stem = stem.removesuffix(_NET)
    named = [s for s in performance.subgraphs if s.name == stem]
    if named:
        sg = named[0]
    elif len(performance.subgraphs) == 1:
        sg = performance.subgraphs[0]
    else:
        return None
    problem = _difference(sg, net)
    if problem is not None:
        raise FormatError(str(performance.source), f"subgraph {short(sg.name)} against net "
                                                   f"{short(Path(str(net.source)).name)}: {problem}: the simulation of "
                                                   "another model or compilation (its times would stand beside the "
                                                   "wrong layers)")
    return sg


def _difference(sg: SubgraphPerf, net: Network) -> str | None:
    """What tells the simulated layers from the net's layers, or None when they agree."""
    mine = {lay.index: lay for lay in sg.layers}
    theirs = {lay.index: lay for lay in net.layers}
    if set(mine) != set(theirs):
        differ = sorted(set(mine) ^ set(theirs))
        return (f"{len(mine)} layers simulated, {len(theirs)} in the net (layer number(s) "
                f"{', '.join(map(str, differ[:5]))}{' …' if len(differ) > 5 else ''} in one only)")
    for index in sorted(theirs):
        s, n = mine[index], theirs[index]
        if s.type is not None and s.type != n.type and not n.type.startswith(UNNAMED_TYPE) \
                and not s.type.startswith(UNNAMED_TYPE):
            return f"layer {index} is a {short(s.type)} in the simulation, a {short(n.type)} in the net"
        if n.type != DATA_LAYER and not same_layer_name(s.name, n.name):
            return f"layer {index} is {short(s.name or '')!r} in the simulation, {short(n.name or '')!r} in the net"
    return None


def simulated_layer(sg: SubgraphPerf, *, data_id: int | None, name: str | None = None) -> LayerPerf | None:
    """The simulated row of the layer producing buffer ``data_id`` (the first in execution
    order: an output data layer repeats its input's dataId), when its name agrees with
    ``name`` (:func:`same_layer_name`); None otherwise. A row is never joined by its position
    or number alone: a calibration report numbers its rows by output, not by layer."""
    if data_id is None:
        return None
    for lay in sg.layers:
        if lay.data_id == data_id:
            return lay if same_layer_name(lay.name, name) else None
    return None
