"""ratkit.recsys.feedback: conversions of rating matrices to one-class and two-class feedback."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit.datasets import Interactions
from ratkit.exceptions import DataFormatError
from ratkit.recsys.feedback import keep_users_with, preferred_examined, to_one_class

RATINGS = sp.csr_matrix(np.array([[5, 3, 0, 4], [1, 0, 2, 0], [4, 4, 5, 0]], dtype=float))


def test_to_one_class_keeps_ratings_at_or_above_threshold():
    np.testing.assert_array_equal(to_one_class(RATINGS, 4).toarray(), [[1, 0, 0, 1], [0, 0, 0, 0], [1, 1, 1, 0]])


def test_preferred_and_examined_partition_the_rated_items():
    preferred, examined = preferred_examined(RATINGS, 5)
    np.testing.assert_array_equal(preferred.toarray(), [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 1, 0]])
    np.testing.assert_array_equal(examined.toarray(), [[0, 1, 0, 1], [1, 0, 1, 0], [1, 1, 0, 0]])


def test_keep_users_with_cuts_the_id_map_too():
    data = Interactions(RATINGS, np.array([10, 20, 30]), np.arange(4), "toy")
    kept = keep_users_with(to_one_class(data, 4), 2)
    assert kept.user_ids.tolist() == [10, 30] and kept.shape == (2, 4)


def test_conversions_reject_nan():
    bad = RATINGS.copy()
    bad.data[0] = np.nan
    with pytest.raises(DataFormatError, match=r"NaN .*the first at user 0, item 0"):
        to_one_class(bad, 4)
