"""Generated interaction data whose right answers are known (no real data in tests).

The planted blocks live in :mod:`ratkit.testing`, where :class:`RecommenderContract` needs
them; they are re-exported here for the tests that use them directly.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ratkit.testing._planted import Planted, planted_blocks

__all__ = ["Planted", "planted_blocks", "random_one_class"]


def random_one_class(m: int, n: int, density: float, seed: int) -> sp.csr_matrix:
    """A random 0/1 matrix where every user has at least one relevant and one other item."""
    rng = np.random.default_rng(seed)
    dense = (rng.random((m, n)) < density).astype(float)
    dense[:, 0] = 1.0
    dense[:, -1] = 0.0
    return sp.csr_matrix(dense)
