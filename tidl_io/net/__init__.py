"""The compiled network ``*_tidl_net.bin``: layouts as data, the parser, the model objects.

>>> net = tidl_io.load_net("artifacts/201_tidl_net.bin")      # doctest: +SKIP
>>> net.release, len(net.layers), net.layers[2].type          # doctest: +SKIP
('8.2', 82, 'TIDL_ConvolutionLayer')
"""

from ._parse import load_net, parse_net
from .model import IoLink, Layer, Network, Section

__all__ = ["IoLink", "Layer", "Network", "Section", "load_net", "parse_net"]
