"""The fuzz targets, in dispatch order (see the package docstring: adding a target is adding
a module here and a line to :data:`TARGETS`)."""

from __future__ import annotations

from . import buffers, cli, formatter, golden_npz, net

TARGETS = (
    cli,        # raw bytes: the command line, one input in --cli-every
    net,        # raw bytes: a mutated *_tidl_net.bin instead (index % 8 == 3), parse_net/load_net and views
    golden_npz,  # raw bytes: a mutated golden .npz instead (index % 8 == 5), NpzArrays and the golden reference
    formatter,  # parsed: descriptor_to_dict + JSON, the tables
    buffers,    # parsed: alloc, view, as_buffer, pack, unpack, check_padding
)
