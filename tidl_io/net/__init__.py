"""The compiled network ``*_tidl_net.bin``: layouts as data, the parser, the model objects.

>>> net = tidl_io.load_net("artifacts/201_tidl_net.bin")      # doctest: +SKIP
>>> net.release, len(net.layers), net.layers[2].type          # doctest: +SKIP
('8.2', 82, 'TIDL_ConvolutionLayer')

- :func:`load_net` (a path: reads the structure part only, and ``layer_info.txt`` names) and
  :func:`parse_net` (the file's bytes) give a :class:`Network`;
- :class:`Network`: ``net_version``, ``release`` (``"9.0/9.1"``), ``releases`` (``("09.00",
  "09.01")``), ``layout_key``, ``num_cores``, ``layers`` (execution order), ``sections``,
  ``header`` (TI names), ``source``, ``file_size``; ``layer(data_id=|name=|index=)``,
  ``layer_by_data_id``, ``layer_by_name``, ``edges``, ``input_layers``, ``output_layers``,
  ``link_io(desc)`` -> ``{("input"|"output", i): IoLink}``;
- :class:`Layer`: ``index``, ``type``, ``type_code``, ``name``, ``inputs``, ``data_id``,
  ``num_in``, ``num_out``, ``element_type``, ``dtype``, ``dims``, ``shape``, ``pads``,
  ``pitches``, ``scale``, ``zero_point``, ``layout`` (NCHW / NHWC / None), ``geometry``
  (None where the file defines no buffer), ``params``, ``raw``, ``is_input``, ``is_output``;
- :class:`Section` (``name``, ``offset``, ``size``, ``end``) and :class:`IoLink`;
- the one reader of each text file TI writes beside the net: :mod:`.layerinfo`
  (``layer_info.txt``) and :mod:`.netlog` (``<net>_netLog.txt``).

Layouts live in ``schemas/net/*.yaml``; which netVersion uses which, in the release table
``schemas/releases.yaml`` (:mod:`tidl_io.base.releases`).
"""

from .model import IoLink, Layer, Network, Section
from .parse import load_net, parse_net

__all__ = ["IoLink", "Layer", "Network", "Section", "load_net", "parse_net"]
