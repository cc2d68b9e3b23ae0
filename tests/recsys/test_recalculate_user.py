"""``recommend(u, rows, recalculate_user=True)`` computes the user from ``rows`` alone (implicit's
contract): the id only names the row, so a placeholder id, the real id and a new user's id
(beyond the fitted ones) give the same list, and that list is the one an independent
computation from the fitted item parameters gives.

Regression (issue 38): FISM and TJSL kept the fitted user's bias b_u (and TJSL its examined
profile Ũ_u), so a placeholder id and the real id gave different top-10s (58 of 60 users for
TJSL with examinations), and an id beyond the fitted users was refused.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit.exceptions import UnsupportedOperationError
from ratkit.recsys import FISM, MFAUC, TJSL, Popularity, PureSVD
from ratkit.testing._planted import planted_blocks

K = 10


def _data() -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """Preferred and examined items (disjoint) of 60 users × 32 items: the planted blocks' items
    split at random, a third of them examined."""
    liked = planted_blocks().matrix.tocoo()
    rng = np.random.default_rng(3)
    examined = rng.random(liked.nnz) < 1 / 3
    shape = liked.shape

    def part(mask: np.ndarray) -> sp.csr_matrix:
        return sp.csr_matrix((np.ones(mask.sum()), (liked.row[mask], liked.col[mask])), shape=shape)

    return part(~examined), part(examined)


PREFERRED, EXAMINED = _data()


def _fitted(name: str):
    if name == "fism":
        return FISM(n_factors=8, n_epochs=5, learning_rate=0.05, random_state=0).fit(PREFERRED)
    if name == "tjsl":
        model = TJSL(n_factors=8, n_rounds=2, n_average=2, n_epochs=3, learning_rate=0.05, random_state=0)
        return model.fit(PREFERRED, EXAMINED)
    if name == "puresvd":
        return PureSVD(n_factors=4, random_state=0).fit(PREFERRED)
    return Popularity().fit(PREFERRED)


def _expected_scores(model, row: np.ndarray) -> np.ndarray:
    """The scores of a user whose items are ``row`` (item ids), from the fitted item parameters
    alone, by the papers' formulas written out item by item (not the library's vectorised code)."""
    n = model.n_items_
    if isinstance(model, (FISM, TJSL)):
        # r̂_i = b_i + (Σ_{j ∈ P∖{i}} P_j / √|P∖{i}|) · V_i, with b_u = 0 and no examined profile,
        # averaged over the kept rounds
        per_model = []
        for bi, V, Pf in zip(model.item_bias_, model.candidate_factors_, model.preferred_factors_):
            scores = np.empty(n)
            for i in range(n):
                others = row[row != i]
                profile = Pf[others].sum(axis=0) / np.sqrt(len(others)) if len(others) else np.zeros(V.shape[1])
                scores[i] = bi[i] + profile @ V[i]
            per_model.append(scores)
        return np.mean(per_model, axis=0)
    if isinstance(model, PureSVD):
        _, _, vt = np.linalg.svd(PREFERRED.toarray(), full_matrices=False)  # x Bₖ Bₖᵀ, numpy's SVD
        x = np.zeros(n)
        x[row] = 1.0
        return x @ vt[:4].T @ vt[:4]
    return np.bincount(PREFERRED.indices, minlength=n).astype(float)  # popularity: no user term


def _top(scores: np.ndarray, liked: np.ndarray) -> np.ndarray:
    scores = scores.copy()
    scores[liked] = -np.inf
    order = np.argsort(-scores, kind="stable")[:K]
    return order[np.isfinite(scores[order])]


# placeholder ids for every row: the (documented) warning about a reordered whole matrix
@pytest.mark.filterwarnings("ignore:.*userid lists every user in another order:UserWarning")
@pytest.mark.parametrize("name", ["fism", "tjsl", "puresvd", "popularity"])
def test_placeholder_real_and_new_ids_give_the_independent_top_10(name):
    model = _fitted(name)
    m = model.n_users_
    users = np.arange(m)
    real_ids, real_scores = model.recommend(users, PREFERRED, N=K, recalculate_user=True)
    placeholder_ids, placeholder_scores = model.recommend(
        np.zeros(m, dtype=np.int64), PREFERRED, N=K, recalculate_user=True
    )
    new_ids, _ = model.recommend(users + m + 7, PREFERRED, N=K, recalculate_user=True)  # every id a new user's
    np.testing.assert_array_equal(placeholder_ids, real_ids)
    np.testing.assert_array_equal(new_ids, real_ids)
    np.testing.assert_allclose(placeholder_scores, real_scores, rtol=1e-12)
    for u in users:
        row = PREFERRED[u].indices
        oracle = _expected_scores(model, row)
        expected = _top(oracle, row)
        got = real_ids[u][real_ids[u] >= 0]
        if name in ("fism", "tjsl"):
            np.testing.assert_array_equal(got, expected)
        else:  # many exact or rounding-level ties (equal counts, zero scores): the scores rank by rank
            np.testing.assert_allclose(oracle[got], oracle[expected], atol=1e-9)
            assert not np.isin(got, row).any()
        one_ids, one_scores = model.recommend(m + 100, PREFERRED[u], N=K, recalculate_user=True)  # one new user
        np.testing.assert_array_equal(one_ids, got)
        np.testing.assert_allclose(one_scores, real_scores[u][real_ids[u] >= 0], rtol=1e-12)


def test_tjsl_recalculated_user_ignores_the_fitted_examined_profile_and_bias():
    """The fitted scoring keeps b_u and Ũ_u (the documented non-recalculated path), so there the
    lists differ between ids; recalculated, they do not."""
    model = _fitted("tjsl")
    users = np.arange(model.n_users_)
    fitted = model.recommend(users, PREFERRED, N=K)[0]
    shifted = model.recommend(users, PREFERRED[np.roll(users, 1)], N=K)[0]  # user u scored with u−1's row
    recalculated = model.recommend(users, PREFERRED[np.roll(users, 1)], N=K, recalculate_user=True)[0]
    own_rows = model.recommend(np.roll(users, 1), PREFERRED[np.roll(users, 1)], N=K, recalculate_user=True)[0]
    np.testing.assert_array_equal(recalculated, own_rows)
    assert (shifted != recalculated).any(axis=1).sum() > model.n_users_ // 2  # Ũ_u mattered before
    assert fitted.shape == recalculated.shape


def test_a_new_user_is_refused_only_without_recalculate_user_or_a_fold_in():
    model = _fitted("fism")
    row = PREFERRED[3]
    with pytest.raises(IndexError, match=rf"user id {model.n_users_} is out of range"):
        model.recommend(model.n_users_, row)
    mfauc = MFAUC(n_factors=2, max_iter=2, random_state=0).fit(PREFERRED)
    with pytest.raises(UnsupportedOperationError, match="MFAUC cannot recompute a user"):
        mfauc.recommend(mfauc.n_users_ + 1, row, recalculate_user=True)
