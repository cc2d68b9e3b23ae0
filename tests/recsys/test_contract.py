"""Every built-in recommender passes the shared contract on planted block data."""

from __future__ import annotations

from ratkit.recsys import MFAUC, Popularity, PureSVD

from .contract import RecommenderContract


class TestPopularity(RecommenderContract):
    personalised = False

    def make_model(self):
        return Popularity()


class TestPureSVD(RecommenderContract):
    def make_model(self):
        return PureSVD(n_factors=2, random_state=0)


class TestMFAUCHinge(RecommenderContract):
    def make_model(self):
        return MFAUC(n_factors=4, loss="hinge", lam=1e-2, learning_rate=0.3, max_iter=60, tol=0.0, random_state=0)


class TestMFAUCSquareTanh(RecommenderContract):
    def make_model(self):
        return MFAUC(
            n_factors=4,
            loss="squared_hinge",
            rho=1.0,
            lam=1e-2,
            learning_rate=0.2,
            max_iter=60,
            tol=0.0,
            random_state=1,
        )
