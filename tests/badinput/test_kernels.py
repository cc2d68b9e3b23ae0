"""Bad inputs of the kernels (issue 21): every error a user can cause is a RatkitError that is
also the fitting builtin, and its message names the bad thing, its value and what was expected.

Oracles: the n-gram kernel in closed form (K(x, y) = Σ_z |x|_z |y|_z over the n-grams z), and
the limits module's own arithmetic (an n × m float64 Gram matrix is 8·n·m bytes).
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import ratkit.limits
from ratkit.automata.construct import acceptor
from ratkit.automata.graphs import Graph
from ratkit.automata.kernels import (
    cosine,
    count_based,
    edit_distance,
    exp_kernel,
    from_transducer,
    gappy,
    mismatch,
    nds_to_pds,
    ngram,
    polynomial,
    random_walk,
    subsequence,
)
from ratkit.automata.kernels.diagnostics import check_nds, check_pds, min_eigenvalue_curve, strings_of_length
from ratkit.automata.kernels.inputs import as_collection, as_sequences
from ratkit.automata.pairwise import pairwise
from ratkit.exceptions import (
    MissingDataError,
    ParameterError,
    ParameterTypeError,
    PathIsFolderError,
    RatkitError,
    ResourceLimitError,
    SemiringMismatchError,
    UnknownSymbolError,
)

NAN, INF = float("nan"), float("inf")
K2 = ngram(2)


def _ngram_oracle(x: str, y: str, n: int = 2) -> float:
    """Σ_z |x|_z |y|_z over the n-grams z of x (brute force)."""
    grams = [x[i : i + n] for i in range(len(x) - n + 1)]
    return float(sum(grams.count(z) * sum(y[j : j + n] == z for j in range(len(y) - n + 1)) for z in set(grams)))


def _raises(call, exc, match):
    with pytest.raises(exc, match=match) as info:
        call()
    assert isinstance(info.value, RatkitError), type(info.value)
    return info.value


# -- inputs of k(x, y) and gram(X, Y) --------------------------------------------------------
INPUTS = [
    # (id, call, class, words)
    ("call-bytes-x", lambda: K2(b"ab", b"ab"), ParameterTypeError, r"x is bytes.*decode"),
    ("call-bytes-y", lambda: K2("ab", b"ab"), ParameterTypeError, r"y is bytes.*decode"),
    ("call-y-none", lambda: K2("ab", None), ParameterTypeError, r"needs two sequences.*y is NoneType None"),
    ("call-y-int", lambda: K2("ab", 5), ParameterTypeError, r"y is int 5"),
    ("gram-none", lambda: K2.gram(None), ParameterTypeError, r"X must be a collection.*NoneType None"),
    ("gram-single-str", lambda: K2.gram("abab"), ParameterTypeError, r"X must be a collection.*single str"),
    ("gram-bytes", lambda: K2.gram(b"abab"), ParameterTypeError, r"X is bytes.*decode"),
    ("gram-int", lambda: K2.gram(5), ParameterTypeError, r"X must be a collection.*int 5"),
    ("gram-mapping", lambda: K2.gram({"ab": 1}), ParameterTypeError, r"X must be a collection.*dict"),
    ("gram-item-int", lambda: K2.gram(["ab", 5]), ParameterTypeError, r"X\[1\] is int 5"),
    ("gram-item-none", lambda: K2.gram(["ab", None]), ParameterTypeError, r"X\[1\] is None"),
    ("gram-item-nan", lambda: K2.gram(["ab", NAN]), ParameterTypeError, r"X\[1\] is float nan"),
    ("gram-item-inf", lambda: K2.gram(["ab", INF]), ParameterTypeError, r"X\[1\] is float inf"),
    ("gram-item-bytes", lambda: K2.gram(["ab", b"ba"]), ParameterTypeError, r"X\[1\] is bytes.*decode"),
    ("gram-y-item-none", lambda: K2.gram(["ab"], ["ab", None]), ParameterTypeError, r"Y\[1\] is None"),
    ("gram-token-int", lambda: K2.gram([("a", "b"), ("a", 5)]), ParameterTypeError, r"Token 1 of X\[1\] is int 5"),
    (
        "gram-token-empty",
        lambda: K2.gram([("a", "")]),
        ParameterError,
        r"Token 1 of X\[0\] is ''; tokens must be non-empty",
    ),
    (
        "gram-2d-float",
        lambda: K2.gram(np.array([[1.0, 2.0], [3.0, 4.0]])),
        ParameterTypeError,
        r"X is a 2-d array of float64 \(shape \(2, 2\)\)",
    ),
    ("gram-3d-int", lambda: K2.gram(np.zeros((2, 2, 2), dtype=int)), ParameterTypeError, r"3-d array of int64"),
    ("gram-out-item", lambda: K2.gram(["ab", "ba", 5], block_bytes=64), ParameterTypeError, r"X\[2\] is int 5"),
    ("diag-item-none", lambda: K2.diag(["ab", None]), ParameterTypeError, r"X\[1\] is None"),
    ("fit-features-item", lambda: K2.fit_features([3.5]), ParameterTypeError, r"X\[0\] is float 3.5"),
    ("as-collection-none-item", lambda: as_collection([None]), ParameterTypeError, r"X\[0\] is None"),
    (
        "as-sequences-graph",
        lambda: as_sequences([Graph(np.array([[0, 1], [1, 0]]))]),
        ParameterTypeError,
        r"X\[0\] is Graph",
    ),
    (
        "mismatch-foreign-symbol",
        lambda: mismatch(2, 0, alphabet="ab").gram(["abc"]),
        UnknownSymbolError,
        r"Symbol 'c' is not in the alphabet",
    ),
    ("gappy-item-none", lambda: gappy(2, 0.5).gram([None]), ParameterTypeError, r"X\[0\] is None"),
    ("edit-item-int", lambda: edit_distance().gram(["ab", 1]), ParameterTypeError, r"X\[1\] is int 1"),
    ("cosine-item-int", lambda: cosine(K2).gram(["ab", 1]), ParameterTypeError, r"X\[1\] is int 1"),
    ("pairwise-none", lambda: pairwise(K2, "T").gram([("ab", None)]), ParameterTypeError, r"X\[0\]\[1\] is None"),
    ("pairwise-bytes", lambda: pairwise(K2, "T").gram([(b"ab", "a")]), ParameterTypeError, r"X\[0\]\[0\].*decode"),
    ("random-walk-str", lambda: random_walk(0.1).gram(["ab"]), ParameterTypeError, r"X\[0\] is a str"),
]


@pytest.mark.parametrize("call, exc, match", [c[1:] for c in INPUTS], ids=[c[0] for c in INPUTS])
def test_bad_inputs(call, exc, match):
    _raises(call, exc, match)


def test_bytes_are_refused_not_read_as_integers():
    # before: b"ab" was iterated into the ints 97, 98 and the message said "got int"
    err = _raises(lambda: K2(b"ab", b"ab"), ParameterTypeError, r"bytes")
    assert "int" not in str(err).split("bytes")[0]


def test_an_n_by_1_column_of_strings_holds_one_sequence_a_row():
    # the column scikit-learn hands a string feature: before, each row was read as the
    # one-token sequence ('abab',) and the Gram matrix came out all zeros
    column = np.array([["abab"], ["ab"]])
    G = K2.gram(column)
    expected = np.array([[_ngram_oracle(a, b) for b in ("abab", "ab")] for a in ("abab", "ab")])
    np.testing.assert_array_equal(G, expected)
    assert expected[0, 0] == 5.0 and expected[0, 1] == 2.0
    np.testing.assert_array_equal(K2.gram(column, np.array([["ba"]])), [[1.0], [0.0]])
    np.testing.assert_array_equal(K2.diag(column), [5.0, 1.0])


class _Table:
    """A stand-in for a one-column pandas DataFrame: 2-d, ``to_numpy``, iterates over its column names."""

    ndim = 2

    def __init__(self, column: list[str]) -> None:
        self.column = column

    def __iter__(self):
        return iter(["text"])

    def to_numpy(self) -> np.ndarray:
        return np.array(self.column, dtype=object)[:, None]


def test_a_one_column_table_is_its_strings_not_its_column_name():
    G = K2.gram(_Table(["abab", "ab"]))
    np.testing.assert_array_equal(G, [[5.0, 2.0], [2.0, 1.0]])


def test_an_n_by_m_string_array_is_read_row_by_row_as_token_sequences():
    rows = np.array([["a", "b", "a"], ["b", "a", "b"]])
    G = K2.gram(rows)
    expected = [[_ngram_oracle(a, b) for b in ("aba", "bab")] for a in ("aba", "bab")]
    np.testing.assert_array_equal(G, expected)


def test_empty_collections_are_empty_matrices():
    assert K2.gram([]).shape == (0, 0)
    assert K2.gram(["ab"], []).shape == (1, 0)
    assert K2.diag([]).shape == (0,)


# -- sizes: an in-memory Gram matrix past the limit is refused before it is allocated ----------
def test_a_120000_square_gram_is_refused_quickly():
    start = time.perf_counter()
    err = _raises(
        lambda: ngram(3).gram(["abc"] * 120_000), ResourceLimitError, r"120,000 × 120,000 Gram matrix.*out='gram.npy'"
    )
    assert time.perf_counter() - start < 10
    assert "107.3 GiB" in str(err) or 8 * 120_000**2 > ratkit.limits.max_bytes()


@pytest.mark.parametrize(
    "make, X",
    [
        (lambda: ngram(2), ["ab"] * 20),
        (lambda: cosine(ngram(2)), ["ab"] * 20),
        (lambda: pairwise(ngram(2), "T"), [("ab", "ba")] * 20),
        (lambda: random_walk(0.1), [Graph(np.array([[0, 1], [1, 0]]))] * 20),
    ],
    ids=["ngram", "cosine", "pairwise", "random-walk"],
)
def test_the_gram_limit_follows_ratkit_limits(make, X):
    kernel = make()
    with ratkit.limits.limits(max_bytes=8 * 20 * 20 - 1):
        _raises(lambda: kernel.gram(X), ResourceLimitError, r"20 × 20 Gram matrix")
    with ratkit.limits.limits(max_bytes=8 * 20 * 20):
        assert kernel.gram(X).shape == (20, 20)


def test_the_hint_works_a_gram_refused_in_memory_is_written_to_disk(tmp_path):
    X = ["ab", "ba", "abab"] * 6
    expected = ngram(2).gram(X)
    with ratkit.limits.limits(max_bytes=len(X) ** 2 * 8 - 1):
        _raises(lambda: ngram(2).gram(X), ResourceLimitError, "out=")
        G = ngram(2).gram(X, out=tmp_path / "gram.npy", block_bytes=len(X) * 8 * 2)
    np.testing.assert_array_equal(np.asarray(G), expected)


# -- parameters ------------------------------------------------------------------------------
PARAMETERS = [
    ("ngram-n-nan", lambda: ngram(NAN), ParameterTypeError, r"'n' parameter of ngram.*nan"),
    ("ngram-n-inf", lambda: ngram(INF), ParameterTypeError, r"'n' parameter of ngram.*inf"),
    ("ngram-n-zero", lambda: ngram(0), ParameterError, r"'n' parameter of ngram.*Got 0"),
    ("gappy-decay-nan", lambda: gappy(2, NAN), ParameterError, r"'decay' parameter of gappy.*nan"),
    ("gappy-decay-inf", lambda: gappy(2, INF), ParameterError, r"'decay' parameter of gappy.*inf"),
    ("gappy-decay-neg-inf", lambda: gappy(2, -INF), ParameterError, r"'decay' parameter of gappy.*-inf"),
    ("exp-t-inf", lambda: exp_kernel(K2, INF), ParameterError, r"'t' parameter of exp_kernel.*inf"),
    ("poly-coef0-neg-inf", lambda: polynomial(K2, 2, -INF), ParameterError, r"'coef0' parameter of polynomial"),
    ("count-weights-str-item", lambda: count_based(["a"], weights=["x"]), ParameterTypeError, r"'weights'.*'x'"),
    ("count-weights-int", lambda: count_based(["a"], weights=5), ParameterTypeError, r"'weights'.*list of 1.*5"),
    ("count-weights-str", lambda: count_based(["a"], weights="ab"), ParameterTypeError, r"'weights'.*'ab'"),
    ("count-weights-2d", lambda: count_based(["a"], weights=[[1.0]]), ParameterTypeError, r"'weights'.*\[\[1.0\]\]"),
    ("count-weights-bool", lambda: count_based(["a"], weights=[True]), ParameterTypeError, r"'weights'.*True"),
    ("count-weights-nan", lambda: count_based(["a"], weights=[NAN]), ParameterError, r"'weights'.*nan"),
    ("count-weights-inf", lambda: count_based(["a"], weights=[INF]), ParameterError, r"'weights'.*inf"),
    ("count-weights-neg", lambda: count_based(["a"], weights=[-1]), ParameterError, r"'weights'.*-1"),
    ("count-weights-count", lambda: count_based(["a", "b"], weights=[1]), ParameterError, r"one weight per pattern"),
    ("count-pattern-int", lambda: count_based([5]), ParameterTypeError, r"Pattern 0 of count_based is 5"),
    ("count-pattern-none", lambda: count_based([None]), ParameterTypeError, r"Pattern 0 of count_based is None"),
    ("count-pattern-empty", lambda: count_based([""]), ParameterError, r"Pattern 0 of count_based is empty"),
    ("count-pattern-dup", lambda: count_based(["a", "a"]), ParameterError, r"Patterns 0 and 1 .*both"),
    ("count-pattern-token", lambda: count_based([("a", 5)]), ParameterTypeError, r"'patterns'.*Token 1"),
    ("count-patterns-empty", lambda: count_based([]), ParameterError, r"at least one pattern"),
    ("transducer-int", lambda: from_transducer(5), ParameterTypeError, r"transducer.*int"),
    ("transducer-bytes", lambda: from_transducer(b"0 1 a a"), ParameterTypeError, r"transducer is bytes"),
    (
        "transducer-psi-int",
        lambda: from_transducer(acceptor("ab"), psi=5),
        ParameterTypeError,
        r"'psi' parameter.*callable.*Got 5",
    ),
    ("transducer-pds-str", lambda: from_transducer(acceptor("ab"), pds="yes"), ParameterTypeError, r"'pds'.*'yes'"),
    (
        "strategy-unknown",
        lambda: ngram(2, strategy="fast"),
        ParameterError,
        r"'strategy' parameter of NgramKernel.*'fast'",
    ),
    ("strategy-list", lambda: gappy(2, strategy=["auto"]), ParameterTypeError, r"'strategy' parameter.*\['auto'\]"),
    (
        "n-jobs-str",
        lambda: mismatch(3, 1, n_jobs="x"),
        ParameterTypeError,
        r"'n_jobs' parameter of MismatchKernel.*'x'",
    ),
    (
        "n-jobs-zero",
        lambda: edit_distance(n_jobs=0),
        ParameterError,
        r"'n_jobs' parameter of EditDistanceKernel.*Got 0",
    ),
    ("n-jobs-nan", lambda: subsequence(n_jobs=NAN), ParameterTypeError, r"'n_jobs' parameter.*nan"),
    ("progress-str", lambda: count_based(["a"], show_progress="yes"), ParameterTypeError, r"'show_progress'.*'yes'"),
    ("nds-x0-none", lambda: nds_to_pds(edit_distance(), None), ParameterTypeError, r"'x0' parameter.*NoneType None"),
    ("nds-x0-int", lambda: nds_to_pds(edit_distance(), 5), ParameterTypeError, r"'x0' parameter.*int 5"),
    ("nds-x0-tokens", lambda: nds_to_pds(edit_distance(), [1]), ParameterTypeError, r"'x0' parameter.*list \[1\]"),
    ("transducer-none", lambda: from_transducer(None), ParameterTypeError, r"needs a transducer.*Got None"),
    ("transducer-no-alphabet", lambda: K2.transducer(), ParameterError, r"pass the alphabet"),
    (
        "lattice-semiring",
        lambda: ngram(1).gram([acceptor("ab", "tropical")], strategy="intersection"),
        SemiringMismatchError,
        r"tropical lattice cannot be used with a probability kernel",
    ),
    (
        "algebra-str-times",
        lambda: "x" * K2,
        ParameterTypeError,
        r"A kernel \* str 'x': the kernel algebra's '\*' takes",
    ),
    (
        "algebra-times-str",
        lambda: K2 * "x",
        ParameterTypeError,
        r"A kernel \* str 'x': the kernel algebra's '\*' takes",
    ),
    ("algebra-times-none", lambda: K2 * None, ParameterTypeError, r"NoneType None"),
    ("algebra-times-bool", lambda: K2 * True, ParameterTypeError, r"bool True"),
    ("algebra-plus-int", lambda: K2 + 5, ParameterTypeError, r"A kernel \+ int 5: the kernel algebra's '\+' takes"),
    ("algebra-int-plus", lambda: 5 + K2, ParameterTypeError, r"A kernel \+ int 5: the kernel algebra's '\+' takes"),
    ("algebra-times-nan", lambda: K2 * NAN, ParameterError, r"'factor'.*nan"),
    ("algebra-times-neg-inf", lambda: -INF * K2, ParameterError, r"'factor'.*-inf"),
]


@pytest.mark.parametrize("call, exc, match", [c[1:] for c in PARAMETERS], ids=[c[0] for c in PARAMETERS])
def test_bad_parameters(call, exc, match):
    _raises(call, exc, match)


def test_transducer_files(tmp_path):
    _raises(lambda: from_transducer(str(tmp_path)), PathIsFolderError, r"is a folder, not a file")
    _raises(lambda: from_transducer(str(tmp_path / "missing.att")), MissingDataError, r"missing.att' does not exist")


def test_scalar_algebra_still_works():
    assert (2 * K2)("abab", "ab") == 2 * _ngram_oracle("abab", "ab")
    assert (K2 + K2)("abab", "ab") == 2 * _ngram_oracle("abab", "ab")


# -- diagnostics -------------------------------------------------------------------------------
DIAGNOSTICS = [
    ("pds-empty", lambda: check_pds(K2, []), ParameterError, r"sample is empty"),
    ("nds-empty", lambda: check_nds(K2, []), ParameterError, r"sample is empty"),
    ("pds-none", lambda: check_pds(K2, None), ParameterTypeError, r"inputs X are None"),
    ("pds-not-a-kernel", lambda: check_pds(5, ["a"]), ParameterTypeError, r"ratkit kernel or a Gram matrix.*int"),
    ("pds-not-square", lambda: check_pds(np.ones((2, 3))), ParameterError, r"square; got shape \(2, 3\)"),
    ("pds-nan", lambda: check_pds(np.array([[1.0, NAN], [NAN, 1.0]])), ParameterError, r"holds nan at \(0, 1\)"),
    ("pds-inf", lambda: check_pds(np.array([[INF]])), ParameterError, r"holds inf at \(0, 0\)"),
    ("pds-strings", lambda: check_pds(np.array([["a"]])), ParameterTypeError, r"must hold numbers"),
    (
        "strings-huge",
        lambda: strings_of_length("abcdefghij", 12),
        ResourceLimitError,
        r"strings of length 12 over 10 symbols",
    ),
    (
        "curve-huge",
        lambda: min_eigenvalue_curve(K2, "abcdefghij", 12),
        ResourceLimitError,
        r"1e\+12 × 1e\+12 Gram matrix of the strings of length 12",
    ),
    ("curve-empty-alphabet", lambda: min_eigenvalue_curve(K2, "", 2), ParameterError, r"at least one symbol"),
]


@pytest.mark.parametrize("call, exc, match", [c[1:] for c in DIAGNOSTICS], ids=[c[0] for c in DIAGNOSTICS])
def test_bad_diagnostics(call, exc, match):
    start = time.perf_counter()
    _raises(call, exc, match)
    assert time.perf_counter() - start < 5


def test_diagnostics_on_a_good_sample():
    X = strings_of_length("ab", 3)
    G = np.array([[_ngram_oracle(a, b) for b in X] for a in X])
    report = check_pds(K2, X)
    assert report.holds and abs(report.eigenvalue - np.linalg.eigvalsh(G)[0]) < 1e-9
