"""What the two DCD classifiers share: parameter checks, one-vs-rest labels, predict."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from numbers import Integral
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from ratkit._validation import check_bool, check_int, check_real
from ratkit.exceptions import (
    NotFittedError,
    ParameterError,
    ParameterTypeError,
    RatkitError,
    SolverError,
    TrainingDataError,
)
from ratkit.fitted import Array, Bool, Derived, Fitted, Int, Json, Labels
from ratkit.learners.dcd import convergence_record, inverse_diagonal, solve
from ratkit.learners.wprime import WPrime
from ratkit.persistence import PersistenceMixin

__all__ = ["DualSVCBase"]


class DualSVCBase(PersistenceMixin, ClassifierMixin, BaseEstimator):
    """Labels → one ±1 problem per class (one-vs-rest; one problem for two classes).

    Subclasses implement ``_scores(X) -> (n, n_problems)`` and set ``classes_``. ``save``
    writes the fitted model (:func:`ratkit.save_model`); ``ratkit.load_model`` reads it.
    """

    #: What ``fit`` sets (:mod:`ratkit.fitted`): one row of α and one intercept per binary
    #: problem (one for two classes, one per class for more), α within the box 0 ≤ α.
    _fitted_schema: ClassVar[Fitted] = Fitted(
        classes_=Labels(),
        alpha_=Array("f", ("n_problems", "n_samples"), low=0.0),
        intercept_=Array("f", ("n_problems",)),
        n_iter_=Int(low=0),
        converged_=Bool(),
        convergence_=Json(optional=True),  # files of format version 2 lack it
        dims={"n_problems": Derived(("classes_",), lambda classes: 1 if len(classes) == 2 else len(classes))},
    )
    _fitted_attributes: ClassVar[tuple[str, ...]] = _fitted_schema.required

    def _check_solver_params(self) -> tuple[float, float, int]:
        owner = type(self).__name__
        C = check_real(self.C, "C", owner, low=0.0, low_open=True)
        tol = check_real(self.tol, "tol", owner, low=0.0, low_open=True)
        check_real(self.cache_size, "cache_size", owner, low=0.0, low_open=True)
        for flag in ("fit_intercept", "shrinking", "show_progress"):
            check_bool(getattr(self, flag), flag, owner)
        return C, tol, check_int(self.max_iter, "max_iter", owner, low=1)

    def _random_state(self) -> np.random.RandomState:
        """scikit-learn's ``check_random_state(self.random_state)`` (the stream every fit has
        drawn from), its refusal re-raised as ParameterError or ParameterTypeError."""
        value = self.random_state
        try:
            return check_random_state(value)
        except (TypeError, ValueError) as exc:
            wrong_type = not isinstance(value, Integral) or isinstance(value, bool)
            raise (ParameterTypeError if wrong_type else ParameterError)(
                f"The 'random_state' parameter of {type(self).__name__} must be None, an int in [0, 2**32 - 1] "
                f"or a numpy RandomState. Got {value!r} instead."
            ) from exc

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

    def _matrix(self, X: Any, *y: Any, reset: bool) -> Any:
        """scikit-learn's ``validate_data`` of a feature matrix X (dense or CSR float64, and y when
        given after X), its errors re-raised as ratkit's: TrainingDataError (a ValueError) for data that
        ``fit`` cannot use (NaN, ±∞, no samples, not 2-D, strings), ParameterError for X given to
        ``predict`` (e.g. of another width), ParameterTypeError for a value of the wrong type.
        scikit-learn's own words are kept (its estimator checks match them)."""
        owner = f"{type(self).__name__}.{'fit' if reset else 'predict'}"
        if X is None:
            raise ParameterTypeError(f"{owner}: X must be a 2-D array or sparse matrix of numbers. Got None instead.")
        try:
            return validate_data(self, X, *y, accept_sparse="csr", dtype=np.float64, reset=reset)
        except RatkitError:
            raise
        except TypeError as exc:
            raise ParameterTypeError(f"{owner}: X (or y) has the wrong type: {exc}") from exc
        except ValueError as exc:
            text = str(exc)
            if "could not convert" in text:
                text = f"X must hold numbers (it is converted to float64): {text}"
            error = TrainingDataError if reset else ParameterError
            raise error(f"{owner}: {text}") from exc

    def _encode_targets(self, y: Any, n_samples: int) -> np.ndarray:
        """Set ``classes_``; return Y of shape (n_problems, n) with entries ±1.

        Two classes give one problem with +1 for ``classes_[1]``; k > 2 classes give k
        one-vs-rest problems, row c having +1 for ``classes_[c]``. Labels scikit-learn refuses
        (NaN, a 2-D y, continuous values) raise TrainingDataError with its words.
        """
        owner = type(self).__name__
        try:
            y = column_or_1d(y, warn=True)
        except (TypeError, ValueError) as exc:
            raise TrainingDataError(f"{owner}: the labels y must be a 1-D array of class labels: {exc}") from exc
        if y.shape[0] != n_samples:
            raise TrainingDataError(
                f"{owner}: X has {n_samples} samples but y has {y.shape[0]} labels; give one label per sample."
            )
        try:
            check_classification_targets(y)
        except (TypeError, ValueError) as exc:
            raise TrainingDataError(f"{owner}: the labels y cannot be class labels: {exc}") from exc
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

    def _train(
        self, wprime: WPrime, Y: np.ndarray, C: float, tol: float, max_iter: int, rng: Any, shift: float
    ) -> dict[str, Any]:
        """Algorithm 3/4 on every binary problem of Y (row c: labels ±1 of problem c) in turn,
        with one random stream, on the W′ representation ``wprime``; set ``alpha_``,
        ``intercept_`` = s² Σ_i α_i y_i (the weight of ε times s, ``shift`` = s²), ``n_iter_``,
        ``converged_`` and ``convergence_`` (:func:`~ratkit.learners.dcd.convergence_record`);
        return the representation's fitted attributes."""
        qinv = self._inverse_diagonal(wprime.diagonal)
        alphas = np.zeros(Y.shape)
        results = []
        for c, yb in enumerate(Y):
            results.append(
                solve(
                    wprime.epoch(c, yb, qinv, C, alphas[c]),
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
            wprime.finish(c)
        self.n_iter_ = int(max(r.n_iter for r in results))
        self.converged_ = bool(all(r.converged for r in results))
        self.convergence_ = convergence_record(results, tol)
        self.alpha_ = alphas
        self.intercept_ = shift * (alphas * Y).sum(axis=1)
        return wprime.solution(alphas, Y)

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
        """1 / Q_ii (see :func:`~ratkit.learners.dcd.epochs.inverse_diagonal`), refusing a Q_ii
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
