"""Combined kernels on the trie: the fit of a sum of two n-gram kernels against the fits of its parts.

A sum of kernels with finite feature maps has one too (the parts' blocks side by side), so
``RationalSVC`` trains it on the trie exactly as it trains each part. Before, a sum fell back
to kernel rows, which on the 7 063 ModApte training stories need the l × l matrix (about
400 MB and every kernel value computed). This benchmark times, per category and in the same
run, the fit of the sum and the fits of its parts (each end to end: feature extraction and
solver), and reports the ratio fit(sum) / (fit(part 1) + fit(part 2)) against the target of
at most 1.5.

The parts are ``cosine(ngram(a))`` and ``cosine(ngram(b))`` (the normalisation of the
learners benchmark) and the sum is ``cosine(ngram(a)) + cosine(ngram(b))``. ``--raw`` takes
the unnormalised ``ngram(a)``, ``ngram(b)`` and ``ngram(a) + ngram(b)`` instead; with C = 1
the raw bigram-count dual does not reach tol = 1e-3 within max_iter (its fit time is then
max_iter passes, not a solve), so a ratio is reported as valid only when all three fits
converged. ``--rows`` also times, for scale, the kernel-rows path on the sum (for the first
category): ``representation="rows"`` with a ``cache_size`` that holds the whole l × l matrix,
so the matrix is computed once and DCD runs on it, and checks that it reaches the trie's
objective; it also times one kernel row computed on demand, which is what every step that
changes α costs when the matrix does not fit (the default ``cache_size=200`` MB holds 3 711
of the 7 063 rows).

Run from the repository root::

    .venv/bin/python -m bench.learners.combined_kernels --data ../shared/data/reuters21578 --repeat 3
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time
import warnings
from typing import Any

import numpy as np

from bench.learners.reuters import C, _bodies, best_of
from ratkit.automata import kernels
from ratkit.datasets import reuters_modapte
from ratkit.learners import RationalSVC

DEFAULT_DATA = os.path.join("..", "shared", "data", "reuters21578")
CATEGORIES = ("acq", "earn", "crude", "grain", "money-fx")
TARGET = 1.5


def _fit(kernel: Any, X: list[str], y: np.ndarray) -> RationalSVC:
    return RationalSVC(kernel, C=C, representation="trie", fit_intercept=True, random_state=0).fit(X, y)


def _objective(m: RationalSVC, X: list[str], y: np.ndarray) -> float:
    """½(‖w‖² + b²) + C Σ max(0, 1 − y_i f(x_i)), with ‖w‖² + b² = Σ_i α_i y_i f(x_i) (f = Σ_j α_j y_j
    (K(x_j, ·) + s²)), so the same formula holds for the trie and for kernel rows."""
    f = m.decision_function(X)
    return 0.5 * float((m.alpha_[0] * y) @ f) + C * float(np.maximum(0.0, 1.0 - y * f).sum())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.learners.combined_kernels", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=DEFAULT_DATA, help=f"Reuters-21578 folder (default {DEFAULT_DATA})")
    p.add_argument("--orders", type=int, nargs=2, default=[2, 3], metavar=("A", "B"), help="the sum's n-gram orders")
    p.add_argument("--categories", nargs="+", default=list(CATEGORIES), help="categories (default: 5 largest)")
    p.add_argument("--repeat", type=int, default=1, help="time every fit this many times and keep the best")
    p.add_argument("--rows", action="store_true", help="also time the kernel-rows path on the sum (one category)")
    p.add_argument("--raw", action="store_true", help="unnormalised n-gram counts instead of cosine-normalised parts")
    args = p.parse_args(argv)
    if not os.path.isdir(args.data):
        print(f"Reuters-21578 not found at {args.data!r} (expected the reut2-*.sgm files there); skipped.")
        return 0
    warnings.simplefilter("ignore")
    train = reuters_modapte(args.data, "train")
    X = _bodies(train)
    a, b = args.orders
    parts = [kernels.ngram(a), kernels.ngram(b)]
    if not args.raw:
        parts = [kernels.cosine(k) for k in parts]
    total = parts[0] + parts[1]
    names = [repr(k) for k in parts]
    # load numba's compiled code before any timing (the first fit of a process pays for it)
    _fit(total, X, np.array([1 if args.categories[0] in d.topics else -1 for d in train]))
    print(
        f"# Reuters-21578 ModApte: {len(X)} training stories; {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}; times: best of {args.repeat}\n"
        f"# parts: {names[0]}, {names[1]}; sum: {total!r}",
        flush=True,
    )
    print(
        f"| category | fit part {a} s | fit part {b} s | fit sum s | sum / parts | passes {a} / {b} / sum "
        f"| converged {a} / {b} / sum | W′ of sum |"
    )
    print("|---|---:|---:|---:|---:|---|---|---|")
    ratios, parts_seconds, sum_models, unconverged = [], {}, {}, []
    for cat in args.categories:
        y = np.array([1 if cat in d.topics else -1 for d in train])
        t_parts, passes, converged = [], [], []
        for k in parts:
            seconds, mk = best_of(args.repeat, lambda k=k: _fit(k, X, y))
            t_parts.append(seconds)
            passes.append(mk.n_iter_)
            converged.append(mk.converged_)
        t_sum, m = best_of(args.repeat, lambda: _fit(total, X, y))
        converged.append(m.converged_)
        ratio = t_sum / sum(t_parts)
        if all(converged):
            ratios.append(ratio)
        else:
            unconverged.append(cat)
        parts_seconds[cat], sum_models[cat] = sum(t_parts), m
        print(
            f"| {cat} | {t_parts[0]:.2f} | {t_parts[1]:.2f} | {t_sum:.2f} | {ratio:.2f}× | "
            f"{passes[0]} / {passes[1]} / {m.n_iter_} | {' / '.join(map(str, converged))} | "
            f"{m.representation_}, {m.coef_.shape[1]:,} features |",
            flush=True,
        )
    if unconverged:
        print(f"\nno valid ratio for {', '.join(unconverged)}: a fit stopped at max_iter without converging")
    if ratios:
        worst = max(ratios)
        print(
            f"\nworst ratio {worst:.2f}× over {len(ratios)} categories with every fit converged "
            f"(target ≤ {TARGET}×): {'met' if worst <= TARGET else 'MISSED'}; mean {float(np.mean(ratios)):.2f}×"
        )
    if args.rows:
        cat = args.categories[0]
        y = np.array([1 if cat in d.topics else -1 for d in train])
        matrix_mb = 8 * len(X) ** 2 / 2**20
        cache = math.ceil(matrix_mb) + 1  # the whole l × l matrix fits: computed once, DCD on it
        t0 = time.perf_counter()
        m = RationalSVC(total, C=C, representation="rows", fit_intercept=True, random_state=0, cache_size=cache).fit(
            X, y
        )
        seconds = time.perf_counter() - t0
        trie = sum_models[cat]
        o_rows, o_trie = _objective(m, X, y), _objective(trie, X, y)
        print(
            f"kernel rows on the sum ({cat}, l × l matrix {matrix_mb:.0f} MB, cache_size={cache}): {seconds:.1f} s "
            f"(kernel matrix {m.fit_time_['kernel']:.1f} s, solver {m.fit_time_['solver']:.1f} s; "
            f"{m.representation_}, {m.n_iter_} passes, converged {m.converged_}), "
            f"{seconds / parts_seconds[cat]:.1f}× the parts' fits; "
            f"primal objective rows {o_rows:.6f} vs trie {o_trie:.6f} (relative difference "
            f"{(o_rows - o_trie) / abs(o_trie):+.1e})",
            flush=True,
        )
        row_seconds, _ = best_of(args.repeat, lambda: total.gram([X[0]], X))
        print(
            f"one kernel row on demand (K(x_0, X), features of all {len(X)} stories): {row_seconds:.2f} s; "
            f"the default cache_size=200 MB holds {int(200 * 2**20 // (8 * len(X))):,} of the {len(X):,} rows"
        )
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
