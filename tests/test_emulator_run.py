"""``tidl_io.emulate`` against TI's own fixed-point outputs (the import tool's calibration run,
``tempDir/*_tidl_io__stats_tool_out.bin``, read here with NumPy) and against a literal
re-computation of the synthetic net."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

import tidl_io
from tidl_io import BufferMismatchError, TensorNotFoundError, UnsupportedLayerError
from tidl_io.emulator import decode, kernels
from tidl_io.emulator._fixture import tiny_net

from conftest import REALDATA

NET_DIR = REALDATA / "net"
EAST = NET_DIR / "edgeai-tidl-east-9.0"
FCNN = NET_DIR / "edgeai-tidl-fcnn-cnn5-9.0"
FCNN_NAME = "_cnn_cnn.5_relu_Relu_output_0"


def _need(path: Path) -> None:
    if not path.exists():
        pytest.skip("../shared/realdata not present")


def _east() -> tuple[list[np.ndarray], np.ndarray]:
    _need(EAST)
    raw = np.fromfile(EAST / "tempDir" / "625_calib_raw_data.bin", np.float32).reshape(3, -1)
    a = raw[:, : 4 * 176 * 320].reshape(3, 4, 176, 320)  # input 0 (onnx::Concat_616) then input 1, per frame
    b = raw[:, 4 * 176 * 320:].reshape(3, 1, 176, 320)
    ref = np.fromfile(EAST / "tempDir" / "625_tidl_io__stats_tool_out.bin", np.float32).reshape(3, 5, 176, 320)
    return [a, b], ref


def _fcnn() -> tuple[np.ndarray, np.ndarray]:
    _need(FCNN)
    x = np.fromfile(FCNN / "tempDir" / f"{FCNN_NAME}_calib_raw_data.bin", np.float32).reshape(3, 1, 32, 100)
    ref = np.fromfile(FCNN / "tempDir" / f"{FCNN_NAME}_tidl_io__stats_tool_out.bin", np.float32).reshape(3, 256, 8, 25)
    return x, ref


@pytest.mark.parametrize("frame", [0, 1, 2])
def test_east_equals_tis_outputs_bit_for_bit(frame: int) -> None:
    inputs, ref = _east()
    em = tidl_io.emulate(EAST / "625_tidl_net.bin", [inputs[0][frame:frame + 1], inputs[1][frame:frame + 1]],
                         io=tidl_io.load(EAST / "625_tidl_io_1.bin"))
    (name, out), = em.outputs.items()
    assert name == "625" and out.shape == (1, 5, 176, 320) and out.dtype == np.float32
    assert np.array_equal(out.view(np.uint32), ref[frame:frame + 1].view(np.uint32))


def test_fcnn_runs_in_tis_arithmetic_and_pins_the_measured_mismatch() -> None:
    """Not bit-exact (the net holds the biases after TI's last move; with the recovered biases of
    the run that wrote the dump every value is equal: the test below): 95.5 % of TI's values are reproduced bit for bit,
    the rest differ by 1-3 output codes. Every TI value is an exact code / scale, and where the
    codes agree the float32 values agree bit for bit (the output convert is reproduced)."""
    x, ref = _fcnn()
    io = tidl_io.load(FCNN / f"{FCNN_NAME}_tidl_io_1.bin")
    em = tidl_io.emulate(FCNN / f"{FCNN_NAME}_tidl_net.bin", x, io=io)
    out = em.outputs["/cnn/cnn.5/relu/Relu_output_0"]
    assert out.shape == (3, 256, 8, 25) and out.dtype == np.float32
    scale = np.float32(0.17940166592597961)  # layer 7's tensorScale (the last integer layer)
    ref_codes = np.round(ref * scale)
    assert np.abs(ref * scale - ref_codes).max() < 2e-5
    codes = em.codes(7)
    equal = (codes == ref_codes).mean(axis=(1, 2, 3))
    assert equal.tolist() == [0.9552734375, 0.95455078125, 0.95521484375]
    assert np.abs(codes - ref_codes).max() == 3
    same = codes == ref_codes
    assert np.array_equal(out[same].view(np.uint32), ref[same].view(np.uint32))


def test_fcnn_tis_frames_favour_the_nets_own_arithmetic() -> None:
    """The 4.5 % of fcnn values TI's frames do not share with the emulation are not an arithmetic
    choice: against TI's frames, the bias as TIDL splits it (stored bias x the truncated biasB)
    beats the exact bias (stored bias x weightScale x inScale / biasScale, rounded), and the net's
    roundBits (8, 7, 7, 8) beat the next best split of the same total shift (8, 7, 8, 7)."""
    x, ref = _fcnn()
    want = np.round(ref * np.float32(0.17940166592597961))
    path = FCNN / f"{FCNN_NAME}_tidl_net.bin"
    net = tidl_io.load_net(path)
    ops = {op.index: op for op in decode(net, path.read_bytes())}
    factors = {2: 128.0, 4: 6.773703, 6: 4.7161856, 7: 1.3414638}  # paramDebug scales x input scales

    def run(exact: bool, shifts: tuple[int, ...]) -> float:
        q = np.clip(np.trunc(np.where(x * 128 > 0, x * 128 + 0.5, x * 128 - 0.5)), -128, 127)
        for i, shift in zip((2, 4, 6, 7), shifts):
            op = ops[i]
            bias = op.bias if not exact or i == 2 else np.round(op.bias // op.bias_b * factors[i]).astype(np.int64)
            acc = kernels.conv2d(q, op.weights, bias, groups=1, stride=(1, 1), dilation=(1, 1), pad=(1, 1),
                                 out_hw=q.shape[2:])
            q = np.clip((acc + (1 << (shift - 1))) >> shift, 0, 255)
            if i in (2, 4):
                f, c, h, w = q.shape
                q = q.reshape(f, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))
        return float((q == want).mean())

    net_arith = run(False, (8, 7, 7, 8))
    assert net_arith == pytest.approx(0.955013, abs=1e-6)
    assert run(True, (8, 7, 7, 8)) < net_arith - 0.005
    assert run(False, (8, 7, 8, 7)) < net_arith - 0.005


def _round_half_away(v: float) -> int:
    return int(np.trunc(np.float32(v) + np.float32(0.5))) if v > 0 else int(np.trunc(np.float32(v) - np.float32(0.5)))


def _tiny_by_hand(x: np.ndarray, f: dict) -> np.ndarray:
    """The synthetic net recomputed with Python integers and loops."""
    _, _, h, w = f["shape"]
    q = np.zeros((2, h + 2, w + 2), np.int64)  # zero-padded int8 codes
    for c, i, j in itertools.product(range(2), range(h), range(w)):
        q[c, i + 1, j + 1] = min(max(_round_half_away(float(np.float32(x[c, i, j]) * np.float32(64))), -128), 127)
    conv1 = np.zeros((6, h, w), np.int64)
    for o, i, j in itertools.product(range(6), range(h), range(w)):
        acc = int(f["b1"][o]) * 64  # biasB 64
        for c, a, b in itertools.product(range(2), range(3), range(3)):
            acc += int(q[c, i + a, j + b]) * int(f["w1"][o, c, a, b])
        conv1[o, i, j] = min(max((acc + 32) >> 6, 0), 255)
    pool = conv1.reshape(6, h // 2, 2, w // 2, 2).max(axis=(2, 4))
    conv2 = np.zeros((4, h // 2, w // 2), np.int64)
    for o, i, j in itertools.product(range(4), range(h // 2), range(w // 2)):
        c = o // 2  # groups 2: outputs 0-1 read input 0, outputs 2-3 input 1
        acc = int(f["b2"][o]) * 5  # biasB 5
        for a, b in itertools.product(range(3), range(3)):
            acc += int(q[c, 2 * i + a, 2 * j + b]) * int(f["w2"][o, 0, a, b])
        conv2[o, i, j] = min(max((acc + 16) >> 5, 0), 255)
    cat = np.concatenate([pool * 16, conv2 * 16])
    cat = np.clip((cat + 8) >> 4, 0, 255)
    return (cat.astype(np.float32) * np.float32(2)).astype(np.float32)  # 1 / 0.5


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tiny_net_against_a_literal_computation(seed: int) -> None:
    data, facts = tiny_net(seed)
    x = np.random.default_rng(seed).normal(0, 1.2, (2, 2, 8, 12)).astype(np.float32)
    em = tidl_io.emulate(data, x)
    (out,) = em.outputs.values()
    assert out.shape == (2, 10, 4, 6)
    for frame in range(2):
        assert np.array_equal(out[frame], _tiny_by_hand(x[frame], facts))


def test_inputs_by_name_list_and_shapes() -> None:
    data, _ = tiny_net(0)
    x = np.random.default_rng(5).uniform(-1, 1, (2, 8, 12)).astype(np.float32)
    one = tidl_io.emulate(data, x)  # (C, H, W): one frame
    assert one.frames == 1 and one.outputs["output_0"].shape == (1, 10, 4, 6)
    assert np.array_equal(tidl_io.emulate(data, [x[None]]).outputs["output_0"], one.outputs["output_0"])
    assert np.array_equal(tidl_io.emulate(data, {"input_0": x}).outputs["output_0"], one.outputs["output_0"])
    with pytest.raises(BufferMismatchError, match=r"expected shape \(frames x 1, 2, 8, 12\)"):
        tidl_io.emulate(data, np.zeros((1, 3, 8, 12)))
    with pytest.raises(BufferMismatchError, match="1 input"):
        tidl_io.emulate(data, [x, x])
    with pytest.raises(TensorNotFoundError, match="unknown"):
        tidl_io.emulate(data, {"nope": x})
    with pytest.raises(tidl_io.ArgumentTypeError, match="net"):
        tidl_io.emulate(42, x)  # type: ignore[arg-type]


def test_codes_and_values_of_every_layer() -> None:
    data, facts = tiny_net(1)
    x = np.random.default_rng(6).uniform(-1, 1, (1, 2, 8, 12)).astype(np.float32)
    em = tidl_io.emulate(data, x)
    assert [r.data_id for r in em.layers] == [0, 1, 2, 3, 4, 5, 6]
    assert em.codes(1).dtype == np.int8 and em.codes(2).dtype == np.uint8
    assert np.array_equal(em.values(2), em.codes(2).astype(np.float32) / np.float32(facts["s1"]))
    with pytest.raises(TensorNotFoundError):
        em.codes(99)


def test_real_eight_two_net_stops_at_its_first_layer_it_cannot_run() -> None:
    path = NET_DIR / "bbai64-deeplabv3-mnv2-8.2" / "201_tidl_net.bin"
    _need(path)
    with pytest.raises(UnsupportedLayerError, match=r"layer 1 \(TIDL_DataConvertLayer .*quantizationStyle 3"):
        tidl_io.emulate(path, np.zeros((1, 3, 512, 512), np.uint8))


def test_net_given_as_network_path_or_bytes(tmp_path: Path) -> None:
    data, _ = tiny_net(3)
    path = tmp_path / "t_tidl_net.bin"
    path.write_bytes(data)
    x = np.random.default_rng(9).uniform(-1, 1, (1, 2, 8, 12)).astype(np.float32)
    want = tidl_io.emulate(data, x).outputs["output_0"]
    assert np.array_equal(tidl_io.emulate(path, x).outputs["output_0"], want)
    assert np.array_equal(tidl_io.emulate(tidl_io.load_net(path), x).outputs["output_0"], want)
    with pytest.raises(tidl_io.ArgumentTypeError, match="pass the bytes"):
        tidl_io.emulate(tidl_io.parse_net(data), x)  # a Network of bytes: no file to read the weights from
    path.write_bytes(data + b"\0")  # the file changed since load_net read it
    net = tidl_io.load_net(tmp_path / "t_tidl_net.bin")
    path.write_bytes(data)
    with pytest.raises(tidl_io.FormatError, match="was"):
        tidl_io.emulate(net, x)


def test_nan_input_is_refused_at_the_entry() -> None:
    """NaN in an input is a BufferMismatchError naming the input and the first NaN (was: finite,
    plausible outputs); the same for a frame of several and by name."""
    data, _ = tiny_net(0)
    x = np.zeros((3, 2, 8, 12), np.float32)
    x[1, 1, 7, 3] = np.nan
    x[2, 0, 0, 0] = np.nan
    for given in (x, [x], {"input_0": x}):
        with pytest.raises(BufferMismatchError, match=r"^emulate: input 0 \(input_0\): the array holds 2 NaN "
                                                      r"value\(s\), the first at index \(1, 1, 7, 3\)"):
            tidl_io.emulate(data, given)
    x[np.isnan(x)] = np.inf  # +-inf saturate, as pack's quantization does: not refused
    assert tidl_io.emulate(data, x).frames == 3


def test_fcnn_with_recovered_biases_equals_tis_outputs_everywhere() -> None:
    """The issue's 'done when', through tidl_io.emulate: with the biases of TI's last stats run recovered from
    its means, all 153 600 values equal TI's stats_tool_out bit for bit; the default stays the net's biases
    (what the board runs), which do not."""
    x, ref = _fcnn()
    net = FCNN / f"{FCNN_NAME}_tidl_net.bin"
    em = tidl_io.emulate(net, x, biases="recovered")
    (out,) = em.outputs.values()
    assert out.size == 153600 and np.array_equal(out.view(np.uint32), ref.view(np.uint32))
    assert em.biases == "recovered" and em.moves is not None and em.moves.moved[2] == ((6, 1), (7, 1), (53, 1))
    assert "recovered from TI's means" in em.to_text() and em.to_dict()["biases"] == "recovered"
    board = tidl_io.emulate(net, x)
    assert board.biases == "net" and board.moves is None and "what the board runs" in board.to_text()
    assert not np.array_equal(next(iter(board.outputs.values())), ref)
    with_io = tidl_io.emulate(net, x, io=tidl_io.load(FCNN / f"{FCNN_NAME}_tidl_io_1.bin"), biases="recovered")
    assert np.array_equal(next(iter(with_io.outputs.values())).view(np.uint32), ref.view(np.uint32))


def test_east_stays_exact_with_recovered_biases() -> None:
    inputs, ref = _east()
    em = tidl_io.emulate(EAST / "625_tidl_net.bin", inputs, biases="recovered")
    assert np.array_equal(next(iter(em.outputs.values())).view(np.uint32), ref.view(np.uint32))


def test_recovered_biases_refusals(tmp_path: Path) -> None:
    x, _ = _fcnn()
    with pytest.raises(tidl_io.OptionError, match="biases must be 'net'"):
        tidl_io.emulate(FCNN / f"{FCNN_NAME}_tidl_net.bin", x, biases="board")
    with pytest.raises(tidl_io.OptionError, match="bytes have no folder"):
        tidl_io.emulate((FCNN / f"{FCNN_NAME}_tidl_net.bin").read_bytes(), x, biases="recovered")
    art = tmp_path / "art"
    (art / "tempDir").mkdir(parents=True)
    for name in (f"{FCNN_NAME}_tidl_net.bin", f"{FCNN_NAME}_tidl_io_1.bin"):
        (art / name).write_bytes((FCNN / name).read_bytes())
    raw = f"{FCNN_NAME}_calib_raw_data.bin"
    (art / "tempDir" / raw).write_bytes((FCNN / "tempDir" / raw).read_bytes())
    with pytest.raises(tidl_io.PathNotFoundError, match="LayerPerChannelMean.bin beside"):
        tidl_io.emulate(art / f"{FCNN_NAME}_tidl_net.bin", x, biases="recovered")
    data, _ = tiny_net(0)  # the synthetic net: no bias calibration
    (tmp_path / "t_tidl_net.bin").write_bytes(data)
    with pytest.raises(tidl_io.OptionError, match="without bias calibration"):
        tidl_io.emulate(tmp_path / "t_tidl_net.bin", np.zeros((1, 2, 8, 12), np.float32), biases="recovered")
