"""The random-walk graph kernel (survey §III, eq. (20)) against a brute-force oracle.

The oracle builds W× by explicit loops over vertex pairs (not by ratkit's product_graph)
and sums Σ_{t ≤ T} p×ᵀ W×ᵗ q× (ratkit's row convention: the survey's q×ᵀ W×ᵗ p×), with p×
zero outside V× (the pairs of equal node labels) when node labels are matched.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from ratkit.automata.graphs import Graph
from ratkit.automata.kernels import RandomWalkKernel, from_spec, random_walk, to_spec
from ratkit.exceptions import DivergentSumError, ParameterError, ParameterTypeError, RatkitError
from ratkit.testing import KernelContract

# -- random graphs and the oracle ---------------------------------------------------------------


def _graph(rng: np.random.Generator, n: int, directed: bool, node_labels=True, edge_labels=True, kinds="ab") -> Graph:
    a = (rng.random((n, n)) < 0.5) * rng.uniform(0.2, 1.5, (n, n))
    np.fill_diagonal(a, 0.0)
    if not directed:
        a = np.triu(a, 1)
        a = a + a.T
    nl = [kinds[int(rng.integers(len(kinds)))] for _ in range(n)] if node_labels else None
    el = None
    if edge_labels:
        el = {}
        for i, j in zip(*np.nonzero(a), strict=True):
            key = (min(i, j), max(i, j)) if not directed else (i, j)
            el.setdefault(key, int(rng.integers(2)))
        el = {(int(i), int(j)): el[(min(i, j), max(i, j)) if not directed else (i, j)] for i, j in zip(*np.nonzero(a))}
    return Graph(a, nl, el)


def _raw(G: Graph, adjacency: str) -> np.ndarray:
    a = G.adjacency.toarray()
    if adjacency == "normalized":
        s = a.sum(axis=1)
        a = np.array([[a[i, j] / s[i] if s[i] > 0 else 0.0 for j in range(len(a))] for i in range(len(a))])
    return a


def _oracle_product(G: Graph, H: Graph, labels: str, adjacency: str) -> np.ndarray:
    a, b = _raw(G, adjacency), _raw(H, adjacency)
    n, m = len(a), len(b)
    W = np.zeros((n * m, n * m))
    for i, ii, j, jj in itertools.product(range(n), range(m), range(n), range(m)):
        w = a[i, j] * b[ii, jj]
        if w == 0:
            continue
        if labels in ("node", "both") and not (
            G.node_labels[i] == H.node_labels[ii] and G.node_labels[j] == H.node_labels[jj]
        ):
            continue
        if labels in ("edge", "both") and G.edge_labels[(i, j)] != H.edge_labels[(ii, jj)]:
            continue
        W[i * m + ii, j * m + jj] = w
    return W


def _vec(G: Graph, spec) -> np.ndarray:
    n = G.n_nodes
    if spec == "uniform":
        return np.full(n, 1.0 / n)
    if spec == "ones":
        return np.ones(n)
    return np.asarray(spec(G), dtype=float)


def _on_matched_pairs(G: Graph, H: Graph, labels: str, p: np.ndarray) -> np.ndarray:
    """p× restricted to V×: with node labels, the pairs (i, i′) with ℓ(i) = ℓ′(i′) (survey §III)."""
    if labels not in ("node", "both"):
        return p
    return p * np.array([a == b for a in G.node_labels for b in H.node_labels], dtype=float)


def _oracle(G, H, coef, labels="none", adjacency="raw", start="uniform", stop="uniform") -> float:
    W = _oracle_product(G, H, labels, adjacency)
    p = _on_matched_pairs(G, H, labels, np.array([x * y for x in _vec(G, start) for y in _vec(H, start)]))
    q = np.array([x * y for x in _vec(G, stop) for y in _vec(H, stop)])
    total, P = 0.0, np.eye(len(W))
    for c in coef:
        total += c * float(p @ P @ q)
        P = P @ W
    return total


def _dense_product(G: Graph, H: Graph, labels: str, adjacency: str) -> np.ndarray:
    """_oracle_product by numpy broadcasting (for graphs too large for its loops): entry
    ((i, i′), (j, j′)) = A_ij A′_i′j′ where the labels asked for agree."""
    a, b = _raw(G, adjacency), _raw(H, adjacency)
    n, m = len(a), len(b)
    W = a[:, None, :, None] * b[None, :, None, :]
    if labels in ("node", "both"):
        same = np.equal.outer(np.asarray(G.node_labels), np.asarray(H.node_labels))  # (n, m)
        W = W * (same[:, :, None, None] & same[None, None, :, :])
    if labels in ("edge", "both"):
        codes: dict = {}
        eg = np.full((n, n), -1)
        eh = np.full((m, m), -2)
        for (i, j), x in G.edge_labels.items():
            eg[i, j] = codes.setdefault(x, len(codes))
        for (i, j), x in H.edge_labels.items():
            eh[i, j] = codes.setdefault(x, len(codes))
        W = W * (eg[:, None, :, None] == eh[None, :, None, :])
    return W.reshape(n * m, n * m)


def _closed(G, H, lam, mu="geometric", steps=None, labels="none", adjacency="raw") -> float:
    """k(G, H) in closed form on the dense product W× of _oracle_product, uniform start and stop:
    Σ_t μ(t) p×ᵀ W×ᵗ q× as (I − λW×)⁻¹ (geometric), e^{λW×} (exponential) or the truncated sum."""
    import scipy.linalg

    if steps is not None:
        fact = math.factorial if mu == "exponential" else (lambda t: 1)
        return _oracle(G, H, [lam**t / fact(t) for t in range(steps + 1)], labels, adjacency)
    W = _dense_product(G, H, labels, adjacency)
    q = np.kron(_vec(G, "uniform"), _vec(H, "uniform"))
    p = _on_matched_pairs(G, H, labels, q)
    if mu == "geometric":
        return float(p @ np.linalg.solve(np.eye(len(W)) - lam * W, q))
    return float(p @ scipy.linalg.expm(lam * W) @ q)


def _first_node_weight(G: Graph) -> np.ndarray:
    """A given start/stop vector: weight 2 on node 0, 1 elsewhere, plus the node's index / 10."""
    return np.array([2.0 if k == 0 else 1.0 + k / 10 for k in range(G.n_nodes)])


@pytest.fixture(scope="module")
def pairs():
    rng = np.random.default_rng(0)
    out = []
    for directed in (False, True):
        for _ in range(2):
            out.append((_graph(rng, int(rng.integers(2, 5)), directed), _graph(rng, int(rng.integers(2, 5)), directed)))
    return out


def _close(a, b, rtol=1e-10):
    assert math.isclose(a, b, rel_tol=rtol, abs_tol=1e-14), (a, b)


# -- the brute-force truncated sum, every option combination ------------------------------------------


MUS = ("geometric", "exponential", (0.7, 0.0, 1.3, 0.4))
METHODS_ALL = ("direct", "sylvester")


@pytest.mark.parametrize("labels", ["none", "node", "edge", "both"])
@pytest.mark.parametrize("adjacency", ["raw", "normalized"])
@pytest.mark.parametrize("start,stop", [("uniform", "uniform"), ("ones", "ones"), (_first_node_weight, "uniform")])
@pytest.mark.parametrize("mu", MUS, ids=["geometric", "exponential", "sequence"])
def test_truncated_sum_equals_brute_force(pairs, labels, adjacency, start, stop, mu):
    lam, T = 0.3, 4
    if mu == "geometric":
        coef = [lam**t for t in range(T + 1)]
    elif mu == "exponential":
        coef = [lam**t / math.factorial(t) for t in range(T + 1)]
    else:
        coef = list(mu)[: T + 1]
    methods = ["direct", "sylvester", "auto"]
    for G, H in pairs:
        want = _oracle(G, H, coef, labels, adjacency, start, stop)
        if labels == "none" and not G.is_directed and not H.is_directed:
            methods_here = [*methods, "spectral"]
        else:
            methods_here = methods
        for method in methods_here:
            k = random_walk(
                lam,
                mu=list(mu) if isinstance(mu, tuple) else mu,
                steps=T,
                labels=labels,
                adjacency=adjacency,
                start=start,
                stop=stop,
                method=method,
            )
            _close(k(G, H), want)


@pytest.mark.parametrize("labels", ["none", "node", "edge", "both"])
@pytest.mark.parametrize("adjacency", ["raw", "normalized"])
def test_geometric_infinite_sum_is_the_limit_of_truncations(pairs, labels, adjacency):
    for G, H in pairs:
        rho = abs(np.linalg.eigvals(_oracle_product(G, H, labels, adjacency))).max()
        lam = 0.5 / rho if rho > 1e-9 else 2.0  # W× nilpotent: every λ converges
        want = _oracle(G, H, [lam**t for t in range(400)], labels, adjacency)
        for method in ("direct", "sylvester", "auto"):
            _close(random_walk(lam, labels=labels, adjacency=adjacency, method=method)(G, H), want, 1e-9)


@pytest.mark.parametrize("adjacency", ["raw", "normalized"])
def test_exponential_infinite_sum_is_the_limit_of_truncations(pairs, adjacency):
    for G, H in pairs:
        for labels in ("none", "both"):
            want = _oracle(G, H, [0.8**t / math.factorial(t) for t in range(60)], labels, adjacency)
            for method in ("direct", "sylvester"):
                k = random_walk(0.8, mu="exponential", labels=labels, adjacency=adjacency, method=method)
                _close(k(G, H), want, 1e-9)


def test_all_methods_agree_on_undirected_graphs():
    rng = np.random.default_rng(3)
    graphs = [_graph(rng, int(rng.integers(3, 8)), False) for _ in range(6)]
    for mu, steps, adjacency in itertools.product(["geometric", "exponential"], [None, 5], ["raw", "normalized"]):
        lam = 0.05
        ref = random_walk(lam, mu=mu, steps=steps, adjacency=adjacency, method="direct").gram(graphs)
        want = [[_closed(G, H, lam, mu, steps, adjacency=adjacency) for H in graphs] for G in graphs]
        np.testing.assert_allclose(ref, want, rtol=1e-10, err_msg=f"direct {mu} {steps} {adjacency}")
        methods = ["sylvester", "spectral", "auto"] + (["cg"] if adjacency == "raw" else [])
        for method in methods:
            G = random_walk(lam, mu=mu, steps=steps, adjacency=adjacency, method=method).gram(graphs)
            np.testing.assert_allclose(G, ref, rtol=1e-10, err_msg=f"{method} {mu} {steps} {adjacency}")


def test_cg_agrees_with_labels_on_undirected_graphs():
    rng = np.random.default_rng(4)
    graphs = [_graph(rng, int(rng.integers(3, 7)), False) for _ in range(5)]
    for labels in ("node", "edge", "both"):
        ref = random_walk(0.1, labels=labels, method="direct").gram(graphs)
        want = [[_closed(G, H, 0.1, labels=labels) for H in graphs] for G in graphs]
        np.testing.assert_allclose(ref, want, rtol=1e-10, err_msg=labels)
        np.testing.assert_allclose(random_walk(0.1, labels=labels, method="cg").gram(graphs), ref, rtol=1e-10)


def test_sylvester_path_on_graphs_too_big_for_the_direct_form():
    rng = np.random.default_rng(5)
    G, H = _graph(rng, 75, True), _graph(rng, 72, True)  # 5400 > DIRECT_MAX: auto takes the operator path
    k_auto = random_walk(0.001, labels="both", method="auto")(G, H)
    k_direct = random_walk(0.001, labels="both", method="direct")(G, H)
    _close(k_auto, k_direct, 1e-10)
    _close(k_auto, _closed(G, H, 0.001, labels="both"), 1e-10)  # the dense 5400 × 5400 solve


# -- symmetry, PDS ----------------------------------------------------------------------------------


@pytest.mark.parametrize("adjacency", ["raw", "normalized"])
@pytest.mark.parametrize("labels", ["none", "both"])
def test_pds_and_symmetric_on_directed_samples(adjacency, labels):
    rng = np.random.default_rng(6)
    graphs = [_graph(rng, int(rng.integers(2, 6)), True) for _ in range(12)]
    k = random_walk(0.1, labels=labels, adjacency=adjacency, method="direct")
    assert k.is_pds is True
    K = k.gram(graphs)
    pair = np.array([[k(g, h) for h in graphs] for g in graphs])  # every pair, both orders, computed
    np.testing.assert_allclose(pair, pair.T, rtol=1e-12)
    np.testing.assert_allclose(K, pair, rtol=1e-12)
    assert np.linalg.eigvalsh(K)[0] >= -1e-10 * np.linalg.eigvalsh(K)[-1]


def test_a_sequence_with_a_negative_weight_is_not_flagged_pds():
    assert random_walk(0.1, mu=[1.0, -0.5]).is_pds is False
    assert random_walk(0.1, mu=[1.0, 0.5]).is_pds is True


def test_gram_fills_the_upper_triangle_in_parallel():
    rng = np.random.default_rng(7)
    graphs = [_graph(rng, int(rng.integers(2, 6)), True) for _ in range(9)]
    serial = random_walk(0.1, labels="edge").gram(graphs)
    parallel = random_walk(0.1, labels="edge", n_jobs=2).gram(graphs)
    np.testing.assert_array_equal(serial, serial.T)
    np.testing.assert_allclose(parallel, serial, rtol=1e-14)


# -- divergence ------------------------------------------------------------------------------------


def test_divergence_names_decay_and_bound():
    triangle = Graph(np.ones((3, 3)) - np.eye(3))  # ρ = 2, so ρ(W×) = 4 against itself
    for method in ("direct", "sylvester", "cg", "spectral", "auto"):
        with pytest.raises(DivergentSumError, match=r"λ = 0\.25.*1/ρ\(W×\) = 0\.25") as info:
            random_walk(0.25, method=method)(triangle, triangle)
        assert isinstance(info.value, RatkitError) and isinstance(info.value, ArithmeticError)
    _close(random_walk(0.2, method="direct")(triangle, triangle), (1 / 9) / (1 - 0.8))  # pᵀAᵗq = 2ᵗ/3


def test_divergence_uses_the_label_filtered_radius():
    # node labels leave no product edge: W× = 0, so every λ converges (ρ(A)ρ(A′) is only a bound);
    # k is the t = 0 term over V× = {(0, 0), (0, 1)}: 2 · (1/2 · 1/2)²
    G = Graph(np.array([[0, 1], [1, 0.0]]), node_labels=["a", "b"])
    H = Graph(np.array([[0, 1], [1, 0.0]]), node_labels=["a", "a"])
    for method in ("direct", "sylvester"):
        _close(random_walk(5.0, labels="node", method=method)(G, H), 1.0 / 8)
    with pytest.raises(DivergentSumError, match="λ = 5.0"):
        random_walk(5.0)(G, H)


def test_truncated_and_exponential_sums_never_diverge():
    triangle = Graph(np.ones((3, 3)) - np.eye(3))
    assert np.isfinite(random_walk(3.0, steps=3)(triangle, triangle))
    assert np.isfinite(random_walk(3.0, mu="exponential")(triangle, triangle))


# -- bad input -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"decay": 0.0}, "decay"),
        ({"decay": -1.0}, "decay"),
        ({"decay": float("nan")}, "decay"),
        ({"decay": 0.1, "mu": "harmonic"}, "mu"),
        ({"decay": 0.1, "mu": []}, "mu"),
        ({"decay": 0.1, "mu": [1.0, "x"]}, r"mu\[1\]"),
        ({"decay": 0.1, "labels": "colour"}, "labels"),
        ({"decay": 0.1, "adjacency": "stochastic"}, "adjacency"),
        ({"decay": 0.1, "method": "fast"}, "method"),
        ({"decay": 0.1, "steps": -1}, "steps"),
        ({"decay": 0.1, "start": "random"}, "start"),
    ],
)
def test_bad_parameters_are_named(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        random_walk(**kwargs)


def test_bad_inputs_are_named():
    plain = Graph(np.array([[0, 1], [1, 0.0]]))
    labelled = Graph(np.array([[0, 1], [1, 0.0]]), node_labels=[1, 2], edge_labels={(0, 1): 0, (1, 0): 0})
    strings = Graph(np.array([[0, 1], [1, 0.0]]), node_labels=["1", "2"], edge_labels={(0, 1): "0", (1, 0): "0"})
    with pytest.raises(ParameterError, match="needs node labels, but graph 0 has none"):
        random_walk(0.1, labels="node")(plain, labelled)
    with pytest.raises(ParameterError, match="needs edge labels"):
        random_walk(0.1, labels="edge")(labelled, plain)
    for labels, what in (("node", "node labels"), ("edge", "edge labels")):
        for method in ("direct", "sylvester"):
            with pytest.raises(ParameterTypeError, match=f"{what} of the two graphs have mismatched types"):
                random_walk(0.1, labels=labels, method=method)(labelled, strings)
    with pytest.raises(ParameterTypeError, match="X\\[1\\] is a str"):
        random_walk(0.1).gram([plain, "ab"])
    with pytest.raises(ParameterTypeError, match="needs two Graphs"):
        random_walk(0.1)(plain, "ab")
    with pytest.raises(ParameterTypeError, match="single Graph"):
        random_walk(0.1).gram(plain)
    with pytest.raises(ParameterError, match="spectral' needs labels='none'"):
        random_walk(0.1, labels="node", method="spectral")(labelled, labelled)
    directed = Graph(np.array([[0, 1], [0, 0.0]]))
    with pytest.raises(ParameterError, match="spectral' needs undirected"):
        random_walk(0.1, method="spectral")(directed, plain)
    with pytest.raises(ParameterError, match="cg' needs"):
        random_walk(0.1, method="cg")(directed, plain)
    with pytest.raises(ParameterError, match="start has shape"):
        random_walk(0.1, start=lambda G: np.ones(5))(plain, plain)


# -- spec -------------------------------------------------------------------------------------------


def test_spec_family_random_walk_builds_the_kernel():
    spec = {"family": "random_walk", "decay": 0.2, "mu": [1.0, 0.5], "labels": "node", "adjacency": "normalized"}
    k = from_spec(spec)
    assert isinstance(k, RandomWalkKernel) and k.decay == 0.2 and k.labels == "node" and k.mu == [1.0, 0.5]
    again = from_spec(json.loads(json.dumps(to_spec(k))))
    assert to_spec(again) == to_spec(k)
    assert from_spec({"family": "random-walk", "decay": 0.1}).decay == 0.1


# -- the contract -----------------------------------------------------------------------------------


class TestRandomWalkContract(KernelContract):
    def make_kernel(self):
        return random_walk(0.05, labels="both", adjacency="normalized", start="ones")

    def make_inputs(self, seed: int = 0, n: int = 10):
        rng = np.random.default_rng(seed)
        return [_graph(rng, int(rng.integers(1, 6)), bool(rng.integers(2))) for _ in range(n)]


class TestRationalRandomWalkContract(TestRandomWalkContract):
    """The same contract through pynini (method="rational", survey §III-2)."""

    def make_kernel(self):
        return random_walk(0.05, labels="both", adjacency="normalized", start="ones", method="rational")


# -- regressions from the issue-16 review ----------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(decay=1e3, mu="exponential"),  # spectral (auto) returned inf
        dict(decay=1e3, mu="exponential", method="direct"),
        dict(decay=1e300, mu="exponential", method="sylvester"),  # a raw OverflowError from scipy
        dict(decay=1e3, steps=200),  # nan (spectral), inf (direct)
        dict(decay=1e3, steps=200, method="direct"),
        dict(decay=1e300, steps=5, method="sylvester"),
        dict(decay=1e300, mu="exponential", steps=4),  # λᵏ/k! raised a raw OverflowError
    ],
)
def test_an_overflowing_sum_is_an_error_not_inf_or_nan(kwargs):
    from ratkit.automata.graphs import from_edges
    from ratkit.exceptions import WeightOverflowError

    tri = from_edges(3, [(0, 1), (1, 2), (0, 2)])
    with pytest.raises(WeightOverflowError, match="overflows float64"):
        random_walk(**kwargs)(tri, tri)


def test_ill_conditioned_solves_agree_with_the_rational_form_and_do_not_hang():
    """GMRES on I − λW× close to the bound failed (info=90), or ran for minutes (nilpotent W×
    with λ = 10); the sparse solve's residual test refused a correct answer."""
    import time

    from ratkit.automata.graphs import from_edges

    tri = from_edges(3, [(0, 1), (1, 2), (0, 2)])
    path = from_edges(3, [(0, 1), (1, 2)], directed=True)
    for G, lam in ((tri, 0.2499), (path, 1000.0), (path, 1e5)):
        exact = random_walk(lam, method="rational")(G, G)
        assert exact == pytest.approx(_closed(G, G, lam), rel=1e-9), lam
        for method in ("direct", "sylvester"):
            assert random_walk(lam, method=method)(G, G) == pytest.approx(exact, rel=1e-9), (method, lam)
    rng = np.random.default_rng(3)
    G, H = (Graph(np.triu((rng.random((n, n)) < 0.05).astype(float), 1)) for n in (80, 70))
    start = time.perf_counter()
    value = random_walk(10.0)(G, H)  # 5600 > DIRECT_MAX: auto picks sylvester
    assert time.perf_counter() - start < 60
    assert value == pytest.approx(random_walk(10.0, method="direct")(G, H), rel=1e-9)
    assert value == pytest.approx(_closed(G, H, 10.0), rel=1e-9)  # W× nilpotent: (I − λW×)⁻¹ exists for any λ


def test_one_array_of_start_or_stop_weights_serves_graphs_of_its_size():
    G = Graph([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    H = Graph([[0, 1, 1], [1, 0, 0], [1, 0, 0]])
    p, q = np.array([1.0, 0.0, 1.0]), np.array([0.5, 0.5, 1.0])
    A, B = G.adjacency.toarray(), H.adjacency.toarray()
    expected = np.kron(p, p) @ np.linalg.solve(np.eye(9) - 0.1 * np.kron(A, B), np.kron(q, q))
    assert random_walk(0.1, start=p, stop=list(q))(G, H) == pytest.approx(expected, rel=1e-12)
    assert random_walk(0.1, start=p, stop=q, method="spectral")(G, H) == pytest.approx(expected, rel=1e-12)
    with pytest.raises(ParameterError, match="one array serves only graphs of its length"):
        random_walk(0.1, start=p)(G, Graph(np.ones((4, 4)) - np.eye(4)))
    with pytest.raises(ParameterError, match="1-d array of finite non-negative weights"):
        random_walk(0.1, start=[1.0, -1.0, 0.0])
    again = from_spec(json.loads(json.dumps(to_spec(random_walk(0.1, start=p, stop=q)))))
    assert again(G, H) == pytest.approx(expected, rel=1e-12)


def test_a_one_shot_iterator_for_mu_is_refused_by_name():
    with pytest.raises(ParameterTypeError, match="one-shot generator"):
        random_walk(0.1, mu=(x for x in [1.0, 0.5]))


def test_edge_weights_that_are_not_numbers_are_refused_by_name():
    from ratkit.automata.graphs import from_edges

    with pytest.raises(ParameterTypeError, match="weights must be 1 numbers"):
        from_edges(3, [(0, 1)], weights=["a"])
