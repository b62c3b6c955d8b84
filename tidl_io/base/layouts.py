"""The one array-layout resolver: how a user array's axes map to a tensor's logical
(N, DIM1, DIM2, C, H, W).

Layout names (any case): "NCHW" (channels first: the 6-D shape, it without leading size-1
axes, or (N, C, H, W) when DIM1 = DIM2 = 1), "NHWC" (the same, channels last), "CHW" and
"HWC" (one image: exactly 3 axes). Everything here works on shape tuples and is cached;
the only array operation, :func:`canonical`, returns a view. Used by
:func:`tidl_io.data.plan.plan_pack` / ``plan_unpack`` (:func:`parse_layout`, :func:`accepted_shapes`),
:class:`tidl_io.Session` (:func:`detect`, :func:`canonical`: the layout may be left to the
array's shape) and :meth:`tidl_io.RtTensor.from_array` (:func:`dims_of`: no tensor, the
array's shape gives the dims).

>>> detect((1, 1, 1, 3, 4, 5), (4, 5, 3), None, None)
('HWC', True)
>>> dims_of((4, 5, 3), "HWC", "'img'")
((1, 1, 1, 3, 4, 5), True)
"""

from __future__ import annotations

import functools

import numpy as np

from .check import check_layout
from .errors import BufferMismatchError

Shape6 = tuple[int, int, int, int, int, int]

CL = (0, 1, 2, 4, 5, 3)  # (N, DIM1, DIM2, C, H, W) -> (N, DIM1, DIM2, H, W, C)
CF = (0, 1, 2, 3, 4, 5)
_FROM_CL = (0, 1, 2, 5, 3, 4)  # channels-last 6-D -> (N, DIM1, DIM2, C, H, W)

_NAMES = {"NCHW": (False, False), "NHWC": (True, False), "CHW": (False, True), "HWC": (True, True)}


def parse_layout(layout: str, label: str) -> tuple[str, bool, bool]:
    """(canonical name, channels_last, rank-3 only) for a layout name in any case."""
    name = check_layout(layout, label)
    channels_last, rank3 = _NAMES[name]
    return name, channels_last, rank3


@functools.lru_cache(maxsize=1024)
def accepted_shapes(shape6: tuple[int, ...], channels_last: bool, rank3: bool = False) -> tuple[tuple[int, ...], ...]:
    """User shapes accepted for a tensor of logical shape ``shape6``: the 6-D shape in user
    axis order, it without leading size-1 axes, and the 4-D (N, C, H, W) / (N, H, W, C)
    form when DIM1 = DIM2 = 1; those of 3 axes only for ``rank3`` ("CHW", "HWC")."""
    user = tuple(shape6[i] for i in (CL if channels_last else CF))
    forms = [user]
    for j in range(1, 6):
        if user[j - 1] != 1:
            break
        forms.append(user[j:])
    if shape6[1] == 1 and shape6[2] == 1:
        forms.append((user[0],) + user[3:])
    return tuple(f for f in dict.fromkeys(forms) if not rank3 or len(f) == 3)


def fits(shape6: tuple[int, ...], shape: tuple[int, ...], channels_last: bool, rank3: bool) -> bool:
    """Whether an array of ``shape`` is the tensor's data in that layout."""
    return shape in accepted_shapes(shape6, channels_last, rank3)


def check_shape(shape6: tuple[int, ...], shape: tuple[int, ...], channels_last: bool, rank3: bool, layout: str,
                label: str) -> None:
    """Nothing when :func:`fits`, else a BufferMismatchError listing the accepted shapes."""
    if fits(shape6, shape, channels_last, rank3):
        return
    raise shape_error(shape6, shape, channels_last, rank3, layout, label)


def shape_error(shape6: tuple[int, ...], shape: tuple[int, ...], channels_last: bool, rank3: bool, layout: str,
                label: str) -> BufferMismatchError:
    """The error :func:`check_shape` raises for data of ``shape`` that does not fit (listing the
    accepted shapes), for a caller that holds the accepted shapes already."""
    forms = accepted_shapes(shape6, channels_last, rank3)
    names = "(N, DIM1, DIM2, H, W, C)" if channels_last else "(N, DIM1, DIM2, C, H, W)"
    hint = "" if channels_last else "; for channels-last data pass layout='NHWC' (or 'HWC')"
    user = tuple(shape6[i] for i in (CL if channels_last else CF))
    return BufferMismatchError(
        f"{label}: data of shape {shape} does not fit layout {layout!r}: the tensor is {names} = {user}; "
        f"accepted shapes: {', '.join(map(str, forms)) or 'none of rank 3'}{hint}")


_COMPATIBLE = {"NCHW": ("NCHW", "CHW"), "NHWC": ("NHWC", "HWC"), "CHW": ("CHW",), "HWC": ("HWC",)}


@functools.lru_cache(maxsize=1024)
def detect(shape6: tuple[int, ...], shape: tuple[int, ...], layout: str | None,
           hint: str | None) -> tuple[str, bool] | None:
    """(layout name, channels_last) of an array of ``shape`` for a tensor of ``shape6``, or
    None when it fits no layout. Channels first wins over channels last; a 3-axis array is
    "CHW"/"HWC". ``layout`` (a canonical name) insists on one; ``hint`` (a canonical name,
    e.g. param.yaml's ``input_data_layout``) breaks a tie."""
    candidates = [name for name, (cl, rank3) in _NAMES.items()
                  if (len(shape) == 3) == rank3 and fits(shape6, shape, cl, rank3)]
    if layout is not None:
        candidates = [f for f in candidates if f in _COMPATIBLE[layout]]
    elif hint is not None:
        candidates = [f for f in candidates if f in _COMPATIBLE[hint]] or candidates
    if not candidates:
        return None
    return candidates[0], _NAMES[candidates[0]][0]


def canonical(x: np.ndarray, shape6: tuple[int, ...], channels_last: bool) -> np.ndarray:
    """A VIEW of ``x`` (a shape :func:`fits` accepted) as (N, DIM1, DIM2, C, H, W)."""
    if not channels_last:
        return x.reshape(shape6)
    return x.reshape(tuple(shape6[i] for i in CL)).transpose(_FROM_CL)


def dims_of(shape: tuple[int, ...], layout: str, label: str) -> tuple[Shape6, bool]:
    """((N, DIM1, DIM2, C, H, W), channels_last) of a dense array of ``shape`` in ``layout``
    (a canonical name) when there is no tensor to match: "NCHW" takes up to 6 axes (fewer
    get leading 1s; 5 axes are (DIM1, DIM2, C, H, W)), "NHWC" up to 4 (N, H, W, C), "CHW" and
    "HWC" exactly 3; else a BufferMismatchError starting with ``label``."""
    channels_last, rank3 = _NAMES[layout]
    if rank3 and len(shape) != 3:
        axes = "(H, W, C)" if channels_last else "(C, H, W)"
        raise BufferMismatchError(f"{label}: a {layout} array has 3 axes {axes}, found shape {shape}")
    limit = 4 if channels_last else 6
    if len(shape) > limit:
        axes = "(N, H, W, C)" if channels_last else "(N, DIM1, DIM2, C, H, W)"
        raise BufferMismatchError(f"{label}: an {layout} array has at most {limit} axes {axes}, found shape {shape}")
    if len(shape) <= 4:
        n, a, b, c = (1,) * (4 - len(shape)) + tuple(shape)
        return ((n, 1, 1, c, a, b) if channels_last else (n, 1, 1, a, b, c)), channels_last
    n, d1, d2, c, h, w = (1,) * (6 - len(shape)) + tuple(shape)
    return (n, d1, d2, c, h, w), False
