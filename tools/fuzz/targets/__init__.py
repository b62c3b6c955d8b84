"""The fuzz targets, in dispatch order (see the package docstring: adding a target is adding
a module here and a line to :data:`TARGETS`)."""

from __future__ import annotations

from . import buffers, cli, formatter

TARGETS = (
    cli,        # raw bytes: the command line, one input in --cli-every
    formatter,  # parsed: descriptor_to_dict + JSON, the tables
    buffers,    # parsed: alloc, view, as_buffer, pack, unpack, check_padding
)
