"""The net layouts compiled from schemas/net/*.yaml: sizes and offsets against the numbers of
TI's headers and the real files (spec netbin.md), and the net view of the one release table."""

from __future__ import annotations

import pytest

from tidl_io.base.releases import find_release
from tidl_io.net.schema import fields_of, layout_for, layouts, net_versions

# netVersion -> {cores: (header bytes, layer bytes, layerType offset, outData offset)}: spec/netbin.md's table
SIZES = {
    0x20211201: {None: (88, 4532, 1552, 3036)},
    0x20230208: {None: (136, 1792, 1560, 1668)},
    0x20230802: {None: (160, 1800, 1560, 1672)},
    0x20240719: {1: (176, 1824, 1564, 1676), 2: (176, 1824, 1564, 1676), 4: (184, 1824, 1564, 1676)},
    0x20250821: {1: (176, 1848, 1584, 1696), 2: (176, 1848, 1584, 1696), 4: (184, 1848, 1584, 1696)},
}


@pytest.mark.parametrize("version", sorted(SIZES))
def test_layout_sizes_match_the_headers_and_files(version: int) -> None:
    found = {lay.cores: (lay.header_size, lay.layer_size, lay.offset("layerType"), lay.offset("outData"))
             for lay in layout_for(version)}
    assert found == SIZES[version]


def test_version_table() -> None:
    table = net_versions()
    assert {v: e.release for v, e in table.items()} == {
        0x20211201: "8.2", 0x20230208: "8.6", 0x20230802: "9.0/9.1", 0x20240401: "9.2", 0x20240719: "10.0",
        0x20241120: "10.1", 0x20250429: "11.0", 0x20250630: "11.0", 0x20250821: "11.1"}
    assert layout_for(0x12345678) == ()


def test_runtime_reads_the_same_table() -> None:
    for version, entry in net_versions().items():
        found = find_release(version)  # what the TIDL-RT binding asks for a net's netVersion
        assert found is not None and found.ti == entry.releases[0]
    assert find_release(0x12345678) is None


def test_params_fit_in_the_union_and_start_at_zero() -> None:
    for lay in layouts():
        union = fields_of(lay.layer)["layerParams"][0].itemsize
        for name, dtype in lay.params.items():
            assert name in lay.layer_types and dtype.itemsize <= union


def test_layer_type_tables() -> None:
    (l86,) = layout_for(0x20230208)
    l11 = layout_for(0x20250821)[0]
    assert l86.type_name(40) == "TIDL_UnsupportedLayer" and l11.type_name(40) == "TIDL_GatherLayer"
    assert l11.type_name(46) == "TIDL_UnsupportedLayer" and l11.type_name(47) is None
    assert l86.type_name(29) == l11.type_name(29) == "TIDL_DataConvertLayer"
