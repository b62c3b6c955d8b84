"""Wrong arguments at every public entry point: a library error that names the argument
and what it expected, never a raw AttributeError or TypeError from deep inside.

The Hypothesis test below feeds every public callable of ``tidl_io.__all__`` values of the
wrong kind, one argument at a time, the others valid. Adding a public function without
listing it here (covered or excluded with a reason) fails ``test_every_public_name_is_listed``.
"""

from __future__ import annotations

import atexit
import os
import shutil
import struct
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tidl_io
from tidl_io.base.check import as_array, check_flag, check_layout, layout_name, open_regular, require_folder
from tidl_io.base.errors import ArgumentTypeError, PathError, PathIsFolderError, PathNotFoundError
from tidl_io.emulator._fixture import tiny_net

from conftest import EXAMPLES, FIXTURES

DESC = tidl_io.load(EXAMPLES / "detector_tidl_io_1.bin")
T_IN, T_OUT = DESC.input(0), DESC.output(0)
BUF_IN = tidl_io.alloc_input(DESC, 0)
BUF_OUT = tidl_io.alloc_output(DESC, 0)
X = np.zeros(T_IN.squeezed_shape, np.float32)
NET = tidl_io.load_net(EXAMPLES / "detector_tidl_net.bin")
TINY_NET = tiny_net(0)[0]  # a synthetic 9.0 net the emulator runs
TRACES = Path(tempfile.mkdtemp(prefix="tidl-io-check-"))  # one trace of the example net's layer 2 (1x16x48x80 uint8)
(TRACES / "tidl_trace_subgraph_0_0002_0001_0001_00001_00016_000080x00048.y").write_bytes(bytes(16 * 48 * 80))
CALIBRATION = Path(tempfile.mkdtemp(prefix="tidl-io-check-"))  # the example io file and one calibration frame
(CALIBRATION / "detector_tidl_io_1.bin").write_bytes((EXAMPLES / "detector_tidl_io_1.bin").read_bytes())
(CALIBRATION / "detector_calib_raw_data.bin").write_bytes(bytes(3 * 96 * 160 * 4))
(CALIBRATION / "detector_tidl_io__stats_tool_out.bin").write_bytes(bytes(145 * 4))
for _folder in (TRACES, CALIBRATION):
    atexit.register(shutil.rmtree, _folder, True)
SESSION = tidl_io.Session(EXAMPLES, runtime="mock")  # mock only: nothing to release
MOCK = tidl_io.MockC7xRuntime(DESC)
MOCK_IN, MOCK_OUT = tidl_io.alloc_inputs(DESC), tidl_io.alloc_outputs(DESC)
_OD_HEADER = struct.pack("<4fi", 0, 28, 0, 20, 1)  # numDetObjects, objInfoSize, keypoints, offset, 2-D boxes


class _Opaque:
    """Some object of no kind tidl_io knows."""


# ---- wrong values per kind of argument ------------------------------------------------------

_ANYTHING = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=True), st.text(max_size=4),
    st.binary(max_size=4), st.lists(st.integers(0, 3), max_size=3),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2), st.frozensets(st.integers(), max_size=2),
    st.just(_Opaque()), st.just(DESC), st.just(T_IN), st.just(Path("x_tidl_io_1.bin")),
)
_NOT_ARRAY = st.one_of(  # what no array argument may be (numbers and lists of numbers are arrays)
    st.none(), st.text(max_size=4), st.binary(max_size=4), st.dictionaries(st.text(max_size=2), st.integers(),
                                                                           max_size=2),
    st.frozensets(st.integers(), max_size=2), st.just(_Opaque()), st.just(DESC), st.just(T_IN),
    st.just([[1.0], [1.0, 2.0]]),  # ragged
)

_NOT_BUFFER = st.one_of(  # what no buffer argument may be (bytes-like objects and arrays are buffers)
    st.text(max_size=4), st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
    st.frozensets(st.integers(), max_size=2), st.just(_Opaque()), st.just(DESC), st.just(T_IN),
)

WRONG: dict[str, Any] = {
    "buffer": st.one_of(st.none(), _NOT_BUFFER),
    "out": _NOT_BUFFER,  # None is valid: allocate
    "descriptor": _ANYTHING.filter(lambda v: not isinstance(v, tidl_io.Descriptor)),
    "tensor": _ANYTHING.filter(lambda v: not isinstance(v, tidl_io.Tensor)),
    "path": _ANYTHING.filter(lambda v: not isinstance(v, (str, os.PathLike))),
    "array": _NOT_ARRAY,
    "flag": _ANYTHING.filter(lambda v: not isinstance(v, bool)),
    "flag_or_none": _ANYTHING.filter(lambda v: v is not None and not isinstance(v, bool)),
    "layout": _ANYTHING.filter(lambda v: layout_name(v) is None),
    "layout_or_none": _ANYTHING.filter(lambda v: v is not None and layout_name(v) is None),
    "rounding": _ANYTHING.filter(lambda v: v not in ("trunc", "nearest")),
    "nan": _ANYTHING.filter(lambda v: v not in ("error", "zero")),
    "mode": _ANYTHING.filter(lambda v: v not in ("darknet", "dcr", "crd")),
    "axes": st.one_of(st.none(), st.floats(), st.integers(), st.just(_Opaque()), st.just(DESC),
                      st.text(min_size=1, max_size=3)),
    "key": _ANYTHING.filter(lambda v: isinstance(v, (bool, float, bytes, list, dict, frozenset, type(None),
                                                     _Opaque, tidl_io.Descriptor, tidl_io.Tensor, Path))),
    "bytes_count": st.one_of(st.text(min_size=1, max_size=3), st.just(_Opaque()), st.lists(st.integers(),
                                                                                           max_size=2)),
    "stride": _ANYTHING.filter(lambda v: isinstance(v, (type(None), float, str, bytes, list, dict, frozenset,
                                                        _Opaque, tidl_io.Descriptor, tidl_io.Tensor, Path))),
    "str": _ANYTHING.filter(lambda v: not isinstance(v, str)),
    "family": _ANYTHING.filter(lambda v: not isinstance(v, str)),
    "cores": _ANYTHING.filter(lambda v: not isinstance(v, int) or isinstance(v, bool)),
    "specs": st.one_of(st.none(), st.integers(), st.just(_Opaque()), st.just([1, 2]), st.just(DESC),
                       st.text(min_size=1, max_size=3), st.dictionaries(st.text(max_size=2), st.integers(),
                                                                         min_size=1, max_size=2)),
    "mapping": st.one_of(st.integers(), st.just(_Opaque()), st.just([1]), st.text(min_size=1, max_size=3)),
    "outputs": _ANYTHING.filter(lambda v: not isinstance(v, dict)),
    "formatter": st.one_of(st.integers(), st.just(_Opaque()), st.text(min_size=1, max_size=3), st.just([1])),
    "params": st.one_of(st.integers(), st.floats(), st.just(_Opaque()), st.just([1]), st.just(DESC)),
    "net": _ANYTHING.filter(lambda v: v is not None and not isinstance(v, (str, os.PathLike, bytes))),
    "network": _ANYTHING.filter(lambda v: not isinstance(v, tidl_io.Network)),
    "int_or_none": _ANYTHING.filter(lambda v: v is not None and (not isinstance(v, int) or isinstance(v, bool))),
    "str_or_none": _ANYTHING.filter(lambda v: v is not None and not isinstance(v, str)),
    "model": _ANYTHING.filter(lambda v: v is not None and not callable(v) and not isinstance(v, (str, dict))),
    "input_pads": _ANYTHING.filter(lambda v: not isinstance(v, str) or v not in ("error", "warn", "off")),
    "runtime": _ANYTHING.filter(lambda v: not callable(v) and (not isinstance(v, str)
                                                               or v not in ("auto", "tidlrt", "mock"))),
    "number": st.one_of(st.none(), st.booleans(), st.text(max_size=3), st.just(_Opaque()), st.just(DESC),
                        st.lists(st.integers(), max_size=2)),
    "feeds": st.one_of(st.none(), st.text(max_size=3), st.just(_Opaque()), st.just(DESC), st.just(T_IN),
                       st.frozensets(st.integers(), max_size=2)),
    "golden": _ANYTHING.filter(lambda v: not isinstance(v, (str, os.PathLike, dict))),
    "golden_or_none": _ANYTHING.filter(lambda v: v is not None and not isinstance(v, (str, os.PathLike, dict))),
    "path_or_none": _ANYTHING.filter(lambda v: v is not None and not isinstance(v, (str, os.PathLike))),
    "subgraph": _ANYTHING.filter(lambda v: v is not None and not isinstance(v, str)
                                 and (not isinstance(v, int) or isinstance(v, bool))),
    "inputs": _ANYTHING.filter(lambda v: not (isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v))),
    "golden_layout": _ANYTHING.filter(lambda v: v is not None and not (isinstance(v, str)
                                                                       and v.upper() in ("NCHW", "NHWC"))),
    "db": st.one_of(st.none(), st.booleans(), st.text(max_size=3), st.just(_Opaque()), st.just(DESC),
                    st.lists(st.integers(), max_size=2)),
    "tensors": st.one_of(st.none(), st.integers(), st.floats(), st.text(min_size=1, max_size=3), st.just(_Opaque()),
                         st.just(DESC), st.just([np.zeros(3)])),
}

# name -> (callable, valid arguments by name, {argument: (kind, words one of which the message must hold)})
# Arguments are passed by keyword, so the table also pins the public parameter names.
# a compare report of the example net's layers (what `tidl-io compare --json` gives), for advise
EXAMPLE_COMPARE = {"schema_version": 1, "layers": [
    {"index": la.index, "data_id": la.data_id, "name": la.name, "type": la.type, "status": "compared",
     "snr_db": 30.0, "identical": False, "mean_abs": 0.01}
    for la in tidl_io.load_net(EXAMPLES / "detector_tidl_net.bin").layers if la.data_id is not None]}

CASES: dict[str, tuple[Any, dict[str, Any], dict[str, tuple[str, tuple[str, ...]]]]] = {
    "alloc_input": (tidl_io.alloc_input, {"desc": DESC, "key": 0},
                    {"desc": ("descriptor", ("desc",)), "key": ("key", ("key",)),
                     "max_bytes": ("bytes_count", ("max_bytes",))}),
    "alloc_output": (tidl_io.alloc_output, {"desc": DESC, "key": 0},
                     {"desc": ("descriptor", ("desc",)), "key": ("key", ("key",))}),
    "alloc_inputs": (tidl_io.alloc_inputs, {"desc": DESC}, {"desc": ("descriptor", ("desc",))}),
    "alloc_outputs": (tidl_io.alloc_outputs, {"desc": DESC}, {"desc": ("descriptor", ("desc",))}),
    "as_buffer": (tidl_io.as_buffer, {"tensor": T_IN, "memory": BUF_IN},
                  {"tensor": ("tensor", ("tensor",)), "memory": ("buffer", ("memory",)),
                   "offset": ("bytes_count", ("offset",)), "align": ("bytes_count", ("align",))}),
    "build": (tidl_io.build, {"desc": DESC}, {"desc": ("descriptor", ("desc",))}),
    "check_padding": (tidl_io.check_padding, {"tensor": T_IN, "buf": BUF_IN},
                      {"tensor": ("tensor", ("tensor",)), "buf": ("buffer", ("buf",))}),
    "dequantize": (tidl_io.dequantize, {"tensor": T_OUT, "q": np.zeros(3, T_OUT.dtype)},
                   {"tensor": ("tensor", ("tensor",)), "q": ("array", ("q",)),
                    "max_bytes": ("bytes_count", ("max_bytes",))}),
    "compare_traces": (tidl_io.compare_traces, {"traces": TRACES, "artifacts": EXAMPLES, "ref": TRACES},
                       {"traces": ("path", ("traces",)), "artifacts": ("path", ("artifacts",)),
                        "golden": ("golden_or_none", ("golden",)), "ref": ("path_or_none", ("ref",)),
                        "inputs": ("inputs", ("inputs",)), "params": ("path_or_none", ("params",)),
                        "golden_layout": ("golden_layout", ("golden_layout",)), "subgraph": ("subgraph", ("subgraph",)),
                        "core": ("int_or_none", ("core",)), "min_snr_db": ("db", ("min_snr_db",)),
                        "histograms": ("flag", ("histograms",))}),
    "compare_calibration": (tidl_io.compare_calibration,
                            {"artifacts": CALIBRATION, "golden": {DESC.output(0).name: np.zeros((1, 1, 1, 1, 145))}},
                            {"artifacts": ("path", ("artifacts",)), "golden": ("golden", ("golden",)),
                             "subgraph": ("subgraph", ("subgraph",)),
                             "golden_layout": ("golden_layout", ("golden_layout",)),
                             "min_snr_db": ("db", ("min_snr_db",)), "histograms": ("flag", ("histograms",))}),
    "diagnose": (tidl_io.diagnose, {"path": EXAMPLES, "check_library": False},
                 {"path": ("path", ("path",)), "check_library": ("flag", ("check_library",))}),
    "emulate": (tidl_io.emulate, {"net": TINY_NET, "inputs": np.zeros((2, 8, 12), np.float32)},
                {"net": ("net", ("net",))}),
    "find_io_files": (tidl_io.find_io_files, {"folder": EXAMPLES}, {"folder": ("path", ("folder",))}),
    "get_input_details": (tidl_io.get_input_details, {"desc": DESC}, {"desc": ("descriptor", ("desc",))}),
    "get_output_details": (tidl_io.get_output_details, {"desc": DESC}, {"desc": ("descriptor", ("desc",))}),
    "load": (tidl_io.load, {"path": EXAMPLES / "detector_tidl_io_1.bin"}, {"path": ("path", ("path",))}),
    "load_traces": (tidl_io.load_traces, {"path": TRACES, "net": NET},
                    {"path": ("path", ("path",)), "net": ("network", ("net",)), "subgraph": ("int_or_none", ("subgraph",)),
                     "core": ("int_or_none", ("core",)), "strict": ("flag", ("strict",))}),
    "load_calibration": (tidl_io.load_calibration, {"path": CALIBRATION},
                         {"path": ("path", ("path",)), "subgraph": ("str_or_none", ("subgraph",))}),
    "load_net": (tidl_io.load_net, {"path": EXAMPLES / "detector_tidl_net.bin"}, {"path": ("path", ("path",))}),
    "advise": (tidl_io.advise, {"artifacts": EXAMPLES, "compare": EXAMPLE_COMPARE, "perf": False},
               {"artifacts": ("path", ("artifacts",))}),
    "load_perf": (tidl_io.load_perf, {"path": EXAMPLES}, {"path": ("path", ("path",))}),
    "report": (tidl_io.report, {"path": EXAMPLES, "check_library": False},
               {"path": ("path", ("path",)), "check_library": ("flag", ("check_library",))}),
    "load_quant": (tidl_io.load_quant, {"path": FIXTURES / "quant" / "model"}, {"path": ("path", ("path",))}),
    "load_quant_params": (tidl_io.load_quant_params, {"path": FIXTURES / "quant" / "model" / "model_qparams.prototxt"},
                          {"path": ("path", ("path",))}),
    "load_support": (tidl_io.load_support, {"path": FIXTURES / "why"}, {"path": ("path", ("path",))}),
    "make_descriptor": (tidl_io.make_descriptor, {"family": "10.x"},
                        {"family": ("family", ("family",)), "cores": ("cores", ("cores",)),
                         "inputs": ("specs", ("inputs",)), "outputs": ("specs", ("outputs",)),
                         "header": ("mapping", ("header",)), "subgraphs": ("specs", ("subgraphs",)),
                         "source": ("str", ("source",))}),
    "pack": (tidl_io.pack, {"tensor": T_IN, "x": X},
             {"tensor": ("tensor", ("tensor",)), "x": ("array", ("x", "data")), "out": ("out", ("out",)),
              "layout": ("layout", ("layout",)), "rounding": ("rounding", ("rounding",)),
              "nan": ("nan", ("nan",)), "max_bytes": ("bytes_count", ("max_bytes",))}),
    "parse": (tidl_io.parse, {"data": (EXAMPLES / "detector_tidl_io_1.bin").read_bytes()},
              {"data": ("buffer", ("bytes",)), "source": ("str", ("source",))}),
    "parse_net": (tidl_io.parse_net, {"data": (EXAMPLES / "detector_tidl_net.bin").read_bytes()},
                  {"data": ("buffer", ("bytes",)), "source": ("str", ("source",))}),
    "parse_od": (tidl_io.parse_od, {"data": np.frombuffer(_OD_HEADER, np.float32)},  # no objects
                 {"data": ("buffer", ("data",))}),
    "permute": (tidl_io.permute, {"x": np.zeros((2, 3)), "perm": (1, 0)},
                {"x": ("array", ("x",)), "perm": ("axes", ("perm",)), "out": ("out", ("out",)),
                 "inplace": ("flag", ("inplace",))}),
    "plan_permute": (tidl_io.plan_permute, {"shape": (2, 3), "perm": (1, 0), "itemsize": 4},
                     {"shape": ("axes", ("shape",)), "perm": ("axes", ("perm",)),
                      "itemsize": ("stride", ("itemsize",))}),
    "quantize": (tidl_io.quantize, {"tensor": T_IN, "x": X},
                 {"tensor": ("tensor", ("tensor",)), "x": ("array", ("x",)), "rounding": ("rounding", ("rounding",)),
                  "nan": ("nan", ("nan",)), "out": ("out", ("out",))}),
    "reorg": (tidl_io.reorg, {"x": np.zeros((1, 4, 2, 2)), "stride": 2},
              {"x": ("array", ("x",)), "stride": ("stride", ("stride",)), "mode": ("mode", ("mode",)),
               "out": ("out", ("out",))}),
    "reorg_inverse": (tidl_io.reorg_inverse, {"y": np.zeros((1, 16, 2, 2)), "stride": 2},
                      {"y": ("array", ("y",)), "stride": ("stride", ("stride",)), "mode": ("mode", ("mode",))}),
    "rows_from_outputs": (tidl_io.rows_from_outputs, {"outputs": {"dets": np.zeros((0, 5), np.float32),
                                                                 "labels": np.zeros(0, np.float32)}},
                          {"outputs": ("outputs", ("outputs",)), "formatter": ("formatter", ("formatter",))}),
    "unpack": (tidl_io.unpack, {"tensor": T_OUT, "buf": BUF_OUT},
               {"tensor": ("tensor", ("tensor",)), "buf": ("buffer", ("buf",)),
                "dequantize": ("flag", ("dequantize",)), "squeeze": ("flag", ("squeeze",)),
                "layout": ("layout", ("layout",)), "out": ("out", ("out",)),
                "max_bytes": ("bytes_count", ("max_bytes",))}),
    "validate": (tidl_io.validate, {"desc": DESC}, {"desc": ("descriptor", ("desc",))}),
    "view": (tidl_io.view, {"tensor": T_IN, "buf": BUF_IN},
             {"tensor": ("tensor", ("tensor",)), "buf": ("buffer", ("buf",))}),
    # classes that are entry points
    "Session": (tidl_io.Session, {"path": EXAMPLES, "runtime": "mock"},
                {"path": ("path", ("path",)), "params": ("params", ("params",)),
                 "normalize": ("flag_or_none", ("normalize",)),
                 "reverse_channels": ("flag_or_none", ("reverse_channels",)),
                 "runtime": ("runtime", ("runtime",)), "model": ("model", ("model",)),
                 "input_pads": ("input_pads", ("input_pads",))}),
    "MockC7xRuntime": (tidl_io.MockC7xRuntime, {"desc": DESC},
                       {"desc": ("descriptor", ("desc",)), "net": ("net", ("net",)), "model": ("model", ("model",)),
                        "input_pads": ("input_pads", ("input_pads",)), "poison": ("flag", ("poison",))}),
    "RtTensor": (tidl_io.RtTensor.from_array, {"name": "x", "array": np.zeros((1, 3, 4, 4), np.float32)},
                 {"name": ("str", ("name",)), "array": ("array", ("array",)), "layout": ("layout", ("layout",)),
                  "scale": ("number", ("scale",)), "zero_point": ("cores", ("zero_point",))}),
    # public methods users call with their own arguments
    "Descriptor.input": (DESC.input, {"key": 0}, {"key": ("key", ("key",))}),
    "Descriptor.output": (DESC.output, {"key": 0}, {"key": ("key", ("key",))}),
    "Session.run": (SESSION.run, {"feeds": {"images": X}},
                    {"feeds": ("feeds", ("feeds", "images")), "layout": ("layout_or_none", ("layout",)),
                     "codes": ("flag", ("codes",)), "preprocessed": ("flag", ("preprocessed",))}),
    "Session.buffers": (SESSION.buffers, {"subgraph": 0}, {"subgraph": ("key", ("subgraph",))}),
    "MockC7xRuntime.invoke": (MOCK.invoke, {"inputs": MOCK_IN, "outputs": MOCK_OUT},
                              {"inputs": ("tensors", ("inputs",)), "outputs": ("tensors", ("outputs",))}),
    "MockC7xRuntime.alloc_shared": (MOCK.alloc_shared, {"size": 64},
                                    {"size": ("bytes_count", ("size",)), "alignment": ("bytes_count", ("alignment",))}),
    "MockC7xRuntime.free_shared": (MOCK.free_shared, {"buf": MOCK.alloc_shared(8)}, {"buf": ("buffer", ("buf",))}),
}

# The function a message must begin with, where it is not the table's name.
LABEL = {"RtTensor": "RtTensor.from_array", "Descriptor.input": "input", "Descriptor.output": "output",
         "MockC7xRuntime.invoke": "invoke", "MockC7xRuntime.alloc_shared": "alloc_shared"}

# Kinds whose argument is a name among a few: a string that is none of them is a value the option does not
# take (an OptionError, a ValueError); any other kind of value is an ArgumentTypeError.
CHOICES = {"layout", "layout_or_none", "rounding", "nan", "mode", "input_pads", "runtime", "golden_layout"}

# Not fed wrong arguments here, and why.
EXCLUDED = {
    "RtTensor.__init__": "the raw sTIDLRT_Tensor_t record; users build it with from_array / for_tensor (covered)",
    "Runtime": "a Protocol (typing), not called",
    "InvokeReport": "a NamedTuple the runtime returns, not built by users",
    "TidlRtRuntime": "wrong kinds checked in test_tidlrt_runtime_wrong_kinds below (needs no library)",
    "native_info": "takes no arguments",
    # values, not entry points
    "Descriptor": "built by parse/load/make_descriptor",
    "Tensor": "built by Descriptor",
    "Network": "built by load_net/parse_net",
    "Layer": "built by Network",
    "ElementType": "an IntEnum",
    "TensorLayout": "an IntEnum",
    "Finding": "a record validate returns",
    "PermutePlan": "a record plan_permute returns",
    "PaddingReport": "a record check_padding returns",
    "Diagnosis": "a record diagnose returns",
    "SupportReport": "the report load_support returns",
    "Performance": "the report load_perf returns",
    "Advice": "the report advise returns",
    "QuantReport": "the report load_quant returns",
    "QuantParams": "built by load_quant_params",
    "Emulation": "the result emulate returns",
    "EmulationCheck": "the report check_emulation returns",
    "check_emulation": "needs TI's dumps with a net; its wrong kinds are checked in tests/test_trace_emucheck.py",
    "CompareReport": "the report compare_traces / compare_calibration return",
    "ModelReport": "the report report returns",
}


def test_every_public_name_is_listed() -> None:
    errors = {n for n in tidl_io.__all__ if isinstance(getattr(tidl_io, n), type)
              and issubclass(getattr(tidl_io, n), BaseException)}
    listed = set(CASES) | {name.split(".")[0] for name in EXCLUDED}
    missing = sorted(set(tidl_io.__all__) - errors - listed)
    assert not missing, f"public names neither fed wrong arguments nor excluded with a reason: {missing}"


def _call(name: str, arg: str, value: Any) -> None:
    fn, valid, _ = CASES[name]
    kwargs = {**valid, arg: value}
    if name == "Session":
        with fn(**kwargs):
            pass
    else:
        fn(**kwargs)


def test_the_valid_calls_work() -> None:
    """The table's valid arguments are valid: each error below comes from the one wrong argument."""
    for name, (fn, valid, _) in CASES.items():
        if name == "MockC7xRuntime.free_shared":
            continue  # frees its block: fed wrong kinds only (a second free is a BufferMismatchError)
        if name == "Session":
            with fn(**valid):
                pass
        else:
            fn(**valid)


_PAIRS = [(name, arg) for name, (_, _, args) in CASES.items() for arg in args]


@settings(max_examples=600, deadline=None)
@given(data=st.data())
def test_wrong_kinds_get_a_library_error_naming_the_argument(data: Any) -> None:
    """Errors by kind: a wrong kind of value is an ArgumentTypeError whose message begins with
    the function and names the argument, what was expected and what was found; a string an
    option of a few names does not take is an OptionError naming the option."""
    name, arg = data.draw(st.sampled_from(_PAIRS), label="function, argument")
    kind, words = CASES[name][2][arg]
    value = data.draw(WRONG[kind], label="value")
    option_value = kind in CHOICES and isinstance(value, str)
    expected = tidl_io.OptionError if option_value else ArgumentTypeError
    with pytest.raises(tidl_io.TidlIoError) as err:
        _call(name, arg, value)
    message = str(err.value)
    assert type(err.value) is expected, (name, arg, value, type(err.value).__name__, message)
    assert any(w in message for w in words), (name, arg, value, message)
    assert message.startswith(LABEL.get(name, name)), (name, arg, value, message)
    if option_value:
        assert f"{arg} must be " in message and f"found {value!r}" in message, (name, arg, value, message)
    else:
        assert "expected" in message and "found" in message, (name, arg, value, message)
    assert "Traceback" not in message


# ---- the examples of the issue, with their exact messages -------------------------------------

@pytest.mark.parametrize("call,error,message", [
    (lambda: tidl_io.pack(DESC, X), ArgumentTypeError,
     ("pack: tensor: expected a tidl_io.Tensor (desc.input(i) or desc.output(i)), found Descriptor; pick one of "
     "its tensors, e.g. desc.input(0) or desc.output(0)")),
    (lambda: tidl_io.pack("images", X), ArgumentTypeError,
     ("pack: tensor: expected a tidl_io.Tensor (desc.input(i) or desc.output(i)), found str 'images'; for the "
     "tensor named 'images' pass desc.input('images') or desc.output('images')")),
    (lambda: tidl_io.validate("file.bin"), ArgumentTypeError,
     ("validate: desc: expected a tidl_io.Descriptor (tidl_io.load(path) or tidl_io.parse(data)), found str "
     "'file.bin'; to read a file use tidl_io.load(path)")),
    (lambda: tidl_io.build(None), ArgumentTypeError, "build: desc: expected a tidl_io.Descriptor"),
    (lambda: tidl_io.alloc_input(T_IN, 0), ArgumentTypeError,
     ("alloc_input: desc: expected a tidl_io.Descriptor (tidl_io.load(path) or tidl_io.parse(data)), found "
     "Tensor; this is one tensor: pass the Descriptor it belongs to")),
    (lambda: tidl_io.get_input_details(T_IN), ArgumentTypeError, ("get_input_details: desc: expected a "
                                                                 "tidl_io.Descriptor")),
    (lambda: tidl_io.permute(np.zeros((2, 3)), None), ArgumentTypeError,
     "permute: perm: expected a sequence of integers (axes), found None"),
    (lambda: DESC.input(1.5), ArgumentTypeError, ("input: key: expected an input index (int) or name (str), "
                                                 "found float 1.5")),
    (lambda: tidl_io.unpack(T_OUT, BUF_OUT, squeeze="no"), ArgumentTypeError,
     "unpack: squeeze: expected True or False, found str 'no'"),
    (lambda: tidl_io.load(b"\x00" * 8), ArgumentTypeError, ("load: path: expected a path (str or os.PathLike), "
                                                           "found bytes")),
])
def test_the_issue_examples(call: Any, error: type, message: str) -> None:
    with pytest.raises(error) as err:
        call()
    assert str(err.value).startswith(message), str(err.value)
    assert isinstance(err.value, TypeError) and isinstance(err.value, tidl_io.TidlIoError)


# ---- helpers ---------------------------------------------------------------------------------

def test_flags_take_bools_only() -> None:
    assert check_flag(True, "f", "a") is True and check_flag(np.bool_(False), "f", "a") is False
    for value in (1, 0, "yes", None, 1.0):
        with pytest.raises(ArgumentTypeError, match=r"^f: a: expected True or False, found"):
            check_flag(value, "f", "a")


def test_as_array_keeps_arrays_and_refuses_what_is_not_one() -> None:
    a = np.zeros(3)
    assert as_array(a, "f", "x") is a
    assert as_array([[1, 2], [3, 4]], "f", "x").shape == (2, 2)
    assert as_array([object()], "f", "x").dtype == object  # a list of objects is an object array, as asked
    for value in (None, "abc", b"ab", {"a": 1}, {1, 2}, object()):
        with pytest.raises(ArgumentTypeError, match=r"^f: x: expected an array"):
            as_array(value, "f", "x")
    with pytest.raises(ArgumentTypeError, match=r"^f: x: expected an array .*found list \(.*inhomogeneous"):
        as_array([[1], [1, 2]], "f", "x")


@pytest.mark.parametrize("given,canonical", [("nhwc", "NHWC"), ("Hwc", "HWC"), ("chw", "CHW"), ("NCHW", "NCHW")])
def test_layout_names_in_any_case(given: str, canonical: str) -> None:
    assert layout_name(given) == canonical and check_layout(given, "w") == canonical


def test_layout_errors() -> None:
    with pytest.raises(tidl_io.OptionError, match=r"^w: layout must be one of 'NCHW', 'NHWC' \(any case\), "
                                                          r"found 'hwc'"):
        check_layout("hwc", "w", ("NCHW", "NHWC"))
    with pytest.raises(ArgumentTypeError, match=r"^w: layout: expected one of .*found int 3"):
        check_layout(3, "w")
    assert layout_name(None) is None and layout_name("nchw ") is None


def test_open_regular_refuses_missing_folders_and_fifos(tmp_path: Path) -> None:
    with pytest.raises(PathNotFoundError) as missing:
        open_regular(str(tmp_path / "nope"), "a thing")
    assert isinstance(missing.value, FileNotFoundError) and missing.value.filename == str(tmp_path / "nope")
    assert str(missing.value) == f"{tmp_path / 'nope'}: no such file; expected a thing"
    with pytest.raises(PathIsFolderError) as folder:
        open_regular(str(tmp_path), "a thing")
    assert isinstance(folder.value, IsADirectoryError) and str(folder.value).endswith("is a folder; expected a thing")
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        with pytest.raises(PathError, match=r"pipe: is a FIFO \(named pipe\), not a regular file; expected a thing$"):
            open_regular(str(fifo), "a thing")  # returns at once: no writer is waited for
    with open_regular(str(EXAMPLES / "detector_tidl_io_1.bin"), "x") as fh:
        assert fh.read(4) == (EXAMPLES / "detector_tidl_io_1.bin").read_bytes()[:4]


def test_path_errors_pickle_with_their_message() -> None:
    import pickle

    e = PathNotFoundError("a.bin", "no such file", 2)
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is PathNotFoundError and str(back) == "a.bin: no such file" and back.errno == 2


def test_missing_file_error_is_a_deprecated_name_of_path_not_found() -> None:
    import pickle

    from tidl_io.base import errors as _errors

    assert _errors.MissingFileError is PathNotFoundError is tidl_io.PathNotFoundError
    with pytest.warns(DeprecationWarning, match=r"^tidl_io.MissingFileError is deprecated: it is the same class as "
                                                r"tidl_io.PathNotFoundError"):
        from tidl_io import MissingFileError
    assert MissingFileError is PathNotFoundError and "MissingFileError" not in tidl_io.__all__
    e = PathNotFoundError("net.bin", "no such file; expected a net", 2)
    assert isinstance(e, MissingFileError) and isinstance(pickle.loads(pickle.dumps(e)), MissingFileError)


def test_tidlrt_runtime_wrong_kinds() -> None:
    desc = DESC
    for bad in (None, "file.bin", 3):
        with pytest.raises(ArgumentTypeError, match=r"^TidlRtRuntime: desc: expected a tidl_io.Descriptor"):
            tidl_io.TidlRtRuntime(bad, b"1234")  # type: ignore[arg-type]
    # checked before any library is looked for: this one does not exist
    nolib = {"library": "no/such/libvx_tidl_rt.so"}
    for kwargs, message in (
            ({"net": 3}, "net: expected a path (str or os.PathLike), found int 3; or the network's bytes"),
            ({"version": 8.6}, ("version: expected a TIDL release such as '08.06' or a layout family such as "
                               "'T6P-d' (str), or None, found float 8.6")),
            ({"core_num": "2"}, "core_num: expected an integer, found str '2'"),
            ({"target_priority": 1.0}, "target_priority: expected an integer, found float 1.0"),
            ({"trace_log_level": True}, "trace_log_level: expected an integer, found True"),
            ({"max_pre_empt_delay": "soon"}, ("max_pre_empt_delay: expected milliseconds (a number), found str "
                                             "'soon'")),
            ({"trace_base_name": 3}, "trace_base_name: expected a path (str or os.PathLike), found int 3")):
        with pytest.raises(ArgumentTypeError) as err:
            tidl_io.TidlRtRuntime(desc, **{"net": b"1234", **nolib, **kwargs})  # type: ignore[arg-type]
        assert str(err.value) == f"TidlRtRuntime: {message}", kwargs
    with pytest.raises(tidl_io.ArgumentTypeError, match="library: expected a path to libvx_tidl_rt.so .* found int"):
        tidl_io.TidlRtRuntime(desc, b"1234", library=3)  # type: ignore[arg-type]


# ---- read_limited: bounded reads that allocate what the file holds -------------------------

class _Growing:
    """A file whose fstat size (``hint``) is smaller than what reads return (a file still
    being written, or a /proc file reporting 0), recording every read count."""

    def __init__(self, data: bytes, hint: int) -> None:
        import io

        self._buf = io.BytesIO(data)
        self._hint = hint
        self.asked: list[int] = []

    def fileno(self) -> int:
        raise OSError("no descriptor")  # read_limited falls back to a hint of 0

    def read(self, n: int) -> bytes:
        self.asked.append(n)
        return self._buf.read(n)


@pytest.mark.parametrize("size", [0, 1, 99, 100, 101, 5000])
def test_read_limited_returns_at_most_limit_plus_one_bytes(tmp_path: Path, size: int) -> None:
    from tidl_io.base.check import read_limited

    data = bytes(range(256)) * (size // 256 + 1)
    path = tmp_path / "f.bin"
    path.write_bytes(data[:size])
    with open(path, "rb") as fh:
        got = read_limited(fh, 100)
    assert got == data[:min(size, 101)]


def test_read_limited_reads_on_past_a_wrong_size_hint() -> None:
    from tidl_io.base.check import read_limited

    data = b"x" * 3_000_000
    fh = _Growing(data, hint=0)
    assert read_limited(fh, 2_500_000) == data[:2_500_001]  # type: ignore[arg-type]
    assert max(fh.asked) <= 1 << 20  # never one read of the whole limit


def test_load_allocates_about_the_file_not_the_limit() -> None:
    # descriptor.load used to call fh.read(<the largest layout x 1025>): ~388 MB allocated
    # (and freed) per load. tracemalloc sees every bytes object.
    import tracemalloc

    from tidl_io import load

    path = EXAMPLES / "detector_tidl_io_1.bin"
    tracemalloc.start()
    try:
        load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * path.stat().st_size + (1 << 20), peak


def test_read_limited_allocates_the_file_not_the_limit(tmp_path: Path) -> None:
    import tracemalloc

    from tidl_io.base.check import read_limited

    path = tmp_path / "names.txt"
    path.write_bytes(b"0 1 conv\n" * 2000)  # 18 KB under a 64 MB limit
    with open(path, "rb") as fh:
        tracemalloc.start()
        try:
            data = read_limited(fh, 64 << 20)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert data == path.read_bytes()
    assert peak < 4 * len(data), peak  # no read of the limit, nor of a 1 MiB chunk at the end


def test_require_folder_says_what_is_there(tmp_path: Path) -> None:
    require_folder(tmp_path, "a folder")  # a folder: nothing to say
    with pytest.raises(PathNotFoundError) as err:
        require_folder(tmp_path / "gone", "a model folder")
    assert str(err.value) == f"{tmp_path / 'gone'}: no such file or folder; expected a model folder"
    (tmp_path / "f.yaml").write_text("x")
    with pytest.raises(PathError) as err2:
        require_folder(tmp_path / "f.yaml", "a model folder")
    assert str(err2.value) == f"{tmp_path / 'f.yaml'}: is a file, not a folder; expected a model folder"
    assert not isinstance(err2.value, PathNotFoundError)
