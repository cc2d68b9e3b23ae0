"""Per-user random splits shared by the recommender benchmarks."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["split_by_rank"]


def split_by_rank(
    matrix: sp.csr_matrix, seed: int, n_test_of: np.ndarray, *, keep_values: bool = True
) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """(train, test): per user u, the entries in a seeded random order, the first
    ``n_test_of[u]`` to test and the rest to train (values kept, or 1 with ``keep_values=False``)."""
    rng = np.random.default_rng(seed)
    counts = np.diff(matrix.indptr)
    rows = np.repeat(np.arange(matrix.shape[0]), counts)
    order = np.lexsort((rng.random(matrix.nnz), rows))
    rank = np.empty(matrix.nnz, dtype=np.int64)
    rank[order] = np.arange(matrix.nnz) - matrix.indptr[rows[order]]
    in_test = rank < np.asarray(n_test_of)[rows]
    coo = matrix.tocoo()
    data = coo.data if keep_values else np.ones(coo.nnz)

    def part(mask: np.ndarray) -> sp.csr_matrix:
        return sp.csr_matrix((data[mask], (coo.row[mask], coo.col[mask])), shape=matrix.shape)

    return part(~in_test), part(in_test)
