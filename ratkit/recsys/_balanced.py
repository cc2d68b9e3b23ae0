"""The closed-form X/Y update of CCCF and DCF: the balanced, decorrelated matrix nearest to the codes.

For m × r codes B (users or items × bits) the auxiliary matrix of the softened constraints is

    X* = argmax tr(BᵀX)   subject to   1ᵀX = 0,  XᵀX = m·I_r.

Because 1ᵀX = 0, tr(BᵀX) = tr(B̄ᵀX) with B̄ = B − 1·mean(B, axis=0), and X/√m has orthonormal
columns inside 1^⊥, so von Neumann's trace inequality bounds the objective by √m·‖B̄‖_* (the
nuclear norm). With the thin SVD B̄ = P Σ Qᵀ of rank r′ the bound is reached by

    X* = √m·(P_{r′} Q_{r′}ᵀ + P̂ Q̂ᵀ),

where Q̂ spans the complement of Q_{r′} in ℝ^r and P̂ (m × (r − r′)) is orthonormal and orthogonal
to P_{r′} and to 1. Each left singular vector is paired with its OWN right singular vector; the
completion P̂ is paired with the null directions Q̂ of B̄, on which it contributes nothing to the
trace (B̄Q̂ = 0) but keeps X feasible. Pairing the completed left factor with the full right factor
in another order (as the reference MATLAB ``UpdateSVD`` does, with ``eig``'s ascending order) stays
feasible but loses the coupling term entirely when B̄ is rank-deficient.

Numerics. The SVD is taken of (a rotation of) B̄ itself, not the eigendecomposition of B̄ᵀB̄, which
would square the condition number. It is taken in coordinates of 1^⊥, after a Householder reflector
that maps 1/√m to −e₁: then 1ᵀX = 0 holds to rounding error whatever the conditioning of B̄ (the left
singular vectors of B̄ computed directly are ⟂ 1 only to about eps·σ_max/σ, which breaks 1ᵀX = 0 at
the 1e-8 level for near-rank-deficient real relaxations), and the completion only has to be
orthogonal to P_{r′}. The rank r′ counts σ > max(m, r)·eps·√(mr)·max|B| (≥ the usual
max(m, r)·eps·σ_max, and above the rounding noise the centring leaves in constant real columns). Cost O(m r²).
"""

from __future__ import annotations

import math

import numpy as np

from ratkit.exceptions import ParameterError, ParameterTypeError

__all__ = ["balanced_orthogonal"]


def balanced_orthogonal(B: np.ndarray, rng: np.random.Generator, *, out: np.ndarray | None = None) -> np.ndarray:
    """The X maximising tr(BᵀX) subject to 1ᵀX = 0 and XᵀX = m·I_r, for an m × r real matrix B.

    X = √m·(P_{r′}Q_{r′}ᵀ + P̂Q̂ᵀ) from the thin SVD B̄ = PΣQᵀ of the column-centred B (rank r′ by
    the relative tolerance σ > max(m, r)·eps·√(mr)·max|B|), P̂ ⟂ [P_{r′}, 1] orthonormal and Q̂ spanning the
    complement of Q_{r′}; the maximum is tr(BᵀX) = √m·Σσ = √m·‖B̄‖_*.

    Parameters
    ----------
    B : array of shape (m, r)
        ±1 codes or a real relaxation of them; rows are users (or items), columns bits.
        B is not modified.
    rng : numpy.random.Generator
        Source of the random completion P̂; drawn from only when B̄ is rank-deficient (then the
        maximiser is not unique). The same rng state gives the same X.
    out : float64 C-contiguous array of shape (m, r), optional
        Where to compute: it holds the working copy of B, then X (one m × r array fewer at
        once, e.g. the previous X being replaced). Must not share memory with B; its contents
        are overwritten, also when an error is raised.

    Returns
    -------
    X : float64 array of shape (m, r) (``out`` when given)

    Raises
    ------
    ParameterError
        B is not two-dimensional, has no column, has m ≤ r (a balanced decorrelated set needs
        more rows than bits), or contains NaN or ±∞.
    ParameterTypeError
        B is not numeric, or rng is not a numpy Generator.
    """
    if not isinstance(rng, np.random.Generator):
        raise ParameterTypeError(
            f"The 'rng' parameter of balanced_orthogonal must be a numpy.random.Generator. Got {rng!r} instead."
        )
    array = np.asarray(B)
    if array.dtype.kind not in "biuf":
        raise ParameterTypeError(
            f"balanced_orthogonal needs a real numeric matrix B; got an array of dtype {array.dtype}."
        )
    if array.ndim != 2:
        raise ParameterError(
            f"balanced_orthogonal needs a two-dimensional matrix B (rows × bits); got an array of shape {array.shape}."
        )
    m, r = array.shape
    if r < 1:
        raise ParameterError(f"balanced_orthogonal needs at least one bit (column) in B; got shape {array.shape}.")
    if m <= r:
        raise ParameterError(
            f"Balanced decorrelated codes need more rows (users or items) than bits: got {m} rows and {r} bits "
            f"(1ᵀX = 0 and XᵀX = m·I need m > r). Use fewer bits or more users/items."
        )
    if out is None:
        values = array.astype(np.float64)  # the one m × r copy that becomes B̄, then X
    else:
        if out.shape != (m, r) or out.dtype != np.float64 or not out.flags.c_contiguous:
            raise ParameterError(
                f"balanced_orthogonal's out must be a C-contiguous float64 array of shape {(m, r)}; got "
                f"{out.dtype} of shape {out.shape}."
            )
        if np.shares_memory(out, array):
            raise ParameterError("balanced_orthogonal's out must not share memory with B (B is not modified).")
        np.copyto(out, array)
        values = out
    finite = np.isfinite(values)
    if not finite.all():
        raise ParameterError(
            f"balanced_orthogonal needs a finite matrix B; it contains {int((~finite).sum())} NaN or infinite "
            f"value(s), the first at row {int(np.argwhere(~finite)[0][0])}."
        )
    del finite
    largest = max(float(values.max()), -float(values.min()))  # max|B|, without an |B| array
    with np.errstate(over="ignore", invalid="ignore"):
        values -= values.mean(axis=0)  # B̄, in place
    centred = values
    if not np.isfinite(centred).all():
        raise ParameterError("balanced_orthogonal needs a matrix B whose column means are finite; its values overflow.")
    # Work in coordinates of 1^⊥: the Householder reflector H (H = Hᵀ = H⁻¹) maps 1/√m to −e₁, so the
    # last m − 1 rows of H·B̄ are EᵀB̄ for an orthonormal basis E of 1^⊥ and X = H·[0; Z] is ⟂ 1 by
    # construction, to rounding error independent of the conditioning of B̄ (the left singular
    # vectors of B̄ itself are ⟂ 1 only to about eps·σ_max/σ, which fails for small σ).
    # Every m × r step is done in place (issue 38: at 125 000 users × 32 bits each copy is 32 MB).
    reflector = np.full(m, 1.0 / math.sqrt(m))
    reflector[0] += 1.0
    beta = 2.0 / float(reflector @ reflector)
    centred -= np.outer(beta * reflector, reflector @ centred)
    left, sigma, right_t = np.linalg.svd(centred[1:], full_matrices=False)  # EᵀB̄, (m−1) × r; right_t is r × r
    del centred, values
    # rank: relative to √(mr)·max|B| ≥ ‖B‖_F ≥ σ_max(B̄), which also bounds the rounding error of the
    # centring (a constant real column leaves rounding noise in B̄ that σ_max(B̄) alone calls signal)
    scale = math.sqrt(m * r) * largest
    rank = int(np.count_nonzero(sigma > max(m, r) * np.finfo(np.float64).eps * scale))
    X = np.empty((m, r)) if out is None else out  # B̄ is not needed any more
    X[0] = 0.0
    np.matmul(left[:, :rank], right_t[:rank], out=X[1:])  # P_{r′}Q_{r′}ᵀ in 1^⊥ coordinates
    if rank < r:  # pair a completion P̂ with the null directions Q̂ of B̄
        completion = _orthonormal_completion(left[:, :rank], r - rank, rng)
        del left
        X[1:] += completion @ right_t[rank:]
        del completion
    else:
        del left
    X -= np.outer(beta * reflector, reflector @ X)
    X *= math.sqrt(m)
    return X


def _orthonormal_completion(basis: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` orthonormal vectors orthogonal to the orthonormal columns of ``basis``: random
    Gaussian vectors projected off ``basis`` and QR-factored, then projected and factored once more
    (one re-orthogonalisation pass: "twice is enough"). Needs count + basis columns ≤ rows."""
    vectors = rng.standard_normal((basis.shape[0], count))
    for _ in range(2):
        vectors -= basis @ (basis.T @ vectors)
        vectors, _triangle = np.linalg.qr(vectors)
    return vectors
