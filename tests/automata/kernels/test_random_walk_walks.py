"""The random-walk kernel against an explicit enumeration of pairs of walks (issue 34).

The oracle knows nothing of product matrices: it lists every walk v₀ → … → v_t (t ≤ L) of
each graph from its edge list, pairs the walks of equal length, keeps a pair when the labels
asked for match — every vertex, the first included, for node labels (survey §III: V× holds
the pairs of vertices with equal labels); every edge for edge labels — and sums
μ(t) · p[v₀] p′[v′₀] · Π w · Π w′ · q[v_t] q′[v′_t]. ``convention="grakel"`` is the same sum
except that the pairs of walks of length 0 all count (GraKeL's ``RandomWalkLabeled``).

A truncated kernel (``steps=L``) must equal the enumeration to rounding; a converged one
(an infinite series) must be within the enumeration's tail, bounded here from the row sums.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ratkit.automata.graphs import Graph
from ratkit.automata.kernels import random_walk

L = 4  # the longest walk enumerated


def _graph(seed: int, node_labels: str, directed: bool) -> Graph:
    """A random weighted graph with one node per character of ``node_labels`` and edge labels 0/1."""
    rng = np.random.default_rng(seed)
    n = len(node_labels)
    a = (rng.random((n, n)) < 0.6) * rng.uniform(0.3, 1.2, (n, n))
    np.fill_diagonal(a, 0.0)
    if not directed:
        a = np.triu(a, 1)
        a = a + a.T
    nl = list(node_labels)
    el = {}
    for i, j in zip(*np.nonzero(a), strict=True):
        key = (int(i), int(j)) if directed else (int(min(i, j)), int(max(i, j)))
        el.setdefault(key, int(rng.integers(2)))
    el = {
        (int(i), int(j)): el[(int(i), int(j)) if directed else (int(min(i, j)), int(max(i, j)))]
        for i, j in zip(*np.nonzero(a))
    }
    return Graph(a, nl, el)


def _walks(G: Graph, length: int) -> list[tuple[tuple[int, ...], float]]:
    """Every walk of ``length`` edges of G as (vertices, product of edge weights)."""
    a = G.adjacency.toarray()
    out = []
    for path in itertools.product(range(G.n_nodes), repeat=length + 1):
        w = 1.0
        for u, v in itertools.pairwise(path):
            w *= a[u, v]
        if w != 0.0:
            out.append((path, w))
    return out


def _vector(G: Graph, spec: str) -> list[float]:
    return [1.0 / G.n_nodes] * G.n_nodes if spec == "uniform" else [1.0] * G.n_nodes


def _match(G: Graph, H: Graph, x: tuple[int, ...], y: tuple[int, ...], labels: str) -> bool:
    if labels in ("node", "both") and any(G.node_labels[u] != H.node_labels[v] for u, v in zip(x, y, strict=True)):
        return False
    if labels in ("edge", "both"):
        steps = zip(itertools.pairwise(x), itertools.pairwise(y), strict=True)
        return all(G.edge_labels[e] == H.edge_labels[f] for e, f in steps)
    return True


def _enumerated(G, H, mu, labels, start, stop, convention="survey") -> float:
    """Σ_t μ(t) Σ over pairs of matching walks of length t, t < len(mu)."""
    pG, pH, qG, qH = _vector(G, start), _vector(H, start), _vector(G, stop), _vector(H, stop)
    total = 0.0
    for t, m in enumerate(mu):
        for (x, wx), (y, wy) in itertools.product(_walks(G, t), _walks(H, t)):
            if t == 0 and convention == "grakel" or _match(G, H, x, y, labels):
                total += m * pG[x[0]] * pH[y[0]] * wx * wy * qG[x[-1]] * qH[y[-1]]
    return total


def _tail(G, H, mu_t, start, stop) -> float:
    """An upper bound of Σ_{t > L} μ(t) |p×ᵀ A×ᵗ q×|: A× ≤ A ⊗ A′ entrywise, and
    pᵀ Aᵗ q ≤ Σp · max q · r(A)ᵗ with r(A) the largest row sum."""
    r = G.adjacency.sum(axis=1).max() * H.adjacency.sum(axis=1).max()
    c = sum(_vector(G, start)) * sum(_vector(H, start)) * max(_vector(G, stop)) * max(_vector(H, stop))
    return c * sum(mu_t(t) * r**t for t in range(L + 1, L + 60))


PAIRS = {
    "directed": (_graph(1, "aba", True), _graph(2, "abba", True)),
    "undirected": (_graph(3, "abab", False), _graph(4, "baa", False)),
    "partly shared labels": (_graph(5, "abc", True), _graph(6, "bcd", True)),
    "no shared node label": (_graph(11, "aab", False), _graph(8, "cdc", False)),
}


def _methods(G: Graph, H: Graph, labels: str) -> list[str]:
    methods = ["auto", "direct", "sylvester", "rational"]
    if not G.is_directed and not H.is_directed:
        methods.append("cg")
        if labels == "none":
            methods.append("spectral")
    return methods


@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("labels", ["none", "node", "edge", "both"])
@pytest.mark.parametrize("start,stop", [("uniform", "uniform"), ("ones", "ones"), ("ones", "uniform")])
@pytest.mark.parametrize("mu", ["geometric", "exponential", "sequence"])
def test_truncated_kernel_equals_the_walk_enumeration(pair, labels, start, stop, mu):
    G, H = PAIRS[pair]
    lam = 0.7
    if mu == "sequence":
        kwargs, coef = {"mu": [0.5, 2.0, 0.0, 1.5, 0.25]}, [0.5, 2.0, 0.0, 1.5, 0.25]
    else:
        fact = math.factorial if mu == "exponential" else (lambda t: 1)
        kwargs, coef = {"mu": mu, "steps": L}, [lam**t / fact(t) for t in range(L + 1)]
    expected = _enumerated(G, H, coef, labels, start, stop)
    for method in _methods(G, H, labels):
        k = random_walk(lam, labels=labels, start=start, stop=stop, method=method, **kwargs)
        assert k(G, H) == pytest.approx(expected, rel=1e-9, abs=1e-12), method
    if labels in ("node", "both"):  # GraKeL's convention: every pair of vertices is a walk of length 0
        grakel = _enumerated(G, H, coef, labels, start, stop, convention="grakel")
        for method in ("direct", "sylvester", "rational"):
            k = random_walk(lam, labels=labels, start=start, stop=stop, method=method, convention="grakel", **kwargs)
            assert k(G, H) == pytest.approx(grakel, rel=1e-9, abs=1e-12), method
    else:  # no node labels: the conventions coincide
        k = random_walk(lam, labels=labels, start=start, stop=stop, convention="grakel", **kwargs)
        assert k(G, H) == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("labels", ["none", "node", "edge", "both"])
@pytest.mark.parametrize("start,stop", [("uniform", "uniform"), ("ones", "ones")])
@pytest.mark.parametrize("mu", ["geometric", "exponential"])
def test_converged_kernel_is_within_the_tail_of_the_walk_enumeration(pair, labels, start, stop, mu):
    G, H = PAIRS[pair]
    lam = 0.02
    fact = math.factorial if mu == "exponential" else (lambda t: 1)
    expected = _enumerated(G, H, [lam**t / fact(t) for t in range(L + 1)], labels, start, stop)
    tail = _tail(G, H, lambda t: lam**t / fact(t), start, stop)
    assert tail < 1e-4 * expected or expected == 0.0  # the comparison below is sharp
    methods = [m for m in _methods(G, H, labels) if not (m == "rational" and mu == "exponential")]
    for method in methods:
        value = random_walk(lam, mu=mu, labels=labels, start=start, stop=stop, method=method)(G, H)
        assert expected - 1e-12 <= value <= expected + tail + 1e-12, method


def test_graphs_without_a_common_node_label_have_kernel_zero():
    """The issue's case: two 2-node graphs, labels a, b against c, d. V× is empty, so k = 0;
    GraKeL's convention counts the 4 vertex pairs as walks of length 0."""
    G = Graph(np.array([[0, 1], [1, 0.0]]), node_labels=["a", "b"])
    H = Graph(np.array([[0, 1], [1, 0.0]]), node_labels=["c", "d"])
    for method in ("auto", "direct", "sylvester", "cg", "rational"):
        assert random_walk(0.1, labels="node", method=method)(G, H) == 0.0
        assert random_walk(0.1, labels="node", start="ones", stop="ones", method=method)(G, H) == 0.0
        assert (
            random_walk(0.1, labels="both", method=method)(
                Graph(G.adjacency, ["a", "b"], {(0, 1): 0, (1, 0): 0}),
                Graph(H.adjacency, ["c", "d"], {(0, 1): 0, (1, 0): 0}),
            )
            == 0.0
        )
        grakel = random_walk(0.1, labels="node", start="ones", stop="ones", method=method, convention="grakel")
        assert grakel(G, H) == pytest.approx(4.0)
        assert random_walk(0.1, labels="node", method=method, convention="grakel")(G, H) == pytest.approx(0.25)


def test_uniform_start_stays_one_over_n_per_graph():
    """``"uniform"`` is 1/n in each graph, not 1/|V×|: the only matched pair (a, a) of a
    3-node and a 2-node graph without edges weighs (1/3)(1/2) at start and at stop."""
    G = Graph(np.zeros((3, 3)), node_labels=["a", "b", "c"])
    H = Graph(np.zeros((2, 2)), node_labels=["a", "d"])
    assert random_walk(0.1, labels="node")(G, H) == pytest.approx((1 / 6) ** 2)


def test_a_uniform_start_over_the_matched_pairs_would_not_be_pds():
    """Why ``"uniform"`` is not 1/|V×|: on graphs without edges k is the t = 0 term alone. With
    G = (a) and H = (a, b), p× = q× = 1/|V×| would give k(G, G) = 1, k(G, H) = 1, k(H, H) = 1/2,
    a Gram matrix with determinant −1/2. With p = 1/n per graph: 1, 1/4, 2·(1/4)² = 1/8."""
    G = Graph(np.zeros((1, 1)), node_labels=["a"])
    H = Graph(np.zeros((2, 2)), node_labels=["a", "b"])
    per_pair = np.array([[1.0, 1.0], [1.0, 0.5]])  # 1/|V×| for |V×| = 1, 1, 2
    assert np.linalg.eigvalsh(per_pair).min() < 0
    K = random_walk(0.1, labels="node").gram([G, H])
    np.testing.assert_allclose(K, [[1.0, 0.25], [0.25, 0.125]], rtol=1e-12)
    assert np.linalg.eigvalsh(K).min() > 0


def test_the_survey_convention_keeps_gram_matrices_positive_semidefinite():
    rng = np.random.default_rng(0)
    graphs = [_graph(s, "".join(rng.choice(list("abc"), int(rng.integers(2, 5)))), bool(s % 2)) for s in range(12)]
    for labels in ("node", "both"):
        K = random_walk(0.05, labels=labels).gram(graphs)
        assert np.allclose(K, K.T)
        assert np.linalg.eigvalsh(K).min() > -1e-10 * np.abs(K).max()


def test_convention_is_checked_and_written_to_the_spec():
    from ratkit.automata.kernels import from_spec, to_spec
    from ratkit.exceptions import ParameterError

    with pytest.raises(ParameterError, match="convention"):
        random_walk(0.1, convention="gracel")
    k = random_walk(0.1, labels="node", convention="grakel")
    assert to_spec(k)["convention"] == "grakel"
    assert from_spec(to_spec(k)).convention == "grakel"
