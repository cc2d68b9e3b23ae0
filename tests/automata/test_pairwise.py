"""Pairwise kernels (survey §IV-B2): each kind against its formula evaluated pair by pair,
PDS on samples, balance, the published TPPK/MLPK forms, one base Gram over the distinct
elements, the kernel contract, bad input, and pairwise SVMs (RationalSVC and SVC)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from sklearn.svm import SVC

from ratkit.automata import kernels as K
from ratkit.automata.kernels import Kernel, from_spec, to_spec
from ratkit.automata.pairwise import BALANCED, PAIR_KINDS, PairwiseKernel, pairwise
from ratkit.exceptions import ParameterError
from ratkit.learners import RationalSVC
from ratkit.testing import KernelContract

from .kernels.kernel_oracles import ngram_kernel, random_strings


def formula(kind: str, k, p, q) -> float:
    """K(p, q) written from the survey's §IV-B2 (and the Cartesian kernel's definition)."""
    (a, b), (c, d) = p, q
    if kind == "D":
        return k(a, c) + k(b, d)
    if kind == "T":
        return k(a, c) * k(b, d)
    if kind == "DL":
        return 0.5 * (k(a, c) + k(a, d) + k(b, c) + k(b, d))
    if kind == "TL":
        return 0.5 * (k(a, c) * k(b, d) + k(a, d) * k(b, c))
    if kind == "ML":
        return 0.25 * (k(a, c) - k(a, d) - k(b, c) + k(b, d)) ** 2
    if kind == "TM":
        return formula("TL", k, p, q) + formula("ML", k, p, q)
    assert kind == "cartesian"
    return k(a, c) * (b == d) + (a == c) * k(b, d)


def random_pairs(seed: int, n: int, pool: int = 6, alphabet: str = "ab", max_len: int = 4) -> list[tuple[str, str]]:
    """Pairs drawn from a small pool of strings, so that elements repeat (and a pair may be (a, a))."""
    rng = random.Random(seed)
    strings = random_strings(rng, pool, alphabet, max_len, min_len=1)
    return [(rng.choice(strings), rng.choice(strings)) for _ in range(n)]


# -- values --------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", PAIR_KINDS)
def test_gram_equals_the_formula_pair_by_pair(kind):
    base = K.ngram(2)
    k = pairwise(base, kind)
    P, Q = random_pairs(0, 9), random_pairs(1, 7)
    by_value = np.array([[formula(kind, base.value, p, q) for q in Q] for p in P])
    np.testing.assert_allclose(k.gram(P, Q), by_value, rtol=1e-12, atol=1e-12)
    by_value = np.array([[formula(kind, base.value, p, q) for q in P] for p in P])
    np.testing.assert_allclose(k.gram(P), by_value, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(k.diag(P), np.diag(by_value), rtol=1e-12, atol=1e-12)
    assert k.value(P[0], Q[0]) == pytest.approx(formula(kind, base.value, P[0], Q[0]))


@pytest.mark.parametrize("kind", PAIR_KINDS)
def test_values_against_brute_force_ngram_counts(kind):
    """The base kernel itself replaced by the brute-force count oracle: no ratkit code on the right."""
    k = pairwise(K.ngram(2), kind)
    P = random_pairs(2, 8, alphabet="abc", max_len=5)
    expected = np.array([[formula(kind, lambda x, y: ngram_kernel(x, y, 2), p, q) for q in P] for p in P])
    np.testing.assert_allclose(k.gram(P), expected, rtol=1e-12, atol=1e-12)


def test_pairs_of_token_sequences_and_lattices():
    base = K.ngram(1)
    k = pairwise(base, "TL")
    P = [(("a", "b"), ("b",)), (("b",), ["a", "b"])]  # a list of tokens inside a pair is one sequence
    expected = [[formula("TL", base.value, p, q) for q in P] for p in P]
    np.testing.assert_allclose(k.gram(P), expected)
    from ratkit.automata import acceptor

    x = acceptor("ab")
    lattices = [(x, acceptor("b")), (acceptor("b"), x)]
    np.testing.assert_allclose(k.gram(lattices), expected)


def test_cartesian_delta_is_equality_of_elements():
    k = pairwise(K.ngram(1), "cartesian")
    # b ≠ d and a ≠ c: both terms vanish although k(a, c) and k(b, d) are not 0
    assert k(("ab", "a"), ("ba", "ab")) == 0.0
    # b = d: k(a, c) δ(b, d) = k(ab, ba) = 2
    assert k(("ab", "a"), ("ba", "a")) == 2.0
    # a token list is the tuple of its tokens: δ = 1 on both sides, k(ab, ab) + k(x, x) = 2 + 1
    assert k((("a", "b"), ("x",)), (["a", "b"], ["x"])) == 3.0
    # a string and a token tuple are one sequence (issue 35): δ(x, (x,)) = 1, so 2 + 1
    assert k((("a", "b"), "x"), (("a", "b"), ("x",))) == 3.0
    # ... but a multi-character token is one symbol: ("ab",) is not "ab" (δ = 0) and shares
    # no symbol with it (k = 0)
    assert k(("ab", "x"), (("ab",), "x")) == 0.0


# -- properties ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", PAIR_KINDS)
def test_pds_on_random_samples(kind):
    k = pairwise(K.ngram(2), kind)
    assert k.is_pds is True
    for seed in range(4):
        G = k.gram(random_pairs(10 + seed, 25, pool=8, alphabet="abc", max_len=5))
        np.testing.assert_array_equal(G, G.T)
        lam = np.linalg.eigvalsh(G)
        assert lam[0] >= -1e-9 * max(lam[-1], 1.0)


def test_pds_flag_follows_the_base_kernel():
    assert pairwise(K.exp_kernel(K.edit_distance()), "TL").is_pds is None
    assert pairwise(K.ngram(2), "D").is_pds is True


@pytest.mark.parametrize("kind", BALANCED)
def test_balanced_kinds_ignore_the_order_in_a_pair(kind):
    k = pairwise(K.ngram(2), kind)
    P = random_pairs(3, 10, alphabet="abc", max_len=5)
    swapped = [(b, a) for a, b in P]
    G = k.gram(P)
    np.testing.assert_allclose(k.gram(P, swapped), G, rtol=1e-12, atol=1e-12)  # K((a,b),(d,c))
    np.testing.assert_allclose(k.gram(swapped, P), G, rtol=1e-12, atol=1e-12)  # K((b,a),(c,d))
    assert k.balanced


@pytest.mark.parametrize("kind", ["D", "T", "cartesian"])
def test_unbalanced_kinds_see_the_order(kind):
    k = pairwise(K.ngram(1), kind)
    assert not k.balanced
    assert k(("aa", "b"), ("aa", "b")) != k(("aa", "b"), ("b", "aa"))


def test_tppk_and_mlpk_are_twice_tl_and_four_times_ml():
    base = K.ngram(2)
    P = random_pairs(4, 12, alphabet="abc", max_len=5)
    kv = base.value

    def tppk(p, q):  # Ben-Hur & Noble 2005
        (a, b), (c, d) = p, q
        return kv(a, c) * kv(b, d) + kv(a, d) * kv(b, c)

    def mlpk(p, q):  # Vert, Qiu & Noble 2007
        (a, b), (c, d) = p, q
        return (kv(a, c) - kv(a, d) - kv(b, c) + kv(b, d)) ** 2

    T = np.array([[tppk(p, q) for q in P] for p in P])
    M = np.array([[mlpk(p, q) for q in P] for p in P])
    np.testing.assert_allclose(2 * pairwise(base, "TL").gram(P), T, rtol=1e-12)
    np.testing.assert_allclose(4 * pairwise(base, "ML").gram(P), M, rtol=1e-12, atol=1e-12)


# -- one base Gram over the distinct elements ---------------------------------------------------


class Counting(Kernel):
    """The n-gram kernel, recording the arguments of each Gram matrix and value it is asked for."""

    def __init__(self, n: int = 2) -> None:
        self.n = n

    def _log(self) -> list:
        return self.__dict__.setdefault("calls", [])

    def _gram(self, X, Y=None):
        self._log().append(("gram", list(X), None if Y is None else list(Y)))
        return K.ngram(self.n).gram(X, Y)

    def value(self, x, y):
        self._log().append(("value", x, y))
        return K.ngram(self.n).value(x, y)

    def diag(self, X):
        self._log().append(("diag", list(X)))
        return K.ngram(self.n).diag(X)


@pytest.mark.parametrize("kind", PAIR_KINDS)
def test_one_base_gram_over_the_distinct_elements(kind):
    base = Counting(2)
    k = pairwise(base, kind)
    P, Q = random_pairs(5, 30, pool=5), random_pairs(6, 20, pool=5)
    distinct_p = {x for pair in P for x in pair}
    distinct_q = {x for pair in Q for x in pair}
    k.gram(P)
    assert len(base.calls) == 1
    what, X, Y = base.calls[0]
    assert what == "gram" and Y is None and len(X) == len(set(X)) and set(X) == distinct_p
    base.calls.clear()
    k.gram(P, Q)
    assert len(base.calls) == 1
    what, X, Y = base.calls[0]
    assert what == "gram" and set(X) == distinct_p and set(Y) == distinct_q and len(Y) == len(set(Y))
    base.calls.clear()
    k.diag(P)
    assert [c[0] for c in base.calls] == ["gram"] and set(base.calls[0][1]) == distinct_p


# -- the kernel contract -------------------------------------------------------------------------


class PairContract(KernelContract):
    """Pairs of random strings (the empty one included), drawn from a pool so that elements repeat.

    Every check applies to pairs: ``k(p, q)`` takes two 2-tuples, the explicit-feature check
    is skipped (no finite feature map is given: the learners train on kernel rows), and the
    strategies of the base n-gram kernel are compared through ``gram_with``.
    """

    def make_inputs(self, seed: int = 0, n: int = 10):
        rng = random.Random(seed)
        pool = [""] + random_strings(rng, 6, self.alphabet, self.max_length, min_len=1)
        return [(rng.choice(pool), rng.choice(pool)) for _ in range(n)]


class TestPairwiseTL(PairContract):
    def make_kernel(self):
        return pairwise(K.ngram(2), "TL")


class TestPairwiseML(PairContract):
    def make_kernel(self):
        return pairwise(K.ngram(2), "ML")


class TestPairwiseCartesianOfCosine(PairContract):
    def make_kernel(self):
        return pairwise(K.cosine(K.gappy(2, 0.5)), "cartesian")


def test_spec_round_trip_and_repr():
    k = pairwise(K.ngram(3), "TM")
    spec = to_spec(k)
    assert spec == {"family": "pairwise", "kind": "TM", "kernel": {"family": "ngram", "n": 3}}
    again = from_spec(json.loads(json.dumps(spec)))
    assert isinstance(again, PairwiseKernel) and again.kind == "TM" and to_spec(again) == spec
    assert repr(k) == "PairwiseKernel(kernel=NgramKernel(n=3), kind='TM')"


def test_a_spec_must_state_the_kind():
    with pytest.raises(K.SpecError, match="Missing key 'kind'"):
        from_spec({"family": "pairwise", "kernel": {"family": "ngram", "n": 2}})
    with pytest.raises(K.SpecError, match="'kind' parameter of pairwise"):
        from_spec({"family": "pairwise", "kind": "XX", "kernel": {"family": "ngram", "n": 2}})


# -- bad input -----------------------------------------------------------------------------------


def test_unknown_kind_is_refused():
    with pytest.raises(ParameterError, match=r"'kind' parameter of pairwise must be one of 'D', .*Got 'TPPK'"):
        pairwise(K.ngram(2), "TPPK")


def test_a_base_that_is_not_a_kernel_is_refused():
    with pytest.raises(TypeError, match=r"'kernel' parameter of pairwise must be a ratkit kernel.*'ngram'"):
        pairwise("ngram", "TL")


@pytest.mark.parametrize(
    "bad, shown",
    [
        (("ab", "b", "c"), r"X\[1\] must be a pair: a 2-tuple .* tuple of length 3"),
        ("ab", r"X\[1\] must be a pair: a 2-tuple .* str 'ab'"),
        (["ab", "b"], r"X\[1\] must be a pair: a 2-tuple .* list of length 2"),
        (None, r"X\[1\] must be a pair: a 2-tuple .* NoneType None"),
    ],
)
def test_an_item_that_is_not_a_pair_is_named(bad, shown):
    k = pairwise(K.ngram(2), "TL")
    with pytest.raises(ParameterError, match=shown) as info:
        k.gram([("a", "b"), bad])
    assert isinstance(info.value, TypeError)
    with pytest.raises(ParameterError, match=shown.replace("X", "Y")):
        k.gram([("a", "b")], [("a", "b"), bad])


def test_a_tuple_is_one_pair_not_a_collection():
    k = pairwise(K.ngram(2), "TL")
    with pytest.raises(TypeError, match="collection of pairs .* got a tuple, which is one pair"):
        k.gram((("ab", "b"), ("b", "ab")))
    with pytest.raises(TypeError, match=r"The pair q must be a pair: a 2-tuple"):
        k.value(("ab", "b"), ("ab",))
    with pytest.raises(TypeError, match=r"k\(p, q\) needs two pairs"):
        k(("ab", "b"), [("ab", "b")])
    # a list of pairs, an (n, 2) array of strings
    P = [("ab", "b"), ("b", "ab")]
    np.testing.assert_allclose(k(np.array(P, dtype=object)), k(P))
    np.testing.assert_allclose(k(np.array(P)), k(P))


def test_empty_collections_give_empty_matrices():
    k = pairwise(K.ngram(2), "D")
    assert k.gram([], [("a", "b")]).shape == (0, 1)
    assert k.diag([]).shape == (0,)


# -- pairwise SVMs -------------------------------------------------------------------------------


def same_class_pairs(seed: int, n: int) -> tuple[list[tuple[str, str]], np.ndarray]:
    """Pairs of short strings of two classes (rich in 'ab' or in 'cd'); y = +1 for the same class."""
    rng = random.Random(seed)

    def word(c: int) -> str:
        letters = "ab" if c == 0 else "cd"
        return "".join(rng.choice(letters) for _ in range(rng.randint(2, 5))) + rng.choice("abcd")

    P, y = [], []
    for _ in range(n):
        ca, cb = rng.randint(0, 1), rng.randint(0, 1)
        P.append((word(ca), word(cb)))
        y.append(1 if ca == cb else -1)
    return P, np.array(y)


def test_rational_svc_trains_on_pairs_by_kernel_rows():
    P, y = same_class_pairs(0, 40)
    Pt, yt = same_class_pairs(1, 15)
    model = RationalSVC(pairwise(K.ngram(2), "TL"), C=10.0, random_state=0).fit(P, y)
    assert model.representation_ == "rows"
    base = K.ngram(2).value
    gram = np.array([[formula("TL", base, p, q) for q in Pt] for p in P])
    alpha_y = model.alpha_[0] * np.where(y == model.classes_[1], 1.0, -1.0)
    np.testing.assert_allclose(model.decision_function(Pt), alpha_y @ gram + model.intercept_[0], rtol=1e-9, atol=1e-9)
    assert np.mean(model.predict(P) == y) >= 0.9
    assert np.mean(model.predict(Pt) == yt) >= 0.7


def test_sklearn_svc_on_the_precomputed_pairwise_gram():
    P, y = same_class_pairs(2, 40)
    Pt, yt = same_class_pairs(3, 15)
    k = pairwise(K.ngram(2), "TL")
    svc = SVC(kernel="precomputed", C=10.0).fit(k.gram(P), y)
    assert svc.score(k.gram(P), y) >= 0.9
    assert svc.score(k.gram(Pt, P), yt) >= 0.7
    # its decision values are the kernel expansion over its support pairs
    G = k.gram(Pt, [P[i] for i in svc.support_])
    np.testing.assert_allclose(svc.decision_function(k.gram(Pt, P)), G @ svc.dual_coef_[0] + svc.intercept_[0])


def test_a_pairwise_svm_survives_save_and_load(tmp_path):
    from ratkit.learners import load_model

    P, y = same_class_pairs(4, 30)
    Pt, _ = same_class_pairs(5, 10)
    model = RationalSVC(pairwise(K.ngram(2), "DL"), C=1.0, random_state=0).fit(P, y)
    before = model.decision_function(Pt)
    model.save(tmp_path / "model.zip")
    again = load_model(tmp_path / "model.zip")
    assert to_spec(again.kernel_) == to_spec(model.kernel_)
    np.testing.assert_array_equal(again.decision_function(Pt), before)


def test_cartesian_delta_compares_graphs_and_lattices_by_content_not_identity():
    """Regression: δ was identity for Graphs (unhashable) and lattices, so equal elements
    read back from a model file counted as different (review of issue 16)."""
    from ratkit.automata import acceptor
    from ratkit.automata.graphs import Graph
    from ratkit.automata.kernels import random_walk

    a = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=float)
    g1, g1_again, g2 = Graph(a, [1, 2, 1]), Graph(a.copy(), [1, 2, 1]), Graph(a[:2, :2], [1, 2])
    assert g1 == g1_again and hash(g1) == hash(g1_again) and g1 is not g1_again
    base = random_walk(0.1)
    k = pairwise(base, "cartesian")
    expected = base(g1, g1) + base(g2, g2)  # K(a,c)δ(b,d) + δ(a,c)K(b,d) with a = c, b = d
    assert k((g1, g2), (g1_again, g2)) == pytest.approx(expected, rel=1e-12)
    assert k((g1, g2), (g1_again, g2)) == pytest.approx(k((g1, g2), (g1, g2)), rel=1e-12)
    x, x_again = acceptor("ab"), acceptor("ab")
    lat = pairwise(K.ngram(1), "cartesian")
    assert lat((x, "b"), (x_again, "b")) == pytest.approx(lat((x, "b"), (x, "b")))
    assert lat((x, "b"), (x_again, "b")) > 0


# -- one sequence, every spelling (issue 35, class 3) ----------------------------------------


def test_cartesian_delta_sees_a_str_and_its_token_tuple_as_one_sequence():
    """Regression: δ("ab", ("a", "b")) was 0, so K was 2.0 where the definition gives 3.0."""
    k = pairwise(K.ngram(1), "cartesian")
    # by hand from the definition (survey §IV-B2): K((a, b), (c, d)) = k(a, c) δ(b, d) + δ(a, c) k(b, d)
    # with k the unigram count kernel: k(ab, ab) = 1·1 + 1·1 = 2, k(x, x) = 1, δ = 1 twice
    assert k(("ab", "x"), (("a", "b"), "x")) == 3.0
    assert k(("ab", "x"), ("ab", "x")) == 3.0
    assert k.gram([("ab", "x")], [(("a", "b"), "x"), (["a", "b"], ("x",))]).tolist() == [[3.0, 3.0]]


def _spellings():
    from ratkit.automata import acceptor

    return {
        "str": str,
        "tuple": tuple,
        "list": list,
        "array": lambda s: np.array(list(s)),
        "object array": lambda s: np.array(list(s), dtype=object),
        "lattice": acceptor,
    }


def _spelled(pairs, seed):
    """Each element of each pair in a spelling drawn at random (the same sequence each time)."""
    rng = random.Random(seed)
    spellings = list(_spellings().values())
    return [tuple(rng.choice(spellings)(x) for x in pair) for pair in pairs]


def _oracle(kind, P, Q):
    """K by the definition, with the brute-force bigram count kernel and δ = equality of the
    tuples of symbols: no ratkit code."""

    def k(x, y):
        return ngram_kernel(x, y, 2)

    def pair_value(p, q):
        (a, b), (c, d) = p, q
        if kind == "cartesian":
            return k(a, c) * (tuple(b) == tuple(d)) + (tuple(a) == tuple(c)) * k(b, d)
        return formula(kind, k, p, q)

    return np.array([[pair_value(p, q) for q in Q] for p in P])


@pytest.mark.parametrize("spelling", list(_spellings()))
@pytest.mark.parametrize("kind", PAIR_KINDS)
def test_every_kind_gives_one_value_for_every_spelling(kind, spelling):
    k = pairwise(K.ngram(2), kind)
    spell = _spellings()[spelling]
    P, Q = random_pairs(20, 9, alphabet="abc"), random_pairs(21, 7, alphabet="abc")
    expected, expected_square = _oracle(kind, P, Q), _oracle(kind, P, P)
    Ps = [tuple(spell(x) for x in p) for p in P]
    Qs = [tuple(spell(x) for x in q) for q in Q]
    np.testing.assert_allclose(k.gram(Ps, Qs), expected, rtol=1e-12)
    np.testing.assert_allclose(k.gram(Ps, Q), expected, rtol=1e-12)  # one spelling against another
    np.testing.assert_allclose(k.gram(P, Qs), expected, rtol=1e-12)
    np.testing.assert_allclose(k.gram(Ps), expected_square, rtol=1e-12)
    np.testing.assert_allclose(k.diag(Ps), np.diag(expected_square), rtol=1e-12)
    assert k(Ps[0], Q[0]) == pytest.approx(expected[0, 0], rel=1e-12)


@pytest.mark.parametrize("kind", PAIR_KINDS)
def test_mixed_spellings_in_one_collection(kind):
    k = pairwise(K.ngram(2), kind)
    P = random_pairs(22, 12, pool=4, alphabet="abc")
    expected = _oracle(kind, P, P)
    for seed in range(3):
        Ps = _spelled(P, seed)
        np.testing.assert_allclose(k.gram(Ps), expected, rtol=1e-12)
        np.testing.assert_allclose(k.gram(Ps, _spelled(P, seed + 10)), expected, rtol=1e-12)


def test_the_distinct_elements_are_distinct_sequences_not_spellings():
    base = Counting(2)
    k = pairwise(base, "cartesian")
    P = random_pairs(23, 30, pool=5)
    distinct = {x for pair in P for x in pair}
    k.gram(_spelled(P, 0))
    ((what, X, Y),) = base.calls
    assert what == "gram" and Y is None
    assert sorted("".join(x) for x in X) == sorted(distinct)


def test_cartesian_refuses_a_cyclic_lattice_that_delta_cannot_compare():
    from ratkit.automata import acceptor
    from ratkit.exceptions import UnsupportedOperationError

    loop = acceptor("a", weight=0.5).closure()
    with pytest.raises(UnsupportedOperationError, match=r"X\[1\]\[0\] equals another input: it is a cyclic lattice"):
        pairwise(K.ngram(1), "cartesian").gram([("a", "b"), (loop, "b")])
    # the kinds without δ only share base-kernel work between equal elements: they accept it
    base = K.ngram(1)
    P = [("a", "b"), (loop, "b")]
    np.testing.assert_allclose(
        pairwise(base, "TL").gram(P), [[formula("TL", base.value, p, q) for q in P] for p in P], rtol=1e-12
    )


def test_kinds_is_the_deprecated_spelling_of_pair_kinds():
    """``KINDS`` (0.1.0) still imports, with a DeprecationWarning naming PAIR_KINDS."""
    import ratkit.automata.pairwise as module

    with pytest.warns(DeprecationWarning, match="PAIR_KINDS"):
        from ratkit.automata.pairwise import KINDS
    assert KINDS is PAIR_KINDS
    with pytest.warns(DeprecationWarning, match="PAIR_KINDS"):
        assert module.KINDS == ("D", "T", "DL", "TL", "ML", "TM", "cartesian")
    with pytest.raises(AttributeError, match="no attribute 'KIND'"):
        module.KIND  # noqa: B018
