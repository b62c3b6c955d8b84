"""``tidl-io report`` (:func:`tidl_io.report`): one page per model. :func:`report` runs each part on the folder (doctor,
the net, perf, why, quant, and with traces or a golden run compare and advise, the emulator's
self-check against TI's dumps) and holds each part's own object in a :class:`Section`;
:class:`ModelReport` composes the parts' own renderers into one self-contained page (it renders
none of their data itself). The top floor of the library: it imports every part, none imports it. (Named ``overview``: ``tidl_io.report`` is the function.)"""

from .build import report
from .model import ModelReport, Section

__all__ = ["ModelReport", "Section", "report"]
