"""Bad inputs of the learners (issue 21): RationalSVC, LinearDCDSVC, KernelLearner and their helpers.

Each case asserts the ratkit exception class (which also derives from the fitting builtin) and the
words of the message that name the bad thing. scikit-learn's own refusals (NaN, an empty or 1-D X,
a matrix of strings, a y of NaN) reach the user as ratkit errors that keep scikit-learn's words.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit.automata.kernels import count_based, ngram
from ratkit.exceptions import (
    ParameterError,
    ParameterTypeError,
    RatkitError,
    TrainingDataError,
    UnsupportedKernelError,
)
from ratkit.learners import KernelLearner, LinearDCDSVC, RationalSVC, most_frequent_patterns, solve_kernel_qp

S = ["abab", "abba", "ab", "baba", "bbb", "aab"]
Y = [1, 1, 1, -1, -1, -1]
NAN, INF = float("nan"), float("inf")


def _rational(**params):
    return RationalSVC(ngram(2), **{"random_state": 0, **params})


@pytest.mark.parametrize(
    ("param", "value", "error", "words"),
    [
        ("C", 0, ParameterError, r"'C' parameter of RationalSVC must be a float > 0\. Got 0 instead"),
        ("C", -1, ParameterError, r"'C' parameter .* Got -1 instead"),
        ("C", NAN, ParameterError, r"'C' parameter .* finite .* Got nan instead"),
        ("C", INF, ParameterError, r"'C' parameter .* finite .* Got inf instead"),
        ("C", -INF, ParameterError, r"'C' parameter .* Got -inf instead"),
        ("C", "x", ParameterTypeError, r"'C' parameter .* Got 'x' instead"),
        ("C", None, ParameterTypeError, r"'C' parameter .* Got None instead"),
        ("tol", -1, ParameterError, r"'tol' parameter .* Got -1 instead"),
        ("tol", INF, ParameterError, r"'tol' parameter .* Got inf instead"),
        ("max_iter", 0, ParameterError, r"'max_iter' parameter of RationalSVC must be an int ≥ 1\. Got 0"),
        ("max_iter", 2.5, ParameterTypeError, r"'max_iter' parameter .* Got 2\.5 instead"),
        ("max_iter", True, ParameterTypeError, r"'max_iter' parameter .* Got True instead"),
        ("cache_size", -1, ParameterError, r"'cache_size' parameter .* Got -1 instead"),
        ("representation", "tree", ParameterError, r"'representation' parameter .* Got 'tree' instead"),
        ("intercept_scaling", 0, ParameterError, r"'intercept_scaling' parameter .* Got 0 instead"),
        (
            "shrinking",
            "maybe",
            ParameterTypeError,
            r"'shrinking' parameter of RationalSVC must be a bool .* Got 'maybe'",
        ),
        ("fit_intercept", "x", ParameterTypeError, r"'fit_intercept' parameter .* bool .* Got 'x' instead"),
        ("show_progress", None, ParameterTypeError, r"'show_progress' parameter .* bool .* Got None instead"),
        ("random_state", -1, ParameterError, r"'random_state' parameter of RationalSVC must be None, an int .* Got -1"),
        ("random_state", 2**32, ParameterError, r"'random_state' parameter .* Got 4294967296 instead"),
        ("random_state", "seed", ParameterTypeError, r"'random_state' parameter .* Got 'seed' instead"),
    ],
)
def test_rational_svc_parameters(param, value, error, words):
    with pytest.raises(error, match=words):
        _rational(**{param: value}).fit(S, Y)


@pytest.mark.parametrize(
    ("param", "value", "error", "words"),
    [
        ("C", -1, ParameterError, r"'C' parameter of LinearDCDSVC .* Got -1 instead"),
        ("C", INF, ParameterError, r"'C' parameter of LinearDCDSVC .* finite .* Got inf"),
        ("tol", 0, ParameterError, r"'tol' parameter of LinearDCDSVC .* Got 0 instead"),
        ("max_iter", -5, ParameterError, r"'max_iter' parameter of LinearDCDSVC .* Got -5 instead"),
        ("intercept_scaling", -1, ParameterError, r"'intercept_scaling' parameter .* Got -1 instead"),
        ("intercept_scaling", NAN, ParameterError, r"'intercept_scaling' parameter .* Got nan instead"),
        ("shrinking", "no", ParameterTypeError, r"'shrinking' parameter of LinearDCDSVC must be a bool .* Got 'no'"),
        ("fit_intercept", 1, ParameterTypeError, r"'fit_intercept' parameter .* bool .* Got 1 instead"),
    ],
)
def test_linear_dcd_parameters(param, value, error, words):
    with pytest.raises(error, match=words):
        LinearDCDSVC(**{param: value}).fit(np.eye(4), [1, 1, -1, -1])


@pytest.mark.parametrize(
    ("X", "y", "error", "words"),
    [
        ([], [], TrainingDataError, r"empty training set"),
        (["ab", "ba"], [1], TrainingDataError, r"X has 2 samples but y has 1 labels"),
        (["ab", "ba"], [1, 1], TrainingDataError, r"at least two classes; got one class only \(1\)"),
        (None, None, ParameterTypeError, r"X must be a collection of sequences.*NoneType"),
        (["ab", 5], [1, -1], ParameterTypeError, r"X\[1\] is int 5"),
        (S, [1, 1, 1, -1, -1, NAN], TrainingDataError, r"RationalSVC: the labels y .*NaN"),
        (S, np.array([Y, Y]).T, TrainingDataError, r"RationalSVC: the labels y must be a 1-D array.*shape \(6, 2\)"),
        (S, [0.5, 1.5, 2.5, 3.5, 4.5, 5.5], TrainingDataError, r"labels y cannot be class labels.*Unknown label"),
    ],
)
def test_rational_svc_training_data(X, y, error, words):
    with pytest.raises(error, match=words):
        _rational().fit(X, y)


@pytest.mark.parametrize(
    ("X", "y", "error", "words"),
    [
        (np.array([[NAN, 1.0], [0.0, 1.0]]), [1, -1], TrainingDataError, r"LinearDCDSVC\.fit: Input X contains NaN"),
        (np.array([[INF, 1.0], [0.0, 1.0]]), [1, -1], TrainingDataError, r"LinearDCDSVC\.fit: Input X contains inf"),
        (np.array([[-INF, 1.0], [0.0, 1.0]]), [1, -1], TrainingDataError, r"Input X contains inf"),
        (np.zeros((0, 3)), [], TrainingDataError, r"LinearDCDSVC\.fit: Found array with 0 sample"),
        (np.zeros((2, 0)), [1, -1], TrainingDataError, r"0 feature"),
        ([1, 2, 3], [1, -1, 1], TrainingDataError, r"Expected 2D array, got 1D array"),
        (np.array([["a", "b"], ["c", "d"]]), [1, -1], TrainingDataError, r"X must hold numbers .*'a'"),
        (np.eye(2), [1, NAN], TrainingDataError, r"y contains NaN"),
        (np.eye(3), [1, -1], TrainingDataError, r"X has 3 samples but y has 2 labels"),
        (None, [1, -1], ParameterTypeError, r"LinearDCDSVC\.fit: X must be a 2-D array .* Got None"),
        (np.zeros((2, 2, 2)), [1, -1], TrainingDataError, r"Found array with dim 3"),
        (np.eye(2), None, TrainingDataError, r"requires y to be passed, but the target y is None"),
        (sp.coo_matrix(np.eye(2)).todok() * np.nan, [1, -1], TrainingDataError, r"NaN"),
    ],
)
def test_linear_dcd_training_data(X, y, error, words):
    with pytest.raises(error, match=words):
        LinearDCDSVC().fit(X, y)


def test_linear_dcd_prediction_input():
    model = LinearDCDSVC(random_state=0).fit(np.eye(2), [1, -1])
    with pytest.raises(
        ParameterError, match=r"LinearDCDSVC\.predict: X has 3 features, but LinearDCDSVC is expecting 2"
    ):
        model.predict(np.eye(3))
    with pytest.raises(ParameterError, match=r"LinearDCDSVC\.predict: Input X contains NaN"):
        model.predict(np.array([[NAN, 0.0]]))
    with pytest.raises(ParameterError, match=r"predict: Expected 2D array"):
        model.predict([1.0, 2.0])
    assert not isinstance(ParameterError("x"), TrainingDataError)  # predict's X is not training data


def test_a_refused_fit_leaves_no_fitted_attribute():
    model = LinearDCDSVC(random_state=0).fit(np.eye(2), [1, -1])
    with pytest.raises(TrainingDataError):
        model.fit(np.array([[NAN, 1.0], [0.0, 1.0]]), [1, -1])
    assert not [k for k in vars(model) if k.endswith("_")]


def test_sklearn_words_are_kept_and_the_error_is_a_value_error():
    """scikit-learn's estimator checks match its messages; except ValueError keeps working."""
    with pytest.raises(ValueError, match="Input X contains NaN"):
        LinearDCDSVC().fit(np.array([[NAN]]), [1])


@pytest.mark.parametrize(
    ("params", "error", "words"),
    [
        ({"ngram_length": 0}, ParameterError, r"'ngram_length' parameter of KernelLearner must be an int ≥ 1\. Got 0"),
        ({"ngram_length": 2.5}, ParameterTypeError, r"'ngram_length' parameter of KernelLearner .* Got 2\.5"),
        ({"ngram_length": None}, ParameterTypeError, r"'ngram_length' parameter .* Got None"),
        ({"n_patterns": 0}, ParameterError, r"'n_patterns' parameter of KernelLearner must be an int ≥ 1\. Got 0"),
        ({"n_patterns": -1}, ParameterError, r"'n_patterns' parameter .* Got -1"),
        ({"C": -1}, ParameterError, r"'C' parameter of KernelLearner .* Got -1"),
        ({"C": NAN}, ParameterError, r"'C' parameter of KernelLearner .* Got nan"),
        ({"trace": -1}, ParameterError, r"'trace' parameter of KernelLearner .* Got -1"),
        ({"solver": "MAGIC"}, ParameterError, r"'solver' parameter .* 'MAGIC'"),
        ({"kernel": "{bad"}, RatkitError, r"not valid JSON"),
    ],
)
def test_kernel_learner_parameters(params, error, words):
    with pytest.raises(error, match=words):
        KernelLearner(**params).fit(["ab", "ba"], [1, -1])


def test_kernel_learner_names_its_own_parameter_not_the_ngram_family():
    with pytest.raises(ParameterError) as info:
        KernelLearner(ngram_length=0).fit(["ab", "ba"], [1, -1])
    assert "of ngram" not in str(info.value)


def test_kernel_learner_refuses_a_kernel_that_is_not_count_based():
    with pytest.raises(UnsupportedKernelError, match="count-based.*NgramKernel|NgramKernel.*count-based"):
        KernelLearner(ngram(2)).fit(["ab", "ba"], [1, -1])


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: most_frequent_patterns(["ab"], n=0), ParameterError, r"'n' parameter of most_frequent_patterns"),
        (lambda: most_frequent_patterns(["ab"], n="2"), ParameterTypeError, r"'n' parameter .* Got '2'"),
        (lambda: most_frequent_patterns(["ab"], p=-1), ParameterError, r"'p' parameter of most_frequent_patterns"),
        (lambda: solve_kernel_qp(np.ones((2, 2)), [1]), TrainingDataError, r"X has 2 samples but y has 1"),
        (lambda: solve_kernel_qp(np.array([[NAN, 1.0], [1.0, 0.0]]), [1, -1]), TrainingDataError, r"finite"),
        (lambda: count_based("ab"), ParameterTypeError, r"'patterns' parameter of count_based"),
    ],
)
def test_kernel_learning_helpers(call, error, words):
    with pytest.raises(error, match=words):
        call()
