"""The arguments of a recommend call, checked: the users' rows ``user_items``, the user ids, and
the already-liked items among an ``items`` list (implicit's conventions, one place for all).

implicit's ``recommend`` takes ``user_items`` as a CSR matrix holding the rows of the given
users and refuses anything else with a ValueError; it ranks the already-liked items of an
``items`` list last instead of dropping them. :mod:`ratkit.recsys.base` follows both.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp

from ratkit.exceptions import DataFormatError, ParameterTypeError, ParameterWarning
from ratkit.recsys._validation import check_ids, check_shape_matches, check_user_items

__all__ = ["rows_of", "warn_not_csr", "check_user_ids", "rank_liked_last"]


def warn_not_csr(user_items: Any, owner: str) -> None:
    """A :class:`~ratkit.exceptions.ParameterWarning` when ``fit`` gets a sparse matrix in another
    format than CSR (it is copied to CSR; implicit warns alike)."""
    matrix = getattr(user_items, "matrix", user_items)
    if sp.issparse(matrix) and matrix.format != "csr":
        warnings.warn(
            f"{owner} got a {matrix.format.upper()} matrix; it is converted to CSR (a copy). Pass a CSR matrix "
            "(scipy.sparse.csr_matrix(...)) to avoid the conversion.",
            ParameterWarning,
            stacklevel=3,
        )


def check_user_ids(userid: Any, n_users: int, recalculate: bool) -> np.ndarray:
    """The user ids of a recommend call as int64: each in ``[0, n_users)``, or, when the users
    are recalculated from their rows (``recalculate``), any non-negative id: then an id only
    names the row (a new user may have an id beyond the fitted ones, as in implicit)."""
    upper = np.iinfo(np.int64).max if recalculate else n_users
    return check_ids(np.atleast_1d(userid), upper, kind="user")


def rows_of(
    user_items: Any, users: np.ndarray, n_users: int, n_items: int, *, ratings: bool, owner: str
) -> sp.csr_matrix | None:
    """The checked CSR rows of ``users`` from ``user_items``: its rows in ``users`` order, or,
    deprecated, rows ``users`` of a whole users × items matrix (one with ``n_users`` rows, more
    than the users asked for). None when ``user_items`` is None.

    Raises
    ------
    ParameterTypeError
        ``user_items`` is not a scipy.sparse matrix, or not a CSR one (implicit's ValueError; a
        matrix of the wrong shape is reported as such first).
    DataFormatError
        Not one row per user and one column per item.
    """
    if user_items is None:
        return None
    given = getattr(user_items, "matrix", user_items)
    # stored zeros are not liked items; a model of ratings also takes negative ones
    matrix = check_user_items(user_items, name="user_items", ratings=ratings, allow_empty=True)
    n_rows, n_cols = matrix.shape
    if n_cols == n_items and n_rows in (len(users), n_users) and given.format != "csr":
        # a shape that fits, in another format: implicit's ValueError (ratkit says why and what to do)
        raise ParameterTypeError(
            f"{owner} needs user_items as a CSR matrix (the rows of the given users, train[userid]); got a "
            f"{given.format.upper()} matrix. Convert it with .tocsr() first."
        )
    if n_cols == n_items and n_rows == len(users):
        if n_rows == n_users and not np.array_equal(users, np.arange(n_rows)):
            # every user, reordered: implicit's rows-of-the-users reading and the deprecated
            # whole-matrix reading disagree, and an old call must not silently change meaning
            warnings.warn(
                f"{owner}: user_items has one row per model user and userid lists every user in another "
                "order; it is read as the rows of the given users (row i belongs to userid[i], implicit's "
                "convention). If it is the whole users × items matrix, pass user_items[userid].",
                UserWarning,
                stacklevel=5,
            )
        return matrix
    if n_cols == n_items and n_rows == n_users and n_rows > len(users) and users.max(initial=0) < n_users:
        warnings.warn(
            f"{owner}: passing the whole users × items matrix as user_items is deprecated and will be "
            f"removed in the next release; pass the rows of the given users, user_items[userid] "
            f"(implicit's convention).",
            DeprecationWarning,
            stacklevel=5,
        )
        return matrix[users]
    if (n_rows, n_cols) == (n_items, n_users):
        check_shape_matches(matrix, n_users, n_items, name="user_items", fitted_on="the fitted model")
    raise DataFormatError(
        f"user_items has shape {matrix.shape}, but {owner} needs one row per user asked for and one "
        f"column per item: shape ({len(users)}, {n_items}). Pass the rows of the given users, "
        "user_items = train[userid]."
    )


def rank_liked_last(ids: np.ndarray, values: np.ndarray, rows: sp.csr_matrix, candidates: Any) -> None:
    """In place: the places a row left empty (id −1) after its already-liked items were filtered
    out of an ``items`` list get those liked candidates, by increasing id, score −inf.

    implicit ranks the liked items of an ``items`` list last rather than dropping them, so
    ``recommend(u, rows, items=c)`` returns ``min(N, len(c))`` items; only the empty places at
    the end of a row are filled, so a liked item never displaces a ranked one.
    """
    chosen = np.unique(np.asarray(candidates, dtype=np.int64))
    for r in range(ids.shape[0]):
        empty = np.flatnonzero(ids[r] < 0)
        if empty.size == 0:
            continue
        liked = np.intersect1d(rows.indices[rows.indptr[r] : rows.indptr[r + 1]], chosen)
        take = min(empty.size, liked.size)
        ids[r, empty[:take]] = liked[:take]
        values[r, empty[:take]] = -np.inf
