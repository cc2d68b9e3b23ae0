"""The process map behind the kernels' ``n_jobs``: joblib's convention for the number of processes."""

from __future__ import annotations

import os

import joblib
import pytest

from ratkit._parallel import map_chunks
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
