"""Fitting CCCF's and DCF's compositional codes: weights, scaled ratings, alternating descent.

:func:`fit_codes` is steps 1–3 of :mod:`ratkit.recsys.cccf` (see there for the model):
the component weights from a pre-trained MF (:mod:`ratkit.recsys._component_weights`),
the ratings scaled into the range the scores reach, then the codes by alternating
bitwise discrete coordinate descent (:class:`Problem`, :mod:`ratkit.recsys._code_dcd`)
and the balanced, decorrelated matrices in closed form
(:func:`~ratkit.recsys._balanced.balanced_orthogonal`), until ``tol`` or ``max_iter``.
The models in :mod:`ratkit.recsys.cccf` read what it returns; nothing here is a model.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from tqdm.auto import tqdm

from ratkit._convergence import warn_not_converged
from ratkit._validation import check_random_state
from ratkit.exceptions import DataFormatError, ParameterError
from ratkit.recsys import _entries
from ratkit.recsys._balanced import balanced_orthogonal
from ratkit.recsys._code_dcd import predictions, relax_rows, update_codes
from ratkit.recsys._code_oneclass import GramRows, one_class_loss, relax_rows_one_class, update_codes_one_class
from ratkit.recsys._component_weights import (
    component_weights,
    pretrain_factors,
    pretrain_one_class,
    select_anchors,
)
from ratkit.recsys._entries import EntryMap, entry_values, exact_sum
from ratkit.recsys._entries import item_major as item_major  # its former home; the tests import it here
from ratkit.recsys._packed_codes import pack_codes

__all__ = [
    "Settings",
    "FittedCodes",
    "fit_codes",
    "Problem",
    "OneClassProblem",
    "choose_anchors",
    "pair_anchors",
    "rating_range",
    "item_major",
    "INT64_SAFE",
    "observed_weight_products",
]

log = logging.getLogger(__name__)

#: Integer scores are exact below this (int64).
INT64_SAFE = float(2**63 - 1)


@dataclass(frozen=True)
class Settings:
    """The checked parameters of one fit (each model builds them from its own parameters)."""

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
    smoothing: str = "epanechnikov"
    anchors: str = "kmeans"
    pretrain_iter: int = 10
    pretrain_regularization: float = 0.1
    #: e of the integer weights ⌊e·η⌉ (the paper's §3.7); None keeps the float weights.
    weight_scale: float | None = None
    #: "explicit": ratings on the observed pairs (the papers' model); "implicit": one-class
    #: data, every pair fitted (:mod:`ratkit.recsys._code_oneclass`).
    feedback: str = "explicit"
    #: w₀, the confidence of an unobserved pair (one-class only).
    unobserved_weight: float = 1.0
    #: a of the observed pairs' confidence 1 + a·v (one-class only).
    confidence: float = 1.0


@dataclass(frozen=True)
class FittedCodes:
    """What :func:`fit_codes` learned: packed codes (rows, G, ⌈r/8⌉), weights (rows, G), the
    rating scale used and the objective after the initialisation and every iteration."""

    codes_user: np.ndarray
    codes_item: np.ndarray
    weights_user: np.ndarray
    weights_item: np.ndarray
    rating_scale: tuple[float, float]
    objective_history: np.ndarray


def fit_codes(
    user_items: sp.csr_matrix, s: Settings, random_state: Any, owner: str, *, show_progress: bool
) -> FittedCodes:
    """Learn the weights and codes of ``s`` from the ratings ``user_items`` (users × items CSR);
    ``owner`` names the model in errors, warnings and the progress bar."""
    m, n = user_items.shape
    for rows, what in ((m, "users"), (n, "items")):
        if rows <= s.n_bits:
            raise ParameterError(
                f"{owner} needs more {what} than bits: balanced, decorrelated r-bit codes exist only for more "
                f"than r rows, and the data has {rows} {what} for n_bits={s.n_bits}. Use n_bits < {rows}."
            )
    rng = check_random_state(random_state)
    # read only: no copy (the caller's checked matrix; a copy only to sort unsorted rows)
    R = user_items if user_items.has_sorted_indices else user_items.sorted_indices()
    one_class = s.feedback == "implicit"
    if one_class:
        if R.nnz == 0:
            raise DataFormatError(f"{owner} needs interactions: the matrix stores none.")
        lo, hi = 0.0, 1.0  # the targets: 0 unobserved, 1 observed (before scaling)
    else:
        lo, hi = rating_range(R, s.rating_scale, owner)
    G, r = s.n_components, s.n_bits
    e = s.weight_scale
    if e is not None and float(e) * float(e) * r * G >= INT64_SAFE:
        raise ParameterError(
            f"weight_scale={e!r} would overflow the integer scores: Σ_k ⌊eη⌉⌊eξ⌉⟨b, d⟩ reaches "
            f"e²·r·G and must stay below 2⁶³, so e < {math.sqrt(INT64_SAFE / (r * G)):.4g} for r = {r}, G = {G}."
        )
    # The targets, computed from the stored values on use (no per-entry array): one-class, observed
    # pairs aim at r (the scores' top), the others at 0; ratings, 2r(v − lo)/(hi − lo) − r.
    if one_class:
        target = EntryMap(R.data, 0.0, 0.0, 1.0, float(r), 1.0)
    else:
        target = EntryMap(R.data, 2.0 * r, lo, hi - lo, -float(r), 1.0)
    csc = item_major(R)
    if s.uniform_weights:
        eta, xi = np.ones((m, G)), np.ones((n, G))
    else:
        if one_class:
            U, V = pretrain_one_class(
                R,
                r,
                rng,
                n_iter=s.pretrain_iter,
                regularization=s.pretrain_regularization,
                unobserved_weight=s.unobserved_weight,
                confidence=s.confidence,
                item_order=csc,
            )
        else:
            U, V = pretrain_factors(
                R, r, rng, n_iter=s.pretrain_iter, regularization=s.pretrain_regularization, item_order=csc
            )
        user_anchors, item_anchors = choose_anchors(U, V, G, rng, s.anchors)
        eta = component_weights(U, user_anchors, s.bandwidth, smoothing=s.smoothing)
        xi = component_weights(V, item_anchors, s.bandwidth, smoothing=s.smoothing)
    # ω̄: the mean over the observed pairs (numpy's sum of the products, a chunk at a time)
    mass = exact_sum(R.nnz, lambda part: observed_weight_products(R.indptr, R.indices, eta, xi, part=part)) / R.nnz
    if mass > 0:
        target = target._replace(factor=mass)
    if one_class:
        confidence = EntryMap(R.data, s.confidence, 0.0, 1.0, 1.0, 1.0)  # 1 + a·v
        problem: Problem = OneClassProblem(R.indptr, R.indices, *csc, target, eta, xi, s, confidence=confidence)
    else:
        problem = Problem(R.indptr, R.indices, *csc, target, eta, xi, s)
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
    return FittedCodes(
        codes_user=pack_codes(np.ascontiguousarray(B.transpose(1, 0, 2))),
        codes_item=pack_codes(np.ascontiguousarray(D.transpose(1, 0, 2))),
        weights_user=eta,
        weights_item=xi,
        rating_scale=(float(lo), float(hi)),
        objective_history=np.array(history),
    )


class Problem:
    """The observed entries (both orders), targets, weights and settings of one fit.

    ``target`` is an array aligned with the CSR data or an :class:`~ratkit.recsys._entries.EntryMap`
    of the stored values (what :func:`fit_codes` passes: no per-entry copy); the users' rows
    are read in CSR order directly (their position map is None)."""

    def __init__(
        self,
        indptr: np.ndarray,
        indices: np.ndarray,
        item_ptr: np.ndarray,
        item_users: np.ndarray,
        item_pos: np.ndarray,
        target: np.ndarray | EntryMap,
        eta: np.ndarray,
        xi: np.ndarray,
        s: Settings,
    ) -> None:
        self.indptr, self.indices = indptr, indices
        self.item_ptr, self.item_users, self.item_pos = item_ptr, item_users, item_pos
        self.user_pos = None  # the CSR order itself
        self.target, self.eta, self.xi, self.s = target, eta, xi, s
        self.m, self.n = eta.shape[0], xi.shape[0]

    def _side(self, by_user: bool) -> tuple[Any, ...]:
        """(row pointers, column ids, CSR positions, own weights, other weights, α) of the users
        (their rows of the ratings) or of the items (the item-major view)."""
        if by_user:
            return self.indptr, self.indices, self.user_pos, self.eta, self.xi, self.s.alpha_user
        return self.item_ptr, self.item_users, self.item_pos, self.xi, self.eta, self.s.alpha_item

    def _update(
        self,
        by_user: bool,
        k: int,
        rows: np.ndarray,
        cols: np.ndarray,
        aux: np.ndarray,
        pred: np.ndarray,
        relaxed: bool,
    ) -> Any:
        """Component k of the users' (or items') codes against the other side's: the relaxed
        ridge step, or bitwise DCD (returns the bits flipped)."""
        ptr, idx, pos, w_rows, w_cols, alpha = self._side(by_user)
        args = (k, ptr, idx, pos, rows, cols, w_rows, w_cols, aux, alpha, self.target, pred)
        return relax_rows(*args) if relaxed else update_codes(*args, self.s.n_sweeps)

    def initialise(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(B, D, X, Y): relaxed real U, V (ridge towards X, Y) then sign, random signs, or
        identical codes (:meth:`identical_codes`)."""
        G, r = self.s.n_components, self.s.n_bits
        if self.s.init == "identical":
            B, D = self.identical_codes()
            X, Y = _balanced_stack(B, rng), _balanced_stack(D, rng)
            self.pred = predictions(self.indptr, self.indices, B, D, self.eta, self.xi)
            return B, D, X, Y
        U, V = rng.standard_normal((G, self.m, r)), rng.standard_normal((G, self.n, r))
        X, Y = _balanced_stack(U, rng), _balanced_stack(V, rng)
        pred = None
        if self.s.init == "relaxed":
            pred = predictions(self.indptr, self.indices, U, V, self.eta, self.xi)
            for _ in range(self.s.init_iter):
                for k in range(G):
                    self._update(True, k, U, V, X, pred, relaxed=True)
                    self._update(False, k, V, U, Y, pred, relaxed=True)
                    balanced_orthogonal(U[k], rng, out=X[k])  # the old X[k] is the working copy
                    balanced_orthogonal(V[k], rng, out=Y[k])
        B = np.where(U >= 0, np.int8(1), np.int8(-1))
        D = np.where(V >= 0, np.int8(1), np.int8(-1))
        del U, V, pred  # the relaxed predictions go before the codes' are made (one per-entry array, not two)
        self._drop_relaxed()
        self.pred = predictions(self.indptr, self.indices, B, D, self.eta, self.xi)
        return B, D, X, Y

    def _drop_relaxed(self) -> None:
        """Let go of what refers to the relaxed U, V (nothing here; the one-class Grams do)."""

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
        c = self._weights_coefficient(observed_weight_products(self.indptr, self.indices, self.eta, self.xi))
        p = int(np.clip(np.rint((c + r) / 2.0), 0, r))
        B = np.ones((G, self.m, r), dtype=np.int8)
        D = np.full((G, self.n, r), -1, dtype=np.int8)
        D[:, :, :p] = 1
        return B, D

    def _weights_coefficient(self, mass: np.ndarray) -> float:
        """c minimising the loss of r̂ = c·m_ij (m_ij = Σ_k η_ik ξ_jk, ``mass`` on the observed
        pairs): Σ t m / Σ m² over the observed pairs."""
        norm = float(mass @ mass)
        return float(entry_values(self.target) @ mass) / norm if norm > 0 else 0.0

    def iterate(self, B: np.ndarray, D: np.ndarray, X: np.ndarray, Y: np.ndarray, rng: np.random.Generator) -> int:
        """One outer iteration over the components; returns the bits flipped."""
        flips = 0
        for k in range(self.s.n_components):
            flips += self._update(True, k, B, D, X, self.pred, relaxed=False)
            flips += self._update(False, k, D, B, Y, self.pred, relaxed=False)
            balanced_orthogonal(B[k], rng, out=X[k])  # the old X[k] is the working copy
            balanced_orthogonal(D[k], rng, out=Y[k])
        return flips

    def objective(self, B: np.ndarray, D: np.ndarray, X: np.ndarray, Y: np.ndarray) -> float:
        """Σ_observed (r − r̂)² + α₁ Σ_k ‖B^(k) − X^(k)‖² + α₂ Σ_k ‖D^(k) − Y^(k)‖² (each sum the float
        numpy's gives on the whole array of terms, a chunk of terms at a time)."""
        target, pred = self.target, self.pred
        loss = exact_sum(pred.shape[0], lambda part: (entry_values(target, part) - pred[part]) ** 2)
        users, items = balance_sums(B, D, X, Y)
        return loss + self.s.alpha_user * users + self.s.alpha_item * items


class OneClassProblem(Problem):
    """The one-class fit: every user–item pair, observed ones with confidence ``confidence``
    (aligned with the CSR data) and target ``target``, the others with weight w₀ and target
    0, without forming them (:mod:`ratkit.recsys._code_oneclass`)."""

    def __init__(self, *args: Any, confidence: np.ndarray | EntryMap) -> None:
        super().__init__(*args)
        self.confidence = confidence
        # per side (True: users): the Gram of its factor rows, refreshed block by block
        self._grams: dict[bool, GramRows] = {}

    def _gram(self, side: bool, codes: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """The Gram FᵀF of one side's factor rows (:class:`~ratkit.recsys._code_oneclass.GramRows`):
        built once for a codes array, then only the blocks of the components updated since
        are recomputed, so an outer iteration spends O((m + n)·d²) on Grams (d = G·r)."""
        gram = self._grams.get(side)
        if gram is None or gram.codes is not codes:
            gram = self._grams[side] = GramRows(codes, weights)
        return gram.current()

    def _drop_relaxed(self) -> None:
        self._grams.clear()  # the Grams of U and V, which hold them; the codes' are built on use

    def _update(
        self,
        by_user: bool,
        k: int,
        rows: np.ndarray,
        cols: np.ndarray,
        aux: np.ndarray,
        pred: np.ndarray,
        relaxed: bool,
    ) -> Any:
        ptr, idx, pos, w_rows, w_cols, alpha = self._side(by_user)
        P = self._gram(not by_user, cols, w_cols)  # the other side's Gram, fixed during this update
        args = (k, ptr, idx, pos, rows, cols, w_rows, w_cols, aux, alpha, self.target, self.confidence)
        w0 = self.s.unobserved_weight
        if relaxed:
            out = relax_rows_one_class(*args, w0, P, pred)
        else:
            out = update_codes_one_class(*args, w0, P, pred, self.s.n_sweeps)
        if by_user in self._grams:
            self._grams[by_user].stale.add(k)  # this side's component k changed
        return out

    def _weights_coefficient(self, mass: np.ndarray) -> float:
        """c minimising Σ_{all pairs} c_ij (p_ij − c·m_ij)²: Σ_𝒱 c p m / (w₀ Σ_all m² + Σ_𝒱 (c − w₀) m²),
        Σ_all m_ij² = ⟨ηᵀη, ξᵀξ⟩_F."""
        w0, conf, target = self.s.unobserved_weight, self.confidence, self.target
        every = float(np.sum((self.eta.T @ self.eta) * (self.xi.T @ self.xi)))
        norm = w0 * every + exact_sum(mass.shape[0], lambda p: (entry_values(conf, p) - w0) * mass[p] * mass[p])
        fit = exact_sum(mass.shape[0], lambda p: entry_values(conf, p) * entry_values(target, p) * mass[p])
        return fit / norm if norm > 0 else 0.0

    def objective(self, B: np.ndarray, D: np.ndarray, X: np.ndarray, Y: np.ndarray) -> float:
        """Σ_{all i,j} c_ij (p_ij − r̂_ij)² + α₁ Σ_k ‖B^(k) − X^(k)‖² + α₂ Σ_k ‖D^(k) − Y^(k)‖²."""
        P, Q = self._gram(False, D, self.xi), self._gram(True, B, self.eta)
        loss = one_class_loss(self.target, self.confidence, self.pred, self.s.unobserved_weight, P, Q)
        users, items = balance_sums(B, D, X, Y)
        return loss + self.s.alpha_user * users + self.s.alpha_item * items


def _balanced_stack(codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(G, N, r): :func:`~ratkit.recsys._balanced.balanced_orthogonal` of each component, in order,
    filled into one array (no list of them beside the stack)."""
    out = np.empty(codes.shape)
    for k in range(codes.shape[0]):
        balanced_orthogonal(codes[k], rng, out=out[k])
    return out


def balance_sums(B: np.ndarray, D: np.ndarray, X: np.ndarray, Y: np.ndarray) -> tuple[float, float]:
    """(Σ_k ‖B^(k) − X^(k)‖², Σ_k ‖D^(k) − Y^(k)‖²), each numpy's sum on the whole array of
    squares, computed without that array (a chunk at a time)."""
    sums = []
    for codes, aux in ((B, X), (D, Y)):
        flat_codes, flat_aux = codes.reshape(-1), aux.reshape(-1)
        sums.append(exact_sum(flat_codes.shape[0], lambda p: (flat_codes[p] - flat_aux[p]) ** 2))  # noqa: B023
    return sums[0], sums[1]


def observed_weight_products(
    indptr: np.ndarray,
    indices: np.ndarray,
    eta: np.ndarray,
    xi: np.ndarray,
    chunk: int | None = None,
    *,
    part: slice | None = None,
) -> np.ndarray:
    """m_t = Σ_k η_ik ξ_jk for every stored (i, j) (CSR order), or for the entries ``part`` (a
    slice of CSR positions), computed in chunks of entries: neither the gathered rows of η and ξ
    (2·G floats an entry) nor the entries' row ids are held for every entry at once (``chunk``
    entries at a time; default :data:`ratkit.recsys._entries.CHUNK`). Each m_t is
    the same float as ``np.einsum("tk,tk->t", eta[rows], xi[indices])`` gives."""
    chunk = _entries.CHUNK if chunk is None else chunk
    start, stop, _ = (part or slice(None)).indices(indices.shape[0])
    out = np.empty(max(stop - start, 0))
    for lo in range(start, stop, chunk):
        hi = min(lo + chunk, stop)
        rows = np.searchsorted(indptr, np.arange(lo, hi), side="right") - 1  # the row of each entry
        out[lo - start : hi - start] = np.einsum("tk,tk->t", eta[rows], xi[indices[lo:hi]])
    return out


def choose_anchors(
    U: np.ndarray, V: np.ndarray, G: int, rng: np.random.Generator, method: str
) -> tuple[np.ndarray, np.ndarray]:
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


def rating_range(R: sp.csr_matrix, declared: tuple[float, float] | None, owner: str) -> tuple[float, float]:
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
