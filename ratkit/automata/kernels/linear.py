"""The linear kernel K(x, y) = ⟨x, y⟩ on numeric feature vectors: its feature map is the identity.

The inputs are the rows of a numeric 2-D array or sparse matrix, each already a feature
vector Φ(x) = x, so K = X Yᵀ. It is the kernel of a linear SVM (survey §V-A, Algorithm 3):
``RationalSVC(kernel="linear")`` — the name resolves to this family — and
:class:`~ratkit.learners.LinearDCDSVC` train on it. A learner tells it from the kernels of
sequences by its type: the inputs are the features (:meth:`LinearKernel.features`), so no
feature extraction, vocabulary or feature automaton is involved.

Examples
--------
>>> import numpy as np
>>> from ratkit.automata.kernels import LinearKernel
>>> LinearKernel().gram(np.array([[1.0, 2.0], [0.0, 1.0]]))
array([[5., 2.],
       [2., 1.]])
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from ratkit.automata.kernels.base import Kernel
from ratkit.automata.kernels.features import row_sq_norms
from ratkit.exceptions import ParameterTypeError
from ratkit.plugins import register

__all__ = ["LinearKernel", "as_vectors"]


def as_vectors(X: Any, what: str = "X") -> np.ndarray | sp.csr_matrix:
    """X as a 2-D float64 array, or a sparse matrix as CSR (float64), unchanged when it is one
    already; a ParameterTypeError naming ``what`` for anything that is not a numeric matrix."""
    if sp.issparse(X):
        return X if isinstance(X, sp.csr_matrix) and X.dtype == np.float64 else sp.csr_matrix(X, dtype=np.float64)
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ParameterTypeError(
            f"The linear kernel reads numeric feature vectors: {what} must be a 2-D array or sparse matrix of "
            f"numbers ({exc})."
        ) from None
    if arr.ndim != 2:
        raise ParameterTypeError(
            f"The linear kernel reads numeric feature vectors: {what} must be 2-D (one row per input). Got an "
            f"array of shape {arr.shape} instead."
        )
    return arr


@register("kernel", "linear")
class LinearKernel(Kernel):
    """K(x, y) = ⟨x, y⟩ = Σ_j x_j y_j on numeric feature vectors (the feature map is the identity).

    X and Y are numeric 2-D arrays or sparse matrices whose rows are the vectors; the Gram
    matrix is X Yᵀ. It is PDS (a Gram matrix of inner products).

    Examples
    --------
    >>> import numpy as np
    >>> k = LinearKernel()
    >>> float(k.value(np.array([1.0, 2.0]), np.array([3.0, 1.0])))
    5.0
    """

    is_pds = True

    def __init__(self) -> None:
        pass

    def features(self, X: Any) -> np.ndarray | sp.csr_matrix:
        """Φ(X) = X: the rows of X are the feature vectors (a 2-D float64 array, or CSR)."""
        return as_vectors(X)

    def _gram(self, X: Any, Y: Any = None) -> np.ndarray:
        """[⟨x_i, y_j⟩] = X Yᵀ, dense (Y = None: X against itself)."""
        A = as_vectors(X)
        B = A if Y is None else as_vectors(Y, "Y")
        if A.shape[1] != B.shape[1]:
            raise ParameterTypeError(
                f"The linear kernel's inputs must have one width: X has {A.shape[1]} columns but Y has {B.shape[1]}."
            )
        K = A @ B.T
        return np.asarray(K.toarray() if sp.issparse(K) else K, dtype=np.float64)

    def value(self, x: Any, y: Any) -> float:
        """⟨x, y⟩ for two vectors."""
        return float(self.gram(np.atleast_2d(np.asarray(x, dtype=np.float64)), np.atleast_2d(y))[0, 0])

    def diag(self, X: Any) -> np.ndarray:
        """[‖x_i‖²]."""
        A = as_vectors(X)
        return row_sq_norms(A) if sp.issparse(A) else np.einsum("ij,ij->i", A, A)
