"""What every layer type's module shares: :class:`Op` (one decoded layer, run by
:meth:`Op.run`), :class:`OpType` (a row of the registry), :class:`Decoding` (the net being
decoded and its one-line stop) and the parameter checks the types share.

The arithmetic is TIDL's reference ("NatC") flow, the one TI's import tool runs on the
calibration frames (``tempDir/*_stats_tool_out.bin``), for ``quantizationStyle`` 2
(``TIDL_QuantStyleNP2Fixed``: power-of-two shifts, per-tensor scales, zero points 0).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...base.errors import FormatError, UnsupportedLayerError
from ...net import Layer, Network

__all__ = ["FLOAT", "INT_TYPES", "Decoding", "Op", "OpType", "check_quant", "f32", "int_dtype", "need", "read",
           "sat", "scales"]

# TI's codes (itidl_ti.h)
FLOAT, INT_TYPES = 6, {0: np.uint8, 1: np.int8, 2: np.uint16, 3: np.int16}


@dataclass(frozen=True)
class Op:
    """One layer's operation: the layer, the dataIds it reads and the one it writes; :meth:`run`
    computes its buffer."""

    layer: Layer = field(repr=False)

    @property
    def index(self) -> int:
        return self.layer.index

    @property
    def inputs(self) -> tuple[int, ...]:
        return self.layer.inputs

    @property
    def data_id(self) -> int:
        """The dataId of the buffer this operation writes (the decoder refuses a computing
        layer without one; only output data layers have none)."""
        data_id = self.layer.data_id
        if data_id is None:
            raise UnsupportedLayerError(f"layer {self.layer.index} ({self.layer.type}) produces no buffer",
                                        index=self.layer.index, layer_type=self.layer.type, name=self.layer.name)
        return data_id

    def run(self, args: Sequence[np.ndarray], inputs: Mapping[int, np.ndarray]) -> np.ndarray:
        """This layer's output (frames, C, H, W) from its input buffers ``args`` (in
        ``self.inputs`` order); ``inputs``: the user's arrays by dataId (for input layers)."""
        raise NotImplementedError(type(self).__name__)


class Decoding:
    """The net being decoded, its file's bytes, and the one-line stop for a layer."""

    def __init__(self, net: Network, data: bytes | memoryview) -> None:
        self.net = net
        self.data = data

    def stop(self, layer: Layer, what: str) -> UnsupportedLayerError:
        name = f" {layer.name!r}" if layer.name else ""
        return UnsupportedLayerError(
            f"{self.net.source}: layer {layer.index} ({layer.type}{name}): {what} (not implemented by tidl-io's "
            f"emulator for TIDL {self.net.release})", index=layer.index, layer_type=layer.type, name=layer.name)


@dataclass(frozen=True)
class OpType:
    """One row of the registry: TI's layer type ``name``, its ``decode(decoding, layer,
    sources) -> Op``, how many inputs it takes (``min_inputs`` .. ``max_inputs``, None: any),
    whether it needs quantizationStyle 2; for the README: ``what`` is emulated, for which
    ``releases``, and how it was ``checked``."""

    name: str
    decode: Callable[[Decoding, Layer, list[Layer]], Op]
    what: str
    releases: str
    checked: str
    min_inputs: int = 1
    max_inputs: int | None = 1
    quantized: bool = True


def int_dtype(layer: Layer, d: Decoding, what: str = "output") -> np.dtype:
    dtype = INT_TYPES.get(layer.element_code)
    if dtype is None:
        raise d.stop(layer, f"{what} element type {layer.element_code} (only 8- and 16-bit integer codes)")
    return np.dtype(dtype)


def sat(dtype: np.dtype) -> tuple[int, int]:
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def need(layer: Layer, d: Decoding, *names: str) -> dict[str, Any]:
    p = dict(layer.params)
    missing = [n for n in names if n not in p]
    if missing:
        raise d.stop(layer, f"the parameter layout of this layer type is not established for this release "
                            f"(missing {', '.join(missing)})")
    return p


def check_quant(layer: Layer, d: Decoding, *layers: Layer) -> None:
    for la in (layer, *layers):
        if la.zero_point != 0:
            raise d.stop(layer, f"tensorZeroPoint {la.zero_point} of dataId {la.data_id} (asymmetric quantization)")


def scales(layer: Layer, d: Decoding, *layers: Layer) -> None:
    """Every integer tensor's tensorScale must be a positive finite float32."""
    for la in (layer, *layers):
        if la.element_code != FLOAT and not (0 < la.scale < np.inf):
            raise d.stop(layer, f"tensorScale {la.scale} of dataId {la.data_id}")


def f32(*values: float) -> np.ndarray:
    return np.array(values, np.float32)


def read(d: Decoding, offset: int, count: int, dtype: Any, layer: Layer, member: str) -> np.ndarray:
    """``count`` items of ``dtype`` at file offset ``offset``, checked against the file."""
    size = count * np.dtype(dtype).itemsize
    if offset < 0 or offset + size > len(d.data):
        raise FormatError(d.net.source, f"layer {layer.index} ({layer.type}): {member} [{offset}, {offset + size}) "
                          f"lies outside the file (0..{len(d.data)})", field=f"TIDLLayers[{layer.index}].{member}")
    return np.frombuffer(d.data, dtype, count, offset)
