"""Models save to a zip of JSON + .npy arrays (no pickle) and refuse foreign or corrupted files;
files of format version 2 still load; any registered learner declaring its fitted attributes
is saved without code of its own for files."""

from __future__ import annotations

import json
import random
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from ratkit.automata import kernels
from ratkit.automata.io import to_att
from ratkit.exceptions import MissingDataError, ModelFormatError, NotFittedError, ParameterTypeError
from ratkit.learners import LinearDCDSVC, PersistenceMixin, RationalSVC, load_model, save_model
from ratkit.persistence import read_metadata
from tests.modelfiles import rewrite as _rewrite


def _data(seed=0, m=30):
    rng = random.Random(seed)
    X = ["".join(rng.choice("abc") for _ in range(rng.randint(3, 10))) for _ in range(m)]
    y = ["up" if x.count("ab") > x.count("ba") else "down" for x in X]
    return X, y


@pytest.mark.parametrize("representation", ["trie", "automaton", "naive"])
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_round_trip_predicts_the_same(tmp_path, representation, fit_intercept):
    X, y = _data(1, 20 if representation == "naive" else 30)
    k = kernels.cosine(kernels.ngram(2))
    m = RationalSVC(
        k,
        C=2.0,
        representation=representation,
        fit_intercept=fit_intercept,
        max_iter=50,
        random_state=0,
    ).fit(X, y)
    path = tmp_path / "model.zip"
    m.save(path)
    again = load_model(path)
    assert type(again) is RationalSVC and again.get_params()["C"] == 2.0
    Z = X + ["abcabc", "zzz", "a"]
    np.testing.assert_array_equal(again.decision_function(Z), m.decision_function(Z))
    np.testing.assert_array_equal(again.alpha_, m.alpha_)
    assert list(again.predict(Z)) == list(m.predict(Z))
    with zipfile.ZipFile(path) as zf:  # JSON and .npy only: nothing to unpickle
        names = zf.namelist()
        assert all(
            n in ("manifest.json", "manifest.sha256") or (n[:7] == "arrays/" and n[-4:] == ".npy") for n in names
        )


def test_linear_model_and_token_sequences(tmp_path):
    rng = np.random.RandomState(0)
    X = rng.randn(40, 4)
    y = (X[:, 0] > 0).astype(int)
    m = LinearDCDSVC(random_state=0).fit(X, y)
    save_model(m, tmp_path / "lin.zip", metadata={"note": "x"})
    again = load_model(tmp_path / "lin.zip")
    np.testing.assert_array_equal(again.predict(X), m.predict(X))
    assert read_metadata(tmp_path / "lin.zip") == {"note": "x"}
    words = [("the", "cat"), ("a", "cat", "sat"), ("the", "dog"), ("a", "dog")]
    t = RationalSVC(kernels.ngram(1), representation="naive", random_state=0).fit(words, [1, 1, 0, 0])
    t.save(tmp_path / "tok.zip")
    assert load_model(tmp_path / "tok.zip").support_vectors_ == [words[i] for i in t.support_]


def test_unsavable_kernel_is_refused(tmp_path):
    X, y = _data(2)
    m = RationalSVC(lambda A, B: kernels.ngram(2).gram(A, B), random_state=0).fit(X, y)
    with pytest.raises(ModelFormatError, match=r"Cannot save RationalSVC: params.kernel is a function \(<function"):
        m.save(tmp_path / "m.zip")
    assert not (tmp_path / "m.zip").exists()


@pytest.fixture
def saved(tmp_path):
    X, y = _data(3)
    path = tmp_path / "good.zip"
    RationalSVC(kernels.ngram(2), random_state=0).fit(X, y).save(path)
    return path


def test_corrupted_and_foreign_files_are_refused(saved, tmp_path):
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"\x00garbage" * 10)
    with pytest.raises(ModelFormatError, match="is not a ratkit model \\(not a readable zip archive"):
        load_model(bad)
    bad.write_bytes(saved.read_bytes()[: len(saved.read_bytes()) // 2])
    with pytest.raises(ModelFormatError, match="not a ratkit model|corrupted"):
        load_model(bad)
    with zipfile.ZipFile(bad, "w") as zf:
        zf.writestr("hello.txt", "hi")
    with pytest.raises(ModelFormatError, match="is a zip archive but not a ratkit model: it has no manifest.json"):
        load_model(bad)

    def flip(name, data):
        if name.startswith("arrays/alpha_"):
            return data[:-1] + bytes([data[-1] ^ 0xFF])
        return data

    _rewrite(saved, bad, flip)
    with pytest.raises(
        ModelFormatError,
        match="alpha_.npy does not match its checksum: the model file is corrupted",
    ):
        load_model(bad)

    def manifest(edit):
        def change(name, data):
            if name == "manifest.json":
                m = json.loads(data)
                edit(m)
                return json.dumps(m)
            return data

        return change

    _rewrite(saved, bad, manifest(lambda m: m.update(format="other-tool")))
    with pytest.raises(ModelFormatError, match="manifest format is 'other-tool', expected 'ratkit-model'"):
        load_model(bad)
    _rewrite(saved, bad, manifest(lambda m: m.update(version=99)))
    with pytest.raises(ModelFormatError, match="format version 99; this ratkit reads versions 2, 3, 4, 5. Retrain"):
        load_model(bad)
    _rewrite(saved, bad, manifest(lambda m: m.update(plugin="os.system")))
    with pytest.raises(
        ModelFormatError, match="holds a model of the learner plugin 'os.system', which is not installed here"
    ):
        load_model(bad)
    _rewrite(saved, bad, manifest(lambda m: m.update(kind="kernel")))
    with pytest.raises(ModelFormatError, match="of kind 'kernel'; a model file holds a learner or recommender"):
        load_model(bad)
    _rewrite(saved, bad, lambda name, data: b"{not json" if name == "manifest.json" else data)
    with pytest.raises(ModelFormatError, match="manifest.json is not valid JSON"):
        load_model(bad)
    _rewrite(saved, bad, lambda name, data: None if name.startswith("arrays/coef_") else data)
    with pytest.raises(ModelFormatError, match="the model is incomplete: arrays/coef_.npy is missing"):
        load_model(bad)
    with pytest.raises(MissingDataError, match="not found"):  # issue 21: a FileNotFoundError, not a format error
        load_model(tmp_path / "nothing.zip")

    def drop_array(key):
        def edit(m):
            del m["arrays"][f"arrays/{key}.npy"]
            del m["attributes"][key]

        def change(name, data):
            if name == f"arrays/{key}.npy":
                return None
            return manifest(edit)(name, data)

        return change

    _rewrite(saved, bad, drop_array("coef_"))  # manifest and archive agree, coef_ is gone from both
    with pytest.raises(ModelFormatError, match="the model lacks coef_: the file is incomplete"):
        load_model(bad)
    _rewrite(saved, bad, manifest(lambda m: m["attributes"]["kernel_"].update(kernel={"family": "ngramm", "n": 2})))
    with pytest.raises(
        ModelFormatError,
        match="the saved fitted attribute 'kernel_' cannot be restored for RationalSVC: Unknown kernel",
    ):
        load_model(bad)
    _rewrite(saved, bad, manifest(lambda m: m["params"].update(bogus={"json": 1})))
    with pytest.raises(ModelFormatError, match="the saved parameters cannot be restored for RationalSVC: .*bogus"):
        load_model(bad)


def test_inconsistent_shapes_are_refused(saved, tmp_path):
    import hashlib
    import io

    def shrink(name, data):
        if name == "arrays/intercept_.npy":
            buf = io.BytesIO()
            np.save(buf, np.zeros(3))
            return buf.getvalue()
        if name == "manifest.json":
            m = json.loads(data)
            buf = io.BytesIO()
            np.save(buf, np.zeros(3))
            m["arrays"]["arrays/intercept_.npy"] = hashlib.sha256(buf.getvalue()).hexdigest()
            return json.dumps(m)
        return data

    bad = tmp_path / "bad.zip"
    _rewrite(saved, bad, shrink)
    with pytest.raises(ModelFormatError, match=r"intercept_ has shape \(3,\), but axis 0 should have 1 \(n_problems"):
        load_model(bad)


def test_a_kernel_from_a_file_is_saved_with_the_model(tmp_path):
    """The model keeps the kernel it was fitted with, not a reference to a file that may change."""
    X, y = _data(4)
    spec = tmp_path / "kernel.json"
    spec.write_text(json.dumps({"family": "ngram", "n": 2}))
    m = RationalSVC(spec, random_state=0).fit(X, y)
    m.save(tmp_path / "m.zip")
    spec.write_text(json.dumps({"family": "ngram", "n": 3}))
    again = load_model(tmp_path / "m.zip")
    np.testing.assert_array_equal(again.decision_function(X), m.decision_function(X))
    spec.unlink()
    np.testing.assert_array_equal(load_model(tmp_path / "m.zip").decision_function(X), m.decision_function(X))

    fst = tmp_path / "bigram.att"  # a transducer file: written into the model as AT&T text
    fst.write_text(to_att(kernels.ngram(2).factor("abc")))
    t = RationalSVC(kernels.from_transducer(str(fst)), random_state=0).fit(X, y)
    t.save(tmp_path / "t.zip")
    fst.unlink()
    again = load_model(tmp_path / "t.zip")
    np.testing.assert_allclose(again.decision_function(X), t.decision_function(X), rtol=1e-12)
    # and both equal the bigram kernel's model (an independent build of the same kernel)
    ref = RationalSVC(kernels.ngram(2), random_state=0).fit(X, y)
    np.testing.assert_allclose(again.decision_function(X), ref.decision_function(X), rtol=1e-9, atol=1e-12)


def test_an_edited_manifest_is_refused(saved, tmp_path):
    """The manifest is checksummed like the arrays; and a manifest whose kernel no longer
    produces the saved vocabulary (n changed 2 → 5, arrays untouched) is refused even when
    its checksum was recomputed: before, the model loaded and scored every sequence 0."""

    def n_to_5(name, data):
        if name == "manifest.json":
            m = json.loads(data)
            m["attributes"]["kernel_"]["kernel"]["n"] = 5
            return json.dumps(m)
        return data

    bad = tmp_path / "bad.zip"
    _rewrite(saved, bad, n_to_5, resum=False)
    with pytest.raises(ModelFormatError, match="manifest.json does not match its checksum .*edited or is corrupted"):
        load_model(bad)
    _rewrite(saved, bad, lambda name, data: None if name == "manifest.sha256" else data, resum=False)
    with pytest.raises(
        ModelFormatError, match=r"manifest.json does not match its checksum \(manifest.sha256 is missing"
    ):
        load_model(bad)
    _rewrite(saved, bad, n_to_5)
    with pytest.raises(
        ModelFormatError,
        match=r"the saved kernel does not produce the saved vocabulary \(NgramKernel\(n=5\) cannot produce the "
        r"pattern '..' of the vocabulary",
    ):
        load_model(bad)
    load_model(saved)  # the original still loads


def test_a_failed_save_keeps_the_existing_model(tmp_path):
    """Serialising fails before the file is opened, and the write goes through a temporary
    file renamed over the target: the old model survives (before: a 22-byte empty zip)."""
    X, y = _data(5)
    path = tmp_path / "model.zip"
    m = RationalSVC(kernels.ngram(2), random_state=0).fit(X, y)
    m.save(path)
    before = path.read_bytes()
    with pytest.raises(ModelFormatError, match=r"Cannot save RationalSVC: the model's metadata.when is a object"):
        save_model(m, path, metadata={"when": object()})
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["model.zip"]
    np.testing.assert_array_equal(load_model(path).decision_function(X), m.decision_function(X))


@pytest.mark.parametrize(
    "make",
    [
        lambda: LinearDCDSVC(C=np.float32(0.5), tol=np.float64(1e-3), max_iter=np.int64(500), random_state=0),
        lambda: RationalSVC(kernels.ngram(np.int64(2)), C=np.float32(0.5), random_state=np.int64(0)),
        lambda: RationalSVC(kernels.gappy(np.int32(2), np.float32(0.5)), random_state=0),
    ],
    ids=["linear-float32-C", "ngram-int64-n", "gappy-numpy-params"],
)
def test_numpy_scalar_parameters_are_saved_with_their_dtype(tmp_path, make):
    """What a numpy parameter grid produces; before: TypeError 'Object of type float32 is not JSON
    serializable'. Then saved as JSON numbers, which came back as Python numbers (an audit: a plugin
    computing in float32 changed its outputs); now as 0-d arrays, which come back of their dtype."""
    m = make()
    if isinstance(m, LinearDCDSVC):
        X, y = np.random.RandomState(0).randn(20, 3), np.arange(20) % 2
    else:
        X, y = _data(6)
    m.fit(X, y)
    path = tmp_path / "m.zip"
    m.save(path)
    again = load_model(path)
    np.testing.assert_array_equal(again.decision_function(X), m.decision_function(X))
    with zipfile.ZipFile(path) as zf:
        manifest = json.loads(zf.read("manifest.json"))
    if isinstance(m.C, np.generic):
        assert "scalar" in manifest["params"]["C"] and manifest["version"] == 5
    assert type(again.C) is type(m.C) and again.C == m.C


# -- the former formats: tests/persistence/test_model_file_versions.py keeps one file of each version


def test_a_recommender_file_of_the_former_npz_format_is_refused_naming_it(tmp_path):
    from ratkit.recsys import Recommender

    old = tmp_path / "pop.npz"  # what Recommender.save wrote before model-file version 3
    np.savez(
        old,
        __ratkit_model__=np.array("popularity"),
        __params__=np.array("{}"),
        __format__=np.array(1),
        n_users_=np.array(3),
        n_items_=np.array(4),
        item_counts_=np.arange(4.0),
    )
    for load in (load_model, Recommender.load):
        with pytest.raises(ModelFormatError, match=r"is a recommender file of the former .npz format .*Fit the model"):
            load(old)


# -- what a class declares -----------------------------------------------------------------------


class CodecModel(PersistenceMixin, BaseEstimator):
    """A learner of no algorithm that holds one fitted attribute of every kind a file can hold."""

    _fitted_attributes = ("vector_", "vocabulary_")

    def __init__(self, kernel=None, names=("a", "b"), scale=1.0):
        self.kernel = kernel
        self.names = names
        self.scale = scale

    def fit(self, X, y=None):
        self.vector_ = np.arange(6, dtype=np.float32).reshape(2, 3) * self.scale
        self.labels_ = np.array(["x", 1, None], dtype=object)
        self.matrix_ = sp.csr_matrix(np.array([[0.0, 2.0], [3.0, 0.0], [0.0, 0.0]]))
        self.vocabulary_, _ = kernels.ngram(2).fit_features(["abca", "bcc"])
        self.sequences_ = ["ab", ("the", "cat"), ""]
        self.tokens_ = ("u", "v")
        self.nested_ = {"counts": np.array([1, 2]), "name": "n", "parts": [np.zeros(2), {"deep": 3}]}
        self.kernel_ = kernels.cosine(kernels.gappy(2, 0.5))
        self.nothing_ = None
        self.count_ = np.int64(7)
        self.flag_ = True
        return self


def test_any_registered_estimator_declaring_its_fitted_attributes_round_trips(tmp_path, monkeypatch):
    """No code of its own for files: a plugin name and ``name_`` attributes are enough."""
    from ratkit import load_model as top_level_load_model
    from ratkit.plugins import registry

    monkeypatch.setitem(registry._registry["learner"], "codec-model", CodecModel)
    model = CodecModel(kernel=kernels.ngram(3), names=("p", "q"), scale=2.0).fit(None)
    with pytest.raises(NotFittedError, match="CodecModel instance is not fitted yet .*lacks vector_, vocabulary_"):
        CodecModel().save(tmp_path / "unfitted.zip")
    written = model.save(tmp_path / "m.zip")
    assert written == tmp_path / "m.zip"
    again = top_level_load_model(written)
    assert type(again) is CodecModel
    assert again.names == ("p", "q") and again.scale == 2.0 and again.kernel.to_spec() == {"family": "ngram", "n": 3}
    assert again.vector_.dtype == np.float32 and np.array_equal(again.vector_, model.vector_)
    assert again.labels_.dtype == object and again.labels_.tolist() == ["x", 1, None]
    assert sp.issparse(again.matrix_) and np.array_equal(again.matrix_.toarray(), model.matrix_.toarray())
    assert again.vocabulary_.patterns() == model.vocabulary_.patterns() == [tuple(p) for p in ("ab", "bc", "ca", "cc")]
    assert again.sequences_ == ["ab", ("the", "cat"), ""] and again.tokens_ == ("u", "v")
    assert again.nested_["name"] == "n" and np.array_equal(again.nested_["counts"], [1, 2])
    assert np.array_equal(again.nested_["parts"][0], np.zeros(2)) and again.nested_["parts"][1] == {"deep": 3}
    assert again.kernel_.to_spec() == model.kernel_.to_spec()
    assert again.nothing_ is None and again.count_ == 7 and again.flag_ is True
    with zipfile.ZipFile(written) as zf:
        assert json.loads(zf.read("manifest.json"))["plugin"] == "codec-model"
    model.weird_ = object()
    with pytest.raises(ModelFormatError, match=r"Cannot save CodecModel: weird_ is a object \(<object"):
        model.save(tmp_path / "weird.zip")
    del model.weird_
    model.nested_ = {"when": {1: "one"}}
    with pytest.raises(ModelFormatError, match=r"Cannot save CodecModel: nested_.when is a dict \(\{1: .one.\}\)"):
        model.save(tmp_path / "weird.zip")
    assert not (tmp_path / "weird.zip").exists()


def test_a_model_file_lacking_a_declared_attribute_is_incomplete(tmp_path, monkeypatch):
    from ratkit.plugins import registry

    monkeypatch.setitem(registry._registry["learner"], "codec-model", CodecModel)
    CodecModel().fit(None).save(tmp_path / "m.zip")

    def drop(name, data):
        if name == "manifest.json":
            m = json.loads(data)
            del m["attributes"]["vocabulary_"]
            return json.dumps(m)
        return data

    _rewrite(tmp_path / "m.zip", tmp_path / "bad.zip", drop)
    with pytest.raises(ModelFormatError, match="the model lacks vocabulary_: the file is incomplete"):
        load_model(tmp_path / "bad.zip")


def test_an_unregistered_estimator_cannot_be_saved(tmp_path):
    class Mine(RationalSVC):
        pass

    X, y = _data(7)
    with pytest.raises(  # issue 21: a TypeError (ParameterTypeError), no longer a ModelFormatError
        ParameterTypeError, match="Cannot save Mine: it is not a registered learner or recommender plugin"
    ):
        Mine(kernels.ngram(2), random_state=0).fit(X, y).save(tmp_path / "m.zip")
    with pytest.raises(NotFittedError, match="This RationalSVC instance is not fitted yet"):
        RationalSVC().save(tmp_path / "m.zip")


def test_numpy_scalars_in_fitted_state_come_back_of_their_dtype(tmp_path):
    """Regression (audit): a third-party model's np.float32 state came back a Python float, and
    its float32 arithmetic with it: (a + c − a) with a = 1e8, c = 1 gave 0 in memory, 1 loaded."""
    from ratkit import save_model

    m = LinearDCDSVC(random_state=0).fit(np.random.RandomState(0).randn(20, 3), np.arange(20) % 2)
    state = {"a": np.float32(1e8), "c": np.float32(1.0), "n": np.int32(7), "flag": np.bool_(True)}
    m.extra_state_ = {**state, "listed": [np.float16(0.5), np.int8(-3)]}
    m._fitted_attributes = (*type(m)._fitted_attributes, "extra_state_")
    again = load_model(save_model(m, tmp_path / "m.zip"))
    got = again.extra_state_
    for key, value in state.items():
        assert type(got[key]) is type(value) and got[key] == value
    assert [type(v) for v in got["listed"]] == [np.float16, np.int8] and got["listed"] == [0.5, -3]
    assert got["a"] + got["c"] - got["a"] == state["a"] + state["c"] - state["a"] == 0.0
