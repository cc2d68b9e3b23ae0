"""One model file of every format version ratkit has written still loads and computes what it
computed when it was written.

The files in tests/data/model_files were written by the ratkit of their time (README.md there
says which commit, and holds the script): version 2 by 99ade4e, version 3 by 8df8326, version 4
by cd814bc, version 5 by aef44d4, the last commits before each next version. ``v*-expected.json``
holds what those models computed then; the same estimators refitted here on the same data (a
second, independent source of the numbers) compute the same. Version 1 (ratkit before 861a5bc)
has no checksummed manifest and is refused since version 2 (an edited manifest could claim it).
"""

from __future__ import annotations

import json
import random
import zipfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit import load_model
from ratkit.automata import kernels
from ratkit.automata.graphs import Graph
from ratkit.learners import LinearDCDSVC, RationalSVC
from ratkit.persistence import read_metadata
from ratkit.recsys import PureSVD

DATA = Path(__file__).parents[1] / "data" / "model_files"


def _expected(name: str) -> dict:
    return json.loads((DATA / f"{name[:2]}-expected.json").read_text())[name]


def _version(name: str) -> int:
    with zipfile.ZipFile(DATA / name) as zf:
        return json.loads(zf.read("manifest.json"))["version"]


# -- the data the files were fitted on (tests/data/model_files/write_model_files.py) ---------------


def _v2_strings() -> tuple[list[str], list[str]]:
    rng = random.Random(0)
    X = ["".join(rng.choice("abc") for _ in range(rng.randint(3, 10))) for _ in range(30)]
    return X, ["up" if x.count("ab") > x.count("ba") else "down" for x in X]


def _strings(seed: int, m: int) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    X = ["".join(rng.choice(list("abc"), size=int(rng.integers(3, 10)))) for _ in range(m)]
    return X, ["up" if x.count("ab") > x.count("ba") else "down" for x in X]


def _graphs(seed: int, m: int) -> tuple[list[Graph], list[int]]:
    rng = np.random.default_rng(seed)
    X = []
    for _ in range(m):
        n = int(rng.integers(2, 6))
        a = (rng.random((n, n)) < 0.5) * rng.uniform(0.25, 1.5, (n, n))
        np.fill_diagonal(a, 0.0)
        a[0, 1] = a[0, 1] or 1.0
        edges = {(int(i), int(j)): ["C-C", "C=O", "N"][int(rng.integers(3))] for i, j in zip(*np.nonzero(a))}
        X.append(Graph(a, [int(rng.integers(0, 3)) for _ in range(n)], edges))
    return X, [int(g.n_edges > 6) for g in X]


def _interactions() -> sp.csr_matrix:
    rng = np.random.default_rng(0)
    return sp.csr_matrix((rng.random((12, 9)) < 0.35).astype(np.float64))


# -- version 2 -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["v2-trie.zip", "v2-naive-tokens.zip", "v2-linear.zip"])
def test_files_of_format_version_2_still_load_and_predict_the_same(name):
    """Written by the last ratkit that wrote version 2 (tests/data/model_files/README.md)."""
    expected = _expected(name)
    X = expected["X"]
    if name.startswith("v2-naive"):
        X = [tuple(x) for x in X]
    elif name == "v2-linear.zip":
        X = np.array(X)
    model = load_model(DATA / name)
    assert type(model) is (LinearDCDSVC if name == "v2-linear.zip" else RationalSVC)
    np.testing.assert_allclose(model.decision_function(X), np.array(expected["decision"]), rtol=1e-12, atol=1e-12)
    assert [str(p) for p in model.predict(X)] == expected["predict"]
    if name == "v2-trie.zip":
        assert read_metadata(DATA / name) == {"positional": False, "target": None}
        assert model.kernel_.to_spec() == {"family": "cosine", "kernel": {"family": "ngram", "n": 2}}
        assert model.get_params()["C"] == 2.0 and model.fit_intercept


def test_the_version_2_model_is_the_one_a_refit_gives():
    X, y = _v2_strings()
    refit = RationalSVC(kernels.cosine(kernels.ngram(2)), C=2.0, fit_intercept=True, random_state=0).fit(X, y)
    Z = _expected("v2-trie.zip")["X"]
    np.testing.assert_allclose(
        load_model(DATA / "v2-trie.zip").decision_function(Z), refit.decision_function(Z), rtol=1e-6, atol=1e-8
    )


# -- versions 3, 4 and 5 ---------------------------------------------------------------------------


def test_a_version_3_learner_file_loads_and_computes_what_it_did_and_what_a_refit_does():
    name = "v3-rational-svc.zip"
    assert _version(name) == 3
    expected = _expected(name)
    model = load_model(DATA / name)
    assert type(model) is RationalSVC and read_metadata(DATA / name) == {"written by": "ratkit 8df8326"}
    assert model.kernel_.to_spec() == {"family": "cosine", "kernel": {"family": "ngram", "n": 2}}
    Z = expected["X"]
    np.testing.assert_allclose(model.decision_function(Z), expected["decision"], rtol=1e-12, atol=1e-12)
    assert model.predict(Z).tolist() == expected["predict"]
    X, y = _strings(0, 30)
    refit = RationalSVC(kernels.cosine(kernels.ngram(2)), C=2.0, random_state=0).fit(X, y)
    np.testing.assert_allclose(model.decision_function(Z), refit.decision_function(Z), rtol=1e-6, atol=1e-8)
    assert model.feature_map_.patterns() == refit.feature_map_.patterns()


def test_a_version_3_recommender_file_loads_and_scores_what_it_did_and_what_a_refit_does():
    name = "v3-puresvd.zip"
    assert _version(name) == 3
    model = load_model(DATA / name)
    assert type(model) is PureSVD and model.n_factors == 2
    scores = model.user_factors_ @ model.item_factors_.T
    np.testing.assert_allclose(scores, _expected(name)["scores"], rtol=1e-12, atol=1e-12)
    refit = PureSVD(n_factors=2, random_state=0).fit(_interactions())
    np.testing.assert_allclose(scores, refit.user_factors_ @ refit.item_factors_.T, rtol=1e-8, atol=1e-10)
    ids, _ = model.recommend(np.arange(12), _interactions()[np.arange(12)], N=3)
    want, _ = refit.recommend(np.arange(12), _interactions()[np.arange(12)], N=3)
    np.testing.assert_array_equal(ids, want)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_a_version_4_file_of_graphs_loads_and_computes_what_it_did_and_what_a_refit_does():
    name = "v4-graph-svc.zip"
    assert _version(name) == 4
    expected = _expected(name)
    model = load_model(DATA / name)
    X, y = _graphs(3, 16)
    assert all(isinstance(g, Graph) for g in model.support_vectors_)
    np.testing.assert_allclose(model.decision_function(X), expected["decision"], rtol=1e-12, atol=1e-12)
    assert model.predict(X).tolist() == expected["predict"]
    refit = RationalSVC(kernels.random_walk(0.05, labels="edge"), C=1.0, max_iter=200, random_state=0).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), refit.decision_function(X), rtol=1e-6, atol=1e-8)


def test_a_version_5_file_of_numpy_scalars_loads_and_computes_what_it_did_and_what_a_refit_does():
    name = "v5-scalar-svc.zip"
    assert _version(name) == 5
    expected = _expected(name)
    model = load_model(DATA / name)
    assert type(model.C) is np.float32 and model.C == np.float32(0.5)
    X, y = _strings(5, 24)
    assert expected["X"] == X
    np.testing.assert_allclose(model.decision_function(X), expected["decision"], rtol=1e-12, atol=1e-12)
    assert model.predict(X).tolist() == expected["predict"]
    refit = RationalSVC(kernels.ngram(2), C=np.float32(0.5), random_state=0).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), refit.decision_function(X), rtol=1e-6, atol=1e-8)


def test_every_version_this_ratkit_reads_has_a_file_here():
    from ratkit.persistence import READS

    assert {_version(path.name) for path in DATA.glob("v*.zip")} == set(READS)
