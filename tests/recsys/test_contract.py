"""Every built-in recommender passes the public contract on planted block data."""

from __future__ import annotations

from ratkit import plugins
from ratkit.recsys import CCCF, DCF, FISM, MFAUC, TJSL, Popularity, PureSVD
from ratkit.testing import RecommenderContract


class TestPopularity(RecommenderContract):
    personalised = False

    def make_model(self):
        return Popularity()


class TestPureSVD(RecommenderContract):
    def make_model(self):
        return PureSVD(n_factors=2, random_state=0)


class TestMFAUCHinge(RecommenderContract):
    def make_model(self):
        return MFAUC(
            n_factors=4, loss="hinge", regularization=1e-2, learning_rate=0.3, max_iter=60, tol=0.0, random_state=0
        )


class TestMFAUCSquareTanh(RecommenderContract):
    def make_model(self):
        return MFAUC(
            n_factors=4,
            loss="squared_hinge",
            rho=1.0,
            regularization=1e-2,
            learning_rate=0.2,
            max_iter=60,
            tol=0.0,
            random_state=1,
        )


class TestCCCFContract(RecommenderContract):
    feedback = "explicit"

    def make_model(self):
        # h = 2 (the largest angular distance): every weight non-zero, so no user–item pair scores
        # exactly 0 for want of a shared component (sparse weights tie such pairs at 0)
        return CCCF(n_components=4, n_bits=8, bandwidth=2.0, random_state=0)


class TestDCFContract(RecommenderContract):
    feedback = "explicit"

    def make_model(self):
        # 16 bits: 8-bit Hamming scores take 9 values, and the contract's strict "block items
        # above cold items" then meets a tie for one user
        return DCF(n_bits=16, random_state=0)


class TestFISMContract(RecommenderContract):
    def make_model(self):
        return FISM(n_factors=8, n_epochs=20, learning_rate=0.05, random_state=0)


class TestTJSLContract(RecommenderContract):
    def make_model(self):  # with no examined items given (the contract fits on one matrix)
        return TJSL(n_factors=8, n_rounds=2, n_average=2, n_epochs=10, learning_rate=0.05, random_state=0)

    def changed_params(self):
        changed = super().changed_params()
        changed["tau_decay"] = 0.8  # the default ×1.5 would leave (0, 1]
        changed["n_average"] = 1  # n_average + 1 would exceed n_rounds
        return changed


def test_every_builtin_recommender_runs_the_contract():
    covered = {
        type(case().make_model())
        for case in globals().values()
        if isinstance(case, type) and issubclass(case, RecommenderContract) and case is not RecommenderContract
    }
    missing = [
        name
        for name in plugins.available("recommender")
        if plugins.get("recommender", name).__module__.startswith("ratkit.")
        and plugins.get("recommender", name) not in covered
    ]
    assert len(covered) >= 3 and not missing, f"no contract test for {missing}"
