"""Resource limits: every buffer tidl_io allocates is checked here first.

``check_alloc(nbytes, what)`` refuses an allocation larger than the cap before any
memory is touched. The cap is ``TIDL_IO_MAX_ALLOC_BYTES`` (environment, in bytes;
default :data:`DEFAULT_MAX_ALLOC_BYTES`, 1 GiB), overridable per call with
``max_bytes=``. A descriptor is untrusted input: a hostile or corrupt file can claim
tensors of terabytes.

The environment value is a whole number of bytes, optionally with a binary suffix:
``TIDL_IO_MAX_ALLOC_BYTES=268435456``, ``=256M``, ``=256MiB``, ``=2G`` (K, M, G, T are
powers of 1024; case and a trailing ``B``/``iB`` do not matter). ``0`` refuses every
allocation larger than zero bytes. Anything else -- a negative number, a fraction, text
-- is an error that names the variable, rather than a silently ignored setting.
"""

from __future__ import annotations

import operator
import os
import re

import numpy as np

from .check import found
from .errors import AllocationLimitError, ArgumentTypeError, OptionError

__all__ = ["DEFAULT_MAX_ALLOC_BYTES", "ENV_MAX_ALLOC_BYTES", "aligned_zeros", "check_alloc", "max_alloc_bytes",
           "parse_size"]

DEFAULT_MAX_ALLOC_BYTES = 1 << 30
ENV_MAX_ALLOC_BYTES = "TIDL_IO_MAX_ALLOC_BYTES"

_SIZE = re.compile(r"\s*([0-9][0-9_]{0,39})\s*(?:([kmgt])(?:i?b)?|b)?\s*", re.IGNORECASE)
_UNITS = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def parse_size(text: str, name: str = ENV_MAX_ALLOC_BYTES) -> int:
    """Bytes from ``"1073741824"``, ``"1G"``, ``"64MiB"``, ``"512k"`` (binary units).

    Raises :class:`AllocationLimitError` naming ``name`` for anything else (negative
    numbers, fractions, text).
    """
    match = _SIZE.fullmatch(text)
    if match is None or match.group(1).endswith("_") or "__" in match.group(1):
        raise AllocationLimitError(
            f"{name}={text!r}: expected a whole number of bytes >= 0, optionally with a K, M, G or T "
            f"suffix (powers of 1024), e.g. {DEFAULT_MAX_ALLOC_BYTES} or 1G"
        )
    unit = match.group(2)
    return int(match.group(1)) * (_UNITS[unit.lower()] if unit else 1)


def max_alloc_bytes(max_bytes: int | None = None, func: str | None = None) -> int:
    """The cap in force: ``max_bytes`` if given, else the environment variable, else 1 GiB.

    A ``max_bytes`` that is no integer (a string, a float, a bool) is an
    :class:`ArgumentTypeError`, a negative one an :class:`OptionError`; the message names
    ``func`` (the public function that took it) when given."""
    if max_bytes is not None:
        where = f"{func}: " if func else ""
        if isinstance(max_bytes, bool) or not hasattr(max_bytes, "__index__"):
            raise ArgumentTypeError(f"{where}max_bytes: expected a whole number of bytes >= 0 (an int) or None, "
                                    f"found {found(max_bytes)}")
        limit = operator.index(max_bytes)  # ints and numpy integers
        if limit < 0:
            raise OptionError(f"{where}max_bytes must be a whole number of bytes >= 0, found {limit}")
        return limit
    raw = os.environ.get(ENV_MAX_ALLOC_BYTES)
    if raw is None or not raw.strip():
        return DEFAULT_MAX_ALLOC_BYTES
    return parse_size(raw)


def _human(nbytes: int) -> str:
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            whole, rest = divmod(nbytes * 10 // scale, 10)  # integer arithmetic: any size formats
            return f"{whole}.{rest} {unit}"
    return f"{nbytes} B"


def check_alloc(nbytes: int, what: str, max_bytes: int | None = None, func: str | None = None) -> None:
    """Raise :class:`AllocationLimitError` if allocating ``nbytes`` for ``what`` would
    exceed the cap (see :func:`max_alloc_bytes`). Touches no memory.

    ``nbytes`` must be computed with Python ints (never NumPy fixed-width products,
    which wrap): any size, however large, is compared exactly.
    """
    limit = max_alloc_bytes(max_bytes, func)
    if nbytes < 0:
        raise AllocationLimitError(f"{what}: cannot allocate a negative size ({nbytes} bytes)")
    if nbytes > limit:
        source = "max_bytes" if max_bytes is not None else ENV_MAX_ALLOC_BYTES
        raise AllocationLimitError(
            f"{what}: allocating {nbytes} bytes ({_human(nbytes)}) exceeds the limit of "
            f"{limit} bytes ({source}); raise it with max_bytes= or {ENV_MAX_ALLOC_BYTES}"
        )


def aligned_zeros(nbytes: int, alignment: int) -> np.ndarray:
    """A NEW zero-filled 1-D uint8 array of ``nbytes`` whose address is a multiple of ``alignment``
    (a power of two); its ``base`` is the whole block (calloc: pages are zeroed lazily). The one
    aligned allocator: buffers' and the runtimes' shared memory on the host. The caller checks the
    size against the cap first (:func:`check_alloc`)."""
    block = np.zeros(nbytes + alignment, np.uint8)
    start = -block.ctypes.data % alignment
    return block[start:start + nbytes]
