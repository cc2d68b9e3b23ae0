"""RationalSVC (Algorithm 4) against LinearDCDSVC on explicit features, for every W′."""

from __future__ import annotations

import random

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.preprocessing import normalize

from ratkit.automata import kernels
from ratkit.automata.kernels import Kernel
from ratkit.exceptions import (
    NotFittedError,
    NotPDSKernelError,
    TrainingDataError,
    UnknownSymbolError,
)
from ratkit.learners import LinearDCDSVC, RationalSVC
from ratkit.plugins import get

REPRESENTATIONS = ["trie", "automaton", "naive"]


def _strings(seed: int, m: int, alphabet: str = "abc", lo: int = 2, hi: int = 12) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi))) for _ in range(m)]


def _labels(X: list[str]) -> np.ndarray:
    return np.array([1 if x.count("ab") > x.count("ba") else -1 for x in X])


def _count_features(X, n):
    """The explicit n-gram count features, by scikit-learn (the oracle)."""
    return CountVectorizer(analyzer="char", ngram_range=(n, n), lowercase=False).fit_transform(X)


@pytest.mark.parametrize("representation", REPRESENTATIONS)
@pytest.mark.parametrize("n", [1, 2, 3])
def test_same_alpha_as_linear_dcd_on_countvectorizer_features(representation, n):
    X = _strings(n, 16 if representation == "naive" else 60)
    y = _labels(X)
    # plain Algorithm 3/4 (no shrinking): both solvers take the very same steps
    kw = dict(C=1.0, tol=1e-3, max_iter=1000, shrinking=False, random_state=7)
    ref = LinearDCDSVC(fit_intercept=False, **kw).fit(_count_features(X, n), y)
    m = RationalSVC(kernels.ngram(n), representation=representation, **kw).fit(X, y)
    assert m.representation_ == representation
    assert m.converged_ and m.n_iter_ == ref.n_iter_
    np.testing.assert_allclose(m.alpha_, ref.alpha_, atol=1e-9)
    np.testing.assert_allclose(m.decision_function(X), ref.decision_function(_count_features(X, n)), atol=1e-8)


@pytest.mark.parametrize("representation", ["trie", "automaton"])
@pytest.mark.parametrize("n", [2, 4])
def test_shrinking_reaches_liblinears_optimum(representation, n):
    from sklearn.svm import LinearSVC

    X = _strings(100 + n, 80, lo=5, hi=25)
    y = _labels(X)
    F = normalize(_count_features(X, n))
    ref = LinearSVC(loss="hinge", dual=True, C=1.0, tol=1e-10, max_iter=200_000).fit(F, y)
    m = RationalSVC(
        kernels.cosine(kernels.ngram(n)),
        C=1.0,
        fit_intercept=True,
        tol=1e-6,
        representation=representation,
        random_state=0,
    ).fit(X, y)
    assert m.converged_

    def primal(w, b):  # ½(‖w‖² + b²) + C Σ hinge, the problem with an augmented bias
        return 0.5 * (w @ w + b * b) + np.maximum(0, 1 - y * (F @ w + b)).sum()

    # W′ on the vocabulary in the order of CountVectorizer's columns
    patterns = ["".join(p) for p in m.feature_map_.patterns()]
    w = np.zeros(F.shape[1])
    index = {
        z: j
        for j, z in enumerate(
            CountVectorizer(analyzer="char", ngram_range=(n, n), lowercase=False).fit(X).get_feature_names_out()
        )
    }
    w[[index[z] for z in patterns]] = m.coef_[0]
    p_ref = primal(ref.coef_[0], ref.intercept_[0])
    assert abs(primal(w, m.intercept_[0]) - p_ref) <= 1e-4 * p_ref


@pytest.mark.parametrize("representation", ["trie", "automaton"])
def test_bias_is_the_empty_pattern(representation):
    X = _strings(11, 50)
    y = _labels(X)
    kw = dict(C=2.0, intercept_scaling=1.5, tol=1e-4, max_iter=2000, shrinking=False, random_state=1)
    ref = LinearDCDSVC(**kw).fit(_count_features(X, 2), y)
    m = RationalSVC(kernels.ngram(2), fit_intercept=True, representation=representation, **kw).fit(X, y)
    np.testing.assert_allclose(m.alpha_, ref.alpha_, atol=1e-9)
    np.testing.assert_allclose(m.intercept_, ref.intercept_, atol=1e-9)


def test_bias_with_naive_and_kernel_rows():
    X = _strings(13, 16)
    y = _labels(X)
    kw = dict(C=1.0, fit_intercept=True, tol=1e-3, max_iter=1000, shrinking=False, random_state=2)
    ref = RationalSVC(kernels.ngram(2), **kw).fit(X, y)
    naive = RationalSVC(kernels.ngram(2), representation="naive", **kw).fit(X, y)
    rows = RationalSVC(lambda A, B: kernels.ngram(2).gram(A, B), **kw).fit(X, y)
    for m in (naive, rows):
        np.testing.assert_allclose(m.alpha_, ref.alpha_, atol=1e-9)
        np.testing.assert_allclose(m.decision_function(X), ref.decision_function(X), atol=1e-8)


@pytest.mark.parametrize("representation", REPRESENTATIONS)
def test_cosine_kernel_equals_normalised_features(representation):
    X = _strings(21, 16 if representation == "naive" else 50)
    y = _labels(X)
    kw = dict(C=1.0, tol=1e-3, max_iter=1000, shrinking=False, random_state=3)
    F = normalize(_count_features(X, 2))
    ref = LinearDCDSVC(fit_intercept=False, **kw).fit(F, y)
    m = RationalSVC(kernels.cosine(kernels.ngram(2)), representation=representation, **kw).fit(X, y)
    np.testing.assert_allclose(m.alpha_, ref.alpha_, atol=1e-9)
    # new strings: their norm counts every 2-gram, seen in training or not
    Z = ["abcabc", "zzab", "cccc"]
    vocab = CountVectorizer(analyzer="char", ngram_range=(2, 2), lowercase=False).fit(X)
    norms = np.sqrt(np.asarray(_count_features(Z, 2).multiply(_count_features(Z, 2)).sum(axis=1)).ravel())
    want = (vocab.transform(Z) @ ref.coef_[0]) / norms
    np.testing.assert_allclose(m.decision_function(Z), want, atol=1e-9)


def test_kernel_rows_fallback_with_a_small_cache():
    """A kernel given as a callable has no feature map: rows are computed on demand."""
    X = _strings(31, 40)
    y = _labels(X)
    kw = dict(C=1.0, tol=1e-3, max_iter=1000, shrinking=False, random_state=4)
    ref = RationalSVC(kernels.ngram(3), **kw).fit(X, y)
    calls = []

    def k(A, B):
        calls.append(len(A))
        return kernels.ngram(3).gram(A, B)

    m = RationalSVC(k, cache_size=40 * 8 * 5 / 2**20, **kw).fit(X, y)  # room for 5 rows
    assert m.representation_ == "rows"
    assert max(calls) == 1  # never the whole matrix
    np.testing.assert_allclose(m.alpha_, ref.alpha_, atol=1e-9)
    np.testing.assert_allclose(m.decision_function(X), ref.decision_function(X), atol=1e-8)


def test_non_factored_kernel_uses_rows_and_predicts_the_kernel_expansion():
    X = _strings(41, 30)
    y = _labels(X)
    k = kernels.exp_kernel(kernels.ngram(2), 0.1)  # not T ∘ T⁻¹
    m = RationalSVC(k, C=1.0, random_state=0).fit(X, y)
    assert m.representation_ == "rows"
    Z = _strings(42, 5)
    K = np.exp(-0.1 * (_count_features(Z + X, 2) @ _count_features(Z + X, 2).T).toarray())[: len(Z), len(Z) :]
    beta = m.alpha_[0] * np.where(y == m.classes_[1], 1.0, -1.0)
    np.testing.assert_allclose(m.decision_function(Z), K @ beta, atol=1e-9)


def test_one_vs_rest_on_three_classes():
    X = _strings(51, 60)
    y = np.array(
        [
            "a" if x.count("a") >= max(x.count("b"), x.count("c")) else "b" if x.count("b") >= x.count("c") else "c"
            for x in X
        ]
    )
    kw = dict(C=1.0, tol=1e-4, max_iter=500, shrinking=False, random_state=5)
    ref = LinearDCDSVC(fit_intercept=False, **kw).fit(_count_features(X, 1), y)
    m = RationalSVC(kernels.ngram(1), **kw).fit(X, y)
    assert m.alpha_.shape == (3, 60)
    np.testing.assert_allclose(m.alpha_, ref.alpha_, atol=1e-9)
    assert list(m.predict(X)) == list(ref.predict(_count_features(X, 1)))


def test_unseen_symbols_at_predict_time_add_nothing():
    """Patterns never seen in training have weight 0 in W′: f(x) = Σ β_j K(x_j, x) still."""
    X = _strings(61, 40, "ab")
    y = _labels(X)
    m = RationalSVC(kernels.ngram(2), C=1.0, random_state=0).fit(X, y)
    Z = ["abzab", "zz", "xyab"]
    beta = m.alpha_[0] * np.where(y == m.classes_[1], 1.0, -1.0)
    G = kernels.ngram(2).gram(Z, X, strategy="composition")  # per-pair transducer composition
    np.testing.assert_allclose(m.decision_function(Z), G @ beta, atol=1e-9)


def test_declared_alphabet_refuses_unknown_symbols():
    k = kernels.mismatch(2, 0, alphabet="ab")
    X = _strings(62, 20, "ab")
    m = RationalSVC(k, random_state=0).fit(X, _labels(X))
    with pytest.raises(UnknownSymbolError, match="Symbol 'z' is not in the alphabet"):
        m.predict(["abz"])


def test_token_sequences():
    words = [
        ("the", "cat"),
        ("a", "cat", "sat"),
        ("the", "dog"),
        ("a", "dog", "ran"),
        ("the", "cat", "ran"),
    ]
    y = [1, 1, 0, 0, 1]
    m = RationalSVC(kernels.ngram(1), C=10.0, random_state=0).fit(words, y)
    assert list(m.predict(words)) == y


class _NotPDS(Kernel):
    is_pds = False
    pds = False

    def _gram(self, X, Y=None, **kw):
        return np.zeros((len(X), len(X if Y is None else Y)))


def test_bad_inputs_give_clear_errors():
    X = _strings(71, 10)
    y = _labels(X)
    with pytest.raises(NotPDSKernelError, match="needs a positive definite symmetric kernel; _NotPDS is flagged"):
        RationalSVC(_NotPDS()).fit(X, y)
    with pytest.raises(TrainingDataError, match="empty training set"):
        RationalSVC(kernels.ngram(2)).fit([], [])
    with pytest.raises(TrainingDataError, match=r"at least two classes; got one class only \('x'\)"):
        RationalSVC(kernels.ngram(2)).fit(X, ["x"] * 10)
    with pytest.raises(TrainingDataError, match="X has 10 samples but y has 3 labels"):
        RationalSVC(kernels.ngram(2)).fit(X, y[:3])
    with pytest.raises(
        ValueError,
        match="'representation' parameter of RationalSVC must be one of 'trie', "
        "'automaton', 'rows', 'naive'. Got 'dawg' instead",
    ):
        RationalSVC(kernels.ngram(2), representation="dawg").fit(X, y)
    with pytest.raises(ValueError, match="'kernel' parameter of RationalSVC must be a ratkit kernel"):
        RationalSVC(kernel=3).fit(X, y)
    with pytest.raises(ValueError, match="representation='naive' builds W′ from OpenFst feature automata"):
        RationalSVC("linear", representation="naive").fit(np.eye(4), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="'C' parameter of RationalSVC must be a float > 0"):
        RationalSVC(kernels.ngram(2), C=-1).fit(X, y)
    with pytest.raises(NotFittedError, match="This RationalSVC instance is not fitted yet"):
        RationalSVC().predict(X)
    with pytest.raises(TypeError, match="X must be a collection of sequences"):
        RationalSVC().fit("abc", [1])


def test_kernel_spec_and_default_kernel():
    X = _strings(81, 30)
    y = _labels(X)
    kw = dict(C=1.0, tol=1e-3, max_iter=1000, random_state=0)
    ref = RationalSVC(kernels.ngram(3), **kw).fit(X, y)
    for k in (None, {"family": "ngram", "n": 3}, '{"family": "ngram", "n": 3}'):
        np.testing.assert_allclose(RationalSVC(k, **kw).fit(X, y).alpha_, ref.alpha_, atol=1e-12)


def test_registered_as_plugin():
    assert get("learner", "rational-svc") is RationalSVC


def test_wprime_sizes_count_the_trie_of_the_nonzero_patterns():
    X = _strings(91, 50)
    y = _labels(X)
    kw = dict(C=1.0, tol=1e-4, max_iter=2000, random_state=0)
    vec = CountVectorizer(analyzer="char", ngram_range=(2, 2), lowercase=False)
    ref = LinearDCDSVC(fit_intercept=False, **kw).fit(vec.fit_transform(X), y)
    live = [z for z, w in zip(vec.get_feature_names_out(), ref.coef_[0]) if w != 0]
    m = RationalSVC(kernels.ngram(2), **kw).fit(X, y)
    sizes = m.wprime_sizes()
    assert sizes["patterns"] == len(live)
    assert sizes["trie_states"] == 1 + len({z[0] for z in live}) + len(live)
    assert sizes["minimal_size"] <= sizes["trie_size"]
    naive = RationalSVC(kernels.ngram(2), representation="naive", tol=0.5, random_state=0)
    naive.fit(X[:12], ["a", "b"] * 6)
    with pytest.raises(ValueError, match="wprime_sizes needs W′ on explicit patterns; this model was trained"):
        naive.wprime_sizes()


@pytest.mark.parametrize("representation", REPRESENTATIONS)
def test_weighted_lattices_are_mixtures_of_their_strings(representation):
    """Φ′ of the lattice p·x ⊕ q·z is p Φ′_x + q Φ′_z (the feature map is linear in X)."""
    from ratkit.automata import PROBABILITY, acceptor, union

    rng = random.Random(5)
    pairs = [tuple(_strings(rng.randint(0, 10**6), 2, "ab", 3, 8)) for _ in range(12)]
    weights = [(0.3, 0.7), (0.5, 0.5), (1.0, 0.25)] * 4
    lattices = [
        union(acceptor(x, PROBABILITY, p), acceptor(z, PROBABILITY, q)) for (x, z), (p, q) in zip(pairs, weights)
    ]
    y = np.array([1 if x.count("ab") + z.count("ab") > x.count("ba") + z.count("ba") else -1 for x, z in pairs])
    y[:2] = [1, -1]
    vec = CountVectorizer(analyzer="char", ngram_range=(2, 2), lowercase=False).fit([s for p in pairs for s in p])
    F = np.vstack(
        [p * vec.transform([x]).toarray() + q * vec.transform([z]).toarray() for (x, z), (p, q) in zip(pairs, weights)]
    )
    kw = dict(C=1.0, tol=1e-3, max_iter=1000, shrinking=False, random_state=0)
    ref = LinearDCDSVC(fit_intercept=False, **kw).fit(F, y)
    m = RationalSVC(kernels.ngram(2), representation=representation, **kw).fit(lattices, y)
    np.testing.assert_allclose(m.alpha_, ref.alpha_, atol=1e-9)
    np.testing.assert_allclose(m.decision_function(lattices), ref.decision_function(F), atol=1e-8)


def test_a_failed_fit_leaves_the_estimator_unfitted():
    X = _strings(91, 20)
    y = _labels(X)
    m = RationalSVC(kernels.subsequence(), random_state=0).fit(X, y)  # the subsequence features contain ε
    with pytest.raises(ValueError, match="already contain ε; use fit_intercept=False"):
        m.set_params(fit_intercept=True).fit(X, ["x" if v > 0 else "y" for v in y])
    assert not any(k.endswith("_") and not k.startswith("_") for k in vars(m))
    with pytest.raises(NotFittedError, match="This RationalSVC instance is not fitted yet"):
        m.predict(X)
    lin = LinearDCDSVC().fit(np.eye(4), [0, 1, 0, 1])
    with pytest.raises(TrainingDataError, match="one class only"):
        lin.fit(np.eye(4), [1, 1, 1, 1])
    with pytest.raises(NotFittedError):
        lin.predict(np.eye(4))


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_a_non_finite_kernel_stops_the_solver_naming_the_kernel():
    """Before: a kernel giving NaN trained with converged_=True after one pass and predicted
    one class. Now the kernel values are checked where the learner reads them."""
    from ratkit.exceptions import SolverError

    X, y = _strings(30, 24), [0, 1] * 12

    def nan_kernel(A, B):
        return np.full((len(A), len(B)), np.nan)

    with pytest.raises(
        SolverError, match=r"The kernel .*nan_kernel gave 576 non-finite kernel values \(the first is nan"
    ):
        RationalSVC(nan_kernel).fit(X, y)

    class Overflowing(Kernel):
        def _gram(self, X, Y=None, **kw):
            Y = X if Y is None else Y
            return np.full((len(X), len(Y)), np.inf)

    with pytest.raises(SolverError, match=r"The kernel Overflowing\(\) gave .* non-finite kernel values"):
        RationalSVC(Overflowing()).fit(X, y)
    # w² |x| |y| overflows: the features (1e200) are finite, Q_ii = ‖Φ′_i‖² is not; before, every α
    # stayed 0 (a step of 0/∞) and the run "converged"
    huge = kernels.count_based(["ab", "ba"], [1e200, 1.0])
    for representation in REPRESENTATIONS:
        with pytest.raises(SolverError, match=r"RationalSVC on .*Q_ii = K\(x_i, x_i\) of sample \d+ is inf|K\(x, x\)"):
            RationalSVC(huge, representation=representation).fit(X, y)
    with pytest.raises(SolverError, match=r"LinearDCDSVC: Q_ii = K\(x_i, x_i\) of sample 0 is inf"):
        LinearDCDSVC().fit(np.array([[1e200, 0.0], [0.0, 1.0]] * 3), [0, 1] * 3)


def test_solver_refuses_a_pass_with_non_finite_gradients():
    """The driver's own guard, for any representation: a NaN projected gradient is an error,
    not a converged run."""
    from ratkit.exceptions import SolverError
    from ratkit.learners.dcd._solver import solve

    def epoch(active, size, max_old, min_old):
        return float("nan"), float("nan"), size

    with pytest.raises(SolverError, match="the projected gradients of pass 1 are not finite"):
        solve(epoch, 5, tol=1e-3, max_iter=10, rng=np.random.RandomState(0), owner="RationalSVC on K")


def test_fit_clones_the_kernel_so_set_params_cannot_change_the_fitted_model():
    """Before: fit kept the user's kernel object as kernel_; after m.set_params(kernel__n=3)
    every decision value was 0 without any error."""
    X = _strings(31, 40)
    y = [int(x.count("ab") > x.count("ba")) for x in X]
    k = kernels.ngram(2)
    m = RationalSVC(k, random_state=0).fit(X, y)
    before = m.decision_function(X)
    assert m.kernel_ is not k and vars(k) == vars(kernels.ngram(2))  # nothing was written into k
    m.set_params(kernel__n=3)
    assert k.n == 3 and m.kernel_.n == 2
    np.testing.assert_array_equal(m.decision_function(X), before)
    assert np.any(before != 0)


def test_training_on_empty_strings_then_predicting_does_not_hang():
    """Before: with no symbol in training (code base 1), max_code_length looped forever at predict."""
    from tests.isolated import run_python

    out = run_python(
        """
        from ratkit.automata import kernels
        from ratkit.learners import RationalSVC
        for k in (kernels.ngram(2), kernels.gappy(2, 0.5), kernels.count_based(["ab"])):
            m = RationalSVC(k).fit([""] * 4, [0, 1, 0, 1])
            print(m.decision_function(["ab", ""]).tolist())
        """,
        timeout=60,
    )
    assert not out.timed_out, "predict hung"
    assert out.returncode == 0, out.stderr
    # no training pattern has a symbol: every Φ′ is 0 on the vocabulary, so f(x) = 0 (no intercept)
    assert out.stdout.split() == ["[0.0,", "0.0]"] * 3


def test_kernel_rows_can_be_asked_for_and_take_the_steps_of_the_trie():
    X = _strings(33, 40)
    y = _labels(X)
    kw = dict(C=1.0, tol=1e-3, max_iter=1000, shrinking=False, random_state=6, fit_intercept=True)
    trie = RationalSVC(kernels.ngram(2), **kw).fit(X, y)
    rows = RationalSVC(kernels.ngram(2), representation="rows", **kw).fit(X, y)
    assert rows.representation_ == "rows" and rows.coef_ is None and set(rows.fit_time_) == {"kernel", "solver"}
    np.testing.assert_allclose(rows.alpha_, trie.alpha_, atol=1e-9)
    np.testing.assert_allclose(rows.decision_function(X), trie.decision_function(X), atol=1e-8)


def test_a_new_w_prime_representation_is_one_class_and_one_registration(monkeypatch):
    """W′ as a dense vector over the explicit features, registered from outside the package:
    RationalSVC uses it by name, with the solver's intercept and one-vs-rest, and takes the
    very steps of the trie (plain Algorithm 4: no shrinking)."""
    from ratkit.learners.dcd.epochs import epoch_python
    from ratkit.learners.wprime._protocol import primal_inputs, register_representation
    from ratkit.plugins import registry

    monkeypatch.setitem(registry._registry, "representation", dict(registry._registry["representation"]))

    @register_representation("dense")
    class DenseWPrime:
        def __init__(self, inputs, bias):
            F = inputs.F.toarray()
            self.F = np.hstack([np.full((F.shape[0], 1), bias), F]) if bias > 0 else F
            self.bias, self.vocabulary = bias, inputs.vocabulary
            self.diagonal = (self.F**2).sum(axis=1)
            self.w = {}

        @classmethod
        def build(cls, data):
            inputs = primal_inputs(data)
            return None if inputs is None else cls(inputs, data.bias)

        def epoch(self, c, y, qinv, C, alpha):
            w = self.w[c] = np.zeros(self.F.shape[1])

            def update(i, d, new):
                w[:] += d * self.F[i]

            return lambda act, size, hi, lo: epoch_python(
                act, size, hi, lo, y, qinv, C, alpha, lambda i: y[i] * (self.F[i] @ w) - 1.0, update
            )

        def finish(self, c):
            pass

        def solution(self, alphas, Y):
            W = np.stack([self.w[c] for c in range(Y.shape[0])])
            return {"coef_": W[:, 1:] if self.bias > 0 else W, "feature_map_": self.vocabulary, "wprime_size_": {}}

    X = _strings(35, 45)
    y = np.array(["a" if x.count("ab") > x.count("ba") else "b" if x.count("a") > x.count("c") else "c" for x in X])
    kw = dict(C=1.0, tol=1e-4, max_iter=1000, shrinking=False, random_state=8, fit_intercept=True)
    ref = RationalSVC(kernels.ngram(2), **kw).fit(X, y)
    m = RationalSVC(kernels.ngram(2), representation="dense", **kw).fit(X, y)
    assert m.representation_ == "dense" and set(m.fit_time_) == {"features", "solver"}
    assert m.alpha_.shape == (3, 45) and m.n_iter_ == ref.n_iter_
    np.testing.assert_allclose(m.alpha_, ref.alpha_, atol=1e-9)
    np.testing.assert_allclose(m.decision_function(X), ref.decision_function(X), atol=1e-8)
    # its fallback is the registry's default: kernel rows for a kernel without a feature map
    rows = RationalSVC(lambda A, B: kernels.ngram(2).gram(A, B), representation="dense", **kw).fit(X, y)
    assert rows.representation_ == "rows"


def test_linear_rows_on_a_sparse_matrix_predicts_as_on_the_dense_one():
    """Regression (audit): RationalSVC("linear", representation="rows") fitted on a sparse matrix
    raised numpy's bare ValueError in decision_function (np.asarray of the sparse product is a 0-d
    object array). Oracle: the model fitted on the same matrix dense, and the linear SVM
    decision values w·x + b with w = Σ yᵢαᵢxᵢ recomputed densely."""
    import scipy.sparse as sp

    X = sp.random(20, 6, density=0.5, random_state=1, format="csr")
    y = np.random.RandomState(0).randint(0, 2, 20)
    sparse = RationalSVC("linear", representation="rows", random_state=0).fit(X, y)
    dense = RationalSVC("linear", representation="rows", random_state=0).fit(X.toarray(), y)
    np.testing.assert_allclose(sparse.decision_function(X), dense.decision_function(X.toarray()), atol=1e-10)
    sv = sparse.support_vectors_
    sv = sv.toarray() if sp.issparse(sv) else np.asarray(sv)
    by_hand = X.toarray() @ (sparse.dual_coef_ @ sv).T + sparse.intercept_
    np.testing.assert_allclose(sparse.decision_function(X), by_hand.ravel(), atol=1e-10)
    np.testing.assert_array_equal(sparse.predict(X), dense.predict(X.toarray()))
