"""The fuzz targets, in dispatch order (see the package docstring: adding a target is adding
a module here and a line to :data:`TARGETS`)."""

from __future__ import annotations

from . import (
    advise,
    artifacts,
    buffers,
    cli,
    emulate,
    formatter,
    golden_npz,
    graphviz,
    hostile,
    input_arrays,
    means,
    net,
    net_layerinfo,
    net_netlog,
    numbers,
    perf_board,
    perf_bufinfo,
    perf_simulation,
    precision,
    releases,
    support,
)

TARGETS = (
    cli,        # raw bytes: the command line, one input in --cli-every
    net,        # raw bytes: a mutated *_tidl_net.bin instead (index % 8 == 3), parse_net/load_net and views
    hostile,    # raw bytes: a user's text files and names instead (index % 16 == 9): layer_info, param.yaml, paths
    releases,   # raw bytes: a mutated schemas/releases.yaml instead (index % 32 == 13), parse_table and look-ups
    support,    # raw bytes: a mutated graphvizInfo.txt / allowedNode.txt / run.log instead (index % 16 == 5)
    precision,  # raw bytes: a mutated paramDebug.csv / qparams prototxt instead (index % 16 == 7)
    perf_simulation,  # raw bytes: TI's performance simulation .csv instead (index % 64 == 15)
    perf_bufinfo,     # raw bytes: a bufinfolog(_0).csv instead (index % 64 == 31)
    net_netlog,       # raw bytes: a netLog.txt instead (index % 64 == 47), net.netlog
    perf_board,       # raw bytes: TIDL-RT's tidl_trace_subgraph_<N>_perf.csv instead (index % 64 == 63)
    emulate,    # raw bytes: a mutated synthetic 9.0 net and inputs instead (index % 32 == 29), tidl_io.emulate
    advise,     # raw bytes: a mutated compare --json report instead (index % 64 == 33), the adapter and the advice
    artifacts,  # raw bytes: the example's folder with this io file (or net) and mutated sidecars (index % 64 == 58)
    golden_npz,  # raw bytes: a mutated golden .npz instead (index % 32 == 17), NpzArrays and the golden reference
    net_layerinfo,  # raw bytes: a layer_info.txt instead (index % 128 == 65: 1 mod 64, never index 1), net.layerinfo
    input_arrays,  # raw bytes: a mutated --input .npy / picture instead (index % 256 == 129), data.arrays, data.picture
    means,      # raw bytes: a mutated LayerPerChannelMean.bin instead (index % 512 == 257), trace.means
    numbers,    # raw bytes: number-like text instead (index % 32 == 18), base.numtext and base.tilog's located numbers
    graphviz,   # raw bytes: a hostile graphvizInfo.txt instead (index % 64 == 42), support.parse_graphviz
    formatter,  # parsed: descriptor_to_dict + JSON, the tables
    buffers,    # parsed: alloc, view, as_buffer, pack, unpack, check_padding
)
