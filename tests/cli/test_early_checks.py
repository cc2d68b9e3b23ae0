"""Issue 34: every flag is checked before any work — ``--plot`` without matplotlib included.

``ratkit train … --plot x.png -o m.zip`` without matplotlib trained, wrote the model, and
only then exited 2; the same in ``recsys evaluate`` and ``kernels check-pds``.
"""

from __future__ import annotations

import random
import sys

import numpy as np
import pytest

from ratkit.datasets import write_tsv
from tests.cli._helpers import run


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("early")
    rng = random.Random(3)
    X = ["".join(rng.choice("acgt") for _ in range(rng.randint(8, 14))) for _ in range(40)]
    write_tsv(d / "labelled.tsv", X, ["pos" if x.count("ga") > x.count("tc") else "neg" for x in X])
    r = np.random.default_rng(0)
    lines = [f"{u}\t{i}\t{r.integers(1, 6)}\t0" for u in range(1, 41) for i in range(1, 31) if r.random() < 0.6]
    (d / "u.data").write_text("\n".join(lines) + "\n")
    return d


COMMANDS = {
    "train": ["train", "--data", "{d}/labelled.tsv", "-o", "{out}/m.zip"],
    "gram": ["gram", "--data", "{d}/labelled.tsv", "-o", "{out}/k.npy"],
    "recsys evaluate": ["recsys", "evaluate", "--data", "{d}/u.data", "--model", "popularity", "-o", "{out}/r.zip"],
    "kernels check-pds": ["kernels", "check-pds", "--kernel", '{{"family": "ngram", "n": 2}}', "--max-len", "3"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_plot_without_matplotlib_fails_before_any_work(command, files, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    argv = [a.format(d=files, out=tmp_path) for a in COMMANDS[command]]
    code, out, err = run([*argv, "--plot", tmp_path / "p.png"], capsys)
    assert code == 2
    assert err == (
        f"ratkit {command}: error: --plot needs matplotlib, which is not installed: pip install 'ratkit[plot]', "
        "or leave out --plot.\n"
    )
    assert out == ""  # nothing trained, computed or printed
    assert list(tmp_path.iterdir()) == []  # no model, matrix or plot written


def test_a_matplotlib_that_fails_to_import_is_named_so(files, tmp_path, monkeypatch, capsys):
    import builtins

    real_import = builtins.__import__

    def broken(name, *args, **kwargs):
        if name == "matplotlib":
            raise ImportError("libfreetype.so.6: cannot open shared object file")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "matplotlib", raising=False)
    monkeypatch.setattr(builtins, "__import__", broken)
    argv = [a.format(d=files, out=tmp_path) for a in COMMANDS["train"]]
    code, out, err = run([*argv, "--plot", tmp_path / "p.png"], capsys)
    assert code == 2 and out == "" and list(tmp_path.iterdir()) == []
    assert err.startswith(
        "ratkit train: error: --plot needs matplotlib, which fails to import (ImportError: libfreetype.so.6"
    )
