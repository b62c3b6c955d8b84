"""The binding to TI's TIDL-RT C library (board and TI's PC emulation).

- :mod:`._structs`: ``sTIDLRT_*`` layouts from ``schemas/tidlrt/*.yaml`` compiled to ctypes,
  the release / TIDL_NET_VERSION table, the fingerprint of a layout;
- :mod:`._library`: finding and loading the library, its functions, guarded structs and
  shared-heap blocks;
- :mod:`._select`: choosing the layout family for a library and a model;
- :mod:`._preflight`: what TI's board runtime needs (devices, remote cores), checked first;
- :mod:`._trial`: the first ``TIDLRT_create`` in a child process, a crash there an error;
- :mod:`.runtime`: :class:`TidlRtRuntime`, the :class:`~tidl_io.runtime.Runtime` over it.
"""

from __future__ import annotations

from ._select import probe, select_family
from ._trial import trial_create
from .devices import ENV_PREFLIGHT, preflight
from .library import ENV_LIBRARY, ENV_VERSION, Library, load_library
from .runtime import TidlRtRuntime, is_available
from .structs import Family, families, releases

__all__ = ["ENV_LIBRARY", "ENV_PREFLIGHT", "ENV_VERSION", "Family", "Library", "TidlRtRuntime", "families",
           "is_available", "load_library", "preflight", "probe", "releases", "select_family", "trial_create"]
