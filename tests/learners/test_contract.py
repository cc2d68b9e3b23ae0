"""Every built-in learner on sequences runs the public LearnerContract (ratkit.testing), as a
third party would; the numeric configurations, on which scikit-learn's checks run, are in
svm/test_sklearn_checks.py."""

from __future__ import annotations

import random

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ratkit.automata import kernels
from ratkit.learners import KernelLearner, RationalSVC
from ratkit.testing import LearnerContract


def _strings(seed: int = 0, n: int = 30):
    rng = random.Random(seed)
    X = ["".join(rng.choice("abc") for _ in range(rng.randint(3, 10))) for _ in range(n)]
    return X, ["up" if x.count("ab") > x.count("ba") else "down" for x in X]


class TestRationalSVCOnStrings(LearnerContract):
    def make_estimator(self):
        return RationalSVC(kernels.ngram(2), C=2.0, random_state=0)

    def make_data(self):
        return _strings()

    def changed_params(self):
        return {"kernel__n": 3}  # before: every decision value became 0


class TestRationalSVCOnStringsNaive(LearnerContract):
    def make_estimator(self):
        return RationalSVC(kernels.cosine(kernels.ngram(2)), representation="naive", fit_intercept=True, random_state=0)

    def make_data(self):
        return _strings(3, 16)

    def changed_params(self):
        return {"kernel__kernel__n": 1}


class TestRationalSVCOnStringsMismatch(LearnerContract):
    """The mismatch kernel learns its alphabet from the training data: into the fitted
    model's clone of the kernel, never into the kernel passed in."""

    def make_estimator(self):
        return RationalSVC(kernels.cosine(kernels.mismatch(3, 1)), representation="automaton", random_state=0)

    def make_data(self):
        return _strings(6, 24)

    def changed_params(self):
        return {"kernel__kernel__m": 0}


class TestRationalSVCOnAKernelWithoutFeatureMap(LearnerContract):
    def make_estimator(self):
        return RationalSVC(kernels.exp_kernel(kernels.ngram(2), 0.1), random_state=0)

    def make_data(self):
        return _strings(4, 20)

    def changed_params(self):
        return {"kernel__t": 1.0}


class TestKernelLearner(LearnerContract):
    def make_estimator(self):
        return KernelLearner(kernels.count_based(["ab", "ba", "aa", "cc"]), C=1.0)

    def make_data(self):
        X, labels = _strings(5, 24)
        return X, np.where(np.array(labels) == "up", 1, -1)

    def outputs(self, model, X):
        check_is_fitted(model)
        return model.kernel_.gram(X)
