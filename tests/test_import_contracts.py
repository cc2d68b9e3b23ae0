"""The import-linter contracts of pyproject.toml, and the custom contract type of .ci/.

The ``private_imports`` contract (``.ci/import_contracts.py``) is run on a tiny package
written to a temporary folder: of two imports of the same private thing, it flags exactly
the one made from another package. Needs the `lint` extra (import-linter, grimp).
"""

from __future__ import annotations

import importlib
import textwrap
import tomllib
import uuid

import pytest

from tests.conftest import REPOSITORY

grimp = pytest.importorskip("grimp")
pytest.importorskip("importlinter")


@pytest.fixture
def contracts(monkeypatch):
    monkeypatch.syspath_prepend(str(REPOSITORY / ".ci"))
    return importlib.import_module("import_contracts")


def _package(root, files: dict[str, str]) -> str:
    """Write the package `files` (paths relative to it) under `root`; return its unique name."""
    name = f"fake_{uuid.uuid4().hex[:12]}"
    for path, text in {"__init__.py": "", **files}.items():
        target = root / name / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).replace("PKG", name))
    return name


def _check(contracts, monkeypatch, root, name):
    monkeypatch.syspath_prepend(str(root))
    graph = grimp.build_graph(name, cache_dir=None)
    contract = contracts.PrivateImportsContract(
        name="private", session_options={"root_packages": [name]}, contract_options={}
    )
    return contract.check(graph, verbose=False)


@pytest.mark.parametrize(
    ("statement", "imported"),
    [
        ("from PKG.a._private import value\n", "a._private"),  # a private module
        ("from PKG.a.public import (\n    shown,\n    _secret,\n)\n", "a.public._secret"),  # a private name
        ("from ..a.public import _secret\n", "a.public._secret"),  # relative, one line
    ],
)
def test_flags_exactly_the_import_from_another_package(contracts, monkeypatch, tmp_path, statement, imported):
    name = _package(
        tmp_path,
        {
            "a/__init__.py": "",
            "a/_private.py": "value = 1\n",
            "a/public.py": "shown = 1\n_secret = 2\n",
            "a/inside.py": statement,  # allowed: the private thing's own package
            "b/__init__.py": "",
            "b/outside.py": statement,  # forbidden: a sibling package
        },
    )
    check = _check(contracts, monkeypatch, tmp_path, name)
    assert not check.kept
    assert check.metadata["crossings"] == [
        {"importer": f"{name}.b.outside", "line_number": 1, "imported": f"{name}.{imported}"}
    ]


def test_ancestors_private_things_and_dunders_are_allowed(contracts, monkeypatch, tmp_path):
    name = _package(
        tmp_path,
        {
            "_files.py": "_cache = {}\n",
            "a/__init__.py": "",
            "a/b/__init__.py": "_local = 1\n",
            "a/b/user.py": "from PKG._files import _cache\nfrom PKG.a.b import _local\nfrom PKG import __doc__\n",
        },
    )
    check = _check(contracts, monkeypatch, tmp_path, name)
    assert check.kept, check.metadata


def test_pyproject_names_the_contracts_and_their_type():
    config = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert config["root_packages"] == ["ratkit"]
    (contract_type,) = config["contract_types"]
    kind, _, target = contract_type.partition(": ")
    module, _, cls = target.rpartition(".")
    assert (REPOSITORY / ".ci" / f"{module}.py").is_file()
    assert cls == "PrivateImportsContract"
    types = {c["id"]: c["type"] for c in config["contracts"]}
    assert types == {"layers": "layers", "automata": "layers", "learners": "layers", "private": kind}
