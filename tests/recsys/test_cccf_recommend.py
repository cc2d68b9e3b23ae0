"""CCCF's and DCF's ``recommend`` (issue 38): scoring, filtering the liked items and the top N
in one compiled pass per user (``ratkit.recsys._packed_retrieval``).

Oracle: the scores computed here with numpy from the unpacked codes (±1 floats) and the
weights (⌊e·w⌉ by ``np.rint`` when ``weight_scale`` is set, then ÷ e²), the liked items set to
−inf, ranked by ``np.argsort(-scores, kind="stable")`` (larger first, equal scores by the
smaller item id), −1 / −inf where only liked items are left. Codes and weights are drawn from
few values so that equal scores are the rule (Hamming scores of DCF, integer weights with a
small e).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit.exceptions import ParameterError
from ratkit.recsys import CCCF, DCF
from ratkit.recsys._packed_codes import item_table, pack_codes
from ratkit.recsys._packed_retrieval import excluded_value, table_recommend
from tests.recsys.synthetic import random_one_class

M, N_ITEMS = 23, 37


def _fitted(model, seed: int):
    data = random_one_class(M, N_ITEMS, 0.3, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(data)
    return model, data


def _set_codes(model, rng, n_bits: int, g: int, weights: str) -> None:
    """Random codes and weights: ``weights`` "few" (multiples of 1/4, zeros among them: ties),
    "dense" (random floats) or "ones" (every weight 1, DCF's)."""
    codes_u = rng.choice(np.array([-1, 1]), (M, g, n_bits))
    codes_i = rng.choice(np.array([-1, 1]), (N_ITEMS, g, n_bits))
    if weights == "few":
        wu, wi = rng.integers(0, 3, (M, g)) / 4.0, rng.integers(0, 3, (N_ITEMS, g)) / 4.0
    elif weights == "dense":
        wu, wi = rng.random((M, g)), rng.random((N_ITEMS, g))
    else:
        wu, wi = np.ones((M, g)), np.ones((N_ITEMS, g))
    model.codes_user_, model.codes_item_ = pack_codes(codes_u), pack_codes(codes_i)
    model.weights_user_, model.weights_item_ = wu, wi


def oracle_scores(model) -> np.ndarray:
    r = model.n_bits_
    bu = np.unpackbits(model.codes_user_, axis=-1, count=r).astype(np.float64) * 2 - 1
    bi = np.unpackbits(model.codes_item_, axis=-1, count=r).astype(np.float64) * 2 - 1
    wu, wi = model.weights_user_, model.weights_item_
    e = model.weight_scale_
    if e is not None:
        wu, wi = np.rint(e * wu), np.rint(e * wi)
    agree = np.einsum("ukr,ikr->uik", bu, bi)  # ⟨b, d⟩ per component
    scores = np.einsum("uk,ik,uik->ui", wu, wi, agree)
    return scores if e is None else scores / e**2


def oracle_top(scores: np.ndarray, liked: sp.csr_matrix | None, N: int) -> tuple[np.ndarray, np.ndarray]:
    scores = scores.copy()
    if liked is not None:
        for u in range(scores.shape[0]):
            scores[u, liked[u].indices] = -np.inf
    order = np.argsort(-scores, axis=1, kind="stable")[:, :N]
    values = np.take_along_axis(scores, order, axis=1)
    if N > scores.shape[1]:
        pad = N - scores.shape[1]
        order = np.hstack([order, np.zeros((len(order), pad), dtype=order.dtype)])
        values = np.hstack([values, np.full((len(values), pad), -np.inf)])
    order[np.isneginf(values)] = -1
    return order, values


CASES = [
    (
        "cccf, e = 4 (ties)",
        lambda s: CCCF(n_components=3, n_bits=5, weight_scale=4.0, max_iter=1, random_state=s, feedback="implicit"),
        "few",
    ),
    (
        "cccf, e = 256",
        lambda s: CCCF(n_components=3, n_bits=9, weight_scale=256.0, max_iter=1, random_state=s, feedback="implicit"),
        "dense",
    ),
    (
        "cccf, float weights",
        lambda s: CCCF(n_components=3, n_bits=6, max_iter=1, random_state=s, feedback="implicit"),
        "few",
    ),
    ("dcf, 12 bits", lambda s: DCF(n_bits=12, max_iter=1, random_state=s, feedback="implicit"), "ones"),
    ("dcf, 16 bits (two bytes)", lambda s: DCF(n_bits=16, max_iter=1, random_state=s, feedback="implicit"), "ones"),
]


@pytest.mark.parametrize("name, make, weights", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("seed", [0, 1])
def test_recommend_is_the_stable_sort_of_the_scores_with_liked_items_removed(name, make, weights, seed):
    model, data = _fitted(make(seed), seed)
    rng = np.random.default_rng(seed)
    g = model.weights_user_.shape[1]
    _set_codes(model, rng, model.n_bits_, g, weights)
    liked = data.tolil()
    liked[3, :] = 1  # a user who liked every item: nothing left
    liked[5, : N_ITEMS - 4] = 1  # four items left, fewer than N
    liked = liked.tocsr()
    scores = oracle_scores(model)
    users = np.arange(M)
    for N in (1, 10, N_ITEMS + 3):
        ids, values = model.recommend(users, liked, N=N)
        want_ids, want_values = oracle_top(scores, liked, N)
        assert ids.dtype == np.int32 and values.dtype == np.float64
        np.testing.assert_array_equal(ids, want_ids)
        np.testing.assert_allclose(values, want_values, rtol=1e-12, atol=1e-12)
        assert np.array_equal(np.isneginf(values), np.isneginf(want_values))
    ids, values = model.recommend(users, liked, N=7, filter_already_liked_items=False)
    want_ids, _ = oracle_top(scores, None, 7)
    np.testing.assert_array_equal(ids, want_ids)
    one_ids, one_values = model.recommend(5, liked[5], N=10)  # one user, at most 4 items left: 1-D
    want = oracle_top(scores, liked, 10)[0][5]
    np.testing.assert_array_equal(one_ids, want[want >= 0])
    assert one_values.shape == one_ids.shape and len(one_ids) <= 4


@pytest.mark.parametrize("name, make, weights", CASES, ids=[c[0] for c in CASES])
def test_recommend_equals_the_shared_path_bit_for_bit(name, make, weights, monkeypatch):
    """The fused path gives what scoring dense rows then ``select`` gives (the path it replaced)."""
    model, data = _fitted(make(0), 0)
    _set_codes(model, np.random.default_rng(3), model.n_bits_, model.weights_user_.shape[1], weights)
    users = np.array([4, 0, 22, 4, 9])
    fused = model.recommend(users, data[users], N=6)
    monkeypatch.setattr(type(model), "_select_users", lambda self, *args: None)
    shared = model.recommend(users, data[users], N=6)
    for got, want in zip(fused, shared):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_dcf_scores_in_int32_equal_its_float_scores():
    """DCF's weights are 1: scoring in int32 and converting gives exactly the float scores."""
    model, _ = _fitted(DCF(n_bits=16, max_iter=1, random_state=0, feedback="implicit"), 0)
    assert model._scoring_tables()[1].weights.dtype == np.int32
    np.testing.assert_array_equal(model._score_users(np.arange(M)), oracle_scores(model))
    np.testing.assert_array_equal(model.score([1, 2], [3, 4]), oracle_scores(model)[[1, 2], [3, 4]])


def test_cccf_with_float_weights_keeps_float_scoring():
    model, _ = _fitted(CCCF(n_components=3, n_bits=6, max_iter=1, random_state=0, feedback="implicit"), 0)
    model.weights_user_ = np.random.default_rng(0).random((M, 3))
    assert model._scoring_tables()[1].weights.dtype == np.float64


def _table(rng, n=9, g=2, r=5):
    codes = pack_codes(rng.choice(np.array([-1, 1]), (n, g, r)))
    return (
        item_table(codes, rng.integers(0, 4, (n, g)), r, user_bound=3.0),
        pack_codes(rng.choice(np.array([-1, 1]), (4, g, r))),
        rng.integers(0, 4, (4, g)),
    )


def test_table_recommend_marks_places_only_left_out_items_could_fill():
    table, codes, weights = _table(np.random.default_rng(0))
    exclude = sp.csr_matrix(np.array([[1] * 9, [0] * 9, [1] * 7 + [0, 0], [0] * 9]))
    ids, values = table_recommend(table, codes, weights, np.arange(4), 3, exclude)
    assert ids.dtype == np.int64 and values.dtype == np.int32
    assert (ids[0] == -1).all() and (values[0] == excluded_value(np.dtype(np.int32))).all()
    assert set(ids[2][:2]) == {7, 8} and ids[2][2] == -1


def test_table_recommend_refuses_what_would_read_outside_the_arrays():
    table, codes, weights = _table(np.random.default_rng(1))
    rows = np.arange(4)
    with pytest.raises(ParameterError, match=r"'k' parameter .* must be an int in \[1, 9\]"):
        table_recommend(table, codes, weights, rows, 10)
    with pytest.raises(ParameterError, match="exclude must be a CSR matrix of shape"):
        table_recommend(table, codes, weights, rows, 3, sp.csr_matrix((3, 9)))
    with pytest.raises(ParameterError, match="exclude must be a CSR matrix"):
        table_recommend(table, codes, weights, rows, 3, sp.csc_matrix((4, 9)))
    bad = sp.csr_matrix((4, 9))
    bad.indptr = np.array([0, 1, 1, 1, 1], dtype=np.int32)
    bad.indices = np.array([9], dtype=np.int32)
    bad.data = np.array([1.0])
    with pytest.raises(ParameterError, match=r"item ids in \[0, 9\)"):
        table_recommend(table, codes, weights, rows, 3, bad)
    with pytest.raises(ParameterError, match="rows must index the 4 users; got 4"):
        table_recommend(table, codes, weights, np.array([0, 4]), 3)
    with pytest.raises(ParameterError, match="users_weights must have shape"):
        table_recommend(table, codes, weights[:, :1], rows, 3)
