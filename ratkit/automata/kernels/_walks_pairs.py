"""One value k(G, H) of the random-walk kernel, by the method chosen for the pair.

:func:`_pair` evaluates Σ_t μ(t) p×ᵀ A×ᵗ q× for two prepared graphs: the direct form on the
product's adjacency, the vec identity (68)–(69) for products of A× without forming it
(``"sylvester"``, ``"cg"``), the eigendecompositions (``"spectral"``) or the rational
kernel (``"rational"``), after checking that a geometric series converges. Everything here
is at module level, so that worker processes can unpickle it.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ratkit.automata.graphs.product import check_label_kinds, matched_pairs, product_adjacency
from ratkit.automata.kernels._walks_prepared import _DENSE_RADIUS_MAX, _arpack_radius, _dense_radius, _Prepared
from ratkit.automata.kernels._walks_rational import rational_walk_value
from ratkit.exceptions import DivergentSumError, ParameterError, SolverError, WeightOverflowError

if TYPE_CHECKING:
    from ratkit.automata.kernels.random_walk import RandomWalkKernel


#: The largest product size n·n′ that ``method="auto"`` computes by the direct form.
DIRECT_MAX = 5000
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
    solution: np.ndarray | None = None
    if method != "direct":
        system = spla.LinearOperator((size, size), matvec=lambda v: v - lam * mv(v), dtype=np.float64)
        solver = spla.cg if method == "cg" else spla.gmres
        extra = {} if method == "cg" else {"restart": min(size, _RESTART)}
        cap = _KRYLOV_CYCLES if method == "sylvester" else _KRYLOV_CYCLES * _RESTART  # GMRES counts restart cycles
        solution, info = solver(system, qx, rtol=_RTOL, atol=0.0, maxiter=cap, **extra)
        if info != 0 or not _small_residual(solution, lam, mv, qx):
            if size > _FALLBACK_MAX:
                raise SolverError(
                    f"{method} did not reach a backward error of {_BACKWARD:g} on (I − λW×) y = q× (size {size}, "
                    f"λ = {lam!r}: I − λW× is ill-conditioned this close to the bound), and the product is too "
                    f"large ({size} > {_FALLBACK_MAX}) to solve directly; use a smaller decay or a truncation (steps)."
                )
            solution = None  # fall back to the exact sparse solve
    if solution is None:
        if M is None:
            M = product_adjacency(g.graph, h.graph, c.labels)
        solution = spla.spsolve(sp.identity(size, format="csc") - lam * sp.csc_matrix(M), qx)
        if not _small_residual(solution, lam, M.__matmul__, qx):
            raise SolverError(
                f"The sparse solve of (I − λW×) y = q× (size {size}, λ = {lam!r}) left a backward error above "
                f"{_BACKWARD:g}: I − λW× is numerically singular this close to the bound 1/ρ(W×); the value is not "
                "returned. Use a smaller decay or a truncation (steps)."
            )
    return _finite_value(float(px @ solution), c, method)


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
    if g.eig is None or h.eig is None:  # pragma: no cover - _method chooses "spectral" only with both
        raise ParameterError("method='spectral' needs undirected graphs (symmetric adjacency); a graph is directed.")
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
