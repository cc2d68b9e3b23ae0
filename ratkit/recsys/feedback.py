"""Feedback conversions: explicit ratings → one-class, preferred/examined, user filters.

Each function takes an :class:`~ratkit.datasets.Interactions` (and returns one,
keeping the id maps aligned) or a bare sparse users × items matrix (and returns a CSR
matrix). Rows and columns are never reordered; items that end up without any
interaction keep their column, so the ranking stays over the full catalogue.
"""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np
import scipy.sparse as sp

from ratkit._validation import check_choice, check_int, check_real
from ratkit.datasets import Interactions
from ratkit.recsys._validation import check_user_items

__all__ = ["to_one_class", "preferred_examined", "to_heterogeneous", "keep_users_with", "users_with"]

D = TypeVar("D", Interactions, sp.csr_matrix)


def _rewrap(data: Any, matrix: sp.csr_matrix, users: np.ndarray | None = None) -> Any:
    if isinstance(data, Interactions):
        return data.replace(matrix, users)
    return matrix


def _select(matrix: sp.csr_matrix, keep: np.ndarray) -> sp.csr_matrix:
    coo = matrix.tocoo()
    return sp.csr_matrix((np.ones(int(keep.sum())), (coo.row[keep], coo.col[keep])), shape=matrix.shape)


def to_one_class(data: D, threshold: float) -> D:
    """One-class feedback ``X⁺ᵤᵢ = 1`` if ``rating(u, i) ≥ threshold``, else absent.

    Parameters
    ----------
    data : Interactions or sparse matrix
        Explicit ratings, users as rows.
    threshold : float
        Smallest rating that counts as positive (``4`` for the usual MovieLens protocol
        "rating > 3").
    """
    threshold = check_real(threshold, "threshold", "to_one_class")
    matrix = check_user_items(data, name="data", ratings=True)  # a pair rated twice is an error, not a sum
    return _rewrap(data, _select(matrix, matrix.tocoo().data >= threshold))


def preferred_examined(data: D, threshold: float) -> tuple[D, D]:
    """Heterogeneous one-class feedback: preferred ``P`` (rating ≥ threshold) and examined ``E``.

    ``E`` holds the items the user rated (so examined) but below ``threshold``; ``P`` and
    ``E`` are disjoint and their union is the rated set. Both are 0/1 matrices.
    """
    return to_heterogeneous(data, check_real(threshold, "threshold", "preferred_examined"))


def to_heterogeneous(data: D, preferred: float | str = 5) -> tuple[D, D]:
    """Heterogeneous one-class feedback (P, E) from ratings or play counts: P the preferred
    items, E the other items the user rated or played (examined), disjoint 0/1 matrices
    whose union is the stored entries.

    ``preferred`` is the rule: a number t (P = entries ≥ t, e.g. 5 for "rating 5" on
    MovieLens), or ``"user-median"`` (P = a user's entries strictly above that user's median,
    e.g. Last.fm artists played more than the user's median play count; a user whose entries
    are all equal has none preferred). A (user, item) pair stored twice is refused; a
    stored zero is no entry (the sparse convention), negative values are entries.
    """
    matrix = check_user_items(data, name="data", ratings=True)  # a pair rated twice is an error, not a sum
    if isinstance(preferred, str):
        check_choice(preferred, "preferred", "to_heterogeneous", ("user-median",))
        rows = np.repeat(np.arange(matrix.shape[0]), np.diff(matrix.indptr))
        medians = np.array(
            [np.median(matrix.data[a:b]) if b > a else 0.0 for a, b in zip(matrix.indptr[:-1], matrix.indptr[1:])]
        )
        keep = matrix.data > medians[rows]
    else:
        threshold = check_real(preferred, "preferred", "to_heterogeneous")
        keep = matrix.data >= threshold
    return (_rewrap(data, _select(matrix, keep)), _rewrap(data, _select(matrix, ~keep)))


def keep_users_with(data: D, min_items: int) -> D:
    """Keep only the users (rows) with at least ``min_items`` interactions.

    For an :class:`Interactions` the user id map is cut to match; for a bare matrix the
    rows are dropped, so row indices change.
    """
    matrix = check_user_items(data, name="data")
    users = users_with(matrix, min_items)
    return _rewrap(data, matrix[users], users)


def users_with(matrix: sp.csr_matrix, min_items: int) -> np.ndarray:
    """The rows of ``matrix`` with at least ``min_items`` stored entries."""
    min_items = check_int(min_items, "min_items", "keep_users_with", low=0)
    return np.flatnonzero(np.diff(matrix.indptr) >= min_items)
