"""The closed-form X/Y update of CCCF/DCF: feasibility (1ᵀX = 0, XᵀX = m·I), optimality of tr(BᵀX)
against an independent solve in an explicit basis of 1^⊥ (scipy's null_space, svdvals and polar),
rank-deficient codes, and the column misalignment of the reference ``UpdateSVD`` transcription."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.linalg import null_space, polar, svdvals

from ratkit.exceptions import ParameterError, ParameterTypeError
from ratkit.recsys._balanced import balanced_orthogonal

SHAPES = [(2, 1), (3, 2), (10, 9), (33, 32), (40, 1), (50, 8), (120, 16), (500, 32), (500, 1)]


def signs(rng: np.random.Generator, m: int, r: int) -> np.ndarray:
    return np.where(rng.random((m, r)) < 0.5, -1.0, 1.0)


def assert_feasible(X: np.ndarray) -> None:
    m, r = X.shape
    assert np.all(np.isfinite(X))
    assert np.abs(X.sum(axis=0)).max() <= 1e-8 * m, "1ᵀX = 0 violated"
    assert np.abs(X.T @ X - m * np.eye(r)).max() <= 1e-8 * m, "XᵀX = m·I violated"


def complement_basis(m: int) -> np.ndarray:
    """An orthonormal basis E (m × (m − 1)) of 1^⊥, by scipy (independent of the code under test)."""
    E = null_space(np.ones((1, m)))
    assert E.shape == (m, m - 1)
    return E


def best_trace(B: np.ndarray) -> float:
    """max tr(BᵀX) over 1ᵀX = 0, XᵀX = m·I: X = √m·E·W with WᵀW = I, so the maximum is the
    Procrustes / polar value √m·‖EᵀB‖_* (von Neumann)."""
    m = B.shape[0]
    return math.sqrt(m) * float(svdvals(complement_basis(m).T @ B).sum())


def trace(B: np.ndarray, X: np.ndarray) -> float:
    return float(np.sum(B * X))


def assert_optimal(B: np.ndarray, X: np.ndarray) -> None:
    m, r = B.shape
    best = best_trace(B)
    # rounding scale of the trace: √m·‖B‖_F·eps-ish; 1e-9 of √m·‖B‖_F·√r is far above it
    tolerance = 1e-9 * math.sqrt(m * r) * max(np.linalg.norm(B), 1.0)
    assert trace(B, X) == pytest.approx(best, abs=tolerance)


# ---------------------------------------------------------------------------------------------
# feasibility


@pytest.mark.parametrize(("m", "r"), SHAPES)
def test_feasible_on_sign_codes(m: int, r: int) -> None:
    rng = np.random.default_rng(1000 * m + r)
    for _ in range(3):
        assert_feasible(balanced_orthogonal(signs(rng, m, r), rng))


@pytest.mark.parametrize(("m", "r"), SHAPES)
def test_feasible_on_real_relaxations(m: int, r: int) -> None:
    rng = np.random.default_rng(7 + 1000 * m + r)
    offsets = 5.0 * rng.standard_normal(r)
    assert_feasible(balanced_orthogonal(rng.standard_normal((m, r)) + offsets, rng))
    assert_feasible(balanced_orthogonal(1e3 * rng.standard_normal((m, r)), rng))
    assert_feasible(balanced_orthogonal(1e-6 * rng.standard_normal((m, r)), rng))


@pytest.mark.parametrize("noise", [1e-13, 1e-11, 1e-9])
def test_feasible_when_nearly_rank_deficient(noise: float) -> None:
    """A low-rank real relaxation plus tiny noise and large column offsets: singular values of B̄
    spread over ten orders of magnitude. Left singular vectors of B̄ taken directly are ⟂ 1 only to
    about eps·σ_max/σ (1e-5 here), so this needs the update to stay inside 1^⊥ by construction."""
    rng = np.random.default_rng(int(-math.log10(noise)))
    for m, r, k in [(80, 12, 4), (300, 16, 1), (60, 8, 0), (41, 40, 20)]:
        low_rank = rng.standard_normal((m, k)) @ rng.standard_normal((k, r))
        B = low_rank + noise * rng.standard_normal((m, r)) + 5.0 * rng.standard_normal(r)
        X = balanced_orthogonal(B, rng)
        assert_feasible(X)
        assert_optimal(B, X)


# ---------------------------------------------------------------------------------------------
# optimality against the independent solve


@pytest.mark.parametrize(("m", "r"), SHAPES)
def test_optimal_against_direct_solve(m: int, r: int) -> None:
    rng = np.random.default_rng(11 + 1000 * m + r)
    for B in (signs(rng, m, r), rng.standard_normal((m, r)) + rng.standard_normal(r)):
        X = balanced_orthogonal(B, rng)
        assert_optimal(B, X)


@pytest.mark.parametrize(("m", "r"), [(3, 2), (30, 5), (120, 16), (200, 32)])
def test_full_rank_solution_is_the_polar_factor(m: int, r: int) -> None:
    """Full-rank B̄: the maximiser is unique, X = √m·E·polar(EᵀB) (scipy's polar decomposition)."""
    rng = np.random.default_rng(m * r)
    B = signs(rng, m, r)
    E = complement_basis(m)
    assert np.linalg.matrix_rank(E.T @ B) == r
    unitary, _ = polar(E.T @ B)
    np.testing.assert_allclose(balanced_orthogonal(B, rng), math.sqrt(m) * E @ unitary, atol=1e-8 * math.sqrt(m))


@pytest.mark.parametrize(("m", "r"), [(5, 4), (50, 8), (200, 16)])
def test_no_random_feasible_matrix_beats_it(m: int, r: int) -> None:
    rng = np.random.default_rng(3 * m + r)
    E = complement_basis(m)
    for B in (signs(rng, m, r), rng.standard_normal((m, r))):
        ours = trace(B, balanced_orthogonal(B, rng))
        slack = 1e-9 * math.sqrt(m * r) * np.linalg.norm(B)
        for _ in range(200):
            W, _ = np.linalg.qr(rng.standard_normal((m - 1, r)))
            other = math.sqrt(m) * E @ W
            assert_feasible(other)  # the comparison set really is feasible
            assert trace(B, other) <= ours + slack
        # and a local perturbation of our own solution (re-projected to feasibility) does not beat it
        W0 = E.T @ balanced_orthogonal(B, rng) / math.sqrt(m)
        for _ in range(50):
            W, _ = np.linalg.qr(W0 + 1e-3 * rng.standard_normal(W0.shape))
            W *= np.sign(np.sum(W * W0, axis=0))  # undo QR's sign flips
            assert trace(B, math.sqrt(m) * E @ W) <= ours + slack


# ---------------------------------------------------------------------------------------------
# rank-deficient codes


def rank_deficient_cases(rng: np.random.Generator) -> dict[str, np.ndarray]:
    m, r = 60, 8
    constant = signs(rng, m, r)
    constant[:, 2] = 1.0
    duplicated = signs(rng, m, r)
    duplicated[:, 5] = duplicated[:, 1]
    duplicated[:, 6] = -duplicated[:, 3]
    duplicated[:, 7] = -duplicated[:, 1]
    mixed = signs(rng, m, r)
    mixed[:, 0] = -1.0
    mixed[:, 4] = mixed[:, 3]
    mixed[:, 7] = -mixed[:, 6]
    rank_one = np.outer(signs(rng, m, 1), signs(rng, 1, r))
    real_rank_two = rng.standard_normal((m, 2)) @ rng.standard_normal((2, r)) + rng.standard_normal(r)
    return {
        "constant column": constant,
        "duplicated and negated columns": duplicated,
        "constant, duplicated and negated": mixed,
        "rank one": rank_one,
        "real rank two with offsets": real_rank_two,
    }


def centred_rank(B: np.ndarray) -> int:
    return int(np.linalg.matrix_rank(complement_basis(B.shape[0]).T @ B))


@pytest.mark.parametrize("case", range(5))
def test_rank_deficient_codes_feasible_and_optimal(case: int) -> None:
    rng = np.random.default_rng(case)
    name, B = list(rank_deficient_cases(rng).items())[case]
    assert centred_rank(B) < B.shape[1], name
    for seed in range(3):  # the completion is random; every draw must be feasible and optimal
        X = balanced_orthogonal(B, np.random.default_rng(seed))
        assert_feasible(X)
        assert_optimal(B, X)


@pytest.mark.parametrize("values", ["signs", "real"])
def test_all_rows_equal(values: str) -> None:
    """B̄ = 0: every feasible X is optimal with tr(BᵀX) = 0; the result must still be feasible."""
    rng = np.random.default_rng(5)
    row = signs(rng, 1, 6) if values == "signs" else 3.7 * rng.standard_normal((1, 6))
    B = np.repeat(row, 25, axis=0)
    X = balanced_orthogonal(B, rng)
    assert_feasible(X)
    assert abs(trace(B, X)) <= 1e-9 * np.linalg.norm(B) * math.sqrt(25)
    assert best_trace(B) == pytest.approx(0.0, abs=1e-9 * np.linalg.norm(B) * math.sqrt(25))


# ---------------------------------------------------------------------------------------------
# the reference code's defect


def reference_update_svd_transcription(B: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The reference ``UpdateSVD`` as written (see the module docstring of ratkit.recsys._balanced):
    eigendecomposition of B̄ᵀB̄ in ascending order, "zero" eigenvalues by the absolute threshold
    1e-10, U' = B̄·P_nz·S_nz^{-1/2}, a modified Gram–Schmidt completion of centred random vectors,
    then X = √m·[U' P̂]·Pᵀ with the FULL eigenvector matrix P in ascending order."""
    m, r = B.shape
    centred = B - B.mean(axis=0)
    s, P = np.linalg.eigh(centred.T @ centred)  # ascending, like MATLAB's eig on a symmetric matrix
    nonzero = s > 1e-10
    columns = list((centred @ P[:, nonzero] / np.sqrt(s[nonzero])).T)
    while len(columns) < r:
        v = rng.random(m)
        v -= v.mean()
        for u in columns:
            v -= (u @ v) * u
        columns.append(v / np.linalg.norm(v))
    return math.sqrt(m) * np.column_stack(columns) @ P.T


@pytest.mark.parametrize("case", range(5))
def test_reference_transcription_is_feasible_but_loses_the_trace(case: int) -> None:
    """Pairing [P_{r′} P̂] with the full ascending eigenvector matrix shifts every left singular
    vector onto a null direction of B̄: still feasible, but tr(BᵀX) = 0 instead of √m·‖B̄‖_*."""
    rng = np.random.default_rng(case)
    name, B = list(rank_deficient_cases(rng).items())[case]
    best = best_trace(B)
    assert best > 1.0, name
    wrong = reference_update_svd_transcription(B, np.random.default_rng(1))
    assert_feasible(wrong)
    assert abs(trace(B, wrong)) <= 1e-6 * best
    ours = balanced_orthogonal(B, np.random.default_rng(1))
    assert trace(B, ours) == pytest.approx(best, rel=1e-10)


def test_reference_transcription_is_right_at_full_rank() -> None:
    """The defect is confined to the rank-deficient branch: at full rank both agree (unique maximiser)."""
    rng = np.random.default_rng(2)
    B = signs(rng, 50, 8)
    assert centred_rank(B) == 8
    np.testing.assert_allclose(balanced_orthogonal(B, rng), reference_update_svd_transcription(B, rng), atol=1e-8)


# ---------------------------------------------------------------------------------------------
# determinism, dtypes, inputs untouched


def test_deterministic_for_a_given_rng_state() -> None:
    B = rank_deficient_cases(np.random.default_rng(0))["constant, duplicated and negated"]
    first = balanced_orthogonal(B, np.random.default_rng(42))
    again = balanced_orthogonal(B, np.random.default_rng(42))
    np.testing.assert_array_equal(first, again)
    other = balanced_orthogonal(B, np.random.default_rng(43))
    assert not np.allclose(first, other)  # the completion really comes from the rng
    assert trace(B, other) == pytest.approx(trace(B, first), rel=1e-12)


def test_integer_codes_accepted_and_not_modified() -> None:
    rng = np.random.default_rng(9)
    B = signs(rng, 40, 6).astype(np.int8)
    copy = B.copy()
    X = balanced_orthogonal(B, rng)
    np.testing.assert_array_equal(B, copy)
    assert X.dtype == np.float64
    assert_feasible(X)
    assert_optimal(B.astype(float), X)


# ---------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(("m", "r"), [(4, 4), (3, 8), (1, 1)])
def test_refuses_too_few_rows(m: int, r: int) -> None:
    with pytest.raises(ParameterError, match=rf"more rows \(users or items\) than bits.*{m} rows and {r} bits"):
        balanced_orthogonal(np.ones((m, r)), np.random.default_rng(0))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_refuses_non_finite(bad: float) -> None:
    B = signs(np.random.default_rng(0), 10, 3)
    B[4, 1] = bad
    with pytest.raises(ParameterError, match="finite"):
        balanced_orthogonal(B, np.random.default_rng(0))


@pytest.mark.parametrize("shape", [(10,), (10, 3, 2), ()])
def test_refuses_wrong_ndim(shape: tuple[int, ...]) -> None:
    with pytest.raises(ParameterError, match="two-dimensional"):
        balanced_orthogonal(np.ones(shape), np.random.default_rng(0))


def test_refuses_no_columns() -> None:
    with pytest.raises(ParameterError, match="at least one bit"):
        balanced_orthogonal(np.ones((5, 0)), np.random.default_rng(0))


def test_refuses_non_numeric_and_bad_rng() -> None:
    with pytest.raises(ParameterTypeError, match="numeric"):
        balanced_orthogonal(np.array([["a", "b"], ["c", "d"], ["e", "f"]]), np.random.default_rng(0))
    with pytest.raises(ParameterTypeError, match="Generator"):
        balanced_orthogonal(np.ones((5, 2)), np.random.RandomState(0))  # type: ignore[arg-type]
