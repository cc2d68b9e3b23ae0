"""Random-walk graph-kernel benchmarks (issue 16): MUTAG accuracy and Gram speed against GraKeL
(``python -m bench.graphs.mutag --help``), Gram cost as graphs grow on ENZYMES and PROTEINS
(``python -m bench.graphs.scaling --help``), and the rational form against the linear-algebra
one on MUTAG graphs (``python -m bench.graphs.equivalence``).

Run both with their defaults: ``python -m bench.graphs`` (or ``python -m bench graphs``).
The data root (``--data``, default ``../shared/data`` relative to the repository root) holds
``tudataset/MUTAG``, ``tudataset/ENZYMES`` and ``tudataset/PROTEINS`` in the TU text format.

This module also holds what both benchmarks share: the data location, the spectral-radius
bound of the geometric series, GraKeL's input form and a GraKeL Gram that refuses to let
GraKeL lower λ behind our back.
"""

from __future__ import annotations

import os
import platform
import subprocess
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "main",
    "DEFAULT_DATA",
    "load_dataset",
    "max_radius",
    "grakel_input",
    "grakel_gram",
    "timed",
    "max_rel",
    "commit",
    "machine_note",
]

#: ``../shared/data`` relative to the repository root (the parent of ``bench/``).
_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA = _ROOT.parent / "shared" / "data"
_TU_FILES = ("NAME_A.txt", "NAME_graph_indicator.txt", "NAME_graph_labels.txt", "NAME_node_labels.txt")


def load_dataset(data: str | Path, name: str) -> tuple[list, np.ndarray]:
    """The graphs and labels of ``<data>/tudataset/<name>`` via ``ratkit.datasets.load_tu``;
    SystemExit naming the expected files when the folder is missing."""
    from ratkit.datasets import load_tu

    folder = Path(data) / "tudataset" / name
    if not folder.is_dir():
        files = ", ".join(f.replace("NAME", name) for f in _TU_FILES)
        raise SystemExit(
            f"TU data set {name} not found: expected the folder {folder} holding {files} "
            f"(give the data root with --data; default {DEFAULT_DATA})."
        )
    return load_tu(folder)


def max_radius(graphs: list) -> float:
    """max_G ρ(A_G): the geometric random-walk series converges on every pair iff λ < 1/max_G ρ(A_G)²
    (unlabelled; ρ(W×) of a labelled product is at most ρ(A)ρ(A′), so the bound is safe there too)."""
    return max(float(np.max(np.abs(np.linalg.eigvals(g.adjacency.toarray())))) for g in graphs)


def grakel_input(graphs: list, labelled: bool) -> list[list[Any]]:
    """GraKeL's iterable graph form: [dense adjacency] or [dense adjacency, {i: node label}]."""
    if labelled:
        return [[g.adjacency.toarray(), dict(enumerate(g.node_labels))] for g in graphs]
    return [[g.adjacency.toarray()] for g in graphs]


def grakel_gram(X: list, lam: float, labelled: bool, method_type: str) -> np.ndarray:
    """GraKeL's ``RandomWalk`` / ``RandomWalkLabeled`` (geometric, n_jobs=None) Gram matrix.

    Any RuntimeWarning is an error here: GraKeL 0.1.11 silently lowers λ with one when
    λ ≥ 1/ρmax² (``_tune_lamda``), and numpy's overflow warnings would hide a divergent series.
    """
    from grakel.kernels import RandomWalk, RandomWalkLabeled

    cls = RandomWalkLabeled if labelled else RandomWalk
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        kernel = cls(lamda=lam, method_type=method_type, kernel_type="geometric", n_jobs=None)
        K = kernel.fit_transform(X)
    if kernel._lamda != lam:  # belt and braces: the λ GraKeL used is the one we asked for
        raise RuntimeError(f"GraKeL used lamda={kernel._lamda!r} instead of {lam!r}.")
    return np.asarray(K, dtype=np.float64)


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    """(fn(), wall seconds)."""
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def max_rel(a: np.ndarray, b: np.ndarray) -> float:
    """max |a − b| / |b| over the entries (b is the reference)."""
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300)))


def commit() -> str:
    """``git rev-parse --short HEAD`` of the repository (``?`` without git)."""
    try:
        out = subprocess.run(["git", "-C", str(_ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    except OSError:
        return "?"
    return out.stdout.strip() or "?"


def machine_note() -> str:
    """CPU count, load and library versions: the context of every timing."""
    import grakel
    import scipy
    import sklearn

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"machine: {platform.machine()}, {os.cpu_count()} cores, load average {load} at start; Python "
        f"{platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"scikit-learn {sklearn.__version__}, GraKeL {grakel.__version__}"
    )


def main() -> int:
    """Both benchmarks with their default options (what ``python -m bench graphs`` runs)."""
    from bench.graphs import equivalence, mutag, scaling

    status = 0
    for suite in (equivalence, mutag, scaling):
        try:
            status |= suite.main([])
        except SystemExit as missing:  # data not found: say so and let the other suites run
            print(missing)
            status = 1
    return status
