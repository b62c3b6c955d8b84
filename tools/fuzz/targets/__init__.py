"""The fuzz targets, in dispatch order (see the package docstring: adding a target is adding
a module here and a line to :data:`TARGETS`)."""

from __future__ import annotations

from . import buffers, cli, formatter, net, perf_board, perf_bufinfo, perf_netlog, perf_simulation

TARGETS = (
    cli,        # raw bytes: the command line, one input in --cli-every
    net,        # raw bytes: a mutated *_tidl_net.bin instead (index % 8 == 3), parse_net/load_net and views
    perf_simulation,  # raw bytes: TI's performance simulation .csv instead (index % 64 == 5)
    perf_bufinfo,     # raw bytes: a bufinfolog(_0).csv instead (index % 64 == 13)
    perf_netlog,      # raw bytes: a netLog.txt instead (index % 64 == 21)
    perf_board,       # raw bytes: TIDL-RT's tidl_trace_subgraph_<N>_perf.csv instead (index % 64 == 29)
    formatter,  # parsed: descriptor_to_dict + JSON, the tables
    buffers,    # parsed: alloc, view, as_buffer, pack, unpack, check_padding
)
