"""Top-k retrieval straight from packed codes: CCCF's and DCF's ``recommend``.

:func:`table_recommend` scores each user against every item of an
:class:`~ratkit.recsys._packed_codes.ItemTable` into one row that stays in cache, sets the
user's left-out items (the already-liked ones) to a value below every score, and selects the
best k with :func:`~ratkit.recsys._ranking.top_k_row`, compiled, one user at a time. Integer
scores (the weights ⌊e·η⌉, ⌊e·ξ⌉) are selected as integers: only the k kept per user are
ever converted. The ranking is the one ``np.argsort(-scores, kind="stable")`` gives the
scores of :func:`~ratkit.recsys._packed_codes.table_scores` with the left-out items removed:
larger first, equal scores by the smaller item id.

Why one pass per user: scoring a block of users into a users × items matrix, then filtering
and selecting it, streams that matrix through memory three times (and converts integer
scores to float for the shared serving path); at MovieLens' 1 682 items those passes cost
more than the scoring (bench/RESULTS.md, "CCCF retrieval through recommend and the 5-seed
all-items protocol (issue 38)").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from ratkit._jit import njit
from ratkit._validation import check_int
from ratkit.exceptions import ParameterError
from ratkit.recsys._packed_codes import (
    _BAD_SHAPES,
    _OWNER,
    ItemTable,
    _arguments,
    _fits,
    _outside,
    _refuse,
    _score_row,
)
from ratkit.recsys._ranking import top_k_row

__all__ = ["table_recommend", "excluded_value"]

#: What :func:`_top_rows` returns when an excluded item id is outside [0, n) or the excluded
#: rows' offsets do not hold together (``_BAD_SHAPES``: the arrays do not fit; ≥ 0: the
#: position of a user index outside the users; −1: filled).
_BAD_EXCLUDED = -3

#: ``indptr`` and ``indices`` of "nothing excluded" for :func:`_top_rows`.
_NO_OFFSETS = np.empty(0, dtype=np.int32)


@njit
def _top_rows(
    rows, users_codes, users_weights, codes, weights, n_bits, indptr, indices, excluded, k, ids, values
):  # pragma: no cover - compiled
    """``ids[t]``/``values[t]``: the ``k`` best items of user ``rows[t]``, scored by
    :func:`~ratkit.recsys._packed_codes._score_row`, best first, ties to the smaller id,
    leaving out the items ``indices[indptr[t]:indptr[t + 1]]`` (CSR rows, one per user;
    ``indptr`` of length 0: none left out). Each row is scored into one scratch row that stays
    in cache, the left-out items are set to ``excluded`` (a value below every score: −∞, or
    the least integer of the scores' dtype), and :func:`~ratkit.recsys._ranking.top_k_row`
    selects from it; a place holding ``excluded`` (too few items left, or a score of −∞)
    gets id −1.

    Compiled code does not check bounds, so everything is checked first: returns
    ``_BAD_SHAPES`` when the arrays do not fit together (as for
    :func:`~ratkit.recsys._packed_codes._score_rows`; ``1 ≤ k ≤ n``; ids and values of shape
    (len(rows), k); ``indptr`` of length 0 or len(rows) + 1), ``_BAD_EXCLUDED`` when the
    offsets decrease or end outside ``indices`` or an excluded id is outside [0, n), the
    position in ``rows`` of the first user index outside [0, m); else −1 (filled).
    """
    g, n_w, n = codes.shape
    m = rows.shape[0]
    if (
        not _fits(rows, users_codes, users_weights, codes, weights, n_bits, m, n)
        or k < 1
        or k > n
        or ids.shape[0] != m
        or ids.shape[1] != k
        or values.shape[0] != m
        or values.shape[1] != k
        or (indptr.shape[0] != 0 and indptr.shape[0] != m + 1)
    ):
        return _BAD_SHAPES
    if indptr.shape[0] != 0:
        if indptr[0] < 0 or indptr[m] > indices.shape[0]:
            return _BAD_EXCLUDED
        for t in range(m):
            if indptr[t + 1] < indptr[t]:
                return _BAD_EXCLUDED
        for p in range(indptr[0], indptr[m]):
            if indices[p] < 0 or indices[p] >= n:
                return _BAD_EXCLUDED
    bad = _outside(rows, users_codes.shape[0])
    if bad != -1:
        return bad
    scratch = np.empty(n, dtype=values.dtype)
    hamming = np.empty(n if n_w > 1 else 0, dtype=np.int32)
    for t in range(m):
        _score_row(rows[t], users_codes, users_weights, codes, weights, n_bits, scratch, hamming)
        if indptr.shape[0] != 0:
            for p in range(indptr[t], indptr[t + 1]):
                scratch[indices[p]] = excluded
        top_k_row(scratch, k, ids[t], values[t])
        for q in range(k):
            if values[t, q] == excluded:
                ids[t, q] = -1
    return -1


def excluded_value(dtype: np.dtype[Any]) -> Any:
    """What :func:`table_recommend` gives a place no item fills: −∞ for float scores, the least
    value of an integer dtype (below every score: |integer scores| < the dtype's largest, which
    :func:`item_table` ensures)."""
    return dtype.type(-np.inf) if dtype.kind == "f" else np.iinfo(dtype).min


def table_recommend(
    table: ItemTable,
    users_codes: np.ndarray,
    users_weights: np.ndarray,
    rows: np.ndarray,
    k: int,
    exclude: sp.csr_matrix | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(ids, scores), shape (len(rows), k): the k best items of each user of ``rows`` by
    :func:`table_scores`, best first, ties to the smaller item id, the items of row t of
    ``exclude`` (CSR, one row per user of ``rows``) never chosen for user ``rows[t]``.

    Scoring, leaving out and selection run compiled one user at a time in a row that stays in
    cache (:func:`~ratkit.recsys._ranking.top_k_row`); no (users × items) score matrix is
    made and no score is converted. ``ids`` int64, −1 at a place no item fills (fewer than k
    items left, or a score of −∞), whose score is then :func:`excluded_value`; ``scores`` in
    the table's dtype. The same ranking as ``np.argsort(-scores, kind="stable")`` of
    :func:`table_scores` with the left-out items removed.

    Raises
    ------
    ParameterError
        ``k`` is not in [1, n]; ``exclude`` is not a CSR matrix with one row per user of
        ``rows`` and an id in [0, n) for each stored entry; or the users' arrays do not fit
        the table (as :func:`table_scores`).
    """
    codes, weights, n_bits = table
    dtype = weights.dtype
    n = codes.shape[2]
    if type(k) is not int or not 1 <= k <= n:
        k = check_int(k, "k", _OWNER, low=1, high=n)
    users_codes, users_weights, rows = _arguments(table, users_codes, users_weights, rows)
    if exclude is None:
        indptr, indices = _NO_OFFSETS, _NO_OFFSETS
    elif sp.issparse(exclude) and exclude.format == "csr" and exclude.shape == (rows.shape[0], n):
        indptr, indices = exclude.indptr, exclude.indices
    else:
        raise ParameterError(
            f"exclude must be a CSR matrix of shape {(rows.shape[0], n)} (one row per user, one column "
            f"per item). Got {type(exclude).__name__} of shape {getattr(exclude, 'shape', None)} instead."
        )
    ids = np.empty((rows.shape[0], k), dtype=np.int64)
    values = np.empty((rows.shape[0], k), dtype=dtype)
    excluded = excluded_value(dtype)
    bad = _top_rows(rows, users_codes, users_weights, codes, weights, n_bits, indptr, indices, excluded, k, ids, values)
    if bad == _BAD_EXCLUDED:
        raise ParameterError(f"exclude must hold item ids in [0, {n}) in well-formed CSR rows.")
    if bad != -1:
        _refuse(table, users_codes, users_weights, rows, np.empty((rows.shape[0], n), dtype=np.bool_), bad)
    return ids, values
