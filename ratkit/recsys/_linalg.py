"""Truncated SVD shared by the PureSVD baseline and MFAUC's ``init="svd"``."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import svds

from ratkit.exceptions import ParameterError, SolverError
from ratkit.limits import check_bytes

__all__ = ["svd_factors"]


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
