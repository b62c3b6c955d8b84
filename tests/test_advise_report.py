"""The advice's JSON and text (tidl_io.advisor.report): strict JSON (numbers or null), the
option line TIDL reads back, names with control characters escaped on the terminal."""

from __future__ import annotations

import json
import math

import yaml

from tidl_io.advisor.report import OPTION, Advice, Candidate, Skipped


def _cand(index: int, name: str, **kw: object) -> Candidate:
    base: dict[str, object] = dict(index=index, data_id=index, name=name, type="TIDL_ConvolutionLayer", snr_db=20.0,
                                   inherited_snr_db=math.inf, worst_channel=0, worst_channel_snr_db=-math.inf,
                                   saturated=None, added=0.01, rounding_share=0.5, gain=0.01, snr_after_db=60.0,
                                   time_us=10.0, factor=4.0, factor_from="cycles", extra_us=30.0, share=0.5)
    base.update(kw)
    return Candidate(**base)  # type: ignore[arg-type]


def _advice(*cands: Candidate, picked: tuple[int, ...] = (0, 1)) -> Advice:
    return Advice("art", "sg", "compare.json", "art (subgraph sg)", cands, picked,
                  (Skipped(4, "id", "identical to the reference: no noise to remove"),), budget_ms=1.0,
                  total_time_ms=2.0, notes=("a note",))


def test_json_is_strict_and_complete() -> None:
    a = _advice(_cand(1, "a"), _cand(2, "b", extra_us=0.0, time_us=0.0), _cand(3, "c", snr_after_db=math.nan))
    text = json.dumps(a.to_dict(), allow_nan=False)
    doc = json.loads(text)
    assert doc["schema_version"] == 1 and doc["picked"] == ["a", "b"]
    assert [r["rank"] for r in doc["layers"]] == [1, 2, 3] and [r["picked"] for r in doc["layers"]] == [True, True,
                                                                                                       False]
    first = doc["layers"][0]
    assert first["inherited_snr_db"] is None and first["worst_channel_snr_db"] is None  # inf, -inf: null
    assert first["removable_noise_per_us"] == 0.01 / 30.0
    assert doc["layers"][1]["removable_noise_per_us"] is None  # free: no finite ratio
    assert doc["layers"][2]["snr_after_db"] is None
    assert doc["expected"] == {"noise_share": 1.0, "extra_us": 30.0, "extra_ms": 0.03, "total_time_ms": 2.0,
                               "time_share": 30.0 / 2000.0}
    assert doc["option"] == {"key": OPTION, "value": "a,b"}
    assert doc["skipped"] == [{"index": 4, "name": "id", "reason": "identical to the reference: no noise to remove"}]


def test_option_line_reads_back_as_yaml() -> None:
    names = ["zero_dce_1/conv;add;", "it's: #1"]
    a = _advice(_cand(1, names[0]), _cand(2, names[1]))
    doc = yaml.safe_load(a.option_line)
    assert doc == {OPTION: ",".join(names)}
    assert a.option_line in a.to_text() and "expected cost: +0.060 ms (3.0% of the 2 ms simulated)" in a.to_text()


def test_text_escapes_control_characters() -> None:
    a = _advice(_cand(1, "evil\x1b[2Jname"), _cand(2, "b"))
    text = a.to_text()
    assert "\x1b" not in text and "evil\\x1b[2Jname" in text


def test_nothing_picked() -> None:
    a = _advice(_cand(1, "a"), picked=())
    assert "nothing to put in 16 bits within the budget" in a.to_text()
    doc = a.to_dict()
    assert doc["option_line"] is None and doc["picked"] == [] and doc["expected"]["noise_share"] is None


def test_text_lists_the_skipped_layers_with_their_reason() -> None:
    """The reviewer's EAST case: the only compared layer is skipped; the text says which and why
    (before: an empty table and "nothing to put in 16 bits", the reason only in --json)."""
    why = "its output is not integer (float or unknown element type): no 8-bit step"
    a = Advice("art", "625", "c.json", None, (), (), (Skipped(5, "625", why),))
    lines = a.to_text().splitlines()
    assert f"  {why}" in lines and "    layer 5  625" in lines
    assert lines.index(f"  {why}") < lines.index("    layer 5  625")
    assert "nothing to put in 16 bits (see the table, the skipped layers and notes)" in lines


def test_skipped_layers_are_grouped_by_reason_and_capped_by_top() -> None:
    same, other = "identical to the reference: no noise to remove", "already 16-bit"
    skipped = tuple(Skipped(k, f"n{k}", same if k % 2 else other) for k in range(6))
    text = Advice("art", "sg", "c.json", None, (_cand(9, "a"),), (0,), skipped).to_text(top=4)
    lines = text.splitlines()
    assert lines.count(f"  {same}") == 1 and lines.count(f"  {other}") == 1
    listed = [line.split()[1] for line in lines if line.startswith("    layer ")]
    assert listed == ["0", "2", "4", "1"]  # the first reason seen (layer 0's) first, 4 in all
    assert "  … 2 more (--json gives every one)" in lines
    assert "    layer 5  n5" in Advice("art", "sg", "c.json", None, (), (), skipped).to_text(top=None).splitlines()


def test_repr_is_short() -> None:
    """Advice printed every candidate's numbers (28 KB on Zero-DCE): 400 candidates here."""
    cands = tuple(_cand(k, f"zero_dce_1/layer_{k}" * 3) for k in range(400))
    text = repr(Advice("model/artifacts", "74", "c.json", None, cands, (0, 1, 2), (Skipped(4, "id", "why"),),
                       budget_ms=2.0))
    assert len(text) <= 300 and text.startswith("Advice('model/artifacts'")
    for part in ("subgraph='74'", "candidates=400", "picked=3", "skipped=1", "budget_ms=2.0"):
        assert part in text
