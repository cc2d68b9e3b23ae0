"""Certify the kernel-learning QP (63) by its optimality conditions and by brute force.

Oracles, none derived from ratkit.learners.kernel_learner._learner*: pattern counts by slicing every
window of every string; the kernel matrices Σ_k μ_k X_k X_kᵀ and the SVM dual objective
(57) written out with numpy; the SVM dual solved by scikit-learn's SVC (libsvm, SMO) for
any fixed μ. The theory checked (survey §VI): (μ̂, α̂) is a saddle point of (59), so
max_α f(μ̂, α) = f(μ̂, α̂) = −value(63); every μ ∈ M (in particular each single-pattern
kernel, and a grid over M) gives max_α f(μ, α) ≥ value, and every α ∈ A gives
min_{μ ∈ M} f(μ, α) = 2αᵀ1 − Λ max_k (αᵀu′_k)² ≤ value.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from ratkit.automata import evaluate
from ratkit.automata.kernels import count_based, from_spec, to_spec
from ratkit.learners import RationalSVC
from ratkit.learners.kernel_learner._learner import KernelLearner
from ratkit.learners.kernel_learner._patterns import most_frequent_patterns, pattern_counts
from ratkit.plugins import get
from tests.conftest import shared_data_path

# -- oracles -------------------------------------------------------------------------


def brute_counts(patterns, sequences):
    """X_ik = number of (overlapping) windows of x_i equal to pattern k."""
    X = np.zeros((len(sequences), len(patterns)))
    for i, x in enumerate(sequences):
        x = tuple(x)
        for k, z in enumerate(patterns):
            z = tuple(z)
            X[i, k] = sum(x[j : j + len(z)] == z for j in range(len(x) - len(z) + 1))
    return X


def dual_f(alpha, K, y):
    """f(μ, α) = 2αᵀ1 − αᵀ Y K Y α (eq. (57))."""
    v = alpha * y
    return 2 * alpha.sum() - v @ K @ v


def primal_value(Phi, y, C, alpha):
    """2 min_b P(w, b) for w = Σ α_i y_i φ_i: P = ½‖w‖² + C Σ_i max(0, 1 − y_i (wᵀφ_i + b)).

    By weak duality it bounds max_α f(μ, α) (f = 2 × the SVM dual) from above, for any α;
    the hinge sum is convex and piecewise linear in b, so its minimum is at a breakpoint.
    """
    w = Phi.T @ (alpha * y)
    s = Phi @ w
    hinge = min(np.maximum(0, 1 - y * (s + b)).sum() for b in y - s)
    return w @ w + 2 * C * hinge


def svm_bounds(Phi, y, C):
    """(lo, hi, α) with lo ≤ max_α f(μ, α) ≤ hi for the kernel Φ Φᵀ: α by libsvm, lo = f(α),
    hi from the primal at libsvm's w (the duality gap certifies libsvm's answer)."""
    K = Phi @ Phi.T
    with warnings.catch_warnings():  # libsvm may stop at max_iter; the bounds stay valid
        warnings.simplefilter("ignore", ConvergenceWarning)
        svc = SVC(kernel="precomputed", C=C, tol=1e-8, max_iter=10**5).fit(K, y)
    alpha = np.zeros(len(y))
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    lo, hi = dual_f(alpha, K, y), primal_value(Phi, y, C, alpha)
    assert lo <= hi * (1 + 1e-9) and hi - lo <= 1e-4 * abs(hi)  # the oracle is sound and tight
    return lo, hi, alpha


def random_problem(seed, n=24, alphabet="ab", n_patterns=None):
    """Random strings, labels by a noisy pattern rule, the patterns that occur (2- and 3-grams)."""
    rng = np.random.default_rng(seed)
    seqs = ["".join(rng.choice(list(alphabet), size=rng.integers(4, 11))) for _ in range(n)]
    score = np.array([s.count("ab") - s.count("ba") + rng.normal(0, 0.7) for s in seqs])
    y = np.where(score > np.median(score), 1, -1)
    cands = ["".join(p) for p in itertools.product(alphabet, repeat=2)] + ["aba", "bab", "abb"]
    X = brute_counts(cands, seqs)
    pats = [p for k, p in enumerate(cands) if X[:, k].any()][:n_patterns]
    return seqs, y, pats


def certify(learner, seqs, y, pats, C, trace=None, tol=1e-5):
    """The optimality conditions of (63) and the saddle-point identity, against the oracles."""
    X = brute_counts(pats, seqs)
    sq = (X**2).sum(axis=0)
    Lam = sq.sum() if trace is None else trace
    U = (y[:, None] * X) / np.sqrt(sq)  # u′_k, eq. (62)
    a, t, mu = learner.alpha_, learner.t_, learner.weights_
    scale = C * len(y)
    # primal feasibility: 0 ≤ α ≤ C, αᵀy = 0, −t ≤ αᵀu′_k ≤ t
    assert a.min() >= -tol * C and a.max() <= C * (1 + tol)
    assert abs(a @ y) <= tol * scale
    margins = a @ U
    assert np.all(np.abs(margins) <= t + tol * max(t, 1e-3))
    # μ feasibility: μ ≥ 0 and Σ μ_k ‖X_k‖² = Λ
    assert learner.trace_ == pytest.approx(Lam, rel=1e-12)
    assert mu.min() >= 0
    assert (mu * sq).sum() == pytest.approx(Lam, rel=1e-9)
    # stationarity in t (eq. (65)): Σ_k (β_k + β′_k) = 2Λt — the raw multipliers, not μ
    r = learner.result_
    assert (r.upper + r.lower).sum() == pytest.approx(2 * Lam * t, rel=1e-4, abs=1e-7)
    # complementary slackness: μ_k > 0 only where |αᵀu′_k| = t, with the sign of the active side
    big = mu > 1e-6 * mu.max()
    assert np.all(np.abs(margins[big]) >= t * (1 - 1e-4))
    top = max(r.upper.max(), r.lower.max())
    up, lo = r.upper > 1e-6 * top, r.lower > 1e-6 * top
    assert np.all(margins[up] >= t * (1 - 1e-4)) and np.all(margins[lo] <= -t * (1 - 1e-4))
    # saddle-point identity: value of (63) = −f(μ̂, α̂), K from the oracle counts ...
    K = (X * mu) @ X.T
    value = -learner.objective_
    assert dual_f(a, K, y) == pytest.approx(value, rel=tol, abs=tol)
    # ... and from the learned kernel itself (the transducer's Gram matrix)
    G = learner.kernel_.gram(seqs)
    np.testing.assert_allclose(G, K, rtol=1e-9, atol=1e-9 * np.abs(K).max())
    # α̂ is an SVM solution for the learned kernel: the primal at w(α̂) closes the duality
    # gap, so max_α f(μ̂, α) = f(μ̂, α̂) = value (eq. (60): the min-max is attained at μ̂)
    assert primal_value(X * np.sqrt(mu), y, C, a) == pytest.approx(value, rel=tol, abs=tol)
    return X, U, K, value


# -- certification on random small problems -----------------------------------------


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("C", [0.1, 10.0])
def test_optimality_conditions_random(seed, C):
    seqs, y, pats = random_problem(seed)
    learner = KernelLearner(count_based(pats), C=C).fit(seqs, y)
    assert learner.status_ == "optimal" and learner.solver_ == "CLARABEL"
    certify(learner, seqs, y, pats, C)


@pytest.mark.parametrize("trace", [1.0, 250.0])
def test_optimality_conditions_given_trace(trace):
    seqs, y, pats = random_problem(11, alphabet="abc")
    learner = KernelLearner({"family": "count-based", "patterns": pats}, C=1.0, trace=trace).fit(seqs, y)
    certify(learner, seqs, y, pats, 1.0, trace=trace)


@pytest.mark.parametrize("solver", ["OSQP", "SCS", "HIGHS"])
def test_other_solvers_agree_with_the_oracle(solver):
    """Each solver's value of (63) is the SVM dual of the kernel it returns (looser tolerance)."""
    seqs, y, pats = random_problem(3)
    options = {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iter": 200000} if solver == "OSQP" else {}
    if solver == "SCS":
        options = {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 200000}
    learner = KernelLearner(count_based(pats), C=1.0, solver=solver, solver_options=options).fit(seqs, y)
    assert learner.solver_ == solver
    X = brute_counts(pats, seqs)
    _, hi, _ = svm_bounds(X * np.sqrt(learner.weights_), y, 1.0)
    assert hi == pytest.approx(-learner.objective_, rel=1e-3)


# -- brute force: min over μ of max over α ------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_single_pattern_kernels_bound_the_optimum(seed):
    """value ≤ max_α f(μ, α) ≤ hi_k at every vertex μ = Λ e_k / ‖X_k‖² of M (one pattern's
    kernel), and value ≥ min_μ f(μ, α_k) = 2α_kᵀ1 − Λ max_j (α_kᵀu′_j)² for each α_k ∈ A."""
    seqs, y, pats = random_problem(seed)
    learner = KernelLearner(count_based(pats), C=1.0).fit(seqs, y)
    X, U, _, value = certify(learner, seqs, y, pats, 1.0)
    sq = (X**2).sum(axis=0)
    Lam = sq.sum()
    uppers, lowers = [], []
    for k in range(len(pats)):
        lo_k, hi_k, alpha_k = svm_bounds(np.sqrt(Lam / sq[k]) * X[:, [k]], y, 1.0)
        uppers.append((lo_k, hi_k))
        lowers.append(2 * alpha_k.sum() - Lam * np.max((alpha_k @ U) ** 2))
    assert value <= min(hi for _, hi in uppers) + 1e-6 * abs(value)
    assert value >= max(lowers) - 1e-6 * abs(value)
    # μ̂ spread over several patterns does strictly better than every single pattern
    # (the optimum is unique here; a vertex would be optimal only if μ̂ were that vertex).
    support = np.count_nonzero(learner.weights_ > 1e-6 * learner.weights_.max())
    if support > 1:
        assert value < min(lo for lo, _ in uppers) - 1e-6 * abs(value)


def simplex_grid(p, steps):
    for c in itertools.product(range(steps + 1), repeat=p - 1):
        if sum(c) <= steps:
            yield np.array([*c, steps - sum(c)]) / steps


@pytest.mark.parametrize("p, steps", [(2, 200), (3, 30)])
def test_minimum_over_a_grid_of_kernels(p, steps):
    """g(μ) = max_α f(μ, α) ≥ value on a grid over M, and min over the grid → value."""
    seqs, y, pats = random_problem(5, n_patterns=p)
    assert len(pats) == p
    learner = KernelLearner(count_based(pats), C=1.0).fit(seqs, y)
    X, _, _, value = certify(learner, seqs, y, pats, 1.0)
    sq = (X**2).sum(axis=0)
    Lam = sq.sum()
    grid = [svm_bounds(X * np.sqrt(Lam * theta / sq), y, 1.0)[:2] for theta in simplex_grid(p, steps)]
    assert min(lo for lo, _ in grid) >= value - 1e-6 * abs(value)
    assert min(hi for _, hi in grid) <= value * (1 + 2e-3)
    # The grid point nearest μ̂ (in trace shares θ_k = μ_k ‖X_k‖² / Λ) is near-optimal too.
    theta = learner.weights_ * sq / Lam
    nearest = min(simplex_grid(p, steps), key=lambda g: np.abs(g - theta).sum())
    _, near = svm_bounds(X * np.sqrt(Lam * nearest / sq), y, 1.0)[:2]
    assert near <= value * (1 + 5e-3)


def test_a_pattern_with_constant_count_gets_no_weight():
    """αᵀu′_k = c αᵀy / ‖X_k‖ = 0 for a pattern counted c times in every sequence, so its
    constraint is never active (t > 0) and μ_k = 0: a constant kernel is absorbed by αᵀy = 0."""
    seqs, y, pats = random_problem(2)
    seqs = [s + "cc" for s in seqs]  # "cc" occurs exactly once in every string
    learner = KernelLearner(count_based(pats + ["cc"]), C=1.0).fit(seqs, y)
    certify(learner, seqs, y, pats + ["cc"], 1.0)
    assert learner.t_ > 1e-3
    assert learner.weights_[-1] <= 1e-6 * learner.weights_.max()


def test_identical_sequences_of_both_classes_leave_mu_free():
    """x_1 = x_2 with y = (+1, −1): α = (C, C), t = 0, f(μ, α) = 2αᵀ1 for every μ ∈ M."""
    learner = KernelLearner(count_based(["ab", "ba"]), C=1.0).fit(["abab", "abab"], np.array([1, -1]))
    sq = (brute_counts(["ab", "ba"], ["abab"]) ** 2).sum(axis=0) * 2
    assert learner.objective_ == pytest.approx(-4.0, abs=1e-6)
    assert learner.t_ == pytest.approx(0.0, abs=1e-3)
    assert learner.weights_.min() >= 0 and (learner.weights_ * sq).sum() == pytest.approx(sq.sum())


# -- the learned kernel is a real rational kernel -------------------------------------


def test_learned_kernel_transducer_carries_the_weights():
    seqs, y, pats = random_problem(4)
    learner = KernelLearner(count_based(pats), C=1.0).fit(seqs, y)
    mu = learner.weights_
    T = learner.kernel_.factor("ab")
    S = learner.kernel_.transducer("ab")
    for x in seqs[:4]:
        cx = brute_counts(pats, [x])[0]
        for k, z in enumerate(pats):  # ⟦T⟧(x, z_k) = w_k |x|_k with w_k = √μ_k
            assert float(evaluate(T, x, z)) == pytest.approx(np.sqrt(mu[k]) * cx[k], rel=1e-9, abs=1e-12)
        for x2 in seqs[4:7]:  # ⟦T ∘ T⁻¹⟧(x, x′) = Σ_k μ_k |x|_k |x′|_k
            c2 = brute_counts(pats, [x2])[0]
            assert float(evaluate(S, x, x2)) == pytest.approx((mu * cx * c2).sum(), rel=1e-9, abs=1e-12)


def test_learned_kernel_spec_round_trip_and_new_data():
    seqs, y, pats = random_problem(6)
    learner = KernelLearner(count_based(pats), C=1.0).fit(seqs, y)
    again = from_spec(to_spec(learner.kernel_))
    new = ["abba", "babab", "aab"]
    expected = (brute_counts(pats, new) * learner.weights_) @ brute_counts(pats, seqs).T
    np.testing.assert_allclose(again.gram(new, seqs), expected, rtol=1e-9, atol=1e-12)


def test_learned_kernel_trains_an_svm_end_to_end():
    """The learned kernel, as a callable, trains scikit-learn's SVC on strings; its dual
    objective there is the value of (63)."""
    seqs, y, pats = random_problem(7)
    learner = KernelLearner(count_based(pats), C=1.0).fit(seqs, y)
    svc = SVC(kernel=learner.kernel_, C=1.0, tol=1e-10).fit(seqs, y)
    alpha = np.zeros(len(y))
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    K = (brute_counts(pats, seqs) * learner.weights_) @ brute_counts(pats, seqs).T
    assert dual_f(alpha, K, y) == pytest.approx(-learner.objective_, rel=1e-5)
    assert (svc.predict(seqs) == y).mean() >= 0.5


def test_learned_kernel_trains_rational_svc_end_to_end():
    """RationalSVC (Algorithm 4) on the learned kernel: its decision function is the kernel
    expansion with brute-force counts weighted by μ, and its SVM (no bias) is solved to a zero
    duality gap on the explicit features |x|_k √μ_k."""
    seqs, y, pats = random_problem(7)
    learner = KernelLearner(count_based(pats), C=1.0).fit(seqs, y)
    mu = learner.weights_
    svm = RationalSVC(kernel=learner.kernel_, C=1.0, tol=1e-8, max_iter=100_000, random_state=0)
    svm.fit(seqs, y)
    assert list(svm.classes_) == [-1, 1]
    X, new = brute_counts(pats, seqs), ["abba", "babab", "aab", "bbbb"]
    coef = svm.alpha_[0] * y
    expected = (brute_counts(pats, new) * mu) @ X.T @ coef + svm.intercept_[0]
    np.testing.assert_allclose(svm.decision_function(new), expected, rtol=1e-8, atol=1e-8)
    # its α is optimal for the no-bias SVM on the explicit features |x|_k √μ_k: zero duality gap
    F = X * np.sqrt(mu)
    w = F.T @ coef
    primal = 0.5 * w @ w + np.maximum(0, 1 - y * (F @ w)).sum()
    dual = svm.alpha_[0].sum() - 0.5 * w @ w
    assert primal - dual <= 1e-6 * primal
    with_bias = RationalSVC(kernel=learner.kernel_, C=1.0, fit_intercept=True, random_state=0)
    assert np.mean(with_bias.fit(seqs, y).predict(seqs) == y) > 0.5


# -- the estimator contract and the pattern helpers -----------------------------------


def test_estimator_contract():
    learner = KernelLearner(count_based(["ab"]), C=2.0, trace=3.0, solver="osqp")
    copy = clone(learner)
    assert to_spec(copy.kernel) == to_spec(learner.kernel) and copy.kernel is not learner.kernel
    assert {k: v for k, v in copy.get_params(deep=False).items() if k != "kernel"} == {
        "C": 2.0,
        "trace": 3.0,
        "solver": "osqp",
        "solver_options": None,
        "ngram_length": 2,
        "n_patterns": 1000,
    }
    assert not hasattr(learner, "kernel_")
    seqs, y, pats = random_problem(1)
    fitted = KernelLearner(count_based(pats)).fit(seqs, y)
    assert fitted.patterns_ == [tuple(p) for p in pats]
    assert fitted.weights_.shape == (len(pats),) and fitted.n_iter_ >= 1 and fitted.solve_time_ > 0


def test_registered_as_learner_plugin():
    assert get("learner", "kernel-learner") is KernelLearner
    with pytest.warns(DeprecationWarning, match="'kernel-qp' is deprecated; use 'kernel-learner'"):
        assert get("learner", "kernel-qp") is KernelLearner


def test_default_patterns_are_the_most_frequent_bigrams():
    seqs, y, _ = random_problem(8, alphabet="abc")
    learner = KernelLearner(n_patterns=4).fit(seqs, y)
    counts = {}
    for s in seqs:
        for j in range(len(s) - 1):
            counts[s[j : j + 2]] = counts.get(s[j : j + 2], 0) + 1
    top = sorted(counts, key=lambda z: (-counts[z], z))[:4]
    assert learner.patterns_ == [tuple(z) for z in top]


def test_pattern_counts_match_brute_force_in_pattern_order():
    seqs = ["abcabca", "cab", "bbbb", ""]
    pats = ["ca", "b", "bb", "abc", "zz"]  # "zz" never occurs
    X = pattern_counts(pats, seqs).toarray()
    np.testing.assert_array_equal(X, brute_counts(pats, seqs))
    tokens = [("the", "cat", "the", "cat"), ("a", "cat")]
    np.testing.assert_array_equal(
        pattern_counts([("the", "cat"), ("cat",)], tokens).toarray(),
        brute_counts([("the", "cat"), ("cat",)], tokens),
    )


def test_most_frequent_patterns_on_tokens():
    docs = [("a", "b", "a", "b"), ("b", "a", "c"), ("a", "b")]
    got = most_frequent_patterns(docs, n=2, p=2)
    assert got == [("a", "b"), ("b", "a")]  # counts 3, 2 (and ('a', 'c') 1)
    assert most_frequent_patterns(docs, n=2, p=100) == [("a", "b"), ("b", "a"), ("a", "c")]


# -- one Reuters category -------------------------------------------------------------


@pytest.fixture(scope="module")
def reuters_acq():
    import re

    from ratkit.datasets import reuters_modapte

    docs = reuters_modapte(shared_data_path("reuters21578"), "train")
    rng = np.random.default_rng(0)
    pick = rng.choice(len(docs), size=120, replace=False)
    seqs = [tuple(re.findall(r"[a-z0-9]+", docs[i].body)) for i in pick]
    y = np.array([1 if "acq" in docs[i].topics else -1 for i in pick])
    return seqs, y


def test_optimality_conditions_on_reuters_acq(reuters_acq):
    seqs, y = reuters_acq
    pats = most_frequent_patterns(seqs, n=2, p=60)
    learner = KernelLearner(count_based(pats), C=1.0).fit(seqs, y)
    assert learner.status_ == "optimal"
    certify(learner, seqs, y, pats, 1.0, tol=1e-4)
