"""Bad net files give one located FormatError (file, byte offset, field, expected vs found),
and no mutation of a net makes the parser raise anything but tidl_io's own errors."""

from __future__ import annotations

import struct
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from net_fixtures import V86, V1101, sample_layers

import tidl_io
from tidl_io import FormatError, PathIsFolderError, PathNotFoundError, TidlIoError
from tidl_io.net import load_net, parse_net
from tidl_io.net._build import build_net

from conftest import REALDATA


def _fixture(version: int = V1101, cores: int | None = 1) -> bytes:
    return build_net(version, sample_layers(version), cores=cores, section_sizes=[640, 128, 256][: 2 if version == V86 else 3])


def _put(data: bytes, offset: int, fmt: str, value: object) -> bytes:
    buf = bytearray(data)
    struct.pack_into(fmt, buf, offset, value)
    return bytes(buf)


def test_unknown_version_names_it_in_hex_and_lists_the_known_ones() -> None:
    with pytest.raises(FormatError) as info:
        parse_net(_put(_fixture(), 0, "<I", 0x12345678), source="x_tidl_net.bin")
    text = str(info.value)
    assert text.startswith("x_tidl_net.bin, offset 0x0, netVersion: netVersion 0x12345678")
    assert "0x20211201 (8.2)" in text and "0x20230802 (9.0/9.1)" in text and "0x20250821 (11.1)" in text


def test_a_newer_release_net_under_any_name_is_told_as_a_net(tmp_path: Path) -> None:
    """First word 0x20260901 (date-shaped, no release tidl-io knows), file named model.bin:
    inspect says it is a net of an unknown release, not that it is no io descriptor."""
    from test_net_format import run

    from tidl_io.net._parse import is_version_word

    path = tmp_path / "model.bin"
    path.write_bytes(_put(_fixture(), 0, "<I", 0x20260901))
    code, out, err = run("inspect", str(path))
    assert code == 1 and not out
    assert ("netVersion: a TIDL network file of a release tidl-io does not know (netVersion 0x20260901, known: "
            "0x20211201 (8.2)") in err and "io descriptor" not in err
    assert [is_version_word(w) for w in (0x20240719, 0x20261301, 0x2026013A, 0x00000002, 0x19991231)] == \
        [True, False, False, False, False]


def test_a_short_file_claiming_many_layers_reads_only_what_it_holds(tmp_path: Path) -> None:
    """numLayers at the layout's maximum (megabytes of layers) in a 1 KB file: load_net must not
    size its buffer from numLayers (peak memory far below the claimed structure size)."""
    from tidl_io.net._schema import layout_for

    layout = layout_for(V1101)[0]
    data = _put(_fixture(), 8, "<i", layout.max_layers)[:1024]
    claimed = layout.structure_size(layout.max_layers)
    assert claimed > 1 << 20
    path = tmp_path / "x_tidl_net.bin"
    path.write_bytes(data)
    tracemalloc.start()
    try:
        with pytest.raises(FormatError, match="x_tidl_net.bin"):
            load_net(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < claimed // 8, (peak, claimed)


@pytest.mark.parametrize("size", [0, 3, 11, 100, 175, 176 + 1848 * 3])
def test_truncated_net_says_where(size: int) -> None:
    data = _fixture()
    with pytest.raises(FormatError, match="truncated") as info:
        parse_net(data[:size])
    if size > 176:
        assert info.value.field == "TIDLLayers[3]" and info.value.offset == size


def test_absurd_num_layers() -> None:
    for n in (0, -5, 1537, 2**31 - 1):
        with pytest.raises(FormatError, match=r"expected 1\.\.1536") as info:
            parse_net(_put(_fixture(), 8, "<i", n))
        assert (info.value.offset, info.value.field) == (8, "numLayers")


def test_bad_num_in_bufs_names_the_layer() -> None:
    offset = 176 + 2 * 1848 + 1592  # layer 2's numInBufs (11.01: numInBufs at 1592)
    with pytest.raises(FormatError) as info:
        parse_net(_put(_fixture(), offset, "<i", 1000))
    assert (info.value.offset, info.value.field) == (offset, "TIDLLayers[2].numInBufs")
    assert "expected -1..24, found 1000" in str(info.value)


def test_section_outside_the_file() -> None:
    data = _fixture()
    # netBufInfo[2] (compiler) of the 11.01 1-core header: at 104 + 2 * 16; size at +8, offset at +12
    with pytest.raises(FormatError, match="compiler section .* outside the file") as info:
        parse_net(_put(data, 104 + 32 + 12, "<i", len(data) - 10))
    assert info.value.field == "netBufInfo[2].offset" and info.value.offset == 104 + 32 + 12
    with pytest.raises(FormatError, match="outside the file"):
        parse_net(_put(data, 104 + 32 + 8, "<i", -1))


def test_overlapping_sections() -> None:
    data = _fixture()
    params_offset = struct.unpack_from("<i", data, 104 + 16 + 12)[0]
    with pytest.raises(FormatError, match="compiler section .* overlaps parameters section") as info:
        parse_net(_put(data, 104 + 32 + 12, "<i", params_offset + 8))
    assert info.value.field == "netBufInfo[2].offset"


def test_structure_section_must_hold_the_layers() -> None:
    data = _fixture(V86, None)
    with pytest.raises(FormatError, match="hold the header and 9 layers"):
        parse_net(_put(data, 88 + 8, "<i", 100))


def test_header_fitting_no_core_variant() -> None:
    data = _put(_fixture(), 104 + 12, "<i", 4096)  # netBufInfo[0].offset: 4096, not 0
    with pytest.raises(FormatError, match="fits none of the TIDL 11.0-11.1 header variants"):
        parse_net(data)


def test_not_bytes_and_paths() -> None:
    with pytest.raises(tidl_io.ArgumentTypeError, match="^parse_net: data: expected the file.s bytes .*use tidl_io.load_net"):
        parse_net("a_tidl_net.bin")  # type: ignore[arg-type]
    with pytest.raises(PathNotFoundError):
        load_net("no/such_tidl_net.bin")
    with pytest.raises(PathIsFolderError):
        load_net(Path(__file__).parent)
    with pytest.raises(tidl_io.ArgumentTypeError):
        load_net(3)  # type: ignore[arg-type]


def test_load_net_reads_the_structure_only(tmp_path: Path) -> None:
    """A net with 8 MB of weights costs the structure (~17 KB) of reading and memory."""
    data = build_net(V1101, sample_layers(V1101), cores=1, section_sizes=[8 << 20, 64, 64])
    path = tmp_path / "big_tidl_net.bin"
    path.write_bytes(data)
    tracemalloc.start()
    net = load_net(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert net.sections[1].size == 8 << 20 and net.file_size == len(data)
    assert peak < 1 << 20, peak


def _real_nets() -> list[Path]:
    return sorted((REALDATA / "net").glob("*/*_tidl_net.bin")) + sorted((REALDATA / "net").glob("*/*/*_tidl_net.bin"))


def _seeds() -> list[bytes]:
    seeds = [_fixture(), _fixture(V86, None), _fixture(V1101, 4)]
    for p in _real_nets():  # the structure part and a little more: the rest is never read
        net = load_net(p)
        with open(p, "rb") as fh:
            seeds.append(fh.read(net.sections[0].size + 4096))
    return seeds


SEEDS = _seeds()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, len(SEEDS) - 1), edits=st.lists(st.tuples(st.integers(0, 2**31), st.integers(0, 2**32 - 1),
                                                                      st.sampled_from(["byte", "word", "cut"])),
                                                            min_size=1, max_size=6))
def test_mutated_nets_raise_only_library_errors(seed: int, edits: list[tuple[int, int, str]]) -> None:
    data = bytearray(SEEDS[seed])
    structure = min(len(data), 200 + 3 * 4600)  # edit the header and the first layers most of the time
    for where, value, kind in edits:
        if kind == "cut":
            del data[where % (len(data) + 1):]
            continue
        pos = where % max(structure, 1)
        if kind == "byte" and pos < len(data):
            data[pos] = value & 0xFF
        elif kind == "word" and pos + 4 <= len(data):
            struct.pack_into("<I", data, pos & ~3, value)
    start = time.perf_counter()
    try:
        net = parse_net(bytes(data))
    except TidlIoError:
        return
    finally:
        assert time.perf_counter() - start < 1.0
    for layer in net.layers:  # everything derived is computed without a foreign error
        _ = (layer.shape, layer.element_type, layer.dtype, dict(layer.raw), layer.params, repr(layer))
        try:
            _ = layer.geometry
        except TidlIoError:
            pass
    _ = (net.edges, net.input_layers, net.output_layers, repr(net))


def test_real_net_values_are_plain_python() -> None:
    nets = _real_nets()
    if not nets:
        pytest.skip("../shared/realdata not present")
    net = load_net(nets[0])
    layer = net.layers[2]
    assert type(layer.scale) is float and type(layer.data_id) is int and type(layer.dims[0]) is int
    assert isinstance(net.header.get("netBufInfo", []), list)
    assert not any(isinstance(v, np.generic) for v in layer.raw["outData"][0].values()) if \
        isinstance(layer.raw["outData"], list) else True
