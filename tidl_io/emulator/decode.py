"""What each layer of a compiled net computes, decoded from the net file's bytes.

:func:`decode` turns a :class:`~tidl_io.Network` and the bytes of its file into a tuple of
operations (frozen dataclasses, one per layer, execution order), each decoded by its layer
type's module in :mod:`.ops` (the table :data:`.ops.OPS`, by TI's type name). The type modules
read the weights and biases the parameters say (file offsets, checked against the file), derive
the constants TIDL's reference flow derives at run time (the 16-bit bias split into ``bias x
biasB``, the concat's input multipliers) and refuse, with one located
:class:`~tidl_io.UnsupportedLayerError`, any parameter they have no established arithmetic for;
a type not in the table stops here. Nothing here runs a layer.
"""

from __future__ import annotations

from ..base.errors import FormatError
from ..net import Layer, Network
from .ops import OPS, Decoding, Op
from .ops.concat import ConcatOp
from .ops.convolution import ConvOp, split_bias
from .ops.data import InputOp, OutputOp
from .ops.data_convert import DataConvertOp
from .ops.pooling import PoolOp

__all__ = ["ConcatOp", "ConvOp", "DataConvertOp", "InputOp", "Op", "OutputOp", "PoolOp", "decode", "split_bias"]

_NP2_FIXED = 2  # TIDL_QuantStyleNP2Fixed


def decode(net: Network, data: bytes | memoryview) -> tuple[Op, ...]:
    """The operations of ``net`` (execution order), weights and biases read from ``data``,
    the whole net file. Raises :class:`~tidl_io.UnsupportedLayerError` at the first layer
    whose arithmetic is not implemented, :class:`~tidl_io.FormatError` when a parameter
    points outside the file."""
    d = Decoding(net, data)
    if len(data) != net.file_size:
        raise FormatError(net.source, f"the net file is {len(data)} bytes, the parsed net {net.file_size}: not the "
                          "same file")
    producers: dict[int, Layer] = {}
    ops: list[Op] = []
    for layer in net.layers:
        sources = []
        for data_id in layer.inputs:
            if data_id not in producers:
                raise d.stop(layer, f"input dataId {data_id} is produced by no earlier layer")
            sources.append(producers[data_id])
        kind = OPS.get(layer.type)
        if (kind is None or kind.quantized) and net.header.get("quantizationStyle") != _NP2_FIXED:
            raise d.stop(layer, f"quantizationStyle {net.header.get('quantizationStyle')} (only 2, NP2Fixed)")
        if kind is None or len(sources) < kind.min_inputs or (
                kind.max_inputs is not None and len(sources) > kind.max_inputs):
            raise d.stop(layer, f"layer type {layer.type} with {len(sources)} input(s)")
        ops.append(kind.decode(d, layer, sources))
        if layer.is_output:  # a role, not a type: the output data layer writes no buffer
            continue
        if layer.data_id is None:
            raise d.stop(layer, "no dataId: a layer that produces no buffer, not as the output data layer")
        if layer.data_id in producers:
            raise d.stop(layer, f"dataId {layer.data_id} is produced twice")
        producers[layer.data_id] = layer
    return tuple(ops)
