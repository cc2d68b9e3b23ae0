"""Packed binary codes and their scoring (ratkit.recsys._packed_codes).

Oracle throughout: the codes as explicit ±1 arrays and ``Σ_k η_ik ξ_jk (b_ik · d_jk)``
computed by ``np.einsum`` — nothing is unpacked by the code under test.
"""

from __future__ import annotations

import numpy as np
import pytest

from ratkit.exceptions import ParameterError
from ratkit.recsys._packed_codes import (
    integer_weights,
    pack_codes,
    packed_scores,
    packed_scores_batch,
    rounding_error_bound,
    top_k,
    unpack_codes,
)

# (G, r) pairs: G·⌈r/8⌉ = 8 takes the one-word path, the others the byte path
SHAPES = [(g, r) for g in (1, 3, 8) for r in (1, 7, 8, 9, 16, 64, 65)] + [(4, 16), (2, 32), (2, 25)]


def random_codes(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return np.where(rng.random(shape) < 0.5, -1, 1).astype(np.int8)


def sparse_weights(rng: np.random.Generator, rows: int, g: int, density: float = 0.5) -> np.ndarray:
    """Random weights in [0, 1) with many zeros; row 0 fully nonzero, row 1 all zero."""
    weights = rng.random((rows, g)) * (rng.random((rows, g)) < density)
    weights[0] = rng.random(g) + 0.1
    weights[1] = 0.0
    return weights


def exact_scores(eta: np.ndarray, b: np.ndarray, xi: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Σ_k η_ik ξ_jk ⟨b_ik, d_jk⟩ with the codes as explicit ±1 arrays."""
    return np.einsum("ik,jk,ikt,jkt->ij", eta, xi, b.astype(eta.dtype), d.astype(eta.dtype))


def problem(seed: int, g: int, r: int, m: int = 12, n: int = 60):
    rng = np.random.default_rng(seed)
    b, d = random_codes(rng, (m, g, r)), random_codes(rng, (n, g, r))
    return b, d, sparse_weights(rng, m, g), sparse_weights(rng, n, g)


# --- packing -------------------------------------------------------------------------


def test_pack_codes_layout_by_hand():
    # +1 → bit 1, first bit most significant, zero padding
    codes = np.array([[[1, -1, -1, 1, 1, 1, 1, 1, -1]]], dtype=np.int8)
    packed = pack_codes(codes)
    assert packed.dtype == np.uint8
    assert packed.tolist() == [[[0b10011111, 0b00000000]]]
    assert pack_codes(np.array([[[1]], [[-1]]])).tolist() == [[[0b10000000]], [[0]]]


@pytest.mark.parametrize("r", [1, 7, 8, 9, 16, 63, 64, 65])
def test_pack_unpack_round_trip(r):
    codes = random_codes(np.random.default_rng(r), (5, 3, r))
    packed = pack_codes(codes)
    assert packed.shape == (5, 3, (r + 7) // 8)
    back = unpack_codes(packed, r)
    assert back.dtype == np.int8
    np.testing.assert_array_equal(back, codes)


@pytest.mark.parametrize("bad", [0, 2, np.nan, 0.5])
def test_pack_codes_refuses_values_other_than_pm1(bad):
    codes = np.ones((3, 2, 5))
    codes[2, 1, 3] = bad
    codes[2, 1, 4] = 7  # a later bad value: the message names the first one
    with pytest.raises(ParameterError, match=r"position \(2, 1, 3\)"):
        pack_codes(codes)


def test_pack_codes_refuses_bad_shapes():
    with pytest.raises(ParameterError, match="shape"):
        pack_codes(np.ones((3, 4)))
    with pytest.raises(ParameterError, match="shape"):
        pack_codes(np.ones((3, 4, 0)))
    with pytest.raises(ParameterError, match="dtype"):
        pack_codes(np.array([[["a"]]]))


def test_unpack_codes_checks_width():
    with pytest.raises(ParameterError, match="ceil"):
        unpack_codes(np.zeros((2, 3, 2), dtype=np.uint8), 8)
    with pytest.raises(ParameterError, match="n_bits"):
        unpack_codes(np.zeros((2, 3, 1), dtype=np.uint8), 0)


# --- integer weights -----------------------------------------------------------------


def test_integer_weights_rounds_half_to_even():
    w = np.array([0.25, 0.35, 0.04, 0.06, 1.0, 0.0])
    got = integer_weights(w, 10.0)
    assert got.dtype == np.int64
    assert got.tolist() == [2, 4, 0, 1, 10, 0]  # 2.5 → 2, 3.5 → 4


@pytest.mark.parametrize("scale", [0.0, -1.0, np.nan, np.inf])
def test_integer_weights_refuses_bad_scale(scale):
    with pytest.raises(ParameterError, match="scale"):
        integer_weights(np.ones(3), scale)


def test_integer_weights_refuses_non_finite_weights():
    with pytest.raises(ParameterError, match="finite"):
        integer_weights(np.array([0.5, np.nan]), 10.0)


# --- scores --------------------------------------------------------------------------


@pytest.mark.parametrize(("g", "r"), SHAPES)
def test_float_scores_equal_exact_scores(g, r):
    b, d, eta, xi = problem(100 * g + r, g, r)
    exact = exact_scores(eta, b, xi, d)
    got = packed_scores_batch(pack_codes(b), eta, pack_codes(d), xi, r)
    assert got.dtype == np.float64
    size = r * np.einsum("ik,jk->ij", eta, xi)  # Σ_k |η ξ ⟨b, d⟩| ≤ this
    assert np.all(np.abs(got - exact) <= 1e-12 * np.maximum(size, 1e-300))
    assert np.all(got[1] == 0.0)  # a user with no weight scores zero everywhere
    for i in (0, 2):  # one user at a time, the dense user included
        single = packed_scores(pack_codes(b)[i], eta[i], pack_codes(d), xi, r)
        assert np.all(np.abs(single - exact[i]) <= 1e-12 * np.maximum(size[i], 1e-300))


@pytest.mark.parametrize(("g", "r"), SHAPES)
def test_integer_scores_equal_exact_integer_scores(g, r):
    b, d, eta, xi = problem(7 + 100 * g + r, g, r)
    eta_i, xi_i = np.rint(37.0 * eta).astype(np.int64), np.rint(37.0 * xi).astype(np.int64)
    exact = exact_scores(eta_i, b, xi_i, d)
    got = packed_scores_batch(pack_codes(b), eta_i, pack_codes(d), xi_i, r)
    assert got.dtype == np.int64
    assert np.array_equal(got, exact)
    # smaller integer dtypes give the same int64 scores
    got32 = packed_scores_batch(pack_codes(b), eta_i.astype(np.int32), pack_codes(d), xi_i.astype(np.int16), r)
    assert got32.dtype == np.int64 and np.array_equal(got32, exact)


@pytest.mark.parametrize(("g", "r"), [(8, 8), (3, 7), (1, 60), (2, 20)])
def test_padding_bits_are_ignored(g, r):
    b, d, eta, xi = problem(g + r, g, r)
    packed_b, packed_d = pack_codes(b), pack_codes(d)
    clean = packed_scores_batch(packed_b, eta, packed_d, xi, r)
    pad = (1 << (8 * packed_d.shape[2] - r)) - 1  # the low bits of the last byte
    packed_b[..., -1] |= pad
    packed_d[..., -1] |= np.uint8(pad & 0b1010_1010)
    np.testing.assert_array_equal(packed_scores_batch(packed_b, eta, packed_d, xi, r), clean)


@pytest.mark.parametrize(("g", "r"), [(8, 8), (3, 9), (1, 64), (4, 5)])
def test_zero_weights_are_skipped(g, r):
    """A component with a zero user weight is never visited: NaN opposite it does not reach the
    score. A zero item weight adds a zero product (finite weights: the exact score)."""
    b, d, eta, xi = problem(3 * g + r, g, r)
    for i in range(len(eta)):
        zero_user = eta[i] == 0
        xi_i = xi.copy()
        xi_i[:, zero_user] = np.nan
        got = packed_scores(pack_codes(b)[i], eta[i], pack_codes(d), xi_i, r)
        np.testing.assert_allclose(got, exact_scores(eta[i : i + 1], b[i : i + 1], xi, d)[0], rtol=1e-12, atol=1e-12)
    xi_zero = xi.copy()
    xi_zero[:, 0] = 0.0
    got = packed_scores_batch(pack_codes(b), eta, pack_codes(d), xi_zero, r)
    np.testing.assert_allclose(got, exact_scores(eta, b, xi_zero, d), rtol=1e-12, atol=1e-12)


def test_scores_refuse_mismatched_inputs():
    b, d, eta, xi = problem(0, 3, 9)
    pb, pd = pack_codes(b), pack_codes(d)
    with pytest.raises(ParameterError, match="uint8"):
        packed_scores_batch(pb.astype(np.int16), eta, pd, xi, 9)
    with pytest.raises(ParameterError, match="ceil"):
        packed_scores_batch(pb, eta, pd, xi, 17)
    with pytest.raises(ParameterError, match="components"):
        packed_scores_batch(pb, eta, pd[:, :2], xi[:, :2], 9)
    with pytest.raises(ParameterError, match="item_weights"):
        packed_scores_batch(pb, eta, pd, xi[:-1], 9)
    with pytest.raises(ParameterError, match="user_weights"):
        packed_scores(pb[0], eta, pd, xi, 9)
    with pytest.raises(ParameterError, match="n_bits"):
        packed_scores(pb[0], eta[0], pd, xi, 0)


# --- rounding error and top-k ----------------------------------------------------------


def loose_bound(eta_row: np.ndarray, xi: np.ndarray, e: float, r: int) -> np.ndarray:
    """r Σ_k (|η| + |ξ|)/(2e) + r G/(4e²), per item."""
    g = xi.shape[1]
    return r * (np.abs(eta_row)[None, :] + np.abs(xi)).sum(axis=1) / (2 * e) + r * g / (4 * e**2)


@pytest.mark.parametrize(("g", "r", "e"), [(8, 8, 50.0), (3, 9, 7.0), (1, 64, 3.0), (4, 5, 0.9)])
def test_rounding_error_is_within_the_bound(g, r, e):
    b, d, eta, xi = problem(11 * g + r, g, r, m=20, n=150)
    exact = exact_scores(eta, b, xi, d)
    eta_i, xi_i = integer_weights(eta, e), integer_weights(xi, e)
    approx = exact_scores(eta_i.astype(float), b, xi_i.astype(float), d) / e**2
    for i in range(len(eta)):
        bound = rounding_error_bound(eta[i], xi, e, r)
        assert np.all(np.abs(approx[i] - exact[i]) <= bound + 1e-9)
        assert np.all(bound <= loose_bound(eta[i], xi, e, r) + 1e-12)
    assert np.all(rounding_error_bound(eta[1], xi, e, r) == 0.0)  # no user weight, no error


@pytest.mark.parametrize(("g", "r", "e", "k"), [(8, 8, 3000.0, 10), (3, 7, 300.0, 5), (1, 64, 10000.0, 3)])
def test_integer_top_k_equals_float_top_k_when_separated(g, r, e, k):
    rng = np.random.default_rng(1000 + g)
    m, n = 60, 300
    b, d = random_codes(rng, (m, g, r)), random_codes(rng, (n, g, r))
    eta, xi = rng.random((m, g)), rng.random((n, g))
    exact = exact_scores(eta, b, xi, d)
    scores = packed_scores_batch(pack_codes(b), integer_weights(eta, e), pack_codes(d), integer_weights(xi, e), r)
    ids, values = top_k(scores, k)
    np.testing.assert_array_equal(values, np.take_along_axis(scores, ids, axis=1))
    sets_checked = orders_checked = 0
    for i in range(m):
        beta = loose_bound(eta[i], xi, e, r).max()
        order = np.argsort(-exact[i], kind="stable")
        s = exact[i][order]
        if s[k - 1] - s[k] > 2 * beta:  # the k-th and (k+1)-th float scores are separated
            assert set(ids[i].tolist()) == set(order[:k].tolist())
            sets_checked += 1
            if np.all(-np.diff(s[: k + 1]) > 2 * beta):  # so is every consecutive pair up to k+1
                np.testing.assert_array_equal(ids[i], order[:k])
                orders_checked += 1
    assert sets_checked >= m // 2 and orders_checked >= 1  # the property was exercised


def test_top_k_ties_and_shapes():
    scores = np.array([3, 5, 5, 1, 5], dtype=np.int64)
    ids, values = top_k(scores, 3)
    assert ids.tolist() == [1, 2, 4] and values.tolist() == [5, 5, 5]
    ids, values = top_k(scores, 10)  # k > n: every item
    assert ids.tolist() == [1, 2, 4, 0, 3]
    ids, values = top_k(np.array([[0.5, 2.0, 1.0], [3.0, -1.0, 0.0]]), 2)
    assert ids.tolist() == [[1, 2], [0, 2]] and values.tolist() == [[2.0, 1.0], [3.0, 0.0]]
    with pytest.raises(ParameterError, match="'k'"):
        top_k(scores, 0)
    with pytest.raises(ParameterError, match="shape"):
        top_k(np.zeros((2, 2, 2)), 1)


def test_integer_scores_accumulate_in_int32_only_when_they_fit():
    from ratkit.recsys._packed_codes import item_table, table_scores

    b, d, _, _ = problem(5, 8, 8)
    rng = np.random.default_rng(5)
    for big, dtype in ((100, np.int32), (2**20, np.int64)):
        eta = rng.integers(0, big, (b.shape[0], 8))
        xi = rng.integers(0, big, (d.shape[0], 8))
        table = item_table(pack_codes(d), xi, 8, user_bound=float(eta.max()))
        assert table.weights.dtype == dtype
        got = table_scores(table, pack_codes(b), eta)
        expected = np.einsum("ik,jk,ikq,jkq->ij", eta.astype(object), xi.astype(object), b, d)  # exact integers
        np.testing.assert_array_equal(got.astype(object), expected)


@pytest.mark.parametrize("k", [1, 3, 10, 60])
def test_the_compiled_top_k_equals_a_stable_sort(k):
    from ratkit.recsys._packed_codes import item_table, table_scores, table_top_k

    b, d, eta, xi = problem(11, 4, 5)
    for weights in (np.round(eta * 3).astype(np.int64), eta):  # integer scores: many ties
        items = np.round(xi * 3).astype(np.int64) if weights.dtype.kind == "i" else xi
        table = item_table(pack_codes(d), items, 5, user_bound=float(np.abs(weights).max()))
        w = np.ascontiguousarray(weights, dtype=table.weights.dtype)
        rows = np.arange(len(b))
        ids, values = table_top_k(table, pack_codes(b), w, rows, k)
        scores = table_scores(table, pack_codes(b), w)
        order = np.argsort(-scores, axis=1, kind="stable")[:, :k]  # ties to the smaller id
        np.testing.assert_array_equal(ids, order)
        np.testing.assert_array_equal(values, np.take_along_axis(scores, order, axis=1))


def test_table_scores_refuses_rows_outside_the_users_instead_of_reading_other_memory():
    # regression: the compiled loop does not check bounds, and an int64 ``rows`` skipped the
    # range check, so rows=[m] or [10**6] returned whatever memory lay past the codes
    from ratkit.recsys._packed_codes import item_table, table_scores

    b, d, eta, xi = problem(5, 2, 8)
    table = item_table(pack_codes(d), xi, 8)
    codes = pack_codes(b)
    for rows in ([len(b)], [0, 10**6], [-1]):
        with pytest.raises(ParameterError, match=rf"rows must index the {len(b)} users; got {rows[-1]}"):
            table_scores(table, codes, eta, rows=np.array(rows, dtype=np.int64))
    with pytest.raises(ParameterError, match="one row per user"):
        table_scores(table, codes, eta[:2], rows=np.array([0], dtype=np.int64))
    np.testing.assert_allclose(
        table_scores(table, codes, eta, rows=np.array([len(b) - 1, 0], dtype=np.int64)),
        exact_scores(eta, b, xi, d)[[len(b) - 1, 0]],
        atol=1e-12,
    )


def test_table_scores_refuses_shapes_that_do_not_fit_before_reading():
    # the hot path leaves the shapes to the compiled call, which checks them before any read
    from ratkit.recsys._packed_codes import item_table, table_scores

    b, d, eta, xi = problem(8, 3, 9)
    table = item_table(pack_codes(d), xi, 9)
    codes = pack_codes(b)
    with pytest.raises(ParameterError, match="G = 3 components"):
        table_scores(table, codes[:, :2], eta)
    with pytest.raises(ParameterError, match="ceil"):
        table_scores(table, np.concatenate([codes, codes[..., :1]], axis=2), eta)
    with pytest.raises(ParameterError, match=r"users_weights must have shape \(12, 3\)"):
        table_scores(table, codes, np.hstack([eta, eta[:, :1]]))
    with pytest.raises(ParameterError, match=r"out must be a float64 array of shape \(2, 60\)"):
        table_scores(table, codes, eta, rows=np.array([0, 1], dtype=np.int64), out=np.empty((2, 59)))
    with pytest.raises(ParameterError, match=r"out must be a float64 array of shape \(2, 60\)"):
        table_scores(table, codes, eta, rows=np.array([0, 1], dtype=np.int64), out=np.empty((1, 60)))
    with pytest.raises(ParameterError, match="table does not hold together"):
        table_scores(table._replace(weights=table.weights[:, :-1]), codes, eta)
    with pytest.raises(ParameterError, match="table does not hold together"):
        table_scores(table._replace(n_bits=17), codes, eta)
    # found by a review: codes of no byte with n_bits ≤ 0 passed 8W − 8 < n_bits ≤ 8W and the
    # several-bytes loop read a Hamming buffer of length 0 (garbage scores, no error)
    for n_bits in (0, -3):
        with pytest.raises(ParameterError, match="table does not hold together"):
            table_scores(table._replace(codes=table.codes[:, :0], n_bits=n_bits), codes[..., :0], eta)


def test_table_scores_of_non_contiguous_inputs_equal_those_of_contiguous_copies():
    from ratkit.recsys._packed_codes import item_table, table_scores

    b, d, eta, xi = problem(6, 3, 8)
    table = item_table(pack_codes(d), xi, 8)
    codes = pack_codes(b)
    flipped_codes, flipped_eta = codes[::-1], eta[::-1]  # views with negative strides
    assert not flipped_codes.flags.c_contiguous
    got = table_scores(table, flipped_codes, flipped_eta)
    np.testing.assert_allclose(got, exact_scores(eta, b, xi, d)[::-1], atol=1e-12)


def unpacked_oracle(packed_users, eta, packed_items, xi, r):
    """Σ_k η_ik ξ_jk (r − 2·Hamming(b_ik, d_jk)) from np.unpackbits (padding bits dropped by
    ``count=r``), the components added one after the other from 0, a zero user weight's
    component left out — the order table_scores documents, so float scores are compared exactly."""
    b = np.unpackbits(packed_users, axis=-1, count=r).astype(np.int64)
    d = np.unpackbits(packed_items, axis=-1, count=r).astype(np.int64)
    hamming = np.einsum("ikt,jkt->ijk", b, 1 - d) + np.einsum("ikt,jkt->ijk", 1 - b, d)  # (m, n, G)
    scores = np.zeros((len(eta), len(xi)), dtype=np.result_type(eta, xi))
    for i in range(len(eta)):
        for k in range(eta.shape[1]):
            if eta[i, k] != 0:
                scores[i] = scores[i] + eta[i, k] * xi[:, k] * (r - 2 * hamming[i, :, k]).astype(scores.dtype)
    return scores


@pytest.mark.parametrize("r", [1, 5, 8, 9, 16])
@pytest.mark.parametrize("g", [1, 3, 8])
@pytest.mark.parametrize("kind", ["int32", "int64", "float64"])
def test_table_scores_equal_an_unpackbits_oracle(kind, g, r):
    """table_scores of an int32, int64 and float64 table, zero weights on both sides and set
    padding bits, all users at once, a subset of rows in any order, and one user a call into a
    reused ``rows``/``out`` (the retrieval loop): equal to :func:`unpacked_oracle` bit for bit
    (floats too, the sign of a zero included: an item weight −0.0 adds a −0.0 term to +0.0);
    floats also within 1e-12 of the einsum of the ±1 codes."""
    from ratkit.recsys._packed_codes import item_table, table_scores

    rng = np.random.default_rng(1000 * g + r)
    m, n = 9, 131  # n not a multiple of a vector width: the loops' remainders run
    b, d = random_codes(rng, (m, g, r)), random_codes(rng, (n, g, r))
    eta, xi = sparse_weights(rng, m, g, density=0.6), sparse_weights(rng, n, g, density=0.8)
    eta[2] = rng.random(g) + 0.1  # a dense user
    xi[3] = -0.0  # an item with no weight (0 once integer)
    if kind == "int32":
        eta, xi = integer_weights(eta, 100.0), integer_weights(xi, 100.0)
    elif kind == "int64":  # too large for int32 scores
        eta, xi = integer_weights(eta, 2.0**20), integer_weights(xi, 2.0**20)
    pb, pd = pack_codes(b), pack_codes(d)
    pad = (1 << (8 * pb.shape[2] - r)) - 1
    pb[..., -1] |= np.uint8(pad & 0b0110_1101)
    pd[..., -1] |= np.uint8(pad)
    bound = float(np.abs(eta).max()) if kind != "float64" else 0.0
    table = item_table(pd, xi, r, user_bound=bound)
    assert table.weights.dtype == np.dtype(kind)
    eta = np.ascontiguousarray(eta, dtype=table.weights.dtype)
    expected = unpacked_oracle(pb, eta, pd, table.weights.T, r)
    assert expected.dtype == np.dtype(kind)

    def same_bits(got, want):
        np.testing.assert_array_equal(np.ascontiguousarray(got).view(np.uint8), want.view(np.uint8))

    same_bits(table_scores(table, pb, eta), expected)
    rows = np.array([4, 0, 8, 4, 1], dtype=np.int64)
    out = np.full((len(rows), n), 77, dtype=table.weights.dtype)  # overwritten, not added to
    assert table_scores(table, pb, eta, rows=rows, out=out) is out
    same_bits(out, expected[rows])
    row, one = np.zeros(1, dtype=np.int64), np.empty((1, n), dtype=table.weights.dtype)
    for i in range(m):
        row[0] = i
        same_bits(table_scores(table, pb, eta, rows=row, out=one)[0], expected[i])
    assert np.all(expected[1] == 0) and not np.signbit(expected[:, 3]).any()  # no user weight; no item weight
    if kind == "float64":
        size = r * np.einsum("ik,jk->ij", eta, xi)
        assert np.all(np.abs(expected - exact_scores(eta, b, xi, d)) <= 1e-12 * np.maximum(size, 1e-300))
    else:
        np.testing.assert_array_equal(expected, exact_scores(eta, b, xi, d))
