"""CCCF, compositional coding for collaborative filtering, and DCF, its one-component case.

Each user i has G components of r-bit codes b_i^(k) ∈ {±1}^r and weights η_i^(k) ≥ 0,
each item j likewise d_j^(k), ξ_j^(k); the score is

    r̂_ij = Σ_k η_i^(k) ξ_j^(k) ⟨b_i^(k), d_j^(k)⟩,   ⟨b, d⟩ = r − 2·Hamming(b, d).

Learning (Liu et al. 2019, §3; the authors' code settles what the paper leaves open;
:mod:`ratkit.recsys._code_fit` does it):

1. *Weights.* A real-valued MF of the ratings places users and items
   (:func:`~ratkit.recsys._component_weights.pretrain_factors`). G anchors are the k-means
   centroids of all those vectors scaled to unit length, users and items together (the
   paper's "G centroids as anchor points"; the weights depend on angles only), or, as the
   reference code does, k-medoids of the users and of the items apart, user anchor k paired
   with the item anchor it rates highest (:func:`pair_anchors`). η_i^(k) is a smoothing
   kernel (``smoothing``: Epanechnikov by default, uniform or triangular) of the angular
   distance (2/π)·arccos(cos) between user i and anchor k, with bandwidth h, and **each user's
   weights are normalised to sum to 1 over the G components** (the items' likewise). A
   user farther than h from every anchor gets weight 1 on its nearest anchor (the
   reference code would leave it all zero and score it 0 everywhere). A small h gives
   sparse weights: a user and an item that share no component score 0 whatever their
   codes. The default h = 1.75 is dense (at G = 8 nearly every weight is non-zero). It was
   chosen on MovieLens 100K development splits, against the reference code's sparse
   h = 0.7 (the default before), which leaves most user–item pairs sharing no component;
   shared k-means anchors were chosen over separate k-means of users and of items paired
   by affinity. The comparisons, their figures and the commands that produced them are in
   bench/RESULTS.md ("CCCF defaults (issue 34)" and "CCCF and DCF on MovieLens 100K").
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

One-class data (``feedback="implicit"``; the papers' model, ``"explicit"``, is the default).
Where a stored entry means interest (clicks, plays, ratings turned into positives), fitting
the observed pairs alone never pushes the unobserved items down, so the model cannot rank
all items. With ``feedback="implicit"`` the codes fit **every** user–item pair as implicit
ALS does (Hu, Koren and Volinsky 2008): minimise Σ_{i,j} c_ij (p_ij − r̂_ij)² + the balance
terms, p_ij = r on an observed pair (the top of the scores' range, times ω̄ as in step 2)
and 0 elsewhere, c_ij = 1 + a·v_ij on an observed pair of stored value v_ij (a =
``confidence``) and w₀ = ``unobserved_weight`` elsewhere. The bit updates are step 3's; the
sum over all items of a user's quadratic is w₀ times the Gram of the items' weighted codes
(d × d, d = G·r, refreshed block by block) plus corrections on the user's observed items,
so the dense matrix is never formed and an outer iteration costs O(|𝒱|·d·r + (m + n)·d²)
(:mod:`ratkit.recsys._code_oneclass`). The weights' MF (step 1) is implicit ALS with the
same weights (:func:`~ratkit.recsys._component_weights.pretrain_one_class`); the identical
start's scale c is the weighted least-squares one over all pairs. ``rating_scale_`` is then
[0, 1] (the targets before scaling). On MovieLens 100K's all-items task the one-class CCCF
at 8 × 8 bits ranks close to implicit's ALS at 64 float factors and far above popularity,
where the rating model ranks below popularity (bench/RESULTS.md, "One-class CCCF and DCF
on the all-items task (issue 38)").

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

import abc
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

import numpy as np
import scipy.sparse as sp

from ratkit._validation import check_choice, check_int, check_real
from ratkit.exceptions import ParameterError, ParameterTypeError
from ratkit.fitted import Array, Derived, Fitted, Int, Numbers, Real
from ratkit.plugins import register
from ratkit.recsys._code_fit import INT64_SAFE, Settings, fit_codes
from ratkit.recsys._code_fit import pair_anchors as pair_anchors  # its former home; the tests and users import it here
from ratkit.recsys._component_weights import ANCHOR_METHODS, SMOOTHING_KERNELS
from ratkit.recsys._packed_codes import (
    ItemTable,
    integer_weights,
    item_table,
    table_scores,
    unpack_codes,
)
from ratkit.recsys._renamed import given_as, resolve, warn_renamed
from ratkit.recsys.base import Recommender

__all__ = ["CCCF", "DCF"]

ANCHORS = ANCHOR_METHODS
INITS = ("relaxed", "random", "identical")
FEEDBACKS = ("explicit", "implicit")


def __getattr__(name: str) -> Any:
    """``KERNELS``, the former name of :data:`~ratkit.recsys._component_weights.SMOOTHING_KERNELS`
    here, for one release (a DeprecationWarning)."""
    if name == "KERNELS":
        warnings.warn(
            "ratkit.recsys.cccf.KERNELS is deprecated and will be removed in the next release; CCCF's smoothing "
            "kernels are the choices of its 'smoothing' parameter ('epanechnikov', 'uniform', 'triangular').",
            DeprecationWarning,
            stacklevel=2,
        )
        return SMOOTHING_KERNELS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _increasing_scale(model: _CompositionalCodes) -> str | None:
    lo, hi = model.rating_scale_
    return None if lo < hi else f"rating_scale_ is {model.rating_scale_!r}, not an interval [low, high] with low < high"


def _exact_integer_scores(model: _CompositionalCodes) -> str | None:
    """The integer scores Σ_k ⌊eη⌉⌊eξ⌉⟨b, d⟩ stay below 2⁶³ (what ``fit`` refuses otherwise)."""
    e, G = model.weight_scale_, model.weights_user_.shape[1]
    if e is None or e * e * model.n_bits_ * G < INT64_SAFE:
        return None
    return f"weight_scale_ = {e!r} makes the integer scores reach e²·r·G ≥ 2⁶³ (n_bits_ = {model.n_bits_}, G = {G})"


class _CompositionalCodes(Recommender):
    """What CCCF and DCF share: fitting from their :class:`~ratkit.recsys._code_fit.Settings`
    (:func:`~ratkit.recsys._code_fit.fit_codes`), packed scoring, model files."""

    #: ``"explicit"`` (ratings, the papers' model; the default) or ``"implicit"`` (one-class
    #: data, every pair fitted): a constructor parameter of both models.
    feedback: str = "explicit"
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

    # The parameters both models declare (each sets them in its ``__init__``); the rest of a
    # fit's settings come from the model's own :meth:`_settings`.
    n_bits: int
    alpha_user: float
    alpha_item: float
    max_iter: int
    random_state: Any
    rating_scale: tuple[float, float] | None
    tol: float
    n_sweeps: int
    init: str
    init_iter: int
    unobserved_weight: float
    confidence: float

    @abc.abstractmethod
    def _settings(self) -> Settings:
        """The model's parameters, checked, as the :class:`~ratkit.recsys._code_fit.Settings` of a fit."""

    # -- fitting ---------------------------------------------------------------------------
    def _fit(self, user_items: sp.csr_matrix, *, show_progress: bool = False) -> None:
        s = self._settings()
        fitted = fit_codes(user_items, s, self.random_state, type(self).__name__, show_progress=show_progress)
        self.codes_user_, self.codes_item_ = fitted.codes_user, fitted.codes_item
        self.weights_user_, self.weights_item_ = fitted.weights_user, fitted.weights_item
        self.n_bits_ = s.n_bits
        self.weight_scale_ = s.weight_scale
        self.rating_scale_ = list(fitted.rating_scale)
        self.objective_history_ = fitted.objective_history

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


def _common(model: _CompositionalCodes, owner: str) -> dict[str, Any]:
    """The checked parameters CCCF and DCF share, as keywords of :class:`Settings`."""
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
        **_feedback_settings(model, owner),
    }


def _feedback_settings(model: _CompositionalCodes, owner: str) -> dict[str, Any]:
    """``feedback`` and its one-class weights, checked (a rating scale with one-class data is refused)."""
    feedback = model.feedback
    if not isinstance(feedback, str) or feedback not in FEEDBACKS:
        raise ParameterError(
            f"The 'feedback' parameter of {owner} must be one of {', '.join(map(repr, FEEDBACKS))}: \"explicit\" for "
            f'ratings (the paper\'s model), "implicit" for one-class data. Got {feedback!r:.60} instead.'
        )
    if feedback == "implicit" and model.rating_scale is not None:
        raise ParameterError(
            f'{owner}(feedback="implicit") learns from one-class data, which has no rating scale; got '
            f'rating_scale={model.rating_scale!r}. Drop rating_scale, or use feedback="explicit" for ratings.'
        )
    return {
        "feedback": feedback,
        "unobserved_weight": check_real(model.unobserved_weight, "unobserved_weight", owner, low=0.0, low_open=True),
        "confidence": check_real(model.confidence, "confidence", owner, low=0.0),
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
    smoothing : {"epanechnikov", "uniform", "triangular"}
        The smoothing kernel of the weights (the paper's kernel smoothing: the Epanechnikov
        kernel, or the uniform or triangular kernel it compares). Not a ratkit
        :class:`~ratkit.automata.kernels.Kernel`.
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
    pretrain_iter, pretrain_regularization : int, float
        ALS passes and ridge of the real-valued MF that places users and items.
    show_progress : bool
        A progress bar counting the outer iterations, with the objective, its relative
        change against ``tol`` and the bits flipped (off by default).
    feedback : {"explicit", "implicit"}
        ``"explicit"`` (the default, the paper's model): the stored entries are ratings and
        only they are fitted. ``"implicit"``: one-class data, every user–item pair fitted,
        unobserved ones with weight ``unobserved_weight`` (see the module docstring); the
        model can then rank all items. ``ratkit recsys evaluate`` picks ``"implicit"`` on
        one-class data and says so.
    unobserved_weight : float
        w₀ > 0, the confidence of an unobserved pair (``feedback="implicit"`` only). The
        default 1 (with ``confidence`` 1: observed pairs weigh 2) was the best of w₀ ∈
        {0.5, 1, 2, 4, 8} × a ∈ {0, 1, 4} on validation splits of MovieLens 100K's training
        parts (bench/RESULTS.md, issue 38).
    confidence : float
        a ≥ 0: an observed pair of stored value v has confidence 1 + a·v
        (``feedback="implicit"`` only).
    kernel, pretrain_reg : deprecated
        The former names of ``smoothing`` and ``pretrain_regularization``, accepted for one
        release (``fit`` warns with a :class:`DeprecationWarning`); None: not given.

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

    _renamed: ClassVar[Mapping[str, str]] = {"kernel": "smoothing", "pretrain_reg": "pretrain_regularization"}

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
        smoothing: Literal["epanechnikov", "uniform", "triangular"] = "epanechnikov",
        anchors: Literal["kmeans", "kmedoids"] = "kmeans",
        rating_scale: tuple[float, float] | None = None,
        tol: float = 1e-4,
        n_sweeps: int = 5,
        init: Literal["identical", "relaxed", "random"] = "identical",
        init_iter: int = 5,
        pretrain_iter: int = 10,
        pretrain_regularization: float = 0.1,
        show_progress: bool = False,
        feedback: Literal["explicit", "implicit"] = "explicit",
        unobserved_weight: float = 1.0,
        confidence: float = 1.0,
        kernel: Literal["epanechnikov", "uniform", "triangular"] | None = None,
        pretrain_reg: float | None = None,
    ) -> None:
        self.n_components = n_components
        self.n_bits = n_bits
        self.bandwidth = bandwidth
        self.alpha_user = alpha_user
        self.alpha_item = alpha_item
        self.weight_scale = weight_scale
        self.max_iter = max_iter
        self.random_state = random_state
        self.smoothing = smoothing
        self.anchors = anchors
        self.rating_scale = rating_scale
        self.tol = tol
        self.n_sweeps = n_sweeps
        self.init = init
        self.init_iter = init_iter
        self.pretrain_iter = pretrain_iter
        self.pretrain_regularization = pretrain_regularization
        self.show_progress = show_progress
        self.feedback = feedback
        self.unobserved_weight = unobserved_weight
        self.confidence = confidence
        self.kernel = kernel
        self.pretrain_reg = pretrain_reg

    def _validate_params(self) -> None:
        warn_renamed(self)
        self._settings()

    def _settings(self) -> Settings:
        owner = "CCCF"
        G = check_int(self.n_components, "n_components", owner, low=1)
        return Settings(
            n_components=G,
            uniform_weights=G == 1,  # one component: every normalised weight is 1
            bandwidth=check_real(self.bandwidth, "bandwidth", owner, low=0.0, low_open=True),
            smoothing=check_choice(
                resolve(self, "smoothing", "kernel"), given_as(self, "smoothing", "kernel"), owner, SMOOTHING_KERNELS
            ),
            anchors=check_choice(self.anchors, "anchors", owner, ANCHORS),
            pretrain_iter=check_int(self.pretrain_iter, "pretrain_iter", owner, low=1),
            pretrain_regularization=check_real(
                resolve(self, "pretrain_regularization", "pretrain_reg"),
                given_as(self, "pretrain_regularization", "pretrain_reg"),
                owner,
                low=0.0,
            ),
            **_common(self, owner),
            weight_scale=(
                None
                if self.weight_scale is None
                else check_real(self.weight_scale, "weight_scale", owner, low=0.0, low_open=True)
            ),
        )


@register("recommender", "dcf")
class DCF(_CompositionalCodes):
    """Discrete collaborative filtering (Zhang et al., SIGIR 2016): one component of r-bit
    codes with every weight 1, so r̂_ij = ⟨b_i, d_j⟩ = r − 2·Hamming(b_i, d_j); the same code
    as :class:`CCCF` with ``n_components=1`` (see :mod:`ratkit.recsys.cccf`). Ratings are
    scaled to [−r, r].

    Parameters are CCCF's that apply to one component: ``n_bits``, ``alpha_user``,
    ``alpha_item``, ``max_iter``, ``random_state``, ``rating_scale``, ``tol``,
    ``n_sweeps``, ``init``, ``init_iter``, ``show_progress``, ``feedback`` (``"implicit"``:
    one-class data, every pair fitted) with ``unobserved_weight`` and ``confidence``. ``init`` defaults to
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
        feedback: Literal["explicit", "implicit"] = "explicit",
        unobserved_weight: float = 1.0,
        confidence: float = 1.0,
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
        self.feedback = feedback
        self.unobserved_weight = unobserved_weight
        self.confidence = confidence

    def _validate_params(self) -> None:
        self._settings()

    def _settings(self) -> Settings:
        return Settings(n_components=1, uniform_weights=True, **_common(self, "DCF"))
