"""``ratkit demo``: the main job on the bundled default data."""

from __future__ import annotations

import argparse

from ratkit.cli._argtypes import non_negative_int, open_fraction

__all__ = ["register_commands"]


def register_commands(subparsers: argparse._SubParsersAction) -> None:
    demo = subparsers.add_parser(
        "demo",
        help="Train RationalSVC on the bundled UCI splice-junction data.",
        description="The main job end to end: train an SVM with a rational kernel (dual coordinate "
        "descent, W′ as a weighted trie) on the bundled splice-junction DNA sequences, report "
        "time, "
        "passes and held-out accuracy/F1, save the model and reload it.",
    )
    demo.add_argument("--test-size", type=open_fraction, default=0.25, help="held-out fraction (default 0.25)")
    demo.add_argument("--seed", type=non_negative_int, default=0, help="seed of the split and the solver (default 0)")
    demo.add_argument("--quiet", action="store_true", help="no progress bars")
    demo.set_defaults(func=_demo)


def _demo(args: argparse.Namespace) -> int:
    from ratkit.demo import run_demo

    out = run_demo(test_size=args.test_size, seed=args.seed, show_progress=not args.quiet)
    return 0 if out["reload_identical"] else 1
