"""The family DPs at scale: the gappy DP in bounded memory, the compiled edit-distance DP.

Oracles: brute-force enumeration of index tuples and of alignments, textbook DPs written
here in plain Python, closed forms, and the transducer paths of the same kernels.
"""

from __future__ import annotations

import functools
import importlib
import itertools
import math
import random
import re
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratkit.automata.kernels import edit_distance, gappy
from ratkit.exceptions import RatkitError
from tests.isolated import run_python

from .kernel_oracles import gappy_features, gappy_kernel

# the module (the package's name `gappy` is the factory function)
gappy_module = importlib.import_module("ratkit.automata.kernels.gappy")
base_module = importlib.import_module("ratkit.automata.kernels.rational")

# -- oracles -------------------------------------------------------------------------


def gappy_pattern_weight(x, z, lam):
    """T(x, z) for one pattern z in O(|x|·|z|): s[k] = Σ over matches of z[:k] ending at or
    before the current position of λ^(span up to here − k)."""
    n = len(z)
    s = [1.0] + [0.0] * n
    total = 0.0
    for c in x:
        if c == z[-1]:
            total += s[n - 1]
        for k in range(n - 1, 0, -1):
            s[k] = lam * s[k] + (s[k - 1] if c == z[k - 1] else 0.0)
    return total


def weighted_levenshtein(x, y, match, sub, ins, dele):
    """The textbook min-plus DP with per-operation costs (deletion reads x, insertion reads y)."""
    prev = [j * ins for j in range(len(y) + 1)]
    for i, a in enumerate(x, 1):
        cur = [i * dele]
        for j, b in enumerate(y, 1):
            cur.append(min(prev[j] + dele, cur[j - 1] + ins, prev[j - 1] + (match if a == b else sub)))
        prev = cur
    return prev[-1]


def alignments(x, y):
    """Every alignment of x and y as its list of operations, enumerated one by one."""
    if not x and not y:
        yield []
        return
    if x:
        for rest in alignments(x[1:], y):
            yield ["del", *rest]
    if y:
        for rest in alignments(x, y[1:]):
            yield ["ins", *rest]
    if x and y:
        op = "match" if x[0] == y[0] else "sub"
        for rest in alignments(x[1:], y[1:]):
            yield [op, *rest]


def alignment_sum_brute(x, y, w):
    return sum(math.prod(w[op] for op in a) for a in alignments(x, y))


# -- gappy: the bounded-memory DP -------------------------------------------------------


@pytest.mark.slow
def test_gappy_long_sequence_over_a_large_alphabet_is_exact_or_refused_never_aborts():
    # issue 14 item 12: the dense (|x|, v^(n-1)) table was refused and ε-removal of Φ_x
    # (≈ 10¹⁰ arcs) aborted the interpreter with std::bad_alloc
    code = """
        import random
        from ratkit.automata.kernels import gappy
        from ratkit.exceptions import RatkitError
        rng = random.Random(12)
        syms = [chr(0x4E00 + i) for i in range(200)]
        x = "".join(rng.choice(syms) for _ in range(100_000))
        try:
            print("value", repr(gappy(3, 0.5)(x, x[:3])))
        except RatkitError as exc:
            print("refused", exc)
    """
    out = run_python(code, timeout=40, memory_mb=3000)
    assert not out.timed_out and out.returncode == 0, (out.returncode, out.stderr[-3000:])
    kind, _, rest = out.stdout.strip().partition(" ")
    if kind == "refused":
        assert re.search(r"[\d,]+ .*limit of [\d,]+", rest), rest
        return
    rng = random.Random(12)
    syms = [chr(0x4E00 + i) for i in range(200)]
    x = "".join(rng.choice(syms) for _ in range(100_000))
    # x[:3] has one 3-subsequence (itself, weight 1), so K(x, x[:3]) = T(x, x[:3])
    assert float(rest) == pytest.approx(gappy_pattern_weight(x, x[:3], 0.5), rel=1e-12)


def test_gappy_beyond_both_limits_raises_a_ratkit_error_naming_the_sizes():
    code = """
        import random
        from ratkit.automata.kernels import gappy
        from ratkit.exceptions import RatkitError
        rng = random.Random(4)
        syms = [chr(0x4E00 + i) for i in range(200)]
        x = "".join(rng.choice(syms) for _ in range(10_000))
        try:
            print("value", gappy(4, 0.5)(x, x[:4]))
        except RatkitError as exc:
            print("refused", exc)
    """
    out = run_python(code, timeout=40, memory_mb=3000)
    assert not out.timed_out and out.returncode == 0, (out.returncode, out.stderr[-3000:])
    assert out.stdout.startswith("refused"), out.stdout
    # 200 distinct symbols: 200⁴ dense entries; Φ_x by ε-removal: m + 3·m(m + 1)/2 arcs, m = 9 997
    assert "1,600,000,000 entries" in out.stdout, out.stdout
    assert f"{9997 + 3 * 9997 * 9998 // 2:,} arcs" in out.stdout, out.stdout
    assert re.search(r"limit of [\d,]+ entries.*limit of [\d,]+ arcs.*smaller patterns", out.stdout), out.stdout


def test_gappy_refuses_a_batch_whose_automata_fallback_is_too_large(monkeypatch):
    # one sequence needs the fallback (its dense table is over the limit), and the fallback
    # would build the feature automaton of every sequence of the batch, the long one too
    monkeypatch.setattr(gappy_module, "_MAX_DENSE", 1000)
    monkeypatch.setattr(base_module, "MAX_PHI_ARCS", 10_000)
    long_x = "ab" * 200  # 8 dense entries for n = 3, but Φ_x has 398 + 398·399 arcs
    many = tuple(f"t{i}" for i in range(12))  # 12³ = 1 728 dense entries > 1 000
    with pytest.raises(RatkitError, match=r"400 symbols.*159,200 arcs.*limit of 10,000 arcs"):
        gappy(3, 0.5).gram([tuple(long_x), many])
    # each one alone is fine: the DP for the first, the (small) automaton for the second
    want = sum(gappy_pattern_weight(long_x, z, 0.5) ** 2 for z in itertools.product("ab", repeat=3))
    assert gappy(3, 0.5)(long_x, long_x) == pytest.approx(want, rel=1e-12)
    assert gappy(3, 0.5)(many, many) == pytest.approx(gappy_kernel(many, many, 3, 0.5), rel=1e-12)


def test_gappy_codes_beyond_int64_refuse_an_oversized_fallback(monkeypatch):
    monkeypatch.setattr(base_module, "MAX_PHI_ARCS", 1000)
    x = tuple(f"t{i}" for i in range(60))  # 60 tokens, n = 12: codes overflow int64
    with pytest.raises(RatkitError, match=r"60 symbols.*limit of 1,000 arcs"):
        gappy(12, 0.5).gram([x])


_texts = st.text(alphabet="abc", max_size=9)


@settings(max_examples=60, deadline=None)
@given(
    xs=st.lists(_texts, min_size=1, max_size=4),
    ys=st.lists(_texts, min_size=1, max_size=3),
    n=st.integers(1, 4),
    lam=st.sampled_from([1.0, 0.5]) | st.floats(0.05, 1.0),
    block=st.sampled_from([1, 2, 5, 1 << 21]),
)
def test_gappy_bounded_dp_equals_brute_force_and_the_transducer_path(xs, ys, n, lam, block):
    want = np.array([[gappy_kernel(x, y, n, lam) for y in ys] for x in xs])
    k = gappy(n, lam)
    with mock.patch.object(gappy_module, "_BLOCK_ENTRIES", block):  # blocks of a few positions
        got = k.gram(xs, ys, strategy="specialized")
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(k.gram(xs, ys, strategy="features"), want, rtol=1e-9, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    fit=st.lists(st.text(alphabet="ab", max_size=8), min_size=1, max_size=3),
    new=st.lists(st.text(alphabet="abcd", max_size=8), min_size=1, max_size=3),
    n=st.integers(1, 3),
    lam=st.sampled_from([1.0, 0.3]),
    block=st.sampled_from([1, 3, 1 << 21]),
)
def test_gappy_symbols_outside_the_vocabulary_are_gaps(fit, new, n, lam, block):
    # c and d are not in the fitted vocabulary (label 0): they decay the span like any symbol
    # and patterns holding them are dropped, which leaves ⟨Φ_new, Φ_fit⟩ = K(new, fit)
    k = gappy(n, lam)
    with mock.patch.object(gappy_module, "_BLOCK_ENTRIES", block):
        fmap, F = k.fit_features(fit, strategy="specialized")
        G = k.transform_features(fmap, new, strategy="specialized")
    want = np.array([[gappy_kernel(a, b, n, lam) for b in fit] for a in new])
    np.testing.assert_allclose((G @ F.T).toarray(), want, rtol=1e-10, atol=1e-12)
    H = k.transform_features(fmap, new, strategy="features")
    np.testing.assert_allclose((H @ F.T).toarray(), want, rtol=1e-9, atol=1e-12)


def test_the_single_pattern_oracle_agrees_with_enumeration():
    for x in ("", "abcab", "aabba", "babab"):
        for n in (1, 2, 3):
            brute = gappy_features(x, n, 0.3)
            for z in itertools.product("ab", repeat=n):
                assert gappy_pattern_weight(x, z, 0.3) == pytest.approx(brute[z], rel=1e-12, abs=0)


def test_gappy_empty_and_short_sequences_have_no_features():
    k = gappy(3, 0.5)
    assert k.gram(["", "ab", "abc"], strategy="specialized").tolist() == [[0, 0, 0], [0, 0, 0], [0, 0, 1]]
    assert gappy(1, 0.5).gram(["", "aab"], strategy="specialized").tolist() == [[0, 0], [0, 5]]


# -- edit distance: the compiled DP ---------------------------------------------------


def test_edit_distance_of_2e4_by_1e3_symbols_takes_seconds_not_minutes():
    # issue 14 item 16: a Python loop per DP column took > 20 s for each of these
    code = """
        import random, time
        from ratkit.automata.kernels import edit_distance
        rng = random.Random(16)
        y = "".join(rng.choice("acgt") for _ in range(1000))
        x = list(y)
        for _ in range(19_000):
            x.insert(rng.randrange(len(x) + 1), rng.choice("acgt"))
        x = "".join(x)
        trop = edit_distance()
        prob = edit_distance("probability", match=1.0, substitution=0.001, insertion=0.018, deletion=1.0)
        trop("ab", "ba"), prob("ab", "ba")  # compile (or load the cache) outside the timing
        t = time.perf_counter(); d = trop(x, y); t_trop = time.perf_counter() - t
        t = time.perf_counter(); p = prob("a" * 20_000, "b" * 1000); t_prob = time.perf_counter() - t
        print(repr(d), repr(p), t_trop, t_prob)
    """
    out = run_python(code, timeout=40)
    assert not out.timed_out and out.returncode == 0, (out.timed_out, out.stderr[-3000:])
    d, p, t_trop, t_prob = map(float, out.stdout.split())
    assert d == 19_000.0  # |x| − |y| deletions are needed, and deleting the inserted symbols is enough
    # a^m against b^k: r substitutions, k − r insertions, m − r deletions, in
    # (m + k − r)! / (r! (k − r)! (m − r)!) orders
    m, k = 20_000, 1000
    logs = [
        math.lgamma(m + k - r + 1)
        - math.lgamma(r + 1)
        - math.lgamma(k - r + 1)
        - math.lgamma(m - r + 1)
        + r * math.log(0.001)
        + (k - r) * math.log(0.018)
        for r in range(k + 1)
    ]
    top = max(logs)
    assert math.log(p) == pytest.approx(top + math.log(sum(math.exp(v - top) for v in logs)), abs=1e-9)
    assert t_trop < 3.0 and t_prob < 3.0, (t_trop, t_prob)


_costs = st.floats(0.0, 3.0).map(lambda v: round(v, 2))


@settings(max_examples=100, deadline=None)
@given(
    xs=st.lists(st.text(alphabet="abc", max_size=7), min_size=1, max_size=4),
    ys=st.lists(st.text(alphabet="abcd", max_size=7), min_size=1, max_size=4),
    match=_costs,
    sub=_costs,
    ins=_costs,
    dele=_costs,
)
def test_edit_distance_tropical_equals_the_textbook_dp(xs, ys, match, sub, ins, dele):
    k = edit_distance(match=match, substitution=sub, insertion=ins, deletion=dele)
    want = np.array([[weighted_levenshtein(x, y, match, sub, ins, dele) for y in ys] for x in xs])
    np.testing.assert_allclose(k.gram(xs, ys, strategy="specialized"), want, rtol=1e-12, atol=1e-12)
    # X against itself: one triangle mirrored when insertion = deletion, every pair otherwise
    want = np.array([[weighted_levenshtein(x, y, match, sub, ins, dele) for y in xs] for x in xs])
    np.testing.assert_allclose(k.gram(xs), want, rtol=1e-12, atol=1e-12)
    sym = edit_distance(match=match, substitution=sub, insertion=ins, deletion=ins)
    want = np.array([[weighted_levenshtein(x, y, match, sub, ins, ins) for y in xs] for x in xs])
    np.testing.assert_allclose(sym.gram(xs), want, rtol=1e-12, atol=1e-12)


_weights = st.floats(0.0, 1.5).map(lambda v: round(v, 2))


@settings(max_examples=100, deadline=None)
@given(
    xs=st.lists(st.text(alphabet="ab", max_size=4), min_size=1, max_size=3),
    ys=st.lists(st.text(alphabet="abc", max_size=4), min_size=1, max_size=3),
    match=_weights,
    sub=_weights,
    ins=_weights,
    dele=_weights,
)
def test_edit_distance_probability_equals_the_sum_over_enumerated_alignments(xs, ys, match, sub, ins, dele):
    w = {"match": match, "sub": sub, "ins": ins, "del": dele}
    k = edit_distance("probability", match=match, substitution=sub, insertion=ins, deletion=dele)
    want = np.array([[alignment_sum_brute(x, y, w) for y in ys] for x in xs])
    np.testing.assert_allclose(k.gram(xs, ys, strategy="specialized"), want, rtol=1e-12, atol=1e-300)


@settings(max_examples=25, deadline=None)
@given(
    xs=st.lists(st.text(alphabet="abc", max_size=5), min_size=1, max_size=3),
    semiring=st.sampled_from(["tropical", "probability"]),
    costs=st.tuples(*[st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0])] * 4),
)
def test_edit_distance_dp_equals_the_transducer_path(xs, semiring, costs):
    match, sub, ins, dele = costs
    k = edit_distance(semiring, match=match, substitution=sub, insertion=ins, deletion=dele)
    ys = [x[::-1] + "a" for x in xs]
    want = k.gram(xs, ys, strategy="composition")  # OpenFst: float32 weights for the tropical semiring
    np.testing.assert_allclose(k.gram(xs, ys, strategy="specialized"), want, rtol=1e-5, atol=1e-6)
    # and both against the definition (audit: the two paths alone pass with ins and del swapped)
    if semiring == "tropical":
        oracle = [[weighted_levenshtein(x, y, match, sub, ins, dele) for y in ys] for x in xs]
    else:
        w = {"match": match, "sub": sub, "ins": ins, "del": dele}
        oracle = [[alignment_sum_brute(x, y, w) for y in ys] for x in xs]
    np.testing.assert_allclose(want, oracle, rtol=1e-5, atol=1e-6)


def test_edit_distance_on_token_sequences_and_empty_inputs():
    k = edit_distance(insertion=2.0, deletion=0.5)
    X = [(), ("the", "cat"), ("a", "cat", "sat")]
    want = [[weighted_levenshtein(x, y, 0.0, 1.0, 2.0, 0.5) for y in X] for x in X]
    assert k.gram(X).tolist() == want
    oracle = functools.partial(alignment_sum_brute, w={"match": 1.0, "sub": 0.1, "ins": 0.1, "del": 0.1})
    p = edit_distance("probability")
    np.testing.assert_allclose(p.gram(X), [[oracle(x, y) for y in X] for x in X], rtol=1e-12)
    assert list(itertools.islice(alignments("", ""), 2)) == [[]]


def test_explicit_automata_strategies_refuse_oversized_machines_instead_of_aborting():
    """strategy="features" ε-removes Φ_x and strategy="composition" builds X ∘ S ∘ Y whatever the
    sizes; both aborted the interpreter (std::bad_alloc) on these inputs before they were sized."""
    code = """
        import random
        from ratkit.automata.kernels import edit_distance, gappy
        from ratkit.exceptions import ResourceLimitError
        rng = random.Random(3)
        x = "".join(rng.choice("abcdefghij") for _ in range(10_000))
        for k, kw, y in ((gappy(3, 0.5), {"strategy": "features"}, x[:3]),
                         (gappy(3, 0.5), {"strategy": "intersection"}, x[:3]),
                         (edit_distance(), {"strategy": "composition"}, x[:1000] * 2)):
            try:
                k.gram([x * 2], [y], **kw)
                print("computed")
            except ResourceLimitError as exc:
                print("refused:", exc)
    """
    out = run_python(code, timeout=60, memory_mb=3000)
    assert not out.timed_out and out.returncode == 0, (out.returncode, out.stderr[-2000:])
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 3 and all(line.startswith("refused:") for line in lines), out.stdout
    assert "sequence of 20,000 symbols" in lines[0] and "limit of 5,000,000 arcs" in lines[0]
    assert "these 2 sequences" in lines[1]
    assert "X ∘ S ∘ Y of about 40,022,001 states" in lines[2] and "limit of 5,000,000" in lines[2]
