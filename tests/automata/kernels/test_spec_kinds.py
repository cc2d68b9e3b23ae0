"""A spec value of the wrong JSON kind is refused naming its path (issue 34).

Before, ``{"family": "sum", ..., "weights": ["a"]}`` failed inside the family with
"spec: could not convert string to float: 'a'", which names neither ``weights`` nor the item.
The matrix below gives each list or number parameter of a few families a value of every wrong
kind and checks the error is a SpecTypeError whose message starts with the path of the bad
value (``spec.weights[0]``) and says what belongs there.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from ratkit.automata.kernels import from_spec
from ratkit.exceptions import RatkitError, SpecTypeError

NGRAM = {"family": "ngram", "n": 2}
BASES = {
    "sum": {"family": "sum", "kernels": [NGRAM, NGRAM]},
    "count-based": {"family": "count-based", "patterns": ["ab", "ba"]},
    "gappy": {"family": "gappy", "n": 2, "decay": 0.5},
    "ngram": {"family": "ngram", "n": 2},
    "random-walk": {"family": "random-walk", "decay": 0.1},
}
NUMBER = r"a number \(a float\)"
INT = r"a number \(an int\)"

# (family, key, bad value, path of the error, what the message says belongs there)
CASES = [
    ("sum", "weights", ["a", 1.0], "spec.weights[0]", NUMBER),
    ("sum", "weights", [1.0, None], "spec.weights[1]", NUMBER),
    ("sum", "weights", [1.0, [2.0]], "spec.weights[1]", NUMBER),
    ("sum", "weights", [True, 1.0], "spec.weights[0]", NUMBER),
    ("sum", "weights", "ab", "spec.weights", r"a list of numbers"),
    ("sum", "weights", 1.0, "spec.weights", r"a list of numbers"),
    ("sum", "weights", {"a": 1}, "spec.weights", r"a list of numbers"),
    ("count-based", "weights", ["x", 1.0], "spec.weights[0]", NUMBER),
    ("count-based", "patterns", 3, "spec.patterns", r"a list"),
    ("count-based", "patterns", "ab", "spec.patterns", r"a list"),
    ("count-based", "patterns", None, "spec.patterns", r"a list"),
    ("gappy", "decay", "0.5", "spec.decay", NUMBER),
    ("gappy", "decay", [0.5], "spec.decay", NUMBER),
    ("gappy", "decay", True, "spec.decay", NUMBER),
    ("gappy", "decay", None, "spec.decay", NUMBER),
    ("gappy", "n", "2", "spec.n", INT),
    ("ngram", "n", "3", "spec.n", INT),
    ("ngram", "n", [3], "spec.n", INT),
    ("ngram", "n", False, "spec.n", INT),
    ("ngram", "n", {"n": 3}, "spec.n", INT),
    ("ngram", "n_jobs", "2", "spec.n_jobs", INT),
    ("ngram", "show_progress", "yes", "spec.show_progress", r"true or false"),
    ("random-walk", "decay", "0.1", "spec.decay", NUMBER),
    ("random-walk", "steps", 2.0j, "spec.steps", INT),
    ("random-walk", "steps", "3", "spec.steps", INT),
    ("random-walk", "mu", ["a"], "spec.mu[0]", NUMBER),
    ("random-walk", "mu", 5, "spec.mu", r"'geometric' or 'exponential', or a list of numbers"),
]


@pytest.mark.parametrize("family, key, value, path, expected", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]!r}" for c in CASES])
def test_a_value_of_the_wrong_kind_is_named_by_its_path(family, key, value, path, expected):
    spec = {**BASES[family], key: value}
    with pytest.raises(SpecTypeError, match=rf"^{re.escape(path)} must be {expected}") as info:
        from_spec(spec)
    assert isinstance(info.value, RatkitError) and isinstance(info.value, TypeError)
    # nested in a combinator, the path goes through it
    with pytest.raises(SpecTypeError, match=rf"^{re.escape(path.replace('spec', 'spec.kernels[1]', 1))} must be"):
        from_spec({"family": "sum", "kernels": [NGRAM, spec]})


def test_the_issue_case_names_weights():
    with pytest.raises(SpecTypeError) as info:
        from_spec({"family": "sum", "kernels": [NGRAM], "weights": ["a"]})
    message = str(info.value)
    assert message.startswith("spec.weights[0] must be a number (a float); got str 'a'")
    assert "spec.weights of a sum kernel is a list of numbers" in message
    assert "could not convert" not in message


def test_a_string_for_a_list_suggests_the_one_item_list():
    with pytest.raises(SpecTypeError, match=r"Write \['ab'\] for a list of that one value"):
        from_spec({"family": "count-based", "patterns": "ab"})


@pytest.mark.parametrize(
    "spec",
    [
        {"family": "sum", "kernels": [NGRAM, NGRAM], "weights": [1, 0.5]},  # ints are numbers
        {"family": "sum", "kernels": [NGRAM, NGRAM], "weights": (1.0, 0.5)},  # Python: a tuple
        {"family": "sum", "kernels": [NGRAM, NGRAM], "weights": np.array([1.0, 0.5])},  # and an array
        {"family": "sum", "kernels": [NGRAM, NGRAM], "weights": None},
        {"family": "gappy", "n": np.int64(2), "decay": np.float32(0.5)},  # a parameter grid's numpy scalars
        {"family": "count-based", "patterns": ["ab", ["b", "a"]], "weights": [1.0, 2.0]},
        {"family": "random-walk", "decay": 0.1, "mu": [1, 0.5], "steps": None},
        {"family": "random-walk", "decay": 0.1, "mu": "exponential", "steps": 3},
        {"family": "random-walk", "decay": 0.1, "start": lambda G: np.ones(G.n_nodes)},  # not JSON: the family's
        {"family": "mismatch", "k": 3, "m": 1, "alphabet": "ACGT"},
        {"family": "mismatch", "k": 3, "m": 1, "alphabet": ["A", "C", "G", "T"]},
    ],
)
def test_values_of_the_right_kind_still_build(spec):
    from_spec(spec)


def test_ranges_are_still_the_familys_to_check():
    """A number of the right kind but out of range keeps the family's message (which names the key)."""
    with pytest.raises(RatkitError, match=r"spec: The 'n' parameter of ngram must be an int ≥ 1. Got 2.5"):
        from_spec({"family": "ngram", "n": 2.5})
    with pytest.raises(
        RatkitError, match=r"spec: The 'weights' parameter of SumKernel must hold 2 finite non-negative"
    ):
        from_spec({"family": "sum", "kernels": [NGRAM, NGRAM], "weights": [1.0, -1.0]})
