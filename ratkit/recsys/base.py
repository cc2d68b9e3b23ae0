"""The one contract every ratkit recommender follows (after implicit's ``RecommenderBase``).

``fit(user_items)`` takes a :mod:`scipy.sparse` matrix with **users as rows and items as
columns** (fixed from day one); ``recommend`` returns ``(ids, scores)``; ``score`` gives
the model's score of (user, item) pairs; ``save``/``load`` use ``.npz`` files read with
``allow_pickle=False``.
"""

from __future__ import annotations

import abc
import inspect
import json
import logging
import os
from typing import Any, ClassVar, TypeVar

import numpy as np
import scipy.sparse as sp

from ratkit._files import atomic_write, check_output_path
from ratkit._json import plain
from ratkit.exceptions import DataFormatError, MissingDataError, NotFittedError
from ratkit.recsys._ranking import exclude_rows, top_n
from ratkit.recsys._validation import check_ids, check_int, check_shape_matches, check_user_items

__all__ = ["Recommender", "FactorRecommender"]

log = logging.getLogger(__name__)

R = TypeVar("R", bound="Recommender")

_FORMAT_VERSION = 1
_RESERVED = ("__ratkit_model__", "__params__", "__format__")


class Recommender(abc.ABC):
    """Abstract base of every recommender: scores ``s(u, i)`` for users ``u`` and items ``i``.

    Subclasses implement :meth:`_fit` (learn from a checked CSR matrix) and
    :meth:`_score_users` (dense score rows); everything users call — validation,
    filtering, top-n, persistence — lives here once.

    Attributes set by ``fit``: ``n_users_``, ``n_items_`` plus the names listed in the
    subclass's ``_fitted_attributes``.
    """

    #: Name under which the class is registered as a ``"recommender"`` plugin.
    plugin_name: ClassVar[str] = ""
    #: Fitted attributes (besides ``n_users_``/``n_items_``) that ``save`` writes.
    _fitted_attributes: ClassVar[tuple[str, ...]] = ()

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
        matrix = check_user_items(user_items)
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
        out = np.empty(len(users))
        unique, inverse = np.unique(users, return_inverse=True)
        rows = self._score_users(unique)
        out[:] = rows[inverse, items]
        return out

    # ------------------------------------------------------------------ using
    def is_fitted(self) -> bool:
        return hasattr(self, "n_items_")

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
        self._check_fitted()
        u, i = np.broadcast_arrays(np.asarray(userids), np.asarray(itemids))
        users = check_ids(u, self.n_users_, kind="user")
        items = check_ids(i, self.n_items_, kind="item")
        return self._score_pairs(users, items).reshape(u.shape)

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
        self._check_fitted()
        single = np.ndim(userid) == 0
        users = check_ids(np.atleast_1d(userid), self.n_users_, kind="user")
        n = check_int(n, "n", f"{type(self).__name__}.recommend", low=1)
        if n > self.n_items_:
            raise ValueError(
                f"n={n} exceeds the number of items ({self.n_items_}); ask for at most {self.n_items_} recommendations."
            )
        scores = np.array(self._score_users(users), dtype=np.float64)
        if filter_already_liked_items:
            if user_items is None:
                raise ValueError(
                    "filter_already_liked_items=True needs the users × items matrix: pass it "
                    "as user_items, or set filter_already_liked_items=False."
                )
            matrix = check_user_items(user_items, name="user_items")  # stored zeros are not liked items
            check_shape_matches(matrix, self.n_users_, self.n_items_, name="user_items", fitted_on="the fitted model")
            exclude_rows(scores, matrix, users)
        ids, values = top_n(scores, n)
        missing = np.isneginf(values)
        ids[missing] = -1
        if single:
            keep = ~missing[0]
            return ids[0][keep], values[0][keep]
        return ids, values

    # ------------------------------------------------------------ persistence
    def get_params(self) -> dict[str, Any]:
        """The constructor's keyword arguments as stored on the instance."""
        signature = inspect.signature(type(self).__init__)
        kinds = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        return {
            name: getattr(self, name) for name, p in signature.parameters.items() if name != "self" and p.kind in kinds
        }

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({params})"

    def save(self, path: str | os.PathLike[str]) -> str:
        """Write the parameters and fitted state to an ``.npz`` file (no pickle).

        ``.npz`` is appended to ``path`` when missing. Returns the path written.
        """
        self._check_fitted()
        path = os.fspath(path)
        if not path.endswith(".npz"):
            path += ".npz"
        check_output_path(path, "model file")
        try:
            params = json.dumps(plain(_jsonable(self.get_params()), "params"))
        except TypeError as exc:
            raise DataFormatError(f"Cannot save {type(self).__name__} to {path!r}: {exc}") from None
        arrays: dict[str, np.ndarray] = {
            "__ratkit_model__": np.array(self.plugin_name),
            "__params__": np.array(params),
            "__format__": np.array(_FORMAT_VERSION),
        }
        for name in ("n_users_", "n_items_", *self._fitted_attributes):
            arrays[name] = np.asarray(getattr(self, name))
        # to a temporary file beside the target, renamed over it: a failed save keeps the old file
        with atomic_write(path, "wb", encoding=None, what="model file") as fh:
            np.savez(fh, **arrays)
        return path

    @classmethod
    def load(cls: type[R], path: str | os.PathLike[str]) -> R:
        """Read a model written by :meth:`save`; ``Recommender.load`` finds the class itself."""
        from ratkit.plugins import get

        path = os.fspath(path)
        if not os.path.exists(path):
            raise MissingDataError(f"Model file {path!r} does not exist; pass the path that save() returned.")
        try:
            with np.load(path, allow_pickle=False) as data:
                contents = {key: data[key] for key in data.files}
        except (OSError, ValueError) as exc:
            raise DataFormatError(
                f"{path!r} is not a readable .npz model file ({exc}); write it with Recommender.save."
            ) from None
        if any(key not in contents for key in _RESERVED):
            raise DataFormatError(f"{path!r} is an .npz file but not a ratkit model (no {_RESERVED[0]!r} entry).")
        name = str(contents.pop("__ratkit_model__"))
        params = json.loads(str(contents.pop("__params__")))
        contents.pop("__format__")
        model_cls = get("recommender", name)
        if not (isinstance(model_cls, type) and issubclass(model_cls, cls)):
            raise DataFormatError(
                f"{path!r} holds a {name!r} model, which is not a {cls.__name__}; load it with "
                f"Recommender.load or {getattr(model_cls, '__name__', name)}.load."
            )
        model = model_cls(**params)
        for key, value in contents.items():
            setattr(model, key, value.item() if value.ndim == 0 else value)
        return model


def _jsonable(params: dict[str, Any]) -> dict[str, Any]:
    """The parameters to write: a random generator object is not data, so it is saved as
    None (the fitted state is saved anyway; only a refit would draw differently)."""
    generators = (np.random.Generator, np.random.RandomState)
    return {key: None if isinstance(value, generators) else value for key, value in params.items()}


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
