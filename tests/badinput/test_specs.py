"""Bad kernel specs (issue 21): every malformed spec is refused by a RatkitError that names the
bad part by its path in the spec (``spec.kernels[1].decay``), its value and what is accepted;
a value of the wrong type is a SpecTypeError (a TypeError), a bad value a SpecError (a
ValueError), a missing file a MissingDataError (a FileNotFoundError), a folder a
PathIsFolderError (an IsADirectoryError).

Property tests (Hypothesis): random JSON values in every field of every registered family,
and random nestings of families, give a kernel or a RatkitError, never another exception.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ratkit.automata.kernels import Kernel, cosine, from_spec, load_spec, to_spec
from ratkit.automata.kernels.spec import MAX_SPEC_DEPTH, describe_families, spec_example
from ratkit.exceptions import (
    FstFormatError,
    MissingDataError,
    PathIsFolderError,
    RatkitError,
    SpecError,
    SpecTypeError,
)

NGRAM = {"family": "ngram", "n": 2}
NAN, INF = float("nan"), float("inf")


def _nested(depth: int) -> dict:
    spec: dict = dict(NGRAM)
    for _ in range(depth - 1):
        spec = {"family": "cosine", "kernel": spec}
    return spec


SPECS = [
    ("empty", {}, SpecError, r"Missing key 'family' at spec; accepted families: .*ngram"),
    ("unknown-family", {"family": "nope"}, SpecError, r"Unknown kernel family 'nope' at spec.family"),
    ("family-list", {"family": ["ngram"]}, SpecTypeError, r"spec.family must be a str.*list \['ngram'\]"),
    ("family-int", {"family": 5}, SpecTypeError, r"spec.family must be a str.*int 5"),
    ("family-none", {"family": None}, SpecTypeError, r"spec.family must be a str.*NoneType None"),
    ("unknown-key", {"family": "ngram", "n": 2, "colour": 1}, SpecError, r"Unknown key 'colour' at spec"),
    ("n-nan", {"family": "ngram", "n": NAN}, SpecError, r"spec: The 'n' parameter of ngram.*nan"),
    ("n-inf", {"family": "ngram", "n": INF}, SpecError, r"'n' parameter of ngram.*inf"),
    ("n-neg-inf", {"family": "ngram", "n": -INF}, SpecError, r"'n' parameter of ngram.*-inf"),
    ("n-list", {"family": "ngram", "n": [2]}, SpecTypeError, r"spec.n must be a number \(an int\); got list \[2\]"),
    ("n-zero", {"family": "ngram", "n": 0}, SpecError, r"'n' parameter of ngram.*Got 0"),
    ("n-missing", {"family": "gappy"}, SpecError, r"Missing key 'n' at spec \(a gappy kernel\)"),
    ("strategy-bad", {"family": "ngram", "n": 2, "strategy": "fast"}, SpecError, r"spec: The 'strategy' parameter"),
    ("n-jobs-str", {"family": "ngram", "n": 2, "n_jobs": "4"}, SpecTypeError, r"spec.n_jobs must be a number.*'4'"),
    ("x0-int", {"family": "nds-to-pds", "kernel": {"family": "edit-distance"}, "x0": 3}, SpecTypeError, r"'x0'"),
    ("patterns-int", {"family": "count-based", "patterns": 5}, SpecTypeError, r"spec.patterns must be a list; got int"),
    (
        "weights-str",
        {"family": "count-based", "patterns": ["a"], "weights": ["a"]},
        SpecTypeError,
        r"spec.weights\[0\] must be a number \(a float\); got str 'a'",
    ),
    ("decay-str", {"family": "random-walk", "decay": "x"}, SpecTypeError, r"spec.decay must be a number.*'x'"),
    (
        "att-text-not-a-path",
        {"family": "transducer", "att": "hello world"},
        FstFormatError,
        r"'att' key was read as AT&T text \(not as a file name; a file is the 'path' key\).*line 1",
    ),
    ("att-int", {"family": "transducer", "att": 5}, SpecTypeError, r"'att' key.*AT&T text.*int"),
    ("path-int", {"family": "transducer", "path": 5}, SpecTypeError, r"'path' key.*int"),
    ("path-holds-text", {"family": "transducer", "path": "0 1 a a\n1"}, SpecError, r"use the key 'att'"),
    ("path-and-att", {"family": "transducer"}, SpecError, r"exactly one of the keys 'path' or 'att'"),
    (
        "kernels-mapping",
        {"family": "sum", "kernels": {"family": "ngram"}},
        SpecTypeError,
        r"spec.kernels must be a list of kernel specs.*got one mapping",
    ),
    (
        "kernels-item-int",
        {"family": "sum", "kernels": [NGRAM, 5]},
        SpecTypeError,
        r"spec.kernels\[1\] must be a kernel",
    ),
    (
        "kernels-item-bad",
        {"family": "sum", "kernels": [NGRAM, {"family": "gappy", "n": 2, "decay": -0.5}]},
        SpecError,
        r"spec.kernels\[1\]: The 'decay' parameter of gappy",
    ),
    ("kernel-missing", {"family": "cosine"}, SpecError, r"Missing key 'kernel' at spec \(a cosine kernel\)"),
    (
        "kernel-int",
        {"family": "cosine", "kernel": 5},
        SpecTypeError,
        r"spec: CosineKernel combines ratkit kernels; got int",
    ),
    ("kind-bad", {"family": "pairwise", "kind": "Z", "kernel": NGRAM}, SpecError, r"'kind' parameter of pairwise.*'Z'"),
    ("too-deep", _nested(10_000), SpecError, rf"nests kernels more than {MAX_SPEC_DEPTH} deep"),
    ("one-too-deep", _nested(MAX_SPEC_DEPTH + 1), SpecError, rf"more than {MAX_SPEC_DEPTH} deep"),
    ("not-a-spec-int", 5, SpecTypeError, r"mapping, a JSON object string or a file path; got int 5"),
    ("not-a-spec-none", None, SpecTypeError, r"got NoneType None"),
    ("not-a-spec-bytes", b'{"family": "ngram"}', SpecTypeError, r"got bytes.*decode"),
    ("not-a-spec-list", [NGRAM], SpecTypeError, r"got list"),
    ("empty-string", "", SpecError, r"empty string"),
    ("not-a-spec-text", "ngram", SpecError, r"'ngram' is neither an existing .toml/.json file nor a JSON object"),
    ("json-invalid", '{"family": "ngram", "n": }', SpecError, r"not valid JSON: Expecting value: line 1 column 26"),
    ("json-truncated", '{"family": "ngr', SpecError, r"not valid JSON"),
    ("json-deep-objects", "{" * 100_000, SpecError, r"JSON"),
    ("json-deep-lists", "[" * 10_000 + "]" * 10_000, SpecError, r"nests too deep for the JSON parser"),
    ("json-list", "[1, 2]", SpecTypeError, r"must be a JSON object.*got list"),
    ("json-nan-n", '{"family": "ngram", "n": NaN}', SpecError, r"'n' parameter of ngram.*nan"),
    ("json-inf-n", '{"family": "ngram", "n": 1e999}', SpecError, r"'n' parameter of ngram.*inf"),
]


@pytest.mark.parametrize("spec, exc, match", [c[1:] for c in SPECS], ids=[c[0] for c in SPECS])
def test_bad_specs(spec, exc, match):
    with pytest.raises(exc, match=match) as info:
        from_spec(spec)
    assert isinstance(info.value, RatkitError)


def test_the_deepest_accepted_spec_builds():
    k = from_spec(_nested(MAX_SPEC_DEPTH))
    assert isinstance(k, Kernel)
    shallow = from_spec(_nested(4))  # cosine(cosine(cosine(ngram))) = cosine(ngram)
    assert shallow("abab", "abab") == pytest.approx(1.0)
    assert shallow("abab", "ab") == pytest.approx(2.0 / math.sqrt(5.0))  # ⟨ab², ba⟩ = 2, ‖abab‖² = 5, ‖ab‖² = 1


FILES = [
    # (id, name, content (bytes) or None for a folder / a missing file, class, words)
    ("missing-json", "missing.json", None, MissingDataError, r"missing.json' is neither an existing"),
    ("missing-toml", "sub/missing.toml", None, MissingDataError, r"missing.toml"),
    ("folder", "adir", "folder", PathIsFolderError, r"adir' is a folder"),
    ("non-utf8", "nonutf8.json", b'{"family": "\xff"}', SpecError, r"nonutf8.json: not a UTF-8 text file"),
    ("truncated", "trunc.json", b'{"family": "ngram", "n"', SpecError, r"trunc.json: not valid JSON"),
    ("bad-toml", "bad.toml", b"family = ngram\n", SpecError, r"bad.toml: not valid TOML"),
    ("list-json", "list.json", b"[1]", SpecTypeError, r"list.json must be a JSON object.*list"),
    ("empty-file", "empty.json", b"", SpecError, r"empty.json: not valid JSON"),
    ("bad-value", "n.toml", b'family = "ngram"\nn = -1\n', SpecError, r"spec: The 'n' parameter of ngram.*-1"),
]


@pytest.mark.parametrize("name, content, exc, match", [c[1:] for c in FILES], ids=[c[0] for c in FILES])
def test_bad_spec_files(tmp_path, name, content, exc, match):
    path = tmp_path / name
    if content == "folder":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(exc, match=match) as info:
        from_spec(path)
    assert isinstance(info.value, RatkitError)
    with pytest.raises(exc, match=match):
        from_spec(str(path))


def test_good_spec_files_with_a_byte_order_mark(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(NGRAM).encode())
    assert load_spec(path) == NGRAM
    assert from_spec(path)("abab", "ab") == 2.0


def test_a_transducer_path_that_is_a_folder_or_missing(tmp_path):
    with pytest.raises(PathIsFolderError, match=r"spec: Transducer file .* is a folder"):
        from_spec({"family": "transducer", "path": str(tmp_path)})
    with pytest.raises(MissingDataError, match=r"spec: Transducer file .*nope.att' does not exist"):
        from_spec({"family": "transducer", "path": str(tmp_path / "nope.att")})


def test_to_spec_refuses_a_kernel_nested_deeper_than_a_spec_may_be():
    deepest = from_spec(_nested(MAX_SPEC_DEPTH))
    assert to_spec(deepest) == _nested(MAX_SPEC_DEPTH)
    with pytest.raises(SpecError, match=rf"more than {MAX_SPEC_DEPTH} deep"):
        to_spec(cosine(deepest))


@pytest.mark.parametrize("value", [5, None, "ngram", NGRAM, [NGRAM]], ids=["int", "none", "str", "dict", "list"])
def test_to_spec_takes_kernels_only(value):
    with pytest.raises(SpecTypeError, match=r"to_spec writes ratkit kernels; got"):
        to_spec(value)


# -- property tests ------------------------------------------------------------------------------
FAMILIES = {info.name: info for info in describe_families()}
_FIELDS = {
    name: sorted(set(info.obj._spec_keys() or ()) if isinstance(info.obj, type) else {p.name for p in info.parameters})
    for name, info in FAMILIES.items()
}

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(["", "ab", "0 1 a a 1\n1 1\n", "probability", "tropical", "auto", "T", "D", "none", "ACGT"])
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


_EXAMPLES = {name: spec_example(name) for name in FAMILIES}


@st.composite
def family_specs(draw, depth: int = 0):
    """A valid spec of a random registered family (its :func:`spec_example`) with up to three
    of its fields replaced by random JSON values — or, for the fields that take kernels, by
    random specs in turn — and now and then an extra key."""
    name = draw(st.sampled_from(sorted(FAMILIES)))
    spec: dict = dict(_EXAMPLES[name])
    spec["family"] = draw(st.sampled_from([name, name.replace("-", "_")]))
    for field in draw(st.lists(st.sampled_from(_FIELDS[name] or ["n"]), max_size=3, unique=True)):
        if field in ("kernel", "kernels") and depth < 3 and draw(st.booleans()):
            inner = family_specs(depth + 1)
            spec[field] = draw(inner) if field == "kernel" else draw(st.lists(inner, max_size=3))
        elif draw(st.integers(0, 5)) == 0:
            spec.pop(field, None)
        else:
            spec[field] = draw(json_values)
    if draw(st.integers(0, 9)) == 0:
        spec[draw(st.text(max_size=6))] = draw(json_values)
    return spec


def _check_build(spec) -> None:
    try:
        kernel = from_spec(spec)
    except RatkitError:
        return
    assert isinstance(kernel, Kernel)
    try:
        written = to_spec(kernel, inline=True)
    except RatkitError:
        return
    json.dumps(written)  # plain JSON


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(family_specs())
def test_random_specs_give_a_kernel_or_a_ratkit_error(spec):
    _check_build(spec)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values)
def test_random_json_documents_give_a_kernel_or_a_ratkit_error(value):
    _check_build(value)
    try:
        text = json.dumps(value)
    except ValueError:
        return
    _check_build(text)
