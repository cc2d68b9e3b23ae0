"""ratkit's random-walk kernel against GraKeL, an independent implementation (issue 16).

Where the definitions coincide — raw adjacency, all-ones start and stop vectors, GraKeL's λ
and p — GraKeL's ``method_type="baseline"`` is the sum of all entries of

* (I − λA×)⁻¹ (``kernel_type="geometric"``, p = None),
* expm(λA×) (``kernel_type="exponential"``, p = None),
* Σ_{t ≤ p} μ(t) A×ᵗ with μ(t) = λᵗ or λᵗ/t! (p given),

with A× = kron(A, A′) (``RandomWalk``) or the node-label-filtered kron (``RandomWalkLabeled``:
(i,i′) → (j,j′) is kept iff label(i) = label(i′) and label(j) = label(j′)). That is
``random_walk(λ, mu=kernel_type, steps=p, labels="none"/"node", adjacency="raw",
start="ones", stop="ones", convention="grakel")``, which must give the same Gram matrix to
1e-10 relative by every method that applies. ``convention="grakel"`` matters only with node
labels: GraKeL's identity term counts the walks of length 0 of all n·n′ vertex pairs, where
ratkit's default (the survey's V×, the pairs of equal labels) counts the matched pairs only;
without labels the conventions coincide.

GraKeL 0.1.11 silently replaces a geometric λ ≥ 1/ρmax² (ρmax: the largest spectral radius
of the graphs given) by 0.9/ρmax² and only warns (RuntimeWarning): every GraKeL call here
turns that warning into an error, so a comparison can never be made against another λ.

Inputs: each graph goes to GraKeL as ``[adjacency ndarray, {i: label}]``. GraKeL's Graph
built from an adjacency array keeps every vertex, isolated ones included, and reads weights
as given. Its edge-dictionary and edge-list inputs differ: they know only the vertices
named there (a vertex that appears only in the label map is dropped, and edge-list indices
are compacted), so they are not used. :func:`test_grakel_reads_the_inputs_unchanged` checks
the adjacency route; no input had to be changed for either library.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

grakel = pytest.importorskip(
    "grakel", reason="GraKeL (the `test` extra) is the independent oracle of these tests; it is not installed"
)
from grakel.kernels import RandomWalk, RandomWalkLabeled  # noqa: E402

from ratkit.automata.graphs import Graph  # noqa: E402
from ratkit.automata.kernels import random_walk  # noqa: E402
from ratkit.exceptions import DivergentSumError  # noqa: E402

# -- graphs ------------------------------------------------------------------------------------------


def _random_adjacency(rng: np.random.Generator, n: int, directed: bool, weighted: bool) -> np.ndarray:
    a = (rng.random((n, n)) < 0.5) * (rng.uniform(0.2, 1.5, (n, n)) if weighted else 1.0)
    np.fill_diagonal(a, 0.0)
    if not directed:
        a = np.triu(a, 1)
        a = a + a.T
    return a


def _star(n: int) -> np.ndarray:
    """K_{1,n−1}: eigenvalues ±√(n−1) and 0 with multiplicity n − 2."""
    a = np.zeros((n, n))
    a[0, 1:] = a[1:, 0] = 1.0
    return a


def _cycle(n: int, directed: bool) -> np.ndarray:
    """C_n: undirected, eigenvalues 2cos(2πk/n) (mostly double); directed, the n-th roots of unity."""
    a = np.roll(np.eye(n), 1, axis=1)
    return a if directed else a + a.T


def _path_and_isolated_vertex() -> np.ndarray:
    """A path 0 – 1 – 2 – 3 and an isolated vertex 4."""
    a = np.zeros((5, 5))
    for i in range(3):
        a[i, i + 1] = a[i + 1, i] = 1.0
    return a


def _directed_path(n: int) -> np.ndarray:
    """0 → 1 → … → n−1: nilpotent, ρ = 0."""
    return np.eye(n, k=1)


def _graph_set(name: str) -> tuple[list[np.ndarray], list[list[int]]]:
    """(adjacencies, node labels) of a small set of graphs of 3–7 nodes."""
    rng = np.random.default_rng(sum(map(ord, name)))
    directed = name.startswith("directed")
    if name.endswith("regular"):
        if directed:
            adjs = [_cycle(5, True), _directed_path(4), _cycle(3, True) + _cycle(3, True).T * 0.5]
        else:
            adjs = [_star(5), _cycle(6, False), np.ones((4, 4)) - np.eye(4), _path_and_isolated_vertex()]
    else:
        weighted = name.endswith("weighted")
        adjs = [_random_adjacency(rng, int(rng.integers(3, 8)), directed, weighted) for _ in range(4)]
        adjs.append(_star(4) if not directed else _cycle(4, True))
    n_kinds = 3 if "weighted" in name else 2
    labels = [[int(x) for x in rng.integers(n_kinds, size=len(a))] for a in adjs]
    return adjs, labels


SETS = (
    "directed-01",
    "directed-weighted",
    "directed-regular",
    "undirected-01",
    "undirected-weighted",
    "undirected-regular",
)


def _rho_max(adjs: list[np.ndarray]) -> float:
    return max(float(np.max(np.abs(np.linalg.eigvals(a)))) for a in adjs)


def _is_undirected(adjs: list[np.ndarray]) -> bool:
    return all(np.array_equal(a, a.T) for a in adjs)


def _ratkit_graphs(adjs: list[np.ndarray], labels: list[list[int]]) -> list[Graph]:
    return [Graph(a, lab) for a, lab in zip(adjs, labels, strict=True)]


def _grakel_input(adjs: list[np.ndarray], labels: list[list[int]]) -> list[list]:
    return [[a, dict(enumerate(lab))] for a, lab in zip(adjs, labels, strict=True)]


def _grakel_gram(adjs, labels, *, labelled: bool, lam: float, kernel_type: str, p: int | None, method_type="baseline"):
    """GraKeL's Gram matrix, refusing the RuntimeWarning by which it announces a lowered λ."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        cls = RandomWalkLabeled if labelled else RandomWalk
        kernel = cls(lamda=lam, method_type=method_type, kernel_type=kernel_type, p=p)
        return np.asarray(kernel.fit_transform(_grakel_input(adjs, labels)), dtype=np.float64)


def _methods(adjs: list[np.ndarray], labels: str) -> list[str]:
    methods = ["direct", "sylvester", "auto"]
    if _is_undirected(adjs):
        methods.append("cg")
        if labels == "none":
            methods.append("spectral")
    return methods


# -- the two agree where the definitions coincide -------------------------------------------------------

#: (kernel_type, p, λ as a multiple of 1/ρmax² (geometric, p = None) or 1/ρmax (otherwise)).
SERIES = [
    ("geometric", None, 0.5),
    ("exponential", None, 0.7),
    ("geometric", 1, 0.6),
    ("geometric", 3, 0.6),
    ("geometric", 5, 0.6),
    ("exponential", 1, 0.6),
    ("exponential", 3, 0.6),
    ("exponential", 5, 0.6),
]


@pytest.mark.parametrize("labels", ["none", "node"])
@pytest.mark.parametrize("kernel_type,p,scale", SERIES, ids=[f"{k}-p{p}" for k, p, _ in SERIES])
@pytest.mark.parametrize("graph_set", SETS)
def test_gram_equals_grakel_baseline(graph_set, kernel_type, p, scale, labels):
    """ratkit's Gram matrix equals GraKeL's baseline one to 1e-10 relative, for every method.

    The geometric λ stays below GraKeL's 1/ρmax² (a lowered λ would raise here); the
    exponential and truncated sums are not lowered by GraKeL, and their λ may exceed it."""
    adjs, node_labels = _graph_set(graph_set)
    rho = _rho_max(adjs)
    lam = scale / rho**2 if (kernel_type == "geometric" and p is None) else scale / rho
    want = _grakel_gram(adjs, node_labels, labelled=labels == "node", lam=lam, kernel_type=kernel_type, p=p)
    graphs = _ratkit_graphs(adjs, node_labels)
    for method in _methods(adjs, labels):
        k = random_walk(
            lam,
            mu=kernel_type,
            steps=p,
            labels=labels,
            adjacency="raw",
            start="ones",
            stop="ones",
            method=method,
            convention="grakel",
        )
        np.testing.assert_allclose(k.gram(graphs), want, rtol=1e-10, atol=0, err_msg=f"method={method}")


def test_grakel_reads_the_inputs_unchanged():
    """GraKeL's Graph keeps the adjacency as given (isolated vertex, weights) and the labels by index,
    so both libraries see the same graphs."""
    for name in SETS:
        adjs, labels = _graph_set(name)
        for a, lab in zip(adjs, labels, strict=True):
            g = grakel.Graph(a, dict(enumerate(lab)), {}, "adjacency")
            np.testing.assert_array_equal(g.get_adjacency_matrix(), a)
            assert g.get_labels(purpose="adjacency") == dict(enumerate(lab))


# -- where GraKeL lowers λ, ratkit refuses ------------------------------------------------------------


@pytest.mark.parametrize("method", ["direct", "sylvester", "cg", "spectral"])
def test_grakel_lowers_lambda_where_ratkit_raises(method):
    """C6 has ρ = 2, so GraKeL's bound is 1/4: for λ = 0.3 it warns and computes λ = 0.9/4 = 0.225
    instead (its Gram matrix is ratkit's at 0.225), while ratkit raises DivergentSumError naming λ = 0.3."""
    adjs = [_cycle(6, False), _star(5), _path_and_isolated_vertex()]
    labels = [[0] * len(a) for a in adjs]
    assert _rho_max(adjs) == pytest.approx(2.0)
    with pytest.warns(RuntimeWarning, match=r"lamda=0\.3 makes the random walk series diverge"):
        got = np.asarray(RandomWalk(lamda=0.3, method_type="baseline").fit_transform(_grakel_input(adjs, labels)))
    graphs = _ratkit_graphs(adjs, labels)
    lowered = random_walk(0.9 / 4, adjacency="raw", start="ones", stop="ones", method=method).gram(graphs)
    np.testing.assert_allclose(got, lowered, rtol=1e-10, atol=0)
    with pytest.raises(DivergentSumError, match=re.escape("decay λ = 0.3:")):
        random_walk(0.3, adjacency="raw", start="ones", stop="ones", method=method).gram(graphs)


# -- a documented difference: GraKeL's "fast" paths assume symmetric adjacency -------------------------


def test_grakel_fast_geometric_differs_from_baseline_on_directed_graphs():
    """GraKeL's default ``method_type="fast"`` solves (I − λA×) x = 1 for the geometric series by
    conjugate gradients (rtol 1e-6, 20 iterations), which assumes I − λA× symmetric: on directed
    graphs its Gram matrix is off the baseline by more than 1e-3 relative, while every ratkit method
    equals the baseline. On undirected graphs fast and baseline agree (the control)."""
    adjs, labels = _graph_set("directed-weighted")
    lam = 0.5 / _rho_max(adjs) ** 2
    base = _grakel_gram(adjs, labels, labelled=False, lam=lam, kernel_type="geometric", p=None)
    fast = _grakel_gram(adjs, labels, labelled=False, lam=lam, kernel_type="geometric", p=None, method_type="fast")
    assert np.max(np.abs(fast - base) / base) > 1e-3
    graphs = _ratkit_graphs(adjs, labels)
    for method in _methods(adjs, "none"):
        k = random_walk(lam, adjacency="raw", start="ones", stop="ones", method=method)
        np.testing.assert_allclose(k.gram(graphs), base, rtol=1e-10, atol=0, err_msg=f"method={method}")

    adjs, labels = _graph_set("undirected-weighted")
    lam = 0.5 / _rho_max(adjs) ** 2
    base = _grakel_gram(adjs, labels, labelled=False, lam=lam, kernel_type="geometric", p=None)
    fast = _grakel_gram(adjs, labels, labelled=False, lam=lam, kernel_type="geometric", p=None, method_type="fast")
    np.testing.assert_allclose(fast, base, rtol=1e-8)


def _grakel_fast_pair(a: np.ndarray, b: np.ndarray, kernel_type: str, p: int | None, lam: float) -> float:
    """GraKeL's fast spectral k(a, b), by parse_input and pairwise_operation: fit_transform cannot
    run that path under NumPy ≥ 2, where its 1 × 1 array result does not fit a Gram entry."""
    kernel = RandomWalk(lamda=lam, method_type="fast", kernel_type=kernel_type, p=p)
    kernel.initialize()
    x, y = kernel.parse_input([[a], [b]])
    return float(np.asarray(kernel.pairwise_operation(x, y)).item())


@pytest.mark.parametrize("kernel_type,p", [("exponential", None), ("geometric", 3), ("exponential", 3)])
def test_grakel_fast_spectral_differs_from_baseline_on_directed_graphs(kernel_type, p):
    """GraKeL's fast exponential / truncated path writes A = V diag(w) V⁻¹ with V⁻¹ replaced by Vᵀ
    (ysig/GraKeL issue #4), exact only for symmetric A: on a directed pair it is off the baseline
    by more than 1e-6 relative, while ratkit equals the baseline. On an undirected pair it agrees."""
    lam = 0.1
    directed = [_graph_set("directed-01")[0][k] for k in (0, 1)]
    undirected = [_graph_set("undirected-weighted")[0][k] for k in (0, 1)]
    for (a, b), is_directed in ((directed, True), (undirected, False)):
        assert np.array_equal(a, a.T) != is_directed
        base = _grakel_gram([a, b], [[0] * len(a), [0] * len(b)], labelled=False, lam=lam, kernel_type=kernel_type, p=p)
        fast = _grakel_fast_pair(a, b, kernel_type, p, lam)
        if is_directed:
            assert abs(fast - base[0, 1]) / base[0, 1] > 1e-6
        else:
            assert fast == pytest.approx(base[0, 1], rel=1e-9)
        for method in _methods([a, b], "none"):
            k = random_walk(lam, mu=kernel_type, steps=p, adjacency="raw", start="ones", stop="ones", method=method)
            assert k(Graph(a), Graph(b)) == pytest.approx(base[0, 1], rel=1e-10, abs=0), method
