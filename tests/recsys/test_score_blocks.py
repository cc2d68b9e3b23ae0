"""recommend filters a score block in place only when the block is the scoring method's own
new array: never a view, another dtype, or an array the model holds."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ratkit.recsys import Popularity, PureSVD

from .synthetic import random_one_class


def _fitted():
    return PureSVD(n_factors=3).fit(random_one_class(12, 9, 0.4, seed=2))


def test_a_fresh_float64_block_is_used_as_it_is():
    model = _fitted()
    block = np.zeros((2, 9))
    assert model._writable_scores(block) is block


def test_views_other_dtypes_and_held_arrays_are_copied():
    model = _fitted()
    held = np.zeros((2, 9))
    model.cached_scores_ = held  # what a third-party model might return from its state
    for block in (held, np.zeros((4, 9))[::2], np.zeros((2, 9), dtype=np.float32), np.broadcast_to(np.ones(9), (2, 9))):
        out = model._writable_scores(block)
        assert out is not block and out.dtype == np.float64 and out.flags.writeable
        np.testing.assert_array_equal(out, block)


def test_filtering_leaves_the_models_state_alone():
    train = random_one_class(12, 9, 0.4, seed=2)
    model = Popularity().fit(train)
    counts = model.item_counts_.copy()
    users = np.arange(12)
    model.recommend(users, sp.csr_matrix(train)[users], N=3)
    np.testing.assert_array_equal(model.item_counts_, counts)
