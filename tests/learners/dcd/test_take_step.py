"""cocoa.take_step: the line-searched CoCoA+ step against a brute-force search over γ."""

from __future__ import annotations

import numpy as np
import pytest

from ratkit.learners.dcd.cocoa import MAX_STEP, take_step


def _dual(alpha: np.ndarray, A: np.ndarray) -> float:
    w = A.T @ alpha
    return float(alpha.sum() - 0.5 * w @ w)


@pytest.mark.parametrize("seed", range(6))
def test_the_step_is_the_best_feasible_gamma_on_a_fine_grid(seed):
    rng = np.random.default_rng(seed)
    n, d, C = 12, 5, 0.7
    A = rng.normal(size=(n, d))  # rows y_i x_i
    alpha = rng.uniform(0, C, size=n) * (rng.random(n) < 0.7)
    delta = rng.normal(scale=0.3, size=n)
    delta = np.clip(alpha + delta, 0, C) - alpha  # γ = 1 feasible, as a CoCoA+ update is
    w = A.T @ alpha
    a, v = alpha.copy(), w.copy()
    gamma = take_step(a, v, delta, A.T @ delta, C)
    # independent: the feasible γ of a grid over [0, MAX_STEP] with the highest dual
    grid = np.linspace(0.0, MAX_STEP, 200_001)
    points = alpha[None, :] + grid[:, None] * delta[None, :]
    feasible = np.all((points >= -1e-12) & (points <= C + 1e-12), axis=1)
    W = points @ A  # w(α) of every point
    duals = np.where(feasible, points.sum(axis=1) - 0.5 * np.einsum("ij,ij->i", W, W), -np.inf)
    best = grid[np.argmax(duals)]
    assert gamma == pytest.approx(best, abs=1e-4)
    assert _dual(a, A) >= _dual(alpha + delta, A) - 1e-12  # at least CoCoA+'s γ = 1
    np.testing.assert_allclose(v, A.T @ a, atol=1e-12)  # w stays w(α)
    assert np.all((a >= 0) & (a <= C))


def test_a_zero_direction_leaves_alpha_and_w():
    alpha, w = np.array([0.2, 0.0]), np.array([1.0, -1.0])
    assert take_step(alpha, w, np.zeros(2), np.zeros(2), 1.0) == 1.0
    np.testing.assert_array_equal(alpha, [0.2, 0.0])
    np.testing.assert_array_equal(w, [1.0, -1.0])
