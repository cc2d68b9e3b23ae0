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
from collections.abc import Iterator, Sequence
from typing import Any, Literal

import numpy as np

from ratkit._parallel import pair_matrix
from ratkit._validation import check_choice, check_int, check_real
from ratkit.automata.graphs import Graph
from ratkit.automata.graphs.product import LABEL_MODES
from ratkit.automata.kernels._walks_pairs import DIRECT_MAX, _Config, _pair
from ratkit.automata.kernels._walks_prepared import _prepared
from ratkit.automata.kernels.base import Kernel
from ratkit.automata.kernels.inputs import check_gram_bytes
from ratkit.exceptions import ParameterError, ParameterTypeError
from ratkit.plugins import register

__all__ = ["RandomWalkKernel", "random_walk", "METHODS", "CONVENTIONS", "DIRECT_MAX"]

METHODS = ("auto", "direct", "sylvester", "cg", "spectral", "rational")
#: ``convention`` values: V× the matched vertex pairs (survey §III), or all pairs at t = 0 (GraKeL).
CONVENTIONS = ("survey", "grakel")
_MU_KINDS = ("geometric", "exponential")
_OWNER = "random_walk"


def _exp_term(lam: float, k: int) -> float:
    """λᵏ/k!, ∞ when it leaves float64 (then the sum reports the overflow)."""
    try:
        return lam**k / math.factorial(k)
    except OverflowError:
        return math.inf


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
