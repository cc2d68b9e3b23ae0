"""``ratkit demo``: the main job on the bundled default data."""

from __future__ import annotations

import argparse

from ratkit.cli._argtypes import open_fraction
from ratkit.cli._common import add_seed

__all__ = ["register_commands"]


def register_commands(subparsers: argparse._SubParsersAction) -> None:
    demo = subparsers.add_parser(
        "demo",
        help="Train RationalSVC on the bundled UCI splice-junction data.",
        description="The main job end to end: train an SVM with a rational kernel (dual coordinate "
        "descent, W′ as a weighted trie) on the bundled splice-junction DNA sequences, report "
        "time, passes and held-out accuracy/F1, save the model to a temporary folder, reload it and "
        "compare the predictions (the folder is deleted afterwards; 'ratkit train -o MODEL' keeps a model).",
    )
    demo.add_argument("--test-size", type=open_fraction, default=0.25, help="held-out fraction")
    add_seed(demo, what="the split and the solver")
    demo.add_argument("--quiet", action="store_true", help="no progress bars")
    demo.set_defaults(func=_demo)


def _demo(args: argparse.Namespace) -> int:
    from ratkit.datasets import BUNDLED_SPLICE
    from ratkit.demo import run_demo

    out = run_demo(test_size=args.test_size, seed=args.seed, show_progress=not args.quiet)
    print(
        "outputs: none kept — the model was written to a temporary folder for the reload check and deleted with "
        f"it; to keep one: ratkit train --data {BUNDLED_SPLICE} --positional --fit-intercept -o MODEL.zip"
    )
    return 0 if out["reload_identical"] else 1
