"""``TIDL_DataLayer``: an input data layer hands the user's array on (float32, or codes of its
element type); an output data layer hands its one input buffer back to the caller."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...net import Layer
from .base import FLOAT, Decoding, Op, OpType, int_dtype

__all__ = ["TYPE", "InputOp", "OutputOp"]


@dataclass(frozen=True)
class InputOp(Op):
    """An input data layer: the user's array, float32 or codes of ``dtype``."""

    dtype: np.dtype = field(default=np.dtype(np.float32))

    def run(self, args: Sequence[np.ndarray], inputs: Mapping[int, np.ndarray]) -> np.ndarray:
        return inputs[self.data_id]


@dataclass(frozen=True)
class OutputOp(Op):
    """An output data layer: hands its one input buffer back to the caller."""

    def run(self, args: Sequence[np.ndarray], inputs: Mapping[int, np.ndarray]) -> np.ndarray:
        return args[0]


def decode(d: Decoding, layer: Layer, sources: list[Layer]) -> Op:
    if layer.is_output:
        if len(sources) != 1:
            raise d.stop(layer, f"{len(sources)} inputs")
        return OutputOp(layer)
    if not layer.is_input or sources:
        raise d.stop(layer, f"a data layer that is neither the net's input nor its output ({len(sources)} inputs)")
    if layer.element_code == FLOAT:
        return InputOp(layer, np.dtype(np.float32))
    return InputOp(layer, int_dtype(layer, d))


TYPE = OpType("TIDL_DataLayer", decode, "inputs (float32, or codes of the layer's type) and outputs",
              "9.0 / 9.1, 10.0 / 10.1", "bit for bit against TI's dumps (EAST 9.0, fcnn-cnn5 9.0)",
              min_inputs=0, quantized=False)
