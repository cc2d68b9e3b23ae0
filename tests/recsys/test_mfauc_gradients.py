"""MFAUC's analytic gradients against finite differences, and its estimators against them."""

from __future__ import annotations

import numpy as np
import pytest

from ratkit.recsys._mfauc_objective import (
    LOSSES,
    exact_objective_and_gradient,
    item_weights,
    loss_and_derivative,
    phi_and_derivative,
    square_expectations,
    square_user_gradient,
)
from ratkit.recsys._mfauc_sgd import Problem, SGDSettings, item_gradients, user_gradients

from .synthetic import random_one_class

EPS = 1e-6


def central_difference(f, x: np.ndarray) -> np.ndarray:
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        old = x[index]
        x[index] = old + EPS
        up = f()
        x[index] = old - EPS
        down = f()
        x[index] = old
        grad[index] = (up - down) / (2 * EPS)
    return grad


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(3)
    X = random_one_class(6, 9, 0.35, seed=3)
    U = rng.normal(0, 0.6, (6, 3))
    V = rng.normal(0, 0.6, (9, 3))
    return X, U, V


@pytest.mark.parametrize("loss", LOSSES)
def test_loss_derivative_matches_finite_difference(loss):
    gamma = np.linspace(-2.3, 2.7, 23)  # avoids the hinge kink at 1
    value, slope = loss_and_derivative(loss, beta=1.7)(gamma)
    up, _ = loss_and_derivative(loss, beta=1.7)(gamma + EPS)
    down, _ = loss_and_derivative(loss, beta=1.7)(gamma - EPS)
    np.testing.assert_allclose(slope, (up - down) / (2 * EPS), atol=1e-6)


def test_losses_surrogate_the_indicator():
    gamma = np.array([-1.0, 2.0])
    for loss in LOSSES:  # a misranked pair costs more than a well ranked one
        value, _ = loss_and_derivative(loss, beta=3.0)(gamma)
        assert value[0] > value[1], loss


def test_tanh_weighting_and_derivative():
    x = np.linspace(0.0, 3.0, 13)
    phi, dphi = phi_and_derivative(0.7)(x)
    np.testing.assert_allclose(phi, np.tanh(0.7 * x))
    up, _ = phi_and_derivative(0.7)(x + EPS)
    down, _ = phi_and_derivative(0.7)(x - EPS)
    np.testing.assert_allclose(dphi, (up - down) / (2 * EPS), atol=1e-8)


@pytest.mark.parametrize("rho", [None, 0.8], ids=["phi=x", "phi=tanh"])
@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("tau", [0.0, 0.7], ids=["uniform", "power-law"])
def test_exact_gradient_matches_finite_differences(problem, loss, rho, tau):
    X, U, V = problem
    U, V = U.copy(), V.copy()
    g, gq = item_weights(X, tau)

    def theta():
        return exact_objective_and_gradient(U, V, X, g, gq, loss, 1.3, rho, 0.05)[0]

    _, dU, dV = exact_objective_and_gradient(U, V, X, g, gq, loss, 1.3, rho, 0.05)
    np.testing.assert_allclose(dU, central_difference(theta, U), atol=1e-6, rtol=1e-5)
    np.testing.assert_allclose(dV, central_difference(theta, V), atol=1e-6, rtol=1e-5)


def test_objective_matches_a_direct_triple_sum(problem):
    """θ written as the paper's double sum, looping over users, p and q by hand."""
    X, U, V = problem
    g, gq = item_weights(X, 0.5)
    loss = loss_and_derivative("logistic", 2.0)
    S = U @ V.T
    total = 0.0
    for i in range(X.shape[0]):
        pos = list(X[i].indices)
        neg = [j for j in range(X.shape[1]) if j not in pos]
        for p in pos:
            inner = sum(gq[q] / gq[neg].sum() * loss(np.array(S[i, p] - S[i, q]))[0] for q in neg)
            total += g[p] / g[pos].sum() * np.tanh(0.5 * inner)
    expected = total / X.shape[0] + 0.5 * 0.1 * ((U**2).sum() + (V**2).sum())
    got = exact_objective_and_gradient(U, V, X, g, gq, "logistic", 2.0, 0.5, 0.1)[0]
    assert got == pytest.approx(float(expected), rel=1e-12)


@pytest.mark.parametrize("tau", [0.0, 0.7])
def test_square_fast_path_equals_the_exact_sums(problem, tau):
    X, U, V = problem
    g, gq = item_weights(X, tau)
    users = np.arange(X.shape[0])
    value, grad = square_user_gradient(U, square_expectations(U, V, X, users, g, gq))
    # θ_i and ∂θ_i/∂u_i from the exact O(|ω||ω̄|) code on a one-user problem, times m=1.
    for i in users:
        theta_i, dU, _ = exact_objective_and_gradient(U[i : i + 1], V, X[i], g, gq, "square", 1.0, None, 0.0)
        assert value[i] == pytest.approx(theta_i, rel=1e-10)
        np.testing.assert_allclose(grad[i], dU[0], rtol=1e-9, atol=1e-12)


def _settings(loss: str, rho, square_fast=False) -> SGDSettings:
    return SGDSettings(
        loss_fn=loss_and_derivative(loss, 1.0),
        phi_fn=phi_and_derivative(rho),
        square_fast=square_fast,
        lam=0.0,
        learning_rate=0.1,
        kappa_users=200,
        kappa_items=8,
        batch_size=4,
    )


@pytest.mark.parametrize("loss,square_fast", [("squared_hinge", False), ("logistic", False), ("square", True)])
def test_subsampled_gradients_are_unbiased_for_phi_identity(problem, loss, square_fast):
    """With φ(x) = x the κ-sampled gradients average to the exact ones (scaled by m)."""
    X, U, V = problem
    prob = Problem(X, 0.5)
    s = _settings(loss, None, square_fast)
    _, dU, dV = exact_objective_and_gradient(U, V, X, prob.g, prob.g_prime, loss, 1.0, None, 0.0)
    rng = np.random.default_rng(0)
    users, items = np.arange(X.shape[0]), np.arange(X.shape[1])
    draws = 300
    mean_u = sum(user_gradients(prob, U, V, users, rng, s) for _ in range(draws)) / draws
    mean_v = sum(item_gradients(prob, U, V, items, rng, s) for _ in range(draws)) / draws
    m = X.shape[0]
    np.testing.assert_allclose(mean_u, m * dU, atol=0.05 * np.abs(m * dU).max())
    np.testing.assert_allclose(mean_v, m * dV, atol=0.05 * np.abs(m * dV).max())
