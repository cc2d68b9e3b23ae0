"""The one contract every ratkit recommender follows (after implicit's ``RecommenderBase``).

``fit(user_items)`` takes a :mod:`scipy.sparse` matrix with **users as rows and items as
columns** (fixed from day one); ``recommend`` returns ``(ids, scores)``; ``score`` gives
the model's score of (user, item) pairs; ``save`` writes ratkit's model file (JSON and
``.npy`` arrays in a zip, no pickle), which :func:`ratkit.load_model` reads back. Every
recommender is a scikit-learn estimator (``get_params``/``set_params``, ``clone``).
"""

from __future__ import annotations

import abc
import inspect
import logging
import os
from typing import Any, ClassVar, TypeVar

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from ratkit._validation import check_int
from ratkit.exceptions import DataFormatError, MissingDataError, NotFittedError, ParameterError
from ratkit.recsys._ranking import exclude_rows, top_n
from ratkit.recsys._validation import check_ids, check_shape_matches, check_user_items

__all__ = ["Recommender", "FactorRecommender"]

log = logging.getLogger(__name__)

R = TypeVar("R", bound="Recommender")


class Recommender(BaseEstimator, abc.ABC):
    """Abstract base of every recommender: scores ``s(u, i)`` for users ``u`` and items ``i``.

    Subclasses implement :meth:`_fit` (learn from a checked CSR matrix) and
    :meth:`_score_users` (dense score rows); everything users call — validation,
    filtering, top-n, persistence — lives here once.

    A recommender is a scikit-learn estimator: its parameters are its ``__init__``
    keyword arguments, stored unchanged, so ``get_params(deep=True)``, ``set_params``
    (``a__b`` for a parameter ``a`` that is itself an estimator) and
    :func:`sklearn.base.clone` work. ``fit`` learns only fitted attributes and scoring
    reads only those, so ``set_params`` on a fitted model changes nothing until the next
    ``fit``.

    Attributes set by ``fit``: ``n_users_``, ``n_items_`` plus the names listed in the
    subclass's ``_fitted_attributes``.
    """

    #: Fitted attributes (besides ``n_users_``/``n_items_``) a complete model has: ``save``
    #: refuses a model without one and ``load_model`` a file without one. (The plugin name
    #: is stated once, where the class is registered.)
    _fitted_attributes: ClassVar[tuple[str, ...]] = ()

    #: What ``fit`` learns from: ``"implicit"``, interaction strengths (0/1, counts) where a
    #: stored entry means interest; ``"explicit"``, ratings whose low values are dislikes
    #: (the evaluation protocol then trains on every rating, low ones included, and holds
    #: out positives only).
    feedback: ClassVar[str] = "implicit"

    # ----------------------------------------------------------------- fitting
    def fit(self: R, user_items: Any) -> R:
        """Learn from ``user_items``, a sparse users × items matrix of interaction strengths.

        Parameters
        ----------
        user_items : scipy.sparse matrix or Interactions
            Row ``u`` holds user ``u``'s interactions. Users or items without any
            interaction are allowed; what a model does with them is documented on the
            model.

        Returns
        -------
        self
        """
        self._validate_params()
        matrix = check_user_items(user_items, ratings=self.feedback == "explicit")
        self.n_users_, self.n_items_ = (int(d) for d in matrix.shape)
        log.debug("fitting %r on %d users × %d items (%d interactions)", self, self.n_users_, self.n_items_, matrix.nnz)
        self._fit(matrix)
        return self

    def _validate_params(self) -> None:
        """Check the constructor parameters (called by ``fit``); subclasses extend this."""

    @abc.abstractmethod
    def _fit(self, user_items: sp.csr_matrix) -> None:
        """Learn from a checked float64 CSR matrix and set the fitted attributes."""

    @abc.abstractmethod
    def _score_users(self, users: np.ndarray) -> np.ndarray:
        """Dense scores, shape ``(len(users), n_items_)``, for checked user indices."""

    def _score_pairs(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        return _pairs_from_rows(self._score_users, users, items)

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

    def score(self, userids: Any, itemids: Any) -> np.ndarray:
        """Model scores ``s(u_k, i_k)`` of the pairs ``(userids[k], itemids[k])``.

        ``userids`` and ``itemids`` are broadcast against each other, so one user with many
        items (or the reverse) works. Returns a float array of the broadcast shape.
        """
        return self._scores_with(None, userids, itemids)

    def _scores_with(self, score_rows: Any, userids: Any, itemids: Any) -> np.ndarray:
        """:meth:`score` by ``score_rows`` (checked user indices → dense score rows), or by
        :meth:`_score_pairs` when it is None: a model with several ways to score (exact or
        approximate) passes the one asked for."""
        self._check_fitted()
        u, i = np.broadcast_arrays(np.asarray(userids), np.asarray(itemids))
        users = check_ids(u, self.n_users_, kind="user")
        items = check_ids(i, self.n_items_, kind="item")
        if score_rows is None:
            return self._score_pairs(users, items).reshape(u.shape)
        return _pairs_from_rows(score_rows, users, items).reshape(u.shape)

    def recommend(
        self,
        userid: Any,
        user_items: Any = None,
        n: int = 10,
        filter_already_liked_items: bool = True,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The ``n`` items of highest score ``s(u, ·)`` for one user or an array of users.

        Parameters
        ----------
        userid : int or array-like of int
            Row index (or indices) of the user(s).
        user_items : scipy.sparse matrix, optional
            The users × items matrix (same shape as the one fitted, or an updated one)
            whose row ``userid`` lists the items to leave out. Needed when
            ``filter_already_liked_items`` is true.
        n : int
            How many items to return; at most the number of items.
        filter_already_liked_items : bool
            Leave out the items the user already has in ``user_items``.

        Returns
        -------
        ids, scores : ndarray
            For one user, 1-D arrays best first; when filtering leaves fewer than ``n``
            items, only those are returned. For an array of users, 2-D arrays of shape
            ``(len(userid), n)`` where missing places hold id ``-1`` and score ``-inf``.
            Equal scores are ordered by item index.
        """
        return self._recommend_with(self._score_users, userid, user_items, n, filter_already_liked_items)

    def _recommend_with(
        self, score_rows: Any, userid: Any, user_items: Any, n: int, filter_already_liked_items: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`recommend` with the dense score rows of ``score_rows`` (checked user indices
        → rows): a model with several ways to score passes the one asked for."""
        self._check_fitted()
        single = np.ndim(userid) == 0
        users = check_ids(np.atleast_1d(userid), self.n_users_, kind="user")
        n = check_int(n, "n", f"{type(self).__name__}.recommend", low=1)
        if n > self.n_items_:
            raise ParameterError(
                f"n={n} exceeds the number of items ({self.n_items_}); ask for at most {self.n_items_} recommendations."
            )
        scores = np.array(score_rows(users), dtype=np.float64)
        if filter_already_liked_items:
            if user_items is None:
                raise ParameterError(
                    "filter_already_liked_items=True needs the users × items matrix: pass it "
                    "as user_items, or set filter_already_liked_items=False."
                )
            # stored zeros are not liked items; a model of ratings also takes negative ones
            matrix = check_user_items(user_items, name="user_items", ratings=self.feedback == "explicit")
            check_shape_matches(matrix, self.n_users_, self.n_items_, name="user_items", fitted_on="the fitted model")
            exclude_rows(scores, matrix, users)
        ids, values = self._top_n(scores, n)
        missing = np.isneginf(values)
        ids[missing] = -1
        if single:
            keep = ~missing[0]
            return ids[0][keep], values[0][keep]
        return ids, values

    def _top_n(self, scores: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``n`` best (ids, scores) of each row, best first, ties to the smaller id (a model
        with a faster selection for its scores overrides this; the order must be the same)."""
        return top_n(scores, n)

    # ------------------------------------------------------------ persistence
    def __repr__(self, N_CHAR_MAX: int = 700) -> str:
        # Every parameter in declaration order, on one line: evaluation reports print it as
        # the model's part of the protocol, so defaults must show (scikit-learn's repr omits them).
        params = self.get_params(deep=False)
        order = [name for name in inspect.signature(type(self).__init__).parameters if name in params]
        return f"{type(self).__name__}({', '.join(f'{k}={params[k]!r}' for k in order)})"

    def save(self, path: str | os.PathLike[str]) -> str:
        """Write the parameters and fitted state to the model file ``path`` (a zip of JSON and
        ``.npy`` arrays, no pickle; see :func:`ratkit.save_model`). Returns the path written.

        ``ratkit.load_model(path)`` or :meth:`load` reads it back.
        """
        from ratkit._persistence import save_model

        self._check_fitted()
        return os.fspath(save_model(self, path))

    @classmethod
    def load(cls: type[R], path: str | os.PathLike[str]) -> R:
        """Read a model written by :meth:`save` (:func:`ratkit.load_model`); ``Recommender.load``
        takes any recommender, ``MFAUC.load`` only an MFAUC."""
        from ratkit._persistence import load_model, plugin_of

        path = os.fspath(path)
        if not os.path.exists(path):
            raise MissingDataError(f"Model file {path!r} does not exist; pass the path that save() returned.")
        model = load_model(path)
        if not isinstance(model, cls):
            raise DataFormatError(
                f"{path!r} holds a {plugin_of(model)[1]!r} model, "
                f"which is not a {cls.__name__}; load it with ratkit.load_model or "
                f"{type(model).__name__}.load."
            )
        return model


def _pairs_from_rows(score_rows: Any, users: np.ndarray, items: np.ndarray) -> np.ndarray:
    """s(users[k], items[k]) from the dense rows ``score_rows`` gives for the distinct users."""
    unique, inverse = np.unique(users, return_inverse=True)
    return np.array(score_rows(unique)[inverse, items], dtype=np.float64)


class FactorRecommender(Recommender):
    """A recommender whose scores are inner products ``s(u, i) = u_u · v_i`` of factor rows.

    Fitted attributes ``user_factors_`` (``n_users × d``) and ``item_factors_``
    (``n_items × d``).
    """

    _fitted_attributes: ClassVar[tuple[str, ...]] = ("user_factors_", "item_factors_")

    def _score_users(self, users: np.ndarray) -> np.ndarray:
        return self.user_factors_[users] @ self.item_factors_.T

    def _score_pairs(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        return np.einsum("ij,ij->i", self.user_factors_[users], self.item_factors_[items])
