"""The subsequence and mismatch kernels at scale: bounded memory, overflow, documented limits.

Oracles: brute-force enumeration of common subsequences and of Σ^k (``kernel_oracles``),
the textbook count of distinct subsequences in exact integers, closed forms, the
transducer paths of the same kernels, and arc counts of the feature automata OpenFst builds.
"""

from __future__ import annotations

import importlib
import itertools
import json
import math
import random
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratkit.automata import Alphabet
from ratkit.automata import kernels as K
from ratkit.automata.kernels import mismatch, subsequence
from ratkit.automata.kernels.mismatch import mismatch_counter
from ratkit.automata.kernels.subsequence import subsequence_transducer
from ratkit.exceptions import ResourceLimitError, WeightOverflowError
from tests.isolated import run_python

from .kernel_oracles import mismatch_kernel, random_strings, subsequence_kernel

subsequence_module = importlib.import_module("ratkit.automata.kernels.subsequence")
mismatch_module = importlib.import_module("ratkit.automata.kernels.mismatch")

# -- oracles -------------------------------------------------------------------------


def distinct_subsequences(x) -> int:
    """#{u : u ⊑ x} (ε included) in exact integers: appending c doubles the count, minus the
    subsequences that already ended in c (those counted before the previous c)."""
    count, before = 1, {}
    for c in x:
        count, before[c] = 2 * count - before.get(c, 0), count
    return count


def common_with_ab_block(x: str, p: int, q: int) -> int:
    """K(x, a^p b^q): the common subsequences are a^i b^j (i ≤ p, j ≤ q) with a^i b^j ⊑ x;
    for each i, j ranges up to the number of b's after the i-th a of x."""
    a_pos = [t for t, c in enumerate(x) if c == "a"]
    total = 0
    for i in range(min(p, len(a_pos)) + 1):
        start = a_pos[i - 1] + 1 if i else 0
        total += min(q, x.count("b", start)) + 1
    return total


def arcs(transducer) -> int:
    fst = transducer._fst
    return sum(fst.num_arcs(s) for s in fst.states())


def ball(k: int, m: int, n_symbols: int) -> int:
    """|{z ∈ Σ^k : d(u, z) ≤ m}| for any u ∈ Σ^k."""
    return sum(math.comb(k, j) * (n_symbols - 1) ** j for j in range(m + 1))


# -- subsequence: the DP ---------------------------------------------------------------

strings = st.text(alphabet="abc", max_size=7)
token_seqs = st.lists(st.sampled_from(["the", "cat", "sat", "a"]), max_size=6).map(tuple)


@settings(max_examples=60, deadline=None)
@given(st.lists(strings, min_size=1, max_size=5), st.lists(strings, min_size=1, max_size=5))
def test_subsequence_dp_counts_common_subsequences(xs, ys):
    want = np.array([[subsequence_kernel(x, y) for y in ys] for x in xs], dtype=float)
    k = subsequence()
    np.testing.assert_array_equal(k.gram(xs, ys), want)
    np.testing.assert_array_equal(k.gram(xs), [[subsequence_kernel(x, y) for y in xs] for x in xs])
    np.testing.assert_array_equal(k.diag(xs), [subsequence_kernel(x, x) for x in xs])


@settings(max_examples=40, deadline=None)
@given(st.lists(token_seqs, min_size=1, max_size=4), st.lists(token_seqs, min_size=1, max_size=4))
def test_subsequence_dp_on_token_tuples(xs, ys):
    want = np.array([[subsequence_kernel(x, y) for y in ys] for x in xs], dtype=float)
    np.testing.assert_array_equal(subsequence().gram(xs, ys), want)


def test_subsequence_dp_agrees_with_the_transducer_paths():
    rng = random.Random(5)
    xs, ys = random_strings(rng, 6, "abcd", 12), random_strings(rng, 5, "abcd", 12)
    k = subsequence()
    want = [[subsequence_kernel(x, y) for y in ys] for x in xs]  # the definition (distinct common subsequences)
    for strategy in ("auto", "intersection", "composition"):
        np.testing.assert_allclose(k.gram(xs, ys, strategy=strategy), want, rtol=1e-9, err_msg=f"strategy={strategy}")


def test_subsequence_of_a_long_string_with_itself_is_its_number_of_distinct_subsequences():
    rng = random.Random(7)
    for alphabet, n in (("ab", 300), ("acgt", 400), ("abcdefghij", 250)):
        x = "".join(rng.choice(alphabet) for _ in range(n))
        want = distinct_subsequences(x)
        assert want > 2**53  # beyond exact float64 integers: the DP must still be accurate
        assert subsequence()(x, x) == pytest.approx(float(want), rel=1e-12)


# -- subsequence: memory and overflow ------------------------------------------------------


def test_subsequence_gram_of_long_sequences_runs_in_bounded_memory():
    # issue 14 (the class of items 4 and 12): N of (|x| + 2) × (Σ_j |y_j| + 1) float64 was
    # allocated at once, ≈ 800 MB here (2.99 GiB for 400 y's: MemoryError, or an abort)
    code = """
        import json
        import random
        from ratkit.automata.kernels import subsequence
        rng = random.Random(3)
        X = ["".join(rng.choice("abcd") for _ in range(1000)) for _ in range(2)]
        Y = ["a" * p + "b" * (1000 - p) for p in range(0, 1000, 10)]
        G = subsequence().gram(X, Y)
        print(json.dumps(G.tolist()))
    """
    out = run_python(code, timeout=30, memory_mb=1000)
    assert not out.timed_out and out.returncode == 0, (out.returncode, out.stderr[-2000:])
    G = np.array(json.loads(out.stdout))
    rng = random.Random(3)
    X = ["".join(rng.choice("abcd") for _ in range(1000)) for _ in range(2)]
    want = [[common_with_ab_block(x, p, 1000 - p) for p in range(0, 1000, 10)] for x in X]
    np.testing.assert_array_equal(G, want)


def test_subsequence_count_beyond_float64_raises_naming_the_pair():
    # issue 14 (the class of item 4): two random strings of 3000 symbols gave K = inf
    rng = random.Random(0)
    x = "".join(rng.choice("ab") for _ in range(3000))
    y = "".join(rng.choice("ab") for _ in range(3000))
    k = subsequence()
    pair = r"X\[1\] \(3,000 symbols\) and Y\[0\] \(3,000 symbols\).*1\.8e\+?308"
    with pytest.raises(WeightOverflowError, match=pair):
        k.gram(["ab", x], [y])
    with pytest.raises(WeightOverflowError, match=r"exceeds the largest float64.*shorter"):
        k(x, y)
    with pytest.raises(WeightOverflowError, match=r"3,000 symbols"):
        k.diag([x])


def test_subsequence_values_near_the_float64_bound_are_returned_or_refused_exactly():
    # x = (ab)^n has F(2n + 3) − 1 distinct subsequences (a Fibonacci number): cross the bound
    for n in (700, 730, 740):
        x = "ab" * n
        want = distinct_subsequences(x)
        if want < 1.7976931348623157e308:
            assert subsequence()(x, x) == pytest.approx(float(want), rel=1e-12)
        else:
            with pytest.raises(WeightOverflowError):
                subsequence()(x, x)


# -- subsequence: the transducer and Φ_x --------------------------------------------------


def test_subsequence_feature_automaton_estimate_bounds_the_measured_arcs():
    rng = random.Random(11)
    k = subsequence()
    cases = [rng.choice(["ab", "abc", "abcdefgh"]) for _ in range(60)]
    strings = ["".join(rng.choice(a) for _ in range(rng.randint(0, 30))) for a in cases]
    strings += ["abcdefghijklmnop"[:n] for n in range(17)]  # every symbol distinct: the cubic case
    for x in strings:
        measured = arcs(k.feature_automaton(x, Alphabet("abcdefghijklmnop")))
        estimate = k._feature_automaton_arcs(len(x), len(set(x)))
        assert measured <= estimate <= 3 * measured, (x, measured, estimate)


def test_subsequence_transducer_size_is_estimated_and_refused_beyond_the_limit():
    for n in (1, 2, 5, 30):
        t = subsequence_transducer(Alphabet([f"s{i}" for i in range(n)]))
        assert subsequence_module.subsequence_transducer_arcs(n) == arcs(t)
    # building T for 3 000 tokens held 36 million arcs as Python tuples (≈ 20 GB)
    code = """
        from ratkit.automata.kernels import subsequence
        from ratkit.exceptions import ResourceLimitError
        X = [tuple(f"w{i}" for i in range(j, 3000, 7)) for j in range(7)]
        try:
            subsequence().fit_features(X)
        except ResourceLimitError as exc:
            print("refused", exc)
    """
    out = run_python(code, timeout=30, memory_mb=2000)
    assert not out.timed_out and out.returncode == 0, (out.returncode, out.stderr[-2000:])
    assert out.stdout.startswith("refused"), out.stdout
    assert f"{3000 * (4 * 3000 + 2):,} arcs" in out.stdout, out.stdout
    assert re.search(r"3,000 symbols.*limit of [\d,]+ arcs.*fewer distinct symbols", out.stdout), out.stdout


# -- mismatch ----------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.text(alphabet="abc", max_size=7), min_size=1, max_size=4),
    st.lists(st.text(alphabet="abc", max_size=7), min_size=1, max_size=4),
    st.sampled_from([(1, 0), (1, 1), (2, 1), (3, 1), (3, 2), (3, 3)]),
)
def test_mismatch_features_equal_eq6(xs, ys, km):
    k, m = km
    want = np.array([[mismatch_kernel(x, y, k, m, "abc") for y in ys] for x in xs], dtype=float)
    np.testing.assert_array_equal(mismatch(k, m, "abc").gram(xs, ys, strategy="specialized"), want)


def test_mismatch_features_on_token_tuples_and_unseen_alphabet_symbols():
    rng = random.Random(2)
    words = ["the", "cat", "sat", "on"]
    xs = [tuple(rng.choice(words[:3]) for _ in range(rng.randint(0, 8))) for _ in range(6)]
    k = mismatch(2, 1, words)  # 'on' is in Σ but in no sequence: it still substitutes
    want = [[mismatch_kernel(x, y, 2, 1, words) for y in xs] for x in xs]
    np.testing.assert_array_equal(k.gram(xs), want)
    np.testing.assert_allclose(k.gram(xs, strategy="intersection"), want, rtol=1e-9)


def test_mismatch_feature_rows_hold_every_neighbour_of_every_window():
    rng = random.Random(9)
    al = "ACDEFGHIKLMNPQRSTVWY"
    xs = ["".join(rng.choice(al) for _ in range(n)) for n in (0, 4, 5, 60, 200)]
    _, F = mismatch(5, 2, al).fit_features(xs)
    windows = np.array([max(len(x) - 4, 0) for x in xs])
    np.testing.assert_array_equal(np.asarray(F.sum(axis=1)).ravel(), windows * ball(5, 2, 20))
    # row 3: every z within 2 substitutions of each window, counted once per window
    x = xs[3]
    want = {}
    for i in range(len(x) - 4):
        u = x[i : i + 5]
        for pos in itertools.combinations(range(5), 2):
            for subs in itertools.product(al, repeat=2):
                z = list(u)
                for p, s in zip(pos, subs):
                    z[p] = s
                want.setdefault("".join(z), set()).add(i)
    row = F.getrow(3)
    assert row.nnz == len(want)
    assert sorted(row.data.tolist()) == sorted(float(len(v)) for v in want.values())


def test_mismatch_feature_automaton_arcs_are_counted_exactly():
    rng = random.Random(0)
    for al in ("ab", "abc", "abcde"):
        for k, m in ((1, 0), (1, 1), (2, 1), (3, 2), (4, 4), (5, 2)):
            kern = mismatch(k, m, al)
            for n in (0, 1, k, k + 3, 14):
                x = "".join(rng.choice(al) for _ in range(n))
                assert kern._feature_automaton_arcs(n, len(al)) == arcs(kern.feature_automaton(x)), (al, k, m, n)


def test_mismatch_counter_size_is_estimated_and_refused_beyond_the_limit():
    for n, k, m in ((1, 1, 0), (3, 2, 1), (4, 3, 2), (7, 5, 1)):
        t = mismatch_counter(k, m, Alphabet([f"s{i}" for i in range(n)]))
        assert mismatch_module.mismatch_counter_arcs(k, m, n) == arcs(t)
    code = """
        from ratkit.automata.kernels import mismatch
        from ratkit.exceptions import ResourceLimitError
        words = [f"w{i}" for i in range(3000)]
        try:
            mismatch(5, 1, words).transducer()
        except ResourceLimitError as exc:
            print("refused", exc)
    """
    out = run_python(code, timeout=30, memory_mb=2000)
    assert not out.timed_out and out.returncode == 0, (out.returncode, out.stderr[-2000:])
    assert out.stdout.startswith("refused"), out.stdout
    assert f"{mismatch_module.mismatch_counter_arcs(5, 1, 3000):,} arcs" in out.stdout, out.stdout
    assert re.search(r"3,000 symbols.*limit of [\d,]+ arcs", out.stdout), out.stdout


def test_mismatch_features_beyond_the_limit_are_refused_before_allocating():
    # issue 14 (the class of item 12): W·Σ_j C(k, j)(|Σ| − 1)^j triplets were never estimated;
    # here 1 995 windows × 142 710 neighbours ≈ 2.8·10⁸ (4.6 GB of rows and codes)
    code = """
        import random
        from ratkit.automata.kernels import mismatch
        from ratkit.exceptions import ResourceLimitError
        rng = random.Random(1)
        al = "ACDEFGHIKLMNPQRSTVWY"
        x = "".join(rng.choice(al) for _ in range(2000))
        try:
            mismatch(6, 3, al).fit_features([x])
        except ResourceLimitError as exc:
            print("refused", exc)
    """
    out = run_python(code, timeout=30, memory_mb=1500)
    assert not out.timed_out and out.returncode == 0, (out.returncode, out.stderr[-2000:])
    assert out.stdout.startswith("refused"), out.stdout
    estimate = 1995 * ball(6, 3, 20)
    limit = mismatch_module.MAX_FEATURE_ENTRIES
    assert estimate > limit
    assert f"{estimate:,} entries" in out.stdout and f"limit of {limit:,}" in out.stdout, out.stdout
    assert re.search(r"1,995 windows.*smaller m", out.stdout), out.stdout


def test_mismatch_features_at_the_limit_are_computed(monkeypatch):
    rng = random.Random(4)
    xs = random_strings(rng, 5, "abcd", 12, min_len=3)
    k = mismatch(3, 1, "abcd")
    entries = sum(len(x) - 2 for x in xs) * ball(3, 1, 4)
    monkeypatch.setattr(mismatch_module, "MAX_FEATURE_ENTRIES", entries)
    want = [[mismatch_kernel(x, y, 3, 1, "abcd") for y in xs] for x in xs]
    np.testing.assert_array_equal(k.gram(xs), want)
    monkeypatch.setattr(mismatch_module, "MAX_FEATURE_ENTRIES", entries - 1)
    with pytest.raises(ResourceLimitError, match=f"{entries:,} entries.*limit of {entries - 1:,}"):
        k.gram(xs)


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: K.subsequence() * K.subsequence() * K.subsequence(), r"ProductKernel\(.*non-finite value inf"),
        (
            lambda: 1e303 * K.ngram(1),
            r"ScaledKernel\(kernel=NgramKernel\(n=1\), factor=1e\+303\) has the non-finite value inf",
        ),
        (lambda: K.polynomial(K.ngram(1), degree=400, scale=10.0), r"PolynomialKernel\(.*non-finite value inf"),
        (lambda: K.SumKernel([K.ngram(1), K.ngram(1)], [1.7e308, 1.7e308]), r"SumKernel\(.*non-finite value inf"),
    ],
)
def test_combinations_that_overflow_float64_raise_instead_of_returning_inf(make, match):
    """Before: (s·s·s)(x, x), 1e303·k, (10 k)⁴⁰⁰ returned inf silently. x = a¹⁰⁰⁰ has K₁(x, x) = 10⁶
    unigram count products, and s(x, x) = 1001 (the subsequences aᵏ): (1001)³ is finite, so the
    product case uses (ab)³⁰⁰, whose count of common subsequences is ≈ 1e125."""
    x = "ab" * 300 if "Product" in match else "a" * 1000
    with pytest.raises(WeightOverflowError, match=match):
        make().gram([x])


def test_probability_edit_distance_that_overflows_raises_naming_the_pair():
    """Weights 1 for every operation: the number of alignments of two strings of 600 symbols is
    far beyond float64 (Delannoy numbers); before, the kernel returned inf."""
    k = K.edit_distance("probability", match=1.0, substitution=1.0, insertion=1.0, deletion=1.0)
    with pytest.raises(WeightOverflowError, match=r"alignments of X\[0\] \(600 symbols\) and Y\[0\] \(600 symbols\)"):
        k("ab" * 300, "ba" * 300)
    assert k("ab", "b") == 5.0  # Delannoy-like count: the alignments of ab and b, each of weight 1


def test_mismatch_features_over_a_large_token_alphabet_need_no_transducer():
    """Before, gram() built T eagerly (|Σ|² arcs) even when the window features answer alone;
    over 1 200 tokens that is beyond the transducer limit, so the Gram matrix was refused."""
    tokens = [f"w{i}" for i in range(1200)]
    X = [tuple(tokens[i : i + 5]) for i in range(0, 1195, 5)]
    G = K.mismatch(2, 1, alphabet=tokens).gram(X[:3])

    # brute force over Σ²: Φ(x)_z counts the 2-windows within one substitution of z
    def phi(x):
        out = {}
        for i in range(len(x) - 1):
            u = x[i : i + 2]
            for p in range(2):
                for s in tokens:
                    z = list(u)
                    z[p] = s
                    z = tuple(z)
                    if z != u or p == 0:
                        out[z] = out.get(z, 0) + 1
        return out

    feats = [phi(x) for x in X[:3]]
    want = np.array([[sum(v * b.get(z, 0) for z, v in a.items()) for b in feats] for a in feats], dtype=float)
    np.testing.assert_array_equal(G, want)
