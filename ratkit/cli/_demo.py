"""``ratkit demo``: the main job on the bundled default data."""

from __future__ import annotations

import argparse

from ratkit.cli._argtypes import open_fraction
from ratkit.cli._common import add_output, add_seed

__all__ = ["register_commands"]


def register_commands(subparsers: argparse._SubParsersAction) -> None:
    demo = subparsers.add_parser(
        "demo",
        help="Train RationalSVC on the bundled UCI splice-junction data.",
        description="The main job end to end: train an SVM with a rational kernel (dual coordinate "
        "descent, W′ as a weighted trie) on the bundled splice-junction DNA sequences, report "
        "time, passes and held-out accuracy/F1, save the model, reload it and compare the predictions. "
        "The model is kept with -o MODEL.zip; without it, it goes to a temporary folder that is deleted "
        "after the check.",
    )
    demo.add_argument("--test-size", type=open_fraction, default=0.25, help="held-out fraction")
    add_seed(demo, what="the split and the solver")
    add_output(
        demo,
        metavar="MODEL.zip",
        help="keep the trained model in this file, read it with ratkit.load_model or 'ratkit predict --model' "
        "(default: a temporary folder, deleted after the reload check)",
    )
    demo.add_argument("--quiet", action="store_true", help="no progress bars")
    demo.set_defaults(func=_demo)


def _demo(args: argparse.Namespace) -> int:
    from ratkit.demo import run_demo

    out = run_demo(test_size=args.test_size, seed=args.seed, show_progress=not args.quiet, output=args.output)
    if args.output is not None:
        print(f"model written to {args.output}")
    else:
        print(
            "outputs: none kept — the model was written to a temporary folder for the reload check and deleted "
            "with it; to keep it: ratkit demo -o MODEL.zip"
        )
    return 0 if out["reload_identical"] else 1
