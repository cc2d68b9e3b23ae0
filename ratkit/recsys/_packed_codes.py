"""Packed binary codes and their scoring, for CCCF/DCF online retrieval.

A model has ``G`` components. User ``i`` has codes ``b_i^(k) ∈ {±1}^r`` and weights
``η_i^(k) ≥ 0``; item ``j`` has ``d_j^(k)`` and ``ξ_j^(k)``. The predicted score is

    r̂_ij = Σ_k η_i^(k) ξ_j^(k) ⟨b_i^(k), d_j^(k)⟩,   ⟨b, d⟩ = r − 2·Hamming(b, d),

since each bit contributes +1 where the codes agree and −1 where they differ. Codes are
stored packed, eight bits a byte (``np.packbits``: bit 1 for +1, the first bit in the
most significant position, zero padding at the end), so ``Hamming(b, d)`` is the
popcount of ``b XOR d`` summed over the ``⌈r/8⌉`` bytes of a component.

Scoring costs ``nnz(η_i)`` Hamming distances per item (the paper's ``T_h·nnz(w)``
argument): components where the user's weight is 0 are never visited; an item whose
weight is 0 contributes a zero product (no branch, so the loop over items vectorises).
The items are laid out component-major once (:func:`item_table`) and users are scored
against that table (:func:`table_scores`).

Integer weights (the paper's §3.7): ``η̃ = ⌊e·η⌉``, ``ξ̃ = ⌊e·ξ⌉`` turn the score into
integer arithmetic, ``s̃_ij = Σ_k η̃ ξ̃ ⟨b, d⟩ ≈ e²·r̂_ij`` (the factor ``e²`` does not change
rankings); :func:`rounding_error_bound` bounds ``|s̃_ij/e² − r̂_ij|``.

References
----------
Liu et al. Compositional Coding for Collaborative Filtering. SIGIR 2019, §3.2 (the score
and its cost) and §3.7 (integer weights).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ratkit._jit import njit
from ratkit._jit import popcount as _popcount_intrinsic
from ratkit._validation import check_int, check_real
from ratkit.exceptions import ParameterError
from ratkit.recsys._ranking import top_n

__all__ = [
    "pack_codes",
    "unpack_codes",
    "integer_weights",
    "rounding_error_bound",
    "packed_scores",
    "packed_scores_batch",
    "ItemTable",
    "item_table",
    "table_scores",
    "table_top_k",
    "top_k",
]

_OWNER = "packed codes"

#: ``ratkit._jit.popcount`` as compiled code calls it, ``popcount(x)``: numba's ``@intrinsic``
#: types the object by its Python definition, ``(typingctx, x)``, which no caller uses.
popcount: Callable[[Any], Any] = _popcount_intrinsic  # type: ignore[assignment]  # numba's type, see above


def _n_words(n_bits: int) -> int:
    return (n_bits + 7) // 8


def pack_codes(codes: np.ndarray) -> np.ndarray:
    """``(N, G, r)`` codes in {±1} → ``(N, G, ⌈r/8⌉)`` uint8, ``np.packbits`` along the last axis.

    Bit ``t`` of a component is 1 for ``+1`` and 0 for ``−1``; the padding bits of the last
    byte are 0.

    Raises
    ------
    ParameterError
        ``codes`` is not three-dimensional with ``r ≥ 1``, or holds a value other than ±1
        (the message names the first such position).
    """
    codes = np.asarray(codes)
    if codes.ndim != 3 or codes.shape[2] < 1:
        raise ParameterError(f"codes must be an array of shape (N, G, r) with r ≥ 1. Got shape {codes.shape} instead.")
    if codes.dtype.kind not in "biuf":
        raise ParameterError(f"codes must be numeric with values in {{-1, +1}}. Got dtype {codes.dtype} instead.")
    bad = (codes != 1) & (codes != -1)
    if bad.any():
        position = tuple(int(t) for t in np.argwhere(bad)[0])
        raise ParameterError(f"codes must hold only -1 and +1. Got {codes[position]!r} at position {position} instead.")
    return np.packbits(codes > 0, axis=-1)


def unpack_codes(packed: np.ndarray, n_bits: int) -> np.ndarray:
    """Inverse of :func:`pack_codes`: ``(N, G, ⌈r/8⌉)`` uint8 → ``(N, G, r)`` int8 in {±1}, ``2·bit − 1``.

    Padding bits beyond ``n_bits`` are ignored.
    """
    n_bits = check_int(n_bits, "n_bits", _OWNER, low=1)
    packed = _check_packed(packed, "packed", n_bits, 3)
    bits = np.unpackbits(packed, axis=-1, count=n_bits).astype(np.int8)
    return 2 * bits - 1


def integer_weights(weights: np.ndarray, scale: float) -> np.ndarray:
    """``⌊e·w⌉`` as int64, with ``e = scale > 0`` (the paper's §3.7 integer approximation).

    Rounding is numpy's ``np.rint``: halves go to the nearest even integer (2.5 → 2,
    3.5 → 4), so ``|⌊e·w⌉ − e·w| ≤ 1/2`` always.

    Raises
    ------
    ParameterError
        ``scale`` is not a finite float > 0, ``weights`` is not numeric or holds NaN/±∞,
        or ``scale·weights`` does not fit in int64.
    """
    scale = check_real(scale, "scale", _OWNER, low=0.0, low_open=True)
    weights = np.asarray(weights)
    if weights.dtype.kind not in "biuf":
        raise ParameterError(f"weights must be a numeric array. Got dtype {weights.dtype} instead.")
    scaled = np.rint(scale * weights.astype(np.float64))
    if not np.isfinite(scaled).all():
        raise ParameterError("weights must be finite. Got NaN or infinity (or scale·weights overflowed) instead.")
    if scaled.size and np.abs(scaled).max() >= 2.0**62:
        raise ParameterError(f"scale·weights must fit in int64. Got a largest |value| of {np.abs(scaled).max():g}.")
    return scaled.astype(np.int64)


def rounding_error_bound(user_weights: np.ndarray, item_weights: np.ndarray, scale: float, n_bits: int) -> np.ndarray:
    """Per item ``j``, a bound on ``|s̃_ij/e² − r̂_ij|`` for integer weights of scale ``e``.

    With ``a = eη``, ``c = eξ``, ``ã = ⌊a⌉``, ``c̃ = ⌊c⌉`` and ``δ_a = |ã − a| ≤ min(½, |a|)``
    (rounding moves a number by at most ½, and a number with ``|a| < ½`` goes to 0),

        ã c̃ − a c = (ã − a) c + a (c̃ − c) + (ã − a)(c̃ − c),

    so ``|ã c̃ − a c| ≤ δ_a |c| + |a| δ_c + δ_a δ_c``. As ``|⟨b, d⟩| ≤ r``,

        |s̃_ij/e² − r̂_ij| ≤ (r/e²) Σ_k [δ_a |c| + |a| δ_c + δ_a δ_c]
                         ≤ r Σ_k (|η| + |ξ|)/(2e) + r G/(4e²),

    and a component where either weight is 0 contributes nothing (then ``a c = ã c̃ = 0``).
    Returned is the first (tighter) bound, shape ``(n,)`` for ``user_weights`` of shape
    ``(G,)`` and ``item_weights`` of shape ``(n, G)``. Two items whose float scores differ by
    more than the sum of their bounds are ranked the same way by the integer scores.
    """
    scale = check_real(scale, "scale", _OWNER, low=0.0, low_open=True)
    n_bits = check_int(n_bits, "n_bits", _OWNER, low=1)
    a = scale * np.abs(np.asarray(user_weights, dtype=np.float64))[None, :]
    c = scale * np.abs(np.asarray(item_weights, dtype=np.float64))
    delta_a = np.minimum(0.5, a)
    delta_c = np.minimum(0.5, c)
    return n_bits * (delta_a * c + a * delta_c + delta_a * delta_c).sum(axis=1) / scale**2


class ItemTable(NamedTuple):
    """The items laid out for scoring, component-major: ``codes[k, q, j]`` is byte q of item
    j's component k (uint8, (G, W, n)), ``weights[k, j]`` is ξ_jk ((G, n)), in the dtype the
    scores accumulate in. Built once per model (:func:`item_table`), so that scoring a user
    streams contiguous rows that the compiler vectorises."""

    codes: np.ndarray
    weights: np.ndarray
    #: r; the padding bits of a component's last byte (beyond r) never count
    n_bits: int


_NDARRAY = np.ndarray
_UINT8 = np.dtype(np.uint8)
_INT64 = np.dtype(np.int64)
#: The largest |integer score| accumulated in int32; beyond it scores accumulate in int64.
_INT32_SAFE = 2**31 - 1


def item_table(item_codes: np.ndarray, item_weights: np.ndarray, n_bits: int, *, user_bound: float = 0.0) -> ItemTable:
    """:class:`ItemTable` of packed codes (n, G, W) and weights (n, G). Integer weights
    accumulate in int32 when ``user_bound`` (the largest user weight) keeps every score
    within it, r·Σ_k max|η̃| max|ξ̃| < 2³¹, else in int64; float weights in float64."""
    if type(n_bits) is not int or n_bits < 1:
        n_bits = check_int(n_bits, "n_bits", _OWNER, low=1)
    item_codes = _check_packed(item_codes, "item_codes", n_bits, 3)
    n, g, _ = item_codes.shape
    item_weights = _check_weights(item_weights, "item_weights", (n, g))
    if item_weights.dtype.kind in "biu":
        largest = float(np.abs(item_weights).max(initial=0)) * float(user_bound) * n_bits * g
        if largest >= 2.0**63:
            raise ParameterError(
                f"Integer scores would overflow int64: the largest |score| is up to {largest:.3g} ≥ 2⁶³ "
                "(r·G·max|η̃|·max|ξ̃|); use smaller integer weights (a smaller weight_scale)."
            )
        dtype: type[np.number[Any]] = np.int32 if 0 < largest <= _INT32_SAFE else np.int64
    else:
        dtype = np.float64
    codes = np.ascontiguousarray(item_codes.transpose(1, 2, 0))
    return ItemTable(codes, np.ascontiguousarray(item_weights.T, dtype=dtype), n_bits)


#: What :func:`_score_rows` returns for shapes that do not fit together (a row index outside
#: the users is reported by its position in ``rows``, ≥ 0; success is −1).
_BAD_SHAPES = -2


@njit
def _fits(rows, users_codes, users_weights, codes, weights, n_bits, n_out_rows, n_out):  # pragma: no cover
    """Whether the arrays of a scoring call fit together (see :func:`_score_rows`): users_codes
    (m, G, W), users_weights (m, G), weights (G, n), the output (len(rows), n),
    ``1 ≤ n_bits`` and ``8W − 8 < n_bits ≤ 8W``."""
    g, n_w, n = codes.shape
    m = users_codes.shape[0]
    return not (
        users_codes.shape[1] != g
        or users_codes.shape[2] != n_w
        or users_weights.shape[0] != m
        or users_weights.shape[1] != g
        or weights.shape[0] != g
        or weights.shape[1] != n
        or n_out_rows != rows.shape[0]
        or n_out != n
        or n_bits < 1
        or not 0 <= 8 * n_w - n_bits < 8
    )


@njit
def _outside(rows, m):  # pragma: no cover - compiled
    """The position in ``rows`` of the first index outside [0, m), else −1."""
    for t in range(rows.shape[0]):
        if rows[t] < 0 or rows[t] >= m:
            return t
    return -1


@njit
def _score_row(i, users_codes, users_weights, codes, weights, n_bits, row, hamming):  # pragma: no cover
    """``row[j] = Σ_{k: η_ik ≠ 0} η_ik ξ_jk (n_bits − 2·Σ_q popcount(b_ikq XOR d_jkq))`` for user
    ``i`` (unchecked: :func:`_fits` and :func:`_outside` first); ``hamming`` is int32 scratch
    of n entries when a component has several bytes.

    Components where the user's weight is 0 are skipped (cost n·nnz(η_i)); an item weight
    of 0 contributes a zero product (a branch per item would stop the vectorisation).
    Padding bits (those of a component's last byte beyond ``n_bits``) never count.
    Each term is ``(η_ik·ξ_jk)·(n_bits − 2·Hamming)``, added to ``row[j]`` in the order of
    the components, starting from 0 (floats round the same way on every path; the first term
    is written as ``0 + term`` rather than after a pass zeroing the row, same result: −0.0
    becomes +0.0).
    """
    g, n_w, n = codes.shape
    last_mask = np.uint8((0xFF << (8 * n_w - n_bits)) & 0xFF)  # the real bits of the last byte
    r = row.dtype.type(n_bits)
    two = row.dtype.type(2)
    zero = row.dtype.type(0)
    first = True  # the first component visited writes 0 + its term: no pass zeroing the row
    for k in range(g):
        a = users_weights[i, k]
        if a == 0:
            continue
        wk = weights[k]
        if n_w == 1:  # one byte a component (r ≤ 8): one fused pass
            b = np.uint8(users_codes[i, k, 0] & last_mask)
            byte = codes[k, 0]
            for j in range(n):
                x = popcount(np.uint8(b ^ np.uint8(byte[j] & last_mask)))
                row[j] = (zero if first else row[j]) + a * wk[j] * (r - two * row.dtype.type(x))
            first = False
            continue
        for q in range(n_w):
            mask = last_mask if q == n_w - 1 else np.uint8(0xFF)
            b = np.uint8(users_codes[i, k, q] & mask)
            byte = codes[k, q]
            for j in range(n):
                x = np.int32(popcount(np.uint8(b ^ np.uint8(byte[j] & mask))))
                hamming[j] = x if q == 0 else hamming[j] + x
        for j in range(n):
            row[j] = (zero if first else row[j]) + a * wk[j] * (r - two * row.dtype.type(hamming[j]))
        first = False
    if first:  # no component visited (every weight of the user is 0)
        for j in range(n):
            row[j] = 0


@njit
def _score_rows(rows, users_codes, users_weights, codes, weights, n_bits, out):  # pragma: no cover
    """``out[t] =`` the scores of user ``rows[t]`` against every item (:func:`_score_row`).

    Compiled code does not check bounds (an unchecked index reads or writes another array's
    memory), so every shape is checked here first: returns ``_BAD_SHAPES`` when the arrays do
    not fit together (users_codes (m, G, W), users_weights (m, G), weights (G, n),
    out (len(rows), n), ``1 ≤ n_bits`` and ``8W − 8 < n_bits ≤ 8W``), else the position in
    ``rows`` of the first index outside [0, m), else −1 (scored).
    """
    if not _fits(rows, users_codes, users_weights, codes, weights, n_bits, out.shape[0], out.shape[1]):
        return _BAD_SHAPES
    bad = _outside(rows, users_codes.shape[0])
    if bad != -1:
        return bad
    g, n_w, n = codes.shape
    hamming = np.empty(n if n_w > 1 else 0, dtype=np.int32)  # several bytes a component only
    for t in range(rows.shape[0]):
        _score_row(rows[t], users_codes, users_weights, codes, weights, n_bits, out[t], hamming)
    return -1


def table_scores(
    table: ItemTable,
    users_codes: np.ndarray,
    users_weights: np.ndarray,
    rows: np.ndarray | None = None,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Scores of users with packed codes (m, G, W) and weights (m, G) against every item of
    ``table``: Σ_k η_ik ξ_jk (r − 2·popcount(b_ik XOR d_jk)), in the table's dtype (user
    weights are cast to it). ``rows`` (int64 indices) picks the users scored, shape
    (len(rows), n), without copying them out; ``out`` is an array of that shape and dtype
    to fill (the retrieval loop reuses one)."""
    codes, weights, n_bits = table
    dtype = weights.dtype
    users_codes, users_weights, rows = _arguments(table, users_codes, users_weights, rows)
    if out is None:
        out = np.empty((rows.shape[0], codes.shape[2]), dtype=dtype)
    elif not (type(out) is _NDARRAY and out.ndim == 2 and (out.dtype is dtype or out.dtype == dtype)):
        raise ParameterError(f"out must be a {dtype} array of shape {(rows.shape[0], codes.shape[2])}.")
    bad = _score_rows(rows, users_codes, users_weights, codes, weights, n_bits, out)
    if bad != -1:
        _refuse(table, users_codes, users_weights, rows, out, bad)
    return out


def _arguments(
    table: ItemTable, users_codes: Any, users_weights: Any, rows: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The users' codes, weights (in the table's dtype) and int64 row indices (None: every
    user) of a scoring call. The retrieval hot path: in Python only what picks the compiled
    specialisation (types, dtypes, numbers of axes; any memory layout compiles); the shapes
    and the row indices are checked inside the compiled call, which refuses them before
    reading (no copies)."""
    if not (
        type(users_codes) is _NDARRAY
        and users_codes.dtype is _UINT8
        and users_codes.ndim == 3
        and type(users_weights) is _NDARRAY
        and users_weights.dtype is table.weights.dtype
        and users_weights.ndim == 2
    ):
        users_codes, users_weights = _users_for(table, users_codes, users_weights)
    if rows is None:
        rows = np.arange(users_codes.shape[0])
    elif not (type(rows) is _NDARRAY and rows.dtype is _INT64 and rows.ndim == 1):
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
    return users_codes, users_weights, rows


def _users_for(table: ItemTable, users_codes: Any, users_weights: Any) -> tuple[np.ndarray, np.ndarray]:
    """Users' codes and weights checked and converted for :func:`table_scores`: C-contiguous
    uint8 codes (m, G, W) and weights (m, G) cast to the table's dtype."""
    g = table.codes.shape[0]
    dtype = table.weights.dtype
    users_codes = _check_packed(users_codes, "users_codes", table.n_bits, 3)
    m = users_codes.shape[0]
    if users_codes.shape[1] != g:
        raise ParameterError(f"users_codes must have G = {g} components like the items'. Got {users_codes.shape[1]}.")
    users_weights = _check_weights(users_weights, "users_weights", (m, g))
    if dtype.kind != "f" and users_weights.dtype.kind not in "biu":
        raise ParameterError("users_weights must be integers to score against integer item weights.")
    return users_codes, np.ascontiguousarray(users_weights, dtype=dtype)


def _refuse(
    table: ItemTable, users_codes: np.ndarray, users_weights: np.ndarray, rows: np.ndarray, out: np.ndarray, bad: int
) -> None:
    """Raise the ParameterError for the arguments :func:`_score_rows` refused (it returned ``bad``)."""
    g, n_w, n = table.codes.shape
    m = users_codes.shape[0]
    if users_codes.shape[1:] != (g, n_w):
        _users_for(table, users_codes, users_weights)  # raises, naming the axis
    if users_weights.shape[0] != m:
        raise ParameterError(
            f"users_weights must have one row per user of users_codes ({m}). Got shape {users_weights.shape} instead."
        )
    if users_weights.shape != (m, g):
        raise ParameterError(f"users_weights must have shape {(m, g)}. Got shape {users_weights.shape} instead.")
    if out.shape != (rows.shape[0], n):
        raise ParameterError(f"out must be a {table.weights.dtype} array of shape {(rows.shape[0], n)}.")
    if bad >= 0:
        raise ParameterError(f"rows must index the {m} users; got {int(rows[bad])}.")
    raise ParameterError(
        f"table does not hold together: codes of shape {table.codes.shape}, weights of shape "
        f"{table.weights.shape}, n_bits = {table.n_bits}; build it with item_table."
    )


def table_top_k(
    table: ItemTable, users_codes: np.ndarray, users_weights: np.ndarray, rows: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """(ids, scores), shape (len(rows), k): the k best items of each user of ``rows`` by
    :func:`table_scores`, best first, ties to the smaller item id — scoring and selection
    compiled (:func:`ratkit.recsys._ranking.top_k_rows`, one pass over the items, no sort of
    the n scores)."""
    n = table.codes.shape[2]
    k = check_int(k, "k", _OWNER, low=1, high=n)
    return top_n(table_scores(table, users_codes, users_weights, rows=rows), k)


def packed_scores(
    user_codes: np.ndarray,
    user_weights: np.ndarray,
    item_codes: np.ndarray,
    item_weights: np.ndarray,
    n_bits: int,
) -> np.ndarray:
    """Scores of ONE user against all items: ``s_j = Σ_k η_k ξ_jk (r − 2·popcount(b_k XOR d_jk))``.

    Parameters
    ----------
    user_codes : (G, W) uint8
        The user's packed codes, ``W = ⌈n_bits/8⌉`` (:func:`pack_codes`).
    user_weights : (G,)
        ``η``. Only its nonzero components are visited.
    item_codes : (n, G, W) uint8
        The items' packed codes.
    item_weights : (n, G)
        ``ξ``. A term with ``ξ_jk = 0`` adds a zero product.
    n_bits : int
        ``r``, the number of bits in a component. Padding bits are ignored.

    Returns
    -------
    (n,) int64 when both weight arrays have an integer dtype (exact integer arithmetic,
    e.g. :func:`integer_weights`), float64 otherwise (a mix of integer and float weights
    is float). Weights are used as given, unchecked (the call is the retrieval hot path):
    NaN or ±∞ reach the scores, except across a zero user weight, whose component is never
    visited (an item's NaN or ∞ opposite its own zero is not guarded: 0·∞ is NaN). A user
    whose weights are all 0 scores 0
    everywhere. Integer scores are exact while ``r·Σ_k |η̃_k ξ̃_jk| < 2⁶³`` (not checked:
    with weights in [0, 1] and ``e ≤ 10⁶`` it holds for any ``r·G < 9·10⁶``).

    Cost: ``nnz(η)`` Hamming distances per item, in a loop over the items that the compiler
    vectorises (per-byte popcounts: AVX-512 VPOPCNTB where the CPU has it). This builds the
    item table on every call; a model scores against one built once (:func:`item_table`,
    :func:`table_scores`).
    """
    user_codes = np.asarray(user_codes)
    if user_codes.ndim != 2:
        raise ParameterError(f"user_codes must have shape (G, W). Got shape {user_codes.shape} instead.")
    user_weights = np.asarray(user_weights)
    if user_weights.shape != user_codes.shape[:1]:
        raise ParameterError(
            f"user_weights must have shape (G,) = ({user_codes.shape[0]},). Got shape {user_weights.shape} instead."
        )
    return packed_scores_batch(user_codes[None], user_weights[None], item_codes, item_weights, n_bits)[0]


def packed_scores_batch(
    users_codes: np.ndarray,
    users_weights: np.ndarray,
    item_codes: np.ndarray,
    item_weights: np.ndarray,
    n_bits: int,
) -> np.ndarray:
    """:func:`packed_scores` for several users: ``(m, G, W)`` codes and ``(m, G)`` weights → ``(m, n)`` scores.

    Row ``i`` is ``Σ_k η_ik ξ_jk ⟨b_i^(k), d_j^(k)⟩`` over the items ``j``, computed one user
    at a time in a compiled loop (single thread; the GIL is released).
    """
    users_weights = np.asarray(users_weights)
    integer = users_weights.dtype.kind in "biu" and np.asarray(item_weights).dtype.kind in "biu"
    bound = float(np.abs(users_weights).max(initial=0)) if integer else 0.0
    table = item_table(item_codes, item_weights, n_bits, user_bound=bound)
    if integer and table.weights.dtype != np.int64:
        return table_scores(table, users_codes, users_weights).astype(np.int64)
    if not integer and table.weights.dtype.kind != "f":  # integer items, float users: score in float
        table = table._replace(weights=table.weights.astype(np.float64))
    return table_scores(table, users_codes, users_weights)


def top_k(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Ids and values of the ``k`` largest scores, best first, ties to the smaller id.

    ``scores`` of shape ``(n,)`` gives arrays of shape ``(min(k, n),)``; of shape
    ``(m, n)``, one row per user (:func:`ratkit.recsys._ranking.top_n`).
    """
    k = check_int(k, "k", _OWNER, low=1)
    scores = np.asarray(scores)
    if scores.ndim == 1:
        ids, values = top_n(scores[None, :], k)
        return ids[0], values[0]
    if scores.ndim != 2:
        raise ParameterError(f"scores must have shape (n,) or (m, n). Got shape {scores.shape} instead.")
    return top_n(scores, k)


def _check_packed(packed: Any, name: str, n_bits: int, ndim: int) -> np.ndarray:
    """``packed`` as a C-contiguous uint8 array of ``ndim`` axes whose last is ``⌈n_bits/8⌉``."""
    packed = np.asarray(packed)
    if packed.dtype != np.uint8:
        raise ParameterError(f"{name} must be packed codes of dtype uint8 (pack_codes). Got dtype {packed.dtype}.")
    if packed.ndim != ndim or packed.shape[-1] != _n_words(n_bits):
        raise ParameterError(
            f"{name} must have {ndim} axes, the last of length ceil(n_bits/8) = {_n_words(n_bits)} "
            f"for n_bits = {n_bits}. Got shape {packed.shape} instead."
        )
    return np.ascontiguousarray(packed)


def _check_weights(weights: Any, name: str, shape: tuple[int, ...]) -> np.ndarray:
    weights = np.asarray(weights)
    if weights.shape != shape:
        raise ParameterError(f"{name} must have shape {shape}. Got shape {weights.shape} instead.")
    if weights.dtype.kind not in "biuf":
        raise ParameterError(f"{name} must be numeric. Got dtype {weights.dtype} instead.")
    return weights
