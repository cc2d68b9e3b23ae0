"""The one contract every ratkit recommender follows (after implicit's ``RecommenderBase``).

``fit(user_items)`` takes a :mod:`scipy.sparse` matrix with **users as rows and items as
columns** (fixed from day one); ``recommend(userid, user_items, N=10,
filter_already_liked_items=True, filter_items=None, recalculate_user=False, items=None)``
is implicit's (≥ 0.5) calling convention exactly — ``user_items`` holds the rows of the
given users (``train[userids]``) — and returns ``(ids, scores)`` (int32 ids), so
``implicit.evaluation`` runs on ratkit models unchanged; ``similar_items`` and
``similar_users`` rank by the cosine of the factors where a model has them; ``score`` gives
the model's score of (user, item) pairs; ``save`` writes ratkit's model file (JSON and
``.npy`` arrays in a zip, no pickle), which :func:`ratkit.load_model` reads back. Every
recommender is a scikit-learn estimator (``get_params``/``set_params``, ``clone``).
"""

from __future__ import annotations

import abc
import inspect
import logging
import os
import time
import warnings
from collections.abc import Callable, Mapping
from typing import Any, BinaryIO, ClassVar, TypeVar, overload

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from ratkit._validation import check_int
from ratkit.datasets import Interactions
from ratkit.exceptions import (
    DataFormatError,
    NotFittedError,
    ParameterError,
    ParameterTypeError,
    UnsupportedOperationError,
)
from ratkit.fitted import Array, Fitted, Int, Sparse, check_fitted
from ratkit.limits import check_bytes
from ratkit.persistence import PersistenceMixin
from ratkit.recsys._blocks import id_array, in_blocks, pairs_from_rows
from ratkit.recsys._linalg import row_products
from ratkit.recsys._model_files import read_model, write_model
from ratkit.recsys._ranking import check_places, exclude_rows, select
from ratkit.recsys._user_rows import check_user_ids, rank_liked_last, rows_of, warn_not_csr
from ratkit.recsys._validation import check_ids, check_user_items

__all__ = ["Recommender", "FactorRecommender"]

log = logging.getLogger(__name__)

R = TypeVar("R", bound="Recommender")

#: Fitted attributes ``fit`` sets from an Interactions only (the data's raw ids and its
#: training interactions): optional.
_DATA_ATTRIBUTES = ("user_ids_", "item_ids_", "user_items_")
#: Raw ids: numbers or strings (an object array of them, read from JSON), distinct.
_IDS = "biuUSO"


class Recommender(BaseEstimator, PersistenceMixin, abc.ABC):
    """Abstract base of every recommender: scores ``s(u, i)`` for users ``u`` and items ``i``.

    Subclasses implement :meth:`_fit` (learn from a checked CSR matrix) and
    :meth:`_score_users` (dense score rows); everything users call — validation,
    filtering, top-n, persistence — lives here once. Optional hooks, each with a default:
    :meth:`_score_users_from` (score from the users' rows passed to ``recommend``; models
    that build the user from their items), :meth:`_recalculate_scores` (``recalculate_user``;
    refuses by default), :meth:`_item_factor_rows` / :meth:`_user_factor_rows`
    (``similar_items`` / ``similar_users``; refuse by default). Every model ranks its scores
    with the one compiled top-n (:func:`ratkit.recsys._ranking.top_n`).

    ``recommend``, ``similar_items`` and ``similar_users`` follow implicit (≥ 0.5) argument
    for argument, so ``implicit.evaluation`` runs on any ratkit recommender.

    A recommender is a scikit-learn estimator: its parameters are its ``__init__``
    keyword arguments, stored unchanged, so ``get_params(deep=True)``, ``set_params``
    (``a__b`` for a parameter ``a`` that is itself an estimator) and
    :func:`sklearn.base.clone` work. ``fit`` learns only fitted attributes and scoring
    reads only those, so ``set_params`` on a fitted model changes nothing until the next
    ``fit``.

    Attributes set by ``fit``: ``n_users_``, ``n_items_`` plus those the subclass adds to
    ``_fitted_schema`` (:mod:`ratkit.fitted`), whose dtypes and shapes are checked before
    every use, and whose values too when a model file is read (:func:`ratkit.load_model`), so
    an inconsistent state (an edited file, an attribute overwritten by hand) is refused by
    name instead of failing deep inside numpy.
    """

    #: What ``fit`` sets (:mod:`ratkit.fitted`): a subclass extends it with its own state,
    #: shapes in ``"n_users_"``, ``"n_items_"`` and names of its own (``"d"``).
    _fitted_schema: ClassVar[Fitted] = Fitted(
        n_users_=Int(low=0),
        n_items_=Int(low=0),
        user_ids_=Array(_IDS, ("n_users_",), finite=False, unique=True, optional=True),
        item_ids_=Array(_IDS, ("n_items_",), finite=False, unique=True, optional=True),
        user_items_=Sparse("f", ("n_users_", "n_items_"), optional=True),
    )
    #: Fitted attributes a complete model has: ``save`` refuses a model without one and
    #: ``load_model`` a file without one. (The plugin name is stated once, where the class
    #: is registered.)
    _fitted_attributes: ClassVar[tuple[str, ...]] = _fitted_schema.required

    #: What ``fit`` learns from: ``"implicit"``, interaction strengths (0/1, counts) where a
    #: stored entry means interest; ``"explicit"``, ratings whose low values are dislikes
    #: (the evaluation protocol then trains on every rating, low ones included, and holds
    #: out positives only). A class attribute; a model that learns from either makes it a
    #: constructor parameter (CCCF, DCF), so read it from the model, not its class.
    feedback: str = "implicit"

    #: Whether :meth:`_fit` shows progress: then ``fit`` calls ``_fit(matrix,
    #: show_progress=flag)`` with the flag for this fit (``fit``'s argument, else the model's
    #: ``show_progress`` parameter, which such a model must have); otherwise ``_fit(matrix)``
    #: and ``fit(..., show_progress=...)`` is accepted and shows nothing.
    _fit_shows_progress: ClassVar[bool] = False

    #: Renamed parameters, former spelling → current one: the former stays an ``__init__``
    #: parameter defaulting to None for one release (scikit-learn's way; ``fit`` warns, see
    #: :mod:`ratkit.recsys._renamed`), and the repr leaves it out while it is None.
    _renamed: ClassVar[Mapping[str, str]] = {}

    # ----------------------------------------------------------------- fitting
    def fit(
        self: R,
        user_items: Any,
        *,
        show_progress: bool | None = None,
        callback: Callable[..., Any] | None = None,
    ) -> R:
        """Learn from ``user_items``, a sparse users × items matrix of interaction strengths.

        Parameters
        ----------
        user_items : scipy.sparse matrix or Interactions
            Row ``u`` holds user ``u``'s interactions. Users or items without any
            interaction are allowed; what a model does with them is documented on the
            model. From an :class:`~ratkit.datasets.Interactions` the model also
            keeps the data's raw ids and its training interactions (see below); from a bare
            matrix it keeps none.
        show_progress : bool or None
            Show this fit's progress (a bar on standard error) or not, for this call only:
            the model's parameters, ``show_progress`` included where the model has it, are
            unchanged (``get_params`` is the same before and after). None (the default):
            the model's own ``show_progress`` parameter decides, or no progress for a model
            without one. A model with no progress to show accepts it and shows nothing.
            implicit's ``fit(user_items, show_progress=...)`` spelling.
        callback : callable, optional
            Called once the fit has finished, as ``callback(1, seconds, None)``: implicit's
            ``(iteration, elapsed, loss)`` arguments, the whole fit counted as one step
            (ratkit's models report no per-epoch loss to it).

        Returns
        -------
        self

        Notes
        -----
        Attributes set from an ``Interactions`` (and removed by a fit on a bare matrix, so
        a refit never keeps another data set's ids): ``user_ids_`` and ``item_ids_``, the
        raw ids of the rows and columns (``user_ids_[u]`` is row ``u``'s id in the file),
        and ``user_items_``, the checked CSR training matrix: ``user_items_[users]`` is what
        ``recommend(users, ...)`` filters as already liked. They are saved in the model
        file, which is what ``ratkit recsys recommend`` reads.

        A sparse matrix in another format than CSR is accepted and copied to CSR, with a
        :class:`~ratkit.exceptions.ParameterWarning` (as implicit does).
        """
        if show_progress is not None and not isinstance(show_progress, (bool, np.bool_)):
            raise ParameterTypeError(
                f"The 'show_progress' argument of {type(self).__name__}.fit must be a bool or None. "
                f"Got {show_progress!r:.40} instead."
            )
        if callback is not None and not callable(callback):
            raise ParameterTypeError(
                f"The 'callback' argument of {type(self).__name__}.fit must be callable or None. "
                f"Got {callback!r:.40} instead."
            )
        self._validate_params()
        warn_not_csr(user_items, f"{type(self).__name__}.fit")
        started = time.perf_counter()
        matrix = check_user_items(user_items, ratings=self.feedback == "explicit")
        check_bytes(
            self._fit_bytes(*matrix.shape),
            f"Fitting {self!r} on {matrix.shape[0]} users × {matrix.shape[1]} items",
            "Lower the model's size parameters (e.g. n_factors).",
        )
        for name in _DATA_ATTRIBUTES:  # a refit keeps nothing of the previous data
            self.__dict__.pop(name, None)
        self.n_users_, self.n_items_ = (int(d) for d in matrix.shape)
        if isinstance(user_items, Interactions):
            self.user_ids_ = np.asarray(user_items.user_ids)
            self.item_ids_ = np.asarray(user_items.item_ids)
            self.user_items_ = matrix
        log.debug("fitting %r on %d users × %d items (%d interactions)", self, self.n_users_, self.n_items_, matrix.nnz)
        if self._fit_shows_progress:
            if show_progress is None:
                show_progress = self.get_params(deep=False)["show_progress"]
            self._fit(matrix, show_progress=bool(show_progress))  # type: ignore[call-arg]  # flagged classes take it
        else:
            self._fit(matrix)
        if callback is not None:
            callback(1, time.perf_counter() - started, None)
        return self

    def _validate_params(self) -> None:
        """Check the constructor parameters (called by ``fit``); subclasses extend this."""

    def _fit_bytes(self, n_users: int, n_items: int) -> float:
        """Estimated bytes ``fit`` allocates on an ``n_users × n_items`` matrix beyond its input
        (checked against :func:`ratkit.limits.max_bytes` before fitting). The default, 0, suits
        models whose state is the size of their input; a model with factors overrides it."""
        return 0.0

    @abc.abstractmethod
    def _fit(self, user_items: sp.csr_matrix) -> None:
        """Learn from a checked float64 CSR matrix and set the fitted attributes (a class with
        ``_fit_shows_progress = True`` takes the keyword ``show_progress: bool`` too). Never
        modify ``user_items``: after a fit on an Interactions it is kept as ``user_items_``."""

    @abc.abstractmethod
    def _score_users(self, users: np.ndarray) -> np.ndarray:
        """Dense scores, shape ``(len(users), n_items_)``, for checked user indices."""

    def _score_pairs(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        return pairs_from_rows(self._score_users, users, items, self.n_items_, f"{type(self).__name__}.score")

    # ------------------------------------------------------------------ using
    def is_fitted(self) -> bool:
        """Whether ``fit`` has run (the fitted attributes exist)."""
        return hasattr(self, "n_items_")

    def __sklearn_is_fitted__(self) -> bool:
        # what sklearn.utils.validation.check_is_fitted asks
        return self.is_fitted()

    def _check_fitted(self) -> None:
        if not self.is_fitted():
            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet. Call 'fit' with a "
                f"users × items matrix before using it."
            )
        self._check_shapes()

    def _check_shapes(self) -> None:
        """DataFormatError naming the first fitted attribute whose type, dtype or shape
        disagrees with ``_fitted_schema`` (the cheap check, run before every use)."""
        check_fitted(
            self,
            values=False,
            error=DataFormatError,
            advice="The fitted state is inconsistent (an edited model file, or an attribute replaced after "
            "fit): refit the model.",
        )

    def score(self, userids: Any, itemids: Any) -> np.ndarray:
        """Model scores ``s(u_k, i_k)`` of the pairs ``(userids[k], itemids[k])``.

        ``userids`` and ``itemids`` have the same shape, or one of them is a single id (one
        user with many items, or the reverse). Returns a float array of that shape. Arrays
        of two different shapes are refused (a ParameterError): pairing them would silently
        repeat ids.
        """
        return self._scores_with(None, userids, itemids)

    def _scores_with(self, score_rows: Any, userids: Any, itemids: Any) -> np.ndarray:
        """:meth:`score` by ``score_rows`` (checked user indices → dense score rows), or by
        :meth:`_score_pairs` when it is None: a model with several ways to score (exact or
        approximate) passes the one asked for."""
        self._check_fitted()
        owner = f"{type(self).__name__}.score"
        u_arr, i_arr = (id_array(x, kind, owner) for x, kind in ((userids, "userids"), (itemids, "itemids")))
        try:
            u, i = np.broadcast_arrays(u_arr, i_arr)  # documented: one user with many items, an outer grid, …
        except ValueError:
            raise ParameterError(
                f"{owner} scores the pairs (userids[k], itemids[k]) of userids and itemids broadcast against each "
                f"other (numpy's rules); shapes {u_arr.shape} and {i_arr.shape} do not broadcast."
            ) from None
        users = check_ids(u, self.n_users_, kind="user")
        items = check_ids(i, self.n_items_, kind="item")
        if score_rows is None:
            return self._score_pairs(users, items).reshape(u.shape)
        return pairs_from_rows(score_rows, users, items, self.n_items_, owner).reshape(u.shape)

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
        n: int | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The ``N`` items of highest score ``s(u, ·)`` for one user or an array of users.

        implicit's (≥ 0.5) calling convention, argument for argument, so implicit's own tools
        (``implicit.evaluation.ranking_metrics_at_k``, ``precision_at_k``, …) run on ratkit models.

        Parameters
        ----------
        userid : int or array-like of int
            Row index (or indices) of the user(s); any integer dtype (int32, int64, numpy
            scalars). With ``recalculate_user=True`` an id only names the user's row of
            ``user_items``, so any non-negative id is accepted (a new user's, beyond the
            fitted ones), as in implicit.
        user_items : scipy.sparse CSR matrix, optional
            **The rows of the given users**, one per user in ``userid`` order (what implicit
            passes: ``train[userids]``; ``train[u]`` for one user). Their items are left out
            when ``filter_already_liked_items`` is true, and a model that builds the user from
            their items (FISM, TJSL) scores from these rows. Deprecated: the whole users ×
            items matrix (recognised when it has ``n_users_`` rows and more rows than users
            were asked for; a DeprecationWarning, removed in the next release).
        N : int
            How many items to return; at most the number of items.
        filter_already_liked_items : bool
            Leave out the items stored in the user's row of ``user_items``.
        filter_items : array-like of int, optional
            Item ids never returned, for every user.
        recalculate_user : bool
            Compute the user from its row of ``user_items`` alone, not from any fitted state of
            the user (a fold-in): the same row gives the same list whatever the id. Models
            without a fold-in raise :class:`~ratkit.exceptions.UnsupportedOperationError`.
        items : array-like of int, optional
            Rank only these item ids (then at most ``len(items)`` are returned); not together
            with ``filter_items``. Already-liked items among them are ranked last, score
            ``-inf``, as implicit does (not dropped); an id outside ``[0, n_items)`` raises
            :class:`~ratkit.exceptions.IdOutOfRangeError` (an IndexError).
        n : int, optional
            Deprecated spelling of ``N`` (a DeprecationWarning; removed in the next release).

        Returns
        -------
        ids, scores : ndarray
            ``ids`` int32 (what implicit's Cython evaluation reads), ``scores`` float64. For
            one user, 1-D arrays best first; when filtering leaves fewer than ``N`` items, only
            those are returned. For an array of users, 2-D arrays of shape
            ``(len(userid), N)`` where missing places hold id ``-1`` and score ``-inf``
            (implicit pads such rows with arbitrary filtered ids scored −3.4e38; both count as
            misses in implicit's metrics). Equal scores are ordered by item index.

        Notes
        -----
        Many users are scored in blocks of as many users as :func:`ratkit.limits.max_bytes`
        allows (about 40 bytes per user and item while a block is ranked), so
        ``recommend(every user)`` works under any limit one user's row fits in; only the
        answer, 12 bytes per place, must fit whole. The result does not depend on the blocks.
        """
        return self._recommend_with(
            None, userid, user_items, N, filter_already_liked_items, filter_items, recalculate_user, items, n
        )

    def _writable_scores(self, scores: Any) -> np.ndarray:
        """A score block as float64 that the filtering may overwrite: the block itself when it
        is a fresh C-ordered float64 array (what a scoring method returns: a new array, e.g. a
        matrix product), else a copy (a view, another dtype, or an array the model holds)."""
        fresh = (
            isinstance(scores, np.ndarray)
            and scores.dtype == np.float64
            and scores.flags.owndata
            and scores.flags.writeable
            and scores.flags.c_contiguous
            and not any(scores is value for value in vars(self).values())
        )
        return scores if fresh else np.array(scores, dtype=np.float64)

    def _recommend_with(
        self,
        score_rows: Any,
        userid: Any,
        user_items: Any,
        N: int,
        filter_already_liked_items: bool,
        filter_items: Any = None,
        recalculate_user: bool = False,
        items: Any = None,
        n: int | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`recommend` with the dense score rows of ``score_rows`` (checked user indices
        → rows; None: :meth:`_score_users_from`, which sees the users' rows): a model with
        several ways to score passes the one asked for."""
        self._check_fitted()
        owner = f"{type(self).__name__}.recommend"
        if n is not None:
            warnings.warn(
                f"{owner}(n=...) is deprecated and will be removed in the next release; pass N=... (implicit's name).",
                DeprecationWarning,
                stacklevel=3,
            )
            if N != 10 and N != n:
                raise ParameterError(f"{owner} got both N={N!r} and the deprecated n={n!r}; pass N only.")
            N = n
        single = np.ndim(userid) == 0
        users = check_user_ids(userid, self.n_users_, bool(recalculate_user))
        N = check_int(N, "N", owner, low=1)
        rows = rows_of(
            user_items, users, self.n_users_, self.n_items_, ratings=self.feedback == "explicit", owner=owner
        )
        if rows is None and (filter_already_liked_items or recalculate_user):
            raise ParameterError(
                f"{owner} needs user_items, the rows of the given users (user_items = train[userid]), "
                "when filter_already_liked_items or recalculate_user is true; pass them, or set both to False."
            )
        check_places(len(users), N, self.n_items_, owner, "item")
        plain = score_rows is None and not recalculate_user and items is None and filter_items is None

        def block(part: slice) -> tuple[np.ndarray, np.ndarray]:
            who = users[part]
            mine = None if rows is None else rows[part]
            if plain and (picked := self._select_users(who, mine if filter_already_liked_items else None, N)):
                return picked
            if recalculate_user:
                scores = self._recalculate_scores(who, mine)
            elif score_rows is None:
                scores = self._score_users_from(who, mine)
            else:
                scores = score_rows(who)
            scores = self._writable_scores(scores)
            if scores.shape != (len(who), self.n_items_):
                raise DataFormatError(
                    f"{owner}: the model scored shape {scores.shape}, not (len(userid), n_items_) = "
                    f"({len(who)}, {self.n_items_}); its fitted state is inconsistent: refit the model."
                )
            if filter_already_liked_items:
                exclude_rows(scores, mine, np.arange(len(who)))
            ids, values = select(scores, N, filter_items, items, owner)
            if filter_already_liked_items and items is not None:
                rank_liked_last(ids, values, mine, items)  # implicit ranks them last, not dropped
            return ids, values

        ids, values = in_blocks(block, len(users), self.n_items_, f"{owner} for one user × {self.n_items_} items")
        if single:
            keep = ids[0] >= 0
            return ids[0][keep], values[0][keep]
        return ids, values

    def _select_users(self, users: np.ndarray, exclude: Any, N: int) -> tuple[np.ndarray, np.ndarray] | None:
        """:meth:`recommend`'s block (no filter_items, items, recalculation) ranked without float score
        rows, ``exclude``'s items left out, as select ranks :meth:`_score_users`; None: not (the default)."""
        return None

    def _score_users_from(self, users: np.ndarray, user_rows: sp.csr_matrix | None) -> np.ndarray:
        """Dense scores ``(len(users), n_items_)`` of users whose items are ``user_rows`` (CSR, one
        row per user; None when not given). The default ignores the rows (the user is its
        fitted state, e.g. its factors); a model that builds the user from their items
        (FISM, TJSL) overrides this to score from the rows."""
        return self._score_users(users)

    def _recalculate_scores(self, users: np.ndarray, user_rows: sp.csr_matrix) -> np.ndarray:
        """Dense scores of users recomputed from their rows alone (``recommend(...,
        recalculate_user=True)``): ``users`` only name the rows (any non-negative id, a new
        user's too), so an override reads no fitted state of those users. The default
        refuses (a model with a fold-in overrides it)."""
        raise UnsupportedOperationError(
            f"{type(self).__name__} cannot recompute a user from their items (recalculate_user=True): it "
            "has no fold-in. Pass recalculate_user=False, or use a model that has one (e.g. PureSVD)."
        )

    # ---------------------------------------------------------------- similarity
    def similar_items(
        self,
        itemid: Any,
        N: int = 10,
        recalculate_item: bool = False,
        item_users: Any = None,
        filter_items: Any = None,
        items: Any = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The ``N`` items most similar to ``itemid``: cosine ``v_i·v_j / (‖v_i‖‖v_j‖)`` of the item
        factors (implicit's ``MatrixFactorizationBase.similar_items``, signature included).

        The item itself is among the candidates (cosine 1, so usually first); a zero factor
        row gets norm 1e-10, as in implicit. ``itemid`` scalar: 1-D (ids, scores); an array:
        2-D, one row per item. ``filter_items`` are never returned; ``items`` restricts the
        candidates (not both). ``recalculate_item=True`` is not supported (ratkit has no
        item fold-in). Models without item factors raise
        :class:`~ratkit.exceptions.UnsupportedOperationError`.
        """
        owner = f"{type(self).__name__}.similar_items"
        self._check_fitted()
        if recalculate_item:
            raise UnsupportedOperationError(
                f"{owner}: recalculate_item=True is not supported (ratkit models have no item fold-in); "
                "pass recalculate_item=False."
            )
        return self._similar(self._item_factor_rows(), itemid, N, filter_items, items, owner, "item")

    def similar_users(
        self, userid: Any, N: int = 10, filter_users: Any = None, users: Any = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The ``N`` users most similar to ``userid``: cosine of the user factors (implicit's
        ``similar_users``; shapes, filtering and errors as :meth:`similar_items`)."""
        owner = f"{type(self).__name__}.similar_users"
        self._check_fitted()
        return self._similar(self._user_factor_rows(), userid, N, filter_users, users, owner, "user")

    def _similar(
        self, factors: np.ndarray, query: Any, N: int, filter_ids: Any, candidates: Any, owner: str, kind: str
    ) -> tuple[np.ndarray, np.ndarray]:
        single = np.ndim(query) == 0
        rows = check_ids(np.atleast_1d(query), factors.shape[0], kind=kind)
        N = check_int(N, "N", owner, low=1)
        norms = np.linalg.norm(factors, axis=1)
        norms[norms == 0] = 1e-10
        check_places(len(rows), N, factors.shape[0], owner, kind)

        def block(part: slice) -> tuple[np.ndarray, np.ndarray]:
            scores = (factors[rows[part]] @ factors.T) / norms[None, :] / norms[rows[part]][:, None]
            return select(scores, N, filter_ids, candidates, owner, kind)

        n = factors.shape[0]
        ids, values = in_blocks(block, len(rows), n, f"{owner} for one {kind} × {n} {kind}s")
        if single:
            keep = ids[0] >= 0
            return ids[0][keep], values[0][keep]
        return ids, values

    def _item_factor_rows(self) -> np.ndarray:
        """Item factor rows ``(n_items_, d)`` for :meth:`similar_items`; models without item
        factors keep this default, which raises."""
        raise UnsupportedOperationError(
            f"{type(self).__name__} has no item factors, so similar_items (cosine of item factors) is not "
            "defined for it; use a factor model (e.g. PureSVD or MFAUC)."
        )

    def _user_factor_rows(self) -> np.ndarray:
        """User factor rows ``(n_users_, d)`` for :meth:`similar_users`; models without user
        factors keep this default, which raises."""
        raise UnsupportedOperationError(
            f"{type(self).__name__} has no user factors, so similar_users (cosine of user factors) is not "
            "defined for it; use a factor model (e.g. PureSVD or MFAUC)."
        )

    # ------------------------------------------------------------ persistence
    def __repr__(self, N_CHAR_MAX: int = 700) -> str:
        # Every parameter in declaration order, on one line: evaluation reports print it as
        # the model's part of the protocol, so defaults must show (scikit-learn's repr omits them).
        params = self.get_params(deep=False)
        order = [
            name
            for name in inspect.signature(type(self).__init__).parameters
            if name in params and not (name in self._renamed and params[name] is None)
        ]
        return f"{type(self).__name__}({', '.join(f'{k}={params[k]!r}' for k in order)})"

    # the path comes back as a str (a recommender's documented return, kept), where the mixin,
    # which learners use, returns a Path: a narrower return than the mixin's, deliberately
    @overload  # type: ignore[override]
    def save(self, path: str | os.PathLike[str]) -> str: ...
    @overload
    def save(self, path: BinaryIO) -> None: ...
    def save(self, path: str | os.PathLike[str] | BinaryIO) -> str | None:
        """Write the parameters and fitted state to the model file ``path`` (a zip of JSON and
        ``.npy`` arrays, no pickle; see :func:`ratkit.save_model`). Returns the path written,
        or None when ``path`` is a binary file object opened for writing (the file's bytes are
        written at its position, as implicit's ``save`` does).

        ``ratkit.load_model(path)`` or :meth:`load` reads it back.
        """
        self._check_fitted()
        return write_model(self, path, f"{type(self).__name__}.save")

    @classmethod
    def load(cls: type[R], path: str | os.PathLike[str] | BinaryIO) -> R:
        """Read a model written by :meth:`save` (:func:`ratkit.load_model`) from its path or from a
        binary file object (read from its position); ``Recommender.load`` takes any
        recommender, ``MFAUC.load`` only an MFAUC."""
        from ratkit.persistence import plugin_of

        model, source = read_model(path, f"{cls.__name__}.load")
        if not isinstance(model, cls):
            raise DataFormatError(
                f"{source} holds a {plugin_of(model)[1]!r} model, "
                f"which is not a {cls.__name__}; load it with ratkit.load_model"
                + (f" or {type(model).__name__}.load." if callable(getattr(type(model), "load", None)) else ".")
            )
        return model


class FactorRecommender(Recommender):
    """A recommender whose scores are inner products ``s(u, i) = u_u · v_i`` of factor rows.

    Fitted attributes ``user_factors_`` (``n_users × d``) and ``item_factors_``
    (``n_items × d``); ``similar_items`` and ``similar_users`` rank by their cosine.
    """

    _fitted_schema: ClassVar[Fitted] = Recommender._fitted_schema.extend(
        user_factors_=Array("f", ("n_users_", "d")),
        item_factors_=Array("f", ("n_items_", "d")),
    )
    _fitted_attributes: ClassVar[tuple[str, ...]] = _fitted_schema.required

    def _score_users(self, users: np.ndarray) -> np.ndarray:
        return row_products(self.user_factors_[users], self.item_factors_)

    def _score_pairs(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        return np.einsum("ij,ij->i", self.user_factors_[users], self.item_factors_[items])

    def _item_factor_rows(self) -> np.ndarray:
        return self.item_factors_

    def _user_factor_rows(self) -> np.ndarray:
        return self.user_factors_
