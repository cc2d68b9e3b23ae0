"""``ratkit predict … | head``: when the reader of standard output goes away, the command stops
quietly (exit 141, as a Unix tool killed by SIGPIPE), with nothing on standard error; before,
it ended with 'ratkit predict: error: [Errno 32] Broken pipe'."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import ratkit

ROOT = str(Path(ratkit.__file__).resolve().parent.parent)
_CLI = "import sys; from ratkit.cli import main; sys.exit(main(sys.argv[1:]))"


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")])}


def test_predict_into_a_pipe_whose_reader_left_stops_quietly(tmp_path):
    rng = random.Random(0)
    train = "".join(f"{c}\t{''.join(rng.choice(c) for _ in range(12))}\n" for c in ("ab", "cd") * 20)
    (tmp_path / "train.tsv").write_text(train)
    # far more output than a pipe holds (64 KiB): the writes meet the closed pipe
    (tmp_path / "many.tsv").write_text("".join(f"ab\t{'abcd' * 30}\n" for _ in range(6000)))
    done = subprocess.run(
        [sys.executable, "-c", _CLI, "train", "--data", "train.tsv", "-o", "m.zip", "--quiet"],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    reader = subprocess.Popen(
        [sys.executable, "-c", _CLI, "predict", "--model", "m.zip", "--data", "many.tsv"],
        cwd=tmp_path,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    first = reader.stdout.readline()
    reader.stdout.close()  # the reader goes away, as `head -1` does
    err = reader.stderr.read()
    assert reader.wait(timeout=600) == 141, err
    assert first.strip() and err == b"", err
