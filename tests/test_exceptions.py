"""Every parameter check raises ratkit's ParameterError (a RatkitError and a ValueError; the
type errors also TypeError), whichever module it is in, with the message naming the parameter."""

from __future__ import annotations

import pytest

from ratkit.exceptions import ParameterError, ParameterTypeError, RatkitError


def _cases():
    from ratkit import datasets
    from ratkit.automata import kernels, operations
    from ratkit.automata.io import to_att
    from ratkit.automata.pt.sampling import sample
    from ratkit.recsys import MFAUC

    t = kernels.ngram(2).factor("ab")
    return {
        "ngram n": (lambda: kernels.ngram(0), ParameterError, "'n' parameter of ngram"),
        "gappy decay": (lambda: kernels.gappy(2, decay=float("nan")), ParameterError, "'decay' parameter of gappy"),
        "strategy": (lambda: kernels.ngram(2, strategy="fast").gram(["ab"]), ParameterError, "'strategy'"),
        "count-based patterns": (lambda: kernels.count_based("ab"), ParameterTypeError, "'patterns' parameter"),
        "count-based empty": (lambda: kernels.count_based([]), ParameterError, "'patterns' parameter"),
        "mismatch m": (lambda: kernels.mismatch(2, 3), ParameterError, "'m' parameter of mismatch"),
        "project side": (lambda: operations.project(t, "both"), ParameterError, "'side' parameter of project"),
        "to_att weights": (lambda: to_att(t, weights="raw"), ParameterError, "'weights' parameter of to_att"),
        "sample min_len": (
            lambda: sample(lambda w: True, "ab", 3, max_len=2, min_len=5),
            ParameterError,
            "'min_len' parameter",
        ),
        "reuters split": (lambda: datasets.reuters_modapte(".", "dev"), ParameterError, "'split' parameter"),
        "load_interactions_csv header": (
            lambda: datasets.load_interactions_csv("x.csv", header="yes"),
            ParameterError,
            "'header' parameter",
        ),
        "mfauc beta": (lambda: MFAUC(beta=[]).fit(_matrix()), ParameterError, "'beta' parameter of MFAUC"),
        "mfauc lam": (lambda: MFAUC(lam=-1.0).fit(_matrix()), ParameterError, "'lam' parameter of MFAUC"),
        "mfauc schedule": (lambda: MFAUC(beta=[1.0, 2.0], loss="hinge").fit(_matrix()), ParameterError, "schedule"),
        "mfauc stages": (
            lambda: MFAUC(beta=[1.0, 2.0, 3.0], loss="logistic", max_iter=2).fit(_matrix()),
            ParameterError,
            "stages",
        ),
    }


def _matrix():
    import scipy.sparse as sp

    return sp.csr_matrix([[1.0, 0.0], [0.0, 1.0]])


@pytest.mark.parametrize("name", list(_cases()))
def test_parameter_errors_are_ratkit_errors_naming_the_parameter(name):
    make, error, words = _cases()[name]
    with pytest.raises(error, match=words) as info:
        make()
    assert isinstance(info.value, RatkitError) and isinstance(info.value, ValueError)
    if error is ParameterTypeError:
        assert isinstance(info.value, TypeError)


def test_a_malformed_vocabulary_state_is_a_vocabulary_error():
    from ratkit.automata.kernels import vocabulary_from_state
    from ratkit.exceptions import VocabularyError

    for meta, arrays in [({"type": "patterns"}, {}), ({"type": "blocks", "parts": []}, {}), ({"type": "?"}, {})]:
        with pytest.raises(VocabularyError) as info:
            vocabulary_from_state(meta, arrays)
        assert isinstance(info.value, RatkitError) and isinstance(info.value, ValueError)
