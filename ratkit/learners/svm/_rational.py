"""RationalSVC: SVMs on rational kernels by dual coordinate descent (Algorithm 4).

References
----------
A. Ghose, *Rational kernels: a survey*, §V-B eq. (45)–(54), Algorithm 4, Tables II–III.
C. Allauzen, C. Cortes, M. Mohri, "Large-scale training of SVMs with automata kernels",
CIAA 2010.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import validate_data

from ratkit.automata.kernels import FeatureMap, Kernel
from ratkit.automata.kernels._features import inverse_norms, row_sq_norms
from ratkit.automata.kernels.base import as_collection
from ratkit.exceptions import NotPDSKernelError, TrainingDataError
from ratkit.learners.dcd._epochs import epoch_automaton
from ratkit.learners.svm import _kernel_view as view
from ratkit.learners.svm._base import DualSVCBase, check_positive
from ratkit.learners.svm._linear import csr_arrays
from ratkit.learners.wprime._automaton import PatternAutomaton, wprime_sizes
from ratkit.learners.wprime._indexed_rows import IndexedRows
from ratkit.learners.wprime._kernel_rows import KernelRows, epoch_rows
from ratkit.learners.wprime._naive import NaiveUnion, dot_native, naive_epoch
from ratkit.learners.wprime._patterns import code_labels, sorted_lcp
from ratkit.learners.wprime._trie import PatternTrie
from ratkit.plugins import register

__all__ = ["RationalSVC", "Representation"]

log = logging.getLogger(__name__)

Representation = Literal["trie", "automaton", "naive"]
_REPRESENTATIONS = ("trie", "automaton", "naive")


@dataclass
class _Run:
    """The solver settings of one fit and when it started."""

    C: float
    tol: float
    max_iter: int
    rng: np.random.RandomState
    t0: float


@register("learner", "rational-svc")
class RationalSVC(DualSVCBase):
    """SVM with a rational kernel K = T ∘ T⁻¹: the dual (36) by coordinate descent on W′.

    Algorithm 4: with Φ′_i = Π2(X_i ∘ T) computed once per training sequence and
    W′ = Σ_i α_i y_i Φ′_i kept up to date (eq. (53)), the gradient of coordinate i is
    y_i D(Φ′_i ⋄ W′) − 1 (eq. (54)); the step and the stopping rule are those of
    Algorithm 3 (see :class:`~ratkit.learners.LinearDCDSVC`).

    Parameters
    ----------
    kernel
        A ratkit kernel (e.g. ``kernels.ngram(5)`` or ``kernels.cosine(kernels.ngram(5))``),
        a kernel spec (dict, JSON string or .toml/.json path, see
        :func:`ratkit.automata.kernels.from_spec`), ``"linear"`` (X is a numeric matrix
        whose rows are the feature vectors Φ′_i themselves), or a callable
        ``K(X, Y) -> ndarray``. None means ``kernels.ngram(3)``.
    C
        Penalty of the hinge losses, > 0.
    representation
        How W′ is held (Table II): ``"trie"`` — a weighted trie over the patterns,
        looked up once (indexed features), O(n(Φ′_i)) per gradient and update; the
        weights of patterns that only one Φ′_i has are kept implicitly as α_i y_i Φ′_i
        (see :mod:`ratkit.learners.wprime._indexed_rows`);
        ``"automaton"`` — the minimal deterministic automaton of the patterns with
        numbered paths, each gradient an intersection Φ′_i ⋄ W′
        (:mod:`ratkit.learners.wprime._automaton`); ``"naive"`` — the ε-union of the feature
        automata with one weight each, gradients by OpenFst intersection
        (:mod:`ratkit.learners.wprime._naive`). Kernels without a finite feature map (for
        ``"trie"``/``"automaton"``) or without a factor T (for ``"naive"``) fall back to
        kernel rows with a cache; ``representation_`` says what was used.
    fit_intercept
        Learn a bias by augmentation: K ← K + s², i.e. the empty pattern ε with feature
        value s in every Φ′_i (the root of the trie, the final weight of the automaton's
        start state). Algorithm 4 has no bias, hence the default False.
    intercept_scaling
        s, > 0.
    tol, max_iter, shrinking, random_state
        Stopping tolerance on max ∇^P − min ∇^P over a pass, the largest number of
        passes, whether coordinates stuck at a bound are skipped between checks of the
        stopping rule, and the seed of the coordinate permutations (as in LinearDCDSVC).
    cache_size
        Megabytes for kernel rows, > 0: in the fallback, the kernel matrix (whole when it
        fits); with ``"trie"``, the inner products among the active coordinates once
        shrinking has left few of them, when building them pays for itself (the same
        steps, cheaper; :mod:`ratkit.learners.dcd._active_gram`).
    n_jobs
        Processes for feature extraction and kernel matrices (joblib convention).
    show_progress
        Progress bars for feature extraction and passes.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    alpha_ : ndarray of shape (n_problems, n_samples)
        Dual variables in training order, 0 ≤ α ≤ C; one row per binary problem (one
        for two classes, one per class for one-vs-rest).
    n_iter_ : int
        The largest number of passes over the problems.
    converged_ : bool
    representation_ : str
        ``"trie"``, ``"automaton"``, ``"naive"`` or ``"rows"`` (the fallback).
    kernel_ : the resolved kernel: a clone of ``kernel`` (or the kernel its spec describes),
        holding what it learned from the training data (e.g. an inferred alphabet).
    feature_map_ : FeatureMap or None
        The vocabulary of patterns (trie and automaton representations).
    coef_ : ndarray of shape (n_problems, n_features) or None
        W′ on the vocabulary (trie and automaton representations).
    support_ : ndarray of int, support_vectors_ : list, dual_coef_ : ndarray
        Training sequences with α > 0 in some problem and their α_i y_i (naive and
        rows: the model is the kernel expansion Σ α_i y_i K(x_i, ·)).
    intercept_ : ndarray of shape (n_problems,)
    wprime_size_ : dict
        States and transitions of the structure W′ was trained on.
    fit_time_ : dict
        Seconds spent on features (or automata, or kernel rows) and on the solver.

    Notes
    -----
    Signed weights (y_i = −1) cannot be OpenFst probability weights. ``"trie"`` and
    ``"automaton"`` keep them in float64 arrays outside OpenFst; ``"naive"`` splits W′
    into W′₊ and W′₋ (the components of each class, weights α_j ≥ 0) and subtracts the
    two totals in float64.

    At predict time, patterns that never occurred in training (for instance any pattern
    holding a symbol unseen in training) have weight 0 in W′, which is exact: they add
    nothing to ⟨Φ′_x, W′⟩. They do count in the norm of a cosine-normalised kernel.
    Kernels with a declared alphabet refuse unknown symbols (UnknownSymbolError).

    A kernel flagged non-PDS (``is_pds is False``) is refused: the dual is then not convex.
    A kernel whose PDS-ness is unknown (``is_pds is None``, e.g. ``exp_kernel``) is
    accepted; if it is not PDS the solver stops at a stationary point.

    References
    ----------
    A. Ghose, *Rational kernels: a survey*, §V-B eq. (45)–(54), Algorithm 4, Table II.
    C. Allauzen, C. Cortes, M. Mohri, CIAA 2010.

    Examples
    --------
    >>> from ratkit.automata import kernels
    >>> from ratkit.learners import RationalSVC
    >>> X = ["abab", "abba", "baba", "bbbb", "aaaa", "abaa"]
    >>> y = [1, 1, 1, 0, 0, 0]
    >>> m = RationalSVC(kernels.ngram(2), C=10.0, random_state=0).fit(X, y)
    >>> m.predict(["abab", "bbbb"]).tolist()
    [1, 0]
    """

    def __init__(
        self,
        kernel: Any = None,
        C: float = 1.0,
        *,
        representation: Representation = "trie",
        fit_intercept: bool = False,
        intercept_scaling: float = 1.0,
        tol: float = 1e-3,
        max_iter: int = 1000,
        shrinking: bool = True,
        random_state: Any = None,
        cache_size: float = 200.0,
        n_jobs: int | None = None,
        show_progress: bool = False,
    ) -> None:
        self.kernel = kernel
        self.C = C
        self.representation = representation
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.tol = tol
        self.max_iter = max_iter
        self.shrinking = shrinking
        self.random_state = random_state
        self.cache_size = cache_size
        self.n_jobs = n_jobs
        self.show_progress = show_progress

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.kernel == "linear"
        tags.input_tags.string = self.kernel != "linear"
        tags.input_tags.two_d_array = self.kernel == "linear"
        return tags

    # -- parameters and inputs ----------------------------------------------------------
    def _resolve_kernel(self) -> Any:
        k = self.kernel
        if k is None:
            from ratkit.automata.kernels import ngram

            return ngram(3)
        if isinstance(k, str) and k == "linear":
            return "linear"
        if isinstance(k, (dict, str)) or hasattr(k, "__fspath__"):
            from ratkit.automata.kernels import from_spec

            return from_spec(k)
        if isinstance(k, Kernel):
            # fitting never writes to the user's kernel (caches, an inferred alphabet), and a
            # later set_params on it cannot change the fitted model
            return clone(k)
        if callable(k):
            return k
        raise ValueError(
            "The 'kernel' parameter of RationalSVC must be a ratkit kernel, a kernel spec (dict, "
            f"JSON string or file), 'linear' or a callable K(X, Y). Got {k!r} instead."
        )

    def _inputs(self, X: Any, kernel: Any, reset: bool) -> Any:
        if kernel == "linear":
            return validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=reset)
        X = as_collection(X, "X")
        if not X and reset:
            raise TrainingDataError("RationalSVC got an empty training set; give at least two sequences.")
        return X

    # -- training ----------------------------------------------------------------------
    def fit(self, X: Any, y: Any) -> RationalSVC:
        """Train one dual per binary problem on sequences X (or a matrix for ``"linear"``).

        A fit that raises leaves the estimator unfitted (no half-set attributes).
        """
        with self._fitting():
            return self._fit(X, y)

    def _fit(self, X: Any, y: Any) -> RationalSVC:
        C, tol, max_iter = self._check_solver_params()
        if self.representation not in _REPRESENTATIONS:
            raise ValueError(
                "The 'representation' parameter of RationalSVC must be one of 'trie', 'automaton', "
                f"'naive'. Got {self.representation!r} instead."
            )
        scale = check_positive(self.intercept_scaling, "intercept_scaling", "RationalSVC")
        kernel = self._resolve_kernel()
        if view.is_pds(kernel) is False:
            raise NotPDSKernelError(
                f"RationalSVC needs a positive definite symmetric kernel; {type(kernel).__name__} "
                "is "
                "flagged non-PDS (is_pds is False), so the dual is not convex. Use a PDS kernel, "
                "e.g. a T∘T⁻¹ family, or exp_kernel(k, t) of a negative definite k."
            )
        if self.representation == "naive" and kernel == "linear":
            raise ValueError(
                "representation='naive' builds W′ from OpenFst feature automata, which a numeric "
                "'linear' kernel does not have; use representation='trie' or 'automaton'."
            )
        X = self._inputs(X, kernel, reset=True)
        n = X.shape[0] if kernel == "linear" else len(X)
        Y = self._encode_targets(y, n)
        self.kernel_ = kernel
        self.shift_ = scale**2 if self.fit_intercept else 0.0
        self.feature_map_ = self.coef_ = None
        self.support_ = self.support_vectors_ = self.dual_coef_ = None
        run = _Run(C, tol, max_iter, check_random_state(self.random_state), time.perf_counter())
        if self.representation in ("trie", "automaton"):
            if kernel == "linear":
                feats = None, sp.csr_matrix(X)
            else:
                feats = view.explicit_features(kernel, X, self.n_jobs, self.show_progress)
            if feats is not None:
                return self._fit_primal(*feats, Y, run, scale)
            log.info("%s has no finite feature map: training on kernel rows", type(kernel).__name__)
        elif self.representation == "naive":
            automata = view.feature_automata(kernel, X)
            if automata is not None:
                return self._fit_naive(X, *automata, Y, run)
            log.info("%s is not of the form T∘T⁻¹: training on kernel rows", type(kernel).__name__)
        return self._fit_rows(X, kernel, Y, run)

    def _fit_primal(
        self,
        fmap: FeatureMap | None,
        F: sp.csr_matrix,
        Y: np.ndarray,
        run: _Run,
        scale: float,
    ) -> RationalSVC:
        n, p = F.shape
        if fmap is None:  # "linear": feature j is the one-symbol pattern j + 1
            codes, base = np.arange(1, p + 1, dtype=np.int64), p + 1
        else:
            codes, base = np.asarray(fmap.codes, dtype=np.int64), len(fmap.symbols) + 1
        if self.fit_intercept and codes.size and codes[0] == 0:
            raise ValueError(
                "fit_intercept=True adds the empty pattern ε to every Φ′_i, but this kernel's "
                "features already contain ε; use fit_intercept=False."
            )
        bias = scale if self.fit_intercept else 0.0  # the weight of ε in every Φ′_i
        indptr, cols, data = csr_arrays(F)
        patterns = np.concatenate([[0], codes]) if self.fit_intercept else codes
        if self.representation == "trie":
            states = PatternTrie.count_states(patterns, base)
            self.wprime_size_ = {"trie_states": states, "trie_arcs": states - 1}
            rows = IndexedRows.from_csr(indptr, cols, data, p, bias)
            t1 = time.perf_counter()
            self._fit_indexed(rows, Y, run.C, run.tol, run.max_iter, run.rng, scale)
        else:
            qinv = self._inverse_diagonal(row_sq_norms(F) + bias**2)
            if self.fit_intercept:
                F = sp.hstack([sp.csr_matrix(np.full((n, 1), scale)), F], format="csr")
                indptr, cols, data = csr_arrays(F)
            trie = PatternTrie.from_codes(patterns, base)
            self.wprime_size_ = {"trie_states": trie.n_states, "trie_arcs": trie.n_arcs}
            aut = PatternAutomaton.from_trie(trie)
            self.wprime_size_.update(automaton_states=aut.n_states, automaton_arcs=aut.n_arcs)
            vlab, vlen = code_labels(patterns, base)  # the pattern of every column of F
            lcp = sorted_lcp(indptr, cols, vlab)
            position = aut.slots(vlab, vlen)
            alphas, weights = np.zeros(Y.shape), np.zeros((Y.shape[0], aut.n_paths))
            width = vlab.shape[1] + 1
            st_state, st_slot = np.zeros(width, np.int64), np.zeros(width, np.int64)
            slots = np.zeros(max(int(np.diff(indptr).max(initial=0)), 1), np.int64)

            phi = (indptr, cols, data, lcp, vlab, vlen)
            scratch = (st_state, st_slot, slots)

            def make_epoch(c, yb):
                return lambda act, size, hi, lo: epoch_automaton(
                    act, size, hi, lo, phi, aut.arrays, scratch, yb, qinv, run.C, alphas[c], weights[c]
                )

            t1 = time.perf_counter()
            self._solve_problems(Y, make_epoch, run.tol, run.max_iter, run.rng)
            W = weights[:, position]
            self.alpha_ = alphas
            self.intercept_ = W[:, 0] * scale if self.fit_intercept else np.zeros(Y.shape[0])
            self.coef_ = W[:, 1:] if self.fit_intercept else W
        self.feature_map_ = fmap
        self.representation_ = self.representation
        self.fit_time_ = {"features": t1 - run.t0, "solver": time.perf_counter() - t1}
        return self

    def _fit_naive(
        self,
        X: list,
        phis: list,
        cosine: bool,
        Y: np.ndarray,
        run: _Run,
    ) -> RationalSVC:
        # K(x_i, x_i) = D(Φ′_i ⋄ Φ′_i)
        raw = view.check_finite([dot_native(f, f) for f in phis], self.kernel_, "kernel values K(x, x)")
        c = inverse_norms(raw) if cosine else np.ones(len(phis))
        shift = self.shift_
        qinv = self._inverse_diagonal(raw * c * c + shift)
        t1 = time.perf_counter()
        alphas = np.zeros(Y.shape)
        sizes = []

        def make_epoch(k: int, yb: np.ndarray):
            union = NaiveUnion(phis, yb)
            sizes.append(union.n_states)
            return naive_epoch(union, phis, yb, c, shift, qinv, run.C, alphas[k])

        self._solve_problems(Y, make_epoch, run.tol, run.max_iter, run.rng)
        self.wprime_size_ = {"naive_states": int(max(sizes))}
        self._set_dual(X, alphas, Y)
        self.representation_ = "naive"
        self.fit_time_ = {"automata": t1 - run.t0, "solver": time.perf_counter() - t1}
        return self

    def _fit_rows(
        self,
        X: Any,
        kernel: Any,
        Y: np.ndarray,
        run: _Run,
    ) -> RationalSVC:
        rows_fn, full_fn, diag_fn = view.gram_function(kernel, X, self.n_jobs, self.show_progress)
        n = Y.shape[1]
        rows = KernelRows(rows_fn, full_fn, diag_fn, n, self.cache_size, self.shift_)
        qinv = self._inverse_diagonal(rows.diag)
        t1 = time.perf_counter()
        alphas = np.zeros(Y.shape)

        def make_epoch(k: int, yb: np.ndarray):
            grad = -np.ones(n)
            return lambda act, size, hi, lo: epoch_rows(act, size, hi, lo, rows, yb, qinv, run.C, alphas[k], grad)

        self._solve_problems(Y, make_epoch, run.tol, run.max_iter, run.rng)
        self.wprime_size_ = {}
        self._set_dual(X, alphas, Y)
        self.representation_ = "rows"
        self.fit_time_ = {"kernel": t1 - run.t0, "solver": time.perf_counter() - t1}
        return self

    def _set_dual(self, X: Any, alphas: np.ndarray, Y: np.ndarray) -> None:
        self.alpha_ = alphas
        beta = alphas * Y
        support = np.flatnonzero((alphas > 0).any(axis=0))
        self.support_ = support
        self.support_vectors_ = X[support] if self.kernel_ == "linear" else [X[i] for i in support]
        self.dual_coef_ = beta[:, support]
        self.intercept_ = self.shift_ * beta.sum(axis=1)

    def _problem_name(self) -> str:
        return f"RationalSVC on {view.describe(self.kernel_)}"

    # -- prediction --------------------------------------------------------------------
    def _scores(self, X: Any) -> np.ndarray:
        kernel = self.kernel_
        X = self._inputs(X, kernel, reset=False)
        if self.coef_ is not None:
            if kernel == "linear":
                F = X
            else:
                F = view.transform_features(kernel, self.feature_map_, X, self.n_jobs)
            return np.asarray(F @ self.coef_.T) + self.intercept_
        if kernel == "linear":
            K = np.asarray(X @ self.support_vectors_.T)
            K = K.toarray() if sp.issparse(K) else K
        elif isinstance(kernel, Kernel):
            K = kernel.gram(X, self.support_vectors_) if len(self.support_vectors_) else np.zeros((len(X), 0))
        else:
            K = np.asarray(kernel(X, self.support_vectors_), dtype=np.float64)
        return K @ self.dual_coef_.T + self.intercept_

    # -- sizes of W′ (Table III) ---------------------------------------------------------
    def wprime_sizes(self, problem: int = 0) -> dict[str, int]:
        """Sizes of the final W′ of one binary problem as a trie and as a minimal automaton.

        W′ holds the patterns of non-zero weight. ``trie_*`` count the weighted trie;
        ``minimal_*`` the minimal deterministic weighted automaton over the reals
        (:func:`~ratkit.learners.wprime._automaton.minimal_weighted_size`); ``*_size`` is
        states + transitions (Table III's |W′|). Needs the trie or automaton representation.
        """
        self._check_fitted()
        if self.coef_ is None:
            raise ValueError(
                f"wprime_sizes needs W′ on explicit patterns; this model was trained with "
                f"representation {self.representation_!r}. Use representation='trie' or "
                "'automaton'."
            )
        fmap = self.feature_map_
        if fmap is None:
            codes, base = np.arange(1, self.coef_.shape[1] + 1), self.coef_.shape[1] + 1
        else:
            codes, base = fmap.codes, len(fmap.symbols) + 1
        return wprime_sizes(np.asarray(codes, dtype=np.int64), base, self.coef_[problem])
