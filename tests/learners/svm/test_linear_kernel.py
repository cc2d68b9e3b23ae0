"""LinearKernel: K = X Yᵀ on numeric vectors, the kernel ``RationalSVC(kernel="linear")`` resolves
to, and the one LinearDCDSVC fixes. Oracles: numpy's products, and the models trained before
LinearKernel existed (their files and what they predicted, tests/data/model_files/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit import load_model, plugins
from ratkit.automata.kernels import LinearKernel, from_spec, to_spec
from ratkit.exceptions import ParameterTypeError
from ratkit.learners import LinearDCDSVC, RationalSVC

DATA = Path(__file__).parents[2] / "data" / "model_files"


def _problem(seed: int = 0, n: int = 60, p: int = 7):
    rng = np.random.RandomState(seed)
    X = np.where(rng.rand(n, p) < 0.6, rng.randn(n, p), 0.0)
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > X[:, 2], "pos", "neg")
    return X, y


def test_the_gram_matrix_is_the_product_of_the_vectors_dense_or_sparse():
    X, _ = _problem()
    Y = X[:9] * 2.0 - 1.0
    k = LinearKernel()
    np.testing.assert_allclose(k.gram(X, Y), X @ Y.T, rtol=1e-14)
    np.testing.assert_allclose(k.gram(sp.csr_matrix(X), sp.csr_matrix(Y)), X @ Y.T, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(k(X), X @ X.T, rtol=1e-14)
    np.testing.assert_allclose(k.diag(X), (X**2).sum(axis=1), rtol=1e-14)
    np.testing.assert_allclose(k.diag(sp.csr_matrix(X)), (X**2).sum(axis=1), rtol=1e-14)
    assert k.value(X[0], X[1]) == pytest.approx(float(X[0] @ X[1]))
    assert k.is_pds is True
    assert k.features(X) is not None and np.array_equal(np.asarray(k.features(X)), X)


def test_it_is_the_kernel_plugin_linear_with_a_spec_form():
    assert plugins.get("kernel", "linear") is LinearKernel
    assert to_spec(LinearKernel()) == {"family": "linear"}
    assert isinstance(from_spec({"family": "linear"}), LinearKernel)


def test_it_refuses_what_is_not_a_numeric_matrix():
    with pytest.raises(ParameterTypeError, match="must be 2-D"):
        LinearKernel().gram(np.ones(3))
    with pytest.raises(ParameterTypeError, match="numeric feature vectors"):
        LinearKernel().gram([["a", "b"]])
    with pytest.raises(ParameterTypeError, match="X has 3 columns but Y has 2"):
        LinearKernel().gram(np.ones((2, 3)), np.ones((2, 2)))


@pytest.mark.parametrize("kernel", ["linear", {"family": "linear"}, LinearKernel()])
@pytest.mark.parametrize("representation", ["trie", "automaton", "rows"])
def test_the_name_the_spec_and_the_kernel_train_the_same_model(kernel, representation):
    X, y = _problem(1)
    kw = dict(C=0.7, fit_intercept=True, random_state=3, representation=representation)
    ref = RationalSVC(LinearKernel(), **kw).fit(X, y)
    m = RationalSVC(kernel, **kw).fit(X, y)
    assert isinstance(m.kernel_, LinearKernel) and m.kernel_ is not kernel
    assert m.representation_ == representation and m.n_features_in_ == X.shape[1]
    np.testing.assert_array_equal(m.alpha_, ref.alpha_)
    np.testing.assert_array_equal(m.decision_function(X[:10]), ref.decision_function(X[:10]))
    tags = m.__sklearn_tags__().input_tags
    assert tags.sparse and tags.two_d_array and not tags.string


def test_linear_dcd_is_rational_svc_with_the_linear_kernel_fixed():
    """The same steps: LinearDCDSVC's defaults are RationalSVC's with an intercept."""
    X, y = _problem(2)
    lin = LinearDCDSVC(C=0.5, random_state=4).fit(X, y)
    svc = RationalSVC("linear", C=0.5, fit_intercept=True, random_state=4).fit(X, y)
    assert isinstance(lin, RationalSVC) and "kernel" not in lin.get_params()
    np.testing.assert_array_equal(lin.alpha_, svc.alpha_)
    np.testing.assert_array_equal(lin.coef_, svc.coef_)
    np.testing.assert_array_equal(lin.intercept_, svc.intercept_)
    assert lin.n_iter_ == svc.n_iter_
    # its fitted state is a linear model's (the form of its files): w, not RationalSVC's kernel and W′
    assert not hasattr(lin, "kernel_") and not hasattr(lin, "representation_")


def test_a_kernel_that_reads_vectors_is_told_by_its_type_not_by_a_name():
    """A subclass of LinearKernel registered under another name is read as vectors too."""

    class Scaled(LinearKernel):
        """2⟨x, y⟩."""

        def _gram(self, X, Y=None):
            return 2.0 * super()._gram(X, Y)

    X, y = _problem(3)
    np.testing.assert_allclose(Scaled().gram(X), 2.0 * X @ X.T, rtol=1e-13, atol=1e-15)
    m = RationalSVC(Scaled(), representation="rows", random_state=0).fit(sp.csr_matrix(X), y)
    assert m.n_features_in_ == X.shape[1]
    assert np.all(np.isfinite(m.decision_function(X)))


@pytest.mark.parametrize("name", ["before-linear-kernel-linear-trie.zip", "before-linear-kernel-linear-rows.zip"])
def test_files_written_before_linear_kernel_load_and_predict_the_same(name):
    expected = json.loads((DATA / "before-linear-kernel-expected.json").read_text())[name]
    m = load_model(DATA / name)
    assert isinstance(m.kernel_, LinearKernel)
    B = np.asarray(expected["X"])
    np.testing.assert_allclose(m.decision_function(B), expected["decision"], rtol=1e-12, atol=1e-12)
    assert m.predict(B).tolist() == expected["predict"]
