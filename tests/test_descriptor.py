"""parse / build / load, against independent oracles:
the decodes in ../shared/realdata/PROVENANCE.md, struct-based offsets written from the
spec's field order, and the fixture specs' literal values."""

from __future__ import annotations

import json
import os
import re
import struct
from pathlib import Path

import numpy as np
import pytest
import yaml

import tidl_io
from tidl_io.iodesc.descriptor import make_descriptor
from tidl_io.iodesc.format import descriptor_to_dict

from conftest import EXAMPLES, FIXTURES, REALDATA, SPECS, corpus_params, real_files

# ---- round trip over the whole corpus ----------------------------------------------------

@pytest.mark.parametrize("path", corpus_params())
def test_parse_build_round_trip(path: Path) -> None:
    data = path.read_bytes()
    desc = tidl_io.parse(data, path.name)
    assert desc.nbytes == len(data)
    assert tidl_io.build(desc) == data


@pytest.mark.parametrize("path", corpus_params())
def test_build_does_not_keep_input_bytes(path: Path) -> None:
    """Building from a copy of the fields (fresh arrays) gives the same bytes."""
    data = path.read_bytes()
    desc = tidl_io.parse(data)
    fields = {k: (np.array(v) if isinstance(v, np.ndarray) else int(v)) for k, v in desc.fields.items()}
    subs = tuple(tidl_io.Descriptor(s.layout, {k: np.array(v) if isinstance(v, np.ndarray) else v
                                              for k, v in s.fields.items()}) for s in desc.subgraphs)
    rebuilt = tidl_io.Descriptor(desc.layout, fields, subgraphs=subs, container=desc.container)
    assert tidl_io.build(rebuilt) == data


def test_load_reads_a_path() -> None:
    path = FIXTURES / "v8_batch_tidl_io_1.bin"
    desc = tidl_io.load(path)
    assert desc.source == os.fspath(path)
    assert desc.inputs[0].name == "inp1"


# ---- the independent decode in PROVENANCE.md ---------------------------------------------

def _provenance() -> dict[str, dict]:
    text = (REALDATA / "PROVENANCE.md").read_text()
    out: dict[str, dict] = {}
    for block in re.split(r"^#### ", text, flags=re.MULTILINE)[1:]:
        name = block.split("`")[1]
        reading = block.split("- reading:")[1]
        entry: dict = {"inputs": [], "outputs": [], "header": {}}
        header = re.search(r"^header: (.*)$", reading, re.MULTILINE)
        assert header is not None
        for kv in header.group(1).split(", "):
            k, v = kv.split("=")
            entry["header"][k] = int(v)
        for kind, idx, tname, rest in re.findall(r"^(in|out)\[(\d+)\] '(.*)': (.*)$", reading, re.MULTILINE):
            fields = dict(re.findall(r"(\S+)=(\S+)", rest))
            entry["inputs" if kind == "in" else "outputs"].append((int(idx), tname, fields))
        entry["layout"] = re.search(r"layout guess: (\S+)", reading).group(1)
        out[name] = entry
    return out


def _real_params():
    return [pytest.param(p, id=p.name[:60]) for p in real_files()] or [
        pytest.param(None, marks=pytest.mark.skip(reason="../shared/realdata not present"))]


@pytest.mark.parametrize("path", _real_params())
def test_agrees_with_independent_decode(path: Path) -> None:
    expected = _provenance()[path.name]
    desc = tidl_io.load(path)
    doc = json.loads(json.dumps(descriptor_to_dict(desc), allow_nan=False))  # what --json prints
    assert desc.header == {k: v for k, v in expected["header"].items()} | {
        k: v for k, v in desc.header.items() if k not in expected["header"]}
    assert {"v08": "8.x", "v09.0": "9.0", "v10.0-11.01": "10.x"}[expected["layout"]] == desc.family
    for tensors, rows, prefix in ((desc.inputs, expected["inputs"], "in"),
                                  (desc.outputs, expected["outputs"], "out")):
        assert len(tensors) == len(rows)
        for t, (idx, name, f) in zip(tensors, rows):
            raw = doc["inputs" if prefix == "in" else "outputs"][idx]["raw"]
            assert raw == t.raw
            assert t.index == idx
            assert t.name.startswith(name)  # PROVENANCE cuts long names at 60 characters
            assert raw[f"{prefix}Width"] == int(f["W"])
            assert raw[f"{prefix}Height"] == int(f["H"])
            assert raw[f"{prefix}NumChannels"] == int(f["C"])
            assert raw[f"{prefix}ChannelPitch"] == int(f["pitch"])
            pads = [int(x) for x in f.get("L/T/R/B", f.get("L/T/R/B/Ch", "")).split("/")]
            assert [raw[f"{prefix}Pad{k}"] for k in "LTRB"] == pads[:4]
            if prefix == "out":
                assert raw["outPadCh"] == pads[4]
                assert raw["outDataId"] == int(f["dataId"])
            else:
                w, h = f["resize"].split("x")
                assert (raw["resizeWidth"], raw["resizeHeight"]) == (int(w), int(h))
                assert raw["inDataFormat"] == int(f["dataFormat"])
                assert raw["rawDataInElementType"] == int(f["rawElemType"])
            assert raw[f"{prefix}ElementType"] == int(f["elemType"])
            assert raw[f"{prefix}Layout"] == int(f["layout"])
            assert raw[f"{prefix}TensorScale"] == pytest.approx(float(f["scale"]), rel=1e-5)
            if "bufSize" in f:
                assert raw[f"{prefix}BufSize"] == int(f["bufSize"])
                assert t.buffer_size == int(f["bufSize"])
            if "numValidDims" in f:
                assert raw["numValidTensorDims"] == int(f["numValidDims"])


# ---- an independent offset oracle for every layout ---------------------------------------

# Member order transcribed from ../shared/spec/iobufdesc.md §2, not from schemas/.
_IN_8 = ["inDataFormat", "inResizeType", "resizeWidth", "resizeHeight", "inWidth", "inHeight",
         "inNumChannels", "inChannelPitch", "inNumBatches", "inPadL", "inPadT", "inPadR", "inPadB",
         "inPadCh", "rawDataInElementType", "inElementType", "inZeroPoint", "inLayout", "inDataId",
         "inTensorScale", "inDataName"]
_OUT_8 = ["outWidth", "outHeight", "outNumChannels", "outChannelPitch", "outNumBatches", "outPadL",
          "outPadT", "outPadR", "outPadB", "outPadCh", "outElementType", "outDataId", "outDataName",
          "outTensorScale", "outZeroPoint", "outLayout"]
_IN_L2 = ["inDataFormat", "inResizeType", "resizeWidth", "resizeHeight", "inWidth", "inHeight",
          "inNumChannels", "inDIM2", "inDIM1", "inChannelPitch", "inNumBatches", "inPadL", "inPadT",
          "inPadR", "inPadB", "inPadCh", "rawDataInElementType", "inElementType", "inZeroPoint", "inLayout",
          "inDataId", "inTensorScale", "inDataName"]
_OUT_L2 = ["outWidth", "outHeight", "outDIM2", "outDIM1", "outNumChannels", "outChannelPitch",
           "outNumBatches", "outPadL", "outPadT", "outPadR", "outPadB", "outPadCh", "outElementType",
           "outDataId", "outDataName", "outTensorScale", "outZeroPoint", "outLayout"]


def _spec_offsets(family: str, cores: int) -> tuple[dict[str, tuple[int, int]], int]:
    """name -> (offset, slot size) and the total size, from the spec's member lists."""
    hdr = 2 if family == "8.x" else 6
    n_in, n_out = (32, 32) if family in ("8.x", "9.0") else (32 * cores, 128 * cores)
    members = [(n, None) for n in ("numInputBuf", "numOutputBuf", "numCores", "numVirtualCores",
                                   "numSuperBatches", "inferenceMode")[:hdr]]
    ins = _IN_8 if family in ("8.x", "9.0") else _IN_L2 + (["inBufSize"] if family == "10.x" else [])
    outs = _OUT_8 if family in ("8.x", "9.0") else _OUT_L2 + (
        ["outBufSize"] if family == "10.x" else []) + ["numValidTensorDims"]
    members += [(n, n_in) for n in ins] + [(n, n_out) for n in outs]
    table, offset = {}, 0
    for name, count in members:
        slot = 512 if name.endswith("DataName") else 4
        table[name] = (offset, slot)
        offset += slot * (count or 1)
    return table, offset


@pytest.mark.parametrize("family,cores,size", [
    ("8.x", 1, 37256), ("9.0", 1, 37272), ("9.1", 1, 93976), ("9.1", 2, 187928), ("9.1", 4, 375832),
    ("10.x", 1, 94616), ("10.x", 2, 189208), ("10.x", 4, 378392)])
def test_layout_sizes_and_offsets_match_the_spec(family: str, cores: int, size: int) -> None:
    table, total = _spec_offsets(family, cores)
    assert total == size
    layout = tidl_io.iodesc.descriptor.find_layout(family, cores)
    assert layout.size == size
    assert {m.name: (m.offset, m.itemsize) for m in layout.members} == table


@pytest.mark.parametrize("spec_path", sorted(SPECS.glob("*.yaml")), ids=lambda p: p.stem)
def test_fixture_bytes_hold_spec_values_at_spec_offsets(spec_path: Path) -> None:
    """Read the fixture with struct at offsets from the spec and compare with the YAML."""
    spec = yaml.safe_load(spec_path.read_text())
    out = (FIXTURES / f"{spec_path.stem}_tidl_io_1.bin") if not spec_path.stem.startswith("example_") else (
        EXAMPLES / f"{spec_path.stem[8:]}_tidl_io_1.bin")
    data = out.read_bytes()
    table, size = _spec_offsets(str(spec["family"]), int(spec.get("cores", 1)))
    assert struct.unpack_from("<2i", data, 0) == (len(spec.get("inputs", [])), len(spec.get("outputs", [])))
    for kind in ("inputs", "outputs"):
        for slot, tensor in enumerate(spec.get(kind, [])):
            for name, value in tensor.items():
                offset, width = table[name]
                at = offset + slot * width
                if name.endswith("DataName"):
                    assert data[at:at + width].split(b"\0")[0] == value.encode()
                elif name.endswith("TensorScale"):
                    assert struct.unpack_from("<f", data, at)[0] == pytest.approx(value)
                else:
                    assert struct.unpack_from("<i", data, at)[0] == value, name
    if spec.get("subgraphs"):
        n = len(spec["subgraphs"])
        assert struct.unpack_from("<II", data, size) == (0xFF00FF00, n)
        assert len(data) == size * (n + 1) + 8 + 16 * n


def test_lookup_by_index_and_name() -> None:
    desc = tidl_io.load(FIXTURES / "l2_c2_multi_tidl_io_1.bin")
    assert desc.input("right") is desc.inputs[1]
    assert desc.output(2).name == "score"
    with pytest.raises(tidl_io.TensorNotFoundError, match="no input named 'nope'; inputs: 'left', 'right', 'meta'"):
        desc.input("nope")
    with pytest.raises(KeyError, match="no output 3"):  # still a KeyError for dict-minded callers
        desc.output(3)


def test_many_inputs_use_per_core_capacity() -> None:
    desc = tidl_io.load(FIXTURES / "l3_c4_many_tidl_io_1.bin")
    assert desc.cores == 4 and desc.layout.in_slots == 128
    assert len(desc.inputs) == 34 and desc.inputs[33].name == "in_33"


def test_container_subgraphs() -> None:
    desc = tidl_io.load(FIXTURES / "container_l3_c1_tidl_io_1.bin")
    assert len(desc.subgraphs) == 2
    assert [t.name for t in desc.subgraphs[0].outputs] == ["feat"]
    assert [t.name for t in desc.subgraphs[1].inputs] == ["feat"]
    s = desc.layout.size
    assert [(e.offset, e.size) for e in desc.container] == [(s + 8 + 32, s), (s + 8 + 32 + s, s)]


# ---- bad input -----------------------------------------------------------------------------

def _good() -> bytes:
    return (FIXTURES / "l2_c1_padded_tidl_io_1.bin").read_bytes()


def test_empty_input() -> None:
    with pytest.raises(tidl_io.FormatError, match=r"f.bin: size 0 bytes matches no known layout.*37256 \(TIDL 8.x\)"):
        tidl_io.parse(b"", "f.bin")


def test_a_net_file_given_as_a_descriptor_says_so() -> None:
    """The bundled example's net (its first word 0x20240719, TIDL 10.0's netVersion in
    schemas/releases.yaml) read as an io descriptor: the error says what the file is."""
    net = Path(tidl_io.__file__).parent / "examples" / "detector_tidl_net.bin"
    assert struct.unpack_from("<I", net.read_bytes())[0] == 0x20240719
    with pytest.raises(tidl_io.FormatError, match=r"matches no known layout.*first word 0x20240719 is the "
                       r"netVersion of a TIDL 10.0 network file: read it with tidl_io.load_net"):
        tidl_io.load(net)
    with pytest.raises(tidl_io.FormatError) as info:  # an io-sized mistake keeps the plain message
        tidl_io.parse(_good()[:-1], "x.bin")
    assert "netVersion" not in str(info.value)


@pytest.mark.parametrize("delta", [-1, +1])
def test_truncated_or_extended_by_one_byte(delta: int) -> None:
    data = _good()
    bad = data[:delta] if delta < 0 else data + b"\0"
    with pytest.raises(tidl_io.FormatError, match=f"size {len(data) + delta} bytes matches no known layout"):
        tidl_io.parse(bad, "x.bin")


def test_absurd_counts_name_offset_and_field() -> None:
    data = bytearray(_good())
    struct.pack_into("<i", data, 4, 100000)
    with pytest.raises(tidl_io.FormatError,
                       match=r"x.bin, offset 0x4, numOutputBuf: expected 0..128 .*found 100000"):
        tidl_io.parse(bytes(data), "x.bin")
    struct.pack_into("<ii", data, 0, -1, 1)
    with pytest.raises(tidl_io.FormatError, match=r"offset 0x0, numInputBuf: expected 0..32"):
        tidl_io.parse(bytes(data), "x.bin")


def test_random_bytes_of_a_valid_size_parse_or_fail_cleanly() -> None:
    rng = np.random.default_rng(7)
    for size in (37256, 94616, 378392):
        for _ in range(20):
            data = rng.integers(0, 256, size, dtype=np.uint8).tobytes()
            try:
                desc = tidl_io.parse(data, "rand.bin")
            except tidl_io.FormatError as exc:
                assert "rand.bin, offset 0x" in str(exc)
            else:  # pragma: no cover - counts within capacity by chance
                assert tidl_io.build(desc) == data


def test_name_with_garbage_after_the_nul_round_trips_and_decodes() -> None:
    data = bytearray(_good())
    layout = tidl_io.parse(bytes(data)).layout
    at = layout.member("inDataName").slot_offset(0)
    data[at:at + 12] = b"image\0junk!!"
    desc = tidl_io.parse(bytes(data))
    assert desc.inputs[0].name == "image"
    assert tidl_io.build(desc) == bytes(data)


def test_container_with_a_wrong_size() -> None:
    data = (FIXTURES / "container_l3_c1_tidl_io_1.bin").read_bytes()
    with pytest.raises(tidl_io.FormatError, match=r"offset 0x1719c, numSubgraphs: .*2 subgraphs should be "
                                                  r"283888 bytes, found 283887"):
        tidl_io.parse(data[:-1], "c.bin")


def test_load_refuses_huge_files_before_reading(tmp_path: Path) -> None:
    big = tmp_path / "huge_tidl_io_1.bin"
    with big.open("wb") as fh:
        fh.truncate(378392 * 2000)
    with pytest.raises(tidl_io.FormatError, match="far beyond any descriptor file"):
        tidl_io.load(big)


def test_make_descriptor_rejects_unknown_fields_and_bad_values() -> None:
    with pytest.raises(tidl_io.FormatError, match="layout has no field for 'dim1'"):
        make_descriptor("8.x", inputs=[{"dim1": 2}])
    with pytest.raises(tidl_io.FormatError, match="unknown field 'inFoo'"):
        make_descriptor("10.x", inputs=[{"inFoo": 2}])
    with pytest.raises(tidl_io.OptionError, match="^make_descriptor: family and cores must name a layout: no layout "
                                                  "7.x/c1"):
        make_descriptor("7.x")
    with pytest.raises(tidl_io.FormatError, match=r"input 0: inWidth: 2147483648 does not fit int32_t"):
        make_descriptor("10.x", inputs=[{"inWidth": 2**31}])
    with pytest.raises(tidl_io.FormatError, match=r"inWidth: expected an integer, found 'wide'"):
        make_descriptor("10.x", inputs=[{"inWidth": "wide"}])
    with pytest.raises(tidl_io.FormatError, match="name of 512 bytes leaves no room for the NUL"):
        make_descriptor("10.x", inputs=[{"inDataName": "x" * 512}])


@pytest.mark.parametrize("value", ["model_tidl_io_1.bin", Path("m.bin"), None, 42])
def test_parse_refuses_what_is_not_bytes(value: object) -> None:
    with pytest.raises(tidl_io.ArgumentTypeError, match="^parse: data: expected the file's bytes .*, found"):
        tidl_io.parse(value)  # type: ignore[arg-type]
    if isinstance(value, (str, Path)):
        with pytest.raises(tidl_io.ArgumentTypeError, match=r"use tidl_io.load\(path\)"):
            tidl_io.parse(value)  # type: ignore[arg-type]


# ---- load: bounded reads (hostile paths) ----------------------------------------------------

def test_load_applies_the_allocation_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    path = FIXTURES / "v8_batch_tidl_io_1.bin"  # 37256 bytes
    monkeypatch.setenv("TIDL_IO_MAX_ALLOC_BYTES", "37255")
    with pytest.raises(tidl_io.AllocationLimitError, match=rf"^{re.escape(str(path))}: reading the file: "
                                                           r"allocating 37256 bytes"):
        tidl_io.load(path)
    monkeypatch.setenv("TIDL_IO_MAX_ALLOC_BYTES", "37256")
    assert tidl_io.load(path).layout.size == 37256


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_load_of_an_endless_device_is_refused_before_reading() -> None:
    """/dev/zero reports size 0 and never ends: not a regular file, refused without a read."""
    with pytest.raises(tidl_io.PathError, match=r"^/dev/zero: is a character device, not a regular file; "
                                                r"expected a TIDL I/O descriptor file"):
        tidl_io.load("/dev/zero")


def test_public_names_resolve() -> None:
    """Every name in tidl_io.__all__ is what it says, also after every submodule has been
    imported (importing a submodule binds its name on the package: permute, reorg)."""
    import importlib
    import types

    for module in ("data.buffers", "data.quant", "data.permute", "data.reorg", "runtime", "run.session",
                   "data.detection", "runtime.models"):
        importlib.import_module(f"tidl_io.{module}")
    for name in tidl_io.__all__:
        value = getattr(tidl_io, name)
        assert value is not None and not isinstance(value, types.ModuleType), name
    x = np.arange(6).reshape(2, 3)
    assert np.array_equal(tidl_io.permute(x, (1, 0)), x.T)
    y = np.arange(16).reshape(1, 4, 2, 2)
    assert np.array_equal(tidl_io.reorg_inverse(tidl_io.reorg(y, 2), 2), y)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = tidl_io.nope  # type: ignore[attr-defined]


# ---- paths (issue 11) ------------------------------------------------------------------------

def test_load_of_a_missing_file_or_a_folder_is_a_located_library_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope_tidl_io_1.bin"
    with pytest.raises(tidl_io.PathError) as err:
        tidl_io.load(missing)
    assert isinstance(err.value, FileNotFoundError) and err.value.filename == str(missing)
    assert str(err.value) == f"{missing}: no such file; expected a TIDL I/O descriptor file (*_tidl_io_1.bin)"
    with pytest.raises(tidl_io.PathError) as err:
        tidl_io.load(tmp_path)
    assert isinstance(err.value, IsADirectoryError) and isinstance(err.value, tidl_io.TidlIoError)
    assert str(err.value) == f"{tmp_path}: is a folder; expected a TIDL I/O descriptor file (*_tidl_io_1.bin)"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_load_of_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    import threading

    fifo = tmp_path / "pipe_tidl_io_1.bin"
    os.mkfifo(fifo)
    result: list[BaseException] = []

    def attempt() -> None:
        try:
            tidl_io.load(fifo)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            result.append(exc)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(10)
    if worker.is_alive():  # unblock the reader before failing, so the test run can end
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("load() blocked on a FIFO")
    (exc,) = result
    assert isinstance(exc, tidl_io.PathError) and not isinstance(exc, FileNotFoundError)
    assert str(exc) == f"{fifo}: is a FIFO (named pipe), not a regular file; expected a TIDL I/O descriptor file " \
                       f"(*_tidl_io_1.bin)"


def test_looks_like_io_tells_descriptors_by_size_or_container_magic(tmp_path: Path) -> None:
    """An io descriptor under another name is told by its size (a layout's, iobufdesc.md) or, for a
    container, by the magic after its first descriptor; a text file or a net's first bytes are not."""
    from tidl_io.iodesc.descriptor import looks_like_io

    (tmp_path / "a.dat").write_bytes((FIXTURES / "l2_c1_padded_tidl_io_1.bin").read_bytes())
    (tmp_path / "c.dat").write_bytes((FIXTURES / "container_l3_c1_tidl_io_1.bin").read_bytes())
    (tmp_path / "config.yaml").write_text("session: {}\n")
    (tmp_path / "n.dat").write_bytes(struct.pack("<I", 0x20240719) + bytes(100))
    (tmp_path / "broken_tidl_io_1.bin").write_bytes(b"\x01")  # named as TI names it: meant as one
    assert [looks_like_io(tmp_path / n) for n in ("a.dat", "c.dat", "config.yaml", "n.dat", "broken_tidl_io_1.bin",
                                                  "gone.dat")] == [True, True, False, False, True, False]
    assert not looks_like_io(tmp_path)  # a folder
