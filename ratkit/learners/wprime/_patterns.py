"""Patterns as integer codes: base-(L + 1) numbers with digits 1..L (see kernels.features),
and :class:`PatternTrie`, the trie of a set of codes.

The kernel engine names every feature (a string z over the alphabet numbered 1..L) by
its code Σ_k z_k (L + 1)^(|z| − 1 − k); the empty string is 0 and no digit is 0, so
a code's prefixes are its integer quotients by powers of the base.

The trie of the training patterns is a structure *about* W′, not the arrays training runs
on (those are :class:`~ratkit.learners.dcd.rows.IndexedRows`): the ``"automaton"``
representation minimises it into its DFA, the ``"trie"`` representation counts its nodes
for ``wprime_size_``, and :func:`~ratkit.learners.wprime.wprime_sizes` measures the final
W′ on it (Table III).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ratkit.automata.kernels.features import sorted_unique

__all__ = ["code_lengths", "code_labels", "sorted_lcp", "PatternTrie"]


def code_lengths(codes: np.ndarray, base: int) -> np.ndarray:
    """|z| for every code (the number of base-``base`` digits; 0 for the empty string)."""
    c = np.asarray(codes, dtype=np.int64).copy()
    out = np.zeros(c.shape, dtype=np.int64)
    while np.any(c):
        nz = c > 0
        out += nz
        c //= base
    return out


def code_labels(codes: np.ndarray, base: int) -> tuple[np.ndarray, np.ndarray]:
    """(labels, lengths): row j holds z_j's labels left-aligned, padded with 0."""
    codes = np.asarray(codes, dtype=np.int64)
    lengths = code_lengths(codes, base)
    width = int(lengths.max()) if lengths.size else 0
    labels = np.zeros((codes.shape[0], max(width, 1)), dtype=np.int64)
    for k in range(width):
        power = lengths - 1 - k
        ok = power >= 0
        labels[ok, k] = (codes[ok] // np.power(base, power[ok])) % base
    return labels, lengths


def sorted_lcp(indptr: np.ndarray, cols: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """For each stored entry, the common prefix length of its pattern with the previous
    entry's pattern in the same row (0 for the first entry of a row)."""
    nnz = cols.shape[0]
    out = np.zeros(nnz, dtype=np.int64)
    if nnz < 2:
        return out
    same = labels[cols[1:]] == labels[cols[:-1]]
    out[1:] = np.cumprod(same, axis=1).sum(axis=1)
    out[np.asarray(indptr[:-1], dtype=np.int64)[np.diff(indptr) > 0]] = 0
    return out


@dataclass(frozen=True)
class PatternTrie:
    """The trie of a set of patterns given by their codes (base ``base``, digits 1..base−1).

    Node k spells the pattern of code ``node_codes[k]``; nodes are sorted by code, so
    the root (the empty string, code 0) is node 0 and parents come before children.
    Training on the trie needs only the nodes; the structure below is derived from
    them when first asked for.

    Attributes
    ----------
    base
        L + 1 for an alphabet numbered 1..L.
    node_codes
        The code of every node, ascending.
    final
        True for the nodes that spell one of the patterns.
    parent, label, depth
        Per node: its parent (−1 for the root), the label of the arc into it (0 for the
        root) and its depth.
    child_offsets, children
        Children of node k are ``children[child_offsets[k]:child_offsets[k + 1]]``,
        sorted by label.
    """

    base: int
    node_codes: np.ndarray
    final: np.ndarray

    @classmethod
    def from_codes(cls, codes: np.ndarray, base: int) -> PatternTrie:
        """The trie of the patterns ``codes`` (vectorised: prefixes are integer quotients)."""
        codes = sorted_unique(np.asarray(codes, dtype=np.int64))
        prefixes = [np.zeros(1, dtype=np.int64), codes]
        cur = codes
        while cur.size:
            cur = sorted_unique(cur // base, presorted=True)  # quotients of sorted codes stay sorted
            cur = cur[cur > 0]
            prefixes.append(cur)
        nodes = sorted_unique(np.concatenate(prefixes))
        final = np.zeros(nodes.shape[0], dtype=bool)
        final[np.searchsorted(nodes, codes)] = True
        return cls(base, nodes, final)

    @staticmethod
    def count_states(codes: np.ndarray, base: int) -> int:
        """The number of nodes of the trie of ``codes``, without building it.

        When the patterns all have one length (a code's length grows with its value, so
        the smallest and largest code tell), depth d holds the distinct quotients of the
        sorted codes by base^(n−d), and no two depths share a node; otherwise the trie
        is built.
        """
        codes = sorted_unique(np.asarray(codes, dtype=np.int64))
        codes = codes[codes > 0]  # the empty pattern is the root
        if not codes.size:
            return 1
        first, last = code_lengths(codes[[0, -1]], base)
        if first != last:
            return PatternTrie.from_codes(codes, base).n_states
        total, cur = 1, codes
        while cur[0] > 0:
            total += cur.shape[0]
            cur = sorted_unique(cur // base, presorted=True)
        return total

    @cached_property
    def parent(self) -> np.ndarray:
        parent = np.searchsorted(self.node_codes, self.node_codes // self.base)
        parent[0] = -1
        return parent

    @cached_property
    def label(self) -> np.ndarray:
        label = self.node_codes % self.base
        label[0] = 0
        return label

    @cached_property
    def depth(self) -> np.ndarray:
        return code_lengths(self.node_codes, self.base)

    @cached_property
    def child_offsets(self) -> np.ndarray:
        counts = np.bincount(self.parent[1:], minlength=self.n_states)
        offsets = np.zeros(self.n_states + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        return offsets

    @cached_property
    def children(self) -> np.ndarray:
        return np.argsort(self.parent[1:], kind="stable") + 1  # grouped by parent, by label

    @property
    def n_states(self) -> int:
        return int(self.node_codes.shape[0])

    @property
    def n_arcs(self) -> int:
        return self.n_states - 1

    @property
    def size(self) -> int:
        """|W′_t| = states + transitions."""
        return self.n_states + self.n_arcs

    @property
    def n_children(self) -> np.ndarray:
        return np.diff(self.child_offsets)

    def nodes_of(self, codes: np.ndarray) -> np.ndarray:
        """The node of each pattern code; −1 for codes that are not nodes of the trie."""
        codes = np.asarray(codes, dtype=np.int64)
        pos = np.minimum(np.searchsorted(self.node_codes, codes), self.n_states - 1)
        return np.where(self.node_codes[pos] == codes, pos, -1)
