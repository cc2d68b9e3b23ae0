"""ratkit._json.loads_strict: JSON with every key once (issue 35, class 7).

json.loads keeps the last of duplicated keys; loads_strict refuses them, naming the key and
the object that holds it, and otherwise returns what json.loads returns.
"""

from __future__ import annotations

import json

import pytest

from ratkit._json import loads_strict
from ratkit.exceptions import DataFormatError, ModelFormatError, SpecError


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"family": "ngram", "n": 2, "n": 3}', r"spec: the key 'n' appears twice in the top-level object"),
        ('{"a": [1, {"b": 2, "b": 2}]}', r"the key 'b' appears twice in the object at a\[1\]"),
        ('{"a": {"x": {"y": 1, "z": 0, "y": 1}}}', r"the key 'y' appears twice in the object at a\.x"),
        ('[{}, {"k": null, "k": null}]', r"the key 'k' appears twice in the object at \[1\]"),
    ],
)
def test_a_duplicated_key_is_refused_by_name(text, words):
    assert isinstance(json.loads(text), (dict, list))  # what the standard reader accepts silently
    with pytest.raises(DataFormatError, match=words):
        loads_strict(text, "spec")


@pytest.mark.parametrize("error", [SpecError, ModelFormatError])
def test_the_caller_chooses_the_error(error):
    with pytest.raises(error, match=r"m\.zip: manifest\.json: the key 'version' appears twice"):
        loads_strict('{"version": 3, "version": 4}', "m.zip: manifest.json", error=error)


@pytest.mark.parametrize(
    "value",
    [
        {"z": [1, 2.5, {"q": [{"r": None, "a": "x"}]}], "a": True, "m": {"k": {}}},
        [[], {}, "s", -3, 1e300],
        "text",
        None,
    ],
)
def test_unique_keys_read_as_json_loads_reads_them(value):
    text = json.dumps(value)
    got = loads_strict(text, "x")
    assert got == json.loads(text)
    assert json.dumps(got) == text  # the same key order, plain dicts
    if isinstance(got, dict):
        assert type(got) is dict and type(got["m"]["k"]) is dict


def test_invalid_json_raises_what_json_loads_raises():
    with pytest.raises(json.JSONDecodeError):
        loads_strict("{", "x")
