"""The statistics of one logged tensor and the gap between two: what the views and the JSON say about numbers.

Statistics are over the *finite* values (min, max, mean in float64), with NaN, +Inf and -Inf counted apart, so one
NaN does not hide the range of the rest. The gap follows executorch's numeric comparators
(``devtools/inspector/numerical_comparator/``: MSE = mean (a-b)², L1 = sum |a-b|, SNR = 10·log10(mean a² / mean
(a-b)²), each over ``convert_to_float_tensor``, i.e. float64) — computed over the elements finite on both sides,
with the elements where the two disagree about being finite (or about which non-finite value) counted apart.
"""

from __future__ import annotations

import math

import numpy as np

from explorer.model.dtypes import dtype_name
from explorer.model.numerics import Gap, LoggedTensor, TensorStats

__all__ = ["tensor_stats", "gap", "first_nonfinite", "FIRST"]

FIRST = 8  # values kept for the details


def _num(x) -> float:
    return float(x)


def tensor_stats(t: LoggedTensor, arr: np.ndarray | None) -> TensorStats:
    """``arr`` is the tensor's elements as :func:`~explorer.format.companions.debug_buffer.read_tensor` gives them
    (None: a dtype we can't read)."""
    dtype = dtype_name(t.scalar_type)
    numel = math.prod(t.sizes)
    if arr is None:
        return TensorStats(dtype, t.sizes, numel, None, None, None, 0, 0, 0, (), readable=False)
    if arr.dtype.kind == "f":
        nan = np.isnan(arr)
        pinf = np.isposinf(arr)
        ninf = np.isneginf(arr)
        n_nan, n_pinf, n_ninf = int(nan.sum()), int(pinf.sum()), int(ninf.sum())
        finite = arr[~(nan | pinf | ninf)] if (n_nan or n_pinf or n_ninf) else arr
    else:
        n_nan = n_pinf = n_ninf = 0
        finite = arr
    lo: float | None
    hi: float | None
    mean: float | None
    if finite.size:
        lo, hi = _num(finite.min()), _num(finite.max())
        mean = _num(np.mean(finite, dtype=np.float64))
    else:
        lo = hi = mean = None
    with np.errstate(invalid="ignore", over="ignore"):
        first = tuple(float(v) for v in arr[:FIRST].astype(np.float64))
    where = first_nonfinite(arr, t.sizes) if (n_nan or n_pinf or n_ninf) else None
    return TensorStats(dtype, t.sizes, numel, lo, hi, mean, n_nan, n_pinf, n_ninf, first, where)


def first_nonfinite(arr: np.ndarray | None, shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """The index (one per dimension) of the first NaN or Inf in memory order; None when all are finite."""
    if arr is None or arr.dtype.kind != "f":
        return None
    bad = np.flatnonzero(~np.isfinite(arr))
    if not bad.size:
        return None
    flat = int(bad[0])
    return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()


def gap(a: np.ndarray | None, b: np.ndarray | None, shape_a: tuple[int, ...], shape_b: tuple[int, ...]) -> Gap:
    """How far ``b`` is from ``a`` (see the module doc); not comparable when shapes differ or a side has no numbers."""
    if a is None or b is None:
        return Gap(None, None, None, None, None, 0, 0.0, False, "a side's dtype has no numbers to compare")
    if math.prod(shape_a) != math.prod(shape_b) or a.size != b.size:
        return Gap(None, None, None, None, None, 0, 0.0, False,
                   f"shapes differ: {list(shape_a)} vs {list(shape_b)}")
    with np.errstate(invalid="ignore"):  # a signalling NaN in the buffer raises FE_INVALID as it widens: still NaN
        x = a.astype(np.float64)
        y = b.astype(np.float64)
    fx, fy = np.isfinite(x), np.isfinite(y)
    both = fx & fy
    # elements finite on one side only, or non-finite on both but not the same (NaN vs Inf, +Inf vs -Inf)
    mismatch = (fx != fy) | (~fx & ~fy & ~((np.isnan(x) & np.isnan(y)) | (x == y)))
    scale = float(np.abs(x[fx]).max()) if fx.any() else 0.0
    if not both.any():
        return Gap(None, None, None, None, None, int(mismatch.sum()), scale)
    xs, ys = x[both], y[both]
    d = xs - ys
    mse = float(np.mean(d * d))
    signal = float(np.mean(xs * xs))
    with np.errstate(divide="ignore", invalid="ignore"):
        snr = float(10 * np.log10(signal / mse)) if mse > 0 else math.inf
    nx, ny = float(np.linalg.norm(xs)), float(np.linalg.norm(ys))
    cosine = float(np.dot(xs, ys) / (nx * ny)) if nx > 0 and ny > 0 else (1.0 if nx == ny else 0.0)
    return Gap(float(np.abs(d).max()), mse, float(np.abs(d).sum()), cosine, snr, int(mismatch.sum()), scale)
