"""The n-gram kernel against brute-force counting and across computation strategies."""

from __future__ import annotations

import random

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer

from ratkit.automata import evaluate
from ratkit.automata.kernels import ngram

from .kernel_oracles import ngram_kernel, random_strings

STRATEGIES = ["specialized", "features", "intersection", "composition"]


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("alphabet", ["ab", "abc", "abcd"])
def test_ngram_equals_brute_force_on_random_pairs(n, alphabet):
    rng = random.Random(n * 31 + len(alphabet))
    xs, ys = random_strings(rng, 25, alphabet, 12), random_strings(rng, 10, alphabet, 12)
    want = np.array([[ngram_kernel(x, y, n) for y in ys] for x in xs])
    k = ngram(n)
    assert np.array_equal(k.gram(xs, ys), want)  # 250 pairs, exact integers
    assert k(xs[0], ys[0]) == want[0, 0]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_strategy_gives_the_same_gram(strategy):
    rng = random.Random(5)
    xs = random_strings(rng, 12, "abc", 10)
    want = np.array([[ngram_kernel(x, y, 2) for y in xs] for x in xs])
    # the sparse-feature paths add exact counts; the automata paths go through −ln/exp
    np.testing.assert_allclose(ngram(2).gram(xs, strategy=strategy), want, rtol=1e-9, atol=0)


def test_the_transducer_counts_ngrams():
    k = ngram(2)
    t = k.factor("ab")
    assert evaluate(t, "abbb", "bb") == 2.0  # the survey's example: T(abbb, bb) = 2
    s = k.transducer("ab")
    assert evaluate(s, "abab", "bab") == pytest.approx(ngram_kernel("abab", "bab", 2))


def test_matches_countvectorizer_on_text():
    docs = ["the cat sat on the mat", "a cat and a hat", "mat hat cat", "x"]
    F = CountVectorizer(analyzer="char", ngram_range=(3, 3), lowercase=False).fit_transform(docs)
    assert np.array_equal(ngram(3).gram(docs), (F @ F.T).toarray())


def test_token_sequences_and_sklearn_svc():
    from sklearn.svm import SVC

    docs = [["the", "cat"], ["the", "dog"], ["a", "cat"], ["a", "dog"]]
    k = ngram(1)
    assert k.gram(docs)[0].tolist() == [2, 1, 1, 0]
    X = ["aab", "abb", "aaa", "bbb", "aba", "bab"]
    y = [0, 1, 0, 1, 0, 1]
    clf = SVC(kernel=ngram(1), C=10).fit(X, y)
    assert clf.predict(["aaaa", "bbbb"]).tolist() == [0, 1]


def test_feature_map_is_stable_and_drops_unseen_patterns():
    k = ngram(2)
    fmap, F = k.fit_features(["abab", "bbc"])
    cols = dict(zip(fmap.patterns(), range(fmap.n_features)))
    assert F[0, cols[("a", "b")]] == 2 and F[1, cols[("b", "c")]] == 1
    G = k.transform_features(fmap, ["abz", "zzz"])  # 'z' never seen: its bigrams are dropped
    assert G.toarray()[0].tolist() == [1.0 if p == ("a", "b") else 0.0 for p in fmap.patterns()]
    assert G[1].nnz == 0
    # inner products with the fitted rows are the kernel values
    assert np.allclose((G @ F.T).toarray(), k.gram(["abz", "zzz"], ["abab", "bbc"]))


def test_bad_n():
    with pytest.raises(ValueError, match="The 'n' parameter of ngram must be an int ≥ 1. Got 0 instead."):
        ngram(0)
    with pytest.raises(ValueError, match="'strategy' parameter of NgramKernel must be one of"):
        ngram(2).gram(["ab"], strategy="fast")


@pytest.mark.parametrize("strategy", ["features", "intersection"])
def test_worker_processes_give_the_same_gram(strategy, capsys):
    xs = random_strings(random.Random(12), 40, "abc", 12)
    k = ngram(2)
    one = k.gram(xs, strategy=strategy, n_jobs=1)
    two = k.gram(xs, strategy=strategy, n_jobs=2, show_progress=True)
    np.testing.assert_array_equal(one, two)
    desc = "feature automata" if strategy == "features" else "Gram by intersection"
    assert desc in capsys.readouterr().err  # the progress bar was shown
