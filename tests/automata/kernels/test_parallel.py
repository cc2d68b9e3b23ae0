"""The process map behind the kernels' ``n_jobs``: joblib's convention for the number of processes."""

from __future__ import annotations

import os
import time

import joblib
import numpy as np
import pytest

from ratkit._parallel import map_chunks
from ratkit.automata.kernels import NgramKernel
from ratkit.exceptions import ParameterError, RatkitError


def _squares(chunk):
    return [x * x for x in chunk]


def _pid(chunk):
    return os.getpid()


@pytest.mark.parametrize("n_jobs", [None, 1, 2, -1])
def test_results_are_in_order_whatever_the_number_of_processes(n_jobs):
    items = list(range(37))
    chunks = map_chunks(_squares, items, n_jobs=n_jobs, chunk_size=5)
    assert [y for chunk in chunks for y in chunk] == [x * x for x in items]
    assert [len(c) for c in chunks] == [5] * 7 + [2]


def test_zero_processes_is_refused_naming_the_parameter():
    with pytest.raises(ParameterError, match=r"'n_jobs' parameter must be a number of processes.*Got 0 instead") as e:
        map_chunks(_squares, [1, 2, 3], n_jobs=0)
    assert isinstance(e.value, RatkitError) and isinstance(e.value, ValueError)


def test_one_process_runs_in_this_process():
    assert set(map_chunks(_pid, list(range(8)), n_jobs=1, chunk_size=1)) == {os.getpid()}


def test_none_follows_an_enclosing_joblib_parallel_config():
    """As in scikit-learn: n_jobs=None means 1 unless a joblib context sets another default."""
    items = list(range(8))
    assert set(map_chunks(_pid, items, n_jobs=None, chunk_size=1)) == {os.getpid()}
    with joblib.parallel_config(n_jobs=2):
        pids = set(map_chunks(_pid, items, n_jobs=None, chunk_size=1))
    assert os.getpid() not in pids and 1 <= len(pids) <= 2


# -- vectorised feature extraction: in blocks on the workers only when that pays -----------


def _extraction_calls(monkeypatch):
    """The parallel_map calls the vectorised extractors make (their number of tasks each)."""
    from ratkit.automata.kernels import _rational_work as base

    calls = []
    real = base.parallel_map

    def counted(func, tasks, **kwargs):
        calls.append(len(tasks))
        return real(func, tasks, **kwargs)

    monkeypatch.setattr(base, "parallel_map", counted)
    return calls


def _strings(n, seed=3):
    import random

    rng = random.Random(seed)
    return ["".join(rng.choice("abcd") for _ in range(rng.randint(5, 60))) for _ in range(n)]


def test_a_cheap_vectorised_extraction_stays_in_this_process(monkeypatch):
    """n-grams of short strings take microseconds: sending them to workers and their triplets
    back would cost more, so n_jobs=2 extracts them here, with the single-process result."""
    from ratkit.automata.kernels import ngram

    calls = _extraction_calls(monkeypatch)
    xs = _strings(200)
    one_vocabulary, one = ngram(3).fit_features(xs, n_jobs=1)
    two_vocabulary, two = ngram(3).fit_features(xs, n_jobs=2)
    assert calls == []
    assert (one != two).nnz == 0 and list(one_vocabulary.codes) == list(two_vocabulary.codes)


class _SlowNgram(NgramKernel):
    """An n-gram kernel whose extractor takes 4 ms a sequence."""

    def _specialized_features(self, sequences, symbols):
        time.sleep(0.004 * len(sequences))
        return super()._specialized_features(sequences, symbols)


def test_a_slow_vectorised_extraction_runs_in_blocks_on_the_workers(monkeypatch):
    """Timed on its first block, the rest is worth sending: 7 more blocks go to the workers,
    and the features equal the single-process ones."""
    calls = _extraction_calls(monkeypatch)
    xs = _strings(80)
    kernel = _SlowNgram(3)
    one_vocabulary, one = kernel.fit_features(xs, n_jobs=1)
    two_vocabulary, two = kernel.fit_features(xs, n_jobs=2)
    assert calls == [7]  # 4·2 blocks of 10 sequences, the first extracted here
    assert (one != two).nnz == 0 and list(one_vocabulary.codes) == list(two_vocabulary.codes)


@pytest.mark.parametrize(
    "make",
    [
        lambda k: k.ngram(3),
        lambda k: k.gappy(3, 0.5),
        lambda k: k.mismatch(3, 1, alphabet="abcd"),
        lambda k: k.count_based(["ab", "ca", "ddd"]),
    ],
    ids=["ngram", "gappy", "mismatch", "count_based"],
)
def test_every_vectorised_extractor_in_blocks_gives_the_single_process_features(monkeypatch, make):
    """With the cost of sending triplets back set to nothing, every family's extractor runs in
    blocks: rows renumbered, the same matrix and Gram as in one process."""
    from ratkit.automata import kernels
    from ratkit.automata.kernels import rational as base

    monkeypatch.setattr(base, "EXTRACTION_SECONDS_PER_BYTE", 0.0)
    monkeypatch.setattr(base, "EXTRACTION_MIN_GAIN_SECONDS", 0.0)
    calls = _extraction_calls(monkeypatch)
    xs = _strings(90, seed=5)
    kernel = make(kernels)
    one_vocabulary, one = kernel.fit_features(xs, n_jobs=1)
    two_vocabulary, two = kernel.fit_features(xs, n_jobs=2)
    assert calls == [7]
    assert list(one_vocabulary.codes) == list(two_vocabulary.codes)
    assert abs(one - two).max() == 0
    np.testing.assert_array_equal(kernel.gram(xs, n_jobs=2), kernel.gram(xs, n_jobs=1))
