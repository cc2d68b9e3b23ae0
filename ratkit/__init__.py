"""ratkit: weighted finite-state transducers, rational kernels and learners.

The four parts: :mod:`ratkit.automata` (the WFST algebra on pynini),
:mod:`ratkit.learners`, :mod:`ratkit.recsys` and :mod:`ratkit.plugins`.
:func:`load_model` reads back any model file, of a learner or a recommender, built-in or
a third party's; :func:`save_model` writes one (``model.save(path)`` does the same). :func:`compute_on`
runs every parallel loop inside it on a Dask cluster (``scheduler=`` / ``client=``) or on
``n_jobs`` local processes.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "load_model", "save_model", "compute_on"]

# imported when first used, so that ``import ratkit`` stays light
_LAZY = {"load_model": "ratkit.persistence", "save_model": "ratkit.persistence", "compute_on": "ratkit._parallel"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ratkit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
