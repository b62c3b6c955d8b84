"""Which layer loses accuracy (tidl_io.trace.compare): traces written by this test from a golden
run of the real Zero-DCE model, quantized with the net's own scales, one channel of one layer
spoiled; the calibration dumps of EAST 9.0; a second trace set; orientation by shape."""

from __future__ import annotations

import io
import json
import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tidl_io
from tidl_io.cli.app import main
from tidl_io.trace.compare import compare_traces, orient, traces_lookup

from conftest import EAST, REALDATA, ZERO_DCE

SPOILED = 9  # dataId (= layer index) of 'zero_dce_1/functional_1/conv2d_4_1/...': a 32-channel convolution
TRACED = (0, 1, 2, 3, 4, 5, 6, 7, SPOILED, 11, 13, 14, 15, 16)


def _name(layer: Any) -> str:
    n, c, h, w = layer.shape
    return f"tidl_trace_subgraph_0_{layer.data_id:04d}_{n:04d}_0001_00001_{c:05d}_{w:06d}x{h:05d}.y"


def _quantize(x: np.ndarray, layer: Any) -> np.ndarray:
    if layer.dtype.kind == "f":
        return x.astype(layer.dtype)
    info = np.iinfo(layer.dtype)
    return np.clip(np.round(x.astype(np.float64) * layer.scale) + layer.zero_point, info.min, info.max
                   ).astype(layer.dtype)


def _expected(ref: np.ndarray, codes: np.ndarray, layer: Any) -> dict[str, Any]:
    """The metrics, from the formulas of the issue, in float64 NumPy."""
    test = codes.astype(np.float64) if codes.dtype.kind == "f" else \
        (codes.astype(np.float32) - np.float32(layer.zero_point)) / np.float32(layer.scale)
    r, t = ref.astype(np.float64), test.astype(np.float64)
    d = r - t
    rr, dd = np.sum(r ** 2, axis=(0, 2, 3)), np.sum(d ** 2, axis=(0, 2, 3))
    with np.errstate(divide="ignore", invalid="ignore"):  # no error at all is +inf dB, also for an all-zero channel
        per = np.where(dd == 0, np.inf, 10 * np.log10(rr / dd))
        snr = np.inf if not dd.any() else 10 * np.log10(np.sum(rr) / np.sum(dd))
    if codes.dtype.kind in "iu":
        info = np.iinfo(codes.dtype)
        sat = (np.sum(codes == info.max) + (np.sum(codes == info.min) if info.min < 0 else 0)) / codes.size
    else:
        sat = None
    return {"snr_db": snr, "channel_snr_db": per, "channel_max": np.max(np.abs(r), axis=(0, 2, 3)), "channel_energy": rr,
            "channel_max_error": np.max(np.abs(d), axis=(0, 2, 3)),
            "step": None if codes.dtype.kind == "f" else 1 / float(layer.scale), "worst_channel": int(np.argmin(per)),
            "worst_channel_snr_db": float(np.min(per)), "max_abs": np.max(np.abs(d)), "mean_abs": np.mean(np.abs(d)),
            "cosine": np.sum(r * t) / np.sqrt(np.sum(r ** 2) * np.sum(t ** 2)), "saturated": sat}


def _num(v: Any) -> float:
    return math.inf if v is None else float(v)  # JSON gives null for +inf (the rows say "identical")


def _counted(e: dict[str, Any], threshold: float) -> list[int]:
    """The channels that count against the threshold (issue 24 item 1): all but those under it whose
    reference stays below one step of the layer (max |ref| < 1 / scale), whose error stays within one
    step everywhere, or which hold under 1e-9 of the layer's energy."""
    total = float(np.sum(e["channel_energy"]))
    step = e["step"]
    return [k for k, snr in enumerate(e["channel_snr_db"])
            if snr >= threshold or not (step is not None and e["channel_max"][k] < step
                                        or step is not None and e["channel_max_error"][k] <= step
                                        or e["channel_energy"][k] < 1e-9 * total)]


@pytest.fixture(scope="module")
def zero_dce_case(golden_extra: None, realdata: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from tidl_io.trace.golden import run_golden, save_golden

    art = realdata / ZERO_DCE / "artifacts"
    net = tidl_io.load_net(art / "74_tidl_net.bin")
    tmp = tmp_path_factory.mktemp("zero_dce")
    x = (np.random.default_rng(17).random((1, 400, 600, 3)) * 0.1).astype(np.float32)  # a dark picture
    np.save(tmp / "x.npy", x)
    model = realdata / ZERO_DCE / "model" / "zero_dce_model.tflite"
    run = run_golden(model, {"serving_default_args_0:0": x})
    save_golden(tmp / "golden.npz", run)
    traces = tmp / "traces"
    traces.mkdir()
    expected = {}
    spoiled_channel = None
    for d in TRACED:
        layer = net.layer_by_data_id(d)
        # TFLite is NHWC; TIDL's own layer 1 (serving_default_args_0:0_netFormat) has no tensor in
        # the model: its trace (the input, converted) is written and must be listed as not compared
        ref = run.tensors[layer.name if d != 1 else "serving_default_args_0:0"].transpose(0, 3, 1, 2)
        codes = _quantize(ref, layer)
        if d == SPOILED:  # the channel with the most energy is set to the zero point: real 0
            spoiled_channel = int(np.argmax(np.sum(ref.astype(np.float64) ** 2, axis=(0, 2, 3))))
            codes[:, spoiled_channel] = layer.zero_point
        # a dense trace is the layer's buffer in its own order: (N, H, W, C) for an NHWC data layer
        (codes.transpose(0, 2, 3, 1) if layer.layout == "NHWC" else codes).tofile(traces / _name(layer))
        if d != 1:
            expected[d] = _expected(ref, codes, layer)
    return {"art": art, "net": net, "tmp": tmp, "traces": traces, "expected": expected, "model": model,
            "channel": spoiled_channel}


def _threshold(expected: dict[int, dict[str, Any]]) -> float:
    """Half a dB under the lowest (layer or channel) SNR of the layers before the spoiled one."""
    before = [min(e["snr_db"], e["worst_channel_snr_db"]) for d, e in expected.items() if d < SPOILED]
    return math.floor((min(before) - 0.5) * 10) / 10


def test_spoiled_channel_is_named(zero_dce_case: dict[str, Any]) -> None:
    c = zero_dce_case
    exp = c["expected"]
    threshold = _threshold(exp)
    assert exp[SPOILED]["channel_snr_db"][c["channel"]] == 0.0 < threshold  # zeroed: 0 dB exactly
    out, err = io.StringIO(), io.StringIO()
    html = c["tmp"] / "report.html"
    rc = main(["compare", str(c["traces"]), "--artifacts", str(c["art"]), "--golden", str(c["tmp"] / "golden.npz"),
               "--min-snr", str(threshold), "--json", "--html", str(html)], out=out, err=err)
    assert rc == 1, err.getvalue()
    doc = json.loads(out.getvalue())
    layer = c["net"].layer_by_data_id(SPOILED)
    assert doc["first_bad"] == {"index": SPOILED, "data_id": SPOILED, "name": layer.name}
    rows = {r["data_id"]: r for r in doc["layers"]}
    assert [r["data_id"] for r in doc["layers"]] == list(TRACED)  # execution order
    assert rows[SPOILED]["worst_channel"] == c["channel"] and rows[SPOILED]["worst_channel_snr_db"] == 0.0
    assert rows[1]["status"] == "no reference" and doc["unmatched"] == [
        {"index": 1, "data_id": 1, "name": "serving_default_args_0:0_netFormat", "status": "no reference",
         "note": "no reference: no golden tensor named 'serving_default_args_0:0_netFormat'"}]
    for d, e in exp.items():
        r = rows[d]
        assert r["status"] == "compared" and r["trace"] == "y"
        assert _num(r["snr_db"]) == pytest.approx(e["snr_db"], abs=2e-3), d
        assert np.allclose([_num(v) for v in r["channel_snr_db"]], e["channel_snr_db"], atol=2e-3), d
        if math.isfinite(e["worst_channel_snr_db"]):
            assert r["worst_channel"] == e["worst_channel"], d
        assert r["max_abs"] == pytest.approx(e["max_abs"], rel=1e-6, abs=1e-9), d
        assert r["mean_abs"] == pytest.approx(e["mean_abs"], rel=1e-5, abs=1e-9), d
        assert _num(r["cosine"]) == pytest.approx(e["cosine"], abs=1e-6), d
        assert r["saturated"] == (None if e["saturated"] is None else pytest.approx(e["saturated"]))
        assert r["identical_channels"] == [k for k, v in enumerate(e["channel_snr_db"]) if v == np.inf], d
        # issue 24 item 1: channels below one step do not make a layer bad (was: any channel under the threshold)
        counted = _counted(e, threshold)
        quiet = [k for k in range(len(e["channel_snr_db"])) if k not in counted]
        assert r["channels_below_one_step"] == quiet, d
        worst = min((e["channel_snr_db"][k] for k in counted), default=np.inf)
        assert r["below_min_snr"] == (min(e["snr_db"], worst) < threshold), d
    page = html.read_text()
    assert page.count("<svg") == 3 and f"channel {c['channel']}" in page and "first bad layer" in page


def test_golden_model_in_memory_gives_the_same(zero_dce_case: dict[str, Any]) -> None:
    c = zero_dce_case
    threshold = _threshold(c["expected"])
    out = io.StringIO()
    rc = main(["compare", str(c["traces"]), "--artifacts", str(c["art"]), "--golden", str(c["model"]),
               "--input", str(c["tmp"] / "x.npy"), "--min-snr", str(threshold), "--json"], out=out,
              err=io.StringIO())
    doc = json.loads(out.getvalue())
    assert rc == 1 and doc["first_bad"]["data_id"] == SPOILED
    assert "in memory" in doc["reference"]


def test_text_report_and_unmatched(zero_dce_case: dict[str, Any], tmp_path: Path) -> None:
    """A golden without some names: those layers are listed as not compared, never dropped."""
    c = zero_dce_case
    with np.load(c["tmp"] / "golden.npz") as z:
        keep = {k: z[k] for k in z.files if k != "zero_dce_1/Mul"}
    np.savez(tmp_path / "partial.npz", **keep)
    out = io.StringIO()
    rc = main(["compare", str(c["traces"]), "--artifacts", str(c["art"]), "--golden", str(tmp_path / "partial.npz"),
               "--min-snr", "-100"], out=out, err=io.StringIO())
    text = out.getvalue()
    assert rc == 0
    assert "not compared: layer 2 (dataId 2) 'zero_dce_1/Mul': no reference: no golden tensor named" in text
    assert "not compared: layer 1 (dataId 1) 'serving_default_args_0:0_netFormat'" in text
    assert f"no layer under -100 dB ({len(TRACED) - 2} compared)" in text


def _east_reference(realdata: Path, path: Path) -> np.ndarray:
    calib = tidl_io.load_calibration(realdata / EAST)
    # the model is a concat of its two inputs: its float output is the two inputs side by side
    ref = np.stack([np.concatenate([f["onnx::Concat_616"], f["onnx::Concat_624"]], axis=1) for f in calib.inputs])
    np.savez(path, **{"625": ref})
    return ref


def test_east_calibration_channel_4_destroyed(realdata: Path, tmp_path: Path) -> None:
    """Channel 4 (the second input, |x| < 0.77) is all zeros at the concat's scale 0.5: 0 dB, but its
    reference never reaches one step (2.0, from the net: the float output converts the concat's int8
    codes), so it does not count and the output is not bad (issue 32 item 7: it was, as a float
    output had no step); at --min-snr 40 the layer's own 37 dB is."""
    ref = _east_reference(realdata, tmp_path / "east.npz")
    out = io.StringIO()
    rc = main(["compare", "--calibration", str(realdata / EAST), "--golden", str(tmp_path / "east.npz"), "--json"],
              out=out, err=io.StringIO())
    doc = json.loads(out.getvalue())
    assert rc == 0 and doc["first_bad"] is None
    (row,) = doc["layers"]
    assert row["channels_below_one_step"] == [4] and row["worst_counted_channel"] != 4
    assert row["worst_channel"] == 4 and row["worst_channel_snr_db"] == 0.0 and row["channel_snr_db"][4] == 0.0
    # channels 0-3: what TIDL's rounding at tensorScale 0.5 gives, exactly
    calib = tidl_io.load_calibration(realdata / EAST)
    test = np.stack([f["625"] for f in calib.outputs]).astype(np.float64)
    r = ref.astype(np.float64)
    assert np.array_equal(test[:, :, :4], np.clip(np.round(r[:, :, :4] * 0.5), -128, 127) / 0.5)
    for ch in range(4):
        want = 10 * np.log10(np.sum(r[:, :, ch] ** 2) / np.sum((r[:, :, ch] - test[:, :, ch]) ** 2))
        assert row["channel_snr_db"][ch] == pytest.approx(want, abs=1e-3)
    want = 10 * np.log10(np.sum(r ** 2) / np.sum((r - test) ** 2))
    assert row["snr_db"] == pytest.approx(want, abs=1e-3) and row["snr_db"] > 30  # the layer SNR looks fine
    out = io.StringIO()
    assert main(["compare", "--calibration", str(realdata / EAST), "--golden", str(tmp_path / "east.npz"),
                 "--min-snr", "40", "--json"], out=out, err=io.StringIO()) == 1
    # netLog: 625 is buffer 5, written by layer 5 (the row's index is the net's layer, as in trace reports)
    assert json.loads(out.getvalue())["first_bad"] == {"index": 5, "data_id": 5, "name": "625"}


def _east_copy(realdata: Path, folder: Path, channel: int, value: float) -> np.ndarray:
    """EAST's artifacts copied to ``folder`` with channel ``channel`` of every output frame set to
    ``value``; the outputs (frames, C, H, W)."""
    shutil.copytree(realdata / EAST, folder)
    dump = folder / "tempDir" / "625_tidl_io__stats_tool_out.bin"
    frames = np.fromfile(dump, "<f4").reshape(-1, 5, 176, 320)
    frames[:, channel] = value
    frames.tofile(dump)
    return frames


def test_calibration_channel_one_code_off_is_not_bad(realdata: Path, tmp_path: Path) -> None:
    """Issue 32 item 7: a channel holding one value, one code (2.0: the concat's scale 0.5 the net
    gives) from the reference, is TIDL's rounding at that scale, not a bad output (was BAD at 6 dB:
    a float dump had no step); two codes off it counts."""
    art = tmp_path / "east"
    frames = _east_copy(realdata, art, 3, 2.0)
    for off, bad in ((2.0, False), (4.0, True)):
        golden = frames.copy()
        golden[:, 3] = 2.0 + off
        np.savez(tmp_path / "g.npz", **{"625": golden[:, None]})
        out = io.StringIO()
        rc = main(["compare", "--calibration", str(art), "--golden", str(tmp_path / "g.npz"), "--json"],
                  out=out, err=io.StringIO())
        (row,) = json.loads(out.getvalue())["layers"]
        want = 10 * np.log10((2.0 + off) ** 2 / off ** 2)  # one value against another: the channel's SNR
        assert row["channel_snr_db"][3] == pytest.approx(want, abs=1e-4) and want < 20
        assert (rc, row["below_min_snr"], 3 in row["channels_below_one_step"]) == (int(bad), bad, not bad), off


def test_second_trace_set_by_data_id(realdata: Path, tmp_path: Path) -> None:
    net = tidl_io.load_net(realdata / ZERO_DCE / "artifacts" / "74_tidl_net.bin")
    rng = np.random.default_rng(3)
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
    expected = {}
    for d in (1, 2, 3):
        layer = net.layer_by_data_id(d)
        q = rng.integers(-100, 100, size=layer.shape).astype(np.int8)
        q2 = q.copy()
        q2[:, d - 1] = 0  # layer d: channel d-1 set to zero in the test set
        q.tofile(tmp_path / "a" / _name(layer))
        q2.tofile(tmp_path / "b" / _name(layer))
        expected[d] = _expected(q.astype(np.float32) / np.float32(layer.scale), q2, layer)
    (tmp_path / "b" / "tidl_trace_subgraph_0_0777_0001_0001_00001_00003_000600x00400.y").write_bytes(b"")
    from tidl_io.trace.load import load_traces

    report = compare_traces(load_traces(tmp_path / "b", net), traces_lookup(load_traces(tmp_path / "a", net), "a"))
    assert [r.data_id for r in report.rows] == [1, 2, 3]
    for r in report.rows:
        e = expected[r.data_id]
        assert r.metrics is not None and r.metrics.worst_channel == r.data_id - 1 == e["worst_channel"]
        assert r.metrics.snr_db == pytest.approx(e["snr_db"], abs=1e-3)
    assert report.first_bad is not None and report.first_bad.data_id == 1
    assert len(report.warnings) == 1 and "dataId 777 is no layer's output" in report.warnings[0]
    # histograms of the first bad layer (only the HTML report draws them) only when asked for;
    # the metrics do not depend on it
    assert report.histograms
    bare = compare_traces(load_traces(tmp_path / "b", net), traces_lookup(load_traces(tmp_path / "a", net), "a"),
                          histograms=False)
    assert not bare.histograms and [r.metrics for r in bare.rows] == [r.metrics for r in report.rows]
    # the CLI says so and exits 1 even when no layer is under the threshold
    err = io.StringIO()
    out = io.StringIO()
    rc = main(["compare", str(tmp_path / "b"), "--artifacts", str(realdata / ZERO_DCE / "artifacts"),
               "--ref", str(tmp_path / "a"), "--min-snr", "-100"], out=out, err=err)
    # issue 24 item 2: an unusable trace file is an input that could not be compared: 2 (was 1)
    assert rc == 2 and "warning: tidl_trace_subgraph_0_0777" in out.getvalue()


def test_orient() -> None:
    a = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    same, how = orient(a, (2, 3, 4, 5))
    assert same is not None and np.shares_memory(same, a) and how == ""
    nhwc = np.ascontiguousarray(a.transpose(0, 2, 3, 1))
    back, how = orient(nhwc, (2, 3, 4, 5))
    assert back is not None and np.array_equal(back, a) and "NHWC" in how
    squeezed, how = orient(a[0].copy(), (1, 3, 4, 5))
    assert squeezed is not None and np.array_equal(squeezed, a[:1]) and "reshaped" in how
    cube = np.zeros((1, 4, 4, 4), np.float32)
    none, how = orient(cube, (1, 4, 4, 4))
    assert none is None and how.startswith("ambiguous") and "not guessed" in how
    picked, how = orient(cube, (1, 4, 4, 4), "NHWC")
    assert picked is not None and "NHWC" in how
    one_channel = np.zeros((1, 4, 5, 1), np.float32)  # NHWC with C = 1 is a reshape, not ambiguous
    assert orient(one_channel, (1, 1, 4, 5))[0] is not None
    assert orient(a, (2, 3, 5, 4))[1].startswith("shape mismatch")


def test_usage_errors(tmp_path: Path) -> None:
    def run(*argv: str) -> tuple[int, str]:
        err = io.StringIO()
        return main(["compare", *argv], out=io.StringIO(), err=err), err.getvalue()

    assert run()[0] == 2
    assert run(str(tmp_path), "--artifacts", str(tmp_path)) == (
        2, ("tidl-io compare: error: give a reference: --golden golden.npz, --golden MODEL --input X, or --ref "
            "TRACES2\n"))
    assert run(str(tmp_path), "--artifacts", str(tmp_path), "--golden", "m.onnx")[0] == 2
    assert run(str(tmp_path), "--calibration", str(tmp_path), "--golden", "g.npz")[0] == 2
    assert run("--calibration", str(tmp_path))[0] == 2
    assert run(str(tmp_path), "--golden", "g.npz", "--ref", "x")[0] == 2  # argparse: mutually exclusive



# ---- issue 24 item 1: channels below one step; item 4: empty layers, unknown element types ----

def _layer4_case(tmp_path: Path, zero: tuple[int, ...]) -> tuple[int, str, str, np.ndarray, Any]:
    """Layer 4 of Zero-DCE (uint8, scale 841.7: one step is 1/841.7) against a golden of random
    values; channel 1's reference is one pixel at 0.8 step (a dead ReLU channel: TIDL stores zeros),
    channel 3's one pixel at 5 steps (energy ~3e-10 of the layer's), and the channels in ``zero`` come
    back as zeros. Returns (exit code, stdout, stderr, reference, layer) of ``compare --json``."""
    art = REALDATA / ZERO_DCE / "artifacts"
    net = tidl_io.load_net(art / "74_tidl_net.bin")
    layer = net.layer_by_data_id(4)
    step = 1 / float(layer.scale)
    ref = (np.random.default_rng(5).random(layer.shape) * 0.2).astype(np.float32)
    ref[:, 1] = 0
    ref[0, 1, 7, 9] = 0.8 * step
    ref[:, 3] = 0
    ref[0, 3, 100, 200] = 5 * step
    codes = _quantize(ref, layer)
    codes[:, (1, 3) + zero] = layer.zero_point
    (tmp_path / "t").mkdir()
    codes.tofile(tmp_path / "t" / _name(layer))
    np.savez(tmp_path / "g.npz", **{layer.name: ref})
    out, err = io.StringIO(), io.StringIO()
    rc = main(["compare", str(tmp_path / "t"), "--artifacts", str(art), "--golden", str(tmp_path / "g.npz"),
               "--json"], out=out, err=err)
    return rc, out.getvalue(), err.getvalue(), ref, layer


def test_channels_below_one_step_do_not_make_a_layer_bad(realdata: Path, tmp_path: Path) -> None:
    rc, out, err, ref, layer = _layer4_case(tmp_path, ())
    r = ref.astype(np.float64)
    step = 1 / float(layer.scale)
    energy = np.sum(r ** 2, axis=(0, 2, 3))
    assert np.max(np.abs(r[:, 1])) < step and np.max(np.abs(r[:, 3])) > step  # the oracle of the two channels
    assert energy[3] < 1e-9 * np.sum(energy) < energy[0]
    doc = json.loads(out)
    (row,) = doc["layers"]
    assert rc == 0, err  # was 1: channel 1 (0 dB) made the layer bad
    assert row["channel_snr_db"][1] == 0.0 and row["channel_snr_db"][3] == 0.0 and row["worst_channel_snr_db"] == 0.0
    assert row["channels_below_one_step"] == [1, 3] and not row["below_min_snr"] and doc["first_bad"] is None
    counted = [k for k in range(ref.shape[1]) if k not in (1, 3)]
    assert row["worst_counted_channel_snr_db"] == min(row["channel_snr_db"][k] for k in counted) > 20
    text = io.StringIO()
    main(["compare", str(tmp_path / "t"), "--artifacts", str(REALDATA / ZERO_DCE / "artifacts"), "--golden",
          str(tmp_path / "g.npz")], out=text, err=io.StringIO())
    assert "(2 below 1 step)" in text.getvalue() and "2 channel(s) below one step in 1 layer(s)" in text.getvalue()


def test_a_channel_with_real_signal_lost_is_still_bad(realdata: Path, tmp_path: Path) -> None:
    rc, out, _err, ref, layer = _layer4_case(tmp_path, (6,))
    row = json.loads(out)["layers"][0]
    assert rc == 1 and row["below_min_snr"] and row["channels_below_one_step"] == [1, 3]
    assert row["channel_snr_db"][6] == 0.0 and np.max(np.abs(ref[:, 6])) > 100 / float(layer.scale)
    text = io.StringIO()
    main(["compare", str(tmp_path / "t"), "--artifacts", str(REALDATA / ZERO_DCE / "artifacts"), "--golden",
          str(tmp_path / "g.npz")], out=text, err=io.StringIO())
    assert "worst channel 6 at 0.0 dB (2 channel(s) below one step not counted)" in text.getvalue()


def test_east_calibration_type_is_ti_layer_type(realdata: Path, tmp_path: Path) -> None:
    """Issue 24 item 3: ``type`` of a calibration row is TI's layer type (was "output"): the netLog's
    type of the layer writing the output's dataId (625: dataId 5)."""
    _east_reference(realdata, tmp_path / "east.npz")
    out = io.StringIO()
    main(["compare", "--calibration", str(realdata / EAST), "--golden", str(tmp_path / "east.npz"), "--json"],
         out=out, err=io.StringIO())
    (row,) = json.loads(out.getvalue())["layers"]
    log = (realdata / EAST / "tempDir" / "625_tidl_net.bin_netLog.txt").read_text().splitlines()
    writers = [f[1].strip() for f in (line.split("|") for line in log) if len(f) > 8 and f[0].strip().isdigit()
               and f[5].strip() != "-1" and f[7].split()[:1] == [str(row["data_id"])]]
    assert writers == [row["type"]] == ["TIDL_DataConvertLayer"]
    assert row["channels_below_one_step"] == [4]  # the float output has the step of the int8 concat it converts


def test_east_calibration_row_is_the_nets_layer_index(realdata: Path, tmp_path: Path) -> None:
    """A calibration row's ``index`` (JSON, the table's ``#``, "first bad ...: layer N") is the index in
    the net of the layer writing the output's dataId, as in trace reports (was the output's
    position, 0): the netLog's ``Num`` of the row whose ``Outbuf Id`` is the dataId."""
    _east_reference(realdata, tmp_path / "east.npz")
    argv = ["compare", "--calibration", str(realdata / EAST), "--golden", str(tmp_path / "east.npz"),
            "--min-snr", "40"]
    out = io.StringIO()
    main([*argv, "--json"], out=out, err=io.StringIO())
    doc = json.loads(out.getvalue())
    (row,) = doc["layers"]
    log = (realdata / EAST / "tempDir" / "625_tidl_net.bin_netLog.txt").read_text().splitlines()
    nums = [int(f[0]) for f in (line.split("|") for line in log) if len(f) > 8 and f[0].strip().isdigit()
            and f[5].strip() != "-1" and f[7].split()[:1] == [str(row["data_id"])]]
    assert nums == [row["index"]] == [doc["first_bad"]["index"]] == [5]
    out = io.StringIO()
    main(argv, out=out, err=io.StringIO())
    lines = out.getvalue().splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("#"))
    assert lines[head + 1].split()[:2] == ["5", "5"]  # "#" then dataId
    assert "first bad (SNR or a channel's SNR < 40 dB): layer 5, dataId 5, '625'" in out.getvalue()


class _StubTraces:
    """A hand-made trace set of one layer (no file): what compare_traces reads of a Traces."""

    def __init__(self, layer: Any, values: np.ndarray) -> None:
        self.folder, self.problems, self.notes, self.ignored = Path("stub"), {}, (), ()
        self.files = {layer.data_id: {"float": None}}
        self._layer, self._values = layer, values

    def __iter__(self) -> Any:
        return iter(self.files)

    def entry(self, data_id: int) -> Any:
        return type("Entry", (), {"layer": self._layer, "kind": "float"})()

    def quantized(self, data_id: int, buffer: Any = None) -> np.ndarray:
        return self._values


def test_an_empty_layer_is_never_compared_and_good() -> None:
    from types import SimpleNamespace

    from tidl_io.trace.compare import GoldenReference, Status

    layer = SimpleNamespace(index=3, data_id=3, name="e", type="TIDL_ReluLayer", shape=(1, 0, 4, 4),
                            dtype=np.dtype(np.float32), scale=1.0, zero_point=0)
    empty = np.zeros((1, 0, 4, 4), np.float32)
    report = compare_traces(_StubTraces(layer, empty), GoldenReference({"e": empty}, "g"))  # type: ignore[arg-type]
    (row,) = report.rows
    assert row.status is Status.EMPTY and row.metrics is None and not report.compared and not report.ok
    assert report.to_dict()["layers"][0]["status"] == "empty"


def test_unknown_element_type_is_a_problem_of_that_file(realdata: Path, tmp_path: Path) -> None:
    import dataclasses

    net = tidl_io.load_net(realdata / ZERO_DCE / "artifacts" / "74_tidl_net.bin")
    odd = dataclasses.replace(net.layer_by_data_id(2), element_code=77)
    layers = tuple(odd if la.data_id == 2 and la.index == odd.index else la for la in net.layers)
    net = dataclasses.replace(net, layers=layers)
    (tmp_path / "t").mkdir()
    # the size float64 codes would have: the old reader took an undefined element type as float64
    np.zeros(odd.shape, np.float64).tofile(tmp_path / "t" / _name(odd))
    from tidl_io.trace.load import load_traces

    traces = load_traces(tmp_path / "t", net)
    assert not traces.files and list(traces.problems) == [_name(odd)]
    assert "element type code 77, which TI does not define" in traces.problems[_name(odd)]


def test_calibration_dumps_are_a_reference_too(realdata: Path) -> None:
    """Issue 23 item 5: one Reference protocol; calibration dumps implement it (here: against
    themselves, every output identical, frame by frame)."""
    from tidl_io.trace.compare import CalibrationReference, Status, compare_calibration

    calib = tidl_io.load_calibration(realdata / EAST)
    report = compare_calibration(calib, CalibrationReference(calib))
    (row,) = report.rows
    assert row.status is Status.COMPARED and report.ok and row.metrics is not None
    n = sum(f["625"].size for f in calib.outputs)
    assert row.metrics.count == n and row.metrics.max_abs == 0 and report.to_dict()["layers"][0]["identical"]


def test_exactly_rounded_traces_raise_no_false_alarm(zero_dce_case: dict[str, Any]) -> None:
    """Issue 24 item 1: traces that are the golden run rounded with the net's own scales are bad
    nowhere at the default 20 dB but in the spoiled layer (before: layers 5-7, whose weak channels are
    only rounded, made first_bad name an innocent layer). Oracle: the NumPy metrics of the fixture."""
    c = zero_dce_case
    out = io.StringIO()
    rc = main(["compare", str(c["traces"]), "--artifacts", str(c["art"]), "--golden", str(c["tmp"] / "golden.npz"),
               "--json"], out=out, err=io.StringIO())
    doc = json.loads(out.getvalue())
    rows = {r["data_id"]: r for r in doc["layers"]}
    weak = [d for d, e in c["expected"].items() if d != SPOILED and e["worst_channel_snr_db"] < 20]
    assert weak, "the fixture has weak, only rounded, channels"
    for d in weak:  # each weak channel's error is within one step everywhere: rounding
        e = c["expected"][d]
        assert np.all(e["channel_max_error"] <= e["step"] * (1 + 1e-6)) and not rows[d]["below_min_snr"], d
    assert rc == 1 and doc["first_bad"]["data_id"] == SPOILED
    assert [d for d, r in rows.items() if r["below_min_snr"]] == [SPOILED]
