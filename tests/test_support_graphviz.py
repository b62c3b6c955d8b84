"""tidl_io.support.graphviz against TI's graphvizInfo.txt files, read literally here."""

from __future__ import annotations

import pytest

from tidl_io import FormatError
from tidl_io.support.graphviz import Status, parse_graphviz, split_diag, status_of

from conftest import REALDATA, TIME_SCALE

NET = REALDATA / "net"
FILES = ["od-8220-yolox-10.0/artifacts/tempDir/graphvizInfo.txt", "edgeai-tidl-east-9.0/tempDir/graphvizInfo.txt",
         "real-time-llve-zero-dce-10.0/artifacts/tempDir/graphvizInfo.txt"]


def _literal(text: str) -> list[tuple[int, str, str, str]]:
    """(index, name, op, diag) per node line, by str.split / str.partition only."""
    out = []
    for line in text.splitlines()[1:]:
        head, _, diag = line.partition(" diagInfo")
        before = head.split(" outputAdjNodes ")[0].split(" ")
        out.append((int(before[0]), " ".join(before[1:-1]), before[-1], diag.strip()))
    return out


@pytest.mark.parametrize("rel", FILES)
def test_every_node_as_read_literally(rel: str) -> None:
    path = NET / rel
    if not path.is_file():
        pytest.skip("../shared/realdata not present")
    text = path.read_text()
    nodes = parse_graphviz(text, str(path))
    want = _literal(text)
    assert int(text.splitlines()[0]) == len(nodes) == len(want)
    assert [(n.index, n.name, n.op, n.diag) for n in nodes] == want
    # supported: empty, "SUPPORTED" or "INFORMATION"; unsupported: "not supported"
    literal_bad = [w for w in want if "not supported" in w[3].lower()]
    assert [n.name for n in nodes if n.status is Status.UNSUPPORTED] == [w[1] for w in literal_bad]
    assert all(n.status is Status.SUPPORTED for n in nodes if n.name not in {w[1] for w in literal_bad})


def test_counts_of_the_real_files() -> None:
    if not (NET / FILES[0]).is_file():
        pytest.skip("../shared/realdata not present")
    od = parse_graphviz((NET / FILES[0]).read_text())
    info = [n for n in od if "INFORMATION: Not part of backbone network" in n.diag]
    assert len(od) == 271 and len(info) == 82 and all(n.status is Status.SUPPORTED for n in info)
    east = parse_graphviz((NET / FILES[1]).read_text())
    bad = [n for n in east if n.status is Status.UNSUPPORTED]
    assert [(n.index, n.name, n.op) for n in bad] == [(119, "Div_192", "Div")]
    assert east[119].inputs == (118,) and east[119].outputs == (120,)
    assert east[120].output_names == ("625",)


def test_split_diag() -> None:
    stage, reason, origin = split_diag("[PARSER] SUPPORTED: Layers type supported by TIDL --- layer type - Conv,  "
                                       "Node name - 1 -- [tidl_onnxRtImport_core.cpp, 529]")
    assert (stage, origin) == ("PARSER", "tidl_onnxRtImport_core.cpp:529")
    assert reason == "SUPPORTED: Layers type supported by TIDL --- layer type - Conv,  Node name - 1"
    assert split_diag("") == (None, "", None)


HAND = """3
0 a Conv outputAdjNodes 1 1 inputAdjNodes 0 input diagInfo
1 b Div outputAdjNodes 1 2 inputAdjNodes 1 0 diagInfo [PARSER] UNSUPPORTED: Layer type not supported by TIDL
2 c Relu outputAdjNodes 0 out inputAdjNodes 1 1 diagInfo something new
"""


def test_hand_made_statuses() -> None:
    nodes = parse_graphviz(HAND)
    assert [n.status for n in nodes] == [Status.SUPPORTED, Status.UNSUPPORTED, Status.UNKNOWN]
    assert nodes[0].input_names == ("input",) and nodes[2].output_names == ("out",)


@pytest.mark.parametrize("text, where", [
    ("", "empty"),
    ("x\n", "line 1"),
    (HAND.replace("3\n", "4\n", 1), "cut short"),
    (HAND.replace("1 b Div", "5 b Div"), "line 3"),
    (HAND.replace("outputAdjNodes 1 2", "outputAdjNodes 1 9"), "line 3"),
    (HAND.replace("inputAdjNodes 1 0", "inputAdjNodes 3 0"), "line 3"),
    (HAND.replace("0 a Conv outputAdjNodes", "0 a Conv"), "line 2"),
])
def test_malformed_is_located(text: str, where: str) -> None:
    with pytest.raises(FormatError, match=where) as exc:
        parse_graphviz(text, "g.txt")
    assert str(exc.value).startswith("g.txt")


# TI's diagInfo forms, as its importers write them (8.x-9.x: the allow-listing checks' strings and the model
# check's prefixes; 10.x: "[STAGE] KIND: message -- [file, line]"). Every one that is not SUPPORTED /
# INFORMATION / SUGGESTION keeps the node off TIDL.
TI_UNSUPPORTED = [
    ("ALLOWLISTING : ADD/MUL/SUB layer : The variable inputs of layer must have 4 dimensions  --  file info - "
     "tidl_import_common.cpp , TIDL_checkAddMulSubDivTensorProperties , 171"),
    ("ALLOWLISTING : INNER PRODUCT layer : Dimension of bias vector can either be [1, N] or [N] --  file info - "
     "tidl_import_common.cpp , TIDL_checkInnerProductTensorProperties , 301"),
    "ALLOWLISTING : CONV : Unsupported auto_pad attribute  -- file info - tidl_onnxImport.cpp , f , 9",
    "Layer type not supported by TIDL --- layer type - Div,  Node name -Div_192",
    "Node not in allow list...delegated to ARM --- layer type - Conv, Node name - conv1",
    "Layer delegated to ARM since this layer type is currently not supported for tflite asymmetric quantization",
    "Cannot read constant tensor : Only float, int32, uint8 and int8 tensor is supported  -- file info - a.cpp , f , 1",
    "TIDL ALLOWLISTING LAYER CHECK: Kernel size 9x9 is not supported",
    "WARNING: Only verified for stride 1",
    "UNKNOWN ERROR: layer check failed",
    "[PARSER] UNSUPPORTED: Allowlisting : Squeeze layer : No axis given for Squeeze -- [tidl_onnxRtImport_core.cpp, 12]",
    " UNSUPPORTED: Allowlisting : Reshape layer : Unable to find initializer at index 1 for node r -- [x.cpp, 3]",
    "[PARSER] ERROR: Unable to read the model -- [tidl_import_core.cpp, 44]",
    "[PARSER] WARNING: Layer is supported but not verified -- [tidl_import_core.cpp, 44]",
]
TI_SUPPORTED = [
    "",
    "[PARSER] SUPPORTED: Layers type supported by TIDL --- layer type - Relu,  Node name - 9 -- [a.cpp, 529]",
    "[PARSER] INFORMATION: Not part of backbone network, will be delegated in post-processing -- [a.cpp, 447]",
    "INFORMATION -- [TIDL_ResizeLayer]  Any resize ratio which is power of 2 and greater than 4 will be placed",
    "INFORMATION: Resize is done in two steps",
    "SUGGESTION: Use a kernel of 3x3 for better performance",
    "[PARSER] SUGGESTION: Conv with stride 2 is faster as a Conv and a MaxPool -- [a.cpp, 1]",
]


@pytest.mark.parametrize("diag", TI_UNSUPPORTED)
def test_every_ti_rejection_is_unsupported(diag: str) -> None:
    assert status_of(diag) is Status.UNSUPPORTED
    reason = split_diag(diag)[1]
    assert reason and reason in diag  # TI's words are the reason, verbatim
    assert "file info" not in reason and "-- [" not in reason  # the source line is the origin, not the reason


@pytest.mark.parametrize("diag", TI_SUPPORTED)
def test_ti_supported_and_notes(diag: str) -> None:
    assert status_of(diag) is Status.SUPPORTED


@pytest.mark.parametrize("diag", ["something new", "Conv looks fine to me", "42", "[PARSER] hello"])
def test_unknown_only_for_text_of_no_ti_form(diag: str) -> None:
    assert status_of(diag) is Status.UNKNOWN


def test_file_info_suffix_is_the_origin() -> None:
    stage, reason, origin = split_diag(TI_UNSUPPORTED[0])
    assert stage is None
    assert reason == "ALLOWLISTING : ADD/MUL/SUB layer : The variable inputs of layer must have 4 dimensions"
    assert origin == "tidl_import_common.cpp:171 (TIDL_checkAddMulSubDivTensorProperties)"


def test_words_of_refusal_without_a_form_are_unsupported() -> None:
    assert status_of("Conv with this pad is not supported") is Status.UNSUPPORTED
    assert status_of("[PARSER] layer delegated to ARM") is Status.UNSUPPORTED
    assert status_of("information: lower-case kind") is Status.SUPPORTED


_NUMBERS = "9" * 5000


@pytest.mark.parametrize("text, where", [
    (_NUMBERS + "\n", "line 1: the node count: expected a whole number of at most 24 digits"),
    ("1\n" + _NUMBERS + " a b outputAdjNodes 0 x inputAdjNodes 0 y diagInfo\n", "line 2: the node index"),
    ("1\n0 a b outputAdjNodes " + _NUMBERS + " inputAdjNodes 0 y diagInfo\n", "line 2: outputAdjNodes: the count"),
    ("2\n0 a b outputAdjNodes 1 " + _NUMBERS + " inputAdjNodes 0 y diagInfo\n", "line 2: outputAdjNodes: a node"),
    ("1\n\u0660 a b outputAdjNodes 0 x inputAdjNodes 0 y diagInfo\n", "line 2: the node index"),  # Arabic-Indic 0
    ("1\n0 a b outputAdjNodes \u00b2 inputAdjNodes 0 y diagInfo\n", "line 2: outputAdjNodes: the count"),
    (f"{(1 << 15) + 1}\n", "line 1: the node count: expected a whole number <= 32768"),
])
def test_hostile_numbers_are_located(text: str, where: str) -> None:
    with pytest.raises(FormatError, match=where) as exc:
        parse_graphviz(text, "g.txt")
    assert str(exc.value).startswith("g.txt: ") and len(str(exc.value)) < 300


def test_long_lines_parse_in_linear_time() -> None:
    """A 340 KB line made to backtrack TI's line pattern (many words, many markers): the old
    regular expression took > 15 s; the scan is linear."""
    import time

    for body in ("a " * 170_000, "x outputAdjNodes " * 20_000, "a b outputAdjNodes 0 inputAdjNodes " * 10_000):
        start = time.process_time()
        with pytest.raises(FormatError, match="line 2"):
            parse_graphviz("1\n0 " + body + "\n", "g.txt")
        assert time.process_time() - start < 0.5 * TIME_SCALE
    start = time.process_time()
    (node,) = parse_graphviz("1\n0 a b outputAdjNodes 0 x inputAdjNodes 0 " + "y " * 30_000 + "diagInfo" * 500
                             + "\n", "g.txt")  # under the line cap (MAX_LINE)
    assert time.process_time() - start < 0.5 * TIME_SCALE and len(node.input_names) == 30_001 and node.diag == ""


def test_many_nodes_in_bounded_time_and_the_cap() -> None:
    import time

    n = 1 << 15
    text = f"{n}\n" + "".join(f"{i} node_{i} Relu outputAdjNodes 1 {(i + 1) % n} inputAdjNodes 1 {(i - 1) % n} "
                              f"diagInfo \n" for i in range(n))
    start = time.process_time()
    nodes = parse_graphviz(text, "g.txt")
    assert time.process_time() - start < 2.0 * TIME_SCALE
    assert len(nodes) == n and nodes[-1].outputs == (0,) and nodes[0].inputs == (n - 1,)
    with pytest.raises(FormatError, match="expected a whole number <= 32768"):
        parse_graphviz(f"{n + 1}\n" + text.split("\n", 1)[1], "g.txt")


def test_fields_agree_with_the_line_pattern() -> None:
    """The scan against TI's line pattern as a regular expression (the oracle: right on lines of
    sane length), on the real files and hand-made variants."""
    import re

    pattern = re.compile(r"^(\d+) (.*) (\S+) outputAdjNodes (.*?) inputAdjNodes (.*?)"
                         r"(?: additionalOutput (.*?))?(?: diagInfo(?: (.*))?)?$")
    texts = ["1\n0 a b  Conv outputAdjNodes 0 out inputAdjNodes 1 0 diagInfo [PARSER] x -- [f.cpp, 9]\n",
             "1\n0 n op outputAdjNodes 1 0 inputAdjNodes 0 in additionalOutput 1 q diagInfo\n",
             "1\n0 n op outputAdjNodes 1 0 inputAdjNodes 0 in\n",
             "1\n0 n op outputAdjNodes 1 0 inputAdjNodes 0 in diagInfoX y diagInfo z\n", HAND]
    texts += [(NET / rel).read_text() for rel in FILES if (NET / rel).is_file()]
    for text in texts:
        nodes = parse_graphviz(text, "g.txt")
        for node, line in zip(nodes, text.splitlines()[1:], strict=True):
            m = pattern.match(line)
            assert m is not None and (node.name, node.op, node.diag) == (m.group(2), m.group(3),
                                                                         (m.group(7) or "").strip())
            assert (node.outputs, node.output_names) == _ids(m.group(4))
            assert (node.inputs, node.input_names) == _ids(m.group(5))


def _ids(text: str) -> tuple[tuple[int, ...], tuple[str, ...]]:
    tokens = text.split()
    n = int(tokens[0])
    return tuple(int(t) for t in tokens[1:1 + n]), tuple(tokens[1 + n:])


def test_a_line_past_the_cap_is_refused_before_it_is_split() -> None:
    """The second probe of issue 32: a 30 MB diagInfo took 290 MB and 4 s; a 150 MB one hung."""
    from tidl_io.support.graphviz import MAX_LINE

    line = "0 a Conv outputAdjNodes 0 inputAdjNodes 0 additionalOutput 0 diagInfo " + "x" * MAX_LINE
    with pytest.raises(FormatError, match=rf"line 2: {len(line)} characters; a node line is at most {MAX_LINE}"):
        parse_graphviz("1\n" + line + "\n", "g.txt")
    ok = "0 a Conv outputAdjNodes 0 inputAdjNodes 0 additionalOutput 0 diagInfo " + "x" * 1000
    assert parse_graphviz("1\n" + ok + "\n", "g.txt")[0].diag.endswith("x" * 1000)
