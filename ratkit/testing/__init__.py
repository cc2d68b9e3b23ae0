"""Public contract tests: what every kernel family, learner and recommender must satisfy.

A third party runs the same checks on its plugin as ratkit runs on its own, by subclassing
the contract in a pytest test module and giving the one hook it asks for (see each class).
Importing this package needs pytest (the ``test`` extra).
"""

from __future__ import annotations

from typing import Any

__all__ = ["KernelContract", "LearnerContract", "RecommenderContract"]

_WHERE = {
    "KernelContract": "ratkit.testing._kernel",
    "LearnerContract": "ratkit.testing._learner",
    "RecommenderContract": "ratkit.testing._recommender",
}


def __getattr__(name: str) -> Any:
    # each contract lives in its own module, imported when first asked for
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'ratkit.testing' has no attribute {name!r}")
