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


def test_load_model_is_at_the_top_level_and_import_ratkit_stays_light():
    """``ratkit.load_model`` is imported when first used: ``import ratkit`` loads no numpy,
    pynini or learner (a command's start-up and ``ratkit --version`` stay fast)."""
    import subprocess
    import sys

    from ratkit.persistence import load_model, save_model

    assert ratkit.load_model is load_model and ratkit.save_model is save_model
    assert {"load_model", "save_model"} <= set(dir(ratkit))
    code = (
        "import sys, ratkit; heavy = [m for m in ('numpy', 'pynini', 'ratkit.persistence', 'ratkit.learners') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
    with pytest.raises(AttributeError, match="module 'ratkit' has no attribute 'load_modle'"):
        ratkit.load_modle  # noqa: B018
