"""Feature hashing for RationalSVC (issue 37): ``n_features`` hashes the kernel's patterns
into buckets with a signed MurmurHash3, with no global vocabulary."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from sklearn.utils import murmurhash3_32

from ratkit.automata import kernels
from ratkit.automata.kernels import FeatureMap
from ratkit.exceptions import ModelFormatError, ParameterError
from ratkit.learners import RationalSVC, load_model
from ratkit.learners.svm.hashing import (
    HASHING_SCHEME,
    HASHING_VERSION,
    feature_map_buckets,
    hashed_features,
    pattern_buckets,
)
from ratkit.testing import LearnerContract


def _strings(seed: int = 0, n: int = 30):
    rng = random.Random(seed)
    X = ["".join(rng.choice("abc") for _ in range(rng.randint(3, 10))) for _ in range(n)]
    return X, ["up" if x.count("ab") > x.count("ba") else "down" for x in X]


def _brute_ngrams(X, n, n_features, seed, scale=1.0):
    """The documented scheme by hand: count the n-grams of each string, hash each
    (MurmurHash3_32 signed, of the symbols joined by U+001F), add sign · count · scale."""
    out = np.zeros((len(X), n_features))
    for i, x in enumerate(X):
        for gram, count in Counter(tuple(x[j : j + n]) for j in range(len(x) - n + 1)).items():
            h = murmurhash3_32("\x1f".join(gram).encode("utf-8"), seed=seed, positive=False)
            out[i, abs(h) % n_features] += (1.0 if h >= 0 else -1.0) * count * scale
    return out


# -- (1) oracle --------------------------------------------------------------------------------
def test_hashed_ngram_features_match_a_brute_force_oracle():
    X, _ = _strings(1, 12)
    H = hashed_features(kernels.ngram(3), X, 64)
    np.testing.assert_allclose(H.toarray(), _brute_ngrams(X, 3, 64, seed=0), atol=1e-12)


def test_hashed_sum_matches_the_oracle_with_one_seed_per_part():
    X, _ = _strings(2, 12)
    k = kernels.SumKernel([kernels.ngram(2), kernels.ngram(3)], weights=[1.0, 4.0])
    H = hashed_features(k, X, 32)
    expected = _brute_ngrams(X, 2, 32, seed=0) + _brute_ngrams(X, 3, 32, seed=1, scale=2.0)
    np.testing.assert_allclose(H.toarray(), expected, atol=1e-12)


def test_pattern_buckets_are_sklearns_signed_murmurhash():
    buckets, signs = pattern_buckets([("a", "b"), ("héllo",)], 1000, seed=3)
    for (b, s), key in zip(zip(buckets, signs), ["a\x1fb", "héllo"]):
        h = murmurhash3_32(key.encode("utf-8"), seed=3, positive=False)
        assert (b, s) == (abs(h) % 1000, 1.0 if h >= 0 else -1.0)


@pytest.mark.parametrize(
    "symbols",
    [("a", "b", "c"), ("é", "日本", "x", "hello world", "tok\x1fen"), tuple(chr(65 + i) for i in range(60))],
    ids=["abc", "unicode-tokens", "60-symbols"],
)
def test_the_compiled_hash_of_codes_is_sklearns_hash_of_the_pattern_bytes(symbols):
    rng = np.random.RandomState(0)
    base = len(symbols) + 1
    codes = set()
    for length in rng.randint(0, 8, size=3000):
        code = 0
        for _ in range(length):
            code = code * base + int(rng.randint(1, base))
        codes.add(code)
    fmap = FeatureMap(symbols, np.array(sorted(codes), dtype=np.int64))
    for seed in (0, 1, 7):
        compiled = feature_map_buckets(fmap, 1_000_003, seed)
        reference = pattern_buckets(fmap.patterns(), 1_000_003, seed)
        np.testing.assert_array_equal(compiled[0], reference[0])
        np.testing.assert_array_equal(compiled[1], reference[1])


# -- (2) with many buckets the hashed Gram is the exact one ---------------------------------------
@pytest.mark.parametrize(
    "kernel",
    [
        kernels.ngram(3),
        kernels.gappy(2, 0.5),
        kernels.mismatch(3, 1, alphabet="abc"),
        kernels.count_based(["ab", "ba", "c"], [1.0, 2.0, 0.5]),
        kernels.SumKernel([kernels.ngram(1), kernels.ScaledKernel(kernels.ngram(2), 3.0)]),
    ],
    ids=["ngram", "gappy", "mismatch", "count-based", "sum"],
)
def test_without_collisions_the_hashed_gram_is_exact(kernel):
    X, _ = _strings(4, 20)
    n = 2**24
    H = hashed_features(kernel, X, n)
    vocabulary, F = kernel.fit_features(X)
    assert H.nnz == F.nnz  # every pattern of a row in its own bucket: no collision
    np.testing.assert_allclose((H @ H.T).toarray(), kernel.gram(X), rtol=1e-12, atol=1e-12)


def test_cosine_normalises_the_hashed_rows():
    X, _ = _strings(5, 15)
    H = hashed_features(kernels.cosine(kernels.ngram(2)), X, 8)  # many collisions
    norms = np.sqrt(np.asarray(H.multiply(H).sum(axis=1))).ravel()
    np.testing.assert_allclose(norms[norms > 0], 1.0)
    exact = hashed_features(kernels.cosine(kernels.ngram(2)), X, 2**24)
    np.testing.assert_allclose((exact @ exact.T).toarray(), kernels.cosine(kernels.ngram(2)).gram(X), atol=1e-12)


# -- (3) no global vocabulary -----------------------------------------------------------------------
def test_rows_do_not_depend_on_the_rest_of_the_data():
    X, _ = _strings(6, 24)
    k = kernels.cosine(kernels.ngram(2))
    whole = hashed_features(k, X, 2**10).toarray()
    order = np.random.RandomState(0).permutation(len(X))
    shuffled = hashed_features(k, [X[i] for i in order], 2**10).toarray()
    np.testing.assert_array_equal(shuffled, whole[order])
    blocks = np.vstack([hashed_features(k, X[a : a + 5], 2**10).toarray() for a in range(0, len(X), 5)])
    np.testing.assert_array_equal(blocks, whole)


def test_decisions_are_the_same_whatever_the_order_or_blocks_of_the_test_data():
    X, y = _strings(7, 40)
    m = RationalSVC(kernels.cosine(kernels.ngram(2)), C=2.0, random_state=0, n_features=2**12).fit(X, y)
    T, _ = _strings(8, 20)
    T = T + ["abd", "dd"]  # symbols unseen in training hash like any other
    whole = m.decision_function(T)
    order = np.random.RandomState(1).permutation(len(T))
    np.testing.assert_array_equal(m.decision_function([T[i] for i in order]), whole[order])
    np.testing.assert_array_equal(
        np.concatenate([m.decision_function(T[a : a + 3]) for a in range(0, len(T), 3)]), whole
    )


def test_hashed_model_agrees_with_the_exact_one_without_collisions():
    X, y = _strings(9, 30)
    k = kernels.cosine(kernels.ngram(2))
    exact = RationalSVC(k, C=2.0, random_state=0).fit(X, y)
    hashed = RationalSVC(k, C=2.0, random_state=0, n_features=2**24).fit(X, y)
    np.testing.assert_allclose(hashed.decision_function(X), exact.decision_function(X), atol=1e-9)
    assert hashed.hashing_ == {"scheme": HASHING_SCHEME, "version": HASHING_VERSION, "n_features": 2**24}
    assert hashed.feature_map_ is None and hashed.coef_.shape == (1, 2**24)


@pytest.mark.parametrize("representation", ["rows", "automaton"])
def test_other_representations_give_w_prime_on_the_buckets(representation):
    X, y = _strings(10, 30)
    k = kernels.cosine(kernels.ngram(2))
    ref = RationalSVC(k, C=2.0, random_state=0, n_features=256, tol=1e-8).fit(X, y)
    m = RationalSVC(k, C=2.0, random_state=0, n_features=256, tol=1e-8, representation=representation).fit(X, y)
    assert m.coef_.shape == (1, 256) and m.support_vectors_ is None
    np.testing.assert_allclose(m.decision_function(X), ref.decision_function(X), atol=1e-5)


# -- (4) refused kernels -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kernel, name",
    [
        (kernels.exp_kernel(kernels.ngram(2)), "ExpKernel"),
        (kernels.edit_distance(), "EditDistanceKernel"),
        (kernels.SumKernel([kernels.ngram(2), kernels.polynomial(kernels.ngram(1))]), "PolynomialKernel"),
        ("linear", "LinearKernel"),
    ],
)
def test_kernels_without_a_finite_feature_map_are_refused_by_name(kernel, name):
    X, y = _strings(11, 10)
    with pytest.raises(ParameterError, match=rf"(?s)Feature hashing.*finite feature map.*{name}"):
        RationalSVC(kernel, n_features=64).fit(X, y)


def test_naive_representation_is_refused_with_hashing():
    X, y = _strings(11, 10)
    with pytest.raises(ParameterError, match="representation='naive'.*n_features"):
        RationalSVC(kernels.ngram(2), representation="naive", n_features=64).fit(X, y)


# -- (5) parameters --------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [0, -3, 2**31 + 1, 1.5, "many", True])
def test_n_features_is_validated(bad):
    X, y = _strings(12, 10)
    with pytest.raises(ParameterError, match="n_features"):
        RationalSVC(kernels.ngram(2), n_features=bad).fit(X, y)


def test_n_features_none_is_the_default_and_keeps_the_exact_model():
    X, y = _strings(13, 20)
    m = RationalSVC(kernels.ngram(2), random_state=0)
    assert m.get_params()["n_features"] is None
    m.fit(X, y)
    assert not hasattr(m, "hashing_") and m.feature_map_ is not None


# -- (6) model files --------------------------------------------------------------------------------
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_a_hashed_model_round_trips_through_a_file(tmp_path, fit_intercept):
    X, y = _strings(14, 30)
    k = kernels.SumKernel([kernels.cosine(kernels.ngram(2)), kernels.ScaledKernel(kernels.ngram(1), 0.5)])
    m = RationalSVC(k, C=0.5, random_state=0, n_features=2**10, fit_intercept=fit_intercept).fit(X, y)
    path = m.save(tmp_path / "hashed.zip")
    back = load_model(path)
    assert back.hashing_ == m.hashing_ and back.get_params()["n_features"] == 2**10
    T, _ = _strings(15, 20)
    np.testing.assert_array_equal(back.decision_function(T), m.decision_function(T))
    np.testing.assert_array_equal(back.predict(T), m.predict(T))


# -- (7) the learner contract on a hashed configuration ----------------------------------------------
class TestHashedRationalSVCOnStrings(LearnerContract):
    def make_estimator(self):
        return RationalSVC(kernels.cosine(kernels.ngram(2)), C=2.0, random_state=0, n_features=2**10)

    def make_data(self):
        return _strings(16)

    def changed_params(self):
        return {"kernel__kernel__n": 3}


def test_a_model_file_with_another_hashing_is_refused(tmp_path):
    X, y = _strings(17, 20)
    m = RationalSVC(kernels.ngram(2), random_state=0, n_features=64).fit(X, y)
    m.hashing_ = {**m.hashing_, "version": HASHING_VERSION + 1}
    path = m.save(tmp_path / "future.zip")
    with pytest.raises(ModelFormatError, match="feature hashing"):
        load_model(path)


def test_a_hashed_mismatch_model_uses_the_alphabet_it_learnt():
    X, y = _strings(18, 30)
    m = RationalSVC(kernels.cosine(kernels.mismatch(3, 1)), random_state=0, n_features=2**20).fit(X, y)
    exact = RationalSVC(kernels.cosine(kernels.mismatch(3, 1)), random_state=0).fit(X, y)
    np.testing.assert_allclose(m.decision_function(X[:5]), exact.decision_function(X[:5]), atol=1e-6)
    np.testing.assert_array_equal(m.decision_function(X[:2]), m.decision_function(X[:5])[:2])
