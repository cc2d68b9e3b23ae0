"""Regression (audit): a COO matrix of a small integer dtype with repeated entries was summed in
that dtype when scipy converted it to CSR, before ratkit's cast to float64: 128 + 128 uint8
plays became 0, and the interaction vanished. Every place that reads a user's sparse matrix
now casts first (ratkit._sparse.float64_csr)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit._sparse import float64_csr
from ratkit.automata.graphs import Graph
from ratkit.exceptions import DataFormatError
from ratkit.recsys import Popularity
from ratkit.recsys._component_weights import pretrain_factors
from ratkit.recsys._validation import check_user_items


def _repeated(dtype, values=(128, 128, 200, 100, 1), fmt="coo"):
    """Entries (0, 1) twice, (1, 2) twice, (2, 0) once, as a ``fmt`` matrix of ``dtype`` that
    stores the repeated entries as they are (built from its arrays: a conversion would sum them)."""
    data = np.array(values, dtype=dtype)
    if fmt == "coo":
        return sp.coo_matrix((data, ([0, 0, 1, 1, 2], [1, 1, 2, 2, 0])), shape=(3, 3))
    if fmt == "csr":
        return sp.csr_matrix((data, [1, 1, 2, 2, 0], [0, 2, 4, 5]), shape=(3, 3))
    # CSC: columns 0, 1, 2 hold rows [2], [0, 0], [1, 1]
    return sp.csc_matrix((data[[4, 0, 1, 2, 3]], [2, 0, 0, 1, 1], [0, 1, 3, 5]), shape=(3, 3))


SUMS = [[0, 256, 0], [0, 0, 300], [1, 0, 0]]


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.uint16, np.float32, np.float64])
@pytest.mark.parametrize("fmt", ["coo", "csr", "csc"])
def test_repeated_entries_add_up_in_float64(dtype, fmt):
    values = (100, 100, 90, 60, 1) if dtype == np.int8 else (128, 128, 200, 100, 1)
    matrix = _repeated(dtype, values, fmt)
    assert matrix.nnz == 5  # the repeated entries are stored
    want = np.zeros((3, 3))
    for (r, c), v in zip([(0, 1), (0, 1), (1, 2), (1, 2), (2, 0)], values, strict=True):
        want[r, c] += v  # the sum in Python integers: the oracle
    got = float64_csr(matrix)
    assert got.dtype == np.float64 and got.format == "csr"
    np.testing.assert_array_equal(got.toarray(), want)


def test_a_recommender_counts_repeated_small_integer_plays():
    matrix = check_user_items(_repeated(np.uint8))
    np.testing.assert_array_equal(matrix.toarray(), SUMS)
    np.testing.assert_array_equal(Popularity().fit(_repeated(np.uint8)).item_counts_, [1, 1, 1])


def test_a_graph_adds_repeated_small_integer_edge_weights():
    g = Graph(_repeated(np.uint8))
    np.testing.assert_array_equal(g.adjacency.toarray(), SUMS)


def test_pretraining_refuses_a_pair_rated_twice_in_coo_form():
    ratings = sp.coo_matrix((np.array([3, 3, 4], dtype=np.uint8), ([0, 0, 1], [0, 0, 1])), shape=(2, 2))
    with pytest.raises(DataFormatError, match="more than once"):
        pretrain_factors(ratings, 1, np.random.default_rng(0))
