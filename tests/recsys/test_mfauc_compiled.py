"""MFAUC's compiled SGD against the vectorised numpy reference (issue 22).

The oracle is ``numpy_iteration`` (the implementation before the compiled engine, kept in
``ratkit.recsys._mfauc_sgd``): from the same factors and the same seed both engines must
draw the same random numbers (the Generator ends in the same state), the same samples,
and reach the same iterates and metrics up to float round-off.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit.recsys import MFAUC
from ratkit.recsys import _mfauc_compiled as compiled
from ratkit.recsys import _mfauc_sampling as sampling
from ratkit.recsys import _mfauc_sgd as sgd
from ratkit.recsys._mfauc_objective import loss_and_derivative, phi_and_derivative
from ratkit.recsys.evaluation import leave_k_out, ranking_metrics

from .synthetic import random_one_class


def _positives(seed: int, m: int = 50, n: int = 40, density: float = 0.2) -> sp.csr_matrix:
    """One-class data with a user who likes every item but one (rejection nearly always
    fails for them, so ``sample_negative``'s fallback runs) and one who likes nothing."""
    X = random_one_class(m, n, density, seed=seed).tolil()
    X[0, :] = 1.0
    X[0, 7] = 0.0
    X[1, :] = 0.0
    X = X.tocsr()
    X.eliminate_zeros()
    X.sort_indices()
    return X


def _problem(X: sp.csr_matrix, tau: float, bitmap: bool, monkeypatch: pytest.MonkeyPatch) -> sgd.Problem:
    if not bitmap:  # the CSR-bisection lookups of large problems
        monkeypatch.setattr(sgd, "_BITMAP_MAX_BITS", 0)
    prob = sgd.Problem(X, tau)
    assert (prob.liked_bits.size > 0) == bitmap
    return prob


@pytest.mark.parametrize("tau", [0.0, 0.7])
@pytest.mark.parametrize("bitmap", [True, False])
def test_compiled_samplers_draw_what_numpy_draws(tau, bitmap, monkeypatch):
    X = _positives(0)
    prob = _problem(X, tau, bitmap, monkeypatch)
    # user 0 accepts 1 draw in 40, so 200 rejection rounds fail for (39/40)^200 = 0.6 % of
    # their 3 000 draws: the fallback runs ~19 times (never with probability 6e-9)
    users = np.concatenate([np.repeat(prob.active, 20), np.zeros(500, dtype=np.int64)]).astype(np.int64)
    assert users[0] == 0
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    expected_p = prob.sample_positive(users, 6, a)
    expected_q = prob.sample_negative(users, 6, a)
    got_p = sampling._sample_positive(b, users, 6, prob.indptr, prob.indices, prob.cum_g, prob.norm_g)
    got_q = sampling._sample_negative(
        b, users, 6, prob.cum_g_prime, prob.g_prime, prob.indptr, prob.indices, prob.liked_bits
    )
    np.testing.assert_array_equal(got_p, expected_p)
    np.testing.assert_array_equal(got_q, expected_q)
    assert a.bit_generator.state == b.bit_generator.state  # the same random numbers were used
    assert np.all(got_q[users == 0] == 7)  # the only item user 0 does not like
    dense = X.toarray() > 0
    assert dense[users[:, None], got_p].all() and not dense[users[:, None], got_q].any()


def _settings(loss: str, beta: float, rho, max_grad_norm, batch_size: int) -> sgd.SGDSettings:
    return sgd.SGDSettings(
        loss_fn=loss_and_derivative(loss, beta),
        phi_fn=phi_and_derivative(rho),
        square_fast=loss == "square" and rho is None,
        lam=1e-3,
        learning_rate=0.3,
        kappa_users=7,
        kappa_items=5,
        batch_size=batch_size,
        max_grad_norm=max_grad_norm,
        loss=loss,
        beta=beta,
        rho=rho,
    )


CASES = [
    # loss, beta, rho, tau, max_grad_norm, batch_size, bitmap
    ("hinge", 1.0, None, 0.0, 1.0, 8, True),
    ("hinge", 1.0, None, 0.0, 1.0, 1, False),
    ("squared_hinge", 1.0, None, 0.5, None, 16, True),
    ("logistic", 2.0, 1.0, 0.0, 1.0, 8, True),
    ("sigmoid", 3.0, None, 0.5, 0.5, 64, False),
    ("square", 1.0, None, 0.0, 1.0, 8, True),  # the fast path (exact expectations)
    ("square", 1.0, None, 0.5, None, 5, False),
    ("square", 1.0, 0.5, 0.0, 1.0, 8, True),  # square with tanh: the sampled path
]


@pytest.mark.parametrize("loss,beta,rho,tau,max_grad_norm,batch_size,bitmap", CASES)
def test_iterates_equal_the_numpy_reference(loss, beta, rho, tau, max_grad_norm, batch_size, bitmap, monkeypatch):
    X = _positives(1)
    prob = _problem(X, tau, bitmap, monkeypatch)
    s = _settings(loss, beta, rho, max_grad_norm, batch_size)
    start = np.random.default_rng(9)
    U0, V0 = start.normal(0, 0.3, (X.shape[0], 4)), start.normal(0, 0.3, (X.shape[1], 4))
    results, states = {}, {}
    for engine in sgd.ENGINES:
        rng = np.random.default_rng(11)
        results[engine] = sgd.run_sgd(prob, U0, V0, s, rng, max_iter=4, tol=0.0, engine=engine)
        states[engine] = rng.bit_generator.state
    (U_np, V_np, obj_np, n_np, _), (U_c, V_c, obj_c, n_c, _) = results["numpy"], results["compiled"]
    assert n_np == n_c == 4
    assert states["numpy"] == states["compiled"]
    for a, b in ((U_np, U_c), (V_np, V_c)):
        assert np.abs(a - b).max() <= 1e-10 * np.abs(a).max()
    np.testing.assert_allclose(obj_c, obj_np, rtol=1e-10)
    assert np.abs(U_c - U0).max() > 1e-3  # the factors moved: the comparison is not of the start


@pytest.mark.parametrize("params", [dict(loss="hinge"), dict(loss="square"), dict(loss="sigmoid", beta=[1.0, 4.0])])
def test_full_fit_gives_the_same_metrics_as_numpy(params):
    rng = np.random.default_rng(4)  # planted rank-3 preferences: each user's top 15 % of items
    scores = rng.normal(size=(90, 3)) @ rng.normal(size=(3, 70)) + 0.3 * rng.normal(size=(90, 70))
    X = sp.csr_matrix((scores >= np.quantile(scores, 0.85, axis=1, keepdims=True)).astype(np.float64))
    train, test = leave_k_out(X, 2, random_state=0)
    fitted = {}
    for engine in sgd.ENGINES:
        model = MFAUC(n_factors=6, max_iter=40, tol=1e-6, batch_size=16, random_state=2, **params)
        model._sgd_engine = engine
        fitted[engine] = model.fit(train)
    a, b = fitted["numpy"], fitted["compiled"]
    assert a.n_iter_ == b.n_iter_ and a.converged_ == b.converged_
    np.testing.assert_allclose(b.objective_, a.objective_, rtol=1e-9)
    np.testing.assert_allclose(b.item_factors_, a.item_factors_, rtol=0, atol=1e-9 * np.abs(a.item_factors_).max())
    metrics_a, metrics_b = ranking_metrics(a, train, test, k=5), ranking_metrics(b, train, test, k=5)
    assert metrics_a.keys() == metrics_b.keys()
    for name in metrics_a:
        assert metrics_b[name] == pytest.approx(metrics_a[name], rel=1e-12, abs=1e-12), name
    assert metrics_a["auc"] > 0.75  # a fit that learned something, not two copies of noise


def test_liked_bits_mark_exactly_the_positives():
    X = random_one_class(30, 130, 0.1, seed=2)  # 130 items: three words per row, the last partial
    bits = sgd._liked_bits(X)
    unpacked = np.array(
        [[(int(bits[i, j >> 6]) >> (j & 63)) & 1 for j in range(X.shape[1])] for i in range(X.shape[0])], dtype=bool
    )
    np.testing.assert_array_equal(unpacked, X.toarray() > 0)


def test_lazy_average_decay_is_the_product_of_the_steps():
    """The compiled engine averages a row only when it moves: Π_{s=τ+1..t}(1 − w_s) in closed form."""
    for tau, t in ((0, 1), (0, 5), (3, 4), (7, 130), (1000, 1027)):
        product = np.prod([1.0 - sgd._averaging_weight(s) for s in range(tau + 1, t + 1)])
        assert compiled._decay(tau, t) == pytest.approx(product, rel=1e-13, abs=1e-300)
