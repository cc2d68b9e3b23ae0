"""The DCD convergence record (``convergence_``) against the dual objective recomputed from α,
the stopping rule, weak duality, model files and the progress bar."""

from __future__ import annotations

import random

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from ratkit import load_model
from ratkit.automata import kernels
from ratkit.learners import LinearDCDSVC, RationalSVC
from ratkit.learners.dcd import active_gram as ag
from ratkit.learners.dcd import convergence_record, solve


def _problem(seed: int, n: int = 80, p: int = 30, density: float = 0.2):
    rng = np.random.RandomState(seed)
    X = sp.random(n, p, density=density, random_state=rng, format="csr", data_rvs=rng.randn)
    y = np.sign(X @ rng.randn(p) + 0.5 * rng.randn(n))
    y[y == 0] = 1
    return X, y


def _strings(seed: int, m: int) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice("abc") for _ in range(rnd.randint(2, 12))) for _ in range(m)]


def _dual(alpha: np.ndarray, K: np.ndarray, y: np.ndarray) -> float:
    """f(α) = ½αᵀQα − eᵀα with Q_ij = y_i y_j K_ij, straight from the definition."""
    Q = np.outer(y, y) * K
    return 0.5 * float(alpha @ Q @ alpha) - float(alpha.sum())


def _signs(classes: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The ±1 targets of each binary problem (one for two classes, one per class otherwise)."""
    if classes.shape[0] == 2:
        return np.where(labels == classes[1], 1.0, -1.0)[None, :]
    return np.where(labels[None, :] == classes[:, None], 1.0, -1.0)


def _check_record(m, K: np.ndarray, labels: np.ndarray, tol: float) -> None:
    conv = m.convergence_
    assert set(conv) == {"dual_objective", "pg_gap", "tol", "problems"} and conv["tol"] == tol
    assert len(conv["dual_objective"]) == len(conv["pg_gap"]) == m.n_iter_
    Y = _signs(m.classes_, np.asarray(labels))
    assert len(conv["problems"]) == Y.shape[0]
    finals = []
    for c, prob in enumerate(conv["problems"]):
        duals = np.asarray(prob["dual_objective"])
        assert len(duals) == len(prob["pg_gap"]) >= 1
        # DCD minimises f: every pass takes exact (clipped) Newton steps, f never goes up
        assert np.all(np.diff(duals) <= 1e-9 * np.maximum(1.0, np.abs(duals[1:])))
        assert duals[0] < 0.0  # the first pass leaves α = 0 (f = 0) for the better
        exact = _dual(m.alpha_[c], K, Y[c])
        assert duals[-1] == pytest.approx(exact, rel=1e-9, abs=1e-9)
        finals.append(exact)
    assert conv["dual_objective"][-1] == pytest.approx(sum(finals), rel=1e-9, abs=1e-9)
    if m.converged_:
        assert conv["pg_gap"][-1] <= tol
        assert all(prob["pg_gap"][-1] <= tol for prob in conv["problems"])


@pytest.mark.parametrize("shrinking", [True, False])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_linear_record_matches_the_dual_of_the_final_alpha(shrinking, fit_intercept):
    X, y = _problem(1)
    tol = 1e-5
    kw = dict(shrinking=shrinking, fit_intercept=fit_intercept, random_state=0, cache_size=1e-9)  # no float32 cache
    m = LinearDCDSVC(C=2.0, tol=tol, max_iter=5000, **kw).fit(X, y)
    assert m.converged_ and m.n_iter_ > 2
    K = (X @ X.T).toarray() + (1.0 if fit_intercept else 0.0)
    _check_record(m, K, y, tol)


def test_record_of_the_weak_duality_gap():
    """−f(α) of the last pass is the maximised dual: a lower bound of the primal P(w) within
    a small gap at convergence (LIBLINEAR's certificate)."""
    X, y = _problem(2)
    C = 1.0
    m = LinearDCDSVC(C=C, tol=1e-6, max_iter=5000, fit_intercept=False, random_state=1).fit(X, y)
    w = m.coef_[0]
    primal = 0.5 * w @ w + C * np.maximum(0.0, 1.0 - y * (X @ w)).sum()
    dual = -m.convergence_["dual_objective"][-1]
    assert dual <= primal + 1e-9
    assert primal - dual <= 1e-4 * primal


def test_record_on_the_cached_inner_products(monkeypatch):
    """Passes on the float32 cache of Q_AA (built at the first shrunk pass here) report f's
    change from their approximate gradients: still within 1e-6 (relative) of the exact f."""
    for name in ("ENTRY_COST", "PAIR_COST"):
        monkeypatch.setattr(ag, name, 0.0)
    X, y = _problem(3, n=200, p=60, density=0.1)
    m = LinearDCDSVC(C=10.0, tol=1e-6, max_iter=20000, fit_intercept=False, random_state=0).fit(X, y)
    conv = m.convergence_
    exact = _dual(m.alpha_[0], (X @ X.T).toarray(), y)
    assert len(conv["dual_objective"]) == m.n_iter_ and m.converged_ and conv["pg_gap"][-1] <= 1e-6
    assert conv["dual_objective"][-1] == pytest.approx(exact, rel=1e-6)
    duals = np.asarray(conv["dual_objective"])
    assert np.all(np.diff(duals) <= 1e-6 * np.abs(duals[1:]))


@pytest.mark.parametrize("representation", ["trie", "automaton", "naive", "rows"])
def test_rational_record_on_every_representation(representation):
    X = _strings(5, 40)
    y = np.array(["a" if x.count("ab") > x.count("ba") else "b" if x.count("a") > x.count("c") else "c" for x in X])
    k = kernels.ngram(2)
    tol = 1e-4
    cache = 1e-9 if representation == "trie" else 200.0  # no float32 cache of Q_AA: exact steps
    m = RationalSVC(k, C=1.0, tol=tol, representation=representation, random_state=0, cache_size=cache).fit(X, y)
    assert m.representation_ == representation and m.alpha_.shape[0] == 3
    # naive keeps W′ in OpenFst's float32 weights: its gradients, and so f's changes, are
    # float32-accurate; the others are exact to rounding
    K = k.gram(X)
    if representation == "naive":
        conv = m.convergence_
        Y = _signs(m.classes_, y)
        exact = sum(_dual(m.alpha_[c], K, Y[c]) for c in range(3))
        assert len(conv["dual_objective"]) == m.n_iter_
        assert conv["dual_objective"][-1] == pytest.approx(exact, rel=1e-5)
    else:
        _check_record(m, K, y, tol)
    # one-vs-rest: the record is the sum of the problems' duals, padded with a stopped problem's last value
    per = [np.asarray(p["dual_objective"]) for p in m.convergence_["problems"]]
    assert m.n_iter_ == max(len(d) for d in per)
    t = min(len(d) for d in per) - 1
    assert m.convergence_["dual_objective"][t] == pytest.approx(sum(d[t] for d in per))


def test_a_run_stopped_at_max_iter_records_every_pass_and_a_gap_above_tol():
    X, y = _problem(4)
    with pytest.warns(ConvergenceWarning):
        m = LinearDCDSVC(tol=1e-9, max_iter=3, random_state=0).fit(X, y)
    conv = m.convergence_
    assert not m.converged_ and len(conv["pg_gap"]) == m.n_iter_ == 3 and conv["pg_gap"][-1] > 1e-9


def test_the_record_survives_a_model_file(tmp_path):
    X, y = _problem(6)
    m = LinearDCDSVC(tol=1e-4, random_state=0).fit(X, y)
    m.save(tmp_path / "m.zip")
    again = load_model(tmp_path / "m.zip")
    assert again.convergence_ == m.convergence_
    assert len(again.convergence_["pg_gap"]) == again.n_iter_


def test_an_epoch_without_the_dual_change_records_nan():
    """A W′ representation whose pass returns the protocol's three values still trains; its
    dual objective is unknown (NaN), its gaps are recorded."""
    gaps = iter([1.0, 0.5, 0.0])

    def epoch(active, size, max_old, min_old):
        g = next(gaps)
        return g, 0.0, size

    res = solve(epoch, 4, tol=1e-3, max_iter=10, rng=np.random.RandomState(0), shrinking=False)
    assert res.converged and res.n_iter == 3 and res.pg_gap == [1.0, 0.5, 0.0]
    assert np.isnan(res.dual_objective).all()
    rec = convergence_record([res], 1e-3)
    assert rec["pg_gap"] == [1.0, 0.5, 0.0] and len(rec["dual_objective"]) == 3


def test_progress_bar_counts_passes_and_shows_the_gap_against_tol(capsys):
    X, y = _problem(7)
    m = LinearDCDSVC(tol=1e-3, random_state=0, show_progress=True).fit(X, y)
    err = capsys.readouterr().err
    last = err.replace("\r", "\n").strip().splitlines()[-1]
    # the bar stays on screen: its last line has the passes done, the final gap and tol
    assert f"{m.n_iter_}pass" in last.replace(" ", "")
    assert f"gap={m.convergence_['pg_gap'][-1]:.2e}" in last and "tol=1.0e-03" in last
    assert "/1000" not in err  # no bar to max_iter
    LinearDCDSVC(tol=1e-3, random_state=0).fit(X, y)
    assert capsys.readouterr().err == ""  # off by default
