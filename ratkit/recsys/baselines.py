"""Baselines every recommender should beat: item popularity and PureSVD.

References
----------
P. Cremonesi, Y. Koren and R. Turrin. Performance of recommender algorithms on top-N
recommendation tasks. RecSys 2010 (popularity and PureSVD baselines).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from ratkit._validation import check_int, check_random_state
from ratkit.fitted import Array, Fitted
from ratkit.plugins import register
from ratkit.recsys._linalg import row_products, svd_factors
from ratkit.recsys.base import FactorRecommender, Recommender

__all__ = ["Popularity", "PureSVD"]


@register("recommender", "popularity")
class Popularity(Recommender):
    """Scores every user alike: ``s(u, i) = |{v : X_vi > 0}|``, the number of users of item ``i``.

    Items nobody interacted with score 0; users without interactions get the same list
    as everyone else. ``recommend(..., recalculate_user=True)`` is exact, not ignored: the
    score has no user term, so a user recomputed from any row of items scores like every
    other (only ``filter_already_liked_items`` uses that row).

    Attributes
    ----------
    item_counts_ : ndarray of shape (n_items,)
    """

    _fitted_schema: ClassVar[Fitted] = Recommender._fitted_schema.extend(
        item_counts_=Array("f", ("n_items_",), low=0.0),
    )
    _fitted_attributes: ClassVar[tuple[str, ...]] = _fitted_schema.required

    def __init__(self) -> None:
        pass

    def _fit(self, user_items: sp.csr_matrix) -> None:
        self.item_counts_ = np.bincount(user_items.indices, minlength=user_items.shape[1]).astype(np.float64)

    def _score_users(self, users: np.ndarray) -> np.ndarray:
        return np.broadcast_to(self.item_counts_, (len(users), len(self.item_counts_)))

    def _recalculate_scores(self, users: np.ndarray, user_rows: sp.csr_matrix) -> np.ndarray:
        """No user state: a user recomputed from ``user_rows`` scores like every other (exact)."""
        return self._score_users(users)


@register("recommender", "puresvd")
class PureSVD(FactorRecommender):
    """Plain matrix factorisation: the rank-d truncated SVD ``X⁺ ≈ A Σ Bᵀ`` of the 0/1 matrix.

    Scores ``s(u, i) = (A Σ Bᵀ)_ui``, stored as ``user_factors_ = AΣ^{1/2}`` and
    ``item_factors_ = BΣ^{1/2}``. Missing entries count as 0, as in Cremonesi et al.
    Users without interactions score 0 everywhere. ``recommend(..., recalculate_user=True)``
    folds a user in from their row x of ``user_items``: ``u = x⁺ B Σ^{-1/2}`` (x⁺ its 0/1
    pattern), which is the fitted ``user_factors_`` row for a training row, since ``X⁺B = AΣ``.

    Parameters
    ----------
    n_factors : int
        Rank ``d``; must be below ``min(n_users, n_items)``.
    random_state : None, int or numpy Generator
        Seeds ARPACK's start vector.
    """

    def __init__(self, *, n_factors: int = 20, random_state: Any = None) -> None:
        self.n_factors = n_factors
        self.random_state = random_state

    def _validate_params(self) -> None:
        check_int(self.n_factors, "n_factors", "PureSVD", low=1)

    def _fit(self, user_items: sp.csr_matrix) -> None:
        binary = (user_items > 0).astype(np.float64)
        self.user_factors_, self.item_factors_ = svd_factors(
            binary, self.n_factors, check_random_state(self.random_state)
        )

    def _recalculate_scores(self, users: np.ndarray, user_rows: sp.csr_matrix) -> np.ndarray:
        """Fold-in ``x⁺ B Σ^{-1/2} (BΣ^{1/2})ᵀ``, with ``σ_j = ‖item_factors_[:, j]‖²`` (B orthonormal)."""
        binary = (user_rows > 0).astype(np.float64)
        sigma = np.einsum("ij,ij->j", self.item_factors_, self.item_factors_)
        inverse = np.divide(1.0, sigma, out=np.zeros_like(sigma), where=sigma > 0)
        return row_products(binary @ self.item_factors_ * inverse, self.item_factors_)
