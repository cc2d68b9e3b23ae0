"""Data checks shared by every recommender, loader and evaluator (parameters are checked by
:mod:`ratkit._validation`).

Every public entry point coerces its inputs here, once, so the error messages are the
same wherever a user meets them: they name the bad thing, what was expected and what
to do about it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from ratkit._sparse import float64_csr
from ratkit.exceptions import DataFormatError, IdOutOfRangeError, ParameterTypeError
from ratkit.limits import check_bytes

__all__ = [
    "check_user_items",
    "check_shape_matches",
    "check_ids",
]


def check_user_items(
    user_items: Any, *, name: str = "user_items", ratings: bool = False, allow_empty: bool = False
) -> sp.csr_matrix:
    """Return ``user_items`` as a new float64 CSR matrix (users × items), checked.

    Accepts any :mod:`scipy.sparse` matrix or array, or a
    :class:`~ratkit.recsys.datasets.Interactions` (its ``matrix`` is used). Duplicate
    entries are summed and explicit zeros dropped. The argument is never mutated.
    ``ratings=True`` (explicit ratings): a duplicate (user, item) entry is an error instead
    of a sum (two ratings do not add up to one), and negative values are ratings too.
    ``allow_empty=True`` accepts a matrix with no entry (e.g. no examined item at all).

    Raises
    ------
    ParameterTypeError
        Not sparse (a dense array, a list, None), or not of a real numeric dtype.
    DataFormatError
        Not two-dimensional, NaN/inf or negative values (unless ratings), duplicate entries
        (ratings), or no interaction at all.
    ResourceLimitError
        A shape whose CSR row pointers alone would exceed :func:`ratkit.limits.max_bytes`.
    """
    matrix = getattr(user_items, "matrix", user_items)
    if not sp.issparse(matrix):
        raise ParameterTypeError(
            f"{name} must be a scipy.sparse matrix with users as rows and items as columns; "
            f"got {type(matrix).__name__}. Convert it with scipy.sparse.csr_matrix(...)."
        )
    if matrix.ndim != 2:
        raise DataFormatError(f"{name} must be two-dimensional (users × items); got {matrix.ndim}-D.")
    dtype = matrix.dtype
    if not np.issubdtype(dtype, np.number) or np.issubdtype(dtype, np.complexfloating):
        raise ParameterTypeError(f"{name} must hold real numbers (interaction strengths); got dtype {matrix.dtype}.")
    # the float64 copy: values, column indices and one row pointer per user
    check_bytes(
        8.0 * (matrix.shape[0] + 1) + 16.0 * matrix.nnz,
        f"Reading {name} of shape {matrix.shape}",
        "Drop the empty rows (users without interactions) first.",
    )
    csr = float64_csr(matrix)
    if ratings:
        _refuse_duplicates(matrix, name)
    csr.sum_duplicates()
    bad = ~np.isfinite(csr.data)
    if bad.any():
        user, item = _locate(csr, int(np.flatnonzero(bad)[0]))
        raise DataFormatError(
            f"{name} contains {int(bad.sum())} NaN or infinite value(s) (the first at user "
            f"{user}, item {item}). Drop or impute them before using the matrix."
        )
    negative = csr.data < 0
    if negative.any() and not ratings:
        user, item = _locate(csr, int(np.flatnonzero(negative)[0]))
        raise DataFormatError(
            f"{name} contains {int(negative.sum())} negative value(s) (the first at user {user}, "
            f"item {item}); interaction strengths must be >= 0. Convert explicit ratings with "
            f"ratkit.recsys.feedback.to_one_class first."
        )
    csr.eliminate_zeros()
    if csr.nnz == 0 and not allow_empty:
        raise DataFormatError(
            f"{name} of shape {csr.shape} has no interaction (no non-zero entry); a recommender needs at least one."
        )
    csr.sort_indices()
    return csr


def _refuse_duplicates(matrix: Any, name: str) -> None:
    """DataFormatError naming the first (user, item) stored twice (COO, CSR, ... alike)."""
    if matrix.format in ("csr", "csc") and matrix.has_canonical_format:
        return  # sorted and duplicate-free by scipy's own check (no copy; the COO keys below are 24 bytes an entry)
    coo = sp.coo_matrix(matrix)
    keys = coo.row.astype(np.int64) * coo.shape[1] + coo.col
    unique, counts = np.unique(keys, return_counts=True)
    if (counts > 1).any():
        first = int(unique[np.flatnonzero(counts > 1)[0]])
        raise DataFormatError(
            f"{name} has {int((counts > 1).sum())} duplicate (user, item) pair(s), stored more than once "
            f"(the first: user {first // coo.shape[1]}, item {first % coo.shape[1]}); a rating is given once, "
            "and two ratings do not add up to one. Keep one entry per pair."
        )


def _locate(csr: sp.csr_matrix, position: int) -> tuple[int, int]:
    user = int(np.searchsorted(csr.indptr, position, side="right") - 1)
    return user, int(csr.indices[position])


def check_shape_matches(
    matrix: sp.spmatrix, n_users: int, n_items: int, *, name: str, fitted_on: str = "the model"
) -> None:
    """Raise if ``matrix`` is not ``n_users × n_items``, saying so when it looks transposed."""
    if matrix.shape == (n_users, n_items):
        return
    hint = (
        " It looks transposed: users must be rows and items columns, so pass its .T."
        if matrix.shape == (n_items, n_users)
        else ""
    )
    raise DataFormatError(
        f"{name} has shape {matrix.shape} but {fitted_on} has {n_users} users × {n_items} items.{hint}"
    )


def check_ids(ids: Any, upper: int, *, kind: str) -> np.ndarray:
    """Return ``ids`` as a 1-D int64 array, each in ``[0, upper)``.

    Raises :class:`~ratkit.exceptions.ParameterTypeError` for ids that are not integers
    (floats, strings, None, bools) and :class:`~ratkit.exceptions.IdOutOfRangeError` for one
    outside the range.
    """
    try:
        arr = np.asarray(ids)
    except ValueError as exc:  # a ragged nesting
        raise ParameterTypeError(
            f"{kind} ids must be integer row/column indices in [0, {upper}); got {ids!r:.80} ({exc})."
        ) from exc
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or arr.size == 0):
        raise ParameterTypeError(
            f"{kind} ids must be integer row/column indices in [0, {upper}); got dtype "
            f"{arr.dtype} ({ids!r:.80}). "
            f"Map raw ids to indices with the dataset's id maps first."
        )
    arr = arr.astype(np.int64).ravel()
    bad = (arr < 0) | (arr >= upper)
    if bad.any():
        raise IdOutOfRangeError(
            f"{kind} id {int(arr[bad][0])} is out of range: expected an index in [0, {upper}). "
            f"Use the dataset's id maps to translate raw ids to indices."
        )
    return arr
