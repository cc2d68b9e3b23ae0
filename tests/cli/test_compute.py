"""``--scheduler`` / ``--n-jobs`` on the commands, and ``ratkit gram``: the same numbers on one
process, on local processes and on a real Dask LocalCluster; bad input fails before any work."""

from __future__ import annotations

import json
import random
import re
import time

import joblib
import numpy as np
import pytest

import ratkit.automata.kernels.blocked as blocked
import ratkit.automata.kernels.gram_file as gram_file
import ratkit.cli._compute as compute
import ratkit.recsys.evaluation as evaluation
from ratkit.automata.kernels import from_spec
from ratkit.cli._main import main
from ratkit.datasets import write_tsv

SPEC = {"family": "ngram", "n": 3}
N_SEQUENCES = 30
UNREACHABLE = "tcp://127.0.0.1:1"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("parallel-cli")
    rng = random.Random(7)
    X = ["".join(rng.choice("acgt") for _ in range(rng.randint(6, 14))) for _ in range(N_SEQUENCES)]
    y = ["pos" if x.count("ga") > x.count("tc") else "neg" for x in X]
    (d / "seqs.txt").write_text("".join(f"{x}\n" for x in X))
    write_tsv(d / "labelled.tsv", X, y)
    rng2 = np.random.default_rng(0)
    lines = [f"{u}\t{i}\t{rng2.integers(1, 6)}\t0" for u in range(1, 41) for i in range(1, 26) if rng2.random() < 0.6]
    (d / "u.data").write_text("\n".join(lines) + "\n")
    return d, X


@pytest.fixture(scope="module")
def expected(files):
    """The oracle: the family's own in-memory Gram, one process."""
    return np.asarray(from_spec(SPEC).gram(files[1]))


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed", reason="dask.distributed (ratkit[dask]) is not installed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        yield c


def _run(argv, capsys):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def _spy(monkeypatch, module):
    """Record, at each parallel_map call of ``module``, the joblib backend and n_jobs in force."""
    seen = []
    original = module.parallel_map

    def spy(*args, **kwargs):
        backend, _ = joblib.parallel.get_active_backend()
        seen.append((type(backend).__name__, joblib.effective_n_jobs(kwargs.get("n_jobs"))))
        return original(*args, **kwargs)

    monkeypatch.setattr(module, "parallel_map", spy)
    return seen


def _gram(files, out, *extra):
    d, _ = files
    return ["gram", "--kernel", json.dumps(SPEC), "--data", d / "seqs.txt", "--format", "lines", "-o", out, *extra]


# ------------------------------------------------------------------ ratkit gram


@pytest.mark.parametrize(
    ("extra", "n_blocks", "n_jobs"),
    [([], 1, 1), (["--block-bytes", str(7 * 8 * N_SEQUENCES)], 5, 1), (["--block-bytes", "2k", "--n-jobs", "2"], 4, 2)],
    ids=["one-block", "several-blocks", "two-processes"],
)
def test_gram_equals_the_in_memory_gram(files, expected, tmp_path, capsys, monkeypatch, extra, n_blocks, n_jobs):
    seen = _spy(monkeypatch, blocked)
    out = tmp_path / "k.npy"
    code, stdout, err = _run([*_gram(files, out, "--quiet"), *extra], capsys)
    assert code == 0, err
    np.testing.assert_array_equal(np.load(out), expected)
    assert f"Gram matrix {N_SEQUENCES} × {N_SEQUENCES} written to {out} in {n_blocks} blocks" in stdout
    assert " s" in stdout.splitlines()[-1]
    manifest = json.loads(gram_file.manifest_path(out).read_text())
    assert manifest["complete"] and len(manifest["done"]) == n_blocks
    assert seen == [("LokyBackend", n_jobs)]  # --n-jobs reached the blocks through compute_on


def test_gram_of_a_labelled_file_ignores_the_labels(files, expected, tmp_path, capsys):
    d, _ = files
    out = tmp_path / "k.npy"
    argv = ["gram", "--kernel", json.dumps(SPEC), "--data", d / "labelled.tsv", "-o", out, "--quiet"]
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    np.testing.assert_array_equal(np.load(out), expected)


def test_gram_on_a_dask_scheduler(files, expected, cluster, tmp_path, capsys, monkeypatch):
    seen = _spy(monkeypatch, blocked)
    out = tmp_path / "k.npy"
    argv = [*_gram(files, out, "--quiet"), "--scheduler", cluster.scheduler_address, "--block-bytes", "1k"]
    code, stdout, err = _run(argv, capsys)
    assert code == 0, err
    np.testing.assert_array_equal(np.load(out), expected)
    assert f"written to {out} in 8 blocks" in stdout
    assert [backend for backend, _ in seen] == ["DaskDistributedBackend"]


def test_gram_resume_reuses_and_overwrite_replaces(files, expected, tmp_path, capsys):
    out = tmp_path / "k.npy"
    assert _run(_gram(files, out, "--quiet", "--block-bytes", "1k"), capsys)[0] == 0
    stamp = out.stat().st_mtime_ns
    code, stdout, err = _run(_gram(files, out, "--quiet", "--resume"), capsys)
    assert code == 0, err
    assert out.stat().st_mtime_ns == stamp and "in 8 blocks" in stdout  # the finished file is reused as is
    out.write_bytes(b"stale")
    code, _, err = _run(_gram(files, out, "--quiet", "--overwrite"), capsys)
    assert code == 0, err
    np.testing.assert_array_equal(np.load(out), expected)


def test_an_existing_output_is_left_byte_for_byte(files, tmp_path, capsys):
    out = tmp_path / "k.npy"
    np.save(out, np.arange(6.0))
    before = out.read_bytes()
    code, stdout, err = _run(_gram(files, out), capsys)
    assert code == 2 and stdout == ""  # refused before the data are even read
    assert err.startswith("ratkit gram: error: ") and str(out) in err
    assert "--resume" in err and "--overwrite" in err
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.npy"]  # no partial file, no manifest


@pytest.mark.parametrize(
    ("output", "message"),
    [("missing/k.npy", "its folder .*missing.* does not exist"), ("k.txt", "ending in .npy"), ("d.npy", "is a folder")],
)
def test_a_bad_output_path_is_reported_before_any_work(files, tmp_path, capsys, output, message):
    (tmp_path / "d.npy").mkdir()
    code, stdout, err = _run(_gram(files, tmp_path / output), capsys)
    assert code == 2 and stdout == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("ratkit gram: error: ")
    assert re.search(message, err), err
    assert [p.name for p in tmp_path.iterdir()] == ["d.npy"] and not any((tmp_path / "d.npy").iterdir())


def test_both_scheduler_and_n_jobs_is_a_usage_error(files, tmp_path, capsys):
    code, stdout, err = _run([*_gram(files, tmp_path / "k.npy"), "--scheduler", UNREACHABLE, "--n-jobs", "2"], capsys)
    assert code == 2 and stdout == ""
    assert "ratkit gram: error: argument --n-jobs: not allowed with argument --scheduler" in err
    assert list(tmp_path.iterdir()) == []


def test_an_unreachable_scheduler_fails_fast_naming_it(files, tmp_path, capsys):
    start = time.perf_counter()
    code, stdout, err = _run([*_gram(files, tmp_path / "k.npy"), "--scheduler", UNREACHABLE], capsys)
    seconds = time.perf_counter() - start
    assert code == 2 and stdout == ""
    assert err.startswith("ratkit gram: error: Cannot reach a Dask scheduler at 'tcp://127.0.0.1:1'")
    assert seconds < compute.CONNECT_TIMEOUT + 5
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ train, recsys evaluate


def _evaluate(files, *extra):
    d, _ = files
    argv = ["recsys", "evaluate", "--data", d / "u.data", "--model", "puresvd", "--param", "n_factors=3"]
    return [*argv, "--min-positives", "3", "--n-test", "2", "-k", "1", "5", "--batch-size", "7", *extra]


def test_evaluate_prints_the_same_metrics_on_two_processes_and_on_dask(files, cluster, capsys, monkeypatch):
    seen = _spy(monkeypatch, evaluation)
    code, reference, err = _run(_evaluate(files), capsys)
    assert code == 0, err
    assert reference.count("\n") == 16  # protocol, model and header lines, six metrics at two cutoffs, the AUC
    for extra in (["--n-jobs", "2"], ["--scheduler", cluster.scheduler_address]):
        code, out, err = _run(_evaluate(files, *extra), capsys)
        assert code == 0, err
        assert out == reference
    assert seen == [("LokyBackend", 1), ("LokyBackend", 2), ("DaskDistributedBackend", 2)]


def test_train_n_jobs_and_scheduler_give_the_same_model(files, cluster, tmp_path, capsys):
    d, _ = files
    argv = ["train", "--data", d / "labelled.tsv", "--kernel", json.dumps(SPEC), "--quiet"]
    accuracies = []
    for extra in ([], ["--n-jobs", "2"], ["--scheduler", cluster.scheduler_address]):
        code, out, err = _run([*argv, *extra], capsys)
        assert code == 0, err
        lines = [line for line in out.splitlines() if line.startswith(("trained", "held-out"))]
        accuracies.append([re.sub(r" in [0-9.]+ s", "", line) for line in lines])  # all but the time
    assert accuracies[0] == accuracies[1] == accuracies[2]
    assert "passes" in accuracies[0][0] and "held-out accuracy" in accuracies[0][1]


@pytest.mark.parametrize("command", ["train", "recsys evaluate"])
def test_the_other_commands_refuse_an_unreachable_scheduler(files, capsys, monkeypatch, command):
    monkeypatch.setattr(compute, "CONNECT_TIMEOUT", 1.0)
    d, _ = files
    argv = ["train", "--data", d / "labelled.tsv"] if command == "train" else _evaluate(files)
    start = time.perf_counter()
    code, stdout, err = _run([*argv, "--scheduler", UNREACHABLE], capsys)
    assert code == 2 and "trained" not in stdout and "model:" not in stdout
    assert err.startswith(f"ratkit {command}: error: Cannot reach a Dask scheduler at '{UNREACHABLE}' within 1 s")
    assert time.perf_counter() - start < 6


@pytest.mark.parametrize("command", ["train", "recsys evaluate"])
def test_the_other_commands_refuse_both_scheduler_and_n_jobs(files, capsys, command):
    d, _ = files
    argv = ["train", "--data", d / "labelled.tsv"] if command == "train" else _evaluate(files)
    code, _, err = _run([*argv, "--scheduler", UNREACHABLE, "--n-jobs", "2"], capsys)
    assert code == 2
    assert f"ratkit {command}: error: argument --n-jobs: not allowed with argument --scheduler" in err


def test_train_refuses_n_jobs_given_twice(files, capsys):
    d, _ = files
    code, _, err = _run(["train", "--data", d / "labelled.tsv", "--n-jobs", "2", "--param", "n_jobs=2"], capsys)
    assert code == 2 and "--n-jobs and --param n_jobs both set 'n_jobs'" in err
