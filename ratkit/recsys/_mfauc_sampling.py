"""MFAUC's compiled samplers: the item draws of the compiled SGD engine.

Every random number comes from the caller's Generator (numba draws through its bit
generator, the stream numpy's own methods read), by the same calls with the same sizes in
the same order as the numpy reference (:class:`ratkit.recsys._mfauc_sgd.Problem`'s
``sample_positive`` and ``sample_negative``): ``random`` for the item draws and each
rejection round. Compiled code turns those uniforms into items by the same searches and
rejections, so both engines see the same samples and leave the Generator in the same
state. Relevance lookups read a user × item bitmap when the matrix is small enough, else
binary-search the user's CSR row. The block steps that use the samples are in
:mod:`ratkit.recsys._mfauc_compiled`.
"""

from __future__ import annotations

import numpy as np

from ratkit._jit import njit

__all__ = ["_sample_positive", "_sample_negative", "_relevance"]


@njit
def _search_right(values: np.ndarray, x: float, lo: int, hi: int) -> int:
    """``lo + searchsorted(values[lo:hi], x, side="right")`` for sorted ``values``."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if values[mid] <= x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit
def _find_right(values: np.ndarray, x: float, lo: int, hi: int, guess: int) -> int:
    """``_search_right(values, x, lo, hi)`` started from a guess: a few steps from ``guess``
    (exact at once when the weights are uniform), then bisection of what is left."""
    at = min(max(guess, lo), hi)
    for _ in range(4):
        if at > lo and values[at - 1] > x:
            at -= 1
        elif at < hi and values[at] <= x:
            at += 1
        else:
            return at
    if at > lo and values[at - 1] > x:
        return _search_right(values, x, lo, at)
    return _search_right(values, x, at, hi)


@njit
def _in_row(indptr: np.ndarray, indices: np.ndarray, user: int, item: int) -> bool:
    """Whether ``item`` is in ``user``'s sorted CSR row (bisection)."""
    lo = np.int64(indptr[user])
    end = np.int64(indptr[user + 1])
    hi = end
    while lo < hi:
        mid = (lo + hi) >> 1
        if indices[mid] < item:
            lo = mid + 1
        else:
            hi = mid
    found = False
    if lo < end:
        found = indices[lo] == item
    return found


@njit
def _in_bits(bits: np.ndarray, user: int, item: int) -> bool:
    """Whether bit ``item`` of ``user``'s row of the bitmap is set."""
    return (bits[user, item >> 6] >> np.uint64(item & 63)) & np.uint64(1) == np.uint64(1)


@njit
def _relevance(
    W: np.ndarray, items: np.ndarray, indptr: np.ndarray, indices: np.ndarray, bits: np.ndarray
) -> np.ndarray:
    """``out[b, w]`` = whether ``items[b]`` is relevant for user ``W[b, w]``."""
    out = np.empty(W.shape, dtype=np.bool_)
    if bits.shape[0] > 0:  # two loops, so that each compiles to its own tight code
        for b in range(W.shape[0]):
            for w in range(W.shape[1]):
                out[b, w] = _in_bits(bits, W[b, w], items[b])
    else:
        for b in range(W.shape[0]):
            for w in range(W.shape[1]):
                out[b, w] = _in_row(indptr, indices, W[b, w], items[b])
    return out


@njit
def _positive_draws(
    users: np.ndarray, uniform: np.ndarray, indptr: np.ndarray, indices: np.ndarray, cum_g: np.ndarray,
    norm_g: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """``Problem.sample_positive`` given its uniforms (one row of ``uniform`` per user)."""
    rows, size = uniform.shape
    out = np.empty((rows, size), dtype=np.int64)
    for r in range(rows):
        i = users[r]
        start, end = indptr[i], indptr[i + 1]
        base = cum_g[start - 1] if start > 0 else 0.0
        scale = (end - start) / norm_g[i]
        for c in range(size):
            target = base + uniform[r, c] * norm_g[i]
            where = _find_right(cum_g, target, start, end, start + int((target - base) * scale))
            out[r, c] = indices[min(max(where, start), end - 1)]
    return out


@njit
def _negative_round(
    out: np.ndarray, todo: np.ndarray, users: np.ndarray, uniform: np.ndarray, cum_g_prime: np.ndarray,
    indptr: np.ndarray, indices: np.ndarray, bits: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """One rejection round of ``Problem.sample_negative``: draw for the flat positions
    ``todo``, return those that hit a relevant item (to draw again)."""
    n = len(cum_g_prime)
    total = cum_g_prime[n - 1]
    per_unit = n / total
    for r in range(len(todo)):
        x = uniform[r] * total
        out[todo[r]] = min(_find_right(cum_g_prime, x, 0, n, int(x * per_unit)), n - 1)
    again = np.empty(len(todo), dtype=np.int64)
    count = 0
    if bits.shape[0] > 0:  # two loops, so that each compiles to its own tight code
        for r in range(len(todo)):
            position = todo[r]
            if _in_bits(bits, users[position], out[position]):
                again[count] = position
                count += 1
    else:
        for r in range(len(todo)):
            position = todo[r]
            if _in_row(indptr, indices, users[position], out[position]):
                again[count] = position
                count += 1
    return again[:count]


@njit
def _sample_positive(rng, users, size, indptr, indices, cum_g, norm_g):
    """``Problem.sample_positive(users, size, rng)`` (1-D ``users``): the same uniforms from
    the same Generator (numba draws them through its bit generator), the same items."""
    uniform = rng.random(len(users) * size).reshape((len(users), size))
    return _positive_draws(users, uniform, indptr, indices, cum_g, norm_g)


@njit
def _sample_negative(rng, users, size, cum_g_prime, g_prime, indptr, indices, bits):
    """``Problem.sample_negative(users, size, rng)`` (1-D ``users``): the same rejection
    rounds on the same uniforms and, for users who like nearly everything, the same
    ``rng.choice(others, p=g′/Σg′)`` (a uniform searched in the normalised cumulative sum)."""
    flat_users = np.repeat(users, size)
    out = np.empty(len(flat_users), dtype=np.int64)
    todo = np.arange(len(flat_users))
    for _ in range(200):
        todo = _negative_round(out, todo, flat_users, rng.random(len(todo)), cum_g_prime, indptr, indices, bits)
        if len(todo) == 0:
            break
    n = len(g_prime)
    for position in todo:
        i = flat_users[position]
        liked = np.zeros(n, dtype=np.bool_)
        liked[indices[indptr[i] : indptr[i + 1]]] = True
        others = np.flatnonzero(~liked)
        weights = g_prime[others]
        cdf = np.cumsum(weights / weights.sum())
        cdf /= cdf[-1]
        out[position] = others[np.searchsorted(cdf, rng.random(), side="right")]
    return out.reshape((len(users), size))
