"""Golden ``.npz`` files read one array at a time, straight from the file, as untrusted input.

The reader is :class:`tidl_io.data.arrays.NpzArrays` (the one reader of users' array files:
bounded headers, numeric dtypes only, no pickle, data read in place); trace's modules import it
from here.
"""

from __future__ import annotations

from ..data.arrays import Member, NpzArrays

__all__ = ["Member", "NpzArrays"]
