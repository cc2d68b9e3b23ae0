"""RationalSVC(representation="automaton") against the trie, end to end, on Reuters-21578 (issue 22).

For each n and category, both fits run in the same process on the same bodies (the
loaders and the fit of :mod:`bench.learners.reuters`), and the ratio automaton / trie of
their wall-clock seconds is reported with both accuracies, primal objectives, passes and
the automaton's W′ size (states + transitions of the numbered minimal automaton, Table
III's |W′|). ``fit_features`` is the build (feature extraction, and for the automaton the
minimisation and the one walk of the patterns through it), ``fit_solver`` the DCD passes.
With ``--repeat R`` each is the best of R fits (the first fit of a process also compiles).

Run from the repository root::

    .venv/bin/python -m bench.learners.automaton_vs_trie --n 4 5 6 7 --json /tmp/aut.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
import warnings
from typing import Any

import numpy as np

from bench.learners.reuters import CATEGORIES, DEFAULT_DATA, _bodies, run_rational
from ratkit.datasets import reuters_modapte


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.learners.automaton_vs_trie", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=DEFAULT_DATA, help=f"Reuters-21578 folder (default {DEFAULT_DATA})")
    p.add_argument("--n", type=int, nargs="+", default=[4, 5, 6, 7], help="n-gram orders (default 4 5 6 7)")
    p.add_argument("--categories", nargs="+", default=list(CATEGORIES), help="categories (default: the 10 largest)")
    p.add_argument("--repeat", type=int, default=1, help="best of this many fits, for each representation")
    p.add_argument("--json", default=None, help="also write every measurement to this JSON file")
    args = p.parse_args(argv)
    warnings.simplefilter("ignore")
    train, test = reuters_modapte(args.data, "train"), reuters_modapte(args.data, "test")
    Xtr, Xte = _bodies(train), _bodies(test)
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"# automaton vs trie, {len(Xtr)} training stories, commit {head}", flush=True)
    print(
        "| n | category | trie s | automaton s | automaton / trie | automaton build s | automaton solver s | "
        "acc. trie | acc. automaton | rel. obj. diff | passes trie / aut. | automaton states + arcs |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    results: dict[str, Any] = {}
    for n in args.n:
        for cat in args.categories:
            y = np.array([1 if cat in d.topics else -1 for d in train])
            yte = np.array([1 if cat in d.topics else -1 for d in test])
            t0 = time.perf_counter()
            trie, _ = run_rational(n, "trie", Xtr, Xte, y, yte, sizes=False, repeat=args.repeat)
            aut, _ = run_rational(n, "automaton", Xtr, Xte, y, yte, sizes=False, repeat=args.repeat)
            ratio = aut["seconds"] / trie["seconds"]
            rel = (aut["objective"] - trie["objective"]) / trie["objective"]
            size = aut["train_automaton_states"] + aut["train_automaton_arcs"]
            results[f"{n}/{cat}"] = {"trie": trie, "automaton": aut, "ratio": ratio, "wall": time.perf_counter() - t0}
            print(
                f"| {n} | {cat} | {trie['seconds']:.2f} | {aut['seconds']:.2f} | {ratio:.1f} | "
                f"{aut['fit_features']:.2f} | {aut['fit_solver']:.2f} | {100 * trie['accuracy']:.2f} | "
                f"{100 * aut['accuracy']:.2f} | {rel:+.1e} | {trie['passes']} / {aut['passes']} | {size:,} |",
                flush=True,
            )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"commit": head, "results": results}, fh, indent=1, default=float)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
