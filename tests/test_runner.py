"""tidl_io.run.runner: per-stage timings over N runs, random inputs of the right range, input files."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io.run.runner import STAGES, format_run, load_inputs, random_input, run_model, run_to_dict

from conftest import EXAMPLES, FIXTURES
from runtime_oracles import _small


def test_mock_run_collects_every_stage() -> None:
    r = run_model(EXAMPLES, runtime="mock", repeat=4)
    assert r.repeat == 4 and all(len(r.stages[k]) == 4 and min(r.stages[k]) >= 0 for k in STAGES)
    assert r.stats("device")[0] <= r.stats("device")[1] <= r.stats("device")[2] and r.stats("device")[2] > 0
    assert [t["path"] for t in r.transfers] == ["zero-copy", "zero-copy"] and r.generated == ["images"]
    assert r.outputs["detections"]["shape"] == [145]
    text = format_run(r)
    assert "input  'images': zero-copy" in text and "pack" in text
    assert run_to_dict(r)["stages"]["unpack"]["median"] == r.stats("unpack")[1]
    with pytest.raises(tidl_io.OptionError, match="^run_model: repeat must be >= 1, found 0$"):
        run_model(EXAMPLES, runtime="mock", repeat=0)


def test_random_inputs_cover_the_representable_range() -> None:
    d = _small(inputs=[dict(inDataName="q", inWidth=50, inHeight=40, inNumChannels=1, inElementType=0,
                            inTensorScale=2.0),
                       dict(inDataName="s", inWidth=50, inHeight=40, inNumChannels=1, inElementType=1,
                            inTensorScale=0.5, inZeroPoint=-8),
                       dict(inDataName="f", inWidth=50, inHeight=40, inNumChannels=1, inElementType=6)],
               outputs=[dict(outDataName="y", outWidth=1, outHeight=1, outNumChannels=1)])
    rng = np.random.default_rng(0)
    q, s, f = (random_input(t, rng, image=False) for t in d.inputs)
    assert q.shape == (1, 1, 40, 50) and 0 <= q.min() and q.max() <= 255 / 2 and q.max() > 100  # uint8 / 2
    assert (-128 + 8) / 0.5 <= s.min() and s.max() <= (127 + 8) / 0.5 and s.min() < -200
    assert -1 <= f.min() and f.max() <= 1
    assert random_input(d.inputs[2], rng, image=True).max() > 200


def test_input_files(tmp_path: Path) -> None:
    np.save(tmp_path / "a.npy", np.arange(6))
    got = load_inputs([f"x={tmp_path / 'a.npy'}"], ("x", "y"))
    assert list(got) == ["x"] and got["x"].tolist() == [0, 1, 2, 3, 4, 5]
    assert list(load_inputs([str(tmp_path / "a.npy")], ("only",))) == ["only"]
    with pytest.raises(tidl_io.OptionError, match="this model has 2 inputs \\(x, y\\); write NAME=FILE.npy"):
        load_inputs([str(tmp_path / "a.npy")], ("x", "y"))
    (tmp_path / "bad.npy").write_bytes(b"nope")
    with pytest.raises(tidl_io.FormatError, match=r"bad.npy: not an .npy array \(no \\x93NUMPY magic\): found bytes b'nope'"):
        load_inputs([f"x={tmp_path / 'bad.npy'}"], ("x",))
    missing = tmp_path / "gone.npy"
    with pytest.raises(tidl_io.PathNotFoundError) as err:  # the one missing-file error, also a FileNotFoundError
        load_inputs([f"x={missing}"], ("x",))
    assert err.value.filename == str(missing) and isinstance(err.value, FileNotFoundError)
    assert str(err.value) == f"{missing}: no such file; expected a .npy array of numbers (--input 'x={missing}')"
    with pytest.raises(tidl_io.PathIsFolderError, match=r"is a folder; expected a .npy array of numbers \(--input"):
        load_inputs([f"x={tmp_path}"], ("x",))


def test_unusable_input_files_are_located_errors(tmp_path: Path) -> None:
    """Empty, cut, pickled, or holding NaN: a TidlIoError naming the file (was: an EOFError, NumPy's
    message, or a run on NaN); through the CLI one line and exit 2."""
    import io

    from tidl_io.cli.app import main

    np.save(tmp_path / "good.npy", np.ones((1, 3, 4), np.float32))
    good = (tmp_path / "good.npy").read_bytes()
    (tmp_path / "empty.npy").write_bytes(b"")
    (tmp_path / "cut.npy").write_bytes(good[:-3])
    np.save(tmp_path / "obj.npy", np.array([None], dtype=object))
    nan = np.zeros((1, 3, 4), np.float32)
    nan[0, 2, 1] = np.nan
    np.save(tmp_path / "nan.npy", nan)
    cases = [("empty.npy", tidl_io.FormatError, "found an empty file (0 bytes)"),
             ("cut.npy", tidl_io.FormatError, "is 48 bytes, but 45 bytes of data follow the header"),
             ("obj.npy", tidl_io.FormatError, "dtype object is not numeric"),
             ("nan.npy", tidl_io.BufferMismatchError, "the array holds 1 NaN value(s), the first at index (0, 2, 1)")]
    for name, cls, says in cases:
        f = tmp_path / name
        with pytest.raises(cls) as info:
            load_inputs([f"images={f}"], ("images",))
        assert str(info.value).startswith(str(f)) and says in str(info.value)
        out, err = io.StringIO(), io.StringIO()
        code = main(["run", str(EXAMPLES), "--runtime", "mock", "--repeat", "1", "--input", f"images={f}"],
                    out=out, err=err)
        assert (code, out.getvalue()) == (2, "") and err.getvalue().count("\n") == 1 and says in err.getvalue()


def test_tidlrt_run_takes_copy_times_from_perfstats(tidlrt_standin, tmp_path: Path, monkeypatch) -> None:
    lib = tidlrt_standin("T6P-d")
    desc = tidl_io.load(next(p for p in sorted(FIXTURES.glob("l3_c2*"))))
    art = tmp_path / "art"
    art.mkdir()
    (art / "m_tidl_io_1.bin").write_bytes(tidl_io.build(desc))
    (art / "m_tidl_net.bin").write_bytes(struct.pack("<I", 0x20250821) + bytes(12))
    monkeypatch.setenv("TIDL_IO_TIDLRT_LIBRARY", str(lib))
    r = run_model(art, repeat=3)
    assert r.runtime == "TidlRtRuntime" and any("runtime: TIDL-RT" in n for n in r.notes)
    assert {t["path"] for t in r.transfers} == {"zero-copy"} and max(r.stages["device"]) > 0
    shutil.rmtree(art)
