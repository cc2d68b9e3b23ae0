"""Generalized shortest distance (eq. (16)) against enumeration, linear algebra and graph search."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph

from ratkit.automata import Alphabet, closure, evaluate, from_arcs, shortest_distance
from ratkit.exceptions import DivergentSumError, NotRegulatedError

from .oracle import ARITH, close, random_arcs, relation


@pytest.mark.parametrize("semiring", ["probability", "tropical", "log", "boolean"])
@pytest.mark.parametrize("seed", range(15))
def test_acyclic_total_weight_is_the_sum_over_paths(semiring, seed):
    arcs, start, finals = random_arcs(random.Random(seed), semiring, n_states=6)
    plus, _, zero, _ = ARITH[semiring]
    want = zero
    for w in relation(arcs, start, finals, semiring).values():
        want = plus(want, w)
    got = shortest_distance(from_arcs(arcs, start, finals, semiring))
    assert close(got, want, semiring)


def _random_cyclic(rng, n):
    """A random strongly-connected-ish probability automaton whose rows sum to < 1."""
    arcs = []
    for q in range(n):
        targets = rng.sample(range(n), k=min(n, 3))
        ws = np.array([rng.random() for _ in targets])
        ws = ws / ws.sum() * rng.uniform(0.3, 0.9)
        arcs += [(q, rng.choice("ab"), float(w), t) for w, t in zip(ws, targets)]
    finals = {q: rng.uniform(0.1, 1.0) for q in range(n) if rng.random() < 0.5} or {n - 1: 1.0}
    return arcs, finals


@pytest.mark.parametrize("seed", range(10))
def test_cyclic_probability_sum_equals_the_linear_system(seed):
    rng = random.Random(seed)
    n = 6
    arcs, finals = _random_cyclic(rng, n)
    M = np.zeros((n, n))
    for q, _, w, t in arcs:
        M[q, t] += w
    f = np.array([finals.get(q, 0.0) for q in range(n)])
    want = np.linalg.solve(np.eye(n) - M, f)[0]  # d = (I − M)⁻¹ f = Σ_k Mᵏ f
    got = shortest_distance(from_arcs(arcs, 0, finals, "probability"))
    assert got == pytest.approx(want, rel=1e-9)
    log_got = shortest_distance(
        from_arcs(
            [(q, lab, -math.log(w), t) for q, lab, w, t in arcs], 0, {q: -math.log(w) for q, w in finals.items()}, "log"
        )
    )
    assert log_got == pytest.approx(-math.log(want), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("seed", range(10))
def test_cyclic_tropical_distance_equals_dijkstra(seed):
    rng = random.Random(seed)
    n = 7
    arcs = [(q, rng.choice("ab"), rng.uniform(0, 5), rng.randrange(n)) for q in range(n) for _ in range(3)]
    finals = {n - 1: 0.0, n - 2: 1.5}
    G = np.full((n, n), np.inf)
    for q, _, w, t in arcs:
        G[q, t] = min(G[q, t], w)
    dist = csgraph.dijkstra(np.where(np.isinf(G), 0, G), directed=True, indices=0)
    want = min(dist[q] + w for q, w in finals.items())
    assert shortest_distance(from_arcs(arcs, 0, finals, "tropical")) == pytest.approx(want, rel=1e-6)


def test_geometric_series_closure():
    a = from_arcs([(0, "a", 0.5, 1)], 0, {1: 1.0})
    assert shortest_distance(closure(a)) == pytest.approx(2.0, rel=1e-9)  # Σ 0.5ⁿ, summed to convergence
    assert evaluate(closure(a), "aaa") == pytest.approx(0.125)


def test_no_accepting_path_is_zero():
    t = from_arcs([(0, "a", "b", 0.5, 1)], 0, {2: 1.0})
    assert shortest_distance(t) == 0.0
    assert shortest_distance(from_arcs([(0, "a", 3.0, 1)], 0, {}, "tropical")) == math.inf
    assert shortest_distance(from_arcs([(0, "a", True, 1)], 0, {0: False}, "boolean")) is False


def test_divergent_probability_cycle_raises():
    t = from_arcs([(0, "a", 1.0, 0)], 0, {0: 1.0})  # Σ 1ⁿ = ∞
    with pytest.raises(DivergentSumError, match="cycle whose total probability is ≥ 1"):
        shortest_distance(t)
    # ... but evaluating a single string is finite
    assert evaluate(t, "aaa") == 1.0


def test_negative_tropical_cycle_raises():
    t = from_arcs([(0, "a", -1.0, 1), (1, "b", 0.5, 0)], 0, {1: 0.0}, "tropical")
    with pytest.raises(DivergentSumError, match="negative total cost"):
        shortest_distance(t)


def test_epsilon_cycle_is_refused_naming_a_state():
    arcs = [(0, "a", "b", 1.0, 1), (1, "", "", 0.5, 2), (2, "", "", 0.5, 1), (2, "b", "a", 1.0, 3)]
    with pytest.raises(
        NotRegulatedError, match=r"not regulated: state [12] lies on a cycle whose arcs are all labelled ε"
    ):
        from_arcs(arcs, 0, {3: 1.0})


def test_epsilon_cycle_created_by_closure_is_refused():
    t = from_arcs([(0, "", "", 0.5, 1)], 0, {1: 1.0})  # accepts (ε, ε)
    with pytest.raises(NotRegulatedError, match="closure: .*not regulated: state \\d+"):
        closure(t)


def test_epsilon_loop_off_the_useful_part_is_harmless():
    # state 5 has an ε:ε self-loop but cannot reach a final state
    t = from_arcs([(0, "a", 1.0, 1), (0, "b", 1.0, 5), (5, "", 1.0, 5)], 0, {1: 1.0})
    assert shortest_distance(t) == 1.0


def test_long_string_keeps_precision():
    # 10 000 arcs of probability 0.999: the total is 0.999^10000 ≈ 4.5e-5, exactly representable
    n = 10_000
    t = from_arcs([(i, "a", 0.999, i + 1) for i in range(n)], 0, {n: 1.0}, alphabet=Alphabet("a"))
    assert shortest_distance(t) == pytest.approx(0.999**n, rel=1e-9)


def test_unreachable_unit_loop_does_not_stall_the_sum():
    # state 2 (not reachable from the start) loops with probability 1 and leads to the
    # final state: its infinite sum is off every accepting path, so it must not matter
    t = from_arcs([(0, "a", "a", 0.5, 1), (2, "a", "a", 1.0, 2), (2, "b", "b", 0.5, 1)], 0, {1: 1.0})
    assert shortest_distance(t) == pytest.approx(0.5, rel=1e-12)
