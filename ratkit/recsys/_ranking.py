"""Top-n selection over score rows: the one ranking every recommender and the evaluation use.

The order is the one a stable descending sort gives, ``np.argsort(-row, kind="stable")``:
larger scores first, ``-inf`` after every finite score, NaN after everything, and equal
scores (NaNs included) by the smaller item index. :func:`top_n` selects it in one
compiled pass per row with a bounded heap of the ``n`` best seen so far (``O(m·c·log n)``
for ``m`` rows of ``c`` scores, against ``O(m·c·log c)`` for sorting every row): an entry
is compared with the heap's worst and enters only if it ranks before it, so on random
scores almost every entry costs one comparison. Ties are decided by the index, never by
the partition order of a selection algorithm, so rows with many equal scores
(popularity, integer code scores) give the same answer as the stable sort. When more than
a quarter of a float row is asked for, sorting the row is faster and gives the same order,
so :func:`top_n` sorts it.

:func:`select` is what ``recommend``, ``similar_items`` and ``similar_users`` rank with:
filters, candidate lists, padding and int32 ids around :func:`top_n`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from ratkit._jit import njit
from ratkit._sparse import index_dtype
from ratkit.exceptions import ParameterError
from ratkit.limits import check_bytes
from ratkit.recsys._validation import check_ids

__all__ = ["exclude_rows", "top_n", "top_k_row", "top_k_rows", "select", "check_places"]

#: Above this fraction of a row's columns, :func:`top_n` sorts float rows (numpy's stable
#: sort of the negated scores, the same order) instead of selecting: a heap of more than
#: about a third of the row is slower than the sort (``python -m bench.recsys.top_k``).
_SORT_FRACTION = 0.25

#: What :func:`top_k_rows` returns when its arrays do not fit together (success is −1).
_BAD_SHAPES = -2


def exclude_rows(scores: np.ndarray, user_items: sp.csr_matrix, users: np.ndarray) -> None:
    """In place, ``scores[r, j] = -inf`` for each item ``j`` of user ``users[r]``."""
    rows = user_items[users]
    counts = np.diff(rows.indptr)
    scores[np.repeat(np.arange(len(users)), counts), rows.indices] = -np.inf


@njit
def _after(va: Any, ia: int, vb: Any, ib: int) -> bool:  # pragma: no cover - compiled
    """Whether entry (value ``va``, index ``ia``) ranks after (``vb``, ``ib``): smaller value,
    NaN after every number, equal values (two NaNs too) by the larger index."""
    if va != va:
        return vb == vb or ia > ib
    if vb != vb:
        return False
    return va < vb or (va == vb and ia > ib)


@njit
def _sift_down(bv: Any, bi: Any, size: int, value: Any, index: int) -> None:  # pragma: no cover - compiled
    """Put (``value``, ``index``) at the root of the heap ``bv``/``bi`` of ``size`` entries (the
    root is the entry that ranks last) and move it down to its place."""
    p = 0
    while True:
        c = 2 * p + 1
        if c >= size:
            break
        if c + 1 < size and _after(bv[c + 1], bi[c + 1], bv[c], bi[c]):
            c += 1
        if not _after(bv[c], bi[c], value, index):
            break
        bv[p] = bv[c]
        bi[p] = bi[c]
        p = c
    bv[p] = value
    bi[p] = index


#: Entries :func:`top_k_row` compares with the heap's worst at once: a block none of which
#: ranks before it is passed over by one vectorised test (most blocks, once the heap holds
#: good entries), so the pass costs about a comparison per entry in SIMD lanes.
_BLOCK = 64


@njit
def top_k_row(row: Any, k: int, bi: Any, bv: Any) -> None:  # pragma: no cover - compiled
    """Fill ``bi``/``bv`` (length ``k``, ``1 ≤ k ≤ len(row)``, unchecked) with the ``k`` best
    entries of ``row``, best first (the order of :mod:`this module <ratkit.recsys._ranking>`).

    One pass over the entries in index order keeps the ``k`` best seen so far in a binary heap
    stored in ``bi``/``bv``, the worst at the root; an entry enters only if it ranks before the
    root (a strict comparison suffices: every entry already kept has a smaller index, so an
    equal score stays behind). While the root is a number, blocks of :data:`_BLOCK` entries are
    first tested together (is any larger than the root? NaN is not, and ranks after it), and
    only a block that has one is visited entry by entry. A heap sort then orders the ``k``
    kept entries in place, best first.
    """
    n = row.shape[0]
    for j in range(k):  # the first k entries: push each, moving it up past better parents
        x = row[j]
        p = j
        while p > 0:
            parent = (p - 1) >> 1
            if not _after(x, j, bv[parent], bi[parent]):
                break
            bv[p] = bv[parent]
            bi[p] = bi[parent]
            p = parent
        bv[p] = x
        bi[p] = j
    worst = bv[0]
    worst_nan = worst != worst
    j = k
    while j < n:
        if not worst_nan and j + _BLOCK <= n:
            larger = 0
            for q in range(j, j + _BLOCK):  # vectorised (a masked count, no branch taken)
                if row[q] > worst:
                    larger += 1
            if larger == 0:
                j += _BLOCK
                continue
            stop = j + _BLOCK
        else:
            stop = j + 1
        for q in range(j, stop):
            x = row[q]
            # before the root: a larger score, or any number when the root is NaN
            if x > worst or (worst_nan and x == x):
                _sift_down(bv, bi, k, x, q)
                worst = bv[0]
                worst_nan = worst != worst
        j = stop
    for size in range(k - 1, 0, -1):  # heap sort: the root (the worst left) goes to the end
        x, i = bv[size], bi[size]
        bv[size] = bv[0]
        bi[size] = bi[0]
        _sift_down(bv, bi, size, x, i)


@njit
def top_k_rows(scores: Any, k: int, ids: Any, values: Any) -> int:  # pragma: no cover - compiled
    """Fill ``ids[t]``/``values[t]`` with the ``k`` best entries of row ``t`` of ``scores``,
    best first (:func:`top_k_row` on each row). Any strides and numeric dtype; ``values`` in
    the scores' dtype, ``ids`` integers.

    Compiled code does not check bounds, so the shapes are checked first: returns
    ``_BAD_SHAPES`` unless ``0 ≤ k ≤ scores.shape[1]`` and ``ids`` and ``values`` both have
    shape ``(scores.shape[0], k)``; else −1 (filled).
    """
    m, n = scores.shape
    if k < 0 or k > n or ids.shape[0] != m or ids.shape[1] != k or values.shape[0] != m or values.shape[1] != k:
        return _BAD_SHAPES
    if k == 0:
        return -1
    for t in range(m):
        top_k_row(scores[t], k, ids[t], values[t])
    return -1


def top_n(scores: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices and values of the ``n`` largest entries of each row, best first.

    Ties are broken towards the smaller item index, ``-inf`` ranks after every finite score
    and NaN last, exactly as ``np.argsort(-scores, axis=1, kind="stable")[:, :n]`` orders
    them, so results are reproducible even for models with many equal scores (popularity).
    Returns int64 indices and the values in the dtype of ``scores``, both of shape
    ``(m, min(n, c))`` for scores of shape ``(m, c)``: ``n`` beyond the number of columns
    gives every column.

    >>> ids, values = top_n(np.array([[1.0, 3.0, 3.0, -np.inf, 2.0]]), 3)
    >>> ids.tolist(), values.tolist()
    ([[1, 2, 4]], [[3.0, 3.0, 2.0]])

    Raises
    ------
    ParameterError
        ``scores`` is not a two-dimensional numeric array, or ``n`` is negative.
    """
    scores = np.asarray(scores)
    if scores.ndim != 2 or scores.dtype.kind not in "iuf":
        raise ParameterError(
            f"scores must be a numeric array of shape (m, n). Got dtype {scores.dtype} and shape "
            f"{scores.shape} instead."
        )
    if n < 0:
        raise ParameterError(f"n must be ≥ 0 (the number of places). Got {n} instead.")
    k = min(int(n), scores.shape[1])
    if scores.dtype.kind == "f" and k > _SORT_FRACTION * scores.shape[1]:
        # most of the row: sorting it outright is faster than the heap (see the constant)
        order = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        return order.astype(np.int64, copy=False), np.take_along_axis(scores, order, axis=1)
    # numba has no float16: select on float32 (same order), return the scores' own values
    work = scores.astype(np.float32) if scores.dtype == np.float16 else scores
    ids = np.empty((scores.shape[0], k), dtype=np.int64)
    values = np.empty((scores.shape[0], k), dtype=work.dtype)
    if top_k_rows(work, k, ids, values) != -1:  # pragma: no cover - the shapes are made here
        raise AssertionError("top_k_rows refused the shapes top_n made")
    if work is not scores:
        values = np.take_along_axis(scores, ids, axis=1)
    return ids, values


def select(
    scores: np.ndarray, N: int, filter_ids: Any, candidates: Any, owner: str, kind: str = "item"
) -> tuple[np.ndarray, np.ndarray]:
    """The ``N`` best columns of each row of ``scores`` (modified in place) as (int32 ids,
    scores): ``filter_ids`` never chosen, only ``candidates`` when given (then ``N`` is at
    most their number, as in implicit); missing places get id −1 and score −inf."""
    n_columns = scores.shape[1]
    check_places(scores.shape[0], N, n_columns, owner, kind)
    has_filter = filter_ids is not None and np.size(filter_ids) > 0
    if candidates is not None:
        if has_filter:
            raise ParameterError(
                f"{owner} got both {kind}s={candidates!r} and filter_{kind}s={filter_ids!r}; pass one "
                f"of them (the {kind}s to rank, or the {kind}s never to return)."
            )
        chosen = np.unique(check_ids(candidates, n_columns, kind=kind))
        if chosen.size == 0:
            raise ParameterError(f"{owner} got an empty {kind}s list; pass at least one {kind} id to rank.")
        N = min(N, chosen.size)
        scores = scores[:, chosen]
    if has_filter:
        scores[:, check_ids(filter_ids, n_columns, kind=kind)] = -np.inf
    # N beyond the number of columns (implicit's metrics ask for K > n_items): the missing
    # places are padded like any other, id −1 and score −inf
    ids, values = top_n(scores, N)
    if ids.shape[1] < N:
        pad = N - ids.shape[1]
        ids = np.hstack([ids, np.zeros((ids.shape[0], pad), dtype=ids.dtype)])
        values = np.hstack([values, np.full((values.shape[0], pad), -np.inf)])
    if candidates is not None:
        ids = chosen[ids]
    ids = np.asarray(ids, dtype=index_dtype(n_columns - 1))  # ids < n_columns
    ids[np.isneginf(values)] = -1
    return ids, np.asarray(values, dtype=np.float64)


def check_places(n_rows: int, N: int, n_columns: int, owner: str, kind: str) -> None:
    """Refuse (ResourceLimitError) an answer of ``n_rows × N`` (ids, scores) larger than
    :func:`ratkit.limits.max_bytes` allows (the answer is whole; its work goes in blocks)."""
    check_bytes(
        12.0 * n_rows * N,
        f"{owner} with N={N} for {n_rows} row(s)",
        f"Ask for at most N={n_columns} (every {kind}); more places only hold padding."
        if N > n_columns
        else "Ask for fewer rows or a smaller N per call.",
    )
