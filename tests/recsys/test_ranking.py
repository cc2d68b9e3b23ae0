"""The one top-n (ratkit.recsys._ranking) against a brute-force oracle.

Oracle: numpy's stable sort of the negated row, ``np.argsort(-row, kind="stable")[:n]`` —
larger first, ``-inf`` after the finite scores, NaN last, equal scores by the smaller
index. Rows are drawn from a handful of values so that ties are the rule, not the
exception (popularity scores, integer code scores).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ratkit.exceptions import ParameterError
from ratkit.recsys._ranking import top_k_rows, top_n

#: Few distinct values, the special ones included: most rows are tie-heavy.
_VALUES = [0.0, -0.0, 1.0, 2.5, -3.0, np.inf, -np.inf, np.nan, 1e30, -1e-30]


def oracle(scores: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(-scores, axis=1, kind="stable")[:, :n]
    return order, np.take_along_axis(scores, order, axis=1)


def assert_same(got: tuple[np.ndarray, np.ndarray], want: tuple[np.ndarray, np.ndarray], dtype: np.dtype) -> None:
    ids, values = got
    want_ids, want_values = want
    assert ids.dtype == np.int64 and values.dtype == dtype
    np.testing.assert_array_equal(ids, want_ids)
    np.testing.assert_array_equal(values, want_values)  # NaN equals NaN here
    assert np.array_equal(np.signbit(values), np.signbit(want_values))  # -0.0 kept as given


@st.composite
def score_rows(draw: st.DrawFn, dtype: type) -> np.ndarray:
    shape = draw(st.tuples(st.integers(0, 4), st.integers(0, 40)))
    tie_heavy = draw(st.booleans())
    if tie_heavy:
        elements = st.sampled_from(_VALUES)
    else:
        elements = st.floats(allow_nan=True, allow_infinity=True, width=32 if dtype is np.float32 else 64)
    return draw(hnp.arrays(dtype, shape, elements=elements))


@settings(max_examples=300, deadline=None)
@given(data=st.data(), dtype=st.sampled_from([np.float64, np.float32]))
def test_top_n_is_the_stable_sort(data, dtype):
    scores = data.draw(score_rows(dtype))
    n = data.draw(st.integers(0, scores.shape[1] + 3))
    assert_same(top_n(scores, n), oracle(scores, n), np.dtype(dtype))


@settings(max_examples=300, deadline=None)
@given(data=st.data(), dtype=st.sampled_from([np.float64, np.float32]))
def test_the_compiled_selection_is_the_stable_sort_for_every_k(data, dtype):
    # top_n sorts when most of a float row is asked for; the compiled heap is exact for any k
    scores = data.draw(score_rows(dtype))
    k = data.draw(st.integers(0, scores.shape[1]))
    ids = np.full((scores.shape[0], k), -7, dtype=np.int64)
    values = np.empty((scores.shape[0], k), dtype=dtype)
    assert top_k_rows(scores, k, ids, values) == -1
    assert_same((ids, values), oracle(scores, k), np.dtype(dtype))


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from([np.float64, np.float32]),
    how=st.sampled_from(["transposed", "strided", "reversed"]),
)
def test_non_contiguous_rows(data, dtype, how):
    base = data.draw(score_rows(dtype))
    scores = {"transposed": base.T, "strided": base[::2, ::3], "reversed": base[:, ::-1]}[how]
    assert not scores.flags.c_contiguous or scores.size <= 1 or min(scores.shape) <= 1
    n = data.draw(st.integers(0, scores.shape[1] + 1))
    assert_same(top_n(scores, n), oracle(scores, n), np.dtype(dtype))
    k = min(n, scores.shape[1])
    ids, values = np.empty((scores.shape[0], k), dtype=np.int64), np.empty((scores.shape[0], k), dtype=dtype)
    assert top_k_rows(scores, k, ids, values) == -1
    assert_same((ids, values), oracle(scores, k), np.dtype(dtype))


@settings(max_examples=100, deadline=None)
@given(
    scores=hnp.arrays(np.int64, st.tuples(st.integers(1, 3), st.integers(1, 30)), elements=st.integers(-3, 3)),
    n=st.integers(0, 35),
)
def test_integer_scores(scores, n):
    assert_same(top_n(scores, n), oracle(scores, n), np.dtype(np.int64))


@pytest.mark.parametrize("n", [0, 1, 5, 10, 2_000, 10_000])
def test_large_tie_heavy_rows(n):
    # popularity-like rows: thousands of items share a handful of counts
    rng = np.random.default_rng(n)
    scores = rng.integers(0, 5, (7, 2_000)).astype(np.float64)
    scores[:, rng.integers(0, 2_000, 300)] = -np.inf  # filtered items
    scores[3] = 1.0  # one row entirely tied
    assert_same(top_n(scores, n), oracle(scores, n), np.dtype(np.float64))
    assert_same(top_n(scores.astype(np.float32), n), oracle(scores.astype(np.float32), n), np.dtype(np.float32))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), dtype=st.sampled_from([np.float64, np.float32, np.int32]))
def test_rows_longer_than_the_blocks_tested_at_once(data, dtype):
    """Rows of several 64-entry blocks (the selection tests a block against the heap's root before
    visiting it entry by entry): NaN, ±inf and ties in any place, rising rows (every block enters)."""
    n = data.draw(st.integers(60, 300))
    k = data.draw(st.sampled_from([1, 2, 10, 40]))
    if dtype is np.int32:
        elements = (
            st.integers(-3, 3) if data.draw(st.booleans()) else st.integers(-(2**31) + 1, 2**31 - 1)
        )  # the oracle negates
    else:
        elements = st.sampled_from(_VALUES)
    scores = data.draw(hnp.arrays(dtype, (3, n), elements=elements))
    scores[2] = np.sort(scores[2])  # rising: NaN at the end (floats), each block better than the last
    ids, values = np.empty((3, k), dtype=np.int64), np.empty((3, k), dtype=dtype)
    assert top_k_rows(scores, k, ids, values) == -1
    assert_same((ids, values), oracle(scores, k), np.dtype(dtype))


def test_float16_selects_on_float32_and_returns_its_own_values():
    scores = np.array([[1.0, 3.0, np.nan, 3.0, -np.inf, 2.0]], dtype=np.float16)
    assert_same(top_n(scores, 4), oracle(scores, 4), np.dtype(np.float16))
    assert_same(top_n(scores, 1), oracle(scores, 1), np.dtype(np.float16))


def test_top_n_refuses_what_it_cannot_rank():
    with pytest.raises(ParameterError, match=r"shape \(m, n\)"):
        top_n(np.zeros(3), 1)
    with pytest.raises(ParameterError, match="numeric"):
        top_n(np.array([["a", "b"]]), 1)
    with pytest.raises(ParameterError, match="n must be ≥ 0"):
        top_n(np.zeros((1, 3)), -1)


def test_the_compiled_selection_refuses_shapes_that_do_not_fit_before_writing():
    scores = np.zeros((2, 5))
    for k, ids_shape, values_shape in [
        (6, (2, 6), (2, 6)),  # k beyond the row
        (-1, (2, 0), (2, 0)),
        (3, (2, 2), (2, 3)),
        (3, (2, 3), (1, 3)),
        (3, (3, 3), (2, 3)),
    ]:
        ids = np.full(ids_shape, -7, dtype=np.int64)
        values = np.full(values_shape, -7.0)
        assert top_k_rows(scores, k, ids, values) == -2
        assert (ids == -7).all() and (values == -7.0).all()
