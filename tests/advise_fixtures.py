"""A hand-made model for the advisor's tests that need no golden extra: a net "adv" of a
float input, five 8-bit convolutions in a chain (scale 64: step 1/64) and an output layer,
its layer_info.txt, TI's performance simulation with literal cycles, and a compare report
(``tidl-io compare --json``'s shape) with literal SNRs and mean errors.

Per layer (``STEP`` = 1/64, n = 10^(-SNR/10)):

    layer  SNR dB  mean|e|     time us  cycles (kernel, core loop, setup, DMA)   bound
    1      40      STEP / 4    10       10000, 10000, 0, 0                       compute
    2      20      0.05        150      40000, 100000, 20000, 30000              memory
    3      30      STEP / 4    10       10000, 10000, 0, 0                       compute
    4      null (identical)    5        5000, 5000, 0, 0
    5      25      0.02        20       20000, 20000, 0, 0                       compute
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from net_fixtures import V110

from tidl_io.net.build import build_net

from perf_fixtures import SIM_HEADER, TINY_SUMMARY, sim_row

STEP = 1 / 64
NAMES = ["image", "conv1", "conv2", "conv3", "conv4", "conv5", "conv5"]
CYCLES = {1: (10000, 10000, 0, 0), 2: (40000, 100000, 20000, 30000), 3: (10000, 10000, 0, 0),
          4: (5000, 5000, 0, 0), 5: (20000, 20000, 0, 0)}
SNR = {1: 40.0, 2: 20.0, 3: 30.0, 4: None, 5: 25.0}
MEAN_ABS = {1: STEP / 4, 2: 0.05, 3: STEP / 4, 4: 0.0, 5: 0.02}


def _out(data_id: int, element: int, scale: float) -> dict[str, Any]:
    c, h, w = 8, 16, 16
    return {"dataId": data_id, "elementType": element, "numDim": 6, "tensorScale": scale, "padW": 0, "padH": 0,
            "pitch": [c * h * w, c * h * w, c * h * w, h * w, w], "dimValues": [1, 1, 1, c, h, w]}


def net_bytes() -> bytes:
    layers: list[dict[str, Any]] = [{"layerType": "TIDL_DataLayer", "numInBufs": -1, "numOutBufs": 1,
                                     "outData": _out(0, 6, 1.0)}]  # 6: float32
    for k in range(1, 6):
        layers.append({"layerType": "TIDL_ConvolutionLayer", "numInBufs": 1, "numOutBufs": 1, "inData": [k - 1],
                       "outData": _out(k, 0, 64.0)})  # 0: uint8
    layers.append({"layerType": "TIDL_DataLayer", "numInBufs": 1, "numOutBufs": -1, "inData": [5]})
    return build_net(V110, layers)


def sim_text() -> str:
    rows = [sim_row(0, "TIDL_DataLayer", ", ".join(["0.00"] * 10), ", ".join(["DDR"] * 6), "0.00, 0.00, 0.00, 0.00")]
    for k, (kern, core, setup, dma) in CYCLES.items():
        cycles = core + setup + dma
        times = f"{cycles / 1000:.2f}, {cycles:.2f}, {kern:.2f}, {core:.2f}, {setup:.2f}, {dma:.2f}, 0.00, 1.00, 1.00, 1.00"
        rows.append(sim_row(k, "TIDL_ConvolutionLayer", times, ", ".join(["DDR"] * 6), "0.00, 0.00, 0.00, 0.00"))
    rows.append(sim_row(6, "TIDL_DataLayer", ", ".join(["0.00"] * 10), ", ".join(["DDR"] * 6), "0.00, 0.00, 0.00, 0.00"))
    total = sum(c[1] + c[2] + c[3] for c in CYCLES.values()) / 1000
    summary = TINY_SUMMARY.replace("420.75", f"{total:.2f}")
    return SIM_HEADER + "\n" + "\n".join(rows) + "\n" + summary


def compare_doc() -> dict[str, Any]:
    layers: list[dict[str, Any]] = [{"index": 0, "data_id": 0, "name": "image", "type": "TIDL_DataLayer",
                                     "status": "compared", "snr_db": None, "identical": True, "mean_abs": 0.0}]
    for k in range(1, 6):
        layers.append({"index": k, "data_id": k, "name": NAMES[k], "type": "TIDL_ConvolutionLayer",
                       "status": "compared", "snr_db": SNR[k], "identical": SNR[k] is None, "mean_abs": MEAN_ABS[k],
                       "worst_channel": 0, "worst_channel_snr_db": SNR[k], "saturated": 0.0})
    return {"schema_version": 1, "layers": layers, "test": "traces in t (net adv_tidl_net.bin)"}


def write_model(folder: Path, *, sim: bool = True) -> Path:
    """The artifacts folder of "adv" (with the simulation unless ``sim`` is False); returns it."""
    temp = folder / "tempDir"
    (temp / "adv_tidl_net").mkdir(parents=True, exist_ok=True)
    (folder / "adv_tidl_net.bin").write_bytes(net_bytes())
    (temp / "adv_tidl_net.bin.layer_info.txt").write_text(
        "".join(f"{k} {min(k, 5)} {NAMES[k]}\n" for k in range(7)))
    if sim:
        (temp / "adv_tidl_net" / "tempDir_adv_tidl_net_DSP1_FRQ1000_DT1_SIMD32_L3S968_DDRE0.60_EMIFP1_DDR3200_16x16.csv"
         ).write_text(sim_text())
    (folder / "compare.json").write_text(json.dumps(compare_doc()))
    return folder
