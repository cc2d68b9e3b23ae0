"""Kernel specs (round trips, errors), the kernel algebra, sklearn integration, diagnostics."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC

from ratkit.automata.kernels import (
    SpecError,
    cosine,
    count_based,
    edit_distance,
    exp_kernel,
    from_spec,
    from_transducer,
    gappy,
    mismatch,
    nds_to_pds,
    ngram,
    polynomial,
    subsequence,
    to_spec,
)
from ratkit.automata.kernels.diagnostics import (
    check_nds,
    check_pds,
    edit_distance_min_eigenvalues,
    min_eigenvalue_curve,
    strings_of_length,
)
from ratkit.exceptions import MissingDataError, NotRegulatedError, UnknownSymbolError

from .kernel_oracles import levenshtein, ngram_kernel, random_strings

XS = random_strings(random.Random(3), 12, "abc", 9, min_len=1)

LEAVES = [
    ngram(3),
    gappy(2, 0.4),
    mismatch(3, 1, "abc"),
    subsequence(),
    edit_distance(),
    edit_distance("probability", insertion=0.2, deletion=0.3, substitution=0.1, match=0.8),
    count_based(["ab", "c"], [1.0, 0.5]),
    from_transducer(ngram(2).factor("abc")),
]
COMBOS = [
    cosine(ngram(2)),
    ngram(1) + 0.5 * gappy(2, 0.5),
    ngram(1) * subsequence(),
    polynomial(ngram(2), degree=3, coef0=1.0, scale=0.5),
    exp_kernel(edit_distance(), 0.5),
    nds_to_pds(edit_distance(), "ab"),
]


@pytest.mark.parametrize("kernel", LEAVES + COMBOS, ids=lambda k: type(k).__name__)
def test_spec_round_trips_through_json_and_toml_files(kernel, tmp_path):
    spec = to_spec(kernel)
    again = from_spec(json.loads(json.dumps(spec)))
    assert to_spec(again) == spec
    np.testing.assert_allclose(again.gram(XS), kernel.gram(XS), rtol=1e-12)
    path = tmp_path / "k.json"
    path.write_text(json.dumps(spec))
    np.testing.assert_allclose(from_spec(path).gram(XS[:4]), kernel.gram(XS[:4]), rtol=1e-12)


def test_toml_spec(tmp_path):
    path = tmp_path / "k.toml"
    path.write_text(
        'family = "sum"\nweights = [1.0, 2.0]\n\n[[kernels]]\nfamily = "ngram"\nn = 2\n\n'
        '[[kernels]]\nfamily = "gappy"\nn = 2\ndecay = 0.5\n'
    )
    k = from_spec(path)
    np.testing.assert_allclose(k.gram(XS), ngram(2).gram(XS) + 2 * gappy(2, 0.5).gram(XS), rtol=1e-12)


@pytest.mark.parametrize(
    "spec, error, message",
    [
        (
            {"family": "fourier"},
            SpecError,
            r"Unknown kernel family 'fourier' at spec.family; accepted families: .*ngram",
        ),
        ({"n": 3}, SpecError, r"Missing key 'family' at spec"),
        ({"family": "ngram"}, SpecError, r"Missing key 'n' at spec \(a ngram kernel\)"),
        (
            {"family": "gappy", "n": 2, "lambda": 0.5},
            SpecError,
            r"Unknown key 'lambda' at spec \(a gappy kernel\); accepted keys: family, n, decay",
        ),
        (
            {"family": "gappy", "n": 2, "decay": -0.5},
            SpecError,
            r"spec: The 'decay' parameter of gappy must be a float in \(0, 1\]. Got -0.5 instead.",
        ),
        ({"family": "mismatch", "k": 2, "m": 3}, SpecError, r"The 'm' parameter of mismatch must be ≤ k"),
        (
            {"family": "sum", "kernels": [{"family": "ngram", "n": 2}, {"family": "gappy", "n": 2, "decay": 2}]},
            SpecError,
            r"spec.kernels\[1\]: The 'decay' parameter of gappy",
        ),
        ({"family": "cosine", "kernel": 3}, SpecError, r"spec: CosineKernel combines ratkit kernels; got int"),
        (
            {"family": "sum", "kernels": [{"family": "ngram", "n": 2}, 3]},
            SpecError,
            r"spec.kernels\[1\] must be a kernel",
        ),
        ({"family": "transducer"}, SpecError, r"needs exactly one of the keys 'path' or 'att'"),
        ({"family": "count_based", "patterns": ["a", "a"]}, SpecError, r"Patterns 0 and 1 of count_based are both"),
    ],
)
def test_bad_specs_name_the_offending_key(spec, error, message):
    with pytest.raises(error, match=message):
        from_spec(spec)


def test_spec_errors_for_alphabets_and_unregulated_files(tmp_path):
    k = from_spec({"family": "mismatch", "k": 2, "m": 1, "alphabet": "ab"})
    with pytest.raises(UnknownSymbolError, match="Symbol 'c' is not in the alphabet.*declare one that contains"):
        k.gram(["abc"])
    bad = tmp_path / "loop.att"
    bad.write_text("0 1 <eps> <eps> 1\n1 0 <eps> <eps> 1\n1 2 a a 1\n2\n")
    with pytest.raises(NotRegulatedError, match=r"spec: .*loop.att: .*not regulated"):
        from_spec({"family": "transducer", "path": str(bad)})
    with pytest.raises(
        MissingDataError, match="neither an existing .toml/.json file"
    ):  # a FileNotFoundError (issue 21)
        from_spec("nowhere.toml")
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(SpecError, match="broken.json: not valid JSON"):
        from_spec(tmp_path / "broken.json")


def test_algebra_equals_elementwise_arithmetic():
    g2, g1, s = ngram(2).gram(XS), ngram(1).gram(XS), subsequence().gram(XS)
    np.testing.assert_allclose((ngram(2) + ngram(1)).gram(XS), g2 + g1)
    np.testing.assert_allclose((ngram(2) * subsequence()).gram(XS), g2 * s)
    np.testing.assert_allclose((3 * ngram(2)).gram(XS), 3 * g2)
    np.testing.assert_allclose(polynomial(ngram(2), 2, 1.0, 0.5).gram(XS), (0.5 * g2 + 1) ** 2)
    d = np.sqrt(np.diag(g2))
    den = np.outer(d, d)
    want = np.divide(g2, den, out=np.zeros_like(g2), where=den > 0)  # 0 for a zero feature vector
    np.testing.assert_allclose(cosine(ngram(2)).gram(XS), want)
    np.testing.assert_allclose(cosine(ngram(2)).gram(XS[:3], XS[3:]), want[:3, 3:])
    E = np.array([[levenshtein(x, y) for y in XS] for x in XS], dtype=float)
    np.testing.assert_allclose(exp_kernel(edit_distance(), 0.7).gram(XS), np.exp(-0.7 * E))
    e0 = np.array([levenshtein(x, "ab") for x in XS], dtype=float)
    np.testing.assert_allclose(nds_to_pds(edit_distance(), "ab").gram(XS), e0[:, None] + e0[None, :] - E - 0)


def test_algebra_parameter_errors():
    with pytest.raises(ValueError, match="The 'degree' parameter of polynomial must be an int ≥ 1. Got 0"):
        polynomial(ngram(2), degree=0)
    with pytest.raises(ValueError, match="The 't' parameter of exp_kernel must be a float > 0. Got -1"):
        exp_kernel(edit_distance(), -1)
    with pytest.raises(TypeError, match="cosine combines ratkit kernels; got str"):
        cosine("ngram")


def test_kernels_are_sklearn_citizens():
    k = cosine(ngram(2))
    c = clone(k)
    assert c is not k and to_spec(c) == to_spec(k)
    assert clone(mismatch(3, 1, "acgt")).get_params()["alphabet"] == "acgt"
    rng = random.Random(0)
    X = ["".join(rng.choice("ab") for _ in range(10)) + "aa" for _ in range(15)]
    X += ["".join(rng.choice("ab") for _ in range(10)) + "bb" for _ in range(15)]
    y = [0] * 15 + [1] * 15
    grid = GridSearchCV(SVC(kernel=ngram(2)), {"C": [0.1, 1.0]}, cv=3).fit(X, y)
    # the same search on Gram matrices of brute-force bigram counts scores the same
    G = np.array(
        [
            [sum(a[i : i + 2] == b[j : j + 2] for i in range(len(a) - 1) for j in range(len(b) - 1)) for b in X]
            for a in X
        ],
        dtype=float,
    )
    ref = GridSearchCV(SVC(kernel="precomputed"), {"C": [0.1, 1.0]}, cv=3).fit(G, y)
    assert grid.best_params_ == ref.best_params_
    np.testing.assert_allclose(grid.cv_results_["mean_test_score"], ref.cv_results_["mean_test_score"])
    assert SVC(kernel=ngram(2)).fit(X, y).score(X, y) >= 0.9


def test_call_dispatch():
    k = ngram(2)
    assert k("abab", "ab") == ngram_kernel("abab", "ab", 2)
    assert k(("x", "y", "x"), ("x", "y")) == 1.0  # tuples are token sequences
    assert k(["abab", "ab"], ["ab"]).shape == (2, 1)  # lists are collections
    with pytest.raises(TypeError, match="k\\(x, y\\) needs two sequences"):
        k("ab", ["ab"])


def test_diagnostics_and_figure_8():
    assert check_pds(ngram(2), XS).holds
    assert not check_pds(edit_distance(), XS).holds
    # |Σ| = 1: the edit distance is NDS (Proposition 3 (2)); |Σ| = 2: it is not
    assert check_nds(edit_distance(), ["", "a", "aa", "aaaa", "aaaaaaa"]).holds
    eig = edit_distance_min_eigenvalues(6)
    assert all(eig[n] > 0 for n in range(1, 6)) and eig[6] < 0  # Fig. 8: negative from n = 6


def test_the_strings_over_a_token_alphabet_are_token_sequences():
    """Regression (audit): strings_of_length joined tokens into one str (["ab", "c"] gave "abc"),
    which a kernel reads character by character, so min_eigenvalue_curve over tokens evaluated
    other strings than Σⁿ. Oracle: the same curve over a one-character code of the tokens."""
    assert strings_of_length(["the", "cat"], 2) == [("the", "the"), ("the", "cat"), ("cat", "the"), ("cat", "cat")]
    assert strings_of_length(["ab", "c"], 1, up_to=True) == [(), ("ab",), ("c",)]
    assert strings_of_length("ab", 2) == ["aa", "ab", "ba", "bb"]
    k = exp_kernel(edit_distance(), t=0.5)
    for up_to in (False, True):
        tokens = min_eigenvalue_curve(k, ["ab", "c"], 3, up_to=up_to)
        characters = min_eigenvalue_curve(k, "xy", 3, up_to=up_to)
        assert tokens.keys() == characters.keys()
        np.testing.assert_allclose(list(tokens.values()), list(characters.values()), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "make, match",
    [
        (
            lambda: polynomial(ngram(2), coef0=float("nan")),
            r"'coef0' parameter of polynomial must be a finite float ≥ 0",
        ),
        (
            lambda: polynomial(ngram(2), scale=float("inf")),
            r"'scale' parameter of polynomial must be a finite float > 0",
        ),
        (lambda: polynomial(ngram(2), coef0=float("inf")), r"'coef0' .* finite float ≥ 0. Got inf"),
        (lambda: polynomial(ngram(2), degree=True), r"'degree' parameter of polynomial must be an int ≥ 1"),
        (lambda: ngram(2) * float("nan"), r"'factor' .* finite float > 0"),
        (lambda: exp_kernel(edit_distance(), t=float("inf")), r"'t' parameter of exp_kernel must be a finite float"),
        (lambda: gappy(2, float("nan")), r"'decay' parameter of gappy must be a finite float in \(0, 1\]"),
        (
            lambda: edit_distance("tropical", substitution=float("inf")),
            r"'substitution' parameter of edit_distance \(tropical\) must be a finite float ≥ 0",
        ),
        (lambda: count_based(["ab"], [float("nan")]), r"finite non-negative"),
    ],
)
def test_non_finite_parameters_are_refused(make, match):
    """Before: polynomial(k, coef0=nan) and (k, scale=inf) were accepted and gave all-NaN Gram matrices."""
    with pytest.raises(ValueError, match=match):
        make().gram(["ab", "ba"])


@pytest.mark.parametrize(
    "text",
    [
        '{"family": "polynomial", "coef0": NaN, "kernel": {"family": "ngram", "n": 2}}',
        '{"family": "polynomial", "scale": Infinity, "kernel": {"family": "ngram", "n": 2}}',
    ],
)
def test_non_finite_spec_values_are_refused(text):
    """Python's json reads NaN and Infinity literals; the spec refuses them by key."""
    with pytest.raises(SpecError, match=r"spec: The '(coef0|scale)' parameter of polynomial must be a finite float"):
        from_spec(text)


@pytest.mark.parametrize("patterns", ["ab", b"ab"])
def test_count_based_refuses_a_bare_string_of_patterns(patterns):
    """Before: count_based("ab") read the string as the two patterns "a" and "b"."""
    with pytest.raises(TypeError, match=r"must be a list of patterns; got the str .*Write \[.*\] for that one pattern"):
        count_based(patterns)
    from ratkit.automata.kernels import CountBasedKernel

    with pytest.raises(TypeError, match="must be a list of patterns"):
        CountBasedKernel(patterns).gram(["ab"])
    with pytest.raises(SpecError, match=r"spec.patterns must be a list; got str 'ab'. Write \['ab'\]"):
        from_spec({"family": "count_based", "patterns": "ab"})
    # the single pattern "ab" counts the occurrences of "ab": |abab|_ab · |ab|_ab = 2 · 1
    assert count_based(["ab"])("abab", "ab") == 2.0
    assert count_based(list("ab"))("abab", "ab") == 2 * 1 + 2 * 1


def test_to_spec_writes_numpy_parameters_as_json_numbers():
    """A numpy parameter grid yields np.int64 / np.float32 values; the spec is plain JSON."""
    spec = to_spec(cosine(gappy(np.int64(3), np.float32(0.5))))
    assert spec == {"family": "cosine", "kernel": {"family": "gappy", "n": 3, "decay": 0.5}}
    assert type(spec["kernel"]["n"]) is int and type(spec["kernel"]["decay"]) is float
    json.dumps(spec)


def test_the_inferred_mismatch_alphabet_is_part_of_the_spec():
    """Before: to_spec dropped the alphabet a mismatch kernel inferred, and the rebuilt kernel
    generated no mismatch neighbours (K(ab, aa) = 0 instead of the count below)."""
    k = mismatch(2, 1)
    assert to_spec(k) == {"family": "mismatch", "k": 2, "m": 1}
    G = k.gram(["ab", "ba", "aa"])
    assert to_spec(k) == {"family": "mismatch", "k": 2, "m": 1, "alphabet": "ab"}
    # brute force over Σ² = {aa, ab, ba, bb}: Φ(x)_z = #{2-windows u of x: d(u, z) ≤ 1}
    words = ["aa", "ab", "ba", "bb"]

    def phi(x):
        return np.array(
            [sum(sum(a != b for a, b in zip(x[i : i + 2], z)) <= 1 for i in range(len(x) - 1)) for z in words]
        )

    want = np.array([[phi(x) @ phi(y) for y in ["ab", "ba", "aa"]] for x in ["ab", "ba", "aa"]], dtype=float)
    np.testing.assert_array_equal(G, want)
    np.testing.assert_array_equal(from_spec(to_spec(k)).gram(["ab", "ba", "aa"]), want)


@pytest.mark.parametrize("old, new", [("edit_distance", "edit-distance"), ("count_based", "count-based")])
def test_former_underscore_family_names_read_silently_in_specs_and_with_a_warning_in_the_registry(old, new):
    import warnings

    from ratkit import plugins
    from ratkit.automata.kernels import from_spec

    spec = {"family": old, "patterns": ["ab"]} if old == "count_based" else {"family": old}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a saved spec or model file must load without noise
        kernel = from_spec(spec)
    assert kernel.to_spec()["family"] == new
    with pytest.warns(DeprecationWarning, match=f"'{old}' is deprecated; use '{new}'"):
        assert plugins.get("kernel", old) is type(kernel)


def test_a_family_registered_with_an_underscore_is_rebuilt_as_itself_not_as_its_hyphen_twin():
    from ratkit.automata.kernels import NgramKernel, from_spec, to_spec
    from ratkit.plugins import registry

    @registry.register("kernel", "twin-family")
    class Hyphen(NgramKernel):
        """K of the hyphenated twin."""

    @registry.register("kernel", "twin_family")
    class Underscore(NgramKernel):
        """K of the underscored twin."""

    try:
        spec = to_spec(Underscore(n=2))
        assert spec["family"] == "twin_family"
        assert type(from_spec(spec)) is Underscore
        assert type(from_spec({"family": "twin-family", "n": 2})) is Hyphen
    finally:
        registry._registry["kernel"].pop("twin-family", None)
        registry._registry["kernel"].pop("twin_family", None)
