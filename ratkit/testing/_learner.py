"""``LearnerContract``: the checks every ratkit learner passes, built-in or third-party.

Subclass it in a pytest test module and give the hooks ``make_estimator()`` and
``make_data()``::

    from ratkit.testing import LearnerContract

    class TestMySVC(LearnerContract):
        def make_estimator(self):
            return MySVC(kernel=ngram(2), random_state=0)

        def make_data(self):
            return ["abab", "abba", "baba", "bbbb", "aaaa", "abaa"], [1, 1, 1, 0, 0, 0]

The checks: scikit-learn's estimator checks (``estimator_checks_generator``, one test each)
when the estimator takes numeric arrays — a learner on sequences (its tags say
``input_tags.string`` and not ``two_d_array``) skips them with that reason, since those
checks only feed numeric arrays; a save/load round trip through :func:`ratkit.load_model`
(the same outputs, the same parameters); ``clone`` (an unfitted copy with equal
parameters); ``fit`` leaves the parameters it was given as they were (an estimator-valued
parameter such as a kernel: its spec and its ``__dict__``); ``fit`` sets what the class's
``_fitted_schema`` describes (:mod:`ratkit.fitted`: the description a model file is checked
against when it is read); and, when
:meth:`LearnerContract.changed_params` names a change (by default every numeric parameter
changed), ``set_params`` after ``fit`` leaves the outputs unchanged.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError  # ratkit's NotFittedError is one too
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import check_estimator, estimator_checks_generator
from sklearn.utils.validation import check_is_fitted

from ratkit.fitted import check_fitted
from ratkit.testing._params import numeric_changes, same_params

__all__ = ["LearnerContract"]

_GENERATORS = (np.random.Generator, np.random.RandomState)


def _check_id(obj: Any) -> str:
    """A readable test id: the check's name (and arguments), or the estimator's class."""
    if isinstance(obj, functools.partial):
        extra = ",".join(f"{k}={v}" for k, v in obj.keywords.items())
        return f"{obj.func.__name__}({extra})" if extra else obj.func.__name__
    return type(obj).__name__ if isinstance(obj, BaseEstimator) else str(obj)


def _string_reason(estimator: Any) -> str | None:
    """Why scikit-learn's checks do not apply to an estimator on sequences; None when they do."""
    tags = get_tags(estimator)
    if tags.input_tags.string and not tags.input_tags.two_d_array:
        return (
            f"{type(estimator).__name__} learns from sequences (input_tags.string); scikit-learn's "
            "estimator checks feed numeric arrays only"
        )
    return None


def _state(value: Any) -> Any:
    """A deep copy of ``value`` in which every estimator, however deeply nested, is replaced
    by its class, its spec (a kernel's) and the state of its ``__dict__`` — so that a cache
    or a learned alphabet written into a kernel inside a combinator shows."""
    if isinstance(value, BaseEstimator):
        spec = value.to_spec() if callable(getattr(value, "to_spec", None)) else None
        return {"class": type(value), "spec": spec, "dict": {k: _state(v) for k, v in vars(value).items()}}
    if isinstance(value, dict):
        return {k: _state(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_state(v) for v in value)
    return copy.deepcopy(value)


class LearnerContract:
    """A pytest mixin of the contract of a ratkit learner.

    Hooks: :meth:`make_estimator` and :meth:`make_data` (both required);
    :meth:`outputs` (what must survive a round trip: ``decision_function``, else
    ``predict``); :meth:`changed_params` (a ``set_params`` change to make after ``fit``);
    :meth:`expected_failed_checks` (scikit-learn checks known to fail, with the reason).
    """

    #: Relative tolerance of the round trip (the arrays are written exactly; a kernel
    #: rebuilt from its spec may sum in another order).
    rtol: ClassVar[float] = 1e-12

    # -- hooks ---------------------------------------------------------------------------
    def make_estimator(self) -> Any:
        """A fresh, unfitted, configured estimator."""
        raise NotImplementedError("A LearnerContract test class must define make_estimator().")

    def make_data(self) -> tuple[Any, Any]:
        """(X, y): training data the estimator fits in a second or so."""
        raise NotImplementedError("A LearnerContract test class must define make_data().")

    def outputs(self, model: Any, X: Any) -> np.ndarray:
        """What a fitted model computes on X and a reloaded one must compute too."""
        method = getattr(model, "decision_function", None) or model.predict
        return np.asarray(method(X))

    def changed_params(self) -> dict[str, Any] | None:
        """Parameters to ``set_params`` on a fitted model (e.g. ``{"kernel__n": 3}``); the
        outputs must not change until the next ``fit``. None or ``{}``: no such check.

        The default: every int parameter of :meth:`make_estimator`'s model plus 1 and every
        non-zero float one times 1.5 (booleans, strings, None, zeros and estimators left
        alone), as :class:`RecommenderContract` does."""
        return numeric_changes(self.make_estimator())

    def expected_failed_checks(self) -> dict[str, str]:
        """{scikit-learn check name: why it fails}: those checks are marked xfail."""
        return {}

    # -- scikit-learn's checks -------------------------------------------------------------
    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        """One test per scikit-learn check of a numeric estimator. An estimator on sequences
        gets one skipped test; one that cannot be made while tests are collected (it needs a
        fixture, e.g. a plugin a fixture installs) gets one test running every check."""
        if "sklearn_check" not in metafunc.fixturenames:
            return
        try:
            estimator = self.make_estimator()
        except Exception:  # decided when the test runs, with its fixtures
            metafunc.parametrize("sklearn_estimator, sklearn_check", [pytest.param(None, None, id="all")])
            return
        if _string_reason(estimator) is not None:
            metafunc.parametrize("sklearn_estimator, sklearn_check", [pytest.param(None, None, id="sequences")])
            return
        cases = list(
            estimator_checks_generator(
                estimator, legacy=True, expected_failed_checks=self.expected_failed_checks(), mark="xfail"
            )
        )
        metafunc.parametrize("sklearn_estimator, sklearn_check", cases, ids=_check_id)

    @pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
    def test_sklearn_estimator_checks(self, sklearn_estimator: Any, sklearn_check: Any) -> None:
        if sklearn_check is not None:
            sklearn_check(sklearn_estimator)
            return
        estimator = self.make_estimator()
        reason = _string_reason(estimator)
        if reason is not None:
            pytest.skip(reason)
        check_estimator(estimator, expected_failed_checks=self.expected_failed_checks())

    # -- the ratkit contract ---------------------------------------------------------------
    @pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
    def test_save_then_load_model_gives_the_same_outputs(self, tmp_path: Path) -> None:
        from ratkit import load_model

        X, y = self.make_data()
        model = self.make_estimator().fit(X, y)
        before = self.outputs(model, X)
        path = Path(tmp_path) / "model.zip"
        model.save(path)
        loaded = load_model(path)
        assert type(loaded) is type(model)
        kept = {k: v for k, v in model.get_params(deep=False).items() if not isinstance(v, _GENERATORS)}
        assert same_params({k: loaded.get_params(deep=False)[k] for k in kept}, kept)
        np.testing.assert_allclose(self.outputs(loaded, X), before, rtol=self.rtol, atol=self.rtol)
        if callable(getattr(model, "predict", None)):
            np.testing.assert_array_equal(loaded.predict(X), model.predict(X))

    @pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
    def test_fitted_state_matches_its_description(self) -> None:
        """What ``fit`` sets matches the class's ``_fitted_schema`` (dtypes, shapes, finite
        values, the rules tying attributes together): the description :func:`ratkit.load_model`
        checks a model file against. Attributes it does not describe are checked generically."""
        X, y = self.make_data()
        check_fitted(self.make_estimator().fit(X, y))

    def test_clone_is_unfitted_with_equal_params(self) -> None:
        X, y = self.make_data()
        estimator = self.make_estimator()
        for original in (estimator, clone(estimator).fit(X, y)):
            copied = clone(original)
            assert type(copied) is type(original)
            assert same_params(copied.get_params(deep=False), original.get_params(deep=False))
            with pytest.raises(NotFittedError):
                check_is_fitted(copied)
        with pytest.raises(NotFittedError):
            self.outputs(self.make_estimator(), X)

    @pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
    def test_fit_leaves_its_parameters_unchanged(self) -> None:
        """Fitting never writes to an object it was given (a kernel keeps its spec and state)."""
        X, y = self.make_data()
        estimator = self.make_estimator()
        before = _state(estimator.get_params(deep=False))
        estimator.fit(X, y)
        assert same_params(_state(estimator.get_params(deep=False)), before)

    @pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
    def test_set_params_after_fit_leaves_the_outputs_unchanged(self) -> None:
        change = self.changed_params()
        if not change:
            pytest.skip("changed_params() names no change")
        X, y = self.make_data()
        model = self.make_estimator().fit(X, y)
        before = self.outputs(model, X)
        model.set_params(**change)
        np.testing.assert_array_equal(self.outputs(model, X), before)
