"""scikit-learn's estimator checks on the numeric configurations of both learners.

String inputs are skipped by these checks; RationalSVC on sequences is tested in
test_rational_svc.py.
"""

from __future__ import annotations

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from ratkit.learners import LinearDCDSVC, RationalSVC


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@parametrize_with_checks(
    [
        LinearDCDSVC(random_state=0),
        RationalSVC(kernel="linear", random_state=0),
        RationalSVC(kernel="linear", representation="automaton", fit_intercept=True, random_state=0),
    ]
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
