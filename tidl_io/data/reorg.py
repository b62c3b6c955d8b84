"""Reorg / space-to-depth in the three conventions deployed networks use, and their inverses.

=========== ========================================================== ===========================
``mode``    output channel of input element (c, h*s + ph, w*s + pw)    also known as
=========== ========================================================== ===========================
"darknet"   none in x's own coordinates: x is read as (N, C/s², H·s,   YOLOv2 ``[reorg]``,
            W·s), space-to-depth'ed as "dcr", relabelled               TensorRT ``Reorg_TRT``
            (N, C·s², H/s, W/s)
"dcr"       (ph·s + pw)·C + c                                          ONNX SpaceToDepth, TF
                                                                       ``space_to_depth``
"crd"       c·s² + ph·s + pw                                           PyTorch ``pixel_unshuffle``
=========== ========================================================== ===========================

Closed forms (N, C, H, W = ``x.shape``)::

    darknet: x.reshape(N, C/s², H, s, W, s).transpose(0, 3, 5, 1, 2, 4)   -> (N, C·s², H/s, W/s)
    dcr:     x.reshape(N, C, H/s, s, W/s, s).transpose(0, 3, 5, 1, 2, 4)
    crd:     x.reshape(N, C, H/s, s, W/s, s).transpose(0, 1, 3, 5, 2, 4)

Pretrained YOLOv2 weights depend on the darknet permutation, which is not a plain space-to-depth.
Each is one general-class :func:`~tidl_io.data.permute.permute` of a reshaped view, so it runs on the
blocked kernels. :func:`reorg_inverse` undoes :func:`reorg` exactly (ONNX DepthToSpace DCR,
PyTorch ``pixel_shuffle``).
"""

from __future__ import annotations

import numpy as np

from ..base.check import as_array, check_choice, check_int
from ..base.errors import GeometryError, check_out
from . import blocked as _blocked
from .permute import permute

__all__ = ["MODES", "reorg", "reorg_inverse"]

MODES = ("darknet", "dcr", "crd")

_Plan = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, int, int, int]]


def reorg(x: np.ndarray, stride: int, mode: str = "darknet", out: np.ndarray | None = None) -> np.ndarray:
    """Space-to-depth of an NCHW array: (N, C, H, W) -> (N, C·s², H/s, W/s), any dtype.

    ``mode`` is "darknet" (default; YOLOv2 / TensorRT ``Reorg_TRT``), "dcr" (ONNX SpaceToDepth)
    or "crd" (PyTorch ``pixel_unshuffle``); see the module docstring. Returns a new array (a
    copy), or writes into ``out`` (any writable array of the output shape and dtype, contiguous or
    not) and returns it. Raises :class:`~tidl_io.GeometryError` unless H and W are multiples of
    ``stride`` (and, for "darknet", C of stride²), :class:`~tidl_io.BufferMismatchError` for a
    wrong ``out``, :class:`~tidl_io.ArgumentTypeError` for a ``stride`` that is no integer,
    :class:`~tidl_io.OptionError` for a ``stride`` < 1 or an unknown ``mode``.

    >>> x = np.arange(288).reshape(2, 4, 6, 6)
    >>> reorg(x, 2)[0, :2, 0]                     # TensorRT reorgPlugin's worked example
    array([[ 0,  2,  4],
           [30, 32, 34]])
    """
    x = as_array(x, "reorg", "x")
    s, mode = _check_args("reorg", x, stride, mode)
    n, c, h, w = x.shape
    if h % s or w % s:
        raise GeometryError(f"reorg: x shape {x.shape}, stride {s}: height {h} and width {w} must be "
                            f"multiples of the stride")
    if mode == "darknet" and c % (s * s):
        raise GeometryError(f"reorg: x shape {x.shape}, stride {s} (darknet): channels {c} must be a "
                            f"multiple of stride² = {s * s}")
    if mode == "darknet":
        plan: _Plan = ((n, c // (s * s), h, s, w, s), (0, 3, 5, 1, 2, 4), (n, s, s, c // (s * s), h, w),
                       (n, c * s * s, h // s, w // s))
    elif mode == "dcr":
        plan = ((n, c, h // s, s, w // s, s), (0, 3, 5, 1, 2, 4), (n, s, s, c, h // s, w // s),
                (n, c * s * s, h // s, w // s))
    else:
        plan = ((n, c, h // s, s, w // s, s), (0, 1, 3, 5, 2, 4), (n, c, s, s, h // s, w // s),
                (n, c * s * s, h // s, w // s))
    return _run("reorg", x, plan, out)


def reorg_inverse(y: np.ndarray, stride: int, mode: str = "darknet",
                  out: np.ndarray | None = None) -> np.ndarray:
    """Depth-to-space, the exact inverse of :func:`reorg` with the same ``stride`` and ``mode``:
    (N, C, H, W) -> (N, C/s², H·s, W·s), any dtype.

    "dcr" is ONNX DepthToSpace (mode DCR), "crd" PyTorch ``pixel_shuffle``. Returns a new array (a
    copy), or writes into ``out`` and returns it. Raises :class:`~tidl_io.GeometryError` unless C
    is a multiple of stride² (stride⁴ for "darknet", whose forward input had C/s² channels
    divisible by s²), :class:`~tidl_io.BufferMismatchError` for a wrong ``out``.
    """
    y = as_array(y, "reorg_inverse", "y")
    s, mode = _check_args("reorg_inverse", y, stride, mode)
    n, c, h, w = y.shape
    need = s ** 4 if mode == "darknet" else s * s
    if c % need:
        what = f"stride⁴ = {need} (darknet)" if mode == "darknet" else f"stride² = {need}"
        raise GeometryError(f"reorg_inverse: y shape {y.shape}, stride {s}: channels {c} must be a "
                            f"multiple of {what}")
    co = c // (s * s)
    if mode == "darknet":
        plan: _Plan = ((n, s, s, co // (s * s), h * s, w * s), (0, 3, 4, 1, 5, 2),
                       (n, co // (s * s), h * s, s, w * s, s), (n, co, h * s, w * s))
    elif mode == "dcr":
        plan = ((n, s, s, co, h, w), (0, 3, 4, 1, 5, 2), (n, co, h, s, w, s), (n, co, h * s, w * s))
    else:
        plan = ((n, co, s, s, h, w), (0, 1, 4, 2, 5, 3), (n, co, h, s, w, s), (n, co, h * s, w * s))
    return _run("reorg_inverse", y, plan, out)


def _check_args(who: str, x: np.ndarray, stride: object, mode: object) -> tuple[int, str]:
    """(stride, mode): a wrong kind is an ArgumentTypeError, a stride < 1 or an unknown
    mode an OptionError."""
    mode = check_choice(mode, MODES, who, "mode")
    s = check_int(stride, who, "stride", 1)
    if x.ndim != 4:
        raise GeometryError(f"{who}: shape {x.shape}, stride {s}: expected a 4-D NCHW array")
    return s, str(mode)


def _run(who: str, x: np.ndarray, plan: _Plan, out: np.ndarray | None) -> np.ndarray:
    src_shape, perm, dst_shape, out_shape = plan
    src = x.reshape(src_shape)          # a view when x's layout allows, else NumPy copies x
    if out is None:
        result = np.empty(out_shape, dtype=x.dtype)
        permute(src, perm, out=result.reshape(dst_shape))
        return result
    check_out(out, out_shape, (x.dtype,), who)
    dst = out.reshape(dst_shape) if out.flags.c_contiguous else _blocked.view_reshape(out, dst_shape)
    if dst is not None:
        permute(src, perm, out=dst)
    else:                               # out's strides cannot express dst_shape: go through a temporary
        tmp = np.empty(out_shape, dtype=x.dtype)
        permute(src, perm, out=tmp.reshape(dst_shape))
        np.copyto(out, tmp)
    return out
