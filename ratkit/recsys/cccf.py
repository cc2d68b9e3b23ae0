"""CCCF, compositional coding for collaborative filtering, and DCF, its one-component case.

Each user i has G components of r-bit codes b_i^(k) ∈ {±1}^r and weights η_i^(k) ≥ 0,
each item j likewise d_j^(k), ξ_j^(k); the score is

    r̂_ij = Σ_k η_i^(k) ξ_j^(k) ⟨b_i^(k), d_j^(k)⟩,   ⟨b, d⟩ = r − 2·Hamming(b, d).

Learning (Liu et al. 2019, §3; the authors' code settles what the paper leaves open):

1. *Weights.* A real-valued MF of the ratings places users and items
   (:func:`~ratkit.recsys._component_weights.pretrain_factors`). G anchors are the k-means
   centroids of all those vectors scaled to unit length, users and items together (the
   paper's "G centroids as anchor points"; the weights depend on angles only), or, as the
   reference code does, k-medoids of the users and of the items apart, user anchor k paired
   with the item anchor it rates highest (:func:`pair_anchors`). η_i^(k) is a smoothing
   kernel (Epanechnikov by default, uniform or triangular) of the angular distance
   (2/π)·arccos(cos) between user i and anchor k, with bandwidth h, and **each user's
   weights are normalised to sum to 1 over the G components** (the items' likewise). A
   user farther than h from every anchor gets weight 1 on its nearest anchor (the
   reference code would leave it all zero and score it 0 everywhere). A small h gives
   sparse weights: a user and an item that share no component score 0 whatever their
   codes. The default h = 1.75 is dense (at G = 8 nearly every weight is non-zero). It was
   chosen on MovieLens 100K development splits: of h ∈ {1.5, 1.75, 2} (h ≤ 1.25 ranks
   clearly worse) it ranked held-out ratings best, or level with the best, at G = 4, 8 and
   16 with 64 code bits, and at it ``CCCF()`` ranks them better than ``DCF(n_bits=64)``
   (bench/RESULTS.md, "CCCF defaults (issue 34)"). The reference code's h = 0.7, the
   default before, leaves most user–item pairs sharing no component. Shared k-means
   anchors were chosen over separate k-means of users and of items paired by affinity in
   the development of issue 17.
2. *Ratings* are scaled to s ↦ ω̄·(2r(s − min)/(max − min) − r): [−r, r] as in DCF, times
   ω̄, the mean over the observed pairs of Σ_k η_i^(k) ξ_j^(k), the largest |r̂_ij| is r·Σ_k
   η_i^(k) ξ_j^(k), so the targets are scaled into the range the scores can reach. With
   uniform weights ω̄ = 1/G, the reference code's division by G; with one component
   (DCF) ω̄ = 1. The scale (min, max) is
   ``rating_scale`` when declared (a rating outside it is an error), else the least and
   largest stored rating.
3. *Codes* minimise Σ_{(i,j) observed} (r_ij − r̂_ij)² + α₁ Σ_k ‖B^(k) − X^(k)‖² +
   α₂ Σ_k ‖D^(k) − Y^(k)‖² (the softened objective (3.3)), X^(k) ranging over the
   balanced, decorrelated matrices {1ᵀX = 0, XᵀX = m I}. Alternating over components:
   bitwise discrete coordinate descent on the residual that excludes the component
   (:mod:`ratkit.recsys._code_dcd`), then X^(k), Y^(k) in closed form
   (:func:`~ratkit.recsys._balanced.balanced_orthogonal`). Stops after ``max_iter``
   outer iterations or when the objective changes by less than ``tol`` (relative).
4. *Initialisation* (``init``). ``"identical"`` (CCCF's default): one code shared by every
   user and one by every item, so that CCCF starts as the model of its weights alone,
   r̂_ij = c·Σ_k η_i^(k) ξ_j^(k) with c the least-squares scale of the ratings on Σ_k η ξ
   (rounded to a value ⟨b, d⟩ can take); the paper's remark that with identical codes
   compositional codes are the real-valued weight vectors (§3.2). DCD then learns the codes
   from that fit instead of from noise. ``"relaxed"`` (the paper's §3.5, DCF's default): the
   relaxed problem over real U^(k), V^(k), then sign. ``"random"``: random signs. For DCF
   (one component, weights 1) the identical start is a constant score and carries no
   information. On MovieLens 100K the identical start is what lifts CCCF above DCF at equal
   bits, from the relaxed start the two tie; bench/RESULTS.md ("CCCF and DCF") has the
   figures and what is known of why.

Scoring (§3.7): ``recommend`` and ``score`` use the codes packed into bytes with popcount
(:mod:`ratkit.recsys._packed_codes`), skipping components whose weight is zero; with
``weight_scale`` = e the weights are the integers ⌊e·η⌉, ⌊e·ξ⌉ and the score is their
integer sum divided by e² (:meth:`CCCF.integer_weight_error` measures the approximation).
``exact=True`` scores with the float weights and float codes instead.

DCF (Zhang et al. 2016) is the same code with G = 1 and every weight 1: Hamming ranking.

Users or items without ratings are allowed: their codes come from the initialisation and
the balance term alone, so their scores carry no information about them.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from tqdm.auto import tqdm

from ratkit._convergence import warn_not_converged
from ratkit._validation import check_choice, check_int, check_random_state, check_real
from ratkit.exceptions import DataFormatError, ParameterError, ParameterTypeError
from ratkit.fitted import Array, Derived, Fitted, Int, Numbers, Real
from ratkit.plugins import register
from ratkit.recsys._balanced import balanced_orthogonal
from ratkit.recsys._code_dcd import predictions, relax_rows, update_codes
from ratkit.recsys._component_weights import component_weights, pretrain_factors, select_anchors
from ratkit.recsys._packed_codes import (
    ItemTable,
    integer_weights,
    item_table,
    pack_codes,
    table_scores,
    unpack_codes,
)
from ratkit.recsys.base import Recommender

__all__ = ["CCCF", "DCF"]

log = logging.getLogger(__name__)

KERNELS = ("epanechnikov", "uniform", "triangular")
#: Integer scores are exact below this (int64).
_INT64_SAFE = float(2**63 - 1)
ANCHORS = ("kmeans", "kmedoids")
INITS = ("relaxed", "random", "identical")


@dataclass(frozen=True)
class _Settings:
    n_components: int
    n_bits: int
    alpha_user: float
    alpha_item: float
    max_iter: int
    tol: float
    n_sweeps: int
    init: str
    init_iter: int
    rating_scale: tuple[float, float] | None
    uniform_weights: bool
    bandwidth: float = 1.0
    kernel: str = "epanechnikov"
    anchors: str = "kmeans"
    pretrain_iter: int = 10
    pretrain_reg: float = 0.1


def _increasing_scale(model: _CompositionalCodes) -> str | None:
    lo, hi = model.rating_scale_
    return None if lo < hi else f"rating_scale_ is {model.rating_scale_!r}, not an interval [low, high] with low < high"


def _exact_integer_scores(model: _CompositionalCodes) -> str | None:
    """The integer scores Σ_k ⌊eη⌉⌊eξ⌉⟨b, d⟩ stay below 2⁶³ (what ``fit`` refuses otherwise)."""
    e, G = model.weight_scale_, model.weights_user_.shape[1]
    if e is None or e * e * model.n_bits_ * G < _INT64_SAFE:
        return None
    return f"weight_scale_ = {e!r} makes the integer scores reach e²·r·G ≥ 2⁶³ (n_bits_ = {model.n_bits_}, G = {G})"


class _CompositionalCodes(Recommender):
    """What CCCF and DCF share: fitting from :class:`_Settings`, packed scoring, model files."""

    feedback: ClassVar[str] = "explicit"
    _fit_shows_progress: ClassVar[bool] = True
    #: What ``fit`` sets (:mod:`ratkit.fitted`): per user and item, G packed r-bit codes (⌈r/8⌉
    #: bytes each) and G weights.
    _fitted_schema: ClassVar[Fitted] = Recommender._fitted_schema.extend(
        n_bits_=Int(low=1),
        codes_user_=Array(dtype="uint8", shape=("n_users_", "G", "code_bytes")),
        codes_item_=Array(dtype="uint8", shape=("n_items_", "G", "code_bytes")),
        weights_user_=Array("f", ("n_users_", "G")),
        weights_item_=Array("f", ("n_items_", "G")),
        weight_scale_=Real(low=0.0, low_open=True, nullable=True),
        rating_scale_=Numbers(2),
        objective_history_=Array("f", (None,), finite=False),
        dims={"code_bytes": Derived(("n_bits_",), lambda r: -(-r // 8))},
        rules=(_increasing_scale, _exact_integer_scores),
    )
    _fitted_attributes: ClassVar[tuple[str, ...]] = _fitted_schema.required

    def _settings(self) -> _Settings:  # pragma: no cover - defined by each model
        raise NotImplementedError

    # -- fitting ---------------------------------------------------------------------------
    def _fit(self, user_items: sp.csr_matrix, *, show_progress: bool) -> None:
        s = self._settings()
        owner = type(self).__name__
        m, n = user_items.shape
        for rows, what in ((m, "users"), (n, "items")):
            if rows <= s.n_bits:
                raise ParameterError(
                    f"{owner} needs more {what} than bits: balanced, decorrelated r-bit codes exist only for more "
                    f"than r rows, and the data has {rows} {what} for n_bits={s.n_bits}. Use n_bits < {rows}."
                )
        rng = check_random_state(getattr(self, "random_state", None))
        R = user_items.copy()
        R.sort_indices()
        lo, hi = _rating_scale(R, s.rating_scale, owner)
        G, r = s.n_components, s.n_bits
        e = getattr(self, "weight_scale", None)
        if e is not None and float(e) * float(e) * r * G >= _INT64_SAFE:
            raise ParameterError(
                f"weight_scale={e!r} would overflow the integer scores: Σ_k ⌊eη⌉⌊eξ⌉⟨b, d⟩ reaches "
                f"e²·r·G and must stay below 2⁶³, so e < {math.sqrt(_INT64_SAFE / (r * G)):.4g} for r = {r}, G = {G}."
            )
        target = 2.0 * r * (R.data - lo) / (hi - lo) - r
        if s.uniform_weights:
            eta, xi = np.ones((m, G)), np.ones((n, G))
        else:
            U, V = pretrain_factors(R, r, rng, n_iter=s.pretrain_iter, reg=s.pretrain_reg)
            user_anchors, item_anchors = _anchors(U, V, G, rng, s.anchors)
            eta = component_weights(U, user_anchors, s.bandwidth, kernel=s.kernel)
            xi = component_weights(V, item_anchors, s.bandwidth, kernel=s.kernel)
        rows = np.repeat(np.arange(m), np.diff(R.indptr))
        mass = float(np.einsum("tk,tk->", eta[rows], xi[R.indices])) / R.nnz  # ω̄: mean Σ_k η_ik ξ_jk, observed
        if mass > 0:
            target = target * mass
        csc = _item_major(R)
        problem = _Problem(R.indptr, R.indices, *csc, target, eta, xi, s)
        B, D, X, Y = problem.initialise(rng)
        history = [problem.objective(B, D, X, Y)]
        # no total: the fit stops on tol (or when no bit flips), often before max_iter
        short: str | None = None  # how far from the stopping rule max_iter left the fit
        with tqdm(total=None, desc=owner, unit=" iter", disable=not show_progress, leave=True) as bar:
            for _ in range(s.max_iter):
                flips = problem.iterate(B, D, X, Y, rng)
                history.append(problem.objective(B, D, X, Y))
                log.debug("%s: objective %.10g, %d bit flips", owner, history[-1], flips)
                previous = history[-2]
                change = abs(previous - history[-1]) / max(abs(previous), 1e-300)
                bar.set_postfix(
                    {
                        "objective": f"{history[-1]:.6g}",
                        "change": f"{change:.1e}",
                        "tol": f"{s.tol:.1e}",
                        "flips": flips,
                    },
                    refresh=False,
                )
                bar.update(1)
                if flips == 0 or abs(previous - history[-1]) <= s.tol * max(abs(previous), 1e-300):
                    break
            else:
                short = f"the objective still changed by {change:.3g} > tol={s.tol:g} (relative), {flips} bits flipped"
        if short is not None:
            warn_not_converged(owner, s.max_iter, "iterations", short, "Increase max_iter, or raise tol.")
        self.codes_user_ = pack_codes(np.ascontiguousarray(B.transpose(1, 0, 2)))
        self.codes_item_ = pack_codes(np.ascontiguousarray(D.transpose(1, 0, 2)))
        self.weights_user_, self.weights_item_ = eta, xi
        self.n_bits_ = r
        self.weight_scale_ = None if getattr(self, "weight_scale", None) is None else float(self.weight_scale)
        self.rating_scale_ = [float(lo), float(hi)]
        self.objective_history_ = np.array(history)

    # -- scoring ---------------------------------------------------------------------------
    def _scoring_tables(self) -> tuple[np.ndarray, ItemTable]:
        """(user weights, item table) of the packed path: integer ⌊e·w⌉ when weight_scale was
        set, else the float weights; built once per fitted (or loaded) model."""
        cached = self.__dict__.get("_tables")
        if cached is None or cached[0] is not self.codes_item_ or cached[1] is not self.weights_item_:
            e = self.weight_scale_
            users = self.weights_user_ if e is None else integer_weights(self.weights_user_, e)
            items = self.weights_item_ if e is None else integer_weights(self.weights_item_, e)
            table = item_table(self.codes_item_, items, self.n_bits_, user_bound=float(np.abs(users).max(initial=0)))
            users = np.ascontiguousarray(users, dtype=table.weights.dtype)  # the scorer's fast path takes them as is
            cached = (self.codes_item_, self.weights_item_, users, table)
            self.__dict__["_tables"] = cached
        return cached[2], cached[3]

    def _score_users(self, users: np.ndarray) -> np.ndarray:
        """Packed codes with popcount; integer weights / e² when ``weight_scale`` was set."""
        weights, table = self._scoring_tables()
        scores = table_scores(table, self.codes_user_, weights, rows=users)
        if self.weight_scale_ is None:
            return scores
        return scores / self.weight_scale_**2

    def _exact_users(self, users: np.ndarray) -> np.ndarray:
        """Σ_k η ξ ⟨b, d⟩ with float weights and ±1 float codes (no packing, no rounding)."""
        return (
            self._factors(users, self.codes_user_, self.weights_user_)
            @ self._factors(slice(None), self.codes_item_, self.weights_item_).T
        )

    def _factors(self, rows: Any, packed: np.ndarray, weights: np.ndarray) -> np.ndarray:
        codes = unpack_codes(packed[rows], self.n_bits_).astype(np.float64)
        return (codes * weights[rows][:, :, None]).reshape(codes.shape[0], -1)

    def score(self, userids: Any, itemids: Any, exact: bool = False) -> np.ndarray:
        """Scores of (user, item) pairs (see :meth:`Recommender.score`); ``exact=True`` uses the
        float weights and codes instead of the packed (and possibly integer) path."""
        if not exact:
            return super().score(userids, itemids)
        return self._scores_with(self._exact_users, userids, itemids)

    def recommend(
        self,
        userid: Any,
        user_items: Any = None,
        N: int = 10,
        filter_already_liked_items: bool = True,
        filter_items: Any = None,
        recalculate_user: bool = False,
        items: Any = None,
        *,
        exact: bool = False,
        n: int | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Top-N items (implicit's convention, see :meth:`Recommender.recommend`), by packed codes
        and popcount unless ``exact=True`` (float weights and codes)."""
        rows = self._exact_users if exact else None
        return self._recommend_with(
            rows, userid, user_items, N, filter_already_liked_items, filter_items, recalculate_user, items, n
        )

    def _item_factor_rows(self) -> np.ndarray:
        """Real rows whose inner products are the exact scores: the η-weighted ±1 codes of every
        component, concatenated (G·r columns); similar_items takes their cosine."""
        return self._factors(slice(None), self.codes_item_, self.weights_item_)

    def _user_factor_rows(self) -> np.ndarray:
        return self._factors(slice(None), self.codes_user_, self.weights_user_)

    def integer_weight_error(self, users: Any = None) -> dict[str, float]:
        """How far the integer-weight scores Σ_k ⌊eη⌉⌊eξ⌉⟨b, d⟩ / e² are from the float scores,
        over every item for ``users`` (default: all): max and mean absolute error, and the
        max error relative to the float scores' range. Needs ``weight_scale``."""
        self._check_fitted()
        if self.weight_scale_ is None:
            raise ParameterError("integer_weight_error needs a model fitted with weight_scale (the paper's e).")
        users = np.arange(self.n_users_) if users is None else np.atleast_1d(np.asarray(users))
        exact = self._exact_users(users)
        err = np.abs(self._score_users(users) - exact)
        spread = float(exact.max() - exact.min()) or 1.0
        return {"max_abs": float(err.max()), "mean_abs": float(err.mean()), "max_rel_range": float(err.max()) / spread}


class _Problem:
    """The observed entries (both orders), targets, weights and settings of one fit."""

    def __init__(self, indptr, indices, item_ptr, item_users, item_pos, target, eta, xi, s: _Settings) -> None:
        self.indptr, self.indices = indptr, indices
        self.item_ptr, self.item_users, self.item_pos = item_ptr, item_users, item_pos
        self.user_pos = np.arange(indices.size)
        self.target, self.eta, self.xi, self.s = target, eta, xi, s
        self.m, self.n = eta.shape[0], xi.shape[0]

    def _side(self, by_user: bool) -> tuple:
        """(row pointers, column ids, CSR positions, own weights, other weights, α) of the users
        (their rows of the ratings) or of the items (the item-major view)."""
        if by_user:
            return self.indptr, self.indices, self.user_pos, self.eta, self.xi, self.s.alpha_user
        return self.item_ptr, self.item_users, self.item_pos, self.xi, self.eta, self.s.alpha_item

    def _update(self, by_user: bool, k, rows, cols, aux, pred, relaxed: bool):
        """Component k of the users' (or items') codes against the other side's: the relaxed
        ridge step, or bitwise DCD (returns the bits flipped)."""
        ptr, idx, pos, w_rows, w_cols, alpha = self._side(by_user)
        args = (k, ptr, idx, pos, rows, cols, w_rows, w_cols, aux, alpha, self.target, pred)
        return relax_rows(*args) if relaxed else update_codes(*args, self.s.n_sweeps)

    def initialise(self, rng: np.random.Generator):
        """(B, D, X, Y): relaxed real U, V (ridge towards X, Y) then sign, random signs, or
        identical codes (:meth:`identical_codes`)."""
        G, r = self.s.n_components, self.s.n_bits
        if self.s.init == "identical":
            B, D = self.identical_codes()
            X = np.stack([balanced_orthogonal(B[k].astype(np.float64), rng) for k in range(G)])
            Y = np.stack([balanced_orthogonal(D[k].astype(np.float64), rng) for k in range(G)])
            self.pred = predictions(self.indptr, self.indices, B, D, self.eta, self.xi)
            return B, D, X, Y
        U, V = rng.standard_normal((G, self.m, r)), rng.standard_normal((G, self.n, r))
        X = np.stack([balanced_orthogonal(U[k], rng) for k in range(G)])
        Y = np.stack([balanced_orthogonal(V[k], rng) for k in range(G)])
        if self.s.init == "relaxed":
            pred = predictions(self.indptr, self.indices, U, V, self.eta, self.xi)
            for _ in range(self.s.init_iter):
                for k in range(G):
                    self._update(True, k, U, V, X, pred, relaxed=True)
                    self._update(False, k, V, U, Y, pred, relaxed=True)
                    X[k] = balanced_orthogonal(U[k], rng)
                    Y[k] = balanced_orthogonal(V[k], rng)
        B = np.where(U >= 0, 1, -1).astype(np.int8)
        D = np.where(V >= 0, 1, -1).astype(np.int8)
        self.pred = predictions(self.indptr, self.indices, B, D, self.eta, self.xi)
        return B, D, X, Y

    def identical_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """(B, D) with one code shared by every user and one by every item: b = (+1, …, +1) and
        d = p bits +1 then r − p bits −1, in every component, so that ⟨b, d⟩ = 2p − r and

            r̂_ij = (2p − r)·m_ij,   m_ij = Σ_k η_i^(k) ξ_j^(k),

        the model of the weights alone (with identical codes the compositional codes are the
        real-valued weight vectors, Liu et al. 2019, §3.2's remark). 2p − r is the value in
        {−r, −r + 2, …, r} nearest the least-squares coefficient c = Σ t_ij m_ij / Σ m_ij² of
        the scaled ratings t on m over the observed pairs (p = ⌊(c + r)/2⌉ clipped to [0, r],
        halves to even; c = 0 when every m_ij is 0)."""
        G, r = self.s.n_components, self.s.n_bits
        rows = np.repeat(np.arange(self.m), np.diff(self.indptr))
        mass = np.einsum("tk,tk->t", self.eta[rows], self.xi[self.indices])
        norm = float(mass @ mass)
        c = float(self.target @ mass) / norm if norm > 0 else 0.0
        p = int(np.clip(np.rint((c + r) / 2.0), 0, r))
        B = np.ones((G, self.m, r), dtype=np.int8)
        D = np.full((G, self.n, r), -1, dtype=np.int8)
        D[:, :, :p] = 1
        return B, D

    def iterate(self, B, D, X, Y, rng: np.random.Generator) -> int:
        """One outer iteration over the components; returns the bits flipped."""
        flips = 0
        for k in range(self.s.n_components):
            flips += self._update(True, k, B, D, X, self.pred, relaxed=False)
            flips += self._update(False, k, D, B, Y, self.pred, relaxed=False)
            X[k] = balanced_orthogonal(B[k].astype(np.float64), rng)
            Y[k] = balanced_orthogonal(D[k].astype(np.float64), rng)
        return flips

    def objective(self, B, D, X, Y) -> float:
        """Σ_observed (r − r̂)² + α₁ Σ_k ‖B^(k) − X^(k)‖² + α₂ Σ_k ‖D^(k) − Y^(k)‖²."""
        loss = float(np.sum((self.target - self.pred) ** 2))
        return loss + self.s.alpha_user * float(np.sum((B - X) ** 2)) + self.s.alpha_item * float(np.sum((D - Y) ** 2))


def _anchors(U: np.ndarray, V: np.ndarray, G: int, rng: np.random.Generator, method: str):
    """(user anchors, item anchors), component k pairing row k of each.

    ``"kmeans"``: one set of G anchors for users and items alike, the k-means centroids of
    all the MF vectors scaled to unit length (the weights depend on angles only, so the
    directions are clustered; users and the items they rate highly point alike in the MF
    space, so they share components). ``"kmedoids"``: as the reference code, k-medoids of
    the user vectors and of the item vectors apart, paired by :func:`pair_anchors`."""
    try:
        if method == "kmeans":
            both = np.vstack([U, V])
            both = both / np.maximum(np.linalg.norm(both, axis=1, keepdims=True), 1e-300)
            shared = select_anchors(both, G, rng, method="kmeans")
            return shared, shared
        users = select_anchors(U, G, rng, method=method)
        return users, pair_anchors(users, select_anchors(V, G, rng, method=method))
    except ParameterError as exc:
        raise ParameterError(
            f"n_components={G} is more than the distinct MF directions of the users and items ({exc}); lower "
            "n_components. (Ratings that are all equal give one direction: there is nothing to cluster.)"
        ) from None


def pair_anchors(user_anchors: np.ndarray, item_anchors: np.ndarray) -> np.ndarray:
    """The item anchors reordered so that component k pairs user anchor k with the item anchor
    it rates highest overall: the assignment maximising Σ_k u′_kᵀ v′_k (the MF's predicted
    rating of the anchor pair; scipy's linear_sum_assignment). The paper's anchors are
    user–item pairs (i′_k, j′_k); clustering users and items apart leaves their pairing
    arbitrary, and a component whose user and item anchors have nothing in common gives
    its users and items no shared weight."""
    _, order = linear_sum_assignment(-(user_anchors @ item_anchors.T))
    return item_anchors[order]


def _item_major(R: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(item_ptr, users, CSR position) of the stored entries in item-major order."""
    rows = np.repeat(np.arange(R.shape[0]), np.diff(R.indptr))
    order = np.lexsort((rows, R.indices))
    item_ptr = np.zeros(R.shape[1] + 1, dtype=np.int64)
    np.cumsum(np.bincount(R.indices, minlength=R.shape[1]), out=item_ptr[1:])
    return item_ptr, rows[order].astype(np.int64), order.astype(np.int64)


def _rating_scale(R: sp.csr_matrix, declared: tuple[float, float] | None, owner: str) -> tuple[float, float]:
    """(min, max) of the rating scale: declared (and checked against the data) or from the data."""
    if R.nnz == 0:
        raise DataFormatError(f"{owner} needs ratings: the matrix stores none.")
    if declared is None:
        lo, hi = float(R.data.min()), float(R.data.max())
        if lo == hi:
            raise DataFormatError(
                f"Every stored rating is {lo:g}, so the rating scale taken from the data is empty; {owner} learns "
                "from explicit ratings. Declare the scale, e.g. rating_scale=(1, 5), if these are ratings."
            )
        return lo, hi
    lo, hi = declared
    outside = np.flatnonzero((R.data < lo) | (R.data > hi))
    if outside.size:
        t = int(outside[0])
        user = int(np.searchsorted(R.indptr, t, side="right") - 1)
        raise DataFormatError(
            f"The rating {R.data[t]:g} of user {user} for item {int(R.indices[t])} is outside the declared "
            f"rating_scale=({lo:g}, {hi:g}) ({outside.size} rating(s) are)."
        )
    return float(lo), float(hi)


def _check_scale(value: Any, owner: str) -> tuple[float, float] | None:
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 2:
        raise ParameterTypeError(
            f"The 'rating_scale' parameter of {owner} must be None or a pair (low, high); got {value!r}."
        )
    lo = check_real(value[0], "rating_scale[0]", owner)
    hi = check_real(value[1], "rating_scale[1]", owner)
    if not lo < hi:
        raise ParameterError(f"The 'rating_scale' parameter of {owner} must have low < high; got {value!r}.")
    if lo <= 0 <= hi:
        raise ParameterError(
            f"The 'rating_scale' parameter of {owner} is {value!r}, which holds the rating 0; a sparse matrix "
            "drops stored zeros (they mean 'no rating'), so those ratings would be lost. Shift the ratings and "
            f"the scale above 0, e.g. ratings + {1 - lo:g} and rating_scale=({1:g}, {hi - lo + 1:g})."
        )
    return lo, hi


def _common(model: Any, owner: str) -> dict[str, Any]:
    return {
        "n_bits": check_int(model.n_bits, "n_bits", owner, low=1),
        "alpha_user": check_real(model.alpha_user, "alpha_user", owner, low=0.0),
        "alpha_item": check_real(model.alpha_item, "alpha_item", owner, low=0.0),
        "max_iter": check_int(model.max_iter, "max_iter", owner, low=1),
        "tol": check_real(model.tol, "tol", owner, low=0.0),
        "n_sweeps": check_int(model.n_sweeps, "n_sweeps", owner, low=1),
        "init": check_choice(model.init, "init", owner, INITS),
        "init_iter": check_int(model.init_iter, "init_iter", owner, low=1),
        "rating_scale": _check_scale(model.rating_scale, owner),
    }


@register("recommender", "cccf")
class CCCF(_CompositionalCodes):
    """Compositional coding for collaborative filtering (Liu et al., SIGIR 2019); see
    :mod:`ratkit.recsys.cccf` for the model, the weights' normalisation and the scaling.

    ``fit(ratings)`` takes a users × items CSR matrix whose stored entries are explicit
    ratings (a stored zero is no rating, by the sparse convention).

    Parameters
    ----------
    n_components : int
        G, the components per user and item (≥ 1).
    n_bits : int
        r, the bits of each component's code (≥ 1, below the numbers of users and items).
    bandwidth : float
        h > 0 of the smoothing kernel on the angular distance in [0, 2]; smaller is sparser.
        The default 1.75 gives dense weights and was chosen on MovieLens 100K development
        splits (see the module docstring); the reference code's 0.7 is sparse and ranks
        worse there.
    alpha_user, alpha_item : float
        α₁, α₂ ≥ 0 of the balance and decorrelation terms (the reference's 1e-3).
    weight_scale : float or None
        e > 0: score with the integer weights ⌊e·η⌉, ⌊e·ξ⌉ (the paper's §3.7); None keeps the
        float weights.
    max_iter : int
        Most outer iterations (one pass over every component); stopping there before the
        ``tol`` rule holds warns (:class:`~sklearn.exceptions.ConvergenceWarning`).
    random_state : None, int or numpy Generator
        Seeds the pre-training, anchors, initialisation and Gram–Schmidt completions.
    kernel : {"epanechnikov", "uniform", "triangular"}
        The smoothing kernel of the weights.
    anchors : {"kmeans", "kmedoids"}
        One set of k-means centroids of the unit-length MF vectors of users and items together
        (the paper's "G centroids as anchor points"), or k-medoids of the users and of the
        items apart, paired by affinity (the reference code).
    rating_scale : None or (low, high)
        The rating scale; None takes the least and largest stored ratings.
    tol : float
        Stop when the objective changes by at most this fraction in an iteration.
    n_sweeps : int
        Most passes over the bits of a code per update (stops earlier when no bit flips).
    init : {"identical", "relaxed", "random"}
        Identical codes that make the starting model the least-squares fit of the weights
        alone (the default), the relaxed real-valued problem then sign (the paper's §3.5),
        or random codes; see the module docstring.
    init_iter : int
        Alternating passes of the relaxed initialisation.
    pretrain_iter, pretrain_reg : int, float
        ALS passes and ridge of the real-valued MF that places users and items.
    show_progress : bool
        A progress bar counting the outer iterations, with the objective, its relative
        change against ``tol`` and the bits flipped (off by default).

    Attributes
    ----------
    codes_user_, codes_item_ : ndarray of uint8, shape (n_users or n_items, G, ⌈r/8⌉)
        The codes packed 8 bits to a byte (bit 1 for +1), :func:`numpy.packbits` order.
    weights_user_, weights_item_ : ndarray of shape (n_users or n_items, G)
        η and ξ, each row summing to 1.
    objective_history_ : ndarray
        The objective after the initialisation, then after every iteration.
    rating_scale_ : [low, high]
        The rating scale used.
    """

    def __init__(
        self,
        n_components: int = 8,
        n_bits: int = 8,
        bandwidth: float = 1.75,
        alpha_user: float = 1e-3,
        alpha_item: float = 1e-3,
        weight_scale: float | None = None,
        max_iter: int = 10,
        random_state: Any = None,
        *,
        kernel: Literal["epanechnikov", "uniform", "triangular"] = "epanechnikov",
        anchors: Literal["kmeans", "kmedoids"] = "kmeans",
        rating_scale: tuple[float, float] | None = None,
        tol: float = 1e-4,
        n_sweeps: int = 5,
        init: Literal["identical", "relaxed", "random"] = "identical",
        init_iter: int = 5,
        pretrain_iter: int = 10,
        pretrain_reg: float = 0.1,
        show_progress: bool = False,
    ) -> None:
        self.n_components = n_components
        self.n_bits = n_bits
        self.bandwidth = bandwidth
        self.alpha_user = alpha_user
        self.alpha_item = alpha_item
        self.weight_scale = weight_scale
        self.max_iter = max_iter
        self.random_state = random_state
        self.kernel = kernel
        self.anchors = anchors
        self.rating_scale = rating_scale
        self.tol = tol
        self.n_sweeps = n_sweeps
        self.init = init
        self.init_iter = init_iter
        self.pretrain_iter = pretrain_iter
        self.pretrain_reg = pretrain_reg
        self.show_progress = show_progress

    def _validate_params(self) -> None:
        self._settings()
        if self.weight_scale is not None:
            check_real(self.weight_scale, "weight_scale", "CCCF", low=0.0, low_open=True)

    def _settings(self) -> _Settings:
        owner = "CCCF"
        G = check_int(self.n_components, "n_components", owner, low=1)
        return _Settings(
            n_components=G,
            uniform_weights=G == 1,  # one component: every normalised weight is 1
            bandwidth=check_real(self.bandwidth, "bandwidth", owner, low=0.0, low_open=True),
            kernel=check_choice(self.kernel, "kernel", owner, KERNELS),
            anchors=check_choice(self.anchors, "anchors", owner, ANCHORS),
            pretrain_iter=check_int(self.pretrain_iter, "pretrain_iter", owner, low=1),
            pretrain_reg=check_real(self.pretrain_reg, "pretrain_reg", owner, low=0.0),
            **_common(self, owner),
        )


@register("recommender", "dcf")
class DCF(_CompositionalCodes):
    """Discrete collaborative filtering (Zhang et al., SIGIR 2016): one component of r-bit
    codes with every weight 1, so r̂_ij = ⟨b_i, d_j⟩ = r − 2·Hamming(b_i, d_j); the same code
    as :class:`CCCF` with ``n_components=1`` (see :mod:`ratkit.recsys.cccf`). Ratings are
    scaled to [−r, r].

    Parameters are CCCF's that apply to one component: ``n_bits``, ``alpha_user``,
    ``alpha_item``, ``max_iter``, ``random_state``, ``rating_scale``, ``tol``,
    ``n_sweeps``, ``init``, ``init_iter``, ``show_progress``. ``init`` defaults to
    ``"relaxed"`` (the paper's): with one component and weights 1 the ``"identical"`` start
    is a constant score, which carries no information.
    """

    def __init__(
        self,
        n_bits: int = 8,
        alpha_user: float = 1e-3,
        alpha_item: float = 1e-3,
        max_iter: int = 10,
        random_state: Any = None,
        *,
        rating_scale: tuple[float, float] | None = None,
        tol: float = 1e-4,
        n_sweeps: int = 5,
        init: Literal["relaxed", "random", "identical"] = "relaxed",
        init_iter: int = 5,
        show_progress: bool = False,
    ) -> None:
        self.n_bits = n_bits
        self.alpha_user = alpha_user
        self.alpha_item = alpha_item
        self.max_iter = max_iter
        self.random_state = random_state
        self.rating_scale = rating_scale
        self.tol = tol
        self.n_sweeps = n_sweeps
        self.init = init
        self.init_iter = init_iter
        self.show_progress = show_progress

    def _validate_params(self) -> None:
        self._settings()

    def _settings(self) -> _Settings:
        return _Settings(n_components=1, uniform_weights=True, **_common(self, "DCF"))
