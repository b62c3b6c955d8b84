"""Golden inspect output (text and JSON) for the whole corpus, and JSON's raw fields
against the independent decode in PROVENANCE.md."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tidl_io
from tidl_io.iodesc.format import SCHEMA_VERSION, descriptor_to_dict, document, dumps_json, format_descriptor

from conftest import GOLDEN, ROOT, corpus_params

sys.path.insert(0, str(ROOT / "tools"))
from regen_golden import render


@pytest.mark.parametrize("path", corpus_params())
def test_golden_inspect_output(path: Path) -> None:
    rendered = render(path)
    for suffix, text in rendered.items():
        golden = GOLDEN / (path.name + suffix)
        assert golden.exists(), f"missing golden file {golden.name}: run tools/regen_golden.py and review"
        assert text == golden.read_text(), f"{golden.name} differs: run tools/regen_golden.py and review"


@pytest.mark.parametrize("path", corpus_params())
def test_json_is_stable_and_complete(path: Path) -> None:
    doc = json.loads(render(path)[".json"])
    assert doc["schema_version"] == SCHEMA_VERSION == 1
    (entry,) = doc["descriptors"]
    desc = tidl_io.load(path)
    assert entry["header"] == desc.header
    layout_members = {m.name for m in desc.layout.members if m.kind != "header"}
    for kind, tensors in (("input", entry["inputs"]), ("output", entry["outputs"])):
        for t in tensors:
            wanted = {m.name for m in desc.layout.members_of(kind)}
            assert set(t["raw"]) == wanted, "every TI field of the slot, under its TI name"
            assert wanted <= layout_members
            assert t["raw"]["inDataName" if kind == "input" else "outDataName"] == t["name"]
            phys = t["physical"]
            assert phys["buffer_nbytes"] == phys["buffer_size"] * {"uint8": 1, "int8": 1, "uint16": 2,
                                                                   "int16": 2, "float32": 4}[t["dtype"]]


def test_table_spells_quantization_both_ways(realdata: Path) -> None:
    desc = tidl_io.load(realdata / "monodepth__fastdepth__artifacts__424_tidl_io_1.bin")
    text = format_descriptor(desc, "f.bin")
    assert "x35.1423 (step 0.0284558)" in text  # TIDL multiplier and TFLite-style step = 1/35.1423
    assert "float (none)" in text
    assert text.splitlines()[0] == "f.bin: TIDL 9.0 (37272 bytes); numCores=1, numVirtualCores=1, " \
                                   "numSuperBatches=1, inferenceMode=0"


def test_long_names_are_shortened_in_the_table_only(realdata: Path) -> None:
    desc = tidl_io.load(realdata / "bbai64__go__model__ssdLite-mobDet-DSP-coco-320x320__artifacts__321_tidl_io_1.bin")
    full = desc.inputs[0].name
    assert len(full) > 40
    text = format_descriptor(desc, "f.bin")
    assert full not in text and full[:19] + "…" in text
    assert descriptor_to_dict(desc)["inputs"][0]["name"] == full


def test_non_finite_scales_are_valid_json() -> None:
    desc = tidl_io.make_descriptor("8.x", outputs=[{"outDataName": "o", "outWidth": 1, "outHeight": 1,
                                                    "outNumChannels": 1, "outChannelPitch": 1,
                                                    "outNumBatches": 1, "outTensorScale": math.nan}])
    doc = descriptor_to_dict(desc)
    text = json.dumps(doc, allow_nan=False)
    assert json.loads(text)["outputs"][0]["raw"]["outTensorScale"] == "nan"


def test_unknown_element_type_shows_without_crashing() -> None:
    desc = tidl_io.make_descriptor("8.x", outputs=[{"outDataName": "o", "outWidth": 2, "outHeight": 1,
                                                    "outNumChannels": 1, "outChannelPitch": 2,
                                                    "outNumBatches": 1, "outElementType": 77,
                                                    "outTensorScale": 1.0}])
    assert "type77?" in format_descriptor(desc, "f.bin", physical=True)
    out = descriptor_to_dict(desc)["outputs"][0]
    assert out["dtype"] is None and out["physical"]["buffer_nbytes"] is None and out["element_type"] == 77


# ---- dumps_json: indented skeleton, one record per line, same JSON value as json.dumps ----


from tidl_io.iodesc.format import finding_to_dict

_json_scalars = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
                 | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12))
_json_values = st.recursive(_json_scalars, lambda inner: st.lists(inner, max_size=4)
                            | st.tuples(inner, inner) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
                            max_leaves=20)


@given(_json_values)
@settings(max_examples=200, deadline=None)
def test_dumps_json_is_the_same_json_value(value: object) -> None:
    """The standard library is the oracle: same value after loading, a non-finite number null
    (strict JSON: never Infinity or NaN, which strict parsers reject)."""
    def finite(v: object) -> object:
        if isinstance(v, float):
            return None if math.isnan(v) or math.isinf(v) else v
        if isinstance(v, (list, tuple)):
            return [finite(x) for x in v]
        if isinstance(v, dict):
            return {k: finite(x) for k, x in v.items()}
        return v

    def reject(name: str) -> None:
        raise AssertionError(f"dumps_json printed {name}")

    text = dumps_json(value)
    assert json.loads(text, parse_constant=reject) == json.loads(json.dumps(finite(value), allow_nan=False))


@pytest.mark.parametrize("path", corpus_params())
def test_dumps_json_puts_each_tensor_on_one_line(path: Path) -> None:
    desc = tidl_io.load(path)
    doc = document([descriptor_to_dict(desc, path.name)])
    text = dumps_json(doc)
    assert json.loads(text) == json.loads(json.dumps(doc))
    tensors = [t for d in [doc["descriptors"][0], *doc["descriptors"][0].get("subgraphs", [])]
               for t in d["inputs"] + d["outputs"]]
    lines = text.splitlines()
    for t in tensors:  # each tensor record is one line holding exactly that record
        start = f'{{"index": {t["index"]:d}, "name": {json.dumps(t["name"])},'
        (line,) = [ln for ln in lines if ln.strip().startswith(start)
                   and json.loads(ln.strip().rstrip(",")) == t][:1]
        assert line
    assert len(lines) < 40 + 2 * len(tensors)


def test_findings_are_one_line_each() -> None:
    desc = tidl_io.make_descriptor("8.x", header={"numInputBuf": 40})
    findings = [finding_to_dict(f) for f in tidl_io.validate(desc)]
    text = dumps_json(document([{"path": "x", "findings": findings}], key="files"))
    assert sum('"level": "error"' in ln for ln in text.splitlines()) == len(findings) >= 1


# ---- inspect flags what validate reports (issue 11) ----------------------------------------------

def test_inspect_flags_the_errors_validate_reports() -> None:
    def tensor(name: str, scale: float, zp: int) -> dict:
        return {"outDataName": name, "outWidth": 1, "outHeight": 1, "outNumChannels": 1, "outChannelPitch": 1,
                "outNumBatches": 1, "outElementType": 0, "outTensorScale": scale, "outZeroPoint": zp}

    desc = tidl_io.make_descriptor("8.x", outputs=[tensor("ok", 2.0, 0), tensor("nanscale", math.nan, 0),
                                                   tensor("zp", 2.0, 300)], source="f.bin")
    text = format_descriptor(desc, "f.bin")
    rows = {line.split()[1]: line.split()[0] for line in text.splitlines() if line.strip()[:1].isdigit()}
    assert rows == {"ok": "0", "nanscale": "1!", "zp": "2!"}
    flagged = [line.strip()[2:] for line in text.splitlines() if line.strip().startswith("! ")]
    assert flagged == [str(f) for f in tidl_io.validate(desc) if f.level == "error"]  # the same rules, word for word
    assert len(flagged) == 2 and "found nan" in flagged[0] and "zero point 300" in flagged[1]
    clean = format_descriptor(tidl_io.make_descriptor("8.x", outputs=[tensor("ok", 2.0, 0)]), "g.bin")
    assert "!" not in clean
