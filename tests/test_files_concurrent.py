"""Two processes writing one file at once (issue 35, class 4): exactly one writes it, whole;
the other gets an OutputPathError naming the file and the process holding it.

The races are real: two fresh interpreters import ratkit, wait for a start file, and then
write Gram matrices of different data to the same path in 150 blocks each (about 0.5 s of
block writes, so the runs overlap). The oracle of each Gram is an independent count:
ngram(1) is K(x, y) = Σ_a |x|_a |y|_a, the product of the symbol-count matrices.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import ratkit
from ratkit._files import atomic_write, lock_path, locked
from ratkit.automata.io import write_att
from ratkit.automata.kernels import ngram
from ratkit.exceptions import OutputPathError
from ratkit.learners import RationalSVC

ALPHABET = "abcd"
SIZES = (150, 170)  # different shapes too: the file says which run wrote it


def _data(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 8))) for _ in range(n)]


def _count_gram(X: list[str]) -> np.ndarray:
    counts = np.array([[x.count(a) for a in ALPHABET] for x in X], dtype=np.float64)
    return counts @ counts.T


_WRITER = textwrap.dedent(
    """
    import json, os, random, sys, time
    from ratkit.automata.kernels import ngram

    start, out, seed, n, overwrite = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
    rng = random.Random(seed)
    X = ["".join(rng.choice("abcd") for _ in range(rng.randint(1, 8))) for _ in range(n)]
    open(f"{start}.{os.getpid()}.ready", "w").close()
    while not os.path.exists(start):
        time.sleep(0.001)
    try:
        ngram(1).gram(X, out=out, overwrite=overwrite, block_bytes=8 * len(X), show_progress=False)
        print(json.dumps({"ok": True}))
    except Exception as exc:
        print(json.dumps({"ok": False, "types": [c.__name__ for c in type(exc).__mro__], "message": str(exc)}))
    """
)

_CLI = textwrap.dedent(
    """
    import os, sys, time
    from ratkit.cli._main import main

    start = sys.argv[1]
    open(f"{start}.{os.getpid()}.ready", "w").close()
    while not os.path.exists(start):
        time.sleep(0.001)
    sys.exit(main(sys.argv[2:]))
    """
)


def _race(tmp_path, scripts: list[list[str]]) -> list[subprocess.CompletedProcess]:
    """Start the scripts together (each waits for the start file) and wait for all of them."""
    start = tmp_path / "start"
    here = str(Path(ratkit.__file__).resolve().parents[1])  # this ratkit, in the children too
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")]))}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        for argv in scripts
    ]
    deadline = time.monotonic() + 60
    while len(list(tmp_path.glob("start.*.ready"))) < len(procs) and time.monotonic() < deadline:
        time.sleep(0.01)  # each has imported ratkit and polls the start file
    start.write_text("")
    try:
        outputs = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        start.unlink()
        for ready in tmp_path.glob("start.*.ready"):
            ready.unlink()
    return [subprocess.CompletedProcess(p.args, p.returncode, out, err) for p, (out, err) in zip(procs, outputs)]


@pytest.mark.slow
@pytest.mark.parametrize("overwrite", [True, False], ids=["overwrite", "new-file"])
def test_two_processes_writing_one_gram_file_one_wins_whole_the_other_is_refused(tmp_path, overwrite):
    out = tmp_path / "g.npy"
    expected = [_count_gram(_data(seed, n)) for seed, n in enumerate(SIZES)]
    for attempt in range(3):
        if overwrite:
            np.save(out, np.arange(3.0))  # an earlier file, which the winner replaces
        else:
            for name in os.listdir(tmp_path):
                os.unlink(tmp_path / name)
        done = _race(
            tmp_path,
            [
                [_WRITER, str(tmp_path / "start"), str(out), str(seed), str(n), str(int(overwrite))]
                for seed, n in enumerate(SIZES)
            ],
        )
        results = []
        for run in done:
            assert run.returncode == 0, run.stderr
            results.append(json.loads(run.stdout.strip().splitlines()[-1]))
        winners = [i for i, r in enumerate(results) if r["ok"]]
        assert len(winners) == 1, (attempt, results)
        loser = results[1 - winners[0]]
        # a ratkit error naming the file, never a raw FileExistsError or FileNotFoundError
        assert loser["types"][:2] == ["OutputPathError", "RatkitError"], loser
        assert repr(str(out)) in loser["message"], loser
        # (the pid is named when the winner has recorded it, which the loser waits 0.5 s for;
        # test_every_writer_refuses_a_file_another_writer_holds checks it where the timing is certain)
        assert "is being written by another process" in loser["message"] or (
            not overwrite and "already exists" in loser["message"]
        ), loser
        np.testing.assert_array_equal(np.load(out), expected[winners[0]])
        assert sorted(os.listdir(tmp_path)) == ["g.npy", "g.npy.manifest.json"], attempt


_HOLDING_CLI = textwrap.dedent(
    """
    import os, sys, time
    from contextlib import contextmanager
    import ratkit.automata.kernels.blocked as blocked
    from ratkit.cli._main import main

    held, release = sys.argv[1], sys.argv[2]
    take = blocked.locked

    @contextmanager
    def locked_until_released(path, what):
        # the real lock, held until the test says so: the other command then surely meets it
        with take(path, what):
            open(held, "w").close()
            while not os.path.exists(release):
                time.sleep(0.001)
            yield

    blocked.locked = locked_until_released
    sys.exit(main(sys.argv[3:]))
    """
)


@pytest.mark.slow
def test_a_ratkit_gram_command_on_an_output_another_is_writing_exits_2(tmp_path):
    """The first command holds the output's lock (paused inside it until the second has
    ended, so the meeting does not depend on two interpreters' start-up times, which a
    loaded CI machine made differ by more than the write); the second exits 2 with one
    error line naming the file, and the first then writes its whole matrix."""
    out = tmp_path / "g.npy"
    data = []
    for seed, n in enumerate(SIZES):
        path = tmp_path / f"x{seed}.txt"
        path.write_text("".join(x + "\n" for x in _data(seed, n)))
        data.append(path)
    np.save(out, np.arange(3.0))
    held, release = tmp_path / "held", tmp_path / "release"
    here = str(Path(ratkit.__file__).resolve().parents[1])  # this ratkit, in the children too
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")]))}
    spec = '{"family": "ngram", "n": 1}'

    def gram(path: Path) -> list[str]:
        return ["gram", "--data", str(path), "--kernel", spec, "-o", str(out), "--overwrite", "--quiet"]

    first = subprocess.Popen(
        [sys.executable, "-c", _HOLDING_CLI, str(held), str(release), *gram(data[0])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        deadline = time.monotonic() + 120
        while not held.exists():
            assert first.poll() is None and time.monotonic() < deadline, first.communicate()
            time.sleep(0.01)
        cli = "import sys; from ratkit.cli import main; sys.exit(main(sys.argv[1:]))"
        second = subprocess.run(
            [sys.executable, "-c", cli, *gram(data[1])], capture_output=True, text=True, env=env, timeout=120
        )
        release.write_text("")
        out_first, err_first = first.communicate(timeout=120)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 0, err_first
    assert second.returncode == 2, second.stderr
    error = [line for line in second.stderr.splitlines() if line.startswith("ratkit gram: error:")]
    assert len(error) == 1 and second.stderr.strip().endswith(error[0]), second.stderr
    assert error[0].startswith(f"ratkit gram: error: The Gram matrix file {str(out)!r} is being written by another")
    assert f"(pid {first.pid})" in error[0]
    np.testing.assert_array_equal(np.load(out), _count_gram(_data(0, SIZES[0])))
    assert sorted(os.listdir(tmp_path)) == ["g.npy", "g.npy.manifest.json", "held", "release", "x0.txt", "x1.txt"]


# -- the lock itself, in one process (flock conflicts between two opens of one file) -------


def _transducer():
    from ratkit.automata import from_arcs

    return from_arcs([(0, "a", "b", 0.5, 1)], start=0, finals={1: 1.0})


@pytest.mark.parametrize(
    "write",
    [
        lambda path: atomic_write(path).__enter__(),
        lambda path: write_att(_transducer(), path),
        lambda path: ngram(1).gram(["ab", "b"], out=path, overwrite=True),
        lambda path: RationalSVC(kernel=ngram(1)).fit(["ab", "ba", "aa", "bb"], [0, 1, 0, 1]).save(path),
    ],
    ids=["atomic_write", "write_att", "gram", "model save"],
)
def test_every_writer_refuses_a_file_another_writer_holds(tmp_path, write):
    path = tmp_path / "f.npy"
    path.write_bytes(b"old")
    with locked(path, "thing"):
        assert lock_path(path).read_text().strip() == str(os.getpid())
        with pytest.raises(OutputPathError) as info:
            write(path)
    message = str(info.value)
    assert f"{str(path)!r} is being written by another process (pid {os.getpid()}); wait for it" in message
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["f.npy"]  # the lock file goes with the lock


def test_a_lock_file_left_by_a_killed_writer_does_not_block(tmp_path):
    path = tmp_path / "out.txt"
    lock_path(path).write_text("999999\n")  # the file remains, its flock ended with the process
    with atomic_write(path) as fh:
        fh.write("new")
    assert path.read_text() == "new" and os.listdir(tmp_path) == ["out.txt"]


def test_a_file_system_without_locks_still_writes_atomically(tmp_path, monkeypatch):
    import errno
    import fcntl

    def no_locks(fd, operation):
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "flock", no_locks)
    path = tmp_path / "out.txt"
    with atomic_write(path) as fh:
        fh.write("new")
    assert path.read_text() == "new" and os.listdir(tmp_path) == ["out.txt"]
