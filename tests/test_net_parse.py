"""Bad net files give one located FormatError (file, byte offset, field, expected vs found),
and no mutation of a net makes the parser raise anything but tidl_io's own errors."""

from __future__ import annotations

import re
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
from tidl_io.net.build import build_net

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

    from tidl_io.net.parse import is_version_word

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
    from tidl_io.net.schema import layout_for

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


# ---- issue 24: the output data layer, cut nets, layer_info.txt used whole or not at all ----------

DEEPLAB = REALDATA / "net" / "bbai64-deeplabv3-mnv2-8.2"


def _deeplab() -> Path:
    if not (DEEPLAB / "201_tidl_net.bin").is_file():
        pytest.skip("../shared/realdata not present")
    return DEEPLAB


def test_output_data_layer_has_no_data_id() -> None:
    """Layer 81 of the 8.2 DeepLab is the output data layer: numOutBufs -1 in the file (read
    here at the schema's offsets: header 88 bytes, layers of 4532, numOutBufs at 1560), so it
    makes no buffer and has no dataId, in Python as in JSON (TI's stored outData is zeros)."""
    from tidl_io.net.format import net_to_dict

    path = _deeplab() / "201_tidl_net.bin"
    raw = path.read_bytes()[:88 + 82 * 4532]
    layer_type, num_out = struct.unpack_from("<i", raw, 88 + 81 * 4532 + 1552)[0], \
        struct.unpack_from("<i", raw, 88 + 81 * 4532 + 1560)[0]
    assert (layer_type, num_out) == (0, -1)
    net = load_net(path)
    assert net.layers[81].data_id is None and net.layers[81].is_output
    assert net_to_dict(net)["layers"][81]["data_id"] is None
    assert all(la.data_id is not None for la in net.layers[:81])
    built = parse_net(_fixture())  # the builder's output data layer: the last of sample_layers, numOutBufs -1
    assert [la.data_id for la in built.layers] == [0, 1, 2, 3, 4, 5, 6, 7, None]


def test_8_2_net_cut_inside_its_last_section_is_truncated(tmp_path: Path) -> None:
    """`truncate -s 3000000` of the 3 574 496-byte 8.2 net: the compiler info at dataFlowInfo
    (2 646 144) starts with the words of the 544 960-byte info of 9.0, so the file is short."""
    src = _deeplab() / "201_tidl_net.bin"
    data = src.read_bytes()
    assert len(data) == 3574496 and struct.unpack_from("<i", data, 64)[0] == 2646144  # dataFlowInfo
    path = tmp_path / "201_tidl_net.bin"
    path.write_bytes(data[:3000000])
    with pytest.raises(FormatError, match="truncated: 3000000 bytes, .*at least 3191104"):
        load_net(path)
    with pytest.raises(FormatError, match="truncated"):
        parse_net(data[:3000000])
    with pytest.raises(FormatError, match="truncated: 2000000 bytes, but the compiler info starts at 2646144"):
        parse_net(data[:2000000])
    assert len(parse_net(data).layers) == 82  # the whole file is fine


def test_cut_9x_and_11x_nets_say_truncated() -> None:
    for version in (V86, V1101):
        data = _fixture(version, None if version == V86 else 1)
        with pytest.raises(FormatError, match="^<bytes>, offset .*: truncated: .* section .* lies outside"):
            parse_net(data[:-10])


def _info_lines(names: list[str], data_ids: list[int]) -> str:
    return "".join(f"{i} {d} {n}\n" for i, (d, n) in enumerate(zip(data_ids, names)))


def _built(tmp_path: Path, info: str | None) -> Path:
    path = tmp_path / "m_tidl_net.bin"
    path.write_bytes(_fixture())
    if info is not None:
        (tmp_path / "m_tidl_net.bin.layer_info.txt").write_text(info)
    return path


IDS = [0, 1, 2, 3, 4, 5, 6, 7, 0]  # sample_layers' dataIds; TI writes 0 for the output data layer
NAMES = [f"n{i}" for i in range(9)]


def test_layer_info_of_this_net_names_every_layer(tmp_path: Path) -> None:
    net = load_net(_built(tmp_path, _info_lines(NAMES, IDS)))
    assert net.layer_info_error is None and net.layer_info == str(tmp_path / "m_tidl_net.bin.layer_info.txt")
    assert [la.name for la in net.layers] == NAMES[:8] + ["n7"]  # the output named after the buffer it reads


@pytest.mark.parametrize(("info", "why"), [
    (_info_lines(NAMES[:8], IDS[:8]), "8 line.s. for layers 0..7, but the net has 9 layers"),
    (_info_lines(NAMES, IDS) + "9 9 extra\n", "line 10: more lines than the net's 9 layers"),
    (_info_lines(NAMES, [0, 1, 2, 3, 4, 5, 6, 9, 0]), "line of layer 7: dataId 9, but layer 7 writes dataId 7"),
    ("0 0 a\n\u00b21 1 b\n", "line 2: expected 'layerId dataId name'"),  # "²".isdigit() is True
    ("9" * 4300 + " 0 x\n", "line 1: expected 'layerId dataId name'"),  # past int()'s 4300-digit limit
    ("0 0 a\n" + "x" * 9000 + "\n", "line 2: longer than 8192 bytes"),
])
def test_layer_info_of_another_model_is_used_whole_or_not_at_all(tmp_path: Path, info: str, why: str) -> None:
    """Another model's file (index = dataId holds for any chain) or a hostile one: no name from
    it, and one located error saying why (never a ValueError)."""
    net = load_net(_built(tmp_path, info))
    assert net.layer_info is None and all(la.name is None for la in net.layers)
    assert net.layer_info_error is not None and str(tmp_path / "m_tidl_net.bin.layer_info.txt") in net.layer_info_error
    assert re.search(why, net.layer_info_error), net.layer_info_error


def test_layer_info_input_names_must_be_the_io_descriptors(tmp_path: Path) -> None:
    """TI's own file with the input data layer renamed: line count and dataIds still fit, but the
    io descriptor beside the net names that input otherwise (read here with str.split)."""
    folder = _deeplab()
    for name in ("201_tidl_net.bin", "201_tidl_io_1.bin"):
        (tmp_path / name).write_bytes((folder / name).read_bytes())
    lines = (folder / "201_tidl_net.bin.layer_info.txt").read_text().splitlines()
    io_name = lines[0].split(" ", 2)[2].strip()  # layer 0 is the input; TI names it as the io file does
    lines[0] = "0 0 some_other_input"
    (tmp_path / "201_tidl_net.bin.layer_info.txt").write_text("\n".join(lines) + "\n")
    net = load_net(tmp_path / "201_tidl_net.bin")
    assert all(la.name is None for la in net.layers)
    assert f"is named 'some_other_input', but 201_tidl_io_1.bin names that input '{io_name[:20]}" in \
        (net.layer_info_error or "")
    (tmp_path / "201_tidl_io_1.bin").unlink()  # nothing to hold the names against: used
    assert load_net(tmp_path / "201_tidl_net.bin").layers[0].name == "some_other_input"


def test_a_huge_layer_info_is_read_no_further_than_the_layer_count(tmp_path: Path) -> None:
    """25 MB of lines beside a 9-layer net: 10 lines are read (bounded memory), one error."""
    path = _built(tmp_path, None)
    with open(tmp_path / "m_tidl_net.bin.layer_info.txt", "w") as fh:
        line = "1 1 " + "x" * 250 + "\n"
        fh.write(line * (25_000_000 // len(line)))
    tracemalloc.start()
    net = load_net(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2 << 20, peak
    assert "line 2: layer 1 is named a second time" in (net.layer_info_error or "")
