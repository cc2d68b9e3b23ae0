"""Combined kernels train on the trie: a sum, a scaling, a cosine of a sum, a product.

Each fit is checked by two independent routes: scikit-learn's ``LinearSVC`` (liblinear's
dual coordinate descent on the hinge loss) on the kernel's explicit feature matrix must
reach the same primal objective ½‖w‖² + C Σ max(0, 1 − y_i⟨w, F_i⟩), and the decision
values must equal Σ_i α_i y_i K(x_i, ·) computed from Gram matrices, which never build a
feature.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from sklearn.svm import LinearSVC

from ratkit.automata import kernels as K
from ratkit.automata.kernels import from_spec
from ratkit.learners import RationalSVC, load_model

from ...automata.kernels.kernel_oracles import ngram_kernel
from ...automata.kernels.test_base_contract import ENTRY_POINTS, THIRD_PARTY
from ...thirdparty import installed_distribution

C = 1.0

TOPICS = (
    ("market", "shares", "profit", "stock", "bank", "rates", "dollar"),
    ("wheat", "grain", "crop", "harvest", "farm", "corn", "export"),
)
COMMON = ("the", "of", "and", "said", "in", "a", "to")


def _texts(seed: int, n: int) -> tuple[list[str], np.ndarray]:
    """Short news-like texts of two topics, with common words and some words of the other topic."""
    rng = random.Random(seed)
    X, y = [], []
    for i in range(n):
        label = i % 2
        words = []
        for _ in range(rng.randint(4, 9)):
            r = rng.random()
            pool = TOPICS[label] if r < 0.45 else COMMON if r < 0.8 else TOPICS[1 - label]
            words.append(rng.choice(pool))
        X.append(" ".join(words))
        y.append(label)
    return X, np.array(y)


X_TRAIN, Y_TRAIN = _texts(0, 40)
X_NEW, _ = _texts(1, 12)

COMBINED = {
    "ngram(2) + ngram(3)": lambda: K.ngram(2) + K.ngram(3),
    "2 * ngram(3)": lambda: 2 * K.ngram(3),
    "cosine(ngram(2) + gappy(2, decay=0.5))": lambda: K.cosine(K.ngram(2) + K.gappy(2, decay=0.5)),
    "ngram(1) * ngram(2)": lambda: K.ngram(1) * K.ngram(2),
}


def _primal(w: np.ndarray, F, signs: np.ndarray) -> float:
    """½‖w‖² + C Σ max(0, 1 − y_i⟨w, F_i⟩)."""
    margins = signs * np.asarray(F @ w).ravel()
    return 0.5 * float(w @ w) + C * float(np.maximum(0.0, 1.0 - margins).sum())


def _fit(kernel: K.Kernel) -> RationalSVC:
    return RationalSVC(kernel, C=C, representation="trie", tol=1e-9, max_iter=100_000, random_state=0).fit(
        X_TRAIN, Y_TRAIN
    )


@pytest.mark.parametrize("name", list(COMBINED))
def test_combined_kernels_train_on_the_trie_to_linear_svc_optimum(name):
    kernel = COMBINED[name]()
    model = _fit(kernel)
    assert model.representation_ == "trie" and model.converged_
    vocabulary, F = COMBINED[name]().fit_features(X_TRAIN)
    assert model.feature_map_.n_features == F.shape[1] == model.coef_.shape[1]
    signs = np.where(Y_TRAIN == model.classes_[1], 1.0, -1.0)
    reference = LinearSVC(loss="hinge", dual=True, fit_intercept=False, C=C, tol=1e-10, max_iter=1_000_000)
    reference.fit(F, signs)
    ours, theirs = _primal(model.coef_[0], F, signs), _primal(reference.coef_[0], F, signs)
    assert ours == pytest.approx(theirs, rel=1e-6)
    np.testing.assert_allclose(model.coef_[0], reference.coef_[0], atol=1e-4 * np.abs(reference.coef_).max())


@pytest.mark.parametrize("name", list(COMBINED))
def test_combined_decision_values_equal_the_kernel_expansion_of_the_dual(name):
    kernel = COMBINED[name]()
    model = _fit(kernel)
    signs = np.where(Y_TRAIN == model.classes_[1], 1.0, -1.0)
    beta = model.alpha_[0] * signs
    G_new = kernel.gram(X_NEW, X_TRAIN)  # never builds a feature of a combination
    np.testing.assert_allclose(model.decision_function(X_NEW), G_new @ beta, rtol=1e-9, atol=1e-9)
    G = kernel.gram(X_TRAIN)
    assert float(model.coef_[0] @ model.coef_[0]) == pytest.approx(float(beta @ G @ beta), rel=1e-9)


def test_product_features_equal_its_gram_and_brute_force():
    k = K.ngram(1) * K.ngram(2)
    X = X_TRAIN[:10]
    _, F = k.fit_features(X)
    want = np.array([[ngram_kernel(a, b, 1) * ngram_kernel(a, b, 2) for b in X] for a in X], dtype=float)
    np.testing.assert_allclose((F @ F.T).toarray(), k.gram(X), rtol=1e-12)
    np.testing.assert_allclose((F @ F.T).toarray(), want, rtol=1e-12)


def test_a_kernel_without_a_finite_feature_map_still_falls_back_to_kernel_rows():
    model = RationalSVC(K.ngram(2) + K.exp_kernel(K.edit_distance(), 0.5), C=C, random_state=0)
    model.fit(X_TRAIN[:12], Y_TRAIN[:12])
    assert model.representation_ == "rows"


def test_a_saved_combined_model_predicts_the_same(tmp_path):
    model = _fit(COMBINED["cosine(ngram(2) + gappy(2, decay=0.5))"]())
    model.save(tmp_path / "m.zip")
    again = load_model(tmp_path / "m.zip")
    np.testing.assert_allclose(again.decision_function(X_NEW), model.decision_function(X_NEW), rtol=1e-12)


def test_a_plain_third_party_rational_kernel_trains_on_the_trie_and_reloads(tmp_path):
    with installed_distribution(tmp_path / "site", "ratkit-tp-kernels", THIRD_PARTY, ENTRY_POINTS):
        kernel = from_spec({"family": "tp-unigram"})  # a RationalKernel that gives only its T
        model = _fit(kernel)
        assert model.representation_ == "trie"
        signs = np.where(Y_TRAIN == model.classes_[1], 1.0, -1.0)
        want = np.array([[ngram_kernel(a, b, 1) for b in X_TRAIN] for a in X_NEW], dtype=float)
        np.testing.assert_allclose(model.decision_function(X_NEW), want @ (model.alpha_[0] * signs), rtol=1e-9)
        model.save(tmp_path / "m.zip")
        again = load_model(tmp_path / "m.zip")
        np.testing.assert_allclose(again.decision_function(X_NEW), model.decision_function(X_NEW), rtol=1e-12)


# -- on a Reuters-21578 sample, against features built by scikit-learn -------------------------


@pytest.fixture(scope="module")
def reuters_sample(shared_data):
    """300 ModApte training stories (whitespace runs collapsed, as CountVectorizer's char
    analyzer sees them) and whether each is about 'acq'."""
    import re

    from ratkit.datasets import reuters_modapte

    docs = reuters_modapte(shared_data("reuters21578"), "train")[:300]
    X = [re.sub(r"\s\s+", " ", d.body) for d in docs]
    return X, np.array([1 if "acq" in d.topics else -1 for d in docs])


def _char_counts(X: list[str], n: int):
    from sklearn.feature_extraction.text import CountVectorizer

    return CountVectorizer(analyzer="char", ngram_range=(n, n), lowercase=False).fit_transform(X).astype(float)


@pytest.mark.parametrize("name", ["ngram(2) + ngram(3)", "2 * ngram(3)", "cosine(ngram(2) + gappy(2, decay=0.5))"])
def test_on_a_reuters_sample_the_trie_fit_reaches_linear_svc_optimum(reuters_sample, name):
    import scipy.sparse as sp
    from sklearn.preprocessing import normalize

    X, y = reuters_sample
    kernel = COMBINED[name]()
    model = RationalSVC(kernel, C=C, representation="trie", tol=1e-10, max_iter=100_000, random_state=0).fit(X, y)
    assert model.representation_ == "trie" and model.converged_
    if name == "ngram(2) + ngram(3)":  # the explicit features by scikit-learn, not by ratkit
        F = sp.hstack([_char_counts(X, 2), _char_counts(X, 3)], format="csr")
    elif name == "2 * ngram(3)":
        F = np.sqrt(2.0) * _char_counts(X, 3)
    else:  # scikit-learn has no gappy features: the kernel's own map, L2-normalised by scikit-learn
        _, F = K.ngram(2).fit_features(X)
        _, G = K.gappy(2, decay=0.5).fit_features(X)
        F = normalize(sp.hstack([F, G], format="csr"))
    reference = LinearSVC(loss="hinge", dual=True, fit_intercept=False, C=C, tol=1e-10, max_iter=1_000_000).fit(F, y)
    # W′ lives on ratkit's vocabulary: compare the objectives through the margins, which need no column order
    ours = 0.5 * float(model.coef_[0] @ model.coef_[0]) + C * float(
        np.maximum(0.0, 1.0 - y * model.decision_function(X)).sum()
    )
    theirs = _primal(reference.coef_[0], F, y.astype(float))
    assert ours == pytest.approx(theirs, rel=1e-7)  # measured 5e-13 to 3e-9


def _square(v):
    return v**2


def test_a_part_with_a_custom_psi_has_no_feature_map_so_its_sum_trains_on_kernel_rows():
    """K = Ψ(⟨Φ_x, Φ_y⟩) with Ψ(v) = v² is no inner product of Φ: the sum must not train on
    Φ's blocks (it did, silently: |F Fᵀ − K| was 72 on this data)."""
    from ratkit.automata.kernels import TooManyPaths

    squared = K.from_transducer(K.ngram(1).factor("ab"), psi=_square)
    X, y = ["aab", "ab", "bbb", "a", "abab", "ba", "bba", "aaa"], [1, 1, 0, 1, 0, 0, 0, 1]
    for k in (squared, squared + K.ngram(2), squared * K.ngram(2)):
        with pytest.raises(TooManyPaths):
            k.fit_features(X)
    total = squared + K.ngram(2)
    model = RationalSVC(total, C=C, tol=1e-10, random_state=0).fit(X, y)
    assert model.representation_ == "rows"
    beta = model.alpha_[0] * np.where(np.array(y) == model.classes_[1], 1.0, -1.0)

    # the oracle: (#a·#a′ + #b·#b′)² + bigram counts, by hand
    def k_value(a, b):
        uni = sum(a.count(s) * b.count(s) for s in "ab") ** 2
        big = sum(
            sum(a[i : i + 2] == z for i in range(len(a) - 1)) * sum(b[i : i + 2] == z for i in range(len(b) - 1))
            for z in ("aa", "ab", "ba", "bb")
        )
        return uni + big

    G = np.array([[k_value(a, b) for b in X] for a in X], dtype=float)
    np.testing.assert_allclose(total.gram(X), G)
    np.testing.assert_allclose(model.decision_function(X), G @ beta, rtol=1e-9, atol=1e-9)
