"""``np.unique`` and ``np.isin`` without their fixed cost, for the many small arrays of a many-plan program.

numpy 2's ``unique`` costs ~9 µs on twenty integers, ~35 µs with ``return_inverse`` (it reshapes the inverse
through ``moveaxis``), and ``isin`` ~22 µs (it picks a method by scanning both arrays' ranges first). The
analysis, the views and the text call them a few dozen times per plan, so a program of 3,500 small plans spent
seconds on that fixed cost alone (issue 30's budget). These answer exactly what numpy answers (same values,
same dtypes, same shapes) for short one-dimensional integer and boolean arrays, the only kind these layers pass,
in a few array operations; anything else (a long array included) goes to numpy itself, so a caller never has to
know which path ran.
"""

from __future__ import annotations

import numpy as np

__all__ = ["unique", "unique_rows", "isin"]

_FEW = 16  # test values isin compares one by one; more go to numpy's own method
_SHORT = 4096  # past this many items the fixed cost is noise and numpy's methods (hashing, tables) are faster
_KINDS = "biu"


def unique(ar, return_index: bool = False, return_inverse: bool = False, return_counts: bool = False):
    """``np.unique(ar, return_index=..., return_inverse=..., return_counts=...)`` (no ``axis``)."""
    a = ar if isinstance(ar, np.ndarray) else np.asarray(ar)
    if a.ndim != 1 or a.dtype.kind not in _KINDS or a.size > _SHORT:  # a long array: numpy's own methods win
        return np.unique(a, return_index=return_index, return_inverse=return_inverse,  # type: ignore[call-overload]
                         return_counts=return_counts)
    n = a.size
    # stable: the first occurrence of each value leads its run, as numpy's
    perm = a.argsort(kind="stable") if return_index or return_inverse else np.zeros(0, dtype=np.intp)
    aux = a[perm] if return_index or return_inverse else np.sort(a)
    mask = np.empty(n, dtype=bool)
    if n:
        mask[0] = True
        np.not_equal(aux[1:], aux[:-1], out=mask[1:])
    uniq = aux[mask]
    if not (return_index or return_inverse or return_counts):
        return uniq
    out = _index_inverse(uniq, perm, mask, return_index, return_inverse)
    if return_counts:
        starts = np.flatnonzero(mask)
        out.append(np.diff(np.append(starts, n)))
    return tuple(out)


def unique_rows(ar, return_index: bool = False, return_inverse: bool = False):
    """``np.unique(ar, axis=0, return_index=..., return_inverse=...)`` of a 2-D integer array: its distinct rows
    in lexicographic order (numpy sorts rows as records, field by field), one sort of the columns."""
    a = ar if isinstance(ar, np.ndarray) else np.asarray(ar)
    if a.ndim != 2 or a.dtype.kind not in _KINDS or not a.shape[1] or a.shape[0] > _SHORT:
        return np.unique(a, axis=0, return_index=return_index,  # type: ignore[call-overload]
                         return_inverse=return_inverse)
    n = a.shape[0]
    perm = np.lexsort(a.T[::-1])  # stable, first column first
    aux = a[perm]
    mask = np.empty(n, dtype=bool)
    if n:
        mask[0] = True
        np.any(aux[1:] != aux[:-1], axis=1, out=mask[1:])
    uniq = aux[mask]
    if not (return_index or return_inverse):
        return uniq
    return tuple(_index_inverse(uniq, perm, mask, return_index, return_inverse))


def _index_inverse(uniq, perm, mask, return_index: bool, return_inverse: bool) -> list:
    """``[uniq]`` and what numpy's ``unique`` returns after it, from the stable sort ``perm`` and the run starts
    ``mask``: each distinct value's first index, each element's position in ``uniq``."""
    out = [uniq]
    if return_index:
        out.append(perm[mask])
    if return_inverse:
        inverse = np.empty(len(mask), dtype=np.intp)
        inverse[perm] = np.cumsum(mask) - 1
        out.append(inverse)
    return out


def isin(element, test_elements) -> np.ndarray:
    """``np.isin(element, test_elements)``: per element of ``element``, whether it equals one of the tests."""
    a = element if isinstance(element, np.ndarray) else np.asarray(element)
    tests = test_elements if isinstance(test_elements, np.ndarray) else np.asarray(test_elements)
    if a.dtype.kind not in _KINDS or tests.dtype.kind not in _KINDS or tests.size > _FEW or a.size > _SHORT:
        return np.isin(a, tests)
    out = np.zeros(a.shape, dtype=bool)
    for t in tests.ravel().tolist():
        out |= a == t
    return out
