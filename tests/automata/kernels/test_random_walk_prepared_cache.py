"""The random walk prepares each graph once per process, also when a Gram is computed in blocks.

Regression (benchmark, issue 19): every block of ``gram(..., block_bytes=...)`` prepared
(ρ(A), eigenvectors) the graphs of its columns again: 2.7–3.7 s against 0.8–1.0 s in one call.
"""

from __future__ import annotations

import numpy as np

from ratkit.automata.graphs import from_edges
from ratkit.automata.kernels import _walks_prepared as walks
from ratkit.automata.kernels import random_walk


def _graphs(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        size = int(rng.integers(4, 9))
        edges = [(i, j) for i in range(size) for j in range(i + 1, size) if rng.random() < 0.4] or [(0, 1)]
        out.append(from_edges(size, edges))
    return out


def test_blocks_prepare_each_graph_once_and_agree_with_one_call(monkeypatch):
    built = []
    real = walks._Prepared

    class Counting(real):
        __slots__ = ()

        def __init__(self, graph, *args):
            built.append(graph)
            super().__init__(graph, *args)

    monkeypatch.setattr(walks, "_Prepared", Counting)
    walks._prepared_cache.clear()
    graphs = _graphs(12)
    k = random_walk(0.05, method="direct")
    blocked = k.gram(graphs, block_bytes=len(graphs) * 8 * 3)
    assert len(built) == len(set(graphs))
    walks._prepared_cache.clear()
    np.testing.assert_allclose(blocked, k.gram(graphs), rtol=1e-12)


def test_the_cache_tells_start_and_stop_choices_apart():
    walks._prepared_cache.clear()
    graphs = _graphs(5, seed=1)
    uniform = random_walk(0.05, method="direct").gram(graphs)
    ones = random_walk(0.05, method="direct", start="ones").gram(graphs)
    walks._prepared_cache.clear()
    np.testing.assert_allclose(ones, random_walk(0.05, method="direct", start="ones").gram(graphs), rtol=1e-12)
    assert np.abs(ones - uniform).max() > 1e-6


def _closed_form(g, h, lam, p_g, p_h):
    """k(g, h) = (p ⊗ p′)ᵀ (I − λ A ⊗ A′)⁻¹ 1, by a dense solve (stop = "ones")."""
    A = np.kron(g.adjacency.toarray(), h.adjacency.toarray())
    return float(np.kron(p_g, p_h) @ np.linalg.solve(np.eye(len(A)) - lam * A, np.ones(len(A))))


def test_a_new_callable_is_never_served_an_earlier_ones_walks():
    """Regression (audit): the cache keyed a callable start/stop by id(); once a kernel and its
    callable were freed, CPython reused the address for the next callable, which then read the
    old p: a loop over s of start=lambda G: s·1 returned K(s=1) every time instead of s²·K(1)."""
    g, h = from_edges(3, [(0, 1), (1, 2)]), from_edges(2, [(0, 1)])
    walks._prepared_cache.clear()
    for s in (1.0, 2.0, 3.0):
        k = random_walk(0.1, start=lambda G, s=s: np.full(G.n_nodes, s), stop="ones", method="direct")
        expected = _closed_form(g, h, 0.1, np.full(3, s), np.full(2, s))
        np.testing.assert_allclose(k(g, h), expected, rtol=1e-10)
        del k


def test_a_callable_object_changed_in_place_gives_its_new_weights():
    class Scaled:
        def __init__(self, scale):
            self.scale = scale

        def __call__(self, G):
            return np.full(G.n_nodes, self.scale)

    g, h = from_edges(3, [(0, 1), (1, 2)]), from_edges(2, [(0, 1)])
    start = Scaled(1.0)
    k = random_walk(0.1, start=start, stop="ones", method="direct")
    first = k(g, h)
    start.scale = 2.0
    np.testing.assert_allclose(k(g, h), _closed_form(g, h, 0.1, np.full(3, 2.0), np.full(2, 2.0)), rtol=1e-10)
    np.testing.assert_allclose(k(g, h), 4 * first, rtol=1e-10)
