"""Extreme weights (issue 35, class 2): kernel values beyond float64 raise WeightOverflowError
naming the kernel and the value, never ±∞, NaN or a silent 0; a cosine normalisation, which
is scale-invariant, gives the cosine of weights 1 whatever their scale.

The oracle is exact rational arithmetic (fractions.Fraction) on pattern counts found by
brute force: K(x, y) = Σ_k w_k² |x|_k |y|_k with each float weight read exactly.
"""

from __future__ import annotations

import math
import re
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ratkit.automata.kernels import cosine, count_based, ngram
from ratkit.exceptions import WeightOverflowError

FLOAT_MAX = Fraction(sys.float_info.max)
PATTERNS = ["a", "b", "ab"]


def occurrences(x: str, p: str) -> int:
    return sum(1 for i in range(len(x) - len(p) + 1) if x[i : i + len(p)] == p)


def exact_kernel(X: list[str], Y: list[str], patterns: list[str], weights: list[float], c: float = 1.0) -> list:
    """[c Σ_k w_k² |x|_k |y|_k] in exact arithmetic."""
    w2 = [Fraction(w) ** 2 for w in weights]
    return [
        [Fraction(c) * sum(v * occurrences(x, p) * occurrences(y, p) for v, p in zip(w2, patterns)) for y in Y]
        for x in X
    ]


def exact_sqrt(q: Fraction) -> float:
    """√q of an exact non-negative rational, rounded once (q is scaled by 4^t into float64's
    normal range first: float(q) of a tiny q would be a subnormal with few bits)."""
    if not q:
        return 0.0
    t = (q.denominator.bit_length() - q.numerator.bit_length()) // 2
    return math.ldexp(math.sqrt(float(q * Fraction(4) ** t)), -t)


def exact_cosine(X: list[str], Y: list[str], patterns: list[str], weights: list[float]) -> np.ndarray:
    """K(x, y)/√(K(x, x) K(y, y)) from the exact K (cos² exact, then one square root)."""
    K = exact_kernel(X, Y, patterns, weights)
    dx = [exact_kernel([x], [x], patterns, weights)[0][0] for x in X]
    dy = [exact_kernel([y], [y], patterns, weights)[0][0] for y in Y]
    return np.array(
        [
            [exact_sqrt(K[i][j] ** 2 / (dx[i] * dy[j])) if dx[i] and dy[j] else 0.0 for j in range(len(Y))]
            for i in range(len(X))
        ]
    )


# -- the examples of the issue ------------------------------------------------------------


def test_a_count_based_value_beyond_float64_raises_naming_the_kernel_and_the_value():
    """Before: count_based(["a"], weights=[1e200])("a", "a") returned inf (w² overflowed)."""
    k = count_based(["a"], weights=[1e200])
    with pytest.raises(WeightOverflowError, match=r"CountBasedKernel\(patterns=\['a'\], weights=\[1e\+200\]\).*1e400"):
        k("a", "a")
    with pytest.raises(OverflowError):  # the builtin it also is
        k.gram(["a", "aa"])


@pytest.mark.parametrize(
    "call",
    [
        lambda k: k.gram(["a", "ab"]),
        lambda k: k.gram(["a"], ["ab"]),
        lambda k: k.diag(["a"]),
        lambda k: k.gram(["a"], strategy="features"),
        lambda k: k.gram(["a"], strategy="specialized"),
        lambda k: k.gram(["a"], strategy="intersection"),
        lambda k: k.gram(["a"], strategy="composition"),
        lambda k: (2.0 * k).gram(["a"]),
        lambda k: (k + ngram(1)).gram(["a"]),
        lambda k: (k * ngram(1)).gram(["a"]),
        lambda k: (k * ngram(1)).diag(["a"]),
    ],
    ids=[
        "gram",
        "gram-xy",
        "diag",
        "features",
        "specialized",
        "intersection",
        "composition",
        "scale",
        "sum",
        "product",
        "product-diag",
    ],
)
def test_every_path_refuses_a_value_beyond_float64(call):
    with pytest.raises(WeightOverflowError, match=r"CountBasedKernel|ScaledKernel|SumKernel|ProductKernel"):
        call(count_based(["a"], weights=[1e200]))


def test_a_gram_written_to_a_file_refuses_a_value_beyond_float64(tmp_path):
    """Before: gram(out=) wrote a file of inf."""
    out = tmp_path / "g.npy"
    with pytest.raises(WeightOverflowError, match=r"CountBasedKernel.*K\(x, x\) of input 0 is about 1e400"):
        count_based(["a"], weights=[1e200]).gram(["a", "b"], out=out)
    assert not out.exists()


@pytest.mark.parametrize("w", [1e-170, 1e160, 1.0, 1e300, 1e308])
def test_cosine_is_scale_invariant(w):
    """Before: weights 1e-170 gave an all-zero Gram, 1e160 an all-NaN one. The right answer,
    from exact arithmetic, is [[1, 3/√10, 1/√2], …]."""
    X = ["ab", "aab", "a"]
    k = cosine(count_based(["a", "b"], [w, w]))
    expected = exact_cosine(X, X, ["a", "b"], [1.0, 1.0])
    np.testing.assert_allclose(expected[0], [1.0, 3 / math.sqrt(10), 1 / math.sqrt(2)], rtol=1e-15)
    np.testing.assert_allclose(k.gram(X), expected, rtol=1e-12, atol=0)
    np.testing.assert_allclose(k.gram(X, ["b", "ab"]), exact_cosine(X, ["b", "ab"], ["a", "b"], [1.0, 1.0]), rtol=1e-12)
    np.testing.assert_array_equal(k.diag(X), [1.0, 1.0, 1.0])
    assert k("ab", "aab") == pytest.approx(3 / math.sqrt(10), rel=1e-12)
    _, F = k.fit_features(X)
    np.testing.assert_allclose((F @ F.T).toarray(), expected, rtol=1e-12)


def test_cosine_features_of_new_sequences_are_normalised_by_their_full_norm():
    """transform_features divides by √K₀(x, x), unseen features included: before, K₀(x, x)
    overflowed (a row of 0) or underflowed (a row of 0 too, 1/√0 read as 0)."""
    for w in (1e-170, 1e160):
        k = cosine(count_based(["a", "b", "ab"], [w, w, w]))
        vocabulary, _ = k.fit_features(["a"])  # only the pattern "a" is in the vocabulary
        G = k.transform_features(vocabulary, ["aab", "b"]).toarray()
        # "aab": a twice, b once, ab once: norm √6, its "a" feature 2/√6; "b" has no "a"
        np.testing.assert_allclose(G, [[2 / math.sqrt(6)], [0.0]], rtol=1e-12)


def test_cosine_rows_of_different_scales_in_one_kernel():
    """Weights 1e-300 and 1e300 in one kernel: each row is normalised by its own scale, so
    cos("a", "a") = 1 although K("a", "a") = 1e-600 is no float."""
    k = cosine(count_based(["a", "b"], [1e-300, 1e300]))
    X = ["a", "b", "ab", "aab"]
    np.testing.assert_allclose(k.gram(X), exact_cosine(X, X, ["a", "b"], [1e-300, 1e300]), rtol=1e-12, atol=1e-300)


def test_cosine_of_products_and_sums_of_extreme_kernels():
    """A common scale is taken out of scaled, summed and multiplied kernels (split_scale):
    product features of 1e-170 · 1e-170 (1e-340, no float) still give their cosine."""
    X = ["ab", "aab", "a", "b", "bb"]
    tiny = cosine(count_based(["a"], [1e-170]) * count_based(["b"], [1e-170]))
    unit = cosine(count_based(["a"], [1.0]) * count_based(["b"], [1.0]))
    np.testing.assert_allclose(tiny.gram(X), unit.gram(X), rtol=1e-12)
    assert unit.gram(X)[0, 1] == pytest.approx(1.0)  # ab and aab: features (1·1) and (2·1)
    scaled = cosine(1e300 * count_based(["a", "b"], [1e-300, 1e-300]))
    np.testing.assert_allclose(scaled.gram(X), exact_cosine(X, X, ["a", "b"], [1.0, 1.0]), rtol=1e-12)
    mixed = cosine(count_based(["a"], [1e-300]) + count_based(["b"], [1e-10]))
    # cos(a, ab) = 1e-600 / (1e-300 · √(1e-600 + 1e-20)) = 1e-290
    assert mixed.gram(["a", "ab"])[0, 1] == pytest.approx(1e-290, rel=1e-12)


def test_scaled_sums_and_products_compute_values_their_parts_cannot_hold():
    """1e300 · K with K = 1e-400 · counts (no float) is 1e-100 · counts: the scale is applied
    last; a product 1e-200² · 1e200² is the counts squared."""
    X = ["ab", "aab"]
    counts = np.array([[1.0, 2.0], [2.0, 4.0]])  # |x|_a |y|_a
    np.testing.assert_allclose((1e300 * count_based(["a"], [1e-200])).gram(X), 1e-100 * counts, rtol=1e-12)
    np.testing.assert_allclose((count_based(["a"], [1e-200]) * count_based(["a"], [1e200])).gram(X), counts**2)
    k = 1e-300 * count_based(["a"], [1e200]) + 1e-300 * count_based(["a"], [1e200])
    np.testing.assert_allclose(k.gram(X), 2e100 * counts, rtol=1e-12)


def test_a_value_below_float64_is_its_nearest_float():
    """1e-170² = 1e-340 is below the smallest float64: 0.0 is its nearest float (IEEE
    underflow, documented), not an error; 1e-160² = 1e-320 is a subnormal, to its last bit."""
    assert count_based(["a"], [1e-170])("a", "a") == 0.0
    exact = float(exact_kernel(["aa"], ["a"], ["a"], [1e-160])[0][0])
    assert exact > 0
    assert count_based(["a"], [1e-160])("aa", "a") == pytest.approx(exact, rel=0, abs=5e-324)


# -- the class: any scale, every kernel ------------------------------------------------------

strings = st.lists(st.text(alphabet="ab", min_size=0, max_size=6), min_size=1, max_size=5)
exponents = st.integers(-300, 300)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(X=strings, base=st.lists(st.integers(1, 5), min_size=3, max_size=3), e=exponents, e_scale=exponents)
def test_cosine_equals_the_unscaled_cosine_at_every_scale(X, base, e, e_scale):
    """cos of count_based(w · 10^e) and of 10^e′ · count_based(w · 10^e) is the cosine of w,
    to 1e-12, for every e, e′ in [−300, 300]; never ±∞ or NaN."""
    weights = [b * 10.0**e for b in base]
    expected = exact_cosine(X, X, PATTERNS, [float(b) for b in base])
    for k in (cosine(count_based(PATTERNS, weights)), cosine(10.0**e_scale * count_based(PATTERNS, weights))):
        G = k.gram(X)
        assert np.isfinite(G).all()
        np.testing.assert_allclose(G, expected, rtol=1e-12, atol=1e-12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(X=strings, exps=st.lists(exponents, min_size=3, max_size=3))
def test_cosine_with_weights_of_unrelated_scales(X, exps):
    """Each pattern its own scale 10^e_k: still the exact cosine (entries below 1e-300 in
    absolute terms round to 0, as any float)."""
    weights = [10.0**e for e in exps]
    G = cosine(count_based(PATTERNS, weights)).gram(X)
    assert np.isfinite(G).all()
    np.testing.assert_allclose(G, exact_cosine(X, X, PATTERNS, weights), rtol=1e-12, atol=1e-300)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(X=strings, exps=st.lists(exponents, min_size=3, max_size=3), e_scale=st.integers(-300, 300) | st.just(0))
def test_a_plain_kernel_value_is_exact_or_refused(X, exps, e_scale):
    """count_based with weights 10^e_k (scaled by 10^e′): every value that is a float is the
    exact one to 1e-12 (or its nearest subnormal/0 below float64's range), and a Gram holding
    a value beyond float64 raises WeightOverflowError; never ±∞ or NaN. (c · K whose K holds
    a value beyond float64 may raise although c · K's are floats: documented.)"""
    weights = [10.0**e for e in exps]
    c = 10.0**e_scale
    exact = exact_kernel(X, X, PATTERNS, weights, c)
    top = max(v for row in exact for v in row)
    base_top = top / Fraction(c)
    if any(v * Fraction(1, 10**6) < FLOAT_MAX < v * 10**6 for v in (top, base_top)):
        return  # within rounding of the boundary: either answer is right
    k = count_based(PATTERNS, weights) if e_scale == 0 else c * count_based(PATTERNS, weights)
    if top > FLOAT_MAX:
        with pytest.raises(WeightOverflowError):
            k.gram(X)
        return
    try:
        G = k.gram(X)
    except WeightOverflowError as exc:
        assert base_top > FLOAT_MAX, exc  # only where K's own value is beyond float64
        assert re.search(r"CountBasedKernel.*beyond float64", str(exc))
        return
    expected = np.array([[float(v) for v in row] for row in exact])
    assert np.isfinite(G).all()
    # c · K with K's value a subnormal keeps K's absolute rounding (a few 2^-1074), times c
    atol = 1e-300 + c * 4 * 2.0**-1074
    np.testing.assert_allclose(G, expected, rtol=1e-12, atol=atol)
    np.testing.assert_allclose(k.diag(X), np.diag(expected), rtol=1e-12, atol=atol)


# -- unit_rows in place (issue 37: the cosine stage's copy of F) --------------------------------


def _reference_unit_rows(F, full=None):
    """unit_rows as it was before issue 37, verbatim in numpy: a copy of F, the masked
    repeat / fancy-index divisions, 0 where the row's largest |entry| is 0."""
    import scipy.sparse as sp

    F = sp.csr_matrix(F, dtype=np.float64, copy=True)
    F.sum_duplicates()
    G = F if full is None else sp.csr_matrix(full, dtype=np.float64)
    counts_g = np.diff(G.indptr)
    m = np.zeros(G.shape[0])
    n = np.zeros(G.shape[0])
    for i in range(G.shape[0]):
        if counts_g[i]:
            m[i] = np.abs(G.data[G.indptr[i] : G.indptr[i + 1]]).max()
            if m[i] > 0:
                s = G.data[G.indptr[i] : G.indptr[i + 1]] / m[i]
                n[i] = np.sqrt(np.add.reduceat(s * s, [0])[0])
    counts = np.diff(F.indptr)
    keep = np.repeat(m > 0, counts)
    F.data[~keep] = 0.0
    F.data[keep] /= np.repeat(m, counts)[keep]
    F.data[keep] /= np.repeat(n, counts)[keep]
    F.eliminate_zeros()
    return F


def _loop_unit_rows(F):
    """A per-row, per-entry loop in Python floats: (x / m) / n, n the norm of the row over m."""
    out = []
    for i in range(F.shape[0]):
        row = F.data[F.indptr[i] : F.indptr[i + 1]]
        m = float(np.abs(row).max()) if row.size else 0.0
        if m == 0.0:
            continue
        s = row / m
        n = float(np.sqrt(np.add.reduceat(s * s, [0])[0]))
        out += [(i, int(j), float(x) / m / n) for j, x in zip(F.indices[F.indptr[i] : F.indptr[i + 1]], row)]
    return out


def _random_csr(seed, n=40, p=30, scale_exponents=(-150, 0, 150)):
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    F = sp.random(n, p, density=0.3, format="csr", random_state=rng, data_rvs=lambda k: rng.normal(size=k))
    F.data *= 10.0 ** rng.choice(scale_exponents, size=n).repeat(np.diff(F.indptr))
    F = F.tolil()
    F[3, :] = 0.0  # a zero row
    F = sp.csr_matrix(F)
    F.sum_duplicates()
    return F


@pytest.mark.parametrize("seed", range(5))
def test_unit_rows_in_place_is_bit_identical_to_the_copy_and_the_loop(seed):
    from ratkit.automata.kernels._float_range import unit_rows

    F = _random_csr(seed)
    before = F.copy()
    copied = unit_rows(F, "k")
    assert copied is not F
    # copy=True leaves the input as it was, bit for bit
    assert np.array_equal(F.data, before.data) and np.array_equal(F.indices, before.indices)
    assert np.array_equal(F.indptr, before.indptr)
    reference = _reference_unit_rows(before)
    in_place = unit_rows(F, "k", copy=False)
    assert in_place is F  # divided where it was
    for got in (copied, in_place):
        assert np.array_equal(got.indptr, reference.indptr)
        assert np.array_equal(got.indices, reference.indices)
        assert np.array_equal(got.data.view(np.int64), reference.data.view(np.int64))
    loop = [(i, j, x) for i, j, x in _loop_unit_rows(before) if x != 0.0]
    coo = in_place.tocoo()
    assert sorted(zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist())) == sorted(loop)


def test_unit_rows_in_place_with_a_full_matrix_matches_the_reference():
    """transform_features' case: F's rows divided by the norms of other rows (full), and
    rows whose full norm is 0 set to 0."""
    from ratkit.automata.kernels._float_range import unit_rows

    full = _random_csr(11)
    import scipy.sparse as sp

    F = full.copy()
    F.data[::3] *= 0.5  # F's rows differ from full's
    F = F.tolil()
    F[3, 2] = 1.0  # a non-zero entry in a row whose full norm is 0
    F = sp.csr_matrix(F)
    F.sum_duplicates()
    reference = _reference_unit_rows(F, full)
    got = unit_rows(F, "k", full, copy=False)
    assert got is F
    assert np.array_equal(got.indices, reference.indices)
    assert np.array_equal(got.data.view(np.int64), reference.data.view(np.int64))
    assert got[3].nnz == 0


def test_unit_rows_in_place_canonicalises_other_inputs_first():
    """copy=False on a non-canonical or integer matrix works on a canonical float64 copy."""
    import scipy.sparse as sp

    from ratkit.automata.kernels._float_range import unit_rows

    coo = sp.coo_matrix((np.array([1, 2, 2]), (np.array([0, 0, 1]), np.array([1, 1, 0]))), shape=(2, 2))
    F = sp.csr_matrix(coo)
    F.has_canonical_format = False
    got = unit_rows(coo, "k", copy=False)
    assert got.dtype == np.float64 and got.has_canonical_format
    assert np.array_equal(got.toarray(), [[0.0, 1.0], [1.0, 0.0]])
    assert np.array_equal(coo.data, [1, 2, 2])


def test_cosine_leaves_a_user_kernels_feature_matrix_unchanged():
    """A user kernel may return a matrix it keeps: CosineKernel normalises a copy of it."""
    import scipy.sparse as sp

    from ratkit.automata.kernels import Kernel

    kept = sp.csr_matrix(np.array([[3.0, 4.0, 0.0], [0.0, 0.0, 2.0], [1.0, 1.0, 1.0]]))
    original = kept.copy()

    class Stored(Kernel):
        is_pds = True

        def _gram(self, X, Y=None):
            return (kept @ kept.T).toarray()

        def fit_features(self, X, **options):
            return ("columns", kept)

        def transform_features(self, vocabulary, X, **options):
            return kept

    k = cosine(Stored())
    _, F = k.fit_features(["x", "y", "z"])
    G = k.transform_features("columns", ["x", "y", "z"])
    for M in (F, G):
        assert M is not kept
        assert np.allclose(M.toarray(), original.toarray() / np.linalg.norm(original.toarray(), axis=1)[:, None])
    assert np.array_equal(kept.data, original.data) and np.array_equal(kept.indices, original.indices)


def test_cosine_of_a_ratkit_rational_kernel_normalises_in_place(monkeypatch):
    """ngram's feature matrices are fresh: CosineKernel asks unit_rows for no copy."""
    from ratkit.automata.kernels import algebra

    calls = []
    real = algebra.unit_rows

    def spy(*args, **kwargs):
        calls.append(kwargs.get("copy", True))
        return real(*args, **kwargs)

    monkeypatch.setattr(algebra, "unit_rows", spy)
    k = cosine(ngram(2))
    vocabulary, F = k.fit_features(["abab", "bba", ""])
    k.transform_features(vocabulary, ["abc", "b"])
    assert calls == [False, False]
    assert np.allclose(F.toarray() @ F.toarray().T, k.gram(["abab", "bba", ""]))
