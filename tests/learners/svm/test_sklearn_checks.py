"""scikit-learn's estimator checks on the numeric configurations of the learners, through the
public LearnerContract (one test per check, plus the round trip, clone and hygiene checks).

String inputs are skipped by scikit-learn's checks; the learners on sequences run the
contract in tests/learners/test_contract.py and are tested in test_rational_svc.py.
"""

from __future__ import annotations

import numpy as np

from ratkit.learners import LinearDCDSVC, RationalSVC
from ratkit.testing import LearnerContract


def _numeric(seed: int = 0, n: int = 40):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, 4)
    return X, np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")


class TestLinearDCDSVC(LearnerContract):
    def make_estimator(self):
        return LinearDCDSVC(random_state=0)

    def make_data(self):
        return _numeric()


class TestRationalSVCOnVectors(LearnerContract):
    """The numeric configuration: scikit-learn's checks run on it."""

    def make_estimator(self):
        return RationalSVC(kernel="linear", random_state=0)

    def make_data(self):
        return _numeric(1)


class TestRationalSVCOnVectorsWithAutomaton(LearnerContract):
    def make_estimator(self):
        return RationalSVC(kernel="linear", representation="automaton", fit_intercept=True, random_state=0)

    def make_data(self):
        return _numeric(2)
