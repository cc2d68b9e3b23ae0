"""What the two DCD classifiers share: parameter checks, one-vs-rest labels, predict."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from ratkit._validation import check_int, check_real
from ratkit.exceptions import NotFittedError, SolverError, TrainingDataError
from ratkit.learners.dcd._active_gram import ActiveGramEpoch, cache_capacity
from ratkit.learners.dcd._epochs import inverse_diagonal
from ratkit.learners.wprime._indexed_rows import IndexedRows

__all__ = ["DualSVCBase", "check_positive", "check_max_iter"]


def check_positive(value: Any, name: str, owner: str) -> float:
    """A finite float > 0, or the scikit-learn-style ValueError naming the parameter."""
    return check_real(value, name, owner, low=0.0, low_open=True)


def check_max_iter(value: Any, owner: str) -> int:
    return check_int(value, "max_iter", owner, low=1)


class DualSVCBase(ClassifierMixin, BaseEstimator):
    """Labels → one ±1 problem per class (one-vs-rest; one problem for two classes).

    Subclasses implement ``_scores(X) -> (n, n_problems)`` and set ``classes_``.
    """

    def _check_solver_params(self) -> tuple[float, float, int]:
        owner = type(self).__name__
        C = check_positive(self.C, "C", owner)
        tol = check_positive(self.tol, "tol", owner)
        check_positive(self.cache_size, "cache_size", owner)
        return C, tol, check_max_iter(self.max_iter, owner)

    def _check_lengths(self, X: Any, y: Any) -> None:
        """X and y must hold as many samples as each other (checked before any conversion)."""
        try:
            nx = X.shape[0] if hasattr(X, "shape") and len(X.shape) else len(X)
            ny = len(y)
        except TypeError:
            return  # not sized: the conversions that follow report it
        if nx != ny:
            raise TrainingDataError(
                f"{type(self).__name__}: X has {nx} samples but y has {ny} labels; give one label per sample."
            )

    def _encode_targets(self, y: Any, n_samples: int) -> np.ndarray:
        """Set ``classes_``; return Y of shape (n_problems, n) with entries ±1.

        Two classes give one problem with +1 for ``classes_[1]``; k > 2 classes give k
        one-vs-rest problems, row c having +1 for ``classes_[c]``.
        """
        owner = type(self).__name__
        y = column_or_1d(y, warn=True)
        if y.shape[0] != n_samples:
            raise TrainingDataError(
                f"{owner}: X has {n_samples} samples but y has {y.shape[0]} labels; give one label per sample."
            )
        check_classification_targets(y)
        classes, codes = np.unique(y, return_inverse=True)
        if classes.shape[0] < 2:
            only = repr(classes[0].item() if hasattr(classes[0], "item") else classes[0]) if classes.size else "none"
            raise TrainingDataError(
                f"{owner} needs training samples of at least two classes; got one class only "
                f"({only}). "
                "Add samples of another class (a binary target can be any two labels, e.g. ±1 "
                "or 'EI'/'other')."
            )
        self.classes_ = classes
        if classes.shape[0] == 2:
            return np.where(codes == 1, 1.0, -1.0)[None, :]
        return np.where(codes[None, :] == np.arange(classes.shape[0])[:, None], 1.0, -1.0)

    def _solve_problems(
        self, Y: np.ndarray, make_epoch: Callable[[int, np.ndarray], Callable], tol: float, max_iter: int, rng: Any
    ) -> list[Any]:
        """Run the DCD driver on each binary problem (row c of Y, epoch ``make_epoch(c, Y[c])``)
        in turn with one random stream; set ``n_iter_`` and ``converged_``."""
        from ratkit.learners.dcd._solver import solve

        results = []
        for c, yb in enumerate(Y):
            epoch = make_epoch(c, yb)
            results.append(
                solve(
                    epoch,
                    Y.shape[1],
                    tol=tol,
                    max_iter=max_iter,
                    rng=rng,
                    shrinking=bool(self.shrinking),
                    show_progress=self.show_progress,
                    desc=f"DCD problem {c + 1}/{Y.shape[0]}",
                    owner=self._problem_name(),
                )
            )
            if hasattr(epoch, "finish"):
                epoch.finish()
        self.n_iter_ = int(max(r.n_iter for r in results))
        self.converged_ = bool(all(r.converged for r in results))
        return results

    def _fit_indexed(
        self, rows: IndexedRows, Y: np.ndarray, C: float, tol: float, max_iter: int, rng: Any, scale: float
    ) -> None:
        """Algorithm 3 (Algorithm 4 on an indexed W′) on every binary problem of Y, on rows laid
        out by :class:`IndexedRows` (with the intercept's feature ``scale`` when
        ``fit_intercept``), switching to cached inner products of the active rows within
        ``cache_size`` MB when that pays (:mod:`ratkit.learners.dcd._active_gram`); sets
        ``alpha_``, ``coef_`` and ``intercept_``."""
        qinv = self._inverse_diagonal(rows.sq_norms)
        alphas, W = np.zeros(Y.shape), np.zeros((Y.shape[0], rows.n_slots))
        capacity = cache_capacity(self.cache_size, Y.shape[1])

        def make_epoch(c: int, yb: np.ndarray) -> Callable:
            return ActiveGramEpoch(rows, yb, qinv, C, alphas[c], W[c], capacity)

        self._solve_problems(Y, make_epoch, tol, max_iter, rng)
        self.alpha_ = alphas
        coef = np.zeros((Y.shape[0], rows.col_slot.shape[0]))
        for c in range(Y.shape[0]):
            coef[c] = rows.column_weights(W[c], alphas[c], Y[c])
        self.coef_ = coef
        self.intercept_ = W[:, 0] * scale if self.fit_intercept else np.zeros(Y.shape[0])

    @contextmanager
    def _fitting(self) -> Iterator[None]:
        """Run a fit; if it raises, drop every fitted attribute (set by it or by an earlier fit)."""
        try:
            yield
        except BaseException:
            for key in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
                delattr(self, key)
            raise

    def _inverse_diagonal(self, q: np.ndarray) -> np.ndarray:
        """1 / Q_ii (see :func:`~ratkit.learners.dcd._epochs.inverse_diagonal`), refusing a Q_ii
        that is NaN or overflows: the step of that coordinate would be 0 for ever, and a run
        with every α stuck at 0 would look converged."""
        q = np.asarray(q, dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(q))
        if bad.size:
            raise SolverError(
                f"{self._problem_name()}: Q_ii = K(x_i, x_i) of sample {int(bad[0])} is {float(q[bad[0]])!r} "
                f"({bad.size} such samples): the feature values are too large for float64. Rescale them, "
                "e.g. with a cosine-normalised kernel."
            )
        return inverse_diagonal(q)

    def _problem_name(self) -> str:
        """What the solver's messages call the problem being solved (default: the class name;
        a kernel machine adds its kernel)."""
        return type(self).__name__

    def _scores(self, X: Any) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _check_fitted(self) -> None:
        try:
            check_is_fitted(self, "classes_")
        except Exception:
            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet. Call 'fit' with training data before using it."
            ) from None

    def decision_function(self, X: Any) -> np.ndarray:
        """f(x) = ⟨W′, Φ′_x⟩ (+ b): shape (n,) for two classes (positive means ``classes_[1]``),
        (n, n_classes) for one-vs-rest."""
        self._check_fitted()
        scores = self._scores(X)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X: Any) -> np.ndarray:
        """The class of largest decision value (the sign of f for two classes)."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def save(self, path: Any) -> None:
        """Write the fitted model to ``path`` (a zip archive of JSON and arrays; no pickle).

        See :func:`ratkit.learners.save_model`.
        """
        from ratkit._persistence import save_model

        save_model(self, path)
