"""Every kernel family against a brute-force oracle written from its definition."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from ratkit.automata import Alphabet, evaluate, from_arcs
from ratkit.automata.kernels import (
    count_based,
    edit_distance,
    from_transducer,
    gappy,
    mismatch,
    ngram,
    subsequence,
)
from ratkit.automata.kernels.subsequence import subsequence_transducer
from ratkit.exceptions import UnknownSymbolError
from tests.seeds import stable_seed

from .kernel_oracles import (
    alignment_sum,
    gappy_kernel,
    levenshtein,
    mismatch_kernel,
    ngram_kernel,
    random_strings,
    subsequence_kernel,
)

ALPHABETS = ["ab", "abc", "abcd"]


def _pairs(seed, alphabet, n_x=20, n_y=10, max_len=9):
    rng = random.Random(seed)
    return random_strings(rng, n_x, alphabet, max_len), random_strings(rng, n_y, alphabet, max_len)


def _check(kernel, oracle, xs, ys, strategies=("auto",)):
    want = np.array([[oracle(x, y) for y in ys] for x in xs], dtype=float)
    for strategy in strategies:
        np.testing.assert_allclose(
            kernel.gram(xs, ys, strategy=strategy), want, rtol=1e-9, atol=1e-12, err_msg=f"strategy={strategy}"
        )


@pytest.mark.parametrize("alphabet", ALPHABETS)
@pytest.mark.parametrize("n, lam", [(1, 0.5), (2, 0.5), (2, 1.0), (3, 0.7)])
def test_gappy_equals_brute_force(alphabet, n, lam):
    xs, ys = _pairs(stable_seed(alphabet, n, lam, modulo=1000), alphabet)  # 200 pairs
    _check(gappy(n, lam), lambda x, y: gappy_kernel(x, y, n, lam), xs, ys, strategies=("specialized", "features"))


def test_gappy_survey_example_and_automata_paths():
    t = gappy(2, 0.3).factor("abcd")
    assert evaluate(t, "abcd", "ab") == pytest.approx(1.0)
    assert evaluate(t, "abcd", "ac") == pytest.approx(0.3)
    assert evaluate(t, "abcd", "ad") == pytest.approx(0.09)
    xs, ys = _pairs(3, "abc", 6, 6, 7)
    _check(gappy(2, 0.3), lambda x, y: gappy_kernel(x, y, 2, 0.3), xs, ys, strategies=("intersection", "composition"))


@pytest.mark.parametrize("n, lam", [(1, 0.5), (2, 0.5), (3, 0.8)])
def test_gappy_pair_transducer_of_fig4_is_lambda_2n_times_the_kernel(n, lam):
    k = gappy(n, lam)
    s = k.pair_transducer("abc")
    xs, ys = _pairs(11 * n, "abc", 8, 8, 6)
    for x, y in itertools.product(xs, ys):
        assert evaluate(s, x, y) == pytest.approx(lam ** (2 * n) * gappy_kernel(x, y, n, lam), rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("alphabet", ALPHABETS)
@pytest.mark.parametrize("k, m", [(1, 0), (2, 1), (3, 1), (3, 2)])
def test_mismatch_equals_eq6(alphabet, k, m):
    xs, ys = _pairs(stable_seed(alphabet, k, m, modulo=1000), alphabet)
    _check(
        mismatch(k, m, alphabet),
        lambda x, y: mismatch_kernel(x, y, k, m, alphabet),
        xs,
        ys,
        strategies=("specialized", "features"),
    )


def test_mismatch_intersection_path_and_alphabet_inference():
    xs, ys = _pairs(4, "abc", 6, 6, 7)
    _check(mismatch(2, 1, "abc"), lambda x, y: mismatch_kernel(x, y, 2, 1, "abc"), xs, ys, strategies=("intersection",))
    km = mismatch(2, 1)  # alphabet inferred from the first data, then fixed
    G = km.gram(["abab", "bbaa"])
    assert km.alphabet_ == ("a", "b")
    assert G[0, 1] == mismatch_kernel("abab", "bbaa", 2, 1, "ab")
    with pytest.raises(UnknownSymbolError, match="Symbol 'c' is not in the alphabet of this MismatchKernel"):
        km.gram(["abc"], ["ab"])


@pytest.mark.parametrize("alphabet", ALPHABETS)
def test_subsequence_equals_common_subsequence_count(alphabet):
    xs, ys = _pairs(stable_seed(alphabet, modulo=1000), alphabet, max_len=8)
    _check(subsequence(), subsequence_kernel, xs, ys, strategies=("specialized", "features", "intersection"))


def test_subsequence_transducer_has_one_path_per_subsequence():
    """T(x, u) counts accepting paths (weights 1): it must be [u ⊑ x] for every x and u."""
    t = subsequence_transducer(Alphabet("abc"))
    strings = ["".join(p) for n in range(5) for p in itertools.product("abc", repeat=n)]
    for x in strings:
        subs = {"".join(u) for u in (c for r in range(len(x) + 1) for c in itertools.combinations(x, r))}
        for u in strings:
            assert evaluate(t, x, u) == (1.0 if u in subs else 0.0), (x, u)


def test_edit_distance_tropical_is_levenshtein_and_not_pds():
    xs, ys = _pairs(5, "abc", 20, 10, 8)
    _check(edit_distance(), levenshtein, xs, ys, strategies=("specialized",))
    _check(edit_distance(), levenshtein, xs[:5], ys[:5], strategies=("composition",))
    G = edit_distance().gram(["", "a"])  # Proposition 3: eigenvalues (1, −1)
    assert np.linalg.eigvalsh(G)[0] == pytest.approx(-1.0)


def test_edit_distance_probability_sums_all_alignments():
    w = dict(match=0.9, substitution=0.2, insertion=0.3, deletion=0.4)
    k = edit_distance("probability", **w)
    xs, ys = _pairs(6, "ab", 20, 10, 6)
    oracle = lambda x, y: alignment_sum(x, y, w["match"], w["substitution"], w["insertion"], w["deletion"])  # noqa: E731
    _check(k, oracle, xs, ys, strategies=("specialized",))
    _check(k, oracle, xs[:5], ys[:5], strategies=("composition",))


def test_count_based_equals_weighted_pattern_counts():
    pats, w = ["ab", "b", "aba", "ca"], [1.0, 0.5, 2.0, 0.0]
    k = count_based(pats, w)

    def occ(x, p):
        return sum(1 for i in range(len(x) - len(p) + 1) if x[i : i + len(p)] == p)

    xs, ys = _pairs(7, "abc", 20, 10, 10)
    _check(
        k,
        lambda x, y: sum(wk**2 * occ(x, p) * occ(y, p) for p, wk in zip(pats, w)),
        xs,
        ys,
        strategies=("specialized", "features", "intersection"),
    )


def test_from_transducer_of_the_ngram_counter_equals_ngram():
    xs, ys = _pairs(8, "abc", 20, 10, 10)
    k = from_transducer(ngram(2).factor("abc"))
    np.testing.assert_allclose(k.gram(xs, ys), ngram(2).gram(xs, ys), rtol=1e-12)
    np.testing.assert_allclose(k.gram(xs, ys), [[ngram_kernel(x, y, 2) for y in ys] for x in xs], rtol=1e-12)
    np.testing.assert_allclose(
        k.gram(xs[:5], ys[:5], strategy="intersection"), ngram(2).gram(xs[:5], ys[:5]), rtol=1e-9
    )


def test_from_transducer_reads_files_and_refuses_unregulated_ones(tmp_path):
    from ratkit.automata import write_att, write_fst
    from ratkit.exceptions import NotRegulatedError

    t = ngram(1).factor("ab")
    write_att(t, tmp_path / "t.att")
    write_fst(t, tmp_path / "t.fst")
    for path in (tmp_path / "t.att", tmp_path / "t.fst"):
        assert from_transducer(str(path))("aab", "ab") == pytest.approx(3.0)
    (tmp_path / "bad.att").write_text("0 1 <eps> <eps> 1\n1 0 <eps> <eps> 1\n1 2 a a 1\n2\n")
    with pytest.raises(NotRegulatedError, match="not regulated"):
        from_transducer(str(tmp_path / "bad.att"))
    with pytest.raises(UnknownSymbolError, match="Symbol 'z' is not in the alphabet of this TransducerKernel"):
        from_transducer(str(tmp_path / "t.att")).gram(["az"])


@pytest.mark.parametrize(
    "make",
    [
        lambda: ngram(3),
        lambda: gappy(2, 0.5),
        lambda: mismatch(3, 1, "abcd"),
        subsequence,
        lambda: count_based(["ab", "ba", "c"], [1, 2, 3]),
    ],
)
def test_tt_inverse_gram_matrices_are_psd(make):
    xs = random_strings(random.Random(9), 40, "abcd", 14)
    G = make().gram(xs)
    assert np.array_equal(G, G.T)
    assert np.linalg.eigvalsh(G)[0] >= -1e-8 * np.trace(G)


def _enumerate_acceptor(arcs, start, finals):
    """{x: A(x)} of an acyclic probability acceptor given by (src, label, weight, dst) arcs."""
    out: dict[str, float] = {}
    stack = [(start, "", 1.0)]
    while stack:
        q, x, w = stack.pop()
        if q in finals:
            out[x] = out.get(x, 0.0) + w * finals[q]
        stack += [(d, x + lab, w * aw) for s, lab, aw, d in arcs if s == q]
    return out


@pytest.mark.parametrize(
    "make, oracle",
    [
        (lambda: ngram(2), lambda x, y: ngram_kernel(x, y, 2)),
        (lambda: gappy(2, 0.6), lambda x, y: gappy_kernel(x, y, 2, 0.6)),
        (subsequence, subsequence_kernel),
    ],
)
def test_lattice_kernel_is_the_double_sum_of_eq4(make, oracle):
    """K(A, B) = Σ_x Σ_y A(x) K(x, y) B(y), with K(x, y) from the brute-force oracles."""
    rng = random.Random(10)
    k = make()
    for _ in range(5):
        lattices = []
        for _ in range(2):
            arcs = [
                (q, rng.choice("ab"), rng.uniform(0.1, 1.0), d)
                for q in range(4)
                for d in range(q + 1, 5)
                if rng.random() < 0.6
            ]
            finals = {4: 1.0, 3: 0.5}
            lattices.append((from_arcs(arcs, 0, finals, alphabet=Alphabet("ab")), _enumerate_acceptor(arcs, 0, finals)))
        (A, a), (B, b) = lattices
        want = sum(wa * wb * oracle(x, y) for x, wa in a.items() for y, wb in b.items())
        assert k(A, B) == pytest.approx(want, rel=1e-9, abs=1e-12)


def test_long_strings_stay_exact_or_correctly_scaled():
    L = 10_000
    x = "a" * L
    # n-gram counts of length-10⁴ strings are exact integers
    assert ngram(3)(x, x) == float((L - 2) ** 2)
    # gappy: T(aᴸ, aa) = Σ_{g=0}^{L−2} (L − 1 − g) λ^g in closed form; no underflow/overflow
    lam = 0.5
    t = sum((L - 1 - g) * lam**g for g in range(L - 1))
    assert gappy(2, lam)(x, x) == pytest.approx(t * t, rel=1e-12)
    # a random string: T(y, z) for every bigram z by the O(L) recurrence
    # S_b(j) = λ S_b(j − 1) + [y_{j−1} = b] over the positions, summed in float64
    y = "".join(random.Random(1).choice("ab") for _ in range(L))
    lam = 0.99
    feats = dict.fromkeys(("aa", "ab", "ba", "bb"), 0.0)
    run = {"a": 0.0, "b": 0.0}  # Σ_{i<j, y_i = c} λ^{j − i − 1}
    for ch in y:
        for c in "ab":
            feats[c + ch] += run[c]
        for c in "ab":
            run[c] = lam * run[c] + (1.0 if c == ch else 0.0)
    assert gappy(2, lam)(y, y) == pytest.approx(sum(v * v for v in feats.values()), rel=1e-9)


def test_set_params_rebuilds_the_transducer_even_when_reprs_agree():
    # two transducers of the same size (same repr), counting different symbols
    t_a = from_arcs([(0, "a", "a", 1.0, 1), (0, "b", "", 1.0, 0), (1, "b", "", 1.0, 1)], 0, {1: 1.0})
    t_b = from_arcs([(0, "b", "b", 1.0, 1), (0, "a", "", 1.0, 0), (1, "a", "", 1.0, 1)], 0, {1: 1.0})
    assert repr(t_a) == repr(t_b)
    k = from_transducer(t_a)
    X = ["ab", "b", "a"]  # one a (t_a) / one b (t_b): [1, 0, 1] against [1, 1, 0]
    for strategy in ("features", "intersection", "composition"):
        before = k.gram(X, strategy=strategy)
        k.set_params(transducer=t_b)
        np.testing.assert_allclose(k.gram(X, strategy=strategy), from_transducer(t_b).gram(X, strategy=strategy))
        assert not np.allclose(before, k.gram(X, strategy=strategy))
        k.set_params(transducer=t_a)


def test_count_based_patterns_with_symbols_absent_from_the_data():
    X = ["abab", "ab", "ba"]
    want = np.array([[sum(x.count(p) * y.count(p) for p in ("ab",)) for y in X] for x in X], dtype=float)
    for strategy in ("specialized", "features", "intersection", "composition"):
        np.testing.assert_allclose(count_based(["ab", "c"]).gram(X, strategy=strategy), want)


def test_gappy_codes_too_long_for_int64_fall_back_to_automata():
    # 41 distinct tokens and n = 12: 42^12 > 2^62, so pattern codes would overflow int64
    x = tuple(f"t{i}" for i in range(14))
    y = x[:6] + ("u0",) + x[6:]  # one extra token inside: the 12-subsequences of x survive, with gaps
    X = [x, y, tuple(f"u{i}" for i in range(1, 14)), tuple(f"v{i}" for i in range(13))]
    assert len({t for s in X for t in s}) == 41
    want = np.array([[gappy_kernel(a, b, 12, 0.5) for b in X] for a in X])
    np.testing.assert_allclose(gappy(12, 0.5).gram(X), want, rtol=1e-9)


def test_mismatch_alphabet_is_not_fixed_by_inputs_without_symbols():
    km = mismatch(2, 1)
    assert km.gram([""]).tolist() == [[0.0]]
    want = [[mismatch_kernel(x, y, 2, 1, "ab") for y in ("ab", "ba")] for x in ("ab", "ba")]
    assert km.gram(["ab", "ba"]).tolist() == want
    assert km.alphabet_ == ("a", "b")


def test_from_transducer_takes_a_lambda_as_psi():
    """Regression (audit): the kernel's cache key pickled its parameters, so psi=lambda raised
    PicklingError on every evaluation, even k(x, y) in one process. Oracle: the unigram counts
    K(x, y) = Σ_a |x|_a |y|_a under Ψ(v) = √v; assigning another psi takes effect."""
    X = ["ab", "aab", "b"]
    counts = np.array([[2, 3, 1], [3, 5, 1], [1, 1, 1]], dtype=float)
    k = from_transducer(ngram(1).factor("ab"), psi=lambda v: v**0.5)
    assert k("ab", "aab") == pytest.approx(3**0.5)
    np.testing.assert_allclose(k.gram(X), counts**0.5, rtol=1e-12)
    k.psi = lambda v: v
    np.testing.assert_allclose(k.gram(X), counts, rtol=1e-12)
    np.testing.assert_allclose(k.gram(X, n_jobs=2), counts, rtol=1e-12)
