"""Linear algebra shared by recommenders: the truncated SVD of the PureSVD baseline and
MFAUC's ``init="svd"``, and score rows that do not depend on how many users are scored."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import svds

from ratkit.exceptions import ParameterError, SolverError
from ratkit.limits import check_bytes

__all__ = ["svd_factors", "row_products"]


def svd_factors(matrix: sp.csr_matrix, rank: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Balanced factors ``(AΣ^{1/2}, BΣ^{1/2})`` of the rank-``rank`` truncated SVD ``X ≈ AΣBᵀ``.


    ARPACK's start vector comes from ``rng`` so the result is reproducible.
    """
    m, n = matrix.shape
    if not 1 <= rank < min(m, n):
        raise ParameterError(
            f"The 'n_factors' parameter must be below min(n_users, n_items) = {min(m, n)} for a truncated SVD of "
            f"the {m} × {n} matrix. Got {rank} instead; lower n_factors."
        )
    # ARPACK's Lanczos basis (about 2·rank + 1 vectors of the longer side) and the two factors
    check_bytes(
        8.0 * (m + n) * (3 * rank + 2), f"A truncated SVD of rank {rank} of the {m} × {n} matrix", "Lower n_factors."
    )
    v0 = rng.uniform(-1.0, 1.0, size=min(m, n))
    try:
        left, sigma, right_t = svds(matrix.astype(np.float64), k=rank, v0=v0)
    except Exception as exc:  # ARPACK non-convergence and friends
        raise SolverError(f"The truncated SVD of rank {rank} failed: {exc}") from exc
    order = np.argsort(-sigma)
    root = np.sqrt(sigma[order])
    return left[:, order] * root, right_t[order].T * root


def row_products(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """A Bᵀ, the scores of A's rows (users) against B's rows (items), each row the same whether
    A holds one row or many.

    numpy computes a one-row product with BLAS's matrix–vector routine and larger ones with
    its matrix–matrix routine, which round differently in the last bit; one user's scores
    then depended on how many users were scored with them, and items 1 ulp apart could swap
    places between ``recommend(u)`` and ``recommend(users)``, or between two ``batch_size``
    values of an evaluation. A single row is computed as the first of two equal rows.
    """
    if A.shape[0] == 1:
        return (np.concatenate([A, A]) @ B.T)[:1]
    return A @ B.T
