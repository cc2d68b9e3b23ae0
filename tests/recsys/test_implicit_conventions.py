"""implicit's conventions the shared mixin checks, with ratkit's messages: fit's callback and
non-CSR warning, recommend's CSR-only user_items and liked items ranked last in an ``items``
list, save/load through file objects, and pickling for the models the mixin's pickle and
serialization tests skip (they call similar_items, which models without item factors lack)."""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit.exceptions import ParameterTypeError, ParameterWarning
from ratkit.recsys import FISM, TJSL, Popularity, PureSVD
from ratkit.testing._planted import planted_blocks

X = planted_blocks().matrix


def _models():
    return [
        Popularity(),
        FISM(n_factors=4, n_epochs=2, random_state=0),
        TJSL(n_factors=4, n_rounds=1, n_epochs=2, random_state=0),
        PureSVD(n_factors=3, random_state=0),
    ]


@pytest.mark.parametrize("model", _models(), ids=lambda m: type(m).__name__)
def test_pickle_and_file_object_round_trips_recommend_alike(model):
    model.fit(X)
    users = np.arange(X.shape[0])
    want = model.recommend(users, X, N=5)
    buffer = io.BytesIO()
    assert model.save(buffer) is None
    buffer.seek(0)
    for copy in (pickle.loads(pickle.dumps(model)), type(model).load(buffer)):
        got = copy.recommend(users, X, N=5)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


def test_save_and_load_refuse_what_is_neither_a_path_nor_a_file():
    model = Popularity().fit(X)
    with pytest.raises(ParameterTypeError, match=r"Popularity\.save needs the path .* opened for writing; got int"):
        model.save(3)
    with pytest.raises(ParameterTypeError, match=r"Popularity\.load needs the path .* opened for reading; got list"):
        Popularity.load([])


@pytest.mark.parametrize("fmt", ["coo", "lil", "csc"])
def test_fit_warns_on_a_non_csr_matrix_and_learns_the_same(fmt):
    with pytest.warns(ParameterWarning, match=rf"PureSVD\.fit got a {fmt.upper()} matrix; it is converted to CSR"):
        other = PureSVD(n_factors=3, random_state=0).fit(X.asformat(fmt))
    same = PureSVD(n_factors=3, random_state=0).fit(X)
    np.testing.assert_allclose(other.user_factors_ @ other.item_factors_.T, same.user_factors_ @ same.item_factors_.T)
    assert issubclass(ParameterWarning, UserWarning)


def test_fit_callback_is_called_once_with_implicits_arguments():
    calls = []
    Popularity().fit(X, callback=lambda *args: calls.append(args))
    assert len(calls) == 1 and calls[0][0] == 1 and calls[0][1] >= 0 and calls[0][2] is None
    with pytest.raises(ParameterTypeError, match=r"'callback' argument of Popularity\.fit must be callable or None"):
        Popularity().fit(X, callback=3)


@pytest.mark.parametrize("fmt", ["csc", "coo", "lil"])
def test_recommend_refuses_user_items_that_are_not_csr(fmt):
    model = Popularity().fit(X)
    with pytest.raises(ValueError, match=rf"needs user_items as a CSR matrix .* got a {fmt.upper()} matrix.*tocsr"):
        model.recommend(0, X[0].asformat(fmt))
    with pytest.raises(ParameterTypeError, match="CSR"):
        model.recommend(0, X.asformat(fmt))  # the whole matrix, as in implicit's test_invalid_user_items


def test_liked_items_of_an_items_list_come_last_by_id():
    model = Popularity().fit(X)
    counts = model.item_counts_
    user = 0
    liked = X[user].indices
    pool = np.concatenate([liked[:3], np.setdiff1d(np.arange(X.shape[1]), liked)[:4]])
    ids, scores = model.recommend(user, X[user], N=20, items=pool)
    unliked = np.setdiff1d(pool, liked)
    ranked = unliked[np.lexsort((unliked, -counts[unliked]))]
    np.testing.assert_array_equal(ids, np.concatenate([ranked, np.sort(liked[:3])]))
    assert np.isneginf(scores[-3:]).all() and np.isfinite(scores[:-3]).all()
    batch_ids, _ = model.recommend([user, user], sp.vstack([X[user], X[user]]).tocsr(), N=5, items=pool)
    np.testing.assert_array_equal(batch_ids[0], ids[:5])
