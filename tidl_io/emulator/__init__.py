"""Run a compiled network without TI: TIDL's integer arithmetic on the host, from the net file alone.

>>> em = tidl_io.emulate("artifacts/625_tidl_net.bin", x)            # doctest: +SKIP
>>> em.outputs["625"].shape, em.outputs["625"].dtype                  # doctest: +SKIP
((3, 5, 176, 320), dtype('float32'))
>>> em.write_traces("emulated_traces")                                # doctest: +SKIP

This part owns the emulator: :mod:`.ops` (one module per TI layer type, in one table
``OPS``: the type's decoding of the net's parameters and its kernel, ``Op.run``), :mod:`.decode`
(the net's layers through that table: :func:`decode`, one frozen operation per layer, or one
located :class:`~tidl_io.UnsupportedLayerError`), :mod:`.kernels` (the integer arithmetic in NumPy),
:mod:`.run` (:func:`emulate`) and :mod:`.result` (:class:`Emulation`: outputs, every layer's
codes, text / JSON, TIDL-named traces). The ``tidl-io emulate`` command is in
:mod:`tidl_io.cli.emulate`. (The package is not named ``emulate``: importing it would shadow the
facade function ``tidl_io.emulate``.)
"""

from .decode import decode, split_bias
from .result import Emulation, LayerRun, trace_name
from .run import emulate

__all__ = ["Emulation", "LayerRun", "decode", "emulate", "split_bias", "trace_name"]
