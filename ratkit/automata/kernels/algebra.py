"""Kernel algebra: sums, products, scaling, polynomials, cosine normalisation, NDS → PDS.

Each combinator is itself a :class:`~ratkit.automata.kernels.base.Kernel` (callable,
Gram-matrix filling, cloneable, registered as a kernel family) computed from the Gram
matrices of its parts. Where the result has a finite feature map, the combinator gives it
from its parts' (:meth:`~ratkit.automata.kernels.Kernel.fit_features`): a sum puts the
parts' side by side, scaling multiplies by √c, cosine normalisation divides each row by
its norm, and a product of finite maps takes their row-wise tensor product.

References
----------
A. Ghose, *Rational kernels: a survey*, Theorem 1 (closure of PDS kernels under sum and
product), Theorem 3 (NDS → PDS: exp(−tK) and K′ of eq. (14)).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from numbers import Number
from typing import Any

import numpy as np
import pynini
import scipy.sparse as sp

from ratkit._validation import check_int, check_real
from ratkit.automata.kernels._float_range import times_exp, unit_rows
from ratkit.automata.kernels.base import Kernel
from ratkit.automata.kernels.combination import (
    Combination,
    KernelWrapper,
    _check_kernel,
    _expect,
    _scaled_rows,
    finite_combination,
)
from ratkit.automata.kernels.features import (
    BlockVocabulary,
    FeatureMap,
    PairVocabulary,
    Vocabulary,
    VocabularyError,
    code_columns,
    coo_to_csr,
    inner_products,
    inverse_norms,
    restrict_columns,
    tensor_rows,
    vocabulary_matrix,
)
from ratkit.automata.kernels.inputs import as_collection, check_gram_bytes
from ratkit.automata.kernels.rational import RationalKernel
from ratkit.exceptions import ParameterError, ParameterTypeError
from ratkit.plugins import register

__all__ = [
    "SumKernel",
    "ProductKernel",
    "ScaledKernel",
    "PolynomialKernel",
    "CosineKernel",
    "ExpKernel",
    "CenteredNDSKernel",
    "cosine",
    "exp_kernel",
    "polynomial",
    "nds_to_pds",
]


#: ln of float64's largest value, less a margin: e^x is a float for |x| below it.
_LN_FLOAT_MAX = 700.0


def _budget(work_bytes: int | None) -> dict[str, int]:
    """``work_bytes=`` for a part's fit_features when a budget is given (a part that does not take it still works)."""
    return {} if work_bytes is None else {"work_bytes": work_bytes}


@register("kernel", "sum")
class SumKernel(Combination):
    """K(x, y) = Σ_i c_i K_i(x, y), c_i ≥ 0 (default 1): PDS when every K_i is.

    Its feature map, when every K_i has one, is the parts' side by side, block i scaled by
    √c_i (a :class:`BlockVocabulary`).
    """

    _spec_required = ("kernels",)

    def __init__(self, kernels: Sequence[Kernel] = (), weights: Sequence[float] | None = None) -> None:
        self.kernels = kernels
        self.weights = weights

    def weighted_parts(self) -> tuple[list[Kernel], np.ndarray]:
        """(K_i, c_i) of K = Σ_i c_i K_i: the parts and their weights (default 1), checked
        (at least one kernel; the weights finite and ≥ 0), else a ParameterError naming them."""
        ks = [_check_kernel(k, "SumKernel") for k in self.kernels]
        if not ks:
            raise ParameterError("The 'kernels' parameter of SumKernel must hold at least one kernel.")
        w = np.ones(len(ks)) if self.weights is None else np.asarray(self.weights, dtype=np.float64)
        if w.shape != (len(ks),) or np.any(~np.isfinite(w)) or np.any(w < 0):
            raise ParameterError(
                f"The 'weights' parameter of SumKernel must hold {len(ks)} finite non-negative "
                f"floats. Got {self.weights!r} instead."
            )
        return ks, w

    def _validate_params(self) -> None:
        for k in self.weighted_parts()[0]:
            k._validate_params()

    @property
    def is_pds(self) -> bool | None:  # type: ignore[override]
        flags = [k.is_pds for k in self.weighted_parts()[0]]
        return True if all(f is True for f in flags) else None

    def split_scale(self) -> tuple[float, Kernel]:
        """(m, Σ_i e^{a_i − m} K′_i) with a_i = ln c_i + s_i over the parts' (s_i, K′_i): m brings
        the a_i toward 0 without taking any across it (the largest when all are negative, the
        smallest when all are positive, else 0); (0.0, self) when a weight e^{a_i − m} would
        not be a float (parts farther apart than float64's range)."""
        ks, w = self.weighted_parts()
        split = [k.split_scale() for k in ks]
        if all(s == 0.0 for s, _ in split) and np.all((w == 0) | (w == 1)):
            return 0.0, self
        with np.errstate(divide="ignore"):
            a = np.log(w) + np.array([s for s, _ in split])
        finite = a[np.isfinite(a)]
        if not finite.size:
            return 0.0, self
        lo, hi = float(finite.min()), float(finite.max())
        middle = hi if hi < 0 else lo if lo > 0 else 0.0
        if max(hi - middle, middle - lo) > _LN_FLOAT_MAX:
            return 0.0, self
        return middle, SumKernel([k for _, k in split], [float(v) for v in np.exp(a - middle)])

    def _gram(self, X: Any, Y: Any = None, **options: Any) -> np.ndarray:
        return finite_combination(lambda: self._combine(lambda k: k.gram_with(X, Y, **options)), self)

    def diag(self, X: Any) -> np.ndarray:
        return finite_combination(lambda: self._combine(lambda k: k.diag(X)), self)

    def _combine(self, values: Callable[[Kernel], np.ndarray]) -> np.ndarray:
        """Σ_i c_i K_i from the parts' ``values``: of K′_i times e^{ln c_i + s_i} when a part
        has a scale to take out (:meth:`split_scale`), else of K_i times c_i."""
        ks, w = self.weighted_parts()
        split = [k.split_scale() for k in ks]
        if all(s == 0.0 for s, _ in split):
            return np.asarray(sum(c * values(k) for c, k in zip(w, ks)))
        return np.asarray(
            sum(times_exp(values(k), math.log(c) + s) if c > 0 else 0.0 * values(k) for c, (s, k) in zip(w, split))
        )

    def fit_features(
        self, X: Any, *, n_jobs: int | None = None, show_progress: bool | None = None, work_bytes: int | None = None
    ) -> tuple[BlockVocabulary, sp.csr_matrix]:
        """[√c_1 F_1, √c_2 F_2, …]: ⟨F_i, F_j⟩ = Σ_k c_k K_k(x_i, x_j)."""
        ks, w = self.weighted_parts()
        X = as_collection(X)
        parts, blocks = [], []
        for c, k in zip(w, ks):
            vocabulary, F = k.fit_features(X, n_jobs=n_jobs, show_progress=show_progress, **_budget(work_bytes))
            parts.append(vocabulary)
            blocks.append(_scaled_rows(F, np.sqrt(c)))
        return BlockVocabulary(tuple(parts)), sp.hstack(blocks, format="csr")

    def transform_features(
        self, vocabulary: Vocabulary, X: Any, *, n_jobs: int | None = None, show_progress: bool | None = None
    ) -> sp.csr_matrix:
        ks, w = self.weighted_parts()
        blocks = self._blocks(vocabulary, len(ks))
        X = as_collection(X)
        out = [
            _scaled_rows(
                k.transform_features(v, X, n_jobs=n_jobs, show_progress=show_progress), np.full(len(X), c**0.5)
            )
            for c, k, v in zip(w, ks, blocks.parts)
        ]
        return sp.hstack(out, format="csr")

    def check_vocabulary(self, vocabulary: Vocabulary, columns: np.ndarray) -> None:
        """Each part checks the columns of its block."""
        ks, _ = self.weighted_parts()
        blocks = self._blocks(vocabulary, len(ks))
        columns = np.asarray(columns, dtype=np.int64)
        offsets = blocks.offsets
        for i, (k, v) in enumerate(zip(ks, blocks.parts)):
            mine = columns[(columns >= offsets[i]) & (columns < offsets[i + 1])]
            if mine.size:
                k.check_vocabulary(v, mine - offsets[i])

    def _blocks(self, vocabulary: Any, n_parts: int) -> BlockVocabulary:
        blocks = _expect(vocabulary, BlockVocabulary, self)
        if len(blocks.parts) != n_parts:
            raise VocabularyError(f"{self!r} has {n_parts} parts; the vocabulary has {len(blocks.parts)} blocks.")
        return blocks


@register("kernel", "product")
class ProductKernel(Combination):
    """K(x, y) = Π_i K_i(x, y) (pointwise): PDS when every K_i is (Schur product).

    Its feature map, when every K_i has one, is the row-wise tensor product of the parts'
    (folded from the left), on the pairs of features that occur together in training (a
    :class:`PairVocabulary`).
    """

    _spec_required = ("kernels",)

    def __init__(self, kernels: Sequence[Kernel] = ()) -> None:
        self.kernels = kernels

    def _parts(self) -> list[Kernel]:
        ks = [_check_kernel(k, "ProductKernel") for k in self.kernels]
        if not ks:
            raise ParameterError("The 'kernels' parameter of ProductKernel must hold at least one kernel.")
        return ks

    def _validate_params(self) -> None:
        for k in self._parts():
            k._validate_params()

    @property
    def is_pds(self) -> bool | None:  # type: ignore[override]
        return True if all(k.is_pds is True for k in self._parts()) else None

    def split_scale(self) -> tuple[float, ProductKernel]:
        """(Σ_i s_i, Π_i K′_i) over the parts' (s_i, K′_i)."""
        split = [k.split_scale() for k in self._parts()]
        return sum(s for s, _ in split), ProductKernel([k for _, k in split])

    def _gram(self, X: Any, Y: Any = None, **options: Any) -> np.ndarray:
        return finite_combination(lambda: self._combine(lambda k: k.gram_with(X, Y, **options)), self)

    def diag(self, X: Any) -> np.ndarray:
        return finite_combination(lambda: self._combine(lambda k: k.diag(X)), self)

    def _combine(self, values: Callable[[Kernel], np.ndarray]) -> np.ndarray:
        """Π_i K_i from the parts' ``values``: Π_i K′_i times e^{Σ s_i} when a part has a scale
        to take out (:meth:`split_scale`)."""
        split = [k.split_scale() for k in self._parts()]
        if all(s == 0.0 for s, _ in split):
            return functools.reduce(np.multiply, [values(k) for k in self._parts()])
        return times_exp(functools.reduce(np.multiply, [values(k) for _, k in split]), sum(s for s, _ in split))

    def fit_features(
        self, X: Any, *, n_jobs: int | None = None, show_progress: bool | None = None, work_bytes: int | None = None
    ) -> tuple[Vocabulary, sp.csr_matrix]:
        """F_1 ⊗ F_2 ⊗ … row by row: ⟨F_i, F_j⟩ = Π_k K_k(x_i, x_j)."""
        ks = self._parts()
        X = as_collection(X)
        vocabulary, F = ks[0].fit_features(X, n_jobs=n_jobs, show_progress=show_progress, **_budget(work_bytes))
        for k in ks[1:]:
            right, G = k.fit_features(X, n_jobs=n_jobs, show_progress=show_progress, **_budget(work_bytes))
            pairs, F = vocabulary_matrix(*tensor_rows(F, G), len(X))
            vocabulary = PairVocabulary(vocabulary, right, pairs)
        return vocabulary, F

    def transform_features(
        self, vocabulary: Vocabulary, X: Any, *, n_jobs: int | None = None, show_progress: bool | None = None
    ) -> sp.csr_matrix:
        return self._transform(self._parts(), vocabulary, as_collection(X), n_jobs, show_progress)

    def _transform(
        self, ks: list[Kernel], vocabulary: Any, X: list, n_jobs: int | None, show_progress: bool | None
    ) -> sp.csr_matrix:
        if len(ks) == 1:
            return ks[0].transform_features(vocabulary, X, n_jobs=n_jobs, show_progress=show_progress)
        pairs = _expect(vocabulary, PairVocabulary, self)
        F = self._transform(ks[:-1], pairs.left, X, n_jobs, show_progress)
        G = ks[-1].transform_features(pairs.right, X, n_jobs=n_jobs, show_progress=show_progress)
        rows, codes, values = tensor_rows(F, G)
        cols = code_columns(pairs.pairs, codes)
        keep = cols >= 0
        return coo_to_csr(rows[keep], cols[keep], values[keep], (len(X), pairs.n_features))

    def check_vocabulary(self, vocabulary: Vocabulary, columns: np.ndarray) -> None:
        """The factors check the columns of their features in these pairs."""
        self._check(self._parts(), vocabulary, np.asarray(columns, dtype=np.int64))

    def _check(self, ks: list[Kernel], vocabulary: Any, columns: np.ndarray) -> None:
        if len(ks) == 1:
            ks[0].check_vocabulary(vocabulary, columns)
            return
        pairs = _expect(vocabulary, PairVocabulary, self)
        left, right = pairs.split(columns)
        self._check(ks[:-1], pairs.left, np.unique(left))
        ks[-1].check_vocabulary(pairs.right, np.unique(right))


@register("kernel", "scale")
class ScaledKernel(KernelWrapper):
    """K(x, y) = c · K₀(x, y) with c > 0; its feature map is K₀'s scaled by √c."""

    _spec_required = ("kernel", "factor")

    def __init__(self, kernel: Kernel | None = None, factor: float = 1.0) -> None:
        self.kernel = kernel
        self.factor = factor

    def scale_factor(self) -> float:
        """c of K = c · K₀, checked (c > 0 and a kernel K₀), else a ParameterError naming it."""
        self._base()
        return check_real(self.factor, "factor", "ScaledKernel", low=0.0, low_open=True)

    def _validate_params(self) -> None:
        self.scale_factor()
        super()._validate_params()

    def split_scale(self) -> tuple[float, Kernel]:
        """(ln c + s₀, K′₀) over K₀'s (s₀, K′₀)."""
        s, k = self._base().split_scale()
        return math.log(self.scale_factor()) + s, k

    def _gram(self, X: Any, Y: Any = None, **options: Any) -> np.ndarray:
        return finite_combination(lambda: self._scaled(lambda k: k.gram_with(X, Y, **options)), self)

    def diag(self, X: Any) -> np.ndarray:
        return finite_combination(lambda: self._scaled(lambda k: k.diag(X)), self)

    def _scaled(self, values: Callable[[Kernel], np.ndarray]) -> np.ndarray:
        """c · K₀ from ``values``: of K′₀ times e^{ln c + s₀} when K₀ has a scale to take out."""
        c = self.scale_factor()
        s, k = self._base().split_scale()
        return c * values(self._base()) if s == 0.0 else times_exp(values(k), math.log(c) + s)

    def fit_features(
        self, X: Any, *, n_jobs: int | None = None, show_progress: bool | None = None, work_bytes: int | None = None
    ) -> tuple[Vocabulary, sp.csr_matrix]:
        """√c F₀ on K₀'s vocabulary."""
        c = self.scale_factor()
        vocabulary, F = self._base().fit_features(X, n_jobs=n_jobs, show_progress=show_progress, **_budget(work_bytes))
        return vocabulary, _scaled_rows(F, np.sqrt(c))

    def transform_features(
        self, vocabulary: Vocabulary, X: Any, *, n_jobs: int | None = None, show_progress: bool | None = None
    ) -> sp.csr_matrix:
        c = self.scale_factor()
        F = self._base().transform_features(vocabulary, X, n_jobs=n_jobs, show_progress=show_progress)
        return _scaled_rows(F, np.sqrt(c))

    def check_vocabulary(self, vocabulary: Vocabulary, columns: np.ndarray) -> None:
        self._base().check_vocabulary(vocabulary, columns)


@register("kernel", "polynomial")
class PolynomialKernel(KernelWrapper):
    """K(x, y) = (scale · K₀(x, y) + coef0)^degree: PDS when K₀ is, coef0 ≥ 0, scale > 0."""

    def __init__(self, kernel: Kernel | None = None, degree: int = 2, coef0: float = 1.0, scale: float = 1.0) -> None:
        self.kernel = kernel
        self.degree = degree
        self.coef0 = coef0
        self.scale = scale

    def _validate_params(self) -> None:
        super()._validate_params()
        check_int(self.degree, "degree", "polynomial", low=1)
        check_real(self.coef0, "coef0", "polynomial", low=0.0)
        check_real(self.scale, "scale", "polynomial", low=0.0, low_open=True)

    def _gram(self, X: Any, Y: Any = None, **options: Any) -> np.ndarray:
        self._validate_params()
        return finite_combination(
            lambda: (self.scale * self._base().gram_with(X, Y, **options) + self.coef0) ** self.degree, self
        )

    def diag(self, X: Any) -> np.ndarray:
        self._validate_params()
        return finite_combination(lambda: (self.scale * self._base().diag(X) + self.coef0) ** self.degree, self)


def _owned_features(kernel: Kernel) -> bool:
    """Whether ``kernel``'s feature matrices are built afresh on every call, so that the
    caller owns them and may normalise them in place: ratkit's own rational kernels (a
    user's kernel may return a matrix it keeps, and a user's subclass may override how)."""
    return isinstance(kernel, RationalKernel) and type(kernel).__module__.startswith("ratkit.")


@register("kernel", "cosine")
class CosineKernel(KernelWrapper):
    """K(x, y) = K₀(x, y) / √(K₀(x, x) K₀(y, y)), and 0 when either norm is 0.

    Its feature map is K₀'s with each row divided by its full norm √K₀(x, x): features
    outside the vocabulary count in the norm of a new sequence. Where K₀ has a feature map
    (:meth:`~ratkit.automata.kernels.Kernel.gram_features`), the Gram matrix is computed from
    those rows normalised, each divided by its largest entry before any square is formed, not
    from K₀'s values; and K₀'s common scale (:meth:`~ratkit.automata.kernels.Kernel.split_scale`)
    is left out first. The cosine is invariant to both, so weights whose squares leave
    float64's range (1e200, 1e-170) give the cosine of weights 1, not ∞, NaN or 0.
    """

    def __init__(self, kernel: Kernel | None = None) -> None:
        self.kernel = kernel

    def _gram(self, X: Any, Y: Any = None, **options: Any) -> np.ndarray:
        k = self._unit_base()
        X = as_collection(X, "X")
        Y = None if Y is None else as_collection(Y, "Y")
        check_gram_bytes(len(X), len(X if Y is None else Y), self)
        rows = self._unit_features(k, X, Y, options)
        if rows is not None:
            F, G = rows
            if G is not None:
                return inner_products(F, G)
            K = inner_products(F)
            np.fill_diagonal(K, np.diff(F.indptr) > 0)  # ⟨F_i, F_i⟩ = 1 up to rounding: exactly 1
            return K
        G = k.gram_with(X, None if Y is None else Y, **options)
        dx = np.diag(G).copy() if Y is None else k.diag(X)
        dy = dx if Y is None else k.diag(Y)
        return _normalise(G, dx, dy)

    def _unit_base(self) -> Kernel:
        """K₀ with its common scale taken out (:meth:`~ratkit.automata.kernels.Kernel.split_scale`):
        the cosine of e^s K′₀ is the cosine of K′₀."""
        return self._base().split_scale()[1]

    def _unit_features(
        self, k: Kernel, X: list, Y: Any, options: dict[str, Any]
    ) -> tuple[sp.csr_matrix, sp.csr_matrix | None] | None:
        """(X's rows, Y's rows or None when Y is None) of K₀'s feature map normalised to unit
        norm; None when K₀ has none, or when ``options`` ask for more than ``n_jobs`` and
        ``show_progress`` (a ``strategy`` other than "auto": K₀'s Gram computes it as asked)."""
        if set(options) - {"n_jobs", "show_progress", "strategy"} or options.get("strategy", "auto") != "auto":
            return None
        features = k.gram_features(X, Y, n_jobs=options.get("n_jobs"), show_progress=options.get("show_progress"))
        if features is None:
            return None
        F, G = features
        return unit_rows(F, self), None if Y is None else unit_rows(G, self)

    def diag(self, X: Any) -> np.ndarray:
        """1 where K₀(x, x) > 0 (read off K₀'s feature rows where it has them), else 0."""
        k = self._unit_base()
        features = k.gram_features(as_collection(X))
        if features is not None:
            F = unit_rows(features[0], self)
            return (np.diff(F.indptr) > 0).astype(np.float64)
        return (k.diag(X) > 0).astype(np.float64)

    def fit_features(
        self, X: Any, *, n_jobs: int | None = None, show_progress: bool | None = None, work_bytes: int | None = None
    ) -> tuple[Vocabulary, sp.csr_matrix]:
        """F₀ with rows of unit norm: the vocabulary is X's own, so ‖F₀_i‖² = K₀(x_i, x_i)."""
        k = self._unit_base()
        vocabulary, F = k.fit_features(X, n_jobs=n_jobs, show_progress=show_progress, **_budget(work_bytes))
        return vocabulary, unit_rows(F, self, copy=not _owned_features(k))

    def transform_features(
        self, vocabulary: Vocabulary, X: Any, *, n_jobs: int | None = None, show_progress: bool | None = None
    ) -> sp.csr_matrix:
        """F₀ on the vocabulary, each row divided by the full norm √K₀(x, x), unseen features
        included: the norm of X's rows of F₀ on their own vocabulary."""
        k = self._unit_base()
        X = as_collection(X)
        if isinstance(vocabulary, FeatureMap) and _owned_features(k):
            # One extraction: X's full rows on X's own vocabulary give the norms, and their
            # entries in the fitted vocabulary's columns are the rows (each entry divided
            # alone, so normalising before the columns are dropped changes no value).
            own, full = k.fit_features(X, n_jobs=n_jobs, show_progress=show_progress)
            columns = vocabulary.columns_of(own) if isinstance(own, FeatureMap) else None
            if columns is not None:
                full = unit_rows(full, self, copy=False)
                return restrict_columns(full, columns, vocabulary.n_features)
        F = k.transform_features(vocabulary, X, n_jobs=n_jobs, show_progress=show_progress)
        _, full = k.fit_features(X, n_jobs=n_jobs, show_progress=show_progress)
        return unit_rows(F, self, full, copy=not _owned_features(k))

    def check_vocabulary(self, vocabulary: Vocabulary, columns: np.ndarray) -> None:
        self._base().check_vocabulary(vocabulary, columns)

    def feature_automata(self, X: Any) -> tuple[list[pynini.Fst], bool] | None:
        """K₀'s feature automata, to be normalised."""
        found = self._unit_base().feature_automata(X)
        return None if found is None else (found[0], True)


def _normalise(G: np.ndarray, dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """G_ij / √(dx_i dy_j), 0 where dx_i or dy_j is ≤ 0; scales G (a fresh matrix) in place."""
    G = np.asarray(G, dtype=np.float64)
    G *= inverse_norms(dx)[:, None]
    G *= inverse_norms(dy)[None, :]
    return G


@register("kernel", "exp")
class ExpKernel(KernelWrapper):
    """K(x, y) = exp(−t · K₀(x, y)), t > 0: PDS for every t iff K₀ is NDS (Theorem 3.1)."""

    def __init__(self, kernel: Kernel | None = None, t: float = 1.0) -> None:
        self.kernel = kernel
        self.t = t

    @property
    def is_pds(self) -> bool | None:  # type: ignore[override]
        """Theorem 3: PDS for every t iff K₀ is NDS; so True when K₀ is NDS, False when K₀
        is known not to be (e.g. the edit distance over ≥ 2 symbols, Proposition 3 and
        Fig. 8: some t gives a negative eigenvalue), else None."""
        return self._base().is_nds

    def _t(self) -> float:
        self._base()
        return check_real(self.t, "t", "exp_kernel", low=0.0, low_open=True)

    def _validate_params(self) -> None:
        self._t()
        super()._validate_params()

    def _gram(self, X: Any, Y: Any = None, **options: Any) -> np.ndarray:
        return np.exp(-self._t() * self._base().gram_with(X, Y, **options))

    def diag(self, X: Any) -> np.ndarray:
        return np.exp(-self._t() * self._base().diag(X))


@register("kernel", "nds-to-pds", aliases=("nds_to_pds",))
class CenteredNDSKernel(KernelWrapper):
    """K′(x, y) = K(x, x0) + K(y, x0) − K(x, y) − K(x0, x0): PDS iff K is NDS (Theorem 3.2, eq. (14))."""

    def __init__(self, kernel: Kernel | None = None, x0: Any = "") -> None:
        self.kernel = kernel
        self.x0 = x0

    @property
    def is_pds(self) -> bool | None:  # type: ignore[override]
        """Theorem 3.2: PDS iff K is NDS (True, False or None as K's :attr:`is_nds`)."""
        return self._base().is_nds

    def _validate_params(self) -> None:
        super()._validate_params()
        x0 = self.x0
        if (
            x0 is None
            or isinstance(x0, (bytes, bytearray, Mapping, Number))
            or (isinstance(x0, (list, tuple)) and not all(isinstance(t, str) and t for t in x0))
        ):
            raise ParameterTypeError(
                f"The 'x0' parameter of nds_to_pds must be one input of the base kernel (a str, a tuple of str "
                f"tokens, a lattice or a graph). Got {type(x0).__name__} {x0!r:.40} instead."
            )

    def _gram(self, X: Any, Y: Any = None, **options: Any) -> np.ndarray:
        k = self._base()
        X = as_collection(X)
        Ys = X if Y is None else as_collection(Y)
        G = k.gram_with(X, None if Y is None else Ys, **options)
        a = k.gram_with(X, [self.x0], **options)[:, 0]
        b = a if Y is None else k.gram_with(Ys, [self.x0], **options)[:, 0]
        k00 = k.value(self.x0, self.x0)
        return a[:, None] + b[None, :] - G - k00


def cosine(kernel: Kernel) -> CosineKernel:
    """Cosine normalisation K(x, y) / √(K(x, x) K(y, y)) of ``kernel``."""
    return CosineKernel(_check_kernel(kernel, "cosine"))


def exp_kernel(kernel: Kernel, t: float = 1.0) -> ExpKernel:
    """exp(−t · K) (Theorem 3.1), e.g. of an edit distance."""
    k = ExpKernel(_check_kernel(kernel, "exp_kernel"), t)
    k._validate_params()
    return k


def polynomial(kernel: Kernel, degree: int = 2, coef0: float = 1.0, scale: float = 1.0) -> PolynomialKernel:
    """(scale · K + coef0)^degree."""
    k = PolynomialKernel(_check_kernel(kernel, "polynomial"), degree, coef0, scale)
    k._validate_params()
    return k


def nds_to_pds(kernel: Kernel, x0: Any = "") -> CenteredNDSKernel:
    """K′ of eq. (14) around the point x0 (the empty string by default)."""
    k = CenteredNDSKernel(_check_kernel(kernel, "nds_to_pds"), x0)
    k._validate_params()
    return k
