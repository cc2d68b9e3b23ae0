"""The random-walk graph kernel k(G, G′) = Σ_t μ(t) q×ᵀ W×ᵗ p× (survey §III, eq. (17)–(24)).

A walk of the direct product G × G′ is a pair of walks of equal length, one in each graph,
whose labels match (eq. (19)); the kernel counts them, weighted by the product of their edge
weights, by μ(length), by the start weights p ⊗ p′ of their first vertices and the stop
weights q ⊗ q′ of their last. With ratkit's adjacency convention (``[i, j]`` = weight of
i → j, the transpose of the survey's Ã) and A× the product's adjacency,

    k(G, G′) = Σ_t μ(t) p×ᵀ A×ᵗ q×,   A×[(i,i′), (j,j′)] = A_ij A′_i′j′ · [labels match],

which is the survey's q×ᵀ W×ᵗ p× with W× = A×ᵀ.

With node labels (``labels="node"`` or ``"both"``) the product's vertex set V× holds only
the pairs (i, i′) with ℓ(i) = ℓ′(i′), so a walk of G × G′ matches the labels of all its
vertices, its first one included, and p× = p ⊗ p′, q× = q ⊗ q′ are restricted to V×
(``convention="survey"``, the default). The term t = 0 is then Σ_{ℓ(i)=ℓ′(i′)} p_i p′_i′ q_i q′_i′,
and two graphs with no node label in common have k = 0. GraKeL's ``RandomWalkLabeled``
counts the walks of length 0 of all n·n′ pairs instead (only its longer walks are filtered):
``convention="grakel"`` reproduces it. The two differ only in the term t = 0, and coincide
for ``labels="none"`` and ``"edge"``, where V× holds all pairs. Both are PDS.

``start="uniform"`` is p = 1/n in each graph, so p× = 1/(n n′) on the pairs of V×, not
1/|V×|: p× must be a product of one vector per graph, p ⊗ p′, for k to be an inner product
of per-graph features (Theorem 7); a normalisation by |V×|, which depends on both graphs,
would break that (and would be 0/0 when V× is empty).

The methods:

``"direct"``
    A× is built (the adjacency of :func:`~ratkit.automata.graphs.product_graph`) as a sparse matrix: a
    truncated sum by repeated products, the geometric series by a sparse solve of
    (I − λA×) y = q×, the exponential one by ``expm_multiply``. The reference, for small graphs.
``"sylvester"``, ``"cg"``
    A× is never formed: its products come from the vec identity (68)–(69),
    (A ⊗ A′) vec(Y) = vec(A Y A′ᵀ) (row-major vec), with the label filter as a mask on vertex
    pairs (node labels) or a sum over the shared edge labels ℓ of A_ℓ Y A′_ℓᵀ (edge labels).
    The geometric series is solved by GMRES (``"sylvester"``: any graphs) or conjugate
    gradients (``"cg"``: I − λA× symmetric, i.e. raw adjacency of undirected graphs), with
    the residual checked.
``"spectral"``
    Undirected graphs with ``labels="none"``: A = U Λ Uᵀ and A′ = V Λ′ Vᵀ (eq. (24)) give
    k = Σ_ab (pᵀu_a)(u_aᵀq)(p′ᵀv_b)(v_bᵀq′) f(λ_a λ′_b), f(x) = Σ_t μ(t) xᵗ. A normalised
    adjacency D⁻¹A is similar to the symmetric D^-½ A D^-½ and is handled through it.
``"rational"``
    The rational kernel Ψ(S ∘ T ∘ U) of §III-2: S and U the walk automata of the two graphs
    (:func:`~ratkit.automata.graphs.graph_automaton`), T the identity on Σ* weighted by the
    walk length, composed by pynini and summed by :func:`~ratkit.automata.shortest_distance`
    (:mod:`ratkit.automata.kernels._walks_rational`). No product matrix is formed; slower
    than the others, it is the independent route to the same values (Theorem 7). Geometric μ
    or a finite sum with μ(t) ≥ 0 only: the exponential series is not rational.
``"auto"``
    ``"spectral"`` where it applies, else ``"direct"`` while n·n′ ≤ :data:`DIRECT_MAX`,
    else ``"sylvester"``.

The geometric series Σ λᵗ A×ᵗ converges iff λ ρ(A×) < 1; otherwise a
:class:`~ratkit.exceptions.DivergentSumError` names λ and the bound 1/ρ(A×) (λ is never
changed). The kernel is PDS whenever μ(t) ≥ 0 for all t: the product walks of length t
are the pairs of walks with the same label sequence, so k = Σ_t μ(t) Σ_s φ_{t,s}(G) φ_{t,s}(G′)
with φ_{t,s}(G) the total weight of the walks of G of length t with label sequence s.

References
----------
A. Ghose, *Rational kernels: a survey*, §III, eq. (17)–(24), Theorem 7, identities (68)–(69).
S. V. N. Vishwanathan, N. N. Schraudolph, R. Kondor, K. M. Borgwardt, "Graph kernels",
JMLR 11, 2010.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ratkit._parallel import pair_matrix
from ratkit._validation import check_choice, check_int, check_real
from ratkit.automata.graphs import Graph
from ratkit.automata.graphs._automaton import walk_vector
from ratkit.automata.graphs._product import LABEL_MODES, check_label_kinds, matched_pairs, product_adjacency
from ratkit.automata.kernels._walks_rational import rational_walk_value
from ratkit.automata.kernels.base import Kernel
from ratkit.automata.kernels.inputs import check_gram_bytes
from ratkit.exceptions import DivergentSumError, ParameterError, ParameterTypeError, SolverError, WeightOverflowError
from ratkit.plugins import register

__all__ = ["RandomWalkKernel", "random_walk", "METHODS", "CONVENTIONS", "DIRECT_MAX"]

METHODS = ("auto", "direct", "sylvester", "cg", "spectral", "rational")
#: ``convention`` values: V× the matched vertex pairs (survey §III), or all pairs at t = 0 (GraKeL).
CONVENTIONS = ("survey", "grakel")
_MU_KINDS = ("geometric", "exponential")
#: The largest product size n·n′ that ``method="auto"`` computes by the direct form.
DIRECT_MAX = 5000
#: The largest product size whose spectral radius is computed densely (else by ARPACK).
_DENSE_RADIUS_MAX = 1000
_RTOL = 1e-12
#: GMRES restart length, and restart cycles allowed (CG: iterations per unknown) before the
#: exact sparse solve takes over.
_RESTART = 100
_KRYLOV_CYCLES = 20
#: Backward error accepted of a solve (:func:`_small_residual`).
_BACKWARD = 1e-10
#: The largest product size solved directly when a Krylov method does not converge.
_FALLBACK_MAX = 200_000
#: λ ρ(W×) ≥ 1 − _EDGE counts as divergent (ρ is computed to rounding error).
_EDGE = 1e-10
_OWNER = "random_walk"


# -- per-graph preparation --------------------------------------------------------------------


class _Prepared:
    """What every pair needs of one graph: its (normalised) adjacency, p, q, labels, ρ(A),
    and, for the spectral method, its eigenvalues and the coefficients (pᵀu_a)(u_aᵀq)."""

    __slots__ = ("graph", "A", "AT", "p", "q", "undirected", "radius", "eig", "edge_mats")

    def __init__(
        self, graph: Graph, kernel: RandomWalkKernel, index: int, spectral: bool, p: np.ndarray, q: np.ndarray
    ) -> None:
        labels = kernel.labels
        if labels in ("node", "both") and graph.node_labels is None:
            raise ParameterError(f"labels={labels!r} needs node labels, but graph {index} has none.")
        if labels in ("edge", "both") and graph.edge_labels is None:
            raise ParameterError(f"labels={labels!r} needs edge labels, but graph {index} has none.")
        g = graph.normalized() if kernel.adjacency == "normalized" else graph
        self.graph = g
        self.A = g.adjacency
        self.AT = sp.csr_matrix(self.A.T)
        self.p = p
        self.q = q
        self.undirected = (abs(graph.adjacency - graph.adjacency.T) > 0).nnz == 0
        self.radius = _radius(self.A)
        self.eig = _eigen(graph, self, kernel.adjacency) if spectral and self.undirected else None
        self.edge_mats: dict[Any, sp.csr_matrix] | None = None
        if labels in ("edge", "both"):
            src, dst, w = g.edges()
            el = graph.edge_labels
            lab = [el[(int(i), int(j))] for i, j in zip(src, dst, strict=True)]
            n = g.n_nodes
            groups: dict[Any, list[int]] = {}
            for k, x in enumerate(lab):
                groups.setdefault(x, []).append(k)
            self.edge_mats = {x: sp.csr_matrix((w[ks], (src[ks], dst[ks])), shape=(n, n)) for x, ks in groups.items()}


#: Prepared graphs kept per process, least recently used dropped first: a Gram computed in
#: blocks (``gram(..., out=..., block_bytes=...)``) hands every block the graphs of its
#: columns again, and preparing them (ρ(A), eigenvectors) costs more than most pairs.
_PREPARED_MAX = 4096
_prepared_cache: OrderedDict[tuple[Any, ...], _Prepared] = OrderedDict()


def _prepared(graph: Graph, kernel: RandomWalkKernel, index: int, spectral: bool) -> _Prepared:
    """``_Prepared(graph, …)``, from the per-process cache when this graph (by content) was
    prepared under the same labels, adjacency, spectral choice and the same p and q (by value:
    a callable start or stop is called again, so that one freed callable's reused address, or
    a callable object changed in place, never serves another's p and q)."""
    p = _walk(graph, kernel.start, "start")
    q = _walk(graph, kernel.stop, "stop")
    key = (graph, kernel.labels, kernel.adjacency, p.tobytes(), q.tobytes(), spectral)
    hit = _prepared_cache.get(key)
    if hit is not None:
        _prepared_cache.move_to_end(key)
        return hit
    prepared = _Prepared(graph, kernel, index, spectral, p, q)
    _prepared_cache[key] = prepared
    if len(_prepared_cache) > _PREPARED_MAX:
        _prepared_cache.popitem(last=False)
    return prepared


def _exp_term(lam: float, k: int) -> float:
    """λᵏ/k!, ∞ when it leaves float64 (then the sum reports the overflow)."""
    try:
        return lam**k / math.factorial(k)
    except OverflowError:
        return math.inf


def _walk(G: Graph, spec: Any, what: str) -> np.ndarray:
    """p or q of G: ``"uniform"``, ``"ones"``, a callable G → n non-negative weights, or one
    array of n weights for graphs of n nodes."""
    if callable(spec):
        return walk_vector(G, spec(G), what)
    if not isinstance(spec, str) and np.shape(spec) != (G.n_nodes,):
        raise ParameterError(
            f"{what} is an array of {np.size(spec)} weights, but a graph has {G.n_nodes} nodes: one array serves only "
            f"graphs of its length. For graphs of several sizes give a callable, e.g. {what}=lambda G: weights_of(G)."
        )
    return walk_vector(G, spec, what)


def _weights_array(value: Any, name: str) -> None:
    """Refuse a start/stop value that is neither a string, a callable nor a 1-d array of
    finite non-negative numbers."""
    try:
        v = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        v = None
    if v is None or v.ndim != 1 or v.size == 0 or not np.all(np.isfinite(v)) or np.any(v < 0):
        raise ParameterError(
            f"The '{name}' parameter of {_OWNER} must be 'uniform', 'ones', a callable Graph → weights, or a 1-d "
            f"array of finite non-negative weights (one per node). Got {value!r:.80} instead."
        )


def _radius(A: sp.csr_matrix) -> float:
    """ρ(A) of a non-negative matrix (its Perron root)."""
    n = A.shape[0]
    if A.nnz == 0:
        return 0.0
    if n <= _DENSE_RADIUS_MAX:
        return _dense_radius(A)
    return _arpack_radius(spla.aslinearoperator(A), n, "the adjacency")


def _arpack_radius(op: spla.LinearOperator, n: int, what: str) -> float:
    try:
        vals = spla.eigs(op, k=1, which="LM", tol=1e-12, maxiter=20 * n, return_eigenvectors=False)
    except spla.ArpackNoConvergence:
        raise SolverError(
            f"ARPACK did not converge on the spectral radius of {what} ({n} × {n}), so whether the "
            "geometric series converges is unknown; use a truncation (steps) or method='direct' on smaller graphs."
        ) from None
    return float(np.max(np.abs(vals)))


def _eigen(graph: Graph, prep: _Prepared, adjacency: str) -> tuple[np.ndarray, np.ndarray]:
    """(eigenvalues w_a, coefficients c_a) of a symmetric form of the adjacency with
    pᵀ Aᵗ q = Σ_a c_a w_aᵗ for every t ≥ 0."""
    a = graph.adjacency.toarray()
    p, q = prep.p, prep.q
    if adjacency == "normalized":  # D⁻¹A = D^-½ S D^½ with S = D^-½ A D^-½ (D_vv = 1 where v has no edge)
        d = a.sum(axis=1)
        d[d == 0] = 1.0
        s = np.sqrt(d)
        a = a / s[:, None] / s[None, :]
        p, q = p / s, q * s
    w, U = np.linalg.eigh((a + a.T) / 2)
    return w, (U.T @ p) * (U.T @ q)


# -- the product operator A× without forming it (vec identity (68)-(69)) ---------------------------


def _product_ops(g: _Prepared, h: _Prepared, labels: str) -> tuple[Callable, Callable, float]:
    """(y ↦ A× y, y ↦ A×ᵀ y, trace A×), y a row-major vec of an n × n′ matrix."""
    n, m = g.A.shape[0], h.A.shape[0]
    mask = None
    if labels in ("node", "both"):
        mask = matched_pairs(g.graph, h.graph).reshape(n, m).astype(np.float64)
    if labels in ("edge", "both"):
        check_label_kinds(g.edge_mats, h.edge_mats, "edge labels")
        shared = [x for x in g.edge_mats if x in h.edge_mats]
        pairs = [(g.edge_mats[x], h.edge_mats[x]) for x in shared]
    else:
        pairs = [(g.A, h.A)]
    pairs_t = [(sp.csr_matrix(a.T), sp.csr_matrix(b.T)) for a, b in pairs]
    diagonal = sum(np.outer(a.diagonal(), b.diagonal()) for a, b in pairs)
    trace = float(np.sum(diagonal * mask if mask is not None else diagonal))

    def apply(terms: list, y: np.ndarray) -> np.ndarray:
        Y = np.asarray(y, dtype=np.float64).reshape(n, m)
        if mask is not None:
            Y = Y * mask
        out = np.zeros((n, m))
        for a, b in terms:  # A Y Bᵀ = (B (A Y)ᵀ)ᵀ
            out += (b @ (a @ Y).T).T
        if mask is not None:
            out *= mask
        return out.ravel()

    return functools.partial(apply, pairs), functools.partial(apply, pairs_t), trace


# -- the kernel ------------------------------------------------------------------------------------


@register("kernel", "random-walk")
class RandomWalkKernel(Kernel):
    """The random-walk kernel k(G, G′) = Σ_t μ(t) q×ᵀ W×ᵗ p× on :class:`~ratkit.automata.graphs.Graph`
    inputs (survey eq. (20)); see :mod:`ratkit.automata.kernels.random_walk`.

    Parameters
    ----------
    decay
        λ > 0. With ``mu="geometric"`` μ(t) = λᵗ, with ``"exponential"`` μ(t) = λᵗ/t!; unused
        (but still checked) when ``mu`` is a sequence.
    mu
        ``"geometric"``, ``"exponential"`` or a non-empty sequence μ(0), μ(1), … of finite reals
        (a sum truncated at t = len(mu) − 1).
    steps
        None (the infinite sum, or the whole sequence) or an int ≥ 0: the sum runs over t ≤ steps.
    labels
        ``"none"``, ``"node"``, ``"edge"`` or ``"both"``: which labels a product edge must match.
    adjacency
        ``"raw"`` (the weights as given, GraKeL's convention) or ``"normalized"`` (each
        vertex's out-weights scaled to sum to one: the survey's A = ÃD⁻¹).
    start, stop
        p and q: ``"uniform"`` (1/n), ``"ones"``, a callable taking a Graph and returning its n
        non-negative weights (not writable to a spec), or one array of n weights, used for
        every graph (all of n nodes). p× = p ⊗ p′ and q× = q ⊗ q′, restricted to the matched pairs
        with node labels (see ``convention``); ``"uniform"`` stays 1/n per graph (see the module).
    method
        ``"auto"``, ``"direct"``, ``"sylvester"``, ``"cg"``, ``"spectral"`` or ``"rational"``
        (see the module).
    convention
        ``"survey"`` (the default: with node labels, p× and q× live on the matched pairs V×, so
        the first vertices of two walks must match too, and graphs without a common node label
        have k = 0) or ``"grakel"`` (the walks of length 0 of all n·n′ vertex pairs count, as
        GraKeL's ``RandomWalkLabeled``). They differ only for ``labels="node"``/``"both"``, in
        the term t = 0.
    n_jobs, show_progress
        Processes for Gram matrices (joblib's convention) and a progress bar.
    """

    def __init__(
        self,
        decay: float,
        *,
        mu: Literal["geometric", "exponential"] | Sequence[float] = "geometric",
        steps: int | None = None,
        labels: Literal["none", "node", "edge", "both"] = "none",
        adjacency: Literal["raw", "normalized"] = "raw",
        start: Any = "uniform",
        stop: Any = "uniform",
        method: Literal["auto", "direct", "sylvester", "cg", "spectral", "rational"] = "auto",
        convention: Literal["survey", "grakel"] = "survey",
        n_jobs: int | None = None,
        show_progress: bool = False,
    ) -> None:
        self.decay = decay
        self.mu = mu
        self.steps = steps
        self.labels = labels
        self.adjacency = adjacency
        self.start = start
        self.stop = stop
        self.method = method
        self.convention = convention
        self.n_jobs = n_jobs
        self.show_progress = show_progress

    # -- parameters ----------------------------------------------------------------------
    def _validate_params(self) -> None:
        check_real(self.decay, "decay", _OWNER, low=0.0, low_open=True)
        self._mu_sequence()
        if self.steps is not None:
            check_int(self.steps, "steps", _OWNER, low=0)
        check_choice(self.labels, "labels", _OWNER, LABEL_MODES)
        check_choice(self.adjacency, "adjacency", _OWNER, ("raw", "normalized"))
        check_choice(self.method, "method", _OWNER, METHODS)
        check_choice(self.convention, "convention", _OWNER, CONVENTIONS)
        for name in ("start", "stop"):
            value = getattr(self, name)
            if isinstance(value, str):
                check_choice(value, name, _OWNER, ("uniform", "ones"))
            elif not callable(value):
                _weights_array(value, name)
        if self.method == "rational":
            coef = self._coefficients()
            if coef is None and self.mu == "exponential":
                raise ParameterError(
                    "method='rational' cannot sum the exponential series λᵗ/t!: no finite automaton has those "
                    "weights (the series is not rational). Give steps to truncate it, or use another method."
                )
            if coef is not None and np.any(coef < 0):
                raise ParameterError(
                    "method='rational' needs μ(t) ≥ 0 (the automata's weights are probabilities); "
                    f"got mu={self.mu!r}. Use another method for signed μ."
                )

    def _mu_sequence(self) -> np.ndarray | None:
        """μ as an array when it is a sequence, None for "geometric"/"exponential"."""
        mu = self.mu
        if isinstance(mu, str):
            check_choice(mu, "mu", _OWNER, _MU_KINDS)
            return None
        if isinstance(mu, Iterator):
            raise ParameterTypeError(
                f"The 'mu' parameter of {_OWNER} must be a sequence (list, tuple or array) of μ(0), μ(1), …; got a "
                f"one-shot {type(mu).__name__}, which would be used up by the first look. Pass list(...) of it."
            )
        try:
            values = [v for v in mu]
        except TypeError:
            raise ParameterTypeError(
                f"The 'mu' parameter of {_OWNER} must be 'geometric', 'exponential' or a sequence of "
                f"floats μ(0), μ(1), …. Got {mu!r} instead."
            ) from None
        if not values:
            raise ParameterError(f"The 'mu' parameter of {_OWNER} is an empty sequence; give μ(0) at least.")
        for t, v in enumerate(values):
            check_real(v, f"mu[{t}]", _OWNER)
        return np.array(values, dtype=np.float64)

    @property
    def is_pds(self) -> bool:  # type: ignore[override]
        """True when μ(t) ≥ 0 for every t (always for geometric and exponential μ)."""
        seq = self._mu_sequence()
        return seq is None or bool(np.all(seq >= 0))

    def _coefficients(self) -> np.ndarray | None:
        """μ(0), …, μ(T) of a finite sum, or None for an infinite series."""
        seq = self._mu_sequence()
        lam = float(self.decay)
        if seq is not None:
            return seq if self.steps is None else seq[: self.steps + 1]
        if self.steps is None:
            return None
        t = np.arange(self.steps + 1)
        with np.errstate(over="ignore"):  # an overflowing μ(t) is reported by the sum (WeightOverflowError)
            if self.mu == "geometric":
                return lam**t
            return np.array([_exp_term(lam, int(k)) for k in t], dtype=np.float64)

    # -- inputs ------------------------------------------------------------------------------
    @staticmethod
    def _graphs(X: Any, what: str) -> list[Graph]:
        if isinstance(X, Graph):
            raise ParameterTypeError(
                f"{what} must be a collection of Graphs (a list); got a single Graph. Use k(G, H) for two "
                "graphs or wrap them in lists."
            )
        try:
            items = list(X)
        except TypeError:
            raise ParameterTypeError(f"{what} must be a list of Graphs; got {type(X).__name__}.") from None
        for i, g in enumerate(items):
            if not isinstance(g, Graph):
                raise ParameterTypeError(
                    f"{what}[{i}] is a {type(g).__name__}; the random-walk kernel takes ratkit.automata.graphs.Graph."
                )
        return items

    def __call__(self, X: Any, Y: Any = None) -> Any:
        """k(G, H) for two Graphs, the Gram matrix for two lists of Graphs."""
        if isinstance(X, Graph):
            if not isinstance(Y, Graph):
                raise ParameterTypeError(
                    f"k(G, H) needs two Graphs; got a {type(Y).__name__} as H. For Gram matrices pass lists."
                )
            return self.value(X, Y)
        return self.gram(X, Y)

    def value(self, x: Any, y: Any) -> float:
        """k(G, H) for two Graphs."""
        for g, name in ((x, "G"), (y, "H")):
            if not isinstance(g, Graph):
                raise ParameterTypeError(f"{name} is a {type(g).__name__}; the random-walk kernel takes Graphs.")
        return float(self.gram([x], [y])[0, 0])

    def diag(self, X: Any) -> np.ndarray:
        """[k(G, G) for G in X]."""
        graphs = self._graphs(X, "X")
        return np.array([self.value(g, g) for g in graphs], dtype=np.float64)

    # -- Gram matrices -------------------------------------------------------------------------
    def _gram(self, X: Any, Y: Any = None) -> np.ndarray:
        """[k(G_i, H_j)]; Y = None: X against itself, only the upper triangle computed."""
        self._validate_params()
        left = self._graphs(X, "X")
        right = left if Y is None else self._graphs(Y, "Y")
        check_gram_bytes(len(left), len(right), self)
        if not left or not right:
            return np.zeros((len(left), len(right)))
        spectral = self.method in ("auto", "spectral") and self.labels == "none"
        pl = [_prepared(g, self, i, spectral) for i, g in enumerate(left)]
        pr = pl if Y is None else [_prepared(g, self, i, spectral) for i, g in enumerate(right)]
        return pair_matrix(
            functools.partial(_pair, c=_Config(self)),
            pl,
            pr,
            symmetric=Y is None,
            n_jobs=self.n_jobs,
            show_progress=bool(self.show_progress),
            desc="random walk",
        )


def random_walk(
    decay: float,
    *,
    mu: Literal["geometric", "exponential"] | Sequence[float] = "geometric",
    steps: int | None = None,
    labels: Literal["none", "node", "edge", "both"] = "none",
    adjacency: Literal["raw", "normalized"] = "raw",
    start: Any = "uniform",
    stop: Any = "uniform",
    method: Literal["auto", "direct", "sylvester", "cg", "spectral", "rational"] = "auto",
    convention: Literal["survey", "grakel"] = "survey",
    n_jobs: int | None = None,
    show_progress: bool = False,
) -> RandomWalkKernel:
    """The random-walk kernel k(G, G′) = Σ_t μ(t) q×ᵀ W×ᵗ p× (survey eq. (20)) with μ(t) = λᵗ
    (``"geometric"``), λᵗ/t! (``"exponential"``) or a given sequence, λ = ``decay``; see
    :class:`RandomWalkKernel`. Spec: ``{"family": "random-walk", "decay": λ, ...}``.

    With node labels, two walks are a walk of the product graph only when the labels of all
    their vertices match, the first ones included (survey §III: V× holds the pairs of equal
    labels); ``convention="grakel"`` counts the length-0 walks of all vertex pairs instead, as
    GraKeL's ``RandomWalkLabeled``.

    >>> import numpy as np
    >>> from ratkit.automata.graphs import Graph
    >>> G = Graph(np.array([[0, 1], [1, 0.0]]), node_labels=["a", "b"])
    >>> H = Graph(np.array([[0, 1], [1, 0.0]]), node_labels=["c", "d"])
    >>> random_walk(0.1, labels="node", start="ones", stop="ones")(G, H)
    0.0
    >>> random_walk(0.1, labels="node", start="ones", stop="ones", convention="grakel")(G, H)
    4.0
    """
    k = RandomWalkKernel(
        decay,
        mu=mu,
        steps=steps,
        labels=labels,
        adjacency=adjacency,
        start=start,
        stop=stop,
        method=method,
        convention=convention,
        n_jobs=n_jobs,
        show_progress=show_progress,
    )
    k._validate_params()
    return k


# -- per-pair evaluation (module level: picklable for worker processes) -------------------------------


class _Config:
    """The kernel's parameters as one pair's computation needs them."""

    def __init__(self, k: RandomWalkKernel) -> None:
        self.decay = float(k.decay)
        self.mu = None if not isinstance(k.mu, str) else k.mu
        self.coef = k._coefficients()
        self.labels = k.labels
        #: p× and q× restricted to the matched vertex pairs (V× of the survey)
        self.match_start = k.labels in ("node", "both") and k.convention == "survey"
        self.method = k.method
        self.raw = k.adjacency == "raw"


def _method(g: _Prepared, h: _Prepared, c: _Config) -> str:
    spectral_ok = c.labels == "none" and g.eig is not None and h.eig is not None
    if c.method == "spectral":
        if c.labels != "none":
            raise ParameterError(f"method='spectral' needs labels='none'; got labels={c.labels!r}.")
        if not (g.undirected and h.undirected):
            raise ParameterError(
                "method='spectral' needs undirected graphs (symmetric adjacency); a graph is directed."
            )
        return "spectral"
    if c.method == "cg" and not (c.raw and g.graph.is_directed is False and h.graph.is_directed is False):
        raise ParameterError(
            "method='cg' needs I − λW× symmetric: raw adjacency of undirected graphs (with symmetric edge labels); "
            "use method='sylvester' for directed or normalised graphs."
        )
    if c.method != "auto":
        return c.method
    if spectral_ok:
        return "spectral"
    return "direct" if g.A.shape[0] * h.A.shape[0] <= DIRECT_MAX else "sylvester"


def _check_convergence(g: _Prepared, h: _Prepared, c: _Config, exact: Callable[[], float]) -> None:
    """Raise DivergentSumError unless λ ρ(W×) < 1 − :data:`_EDGE`; ``exact`` gives ρ(W×) when
    the bound ρ(A) ρ(A′) (exact without labels) does not settle it. The margin keeps a λ on
    the bound, where ρ is computed to rounding, from reaching a singular solve."""
    lam = c.decay
    bound = g.radius * h.radius
    if lam * bound < 1 - _EDGE:
        return
    rho = bound if c.labels == "none" else exact()
    if lam * rho < 1 - _EDGE:
        return
    limit = "∞ (no bound: W× is nilpotent)" if rho == 0 else f"{1 / rho:.17g}"
    raise DivergentSumError(
        f"The geometric random-walk series Σ λᵗ W×ᵗ diverges for decay λ = {lam!r}: it converges only for "
        f"λ < 1/ρ(W×) = {limit} (ρ(W×) = {rho:.17g} for graphs of {g.A.shape[0]} and {h.A.shape[0]} nodes). "
        "Use a smaller decay, a truncation (steps), or mu='exponential'."
    )


def _pair(g: _Prepared, h: _Prepared, c: _Config) -> float:
    """k(G, H) by the method chosen. numpy's and scipy's overflow warnings are silenced: an
    overflow is reported once, as the WeightOverflowError of :func:`_finite_value`, and a
    NaN or ∞ in a solve fails its residual check."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return _pair_value(g, h, c)


def _pair_value(g: _Prepared, h: _Prepared, c: _Config) -> float:
    method = _method(g, h, c)
    if method == "spectral":
        return _spectral(g, h, c)
    if method == "rational":
        return _rational(g, h, c)
    px = np.outer(g.p, h.p).ravel()
    qx = np.outer(g.q, h.q).ravel()
    if c.match_start:  # p× on V× only; for t ≥ 1 the rows of A× outside V× are zero anyway
        px = px * matched_pairs(g.graph, h.graph)
    size = px.size
    if method == "direct":
        M = product_adjacency(g.graph, h.graph, c.labels)
        mv, rmv = M.__matmul__, M.T.__matmul__
    else:
        mv, rmv, trace = _product_ops(g, h, c.labels)
        M = None
    if c.coef is not None:  # a finite sum Σ_t μ(t) p×ᵀ A×ᵗ q×
        y, total = qx, c.coef[0] * float(px @ qx)
        for mu_t in c.coef[1:]:
            y = mv(y)
            total += mu_t * float(px @ y)
        return _finite_value(total, c, method)
    op = spla.LinearOperator((size, size), matvec=mv, rmatvec=rmv, dtype=np.float64)
    if c.mu == "exponential":  # e^{λA×} q× by scipy's truncated Taylor with scaling (Al-Mohy & Higham)
        try:
            if M is not None:
                y = spla.expm_multiply(c.decay * sp.csc_matrix(M), qx)
            else:
                y = spla.expm_multiply(c.decay * op, qx, traceA=c.decay * trace)
        except OverflowError:
            y = np.array([np.inf])
        return _finite_value(float(px @ y) if np.all(np.isfinite(y)) else math.inf, c, method)

    def exact() -> float:
        if size <= _DENSE_RADIUS_MAX:  # W× itself, or built column by column from its products
            return _dense_radius(M if M is not None else np.column_stack([mv(e) for e in np.eye(size)]))
        return _arpack_radius(op, size, "the product graph's W×")

    _check_convergence(g, h, c, exact)
    lam = c.decay
    y = None
    if method != "direct":
        system = spla.LinearOperator((size, size), matvec=lambda v: v - lam * mv(v), dtype=np.float64)
        solver = spla.cg if method == "cg" else spla.gmres
        extra = {} if method == "cg" else {"restart": min(size, _RESTART)}
        cap = _KRYLOV_CYCLES if method == "sylvester" else _KRYLOV_CYCLES * _RESTART  # GMRES counts restart cycles
        y, info = solver(system, qx, rtol=_RTOL, atol=0.0, maxiter=cap, **extra)
        if info != 0 or not _small_residual(y, lam, mv, qx):
            if size > _FALLBACK_MAX:
                raise SolverError(
                    f"{method} did not reach a backward error of {_BACKWARD:g} on (I − λW×) y = q× (size {size}, "
                    f"λ = {lam!r}: I − λW× is ill-conditioned this close to the bound), and the product is too "
                    f"large ({size} > {_FALLBACK_MAX}) to solve directly; use a smaller decay or a truncation (steps)."
                )
            y = None  # fall back to the exact sparse solve
    if y is None:
        if M is None:
            M = product_adjacency(g.graph, h.graph, c.labels)
        y = spla.spsolve(sp.identity(size, format="csc") - lam * sp.csc_matrix(M), qx)
        if not _small_residual(y, lam, M.__matmul__, qx):
            raise SolverError(
                f"The sparse solve of (I − λW×) y = q× (size {size}, λ = {lam!r}) left a backward error above "
                f"{_BACKWARD:g}: I − λW× is numerically singular this close to the bound 1/ρ(W×); the value is not "
                "returned. Use a smaller decay or a truncation (steps)."
            )
    return _finite_value(float(px @ y), c, method)


def _small_residual(y: np.ndarray, lam: float, mv: Callable, q: np.ndarray) -> bool:
    """‖y − λW×y − q‖ ≤ _BACKWARD·(‖y‖ + λ‖W×y‖ + ‖q‖): the backward error of a solution of
    (I − λW×) y = q at the level of a stable solve (the residual is measured against the
    sizes of the terms, not of q alone, so a large y near the bound is judged fairly)."""
    if not np.all(np.isfinite(y)):
        return False
    Wy = mv(y)
    scale = float(np.linalg.norm(y)) + lam * float(np.linalg.norm(Wy)) + float(np.linalg.norm(q))
    return float(np.linalg.norm(y - lam * Wy - q)) <= _BACKWARD * max(scale, 1e-300)


def _finite_value(value: float, c: _Config, method: str) -> float:
    """``value`` unless it overflowed float64 (a huge decay, many steps): then an error."""
    if math.isfinite(value):
        return value
    raise WeightOverflowError(
        f"The random-walk sum overflows float64 (method {method!r}, decay λ = {c.decay!r}"
        f"{'' if c.coef is None else f', {len(c.coef) - 1} steps'}): the value is not returned. "
        "Use a smaller decay or fewer steps."
    )


def _spectral(g: _Prepared, h: _Prepared, c: _Config) -> float:
    """Σ_ab c_a c′_b f(w_a w′_b), f(x) = Σ_t μ(t) xᵗ (eq. (24))."""
    (wg, cg_), (wh, ch) = g.eig, h.eig
    x = np.outer(wg, wh)
    if c.coef is not None:
        f = np.zeros_like(x)
        for mu_t in c.coef[::-1]:  # Horner
            f = f * x + mu_t
    elif c.mu == "exponential":
        f = np.exp(c.decay * x)
    else:
        _check_convergence(g, h, c, lambda: g.radius * h.radius)
        f = 1.0 / (1.0 - c.decay * x)
    with np.errstate(over="ignore", invalid="ignore"):
        value = float(cg_ @ f @ ch)
    return _finite_value(value, c, "spectral")


def _rational(g: _Prepared, h: _Prepared, c: _Config) -> float:
    """Ψ(S ∘ T ∘ U) through pynini (see ``method="rational"``); the divergence check as for
    the other methods, so a divergent λ is named the same way."""
    if c.coef is None:
        _check_convergence(g, h, c, lambda: _dense_radius(product_adjacency(g.graph, h.graph, c.labels)))
        value = rational_walk_value(
            g.graph, h.graph, c.labels, (g.p, h.p), (g.q, h.q), decay=c.decay, match_start=c.match_start
        )
    else:
        value = rational_walk_value(
            g.graph, h.graph, c.labels, (g.p, h.p), (g.q, h.q), coefficients=c.coef, match_start=c.match_start
        )
    return _finite_value(value, c, "rational")


def _dense_radius(M: sp.csr_matrix | np.ndarray) -> float:
    """ρ(M) of a non-negative matrix (sparse or dense), by a dense eigendecomposition."""
    dense = M.toarray() if sp.issparse(M) else M
    return float(np.max(np.abs(np.linalg.eigvals(dense)))) if dense.any() else 0.0
