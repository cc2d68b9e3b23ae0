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
from collections.abc import Callable
from typing import Any, ClassVar, Literal, cast

import numpy as np
from sklearn.base import clone
from sklearn.utils import Tags

from ratkit._validation import check_int, check_real
from ratkit.automata.kernels import Kernel, LinearKernel, Vocabulary, VocabularyError
from ratkit.automata.kernels.inputs import as_collection
from ratkit.exceptions import (
    ModelFormatError,
    NotPDSKernelError,
    ParameterError,
    ParameterTypeError,
    RatkitError,
    TrainingDataError,
)
from ratkit.fitted import Array, Derived, Fitted, Instance, Int, Json, Real, Samples, Text
from ratkit.learners.svm import distributed, hashing
from ratkit.learners.svm._base import DualSVCBase
from ratkit.learners.wprime import TrainingSet, get_representation, wprime_sizes
from ratkit.learners.wprime import kernel_view as view
from ratkit.plugins import available, register

__all__ = ["RationalSVC", "Representation"]

log = logging.getLogger(__name__)

#: How many vocabulary patterns of non-zero weight a model file's kernel is checked against.
_VOCABULARY_SAMPLE = 32

#: The built-in representations; any name registered with
#: :func:`ratkit.learners.wprime.register_representation` is accepted too.
Representation = Literal["trie", "automaton", "naive", "rows"]


def _one_form(model: RationalSVC) -> str | None:
    """W′ on a vocabulary (``coef_``), or a kernel expansion (``dual_coef_`` on
    ``support_vectors_``), complete."""
    # a LinearKernel's W′ is on the columns of X; files written before it existed hold the string "linear"
    linear = view.reads_vectors(model.kernel_) or isinstance(model.kernel_, str)
    if model.coef_ is not None:
        if model.feature_map_ is None and not linear and getattr(model, "hashing_", None) is None:
            return "coef_ (W′ on a vocabulary) is set but feature_map_ is None, which a kernel model needs"
        if linear and getattr(model, "n_features_in_", None) is None:
            return "coef_ (W′ of the 'linear' kernel) is set but n_features_in_ is missing"
        return None
    missing = [k for k in ("dual_coef_", "support_", "support_vectors_") if getattr(model, k) is None]
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        return f"coef_ is None (a kernel expansion) but {', '.join(missing)} {verb} None"
    return None


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
        :func:`ratkit.automata.kernels.from_spec`), the name of a registered kernel family
        whose parameters all have defaults — ``"linear"`` is
        :class:`~ratkit.automata.kernels.LinearKernel` (X is a numeric matrix whose rows are
        the feature vectors Φ′_i themselves) —, or a callable ``K(X, Y) -> ndarray``. None
        means ``kernels.ngram(3)``.
    C
        Penalty of the hinge losses, > 0.
    representation
        How W′ is held (Table II): ``"trie"`` — a weighted trie over the patterns,
        looked up once (indexed features), O(n(Φ′_i)) per gradient and update; the
        weights of patterns that only one Φ′_i has are kept implicitly as α_i y_i Φ′_i
        (see :mod:`ratkit.learners.dcd.rows`);
        ``"automaton"`` — the minimal deterministic automaton of the patterns with
        numbered paths, each gradient an intersection Φ′_i ⋄ W′
        (:mod:`ratkit.learners.wprime._automaton`); ``"naive"`` — the ε-union of the feature
        automata with one weight each, gradients by OpenFst intersection
        (:mod:`ratkit.learners.wprime._naive`); ``"rows"`` — no W′, the gradient kept up to
        date from cached kernel rows (:mod:`ratkit.learners.wprime._kernel_rows`). Kernels
        without a finite feature map (for ``"trie"``/``"automaton"``) or without a factor T
        (for ``"naive"``) fall back to ``"rows"``; ``representation_`` says what was used.
        Any representation registered with
        :func:`~ratkit.learners.wprime.register_representation` is accepted.
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
        steps, cheaper; :mod:`ratkit.learners.dcd.active_gram`).
    n_jobs
        Processes for feature extraction and kernel matrices (joblib convention).
    show_progress
        Progress bars for feature extraction and for the passes (counting them, with the
        current gap max ∇^P − min ∇^P against ``tol``); off by default.
    n_features
        None (the default): the exact feature map on the vocabulary of the training patterns.
        An int ≥ 1: feature hashing — each pattern of the kernel goes to one of
        ``n_features`` buckets with a signed hash, as scikit-learn's ``HashingVectorizer``
        (:mod:`ratkit.learners.svm.hashing`), and the model is W′ on the buckets. There is no
        global vocabulary: a sequence's hashed vector depends on it alone. Needs a kernel with
        a finite feature map of patterns (n-gram, gappy, mismatch, count-based, their sums,
        scalings and cosine — the cosine of the *hashed* vectors); others are refused by name.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    alpha_ : ndarray of shape (n_problems, n_samples)
        Dual variables in training order, 0 ≤ α ≤ C; one row per binary problem (one
        for two classes, one per class for one-vs-rest).
    n_iter_ : int
        The largest number of passes over the problems.
    converged_ : bool
    convergence_ : dict
        The run pass by pass: ``"dual_objective"`` (f(α) = ½αᵀQα − eᵀα after each pass,
        summed over the binary problems; non-increasing, as DCD minimises f),
        ``"pg_gap"`` (max ∇^P − min ∇^P of each pass, the largest over the problems: what
        the stopping rule compares with ``tol``), ``"tol"``, and ``"problems"`` (each
        problem's own lists). Both lists have ``n_iter_`` entries;
        :func:`ratkit.plots.plot_dcd_convergence` draws them.
    representation_ : str
        ``"trie"``, ``"automaton"``, ``"naive"`` or ``"rows"`` (the fallback).
    kernel_ : the resolved kernel: a clone of ``kernel`` (or the kernel its spec describes),
        holding what it learned from the training data (e.g. an inferred alphabet).
    feature_map_ : FeatureMap or None
        The vocabulary of patterns (trie and automaton representations).
    coef_ : ndarray of shape (n_problems, n_features) or None
        W′ on the vocabulary (trie and automaton representations).
    support_ : ndarray of int
        Indices of the training sequences with α > 0 in some problem (naive and rows: the
        model is the kernel expansion Σ α_i y_i K(x_i, ·)).
    support_vectors_ : list
        Those training sequences.
    dual_coef_ : ndarray
        Their α_i y_i, one row per problem.
    intercept_ : ndarray of shape (n_problems,)
    wprime_size_ : dict
        States and transitions of the structure W′ was trained on.
    fit_time_ : dict
        Seconds spent on features (or automata, or kernel rows) and on the solver.
    hashing_ : dict
        With ``n_features`` only: ``{"scheme", "version", "n_features"}`` of the hashing the
        model was trained with (``coef_`` is then W′ on the buckets).

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

    #: What ``fit`` sets (:mod:`ratkit.fitted`): W′ as ``coef_`` on the columns of
    #: ``feature_map_`` (or of X for a LinearKernel), or the kernel expansion ``dual_coef_`` on
    #: ``support_vectors_``; a subclass inherits it.
    _fitted_schema: ClassVar[Fitted] = DualSVCBase._fitted_schema.extend(
        kernel_=Instance(
            (Kernel, cast(type, Callable)),  # collections.abc.Callable is a class at run time
            "a ratkit kernel or a callable K(X, Y)",
            values=("linear",),  # the LinearKernel as files written before it existed hold it
        ),
        shift_=Real(low=0.0),
        representation_=Text(),
        hashing_=Json(optional=True),
        n_features_in_=Int(low=1, optional=True),  # a kernel that reads vectors (LinearKernel) only
        feature_map_=Instance((Vocabulary,), "a vocabulary of patterns", nullable=True),
        coef_=Array("f", ("n_problems", "n_columns"), nullable=True),
        support_=Array("iu", ("n_support",), low=0, below="n_samples", unique=True, nullable=True),
        support_vectors_=Samples("n_support", nullable=True),
        dual_coef_=Array("f", ("n_problems", "n_support"), nullable=True),
        wprime_size_=Json(optional=True),
        fit_time_=Json(optional=True),
        dims={
            "n_columns": Derived(
                ("feature_map_", "n_features_in_"), lambda fmap, n: n if fmap is None else fmap.n_features
            )
        },
        rules=(_one_form,),
    )
    _fitted_attributes: ClassVar[tuple[str, ...]] = _fitted_schema.required
    hashing_: dict[str, Any]  # set by a fit with n_features only

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
        n_features: int | None = None,
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
        self.n_features = n_features

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        vectors = self._reads_vectors()
        tags.input_tags.sparse = vectors
        tags.input_tags.string = not vectors
        tags.input_tags.two_d_array = vectors
        return tags

    # -- parameters and inputs ----------------------------------------------------------
    def _reads_vectors(self) -> bool:
        """Whether ``kernel`` takes numeric feature vectors (a LinearKernel), for the tags:
        False when it cannot be resolved (``fit`` reports why)."""
        if isinstance(self.kernel, Kernel):
            return view.reads_vectors(self.kernel)  # no clone needed to ask its type
        try:
            return view.reads_vectors(self._resolve_kernel())
        except (RatkitError, TypeError, ValueError):
            return False

    def _resolve_kernel(self) -> Any:
        k = self.kernel
        if k is None:
            from ratkit.automata.kernels import ngram

            return ngram(3)
        if isinstance(k, str) and k in available("kernel"):  # a family by name, e.g. "linear"
            from ratkit.automata.kernels import from_spec

            return from_spec({"family": k})
        if isinstance(k, (dict, str)) or hasattr(k, "__fspath__"):
            from ratkit.automata.kernels import from_spec

            return from_spec(k)
        if isinstance(k, Kernel):
            # fitting never writes to the user's kernel (caches, an inferred alphabet), and a
            # later set_params on it cannot change the fitted model
            return clone(k)
        if callable(k):
            return k
        raise ParameterTypeError(
            f"The 'kernel' parameter of {type(self).__name__} must be a ratkit kernel, a kernel spec (dict, "
            f"JSON string or file), 'linear' or a callable K(X, Y). Got {k!r} instead."
        )

    def _inputs(self, X: Any, kernel: Any, reset: bool) -> Any:
        """The inputs as the kernel reads them: a numeric matrix for a kernel that reads vectors
        (scikit-learn's ``validate_data``), else a list.

        Each input is checked once, by the one that reads it: a ratkit kernel checks the items
        of a list itself (every hook coerces its inputs at its boundary), so a list given with
        one goes to it as it is; anything else (an array, a table, a generator) is made a list
        here, and so are the inputs of a plain callable K(X, Y), which checks nothing.
        """
        if view.reads_vectors(kernel):
            return self._matrix(X, reset=reset)
        if not (isinstance(kernel, Kernel) and type(X) is list):
            X = as_collection(X, "X")
        if not X and reset:
            raise TrainingDataError(f"{type(self).__name__} got an empty training set; give at least two sequences.")
        return X

    def _training_inputs(self, X: Any, y: Any, kernel: Any) -> tuple[Any, Any]:
        """(X, y) for ``fit``: a matrix is validated with its labels (scikit-learn's ``validate_data``
        of X and y, after the check that they have as many samples), sequences on their own."""
        if view.reads_vectors(kernel):
            self._check_lengths(X, y)
            X, y = self._matrix(X, y, reset=True)
            return X, y
        return self._inputs(X, kernel, reset=True), y

    # -- training ----------------------------------------------------------------------
    def fit(self, X: Any, y: Any) -> RationalSVC:
        """Train one dual per binary problem on sequences X (or a matrix for a LinearKernel).

        A fit that raises leaves the estimator unfitted (no half-set attributes). With hashed
        features (``n_features``) inside ``ratkit.compute_on(client=...)``, X (a list, a
        ``dask.bag.Bag`` or a ``dask.dataframe.Series``) trains on the Dask cluster
        (:func:`ratkit.learners.svm.distributed.fit_distributed`).
        """
        client = distributed.training_client(self, X)
        if client is not None:
            return distributed.fit_distributed(self, X, y, client=client)
        with self._fitting():
            return self._fit(X, y)

    def _fit(self, X: Any, y: Any) -> RationalSVC:
        owner = type(self).__name__
        C, tol, max_iter = self._check_solver_params()
        rng = self._random_state()
        name: str | None = self.representation
        cls = get_representation(name, owner)
        scale = check_real(self.intercept_scaling, "intercept_scaling", owner, low=0.0, low_open=True)
        kernel = self._resolve_kernel()
        buckets = self._check_n_features(kernel)
        if view.is_pds(kernel) is False:
            raise NotPDSKernelError(
                f"{owner} needs a positive definite symmetric kernel; {type(kernel).__name__} "
                "is "
                "flagged non-PDS (is_pds is False), so the dual is not convex. Use a PDS kernel, "
                "e.g. a T∘T⁻¹ family, or exp_kernel(k, t) of a negative definite k (not the edit "
                "distance, which is not NDS over two or more symbols: Proposition 3, Fig. 8)."
            )
        X, y = self._training_inputs(X, y, kernel)
        Y = self._encode_targets(y, view.n_rows(X))
        self.kernel_ = kernel
        bias = scale if self.fit_intercept else 0.0
        t_hash = time.perf_counter()
        if buckets is not None:  # hashed rows: the linear problem on them
            kernel.learn(X)  # what the kernel reads off the training data (an inferred alphabet), fixed
            X = hashing.hashed_features(kernel, X, buckets, n_jobs=self.n_jobs)
            # the solver sees the buckets in use only (empty columns change nothing; W′ on all
            # n_features buckets would cost their number in every structure it is held in)
            used = np.unique(X.indices)
            X = X[:, used]
            data = TrainingSet(LinearKernel(), X, bias, self.n_jobs, self.show_progress, self.cache_size)
        else:
            data = TrainingSet(kernel, X, bias, self.n_jobs, self.show_progress, self.cache_size)
        t_hash = time.perf_counter() - t_hash
        self.shift_ = data.shift
        t0 = time.perf_counter()
        wprime = cls.build(data)
        while wprime is None:  # the kernel lacks what this representation needs: its fallback
            log.info("%s: no W′ as a %s; training on %s", view.describe(kernel), name, cls.fallback)
            name = cls.fallback
            cls = get_representation(name, owner)
            wprime = cls.build(data)
        t1 = time.perf_counter()
        fitted = self._train(wprime, Y, C, tol, max_iter, rng, data.shift)
        self.feature_map_ = fitted.get("feature_map_")
        self.coef_ = fitted.get("coef_")
        self.support_ = fitted.get("support_")
        self.support_vectors_ = fitted.get("support_vectors_")
        self.dual_coef_ = fitted.get("dual_coef_")
        self.wprime_size_ = fitted["wprime_size_"]
        self.representation_ = name
        self.fit_time_ = {cls.stage: t1 - t0, "solver": time.perf_counter() - t1}
        self.__dict__.pop("hashing_", None)  # an exact model has none (its files are as before hashing existed)
        if buckets is not None:
            self._keep_hashed(buckets, X, used)
            self.fit_time_["hashing"] = t_hash
        return self

    def _check_n_features(self, kernel: Any) -> int | None:
        """``n_features`` as an int (None: exact features); refuses a kernel it cannot hash."""
        requested = self.n_features
        if requested is None:
            return None
        n = check_int(requested, "n_features", type(self).__name__, low=1, high=hashing.MAX_BUCKETS)
        hashing.check_hashable(kernel)
        if self.representation == "naive":
            raise ParameterError(
                "representation='naive' builds W′ from OpenFst feature automata, which hashed features "
                "(n_features) do not have; use representation='trie', 'automaton' or 'rows'."
            )
        return n

    def _keep_hashed(self, buckets: int, H: Any, used: np.ndarray) -> None:
        """The model as W′ on all the buckets (``coef_``), from W′ on the ``used`` ones (the
        columns of H), whatever the representation held: a kernel expansion Σ α_i y_i H_i is
        summed into it, the support kept out of the model."""
        coef = self.coef_
        if coef is None:
            dual_coef = np.asarray(self.dual_coef_, dtype=np.float64)
            coef = np.asarray((H[np.asarray(self.support_, dtype=np.int64)].T @ dual_coef.T).T)
            self.support_ = self.support_vectors_ = self.dual_coef_ = None
        self.coef_ = np.zeros((coef.shape[0], buckets))
        self.coef_[:, used] = coef
        self.feature_map_ = None
        self.hashing_ = {"scheme": hashing.HASHING_SCHEME, "version": hashing.HASHING_VERSION, "n_features": buckets}

    def _problem_name(self) -> str:
        return f"RationalSVC on {view.describe(self.kernel_)}"

    # -- prediction --------------------------------------------------------------------
    def decision_function(self, X: Any) -> Any:
        """f(x) = ⟨W′, Φ′_x⟩ (+ b) (see the base class); on a Dask Bag or Series, a Bag or Series
        (a DataFrame of one column per class for one-vs-rest) computed on the workers."""
        if distributed.is_collection(X):
            return distributed.decision_function(self, X)
        return super().decision_function(X)

    def predict(self, X: Any) -> Any:
        """The class of largest decision value; on a Dask Bag or Series, a Bag or Series."""
        if distributed.is_collection(X):
            return distributed.predict(self, X)
        return super().predict(X)

    def _scores(self, X: Any) -> np.ndarray:
        kernel = self.kernel_
        X = self._inputs(X, kernel, reset=False)
        coef = self.coef_
        spec = getattr(self, "hashing_", None)
        if spec is not None and coef is not None:
            H = hashing.hashed_features(kernel, X, int(spec["n_features"]), n_jobs=self.n_jobs)
            return np.asarray(H @ coef.T) + self.intercept_
        if coef is not None:
            view.warn_if_foreign(getattr(self.feature_map_, "symbols", ()), X)
            F = view.transform_features(kernel, self.feature_map_, X, self.n_jobs)
            return np.asarray(F @ coef.T) + self.intercept_
        K = view.kernel_matrix(kernel, X, self.support_vectors_)
        dual_coef = cast(np.ndarray, self.dual_coef_)  # without coef_, the kernel expansion (_one_form)
        return K @ dual_coef.T + self.intercept_

    # -- sizes of W′ (Table III) ---------------------------------------------------------
    def wprime_sizes(self, problem: int = 0) -> dict[str, int]:
        """Sizes of the final W′ of one binary problem as a trie and as a minimal automaton.

        W′ holds the patterns of non-zero weight. ``trie_*`` count the weighted trie;
        ``minimal_*`` the minimal deterministic weighted automaton over the reals
        (:func:`~ratkit.learners.wprime._automaton.minimal_weighted_size`); ``*_size`` is
        states + transitions (Table III's ``|W′|``). Needs the trie or automaton representation.
        """
        self._check_fitted()
        if self.coef_ is None:
            raise ParameterError(
                f"wprime_sizes needs W′ on explicit patterns; this model was trained with "
                f"representation {self.representation_!r}. Use representation='trie' or "
                "'automaton'."
            )
        fmap = self.feature_map_
        if fmap is None:
            codes, base = np.arange(1, self.coef_.shape[1] + 1), self.coef_.shape[1] + 1
        else:
            codes, base = fmap.pattern_codes()
        return wprime_sizes(np.asarray(codes, dtype=np.int64), base, self.coef_[problem])

    # -- model files ---------------------------------------------------------------------
    def _check_restored(self) -> None:
        """The saved kernel produces the saved vocabulary: patterns of non-zero weight, a
        spread sample of them (:meth:`~ratkit.automata.kernels.Kernel.check_vocabulary`).
        (The form, dtypes and shapes were checked against ``_fitted_schema`` before.)

        A manifest whose kernel was changed (say n = 2 → 5 of an n-gram kernel) with the
        arrays left alone would otherwise load and score every sequence 0.
        """
        if isinstance(self.kernel_, str):  # a file written before LinearKernel holds its name, "linear"
            self.kernel_ = LinearKernel()
        if getattr(self, "hashing_", None) is not None:
            self._check_hashing()
            return
        fmap, kernel = self.feature_map_, self.kernel_
        if fmap is None or self.coef_ is None or not isinstance(kernel, Kernel):
            return
        used = np.flatnonzero(np.any(np.asarray(self.coef_) != 0, axis=0))
        if not used.size:
            return
        pick = used[np.unique(np.linspace(0, used.size - 1, min(_VOCABULARY_SAMPLE, used.size)).astype(np.int64))]
        try:
            kernel.check_vocabulary(fmap, pick)
        except VocabularyError as exc:
            raise ModelFormatError(
                f"the saved kernel does not produce the saved vocabulary ({exc}): the manifest does not "
                "belong to these arrays (was it edited?). Retrain and save the model again."
            ) from None

    def _check_hashing(self) -> None:
        """A hashed model: the scheme and version this ratkit hashes with, as many buckets as
        ``coef_`` has columns, and a kernel that can be hashed."""
        spec: Any = self.hashing_
        ok = isinstance(spec, dict) and spec.get("scheme") == hashing.HASHING_SCHEME
        if not ok or spec.get("version") != hashing.HASHING_VERSION:
            raise ModelFormatError(
                f"the model was trained with the feature hashing {spec!r}; this ratkit hashes with "
                f"{hashing.HASHING_SCHEME!r} version {hashing.HASHING_VERSION}. Retrain the model."
            )
        n = spec.get("n_features")
        coef = self.coef_
        if coef is None or not isinstance(n, int) or coef.shape[1] != n:
            raise ModelFormatError(
                f"the model's hashing has n_features={n!r} but coef_ has shape "
                f"{None if coef is None else coef.shape}: the manifest does not belong to these arrays."
            )
        try:
            hashing.check_hashable(self.kernel_)
        except ParameterError as exc:
            raise ModelFormatError(f"the model's kernel cannot be hashed: {exc}") from None
