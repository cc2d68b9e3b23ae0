"""Every name listed in every ``__all__`` of the package imports."""

from __future__ import annotations

import functools
import importlib
import inspect
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


def _functions(obj):
    """(qualified name, function, is a method) of a public function, or of a public class's own
    public methods (with ``__init__`` and ``__call__``), properties and cached properties."""
    if inspect.isfunction(obj):
        yield obj.__qualname__, obj, False
        return
    for name, attr in vars(obj).items():
        if name.startswith("_") and name not in ("__init__", "__call__"):
            continue
        where = f"{obj.__qualname__}.{name}"
        if isinstance(attr, staticmethod):
            yield where, attr.__func__, False
        elif isinstance(attr, classmethod):
            yield where, attr.__func__, True
        elif isinstance(attr, property):
            yield from ((where, f, True) for f in (attr.fget, attr.fset) if f is not None)
        elif isinstance(attr, functools.cached_property):
            yield where, attr.func, True
        elif inspect.isfunction(attr):
            yield where, attr, True


def _missing_annotations(func, method: bool) -> list[str]:
    signature = inspect.signature(func)
    params = list(signature.parameters.values())[1 if method else 0 :]
    missing = [p.name for p in params if p.annotation is inspect.Parameter.empty]
    if signature.return_annotation is inspect.Signature.empty and func.__name__ != "__init__":
        missing.append("return")
    return missing


def test_the_public_api_is_fully_typed():
    """Every function named in an ``__all__`` of a public module, and every public method of a
    public class named there, annotates all its parameters and its return (the package ships
    py.typed; mypy checks the bodies). Compiled numba kernels are not Python functions: skipped."""
    untyped = {}
    for name in ["ratkit", *(m for m in MODULES if not any(part.startswith("_") for part in m.split(".")))]:
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            for where, func, method in _functions(obj):
                if not func.__module__.startswith("ratkit"):  # inherited from typing, sklearn, …
                    continue
                missing = _missing_annotations(func, method)
                if missing:
                    untyped[f"{func.__module__}:{where}"] = missing
    listing = "; ".join(f"{k} {v}" for k, v in sorted(untyped.items()))
    assert not untyped, f"annotate these parameters (and 'return'): {listing}"
