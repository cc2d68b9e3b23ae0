"""One declarative description of the fitted state per estimator class (:mod:`ratkit.fitted`).

Three parts: the checker on small hand-made descriptions; every registered learner and
recommender, after a real fit on small data, matches its own description and describes every
attribute it sets (the description ``fit`` produces is the one a file is checked against); and
a variant matrix over those genuine models and the attributes their descriptions declare: each
edit of a dtype, a shape or a value (NaN, a value below its bound, a repeated label, an index out
of range), written into the model file with every checksum recomputed, is refused by
``load_model`` with a ModelFormatError naming the file and a fitted attribute.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp

from ratkit import load_model, plugins
from ratkit.automata import kernels
from ratkit.datasets import Interactions
from ratkit.exceptions import DataFormatError, ModelFormatError
from ratkit.fitted import (
    Array,
    Bool,
    Derived,
    Fitted,
    Instance,
    Int,
    Json,
    Labels,
    Numbers,
    Real,
    Samples,
    Sequences,
    Sparse,
    Text,
    check_fitted,
    schema_of,
)
from ratkit.learners import KernelLearner, LinearDCDSVC, RationalSVC
from ratkit.recsys import CCCF, DCF, FISM, MFAUC, TJSL, Popularity, PureSVD
from tests.modelfiles import edit_model, manifest_of

# -- the checker -----------------------------------------------------------------------------------


class Toy:
    """A model of a hand-made description: three counts, two arrays sharing "d", a rule."""

    _fitted_schema = Fitted(
        n_rows_=Int(low=1),
        labels_=Labels(optional=True),
        left_=Array("f", ("n_rows_", "d")),
        right_=Array("f", ("twice", "d"), low=0.0),
        index_=Array("iu", (None,), below="n_rows_", nullable=True),
        name_=Text(choices=("a", "b"), optional=True),
        dims={"twice": Derived(("n_rows_",), lambda n: 2 * n)},
        rules=(lambda m: None if m.left_.sum() <= m.right_.sum() else "left_ outweighs right_",),
    )

    def __init__(self, **attributes: Any) -> None:
        base = {"n_rows_": 2, "left_": np.zeros((2, 3)), "right_": np.ones((4, 3)), "index_": None}
        for key, value in {**base, **attributes}.items():
            if value is not _ABSENT:
                setattr(self, key, value)


_ABSENT = object()


def _refused(model: Any, words: str, **kw: Any) -> str:
    with pytest.raises(ModelFormatError) as caught:
        check_fitted(model, **kw)
    assert re.search(words, str(caught.value)), str(caught.value)
    return str(caught.value)


def test_a_model_matching_its_description_passes():
    check_fitted(Toy())
    check_fitted(Toy(labels_=np.array(["a", "b"]), index_=np.array([0, 1]), name_="b"))


@pytest.mark.parametrize(
    ("attributes", "words"),
    [
        ({"n_rows_": _ABSENT}, r"Toy's fitted n_rows_ is missing; expected an int ≥ 1"),
        ({"n_rows_": 0}, r"fitted n_rows_ is 0; expected an int ≥ 1"),
        ({"n_rows_": True}, r"fitted n_rows_ is the bool True; expected an int"),
        ({"n_rows_": 2.0}, r"fitted n_rows_ is the float 2.0; expected an int"),
        ({"left_": np.zeros((3, 3))}, r"left_ has shape \(3, 3\), but axis 0 should have 2 \(n_rows_\)"),
        ({"right_": np.ones((2, 3))}, r"right_ has shape \(2, 3\), but axis 0 should have 4 \(twice, from n_rows_\)"),
        ({"right_": np.ones((4, 2))}, r"right_ has shape \(4, 2\), but axis 1 should have 3 \(d, as in left_\)"),
        ({"left_": np.zeros((2, 3, 1))}, r"left_ has shape \(2, 3, 1\); expected a 2-D array of finite floats"),
        ({"left_": np.zeros((2, 3), dtype=np.float32)}, None),  # any width of float
        ({"left_": np.zeros((2, 3), dtype=int)}, r"left_ is an array of dtype int64; expected a 2-D array of finite"),
        ({"left_": [[0.0] * 3] * 2}, r"left_ is a list of 2 items; expected a 2-D array"),
        ({"left_": None}, r"left_ is None; expected a 2-D array"),
        ({"right_": np.full((4, 3), np.inf)}, r"right_ holds NaN or infinite values \(inf at index \[0, 0\]\)"),
        ({"right_": -np.ones((4, 3))}, r"right_ holds -1.0, below 0.0; expected .*≥ 0"),
        ({"index_": np.array([0, 2])}, r"index_ holds the index 2, past n_rows_ = 2"),
        ({"labels_": np.array([1])}, r"labels_ holds 1 label; expected a 1-D array of at least 2 distinct"),
        ({"labels_": np.array(["b", "a"])}, r"labels_ is not in sorted order \(\['b', 'a'\]\)"),
        ({"labels_": np.array([np.nan, 1.0])}, r"labels_ holds the label nan"),
        ({"labels_": np.array([1, "a"], dtype=object)}, r"labels_ holds labels of types that cannot be sorted"),
        ({"name_": "c"}, r"name_ is the str 'c'; expected one of 'a', 'b'"),
        ({"left_": np.ones((2, 3)), "right_": np.full((4, 3), 0.1)}, r"Toy's fitted state is inconsistent: left_"),
    ],
)
def test_each_kind_of_mismatch_is_named(attributes, words):
    if words is None:
        check_fitted(Toy(**attributes))
    else:
        _refused(Toy(**attributes), words)


def test_the_cheap_check_reads_types_and_shapes_but_no_values():
    check_fitted(Toy(right_=np.full((4, 3), np.nan)), values=False)
    check_fitted(Toy(labels_=np.array([1, 1])), values=False)
    with pytest.raises(DataFormatError, match=r"right_ has shape \(4, 2\).* Refit\.$"):
        check_fitted(Toy(right_=np.ones((4, 2))), values=False, error=DataFormatError, advice="Refit.")


def test_attributes_a_class_does_not_describe_are_checked_generically():
    class Plain:
        pass

    model = Plain()
    model.ok_ = [np.zeros(2, dtype=np.complex128), {"a": np.array(["x"]), "b": np.array([1, None], dtype=object)}]
    model.also_ = sp.csr_matrix(np.eye(2))
    model._private = np.array([[1, 2], [3]], dtype=object)  # not a fitted attribute
    check_fitted(model)
    model.bad_ = {"deep": [np.array([[1, 2], [3]], dtype=object)]}
    _refused(model, r"Plain's fitted bad_ is an object array holding a list")
    del model.bad_
    model.when_ = np.array(["2020-01-01"], dtype="datetime64[D]")
    _refused(model, r"fitted when_ is an array of dtype datetime64\[D\]; expected arrays of numbers")
    del model.when_
    broken = sp.csr_matrix((np.ones(2), np.array([0, 7]), np.array([0, 1, 2])), shape=(2, 2))
    model.graph_ = broken
    _refused(model, r"fitted graph_ is a malformed sparse matrix")


def test_a_description_is_extended_and_names_what_is_required():
    base = Fitted(a_=Int(), b_=Bool(optional=True))
    more = base.extend(c_=Real(), a_=Int(low=5), dims={"k": Derived(("a_",), lambda a: a)})
    assert list(more.attributes) == ["a_", "b_", "c_"] and more.attributes["a_"] == Int(low=5)
    assert more.required == ("a_", "c_") and base.required == ("a_",) and "k" in more.dims
    with pytest.raises(TypeError, match=r"Fitted: x_=3 is not a Spec"):
        Fitted(x_=3)


def test_the_specs_of_records_sequences_and_instances():
    class Rec:
        _fitted_schema = Fitted(
            seqs_=Sequences("n"),
            samples_=Samples("n"),
            scale_=Numbers(2),
            kernel_=Instance((kernels.Kernel,), "a ratkit kernel", values=("linear",)),
            log_=Json(),
        )

    model = Rec()
    model.seqs_, model.samples_, model.scale_ = ["ab", ("c", "d")], sp.csr_matrix((2, 3)), [1, 5.0]
    model.kernel_, model.log_ = "linear", {"x": [1, 2]}
    check_fitted(model)
    model.kernel_ = kernels.ngram(2)
    check_fitted(model)
    for name, value, words in [
        ("seqs_", ["ab", ("c", 1)], r"seqs_ holds the tuple \('c', 1\)|seqs_ holds a tuple"),
        ("samples_", np.zeros((3, 2)), r"samples_ has shape \(3,\), but axis 0 should have 2 \(n, as in seqs_\)"),
        ("scale_", [1.0, float("nan")], r"scale_ holds an item that is nan \(index 1\)"),
        ("scale_", [1.0], r"scale_ has shape \(1,\), but axis 0 should have 2"),
        ("kernel_", "quadratic", r"kernel_ is the str 'quadratic'; expected a ratkit kernel"),
        ("log_", {"x": np.array([{}], dtype=object)}, r"log_ is an object array holding a dict"),
    ]:
        saved = getattr(model, name)
        setattr(model, name, value)
        _refused(model, words)
        setattr(model, name, saved)


# -- every registered estimator: fit produces its description ---------------------------------------

X_NUM = np.random.RandomState(0).randn(24, 3)
Y_NUM = (X_NUM[:, 0] + 0.3 * X_NUM[:, 1] > 0).astype(int)
Y_NUM3 = Y_NUM + (X_NUM[:, 2] > 0.5)
X_STR = ["abab", "abba", "baba", "bbbb", "aaaa", "abaa", "abcab", "cabba"] * 2
Y_STR = [1, 1, 1, 0, 0, 0, 1, 0] * 2
Y_THREE = ["x", "y", "z", "x", "y", "z", "x", "y"] * 2
IMPLICIT = sp.random(30, 20, density=0.3, format="csr", random_state=0)
RATINGS = IMPLICIT.copy()
RATINGS.data = np.ceil(RATINGS.data * 5)


def _ids(matrix: sp.csr_matrix) -> Interactions:
    m, n = matrix.shape
    return Interactions(matrix, np.array([f"u{i}" for i in range(m)]), 100 + np.arange(n), "test")


@dataclass(frozen=True)
class Case:
    id: str
    kind: str
    plugin: str
    fit: Any

    def model(self) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence warnings of the tiny fits
            return self.fit()


def _svc(kernel: Any, X: Any, y: Any, **params: Any) -> RationalSVC:
    return RationalSVC(kernel, random_state=0, **params).fit(X, y)


NG2 = kernels.ngram(2)
CASES = [
    Case("linear-dcd", "learner", "linear-dcd", lambda: LinearDCDSVC(random_state=0).fit(X_NUM, Y_NUM)),
    Case("linear-dcd-3", "learner", "linear-dcd", lambda: LinearDCDSVC(random_state=0).fit(X_NUM, Y_NUM3)),
    Case("svc-trie", "learner", "rational-svc", lambda: _svc(NG2, X_STR, Y_STR)),
    Case("svc-trie-3", "learner", "rational-svc", lambda: _svc(NG2, X_STR, Y_THREE)),
    Case(
        "svc-automaton",
        "learner",
        "rational-svc",
        lambda: _svc(NG2, X_STR, Y_STR, representation="automaton", fit_intercept=True),
    ),
    Case("svc-naive", "learner", "rational-svc", lambda: _svc(kernels.ngram(1), X_STR, Y_STR, representation="naive")),
    Case(
        "svc-rows", "learner", "rational-svc", lambda: _svc(kernels.cosine(NG2), X_STR, Y_THREE, representation="rows")
    ),
    Case("svc-linear", "learner", "rational-svc", lambda: _svc("linear", X_NUM, Y_NUM)),
    Case(
        "svc-linear-rows",
        "learner",
        "rational-svc",
        lambda: _svc("linear", sp.csr_matrix(X_NUM), Y_NUM, representation="rows"),
    ),
    Case("kernel-learner", "learner", "kernel-learner", lambda: KernelLearner().fit(X_STR, 2 * np.array(Y_STR) - 1)),
    Case("popularity", "recommender", "popularity", lambda: Popularity().fit(IMPLICIT)),
    Case("puresvd", "recommender", "puresvd", lambda: PureSVD(n_factors=3, random_state=0).fit(_ids(IMPLICIT))),
    Case("mfauc", "recommender", "mfauc", lambda: MFAUC(n_factors=3, max_iter=3, random_state=0).fit(IMPLICIT)),
    Case("cccf", "recommender", "cccf", lambda: CCCF(2, 4, max_iter=3, random_state=0).fit(RATINGS)),
    Case(
        "cccf-integer",
        "recommender",
        "cccf",
        lambda: CCCF(2, 9, max_iter=2, weight_scale=8.0, random_state=0).fit(_ids(RATINGS)),
    ),
    Case("dcf", "recommender", "dcf", lambda: DCF(4, max_iter=3, random_state=0).fit(RATINGS)),
    Case(
        "tjsl", "recommender", "tjsl", lambda: TJSL(n_factors=2, n_rounds=2, n_epochs=1, random_state=0).fit(IMPLICIT)
    ),
    Case("fism", "recommender", "fism", lambda: FISM(n_factors=2, n_epochs=1, random_state=0).fit(_ids(IMPLICIT))),
]


def test_every_built_in_learner_and_recommender_has_a_case():
    built_in = {
        (kind, name)
        for kind in ("learner", "recommender")
        for name in plugins.available(kind)
        if plugins.get(kind, name).__module__.startswith("ratkit.")
    }
    assert built_in == {(case.kind, case.plugin) for case in CASES}


@pytest.fixture(scope="module")
def fitted():
    return {case.id: case.model() for case in CASES}


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_fit_produces_its_own_description_and_describes_everything_it_sets(case, fitted):
    model = fitted[case.id]
    schema = schema_of(type(model))
    assert schema is not None and type(model)._fitted_attributes == schema.required
    check_fitted(model)
    public = {k for k in vars(model) if k.endswith("_") and not k.startswith("_")}
    assert public <= set(schema.attributes), f"not described: {sorted(public - set(schema.attributes))}"


# -- the variant matrix: edits of each declared attribute, refused on load ---------------------------


def _dims_elsewhere(schema: Fitted, name: str) -> set[str]:
    """The named dimensions of ``name``'s shape that something else fixes: an Int attribute, a
    derived dimension, or another attribute naming the same dimension."""
    others = set()
    for other, spec in schema.attributes.items():
        if other != name:
            for key in ("shape", "length"):
                dims = getattr(spec, key, ())
                others.update(dims if isinstance(dims, tuple) else (dims,))
    return {d for d in others | set(schema.dims) | {a for a, s in schema.attributes.items() if isinstance(s, Int)}}


def _variants(model: Any) -> list[tuple[str, str, dict[str, Any]]]:
    """(attribute, variant, edit for edit_model) for every declared array, sparse matrix, int
    and label array the genuine model holds."""
    schema = schema_of(type(model))
    out = []
    for name, spec in schema.attributes.items():
        value = getattr(model, name, None)
        if value is None:
            continue
        if isinstance(spec, Array) and isinstance(value, np.ndarray):
            if "c" not in spec.kinds:
                out.append((name, "complex", {"arrays": {name: np.full(value.shape, 1j)}}))
            if "U" not in spec.kinds:
                out.append((name, "strings", {"arrays": {name: value.astype(str)}}))
            out.append((name, "extra-axis", {"arrays": {name: value[..., None]}}))
            fixed = _dims_elsewhere(schema, name)
            for axis, dim in enumerate(spec.shape):
                if isinstance(dim, str) and dim in fixed:
                    wrong = np.delete(value, 0, axis=axis) if value.shape[axis] > 1 else np.repeat(value, 2, axis=axis)
                    out.append((name, f"axis-{axis}", {"arrays": {name: wrong}}))
            if value.size and spec.finite and value.dtype.kind == "f":
                out.append((name, "nan", {"arrays": {name: _with_first(value, np.nan)}}))
                out.append((name, "inf", {"arrays": {name: _with_first(value, -np.inf)}}))
            if value.size and spec.low is not None:
                out.append((name, "below-low", {"arrays": {name: _with_first(value, spec.low - 1)}}))
            if value.size and spec.below is not None:
                out.append((name, "index-out", {"arrays": {name: _with_first(value, 10**6)}}))
        elif isinstance(spec, Sparse) and sp.issparse(value):
            csr = sp.csr_matrix(value)
            if csr.nnz:
                out.append((name, "nan", {"arrays": {f"{name}.data": _with_first(csr.data, np.nan)}}))
                out.append((name, "index-out", {"arrays": {f"{name}.indices": _with_first(csr.indices, 10**6)}}))
                out.append((name, "complex", {"arrays": {f"{name}.data": csr.data.astype(np.complex128)}}))
        elif isinstance(spec, Int):
            for variant, bad in (("json-string", str(value)), ("float", float(value) + 0.5), ("bool", True)):
                out.append((name, variant, {"attributes": {name: {"json": bad}}}))
            if spec.low is not None:
                out.append((name, "below-low", {"attributes": {name: {"json": spec.low - 1}}}))
        elif isinstance(spec, Labels) and isinstance(value, np.ndarray):
            out.append((name, "repeated", {"arrays": {name: np.repeat(value[:1], len(value))}}))
            out.append((name, "unsorted", {"arrays": {name: value[::-1]}}))
            out.append((name, "one-label", {"arrays": {name: value[:1]}}))
            out.append((name, "complex", {"arrays": {name: np.arange(len(value)) + 0j}}))
        elif isinstance(spec, Real) and spec.finite:
            out.append((name, "json-string", {"attributes": {name: {"json": str(value)}}}))
            out.append((name, "nan", {"attributes": {name: {"json": float("nan")}}}))
    return out


def _with_first(value: np.ndarray, bad: float) -> np.ndarray:
    out = value.astype(np.result_type(value.dtype, np.asarray(bad).dtype)).copy()
    out.flat[0] = bad
    return out


MATRIX_CASES = ("linear-dcd", "svc-trie-3", "svc-naive", "svc-linear-rows", "kernel-learner", "puresvd", "mfauc")
MATRIX_CASES += ("popularity", "cccf-integer", "dcf", "fism", "tjsl")


@pytest.fixture(scope="module")
def genuine(tmp_path_factory, fitted):
    folder = tmp_path_factory.mktemp("genuine")
    return {key: fitted[key].save(folder / f"{key}.zip") for key in MATRIX_CASES}


def test_the_matrix_covers_every_declared_kind_and_the_genuine_files_load(genuine, fitted):
    kinds = set()
    for key in MATRIX_CASES:
        model = fitted[key]
        kinds.update(type(spec).__name__ for spec in schema_of(type(model)).attributes.values())
        again = load_model(genuine[key])
        assert type(again) is type(model)
        assert manifest_of(genuine[key])["attributes"].keys() >= set(schema_of(type(model)).required)
    assert {"Array", "Sparse", "Int", "Labels", "Real"} <= kinds
    count = sum(len(_variants(fitted[key])) for key in MATRIX_CASES)
    assert count > 150, count


@pytest.mark.parametrize("key", MATRIX_CASES)
def test_every_edit_of_a_declared_attribute_is_refused_on_load(key, genuine, fitted, tmp_path):
    model = fitted[key]
    described = schema_of(type(model)).attributes
    wrong = []
    for name, variant, edit in _variants(model):
        edited = edit_model(genuine[key], tmp_path / f"{name}-{variant}.zip", **edit)
        try:
            load_model(edited)
        except ModelFormatError as exc:
            message = str(exc)
            named = re.search(r"'s fitted (\w+) ", message)
            if not message.startswith(f"{edited}: ") or not named or named.group(1) not in described:
                wrong.append(f"{name} {variant}: {message}")
            elif not variant.startswith("axis") and named.group(1) != name:  # a size is reported where it clashes
                wrong.append(f"{name} {variant}: names {named.group(1)}: {message}")
        else:
            wrong.append(f"{name} {variant}: loaded")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    ("key", "attributes", "words"),
    [
        ("svc-trie", {"coef_": {"json": None}}, r"inconsistent: coef_ is None \(a kernel expansion\) but dual_coef_, "),
        (
            "svc-trie",
            {"feature_map_": {"json": None}},
            r"inconsistent: coef_ \(W′ on a vocabulary\) is set but feature_",
        ),
        (
            "svc-naive",
            {"support_": {"json": None}},
            r"inconsistent: coef_ is None \(a kernel expansion\) but support_ is",
        ),
        ("svc-linear", {"n_features_in_": {"json": None}}, r"fitted n_features_in_ is None; expected an int ≥ 1"),
        ("svc-trie", {"kernel_": {"json": "quadratic"}}, r"fitted kernel_ is the str 'quadratic'; expected a ratkit"),
        ("svc-trie", {"representation_": {"json": 3}}, r"fitted representation_ is the int 3; expected a str"),
        ("kernel-learner", {"patterns_": "reversed"}, r"inconsistent: kernel_ counts other patterns than patterns_"),
        ("kernel-learner", {"status_": {"json": None}}, r"fitted status_ is None; expected a str"),
        ("cccf-integer", {"rating_scale_": {"json": [5.0, 1.0]}}, r"inconsistent: rating_scale_ is \[5.0, 1.0\], not"),
        (
            "cccf-integer",
            {"weight_scale_": {"json": 0.0}},
            r"fitted weight_scale_ is 0.0; expected a finite real number > 0",
        ),
        ("cccf-integer", {"weight_scale_": {"json": 1e12}}, r"inconsistent: weight_scale_ = 1000000000000.0 makes"),
        ("mfauc", {"converged_": {"json": "yes"}}, r"fitted converged_ is the str 'yes'; expected a bool"),
    ],
)
def test_each_rule_and_scalar_of_the_built_in_descriptions(key, attributes, words, fitted, tmp_path):
    path = fitted[key].save(tmp_path / "genuine.zip")
    if attributes.get("patterns_") == "reversed":
        patterns = manifest_of(path)["attributes"]["patterns_"]
        attributes = {"patterns_": {next(iter(patterns)): list(reversed(next(iter(patterns.values()))))}}
    edited = edit_model(path, tmp_path / "edited.zip", attributes=attributes)
    with pytest.raises(ModelFormatError, match=words) as caught:
        load_model(edited)
    assert str(caught.value).startswith(f"{edited}: ")
