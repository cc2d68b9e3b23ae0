"""TJSL and FISM (issue 18): gradients against finite differences, FISM as TJSL with E = ∅, the τ
schedule and the L₀ averaging, the prediction rule against a numpy oracle, bad input, the
heterogeneous conversion."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit.exceptions import DataFormatError, ParameterError
from ratkit.recsys import FISM, TJSL
from ratkit.recsys._tjsl_sgd import pair_gradients, pair_loss
from ratkit.recsys.feedback import to_heterogeneous


def _heterogeneous(seed: int = 0, m: int = 30, n: int = 20) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    rng = np.random.default_rng(seed)
    draw = rng.random((m, n))
    P = sp.csr_matrix((draw < 0.2).astype(float))
    E = sp.csr_matrix(((draw >= 0.2) & (draw < 0.45)).astype(float))
    return P, E


def _params(rng, m, n, d):
    return (rng.normal(0, 0.3, m), rng.normal(0, 0.3, n), *(rng.normal(0, 0.3, (n, d)) for _ in range(3)))


@pytest.mark.parametrize("with_e", [False, True])
def test_analytic_gradients_agree_with_finite_differences(with_e):
    P, E = _heterogeneous(1, m=6, n=7)
    if not with_e:
        E = sp.csr_matrix(P.shape)
    rng = np.random.default_rng(2)
    bu, bi, V, Pf, Ef = _params(rng, 6, 7, 3)
    regs = (0.1, 0.2, 0.3, 0.05, 0.07)  # α_v, α_p, α_e, β_u, β_v
    struct = (P.indptr, P.indices, E.indptr, E.indices)
    cases = [(u, i, float(P[u, i])) for u in range(6) for i in range(7)]
    for u, i, r in cases:
        grads = pair_gradients(u, i, r, *struct, bu, bi, V, Pf, Ef, *regs)
        for name, arr in zip(("bu", "bi", "V", "P", "E"), (bu, bi, V, Pf, Ef), strict=True):
            numeric = np.zeros_like(arr)
            it = np.nditer(arr, flags=["multi_index"])
            for _ in it:
                idx = it.multi_index
                old = arr[idx]
                arr[idx] = old + 1e-6
                up = pair_loss(u, i, r, *struct, bu, bi, V, Pf, Ef, *regs)
                arr[idx] = old - 1e-6
                down = pair_loss(u, i, r, *struct, bu, bi, V, Pf, Ef, *regs)
                arr[idx] = old
                numeric[idx] = (up - down) / 2e-6
            np.testing.assert_allclose(grads[name], numeric, rtol=1e-5, atol=1e-7, err_msg=f"{name} at ({u}, {i})")


def _oracle_scores(P: sp.csr_matrix, E: sp.csr_matrix, bu, bi, V, Pf, Ef) -> np.ndarray:
    """eq. (4) by loops: Ū_u^{−i} over P_u∖{i}, Ũ_u over E_u, each normalised by √(count)."""
    m, n = P.shape
    out = np.zeros((m, n))
    for u in range(m):
        pu, eu = P[u].indices, E[u].indices
        for i in range(n):
            rest = [k for k in pu if k != i]
            bar = Pf[rest].sum(axis=0) / np.sqrt(len(rest)) if rest else np.zeros(V.shape[1])
            tilde = Ef[eu].sum(axis=0) / np.sqrt(len(eu)) if len(eu) else np.zeros(V.shape[1])
            out[u, i] = bu[u] + bi[i] + (bar + tilde) @ V[i]
    return out


def _all_scores(model, m, n, **kw):
    users, items = np.meshgrid(np.arange(m), np.arange(n), indexing="ij")
    return model.score(users, items, **kw)


def test_the_prediction_rule_equals_a_loop_oracle_and_leaves_the_target_out():
    P, E = _heterogeneous(3)
    model = TJSL(n_factors=4, n_rounds=2, n_epochs=3, random_state=0).fit(P, examined=E)
    t = 0
    m = P.shape[0]
    oracle = _oracle_scores(
        model.preferred_, model.selected_[t * m : (t + 1) * m], model.user_bias_[t], model.item_bias_[t],
        model.candidate_factors_[t], model.preferred_factors_[t], model.examined_factors_[t],
    )  # fmt: skip
    np.testing.assert_allclose(_all_scores(model, *P.shape), oracle, rtol=1e-10, atol=1e-12)


def test_tjsl_without_examinations_is_fism():
    P, _ = _heterogeneous(4)
    fism = FISM(n_factors=4, n_epochs=6, random_state=7).fit(P)
    one_round = TJSL(n_factors=4, n_rounds=1, n_epochs=6, regularization_examined=0.5, random_state=7).fit(P)
    np.testing.assert_array_equal(_all_scores(fism, *P.shape), _all_scores(one_round, *P.shape))
    # rounds only continue the training when there is nothing to select
    fism12 = FISM(n_factors=4, n_epochs=12, random_state=7).fit(P)
    two_rounds = TJSL(n_factors=4, n_rounds=2, n_epochs=6, random_state=7).fit(P, examined=sp.csr_matrix(P.shape))
    np.testing.assert_array_equal(_all_scores(fism12, *P.shape), _all_scores(two_rounds, *P.shape))


def test_the_tau_schedule_selects_the_best_examined_items():
    P, E = _heterogeneous(5)
    model = TJSL(n_factors=4, n_rounds=4, n_average=4, tau_decay=0.5, n_epochs=2, random_state=0).fit(P, examined=E)
    np.testing.assert_allclose(model.tau_schedule_, [1.0, 0.5, 0.25, 0.125])
    m = P.shape[0]
    sizes = np.diff(E.indptr)
    for t, tau in enumerate(model.tau_schedule_):
        sel = model.selected_[t * m : (t + 1) * m]
        assert (sel.multiply(E) != sel).nnz == 0  # a subset of E
        np.testing.assert_array_equal(np.diff(sel.indptr), np.ceil(tau * sizes - 1e-12).astype(int))
    # round 2's selection: the top ⌈τ|E_u|⌉ of E_u under round 1's model (its prediction rule)
    first = _oracle_scores(
        model.preferred_, E, model.user_bias_[0], model.item_bias_[0], model.candidate_factors_[0],
        model.preferred_factors_[0], model.examined_factors_[0],
    )  # fmt: skip
    second = model.selected_[m : 2 * m]
    for u in range(m):
        items = E[u].indices
        if items.size:
            best = items[np.lexsort((items, -first[u, items]))[: int(np.ceil(0.5 * items.size - 1e-12))]]
            assert set(second[u].indices) == set(best), u


def test_the_prediction_averages_the_last_models():
    P, E = _heterogeneous(6)
    kw = dict(n_factors=4, n_rounds=3, n_epochs=3, random_state=1)
    last = TJSL(n_average=1, **kw).fit(P, examined=E)
    avg = TJSL(n_average=3, **kw).fit(P, examined=E)
    users = np.arange(P.shape[0])
    np.testing.assert_allclose(
        last.model_scores(0, users), avg.model_scores(2, users), rtol=1e-12
    )  # same round-3 model
    mean = np.mean([avg.model_scores(t, users) for t in range(3)], axis=0)
    np.testing.assert_allclose(_all_scores(avg, *P.shape), mean, rtol=1e-12)
    np.testing.assert_allclose(_all_scores(last, *P.shape), last.model_scores(0, users), rtol=1e-12)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(tau_decay=0.0), "tau_decay"),
        (dict(tau_decay=1.5), "tau_decay"),
        (dict(n_rounds=2, n_average=3), "n_average=3 is more than n_rounds=2"),
        (dict(n_average=0), "n_average"),
        (dict(rho=0.0), "rho"),
        (dict(rho=-1.0), "rho"),
        (dict(learning_rate=0.0), "learning_rate"),
    ],
)
def test_bad_parameters_are_named(kwargs, match):
    P, E = _heterogeneous(7)
    with pytest.raises(ParameterError, match=match):
        TJSL(**kwargs).fit(P, examined=E)


def test_bad_data_is_named_and_users_without_preferences_are_scored():
    P, E = _heterogeneous(8)
    with pytest.raises(DataFormatError, match=r"both preferred and examined \(the first: user"):
        TJSL(n_epochs=1).fit(P, examined=P)
    with pytest.raises(DataFormatError, match="examined has shape"):
        TJSL(n_epochs=1).fit(P, examined=E[:, :-1])
    with pytest.raises(ParameterError, match="preferred items only"):
        FISM().fit(P, examined=E)
    P2 = P.tolil()
    P2[0, :] = 0  # user 0 has examinations but no preferences
    model = TJSL(n_factors=4, n_epochs=2, random_state=0).fit(sp.csr_matrix(P2), examined=E)
    assert np.isfinite(model.score(0, np.arange(P.shape[1]))).all()


def test_to_heterogeneous_by_threshold_and_by_user_median():
    ratings = sp.csr_matrix(np.array([[5, 3, 0, 1], [4, 4, 5, 0], [0, 2, 2, 2]], dtype=float))
    P, E = to_heterogeneous(ratings, preferred=5)
    np.testing.assert_array_equal(P.toarray(), [[1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]])
    np.testing.assert_array_equal(E.toarray(), [[0, 1, 0, 1], [1, 1, 0, 0], [0, 1, 1, 1]])
    P, E = to_heterogeneous(ratings, preferred="user-median")  # medians 3, 4, 2
    np.testing.assert_array_equal(P.toarray(), [[1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]])
    assert (P.multiply(E)).nnz == 0 and (P + E != (ratings > 0)).nnz == 0
    with pytest.raises(ParameterError, match="preferred"):
        to_heterogeneous(ratings, preferred="median")


# -- regressions from the issue-18 review ---------------------------------------------------------------


def test_review_regressions_ids_init_scale_full_matrix_and_duplicate_ratings():
    from ratkit.datasets import from_triples

    rng = np.random.default_rng(0)
    users, items = np.repeat(np.arange(6), 4), np.tile(np.arange(4), 6)
    data = from_triples(users, items, rng.integers(1, 6, 24).astype(float), source="toy")
    P, E = to_heterogeneous(data, preferred=4)
    shuffled = E.replace(E.matrix[::-1], np.arange(6)[::-1])  # the same data with its users in another order
    with pytest.raises(DataFormatError, match="user_ids differ"):
        TJSL(n_epochs=1).fit(P, examined=shuffled)
    with pytest.raises(ParameterError, match="init_scale"):
        TJSL(init_scale=0.0).fit(P.matrix)
    with pytest.raises(DataFormatError, match="no pair to sample as a negative"):
        FISM(n_epochs=1).fit(sp.csr_matrix(np.ones((3, 4))))  # hung before
    dup = sp.coo_matrix((np.array([3.0, 4.0, 5.0]), (np.array([0, 0, 1]), np.array([1, 1, 2]))), shape=(2, 3))
    with pytest.raises(DataFormatError, match="more than once"):
        to_heterogeneous(dup, preferred=5)  # 3 + 4 was summed into a preferred 7
    P2, E2 = to_heterogeneous(sp.csr_matrix(np.array([[-3.0, 2.0, 0.0]])), preferred=1)
    assert P2.toarray().tolist() == [[0, 1, 0]] and E2.toarray().tolist() == [[1, 0, 0]]
