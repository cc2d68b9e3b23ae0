"""TJSL, transfer by joint similarity learning for heterogeneous one-class CF, and FISM, its case E = ∅.

Each user u has preferred items P_u and examined items E_u (E_u ∩ P_u = ∅). TJSL learns item
factors V (candidates), P (preferred) and E (examined) and biases b, and predicts

    r̂_ui = b_u + b_i + Ū_u^{−i} V_iᵀ + Ũ_u V_iᵀ,

Ū_u^{−i} the normalised sum of the P factors of P_u∖{i} (the target excluded from its own
profile) and Ũ_u that of the E factors of the examinations E_u^(ℓ) selected in round ℓ (eq. (4)).
Round ℓ = 1 … L trains by SGD for ``n_epochs`` epochs over P ∪ A, A ⊂ R∖P of size ρ|P| drawn
again every epoch: the paper's steps, taken user by user in O(d) per pair
(:mod:`ratkit.recsys._tjsl_user_epoch`; ``sgd="pair"``: the paper's epoch over all pairs in
one shuffled order, O((|P_u| + |E_u|) d) per pair, :mod:`ratkit.recsys._tjsl_sgd`); the
model of round ℓ then scores every examined item and keeps the ⌈τ_{ℓ+1} |E_u|⌉ best as
E_u^(ℓ+1) ("likely to prefer"), with τ_1 = 1 (round 1 trains on every examination) and
τ_{ℓ+1} = τ_ℓ · tau_decay: round ℓ trains on ⌈τ_ℓ |E_u|⌉ examinations, τ_ℓ being
``tau_schedule_[ℓ − 1]``. Each round continues from the
previous one's parameters. The prediction is the mean of the last L₀ rounds' predictions. With
one round, TJSL is TJSL(1,1) (every examination); with E = ∅ it is FISM_rmse (Kabbur et al.,
KDD 2013).

A user with examinations but no preferences has Ū = 0 and is scored through Ũ and the
biases; a user with neither gets b_u + b_i. ``fit(preferred, examined=E)`` takes two CSR
matrices of one shape; stored entries are the items (their values are ignored).

``recommend(userid, user_items, ...)`` builds Ū_u from the preferred items in the passed rows
``user_items`` (implicit's convention: the rows of the given users), as implicit's item-based
models do, so an updated row changes the recommendations without a refit; Ũ_u and the biases
are the fitted user's. With the training rows this is exactly the fitted model's score.
``recalculate_user=True`` computes the user from the passed rows alone (implicit's contract):
Ū_u from them, Ũ_u = 0 and b_u = 0, so any id, a new user's beyond the fitted ones too, gives
the same list for the same row.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
from tqdm.auto import tqdm

from ratkit._validation import check_int, check_random_state, check_real
from ratkit.exceptions import DataFormatError, ParameterError
from ratkit.fitted import Array, Derived, Fitted, Sparse
from ratkit.plugins import register
from ratkit.recsys._linalg import row_products
from ratkit.recsys._renamed import given_as, resolve, warn_renamed
from ratkit.recsys._tjsl_sgd import sample_negatives, sgd_epoch
from ratkit.recsys._tjsl_user_epoch import negative_counts, user_epoch
from ratkit.recsys._validation import check_user_items
from ratkit.recsys.base import Recommender

__all__ = ["TJSL", "FISM"]

#: The SGD epochs ``sgd`` names: per user (:mod:`ratkit.recsys._tjsl_user_epoch`) or per pair
#: (the paper's, :mod:`ratkit.recsys._tjsl_sgd`).
_SGD = frozenset({"user", "pair"})


def _check_same_ids(preferred: Any, examined: Any) -> None:
    """Two :class:`~ratkit.recsys.datasets.Interactions` must number users and items alike."""
    for what in ("user_ids", "item_ids"):
        a, b = getattr(preferred, what, None), getattr(examined, what, None)
        if a is not None and b is not None and not np.array_equal(np.asarray(a), np.asarray(b)):
            raise DataFormatError(
                f"preferred and examined number their {what[:4]}s differently ({what} differ), so their rows or "
                "columns do not line up; build both from one data set (feedback.to_heterogeneous)."
            )


def _pattern(matrix: sp.csr_matrix) -> sp.csr_matrix:
    """The 0/1 pattern of a checked CSR matrix, sorted indices."""
    out = sp.csr_matrix((np.ones(matrix.nnz), matrix.indices, matrix.indptr), shape=matrix.shape)
    out.sort_indices()
    return out


class _JointSimilarity(Recommender):
    """What TJSL and FISM share: fitting, the round schedule, scoring, model files."""

    _fit_shows_progress: ClassVar[bool] = True
    #: What ``fit`` sets (:mod:`ratkit.fitted`): the biases and factors of each kept model,
    #: and one block of ``n_users_`` rows of ``selected_`` per kept model.
    _fitted_schema: ClassVar[Fitted] = Recommender._fitted_schema.extend(
        user_bias_=Array("f", ("models", "n_users_")),
        item_bias_=Array("f", ("models", "n_items_")),
        candidate_factors_=Array("f", ("models", "n_items_", "d")),
        preferred_factors_=Array("f", ("models", "n_items_", "d")),
        examined_factors_=Array("f", ("models", "n_items_", "d")),
        preferred_=Sparse("f", ("n_users_", "n_items_")),
        selected_=Sparse("f", ("selected_rows", "n_items_")),
        tau_schedule_=Array("f", ("rounds",)),
        dims={"selected_rows": Derived(("user_bias_", "n_users_"), lambda bias, m: bias.shape[0] * m)},
    )
    _fitted_attributes: ClassVar[tuple[str, ...]] = _fitted_schema.required

    # -- parameters ---------------------------------------------------------------------
    def _validate_params(self) -> None:
        owner = type(self).__name__
        check_int(self.n_factors, "n_factors", owner, low=1)
        check_real(self.learning_rate, "learning_rate", owner, low=0.0, low_open=True)
        check_real(self.rho, "rho", owner, low=0.0, low_open=True)
        check_int(self.n_epochs, "n_epochs", owner, low=1)
        warn_renamed(self)
        for new, old in self._penalties():
            check_real(self._penalty(new), new if old is None else given_as(self, new, old), owner, low=0.0)
        check_real(self.init_scale, "init_scale", owner, low=0.0, low_open=True)  # 0: the factors never move
        L = check_int(self._rounds(), "n_rounds", owner, low=1)
        L0 = check_int(self._averaged(), "n_average", owner, low=1)
        if L0 > L:
            raise ParameterError(
                f"n_average={L0} is more than n_rounds={L}: the prediction averages the last n_average of the "
                f"n_rounds models; use n_average ≤ {L}."
            )
        check_real(self._decay(), "tau_decay", owner, low=0.0, high=1.0, low_open=True)
        if self.sgd not in _SGD:
            raise ParameterError(
                f"{owner}: sgd={self.sgd!r} is not one of {sorted(_SGD)}: 'user' visits users (profiles "
                "aggregated once per visit, linear in the data), 'pair' is the paper's per-pair SGD."
            )

    def _fit_bytes(self, n_users: int, n_items: int) -> float:
        """Three item factor matrices n × d for the current and each kept model, plus the biases."""
        return 8.0 * (3 * n_items * self.n_factors * (self._averaged() + 1) + (n_users + n_items) * self._averaged())

    #: The penalties' parameter names, the paper's symbol in sgd_epoch's order: α_v, α_p, α_e,
    #: β_u, β_v of V, P, E and the user and item biases.
    _PENALTIES: ClassVar[tuple[str, ...]] = (
        "regularization_candidate",
        "regularization_preferred",
        "regularization_examined",
        "regularization_user_bias",
        "regularization_item_bias",
    )

    def _penalties(self) -> list[tuple[str, str | None]]:
        """(new name, its former name or None) of each penalty, in sgd_epoch's order."""
        former = {new: old for old, new in self._renamed.items()}
        return [(new, former.get(new)) for new in self._PENALTIES]

    def _penalty(self, new: str) -> Any:
        """The value of penalty ``new`` as given (its deprecated spelling's when that was given)."""
        old = dict(self._penalties())[new]
        return getattr(self, new) if old is None else resolve(self, new, old)

    def _rounds(self) -> int:
        return self.n_rounds

    def _averaged(self) -> int:
        return self.n_average

    def _decay(self) -> float:
        return self.tau_decay

    # -- fitting --------------------------------------------------------------------------
    def fit(
        self,
        preferred: Any,
        examined: Any = None,
        *,
        show_progress: bool | None = None,
        callback: Callable[..., Any] | None = None,
    ) -> _JointSimilarity:
        """Learn from the preferred items ``preferred`` (users × items, CSR) and the examined
        items ``examined`` (same shape; None: none). An entry in both raises DataFormatError.
        ``show_progress`` and ``callback`` as in :meth:`Recommender.fit`."""
        _check_same_ids(preferred, examined)
        self._examined = None if examined is None else check_user_items(examined, name="examined", allow_empty=True)
        try:
            return super().fit(preferred, show_progress=show_progress, callback=callback)
        finally:
            del self._examined

    def _fit(self, user_items: sp.csr_matrix, *, show_progress: bool = False) -> None:
        owner = type(self).__name__
        P = _pattern(user_items)
        m, n = P.shape
        E = sp.csr_matrix((m, n)) if self._examined is None else _pattern(self._examined)
        if E.shape != P.shape:
            raise DataFormatError(
                f"examined has shape {E.shape} but preferred has {P.shape}; both are users × items of one data set."
            )
        overlap = P.multiply(E)
        if overlap.nnz:
            u, i = (int(x[0]) for x in overlap.nonzero())
            raise DataFormatError(
                f"{overlap.nnz} (user, item) pair(s) are both preferred and examined (the first: user {u}, item {i}); "
                "P and E must be disjoint (an examined item is one the user did not prefer)."
            )
        rng = check_random_state(self.random_state)
        d = int(self.n_factors)
        scale = float(self.init_scale)
        bu, bi = np.zeros(m), np.zeros(n)
        V, Pf, Ef = (rng.normal(0.0, scale, (n, d)) for _ in range(3))
        if self.sgd == "pair":  # the sorted keys u·n + i of P, and P's pairs
            keys = P.tocoo()
            keys = np.sort(keys.row.astype(np.int64) * n + keys.col)
            pu = np.repeat(np.arange(m), np.diff(P.indptr)).astype(np.int64)
            pi = P.indices.astype(np.int64)
        n_neg = int(math.ceil(float(self.rho) * P.nnz))
        if P.nnz == m * n:
            raise DataFormatError(
                f"Every (user, item) pair of the {m} × {n} matrix is preferred, so there is no pair to sample as a "
                "negative (A ⊂ R∖P is empty); a one-class model needs unobserved pairs."
            )
        L, L0, decay = self._rounds(), self._averaged(), float(self._decay())
        # α_v, α_p, α_e, β_u, β_v, in sgd_epoch's order
        penalties = [float(self._penalty(new)) for new, _ in self._penalties()]
        selected, tau, taus = E, 1.0, []
        kept: list[tuple] = []
        # a fixed number of epochs: the bar's total is the work
        bar = tqdm(total=L * int(self.n_epochs), desc=owner, unit=" epoch", disable=not show_progress, leave=True)
        for ell in range(1, L + 1):
            taus.append(tau)
            for _ in range(int(self.n_epochs)):
                if self.sgd == "user":
                    loss, _ops = user_epoch(
                        rng.permutation(m).astype(np.int64), negative_counts(rng, P.indptr, n, n_neg),
                        int(rng.integers(0, 2**31 - 1)), P.indptr, P.indices, selected.indptr, selected.indices,
                        bu, bi, V, Pf, Ef, float(self.learning_rate), *penalties,
                    )  # fmt: skip
                    n_pairs = P.nnz + n_neg
                else:
                    loss, n_pairs = self._pair_epoch(
                        rng, P, selected, keys, pu, pi, n_neg, (bu, bi, V, Pf, Ef), penalties
                    )
                # the squared-error term ½(r − r̂)² of the objective, averaged over the epoch's pairs
                # (each taken before its step)
                bar.set_postfix({"round": f"{ell}/{L}", "loss": f"{loss / max(n_pairs, 1):.6g}"}, refresh=False)
                bar.update(1)
            if not (np.all(np.isfinite(V)) and np.all(np.isfinite(Pf)) and np.all(np.isfinite(Ef))):
                raise ParameterError(
                    f"{owner}: SGD diverged in round {ell} (non-finite factors); lower learning_rate "
                    f"(now {self.learning_rate!r})."
                )
            if ell > L - L0:
                kept.append((bu.copy(), bi.copy(), V.copy(), Pf.copy(), Ef.copy(), selected))
            if ell < L:
                tau *= decay
                selected = _select(E, P, selected, (bu, bi, V, Pf, Ef), tau)
        bar.close()
        self.user_bias_ = np.stack([k[0] for k in kept])
        self.item_bias_ = np.stack([k[1] for k in kept])
        self.candidate_factors_ = np.stack([k[2] for k in kept])
        self.preferred_factors_ = np.stack([k[3] for k in kept])
        self.examined_factors_ = np.stack([k[4] for k in kept])
        self.preferred_ = P
        self.selected_ = sp.vstack([k[5] for k in kept], format="csr")  # model t's E^(ℓ): rows t·m … (t+1)·m − 1
        self.tau_schedule_ = np.array(taus)

    def _pair_epoch(
        self,
        rng: np.random.Generator,
        P: sp.csr_matrix,
        selected: sp.csr_matrix,
        keys: np.ndarray,
        pu: np.ndarray,
        pi: np.ndarray,
        n_neg: int,
        params: tuple[np.ndarray, ...],
        penalties: list[float],
    ) -> tuple[float, int]:
        """One epoch of the paper's per-pair SGD (``sgd="pair"``) over P ∪ A in a random order;
        returns (Σ ½ e², the number of pairs)."""
        m, n = P.shape
        nu, ni = sample_negatives(rng, keys, m, n, n_neg)
        users = np.concatenate([pu, nu])
        items = np.concatenate([pi, ni])
        targets = np.concatenate([np.ones(pu.size), np.zeros(nu.size)])
        order = rng.permutation(users.size)
        loss = sgd_epoch(
            users[order], items[order], targets[order], P.indptr, P.indices, selected.indptr, selected.indices,
            *params, float(self.learning_rate), *penalties,
        )  # fmt: skip
        return float(loss), int(users.size)

    # -- scoring ---------------------------------------------------------------------------
    def _score_users(self, users: np.ndarray) -> np.ndarray:
        """The mean over the kept models of b_u + b_i + Ū_u^{−i}V_iᵀ + Ũ_u^(ℓ)V_iᵀ for every item."""
        return self._score_users_from(users, None)

    def _score_users_from(self, users: np.ndarray, user_rows: sp.csr_matrix | None) -> np.ndarray:
        """As :meth:`_score_users`, Ū_u built from the preferred items in ``user_rows`` (the rows
        ``recommend`` was passed; their stored entries, values ignored) rather than the fitted
        ones; None: the fitted rows. Ũ_u and b_u stay the fitted user's."""
        preferred = None if user_rows is None else _pattern(user_rows)
        return _mean_of(self.model_scores(t, users, preferred) for t in range(self.user_bias_.shape[0]))

    def _recalculate_scores(self, users: np.ndarray, user_rows: sp.csr_matrix) -> np.ndarray:
        """From the rows alone, whatever the ids (a new user's too): Ū_u from their items, Ũ_u = 0
        (no examinations are given) and b_u = 0 (no row of items determines a user's bias, which
        the regulariser pulls to 0; it shifts all of a user's scores alike, so with E_u = ∅ the
        ranking of a training row is the fitted one)."""
        rows = _pattern(user_rows)
        none, zero = sp.csr_matrix(rows.shape), np.zeros(rows.shape[0])
        parts = zip(self.item_bias_, self.candidate_factors_, self.preferred_factors_, self.examined_factors_)
        return _mean_of(_scores(rows, none, zero, bi, V, Pf, Ef) for bi, V, Pf, Ef in parts)

    def model_scores(self, t: int, users: np.ndarray, preferred: sp.csr_matrix | None = None) -> np.ndarray:
        """Scores (len(users), n_items) of kept model t (0 = round L − L₀ + 1, …, L₀ − 1 = round L);
        ``preferred``: the users' preferred-item rows (default: the fitted ones)."""
        m = self.n_users_
        bu, bi = self.user_bias_[t], self.item_bias_[t]
        V, Pf, Ef = self.candidate_factors_[t], self.preferred_factors_[t], self.examined_factors_[t]
        selected = self.selected_[t * m : (t + 1) * m]
        rows = self.preferred_[users] if preferred is None else preferred
        return _scores(rows, selected[users], bu[users], bi, V, Pf, Ef)


def _mean_of(blocks: Iterator[np.ndarray]) -> np.ndarray:
    """The mean of the score blocks (the kept models' scores), summed into the first in place:
    one block is itself, not a stacked copy of it (a block is users × items floats)."""
    total = next(blocks)
    count = 1
    for block in blocks:
        total += block
        count += 1
    if count > 1:
        total /= count
    return total


def _scores(
    P: sp.csr_matrix,
    E: sp.csr_matrix,
    bu: np.ndarray,
    bi: np.ndarray,
    V: np.ndarray,
    Pf: np.ndarray,
    Ef: np.ndarray,
) -> np.ndarray:
    """b_u + b_i + Ū_u^{−i}V_iᵀ + Ũ_u V_iᵀ for the rows of P, E and every item i."""
    n_p = np.asarray(P.sum(axis=1)).ravel()
    n_e = np.asarray(E.sum(axis=1)).ravel()
    sum_p = P @ Pf  # Σ_{i′ ∈ P_u} P_{i′}
    tilde = (E @ Ef) / np.sqrt(np.maximum(n_e, 1))[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = np.where(n_p > 0, 1.0 / np.sqrt(n_p), 0.0)
    # b_u + b_i + ⟨U, V_i⟩ as one product [U, 1, b_u]·[V_i, b_i, 1]: a users × items block is made once
    users = np.hstack([sum_p * inv[:, None] + tilde, np.ones((n_p.shape[0], 1)), bu[:, None]])
    out = row_products(users, np.hstack([V, bi[:, None], np.ones((V.shape[0], 1))]))
    # i ∈ P_u: its own factor leaves the profile, which is then normalised by |P_u| − 1
    rows, cols = P.nonzero()
    if rows.size:
        own = np.einsum("td,td->t", sum_p[rows] - Pf[cols], V[cols])
        left = n_p[rows] - 1
        fixed = np.where(left > 0, own / np.sqrt(np.maximum(left, 1)), 0.0)
        out[rows, cols] += fixed - np.einsum("td,td->t", sum_p[rows], V[cols]) * inv[rows]
    return out


def _select(
    E: sp.csr_matrix, P: sp.csr_matrix, selected: sp.csr_matrix, params: tuple[np.ndarray, ...], tau: float
) -> sp.csr_matrix:
    """E^(ℓ+1): per user the ⌈τ|E_u|⌉ examined items scored highest by the current model (its
    prediction rule with the current selection), ties to the smaller item id."""
    bu, bi, V, Pf, Ef = params
    m, n = E.shape
    rows, cols = [], []
    for u in range(m):
        items = E.indices[E.indptr[u] : E.indptr[u + 1]]
        if items.size == 0:
            continue
        scores = _scores(P[u], selected[u], bu[u : u + 1], bi, V, Pf, Ef)[0, items]
        keep = int(math.ceil(tau * items.size - 1e-12))
        best = items[np.lexsort((items, -scores))[:keep]]
        rows.append(np.full(best.size, u))
        cols.append(best)
    if not rows:
        return sp.csr_matrix((m, n))
    r, c = np.concatenate(rows), np.concatenate(cols)
    out = sp.csr_matrix((np.ones(r.size), (r, c)), shape=(m, n))
    out.sort_indices()
    return out


@register("recommender", "tjsl")
class TJSL(_JointSimilarity):
    """Transfer by joint similarity learning (Pan, Liu and Ming, IEEE Intelligent Systems 2016)
    for preferred and examined items; see :mod:`ratkit.recsys.tjsl`.

    Parameters
    ----------
    n_factors : int
        d, the dimension of the item factors V, P and E.
    learning_rate : float
        γ > 0 of the SGD steps.
    rho : float
        ρ > 0: each epoch samples ρ|P| pairs of R∖P as negatives.
    n_rounds, n_average : int
        L ≥ 1 rounds of training and selection; the prediction averages the last L₀ = n_average
        (1 ≤ L₀ ≤ L) rounds' models.
    tau_decay : float
        τ ← τ · tau_decay after each round, in (0, 1] (the paper's 0.9).
    random_state : None, int or numpy Generator
        Seeds the initialisation, the negatives and the visiting order.
    n_epochs : int
        SGD epochs per round (the paper's T).
    regularization_candidate, regularization_preferred, regularization_examined : float
        The regularisers α_v, α_p, α_e of the candidate, preferred and examined item factors
        V, P and E (the paper's objectives (3) and (5)).
    regularization_user_bias, regularization_item_bias : float
        The regularisers β_u, β_v of the user and item biases.
    init_scale : float
        Standard deviation of the Gaussian initial factors.
    sgd : {"user", "pair"}
        The SGD epoch. "user" (default): users in a random order, each user's profile
        aggregates computed once per visit and its profile items updated once at the end of
        the visit (:mod:`ratkit.recsys._tjsl_user_epoch`; an epoch costs O(|P ∪ A| d + Σ_u
        (|P_u| + |E_u|) d)). "pair": the paper's SGD, one step per pair updating every
        profile item (O(|P ∪ A| (avg|P_u| + avg|E_u|) d)), kept as the reference.
    show_progress : bool
        A progress bar over the n_rounds × n_epochs epochs, with the round and the epoch's
        mean squared-error loss ½(r − r̂)² over its pairs (off by default).
    alpha_v, alpha_p, alpha_e, beta_u, beta_v : deprecated
        The former names of the five ``regularization_*`` parameters (in that order),
        accepted for one release (``fit`` warns with a :class:`DeprecationWarning`); None:
        not given.
    """

    _renamed: ClassVar[Mapping[str, str]] = {
        "alpha_v": "regularization_candidate",
        "alpha_p": "regularization_preferred",
        "alpha_e": "regularization_examined",
        "beta_u": "regularization_user_bias",
        "beta_v": "regularization_item_bias",
    }

    def __init__(
        self,
        n_factors: int = 20,
        learning_rate: float = 0.01,
        rho: float = 3.0,
        n_rounds: int = 3,
        n_average: int = 1,
        tau_decay: float = 0.9,
        random_state: Any = None,
        *,
        n_epochs: int = 20,
        regularization_candidate: float = 0.01,
        regularization_preferred: float = 0.01,
        regularization_examined: float = 0.01,
        regularization_user_bias: float = 0.01,
        regularization_item_bias: float = 0.01,
        init_scale: float = 0.01,
        sgd: str = "user",
        show_progress: bool = False,
        alpha_v: float | None = None,
        alpha_p: float | None = None,
        alpha_e: float | None = None,
        beta_u: float | None = None,
        beta_v: float | None = None,
    ) -> None:
        self.n_factors = n_factors
        self.learning_rate = learning_rate
        self.rho = rho
        self.n_rounds = n_rounds
        self.n_average = n_average
        self.tau_decay = tau_decay
        self.random_state = random_state
        self.n_epochs = n_epochs
        self.regularization_candidate = regularization_candidate
        self.regularization_preferred = regularization_preferred
        self.regularization_examined = regularization_examined
        self.regularization_user_bias = regularization_user_bias
        self.regularization_item_bias = regularization_item_bias
        self.init_scale = init_scale
        self.sgd = sgd
        self.show_progress = show_progress
        self.alpha_v = alpha_v
        self.alpha_p = alpha_p
        self.alpha_e = alpha_e
        self.beta_u = beta_u
        self.beta_v = beta_v


@register("recommender", "fism")
class FISM(_JointSimilarity):
    """FISM_rmse (Kabbur, Ning and Karypis, KDD 2013): r̂_ui = b_u + b_i + Ū_u^{−i} V_iᵀ, the
    target item left out of the user's profile; TJSL's code with no examined items and one
    round. Parameters as :class:`TJSL`'s (without the rounds and regularization_examined;
    ``alpha_v``, ``alpha_p``, ``beta_u``, ``beta_v`` are deprecated as there)."""

    _renamed: ClassVar[Mapping[str, str]] = {
        "alpha_v": "regularization_candidate",
        "alpha_p": "regularization_preferred",
        "beta_u": "regularization_user_bias",
        "beta_v": "regularization_item_bias",
    }

    def __init__(
        self,
        n_factors: int = 20,
        learning_rate: float = 0.01,
        rho: float = 3.0,
        random_state: Any = None,
        *,
        n_epochs: int = 20,
        regularization_candidate: float = 0.01,
        regularization_preferred: float = 0.01,
        regularization_user_bias: float = 0.01,
        regularization_item_bias: float = 0.01,
        init_scale: float = 0.01,
        sgd: str = "user",
        show_progress: bool = False,
        alpha_v: float | None = None,
        alpha_p: float | None = None,
        beta_u: float | None = None,
        beta_v: float | None = None,
    ) -> None:
        self.n_factors = n_factors
        self.learning_rate = learning_rate
        self.rho = rho
        self.random_state = random_state
        self.n_epochs = n_epochs
        self.regularization_candidate = regularization_candidate
        self.regularization_preferred = regularization_preferred
        self.regularization_user_bias = regularization_user_bias
        self.regularization_item_bias = regularization_item_bias
        self.init_scale = init_scale
        self.sgd = sgd
        self.show_progress = show_progress
        self.alpha_v = alpha_v
        self.alpha_p = alpha_p
        self.beta_u = beta_u
        self.beta_v = beta_v

    regularization_examined = 0.0  # no examined items: its regulariser never acts

    def _rounds(self) -> int:
        return 1

    def _averaged(self) -> int:
        return 1

    def _decay(self) -> float:
        return 1.0

    def fit(
        self,
        preferred: Any,
        examined: Any = None,
        *,
        show_progress: bool | None = None,
        callback: Callable[..., Any] | None = None,
    ) -> FISM:
        """Learn from the preferred items alone (FISM has no examined items); ``show_progress``
        and ``callback`` as in :meth:`Recommender.fit`."""
        if examined is not None:
            raise ParameterError("FISM learns from preferred items only; use TJSL for examined items too.")
        return super().fit(preferred, show_progress=show_progress, callback=callback)
