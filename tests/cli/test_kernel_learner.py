"""``ratkit kernel-learner`` (formerly ``learn-kernel``): the learned spec on disk and the command's error messages."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from ratkit.automata.kernels import CountBasedKernel, from_spec
from ratkit.cli import _main as cli

MODULE = "ratkit.cli._kernel_learner"
ROWS = [
    ("+1", "abab"),
    ("1", "aabab"),
    ("-1", "baba"),
    ("-1", "bbaa"),
    ("+1", "abba"),
    ("-1", "babb"),
]


@pytest.fixture(autouse=True)
def registered(monkeypatch):
    """The command as ``ratkit`` runs it, whether or not cli.py lists the module yet."""
    if MODULE not in cli._COMMAND_MODULES:
        monkeypatch.setattr(cli, "_COMMAND_MODULES", (*cli._COMMAND_MODULES, MODULE))


def write(tmp_path, rows, name="data.tsv"):
    path = tmp_path / name
    path.write_text("".join(f"{label}\t{seq}\n" for label, seq in rows), encoding="utf-8")
    return str(path)


def bigram_counts(seqs):
    counts = {}
    for s in seqs:
        for j in range(len(s) - 1):
            counts[tuple(s[j : j + 2])] = counts.get(tuple(s[j : j + 2]), 0) + 1
    return counts


def test_learn_kernel_writes_a_count_based_spec(tmp_path, capsys):
    data, out = write(tmp_path, ROWS), tmp_path / "learned.json"
    assert cli.main(["kernel-learner", "--data", data, "--top", "3", "--C", "2", "--out", str(out)]) == 0
    kernel = from_spec(json.loads(out.read_text()))
    assert isinstance(kernel, CountBasedKernel)
    counts = bigram_counts([s for _, s in ROWS])
    top = sorted(counts, key=lambda z: (-counts[z], z))[:3]
    assert kernel.pattern_tuples() == top
    # the learned μ = w² has the trace of the uniform kernel on these patterns (brute force)
    seqs = [s for _, s in ROWS]
    X = np.array([[sum(s[j : j + 2] == "".join(z) for j in range(len(s) - 1)) for z in top] for s in seqs])
    mu = np.asarray(kernel.weights) ** 2
    assert (mu * (X**2).sum(axis=0)).sum() == pytest.approx((X**2).sum(), rel=1e-9)
    err = capsys.readouterr().err
    assert "6 sequences, 3 patterns" in err and "CLARABEL status optimal" in err


def test_learn_kernel_prints_to_stdout_with_a_spec_and_tokens(tmp_path, capsys):
    rows = [
        ("acq", "the cat sat"),
        ("earn", "a dog sat"),
        ("acq", "the cat ran"),
        ("earn", "a dog ran"),
    ]
    spec = json.dumps({"family": "count-based", "patterns": [["the", "cat"], ["dog"], ["sat"]]})
    argv = [
        "kernel-learner",
        "--data",
        write(tmp_path, rows),
        "--tokens",
        "--target",
        "acq",
        "--spec",
        spec,
    ]
    assert cli.main(argv) == 0
    learned = json.loads(capsys.readouterr().out)
    assert learned["family"] == "count-based" and learned["patterns"] == [
        ["the", "cat"],
        ["dog"],
        ["sat"],
    ]
    # "sat" is shared by both classes and "the cat"/"dog" separate them: only they get weight
    w = np.asarray(learned["weights"])
    assert w[2] <= 1e-3 * w.max() and min(w[0], w[1]) > 0.1 * w.max()


@pytest.mark.parametrize(
    "content, message",
    [
        (None, r"Labelled sequence file .* not found; expected a UTF-8 text file with one"),
        ("+1\tab\nno tab here\n", r"line 2: no TAB; expected 'label<TAB>sequence', got 'no tab"),
        ("# comment\n\n", r"no examples found; expected lines 'label<TAB>sequence'"),
        ("+1\tab\nyes\tba\n", r"label 'yes' is not \+1/1/-1\. Give --target LABEL"),
        ("+1\tab\n+1\tba\n", r"needs samples of both classes −1 and \+1; got only \+1"),
    ],
)
def test_learn_kernel_data_errors(tmp_path, capsys, content, message):
    path = tmp_path / "data.tsv"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert cli.main(["kernel-learner", "--data", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ratkit kernel-learner: error: ")
    assert re.search(message, err), err


def test_learn_kernel_unknown_target(tmp_path, capsys):
    assert cli.main(["kernel-learner", "--data", write(tmp_path, ROWS), "--target", "acq"]) == 2
    assert "no example has label 'acq'" in capsys.readouterr().err


def test_learn_kernel_refuses_a_kernel_that_is_not_count_based(tmp_path, capsys):
    argv = [
        "kernel-learner",
        "--data",
        write(tmp_path, ROWS),
        "--spec",
        '{"family": "ngram", "n": 2}',
    ]
    assert cli.main(argv) == 2
    assert "learns the weights of a count-based kernel" in capsys.readouterr().err


@pytest.mark.parametrize("flag, value", [("--trace", "-1"), ("--C", "0"), ("--top", "0"), ("--C", "abc")])
def test_learn_kernel_option_errors(tmp_path, capsys, flag, value):
    with pytest.raises(SystemExit) as exc:
        cli.main(["kernel-learner", "--data", write(tmp_path, ROWS), flag, value])
    assert exc.value.code == 2
    assert f"argument {flag}: expected a" in capsys.readouterr().err


def test_learn_kernel_is_the_former_name_of_kernel_learner(tmp_path, capsys):
    data = write(tmp_path, ROWS)
    assert cli.main(["learn-kernel", "--data", data, "--top", "3"]) == 0
    spec = json.loads(capsys.readouterr().out)
    assert cli.main(["kernel-learner", "--data", data, "--top", "3"]) == 0
    assert json.loads(capsys.readouterr().out) == spec
    assert cli.main(["learn-kernel", "--data", str(tmp_path / "missing.tsv")]) == 2
    assert capsys.readouterr().err.startswith("ratkit kernel-learner: error: ")
