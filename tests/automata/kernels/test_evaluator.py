"""The compiled evaluator of Φ_x = Π2(X ∘ T) against OpenFst's feature path (the oracle).

``strategy="auto"`` on a TransducerKernel runs the evaluator; ``strategy="features"``
builds Φ_x with pynini and enumerates its paths. Both must give the same vocabulary of
patterns and the same values, on every built-in family written as a transducer and on
random regulated transducers (acyclic and cyclic, with ε-input arcs, in the probability
and log semirings); a transducer with an infinite Φ_x must be handed to OpenFst, and say so.
"""

from __future__ import annotations

import itertools
import logging
import math
import random

import numpy as np
import pytest

from ratkit.automata.construct import from_arcs
from ratkit.automata.kernels import count_based, from_transducer, gappy, mismatch, ngram, subsequence
from ratkit.automata.kernels._evaluator import export_transducer
from ratkit.automata.kernels._paths import TooManyPaths
from ratkit.exceptions import WeightOverflowError

from .kernel_oracles import gappy_kernel, ngram_kernel, subsequence_kernel

USER_LOG = "ratkit.automata.kernels.user"
DOCS = ["the cat sat on the mat", "a dog ate the cat's food", "ttt", "", "abcabcabc", "tattle tale"]


def _no_fallback(caplog: pytest.LogCaptureFixture) -> None:
    assert not [r for r in caplog.records if r.name == USER_LOG], [r.getMessage() for r in caplog.records]


def _same_features(kernel, X, rtol: float = 1e-12) -> None:
    """fit_features by the evaluator and by OpenFst: the same patterns, the same values."""
    fmap_e, F_e = kernel.fit_features(X, strategy="auto")
    fmap_o, F_o = kernel.fit_features(X, strategy="features")
    assert fmap_e.symbols == fmap_o.symbols
    np.testing.assert_array_equal(fmap_e.codes, fmap_o.codes)
    np.testing.assert_allclose(F_e.toarray(), F_o.toarray(), rtol=rtol, atol=0)


def _counts(x: str, patterns) -> list[int]:
    """Overlapping occurrences of each pattern in x."""
    return [sum(tuple(x[i : i + len(p)]) == tuple(p) for i in range(len(x) - len(p) + 1)) for p in patterns]


def _count_based_oracle(patterns, weights=None):
    w = np.ones(len(patterns)) if weights is None else np.asarray(weights)
    return lambda x, y: float(np.sum(w**2 * np.array(_counts(x, patterns)) * np.array(_counts(y, patterns))))


def _mismatch_oracle(k: int, m: int):
    """Eq. (6) through per-string feature vectors over Σ^k (Σ the characters of DOCS): the
    pairwise form of kernel_oracles.mismatch_kernel, computed once per string."""
    alphabet = sorted({c for d in DOCS for c in d})
    cache: dict[str, np.ndarray] = {}

    def phi(x: str) -> np.ndarray:
        if x not in cache:
            windows = [x[i : i + k] for i in range(len(x) - k + 1)]
            cache[x] = np.array(
                [
                    sum(sum(a != b for a, b in zip(u, z)) <= m for u in windows)
                    for z in itertools.product(alphabet, repeat=k)
                ],
                dtype=float,
            )
        return cache[x]

    return lambda x, y: float(phi(x) @ phi(y))


_TRIGRAMS = sorted({d[i : i + 3] for d in DOCS for i in range(len(d) - 2)})


@pytest.mark.parametrize(
    "family, docs, oracle",
    [
        (ngram(1), DOCS, lambda x, y: ngram_kernel(x, y, 1)),
        (ngram(3), DOCS, lambda x, y: ngram_kernel(x, y, 3)),
        (gappy(2, 0.5), DOCS, lambda x, y: gappy_kernel(x, y, 2, 0.5)),
        (gappy(3, 0.3), DOCS[:4], lambda x, y: gappy_kernel(x, y, 3, 0.3)),
        (mismatch(3, 1), DOCS, _mismatch_oracle(3, 1)),
        (subsequence(), ["abcab", "bca", "", "aab"], subsequence_kernel),
        (
            count_based([("t", "h"), ("a",), ("c", "a", "t")], [2.0, 0.5, 1.5]),
            DOCS,
            _count_based_oracle([("t", "h"), ("a",), ("c", "a", "t")], [2.0, 0.5, 1.5]),
        ),
        (count_based(_TRIGRAMS), DOCS, _count_based_oracle(_TRIGRAMS)),
    ],
    ids=["ngram1", "ngram3", "gappy2", "gappy3", "mismatch", "subsequence", "count_based", "count_based_large"],
)
def test_builtin_family_as_transducer(family, docs, oracle, caplog):
    """Each family's T fed to from_transducer: the evaluator's Gram equals the OpenFst
    feature path's, the family's own algorithm's and the brute-force definition's
    (tests/automata/kernels/kernel_oracles.py); no sequence falls back."""
    alphabet = family.alphabet_for(docs)
    kernel = from_transducer(family.factor(alphabet))
    with caplog.at_level(logging.INFO, logger=USER_LOG):
        G = kernel.gram(docs)
        _same_features(kernel, docs)
    _no_fallback(caplog)
    np.testing.assert_allclose(G, kernel.gram(docs, strategy="features"), rtol=1e-12, atol=0)
    np.testing.assert_allclose(G, family.gram(docs), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(G, [[oracle(x, y) for y in docs] for x in docs], rtol=1e-12, atol=1e-300)


def _ngram_oracle_gram(X, n: int) -> np.ndarray:
    return np.array([[ngram_kernel(x, y, n) for y in X] for x in X], dtype=float)


def test_ngram_counts_are_exact():
    """Counting transducers give integer counts exactly (values compared with ==, against the
    brute-force counts)."""
    k = ngram(3)
    kernel = from_transducer(k.factor(k.alphabet_for(DOCS)))
    np.testing.assert_array_equal(kernel.gram(DOCS), _ngram_oracle_gram(DOCS, 3))


def _random_arcs(rng: random.Random, n: int, cyclic: bool, symbols: str, offset: int = 0):
    """(arcs, finals) of a random regulated transducer on states offset … offset + n − 1:
    arcs go up the state order, except input-consuming arcs when ``cyclic`` (cycles that read
    input; an ε-input cycle would make Φ_x infinite), ε:ε arcs included; probabilities in
    [0.05, 0.95]."""
    labels = [""] + list(symbols)
    arcs = []
    for _ in range(rng.randint(n, 4 * n)):
        src = rng.randrange(n)
        i = rng.choice(labels)
        o = rng.choice(labels)
        if i != "" and cyclic:
            dst = rng.randrange(n)
        elif src == n - 1:
            continue
        else:
            dst = rng.randrange(src + 1, n)
        arcs.append((src + offset, i, o, rng.uniform(0.05, 0.95), dst + offset))
    finals = {q + offset: rng.uniform(0.1, 1.0) for q in range(n) if q == n - 1 or rng.random() < 0.4}
    return arcs, finals


def _as_transducer(arcs, finals, semiring: str, symbols: str, start: int = 0):
    """The transducer of natural-probability arcs, its weights written in ``semiring``'s domain."""
    from ratkit.automata.alphabet import Alphabet

    if semiring == "log":
        arcs = [(s, i, o, -math.log(p), d) for s, i, o, p, d in arcs]
        finals = {q: -math.log(p) for q, p in finals.items()}
    # declare the whole alphabet: random arcs may not use every symbol
    return from_arcs(arcs, start, finals, semiring=semiring, alphabet=Alphabet(tuple(symbols)))


def _random_transducer(rng: random.Random, semiring: str, cyclic: bool, symbols: str = "abc"):
    """A random regulated transducer of 2–6 states (see :func:`_random_arcs`)."""
    arcs, finals = _random_arcs(rng, rng.randint(2, 6), cyclic, symbols)
    return _as_transducer(arcs, finals, semiring, symbols)


def _random_strings(rng: random.Random, count: int, symbols: str = "abc", longest: int = 7) -> list[str]:
    return ["".join(rng.choice(symbols) for _ in range(rng.randint(0, longest))) for _ in range(count)]


@pytest.mark.parametrize("semiring", ["probability", "log"])
@pytest.mark.parametrize("cyclic", [False, True], ids=["acyclic", "cyclic"])
def test_random_regulated_transducers(semiring, cyclic, caplog):
    """40 random transducers per case, each on 8 random strings: features and Gram match
    OpenFst's (which sums ε-paths by ε-removal) to float64 round-off."""
    rng = random.Random(f"{semiring}-{cyclic}")
    checked = 0
    for _ in range(40):
        t = _random_transducer(rng, semiring, cyclic)
        if t.num_arcs == 0:
            continue
        X = _random_strings(rng, 8)
        kernel = from_transducer(t)
        try:
            G_oracle = kernel.gram(X, strategy="features")
        except TooManyPaths:  # too many paths for OpenFst's enumeration as well
            continue
        with caplog.at_level(logging.INFO, logger=USER_LOG):
            G = kernel.gram(X)
            _same_features(kernel, X, rtol=1e-9)
        _no_fallback(caplog)
        np.testing.assert_allclose(G, G_oracle, rtol=1e-9, atol=1e-300)
        checked += 1
    assert checked >= 30


def test_epsilon_paths_sum_over_every_path():
    """Two ε-input routes to the same state and output add up; an ε:ε arc after an output
    arc does not count the output twice. T: 0 -a:x/0.5→ 1, 0 -ε:ε/0.2→ 3 -a:x/0.5→ 1,
    1 -ε:ε/0.4→ 2, 1 -ε:y/0.3→ 2, final weights 0.1 (state 1) and 1 (state 2); by hand,
    Φ_a(x) = (0.5 + 0.2·0.5)·(0.1 + 0.4) and Φ_a(xy) = (0.5 + 0.2·0.5)·0.3."""
    arcs = [(0, "a", "x", 0.5, 1), (1, "", "", 0.4, 2), (1, "", "y", 0.3, 2), (0, "", "", 0.2, 3)]
    arcs.append((3, "a", "x", 0.5, 1))
    t = from_arcs(arcs, 0, {1: 0.1, 2: 1.0})
    kernel = from_transducer(t)
    fmap, F = kernel.fit_features(["a"])
    got = dict(zip(("".join(p) for p in fmap.patterns()), F.toarray()[0]))
    reach1 = 0.5 + 0.2 * 0.5  # the two routes into state 1 reading a, writing x
    assert got == pytest.approx({"x": reach1 * (0.1 + 0.4), "xy": reach1 * 0.3}, rel=1e-15)
    _same_features(kernel, ["a", "aa", ""])


def test_infinite_feature_map_falls_back_and_says_so(caplog):
    """An ε-input loop writing b makes Φ_x infinite: the evaluator hands x to OpenFst (logged),
    whose enumeration refuses it, and the Gram comes from pairwise intersection.

    T: state 0 initial and final, a:a/1 and ε:b/0.5 loops. Φ_{aⁿ}(z) = 0.5^(#b) for every z
    with n a's, so K(aⁿ, aᵐ) = [n = m]·(Σ_k 0.25^k)^{n+1} = [n = m]·(4/3)^{n+1}."""
    t = from_arcs([(0, "a", "a", 1.0, 0), (0, "", "b", 0.5, 0)], 0, {0: 1.0})
    kernel = from_transducer(t)
    assert export_transducer(t, 2).bad.all()
    X = ["a", "aa", ""]
    with caplog.at_level(logging.INFO, logger=USER_LOG):
        G = kernel.gram(X)
    messages = [r.getMessage() for r in caplog.records if r.name == USER_LOG]
    assert any("3 of 3 sequences fall back to the OpenFst feature path" in m and "infinite" in m for m in messages)
    expected = np.diag([(4 / 3) ** 2, (4 / 3) ** 3, 4 / 3])
    np.testing.assert_allclose(G, expected, rtol=1e-9)
    with pytest.raises(TooManyPaths):
        kernel.fit_features(X, strategy="features")


def test_lattice_inputs_go_to_openfst(caplog):
    """A lattice among the sequences is left to the OpenFst path (logged); values unchanged."""
    from ratkit.automata.construct import acceptor

    k = ngram(2)
    kernel = from_transducer(k.factor("abc"))
    X = ["abcab", acceptor("abca", "probability", alphabet=kernel.user_transducer().alphabet), "cab"]
    with caplog.at_level(logging.INFO, logger=USER_LOG):
        G = kernel.gram(X)
    assert any("1 are lattices" in r.getMessage() for r in caplog.records if r.name == USER_LOG)
    np.testing.assert_allclose(G, _ngram_oracle_gram(["abcab", "abca", "cab"], 2), rtol=1e-12)


def test_user_att_file_uses_the_evaluator(tmp_path, caplog):
    """A hand-written AT&T file (a weighted vowel counter: vowels 2, consonants 0.5, over a:ε
    skips) read by from_transducer: the evaluator's values are the oracle's and the closed
    form K(x, y) = Σ_c w_c² n_c(x) n_c(y)."""
    vowels, consonants = "ae", "bcd"
    lines = [f"0 0 {c} <eps>" for c in vowels + consonants]
    lines += [f"0 1 {c} {c} {-math.log(2.0)}" for c in vowels] + [f"0 1 {c} {c} {-math.log(0.5)}" for c in consonants]
    lines += [f"1 1 {c} <eps>" for c in vowels + consonants] + ["1"]
    path = tmp_path / "vowels.att"
    path.write_text("\n".join(lines) + "\n")
    kernel = from_transducer(str(path), semiring="log")
    X = ["abcde", "aaee", "dcb", ""]
    with caplog.at_level(logging.INFO, logger=USER_LOG):
        G = kernel.gram(X)
    _no_fallback(caplog)
    np.testing.assert_allclose(G, kernel.gram(X, strategy="features"), rtol=1e-12)
    w = {c: 2.0 if c in vowels else 0.5 for c in vowels + consonants}
    closed = np.array([[sum(w[c] ** 2 * x.count(c) * y.count(c) for c in w) for y in X] for x in X])
    np.testing.assert_allclose(G, closed, rtol=1e-12)


def test_long_sequences_merge_duplicate_patterns():
    """A gappy 2-gram T on 1 200 random symbols writes ≈ 4 800 triplets for 16 patterns, so
    the evaluator merges them by code while it runs: values equal the OpenFst path's and
    the family's own algorithm's."""
    rng = random.Random(7)
    X = ["".join(rng.choice("abcd") for _ in range(1200)), "abcdabcd", "".join(rng.choice("ab") for _ in range(300))]
    family = gappy(2, 0.9)
    kernel = from_transducer(family.factor(family.alphabet_for(X)))
    _same_features(kernel, X, rtol=1e-10)
    np.testing.assert_allclose(kernel.gram(X), family.gram(X), rtol=1e-10)


def test_binary_search_of_arcs(monkeypatch):
    """Without the dense (state, label) table of arcs (large T), arcs are found by binary
    search: same features as OpenFst on random cyclic transducers."""
    import ratkit.limits

    monkeypatch.setattr(ratkit.limits, "MAX_DENSE_CELLS", 0)
    rng = random.Random(11)
    for _ in range(10):
        t = _random_transducer(rng, "probability", cyclic=True)
        assert export_transducer(t, 3).n_in == -1
        kernel = from_transducer(t)
        X = _random_strings(rng, 6)
        try:
            kernel.fit_features(X, strategy="features")
        except TooManyPaths:
            continue
        _same_features(kernel, X, rtol=1e-9)


def test_bounds_hand_sequences_to_openfst(monkeypatch, caplog):
    """A sequence beyond the evaluator's bounds (here: its backward table) goes to OpenFst,
    logged with the reason; the values do not change."""
    import ratkit.limits

    k = ngram(2)
    kernel = from_transducer(k.factor(k.alphabet_for(DOCS)))
    monkeypatch.setattr(ratkit.limits, "MAX_BACKWARD_CELLS", 40)
    with caplog.at_level(logging.INFO, logger=USER_LOG):
        G = kernel.gram(DOCS)
    messages = [r.getMessage() for r in caplog.records if r.name == USER_LOG]
    assert any("backward table" in m for m in messages), messages
    np.testing.assert_array_equal(G, _ngram_oracle_gram(DOCS, 2))


def test_large_random_transducers(caplog):
    """The union of 12 random cyclic transducers (37–73 states; β is then computed on the
    states reachable at each position only), entered by ε:ε arcs: features match OpenFst's."""
    rng = random.Random(5)
    for _ in range(4):
        arcs, finals, offset = [], {}, 1
        for _ in range(12):
            n = rng.randint(3, 6)
            a, f = _random_arcs(rng, n, True, "abc", offset)
            arcs += a + [(0, "", "", 1 / 12, offset)]
            finals.update(f)
            offset += n
        t = _as_transducer(arcs, finals, "probability", "abc")
        assert t.num_states > 32
        X = _random_strings(rng, 6, longest=6)
        kernel = from_transducer(t)
        with caplog.at_level(logging.INFO, logger=USER_LOG):
            _same_features(kernel, X, rtol=1e-9)
        _no_fallback(caplog)
        assert kernel.fit_features(X)[1].nnz > 10


@pytest.mark.parametrize(
    "weights, semiring",
    [((0.25, 4.0), "probability"), ((4.0, 0.25), "probability"), ((0.25, 4.0), "log")],
    ids=["prefix underflows", "prefix overflows", "log semiring"],
)
def test_products_that_leave_float64_midway_fall_back_and_say_so(weights, semiring, caplog):
    """Regression (review): with a:ε/w₁ looping before c and b:ε/w₂ looping after it, the path
    of a⁶⁰⁰cb⁶⁰⁰ weighs (w₁w₂)⁶⁰⁰ = 1, but the evaluator's left-to-right product of natural
    weights went to 0 (or ∞) halfway and the kernel value came out 0, with nothing logged."""
    w1, w2 = weights
    if semiring == "log":
        w1, w2 = -math.log(w1), -math.log(w2)
        one = 0.0
    else:
        one = 1.0
    t = from_arcs([(0, "a", "", w1, 0), (0, "c", "c", one, 1), (1, "b", "", w2, 1)], 0, {1: one}, semiring=semiring)
    k = from_transducer(t)
    short, long = "a" * 50 + "c" + "b" * 50, "a" * 600 + "c" + "b" * 600
    with caplog.at_level(logging.INFO, logger=USER_LOG):
        G = k.gram([short, long])
    np.testing.assert_allclose(G, np.ones((2, 2)), rtol=1e-9)
    np.testing.assert_allclose(G, k.gram([short, long], strategy="features"), rtol=1e-9)
    messages = [r.getMessage() for r in caplog.records if r.name == USER_LOG]
    assert any("1 of 2 sequences fall back" in m and "float64's range" in m for m in messages), messages


def test_weights_above_1_off_every_cycle_stay_on_the_evaluator(caplog):
    """A counter whose copy arc weighs 2 (taken once per path) cannot leave float64's range
    however long the input: no fallback, and the values are exact."""
    arcs = [(0, s, "", 1.0, 0) for s in "ab"] + [(1, s, "", 1.0, 1) for s in "ab"]
    arcs += [(0, "a", "a", 2.0, 1), (0, "b", "b", 1.0, 1)]
    k = from_transducer(from_arcs(arcs, 0, {1: 1.0}))
    x = "ab" * 2000
    with caplog.at_level(logging.INFO, logger=USER_LOG):
        value = k.gram([x])[0, 0]
    _no_fallback(caplog)
    assert value == pytest.approx((2.0 * 2000) ** 2 + 2000.0**2, rel=1e-12)


def test_a_sum_over_exponentially_many_parallel_paths_that_overflows_falls_back(caplog):
    """Two parallel a:ε/1 loops give 2^m paths with the same output: every weight is ≤ 1, yet
    the evaluator's sum overflows float64 at m > 1024. The sequence goes to the OpenFst path
    (logged), where the feature weight 2^1100 is a WeightOverflowError rather than inf."""
    t = from_arcs([(0, "a", "", 1.0, 0), (0, "a", "", 1.0, 0), (0, "c", "c", 1.0, 1)], 0, {1: 1.0})
    k = from_transducer(t)
    with caplog.at_level(logging.INFO, logger=USER_LOG), pytest.raises(WeightOverflowError, match="float64"):
        k.gram(["a" * 1100 + "c"])
    messages = [r.getMessage() for r in caplog.records if r.name == USER_LOG]
    assert any("fall back" in m and "float64's range" in m for m in messages), messages
    with pytest.raises(WeightOverflowError):
        k.gram(["a" * 1100 + "c"], strategy="features")
    np.testing.assert_allclose(k.gram(["a" * 10 + "c"]), [[2.0**20]], rtol=1e-12)  # 2^10 paths, squared
