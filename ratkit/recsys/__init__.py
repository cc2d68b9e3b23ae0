"""ratkit.recsys: recommenders on one-class feedback, their protocol and metrics.

Every model follows :class:`~ratkit.recsys.base.Recommender` (users as rows of a CSR
matrix) and registers itself as a ``"recommender"`` plugin: ``mfauc``, ``popularity``,
``puresvd``, ``cccf``, ``dcf`` (CCCF and DCF learn from explicit ratings), ``tjsl``, ``fism``
(preferred and examined items). The data loaders, :class:`~ratkit.datasets.Interactions` among
them, are in :mod:`ratkit.datasets`.
"""

from typing import Any

from ratkit.datasets import Interactions
from ratkit.recsys import evaluation, feedback, metrics
from ratkit.recsys.base import FactorRecommender, Recommender
from ratkit.recsys.baselines import Popularity, PureSVD
from ratkit.recsys.cccf import CCCF, DCF
from ratkit.recsys.mfauc import MFAUC
from ratkit.recsys.tjsl import FISM, TJSL

__all__ = [
    "Recommender",
    "FactorRecommender",
    "MFAUC",
    "CCCF",
    "DCF",
    "TJSL",
    "FISM",
    "Popularity",
    "PureSVD",
    "Interactions",
    "evaluation",
    "feedback",
    "metrics",
]


def __getattr__(name: str) -> Any:
    if name == "datasets":  # the deprecated module, imported (and warning) only when asked for
        import importlib

        return importlib.import_module("ratkit.recsys.datasets")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
