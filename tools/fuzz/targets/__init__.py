"""The fuzz targets, in dispatch order (see the package docstring: adding a target is adding
a module here and a line to :data:`TARGETS`)."""

from __future__ import annotations

from . import buffers, cli, emulate, formatter, net, precision, releases, support

TARGETS = (
    cli,        # raw bytes: the command line, one input in --cli-every
    net,        # raw bytes: a mutated *_tidl_net.bin instead (index % 8 == 3), parse_net/load_net and views
    releases,   # raw bytes: a mutated schemas/releases.yaml instead (index % 32 == 13), parse_table and look-ups
    support,    # raw bytes: a mutated graphvizInfo.txt / allowedNode.txt / run.log instead (index % 16 == 5)
    precision,  # raw bytes: a mutated paramDebug.csv / qparams prototxt instead (index % 16 == 7)
    emulate,    # raw bytes: a mutated synthetic 9.0 net and inputs instead (index % 16 == 15), tidl_io.emulate
    formatter,  # parsed: descriptor_to_dict + JSON, the tables
    buffers,    # parsed: alloc, view, as_buffer, pack, unpack, check_padding
)
