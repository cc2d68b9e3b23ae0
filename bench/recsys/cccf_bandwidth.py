"""CCCF with its bandwidth h chosen on a validation split, against DCF at equal bits (issue 17).

Protocol 1 of bench/recsys/cccf.py (MovieLens 100K, per user a random half of the ratings
held out, NDCG@10 of the held-out items with gains 2^rating − 1), 5 seeds. For each seed,
the training half is split again per user (seed 100 + s) into an inner training half and a
validation half; h is the one of the grid with the best validation NDCG@10; CCCF(G=8, r=8,
h) refitted on the whole training half is compared with DCF(64 bits) on the test half.

    .venv/bin/python -m bench.recsys.cccf_bandwidth 1.5,2.0,3.0,10.0
"""

import sys

import numpy as np
from threadpoolctl import threadpool_limits

from bench.recsys.cccf import DEFAULT_DATA, ndcg_at, split_half
from ratkit.recsys import CCCF, DCF
from ratkit.recsys.datasets import load_movielens


def ndcg10(model, test):
    users, items = test.nonzero()
    gains = 2.0 ** np.asarray(test[users, items]).ravel() - 1.0
    return ndcg_at(
        users,
        model.score(users, items, exact=True) if isinstance(model, CCCF) else model.score(users, items),
        gains,
        [10],
    )[10].mean()


def main(argv: list[str] | None = None) -> int:
    """Run the comparison; argv[0] is the comma-separated grid of h (default 1.5,2.0,3.0,10.0)."""
    argv = sys.argv[1:] if argv is None else argv
    H = [float(h) for h in argv[0].split(",")] if argv else [1.5, 2.0, 3.0, 10.0]
    data = load_movielens(DEFAULT_DATA).matrix.tocsr()
    diffs = []
    for seed in range(5):
        train, test = split_half(data, seed)
        with threadpool_limits(1):
            val_scores = {}
            inner_train, val = split_half(train, 100 + seed)
            for h in H:
                val_scores[h] = ndcg10(CCCF(8, 8, bandwidth=h, random_state=seed).fit(inner_train), val)
            best = max(val_scores, key=val_scores.get)
            c = ndcg10(CCCF(8, 8, bandwidth=best, random_state=seed).fit(train), test)
            d = ndcg10(DCF(64, random_state=seed).fit(train), test)
            fixed = {h: ndcg10(CCCF(8, 8, bandwidth=h, random_state=seed).fit(train), test) for h in H}
        diffs.append(c - d)
        shown_val = {k: round(float(v), 4) for k, v in val_scores.items()}
        shown_test = {k: round(float(v), 4) for k, v in fixed.items()}
        print(
            f"seed {seed}: validation {shown_val}, chosen h={best}: CCCF {c:.4f}, DCF {d:.4f}; "
            f"test at each h {shown_test}"
        )
    print("mean diff", np.mean(diffs), "std", np.std(diffs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
