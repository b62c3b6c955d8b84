"""Issue 18 part 2, one test per bullet: every misuse a new user tried gets the error of its
kind -- ArgumentTypeError (a TypeError) for a wrong kind of argument, OptionError (a
ValueError) for a value an option does not take, BufferMismatchError only for a buffer or
array that does not fit, a PathError for a path that cannot be used, a TidlIoWarning for a
setting not understood, exit 2 for a command-line usage error. Each test failed before the fix.

The oracles are the issue's own list (what must be raised, named, written or not written),
the fixture's raw YAML fields (for the NHWC shape) and the README's text run as code.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

import tidl_io
from tidl_io import ArgumentTypeError, BufferMismatchError, OptionError, TidlIoError, TidlIoWarning
from tidl_io.cli.app import main

from conftest import EXAMPLES, FIXTURES, PACKAGE, ROOT, SPECS

DESC = tidl_io.load(EXAMPLES / "detector_tidl_io_1.bin")
T_IN, T_OUT = DESC.input(0), DESC.output(0)
X = np.zeros(T_IN.squeezed_shape, np.float32)


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def _kind(call, error: type[BaseException], *words: str) -> str:
    """Run ``call``; it must raise exactly the kind ``error`` (a tidl_io error), with ``words``."""
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    assert isinstance(info.value, TidlIoError), type(info.value)
    for w in words:
        assert w in message, (w, message)
    return message


# ---- 1. wrong kind of argument -> ArgumentTypeError naming function, argument, expected, found --------

@pytest.mark.parametrize("data,found", [(None, "found None"), (123, "found int 123")])
def test_parse_of_none_or_an_int_is_a_wrong_kind(data: object, found: str) -> None:
    _kind(lambda: tidl_io.parse(data), ArgumentTypeError, "parse: data: expected", "bytes", found)  # type: ignore[arg-type]


@pytest.mark.parametrize("buf,found", [(None, "found None"), ("x", "found str 'x'")])
def test_unpack_without_a_buffer_is_a_wrong_kind(buf: object, found: str) -> None:
    _kind(lambda: tidl_io.unpack(T_OUT, buf), ArgumentTypeError, "unpack: buf: expected", found)  # type: ignore[arg-type]


def test_reorg_of_a_float_stride_is_a_wrong_kind() -> None:
    message = _kind(lambda: tidl_io.reorg(np.zeros((1, 4, 2, 2)), 2.0), ArgumentTypeError)  # type: ignore[arg-type]
    assert message == "reorg: stride: expected an integer >= 1, found float 2.0"


def test_alloc_input_max_bytes_of_text_is_a_wrong_kind_not_a_memory_error() -> None:
    with pytest.raises(ArgumentTypeError) as info:
        tidl_io.alloc_input(DESC, 0, max_bytes="abc")  # type: ignore[arg-type]
    assert not isinstance(info.value, MemoryError)
    assert str(info.value).startswith("alloc_input: max_bytes: expected a whole number of bytes >= 0")
    assert str(info.value).endswith("found str 'abc'")


def test_quantize_rounding_none_is_a_wrong_kind() -> None:
    message = _kind(lambda: tidl_io.quantize(T_IN, X, rounding=None), ArgumentTypeError)  # type: ignore[arg-type]
    assert message == "quantize: rounding: expected one of 'trunc', 'nearest', found None"


@pytest.mark.parametrize("call,message", [
    (lambda: tidl_io.quantize(T_IN, X, rounding="up"), "quantize: rounding must be one of 'trunc', 'nearest'"),
    (lambda: tidl_io.pack(T_IN, X, nan="ignore"), "pack: nan must be one of 'error', 'zero', found 'ignore'"),
    (lambda: tidl_io.pack(T_IN, X, layout="HWX"), ("layout must be one of 'NCHW', 'NHWC', 'CHW', 'HWC' (any case), "
                                                   "found 'HWX'")),
    (lambda: tidl_io.reorg(np.zeros((1, 4, 2, 2)), 0), "reorg: stride must be >= 1, found 0"),
    (lambda: tidl_io.reorg(np.zeros((1, 4, 2, 2)), 2, mode="x"), ("reorg: mode must be one of 'darknet', 'dcr', "
                                                                  "'crd', found 'x'")),
    (lambda: tidl_io.alloc_input(DESC, 0, max_bytes=-1), ("alloc_input: max_bytes must be a whole number of bytes "
                                                          ">= 0, found -1")),
    (lambda: tidl_io.MockC7xRuntime(DESC).alloc_shared(8, 3), "alloc_shared: alignment must be a power of two"),
])
def test_a_bad_option_value_is_an_option_error_not_a_buffer_mismatch(call, message: str) -> None:
    with pytest.raises(OptionError) as info:
        call()
    assert isinstance(info.value, ValueError) and not isinstance(info.value, BufferMismatchError)
    assert message in str(info.value)


def test_option_error_is_public_under_the_root() -> None:
    assert "OptionError" in tidl_io.__all__ and "TidlIoWarning" in tidl_io.__all__
    assert issubclass(OptionError, TidlIoError) and issubclass(OptionError, ValueError)
    assert not issubclass(OptionError, BufferMismatchError) and issubclass(TidlIoWarning, UserWarning)


def test_one_nan_policy_function() -> None:
    """issue 19 item 3: nan= is applied in one place (quant.nan_policy), not in three."""
    sources = {p.name: p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py")}
    applied = {name: len(re.findall(r"""nan\s*==\s*["']error["']""", text)) for name, text in sources.items()}
    assert {k: v for k, v in applied.items() if v} == {"quant.py": 1}
    assert "def nan_policy(" in sources["quant.py"]
    nan = np.full(T_IN.squeezed_shape, np.nan, np.float32)
    for call in (lambda: tidl_io.quantize(T_IN, nan), lambda: tidl_io.pack(T_IN, nan)):
        _kind(call, BufferMismatchError, "NaN value(s)", "nan='zero'")  # the data does not fit: NaN is no code
    assert not tidl_io.unpack(T_IN, tidl_io.pack(T_IN, nan, nan="zero"), dequantize=False).any()  # zero point 0


# ---- 2. paths, sessions, the mock, TI's parameters ------------------------------------------------

def test_load_of_a_path_with_a_nul_byte_is_a_path_error() -> None:
    with pytest.raises(tidl_io.PathError) as info:
        tidl_io.load("a\0b")
    assert info.value.errno == 22 and "holds a NUL byte" in str(info.value) and "\0" not in str(info.value)


def test_session_buffers_of_a_bad_subgraph() -> None:
    with tidl_io.Session(EXAMPLES, runtime="mock") as s:
        ins, outs = s.buffers(0)
        assert s.buffers("detector") == (ins, outs)  # by name too
        _kind(lambda: s.buffers(5), OptionError, "Session.buffers: subgraph must be", "found 5", "'detector'")
        _kind(lambda: s.buffers("x"), OptionError, "Session.buffers: subgraph must be", "found 'x'")
        _kind(lambda: s.buffers(1.0), ArgumentTypeError, "Session.buffers: subgraph: expected")  # type: ignore[arg-type]


def test_find_io_files_of_a_missing_folder_or_a_file(tmp_path: Path) -> None:
    with pytest.raises(tidl_io.PathNotFoundError) as missing:
        tidl_io.find_io_files(tmp_path / "nope")
    assert missing.value.filename == str(tmp_path / "nope")
    with pytest.raises(tidl_io.PathError, match="is a file, not a folder; .*tidl_io.load"):
        tidl_io.find_io_files(EXAMPLES / "detector_tidl_io_1.bin")
    assert tidl_io.find_io_files(tmp_path) == []  # an existing folder without io files: empty, as documented


def test_mock_free_shared_of_a_foreign_array() -> None:
    rt = tidl_io.MockC7xRuntime(DESC)
    own = rt.alloc_shared(64)
    for foreign in (np.zeros(64, np.uint8), tidl_io.MockC7xRuntime(DESC).alloc_shared(64)):
        _kind(lambda f=foreign: rt.free_shared(f), BufferMismatchError, "in no block of this runtime's alloc_shared")
    rt.free_shared(own[8:16])  # a view into its block frees the block
    _kind(lambda: rt.free_shared(own), BufferMismatchError, "freed already")
    _kind(lambda: rt.free_shared(None), ArgumentTypeError, "free_shared: buf: expected")  # type: ignore[arg-type]


@pytest.mark.parametrize("arg,value", [("core_num", -1), ("core_num", 0), ("core_start_idx", -1),
                                       ("target_priority", 8)])
def test_core_num_minus_one_is_refused_before_ti_library(arg: str, value: int, tmp_path: Path) -> None:
    """Checked before any library is looked for: the library named here does not exist."""
    with pytest.raises(OptionError) as info:
        tidl_io.TidlRtRuntime(DESC, b"1234", library=tmp_path / "no_libvx_tidl_rt.so", **{arg: value})
    assert str(info.value).startswith(f"TidlRtRuntime: {arg} must be") and f"found {value}" in str(info.value)


# ---- 3. environment variables -------------------------------------------------------------------

@pytest.mark.parametrize("value,on", [("0", False), ("false", False), ("OFF", False), ("No", False),
                                      ("1", True), ("TRUE", True), ("on", True), ("yes", True), ("", True)])
def test_tidl_io_native_takes_the_usual_spellings(value: str, on: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    from tidl_io import native as _native

    monkeypatch.setenv("TIDL_IO_NATIVE", value)
    lib, reason, _ = _native._load()
    if on:
        assert "disabled" not in reason
    else:
        assert lib is None and reason == f"disabled by TIDL_IO_NATIVE={value}"


def test_tidl_io_native_not_understood_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    from tidl_io import native as _native

    monkeypatch.setenv("TIDL_IO_NATIVE", "maybe")
    with pytest.warns(TidlIoWarning, match=r"^TIDL_IO_NATIVE='maybe' is not understood \(expected one of "
                                           r"1/true/on/yes or 0/false/off/no, any case\); using the default \(on\)$"):
        _, reason, _ = _native._load()
    assert "disabled" not in reason


@pytest.mark.parametrize("value", ["banana", "-3", "0", "2.5"])
def test_tidl_io_threads_not_understood_warns_and_uses_the_default(value: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from tidl_io import native as _native

    monkeypatch.delenv("TIDL_IO_THREADS", raising=False)
    default = _native._threads_default()
    monkeypatch.setenv("TIDL_IO_THREADS", value)
    with pytest.warns(TidlIoWarning, match=rf"^TIDL_IO_THREADS='{re.escape(value)}' is not understood \(expected a "
                                           rf"whole number >= 1\); using the default \({default}\)$"):
        assert _native._threads_default() == default
    monkeypatch.setenv("TIDL_IO_THREADS", "3")
    assert _native._threads_default() == 3


def test_tidl_io_threads_warning_at_import_names_the_variable() -> None:
    """The real path: the variable is read when tidl_io is imported (a subprocess, warnings shown)."""
    env = {**os.environ, "TIDL_IO_THREADS": "banana", "PYTHONPATH": str(ROOT)}
    code = "import tidl_io; print(tidl_io.native_info()['threads'])"
    proc = subprocess.run([sys.executable, "-W", "always", "-c", code], check=False, capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "TidlIoWarning: TIDL_IO_THREADS='banana' is not understood" in proc.stderr
    assert int(proc.stdout) == max(1, min(2, os.cpu_count() or 1))


def test_tidlrt_library_pointing_at_a_folder_says_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tidl_io.runtime.tidlrt import load_library

    monkeypatch.setenv("TIDL_IO_TIDLRT_LIBRARY", str(tmp_path))
    with pytest.raises(tidl_io.LibraryNotFoundError) as info:
        load_library()
    assert f"{tmp_path} ($TIDL_IO_TIDLRT_LIBRARY): is a folder, expected the library file itself" in str(info.value)
    assert "no such file" not in str(info.value)


# ---- 4. the command line --------------------------------------------------------------------------

def _bad_file(tmp_path: Path) -> Path:
    bad = tmp_path / "BAD_tidl_io_1.bin"
    bad.write_bytes(b"garbage!")
    return bad


def test_inspect_html_of_only_bad_files_writes_no_page(tmp_path: Path) -> None:
    page = tmp_path / "x.html"
    code, _, err = cli("inspect", "--html", "-o", str(page), str(_bad_file(tmp_path)))
    assert code == 1 and not page.exists()
    assert "matches no known layout" in err and f"nothing written to {page}" in err


def test_inspect_svg_of_only_bad_files_leaves_no_folder(tmp_path: Path) -> None:
    folder = tmp_path / "DIR"
    code, out, _ = cli("inspect", "--svg", "-o", str(folder), str(_bad_file(tmp_path)))
    assert code == 1 and not folder.exists() and "picture(s) written" not in out


@pytest.mark.parametrize("value", ["0", "-1", "x"])
def test_run_repeat_zero_is_a_usage_error_naming_the_option(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli("run", "--runtime", "mock", "--repeat", value, str(EXAMPLES))
    err = capsys.readouterr().err  # argparse's usage errors go to sys.stderr
    assert code == 2 and out == ""
    assert "argument --repeat: expected a whole number >= 1" in err and "repeat:" not in err.replace("--repeat:", "")


def _unrelated(tmp_path: Path, files: list[Path]) -> Path:
    art = tmp_path / "artifacts"
    art.mkdir()
    for i, f in enumerate(files):
        shutil.copy(f, art / f"s{i}_tidl_io_1.bin")
    return art


@pytest.mark.parametrize("files,why", [
    ([FIXTURES / "v8_batch_tidl_io_1.bin", FIXTURES / "l2_c4_nhwc_tidl_io_1.bin"], "TIDL 8.x"),
    ([EXAMPLES / "detector_tidl_io_1.bin", EXAMPLES / "detector_tidl_io_1.bin"], "'detections'"),
])
def test_run_on_unrelated_descriptors_says_they_are_not_one_model(tmp_path: Path, files: list[Path],
                                                                   why: str) -> None:
    art = _unrelated(tmp_path, files)
    code, out, err = cli("run", "--runtime", "mock", "--repeat", "1", str(art))
    assert code == 2 and out == ""  # inconsistent input: could not do the job
    assert "these are not one model" in err and why in err, err
    with pytest.raises(tidl_io.FormatError, match="these are not one model"):
        tidl_io.Session(art, runtime="mock")


def test_inspect_table_shows_an_nhwc_tensor_channels_last() -> None:
    spec = yaml.safe_load((SPECS / "l2_c4_nhwc.yaml").read_text())["inputs"][0]
    assert spec["inLayout"] == 1  # TensorLayout.NHWC
    expected = f"1x{spec['inHeight']}x{spec['inWidth']}x{spec['inNumChannels']}"
    code, out, _ = cli("inspect", str(FIXTURES / "l2_c4_nhwc_tidl_io_1.bin"))
    row = next(line for line in out.splitlines() if spec["inDataName"] in line)
    assert code == 0 and expected in row.split() and "NHWC" in row.split()
    code, out, _ = cli("inspect", str(EXAMPLES / "detector_tidl_io_1.bin"))  # NCHW rows stay channels first
    assert "1x3x96x160" in out


def test_cli_messages_name_options_not_python_arguments(tmp_path: Path, tidlrt_standin,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine with TIDL-RT (the stand-in) and a model folder without its net file: the
    message names the file, not the Python argument net=."""
    monkeypatch.setenv("TIDL_IO_TIDLRT_LIBRARY", str(tidlrt_standin("T6P-d")))  # the example is TIDL 10.x
    art = tmp_path / "artifacts"
    art.mkdir()
    shutil.copy(EXAMPLES / "detector_tidl_io_1.bin", art / "det_tidl_io_1.bin")  # no det_tidl_net.bin
    code, _, err = cli("run", "--runtime", "tidlrt", str(art))
    assert code == 2 and "net=" not in err
    assert f"{art / 'det_tidl_net.bin'}: no such file; TIDL-RT needs the network file beside det_tidl_io_1.bin" in err
    with pytest.raises(tidl_io.PathNotFoundError, match="TIDL-RT needs the network file"):
        tidl_io.Session(art, runtime="tidlrt")


# ---- 5. README --------------------------------------------------------------------------------------

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_says_where_the_bundled_example_lives() -> None:
    assert "`tidl_io/examples/`" in README
    for name in ("detector_tidl_io_1.bin", "param.yaml", "onnxrtMetaData.txt"):
        assert name in README and (EXAMPLES / name).is_file()


def test_readme_explains_the_io_file_naming() -> None:
    para = next(p for p in README.split("\n\n") if "`<name>_tidl_io_1.bin`" in p)
    assert "`<name>_tidl_net.bin`" in para and "The `_1`" in para and "tidl_io_<name>_1.bin" in para


def test_readme_python_snippets_run_on_the_bundled_example() -> None:
    """The Python, buffer and mock/session snippets, run in order as written: every name is defined
    before use (out_buf), and the mock example works on the bundled example (not model="identity")."""
    sections = [s for s in README.split("\n## ") if s.startswith(("Python\n", "Buffers", "Mock runtime"))]
    runnable = [b for s in sections for b in re.findall(r"```python\n(.*?)```", s, re.DOTALL)]
    assert len(runnable) == 3 and "MockC7xRuntime(" in runnable[2] and "out_buf =" in runnable[1]
    namespace: dict[str, object] = {}
    for block in runnable:
        exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102 - our own README
    assert namespace["y"].shape == T_OUT.squeezed_shape  # type: ignore[attr-defined]
    assert set(namespace["outputs"]) == {"detections"}  # type: ignore[arg-type]


# ---- 6. the tests that need ../shared/realdata skip without it -------------------------------------

def test_realdata_tests_skip_cleanly_without_it(tmp_path: Path) -> None:
    nodes = ["tests/test_tensor.py::test_tensor_hash_is_cached_per_object_and_never_pickled",
             "tests/test_tidlrt_runtime.py::test_session_runs_on_tidlrt_and_auto_says_which",
             "tests/test_tidlrt_runtime.py::test_older_library_without_shared_memory_degrades"]
    env = {**os.environ, "TIDL_IO_TEST_REALDATA": str(tmp_path / "absent")}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", *nodes],
                          check=False, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "failed" not in proc.stdout and "error" not in proc.stdout.lower().replace("errors", "")
    assert proc.stdout.count("realdata not present") >= 1, proc.stdout[-2000:]
