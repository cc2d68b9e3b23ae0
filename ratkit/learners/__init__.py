"""ratkit.learners: SVMs trained by dual coordinate descent, on vectors and on rational kernels.

:class:`LinearDCDSVC` is Algorithm 3 of the survey (the linear L1-loss SVM dual: RationalSVC
on :class:`~ratkit.automata.kernels.LinearKernel`); :class:`RationalSVC` is Algorithm 4 (the
same solver on a rational kernel T ∘ T⁻¹, with W′ = Σ α_i y_i Φ′_i kept as a trie, a minimal
automaton, a naive ε-union or kernel rows:
:mod:`ratkit.learners.wprime`). Both are scikit-learn classifiers and ``learner`` plugins
(``linear-dcd``, ``rational-svc``). :class:`KernelLearner` learns the weights of a
count-based rational kernel by the QP of §VI (plugin ``kernel-learner``).

Inside, the layers are strict: :mod:`~ratkit.learners.svm` (the estimators) uses
:mod:`~ratkit.learners.wprime` (the representations of W′ and how a learner sees a kernel,
:mod:`~ratkit.learners.wprime.kernel_view`), which uses :mod:`~ratkit.learners.dcd` (the
solver, its compiled passes, the rows they read and the active Gram cache); never the reverse.

A fitted learner is written by ``model.save(path)`` and read back by
:func:`ratkit.load_model`; :class:`PersistenceMixin` gives any estimator registered as a
``learner`` plugin the same.
"""

from ratkit.learners.dcd import DualResult, dual_objective, primal_objective, solve
from ratkit.learners.kernel_learner import (
    KernelLearner,
    KernelQPResult,
    most_frequent_patterns,
    pattern_counts,
    solve_kernel_qp,
)
from ratkit.learners.svm import LinearDCDSVC, RationalSVC
from ratkit.persistence import PersistenceMixin, load_model, save_model

__all__ = [
    "LinearDCDSVC",
    "RationalSVC",
    "KernelLearner",
    "KernelQPResult",
    "solve_kernel_qp",
    "most_frequent_patterns",
    "pattern_counts",
    "PersistenceMixin",
    "save_model",
    "load_model",
    "DualResult",
    "solve",
    "primal_objective",
    "dual_objective",
]
