"""Top-n selection over score rows, shared by ``recommend`` and the evaluation protocol."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["exclude_rows", "top_n"]


def exclude_rows(scores: np.ndarray, user_items: sp.csr_matrix, users: np.ndarray) -> None:
    """In place, ``scores[r, j] = -inf`` for each item ``j`` of user ``users[r]``."""
    rows = user_items[users]
    counts = np.diff(rows.indptr)
    scores[np.repeat(np.arange(len(users)), counts), rows.indices] = -np.inf


def top_n(scores: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices and values of the ``n`` largest entries of each row, best first.

    Ties are broken towards the smaller item index (a stable sort), so results are
    reproducible even for models with many equal scores (popularity).
    """
    order = np.argsort(-scores, axis=1, kind="stable")[:, :n]
    return order, np.take_along_axis(scores, order, axis=1)
