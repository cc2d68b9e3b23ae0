"""kernel.gram(X, Y, *, n_jobs, out, block_bytes, resume, overwrite): block by block, in a file.

The oracle is the kernel's own in-memory ``gram`` (one call, one process). Interrupted runs
are simulated by a kernel that raises after a number of blocks (a module-level counter, so
its parameters — and the manifest's fingerprint — stay the same), and by killing a process
with SIGKILL in the middle of a run.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from ratkit.automata.graphs import Graph, from_edges
from ratkit.automata.io import to_att
from ratkit.automata.kernels import Kernel, _npy_sink, edit_distance, exp_kernel, from_transducer, ngram, random_walk
from ratkit.automata.kernels import blocked as _blocked
from ratkit.automata.kernels.gram_file import GramFile, manifest_path, partial_path
from ratkit.exceptions import DataFormatError, OutputPathError, ParameterError, ParameterTypeError, RatkitError

RNG = np.random.default_rng(7)
SEQS = ["".join(RNG.choice(list("abc"), size=int(RNG.integers(3, 15)))) for _ in range(23)]
OTHER = ["".join(RNG.choice(list("abc"), size=int(RNG.integers(3, 15)))) for _ in range(9)]


def _graphs(n: int) -> list[Graph]:
    rng = np.random.default_rng(3)
    out = []
    for _ in range(n):
        size = int(rng.integers(3, 6))
        edges = [(i, j) for i in range(size) for j in range(i + 1, size) if rng.random() < 0.6] or [(0, 1)]
        out.append(from_edges(size, edges, node_labels=[int(v) for v in rng.integers(0, 2, size=size)]))
    return out


def _rows(n_cols: int, rows: int) -> int:
    """block_bytes holding exactly ``rows`` rows of an n_cols-column float64 matrix."""
    return n_cols * 8 * rows


KERNELS = {
    "ngram (features)": (ngram(2), SEQS, OTHER),
    "sum of ngrams (features)": (ngram(1) + 0.5 * ngram(3), SEQS, OTHER),
    "exp of ngram (tiles, PDS)": (exp_kernel(ngram(2), 0.1), SEQS, OTHER),
    # insertion ≠ deletion: K(x, y) ≠ K(y, x), so no block may be mirrored
    "asymmetric edit distance (tiles)": (edit_distance(insertion=0.3, deletion=0.7), SEQS, OTHER),
    "random walk on graphs (tiles, PDS)": (random_walk(0.05, method="direct"), _graphs(13), _graphs(5)),
}


@pytest.mark.parametrize("name", list(KERNELS))
@pytest.mark.parametrize("rows_per_block", [1, 4, 100])
def test_blocks_in_memory_equal_the_kernels_own_gram(name, rows_per_block):
    k, X, Y = KERNELS[name]
    reference = k.gram(X)
    blocked = k.gram(X, block_bytes=_rows(len(X), rows_per_block))
    np.testing.assert_allclose(blocked, reference, rtol=1e-12, atol=1e-14)
    cross = k.gram(X, Y, block_bytes=_rows(len(Y), rows_per_block))
    np.testing.assert_allclose(cross, k.gram(X, Y), rtol=1e-12, atol=1e-14)


def test_asymmetric_kernel_really_is_asymmetric_here():
    """The edit-distance case above would not catch a wrong mirror if its Gram were symmetric."""
    k = KERNELS["asymmetric edit distance (tiles)"][0]
    G = k.gram(SEQS)
    assert np.abs(G - G.T).max() > 1e-3


@pytest.mark.parametrize("name", list(KERNELS))
def test_a_file_holds_the_same_matrix_and_is_returned_memory_mapped(tmp_path, name):
    k, X, _ = KERNELS[name]
    out = tmp_path / "gram.npy"
    G = k.gram(X, out=out, block_bytes=_rows(len(X), 3))
    assert isinstance(G, np.memmap) and not G.flags.writeable
    np.testing.assert_allclose(np.load(out), k.gram(X), rtol=1e-12, atol=1e-14)
    assert not partial_path(out).exists()
    manifest = json.loads(manifest_path(out).read_text())
    assert manifest["complete"] and sorted(manifest["done"]) == list(range(-(-len(X) // 3)))


def test_a_symmetric_file_is_exactly_symmetric(tmp_path):
    G = ngram(3).gram(SEQS, out=tmp_path / "g.npy", block_bytes=_rows(len(SEQS), 5))
    assert np.array_equal(G, G.T)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_local_processes_give_the_same_file(tmp_path, n_jobs):
    k = edit_distance()
    G = k.gram(SEQS, out=tmp_path / "g.npy", block_bytes=_rows(len(SEQS), 2), n_jobs=n_jobs)
    np.testing.assert_allclose(G, k.gram(SEQS), rtol=1e-12)


def test_n_jobs_reaches_a_family_whose_gram_does_not_take_it():
    """random_walk's gram(X, Y) has no n_jobs: the keyword runs the blocks in parallel."""
    k = random_walk(0.05, method="direct")
    graphs = _graphs(9)
    np.testing.assert_allclose(k.gram(graphs, n_jobs=2), k.gram(graphs), rtol=1e-12)


def test_a_plugin_kernel_gets_the_keywords_without_declaring_them(tmp_path):
    class Dot(Kernel):
        is_pds = True

        def _gram(self, X, Y=None):
            Y = X if Y is None else Y
            return np.array([[float(len(x) * len(y)) for y in Y] for x in X])

    out = tmp_path / "dot.npy"
    G = Dot().gram(SEQS, out=out, block_bytes=_rows(len(SEQS), 4))
    lengths = np.array([len(s) for s in SEQS], dtype=float)
    np.testing.assert_array_equal(G, np.outer(lengths, lengths))


# -- interruption and resumption ---------------------------------------------------------

_CALLS = {"left": None}


class Flaky(Kernel):
    """x·y lengths; raises once _CALLS["left"] blocks have been computed (None: never)."""

    is_pds = True

    def _gram(self, X, Y=None):
        if _CALLS["left"] is not None:
            if _CALLS["left"] == 0:
                raise RuntimeError("interrupted")
            _CALLS["left"] -= 1
        Y = X if Y is None else Y
        return np.array([[float(len(x) * len(y) + (x == y)) for y in Y] for x in X])


def test_resuming_an_interrupted_file_computes_only_the_missing_blocks(tmp_path):
    out = tmp_path / "g.npy"
    k = Flaky()
    block = _rows(len(SEQS), 2)
    reference = k.gram(SEQS)
    _CALLS["left"] = 4
    try:
        with pytest.raises(RuntimeError, match="interrupted"):
            k.gram(SEQS, out=out, block_bytes=block)
        assert not out.exists(), "an interrupted run must not leave a file that looks complete"
        assert partial_path(out).exists()
        manifest = json.loads(manifest_path(out).read_text())
        assert len(manifest["done"]) == 4 and not manifest["complete"]
        with pytest.raises(OutputPathError, match="resume=True"):
            k.gram(SEQS, out=out, block_bytes=block)
        n_blocks = -(-len(SEQS) // 2)
        _CALLS["left"] = n_blocks - 4  # exactly the missing blocks may run; one more would raise
        G = k.gram(SEQS, out=out, block_bytes=block, resume=True)
        assert _CALLS["left"] == 0
    finally:
        _CALLS["left"] = None
    np.testing.assert_array_equal(G, reference)
    # a finished file resumed is returned as it is: nothing is computed again
    _CALLS["left"] = 0
    try:
        np.testing.assert_array_equal(k.gram(SEQS, out=out, resume=True), reference)
    finally:
        _CALLS["left"] = None


def _killed_edit_distance_run(tmp_path, seqs: list[str], n_jobs: int, blocks: int) -> tuple[Path, list]:
    """``edit_distance().gram(seqs, out=…)`` in a child process, SIGKILLed once its manifest
    lists ``blocks`` blocks: (the output path, the blocks listed). The run must not finish first,
    and no finished-looking file may be left."""
    out = tmp_path / "g.npy"
    (tmp_path / "seqs.json").write_text(json.dumps(seqs))
    script = textwrap.dedent(
        f"""
        import json
        from ratkit.automata.kernels import edit_distance
        seqs = json.load(open({str(tmp_path / "seqs.json")!r}))
        edit_distance().gram(seqs, out={str(out)!r}, block_bytes={_rows(len(seqs), 1)}, n_jobs={n_jobs},
                             show_progress=False)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if len(json.loads(manifest_path(out).read_text())["done"]) >= blocks:
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.005)
        if proc.poll() is not None:
            pytest.fail(f"the run finished before it could be interrupted (rc {proc.returncode})")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not out.exists()
    return out, json.loads(manifest_path(out).read_text())["done"]


def test_a_run_killed_with_sigkill_resumes_to_the_uninterrupted_matrix(tmp_path):
    seqs = ["".join(np.random.default_rng(i).choice(list("acgt"), size=300)) for i in range(80)]
    out, listed = _killed_edit_distance_run(tmp_path, seqs, n_jobs=1, blocks=3)
    assert 3 <= len(listed) < len(seqs)
    G = edit_distance().gram(seqs, out=out, resume=True, show_progress=False)
    np.testing.assert_allclose(G, edit_distance().gram(seqs), rtol=1e-12)


# -- refusals -----------------------------------------------------------------------------


def test_an_existing_file_is_never_overwritten_silently(tmp_path):
    out = tmp_path / "g.npy"
    np.save(out, np.arange(4.0))
    before = out.read_bytes()
    with pytest.raises(OutputPathError, match="already exists.*resume=True.*overwrite=True"):
        ngram(2).gram(SEQS, out=out)
    assert out.read_bytes() == before
    with pytest.raises(OutputPathError, match="no manifest"):
        ngram(2).gram(SEQS, out=out, resume=True)
    assert out.read_bytes() == before
    G = ngram(2).gram(SEQS, out=out, overwrite=True)
    np.testing.assert_allclose(G, ngram(2).gram(SEQS), rtol=1e-12)


def test_overwrite_keeps_the_old_file_until_the_new_one_is_complete(tmp_path):
    out = tmp_path / "g.npy"
    np.save(out, np.arange(4.0))
    before = out.read_bytes()
    _CALLS["left"] = 2
    try:
        with pytest.raises(RuntimeError, match="interrupted"):
            Flaky().gram(SEQS, out=out, block_bytes=_rows(len(SEQS), 3), overwrite=True)
    finally:
        _CALLS["left"] = None
    assert out.read_bytes() == before


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda: (ngram(3), SEQS), "fingerprint"),
        (lambda: (ngram(2), SEQS[:-1] + ["zzz"]), "fingerprint"),
        (lambda: (ngram(2), SEQS[:-1]), "shape"),
    ],
    ids=["another kernel", "other data", "other size"],
)
def test_a_manifest_for_another_gram_is_refused(tmp_path, change, message):
    out = tmp_path / "g.npy"
    _CALLS["left"] = None
    ngram(2).gram(SEQS, out=out)
    kernel, data = change()
    with pytest.raises(DataFormatError, match=message):
        kernel.gram(data, out=out, resume=True)


def test_a_transducer_file_edited_before_the_resume_is_refused(tmp_path, monkeypatch):
    """Regression (audit): the fingerprint held from_transducer's path, not the transducer read
    from it, so a file edited between an interrupted run and its resume passed the check and
    the finished matrix mixed the unigram blocks done before with bigram blocks after."""
    source, out = tmp_path / "t.att", tmp_path / "g.npy"
    source.write_text(to_att(ngram(1).factor("ab")))
    real, calls = _blocked._block_task, []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) > 1:
            raise RuntimeError("interrupted")
        return real(*args, **kwargs)

    monkeypatch.setattr(_blocked, "_block_task", interrupted)
    data = ["ab", "ba", "aab", "bbb", "a", "abab"]
    with pytest.raises(RuntimeError, match="interrupted"):
        from_transducer(source).gram(data, out=out, block_bytes=8 * 6 * 3, n_jobs=1)
    monkeypatch.setattr(_blocked, "_block_task", real)
    source.write_text(to_att(ngram(2).factor("ab")))
    with pytest.raises(DataFormatError, match="fingerprint"):
        from_transducer(source).gram(data, out=out, resume=True, block_bytes=8 * 6 * 3, n_jobs=1)
    source.write_text(to_att(ngram(1).factor("ab")))  # the same content again: the resume goes on
    G = from_transducer(source).gram(data, out=out, resume=True, block_bytes=8 * 6 * 3, n_jobs=1)
    np.testing.assert_allclose(G, ngram(1).gram(data), rtol=1e-12)


def test_resuming_with_another_block_size_is_refused(tmp_path):
    out = tmp_path / "g.npy"
    _CALLS["left"] = 1
    try:
        with pytest.raises(RuntimeError):
            Flaky().gram(SEQS, out=out, block_bytes=_rows(len(SEQS), 2))
    finally:
        _CALLS["left"] = None
    with pytest.raises(DataFormatError, match="rows per block"):
        Flaky().gram(SEQS, out=out, block_bytes=_rows(len(SEQS), 5), resume=True)


def test_bad_requests_are_refused_before_any_work(tmp_path):
    k = ngram(2)
    with pytest.raises(ParameterError, match="at least one row.*23 columns"):
        k.gram(SEQS, block_bytes=23 * 8 - 1)
    with pytest.raises(ParameterTypeError, match="block_bytes"):
        k.gram(SEQS, block_bytes=1.5e6)
    with pytest.raises(OutputPathError, match="does not exist"):
        k.gram(SEQS, out=tmp_path / "missing" / "g.npy")
    with pytest.raises(ParameterError, match=r"\.npy"):
        k.gram(SEQS, out=tmp_path / "g.txt")
    with pytest.raises(ParameterError, match="not both"):
        k.gram(SEQS, out=tmp_path / "g.npy", resume=True, overwrite=True)
    with pytest.raises(ParameterError, match="n_jobs"):
        k.gram(SEQS, n_jobs=0)
    with pytest.raises(OutputPathError, match="folder"):
        k.gram(SEQS, out=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_corrupt_manifest_is_a_clear_error(tmp_path):
    out = tmp_path / "g.npy"
    ngram(2).gram(SEQS, out=out)
    manifest_path(out).write_text("{not json")
    with pytest.raises(DataFormatError, match="manifest") as info:
        ngram(2).gram(SEQS, out=out, resume=True)
    assert isinstance(info.value, RatkitError)


# -- regressions found in review ----------------------------------------------------------


def test_a_plugin_kernels_own_gram_keywords_reach_every_block(tmp_path):
    class Scaled(Kernel):
        is_pds = True

        def _gram(self, X, Y=None, *, scale=1.0):
            Y = X if Y is None else Y
            return scale * np.array([[float(len(x) * len(y)) for y in Y] for x in X])

    reference = Scaled().gram(SEQS, scale=10.0)
    np.testing.assert_array_equal(Scaled().gram(SEQS, scale=10.0, block_bytes=_rows(len(SEQS), 3)), reference)
    np.testing.assert_array_equal(Scaled().gram(SEQS, scale=10.0, out=tmp_path / "g.npy"), reference)


def test_an_option_the_family_refuses_is_refused_in_blocks_too():
    with pytest.raises(ParameterError, match="strategy"):
        ngram(2).gram(SEQS, strategy="bogus")
    with pytest.raises(ParameterError, match="strategy"):
        ngram(2).gram(SEQS, strategy="bogus", block_bytes=_rows(len(SEQS), 3))


def test_an_inferred_alphabet_comes_from_all_the_data_not_from_each_block():
    """mismatch infers Σ from X and Y; a block that inferred it from its own rows (a worker's
    copy of the kernel) would count k-mers over a smaller Σ."""
    from ratkit.automata.kernels import mismatch

    X, Y = ["ab", "ba", "cd", "ab"], ["ab", "ba", "e"]
    for options in ({}, {"strategy": "intersection"}):
        reference = mismatch(2, 1).gram(X, Y, **options)
        blocked = mismatch(2, 1).gram(X, Y, block_bytes=_rows(len(Y), 1), n_jobs=2, **options)
        np.testing.assert_allclose(blocked, reference, rtol=1e-12)


def test_resume_and_overwrite_without_a_file_are_refused():
    for flag in ("resume", "overwrite"):
        with pytest.raises(ParameterError, match=f"{flag}=True applies to a file"):
            ngram(2).gram(SEQS, **{flag: True})


def test_a_run_interrupted_at_the_final_rename_resumes_to_the_new_matrix(tmp_path, monkeypatch):
    import ratkit.automata.kernels.blocked as blocked

    out = tmp_path / "g.npy"
    ngram(1).gram(SEQS, out=out)
    real_replace = os.replace

    def crash(source, target):  # os.replace is also how the manifest is written: only the last rename fails
        if str(target) == str(out):
            raise KeyboardInterrupt
        real_replace(source, target)

    monkeypatch.setattr(blocked.os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        ngram(2).gram(SEQS, out=out, overwrite=True)
    monkeypatch.setattr(blocked.os, "replace", real_replace)
    np.testing.assert_allclose(np.load(out), ngram(1).gram(SEQS))  # the old file is intact
    G = ngram(2).gram(SEQS, out=out, resume=True)
    np.testing.assert_allclose(G, ngram(2).gram(SEQS), rtol=1e-12)


def test_the_fingerprint_follows_what_the_kernel_computes_not_its_caches(tmp_path):
    from ratkit.automata.kernels import SumKernel, mismatch

    out = tmp_path / "g.npy"
    k = SumKernel([mismatch(2, 1), ngram(2)])
    reference = k.gram(SEQS)
    _CALLS["left"] = None
    k.gram(SEQS, out=out)
    # the same object, used since (caches filled), and with other execution options: accepted
    k.set_params(kernels=[mismatch(2, 1, n_jobs=2), ngram(2, show_progress=True)])
    np.testing.assert_allclose(k.gram(SEQS, out=out, resume=True), reference, rtol=1e-12)
    # a kernel that learned another alphabet elsewhere computes other values: refused
    other = mismatch(2, 1)
    other.fit(["abcz"])
    with pytest.raises(DataFormatError, match="fingerprint"):
        SumKernel([other, ngram(2)]).gram(SEQS, out=out, resume=True)


# -- blocks written by their tasks (issue 19) ---------------------------------------------

import logging  # noqa: E402
import shutil  # noqa: E402

import ratkit.automata.kernels.blocked as blocked  # noqa: E402


def _counting(monkeypatch, name):
    """Count this process's calls of blocked.<name> (worker processes keep the real one)."""
    calls = []
    real = getattr(blocked, name)

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(blocked, name, counted)
    return calls


@pytest.mark.parametrize(
    "name", ["ngram (features)", "random walk on graphs (tiles, PDS)", "asymmetric edit distance (tiles)"]
)
def test_worker_processes_write_the_blocks_themselves(tmp_path, monkeypatch, name):
    """n_jobs=2: the loky workers write every block into the file (in memory: a temporary file),
    so this process writes and places none, and the matrix is the single-process one."""
    k, X, _ = KERNELS[name]
    reference = k.gram(X)
    writes, places = _counting(monkeypatch, "_write_tile"), _counting(monkeypatch, "_place")
    out = tmp_path / "g.npy"
    G = k.gram(X, out=out, block_bytes=_rows(len(X), 3), n_jobs=2)
    np.testing.assert_allclose(G, reference, rtol=1e-12, atol=1e-14)
    in_memory = k.gram(X, block_bytes=_rows(len(X), 3), n_jobs=2)
    np.testing.assert_allclose(in_memory, reference, rtol=1e-12, atol=1e-14)
    assert writes == [] and places == []
    assert b"#ratkit" not in out.read_bytes()[:128], "the finished file keeps a plain .npy header"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.npy", "g.npy.manifest.json"]


def test_the_partial_file_carries_the_runs_stamp_and_loads_as_npy(tmp_path):
    out = tmp_path / "g.npy"
    _CALLS["left"] = 2
    try:
        with pytest.raises(RuntimeError, match="interrupted"):
            Flaky().gram(SEQS, out=out, block_bytes=_rows(len(SEQS), 3))
    finally:
        _CALLS["left"] = None
    head = partial_path(out).read_bytes()[:128]
    assert _npy_sink._STAMP_PREFIX in head
    partial = np.load(partial_path(out))  # the stamp is a comment in the header's padding
    reference = Flaky().gram(SEQS)
    np.testing.assert_array_equal(partial[:6], reference[:6])  # the two blocks that were listed


def test_blocks_come_back_when_the_task_cannot_see_the_file(tmp_path, monkeypatch, caplog):
    """A worker on another machine sees no file at that path: its task returns the tile and
    this process writes it (simulated in this process)."""
    monkeypatch.setattr(blocked, "_open_sink", lambda sink: None)
    writes = _counting(monkeypatch, "_write_tile")
    out = tmp_path / "g.npy"
    with caplog.at_level(logging.INFO, logger=blocked.__name__):
        G = ngram(2).gram(SEQS, out=out, block_bytes=_rows(len(SEQS), 4))
    np.testing.assert_allclose(G, ngram(2).gram(SEQS), rtol=1e-12)
    assert len(writes) == -(-len(SEQS) // 4)
    assert "came back to be written by this process" in caplog.text


def test_a_task_seeing_another_file_at_that_path_leaves_it_alone(tmp_path, monkeypatch):
    """Another machine may hold a file of that name (an earlier run's): its stamp differs, so
    the task must not write into it, and the block comes back."""
    decoy_dir = tmp_path / "elsewhere"
    decoy_dir.mkdir()
    decoy = decoy_dir / "g.npy.partial"
    blocked._create_npy(decoy, (len(SEQS), len(SEQS)))
    with open(decoy, "r+b") as fh:  # an earlier run's stamp
        blocked._stamped(decoy, fh.fileno(), (len(SEQS), len(SEQS)), durable=False)
    before = decoy.read_bytes()
    real_open = blocked._open_sink
    seen = []

    def elsewhere(sink):
        seen.append(sink.stamp)
        return real_open(dataclasses.replace(sink, path=str(decoy)))

    monkeypatch.setattr(blocked, "_open_sink", elsewhere)
    G = ngram(2).gram(SEQS, out=tmp_path / "g.npy", block_bytes=_rows(len(SEQS), 5))
    np.testing.assert_allclose(G, ngram(2).gram(SEQS), rtol=1e-12)
    assert seen and decoy.read_bytes() == before


def test_a_block_the_file_does_not_hold_is_computed_again(tmp_path, monkeypatch, caplog):
    """A task whose writes land elsewhere (a file system that fooled the stamp check) reports a
    checksum this process's file does not match: the block is computed again here."""
    decoy = tmp_path / "decoy.bin"
    decoy.write_bytes(b"\0" * (8 * len(SEQS) ** 2 + 4096))

    def fooled(sink):
        return os.open(decoy, os.O_RDWR)

    monkeypatch.setattr(blocked, "_open_sink", fooled)
    out = tmp_path / "g.npy"
    with caplog.at_level(logging.WARNING, logger=blocked.__name__):
        G = ngram(2).gram(SEQS, out=out, block_bytes=_rows(len(SEQS), 6))
    np.testing.assert_allclose(G, ngram(2).gram(SEQS), rtol=1e-12)
    np.testing.assert_allclose(np.load(out), ngram(2).gram(SEQS), rtol=1e-12)
    assert caplog.text.count("computing it again in this process") == -(-len(SEQS) // 6)


def test_a_partial_file_without_room_for_a_stamp_resumes_exactly(tmp_path):
    """A partial file written before the stamp existed (numpy's own header, little padding):
    this process writes the remaining blocks itself."""
    out = tmp_path / "g.npy"
    reference = Flaky().gram(SEQS)
    _CALLS["left"] = 3
    try:
        with pytest.raises(RuntimeError, match="interrupted"):
            Flaky().gram(SEQS, out=out, block_bytes=_rows(len(SEQS), 2))
    finally:
        _CALLS["left"] = None
    old = np.load(partial_path(out))
    plain = np.lib.format.open_memmap(tmp_path / "plain.npy", mode="w+", dtype=np.float64, shape=old.shape)
    plain[:] = old
    del plain
    shutil.move(tmp_path / "plain.npy", partial_path(out))
    G = Flaky().gram(SEQS, out=out, resume=True, n_jobs=2)
    np.testing.assert_array_equal(G, reference)


def test_a_run_on_two_processes_killed_with_sigkill_resumes_exactly(tmp_path):
    seqs = ["".join(np.random.default_rng(i).choice(list("acgt"), size=200)) for i in range(44)]
    out, listed = _killed_edit_distance_run(tmp_path, seqs, n_jobs=2, blocks=4)
    assert 4 <= len(listed) < len(seqs)
    G = edit_distance().gram(seqs, out=out, resume=True, n_jobs=2, show_progress=False)
    np.testing.assert_allclose(G, edit_distance().gram(seqs), rtol=1e-12)


# -- the in-memory Gram's temporary file: shared memory, written through maps ----------------


@pytest.mark.parametrize("mirror", [False, True])
@pytest.mark.parametrize("first", [0, 3])
def test_writing_a_tile_through_a_map_leaves_the_bytes_of_positioned_writes(tmp_path, mirror, first):
    """_map_tile (the workers' writes into shared memory) and _write_tile (os.pwrite) on two
    files: the same bytes, tile and mirrored strip, for every block of a 9 × 9 matrix."""
    from ratkit.automata.kernels import blocked

    n = 9
    files = {}
    for how in ("map", "pwrite"):
        path = tmp_path / f"{how}.npy"
        blocked._create_npy(path, (n, n))
        fd = os.open(path, os.O_RDWR)
        try:
            sink = blocked._stamped(path, fd, (n, n), durable=False, mapped=how == "map")
            write = blocked._map_tile if how == "map" else blocked._write_tile
            for start in range(0, n, 4):
                stop = min(start + 4, n)
                column = start if mirror else first
                tile = np.arange((stop - start) * (n - column), dtype=np.float64).reshape(stop - start, -1) + start
                write(fd, sink, tile, start, column, mirror)
        finally:
            os.close(fd)
        files[how] = path.read_bytes()[sink.offset :]  # the headers differ: each holds its own stamp
    assert files["map"] == files["pwrite"]
    written = np.load(tmp_path / "map.npy")
    assert (written[:, first:] != 0).sum() >= n * (n - first) - 1  # every entry written (one tile entry is 0)


def test_the_temporary_file_goes_to_shared_memory_then_the_temporary_folder(tmp_path, monkeypatch):
    from ratkit.automata.kernels import blocked

    shared, temporary = tmp_path / "shm", tmp_path / "tmp"
    shared.mkdir()
    temporary.mkdir()
    monkeypatch.setattr(blocked, "SHARED_MEMORY_FOLDER", str(shared))
    monkeypatch.setattr(blocked.tempfile, "tempdir", str(temporary))
    with blocked._scratch_file((5, 5)) as (path, mapped):
        assert mapped and path.parent.parent == shared and path.exists()
        np.testing.assert_array_equal(np.load(path), np.zeros((5, 5)))
    assert list(shared.iterdir()) == []  # removed on exit
    monkeypatch.setattr(blocked, "SHARED_MEMORY_FOLDER", str(tmp_path / "missing"))
    with blocked._scratch_file((5, 5)) as (path, mapped):
        assert not mapped and path.parent.parent == temporary
    monkeypatch.setattr(blocked.shutil, "disk_usage", lambda where: blocked.shutil._ntuple_diskusage(1, 1, 0))
    with blocked._scratch_file((5, 5)) as (path, mapped):
        assert (path, mapped) == (None, False)


def test_without_shared_memory_the_workers_write_the_temporary_file_by_positioned_writes(monkeypatch):
    """The fallback to the temporary folder (no /dev/shm, or no room there): the same matrix."""
    from ratkit.automata.kernels import blocked

    monkeypatch.setattr(blocked, "SHARED_MEMORY_FOLDER", "/nonexistent-ratkit-shm")
    k, X, _ = KERNELS["ngram (features)"]
    np.testing.assert_allclose(k.gram(X, block_bytes=_rows(len(X), 3), n_jobs=2), k.gram(X), rtol=1e-12)


def test_only_blocks_written_by_positioned_writes_are_read_back(tmp_path, monkeypatch):
    """With out= (a file that may be on a shared file system) every block a worker wrote is read
    back and checked; in memory, blocks written through a map of this machine's shared memory
    are not."""
    from ratkit.automata.kernels import blocked

    (tmp_path / "shm").mkdir()  # a shared-memory folder whatever the machine has
    monkeypatch.setattr(blocked, "SHARED_MEMORY_FOLDER", str(tmp_path / "shm"))
    k, X, _ = KERNELS["ngram (features)"]
    checks = _counting(monkeypatch, "_confirmed")
    k.gram(X, block_bytes=_rows(len(X), 3), n_jobs=2)
    assert checks == []
    k.gram(X, out=tmp_path / "g.npy", block_bytes=_rows(len(X), 3), n_jobs=2)
    assert len(checks) == -(-len(X) // 3)


def test_every_kernel_gram_shows_the_contract_keywords_in_its_signature():
    """help(kernel.gram) and inspect.signature showed the family's own signature (functools.wraps),
    without issue 19's out=, block_bytes=, resume= and overwrite=, although every call takes them."""
    import inspect

    from ratkit.automata.kernels import edit_distance, ngram, random_walk

    for kernel in (ngram(2), edit_distance(), random_walk(0.1)):
        params = inspect.signature(kernel.gram).parameters
        assert list(params)[:2] == ["X", "Y"] and params["Y"].default is None
        for name, default in (("n_jobs", None), ("out", None), ("block_bytes", None), ("resume", False)):
            assert params[name].kind is inspect.Parameter.KEYWORD_ONLY and params[name].default is default
        assert params["overwrite"].default is False


# -- the contract: gram dispatches, _gram computes (issue 36) -------------------------------


def test_gram_file_is_what_a_run_returns_and_what_its_manifest_says(tmp_path):
    from ratkit.automata.kernels.blocked import write_gram

    out = tmp_path / "g.npy"
    k = ngram(2)
    written = write_gram(k, SEQS, out=out, block_bytes=_rows(len(SEQS), 5))
    assert isinstance(written, GramFile)
    assert written.path == out and written.shape == (len(SEQS), len(SEQS))
    assert written.rows_per_block == 5 and written.n_blocks == -(-len(SEQS) // 5)
    assert written.complete and written.done == tuple(range(written.n_blocks)) and written.resumed == 0
    assert written.manifest == manifest_path(out)
    np.testing.assert_allclose(written.open(), k.gram(SEQS), rtol=1e-12)
    assert GramFile.read(out) == written
    again = write_gram(k, SEQS, out=out, resume=True)
    assert again.complete and again.resumed == written.n_blocks


def test_an_unfinished_gram_file_refuses_to_open(tmp_path):
    out = tmp_path / "g.npy"
    k = Flaky()
    _CALLS["left"] = 1
    try:
        with pytest.raises(RuntimeError, match="interrupted"):
            k.gram(SEQS, out=out, block_bytes=_rows(len(SEQS), 4))
    finally:
        _CALLS["left"] = None
    unfinished = GramFile.read(out)
    assert not unfinished.complete and unfinished.done == (0,)
    with pytest.raises(OutputPathError, match="not complete: 1 of 6 blocks.*resume=True"):
        unfinished.open()


def test_a_family_that_overrides_gram_is_warned_and_still_works_in_memory():
    """The contract before issue 36: a family's own gram. It still computes in memory, with a
    DeprecationWarning at class creation naming _gram."""
    with pytest.warns(DeprecationWarning, match=r"Old overrides Kernel.gram; define _gram\(self, X, Y=None"):

        class Old(Kernel):
            is_pds = True

            def gram(self, X, Y=None):
                Y = X if Y is None else Y
                return np.array([[float(len(x) * len(y)) for y in Y] for x in X])

    lengths = np.array([len(s) for s in SEQS], dtype=float)
    np.testing.assert_array_equal(Old().gram(SEQS), np.outer(lengths, lengths))
    assert Old()("ab", "abc") == 6.0


def test_a_family_without_gram_says_to_define_gram_underscore():
    class Empty(Kernel):
        pass

    with pytest.raises(NotImplementedError, match=r"Empty must define _gram\(self, X, Y=None\)"):
        Empty().gram(SEQS)


def test_gram_has_its_keywords_in_its_signature_for_every_family():
    import inspect

    for k in (ngram(2), random_walk(0.05), ngram(1) + ngram(2), edit_distance()):
        params = inspect.signature(k.gram).parameters
        for name in ("n_jobs", "out", "block_bytes", "resume", "overwrite"):
            assert params[name].kind is inspect.Parameter.KEYWORD_ONLY, (k, name)
        assert type(k).gram is Kernel.gram


def test_the_old_paths_of_the_moved_names_warn_and_still_work():
    import ratkit.automata.kernels.base as base
    from ratkit.automata.kernels import RationalKernel, inputs

    with pytest.warns(DeprecationWarning, match="kernels.base.as_collection moved to ratkit.automata.kernels.inputs"):
        assert base.as_collection is inputs.as_collection
    with pytest.warns(DeprecationWarning, match="RationalKernel moved to ratkit.automata.kernels.rational"):
        from ratkit.automata.kernels.base import RationalKernel as old
    assert old is RationalKernel
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        base.nothing  # noqa: B018


def test_n_jobs_goes_to_a_gram_hook_that_declares_it():
    seen = []

    class Takes(Kernel):
        _gram_takes_n_jobs = True

        def _gram(self, X, Y=None, *, n_jobs=None):
            seen.append(n_jobs)
            Y = X if Y is None else Y
            return np.zeros((len(X), len(Y)))

    Takes().gram(SEQS, n_jobs=2)
    Takes().gram(SEQS)
    assert seen == [2, None]
