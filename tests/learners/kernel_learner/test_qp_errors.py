"""Every error a user of KernelLearner / solve_kernel_qp can hit names the problem and the fix."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from ratkit.automata.kernels import SpecError, count_based, ngram
from ratkit.exceptions import RatkitError, SolverError, TrainingDataError, UnsupportedKernelError
from ratkit.learners.kernel_learner._learner import KernelLearner
from ratkit.learners.kernel_learner._qp import check_status, solve_kernel_qp

SEQS = ["abab", "abba", "baba", "bbaa", "aabb", "baab"]
Y = np.array([1, 1, -1, -1, 1, -1])
PATS = count_based(["ab", "ba", "bb"])


@pytest.mark.parametrize(
    "labels, shown",
    [
        ([0, 1, 0, 1, 0, 1], "0"),
        ([1, 2, -1, -1, 1, -1], "2"),
        (["a", "b", "a", "b", "a", "b"], "'a', 'b'"),
        ([True, False, True, False, True, False], "False, True"),
    ],
)
def test_labels_not_plus_minus_one(labels, shown):
    with pytest.raises(TrainingDataError, match=rf"labels in {{−1, \+1}}; got {shown}\. Map the two classes"):
        KernelLearner(PATS).fit(SEQS, labels)


def test_labels_of_one_class():
    with pytest.raises(TrainingDataError, match=r"both classes −1 and \+1; got only \+1.*add samples of the other"):
        KernelLearner(PATS).fit(SEQS, np.ones(6))


def test_labels_of_wrong_length():
    with pytest.raises(TrainingDataError, match="X has 6 samples but y has 5 labels"):
        KernelLearner(PATS).fit(SEQS, Y[:5])


def test_no_sequences():
    with pytest.raises(TrainingDataError, match="X holds no sequences"):
        KernelLearner(PATS).fit([], [])


def test_pattern_that_never_occurs():
    with pytest.raises(
        TrainingDataError,
        match=r"Pattern \('c', 'a'\) \(column 1\) never occurs in the training "
        r"sequences \(‖X_k‖ = 0\).*Remove such patterns",
    ):
        KernelLearner(count_based(["ab", "ca", "ba"])).fit(SEQS, Y)


def test_column_that_is_zero_in_a_count_matrix():
    counts = np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 0.0]])
    with pytest.raises(TrainingDataError, match=r"Column 1 never occurs"):
        solve_kernel_qp(counts, [1, -1, 1])


@pytest.mark.parametrize("trace", [0, -1.5, float("nan"), "big"])
def test_trace_not_positive(trace):
    with pytest.raises(
        ValueError,
        match=rf"The 'trace' parameter of KernelLearner must be a (finite )?float > 0\. Got {trace!r} instead\. "
        r"\(trace is Λ, the trace of the learned kernel matrix",
    ):
        KernelLearner(PATS, trace=trace).fit(SEQS, Y)


def test_C_not_positive():
    with pytest.raises(
        ValueError,
        match=r"The 'C' parameter of KernelLearner must be a float > 0.*Got -1.0 instead",
    ):
        KernelLearner(PATS, C=-1.0).fit(SEQS, Y)


@pytest.mark.parametrize(
    "kernel, name",
    [
        (ngram(2), "NgramKernel"),
        ({"family": "ngram", "n": 2}, "NgramKernel"),
        ("not a kernel", None),
        (42, "42"),
    ],
)
def test_kernel_not_count_based(kernel, name):
    if name is None:  # a string is read as a spec, which this one is not
        with pytest.raises(SpecError, match="neither an existing .toml/.json file nor a JSON object"):
            KernelLearner(kernel).fit(SEQS, Y)
        return
    with pytest.raises(
        UnsupportedKernelError,
        match=rf"learns the weights of a count-based kernel.*got {name}\. "
        r"Pass count_based\(patterns\)",
    ):
        KernelLearner(kernel).fit(SEQS, Y)


def test_unsupported_kernel_error_is_a_type_error():
    assert issubclass(UnsupportedKernelError, TypeError) and issubclass(UnsupportedKernelError, RatkitError)


@pytest.mark.parametrize("solver", ["MOSEK", "SCIPY", 3])
def test_unknown_solver(solver):
    with pytest.raises(
        ValueError,
        match=rf"'solver' parameter of KernelLearner must be a cvxpy QP solver that is "
        rf"installed, one of 'CLARABEL'.*Got {solver!r} instead",
    ):
        KernelLearner(PATS, solver=solver).fit(SEQS, Y)


def test_bad_solver_option():
    with pytest.raises(ValueError, match="'solver_options' parameter of KernelLearner was refused by CLARABEL"):
        KernelLearner(PATS, solver_options={"no_such_option": 1}).fit(SEQS, Y)


def test_solver_stopped_by_iteration_limit():
    with pytest.raises(
        SolverError,
        match=r"cvxpy solver CLARABEL returned status 'user_limit'.*iteration or time "
        r"limit.*No kernel weights were computed",
    ):
        KernelLearner(PATS, solver_options={"max_iter": 1}).fit(SEQS, Y)


def test_solver_reports_unbounded():
    """SCS stopped after 3 iterations calls this (bounded) QP unbounded: an error, never a μ."""
    rng = np.random.default_rng(0)
    counts = rng.poisson(1.0, size=(30, 6)).astype(float)
    y = np.where(rng.random(30) < 0.5, 1, -1)
    with pytest.raises(
        SolverError,
        match=r"cvxpy solver SCS returned status 'unbounded_inaccurate'.*\(63\) is "
        r"bounded.*numerical failure.*No kernel weights were computed",
    ):
        solve_kernel_qp(counts, y, solver="SCS", solver_options={"max_iters": 3})


def test_solver_stopped_early_is_not_accepted():
    """SCS after one iteration says 'optimal_inaccurate'; its multipliers are not trusted."""
    with pytest.raises(
        SolverError,
        match=r"cvxpy solver SCS returned status 'optimal_inaccurate'.*stopped before "
        r"reaching its tolerances, so μ would be unreliable",
    ):
        KernelLearner(PATS, solver="SCS", solver_options={"max_iters": 1}).fit(SEQS, Y)


def test_solver_failure_is_wrapped():
    with pytest.raises(
        SolverError,
        match=r"cvxpy solver SCS failed on the kernel-learning QP \(63\) \(6 samples, "
        r"3 patterns\).*Try another solver",
    ):
        KernelLearner(PATS, solver="SCS", solver_options={"max_iters": 2}).fit(SEQS, Y)


@pytest.mark.parametrize(
    "status, hint",
    [
        (cp.INFEASIBLE, r"always feasible \(α = 0, t = 0\)"),
        (cp.INFEASIBLE_INACCURATE, "always feasible"),
        (cp.UNBOUNDED, "is bounded"),
        (cp.OPTIMAL_INACCURATE, "stopped before reaching its tolerances"),
        (cp.SOLVER_ERROR, "the solver failed"),
    ],
)
def test_every_failed_status_raises(status, hint):
    with pytest.raises(SolverError, match=rf"solver OSQP returned status '{status}'.*{hint}"):
        check_status(status, "OSQP")


def test_optimal_status_passes():
    assert check_status(cp.OPTIMAL, "OSQP") is None


def test_solver_without_values(monkeypatch):
    """A solver claiming optimality without returning α and multipliers gives no μ."""

    def fake_solve(self, *args, **kwargs):
        self._status = cp.OPTIMAL
        self._value = 0.0
        return 0.0

    monkeypatch.setattr(cp.Problem, "solve", fake_solve)
    with pytest.raises(SolverError, match="returned no finite α or multipliers, so μ cannot be recovered"):
        KernelLearner(PATS).fit(SEQS, Y)


def test_no_ngram_of_the_default_length_occurs():
    with pytest.raises(TrainingDataError, match="no 3-gram occurs in X .*lower ngram_length"):
        KernelLearner(ngram_length=3).fit(["ab", "b", "a", "ba"], [1, -1, 1, -1])
