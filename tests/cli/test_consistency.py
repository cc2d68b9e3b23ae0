"""One command line: shared flags spelled alike, every default in --help, --format choices and help
in agreement, predict auto-detecting unlabelled files, outputs announced (issue 20)."""

from __future__ import annotations

import argparse
import random
import re

import pytest

from ratkit.cli._common import HelpFormatter
from ratkit.cli._main import build_parser
from ratkit.datasets import write_tsv
from tests.cli._helpers import run
from tests.cli.test_main import _commands

#: dest → the one spelling of a shared flag.
SHARED = {"C": ["-C"], "output": ["-o", "--output"], "seed": ["--seed"], "n_jobs": ["--n-jobs"], "plot": ["--plot"]}


def _leaves():
    parser = build_parser()
    out = []
    for command in _commands(parser):
        sub = parser
        for name in command:
            sub = next(a for a in sub._actions if isinstance(a, argparse._SubParsersAction)).choices[name]
        if not any(isinstance(a, argparse._SubParsersAction) for a in sub._actions):
            out.append((" ".join(command), sub))
    return out


LEAVES = _leaves()


@pytest.mark.parametrize("command, parser", LEAVES, ids=[c for c, _ in LEAVES])
def test_shared_flags_have_one_spelling(command, parser):
    for action in parser._actions:
        if action.help is argparse.SUPPRESS:
            continue
        if action.dest in SHARED:
            assert action.option_strings == SHARED[action.dest], (command, action.option_strings)
        assert not {"--C", "--out"} & set(action.option_strings), command


@pytest.mark.parametrize("command, parser", LEAVES, ids=[c for c, _ in LEAVES])
def test_every_default_is_in_the_help(command, parser):
    formatter = HelpFormatter(parser.prog)
    for action in parser._actions:
        if action.help is argparse.SUPPRESS or not action.option_strings or action.nargs == 0 or action.required:
            continue
        shown = formatter._expand_help(action)
        assert "default" in shown, f"{command} {action.option_strings[0]}: {shown!r}"
        if isinstance(action.default, (int, float, str)) and not isinstance(action.default, bool):
            value = action.default
            assert (f"{value:g}" in shown or str(value) in shown) if isinstance(value, float) else str(value) in shown


@pytest.mark.parametrize("command, parser", LEAVES, ids=[c for c, _ in LEAVES])
def test_format_choices_and_help_agree(command, parser):
    for action in parser._actions:
        if "--format" not in action.option_strings:
            continue
        quoted = set(re.findall(r"'([a-z0-9]+)'", action.help))
        assert quoted == set(action.choices), (command, quoted, action.choices)


def test_train_help_no_longer_describes_a_lines_format(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "lines" not in text.split("--format")[1].split("--target")[0]


def test_deprecated_spellings_still_work_with_a_note(tmp_path, capsys):
    out = tmp_path / "k.json"
    args = build_parser().parse_args(["kernel-learner", "--data", "x.tsv", "--C", "2", "--out", str(out)])
    assert args.C == 2.0 and args.output == str(out)
    err = capsys.readouterr().err
    assert "--C is deprecated; use -C" in err and "--out is deprecated; use -o/--output" in err
    args = build_parser().parse_args(["kernel-learner", "--data", "x.tsv", "-C", "2", "-o", str(out)])
    assert args.C == 2.0 and args.output == str(out) and capsys.readouterr().err == ""


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    d = tmp_path_factory.mktemp("consistency")
    rng = random.Random(5)
    X = ["".join(rng.choice("ab") for _ in range(rng.randint(5, 9))) for _ in range(30)]
    y = ["A" if x.count("ab") >= 2 else "B" for x in X]
    write_tsv(d / "train.tsv", X, y)
    (d / "new.txt").write_text("".join(f"{x}\n" for x in X[:10]))
    main_args = ["train", "--data", d / "train.tsv", "--test-size", "0", "-o", d / "m.zip", "--quiet"]
    import ratkit.cli._main as cli

    assert cli.main([str(a) for a in main_args]) == 0
    return d


def test_predict_auto_detects_an_unlabelled_file(model, capsys):
    """Before, --format auto read new.txt as 'label<TAB>sequence' lines and failed."""
    d = model
    code, auto, err = run(["predict", "--model", d / "m.zip", "--data", d / "new.txt"], capsys)
    assert code == 0, err
    code, lines, _ = run(["predict", "--model", d / "m.zip", "--data", d / "new.txt", "--format", "lines"], capsys)
    assert code == 0 and auto == lines
    assert [row.split("\t")[1] for row in auto.splitlines()] == (d / "new.txt").read_text().split()


def test_predict_auto_still_reads_labelled_files_as_tsv(model, capsys):
    d = model
    code, out, err = run(["predict", "--model", d / "m.zip", "--data", d / "train.tsv"], capsys)
    assert code == 0 and "accuracy" in err  # labels were read: a score is reported


def test_long_commands_say_where_they_wrote(model, tmp_path, capsys):
    d = model
    target = tmp_path / "pred.tsv"
    code, out, _ = run(["predict", "--model", d / "m.zip", "--data", d / "train.tsv", "-o", target], capsys)
    assert code == 0 and f"predictions written to {target}" in out  # before: only for unlabelled data
    code, out, _ = run(["train", "--data", d / "train.tsv", "-o", tmp_path / "again.zip", "--quiet"], capsys)
    assert code == 0 and f"model written to {tmp_path / 'again.zip'}" in out


def test_demo_says_what_became_of_its_model(monkeypatch, capsys):
    import ratkit.demo

    monkeypatch.setattr(ratkit.demo, "run_demo", lambda **kw: {"reload_identical": True})
    code, out, _ = run(["demo"], capsys)
    assert code == 0
    assert "temporary folder" in out and "deleted" in out and "-o MODEL.zip" in out
