"""implicit's own shared model tests (``RecommenderBaseTestMixin``, implicit 0.7.3, vendored
unchanged in :mod:`tests.recsys.implicit_recommender_base`) on every registered recommender.

Each recommender gets one ``unittest.TestCase`` built here whose only hook is ``_get_model()``
(a small, fast configuration). A test that cannot apply to a model is skipped with the reason
in :data:`SKIPS`; everything else must pass.
"""

from __future__ import annotations

import inspect
import unittest
from typing import Any

import pytest

from ratkit import plugins

pytest.importorskip("implicit.nearest_neighbours", reason="implicit (the 'test' extra) is not installed")

from ratkit.exceptions import ParameterWarning  # noqa: E402

from . import implicit_recommender_base  # noqa: E402  (after the importorskip)
from .implicit_recommender_base import RecommenderBaseTestMixin  # noqa: E402

# The one substitution: test_fit_non_csr_matrix expects implicit's own warning class
# (implicit.utils.ParameterWarning), which a ratkit class cannot derive from without making
# implicit a dependency; ratkit's counterpart, ratkit.exceptions.ParameterWarning, stands in
# for it (the vendored file itself is unchanged).
implicit_recommender_base.ParameterWarning = ParameterWarning  # type: ignore[attr-defined]

#: Small, fast configurations (the mixin fits on 5 × 5 to 256 × 256 checkerboards and a
#: 100 × 200 random matrix); a registered recommender not listed here is built with its defaults.
FAST: dict[str, dict[str, Any]] = {
    "puresvd": {"n_factors": 4, "random_state": 0},
    "mfauc": {"n_factors": 8, "regularization": 1e-2, "learning_rate": 0.3, "max_iter": 20, "random_state": 0},
    # one-class data (the mixin's): the hashing models' one-class mode, feedback="implicit"
    "cccf": {
        "n_components": 2,
        "n_bits": 8,
        "bandwidth": 2.0,
        "max_iter": 3,
        "random_state": 0,
        "feedback": "implicit",
    },
    "dcf": {"n_bits": 8, "max_iter": 3, "random_state": 0, "feedback": "implicit"},
    "fism": {"n_factors": 8, "n_epochs": 2, "learning_rate": 0.05, "random_state": 0},
    "tjsl": {"n_factors": 8, "n_rounds": 2, "n_average": 2, "n_epochs": 1, "learning_rate": 0.05, "random_state": 0},
}

_NO_ITEM_FACTORS = (
    "it has no item factors, so similar_items (implicit's cosine of item factors) is undefined and raises "
    "UnsupportedOperationError (test_implicit_compat asserts it); the test calls it outside its try"
)
_NOT_PERSONALISED = (
    "it is not personalised (every user gets the same list, by popularity), so the item withheld from each "
    "user of the checkerboard cannot be each user's top item"
)
_FEW_USERS = (
    "the test fits a 5 × 5 matrix, and balanced, decorrelated 8-bit codes need more users than bits (the model "
    "refuses the data with ParameterError; with 4 bits too many items share a code for the other tests)"
)
_CODE_TIES = (
    "binary codes: the checkerboard's same-parity rows are identical, so they get identical codes and tie with "
    "the query at cosine exactly 1, and ties go to the smaller id (the test expects float factors, where "
    "rounding puts the query itself first); the same-parity part of the test holds"
)
_UNFITTED = (
    "a ratkit model file holds a fitted model: save() on an unfitted model raises NotFittedError and "
    "load_model refuses a file without the fitted state (implicit writes the parameters alone)"
)
_USER_BIAS = (
    "recalculate_user=True computes the user from the row alone, so its scores leave out the fitted user "
    "bias b_u (a per-user constant no row determines) and differ from the fitted scores by b_u; the ranking "
    "is the same, which test_recalculate_user.py checks against an independent computation"
)

#: (recommender, mixin test) → why the test cannot apply to that model.
SKIPS: dict[tuple[str, str], str] = {
    **{(name, "test_serialization_without_fit"): _UNFITTED for name in sorted(plugins.available("recommender"))},
    **{
        (name, test): _NO_ITEM_FACTORS
        for name in ("popularity", "fism", "tjsl")
        for test in (
            "test_similar_items",
            "test_similar_items_batch",
            "test_similar_items_filter",
            "test_zero_length_row",
            "test_pickle",
            "test_serialization",
        )
    },
    **{(name, "test_recalculate_user"): _USER_BIAS for name in ("fism", "tjsl")},
    **{
        ("popularity", test): _NOT_PERSONALISED
        for test in ("test_recommend", "test_recommend_batch", "test_evaluation")
    },
    **{(name, "test_fit_callback"): _FEW_USERS for name in ("cccf", "dcf")},
    **{
        (name, test): _CODE_TIES
        for name in ("cccf", "dcf")
        for test in ("test_similar_items_batch", "test_similar_users_batch")
    },
}


def _one_class_mode(name: str) -> bool:
    """Whether the recommender accepts every parameter of its FAST configuration (CCCF's and
    DCF's feedback="implicit" is issue 38's one-class mode, merged separately)."""
    accepted = inspect.signature(plugins.get("recommender", name)).parameters
    return all(key in accepted for key in FAST.get(name, {}))


_NO_ONE_CLASS_MODE = (
    "this build has no feedback='implicit' (one-class) mode for it; its explicit rating model cannot learn "
    "from the mixin's one-class data (all ratings 1)"
)

NAMES = sorted(plugins.available("recommender"))


def _case(name: str) -> type[unittest.TestCase]:
    factory = plugins.get("recommender", name)
    params = FAST.get(name, {})

    def _get_model(self: Any) -> Any:
        return factory(**params)

    def setUp(self: Any) -> None:
        if not _one_class_mode(name):
            self.skipTest(f"{name}: {_NO_ONE_CLASS_MODE}")
        reason = SKIPS.get((name, self._testMethodName))
        if reason is not None:
            self.skipTest(f"{name}: {reason}")

    return type(
        f"TestImplicitMixin_{name}",
        (RecommenderBaseTestMixin, unittest.TestCase),
        {"_get_model": _get_model, "setUp": setUp, "__module__": __name__},
    )


for _name in NAMES:
    globals()[f"TestImplicitMixin_{_name}"] = _case(_name)


def test_every_registered_recommender_runs_the_mixin() -> None:
    cases = {name for name in NAMES if f"TestImplicitMixin_{name}" in globals()}
    assert cases == set(plugins.available("recommender")) and len(cases) >= 7
    for name, test in SKIPS:
        assert name in NAMES and hasattr(RecommenderBaseTestMixin, test), (name, test)
