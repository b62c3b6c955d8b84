"""Hand-written TI performance files for the perf tests, in TI's layouts (the header lines are
copied from the real files in ../shared/realdata and from TIDL-RT's printf formats); every
number is literal so the tests can state what the reader must find.

A 4-layer net "tiny": 0 input data layer, 1 convolution (memory bound: its core loop waits
for data), 2 convolution (compute bound), 3 output data layer.
"""

from __future__ import annotations

from pathlib import Path

SIM_HEADER = (" lyrNum , LyrType,      Fr,      Fc,     Grp,   strdX,   strdY,multiCoreMode,    Pool,  pooKer, "
              "pooStrd,enableBias,      Ni,      No,     InW,     InH,    outW,    outH,procTime(us),LayerCycles,"
              "kernelOnlyCycles,coreLoopCycles,LayerSetupCycles,dmaPipeupCycles,   IOcyles,inVol(KB),outVol(KB),"
              "wtVol(KB), srcMem-IN, dstMem-IN,srcMem-OUT,dstMem-OUT, srcMem-WT, dstMem-WT,MSMCBW-R(M),MSMCBW-W(M),"
              "DDRBW-R(M),DDRBW-W(M),dataFlow,")

_GEOM = "       1,       1,       1,       1,       1,       0,       0,       0,       1,         0,       3,      16,      32,      32,      32,      32,"


def sim_row(index: int, kind: str, times: str, mem: str, bw: str) -> str:
    """A row: ``times`` = procTime..wtVol (10 fields), ``mem`` the six memories, ``bw`` the four MB."""
    return f"{index:8d},{kind},{_GEOM}{times},{mem},{bw},       0,"


TINY_ROWS = [
    sim_row(0, "TIDL_DataLayer", "    0.00,    0.00,    0.00,    0.00,    0.00,    0.00,    0.00,  0.00,  0.00,  0.00",
            "       DDR,       DDR,      NONE,       DDR,      NONE,      MSMC", "    0.00,    0.00,    0.00,    0.00"),
    sim_row(1, "TIDL_ConvolutionLayer", "  120.50,120500.00,40000.00,100000.00, 8000.00,12500.00,100000.00,12.00,48.00,  0.50",
            "       DDR,        L2,      MSMC,       DDR,       DDR,      MSMC", "    0.01,    0.05,    0.25,    0.05"),
    sim_row(2, "TIDL_ConvolutionLayer", "  300.25,300250.00,280000.00,280000.00, 8000.00,12250.00,90000.00,48.00,48.00,  4.50",
            "      MSMC,        L2,      MSMC,      MSMC,       DDR,      MSMC", "    0.05,    0.05,    0.01,    0.00"),
    sim_row(3, "TIDL_DataLayer", "    0.00,    0.00,    0.00,    0.00,    0.00,    0.00,    0.00,  0.00,  0.00,  0.00",
            "      MSMC,        L2,      NONE,       DDR,      NONE,      MSMC", "    0.00,    0.00,    0.00,    0.00"),
]

TINY_SUMMARY = """-------------------------Network summary-----------------------
Release version = TI_NETWORK_COMPILER_10.00.00
Total Network Cycles (mega)        =     0.42
total Network time (us)          =   420.75
MSMC SRAM BW (Mega Bytes) : Read  =     0.06
MSMC SRAM BW (Mega Bytes) : Write =     0.10
MSMC SRAM BW (Mega Bytes) : Total =     0.16
DDR BW (Mega Bytes) : Read  =     0.27
DDR BW (Mega Bytes) : Write =     0.05
DDR BW (Mega Bytes) : Total =     0.32
---------------------------------------------------------------
*********   Configuration Parameters - For internal/debug use only *************
CPUFREQ_MHZ  = 1000
L2MEMSIZE_KB  =  224
NUMCORES  =    1
MSMCSIZE_KB  = 1024
DDRFREQ_MHZ  = 3200
DDR_EFFICIENCY  = 0.60
INWIDTH  =   32
INHEIGHT  =   32
"""

TINY_SIM = SIM_HEADER + "\n" + "\n".join(TINY_ROWS) + "\n" + TINY_SUMMARY
TINY_SIM_NAME = "tempDir_tiny_tidl_net_DSP1_FRQ1000_DT1_SIMD32_L3S968_DDRE0.60_EMIFP1_DDR3200_32x32.csv"

BUF_HEADER = ("Layer, Type, Ni, inW, inH, No, outW, outH, Ni/G, dataflowType, preFetch, preFetchAlign, procSize, "
              "inPlaneSize, dmaFreq, dmaFreqWt, kernelFreq, " + "".join(
                  f"{g}-memSpace, {g}-accessor, {g}-pitch, {g}-width, {g}-height, {g}-size, {g}-accessOffset, "
                  f"{g}-baseAddress, " for g in ("In-Read", "In-Write", "Out-Read", "Out-Write", "Wt-Read", "Wt-Write",
                                                 "Wt-Oneshot")))
_EMPTY = ",,,,,,,, "

# In-Read is never logged (as in TI's files); groups: In-Write, Out-Read, Out-Write, Wt-Write
TINY_BUF = BUF_HEADER + "\n" + "\n".join([
    " 0, TIDL_DataLayer, 3, 32, 32, 3, 32, 32, 3, FRAME, 0, 0, 3072, 3072, 1, 0, 1,,,,,,,,, DDR, DMA, 1024, 1024, 2, "
    "3200, 0, 0, " + _EMPTY + "DDR, CPU, 1024, 1024, 3, 3200, 0, 0, " + _EMPTY + "MSMC, CPU, 0, 0, 0, 0, 0, ffffffff, "
    + _EMPTY,
    " 1, TIDL_ConvolutionLayer, 3, 32, 32, 16, 32, 32, 3, ROW_L, 0, 0, 1024, 1024, 4, 1, 4,,,,,,,,, L2, DMA, 1088, "
    "1056, 3, 3328, 0, 0, MSMC, CPU, 1088, 1024, 16, 17408, 0, 1a00, DDR, DMA, 1088, 1024, 16, 17408, 64, 4c000, "
    + _EMPTY + "MSMC, DMA, 48, 27, 16, 768, 0, 200, " + _EMPTY,
    " 2, TIDL_ConvolutionLayer, 16, 32, 32, 16, 32, 32, 16, ROW_L, 0, 0, 1024, 1024, 4, 1, 4,,,,,,,,, L2, DMA, 1088, "
    "1056, 16, 17408, 0, 0, " + _EMPTY + "MSMC, CPU, 1088, 1024, 16, 17408, 0, 6000, " + _EMPTY
    + "MSMC, DMA, 160, 144, 16, 2560, 0, 0, " + _EMPTY,
    " 3, TIDL_DataLayer, 16, 32, 32, 0, 0, 0, 16, FRAME, 0, 0, 1024, 1024, 1, 0, 1,,,,,,,,, L2, DMA, 0, 1024, 1, 0, 0, "
    "0, " + _EMPTY + "DDR, CPU, 1024, 0, 0, 17408, 0, 0, " + _EMPTY + "MSMC, CPU, 0, 0, 0, 0, 0, ffffffff, " + _EMPTY,
]) + "\n"

_NL_RULE = "-" * 188
TINY_NETLOG = f"""Num of Layer Detected :   4 
{_NL_RULE}
  Num|TIDL Layer Name               |Out Data Name                                     |Group |#Ins  |#Outs |Inbuf Ids                       |Outbuf Id |In NCHW                             |Out NCHW                            |MACS       |
{_NL_RULE}
    0|TIDL_DataLayer                |image                                             |     0|    -1|     1|  x   x   x   x   x   x   x   x |  0       |       0        0        0        0 |       1        3       32       32 |         0 |
    1|TIDL_ConvolutionLayer         |conv1                                             |     0|     1|     1|  0   x   x   x   x   x   x   x |  1       |       1        3       32       32 |       1       16       32       32 |    442368 |
    2|TIDL_ConvolutionLayer         |conv2                                             |     0|     1|     1|  1   x   x   x   x   x   x   x |  2       |       1       16       32       32 |       1       16       32       32 |   2359296 |
    3|TIDL_DataLayer                |conv2                                             |     0|     1|    -1|  2   x   x   x   x   x   x   x |  0       |       1       16       32       32 |       0        0        0        0 |         0 |
{_NL_RULE}
Total Giga Macs : 0.0028
{_NL_RULE}
"""

TINY_LAYER_INFO = "0 0 image \n1 1 conv1 \n2 2 conv2 \n3 0 image \n"

# TIDL-RT's format: each header name "%18s," and each value "%18" PRIu64 ",", a newline per row,
# then " Sum of Layer Cycles %lu \n" (the data layers are not rows; Layer is the layerExecId)
BOARD_COLUMNS = ("Layer", "Layer Cycles", "kernelOnlyCycles", "coreLoopCycles", "LayerSetupCycles", "dmaPipeupCycles",
                 "DDRBWReadInBytes", "DDRBWWriteInBytes")


def board_text(rows: list[tuple[int, ...]], columns: tuple[str, ...] = BOARD_COLUMNS, total: int | None = None) -> str:
    lines = ["".join(f"{c:>18s}," for c in columns)]
    lines += ["".join(f"{v:18d}," for v in row) for row in rows]
    total = sum(r[1] for r in rows) if total is None else total
    return "\n".join(lines) + f"\n Sum of Layer Cycles {total} \n"


TINY_BOARD_ROWS = [(1, 150625, 41000, 130000, 8125, 12500, 262144, 52428),
                   (2, 300250, 285000, 285000, 5000, 10250, 10240, 0)]
TINY_BOARD = board_text(TINY_BOARD_ROWS)


def write_tiny(folder: Path, *, sim: bool = True, buf: str | None = "bufinfolog_0.csv", netlog: bool = True,
               layer_info: bool = True) -> Path:
    """An artifacts folder of "tiny" with the files asked for; returns it."""
    temp = folder / "tempDir"
    sub = temp / "tiny_tidl_net"
    sub.mkdir(parents=True, exist_ok=True)
    if sim:
        (sub / TINY_SIM_NAME).write_text(TINY_SIM)
    if buf is not None:
        (sub / buf).write_text(TINY_BUF)
    if netlog:
        (temp / "tiny_tidl_net.bin_netLog.txt").write_text(TINY_NETLOG)
    if layer_info:
        (temp / "tiny_tidl_net.bin.layer_info.txt").write_text(TINY_LAYER_INFO)
    return folder
