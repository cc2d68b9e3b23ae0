"""The stored entries of a users × items matrix as CCCF's and DCF's fits read them, without copies.

At 10⁷ interactions every per-entry array is 80 MB (float64) or 40 MB (int32) beside a 120 MB
rating matrix, so the fits hold none they can compute (issue 38):

* :func:`item_major` gives the item-major view (item pointers, user ids, CSR positions) by a
  counting sort, in int32 while the entries fit (:func:`ratkit._sparse.index_dtype`);
* :class:`EntryMap` is a value per stored entry computed from the matrix's own values on use,
  v ↦ ((a·(v − lo))/span + offset)·factor (the fits' scaled targets and confidences), instead
  of an array; compiled loops read an entry with :func:`entry`, which takes an array as well;
* :func:`at` is a position map that may be None (the identity: the CSR order itself);
* :func:`exact_sum` sums per-entry terms computed a chunk at a time, as the same float
  ``numpy.sum`` gives on the whole array of terms (numpy's pairwise summation: the array is
  halved at multiples of 8 down to blocks of 128 or fewer; a chunk here is a node of that tree).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from numba import types
from numba.extending import overload

from ratkit._jit import njit
from ratkit._sparse import index_dtype

__all__ = ["EntryMap", "entry", "entry_values", "at", "item_major", "exact_sum"]

#: Entries whose terms are held at once by :func:`exact_sum` and the fit's other per-entry
#: chunks (read when called: a test may lower it to its problem's size).
CHUNK = 1 << 16


class EntryMap(NamedTuple):
    """Per-entry values ((a·(v − lo))/span + offset)·factor of the stored values v, in this order
    of operations (so each is the float numpy's elementwise expression gives)."""

    values: np.ndarray
    a: float
    lo: float
    span: float
    offset: float
    factor: float


def entry(values: np.ndarray | EntryMap, t: int) -> float:
    """The value at CSR position t: ``values[t]`` of an array, or an :class:`EntryMap` evaluated
    there (compiled code dispatches on the type)."""
    if isinstance(values, EntryMap):
        v = values.values[t]
        return ((values.a * (v - values.lo)) / values.span + values.offset) * values.factor
    return float(values[t])


@overload(entry, inline="always")
def _entry(values, t):  # pragma: no cover - compiled
    if isinstance(values, types.Array):
        return lambda values, t: values[t]

    def mapped(values, t):
        v = values.values[t]
        return ((values.a * (v - values.lo)) / values.span + values.offset) * values.factor

    return mapped


def entry_values(values: np.ndarray | EntryMap, part: slice = slice(None)) -> np.ndarray:
    """The values of the entries ``part`` as an array (a view of an array; computed for a map)."""
    if isinstance(values, EntryMap):
        return ((values.a * (values.values[part] - values.lo)) / values.span + values.offset) * values.factor
    return values[part]


@njit
def at(pos_map, t):  # pragma: no cover - compiled
    """``pos_map[t]``, or t when ``pos_map`` is None (the identity, with no array)."""
    if pos_map is None:
        return t
    return pos_map[t]


def item_major(R: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(item_ptr, users, CSR position) of the stored entries in item-major order, users ascending
    within an item (the order of ``R.tocsc()`` with sorted indices): a counting sort over the
    rows in order, no per-entry temporary. Users and positions are int32 while they fit."""
    m, n = R.shape
    item_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(R.indices, minlength=n), out=item_ptr[1:])
    index = index_dtype(R.nnz, m)  # positions < nnz, user ids < m
    users = np.empty(R.nnz, dtype=index)
    pos = np.empty(R.nnz, dtype=index)
    _counting_sort(R.indptr, R.indices, item_ptr, users, pos)
    return item_ptr, users, pos


@njit
def _counting_sort(indptr, indices, item_ptr, users, pos):  # pragma: no cover - compiled
    fill = item_ptr[:-1].copy()
    for i in range(indptr.shape[0] - 1):
        for t in range(indptr[i], indptr[i + 1]):
            j = indices[t]
            users[fill[j]] = i
            pos[fill[j]] = t
            fill[j] += 1


def exact_sum(n: int, terms: Callable[[slice], np.ndarray], chunk: int | None = None) -> float:
    """Σ of n terms, ``terms(part)`` giving those of a slice: the float ``numpy.sum`` returns on
    the whole (contiguous, float64) array of terms, with at most ``chunk`` terms held at once.
    numpy sums a contiguous array pairwise, splitting n entries at ⌊n/2⌋ rounded down to a
    multiple of 8 down to blocks of at most 128; any node of that tree summed by numpy alone
    is summed the same way, so nodes of at most ``chunk`` terms are, and their sums are added
    as numpy adds them."""
    return _tree_sum(0, n, terms, max(CHUNK if chunk is None else chunk, 128))


def _tree_sum(lo: int, n: int, terms: Callable[[slice], np.ndarray], chunk: int) -> float:
    if n <= chunk:
        return float(np.sum(terms(slice(lo, lo + n)))) if n else 0.0
    half = n // 2
    half -= half % 8
    return _tree_sum(lo, half, terms, chunk) + _tree_sum(lo + half, n - half, terms, chunk)
