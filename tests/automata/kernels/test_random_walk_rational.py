"""The §III-2 equivalence: the random-walk kernel is the rational kernel Ψ(S ∘ T ∘ U).

One side is ``method="rational"``: walk automata of the two graphs composed with a pynini
transducer T (⟦T⟧(α, α) = μ(|α|)) and summed over paths; the other is linear algebra on the
product matrix, both ratkit's (``"direct"``, ``"sylvester"``) and a numpy closed form built
here with ``np.kron`` and label masks. The path sum is also taken by OpenFst's own
``pynini.shortestdistance``, so the equality does not rest on ratkit's path-sum code.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pynini
import pytest

from ratkit.automata import evaluate
from ratkit.automata.graphs import Graph, graph_automaton
from ratkit.automata.graphs.automaton import label_symbol
from ratkit.automata.kernels import random_walk
from ratkit.automata.kernels._walks_rational import _step_labelled, walk_length_transducer
from ratkit.automata.operations import compose
from ratkit.exceptions import DivergentSumError, ParameterError, ParameterTypeError
from tests.seeds import stable_seed


def _graph(rng: np.random.Generator, n: int, directed: bool) -> Graph:
    a = (rng.random((n, n)) < 0.55) * rng.uniform(0.2, 1.5, (n, n))
    np.fill_diagonal(a, 0.0)
    if not directed:
        a = np.triu(a, 1)
        a = a + a.T
    labels = {}
    for i, j in zip(*np.nonzero(a), strict=True):
        key = (int(i), int(j)) if directed else (int(min(i, j)), int(max(i, j)))
        labels.setdefault(key, ["s", "d"][int(rng.integers(2))])
    el = {
        (int(i), int(j)): labels[(int(i), int(j)) if directed else (int(min(i, j)), int(max(i, j)))]
        for i, j in zip(*np.nonzero(a), strict=True)
    }
    return Graph(a, [int(x) for x in rng.integers(0, 2, n)], el)


def _graphs(seed: int, count: int = 5) -> list[Graph]:
    rng = np.random.default_rng(seed)
    return [_graph(rng, int(rng.integers(2, 6)), directed=bool(k % 2)) for k in range(count)]


def _closed_form(G: Graph, H: Graph, labels: str, adjacency: str, p, q, mu: str | list, decay: float) -> float:
    """Σ_t μ(t) p×ᵀ A×ᵗ q× with A× = kron(A, A′) ∘ label mask, in numpy (p× zero outside V×)."""

    def adj(g: Graph) -> np.ndarray:
        a = g.adjacency.toarray()
        if adjacency == "normalized":
            s = a.sum(axis=1, keepdims=True)
            a = np.divide(a, s, out=np.zeros_like(a), where=s > 0)
        return a

    A = np.kron(adj(G), adj(H))
    n, m = G.n_nodes, H.n_nodes
    if labels in ("node", "both"):
        same = np.array([[a == b for b in H.node_labels] for a in G.node_labels], dtype=float).ravel()
        A = A * np.outer(same, same)
    if labels in ("edge", "both"):
        mask = np.zeros((n * m, n * m))
        for (i, j), x in G.edge_labels.items():
            for (k, h), y in H.edge_labels.items():
                mask[i * m + k, j * m + h] = float(x == y)
        A = A * mask
    px, qx = np.kron(p(G), p(H)), np.kron(q(G), q(H))
    if labels in ("node", "both"):  # p× lives on V×, the pairs of equal node labels (survey §III)
        px = px * same
    if mu == "geometric":
        return float(px @ np.linalg.solve(np.eye(n * m) - decay * A, qx))
    total, y = 0.0, qx
    for t, c in enumerate(mu):
        total += c * float(px @ y)
        y = A @ y
    return total


VECTORS = {
    "uniform": lambda g: np.full(g.n_nodes, 1.0 / g.n_nodes),
    "ones": lambda g: np.ones(g.n_nodes),
    "given": lambda g: np.linspace(0.2, 1.0, g.n_nodes),
}


@pytest.mark.parametrize("labels", ["none", "node", "edge", "both"])
@pytest.mark.parametrize("adjacency", ["raw", "normalized"])
@pytest.mark.parametrize("vectors", [("uniform", "ones"), ("ones", "given"), ("given", "uniform")])
@pytest.mark.parametrize(
    "mu", [dict(mu="geometric"), dict(steps=4), dict(mu="exponential", steps=5), dict(mu=[0.5, 0.0, 2.0, 1.0])]
)
def test_rational_equals_linear_algebra(labels, adjacency, vectors, mu):
    graphs = _graphs(stable_seed(labels, adjacency, vectors, modulo=1000))
    # within the radius of convergence of every pair: λ ρ(A) ρ(A′) < 1 (ρ(A) ≤ 1 when normalised)
    decay = min(0.05, 0.5 / max(float(max(abs(np.linalg.eigvals(g.adjacency.toarray())))) for g in graphs) ** 2)
    start, stop = (v if v != "given" else VECTORS["given"] for v in vectors)
    kw = dict(labels=labels, adjacency=adjacency, start=start, stop=stop, **mu)
    rational = random_walk(decay, method="rational", **kw).gram(graphs)
    coefficients: str | list
    if mu == dict(mu="geometric"):
        coefficients = "geometric"
    elif "steps" in mu:
        t = np.arange(mu["steps"] + 1)
        fact = np.array([math.factorial(int(k)) for k in t], dtype=float)
        coefficients = list(decay**t / (fact if mu.get("mu") == "exponential" else 1.0))
    else:
        coefficients = mu["mu"]
    p, q = VECTORS[vectors[0]], VECTORS[vectors[1]]
    closed = np.array(
        [[_closed_form(G, H, labels, adjacency, p, q, coefficients, decay) for H in graphs] for G in graphs]
    )
    # relative to 1e-9; a pair without a common node label has k = 0 exactly on both sides
    np.testing.assert_allclose(rational, closed, rtol=1e-9, atol=0)
    for method in ("direct", "sylvester"):
        algebra = random_walk(decay, method=method, **kw).gram(graphs)
        np.testing.assert_allclose(rational, algebra, rtol=1e-9, atol=0, err_msg=method)


def test_rational_equals_the_spectral_and_cg_forms_on_undirected_graphs():
    rng = np.random.default_rng(11)
    graphs = [_graph(rng, n, directed=False) for n in (3, 4, 5, 6)]
    rational = random_walk(0.1, start="ones", stop="ones", method="rational").gram(graphs)
    ones = VECTORS["ones"]
    closed = np.array(
        [[_closed_form(G, H, "none", "raw", ones, ones, "geometric", 0.1) for H in graphs] for G in graphs]
    )
    assert np.max(np.abs(rational - closed) / closed) <= 1e-9
    for method in ("spectral", "cg"):
        other = random_walk(0.1, start="ones", stop="ones", method=method).gram(graphs)
        assert np.max(np.abs(rational - other) / other) <= 1e-9, method


def test_openfst_shortest_distance_gives_the_same_path_sum():
    """Ψ(S ∘ T ∘ U) summed by OpenFst's iterative shortestdistance (log64 semiring, tiny δ).

    To 1e-8 relative, not 1e-9: pynini reads a weight out through a 9-significant-digit
    string (../shared/notes/pynini-facts.md), i.e. ≈ 1e-9 absolute on −ln of the value."""
    for G, H in itertools.combinations(_graphs(5, 4), 2):
        for labels in ("edge", "both"):
            S = graph_automaton(_step_labelled(G, labels), "edge", start="ones", stop="ones")
            U = graph_automaton(_step_labelled(H, labels), "edge", start="ones", stop="ones")
            T = walk_length_transducer([*S.alphabet.symbols, *U.alphabet.symbols], decay=0.05)
            f = compose(compose(S, T), U).to_pynini()
            d = pynini.shortestdistance(f, delta=1e-15, reverse=True)
            value = math.exp(-float(d[f.start()])) if len(d) > f.start() else 0.0
            # one S and one U started at every vertex: GraKeL's convention at t = 0 (all pairs)
            kernel = random_walk(0.05, labels=labels, start="ones", stop="ones", method="direct", convention="grakel")(
                G, H
            )
            assert value == pytest.approx(kernel, rel=1e-8)


def test_walk_length_transducer_weights_the_identity_by_length():
    T = walk_length_transducer("ab", decay=0.3)
    for alpha in ["", "a", "ab", "bba", "abab"]:
        assert evaluate(T, alpha, alpha) == pytest.approx(0.3 ** len(alpha), rel=1e-12)
    assert evaluate(T, "ab", "ba") == 0.0
    F = walk_length_transducer("ab", coefficients=[0.5, 0.0, 2.0])
    assert [evaluate(F, "a" * t, "a" * t) for t in range(4)] == pytest.approx([0.5, 0.0, 2.0, 0.0])
    with pytest.raises(ParameterError, match="exactly one"):
        walk_length_transducer("ab")
    with pytest.raises(ParameterError, match=r"μ\(1\)"):
        walk_length_transducer("ab", coefficients=[1.0, -1.0])


def test_reading_the_entered_vertex_leaves_the_first_vertex_unmatched():
    """Why the rational form reads (ℓ(v), ℓ(w)) per edge: graph_automaton's "node" strings
    drop ℓ(v₀), so its Ψ counts pairs of walks whose first vertices differ in label."""
    G = Graph([[0, 1], [0, 0]], node_labels=["x", "z"])  # x → z
    H = Graph([[0, 1], [0, 0]], node_labels=["y", "z"])  # y → z
    # walks of length 0: the one matched pair (z, z) (survey), or all 4 vertex pairs (GraKeL);
    # length 1: x→z and y→z differ at v₀, so they are no walk of G × H
    for method in ("direct", "rational"):
        kernel = random_walk(0.5, labels="node", start="ones", stop="ones", method=method)
        assert kernel(G, H) == pytest.approx(1.0), method
        grakel = random_walk(0.5, labels="node", start="ones", stop="ones", method=method, convention="grakel")
        assert grakel(G, H) == pytest.approx(4.0), method
    S, U = graph_automaton(G, "node", "ones", "ones"), graph_automaton(H, "node", "ones", "ones")
    T = walk_length_transducer([*S.alphabet.symbols, *U.alphabet.symbols], decay=0.5)
    f = compose(compose(S, T), U).to_pynini()
    naive = math.exp(-float(pynini.shortestdistance(f, reverse=True)[f.start()]))
    assert naive == pytest.approx(4.0 + 0.5)  # the length-1 pair "z" = "z" is wrongly counted


def test_rational_method_refuses_what_is_not_rational():
    with pytest.raises(ParameterError, match="not rational"):
        random_walk(0.1, mu="exponential", method="rational")
    with pytest.raises(ParameterError, match="μ"):
        random_walk(0.1, mu=[1.0, -0.5], method="rational")
    assert random_walk(0.1, mu="exponential", steps=3, method="rational").method == "rational"


def test_rational_method_names_a_divergent_decay():
    G = Graph([[0, 1, 1], [1, 0, 1], [1, 1, 0]])  # ρ = 2, so ρ(W×) = 4
    with pytest.raises(DivergentSumError, match=r"decay λ = 0\.3.*1/ρ\(W×\) = 0\.25"):
        random_walk(0.3, method="rational")(G, G)


def test_label_symbols_follow_equality():
    assert label_symbol(1, "x") == label_symbol(1.0, "x") == label_symbol(True, "x") == "1"
    assert label_symbol(2.5, "x") == "2.5" and label_symbol("C", "x") == "C"
    G = Graph([[0, 1], [1, 0]], node_labels=[1, "a"])
    H = Graph([[0, 1], [1, 0]], node_labels=["1", "a"])
    with pytest.raises(ParameterError, match="both read as the symbol '1'"):
        random_walk(0.1, labels="node", method="rational")(G, H)
    with pytest.raises(ParameterError, match="both read as the symbol"):
        graph_automaton(Graph([[0, 1], [1, 0]], node_labels=[1, "1"]), "node")
    with pytest.raises(ParameterTypeError, match="mismatched types"):
        random_walk(0.1, labels="node", method="rational")(
            Graph([[0, 1], [1, 0]], node_labels=["a", "b"]), Graph([[0, 1], [1, 0]], node_labels=[2, 3])
        )
