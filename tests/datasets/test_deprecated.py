"""The former homes of the data loaders (before issue 36) work for one more release, with a
DeprecationWarning that names the new home: ``ratkit.recsys.datasets`` (the module) and
``ratkit.automata.graphs.load_tu``. ``ratkit.recsys.Interactions`` stays, a plain re-export."""

from __future__ import annotations

import importlib
import sys
import warnings

import pytest

import ratkit.datasets
from tests.isolated import run_python

OLD_MODULE = "ratkit.recsys.datasets"
#: The names of the old module and what they are now in ratkit.datasets.
MOVED = {
    "Interactions": "Interactions",
    "load_movielens": "load_movielens",
    "load_lastfm": "load_lastfm",
    "load_csv": "load_interactions_csv",
    "from_triples": "from_triples",
}


@pytest.fixture
def fresh_old_module():
    """Forget the old module, so that the next import runs (and warns) again; restore it after."""
    import ratkit.recsys

    saved = sys.modules.pop(OLD_MODULE, None)
    had_attribute = "datasets" in vars(ratkit.recsys)
    saved_attribute = vars(ratkit.recsys).pop("datasets", None)
    yield
    sys.modules.pop(OLD_MODULE, None)
    vars(ratkit.recsys).pop("datasets", None)
    if saved is not None:
        sys.modules[OLD_MODULE] = saved
    if had_attribute:
        vars(ratkit.recsys)["datasets"] = saved_attribute


def test_import_of_the_old_module_warns_and_gives_the_same_objects(fresh_old_module):
    with pytest.warns(DeprecationWarning, match=r"ratkit\.recsys\.datasets is deprecated.*ratkit\.datasets") as record:
        old = importlib.import_module(OLD_MODULE)
    assert record[0].filename == __file__  # the warning names the importing line, not importlib's
    assert sorted(old.__all__) == sorted(MOVED)
    for old_name, new_name in MOVED.items():
        assert getattr(old, old_name) is getattr(ratkit.datasets, new_name)


def test_from_import_of_an_old_name_warns_and_works(fresh_old_module, tmp_path):
    path = tmp_path / "events.csv"
    path.write_text("u1,i1,1\nu2,i2,3\n")
    with pytest.warns(DeprecationWarning, match=r"load_csv is now ratkit\.datasets\.load_interactions_csv") as record:
        from ratkit.recsys.datasets import load_csv, load_movielens
    assert record[0].filename == __file__
    assert load_movielens is ratkit.datasets.load_movielens
    assert load_csv is ratkit.datasets.load_interactions_csv
    assert load_csv(path).describe() == ratkit.datasets.load_interactions_csv(path).describe()


def test_the_old_module_as_an_attribute_of_ratkit_recsys_warns(fresh_old_module):
    import ratkit.recsys

    with pytest.warns(DeprecationWarning, match=r"ratkit\.recsys\.datasets is deprecated") as record:
        from ratkit.recsys import datasets
    assert record[0].filename == __file__
    assert datasets.from_triples is ratkit.datasets.from_triples
    assert ratkit.recsys.datasets is datasets
    assert "datasets" not in ratkit.recsys.__all__


def test_plain_import_of_ratkit_recsys_does_not_warn():
    """Importing the package (and its Interactions re-export) neither warns nor loads the old module."""
    code = (
        "import sys, warnings\n"
        "warnings.simplefilter('error')\n"
        "import ratkit.recsys\n"
        "from ratkit.recsys import Interactions\n"
        "import ratkit.datasets\n"
        "assert Interactions is ratkit.datasets.Interactions\n"
        f"assert {OLD_MODULE!r} not in sys.modules\n"
        "print('ok')\n"
    )
    outcome = run_python(code)
    assert outcome.stdout.strip() == "ok", outcome.stderr


def test_load_tu_from_automata_graphs_warns_and_is_the_same_function():
    import ratkit.automata.graphs as graphs

    with pytest.warns(DeprecationWarning, match=r"ratkit\.automata\.graphs\.load_tu is deprecated.*ratkit\.datasets"):
        old = graphs.load_tu
    assert old is ratkit.datasets.load_tu
    with pytest.warns(DeprecationWarning, match="load_tu is deprecated"):
        from ratkit.automata.graphs import load_tu
    assert load_tu is ratkit.datasets.load_tu
    assert "load_tu" not in graphs.__all__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="has no attribute 'load_ut'"):
            graphs.load_ut  # noqa: B018


@pytest.mark.parametrize(
    "statement",
    [
        "import ratkit.recsys.datasets",
        "from ratkit.recsys.datasets import load_csv",
        "from ratkit.recsys import datasets",
    ],
)
def test_the_warning_names_the_importing_line_outside_pytest(statement):
    """In a plain interpreter (no pytest import hook), the warning points at the user's line."""
    code = (
        "import warnings\n"
        "warnings.simplefilter('always')\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        f"    {statement}\n"
        "print([(w.category.__name__, w.filename, w.lineno) for w in caught])\n"
    )
    outcome = run_python(code)
    assert outcome.stdout.strip() == "[('DeprecationWarning', '<string>', 4)]", outcome.stderr
