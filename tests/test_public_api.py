"""Every name listed in every ``__all__`` of the package imports."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import ratkit

MODULES = sorted(
    m.name for m in pkgutil.walk_packages(ratkit.__path__, "ratkit.") if not m.name.split(".")[-1].startswith("_")
)


@pytest.mark.parametrize("name", ["ratkit", *MODULES])
def test_all_names_import(name):
    module = importlib.import_module(name)
    for attr in getattr(module, "__all__", []):
        assert hasattr(module, attr), f"{name}.__all__ lists {attr!r}, which does not exist"


def test_contract_names_of_the_foundation():
    from ratkit import automata, plugins
    from ratkit.automata import semirings

    for n in ("BOOLEAN", "PROBABILITY", "LOG", "TROPICAL"):
        assert hasattr(semirings, n)
    for n in (
        "from_arcs",
        "acceptor",
        "compose",
        "invert",
        "project",
        "union",
        "concat",
        "closure",
        "intersect",
        "shortest_distance",
        "evaluate",
    ):
        assert callable(getattr(automata, n))
    for n in ("register", "available", "get"):
        assert callable(getattr(plugins, n))
