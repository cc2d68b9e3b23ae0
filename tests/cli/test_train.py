"""``ratkit train`` / ``ratkit predict`` end to end, and their errors."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ratkit.cli._main import main
from ratkit.datasets import load_tsv, write_tsv
from ratkit.learners import load_model
from ratkit.workflow import positional_tokens


def _write(path, seed, m=80):
    rng = random.Random(seed)
    X = ["".join(rng.choice("acgt") for _ in range(rng.randint(8, 20))) for _ in range(m)]
    y = ["pos" if x.count("ga") > x.count("tc") else "neg" for x in X]
    write_tsv(path, X, y)
    return X, y


def test_train_then_predict_round_trip(tmp_path, capsys):
    train, test = tmp_path / "train.tsv", tmp_path / "test.tsv"
    _write(train, 1)
    Xt, yt = _write(test, 2, 30)
    model = tmp_path / "m.zip"
    spec = '{"family": "cosine", "kernel": {"family": "ngram", "n": 2}}'
    assert (
        main(
            [
                "train",
                "--kernel",
                spec,
                "--data",
                str(train),
                "-o",
                str(model),
                "--quiet",
                "-C",
                "2",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "60 training, 20 held-out sequences" in out
    assert "trained RationalSVC (W′ as trie) in" in out and "passes" in out
    assert "held-out accuracy" in out and "F1 of 'pos'" in out
    assert f"model written to {model}" in out
    pred = tmp_path / "pred.tsv"
    assert main(["predict", "--model", str(model), "--data", str(test), "-o", str(pred)]) == 0
    got = load_tsv(pred)
    want = load_model(model).predict(Xt)
    assert got.sequences == Xt and got.labels == list(want)
    out = capsys.readouterr().out
    acc = float(np.mean(np.array(yt) == want))
    assert f"30 sequences: accuracy {acc:.4f}" in out
    lines = tmp_path / "seqs.txt"
    lines.write_text("\n".join(Xt[:5]) + "\n")
    assert main(["predict", "--model", str(model), "--data", str(lines), "--format", "lines"]) == 0
    assert capsys.readouterr().out.splitlines() == [f"{p}\t{x}" for p, x in zip(want[:5], Xt[:5])]


def test_positional_target_and_separate_test_file(tmp_path, capsys):
    train, test = tmp_path / "a.tsv", tmp_path / "b.tsv"
    X, _ = _write(train, 3)
    _write(test, 4, 20)
    model = tmp_path / "m.zip"
    assert (
        main(
            [
                "train",
                "--data",
                str(train),
                "--test-data",
                str(test),
                "--target",
                "pos",
                "--positional",
                "--representation",
                "automaton",
                "--fit-intercept",
                "-o",
                str(model),
                "--quiet",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "80 training, 20 held-out" in out and "on positional tokens" in out and "W′ as automaton" in out
    m = load_model(model)
    assert sorted(m.classes_) == ["not-pos", "pos"]
    assert main(["predict", "--model", str(model), "--data", str(train)]) == 0
    got = [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()]
    assert got == list(m.predict(positional_tokens(X)))


@pytest.mark.parametrize(
    "content, match",
    [
        ("", "no examples found; expected lines 'label<TAB>sequence'"),
        ("a\tacgt\nbroken\n", "line 2: no TAB; expected 'label<TAB>sequence'"),
        ("a\tacgt\na\tcgta\na\tggg\n", "at least two classes; got one class only"),
    ],
)
def test_train_errors(tmp_path, capsys, content, match):
    f = tmp_path / "d.tsv"
    f.write_text(content)
    assert main(["train", "--data", str(f), "--test-size", "0.5", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ratkit train: error:") and match in err


def test_more_errors(tmp_path, capsys):
    train = tmp_path / "t.tsv"
    _write(train, 5)
    assert main(["train", "--data", str(tmp_path / "missing.tsv")]) == 2
    assert "not found; expected a UTF-8 text file with one 'label<TAB>sequence' per line" in capsys.readouterr().err
    assert main(["train", "--data", str(train), "--kernel", '{"family": "nope"}']) == 2
    assert "Unknown kernel family 'nope'" in capsys.readouterr().err
    assert main(["train", "--data", str(train), "--target", "zebra"]) == 2
    assert "no example has label 'zebra'" in capsys.readouterr().err
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a model")
    assert main(["predict", "--model", str(bad), "--data", str(train)]) == 2
    assert "is not a ratkit model" in capsys.readouterr().err


@pytest.mark.parametrize(
    "option, value, match",
    [
        ("-C", "0", "argument -C: expected a float > 0, got '0'"),
        ("--tol", "-1", "argument --tol: expected a float > 0, got '-1'"),
        ("--max-iter", "0", "argument --max-iter: expected an int > 0, got '0'"),
        ("--test-size", "1.5", "argument --test-size: expected a fraction in [0, 1), got '1.5'"),
    ],
)
def test_bad_numeric_options_are_usage_errors(tmp_path, capsys, option, value, match):
    train = tmp_path / "t.tsv"
    _write(train, 5)
    with pytest.raises(SystemExit) as exc:
        main(["train", "--data", str(train), option, value])
    assert exc.value.code == 2 and match in capsys.readouterr().err


def test_predict_refuses_a_numeric_model(tmp_path, capsys):
    import numpy as np

    from ratkit.learners import LinearDCDSVC

    X = np.random.RandomState(0).randn(20, 3)
    LinearDCDSVC(random_state=0).fit(X, X[:, 0] > 0).save(tmp_path / "lin.zip")
    data = tmp_path / "t.tsv"
    _write(data, 5)
    assert main(["predict", "--model", str(tmp_path / "lin.zip"), "--data", str(data)]) == 2
    assert "holds a LinearDCDSVC on numeric feature vectors; 'ratkit predict' applies sequence models" in (
        capsys.readouterr().err
    )


def test_non_pds_kernel_is_refused(tmp_path, capsys):
    train = tmp_path / "t.tsv"
    _write(train, 5)
    spec = '{"family": "edit_distance"}'
    assert main(["train", "--data", str(train), "--kernel", spec, "--quiet"]) == 2
    assert "needs a positive definite symmetric kernel" in capsys.readouterr().err


def test_a_saved_mismatch_model_reports_the_same_accuracy_on_predict(tmp_path, capsys):
    """The alphabet the mismatch kernel inferred in training travels in the model file; before,
    'train' reported held-out accuracy 0.90 and 'predict' on the same file 0.725."""
    train, test, model = tmp_path / "train.tsv", tmp_path / "test.tsv", tmp_path / "mm.zip"
    _write(train, 5)
    _write(test, 6, 40)
    spec = '{"family": "mismatch", "k": 3, "m": 1}'
    argv = ["train", "--kernel", spec, "--data", str(train), "--test-data", str(test), "-o", str(model), "--quiet"]
    assert main(argv) == 0
    trained = [line for line in capsys.readouterr().out.splitlines() if line.startswith("held-out accuracy")]
    assert main(["predict", "--model", str(model), "--data", str(test), "-o", str(tmp_path / "p.tsv")]) == 0
    predicted = capsys.readouterr().out
    accuracy = trained[0].split()[2].rstrip(",")
    assert f"40 sequences: accuracy {accuracy}," in predicted
    assert load_model(model).kernel_.to_spec() == {"family": "mismatch", "k": 3, "m": 1, "alphabet": "acgt"}
