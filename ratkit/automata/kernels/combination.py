"""The base of kernels built from other kernels: :class:`Combination` and :class:`KernelWrapper`.

A combination computes its values from the Gram matrices of its parts and passes the
options of :meth:`~Combination.gram_with` (``strategy``, ``n_jobs``, ``show_progress``) on
to them; a :class:`KernelWrapper` combines one kernel, its ``kernel`` parameter (cosine
normalisation, scaling, a pairwise kernel, ...). :func:`finite_combination` refuses values
that overflowed float64 on the way. Combinators of other modules and packages (the kernel
algebra, :mod:`ratkit.automata.pairwise`) and third-party ones derive from these.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from ratkit._sparse import float64_csr
from ratkit.automata.kernels._float_range import checked
from ratkit.automata.kernels.base import Kernel
from ratkit.automata.kernels.features import VocabularyError
from ratkit.exceptions import ParameterTypeError

__all__ = ["Combination", "KernelWrapper", "finite_combination"]


def _check_kernel(k: Any, owner: str) -> Kernel:
    if not isinstance(k, Kernel):
        raise ParameterTypeError(f"{owner} combines ratkit kernels; got {type(k).__name__}.")
    return k


def finite_combination(compute: Callable[[], np.ndarray], kernel: Kernel) -> np.ndarray:
    """The values ``compute()`` returns for the combination ``kernel``, or
    :class:`~ratkit.exceptions.WeightOverflowError` when one is not finite: a sum, product or
    power of float64 kernel values that overflowed (±∞, or ∞·0 = NaN)."""
    return checked(
        compute,
        kernel,
        "the combination of its parts' values overflows float64 (about 1.8e308). Normalise the parts (cosine) "
        "or lower the factors.",
    )


def _scaled_rows(F: sp.spmatrix, factors: np.ndarray | float) -> sp.csr_matrix:
    """F as float64 CSR with row i multiplied by ``factors[i]`` (or every row by one float):
    a copy, except when every factor is 1."""
    if np.all(np.asarray(factors) == 1.0):
        return float64_csr(F, copy=False)
    F = float64_csr(F)
    F.data *= np.repeat(factors, np.diff(F.indptr)) if np.ndim(factors) else factors
    return F


def _expect(vocabulary: Any, kind: type, kernel: Kernel) -> Any:
    if not isinstance(vocabulary, kind):
        raise VocabularyError(
            f"{kernel!r} reads a {kind.__name__}; got a {type(vocabulary).__name__}, the vocabulary of another kernel."
        )
    return vocabulary


class Combination(Kernel):
    """A kernel computed from the Gram matrices of other kernels: it passes the options of
    :meth:`gram_with` (``strategy``, ``n_jobs``, ``show_progress``) on to its parts."""

    _gram_takes_n_jobs = True

    def gram_with(self, X: Any, Y: Any = None, **options: Any) -> np.ndarray:
        """The Gram matrix, ``options`` passed on to the parts' Gram matrices."""
        return self.gram(X, Y, **options)

    def learn(self, X: Any) -> None:
        """Every kernel-valued parameter learns from X (see :meth:`Kernel.learn`)."""
        for value in self.get_params(deep=False).values():
            for part in value if isinstance(value, (list, tuple)) else (value,):
                if isinstance(part, Kernel):
                    part.learn(X)


class KernelWrapper(Combination):
    """A combination of one kernel, the ``kernel`` parameter (which a spec must state)."""

    _spec_required: ClassVar[tuple[str, ...]] = ("kernel",)
    kernel: Kernel | None

    def _base(self) -> Kernel:
        """The wrapped kernel, checked to be a ratkit kernel."""
        return _check_kernel(self.kernel, type(self).__name__)

    def _validate_params(self) -> None:
        self._base()._validate_params()

    @property
    def is_pds(self) -> bool | None:  # type: ignore[override]
        return self._base().is_pds
