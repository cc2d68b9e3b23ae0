"""A kernel spec with a key given twice is refused by name (issue 35, class 7).

``json.loads`` keeps the last of duplicated keys, so ``{"family": "ngram", "n": 2, "n": 3}``
read as a trigram kernel while TOML refuses the same spec. Every way a spec arrives — a JSON
string, a .json or .toml file, the CLI's ``--kernel``, a model file — now refuses it,
naming the key and where it is. The oracle for "accepted silently before" is ``json.loads``.
"""

from __future__ import annotations

import hashlib
import json
import re
import zipfile

import pytest

from ratkit.automata import kernels as K
from ratkit.automata.kernels import SpecError, from_spec, load_spec
from ratkit.exceptions import RatkitError

from ...cli._helpers import run

DUPLICATED = '{"family": "ngram", "n": 2, "n": 3}'


def test_the_issue_example_is_refused_naming_the_key():
    assert json.loads(DUPLICATED) == {"family": "ngram", "n": 3}  # what the standard reader made of it
    with pytest.raises(SpecError, match=r"the key 'n' appears twice in the top-level object"):
        from_spec(DUPLICATED)
    with pytest.raises(SpecError, match=r"the key 'n' appears twice"):
        load_spec(DUPLICATED)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            '{"family": "sum", "kernels": [{"family": "ngram", "n": 3}, '
            '{"family": "gappy", "n": 2, "decay": 0.5, "n": 3}]}',
            r"the key 'n' appears twice in the object at kernels\[1\]",
        ),
        (
            '{"family": "cosine", "kernel": {"family": "scaled", "weight": 2, "kernel": '
            '{"family": "ngram", "n": 1}, "weight": 3}}',
            r"the key 'weight' appears twice in the object at kernel",
        ),
        (
            '{"family": "pairwise", "kind": "TL", "kernel": {"family": "ngram", "n": 2}, "kind": "cartesian"}',
            r"the key 'kind' appears twice in the top-level object",
        ),
        ('{"family": "ngram", "family": "gappy", "n": 2}', r"the key 'family' appears twice"),
    ],
)
def test_nested_duplicates_are_named_with_their_path(text, where):
    json.loads(text)  # valid JSON for the standard reader
    with pytest.raises(SpecError, match=where):
        from_spec(text)


def test_a_json_file_with_a_duplicate_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "kernel.json"
    path.write_text(DUPLICATED, encoding="utf-8")
    with pytest.raises(SpecError, match=rf"{path.name}: the key 'n' appears twice"):
        from_spec(path)
    with pytest.raises(SpecError, match=rf"{path.name}: the key 'n' appears twice"):
        from_spec(str(path))
    path.write_text('{"family": "ngram", "n": 2}', encoding="utf-8")
    assert from_spec(path)("abab", "abab") == 5.0  # ab: 2·2, ba: 1·1 — a unique-key file still reads


def test_a_toml_file_with_a_duplicate_is_refused_naming_the_key(tmp_path):
    path = tmp_path / "kernel.toml"
    path.write_text(
        'family = "sum"\n[[kernels]]\nfamily = "ngram"\nn = 1\n[[kernels]]\nfamily = "ngram"\nn = 2\nn = 3\n',
        encoding="utf-8",
    )
    with pytest.raises(SpecError, match=r"kernel\.toml: not valid TOML: .*line 8.*the key 'n'"):
        from_spec(path)


def test_unique_keys_build_the_same_kernel_as_before():
    text = '{"family": "sum", "kernels": [{"family": "ngram", "n": 2}, {"family": "gappy", "n": 2, "decay": 0.5}]}'
    assert K.to_spec(from_spec(text)) == K.to_spec(from_spec(json.loads(text)))


def test_the_cli_refuses_it_in_one_line_with_exit_2(tmp_path, capsys):
    code, out, err = run(["kernels", "eval", "--kernel", DUPLICATED, "abab", "abab"], capsys)
    assert code == 2, out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "the key 'n' appears twice" in lines[0], err
    path = tmp_path / "k.json"
    path.write_text(DUPLICATED, encoding="utf-8")
    code, out, err = run(["kernels", "eval", "--kernel", path, "abab", "abab"], capsys)
    assert code == 2 and "k.json: the key 'n' appears twice" in err, err
    assert len(err.strip().splitlines()) == 1


def _model_with_a_duplicated_spec_key(tmp_path):
    """A RationalSVC file whose kernel spec, inside manifest.json, says n twice (checksum
    recomputed, as by someone who knows the format)."""
    from ratkit.learners import RationalSVC

    path, edited = tmp_path / "m.zip", tmp_path / "edited.zip"
    RationalSVC(K.ngram(2), random_state=0).fit(["ab", "ba", "aa", "bb"], [1, 1, -1, -1]).save(path)
    with zipfile.ZipFile(path) as z:
        parts = {name: z.read(name) for name in z.namelist()}
    text, edits = re.subn(r'("family": "ngram",\s*"n": 2)', r'\1, "n": 3', parts["manifest.json"].decode("utf-8"))
    assert edits >= 1 and json.loads(text)  # still JSON for the standard reader
    parts["manifest.json"] = text.encode("utf-8")
    parts["manifest.sha256"] = hashlib.sha256(parts["manifest.json"]).hexdigest().encode()
    with zipfile.ZipFile(edited, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)
    return edited


def test_a_model_file_whose_kernel_spec_has_a_duplicate_is_refused(tmp_path):
    from ratkit.learners import load_model

    with pytest.raises(RatkitError, match=r"the key 'n' appears twice"):
        load_model(_model_with_a_duplicated_spec_key(tmp_path))
