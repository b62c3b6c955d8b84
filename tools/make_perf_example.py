"""Write the bundled example's performance files in TI's layouts, so ``tidl-io perf
tidl_io/examples`` has something to show:

    tidl_io/examples/tempDir/detector_tidl_net/tempDir_detector_tidl_net_DSP1_FRQ1000_DT1_SIMD32_L3S968_DDRE0.60_EMIFP1_DDR3200_160x96.csv
    tidl_io/examples/tempDir/detector_tidl_net/bufinfolog_0.csv

    python tools/make_perf_example.py          # (re)write them
    python tools/make_perf_example.py --check  # exit 1 if the files differ from what this writes

The layers, their types and shapes come from the example net (``detector_tidl_net.bin``, 7
layers); the cycles, traffic and placement are INVENTED (a plausible C7x at 1000 MHz: the
convert and first convolution wait for data, the second convolution computes, the head and
the detection output are dominated by layer setup): this is a picture of the format, not a
measurement. The summary lines are the rows' sums, written as TI's simulator writes them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tidl_io  # the checkout's, or the installed package when run outside one

EXAMPLES = Path(tidl_io.__file__).resolve().parent / "examples"
FOLDER = EXAMPLES / "tempDir" / "detector_tidl_net"

# per layer (by index): kernel, core loop, setup, DMA pipe-up, IO cycles; DDR read/write MB;
# MSMC read/write MB; (srcMem, dstMem) of IN, OUT, WT
TABLE = {
    0: (0, 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, ("DDR", "DDR", "NONE", "DDR", "NONE", "MSMC")),
    1: (3840, 15360, 7000, 1200, 15360, 0.05, 0.0, 0.0, 0.05, ("DDR", "L2", "MSMC", "MSMC", "NONE", "MSMC")),
    2: (9600, 12800, 8600, 1500, 12800, 0.0, 0.0, 0.05, 0.06, ("MSMC", "L2", "MSMC", "MSMC", "DDR", "MSMC")),
    3: (27000, 27000, 8600, 1400, 9000, 0.01, 0.0, 0.06, 0.03, ("MSMC", "L2", "MSMC", "MSMC", "DDR", "MSMC")),
    4: (6300, 6300, 8600, 1300, 3600, 0.0, 0.03, 0.03, 0.0, ("MSMC", "L2", "MSMC", "DDR", "DDR", "MSMC")),
    5: (950, 950, 8500, 14750, 0, 0.0, 0.0, 0.03, 0.0, ("DDR", "L2", "NONE", "DDR", "NONE", "MSMC")),
    6: (0, 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, ("DDR", "L2", "NONE", "DDR", "NONE", "MSMC")),
}
CONFIG = (("CPUFREQ_MHZ", "1000"), ("L2MEMSIZE_KB", " 224"), ("MATPANELSIZE", "  32"), ("LOOPSETUP_CYCLES", "  75"),
          ("LAYERSETUP_CYCLES", "6000"), ("MMACORELOOP_OH", " 103"), ("NUMCORES", "   1"), ("CORE_START_IDX", "   0"),
          ("MSMCSIZE_KB", "1024"), ("BUSWIDTH_L3_L2", "1024"), ("BUSWIDTH_DDR", "  32"), ("DDRFREQ_MHZ", "3200"),
          ("NUMEMIF_PORTS", "   1"), ("DDR_EFFICIENCY", "0.60"), ("MSMC_EFFICIENCY", "0.90"), ("L2_EFFICIENCY", "0.95"),
          ("DATATYPE", "   0"), ("INWIDTH", " 160"), ("INHEIGHT", "  96"), ("NUMCHANNELS", "   3"),
          ("BATCH_SIZE", "   1"))
SIM_NAME = "tempDir_detector_tidl_net_DSP1_FRQ1000_DT1_SIMD32_L3S968_DDRE0.60_EMIFP1_DDR3200_160x96.csv"
GROUPS = ("In-Read", "In-Write", "Out-Read", "Out-Write", "Wt-Read", "Wt-Write", "Wt-Oneshot")


def _sim(net) -> str:
    head = (" lyrNum , LyrType,      Fr,      Fc,     Grp,   strdX,   strdY,multiCoreMode,    Pool,  pooKer, pooStrd,"
            "enableBias,      Ni,      No,     InW,     InH,    outW,    outH,procTime(us),LayerCycles,kernelOnlyCycles,"
            "coreLoopCycles,LayerSetupCycles,dmaPipeupCycles,   IOcyles,inVol(KB),outVol(KB),wtVol(KB), srcMem-IN, "
            "dstMem-IN,srcMem-OUT,dstMem-OUT, srcMem-WT, dstMem-WT,MSMCBW-R(M),MSMCBW-W(M),DDRBW-R(M),DDRBW-W(M),"
            "dataFlow,")
    lines = [head]
    sums = [0.0] * 5
    by_id = {lay.data_id: lay for lay in net.layers if not lay.is_output}
    for lay in net.layers:
        k, c, s, d, io, dr, dw, mr, mw, mem = TABLE[lay.index]
        src = by_id.get(lay.inputs[0]) if lay.inputs else lay
        _n_in, _, h_in, w_in = src.shape[-4:] if src is not None else (0, 0, 0, 0)
        ni = src.shape[-3] if src is not None else 0
        no, ho, wo = lay.shape[-3:] if not lay.is_output else (0, 0, 0)
        cycles = c + s + d
        fr = 3 if lay.type == "TIDL_ConvolutionLayer" and lay.index < 4 else 1
        stride = 2 if lay.index == 2 else 1
        in_kb = ni * h_in * w_in / 1024
        out_kb = no * ho * wo / 1024
        wt_kb = ni * no * fr * fr / 1024 if lay.type == "TIDL_ConvolutionLayer" else 0.0
        lines.append(f"{lay.index:8d},{lay.type},{fr:8d},{fr:8d},{1:8d},{stride:8d},{stride:8d},{0:8d},{0:8d},{0:8d},"
                     f"{1:8d},{int(wt_kb > 0):10d},{ni:8d},{no:8d},{w_in:8d},{h_in:8d},{wo:8d},{ho:8d},"
                     f"{cycles / 1000:8.2f},{cycles:8.2f},{k:8.2f},{c:8.2f},{s:8.2f},{d:8.2f},{io:8.2f},"
                     f"{in_kb:6.2f},{out_kb:6.2f},{wt_kb:6.2f},"
                     + "".join(f"{m:>10s}," for m in mem)
                     + f"{mr:8.2f},{mw:8.2f},{dr:8.2f},{dw:8.2f},{0 if lay.type == 'TIDL_ConvolutionLayer' else 2:8d},")
        for i, v in enumerate((cycles, mr, mw, dr, dw)):
            sums[i] += v
    cycles, mr, mw, dr, dw = sums
    lines += ["-------------------------Network summary-----------------------",
              "Release version = TI_NETWORK_COMPILER_10.00.00",
              f"Total Network Cycles (mega)        = {cycles / 1e6:8.2f}",
              f"total Network time (us)          = {cycles / 1000:8.2f}",
              f"MSMC SRAM BW (Mega Bytes) : Read  = {mr:8.2f}",
              f"MSMC SRAM BW (Mega Bytes) : Write = {mw:8.2f}",
              f"MSMC SRAM BW (Mega Bytes) : Total = {mr + mw:8.2f}",
              f"DDR BW (Mega Bytes) : Read  = {dr:8.2f}",
              f"DDR BW (Mega Bytes) : Write = {dw:8.2f}",
              f"DDR BW (Mega Bytes) : Total = {dr + dw:8.2f}",
              "---------------------------------------------------------------",
              "*********   Configuration Parameters - For internal/debug use only *************"]
    lines += [f"{k}  = {v}" for k, v in CONFIG]
    return "\n".join(lines) + "\n"


def _group(space: str, accessor: str, pitch: int, width: int, height: int, address: int) -> str:
    return f" {space}, {accessor}, {pitch}, {width}, {height}, {pitch * height + 128}, 0, {address:x},"


def _buf(net) -> str:
    head = ("Layer, Type, Ni, inW, inH, No, outW, outH, Ni/G, dataflowType, preFetch, preFetchAlign, procSize, "
            "inPlaneSize, dmaFreq, dmaFreqWt, kernelFreq, "
            + "".join(f"{g}-memSpace, {g}-accessor, {g}-pitch, {g}-width, {g}-height, {g}-size, {g}-accessOffset, "
                      f"{g}-baseAddress, " for g in GROUPS))
    empty = ",,,,,,,,"
    lines = [head]
    by_id = {lay.data_id: lay for lay in net.layers if not lay.is_output}
    for lay in net.layers:
        mem = TABLE[lay.index][-1]
        src = by_id.get(lay.inputs[0]) if lay.inputs else lay
        ni, h_in, w_in = src.shape[-3:] if src is not None else (0, 0, 0)
        no, ho, wo = lay.shape[-3:] if not lay.is_output else (0, 0, 0)
        plane = h_in * w_in
        flow = "FRAME" if lay.type == "TIDL_DataLayer" else "ROW_L" if lay.type == "TIDL_ConvolutionLayer" else " COL"
        row = (f" {lay.index}, {lay.type}, {ni}, {w_in}, {h_in}, {no}, {wo}, {ho}, {ni}, {flow}, 0, 0, {plane}, "
               f"{plane}, 1, {int(lay.type == 'TIDL_ConvolutionLayer')}, 1,")
        row += empty  # In-Read: TI leaves it empty
        row += _group(mem[1], "DMA", w_in + 64, w_in, ni, 0)
        row += empty if mem[2] == "NONE" else _group(mem[2], "CPU", wo + 64, wo, no, 0x1000 * lay.index)
        row += _group(mem[3], "DMA" if mem[3] == "DDR" else "CPU", wo + 64, wo, no, 0x10000 * lay.index)
        row += empty  # Wt-Read
        row += " NONE, NA, 0, 0, 0, 0, 0, ffffffff," if mem[4] == "NONE" else _group(mem[5], "DMA", ni * 9, ni * 9, no, 0)
        row += empty + " "  # Wt-Oneshot
        lines.append(row)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the files instead of writing them")
    args = parser.parse_args(argv)
    from tidl_io import load_net

    net = load_net(EXAMPLES / "detector_tidl_net.bin")
    files = {FOLDER / SIM_NAME: _sim(net), FOLDER / "bufinfolog_0.csv": _buf(net)}
    if args.check:
        stale = [p for p, text in files.items() if not p.is_file() or p.read_text() != text]
        for p in stale:
            print(f"{p.relative_to(ROOT)}: differs from what tools/make_perf_example.py writes")
        return 1 if stale else 0
    FOLDER.mkdir(parents=True, exist_ok=True)
    for p, text in files.items():
        p.write_text(text)
        print(f"wrote {p.relative_to(ROOT)} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
