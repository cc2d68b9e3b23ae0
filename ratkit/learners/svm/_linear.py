"""LinearDCDSVC: the L1-loss linear SVM dual solved by dual coordinate descent (Algorithm 3).

References
----------
A. Ghose, *Rational kernels: a survey*, §V-A eq. (35)–(44), Algorithm 3.
C.-J. Hsieh et al., "A dual coordinate descent method for large-scale linear SVM", ICML 2008.
"""

from __future__ import annotations

from typing import Any, ClassVar, cast

import numpy as np

from ratkit.automata.kernels import LinearKernel
from ratkit.fitted import Array, Fitted, Int
from ratkit.learners.svm._base import DualSVCBase
from ratkit.learners.svm._rational import RationalSVC
from ratkit.plugins import register

__all__ = ["LinearDCDSVC"]


@register("learner", "linear-dcd")
class LinearDCDSVC(RationalSVC):
    """Linear SVM min_w ½‖w‖² + C Σ max(0, 1 − y_i wᵀx_i) by dual coordinate descent.

    :class:`RationalSVC` with the kernel fixed to :class:`~ratkit.automata.kernels.LinearKernel`
    and W′ = w held as the ``"trie"`` representation (indexed rows of X), with LIBLINEAR's
    default of an intercept. Solves the dual min_α ½αᵀQα − eᵀα, 0 ≤ α_i ≤ C,
    Q_ij = y_i y_j x_iᵀx_j (eq. (36)) one
    coordinate at a time (Algorithm 3): the gradient y_i wᵀx_i − 1 (eq. (43)) is read
    from w = Σ α_i y_i x_i, which each step updates in O(nnz(x_i)) (eq. (44)). Each
    outer iteration visits the coordinates in a fresh random permutation; the run stops
    when the projected gradients of a pass span at most ``tol``.

    Parameters
    ----------
    C
        Penalty of the hinge losses, > 0.
    fit_intercept
        Learn a bias b by feature augmentation: x ← [x, s], w ← [w, b/s] with s =
        ``intercept_scaling`` (the bias is regularised, as in LIBLINEAR).
    intercept_scaling
        The constant s appended to every sample, > 0.
    tol
        Stopping tolerance on max ∇^P f − min ∇^P f over one pass, > 0.
    max_iter
        Largest number of passes; stopping there warns (ConvergenceWarning).
    shrinking
        Skip the coordinates stuck at a bound between checks of the stopping rule
        (Hsieh et al. 2008, §3.2, as LIBLINEAR does); False runs plain Algorithm 3.
    random_state
        Seed or RandomState of the coordinate permutations.
    cache_size
        Megabytes for the inner products among the active samples, > 0. Once shrinking has
        left few samples active, the passes read x_iᵀx_j from a float32 matrix instead of
        updating w (the same steps, cheaper), when building it pays for itself
        (:mod:`ratkit.learners.dcd.active_gram`).
    show_progress
        Show a progress bar per binary problem counting the passes, with the current gap
        max ∇^P − min ∇^P against ``tol`` (off by default).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    alpha_ : ndarray of shape (n_problems, n_samples)
        Dual variables in training order, 0 ≤ α ≤ C; one row per binary problem (one
        for two classes, one per class for one-vs-rest).
    coef_ : ndarray of shape (n_problems, n_features)
        w = Σ_i α_i y_i x_i of each problem.
    intercept_ : ndarray of shape (n_problems,)
    n_iter_ : int
        The largest number of passes over the problems.
    converged_ : bool
        Whether every problem met the stopping rule.
    convergence_ : dict
        The run pass by pass: ``"dual_objective"`` (f(α) = ½αᵀQα − eᵀα after each pass,
        summed over the binary problems; non-increasing, as DCD minimises f),
        ``"pg_gap"`` (max ∇^P − min ∇^P of each pass, the largest over the problems: what
        the stopping rule compares with ``tol``), ``"tol"``, and ``"problems"`` (each
        problem's own lists). Both lists have ``n_iter_`` entries;
        :func:`ratkit.plots.plot_dcd_convergence` draws them.
    n_features_in_ : int

    Notes
    -----
    A sample whose feature vector is zero (with ``fit_intercept=False``) has Q_ii = 0:
    its gradient is always −1 and its α goes straight to C (§V-A). The compiled loop
    needs numba; without it the same code runs in Python, far slower
    (measured: see bench/RESULTS.md, section 'Figures moved out of the code (issue 36)').

    A feature only one sample has is not stored in w while training: its weight is
    α_i y_i x_ij throughout, so its share of the gradient is α_i Σ_j x_ij², and it is
    written into ``coef_`` at the end (:mod:`ratkit.learners.dcd.rows`). The steps
    are those of Algorithm 3.

    References
    ----------
    A. Ghose, *Rational kernels: a survey*, §V-A eq. (36)–(44), Algorithm 3.
    C.-J. Hsieh et al., ICML 2008.

    Examples
    --------
    >>> import numpy as np
    >>> from ratkit.learners import LinearDCDSVC
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 2.0], [2.0, 0.0]])
    >>> LinearDCDSVC(random_state=0).fit(X, [0, 1, 0, 1]).predict([[0.0, 3.0], [3.0, 0.1]])
    array([0, 1])
    """

    #: The fitted state of a linear model, the form of its files: w as ``coef_`` on X's columns.
    _fitted_schema: ClassVar[Fitted] = DualSVCBase._fitted_schema.extend(
        n_features_in_=Int(low=1),
        coef_=Array("f", ("n_problems", "n_features_in_")),
    )
    _fitted_attributes: ClassVar[tuple[str, ...]] = _fitted_schema.required

    #: What RationalSVC reads and LinearDCDSVC fixes: the kernel (cloned by ``fit``), W′ on
    #: the indexed rows of X, no parallel feature extraction and no feature hashing (the
    #: inputs are the features).
    kernel: Any = LinearKernel()
    representation: Any = "trie"
    n_jobs: int | None = None
    n_features: int | None = None

    def __init__(
        self,
        C: float = 1.0,
        *,
        fit_intercept: bool = True,
        intercept_scaling: float = 1.0,
        tol: float = 1e-3,
        max_iter: int = 1000,
        shrinking: bool = True,
        random_state: Any = None,
        cache_size: float = 200.0,
        show_progress: bool = False,
    ) -> None:
        self.C = C
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.tol = tol
        self.max_iter = max_iter
        self.shrinking = shrinking
        self.random_state = random_state
        self.cache_size = cache_size
        self.show_progress = show_progress

    def fit(self, X: Any, y: Any) -> LinearDCDSVC:
        """Solve one dual per binary problem; X dense or sparse of shape (n_samples, n_features).

        A fit that raises leaves the estimator unfitted (no half-set attributes).
        """
        super().fit(X, y)
        # a linear model's state is w alone (coef_ on X's columns: the form of its files); what
        # RationalSVC records besides (the kernel, W′'s form and sizes, timings) is not kept
        for name in RationalSVC._fitted_schema.attributes.keys() - self._fitted_schema.attributes.keys():
            self.__dict__.pop(name, None)
        return self

    def _problem_name(self) -> str:
        return type(self).__name__

    def _check_restored(self) -> None:
        """A linear model's file holds w only: the kernel is the LinearKernel."""
        self.kernel_ = LinearKernel()

    def _scores(self, X: Any) -> np.ndarray:
        X = self._matrix(X, reset=False)
        coef = cast(np.ndarray, self.coef_)  # a fitted linear model always has w
        return np.asarray(X @ coef.T) + self.intercept_
