"""KernelLearner: the weights of a count-based rational kernel learned by the QP (63).

The learned kernel is the count transducer T of the same patterns with the weight
w_k = √μ_k on the first arc of pattern k, so that K(x, y) = ⟦T ∘ T⁻¹⟧(x, y) =
Σ_k μ_k |x|_k |y|_k (eq. (55)–(56)): a :class:`~ratkit.automata.kernels.CountBasedKernel`,
usable wherever a kernel is (Gram matrices, ``RationalSVC``, specs).

References
----------
A. Ghose, *Rational kernels: a survey*, §VI eq. (55)–(67).
C. Cortes, M. Mohri, A. Rostamizadeh, "Learning sequence kernels", MLSP 2008.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, clone

from ratkit._validation import check_int
from ratkit.automata.kernels import CountBasedKernel, Kernel, count_based, from_spec
from ratkit.automata.kernels.inputs import as_collection
from ratkit.exceptions import TrainingDataError, UnsupportedKernelError
from ratkit.fitted import Array, Fitted, Instance, Int, Real, Sequences, Text
from ratkit.learners.kernel_learner._patterns import most_frequent_patterns, pattern_counts
from ratkit.learners.kernel_learner._qp import KernelQPResult, check_labels, solve_kernel_qp
from ratkit.persistence import PersistenceMixin
from ratkit.plugins import register

__all__ = ["KernelLearner", "as_count_based"]

log = logging.getLogger(__name__)

_OPTIONS = ("strategy", "n_jobs", "show_progress")


def as_count_based(kernel: Any, owner: str = "KernelLearner") -> CountBasedKernel:
    """``kernel`` (a kernel or a spec) as a count-based kernel, or a clear error."""
    if isinstance(kernel, (Mapping, str)) or hasattr(kernel, "__fspath__"):
        kernel = from_spec(kernel)
    if isinstance(kernel, CountBasedKernel):
        return kernel
    what = type(kernel).__name__ if isinstance(kernel, Kernel) else repr(kernel)
    raise UnsupportedKernelError(
        f"{owner} learns the weights of a count-based kernel (K(x, y) = Σ_k w_k² |x|_k |y|_k "
        f"over fixed patterns); got {what}. Pass count_based(patterns) or a spec "
        "{'family': 'count-based', 'patterns': [...]}, e.g. the most frequent bigrams: "
        "count_based(most_frequent_patterns(X, n=2, p=1000)); or leave kernel=None."
    )


def _kernel_of_patterns(model: KernelLearner) -> str | None:
    """The learned kernel counts the patterns ``patterns_`` lists, in that order."""
    if [tuple(p) for p in model.kernel_.pattern_tuples()] != [tuple(p) for p in model.patterns_]:
        return "kernel_ counts other patterns than patterns_ lists"
    return None


@register("learner", "kernel-learner", aliases=("kernel-qp",))
class KernelLearner(PersistenceMixin, BaseEstimator):
    """K = Σ_k μ_k X_k X_kᵀ, μ = argmin_{μ ∈ M} max_{α ∈ A} 2αᵀ1 − Σ_k μ_k (αᵀY X_k)².

    Solves the min-max problem (59) — the SVM dual (57) minimised over the kernels
    K_μ = Σ_k μ_k X_k X_kᵀ with μ ≥ 0 and trace Σ_k μ_k ‖X_k‖² = Λ — through its QP
    form (63) with cvxpy, and reads μ off the multipliers of −t ≤ αᵀu′_k ≤ t (see
    :mod:`ratkit.learners.kernel_learner._qp`).

    Parameters
    ----------
    kernel
        The count-based kernel whose pattern weights are learned: a
        :class:`~ratkit.automata.kernels.CountBasedKernel` or its spec (its own weights
        are ignored; its Gram options are kept). None: ``count_based`` over the
        ``n_patterns`` most frequent ``ngram_length``-grams of the training sequences.
    C
        The SVM box 0 ≤ α ≤ C, > 0.
    trace
        Λ > 0, the trace of the learned kernel matrix on the training sequences. None:
        the trace of the uniform kernel on the same patterns, Σ_k ‖X_k‖².
    solver
        A cvxpy solver installed with cvxpy: ``"CLARABEL"`` (default, interior point),
        ``"OSQP"``, ``"SCS"`` or ``"HIGHS"``.
    solver_options
        Keyword arguments for the solver (e.g. ``{"max_iter": 500}``).
    ngram_length, n_patterns
        The patterns when ``kernel`` is None.

    Attributes
    ----------
    kernel_ : CountBasedKernel
        The learned kernel: the same patterns with weights w_k = √μ_k.
    weights_ : ndarray of shape (n_patterns,)
        μ, in the order of ``patterns_``.
    patterns_ : list of tuple of str
    alpha_ : ndarray of shape (n_samples,)
        The optimal α of (63) — an SVM dual solution for ``kernel_`` with box C.
    t_ : float
        max_k ``|αᵀu′_k|`` at the optimum.
    objective_ : float
        The optimal value of (63), −2αᵀ1 + Λt² (= −f(μ, α) of (57)).
    trace_ : float
        Λ.
    status_, solver_ : str
        cvxpy's status and the solver used.
    solve_time_ : float
        Seconds spent building and solving the QP.
    n_iter_ : int or None
        Solver iterations.
    upper_, lower_ : ndarray of shape (n_patterns,)
        The multipliers β′ of αᵀu′_k ≤ t and β of −αᵀu′_k ≤ t, as the solver returned them.
    result_ : KernelQPResult
        Everything above as one record (derived from the attributes above).

    Notes
    -----
    ``fit`` works on a clone of ``kernel``: the object passed is never written to. A fitted
    learner is saved by ``save(path)`` and read back by :func:`ratkit.load_model`.

    References
    ----------
    A. Ghose, *Rational kernels: a survey*, §VI eq. (59), (63), (67).

    Examples
    --------
    >>> import numpy as np
    >>> X, y = ["abab", "abba", "baba", "bbaa"], np.array([1, 1, -1, -1])
    >>> learner = KernelLearner(C=1.0).fit(X, y)
    >>> learner.kernel_.gram(["ab", "ba"]).shape
    (2, 2)
    """

    #: What ``fit`` sets (:mod:`ratkit.fitted`): one weight μ_k ≥ 0 and two multipliers per
    #: pattern, one α per training sequence.
    _fitted_schema: ClassVar[Fitted] = Fitted(
        kernel_=Instance((CountBasedKernel,), "a count-based kernel"),
        weights_=Array("f", ("n_patterns",), low=0.0),
        patterns_=Sequences("n_patterns"),
        alpha_=Array("f", ("n_samples",)),
        t_=Real(),
        objective_=Real(),
        trace_=Real(low=0.0),
        upper_=Array("f", ("n_patterns",)),
        lower_=Array("f", ("n_patterns",)),
        status_=Text(),
        solver_=Text(),
        solve_time_=Real(low=0.0, optional=True),
        n_iter_=Int(low=0, nullable=True, optional=True),
        rules=(_kernel_of_patterns,),
    )
    _fitted_attributes: ClassVar[tuple[str, ...]] = _fitted_schema.required

    def __init__(
        self,
        kernel: CountBasedKernel | Mapping[str, Any] | str | None = None,
        *,
        C: float = 1.0,
        trace: float | None = None,
        solver: str = "CLARABEL",
        solver_options: Mapping[str, Any] | None = None,
        ngram_length: int = 2,
        n_patterns: int = 1000,
    ) -> None:
        self.kernel = kernel
        self.C = C
        self.trace = trace
        self.solver = solver
        self.solver_options = solver_options
        self.ngram_length = ngram_length
        self.n_patterns = n_patterns

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags

    def fit(self, X: Any, y: Any) -> KernelLearner:
        """Learn μ on training sequences X (strings or token tuples) with labels y ∈ {−1, +1}."""
        owner = type(self).__name__
        ngram_length = check_int(self.ngram_length, "ngram_length", owner, low=1)
        n_patterns = check_int(self.n_patterns, "n_patterns", owner, low=1)
        sequences = as_collection(X)
        if not sequences:
            raise TrainingDataError(f"{owner}: X holds no sequences; kernel learning needs training data.")
        y = check_labels(y, len(sequences), owner)
        if self.kernel is None:
            found = most_frequent_patterns(sequences, ngram_length, n_patterns)
            if not found:
                raise TrainingDataError(
                    f"{owner}: no {self.ngram_length}-gram occurs in X (every sequence is shorter than "
                    f"{self.ngram_length}); lower ngram_length or pass kernel=count_based(patterns)."
                )
            base = count_based(found)
        else:
            base = clone(as_count_based(self.kernel, owner))  # never write to the kernel passed in
        patterns = base.pattern_tuples()
        counts = pattern_counts(patterns, sequences)
        result = solve_kernel_qp(
            counts,
            y,
            C=self.C,
            trace=self.trace,
            solver=self.solver,
            solver_options=self.solver_options,
            names=patterns,
            owner=owner,
        )
        self._set_result(base, patterns, result)
        return self

    def _set_result(self, base: CountBasedKernel, patterns: list[tuple[str, ...]], result: KernelQPResult) -> None:
        options = {k: getattr(base, k) for k in _OPTIONS}
        self.kernel_ = count_based(patterns, np.sqrt(result.mu), **options)
        self.weights_ = result.mu
        self.patterns_ = patterns
        self.alpha_ = result.alpha
        self.t_ = result.t
        self.objective_ = result.objective
        self.trace_ = result.trace
        self.status_ = result.status
        self.solver_ = result.solver
        self.solve_time_ = result.solve_time
        self.n_iter_ = result.n_iter
        self.upper_ = result.upper
        self.lower_ = result.lower

    @property
    def result_(self) -> KernelQPResult:
        """The solution of (63) as one record (built from the fitted attributes)."""
        return KernelQPResult(
            mu=self.weights_,
            alpha=self.alpha_,
            t=self.t_,
            objective=self.objective_,
            upper=self.upper_,
            lower=self.lower_,
            trace=self.trace_,
            status=self.status_,
            solver=self.solver_,
            solve_time=self.solve_time_,
            n_iter=self.n_iter_,
        )
