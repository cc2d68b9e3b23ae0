"""Vectorised enumeration of the strings of a finite automaton, with their weights.

The feature automaton Φ_x = Π2(X ∘ T) of a finite-feature kernel is acyclic; its
accepted strings z and weights Φ_x(z) are the sparse feature vector of x. Enumerating
paths layer by layer with numpy avoids a Python call per path; strings are encoded as
integers in base L + 1 with digits 1..L (the labels), so equal strings get equal codes.
"""

from __future__ import annotations

import numpy as np

from ratkit.automata.fst_arrays import FstArrays
from ratkit.exceptions import RatkitError

__all__ = ["TooManyPaths", "enumerate_paths", "max_code_length"]


class TooManyPaths(RatkitError, OverflowError):
    """The automaton has more paths than the enumeration bound (or is cyclic)."""


#: What :func:`max_code_length` returns for an empty alphabet: every string over it is ε.
UNBOUNDED_LENGTH = 2**62


def max_code_length(n_labels: int) -> int:
    """Longest string whose base-(n_labels + 1) code fits in an int64.

    Over an empty alphabet (``n_labels == 0``) the only string is ε, whose code is 0, so
    there is no bound: :data:`UNBOUNDED_LENGTH` is returned.
    """
    if n_labels < 0:
        raise ValueError(f"max_code_length needs a number of labels ≥ 0; got {n_labels}.")
    if n_labels == 0:
        return UNBOUNDED_LENGTH
    base = n_labels + 1
    length, value = 0, 1
    while value * base < 2**62:
        value *= base
        length += 1
    return length


def enumerate_paths(a: FstArrays, n_labels: int, max_paths: int) -> tuple[np.ndarray, np.ndarray]:
    """(codes, native weights) of every accepting path of an ε-free acyclic acceptor.

    Native weights are OpenFst values (−ln p for log64 arcs), summed along each path in
    float64, so long paths neither underflow nor overflow. Several paths may share a
    code; callers add their weights. Raises TooManyPaths when the number of path
    prefixes exceeds ``max_paths``, when a path is longer than an int64 code allows, or
    when the automaton is cyclic.
    """
    if np.any(a.ilabel == 0) or np.any(a.olabel == 0):
        raise ValueError("enumerate_paths needs an ε-free automaton")
    if a.n_states == 0 or a.start < 0:  # the empty machine: no path
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    base = n_labels + 1
    limit = max_code_length(n_labels)
    order = np.argsort(a.src, kind="stable")
    src, lab, w, dst = a.src[order], a.olabel[order], a.weight[order], a.dst[order]
    offsets = np.zeros(a.n_states + 1, dtype=np.int64)
    np.add.at(offsets, src + 1, 1)
    offsets = np.cumsum(offsets)
    degree = np.diff(offsets)
    final = a.final

    states = np.array([a.start], dtype=np.int64)
    codes = np.zeros(1, dtype=np.int64)
    weights = np.zeros(1, dtype=np.float64)
    out_codes, out_weights = [], []
    seen = 0
    depth = 0
    while states.size:
        fin = np.isfinite(final[states])
        if fin.any():
            out_codes.append(codes[fin])
            out_weights.append(weights[fin] + final[states[fin]])
        deg = degree[states]
        total = int(deg.sum())
        if total == 0:
            break
        seen += total
        depth += 1
        if seen > max_paths or depth > min(limit, a.n_states):
            raise TooManyPaths(
                f"the automaton has more than {max_paths} path prefixes, paths longer than {limit} symbols, or a cycle"
            )
        parent = np.repeat(np.arange(states.size), deg)
        arc = np.repeat(offsets[states], deg) + (np.arange(total) - np.repeat(np.cumsum(deg) - deg, deg))
        states = dst[arc]
        codes = codes[parent] * base + lab[arc]
        weights = weights[parent] + w[arc]
    if not out_codes:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    return np.concatenate(out_codes), np.concatenate(out_weights)
