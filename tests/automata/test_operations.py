"""Rational operations, composition, inverse and projections against their definitions (§II)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ratkit.automata import (
    Alphabet,
    acceptor,
    closure,
    complement,
    compose,
    concat,
    determinize,
    difference,
    evaluate,
    from_arcs,
    intersect,
    invert,
    minimize,
    project,
    rmepsilon,
    to_att,
    union,
)
from ratkit.exceptions import NotRegulatedError, OperationError

from .oracle import ARITH, close, random_arcs, relation, strings

SEMIRINGS = ["probability", "tropical", "log", "boolean"]
SEEDS = range(12)
AB = Alphabet("ab")  # declared, so every string over {a, b} can be evaluated


def _build(rng, semiring, **kw):
    arcs, start, finals = random_arcs(rng, semiring, **kw)
    return from_arcs(arcs, start, finals, semiring, AB), relation(arcs, start, finals, semiring)


def _value(rel, x, y, semiring):
    return rel.get((x, y), ARITH[semiring][2])


def _assert_matches(t, oracle, semiring, max_len=3, support=()):
    """⟦t⟧(x, y) equals the oracle on all string pairs up to max_len and on ``support``."""
    pairs = {(x, y) for x in strings(max_len=max_len) for y in strings(max_len=max_len)}
    pairs |= set(support) | (set(oracle) if isinstance(oracle, dict) else set())
    for x, y in sorted(pairs):
        got = evaluate(t, x, y)
        want = oracle(x, y) if callable(oracle) else _value(oracle, x, y, semiring)
        assert close(got, want, semiring), (x, y, got, want)


@pytest.mark.parametrize("semiring", SEMIRINGS)
@pytest.mark.parametrize("seed", SEEDS)
def test_evaluate_equals_path_enumeration(semiring, seed):
    t, rel = _build(random.Random(seed), semiring)
    _assert_matches(t, rel, semiring)


@pytest.mark.parametrize("semiring", SEMIRINGS)
@pytest.mark.parametrize("seed", SEEDS)
def test_composition_is_eq1(semiring, seed):
    rng = random.Random(1000 + seed)
    (t1, r1), (t2, r2) = _build(rng, semiring), _build(rng, semiring)
    plus, times, zero, _ = ARITH[semiring]

    def eq1(x, y):  # ⊕_z T1(x, z) ⊗ T2(z, y); z ranges over T1's outputs (finite support)
        acc = zero
        for (x1, z), w1 in r1.items():
            if x1 == x:
                acc = plus(acc, times(w1, _value(r2, z, y, semiring)))
        return acc

    support = {(x, y) for (x, _) in r1 for (_, y) in r2}
    _assert_matches(compose(t1, t2), eq1, semiring, support=support)


@pytest.mark.parametrize("semiring", SEMIRINGS)
@pytest.mark.parametrize("seed", SEEDS)
def test_union_concat_inverse(semiring, seed):
    rng = random.Random(2000 + seed)
    (t1, r1), (t2, r2) = _build(rng, semiring), _build(rng, semiring)
    plus, times, zero, _ = ARITH[semiring]
    _assert_matches(
        union(t1, t2),
        lambda x, y: plus(_value(r1, x, y, semiring), _value(r2, x, y, semiring)),
        semiring,
        support=set(r1) | set(r2),
    )

    def split(x, y):  # ⊕ over x = x1x2, y = y1y2 of T1(x1, y1) ⊗ T2(x2, y2)
        acc = zero
        for i in range(len(x) + 1):
            for j in range(len(y) + 1):
                acc = plus(acc, times(_value(r1, x[:i], y[:j], semiring), _value(r2, x[i:], y[j:], semiring)))
        return acc

    support = {(x1 + x2, y1 + y2) for (x1, y1) in r1 for (x2, y2) in r2}
    _assert_matches(concat(t1, t2), split, semiring, support=support)
    _assert_matches(invert(t1), lambda x, y: _value(r1, y, x, semiring), semiring, support={(y, x) for x, y in r1})


@pytest.mark.parametrize("semiring", SEMIRINGS)
@pytest.mark.parametrize("seed", SEEDS)
def test_projections(semiring, seed):
    t, rel = _build(random.Random(3000 + seed), semiring)
    plus, _, zero, _ = ARITH[semiring]
    for side, key in (("input", 0), ("output", 1)):
        p = project(t, side)
        assert p.is_acceptor
        for s in set(strings()) | {k[key] for k in rel}:
            want = zero
            for k, w in rel.items():
                if k[key] == s:
                    want = plus(want, w)
            assert close(evaluate(p, s), want, semiring), (side, s)


@pytest.mark.parametrize("semiring", SEMIRINGS)
@pytest.mark.parametrize("seed", SEEDS)
def test_closure_is_sum_of_powers(semiring, seed):
    rng = random.Random(4000 + seed)
    arcs, start, finals = random_arcs(rng, semiring)
    rel = relation(arcs, start, finals, semiring)
    plus, times, zero, one = ARITH[semiring]
    if rel.get(("", ""), zero) != zero:  # T* is then not regulated; tested separately
        with pytest.raises(NotRegulatedError):
            closure(from_arcs(arcs, start, finals, semiring, AB))
        return
    memo: dict = {}

    def star(x, y):  # T*(x, y) = [x = y = ε] ⊕ ⊕_{(x1, y1) ≠ (ε, ε)} T(x1, y1) ⊗ T*(x2, y2)
        if (x, y) not in memo:
            acc = one if (x, y) == ("", "") else zero
            for i in range(len(x) + 1):
                for j in range(len(y) + 1):
                    if i or j:
                        acc = plus(acc, times(_value(rel, x[:i], y[:j], semiring), star(x[i:], y[j:])))
            memo[(x, y)] = acc
        return memo[(x, y)]

    _assert_matches(closure(from_arcs(arcs, start, finals, semiring, AB)), star, semiring, max_len=3)


@pytest.mark.parametrize("semiring", SEMIRINGS)
@pytest.mark.parametrize("seed", SEEDS)
def test_intersection_multiplies_acceptors(semiring, seed):
    rng = random.Random(5000 + seed)
    a1, s1, f1 = random_arcs(rng, semiring, acceptor=True)
    a2, s2, f2 = random_arcs(rng, semiring, acceptor=True)
    r1, r2 = relation(a1, s1, f1, semiring), relation(a2, s2, f2, semiring)
    _, times, zero, _ = ARITH[semiring]
    inter = intersect(from_arcs(a1, s1, f1, semiring, AB), from_arcs(a2, s2, f2, semiring, AB))
    for x in strings(max_len=4):
        want = times(_value(r1, x, x, semiring), _value(r2, x, x, semiring))
        assert close(evaluate(inter, x), want, semiring), x


@pytest.mark.parametrize("semiring", SEMIRINGS)
@pytest.mark.parametrize("seed", SEEDS)
def test_optimisations_preserve_the_weighted_language(semiring, seed):
    rng = random.Random(6000 + seed)
    arcs, start, finals = random_arcs(rng, semiring, acceptor=True)
    rel = relation(arcs, start, finals, semiring)
    a = from_arcs(arcs, start, finals, semiring, AB)
    d, m, r = determinize(a), minimize(a), rmepsilon(a)
    assert m.num_states <= d.num_states
    for x in strings(max_len=4):
        want = _value(rel, x, x, semiring)
        for t in (d, m, r):
            assert close(evaluate(t, x), want, semiring), x


def test_operations_never_mutate_their_inputs():
    rng = random.Random(7)
    t1, _ = _build(rng, "probability")
    t2, _ = _build(rng, "probability")
    before = (to_att(t1), to_att(t2))
    for op in (union, concat, compose):
        op(t1, t2)
    for op in (invert, closure, rmepsilon, lambda t: project(t, "input")):
        try:
            op(t1)
        except NotRegulatedError:
            pass
    assert (to_att(t1), to_att(t2)) == before


def test_strings_are_coerced_to_acceptors():
    t = from_arcs([(0, "a", "x", 0.5, 1), (1, "b", "y", 0.5, 1)], 0, {1: 1.0})
    assert evaluate(compose("abb", t), "abb", "xyy") == pytest.approx(0.125)
    assert evaluate(union("ab", "ab"), "ab") == pytest.approx(2.0)
    assert evaluate(t @ invert(t), "ab", "ab") == pytest.approx(0.0625)
    assert evaluate(t | t, "a", "x") == pytest.approx(1.0)
    assert evaluate(acceptor("a") + acceptor("b"), "ab") == pytest.approx(1.0)


def test_empty_composition_is_zero_not_an_error():
    t = compose(acceptor("ab"), acceptor("ba"))
    assert evaluate(t, "ab") == 0.0


def test_intersect_refuses_transducers():
    t = from_arcs([(0, "a", "b", 1.0, 1)], 0, {1: 1.0})
    with pytest.raises(OperationError, match="intersect needs two acceptors.*compose"):
        intersect(t, acceptor("a"))


def test_project_rejects_unknown_side():
    with pytest.raises(ValueError, match="'side' parameter of project must be 'input' or 'output'. Got 'left'"):
        project(acceptor("a"), "left")


def test_determinize_non_functional_transducer_raises():
    t = from_arcs([(0, "a", "b", 1.0, 1), (0, "a", "c", 1.0, 1)], 0, {1: 1.0})
    with pytest.raises(OperationError, match="determinize failed in OpenFst"):
        determinize(t)


@pytest.mark.parametrize("semiring", SEMIRINGS)
@pytest.mark.parametrize("seed", SEEDS)
def test_difference_and_complement(semiring, seed):
    rng = random.Random(8000 + seed)
    a1, s1, f1 = random_arcs(rng, semiring, acceptor=True)
    a2, s2, f2 = random_arcs(rng, semiring, acceptor=True)
    r1, r2 = relation(a1, s1, f1, semiring), relation(a2, s2, f2, semiring)
    _, _, zero, one = ARITH[semiring]
    t1, t2 = from_arcs(a1, s1, f1, semiring, AB), from_arcs(a2, s2, f2, semiring, AB)
    diff, comp = difference(t1, t2), complement(t2)
    for x in strings(max_len=4):
        in_b = _value(r2, x, x, semiring) != zero
        assert close(evaluate(diff, x), zero if in_b else _value(r1, x, x, semiring), semiring), x
        assert close(evaluate(comp, x), zero if in_b else one, semiring), x


def test_difference_refuses_transducers():
    t = from_arcs([(0, "a", "b", 1.0, 1)], 0, {1: 1.0})
    with pytest.raises(OperationError, match="difference needs acceptors"):
        difference(t, acceptor("a"))


def test_pynini_operand_sets_the_semiring_of_string_operands():
    import pynini

    from ratkit.automata import TROPICAL, shortest_distance

    for t in (compose(pynini.accep("ab"), "ab"), compose("ab", pynini.accep("ab"))):
        assert t.semiring is TROPICAL
        assert shortest_distance(t) == 0.0  # one path of weight 1̄ = 0 in the tropical semiring


def test_epsilon_removal_keeps_many_tiny_epsilon_paths():
    """ε-removal with OpenFst's delta = 1e-12 dropped every ε-path below it: 1 + 10⁴·1e-13
    came out as 1.0. The oracle is the sum itself (one path of 1, 10⁴ paths of 1e-13)."""
    from ratkit.automata import determinize, from_arcs, rmepsilon, shortest_distance

    n = 10_000
    arcs = [(0, "", "", 1.0, 1)] + [(0, "", "", 1e-13, i + 3) for i in range(n)]
    arcs += [(i + 3, "", "", 1.0, 1) for i in range(n)] + [(1, "a", "a", 1.0, 2)]
    t = from_arcs(arcs, 0, {2: 1.0})
    want = 1.0 + n * 1e-13
    assert shortest_distance(t) == pytest.approx(want, rel=1e-15)
    assert shortest_distance(rmepsilon(t)) == pytest.approx(want, rel=1e-15)
    assert shortest_distance(determinize(t)) == pytest.approx(want, rel=1e-15)


def test_tropical_products_past_float32_raise_instead_of_losing_the_path():
    """Regression (audit): compose, intersect and rmepsilon add float32 costs; a sum past 3.4028235e38
    rounded to +∞ = 0̄, which OpenFst dropped, so a(3e38) ∩ a(3e38) read as "no path" instead of
    the documented WeightOverflowError. Large costs that never meet on one path still compose,
    to the float32 sums (oracle: numpy float32 arithmetic)."""
    from ratkit.automata import TROPICAL, acceptor, compose, evaluate, from_arcs, intersect
    from ratkit.exceptions import WeightOverflowError

    big = acceptor("a", TROPICAL, weight=3e38)
    for op in (intersect, compose):
        with pytest.raises(WeightOverflowError, match=rf"{op.__name__}: .*beyond ±3\.4028235e38"):
            op(big, big)
    half = acceptor("a", TROPICAL, weight=1.5e38)
    assert evaluate(compose(half, half), "a") == float(np.float32(1.5e38) + np.float32(1.5e38))
    t = from_arcs([(0, "a", 3e38, 1), (0, "b", 1.0, 1)], 0, {1: 0.0}, semiring=TROPICAL)
    u = from_arcs([(0, "b", 3e38, 1), (0, "a", 2.0, 1)], 0, {1: 0.0}, semiring=TROPICAL)
    both = intersect(t, u)
    assert evaluate(both, "a") == float(np.float32(3e38) + np.float32(2.0))
    assert evaluate(both, "b") == float(np.float32(1.0) + np.float32(3e38))
    # ε-removal sums the costs along ε-paths: the same refusal, the same float32 sums
    chain = from_arcs([(0, "", 3e38, 1), (1, "a", 3e38, 2)], 0, {2: 0.0}, semiring=TROPICAL)
    with pytest.raises(WeightOverflowError, match=r"rmepsilon: .*beyond ±3\.4028235e38"):
        rmepsilon(chain)
    fits = from_arcs([(0, "", 2e38, 1), (1, "a", 1e38, 2)], 0, {2: 0.0}, semiring=TROPICAL)
    assert evaluate(rmepsilon(fits), "a") == float(np.float32(np.float32(2e38) + np.float32(1e38)))


def test_difference_keeps_the_mass_of_small_epsilon_paths():
    """Regression (audit): difference removed A's ε-arcs with OpenFst's default delta, which drops
    an ε-path below ~1e-6 of the running sum: 2000 ε-paths of 5e-7 beside one of 1 gave 1.0.
    Oracle: B(a) = 0̄, so (A − B)(a) = A(a) = 1 + 2000 · 5e-7."""
    arcs = [(0, "", 1.0, 1)] + [(0, "", 5e-7, 1)] * 2000 + [(1, "a", 1.0, 2)]
    A = from_arcs(arcs, 0, {2: 1.0})
    assert evaluate(difference(A, acceptor("b")), "a") == pytest.approx(1.001, rel=1e-12)


@pytest.mark.parametrize(
    "arcs, finals",
    [
        (
            [
                (1, "b", 0.25, 0),
                (0, "a", 0.1, 0),
                (0, "b", 0.1, 0),
                (0, "b", 0.25, 1),
                (0, "", 0.5, 1),
                (1, "a", 0.5, 1),
            ],
            {1: 0.5},
        ),
        ([(0, "a", 1.0, 0), (0, "", 1.0, 1), (1, "a", 1.0, 1)], {1: 1.0}),
        ([(0, "a", 1.0, 0), (0, "b", 1.0, 0), (0, "b", 1.0, 1), (1, "b", 1.0, 0)], {1: 1.0}),
    ],
    ids=["54 s before", "a* ε a*", "non-empty complement"],
)
def test_complement_of_an_ambiguous_weighted_acceptor_is_prompt(arcs, finals):
    """Regression (audit): the support of B was determinised in B's log semiring, where unit
    weights count paths and the residuals converge only through OpenFst's delta: 54 s for the
    first B, 10–90 s for the second. Oracle: C(x) = 1 exactly where B(x) = 0̄, by evaluate on B
    itself, for every string up to length 6."""
    import itertools
    import time

    B = from_arcs(arcs, 0, finals, alphabet=Alphabet("ab"))
    start = time.perf_counter()
    C = complement(B, "ab")
    assert time.perf_counter() - start < 10
    for n in range(7):
        for x in map("".join, itertools.product("ab", repeat=n)):
            assert evaluate(C, x) == (1.0 if evaluate(B, x) == 0 else 0.0), x


@pytest.mark.parametrize("semiring", ["probability", "log"])
def test_minimize_of_a_divergent_cyclic_machine_raises_instead_of_running_for_ever(semiring):
    """Regression (audit): OpenFst's weight pushing in minimize never returned on a deterministic
    machine whose total diverges (each string has a finite weight, Σ over strings does not),
    while shortest_distance raised at once. Oracle: Σ_k (0.8 + 0.5)ᵏ diverges (probability), and
    Σ_k (e^-0.8 + e^-0.5)ᵏ with ratio 1.056 (log)."""
    from ratkit.exceptions import DivergentSumError

    t = from_arcs([(0, "b", 0.8, 0), (0, "a", 0.5, 0)], 0, {0: 0.5}, semiring=semiring)
    with pytest.raises(DivergentSumError, match="^minimize: the suffix sums of this machine diverge"):
        minimize(t)
    fine = minimize(from_arcs([(0, "b", 0.3, 0), (0, "a", 0.5, 0)], 0, {0: 0.5}))
    assert evaluate(fine, "ab") == pytest.approx(0.5 * 0.3 * 0.5, rel=1e-12)
    unit = minimize(closure(acceptor("ab")))  # cycles of probability exactly 1: OpenFst copes, as before
    assert [evaluate(unit, "ab" * k) for k in range(4)] == [1.0, 1.0, 1.0, 1.0] and evaluate(unit, "a") == 0.0


def test_minimize_of_a_transducer_with_delayed_output_says_why_it_cannot():
    """Reported by an audit: OpenFst's bare "Operation failed" for a functional transducer
    whose determinisation reads nothing on some arc; determinize of it stays correct."""
    arcs = [(0, "a", "", 0.5, 1), (1, "b", "x", 1.0, 2), (2, "", "y", 1.0, 3)]
    F = from_arcs([*arcs, (0, "a", "x", 0.25, 4), (4, "b", "y", 1.0, 3)], 0, {3: 1.0})
    with pytest.raises(OperationError, match=r"minimize: the determinised transducer is not deterministic"):
        minimize(F)
    assert evaluate(determinize(F), "ab", "xy") == pytest.approx(0.75, rel=1e-12)
