"""Generated interaction data whose right answers are known, for :class:`RecommenderContract`.

No real data: a third party runs the contract with nothing but ratkit installed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

__all__ = ["Planted", "planted_blocks", "planted_ratings"]


@dataclass
class Planted:
    """Two user blocks: a large one liking items ``big_items``, a small one ``small_items``.

    ``cold_items`` are liked by nobody. Row ``solo_user`` (in the large block) has seen
    every item of its block but ``solo_item``, so any sensible model, popularity
    included, ranks ``solo_item`` first for it after filtering.
    """

    matrix: sp.csr_matrix
    big_users: np.ndarray
    small_users: np.ndarray
    big_items: np.ndarray
    small_items: np.ndarray
    cold_items: np.ndarray
    solo_user: int
    solo_item: int
    #: The liked entries when ``matrix`` holds explicit ratings (None: every stored entry is liked).
    liked: sp.csr_matrix | None = None

    def liked_matrix(self) -> sp.csr_matrix:
        """The users × items matrix of the liked entries only."""
        return self.matrix if self.liked is None else self.liked


def planted_blocks(seed: int = 0, density: float = 0.6) -> Planted:
    """A 60 users × 32 items 0/1 matrix with two planted blocks (see :class:`Planted`).

    Users 0–39 like a random ``density`` share of items 0–11, users 40–59 of items 12–23
    (each user keeps at least one liked and one unliked block item); items 24–31 are cold.
    """
    rng = np.random.default_rng(seed)
    big_users, small_users = np.arange(0, 40), np.arange(40, 60)
    big_items, small_items, cold_items = np.arange(0, 12), np.arange(12, 24), np.arange(24, 32)
    dense = np.zeros((60, 32))
    for users, items in ((big_users, big_items), (small_users, small_items)):
        block = rng.random((len(users), len(items))) < density
        block[:, 0] = True  # at least one liked item each
        block[np.arange(len(users)), 1 + np.arange(len(users)) % (len(items) - 1)] = False
        dense[np.ix_(users, items)] = block
    solo_user, solo_item = 0, int(big_items[-1])
    dense[solo_user, big_items] = 1.0
    dense[big_users, solo_item] = 1.0  # a favourite of the big block ...
    dense[solo_user, solo_item] = 0.0  # ... that the solo user has not seen yet
    return Planted(
        sp.csr_matrix(dense), big_users, small_users, big_items, small_items, cold_items, solo_user, solo_item
    )


def planted_ratings(seed: int = 0, density: float = 0.6, disliked: float = 0.3) -> Planted:
    """:func:`planted_blocks` as explicit 1–5 ratings: every liked entry is rated 4 or 5, and
    each user also rates a random ``disliked`` share of the other block's items and of the
    cold items 1 or 2 (so the cold items are known to be bad, not merely unseen).
    ``liked`` holds the entries rated 4 or 5.
    """
    base = planted_blocks(seed, density)
    rng = np.random.default_rng(seed + 1)
    liked = base.matrix.toarray() > 0
    dense = np.where(liked, rng.integers(4, 6, liked.shape), 0).astype(np.float64)
    for users, others in ((base.big_users, base.small_items), (base.small_users, base.big_items)):
        for items in (others, base.cold_items):
            low = rng.random((len(users), len(items))) < disliked
            dense[np.ix_(users, items)] = np.where(low, rng.integers(1, 3, low.shape), 0)
    dense[base.solo_user, base.cold_items[0]] = 1.0  # the solo user has rated a bad item too
    return Planted(
        sp.csr_matrix(dense),
        base.big_users,
        base.small_users,
        base.big_items,
        base.small_items,
        base.cold_items,
        base.solo_user,
        base.solo_item,
        liked=sp.csr_matrix(np.where(dense >= 4, dense, 0.0)),
    )
