"""Bad inputs of the command line (issue 21): every case ends in one ``ratkit <command>: error:``
line naming the bad thing, with exit status 2, and writes nothing.

The matrix of the ordinary cases is tests/cli/test_errors.py; these are the cases of issue 21:
an option before the command, a check-pds run too large to build (refused at once, saying which
flags lower it), bad model files (a folder, a missing file, a zip bomb), an output path checked
before training, and a plugin that calls ``sys.exit()`` when ``plugins list`` loads it.
"""

from __future__ import annotations

import random
import re
import sys
import time
import zipfile

import pytest

from ratkit import plugins
from ratkit.datasets import write_tsv
from tests.cli._helpers import run

NG = '{"family": "ngram", "n": 2}'


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli21")
    rng = random.Random(0)
    X = ["".join(rng.choice("ab") for _ in range(rng.randint(4, 9))) for _ in range(30)]
    y = ["pos" if x.count("ab") > x.count("ba") else "neg" for x in X]
    write_tsv(d / "train.tsv", X, y)
    write_tsv(d / "nan.tsv", X[:4], ["nan", "pos", "neg", "pos"])
    (d / "folder").mkdir()
    (d / "nonutf8.tsv").write_bytes(b"pos\tab\xff\n")
    assert run(["train", "--data", d / "train.tsv", "--quiet", "-o", d / "model.zip"], _Capsys())[0] == 0
    with zipfile.ZipFile(d / "model.zip") as zin, zipfile.ZipFile(d / "traversal.zip", "w") as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, zin.read(info))
        zout.writestr("../evil.txt", "x")
    return d


class _Capsys:
    """capsys for the module fixture (pytest's is function-scoped): output is discarded."""

    def readouterr(self):
        class _Out:
            out = err = ""

        return _Out()


CASES = [
    ("option-before-command", ["--nope"], r"^ratkit: error: unrecognized arguments: --nope \(options come after"),
    ("option-before-command-2", ["-x", "train"], r"unrecognized arguments: -x"),
    (
        "check-pds-too-large",
        ["kernels", "check-pds", "--kernel", NG, "--alphabet", "abcdefghij", "--max-len", "12"],
        r"check-pds: error: .*1e\+12 .*strings of length 12.*limit.*lower --max-len .* 10 symbols of --alphabet",
    ),
    (
        "check-pds-up-to-too-large",
        ["kernels", "check-pds", "--kernel", NG, "--alphabet", "abcd", "--max-len", "14", "--up-to"],
        r"kernels check-pds: error: .*length ≤ 14.*ratkit\.limits\.max_bytes.*lower --max-len",
    ),
    (
        "check-pds-max-len-0",
        ["kernels", "check-pds", "--kernel", NG, "--max-len", "0"],
        r"--max-len: expected an int > 0",
    ),
    (
        "predict-model-folder",
        ["predict", "--model", "{d}/folder", "--data", "{d}/train.tsv"],
        r"is a folder, not a file",
    ),
    (
        "predict-model-missing",
        ["predict", "--model", "{d}/none.zip", "--data", "{d}/train.tsv"],
        r"none\.zip' not found",
    ),
    (
        "predict-model-traversal",
        ["predict", "--model", "{d}/traversal.zip", "--data", "{d}/train.tsv"],
        r"traversal\.zip: the archive holds a member named '\.\./evil\.txt'",
    ),
    ("predict-data-nonutf8", ["predict", "--model", "{d}/model.zip", "--data", "{d}/nonutf8.tsv"], r"nonutf8\.tsv"),
    (
        "train-output-no-folder",
        ["train", "--data", "{d}/train.tsv", "-o", "{d}/no/m.zip"],
        r"folder .*no' does not exist",
    ),
    ("train-output-folder", ["train", "--data", "{d}/train.tsv", "-o", "{d}/folder"], r"'.*folder' is a folder"),
    (
        "kernel-learner-ngram-0",
        ["kernel-learner", "--data", "{d}/train.tsv", "--ngram", "0"],
        r"--ngram: expected an int",
    ),
]


@pytest.mark.parametrize(("argv", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_one_error_line_with_exit_2(argv, words, files, capsys):
    started = time.perf_counter()
    code, out, err = run([a.replace("{d}", str(files)) for a in argv], capsys)
    assert time.perf_counter() - started < 10  # refused before any work, never a hang
    assert code == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("usage:") and ln.startswith("ratkit")]
    assert len(lines) == 1, err
    assert re.search(words, lines[0]), lines[0]
    assert not (files / "no").exists()
    assert not (files.parent / "evil.txt").exists()


def test_the_output_path_is_checked_before_training(files, capsys, monkeypatch):
    """A bad -o ends the command before any model is fitted."""
    from ratkit.learners import RationalSVC

    def never(*args, **kwargs):  # pragma: no cover - must not run
        raise AssertionError("fit ran before the output path was checked")

    monkeypatch.setattr(RationalSVC, "fit", never)
    code, _, err = run(["train", "--data", files / "train.tsv", "-o", files / "no" / "m.zip"], capsys)
    assert code == 2 and "does not exist" in err


def test_plugins_list_survives_a_plugin_that_calls_sys_exit(tmp_path, monkeypatch, capsys):
    (tmp_path / "exit_plugin.py").write_text("import sys\nsys.exit(3)\nclass K:\n    pass\n")
    info = tmp_path / "exit_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: exit-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[ratkit.kernels]\nexit-k = exit_plugin:K\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    plugins.refresh()
    try:
        code, out, err = run(["plugins", "list"], capsys)
    finally:
        sys.modules.pop("exit_plugin", None)
        plugins.refresh()
    assert code == 0
    # the command line prints each warning as one line, its category last
    line = r"^ratkit plugins list: warning: .*'exit-k' -> 'exit_plugin:K'.*raised SystemExit: 3.*\(PluginLoadWarning\)$"
    assert re.search(line, err, re.M), err
    assert "ngram" in out and "rational-svc" in out  # the rest is listed
    assert "exit-k" not in out
