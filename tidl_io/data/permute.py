"""Axis permutations with a plan: zero-copy reshapes, cache-blocked and in-place transposes.

:func:`plan_permute` works on shapes alone (cached): it drops size-1 axes and fuses neighbouring
axes that stay together (OpenCV #16306, einops ``_optimize_transformation``) and classifies what
is left. :func:`permute` executes a plan on an array::

    >>> import numpy as np
    >>> plan_permute((8, 64, 208, 208), (0, 2, 3, 1), 4)          # NCHW -> NHWC
    PermutePlan(kind='batched_transpose', canonical=(8, 64, 43264) / (0, 2, 1), bytes_moved=88604672)
    >>> x = np.zeros((1, 1024, 1, 1), np.float32)
    >>> permute(x, (0, 2, 3, 1)).shape                            # reshape class: a view
    (1, 1, 1, 1024)

The result always equals ``np.transpose(x, perm)``; only where the bytes go differs.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import native as _native
from ..base.check import as_array, check_flag, wrong_kind
from ..base.errors import BufferMismatchError, GeometryError, OptionError, check_out
from . import blocked as _blocked

__all__ = ["PermutePlan", "permute", "plan_permute", "transpose_into"]

RESHAPE = "reshape"
TRANSPOSE2D = "transpose2d"
BATCHED = "batched_transpose"
GENERAL = "general"

try:  # NumPy >= 1.25
    from numpy.exceptions import TooHardError as _TooHardError
except ImportError:  # pragma: no cover - older NumPy
    _TooHardError = np.TooHardError  # type: ignore[attr-defined,misc]


@dataclass(frozen=True)
class PermutePlan:
    """What ``np.transpose(x, perm)`` does to the bytes of a C-contiguous ``x`` of ``shape``.

    ``canonical_shape``/``canonical_perm`` are the input shape and permutation after dropping
    size-1 axes and fusing in-order neighbours: ``out.ravel() ==
    x.reshape(canonical_shape).transpose(canonical_perm).ravel()``. ``kind`` is one of
    ``"reshape"`` (nothing moves), ``"transpose2d"``, ``"batched_transpose"`` or ``"general"``.
    ``bytes_moved`` counts the bytes a materialised result copies (each read once, written once):
    0 for the reshape class.
    """

    shape: tuple[int, ...]
    perm: tuple[int, ...]
    itemsize: int
    out_shape: tuple[int, ...]
    canonical_shape: tuple[int, ...]
    canonical_perm: tuple[int, ...]
    kind: str
    bytes_moved: int

    @property
    def transpose_dims(self) -> tuple[int, int, int, int] | None:
        """(B, R, C, E) for the two transpose classes: ``x`` is B stacked R x C matrices of
        E-element cells and the result their C x R transposes; None for other classes."""
        if self.kind not in (TRANSPOSE2D, BATCHED):
            return None
        d = list(self.canonical_shape)
        p = self.canonical_perm
        batch = d.pop(0) if p[0] == 0 else 1
        cell = d.pop() if p[-1] == len(p) - 1 else 1
        return batch, d[0], d[1], cell

    def __repr__(self) -> str:
        return (f"PermutePlan(kind={self.kind!r}, canonical={self.canonical_shape} / "
                f"{self.canonical_perm}, bytes_moved={self.bytes_moved})")


def plan_permute(shape: Sequence[int], perm: Sequence[int], itemsize: int) -> PermutePlan:
    """Plan ``np.transpose(x, perm)`` for a C-contiguous ``x`` of ``shape`` (pure, cached).

    ``perm`` follows ``np.transpose`` (output axis i is input axis ``perm[i]``; negative axes
    count from the end). Raises :class:`~tidl_io.GeometryError` for a bad shape, permutation or
    itemsize.
    """
    return _checked_plan(shape, perm, itemsize, "plan_permute")


def _checked_plan(shape: Any, perm: Any, itemsize: Any, func: str) -> PermutePlan:
    shape_t, perm_t = _ints(shape, "shape", "dims", func), _ints(perm, "perm", "axes", func)
    if isinstance(itemsize, bool) or not hasattr(itemsize, "__index__"):
        raise wrong_kind(func, "itemsize", itemsize, "an integer >= 1 (bytes per element)")
    return _plan(shape_t, perm_t, operator.index(itemsize))


def _ints(value: Any, arg: str, what: str, func: str = "permute") -> tuple[int, ...]:
    """A shape or permutation as a tuple of ints: anything else (not a sequence, or
    entries that are not integers: floats, strings, bools) is an ArgumentTypeError."""
    try:
        items = tuple(value)
    except TypeError:
        raise wrong_kind(func, arg, value, f"a sequence of integers ({what})") from None
    if any(isinstance(i, bool) or not hasattr(i, "__index__") for i in items):
        raise wrong_kind(func, arg, value, f"a sequence of integers ({what})",
                         f" {items!r}" if len(repr(items)) <= 60 else "")
    return tuple(map(operator.index, items))


@functools.lru_cache(maxsize=1024)
def _plan(shape: tuple[int, ...], perm: tuple[int, ...], itemsize: int) -> PermutePlan:
    rank = len(shape)
    if any(n < 0 for n in shape):
        raise GeometryError(f"permute: shape {shape}: expected dims >= 0")
    if itemsize < 1:
        raise GeometryError(f"permute: itemsize {itemsize}: expected >= 1")
    if len(perm) != rank:
        raise GeometryError(f"permute: perm {perm} has {len(perm)} axes, shape {shape} has {rank}")
    norm = tuple(p + rank if p < 0 else p for p in perm)
    if sorted(norm) != list(range(rank)):
        raise GeometryError(f"permute: perm {perm} is not a permutation of the axes of shape {shape} "
                            f"(expected each of 0..{rank - 1} once)")
    out_shape = tuple(shape[p] for p in norm)
    canon_shape, canon_perm = _canonical(shape, norm)
    kind = _classify(canon_perm)
    size = math.prod(shape)
    return PermutePlan(shape, norm, itemsize, out_shape, canon_shape, canon_perm, kind,
                       0 if kind == RESHAPE else size * itemsize)


def _canonical(shape: tuple[int, ...], perm: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Drop size-1 axes, then fuse runs of output axes taken from consecutive input axes."""
    kept = [i for i in range(len(shape)) if shape[i] != 1]
    rank_of = {ax: r for r, ax in enumerate(kept)}
    p = [rank_of[ax] for ax in perm if shape[ax] != 1]
    d = [shape[ax] for ax in kept]
    groups: list[list[int]] = []                  # runs of input axes, in output order
    for ax in p:
        if groups and groups[-1][-1] + 1 == ax:
            groups[-1].append(ax)
        else:
            groups.append([ax])
    by_input = sorted(range(len(groups)), key=lambda g: groups[g][0])
    new_index = {g: i for i, g in enumerate(by_input)}
    canon_shape = tuple(math.prod(d[ax] for ax in groups[g]) for g in by_input)
    canon_perm = tuple(new_index[g] for g in range(len(groups)))
    return canon_shape, canon_perm


def _classify(p: tuple[int, ...]) -> str:
    if len(p) <= 1:
        return RESHAPE
    core = list(p)
    batched = core[0] == 0
    if batched:
        core = core[1:]
    if core and core[-1] == len(p) - 1:
        core = core[:-1]
    if len(core) == 2:
        return BATCHED if batched else TRANSPOSE2D
    return GENERAL


def permute(x: np.ndarray, perm: Sequence[int], out: np.ndarray | None = None,
            inplace: bool = False) -> np.ndarray:
    """``np.transpose(x, perm)``, materialised where needed, with cache-blocked copies.

    - Reshape class (see :func:`plan_permute`) and no ``out``: returns a VIEW of ``x``; no byte
      moves.
    - Otherwise, without ``out``: returns a new C-contiguous array (a copy).
    - ``out``: any writable array of the output shape and ``x``'s dtype, contiguous or not (e.g. a
      strided view into a padded buffer); filled and returned. If ``out`` overlaps ``x``, ``x`` is
      copied first.
    - ``inplace=True``: transposes within ``x``'s own memory (``x`` must be C-contiguous and
      writable) and returns a view of that memory with the output shape; ``x``'s contents are
      overwritten. Scratch: none for the reshape class; for a square (batched) transpose two
      T x T tiles, T = min(ceil(n/2), sqrt(256 KiB / cell bytes)) — 512 KiB (0.8 %) for a
      4096 x 4096 float32 matrix; for a batched non-square transpose one slice (R*C cells,
      1/B of ``x``). Never a full-size temporary: a non-square unbatched transpose and the
      general class are refused with :class:`~tidl_io.BufferMismatchError`.

    Any dtype (object arrays too). Raises :class:`~tidl_io.GeometryError` for a bad ``perm`` and
    :class:`~tidl_io.BufferMismatchError` for an ``out`` or an in-place ``x`` that does not fit
    (:class:`~tidl_io.OptionError` for ``out=`` together with ``inplace=True``).
    """
    x = as_array(x, "permute", "x")
    plan = _checked_plan(x.shape, perm, x.itemsize, "permute")
    if check_flag(inplace, "permute", "inplace"):
        if out is not None:
            raise OptionError("permute: pass either out= or inplace=True, not both")
        return _permute_inplace(x, plan)
    if out is None:
        if plan.kind == RESHAPE:
            return x.transpose(plan.perm)
        out = np.empty(plan.out_shape, dtype=x.dtype)
    else:
        check_out(out, plan.out_shape, (x.dtype,), "permute")
        if _overlaps(x, out):
            x = x.copy()
    transpose_into(out, x, plan.perm)
    return out


def transpose_into(out: np.ndarray, x: np.ndarray, perm: tuple[int, ...]) -> None:
    """``out[...] = x.transpose(perm)`` IN PLACE for arrays whose shapes, dtypes and memory the
    caller checked (a plan: same dtype, out of the permuted shape, memory apart; ``perm``
    normalized): the native strided copy, else the cache-blocked NumPy one. No checks."""
    xt = x.transpose(perm)
    if not _native.copy(out, xt):
        _blocked.copy(out, xt)


def _overlaps(a: np.ndarray, b: np.ndarray) -> bool:
    if not np.may_share_memory(a, b):
        return False
    work: Any = 10_000                  # (NumPy's stubs only admit -1 and 0)
    try:
        return bool(np.shares_memory(a, b, max_work=work))
    except _TooHardError:
        return True


def _permute_inplace(x: np.ndarray, plan: PermutePlan) -> np.ndarray:
    if plan.kind == RESHAPE:
        return x.transpose(plan.perm)
    what = f"permute(inplace=True): shape {plan.shape}, perm {plan.perm} ({plan.kind})"
    if not x.flags.c_contiguous:
        raise BufferMismatchError(f"{what}: x must be C-contiguous to be transposed in its own memory")
    if not x.flags.writeable:
        raise BufferMismatchError(f"{what}: x is read-only")
    dims = plan.transpose_dims
    if dims is None:
        raise BufferMismatchError(f"{what}: a general permutation cannot run in place with bounded "
                                  f"scratch; pass out= instead")
    batch, rows, cols, cell = dims
    view4 = x.reshape(batch, rows, cols, cell)
    if rows == cols:
        if not _native.square_inplace(view4):
            _blocked.square_inplace(view4)
    elif batch > 1:
        _blocked.batched_inplace(view4)
    else:
        raise BufferMismatchError(f"{what}: a non-square {rows} x {cols} transpose without a batch axis "
                                  f"needs a full-size scratch in place; pass out= instead")
    return x.reshape(plan.out_shape)
