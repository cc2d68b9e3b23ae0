"""Generalized shortest distance (eq. (16)) against enumeration, linear algebra and graph search."""

from __future__ import annotations

import math
import random
import tempfile
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from hypothesis import given, settings
from hypothesis import strategies as st

from ratkit.automata import Alphabet, acceptor, closure, compose, evaluate, from_arcs, kernels, shortest_distance
from ratkit.exceptions import DivergentSumError, NotRegulatedError, WeightOverflowError
from tests.isolated import run_python

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


# -- precision: path sums are exact to float64 round-off (issue 14, items 3 and 14) --------


def _stored_loop_total(t):
    """Σ_k e^{−kw} = 1/(1 − e^{−w}) for the one-state loop machine t, from its stored log weight w."""
    (w,) = t.arrays().weight
    return -1.0 / math.expm1(-w)


@pytest.mark.parametrize("p", [0.9, 0.999, 0.99999, 0.999999])
def test_slow_loop_sums_to_the_geometric_series(p):
    """Σ_k pᵏ = 1/(1 − p): 999 999.999 97… for p = 0.999999 (the push gave 999 998.999)."""
    t = from_arcs([(0, "a", p, 0)], 0, {0: 1.0})
    got = shortest_distance(t)
    assert got == pytest.approx(1 / (1 - p), rel=1e-9)
    assert got == pytest.approx(_stored_loop_total(t), rel=1e-13, abs=0)  # the exact sum of the machine as stored
    log_t = from_arcs([(0, "a", -math.log(p), 0)], 0, {0: 0.0}, "log")
    assert shortest_distance(log_t) == pytest.approx(-math.log(_stored_loop_total(log_t)), rel=1e-13, abs=1e-13)


def _rational_solve(M, f):
    """d = (I − M)⁻¹ f in exact rational arithmetic (Gauss–Jordan on Fractions)."""
    n = len(f)
    A = [[Fraction(int(i == j)) - M[i][j] for j in range(n)] + [f[i]] for i in range(n)]
    for c in range(n):
        piv = next(r for r in range(c, n) if A[r][c] != 0)
        A[c], A[piv] = A[piv], A[c]
        for r in range(n):
            if r != c and A[r][c] != 0:
                k = A[r][c] / A[c][c]
                A[r] = [x - k * y for x, y in zip(A[r], A[c])]
    return [A[i][n] / A[i][i] for i in range(n)]


def _rational_total(t):
    """The path sum of a probability machine from its stored weights e^{−w}, in exact rationals."""
    a = t.arrays()
    n = a.n_states
    M = [[Fraction(0)] * n for _ in range(n)]
    for s, w, d in zip(a.src, a.weight, a.dst):
        M[s][d] += Fraction(math.exp(-w))
    f = [Fraction(0) if math.isinf(w) else Fraction(math.exp(-w)) for w in a.final]
    return float(_rational_solve(M, f)[a.start])


@pytest.mark.parametrize("loss", [1e-2, 1e-4, 1e-6])
@pytest.mark.parametrize("shape", ["ring", "two_loops", "dense"])
def test_slow_cycles_against_exact_rationals(shape, loss):
    """Cycles of total probability 1 − loss in several shapes; the oracle solves (I − M) d = f
    over ℚ from the stored weights, so only the solver's round-off is measured. Its bound is
    the condition number (≈ 1/loss) times float64's ε: the test allows 50 ε/loss."""
    rng = random.Random(7)
    if shape == "ring":  # 0 → 1 → 2 → 0, product 1 − loss
        p = (1 - loss) ** (1 / 3)
        arcs, finals = [(0, "a", p, 1), (1, "b", p, 2), (2, "a", p, 0)], {1: 0.5}
    elif shape == "two_loops":  # nested: a self-loop inside a 2-cycle
        arcs = [(0, "a", 0.5, 0), (0, "b", 0.5 * (1 - loss), 1), (1, "a", 1.0, 0)]
        finals = {1: loss}
    else:  # every state to every state, rows scaled to sum to 1 − loss, some weight leaking to finals
        n = 4
        arcs = []
        for q in range(n):
            ws = np.array([rng.random() for _ in range(n)])
            arcs += [(q, "a", float(w), r) for r, w in enumerate(ws / ws.sum() * (1 - loss))]
        finals = {q: 1.0 for q in range(n)}
    t = from_arcs(arcs, 0, finals)
    want = _rational_total(t)
    assert shortest_distance(t) == pytest.approx(want, rel=50 * np.finfo(float).eps / loss)


# Gram entries by intersection go through Φ = Π2(X ∘ T) (kernels/base.py::_phi_fst); its
# ε-removal with delta=1e-12 summed Φ's ε-cycles by OpenFst's shortest distance and stopped
# early (off by 4e-7): a cyclic lattice's Φ now keeps its ε-arcs, summed exactly.
_LATTICE_STRATEGIES = ["composition", "intersection", "auto"]


@pytest.mark.parametrize("strategy", _LATTICE_STRATEGIES)
def test_unigram_kernel_on_a_slow_lattice_matches_the_closed_form(strategy):
    """K(L, L) for L = (a/p)*, p = 0.99999, under the unigram kernel (off by 4e-7 before).

    L(aᵏ) = pᵏ and c(aᵏ, a) = k, so K(L, L) = Σ_{j,k} pʲ pᵏ c(aʲ, a) c(aᵏ, a) = (Σ_k k pᵏ)²
    = (p/(1 − p)²)² ≈ 9.9998e19.
    """
    p = 0.99999
    lattice = closure(acceptor("a", weight=p))
    got = kernels.ngram(1, strategy=strategy)(lattice, lattice)
    assert got == pytest.approx((p / (1 - p) ** 2) ** 2, rel=1e-9)


@pytest.mark.parametrize("strategy", _LATTICE_STRATEGIES)
def test_bigram_kernel_on_a_lattice_is_exact(strategy):
    """K(L, L) for L = (ab/½)* and bigrams: L((ab)ᵏ) = 2⁻ᵏ holds ab k times and ba k − 1 times,
    so K = (Σ_k k 2⁻ᵏ)² + (Σ_{k≥1} (k − 1) 2⁻ᵏ)² = 2² + 1² = 5 (the push gave 5 − 3.3e-11)."""
    lattice = closure(acceptor("ab", weight=0.5))
    assert kernels.ngram(2, strategy=strategy)(lattice, lattice) == pytest.approx(5.0, rel=1e-13, abs=0)


def test_very_slow_loop_does_not_hang():
    """Σ_k pᵏ for p = 0.99999999 (1e8): the push kept running past 20 s; the linear solve takes
    milliseconds (the child's few seconds are its start-up)."""
    out = run_python(
        """
        import math
        from ratkit.automata import from_arcs, shortest_distance
        t = from_arcs([(0, "a", 0.99999999, 0)], 0, {0: 1.0})
        (w,) = t.arrays().weight
        print(shortest_distance(t) * -math.expm1(-w))
        """,
        timeout=15,
    )
    assert not out.timed_out, "the shortest distance of a loop of probability 0.99999999 hangs"
    assert out.returncode == 0, out.stderr
    assert float(out.stdout) == pytest.approx(1.0, rel=1e-12, abs=0)


@pytest.mark.slow
def test_long_slow_ring_matches_the_closed_form():
    """A ring of 20 000 states with arcs of probability p and the start final: Σ_k (pⁿ)ᵏ = 1/(1 − pⁿ)."""
    n, p = 20_000, 0.5 ** (1 / 20_000)
    t = from_arcs([(q, "a", p, (q + 1) % n) for q in range(n)], 0, {0: 1.0}, alphabet=Alphabet("a"))
    w = t.arrays().weight[0]
    assert shortest_distance(t) == pytest.approx(-1 / math.expm1(-n * w), rel=1e-9)


@pytest.mark.slow
def test_large_random_cyclic_machine_is_solved_quickly_against_the_neumann_series():
    """20 000 states, 3 random arcs each, rows of probability 0.9: a sparse LU of I − M fills in
    (this took ~150 s and ~1.5 GB); the Krylov solve takes well under a second. The oracle is
    the Neumann series d = Σ_k Mᵏ f, summed until the terms vanish (0.9ᵏ < 1e-17)."""
    code = """
        import numpy as np
        from ratkit.automata import from_arcs, shortest_distance
        n, rng = 20_000, np.random.default_rng(0)
        src, dst = np.repeat(np.arange(n), 3), rng.integers(0, n, 3 * n)
        w = rng.random(3 * n)
        w = w / np.bincount(src, w, n)[src] * 0.9
        finals = {int(q): 1.0 for q in rng.integers(0, n, 200)}
        t = from_arcs([(int(a), "a", float(x), int(b)) for a, x, b in zip(src, w, dst)], 0, finals)
        a = t.arrays()
        np.savez(SAVE, src=a.src, dst=a.dst, w=a.weight, final=a.final, start=a.start)
        print(repr(shortest_distance(t)))
    """
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/m.npz"
        # the bound tells the Krylov solve (≈ 2 s with the interpreter start) from the ≈ 150 s
        # LU, with room for a loaded machine
        out = run_python(code.replace("SAVE", repr(path)), timeout=60)
        assert not out.timed_out, "the path sum of a 20 000-state random cyclic machine takes > 60 s"
        assert out.returncode == 0, out.stderr
        m = np.load(path)
    n = m["final"].size
    M = sp.csr_matrix((np.exp(-m["w"]), (m["src"], m["dst"])), shape=(n, n))
    term = np.exp(-m["final"])
    want = 0.0
    while term.max() > 1e-18:
        want += term[int(m["start"])]
        term = M @ term
    assert float(out.stdout) == pytest.approx(want, rel=1e-13)


@st.composite
def _acyclic_machines(draw):
    """(arcs, finals) of a random acyclic probability acceptor: arcs go to higher states."""
    n = draw(st.integers(2, 7))
    weights = st.floats(1e-6, 4.0)
    raw = draw(st.lists(st.tuples(st.integers(0, n - 2), st.integers(0, 99), weights), min_size=1, max_size=20))
    arcs = [(s, "ab"[k % 2], w, s + 1 + k % (n - 1 - s)) for s, k, w in raw]
    finals = draw(st.dictionaries(st.integers(0, n - 1), weights, min_size=1))
    return arcs, finals


def _rational_paths(arcs, finals, weight):
    """Σ over paths from state 0 of Π weight(w) (arcs, then the final weight), in exact rationals."""
    out = defaultdict(list)
    for s, _, w, d in arcs:
        out[s].append((weight(w), d))

    def total(q):
        return (weight(finals[q]) if q in finals else 0) + sum(w * total(d) for w, d in out[q])

    return total(0)


@settings(max_examples=150, deadline=None)
@given(_acyclic_machines())
def test_acyclic_path_sums_against_exact_rationals(machine):
    """Probability, log and tropical totals of random acyclic machines, against ℚ sums over
    the enumerated paths (tropical: the stored float32 costs, minimised exactly). The push
    dropped terms below its delta and summed tropical costs in float32."""
    arcs, finals = machine
    want = _rational_paths(arcs, finals, Fraction)
    assert shortest_distance(from_arcs(arcs, 0, finals)) == pytest.approx(float(want), rel=1e-13, abs=0)
    log_arcs = [(s, lab, -math.log(w), d) for s, lab, w, d in arcs]
    log_t = from_arcs(log_arcs, 0, {q: -math.log(w) for q, w in finals.items()}, "log")
    log_want = -math.log(want) if want else math.inf
    assert shortest_distance(log_t) == pytest.approx(log_want, rel=1e-13, abs=1e-13)
    trop = from_arcs(log_arcs, 0, {q: -math.log(w) for q, w in finals.items()}, "tropical")
    assert shortest_distance(trop) == pytest.approx(float(_min_path(trop.arrays())), rel=1e-13, abs=1e-13)


def _min_path(a):
    """min over accepting paths of the summed (stored) costs, in exact rationals, by enumeration."""
    best = None
    stack = [(a.start, Fraction(0))]
    while stack:
        q, c = stack.pop()
        if math.isfinite(a.final[q]):
            v = c + Fraction(float(a.final[q]))
            best = v if best is None else min(best, v)
        stack += [(int(d), c + Fraction(float(w))) for s, w, d in zip(a.src, a.weight, a.dst) if s == q]
    return math.inf if best is None else best


def test_many_tiny_contributions_are_not_dropped():
    """1 + N·1e-13 for one arc of weight 1 and N = 10 000 parallel arcs of 1e-13: OpenFst's
    delta = 1e-12 dropped each tiny term (result 1.0, off by 1e-9)."""
    n = 10_000
    t = from_arcs([(0, "a", 1.0, 1)] + [(0, "b", 1e-13, 1)] * n, 0, {1: 1.0})
    want = float(1 + n * Fraction(1e-13))
    assert shortest_distance(t) == pytest.approx(want, rel=1e-14, abs=0)


def _bellman_ford(n, arcs, start, finals):
    """Tropical shortest distance by n rounds of relaxation in plain Python (negative arcs allowed)."""
    dist = [math.inf] * n
    dist[start] = 0.0
    for _ in range(n):
        for s, _, w, d in arcs:
            dist[d] = min(dist[d], dist[s] + w)
    return min(dist[q] + w for q, w in finals.items())


@pytest.mark.parametrize("seed", range(10))
def test_cyclic_tropical_with_negative_arcs_equals_bellman_ford(seed):
    rng = random.Random(seed)
    n = 6
    arcs = [(q, "a", rng.uniform(1.25, 3.0), rng.randrange(n)) for q in range(n) for _ in range(2)]
    arcs += [(q, "b", -0.25, q + 1) for q in range(n - 1)]  # a simple cycle has ≤ 5 of these and one arc ≥ 1.25
    costs = [(s, lab, float(np.float32(w)), d) for s, lab, w, d in arcs]
    finals = {n - 1: 0.0, 2: 1.5}
    want = _bellman_ford(n, costs, 0, finals)
    assert shortest_distance(from_arcs(arcs, 0, finals, "tropical")) == pytest.approx(want, rel=1e-12)


def test_cyclic_boolean_machine():
    t = from_arcs([(0, "a", True, 1), (1, "b", True, 0), (1, "c", True, 2)], 0, {2: True}, "boolean")
    assert shortest_distance(t) is True
    dead = from_arcs([(0, "a", True, 1), (1, "b", True, 0)], 0, {2: True}, "boolean")
    assert shortest_distance(dead) is False


def test_negative_tropical_cycle_among_useful_states_raises_but_a_dead_one_does_not():
    t = from_arcs([(0, "a", 1.0, 1), (1, "b", -2.0, 1), (1, "c", 0.0, 2)], 0, {2: 0.0}, "tropical")
    with pytest.raises(DivergentSumError, match="negative total cost"):
        shortest_distance(t)
    dead = from_arcs([(0, "a", 1.0, 2), (0, "b", 1.0, 1), (1, "b", -2.0, 1)], 0, {2: 0.5}, "tropical")
    assert shortest_distance(dead) == 1.5


# -- overflow: a path sum outside the encoding's range raises, naming it (issue 14, item 4) ----


@pytest.mark.parametrize("cyclic", [False, True])
def test_tropical_path_sum_beyond_float32_raises(cyclic):
    loop = [(2, "c", 1.0, 2)] if cyclic else []
    t = from_arcs([(0, "a", -3e38, 1), (1, "b", -3e38, 2), *loop], 0, {2: 0.0}, "tropical")
    with pytest.raises(WeightOverflowError, match=r"tropical shortest distance -6(\.0*)?e\+38 .*float32"):
        shortest_distance(t)  # was 0.0, i.e. 1̄
    t = from_arcs([(0, "a", 3e38, 1), (1, "b", 3e38, 2), *loop], 0, {2: 0.0}, "tropical")
    with pytest.raises(WeightOverflowError, match=r"tropical shortest distance 6(\.0*)?e\+38 .*float32"):
        shortest_distance(t)  # was inf, i.e. "no path"


@pytest.mark.parametrize("cyclic", [False, True])
@pytest.mark.parametrize("sign", [-1, 1])
def test_log_path_sum_beyond_float64_raises(sign, cyclic):
    loop = [(2, "c", 1.0, 2)] if cyclic else []
    t = from_arcs([(0, "a", sign * 1e308, 1), (1, "b", sign * 1e308, 2), *loop], 0, {2: 0.0}, "log")
    pattern = r"log shortest distance overflows float64 at the arc \d → \d of weight -?1e\+308"
    with pytest.raises(WeightOverflowError, match=pattern):
        shortest_distance(t)  # was 0.0 (1̄) for −1e308 twice


def test_probability_total_beyond_float64_raises():
    t = from_arcs([(0, "a", 1e200, 1), (1, "b", 1e200, 2)], 0, {2: 1.0})
    with pytest.raises(WeightOverflowError, match=r"e\^921\.03.*exceeds the largest float64"):
        shortest_distance(t)  # was a bare OverflowError("math range error")


@pytest.mark.parametrize("cyclic", [False, True])
def test_weight_overflowed_by_an_earlier_operation_is_named(cyclic):
    loop = [(1, "c", "c", 1.0, 1)] if cyclic else []
    a = from_arcs([(0, "a", "b", -3e38, 1), *loop], 0, {1: 0.0}, "tropical")
    b = from_arcs([(0, "b", "c", -3e38, 1), *loop], 0, {1: 0.0}, "tropical")
    with pytest.raises(WeightOverflowError, match=r"compose: .*beyond ±3\.4028235e38"):
        compose(a, b)  # refused by compose itself (OpenFst's float32 ⊗ gives the arc −inf)
    import pynini

    from ratkit.automata.operations import align
    from ratkit.automata.transducer import Transducer

    # the −inf arc made by OpenFst directly, as another tool or an older ratkit could have
    (fa, fb), _, alphabet = align(a, b)
    ab = Transducer(pynini.compose(fa, fb), a.semiring, alphabet)
    with pytest.raises(WeightOverflowError, match=r"arc \d+ → \d+ has weight -inf"):
        shortest_distance(ab)  # the -inf arc was read as "no arc": inf
    with pytest.raises(WeightOverflowError, match=r"-inf is not a tropical weight"):
        ab.arcs()


def test_overflow_off_the_useful_paths_is_harmless():
    arcs = [(0, "a", 1.0, 1), (0, "b", -1e308, 2), (2, "b", -1e308, 3)]  # state 3 is not final
    assert shortest_distance(from_arcs(arcs, 0, {1: 0.5}, "log")) == 1.5


@pytest.mark.parametrize("p", [0.1, 0.01, 0.032, 0.056, 0.11])
def test_a_ring_of_probability_one_in_rounding_is_divergent_not_a_hang(p):
    """Regression (audit): a ring of probabilities p and 1/p has −ln costs summing to a few ulps
    below 0 (−4.4e-16 for p = 0.1); scipy's Johnson missed that negative cycle and its Dijkstra
    pass never returned (262 of the rings p = k/1000 hung). Oracle: Σ_k (p · 1/p)ᵏ = Σ_k 1
    diverges."""
    t = from_arcs([(0, "a", p, 1), (1, "b", 1 / p, 0)], 0, {0: 1.0})
    with pytest.raises(DivergentSumError):
        shortest_distance(t)
