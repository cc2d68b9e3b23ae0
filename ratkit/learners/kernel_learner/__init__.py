"""Learning the weights of a count-based rational kernel by the QP of survey §VI (eq. (63))."""

from ratkit.learners.kernel_learner._learner import KernelLearner
from ratkit.learners.kernel_learner._patterns import most_frequent_patterns, pattern_counts
from ratkit.learners.kernel_learner._qp import KernelQPResult, solve_kernel_qp

__all__ = ["KernelLearner", "KernelQPResult", "solve_kernel_qp", "most_frequent_patterns", "pattern_counts"]
