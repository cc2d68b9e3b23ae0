"""A kernel family and learners ratkit does not contain, from a throwaway distribution's entry
points, without edits to ratkit: ``from_spec`` builds the kernel and ``to_spec`` writes it back,
``ratkit train --learner NAME --kernel SPEC -o m.zip`` trains, ``ratkit predict --model m.zip``
predicts, and ``ratkit.load_model`` restores the model with equal decision values."""

from __future__ import annotations

import importlib
import itertools
import json
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from ratkit import load_model, plugins
from ratkit.automata.kernels import Kernel, from_spec
from ratkit.cli._main import main
from ratkit.datasets import load_tsv, write_tsv
from ratkit.testing import KernelContract, LearnerContract
from tests.thirdparty import installed_distribution

KERNELS, LEARNERS = "ratkit_tp_kernels", "ratkit_tp_learners"
SPEC = {"family": "skip-bigram", "gap_weight": 0.5}

_KERNEL_SOURCE = '''\
from ratkit.automata import from_arcs
from ratkit.automata.kernels import RationalKernel


class SkipBigramKernel(RationalKernel):
    """K(x, y) = w² Σ_z c(x, z) c(y, z) over the pairs z = x_i x_(i+2) (one symbol skipped, weight w)."""

    semiring = "probability"

    def __init__(self, gap_weight: float = 1.0) -> None:
        self.gap_weight = gap_weight

    def _build_factor(self, alphabet):
        arcs = []
        for s in alphabet:
            arcs += [(0, s, "", 1.0, 0), (0, s, s, 1.0, 1), (1, s, "", self.gap_weight, 2)]
            arcs += [(2, s, s, 1.0, 3), (3, s, "", 1.0, 3)]
        return from_arcs(arcs, 0, {3: 1.0}, "probability", alphabet)
'''

_LEARNER_SOURCE = '''\
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from ratkit.automata.kernels import from_spec
from ratkit.learners import PersistenceMixin, RationalSVC


class CentroidClassifier(PersistenceMixin, ClassifierMixin, BaseEstimator):
    """f_c(x) = mean_(i in c) K(x_i, x) - (1 - shrink) / 2 · mean_(i, j in c) K(x_i, x_j): the nearest class mean."""

    _fitted_attributes = ("classes_", "kernel_", "support_vectors_", "weights_", "offsets_")

    def __init__(self, kernel=None, shrink: float = 0.0) -> None:
        self.kernel = kernel
        self.shrink = shrink

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string, tags.input_tags.two_d_array = True, False
        return tags

    def fit(self, X, y):
        self.kernel_ = from_spec(self.kernel) if isinstance(self.kernel, (dict, str)) else clone(self.kernel)
        y = np.asarray(y)
        self.classes_ = np.unique(y)
        self.support_vectors_ = list(X)
        member = (y[None, :] == self.classes_[:, None]).astype(float)
        self.weights_ = member / member.sum(axis=1, keepdims=True)
        K = self.kernel_.gram(self.support_vectors_)
        self.offsets_ = -0.5 * (1.0 - self.shrink) * np.einsum("ci,ij,cj->c", self.weights_, K, self.weights_)
        return self

    def decision_function(self, X):
        check_is_fitted(self)
        return self.kernel_.gram(list(X), self.support_vectors_) @ self.weights_.T + self.offsets_

    def predict(self, X):
        return self.classes_[np.argmax(self.decision_function(X), axis=1)]


class MarginSVC(RationalSVC):
    """RationalSVC that also reports |f(x)|: a subclass needs nothing of its own for files."""

    def margin(self, X):
        return np.abs(self.decision_function(X))
'''


@pytest.fixture(scope="module")
def distribution(tmp_path_factory):
    """``ratkit-tp-plugins`` on sys.path: a kernel family and two learners."""
    with installed_distribution(
        tmp_path_factory.mktemp("site"),
        "ratkit-tp-plugins",
        {f"{KERNELS}.py": _KERNEL_SOURCE, f"{LEARNERS}.py": _LEARNER_SOURCE},
        {
            "ratkit.kernels": {"skip-bigram": f"{KERNELS}:SkipBigramKernel"},
            "ratkit.learners": {"centroid": f"{LEARNERS}:CentroidClassifier", "margin-svc": f"{LEARNERS}:MarginSVC"},
        },
    ) as root:
        yield root


def _counts(x: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for i in range(len(x) - 2):
        out[x[i] + x[i + 2]] = out.get(x[i] + x[i + 2], 0) + 1
    return out


def _oracle_gram(X: list[str], Y: list[str], w: float) -> np.ndarray:
    """w² Σ_z c(x, z) c(y, z), the pairs counted by brute force."""
    cx, cy = [_counts(x) for x in X], [_counts(y) for y in Y]
    return np.array([[w * w * sum(a[z] * b.get(z, 0) for z in a) for b in cy] for a in cx])


def _sequences(seed: int, m: int) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    X = ["".join(rng.choice(list("acgt"), size=int(rng.integers(6, 14)))) for _ in range(m)]
    return X, ["pos" if x.count("a") > x.count("t") else "neg" for x in X]


@pytest.fixture
def files(tmp_path):
    write_tsv(tmp_path / "train.tsv", *_sequences(1, 60))
    write_tsv(tmp_path / "test.tsv", *_sequences(2, 25))
    return tmp_path


def test_from_spec_builds_the_plugin_kernel_and_to_spec_writes_it_back(distribution):
    k = from_spec(SPEC)
    assert type(k).__module__ == KERNELS and isinstance(k, Kernel)
    assert k.to_spec() == SPEC and from_spec(json.dumps(k.to_spec())).to_spec() == SPEC
    X, _ = _sequences(3, 8)
    np.testing.assert_allclose(k.gram(X), _oracle_gram(X, X, 0.5), rtol=1e-12)
    assert plugins.describe("kernel", "skip-bigram").distribution == "ratkit-tp-plugins"


@pytest.mark.usefixtures("distribution")
class TestSkipBigramKernelContract(KernelContract):
    def make_kernel(self):
        return importlib.import_module(KERNELS).SkipBigramKernel(gap_weight=0.5)


@pytest.mark.usefixtures("distribution")
class TestCentroidClassifierContract(LearnerContract):
    def make_estimator(self):
        return importlib.import_module(LEARNERS).CentroidClassifier(from_spec(SPEC), shrink=0.25)

    def make_data(self):
        return _sequences(4, 20)

    def changed_params(self):
        return {"kernel__gap_weight": 2.0}


def test_train_predict_and_load_model_on_the_plugins(distribution, files, capsys):
    model_file = files / "m.zip"
    argv = ["train", "--learner", "centroid", "--kernel", json.dumps(SPEC), "--data", str(files / "train.tsv")]
    argv += ["--test-data", str(files / "test.tsv"), "--param", "shrink=0.5", "-o", str(model_file), "--quiet"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "trained CentroidClassifier in" in out and "held-out accuracy" in out

    loaded = load_model(model_file)
    assert type(loaded).__name__ == "CentroidClassifier" and loaded.shrink == 0.5
    assert loaded.kernel_.to_spec() == SPEC
    X, y = _sequences(1, 60)
    Z, _ = _sequences(2, 25)
    # the model of the file is the one fitted here, and both are the brute-force nearest class mean
    direct = importlib.import_module(LEARNERS).CentroidClassifier(from_spec(SPEC), shrink=0.5).fit(X, y)
    np.testing.assert_array_equal(loaded.decision_function(Z), direct.decision_function(Z))
    member = (np.array(y)[None, :] == np.unique(y)[:, None]).astype(float)
    member /= member.sum(axis=1, keepdims=True)  # 1/|c| on the members of class c
    K = _oracle_gram(X, X, 0.5)
    want = _oracle_gram(Z, X, 0.5) @ member.T - 0.25 * np.einsum("ci,ij,cj->c", member, K, member)
    np.testing.assert_allclose(loaded.decision_function(Z), want, rtol=1e-10, atol=1e-12)

    argv = ["predict", "--model", str(model_file), "--data", str(files / "test.tsv"), "-o", str(files / "p.tsv")]
    assert main(argv) == 0
    assert load_tsv(files / "p.tsv").labels == [str(p) for p in loaded.predict(Z)]


def test_a_rational_svc_subclass_plugin_trains_saves_and_loads(distribution, files, capsys):
    model_file = files / "margin.zip"
    argv = ["train", "--learner", "margin-svc", "--kernel", json.dumps(SPEC), "--data", str(files / "train.tsv")]
    argv += ["--representation", "automaton", "-C", "3", "--test-size", "0", "-o", str(model_file), "--quiet"]
    assert main(argv) == 0
    assert "trained MarginSVC (W′ as automaton)" in capsys.readouterr().out
    loaded = load_model(model_file)
    assert type(loaded).__name__ == "MarginSVC" and loaded.C == 3.0 and loaded.representation_ == "automaton"
    X, y = _sequences(1, 60)
    direct = plugins.get("learner", "margin-svc")(from_spec(SPEC), C=3.0, representation="automaton", random_state=0)
    direct.fit(X, y)
    np.testing.assert_allclose(loaded.decision_function(X), direct.decision_function(X), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(loaded.margin(X), np.abs(direct.decision_function(X)), rtol=1e-12, atol=1e-12)
    # W′ on the skip-bigram vocabulary: the plugin kernel's features went through the trie's automaton
    assert loaded.feature_map_.n_features == loaded.coef_.shape[1] > 0


def test_train_refuses_options_the_plugin_learner_does_not_take(distribution, files, capsys):
    argv = ["train", "--learner", "centroid", "--kernel", json.dumps(SPEC), "--data", str(files / "train.tsv")]
    assert main([*argv, "-C", "2"]) == 2
    assert "-C: the learner 'centroid' (CentroidClassifier) has no parameter 'C'" in capsys.readouterr().err
    assert main([*argv, "--param", "gap=1"]) == 2
    assert "CentroidClassifier has no parameter 'gap'" in capsys.readouterr().err


@pytest.mark.slow
def test_train_and_predict_in_a_fresh_interpreter_find_the_plugins(distribution, files, monkeypatch):
    """What a user types: other processes discover the entry points through importlib.metadata."""
    import os

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(distribution), os.environ.get("PYTHONPATH")])))
    code = "import sys; from ratkit.cli._main import main; sys.exit(main(sys.argv[1:]))"
    model_file = files / "fresh.zip"
    runs = []
    for argv in (
        ["train", "--learner", "centroid", "--kernel", json.dumps(SPEC), "--data", str(files / "train.tsv")]
        + ["--test-size", "0", "-o", str(model_file), "--quiet"],
        ["predict", "--model", str(model_file), "--data", str(files / "test.tsv")],
    ):
        run = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        runs.append(run)
    assert "trained CentroidClassifier" in runs[0].stdout
    Z, _ = _sequences(2, 25)
    lines = runs[1].stdout.splitlines()
    assert [line.split("\t")[1] for line in lines] == Z
    assert [line.split("\t")[0] for line in lines] == [str(p) for p in load_model(model_file).predict(Z)]


def test_the_plugins_are_listed_with_their_distribution(distribution):
    assert {"centroid", "margin-svc"} <= set(plugins.available("learner"))
    assert "skip-bigram" in plugins.available("kernel")
    infos = [plugins.describe(kind, name) for kind, name in itertools.product(["learner"], ["centroid", "margin-svc"])]
    assert {i.distribution for i in infos} == {"ratkit-tp-plugins"}


# -- a kernel family whose fitted state is a type of its own, saved by its own codec -----------------

CODECS = "ratkit_tp_codecs"
TAG = "ratkit-tp-codecs.counted-vocabulary"
COUNTED = {"family": "counted-ngram", "n": 2}

_CODEC_SOURCE = '''\
import numpy as np
import scipy.sparse as sp

from ratkit.automata.kernels import NgramKernel
from ratkit.persistence import register_codec


class CountedVocabulary:
    """A pattern vocabulary that also keeps, per column, how many training rows hold the pattern:
    a type ratkit does not know."""

    def __init__(self, inner, rows):
        self.inner, self.rows = inner, np.asarray(rows, dtype=np.int64)

    @property
    def n_features(self):
        return self.inner.n_features

    @property
    def symbols(self):
        return self.inner.symbols

    def pattern_codes(self):
        return self.inner.pattern_codes()

    def to_state(self):  # as a plain pattern vocabulary (what ratkit's own codec would keep)
        return self.inner.to_state()


def _inner(vocabulary):
    return vocabulary.inner if isinstance(vocabulary, CountedVocabulary) else vocabulary


class CountedNgramKernel(NgramKernel):
    """The n-gram kernel, whose vocabulary also counts the training rows of each n-gram."""

    def fit_features(self, X, **options):
        vocabulary, F = super().fit_features(X, **options)
        return CountedVocabulary(vocabulary, np.diff(sp.csc_matrix(F).indptr)), F

    def transform_features(self, vocabulary, X, **options):
        return super().transform_features(_inner(vocabulary), X, **options)

    def check_vocabulary(self, vocabulary, columns):
        super().check_vocabulary(_inner(vocabulary), columns)


def _encode(vocabulary, ctx):
    return {"inner": ctx.value("inner", vocabulary.inner), "rows": ctx.array("rows", vocabulary.rows)}


def _decode(body, ctx):
    return CountedVocabulary(ctx.value("inner", body["inner"]), ctx.array(body["rows"]))


register_codec(CountedVocabulary, "ratkit-tp-codecs.counted-vocabulary", _encode, _decode)
'''


@pytest.fixture(scope="module")
def codec_distribution(tmp_path_factory):
    """``ratkit-tp-codecs`` on sys.path: a kernel family whose fitted vocabulary is a new type,
    with the codec that saves it, in the same module."""
    with installed_distribution(
        tmp_path_factory.mktemp("codecs"),
        "ratkit-tp-codecs",
        {f"{CODECS}.py": _CODEC_SOURCE},
        {"ratkit.kernels": {"counted-ngram": f"{CODECS}:CountedNgramKernel"}},
    ) as root:
        yield root


def _rows_holding(X: list[str], pattern: tuple[str, ...]) -> int:
    return sum("".join(pattern) in x for x in X)


@pytest.mark.parametrize("representation", ["trie", "automaton"])
def test_a_kernel_family_saves_its_own_fitted_type_through_its_own_codec(codec_distribution, tmp_path, representation):
    from ratkit.automata import kernels
    from ratkit.learners import RationalSVC

    X, y = _sequences(5, 40)
    Z, _ = _sequences(6, 15)
    model = RationalSVC(from_spec(COUNTED), C=2.0, representation=representation, random_state=0).fit(X, y)
    assert type(model.feature_map_).__name__ == "CountedVocabulary"
    path = model.save(tmp_path / "counted.zip")
    with zipfile.ZipFile(path) as zf:
        manifest = json.loads(zf.read("manifest.json"))
    assert set(manifest["attributes"]["feature_map_"]) == {TAG}
    assert manifest["version"] == 5  # a codec registered since version 5 (this one: the current)

    loaded = load_model(path)
    fmap = loaded.feature_map_
    assert type(fmap) is importlib.import_module(CODECS).CountedVocabulary and type(fmap) is type(model.feature_map_)
    np.testing.assert_array_equal(fmap.rows, model.feature_map_.rows)
    # the rows counted by brute force: how many training strings hold each bigram of the vocabulary
    assert fmap.rows.tolist() == [_rows_holding(X, p) for p in fmap.inner.patterns()]
    np.testing.assert_array_equal(loaded.decision_function(Z), model.decision_function(Z))
    # the family is the n-gram kernel: ratkit's own bigram model decides the same
    plain = RationalSVC(kernels.ngram(2), C=2.0, representation=representation, random_state=0).fit(X, y)
    np.testing.assert_allclose(loaded.decision_function(Z), plain.decision_function(Z), rtol=1e-9, atol=1e-12)
    assert loaded.kernel_.to_spec() == COUNTED


def test_a_file_holding_a_codec_nobody_registers_names_the_tag_and_what_to_install(codec_distribution, tmp_path):
    from ratkit.exceptions import ModelFormatError
    from ratkit.learners import RationalSVC
    from tests.modelfiles import rewrite

    X, y = _sequences(5, 20)
    path = RationalSVC(from_spec(COUNTED), random_state=0).fit(X, y).save(tmp_path / "counted.zip")

    def retag(name, data):
        return data.replace(TAG.encode(), b"ratkit-tp-elsewhere.thing") if name == "manifest.json" else data

    bad = rewrite(path, tmp_path / "elsewhere.zip", retag)
    with pytest.raises(
        ModelFormatError,
        match=r"elsewhere\.zip: feature_map_ is encoded by the codec 'ratkit-tp-elsewhere\.thing', which no installed "
        r"package registers .*Install the distribution that registers it",
    ):
        load_model(bad)


def test_codec_tags_are_unique(codec_distribution):
    from ratkit.exceptions import ParameterError
    from ratkit.persistence import codecs, register_codec

    counted = importlib.import_module(CODECS).CountedVocabulary
    assert codecs()[TAG] is counted and codecs()["kernel"] is Kernel

    class Other:
        pass

    with pytest.raises(ParameterError, match=rf"the tag '{TAG}' already has the codec of {CODECS}.CountedVocabulary"):
        register_codec(Other, TAG, lambda v, ctx: None, lambda body, ctx: Other())
    with pytest.raises(ParameterError, match=r"the type .*CountedVocabulary already has the codec"):
        register_codec(counted, "ratkit-tp-codecs.again", lambda v, ctx: None, lambda body, ctx: None)
    with pytest.raises(ParameterError, match=r"The codec tag 'array' is one of the model file's own encodings"):
        register_codec(Other, "array", lambda v, ctx: None, lambda body, ctx: Other())
    assert TAG in codecs() and "ratkit-tp-codecs.again" not in codecs()
