"""W′ representations are plugins of the kind ``representation``, like kernels and learners: a
third-party class registered through the plugin registry — by ``ratkit.plugins.register`` or
by an entry point of the group ``ratkit.representations`` of a throwaway distribution — is
listed with the built-ins and trains RationalSVC by name. Oracle: the built-in trie, whose
steps a dense W′ over the same features takes exactly (no shrinking)."""

from __future__ import annotations

import numpy as np
import pytest

from ratkit import plugins
from ratkit.automata import kernels
from ratkit.cli._main import main
from ratkit.exceptions import ParameterTypeError
from ratkit.learners import RationalSVC
from ratkit.learners.wprime import representation_names
from ratkit.plugins import registry
from tests.thirdparty import installed_distribution

# A dense W′ over the explicit features: one module, no import of ratkit's private modules.
_SOURCE = '''\
import numpy as np

from ratkit.learners.dcd.epochs import epoch_python
from ratkit.learners.wprime import primal_inputs


class DenseWPrime:
    """W′ as a dense vector over the explicit features (a third party's representation)."""

    fallback = "rows"
    stage = "features"

    def __init__(self, inputs, bias):
        F = inputs.F.toarray()
        self.F = np.hstack([np.full((F.shape[0], 1), bias), F]) if bias > 0 else F
        self.bias, self.vocabulary = bias, inputs.vocabulary
        self.diagonal = (self.F**2).sum(axis=1)
        self.w = {}

    @classmethod
    def build(cls, data):
        inputs = primal_inputs(data)
        return None if inputs is None else cls(inputs, data.bias)

    def epoch(self, c, y, qinv, C, alpha):
        w = self.w[c] = np.zeros(self.F.shape[1])

        def update(i, d, new):
            w[:] += d * self.F[i]

        return lambda act, size, hi, lo: epoch_python(
            act, size, hi, lo, y, qinv, C, alpha, lambda i: y[i] * (self.F[i] @ w) - 1.0, update
        )

    def finish(self, c):
        pass

    def solution(self, alphas, Y):
        W = np.stack([self.w[c] for c in range(Y.shape[0])])
        return {"coef_": W[:, 1:] if self.bias > 0 else W, "feature_map_": self.vocabulary, "wprime_size_": {}}
'''


def _data():
    rng = np.random.default_rng(5)
    X = ["".join(rng.choice(list("abc"), size=int(rng.integers(4, 12)))) for _ in range(40)]
    return X, ["up" if x.count("ab") > x.count("ba") else "down" for x in X]


def _check_same_steps_as_the_trie(name: str) -> None:
    X, y = _data()
    kw = dict(C=1.0, tol=1e-4, shrinking=False, random_state=2, fit_intercept=True)
    ref = RationalSVC(kernels.ngram(2), **kw).fit(X, y)
    m = RationalSVC(kernels.ngram(2), representation=name, **kw).fit(X, y)
    assert m.representation_ == name and m.n_iter_ == ref.n_iter_
    np.testing.assert_allclose(m.alpha_, ref.alpha_, atol=1e-9)
    np.testing.assert_allclose(m.decision_function(X), ref.decision_function(X), atol=1e-8)


def test_the_built_in_representations_are_plugins():
    assert {"trie", "automaton", "naive", "rows"} <= set(plugins.available("representation"))
    assert representation_names()[:4] == ("trie", "automaton", "rows", "naive")
    assert plugins.describe("representation", "trie").distribution == "ratkit"
    assert registry.ENTRY_POINT_GROUPS["representation"] == "ratkit.representations"


def test_an_entry_point_representation_is_listed_and_trains(tmp_path, capsys):
    with installed_distribution(
        tmp_path / "site",
        "ratkit-tp-wprime",
        {"ratkit_tp_wprime.py": _SOURCE},
        {"ratkit.representations": {"dense": "ratkit_tp_wprime:DenseWPrime"}},
    ):
        assert "dense" in plugins.available("representation")
        assert "dense" in representation_names()
        assert plugins.describe("representation", "dense").distribution == "ratkit-tp-wprime"
        _check_same_steps_as_the_trie("dense")
        assert main(["plugins", "list"]) == 0
        rows = [line.split() for line in capsys.readouterr().out.splitlines()]
        assert ["representation", "dense", "ratkit-tp-wprime"] in [r[:3] for r in rows]
        assert ["representation", "trie", "ratkit"] in [r[:3] for r in rows]
    assert "dense" not in plugins.available("representation")


def test_a_class_registered_through_the_registry_trains(monkeypatch):
    monkeypatch.setitem(registry._registry, "representation", dict(registry._registry["representation"]))
    namespace: dict = {}
    exec(compile(_SOURCE, "third_party_wprime", "exec"), namespace)
    plugins.register("representation", "dense-registered")(namespace["DenseWPrime"])
    _check_same_steps_as_the_trie("dense-registered")


def test_a_representation_that_does_not_state_its_fallback_is_refused(monkeypatch):
    monkeypatch.setitem(registry._registry, "representation", dict(registry._registry["representation"]))

    class NoFallback:
        """States no fallback nor stage."""

        @classmethod
        def build(cls, data):
            return None

    plugins.register("representation", "no-fallback")(NoFallback)
    X, y = _data()
    with pytest.raises(ParameterTypeError, match="must state 'fallback'.*register_representation"):
        RationalSVC(kernels.ngram(2), representation="no-fallback").fit(X, y)


def test_training_set_linear_is_deprecated_and_still_answers():
    import numpy as np

    from ratkit.automata.kernels import LinearKernel
    from ratkit.learners.wprime import TrainingSet

    with pytest.warns(DeprecationWarning, match="TrainingSet.linear is deprecated.*reads_vectors"):
        assert TrainingSet(LinearKernel(), np.eye(3)).linear is True
    with pytest.warns(DeprecationWarning):
        assert TrainingSet(kernels.ngram(2), ["ab"]).linear is False
