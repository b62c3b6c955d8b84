"""Which layers to put in 16 bits, and what it will cost (``tidl-io advise``): the
mixed-precision advisor. It sits above trace (the measured noise, read from a
``tidl-io compare`` report through :mod:`.source`), perf (the simulated time) and precision
(the names TIDL accepts), and owns the model (:mod:`.model`: every formula), the advice
objects with their text and JSON (:mod:`.report`) and the call (:mod:`.api`).
"""

from .api import advise
from .report import Advice, Candidate, Skipped

__all__ = ["Advice", "Candidate", "Skipped", "advise"]
