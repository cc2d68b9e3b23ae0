"""Every command, with each bad flag, ends with one line ``ratkit <command>: error: …`` and exit
status 2, never with a Python traceback; output paths are checked before any work."""

from __future__ import annotations

import json
import random
import sys

import pytest

from ratkit.cli._main import main
from ratkit.datasets import write_tsv


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    rng = random.Random(0)
    X = ["".join(rng.choice("acgt") for _ in range(rng.randint(8, 16))) for _ in range(40)]
    y = ["pos" if x.count("ga") > x.count("tc") else "neg" for x in X]
    write_tsv(d / "train.tsv", X, y)
    write_tsv(d / "one-class.tsv", X[:6], ["pos"] * 6)
    write_tsv(d / "signs.tsv", X, ["+1" if label == "pos" else "-1" for label in y])
    (d / "no-tab.tsv").write_text("pos acgt\n")
    (d / "empty.tsv").write_text("\n# nothing\n")
    (d / "not-utf8.toml").write_bytes(b'family = "ngram\xff"\n')
    (d / "spec.json").write_text('{"family": "ngram", "n": 2')
    (d / "u.data").write_text("".join(f"{u}\t{i}\t{(u * i) % 5 + 1}\t0\n" for u in range(1, 21) for i in range(1, 16)))
    (d / "garbage.zip").write_bytes(b"not a model at all")
    assert main(["train", "--data", str(d / "train.tsv"), "--quiet", "-o", str(d / "model.zip")]) == 0
    return d


LONG_SPEC = json.dumps({"family": "sum", "kernels": [{"family": "ngram", "n": n} for n in (1, 2, 3) * 4]})

# (case id, argv with {d} for the fixture folder, what the error line must say)
CASES = [
    # gram
    ("gram-output-no-folder", ["gram", "--data", "{d}/train.tsv", "-o", "{d}/no/k.npy"], "folder .* does not exist"),
    # train
    ("train-kernel-not-json", ["train", "--data", "{d}/train.tsv", "--kernel", "{{bad"], "not valid JSON"),
    ("train-kernel-unknown-family", ["train", "--data", "{d}/train.tsv", "--kernel", '{{"family": "ngrm"}}'], "ngrm"),
    (
        "train-kernel-bad-param",
        ["train", "--data", "{d}/train.tsv", "--kernel", '{{"family": "ngram", "n": 0}}'],
        "'n'",
    ),
    (
        "train-kernel-nan-param",
        [
            "train",
            "--data",
            "{d}/train.tsv",
            "--kernel",
            '{{"family": "polynomial", "coef0": NaN, "kernel": {{"family": "ngram", "n": 2}}}}',
        ],
        "coef0.*finite",
    ),
    (
        "train-kernel-missing-file",
        ["train", "--data", "{d}/train.tsv", "--kernel", "{d}/nope.toml"],
        "neither an existing",
    ),
    ("train-kernel-folder", ["train", "--data", "{d}/train.tsv", "--kernel", "{d}"], "is a folder"),
    (
        "train-kernel-not-utf8-toml",
        ["train", "--data", "{d}/train.tsv", "--kernel", "{d}/not-utf8.toml"],
        "not a UTF-8",
    ),
    ("train-kernel-bad-json-file", ["train", "--data", "{d}/train.tsv", "--kernel", "{d}/spec.json"], "not valid JSON"),
    (
        "train-kernel-missing-transducer",
        ["train", "--data", "{d}/train.tsv", "--kernel", '{{"family": "transducer", "path": "{d}/missing.fst"}}'],
        "does not exist",
    ),
    (
        "train-kernel-not-pds",
        ["train", "--data", "{d}/train.tsv", "--kernel", '{{"family": "edit_distance"}}'],
        "positive definite",
    ),
    ("train-data-missing", ["train", "--data", "{d}/missing.tsv"], "not found"),
    ("train-data-folder", ["train", "--data", "{d}"], "folder"),
    ("train-data-no-tab", ["train", "--data", "{d}/no-tab.tsv"], "no TAB"),
    ("train-data-empty", ["train", "--data", "{d}/empty.tsv"], "no examples"),
    ("train-data-one-class", ["train", "--data", "{d}/one-class.tsv", "--test-size", "0"], "two classes"),
    ("train-format", ["train", "--data", "{d}/train.tsv", "--format", "csv"], "invalid choice"),
    ("train-target-absent", ["train", "--data", "{d}/train.tsv", "--target", "zzz"], "no example has label 'zzz'"),
    ("train-test-data-missing", ["train", "--data", "{d}/train.tsv", "--test-data", "{d}/missing.tsv"], "not found"),
    ("train-test-size-2", ["train", "--data", "{d}/train.tsv", "--test-size", "2"], "fraction"),
    ("train-test-size-nan", ["train", "--data", "{d}/train.tsv", "--test-size", "nan"], "fraction"),
    ("train-output-folder", ["train", "--data", "{d}/train.tsv", "-o", "."], "is a folder"),
    ("train-output-no-folder", ["train", "--data", "{d}/train.tsv", "-o", "{d}/missing/dir/m.zip"], "does not exist"),
    ("train-C-zero", ["train", "--data", "{d}/train.tsv", "-C", "0"], "> 0"),
    ("train-C-nan", ["train", "--data", "{d}/train.tsv", "-C", "nan"], "> 0"),
    ("train-C-inf", ["train", "--data", "{d}/train.tsv", "-C", "inf"], "> 0"),
    (
        "train-representation",
        ["train", "--data", "{d}/train.tsv", "--representation", "tree"],
        "--representation .tree.: expected a registered W′ representation, one of .trie.",
    ),
    ("train-tol", ["train", "--data", "{d}/train.tsv", "--tol", "-1"], "> 0"),
    ("train-max-iter", ["train", "--data", "{d}/train.tsv", "--max-iter", "1.5"], "an int > 0"),
    ("train-seed", ["train", "--data", "{d}/train.tsv", "--seed", "-1"], "an int ≥ 0"),
    ("train-n-jobs", ["train", "--data", "{d}/train.tsv", "--n-jobs", "0"], "number of processes"),
    ("train-unknown-flag", ["train", "--data", "{d}/train.tsv", "--bogus"], "unrecognized arguments"),
    (
        "train-learner-unknown",
        ["train", "--data", "{d}/train.tsv", "--learner", "nope"],
        "No learner plugin named 'nope'",
    ),
    (
        "train-learner-without-kernel",
        ["train", "--data", "{d}/train.tsv", "--learner", "linear-dcd"],
        "learner 'linear-dcd' \\(LinearDCDSVC\\) takes no 'kernel' parameter",
    ),
    (
        "train-learner-not-predicting",
        ["train", "--data", "{d}/train.tsv", "--learner", "kernel-learner"],
        "learner 'kernel-learner' \\(KernelLearner\\) does not predict labels",
    ),
    (
        "train-param-unknown",
        ["train", "--data", "{d}/train.tsv", "--param", "bogus=1"],
        "RationalSVC has no parameter 'bogus'",
    ),
    ("train-param-format", ["train", "--data", "{d}/train.tsv", "--param", "C"], "KEY=VALUE"),
    ("train-param-kernel", ["train", "--data", "{d}/train.tsv", "--param", "kernel=x"], "with --kernel SPEC"),
    ("train-param-twice", ["train", "--data", "{d}/train.tsv", "-C", "2", "--param", "C=3"], "both set 'C'"),
    # predict
    ("predict-model-missing", ["predict", "--model", "{d}/missing.zip", "--data", "{d}/train.tsv"], "not found"),
    (
        "predict-model-garbage",
        ["predict", "--model", "{d}/garbage.zip", "--data", "{d}/train.tsv"],
        "not a ratkit model",
    ),
    ("predict-data-missing", ["predict", "--model", "{d}/model.zip", "--data", "{d}/missing.tsv"], "not found"),
    ("predict-output-folder", ["predict", "--model", "{d}/model.zip", "--data", "{d}/train.tsv", "-o", "."], "folder"),
    (
        "predict-target-absent",
        ["predict", "--model", "{d}/model.zip", "--data", "{d}/train.tsv", "--target", "q"],
        "no example has label 'q'",
    ),
    ("predict-format", ["predict", "--model", "{d}/model.zip", "--data", "{d}/train.tsv", "--format", "x"], "choice"),
    # recsys
    ("recsys-info-missing", ["recsys", "info", "--data", "{d}/missing"], "not found"),
    ("recsys-info-format", ["recsys", "info", "--data", "{d}/u.data", "--format", "parquet"], "invalid choice"),
    ("recsys-evaluate-k-zero", ["recsys", "evaluate", "--data", "{d}/u.data", "-k", "0"], "an int > 0"),
    (
        "recsys-evaluate-param-bogus",
        ["recsys", "evaluate", "--data", "{d}/u.data", "--param", "bogus=1"],
        "has no parameter 'bogus'",
    ),
    (
        "recsys-evaluate-param-format",
        ["recsys", "evaluate", "--data", "{d}/u.data", "--param", "badformat"],
        "KEY=VALUE",
    ),
    ("recsys-evaluate-param-value", ["recsys", "evaluate", "--data", "{d}/u.data", "--param", "loss=nope"], "loss"),
    ("recsys-evaluate-param-nan", ["recsys", "evaluate", "--data", "{d}/u.data", "--param", "lam=NaN"], "NaN"),
    (
        "recsys-evaluate-threshold-nan",
        ["recsys", "evaluate", "--data", "{d}/u.data", "--threshold", "nan"],
        "finite number",
    ),
    (
        "recsys-evaluate-model",
        ["recsys", "evaluate", "--data", "{d}/u.data", "--model", "nope"],
        "No recommender plugin",
    ),
    ("recsys-evaluate-min-positives", ["recsys", "evaluate", "--data", "{d}/u.data", "--min-positives", "-3"], "≥ 0"),
    ("recsys-evaluate-n-test", ["recsys", "evaluate", "--data", "{d}/u.data", "--n-test", "0"], "> 0"),
    ("recsys-evaluate-seed", ["recsys", "evaluate", "--data", "{d}/u.data", "--seed", "x"], "≥ 0"),
    ("recsys-evaluate-data-missing", ["recsys", "evaluate", "--data", "{d}/nothing"], "not found"),
    ("recsys-recommend-n-zero", ["recsys", "recommend", "--model", "{d}/model.zip", "--users", "1", "-N", "0"], "> 0"),
    ("recsys-recommend-missing", ["recsys", "recommend", "--model", "{d}/none.zip", "--users", "1"], "does not exist"),
    ("recsys-recommend-garbage", ["recsys", "recommend", "--model", "{d}/garbage.zip", "--users", "1"], "not a"),
    (
        "recsys-recommend-not-a-recommender",
        ["recsys", "recommend", "--model", "{d}/model.zip", "--users", "1"],
        "holds a 'rational-svc' model, not a recommender",
    ),
    ("recsys-recommend-no-users", ["recsys", "recommend", "--model", "{d}/model.zip"], "--users"),
    (
        "recsys-recommend-users-file-missing",
        ["recsys", "recommend", "--model", "{d}/model.zip", "--users-file", "{d}/nobody.txt"],
        "--users-file .*nobody.txt.* does not exist",
    ),
    # kernel-learner (and its former name)
    ("kernel-learner-out-folder", ["kernel-learner", "--data", "{d}/signs.tsv", "--out", "."], "is a folder"),
    (
        "kernel-learner-out-no-folder",
        ["kernel-learner", "--data", "{d}/signs.tsv", "--out", "{d}/no/k.json"],
        "not exist",
    ),
    ("kernel-learner-ngram", ["kernel-learner", "--data", "{d}/signs.tsv", "--ngram", "0"], "> 0"),
    ("kernel-learner-top", ["kernel-learner", "--data", "{d}/signs.tsv", "--top", "-5"], "> 0"),
    ("kernel-learner-C", ["kernel-learner", "--data", "{d}/signs.tsv", "--C", "nan"], "> 0"),
    ("kernel-learner-trace", ["kernel-learner", "--data", "{d}/signs.tsv", "--trace", "0"], "> 0"),
    ("kernel-learner-solver", ["kernel-learner", "--data", "{d}/signs.tsv", "--solver", "gurobi"], "invalid choice"),
    (
        "kernel-learner-spec",
        ["kernel-learner", "--data", "{d}/signs.tsv", "--spec", '{{"family": "ngram", "n": 2}}'],
        "count-based",
    ),
    ("kernel-learner-labels", ["kernel-learner", "--data", "{d}/train.tsv"], "not \\+1/1/-1"),
    ("kernel-learner-data-missing", ["kernel-learner", "--data", "{d}/missing.tsv"], "not found"),
    ("learn-kernel-data-missing", ["learn-kernel", "--data", "{d}/missing.tsv"], "not found"),
    # demo, plugins
    ("demo-test-size-2", ["demo", "--test-size", "2"], "fraction in \\(0, 1\\)"),
    ("demo-test-size-0", ["demo", "--test-size", "0"], "fraction in \\(0, 1\\)"),
    ("demo-seed", ["demo", "--seed", "-2"], "≥ 0"),
    ("plugins-list-kind", ["plugins", "list", "--kind", "model"], "invalid choice"),
    # kernels
    ("kernels-list-extra", ["kernels", "list", "--bogus"], "unrecognized arguments: --bogus"),
    ("kernels-show-unknown", ["kernels", "show", "nope"], "Unknown kernel family 'nope'.*accepted families: .*ngram"),
    ("kernels-eval-bad-spec", ["kernels", "eval", "--kernel", "{{oops", "a", "b"], "not valid JSON"),
    ("kernels-eval-missing-y", ["kernels", "eval", "--kernel", '{{"family": "ngram"}}', "a"], "required: Y"),
    (
        "kernels-check-pds-max-len",
        ["kernels", "check-pds", "--kernel", '{{"family": "ngram"}}', "--max-len", "0"],
        "> 0",
    ),
    (
        "kernels-check-pds-plot-suffix",
        ["kernels", "check-pds", "--kernel", '{{"family": "ngram"}}', "--plot", "{d}/curve.pdf"],
        "ending in .png",
    ),
    # --plot everywhere: a bad file name fails while parsing, before any work
    ("train-plot-suffix", ["train", "--data", "{d}/train.tsv", "--plot", "{d}/c.jpg"], "ending in .png"),
    ("train-plot-no-folder", ["train", "--data", "{d}/train.tsv", "--plot", "{d}/no/c.png"], "not exist"),
    (
        "gram-plot-suffix",
        ["gram", "--data", "{d}/train.tsv", "-o", "{d}/k.npy", "--plot", "{d}/k.npy"],
        "ending in .png",
    ),
    ("kernel-learner-plot-suffix", ["kernel-learner", "--data", "{d}/signs.tsv", "--plot", "{d}/w"], "ending in .png"),
    (
        "recsys-evaluate-plot-suffix",
        ["recsys", "evaluate", "--data", "{d}/u.data", "--plot", "{d}/m.svg"],
        "ending in .png",
    ),
    (
        "recsys-evaluate-output-two-models",
        ["recsys", "evaluate", "--data", "{d}/u.data", "--model", "popularity", "puresvd", "-o", "{d}/m.zip"],
        "-o/--output writes one model",
    ),
    (
        "recsys-evaluate-model-twice",
        ["recsys", "evaluate", "--data", "{d}/u.data", "--model", "popularity", "--model", "popularity"],
        "given twice",
    ),
    (  # json.loads would keep the second value silently
        "recsys-evaluate-param-duplicate-key",
        ["recsys", "evaluate", "--data", "{d}/u.data", "--param", 'x={{"a": 1, "a": 2}}'],
        "the key 'a' appears twice",
    ),
    ("kernel-learner-new-C", ["kernel-learner", "--data", "{d}/signs.tsv", "-C", "0"], "> 0"),
    ("kernel-learner-new-output", ["kernel-learner", "--data", "{d}/signs.tsv", "-o", "."], "is a folder"),
]


#: Commands with subcommands.
GROUPS = ("recsys", "plugins", "kernels")

#: Former command names: their errors carry the current name.
ALIASES = {"learn-kernel": "kernel-learner"}


def _run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("argv, message", [(c[1], c[2]) for c in CASES], ids=[c[0] for c in CASES])
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_bad_flag_is_one_error_line_with_exit_2(files, capsys, argv, message):
    import re

    argv = [a.format(d=files) for a in argv]
    code, out, err = _run(argv, capsys)
    command = " ".join(argv[:2]) if argv[0] in GROUPS else ALIASES.get(argv[0], argv[0])
    assert code == 2, (code, err)
    assert "Traceback" not in err and "Traceback" not in out
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"ratkit {command}: error: "), err
    assert re.search(message, last), last
    assert "trained RationalSVC" not in out  # output paths and flags fail before any training


def test_every_command_has_bad_flag_cases():
    from ratkit.cli._main import build_parser
    from tests.cli.test_main import _commands

    leaves = {" ".join(c) for c in _commands(build_parser()) if c not in {(g,) for g in GROUPS}}
    covered = {" ".join(c[1][:2]) if c[1][0] in GROUPS else c[1][0] for c in CASES}
    assert leaves <= covered, f"no bad-flag case for {sorted(leaves - covered)}"


def test_a_long_json_kernel_spec_is_read_as_json(files, capsys):
    """A valid spec longer than a file name may be (255 bytes) trains; before it ended in
    'OSError: File name too long', so learn-kernel's output could not be pasted back."""
    assert len(LONG_SPEC) > 255
    code, out, err = _run(["train", "--data", str(files / "train.tsv"), "--kernel", LONG_SPEC, "--quiet"], capsys)
    assert code == 0, err
    assert "held-out accuracy" in out


def test_the_model_is_not_written_when_the_output_path_is_bad(files, capsys):
    code, out, err = _run(["train", "--data", str(files / "train.tsv"), "-o", str(files / "nope" / "m.zip")], capsys)
    assert code == 2 and not (files / "nope").exists()
    assert out == ""  # not even the data summary: the path is refused while the flags are parsed


def test_a_defect_of_ratkit_is_one_line_with_exit_1(monkeypatch, capsys):
    """Not the user's input: said to be a bug, still without a traceback, and named once."""
    import ratkit.cli._demo as demo_command

    def broken(args):
        raise RuntimeError("kaput")

    monkeypatch.setattr(demo_command, "_demo", broken)
    code, out, err = _run(["demo"], capsys)
    assert code == 1 and "Traceback" not in err
    assert err.strip() == (
        "ratkit demo: internal error: RuntimeError: kaput — this is a bug in ratkit; please report it with "
        "the command line (RATKIT_TRACEBACK=1 shows the traceback)."
    )


def test_a_defect_of_a_third_party_plugin_names_the_plugin_not_ratkit(files, tmp_path, monkeypatch, capsys):
    """Reported by an audit: a plugin's own exception was called "a bug in ratkit", without
    naming the plugin. The innermost frame of ratkit or of a plugin's package decides."""
    import importlib
    import textwrap

    from ratkit.plugins import registry

    (tmp_path / "ratkit_boom_plugin.py").write_text(
        textwrap.dedent(
            """\
            import numpy as np
            from ratkit.plugins import register
            from ratkit.recsys import Popularity

            @register("recommender", "test-boom")
            class Boom(Popularity):
                def fit(self, user_items, **kwargs):
                    np.asarray(user_items.shape)  # a library frame between the plugin and the raise
                    raise RuntimeError("plugin fit failed")
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    saved = {k: dict(v) for k, v in registry._registry.items()}
    try:
        importlib.import_module("ratkit_boom_plugin")
        argv = ["recsys", "evaluate", "--data", f"{files}/u.data", "--min-positives", "3", "--n-test", "1"]
        code, out, err = _run([*argv, "--model", "test-boom"], capsys)
    finally:
        registry._registry.clear()
        registry._registry.update(saved)
        sys.modules.pop("ratkit_boom_plugin", None)
    assert code == 1 and "Traceback" not in err, err
    last = err.strip().splitlines()[-1]
    assert last.startswith(
        "ratkit recsys evaluate: error in the third-party recommender plugin 'test-boom' (ratkit_boom_plugin.Boom"
    ), last
    assert "RuntimeError: plugin fit failed" in last and "not of ratkit" in last and "bug in ratkit" not in last


@pytest.mark.parametrize(
    ("make", "argv", "victim"),
    [
        ("train.tsv", ["train", "--data", "{v}", "--quiet", "-o", "{v}"], "--data"),
        ("model.zip", ["predict", "--model", "{v}", "--data", "{d}/train.tsv", "-o", "{v}"], "--model"),
        ("train.tsv", ["predict", "--model", "{d}/model.zip", "--data", "{v}", "-o", "{v}"], "--data"),
        ("train.tsv", ["train", "--data", "{d}/train.tsv", "--test-data", "{v}", "-o", "{v}"], "--test-data"),
        ("u.data", ["recsys", "evaluate", "--model", "popularity", "--data", "{v}", "--quiet", "-o", "{v}"], "--data"),
        ("signs.tsv", ["kernel-learner", "--data", "{v}", "-o", "{v}"], "--data"),
        ("train.tsv", ["gram", "--data", "{v}", "-o", "{v}", "--overwrite"], "--data"),
    ],
)
def test_an_output_that_is_an_input_is_refused_and_the_input_kept(files, tmp_path, capsys, make, argv, victim):
    """Regression (audit): every command wrote its output over its input when given the same
    path (the training data became a zip, the model a TSV), and said it was written."""
    path = tmp_path / ("victim" + (".npy" if argv[0] == "gram" else "." + make.rsplit(".", 1)[1]))
    path.write_bytes((files / make).read_bytes())
    before = path.read_bytes()
    args = [a.format(d=files, v=path) for a in argv]
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert f"is the file given as {victim}" in err and "would destroy that input" in err
    assert path.read_bytes() == before


def test_the_plot_and_the_model_may_not_share_a_path(files, tmp_path, capsys):
    out = str(tmp_path / "same.png")
    with pytest.raises(SystemExit) as stop:
        main(["train", "--data", str(files / "train.tsv"), "--quiet", "-o", out, "--plot", out])
    assert stop.value.code == 2
    assert "-o/--output and --plot name the same file" in capsys.readouterr().err
    assert not (tmp_path / "same.png").exists()


def test_predict_checks_the_labels_before_writing_its_output(files, tmp_path, capsys):
    """Regression (audit): with labels the model never saw, predict -o wrote (or replaced) its
    output and only then failed with exit 2."""
    write_tsv(tmp_path / "foreign.tsv", ["acgtacgt", "ttgacaga"], ["A", "B"])
    out = tmp_path / "pred.tsv"
    code = main(
        ["predict", "--model", str(files / "model.zip"), "--data", str(tmp_path / "foreign.tsv"), "-o", str(out)]
    )
    assert code == 2 and "never saw" in capsys.readouterr().err
    assert not out.exists()


def test_predict_says_a_recommender_does_not_predict_labels(files, tmp_path, capsys):
    """Regression (audit): a recommender's file was described as a model 'on numeric feature vectors'."""
    model = tmp_path / "popularity.zip"
    evaluate = ["recsys", "evaluate", "--model", "popularity", "--data", str(files / "u.data"), "--quiet"]
    assert main([*evaluate, "--min-positives", "3", "--n-test", "1", "--threshold", "1", "-o", str(model)]) == 0
    capsys.readouterr()
    assert main(["predict", "--model", str(model), "--data", str(files / "train.tsv")]) == 2
    err = capsys.readouterr().err
    assert "holds a Popularity that does not predict labels" in err and "numeric" not in err


@pytest.mark.parametrize("to_file", [True, False])
def test_predict_on_texts_of_several_lines_writes_their_ids(files, tmp_path, capsys, monkeypatch, to_file):
    """Regression (audit): on Reuters-21578, whose stories span lines, predict -o refused its
    output after all the work, and without -o printed 48 377 lines for 2 742 predictions."""
    import ratkit.datasets
    from ratkit.datasets import SequenceDataset, load_tsv

    stories = ["acgt\nacga", "tgca\ttgct", "acgtac"]
    monkeypatch.setattr(
        ratkit.datasets, "load_sequences", lambda *a, **k: SequenceDataset(stories, [], ["101", "102", "103"], "x")
    )
    out = tmp_path / "pred.tsv"
    argv = ["predict", "--model", str(files / "model.zip"), "--data", str(files / "train.tsv")]
    assert main(argv + (["-o", str(out)] if to_file else [])) == 0
    captured = capsys.readouterr()
    assert "label<TAB>document id (3 documents)" in captured.err
    if to_file:
        back = load_tsv(out)
        assert back.sequences == ["101", "102", "103"] and len(back.labels) == 3
    else:
        lines = captured.out.splitlines()
        assert [line.split("\t")[1] for line in lines] == ["101", "102", "103"]


def test_predict_refuses_texts_of_several_lines_without_names(files, capsys, monkeypatch):
    import ratkit.datasets
    from ratkit.datasets import SequenceDataset

    monkeypatch.setattr(ratkit.datasets, "load_sequences", lambda *a, **k: SequenceDataset(["ac\ngt"], [], [], "x"))
    assert main(["predict", "--model", str(files / "model.zip"), "--data", str(files / "train.tsv")]) == 2
    assert "hold line breaks or TABs and have no names" in capsys.readouterr().err
