"""The command line under a terminal that cannot encode every character (issue 35, class 6).

Under a C locale (cron, a bare container: ``LC_ALL=C``, ``PYTHONUTF8=0``) or
``PYTHONIOENCODING=ascii``, ``ratkit train -o m.zip`` with non-ASCII labels trained, then
exited 2 with "'ascii' codec can't encode character" when it printed the classes, after the
work and without saying what to do. Now what the terminal cannot show is printed as
backslash escapes (``\\xe9``), and files written with ``-o`` are UTF-8 whatever the locale."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import ratkit

ROOT = str(Path(ratkit.__file__).resolve().parent.parent)
#: A terminal that encodes ASCII only, as cron or a bare container gives.
ASCII_TERMINAL = {"LC_ALL": "C", "LANG": "C", "PYTHONIOENCODING": "ascii", "PYTHONUTF8": "0"}
_CLI = "import sys; from ratkit.cli import main; sys.exit(main(sys.argv[1:]))"


def _ratkit(*argv: str, cwd: Path, terminal: dict[str, str] = ASCII_TERMINAL) -> subprocess.CompletedProcess:
    """``ratkit ARGV`` in a fresh interpreter under ``terminal``; stdout and stderr as bytes."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RATKIT_", "LC_", "PYTHONIO"))}
    env.update(terminal, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-c", _CLI, *argv], cwd=cwd, env=env, capture_output=True, timeout=600)


def _ascii(data: bytes) -> str:
    return data.decode("ascii")  # raises if the stream was not written as ASCII


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("ascii-terminal")
    rng = random.Random(0)
    lines = []
    for i in range(40):
        label, alphabet = ("é", "ab") if i % 2 else ("δ", "cd")
        lines.append(f"{label}\t{''.join(rng.choice(alphabet) for _ in range(8))}\n")
    (folder / "labels.tsv").write_text("".join(lines), encoding="utf-8")
    ratings = [f"usér{u},ítem-δ{i},{rng.randint(3, 5)}\n" for u in range(30) for i in rng.sample(range(20), 8)]
    (folder / "ratings.csv").write_text("".join(ratings), encoding="utf-8")
    return folder


@pytest.mark.slow
def test_train_and_predict_with_non_ascii_labels_on_an_ascii_terminal(folder):
    train = _ratkit("train", "--data", "labels.tsv", "-o", "m.zip", "--quiet", cwd=folder)
    assert train.returncode == 0, train.stderr
    out = _ascii(train.stdout)
    assert "classes \\xe9, \\u03b4" in out and "model written to m.zip" in out

    from ratkit import load_model

    assert sorted(load_model(folder / "m.zip").classes_) == ["é", "δ"]  # the file holds the real labels

    predict = _ratkit("predict", "--model", "m.zip", "--data", "labels.tsv", cwd=folder)
    assert predict.returncode == 0, predict.stderr
    lines = _ascii(predict.stdout).splitlines()
    first = (folder / "labels.tsv").read_text(encoding="utf-8").splitlines()[0]
    assert lines[0] == first.replace("δ", "\\u03b4").replace("é", "\\xe9")  # label<TAB>sequence, escaped

    # a C locale alone: stdout is ASCII with surrogateescape, which fails on 'é' just the same
    c_locale = {k: v for k, v in ASCII_TERMINAL.items() if k != "PYTHONIOENCODING"}
    predict = _ratkit("predict", "--model", "m.zip", "--data", "labels.tsv", cwd=folder, terminal=c_locale)
    assert predict.returncode == 0, predict.stderr
    assert _ascii(predict.stdout).splitlines() == lines

    written = _ratkit("predict", "--model", "m.zip", "--data", "labels.tsv", "-o", "p.tsv", cwd=folder)
    assert written.returncode == 0, written.stderr
    assert (folder / "p.tsv").read_text(encoding="utf-8").splitlines()[0] == first  # the file is UTF-8


@pytest.mark.slow
def test_recsys_evaluate_and_recommend_with_non_ascii_ids_on_an_ascii_terminal(folder):
    common = ("--data", "ratings.csv", "--format", "csv", "--model", "popularity", "--min-positives", "2")
    evaluate = _ratkit("recsys", "evaluate", *common, "--n-test", "1", "-k", "5", "-o", "pop.zip", cwd=folder)
    assert evaluate.returncode == 0, evaluate.stderr
    assert "precision@5" in _ascii(evaluate.stdout)
    _ascii(evaluate.stderr)
    (folder / "users.txt").write_text("usér3\nusér7\n", encoding="utf-8")
    recommend = _ratkit("recsys", "recommend", "--model", "pop.zip", "--users-file", "users.txt", "-N", "3", cwd=folder)
    assert recommend.returncode == 0, recommend.stderr
    rows = [line.split("\t") for line in _ascii(recommend.stdout).splitlines()]
    assert [row[0] for row in rows] == ["us\\xe9r3", "us\\xe9r7"]
    assert all(len(row) == 4 and all(item.startswith("\\xedtem-\\u03b4") for item in row[1:]) for row in rows)


def test_kernels_eval_on_an_ascii_terminal(folder):
    # an error naming a non-ASCII value: one escaped line, exit 2
    bad = _ratkit("kernels", "eval", "--kernel", '{"family": "ngrämm"}', "a", "b", cwd=folder)
    assert bad.returncode == 2 and _ascii(bad.stderr).startswith("ratkit kernels eval: error: Unknown kernel family")
    # a C locale with Python's UTF-8 mode (its default there) reads the arguments as UTF-8:
    # unigram counts, é·δ + δ·δ = 1·0 + 1·2
    utf8_mode = {k: v for k, v in ASCII_TERMINAL.items() if k != "PYTHONUTF8"}
    done = _ratkit(
        "kernels", "eval", "--kernel", '{"family": "ngram", "n": 1}', "éδ", "δδ", cwd=folder, terminal=utf8_mode
    )
    assert done.returncode == 0, done.stderr
    assert float(_ascii(done.stdout)) == 2.0


def test_text_arguments_are_utf8_whatever_the_locale(folder):
    """A C locale without UTF-8 mode decodes the command line as ASCII with surrogate escapes,
    so "é" arrived as two symbols and K was silently wrong; sequences, symbols and inline
    specs are read as UTF-8, as files are. Unigram counts: é·δ + δ·δ = 1·0 + 1·2 = 2."""
    done = _ratkit("kernels", "eval", "--kernel", '{"family": "ngram", "n": 1}', "éδ", "δδ", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert float(_ascii(done.stdout)) == 2.0
    # a non-ASCII symbol inside an inline spec: count_based over the pattern "é" (weight 1)
    spec = '{"family": "count-based", "patterns": ["é"]}'
    done = _ratkit("kernels", "eval", "--kernel", spec, "éé", "aé", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert float(_ascii(done.stdout)) == 2.0  # |x|_é |y|_é = 2 · 1
    # bytes that are not UTF-8 are refused by name, not read as other symbols
    bad = subprocess.run(
        [sys.executable, "-c", _CLI, "kernels", "eval", "--kernel", '{"family": "ngram", "n": 1}', b"\xff", "a"],
        cwd=folder,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith(("RATKIT_", "LC_"))},
            **ASCII_TERMINAL,
            "PYTHONPATH": os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]),
        },
        capture_output=True,
        timeout=600,
    )
    assert bad.returncode == 2 and b"is not UTF-8 text" in bad.stderr, bad.stderr
