"""``ratkit demo``: the main job on the bundled default data."""

from __future__ import annotations

import argparse

__all__ = ["register_commands"]


def register_commands(subparsers: argparse._SubParsersAction) -> None:
    demo = subparsers.add_parser(
        "demo", help="Run the main job on the bundled UCI splice-junction data.",
        description="Evaluate the bigram rational kernel T∘T⁻¹ on bundled DNA sequences by "
        "transducer composition and check it against direct counting.",
    )
    demo.add_argument("--per-class", type=int, default=4, help="sequences per class (default 4)")
    demo.set_defaults(func=_demo)


def _demo(args: argparse.Namespace) -> int:
    from ratkit.demo import run_demo

    err = run_demo(per_class=args.per_class)
    return 0 if err < 1e-6 else 1
