"""Hostile descriptors, as Hypothesis properties, and a smoke run of tools/fuzz.py.

Properties (oracles independent of the code under test):
- any mutation of a fixture's fields parses or raises FormatError; parsed bytes build
  back identically; validate and the formatters never raise; the JSON is strict;
- the buffer operations agree with ``validate.geometry_problems``: a geometry it flags is
  refused with GeometryError, a size over the cap with AllocationLimitError, both before
  any memory is allocated (tracemalloc); everything else allocates exactly
  ``max(buffer_size, required_size) * itemsize`` bytes, and ``view`` maps every element
  to the address of the spec's index formula (§4), written out here from the raw fields;
  ``pack`` of codes puts them exactly there and leaves every other byte zero.
The harness itself is checked to report planted faults (an unexpected exception type, an
unlocated message, a broken round trip, a crash, a hang) and to run clean on a sample.
"""

from __future__ import annotations

import functools
import json
import math
import os
import random
import struct
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tidl_io
from tidl_io.data import buffers
from tidl_io.iodesc.format import descriptor_to_dict, format_descriptor
from tidl_io.iodesc.validate import geometry_problems

from conftest import EXAMPLES, ROOT, example_files, fixture_files

sys.path.insert(0, str(ROOT / "tools"))
import fuzz

I32_MIN, I32_MAX = -(2**31), 2**31 - 1
HOSTILE = (0, -1, -7, I32_MAX, I32_MIN, 2**30, 65536, 46341)
CAP = 1 << 20  # per-call max_bytes in these properties


@functools.cache
def _corpus() -> list[tuple[str, bytes]]:
    files = [p for p in fixture_files() if "container" not in p.name] + example_files()
    return [(p.name, p.read_bytes()) for p in files]


# ---- parse / validate / format on mutated fixtures --------------------------------------------

@st.composite
def _mutated_file(draw: st.DrawFn) -> bytes:
    _, original = draw(st.sampled_from(_corpus()))
    data = bytearray(original)
    layout = tidl_io.parse(original).layout
    ints = [m for m in layout.members if m.ctype == "int32_t"]
    for _ in range(draw(st.integers(1, 6))):
        m = draw(st.sampled_from(ints))
        slot = draw(st.integers(0, min(m.count - 1, 3))) if m.shape else 0
        value = draw(st.sampled_from(HOSTILE) | st.integers(I32_MIN, I32_MAX) | st.integers(-3, 40))
        struct.pack_into("<i", data, m.offset + slot * (m.itemsize if m.shape else 0), value)
    if draw(st.booleans()):
        kind = draw(st.sampled_from(("inTensorScale", "outTensorScale")))
        scale = draw(st.floats(width=32, allow_nan=True, allow_infinity=True))
        struct.pack_into("<f", data, layout.member(kind).offset, scale)
    if draw(st.integers(0, 9)) == 0:  # a length change now and then
        delta = draw(st.integers(-64, 64))
        data = data[:len(data) + delta] if delta < 0 else data + bytes(delta)
    return bytes(data)


@given(_mutated_file())
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_mutated_files_parse_validate_and_format_or_raise_format_error(data: bytes) -> None:
    try:
        desc = tidl_io.parse(data, "m.bin")
    except tidl_io.FormatError as exc:
        assert str(exc).startswith("m.bin")
        return
    assert tidl_io.build(desc) == data
    findings = tidl_io.validate(desc)
    assert all(f.level in ("error", "warning") and f.source == "m.bin" for f in findings)
    json.dumps(descriptor_to_dict(desc, "m.bin"), allow_nan=False)
    assert format_descriptor(desc, "m.bin", physical=True).startswith("m.bin: ")


# ---- buffers against geometry_problems and the spec's index formula ---------------------------

def _dim(small_hi: int) -> st.SearchStrategy[int]:
    return st.integers(1, small_hi) | st.sampled_from(HOSTILE)


@st.composite
def _tensor(draw: st.DrawFn) -> tidl_io.Descriptor:
    """A 10.x descriptor of one tensor: mostly small and valid, sometimes hostile in any field."""
    kind = draw(st.sampled_from(("input", "output")))
    p = "in" if kind == "input" else "out"
    w, h, c = draw(_dim(9)), draw(_dim(6)), draw(_dim(5))
    n, d1, d2 = (draw(st.integers(1, 2) | st.sampled_from(HOSTILE)) for _ in range(3))
    pads = [draw(st.integers(0, 3) | st.sampled_from(HOSTILE)) for _ in range(4)]
    pad_ch = 0 if kind == "input" else draw(st.integers(0, 2) | st.sampled_from((1547, *HOSTILE)))
    layout = draw(st.sampled_from((0, 0, 1, 7)))
    line, rows = w + pads[0] + pads[2], h + pads[1] + pads[3]
    pitch = draw(st.sampled_from(("plane", "ti", "nhwc", "random")))
    ch_pitch = {"plane": rows * line, "ti": (rows - 1) * line + 1, "nhwc": h * w,
                "random": draw(st.integers(I32_MIN, I32_MAX))}[pitch]
    planes = c + (1 if kind == "input" else pad_ch)
    buf = n * d1 * d2 * planes * rows * line + draw(st.sampled_from((0, 0, 0, -1, 5)))
    fields = {f"{p}Width": w, f"{p}Height": h, f"{p}NumChannels": c, f"{p}NumBatches": n, f"{p}DIM1": d1,
              f"{p}DIM2": d2, f"{p}PadL": pads[0], f"{p}PadT": pads[1], f"{p}PadR": pads[2], f"{p}PadB": pads[3],
              f"{p}PadCh": pad_ch, f"{p}Layout": layout, f"{p}ChannelPitch": ch_pitch, f"{p}BufSize": buf,
              f"{p}ElementType": draw(st.sampled_from((0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1))),
              f"{p}TensorScale": draw(st.sampled_from((1.0, 32768.0, 0.5, math.nan, 0.0)))}
    fields = {k: v if isinstance(v, float) or I32_MIN <= v <= I32_MAX else (v + 2**31) % 2**32 - 2**31
              for k, v in fields.items()}  # what an int32 field can hold
    fields[f"{p}DataName"] = "t"
    if kind == "output":
        fields["numValidTensorDims"] = 4
    return tidl_io.make_descriptor("10.x", 1, **{f"{kind}s": [fields]}, header={"numCores": 1})


def _spec_index(t: tidl_io.Tensor, idx: tuple[int, ...]) -> int:
    """Spec §4, from the raw fields: the element index of (n, d1, d2, c, h, w)."""
    n, d1, d2, c, h, w = idx
    C = t.num_channels
    line = t.width + t.pad_l + t.pad_r
    dim2 = t.channel_pitch * (C + t.pad_ch)
    dim1 = dim2 * t.dim2
    batch = dim1 * t.dim1
    base = n * batch + d1 * dim1 + d2 * dim2
    if t.layout_code == 1:  # NHWC: channel step 1, pixel step C, line step C * line
        return base + (t.pad_t + h) * line * C + (t.pad_l + w) * C + c
    return base + c * t.channel_pitch + (t.pad_t + h) * line + t.pad_l + w


def _call(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    """(result, exception, peak bytes allocated meanwhile)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        return fn(*args, **kwargs), None, tracemalloc.get_traced_memory()[1]
    except Exception as exc:  # noqa: BLE001 - classified by the caller
        return None, exc, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@given(_tensor(), st.randoms(use_true_random=False))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_buffers_refuse_hostile_geometry_before_allocating(desc: tidl_io.Descriptor, rnd: random.Random) -> None:
    t = (desc.inputs + desc.outputs)[0]
    problems = geometry_problems(t)
    itemsize = t.dtype.itemsize if t.element is not None else 1
    need = max(t.buffer_size, t.required_size) * itemsize
    alloc = buffers.alloc_input if t.kind == "input" else buffers.alloc_output
    buf, exc, peak = _call(alloc, desc, 0, max_bytes=CAP)
    if problems:
        assert isinstance(exc, tidl_io.GeometryError), (problems, exc)
        assert str(exc).startswith(t.label) and problems[0][0] in str(exc)
        assert peak < 64 << 10, f"{peak} bytes allocated before refusing"
        short = np.zeros(4, np.uint8)
        for fn in (lambda: buffers.view(t, short), lambda: buffers.unpack(t, short),
                   lambda: buffers.check_padding(t, short)):
            with pytest.raises(tidl_io.GeometryError):
                fn()
        return
    if need > CAP:
        assert isinstance(exc, tidl_io.AllocationLimitError), exc
        assert str(exc).startswith(f"{t.label}: allocating {need} bytes")
        assert peak < 64 << 10, f"{peak} bytes allocated before refusing"
        x = np.broadcast_to(np.float32(0), t.squeezed_shape)  # no memory: pack must refuse at the cap
        _, pexc, ppeak = _call(buffers.pack, t, x, max_bytes=CAP)
        assert isinstance(pexc, (tidl_io.AllocationLimitError, tidl_io.GeometryError)), pexc
        assert ppeak < 64 << 10
        return
    assert exc is None, exc
    assert buf.dtype == t.dtype and buf.nbytes == need and not buf.any()
    v = buffers.view(t, buf)
    assert v.shape == t.shape
    corners = {tuple(rnd.choice((0, d - 1)) for d in t.shape) for _ in range(6)}
    corners |= {tuple(rnd.randrange(d) for d in t.shape) for _ in range(6)}
    for idx in corners:
        address = v.ctypes.data + sum(i * s for i, s in zip(idx, v.strides))
        assert address == buf.ctypes.data + _spec_index(t, idx) * itemsize, idx
    # pack codes (the copy path: no quantization) and find them exactly where the formula says
    if t.element is not None and (t.dtype.kind == "f" or (math.isfinite(t.scale) and t.scale > 0)):
        codes = (np.arange(math.prod(t.shape)) % 97).astype(t.dtype).reshape(t.shape)
        packed = buffers.pack(t, codes, max_bytes=CAP)
        flat = packed.copy()
        for idx in np.ndindex(*t.shape) if codes.size <= 256 else corners:
            k = _spec_index(t, idx)
            assert flat[k] == codes[idx], idx
            flat[k] = 0
        if codes.size <= 256:
            assert not flat.any(), "pack wrote outside the valid elements"


@pytest.mark.parametrize("case", ["padch", "strides"])
def test_huge_strides_on_size_one_axes_are_not_a_numpy_error(case: str) -> None:
    """outPadCh near 2**31 with N = DIM1 = DIM2 = 1: the batch pitch is ~2**62 elements (~2**65
    bytes) but no valid element uses it. The buffer operations must work, or refuse with the
    library's own error -- never a NumPy ValueError/OverflowError."""
    fields = {"outDataName": "o", "outWidth": 4, "outHeight": 2, "outNumChannels": 1, "outNumBatches": 1,
              "outDIM1": 1, "outDIM2": 1, "outChannelPitch": I32_MAX, "outPadCh": I32_MAX - 1, "outBufSize": 8,
              "outTensorScale": 1.0, "outElementType": 8, "numValidTensorDims": 4}
    if case == "strides":
        fields.update({"outChannelPitch": 2**20, "outPadCh": 2**20})  # 2**43-byte batch pitch: within int64
    t = tidl_io.make_descriptor("10.x", outputs=[fields], header={"numCores": 1}).outputs[0]
    assert t.strides[0] * 8 > 2**63 - 1 or case == "strides"
    buf = np.arange(8, dtype=np.int64)
    for fn in (lambda: buffers.view(t, buf), lambda: buffers.unpack(t, buf, dequantize=False),
               lambda: buffers.check_padding(t, buf)):
        try:
            fn()
        except tidl_io.TidlIoError:
            pass


@pytest.mark.parametrize("scale", [1.4e-45, 1e-40])
def test_subnormal_scales_give_no_numpy_warning(scale: float) -> None:
    """A TensorScale of 1.4e-45 is a valid float32 (found by tools/fuzz.py): reading such a
    tensor must work or refuse with the library's error, never leak a RuntimeWarning."""
    desc = tidl_io.make_descriptor("10.x", inputs=[{
        "inDataName": "i", "inWidth": 4, "inHeight": 1, "inNumChannels": 1, "inChannelPitch": 4, "inNumBatches": 1,
        "inDIM1": 1, "inDIM2": 1, "inElementType": 0, "inTensorScale": scale, "inBufSize": 8}], header={"numCores": 1})
    t = desc.inputs[0]
    for fn in (lambda: buffers.unpack(t, np.arange(8, dtype=np.uint8)), lambda: buffers.get_input_details(desc)):
        try:
            fn()
        except tidl_io.TidlIoError:
            pass


# ---- the harness ------------------------------------------------------------------------------

def test_inputs_are_deterministic_and_varied() -> None:
    corpus = fuzz.load_corpus(fuzz.default_corpus_dirs())
    a = [fuzz.make_input(corpus, 5, i) for i in range(60)]
    b = [fuzz.make_input(corpus, 5, i) for i in range(60)]
    assert [x.data for x in a] == [x.data for x in b]
    assert len({x.data for x in a}) > 50
    parsed = 0
    for x in a:
        try:
            tidl_io.parse(x.data)
            parsed += 1
        except tidl_io.FormatError:
            pass
    assert 10 < parsed < 60  # both outcomes occur


def _checker(tmp_path: Path) -> fuzz.Checker:
    return fuzz.make_checker(fuzz.Stats(), tmp_path, cli_every=0, tensors=2)


@pytest.mark.parametrize("fault,kind", [
    (ZeroDivisionError("boom"), "ZeroDivisionError"),
    (tidl_io.GeometryError("nothing says where"), "unlocated message"),
])
def test_checker_reports_planted_faults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: Exception,
                                        kind: str) -> None:
    checker = _checker(tmp_path)

    def broken_validate(desc: object) -> None:
        raise fault

    monkeypatch.setattr(checker.tidl_io, "validate", broken_validate)
    data = (EXAMPLES / "detector_tidl_io_1.bin").read_bytes()
    checker.run(1, fuzz.FuzzInput(data, "", []), random.Random(0))
    (failure,) = checker.stats.failures
    assert failure.op == "validate" and failure.kind == kind


def test_checker_reports_a_broken_round_trip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checker = _checker(tmp_path)
    monkeypatch.setattr(checker.tidl_io, "build", lambda desc: b"")
    checker.run(1, fuzz.FuzzInput((EXAMPLES / "detector_tidl_io_1.bin").read_bytes(), "", []), random.Random(0))
    (failure,) = checker.stats.failures
    assert failure.op == "build" and failure.kind == "broken invariant"


def _run_fuzz(tmp_path: Path, *args: str) -> tuple[int, str, dict]:
    out = tmp_path / "summary.json"
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "fuzz.py"), "--progress-s", "0", "--json", str(out),
                           "--save-dir", str(tmp_path / "repro"), *args],
                          capture_output=True, text=True, timeout=300, cwd=ROOT, check=False)
    return proc.returncode, proc.stdout + proc.stderr, json.loads(out.read_text())


def test_smoke_run_is_clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a worker does, in-process: 150 inputs, every operation class reached, nothing unexpected."""
    monkeypatch.setenv("TIDL_IO_MAX_ALLOC_BYTES", str(64 << 20))
    corpus = fuzz.load_corpus(fuzz.default_corpus_dirs())
    checker = fuzz.make_checker(fuzz.Stats(), tmp_path, cli_every=4, tensors=2)
    for i in range(150):
        checker.run(i, fuzz.make_input(corpus, 11, i), random.Random(i))
    failures = [f"{f.index} {f.op} {f.kind}: {f.message}\n{f.trace}" for f in checker.stats.failures]
    assert not failures, "\n".join(failures)
    ops = checker.stats.ops
    for op in ("parse", "validate", "build", "format", "to_dict+json", "cli inspect", "alloc", "view", "pack",
               "unpack", "check_padding", "as_buffer", "net parse_net", "net load_net", "net format", "net layers"):
        assert sum(ops[op]) > 0, op
    assert ops["net parse_net"][1] > 0  # mutated nets are refused, with located errors, too


def test_release_tables_are_fuzzed(tmp_path: Path) -> None:
    """The releases target: mutated tables are read or refused with located errors, never crash."""
    corpus = fuzz.load_corpus(fuzz.default_corpus_dirs())
    checker = fuzz.make_checker(fuzz.Stats(), tmp_path, cli_every=4, tensors=2)
    for i in range(13, 13 + 32 * 40, 32):
        checker.run(i, fuzz.make_input(corpus, 11, i), random.Random(i))
    failures = [f"{f.index} {f.op} {f.kind}: {f.message}\n{f.trace}" for f in checker.stats.failures]
    assert not failures, "\n".join(failures)
    ops = checker.stats.ops
    assert ops["releases parse_table"][0] > 0 and ops["releases parse_table"][1] > 0  # some read, some refused
    assert sum(ops["releases load_table"]) > 0 and sum(ops["releases use"]) > 0
    assert "parse" not in ops  # the target takes its inputs alone


def test_crash_hang_and_slow_inputs_are_reported_with_their_index(tmp_path: Path) -> None:
    # TIDL_IO_TEST_TIME_SCALE: emulated runs (tools/aarch64.sh) are ~10x slower. 2 s: a real input on a
    # heavily loaded machine stays well below it (0.5 s, and once 2 s at load 9, flagged one as a hang).
    hang_s = 4.0 * float(os.environ.get("TIDL_IO_TEST_TIME_SCALE", "1"))
    code, text, summary = _run_fuzz(tmp_path, "--n", "12", "--seed", "2", "--hang-s", str(hang_s), "--max-ms", "100",
                                    "--selftest", "crash:5,hang:8,slow:10")
    assert code == 1 and summary["inputs"] == 12, text
    crash, hang = sorted(summary["failures"], key=lambda f: f["index"])
    assert crash["index"] == 5 and crash["kind"] == "crash" and "signal 11" in crash["message"]
    assert hang["index"] == 8 and hang["kind"] == "hang"
    corpus = fuzz.load_corpus(fuzz.default_corpus_dirs())
    assert Path(crash["saved"]).read_bytes() == fuzz.make_input(corpus, 2, 5).data
    assert "replay: python tools/fuzz.py --seed 2 --replay 5" in text
    assert summary["over_max_ms"] >= 1  # the planted 250 ms input (and the hang)
    assert "TIDL_IO_MAX_ALLOC_BYTES=67108864" in text and "peak RSS" in text
    assert 0 < summary["peak_rss_mb"] < 256
    for op in ("parse", "validate", "build"):
        assert sum(summary["ops"][op]) > 0


def test_number_reader_and_graphviz_are_fuzzed(tmp_path: Path) -> None:
    """The numbers and graphviz targets: values agree with Python's own conversions, refusals
    are located, graphvizInfo lines agree with TI's pattern; nothing unexpected."""
    corpus = fuzz.load_corpus(fuzz.default_corpus_dirs())
    checker = fuzz.make_checker(fuzz.Stats(), tmp_path, cli_every=0, tensors=2)
    for i in [*range(18, 18 + 32 * 30, 32), *range(42, 42 + 64 * 30, 64)]:
        checker.run(i, fuzz.make_input(corpus, 11, i), random.Random(i))
    failures = [f"{f.index} {f.op} {f.kind}: {f.message}\n{f.trace}" for f in checker.stats.failures]
    assert not failures, "\n".join(failures)
    ops = checker.stats.ops
    for op in ("numbers int", "numbers float", "numbers decimal", "numbers tilog.to_float", "graphviz parse"):
        assert ops[op][0] > 0 and ops[op][1] > 0, op  # some read, some refused
