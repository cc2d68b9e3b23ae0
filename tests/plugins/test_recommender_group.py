"""The recommender entry-point group is ``ratkit.recommenders`` (issue 36: one name per kind);
the former ``ratkit.recsys`` is read for one release with a DeprecationWarning naming the
distribution. Throwaway distributions as in tests/plugins/test_third_party.py."""

from __future__ import annotations

import warnings

import pytest

from ratkit import plugins
from tests.thirdparty import installed_distribution

_SOURCE = """
import numpy as np

from ratkit.recsys import Recommender


class Flat(Recommender):
    '''Scores every item 1.'''

    def __init__(self):
        pass

    def _fit(self, user_items):
        self.n_seen_ = int(user_items.nnz)

    def _score_users(self, users):
        return np.ones((len(users), self.n_items_))
"""


def test_the_recommender_kind_has_a_group_of_its_own_name():
    assert plugins.ENTRY_POINT_GROUPS["recommender"] == "ratkit.recommenders"


def test_the_current_group_is_read_without_a_warning(tmp_path):
    groups = {"ratkit.recommenders": {"tp-flat-new": "ratkit_tp_flat_new:Flat"}}
    with installed_distribution(tmp_path, "ratkit-tp-flat-new", {"ratkit_tp_flat_new.py": _SOURCE}, groups):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert plugins.get("recommender", "tp-flat-new").__name__ == "Flat"
            assert plugins.describe("recommender", "tp-flat-new").distribution == "ratkit-tp-flat-new"


def test_the_former_group_still_works_and_warns_naming_the_distribution(tmp_path):
    groups = {"ratkit.recsys": {"tp-flat-old": "ratkit_tp_flat_old:Flat"}}
    with installed_distribution(tmp_path, "ratkit-tp-flat-old", {"ratkit_tp_flat_old.py": _SOURCE}, groups):
        with pytest.warns(DeprecationWarning) as record:
            model_cls = plugins.get("recommender", "tp-flat-old")
        text = " ".join(str(w.message) for w in record if w.category is DeprecationWarning)
        assert "'ratkit.recsys'" in text and "ratkit-tp-flat-old" in text and "'ratkit.recommenders'" in text
        assert model_cls.__name__ == "Flat"
        assert "tp-flat-old" in plugins.available("recommender")


def test_a_distribution_declaring_both_groups_is_read_once_without_a_warning(tmp_path):
    target = {"tp-flat-both": "ratkit_tp_flat_both:Flat"}
    groups = {"ratkit.recommenders": target, "ratkit.recsys": target}
    with installed_distribution(tmp_path, "ratkit-tp-flat-both", {"ratkit_tp_flat_both.py": _SOURCE}, groups):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert plugins.get("recommender", "tp-flat-both").__name__ == "Flat"
