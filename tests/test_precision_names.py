"""The 16-bit name lists against the compiled model's names (doctor's 16bit-names check)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tidl_io import FormatError
from tidl_io.doctor.checks import diagnose
from tidl_io.precision.names import check_16bit_names, close_layer_names, model_names, split_names

from conftest import REALDATA

NET = REALDATA / "net"
OD = NET / "od-8220-yolox-10.0"


def _need(p: Path) -> Path:
    if not p.exists():
        pytest.skip("../shared/realdata not present")
    return p


def _entries(param: Path) -> list[str]:
    """The list as the YAML text spells it, joined over its wrapped lines (no YAML parser)."""
    lines = param.read_text().splitlines()
    i = next(k for k, s in enumerate(lines) if "output_feature_16bit_names_list:" in s)
    text = lines[i].split("output_feature_16bit_names_list:")[1]
    while lines[i + 1].startswith("      "):
        i += 1
        text += lines[i]
    return [e.strip() for e in text.split(",") if e.strip()]


def test_od_8220_all_nine(tmp_path: Path) -> None:
    _need(OD)
    entries = _entries(OD / "param.yaml")
    assert len(entries) == 9
    found = check_16bit_names(OD, OD / "artifacts")
    assert [f.level for f in found] == ["error"] * 9
    for f, entry in zip(found, entries):
        assert repr(entry) in f.message and f.source.endswith("param.yaml") and f.where[0].startswith("line ")
        line = int(f.where[0].split()[1])
        assert entry in (OD / "param.yaml").read_text().splitlines()[line - 1]
        assert "also in config.yaml" in f.message and "Invalid Layer Name" in f.message
    # the names TIDL accepts: the netLog's Out Data Names
    log = (OD / "artifacts" / "tempDir" / "subgraph_0_tidl_net.bin_netLog.txt").read_text()
    names = [row.split("|")[2].strip() for row in log.splitlines() if re.match(r"^\s*\d+\|", row)]
    assert set(names) <= set(model_names(OD / "artifacts")[0])
    assert not set(entries) & set(names)


def test_doctor_reports_them() -> None:
    _need(OD)
    d = diagnose(OD, check_library=False)
    mine = [f for f in d.findings if f.check == "16bit-names"]
    assert len(mine) == 9 and not d.ok


@pytest.mark.parametrize("model", ["real-time-llve-zero-dce-10.0", "edgeai-tidl-east-9.0", "bbai64-deeplabv3-mnv2-8.2"])
def test_folders_without_a_list_give_none(model: str) -> None:
    folder = _need(NET / model)
    d = diagnose(folder, check_library=False)
    assert [f for f in d.findings if f.check == "16bit-names"] == []


def test_a_valid_name_passes_and_a_near_miss_is_named(tmp_path: Path) -> None:
    _need(OD)
    art = tmp_path / "artifacts"
    shutil.copytree(OD / "artifacts" / "tempDir", art / "tempDir", ignore=shutil.ignore_patterns("*.csv", "*.bin"))
    (tmp_path / "param.yaml").write_text("session:\n  runtime_options:\n    advanced_options:"
                                         "output_feature_16bit_names_list: '86, 8 6'\n"
                                         "    advanced_options:params_16bit_names_list: ['161']\n")
    found = check_16bit_names(tmp_path, art)
    assert len(found) == 1 and "'8 6'" in found[0].message and "'86'" in found[0].message
    assert found[0].where == ("line 3", "session.runtime_options.advanced_options:output_feature_16bit_names_list[1]")


def test_a_whole_name_the_netlog_cuts_passes(tmp_path: Path) -> None:
    """Zero-DCE's layer names are 126 characters; TI's netLog keeps their last 50 only. A list naming a
    layer whole (as layer_info.txt has it, read here with str.split) is valid: no finding."""
    zero = _need(NET / "real-time-llve-zero-dce-10.0")
    info = (zero / "artifacts" / "tempDir" / "74_tidl_net.bin.layer_info.txt").read_text().split()
    whole = max(info[2::3], key=len)
    assert len(whole) > 50
    (tmp_path / "param.yaml").write_text("session:\n  runtime_options:\n    advanced_options:"
                                         f"output_feature_16bit_names_list: '{whole}, nonsense'\n")
    found = check_16bit_names(tmp_path, zero / "artifacts")
    assert [f.level for f in found] == ["error"] and "'nonsense'" in found[0].message
    assert f"'{whole}'" not in found[0].message.split("closest")[0]


def test_no_names_to_check_is_a_note(tmp_path: Path) -> None:
    (tmp_path / "param.yaml").write_text("session:\n  runtime_options:\n    advanced_options:"
                                         "output_feature_16bit_names_list: a\n")
    found = check_16bit_names(tmp_path, tmp_path)
    assert [f.level for f in found] == ["note"]


def test_split_names() -> None:
    assert split_names(" a, b ,,c") == ["a", "b", "c"] and split_names(["x", " "]) == ["x"] and split_names("") == []
    assert split_names(None) == []


def test_a_hostile_layer_info_is_a_note_not_a_crash(tmp_path: Path) -> None:
    """"²".isdigit() is True but int("²") fails: net.layerinfo's located FormatError, which
    the check turns into one NOTE naming the file and line (issue 24)."""
    art = _tiny(tmp_path, "session:\n  runtime_options:\n    advanced_options:output_feature_16bit_names_list: conv_a\n")
    info = art / "tempDir" / "m_tidl_net.bin.layer_info.txt"
    info.write_text("0 0 input\n\u00b21 1 conv_a\n")
    with pytest.raises(FormatError, match="line 2: expected"):
        model_names(art)
    found = check_16bit_names(tmp_path, art)
    assert [f.level for f in found] == ["note"] and f"{info}, line 2: expected" in found[0].message, found


_LOG = ("Num of Layer Detected :   2 \n"
        "  Num|TIDL Layer Name|Out Data Name|Group|#Ins|#Outs|Inbuf Ids|Outbuf Id|In NCHW|Out NCHW|MACS|\n"
        "    0|TIDL_DataLayer|input|0|-1|1|x x|0|0 0 0 0|1 3 8 8|0|\n"
        "    1|TIDL_ConvolutionLayer|conv_a|0|1|1|0 x|1|1 3 8 8|1 4 8 8|1728|\n"
        "Total Giga Macs : 0.0000\n")


def _tiny(tmp_path: Path, param: str) -> Path:
    """An artifacts folder whose netLog names two layers (input, conv_a), a param.yaml beside it."""
    art = tmp_path / "artifacts"
    (art / "tempDir").mkdir(parents=True)
    (art / "tempDir" / "m_tidl_net.bin_netLog.txt").write_text(_LOG)
    (tmp_path / "param.yaml").write_text(param)
    return art


def test_the_line_is_the_entrys_own_not_an_earlier_mention(tmp_path: Path) -> None:
    # a key that starts like the list's key, and a line mentioning the entry, come before the list
    art = _tiny(tmp_path, "session:\n"
                          "  runtime_options:\n"
                          "    output_feature_16bit_names_list_from_start_end: null\n"
                          "    debug_note: mentions conv_b and 6 here\n"
                          "    advanced_options:output_feature_16bit_names_list: conv_a,\n"
                          "      conv_b, 6\n"
                          "    advanced_options:params_16bit_names_list:\n"
                          "    - conv_a\n"
                          "    - conv_c\n")
    found = check_16bit_names(tmp_path, art)
    where = {f.where[1].split(":")[-1]: f.where[0] for f in found}
    assert where == {"output_feature_16bit_names_list[1]": "line 6", "output_feature_16bit_names_list[2]": "line 6",
                     "params_16bit_names_list[1]": "line 9"}, where


def test_a_huge_list_is_checked_in_bounded_time_and_lines(tmp_path: Path) -> None:
    import time

    n = 100_000
    art = _tiny(tmp_path, "session:\n  runtime_options:\n    advanced_options:output_feature_16bit_names_list: '"
                + ",".join(f"bad{i}" for i in range(n)) + "'\n")
    start = time.perf_counter()
    found = check_16bit_names(tmp_path, art)
    assert time.perf_counter() - start < 10
    assert 1 < len(found) <= 101 and all(f.level == "error" for f in found)
    assert str(n - len(found) + 1) in found[-1].message  # the ones not listed one by one are counted


def test_a_cut_net_log_is_an_error_not_fewer_names(tmp_path: Path) -> None:
    art = _tiny(tmp_path, "")
    assert model_names(art) == (["input", "conv_a"], [str(art / "tempDir" / "m_tidl_net.bin_netLog.txt")])
    (art / "tempDir" / "m_tidl_net.bin_netLog.txt").write_text(_LOG[:_LOG.index("conv_a") + 3])
    with pytest.raises(FormatError, match=r"m_tidl_net.bin_netLog.txt, line 4: the last line has no line end"):
        model_names(art)


def test_doctor_with_a_cut_net_log_notes_it_instead_of_flagging_real_names(tmp_path: Path) -> None:
    art = _tiny(tmp_path, "session:\n  runtime_options:\n    advanced_options:output_feature_16bit_names_list: conv_a\n")
    log = art / "tempDir" / "m_tidl_net.bin_netLog.txt"
    log.write_text(_LOG[:_LOG.index("conv_a") + 3])  # cut inside the row of conv_a
    found = check_16bit_names(tmp_path, art)
    assert [f.level for f in found] == ["note"] and "a cut file?" in found[0].message, found


def _zero_dce_names() -> list[str]:
    info = REALDATA / "net" / "real-time-llve-zero-dce-10.0" / "artifacts" / "tempDir" / "74_tidl_net.bin.layer_info.txt"
    if not info.is_file():
        pytest.skip("../shared/realdata not present")
    return [line.split(" ", 2)[2].strip() for line in info.read_text().splitlines() if line.strip()]


def test_a_tensor_of_a_fused_layer_names_the_layer_that_holds_it() -> None:
    """Issue 32 item 17: a converter's tensor name ('.../conv2d_3_1/add') that TIDL fused into a layer named
    'Relu;add;convolution' is mapped to that layer (read from layer_info.txt here, with a literal check)."""
    names = _zero_dce_names()
    entry = "zero_dce_1/functional_1/conv2d_3_1/add"
    holders = [n for n in names if entry in n.split(";")]
    assert len(holders) == 1 and holders[0].startswith("zero_dce_1/functional_1/conv2d_3_1/Relu;")
    close, held = close_layer_names(entry, names, 3)
    assert held == holders[0] and close[0] == holders[0]


def test_close_names_share_the_names_parts() -> None:
    """Ranked by shared parts (letters / digits runs), then difflib: a typo in the block number finds the
    same block's layers, not a layer of similar spelling elsewhere."""
    names = _zero_dce_names()
    close, held = close_layer_names("zero_dce_1/functional_1/conv2d_5/relu", names, 3)
    assert held is None
    literal = [n for n in names if "/conv2d_5_1/" in n]  # the one layer of that block (a literal search)
    assert len(literal) == 1 and close[0] == literal[0], close  # difflib alone put three other blocks first
    assert all(c.startswith("zero_dce_1/functional_1/conv2d_") for c in close)


def test_names_of_a_renamed_model_say_so() -> None:
    """od-8220's ONNX tensor names were replaced by numbers before TIDL compiled it (its layer_info.txt: 'input',
    '1', '3', ...): the finding says the names are gone instead of offering 'input' as the closest."""
    _need(OD)
    info = OD / "artifacts" / "tempDir" / "subgraph_0_tidl_net.bin.layer_info.txt"
    names = [line.split()[2] for line in info.read_text().splitlines() if line.strip()]
    assert sum(n.isdigit() for n in names) * 2 > len(names)  # the literal fact, read here
    found = [f for f in diagnose(OD, check_library=False).findings if f.check == "16bit-names"]
    assert len(found) == 9 and all("the model's tensors were renamed before TIDL compiled it" in f.message
                                   for f in found)
