"""CCCF at its defaults against DCF at its defaults with as many code bits (issue 34).

Fits exactly ``CCCF(random_state=s)`` (G = 8 components of r = 8 bits: 64 code bits) and
``DCF(n_bits=64, random_state=s)`` on the training half of split seed s and compares them under
protocol 1 of ``bench.recsys.cccf`` (MovieLens 100K, explicit ratings; per user a random ⌊n/2⌋ of
the ratings held out, seeded; each user's held-out rated items ranked by the model's default
scoring path; NDCG@10 with gain 2^rating − 1, ties averaged, mean over users). Seeds
``--first-seed`` .. ``--first-seed + --seeds − 1``: the benchmark's are 0–9; the development runs
that chose CCCF's defaults used 1000 and up, which the benchmark never uses.

The summary gives the per-seed difference CCCF − DCF: mean, standard deviation, standard error,
the 95 % Student-t confidence interval of the mean, and the seeds CCCF wins.

``--variant`` adds CCCF rows with some parameters changed from the defaults, e.g.
``--variant bandwidth=0.7 --variant "bandwidth=2 anchors=kmedoids"`` (the development runs):
each variant is compared with the same DCF fits.

    .venv/bin/python -m bench.recsys.cccf_defaults --seeds 10 --data ../shared/data/movielens-100k/ml-100k
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from bench.recsys.cccf import DEFAULT_DATA, machine, say, split_half
from bench.recsys.cccf_validated import ndcg10, summary
from ratkit.datasets import load_movielens
from ratkit.recsys import CCCF, DCF

#: DCF's code length: CCCF's default G·r
DCF_BITS = 64


def variant(text: str) -> dict[str, Any]:
    """``"key=value key=value"`` → {key: value}, each value read as JSON (numbers, null) or else
    as a string (``anchors=kmedoids``)."""
    out: dict[str, Any] = {}
    for item in text.split():
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise argparse.ArgumentTypeError(f"a variant is 'key=value ...'; got {item!r} in {text!r}")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    CCCF(**out)._validate_params()  # a bad name or value fails here, before any fit
    return out


def label(params: dict[str, Any]) -> str:
    """The row name of CCCF with ``params`` changed from its defaults."""
    return "CCCF(" + ", ".join(f"{k}={v!r}" for k, v in params.items()) + ")"


def fit_timed(model: Any, train: sp.csr_matrix) -> tuple[Any, float]:
    """The model fitted single-threaded, and the seconds it took."""
    with threadpool_limits(1):
        start = time.perf_counter()
        model.fit(train)
    return model, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.recsys.cccf_defaults",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--data", default=DEFAULT_DATA, help=f"ml-100k folder or u.data (default {DEFAULT_DATA})")
    parser.add_argument("--seeds", type=int, default=10, help="number of seeds (default 10)")
    parser.add_argument(
        "--first-seed",
        type=int,
        default=0,
        help="seeds are first-seed .. first-seed + seeds - 1 (default 0; the development runs used 1000)",
    )
    parser.add_argument(
        "--variant",
        type=variant,
        action="append",
        default=[],
        help="also CCCF with these parameters changed, 'key=value ...' (repeatable)",
    )
    args = parser.parse_args(argv)
    data = load_movielens(args.data).matrix.tocsr()
    defaults = CCCF()
    G, r = defaults.n_components, defaults.n_bits
    rows = {"CCCF()": {}} | {label(v): v for v in args.variant}
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    shown = ("n_components", "n_bits", "bandwidth", "anchors", "init", "weight_scale", "alpha_user", "max_iter")
    print(machine() + "\n")
    print(
        "Protocol 1 (rating ranking), MovieLens 100K: NDCG@10 of each user's held-out rated items (a random "
        f"⌊n/2⌋ per user, split seed s), seeds {seeds[0]}..{seeds[-1]}; CCCF(random_state=s) at its defaults "
        f"({', '.join(f'{k}={getattr(defaults, k)!r}' for k in shown)}: {G * r} code bits) against "
        f"DCF(n_bits={DCF_BITS}, random_state=s) at its defaults; every fit single-threaded, after one untimed "
        "fit of each that compiles the kernels.\n"
    )
    names = list(rows)
    with threadpool_limits(1):  # compile the numba kernels before any timed fit
        warm = split_half(data, seeds[0])[0]
        CCCF(max_iter=1, random_state=0).fit(warm)
        DCF(n_bits=DCF_BITS, max_iter=1, random_state=0).fit(warm)
    print(
        "| seed | "
        + " | ".join(names)
        + f" | DCF(n_bits={DCF_BITS}) | "
        + " | ".join(f"{n} − DCF" for n in names)
        + " |"
    )
    print("|---" * (2 + 2 * len(names)) + "|")
    ndcg: dict[str, list[float]] = {name: [] for name in names + ["DCF"]}
    fit_s: dict[str, list[float]] = {name: [] for name in names + ["DCF"]}
    for seed in seeds:
        train, test = split_half(data, seed)
        for name, params in rows.items():
            model, seconds = fit_timed(CCCF(random_state=seed, **params), train)
            ndcg[name].append(ndcg10(model, test))
            fit_s[name].append(seconds)
        model, seconds = fit_timed(DCF(n_bits=DCF_BITS, random_state=seed), train)
        ndcg["DCF"].append(ndcg10(model, test))
        fit_s["DCF"].append(seconds)
        d = ndcg["DCF"][-1]
        cells = " | ".join(f"{ndcg[n][-1]:.4f}" for n in names)
        diffs = " | ".join(f"{ndcg[n][-1] - d:+.4f}" for n in names)
        print(f"| {seed} | {cells} | {d:.4f} | {diffs} |", flush=True)
        say(f"seed {seed} done")
    print()
    for name in names + ["DCF"]:
        values = np.array(ndcg[name])
        print(f"- {name}: NDCG@10 {values.mean():.4f} ± {values.std(ddof=1) if values.size > 1 else 0.0:.4f} "
              f"(mean ± std over seeds); fit {np.mean(fit_s[name]):.2f} s")  # fmt: skip
    print()
    for name in names:
        diffs = np.array(ndcg[name]) - np.array(ndcg["DCF"])
        wins = int((diffs > 0).sum())
        print(f"- {name}: {summary(diffs, f'DCF(n_bits={DCF_BITS})')}; strictly ahead on {wins} of {diffs.size}")
    say("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
