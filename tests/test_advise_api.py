"""tidl_io.advise on the real Zero-DCE model: traces written by this test from a golden run,
each layer quantized with the net's own scale (as tests/test_trace_compare.py does), one
layer spoiled (its channel with the most energy set to the zero point). The spoiled layer must
come first; every name printed must be a name of layer_info.txt (read here with str.split);
a budget needs the simulation (Zero-DCE has none: a hand-made Performance stands in)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tidl_io
from tidl_io.cli.app import main

from conftest import ZERO_DCE

SPOILED = 9  # dataId (= layer index) of 'zero_dce_1/functional_1/conv2d_4_1/...', a 32-channel convolution
TRACED = (0, 1, 2, 3, 4, 5, 6, 7, SPOILED, 11, 13, 14, 15, 16)


def _trace_name(layer: Any) -> str:
    n, c, h, w = layer.shape
    return f"tidl_trace_subgraph_0_{layer.data_id:04d}_{n:04d}_0001_00001_{c:05d}_{w:06d}x{h:05d}.y"


def _quantize(x: np.ndarray, layer: Any) -> np.ndarray:
    if layer.dtype.kind == "f":
        return x.astype(layer.dtype)
    info = np.iinfo(layer.dtype)
    return np.clip(np.round(x.astype(np.float64) * layer.scale) + layer.zero_point, info.min, info.max
                   ).astype(layer.dtype)


@pytest.fixture(scope="module")
def spoiled(golden_extra: None, realdata: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from tidl_io.trace.golden import run_golden, save_golden

    art = realdata / ZERO_DCE / "artifacts"
    net = tidl_io.load_net(art / "74_tidl_net.bin")
    tmp = tmp_path_factory.mktemp("advise")
    x = (np.random.default_rng(17).random((1, 400, 600, 3)) * 0.1).astype(np.float32)
    run = run_golden(realdata / ZERO_DCE / "model" / "zero_dce_model.tflite", {"serving_default_args_0:0": x})
    save_golden(tmp / "golden.npz", run)
    traces = tmp / "traces"
    traces.mkdir()
    for d in TRACED:
        layer = net.layer_by_data_id(d)
        ref = run.tensors[layer.name if d != 1 else "serving_default_args_0:0"].transpose(0, 3, 1, 2)
        codes = _quantize(ref, layer)
        if d == SPOILED:
            channel = int(np.argmax(np.sum(ref.astype(np.float64) ** 2, axis=(0, 2, 3))))
            codes[:, channel] = layer.zero_point
        (codes.transpose(0, 2, 3, 1) if layer.layout == "NHWC" else codes).tofile(traces / _trace_name(layer))
    names = [line.split(maxsplit=2)[2].strip() for line in
             (art / "tempDir" / "74_tidl_net.bin.layer_info.txt").read_text().splitlines() if line.strip()]
    return {"art": art, "tmp": tmp, "traces": traces, "names": names, "net": net}


def test_spoiled_layer_comes_first(spoiled: dict[str, Any]) -> None:
    c = spoiled
    advice = tidl_io.advise(c["art"], traces=c["traces"], golden=c["tmp"] / "golden.npz")
    assert advice.candidates[0].index == SPOILED
    assert advice.names and advice.names[0] == c["net"].layers[SPOILED].name
    assert set(advice.names) <= set(c["names"])  # every name printed is one of layer_info.txt's
    assert advice.perf is None and any("no simulated times" in n for n in advice.notes)
    first = advice.candidates[0]
    assert first.snr_db is not None and first.snr_after_db is not None and first.snr_after_db > first.snr_db
    assert first.notes and "own 8-bit step" in first.notes[0]  # a zeroed channel is no rounding: flagged
    doc = json.loads(json.dumps(advice.to_dict(), allow_nan=False))
    assert doc["picked"][0] == c["net"].layers[SPOILED].name and doc["layers"][0]["index"] == SPOILED
    value = doc["option"]["value"]
    assert value.split(",") == advice.names


def test_cli_text_and_json_from_a_saved_compare(spoiled: dict[str, Any]) -> None:
    c = spoiled
    out = io.StringIO()
    rc = main(["compare", str(c["traces"]), "--artifacts", str(c["art"]), "--golden", str(c["tmp"] / "golden.npz"),
               "--json"], out=out, err=io.StringIO())
    assert rc in (0, 1)
    saved = c["tmp"] / "compare.json"
    saved.write_text(out.getvalue())
    out, err = io.StringIO(), io.StringIO()
    assert main(["advise", str(c["art"]), "--compare", str(saved), "--json"], out=out, err=err) == 0, err.getvalue()
    doc = json.loads(out.getvalue())
    assert doc["layers"][0]["index"] == SPOILED
    assert set(doc["picked"]) <= set(c["names"])
    out = io.StringIO()
    assert main(["advise", str(c["art"]), "--traces", str(c["traces"]), "--golden-npz",
                 str(c["tmp"] / "golden.npz")], out=out, err=io.StringIO()) == 0
    text = out.getvalue()
    line = next(s for s in text.splitlines() if s.strip().startswith("advanced_options:output_feature_16bit"))
    listed = line.split(": ", 1)[1].strip().strip("'").split(",")
    assert listed[0] == c["net"].layers[SPOILED].name and set(listed) <= set(c["names"])


def test_budget_stops_within_it(spoiled: dict[str, Any]) -> None:
    """Zero-DCE has no simulation: a Performance with a literal time per layer stands in."""
    from tidl_io.perf import LayerPerf, Performance, SubgraphPerf, Totals

    c = spoiled
    times = {lay.index: 100.0 + 10 * lay.index for lay in c["net"].layers}
    layers = tuple(LayerPerf(lay.index, lay.index, lay.type, lay.name, lay.data_id, None, None, times[lay.index],
                             None, None, None, None, None, None, None, None, {}) for lay in c["net"].layers)
    perf = Performance("hand-made", (SubgraphPerf("74", {}, Totals(time_ms=sum(times.values()) / 1000), layers, {}),))
    for budget in (0.5, 1.0, 3.0):
        advice = tidl_io.advise(c["art"], traces=c["traces"], golden=c["tmp"] / "golden.npz", perf=perf,
                                budget_ms=budget, factor=2.0)
        picked = [advice.candidates[i] for i in advice.picked]
        spent = sum(times[p.index] * (2.0 - 1.0) for p in picked)  # the flat factor 2: one more time
        assert spent <= budget * 1000
        left = [x for i, x in enumerate(advice.candidates) if i not in advice.picked and x.share is not None
                and x.share >= 0.01]  # under 1% of the removable noise: never picked
        assert all(spent + times[x.index] > budget * 1000 for x in left)  # nothing else would have fit
        assert set(advice.names) <= set(c["names"])
    assert tidl_io.advise(c["art"], traces=c["traces"], golden=c["tmp"] / "golden.npz", perf=perf,
                          budget_ms=0.0).picked == ()


# ---- the hand-made model (no golden extra): tests/advise_fixtures.py's table -----------------

def test_hand_made_ranking_and_budget(tmp_path: Path) -> None:
    import math

    from advise_fixtures import write_model

    art = write_model(tmp_path)
    advice = tidl_io.advise(art, compare=art / "compare.json")
    # removable noise g and extra µs from the fixture's table, by hand:
    n = {k: 10 ** (-s / 10) for k, s in {1: 40, 2: 20, 3: 30, 5: 25}.items()}
    g = {1: n[1], 2: n[2] - n[1], 3: n[3], 5: n[5]}  # 3 inherits more than it has: its own rounding (share 1)
    extra = {1: 10 * 3, 2: 150 * ((200000 + 20000 + 60000) / 150000 - 1), 3: 10 * 3, 5: 20 * 3}
    assert [c.index for c in advice.candidates] == [2, 5, 3, 1]  # g per extra µs: 7.6e-5, 5.3e-5, 3.3e-5, 3.3e-6
    for c in advice.candidates:
        assert c.gain == pytest.approx(g[c.index]) and c.extra_us == pytest.approx(extra[c.index])
        assert c.share == pytest.approx(g[c.index] / sum(g.values()))
    assert [(s.index, s.reason) for s in advice.skipped] == [
        (0, "identical to the reference: no noise to remove"), (4, "identical to the reference: no noise to remove")]
    assert advice.names == ["conv2", "conv5", "conv3"]  # conv1 removes 0.7% < 1%: never picked
    assert advice.total_time_ms == pytest.approx(0.195)
    assert tidl_io.advise(art, compare=art / "compare.json", budget_ms=0.1).names == ["conv5", "conv3"]  # 130 > 100
    assert tidl_io.advise(art, compare=art / "compare.json", budget_ms=0.2).names == ["conv2", "conv5"]
    assert tidl_io.advise(art, compare=art / "compare.json", top=1).names == ["conv2"]
    # top=0: no limit, as --top 0 means "all" in every command: every layer worth its time (conv1 is not)
    assert tidl_io.advise(art, compare=art / "compare.json", top=0).names == ["conv2", "conv5", "conv3"]
    flat = tidl_io.advise(art, compare=art / "compare.json", factor=2.0)
    assert [c.index for c in flat.candidates] == [5, 3, 2, 1]  # extra = time: 1.6e-4, 1e-4, 6.6e-5, 1e-5 per µs
    assert all(c.factor == 2.0 and c.factor_from == "given" for c in flat.candidates)
    assert not math.isnan(flat.extra_us or math.nan)
    names = [line.split()[2] for line in (art / "tempDir" / "adv_tidl_net.bin.layer_info.txt").read_text().splitlines()]
    assert set(advice.names) <= set(names)


def test_hand_made_without_simulation(tmp_path: Path) -> None:
    from advise_fixtures import compare_doc, write_model

    art = write_model(tmp_path, sim=False)
    advice = tidl_io.advise(art, compare=compare_doc())
    assert advice.perf is None and [c.index for c in advice.candidates] == [2, 5, 3, 1]  # by g alone
    assert advice.extra_us is None and any("no performance files" in n for n in advice.notes)
    with pytest.raises(tidl_io.OptionError, match="budget_ms needs the performance simulation"):
        tidl_io.advise(art, compare=compare_doc(), budget_ms=1)


def test_hand_made_mismatches_and_arguments(tmp_path: Path) -> None:
    from advise_fixtures import compare_doc, write_model

    art = write_model(tmp_path)
    doc = compare_doc()
    doc["layers"][2]["name"] = "someone_else"
    with pytest.raises(tidl_io.FormatError, match="layer 2 is 'someone_else' in the report but 'conv2'"):
        tidl_io.advise(art, compare=doc)
    doc = compare_doc()
    doc["layers"][2]["index"] = doc["layers"][2]["data_id"] = 40
    with pytest.raises(tidl_io.FormatError, match="layer 40 .*another model"):
        tidl_io.advise(art, compare=doc)
    with pytest.raises(tidl_io.OptionError, match="give the measurements once"):
        tidl_io.advise(art)
    with pytest.raises(tidl_io.OptionError, match="give the measurements once"):
        tidl_io.advise(art, compare=compare_doc(), traces=tmp_path)
    with pytest.raises(tidl_io.OptionError, match="traces= needs golden="):
        tidl_io.advise(art, traces=tmp_path)
    for bad in ({"budget_ms": -1}, {"budget_ms": float("nan")}, {"factor": 0.5}, {"top": -1}):
        with pytest.raises(tidl_io.OptionError):
            tidl_io.advise(art, compare=compare_doc(), **bad)  # type: ignore[arg-type]
    with pytest.raises(tidl_io.ArgumentTypeError):
        tidl_io.advise(art, compare=compare_doc(), budget_ms="1")  # type: ignore[arg-type]
    with pytest.raises(tidl_io.OptionError, match="no subgraph 'x'"):
        tidl_io.advise(art, compare=compare_doc(), subgraph="x")
    assert tidl_io.advise(tmp_path / "tempDir", compare=compare_doc()).names == ["conv2", "conv5", "conv3"]
    (tmp_path / "empty").mkdir()
    with pytest.raises(tidl_io.PathNotFoundError, match="no .*_tidl_net.bin"):
        tidl_io.advise(tmp_path / "empty", compare=compare_doc())
    with pytest.raises(tidl_io.PathNotFoundError):
        tidl_io.advise(tmp_path / "nowhere", compare=compare_doc())


def test_rows_numbered_by_output_are_matched_by_data_id(tmp_path: Path) -> None:
    """A calibration report numbers its rows by output; a row whose dataId's producer has its
    name is that layer."""
    from advise_fixtures import compare_doc, write_model

    art = write_model(tmp_path)
    doc = compare_doc()
    doc["layers"] = [dict(doc["layers"][5], index=0)]  # conv5 (dataId 5) as output 0
    advice = tidl_io.advise(art, compare=doc)
    assert [c.index for c in advice.candidates] == [5] and advice.names == ["conv5"]


def test_a_step_that_adds_no_noise_is_said_not_divided_by() -> None:
    """A layer whose own 8-bit step is negligible against its error (share 0.0: mean |error| 1e300)
    while it adds noise: the advice says so; it divided by zero before (fuzz seed 20261122, index 1953)."""
    from conftest import EXAMPLES

    net = tidl_io.load_net(EXAMPLES / "detector_tidl_net.bin")
    doc = {"schema_version": 1, "layers": [
        {"index": la.index, "data_id": la.data_id, "name": la.name, "type": la.type, "status": "compared",
         "snr_db": 10.0 if la.index == 2 else 40.0, "identical": False, "mean_abs": 1e300}
        for la in net.layers if la.data_id is not None]}
    advice = tidl_io.advise(EXAMPLES, compare=doc, perf=False)
    assert "adds noise where its own 8-bit step adds none" in json.dumps(advice.to_dict(), allow_nan=False)


def test_a_simulation_of_another_model_is_refused(tmp_path: Path) -> None:
    """perf= the example detector's simulation beside the hand-made 'adv' net (same layer count,
    other types and names): a FormatError, as compare --perf gives (before: its times were taken
    by layer number and priced the picks)."""
    from advise_fixtures import compare_doc, write_model

    from conftest import EXAMPLES
    art = write_model(tmp_path, sim=False)
    with pytest.raises(tidl_io.FormatError, match="layer 1 is a TIDL_DataConvertLayer in the simulation.*another model"):
        tidl_io.advise(art, compare=compare_doc(), perf=tidl_io.load_perf(EXAMPLES))


FCNN = "net/edgeai-tidl-fcnn-cnn5-9.0"


def test_max_pooling_is_skipped_for_its_producer(realdata: Path) -> None:
    """fcnn-cnn5's two max poolings (poolingType 0) keep their input's precision: skipped, naming the
    producer to pick instead (before: picked with no note). Names and numbers come from
    layer_info.txt, read here with str.split; each pooling reads the layer just before it."""
    folder = realdata / FCNN
    info = [line.split(maxsplit=2) for line in (folder / "tempDir" / "_cnn_cnn.5_relu_Relu_output_0_tidl_net.bin."
                                                "layer_info.txt").read_text().splitlines() if line.strip()]
    name = {int(k): n.strip() for k, _, n in info}
    snr = {2: 30.0, 3: 25.0, 4: 28.0, 5: 20.0, 6: 27.0}  # 3 and 5: the max poolings
    doc = {"schema_version": 1, "layers": [
        {"index": k, "data_id": k, "name": name[k], "status": "compared", "snr_db": v, "identical": False,
         "mean_abs": 0.01} for k, v in snr.items()]}
    assert "MaxPool" in name[3] and "MaxPool" in name[5]
    advice = tidl_io.advise(folder, compare=doc)
    assert {c.index for c in advice.candidates} == {2, 4, 6}
    assert not any("MaxPool" in n for n in advice.names)
    skipped = {s.index: s.reason for s in advice.skipped}
    assert set(skipped) == {3, 5}
    assert "max pooling" in skipped[3] and f"put its producer {name[2]!r} in 16 bits instead" in skipped[3]
    assert f"put its producer {name[4]!r} in 16 bits instead" in skipped[5]


def test_worst_channel_is_compares_counted_one(spoiled: dict[str, Any]) -> None:
    """Every candidate's worst channel is the one compare's own JSON counts (worst_counted_channel:
    channels below one step left out), read here from compare's document; on these traces some
    layers' worst channel of all is a channel below one step, and advise showed that one before."""
    c = spoiled
    out = io.StringIO()
    main(["compare", str(c["traces"]), "--artifacts", str(c["art"]), "--golden", str(c["tmp"] / "golden.npz"),
          "--json"], out=out, err=io.StringIO())
    rows = {r["index"]: r for r in json.loads(out.getvalue())["layers"] if r["status"] == "compared"}
    advice = tidl_io.advise(c["art"], compare=json.loads(out.getvalue()))
    assert advice.candidates
    for cand in advice.candidates:
        row = rows[cand.index]
        assert (cand.worst_channel, cand.worst_channel_snr_db) == (row["worst_counted_channel"],
                                                                   row["worst_counted_channel_snr_db"])
    assert any(rows[cand.index]["worst_channel"] != rows[cand.index]["worst_counted_channel"]
               for cand in advice.candidates)
