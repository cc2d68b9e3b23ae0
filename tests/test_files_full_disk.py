"""A full disk under every writer (issue 35, class 4): one message, naming the file, and the
file that was there unchanged, with nothing left beside it.

Two ways to fill a disk without root: a file-size limit in a child process (RLIMIT_FSIZE,
SIGXFSZ ignored, so a write past it fails with EFBIG "File too large"), and, in this
process, ``os.fsync``/``os.fdatasync`` failing with ENOSPC "No space left on device" (as a
file system that allocates blocks when it flushes them reports a full disk). Each writer is
one snippet run both ways.
"""

from __future__ import annotations

import errno
import json
import os
import random
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import ratkit
from ratkit.automata.kernels import blocked as _blocked
from ratkit.automata.kernels import ngram
from ratkit.cli._main import main
from ratkit.datasets import write_tsv
from ratkit.exceptions import OutputPathError

NG1 = '{"family": "ngram", "n": 1}'
OLD = b"the file that was there\n"

#: name: (target file name, "api" code that writes ``target`` or "cli" arguments; {inputs},
#: {target} are filled in)
WRITERS = {
    "gram(out=)": (
        "g.npy",
        "api",
        "from ratkit.automata.kernels import ngram\n"
        "ngram(1).gram(['ab', 'ba', 'abc'] * 20, out=target, overwrite=True)",
    ),
    "write_att": (
        "t.att",
        "api",
        "from ratkit.automata import from_arcs\nfrom ratkit.automata.io import write_att\n"
        "write_att(from_arcs([(q, 'a', 'b', 0.5, q + 1) for q in range(40)], start=0, finals={40: 1.0}), target)",
    ),
    "write_fst": (
        "t.fst",
        "api",
        "from ratkit.automata import from_arcs\nfrom ratkit.automata.io import write_fst\n"
        "write_fst(from_arcs([(q, 'a', 'b', 0.5, q + 1) for q in range(40)], start=0, finals={40: 1.0}), target)",
    ),
    "model save": ("m.zip", "api", "from ratkit import load_model\nload_model(inputs + '/model.zip').save(target)"),
    "ratkit gram -o": (
        "g.npy",
        "cli",
        ["gram", "--data", "{inputs}/x.txt", "--kernel", NG1, "-o", "{target}", "--overwrite", "--quiet"],
    ),
    "ratkit predict -o": (
        "p.tsv",
        "cli",
        ["predict", "--model", "{inputs}/model.zip", "--data", "{inputs}/train.tsv", "-o", "{target}"],
    ),
    "ratkit predict --scores -o": (
        "p.tsv",
        "cli",
        ["predict", "--model", "{inputs}/model.zip", "--data", "{inputs}/train.tsv", "--scores", "-o", "{target}"],
    ),
    "ratkit train -o": ("m.zip", "cli", ["train", "--data", "{inputs}/train.tsv", "--quiet", "-o", "{target}"]),
    "ratkit recsys evaluate -o": (
        "r.zip",
        "cli",
        ["recsys", "evaluate", "--data", "{inputs}/u.data", "--model", "popularity"]
        + ["--min-positives", "3", "--n-test", "1", "-k", "2", "-o", "{target}"],
    ),
}

_CHILD = textwrap.dedent(
    """
    import json, resource, signal, sys
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    inputs, target, kind, code = sys.argv[1:5]
    import ratkit.cli._main  # imported (and any cache written) before the limit
    resource.setrlimit(resource.RLIMIT_FSIZE, (200, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
    if kind == "cli":
        sys.exit(ratkit.cli._main.main(json.loads(code)))
    try:
        exec(code, {"inputs": inputs, "target": target})
    except Exception as exc:
        print(json.dumps({"types": [c.__name__ for c in type(exc).__mro__], "message": str(exc)}))
    else:
        print(json.dumps({"types": [], "message": "written"}))
    """
)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("inputs")
    rng = random.Random(0)
    X = ["".join(rng.choice("ab") for _ in range(rng.randint(4, 9))) for _ in range(30)]
    write_tsv(d / "train.tsv", X, ["pos" if x.count("ab") > x.count("ba") else "neg" for x in X])
    (d / "x.txt").write_text("".join(x + "\n" for x in X))
    lines = [f"{u}\t{i}\t{rng.randint(1, 5)}\t0" for u in range(1, 31) for i in range(1, 21) if rng.random() < 0.7]
    (d / "u.data").write_text("\n".join(lines) + "\n")
    assert main(["train", "--data", str(d / "train.tsv"), "--quiet", "-o", str(d / "model.zip")]) == 0
    return d


def _filled(spec: object, inputs: Path, target: Path) -> object:
    if isinstance(spec, str):
        return spec
    return [a.replace("{inputs}", str(inputs)).replace("{target}", str(target)) for a in spec]


def _expect_the_one_message(message: str, target: Path, reason: str) -> None:
    pattern = (
        rf"Cannot write the [^']+ {re.escape(repr(str(target)))}: {reason}\. Any file that was there is unchanged\."
    )
    assert re.fullmatch(pattern, message), message


@pytest.mark.slow
@pytest.mark.parametrize("name", list(WRITERS))
def test_a_file_size_limit_gives_the_one_message_and_keeps_the_file(tmp_path, inputs, name):
    filename, kind, spec = WRITERS[name]
    target = tmp_path / filename
    target.write_bytes(OLD)
    here = str(Path(ratkit.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")]))}
    code = json.dumps(_filled(spec, inputs, target)) if kind == "cli" else spec
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(inputs), str(target), kind, code],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    if kind == "cli":
        assert done.returncode == 2, done.stderr
        last = done.stderr.strip().splitlines()[-1]
        prefix = f"ratkit {spec[0] if spec[0] != 'recsys' else 'recsys evaluate'}: error: "
        assert last.startswith(prefix), done.stderr
        _expect_the_one_message(last[len(prefix) :], target, "File too large")
        assert "Traceback" not in done.stderr
    else:
        assert done.returncode == 0, done.stderr
        outcome = json.loads(done.stdout.strip().splitlines()[-1])
        assert outcome["types"][:2] == ["OutputPathError", "RatkitError"], outcome
        _expect_the_one_message(outcome["message"], target, "File too large")
    assert target.read_bytes() == OLD
    assert os.listdir(tmp_path) == [filename]  # no temporary, partial, manifest or lock file


def _no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("name", list(WRITERS))
def test_a_full_disk_gives_the_one_message_and_keeps_the_file(tmp_path, inputs, name, monkeypatch, capsys):
    filename, kind, spec = WRITERS[name]
    target = tmp_path / filename
    target.write_bytes(OLD)
    monkeypatch.setattr(os, "fsync", _no_space)
    monkeypatch.setattr(os, "fdatasync", _no_space)
    if kind == "cli":
        capsys.readouterr()
        assert main(_filled(spec, inputs, target)) == 2
        err = capsys.readouterr().err.strip().splitlines()
        line = [e for e in err if ": error: " in e]
        assert len(line) == 1 and err[-1] == line[0], err
        _expect_the_one_message(line[0].split(": error: ", 1)[1], target, "No space left on device")
    else:
        with pytest.raises(OutputPathError) as info:
            exec(spec, {"inputs": str(inputs), "target": str(target)})
        _expect_the_one_message(str(info.value), target, "No space left on device")
        assert info.value.errno == errno.ENOSPC
    assert target.read_bytes() == OLD
    assert os.listdir(tmp_path) == [filename]


def test_a_full_disk_after_some_gram_blocks_keeps_them_for_resume(tmp_path, monkeypatch):
    """The blocks in are kept, and the message says so; resume=True then finishes the matrix."""
    target = tmp_path / "g.npy"
    target.write_bytes(OLD)
    X = ["".join(random.Random(i).choice("abc") for _ in range(i % 7 + 1)) for i in range(40)]
    calls = {"n": 0}
    real = os.fdatasync

    def full_after_two_blocks(fd):
        calls["n"] += 1
        if calls["n"] > 2:
            _no_space()
        real(fd)

    monkeypatch.setattr(os, "fdatasync", full_after_two_blocks)
    with pytest.raises(OutputPathError) as info:
        ngram(1).gram(X, out=target, overwrite=True, block_bytes=8 * 40 * 10, show_progress=False)
    assert str(info.value) == (
        f"Cannot write the Gram matrix file {str(target)!r}: No space left on device. The 2 of 4 blocks written so "
        "far are kept in 'g.npy.partial' with its manifest 'g.npy.manifest.json': make room, then run again with "
        "resume=True (ratkit gram --resume) to continue. Any file that was there is unchanged."
    )
    assert target.read_bytes() == OLD
    assert sorted(os.listdir(tmp_path)) == ["g.npy", "g.npy.manifest.json", "g.npy.partial"]
    monkeypatch.setattr(os, "fdatasync", real)
    computed = []
    monkeypatch.setattr(_blocked, "_feature_block", _counting(_blocked._feature_block, computed))
    K = ngram(1).gram(X, out=target, resume=True, show_progress=False)
    counts = np.array([[x.count(a) for a in "abc"] for x in X], dtype=np.float64)
    np.testing.assert_array_equal(K, counts @ counts.T)
    assert len(computed) == 2  # only the blocks the full disk stopped


def _counting(func, calls):
    def counted(*args, **kwargs):
        calls.append(args[-3:])
        return func(*args, **kwargs)

    return counted
