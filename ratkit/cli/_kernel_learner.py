"""``ratkit kernel-learner``: learn the pattern weights of a count-based kernel (survey §VI, QP (63)).

Reads labelled sequences with :func:`ratkit.datasets.load_sequences` (``label<TAB>sequence``
lines, UCI splice.data or the Reuters-21578 folder), fits a
:class:`~ratkit.learners.KernelLearner` and writes the learned kernel as a spec
(``{"family": "count-based", "patterns": [...], "weights": [...]}``), which ``from_spec``
and ``ratkit train --kernel`` read back. ``learn-kernel``, its former name, still works.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from ratkit.cli._argtypes import output_file, positive
from ratkit.cli._common import QP_SOLVERS, add_deprecated_alias, add_format, add_output, add_penalty, add_plot
from ratkit.cli._train import TRAIN_FORMATS

if TYPE_CHECKING:
    import numpy as np

__all__ = ["register_commands"]

_SIGNS = {"+1": 1, "1": 1, "-1": -1}


def register_commands(subparsers: argparse._SubParsersAction) -> None:
    cmd = subparsers.add_parser(
        "kernel-learner",
        aliases=["learn-kernel"],
        help="Learn the weights of a count-based kernel by the QP of survey §VI (eq. (63)).",
        description="Learn μ of K(x, y) = Σ_k μ_k |x|_k |y|_k by the trace-constrained QP (63) "
        "with cvxpy; print the learned kernel's spec (JSON).",
    )
    cmd.add_argument("--data", metavar="PATH", required=True, help="training data (see --format)")
    add_format(cmd, TRAIN_FORMATS)
    cmd.add_argument(
        "--target",
        metavar="LABEL",
        help="LABEL is class +1, every other label −1 (required for Reuters: a topic such as "
        "acq; default: none, the labels must then be +1/1/-1)",
    )
    cmd.add_argument(
        "--spec",
        metavar="SPEC",
        help="a count_based kernel spec (JSON object or .json/.toml file) giving the patterns; "
        "default: the --top most frequent --ngram-grams of the data",
    )
    cmd.add_argument("--ngram", type=positive(int), default=2, help="pattern length without --spec")
    cmd.add_argument("--top", type=positive(int), default=1000, help="number of patterns without --spec")
    cmd.add_argument(
        "--tokens",
        action="store_true",
        help="split sequences on whitespace into tokens (default: one symbol per character)",
    )
    add_penalty(cmd, default=1.0, help="SVM box 0 ≤ α ≤ C")
    add_deprecated_alias(cmd, "--C", "-C", "C", type=positive(float))
    cmd.add_argument(
        "--trace",
        type=positive(float),
        default=None,
        help="trace Λ of the learned kernel matrix (default: that of the uniform kernel)",
    )
    cmd.add_argument(
        "--solver",
        default="CLARABEL",
        type=str.upper,
        choices=QP_SOLVERS,
        help="cvxpy solver",
    )
    add_output(cmd, metavar="PATH", help="write the spec here (default: standard output)")
    add_deprecated_alias(cmd, "--out", "-o/--output", "output", type=output_file, metavar="PATH")
    add_plot(cmd, what="the learned weights μ, largest first, labelled with their patterns")
    cmd.set_defaults(func=_run)


def _signs(labels: list[str], target: str | None, source: str) -> np.ndarray:
    import numpy as np

    from ratkit.exceptions import DataFormatError

    if target is not None:
        return np.where(np.array(labels) == target, 1, -1)
    bad = next((lab for lab in labels if lab not in _SIGNS), None)
    if bad is not None:
        raise DataFormatError(
            f"{source}: label {bad!r} is not +1/1/-1. Give --target LABEL to make LABEL class +1 "
            "and every other label class −1."
        )
    return np.array([_SIGNS[lab] for lab in labels])


def _run(args: argparse.Namespace) -> int:
    import numpy as np

    from ratkit._files import atomic_write
    from ratkit.automata.kernels import to_spec
    from ratkit.datasets import load_sequences
    from ratkit.learners.kernel_learner import KernelLearner

    data = load_sequences(args.data, args.format, split="train", target=args.target)
    sequences = [tuple(s.split()) for s in data.sequences] if args.tokens else data.sequences
    y = _signs(data.labels, args.target, data.source)
    learner = KernelLearner(
        args.spec,
        C=args.C,
        trace=args.trace,
        solver=args.solver,
        ngram_length=args.ngram,
        n_patterns=args.top,
    ).fit(sequences, y)
    spec = json.dumps(to_spec(learner.kernel_), ensure_ascii=False)
    if args.output:
        with atomic_write(args.output, what="kernel spec") as fh:
            fh.write(spec + "\n")
    else:
        print(spec)
    active = int(np.count_nonzero(learner.weights_ > 1e-9 * learner.weights_.max()))
    print(
        f"kernel-learner: {len(sequences)} sequences, {len(learner.patterns_)} patterns, "
        f"{active} with μ > 0; {learner.solver_} status {learner.status_} in "
        f"{learner.solve_time_:.2f} s; value of (63) {learner.objective_:.6g}, "
        f"trace {learner.trace_:.6g}",
        file=sys.stderr,
    )
    if args.output:
        print(f"kernel-learner: spec written to {args.output}", file=sys.stderr)
    if args.plot:
        from ratkit import plots

        labels = [_pattern_label(p) for p in learner.patterns_]
        plots.plot_kernel_weights(learner.weights_.tolist(), labels, args.plot)
        print(f"kernel-learner: weights μ plotted to {args.plot}", file=sys.stderr)
    return 0


def _pattern_label(pattern: object) -> str:
    """A pattern as a bar label: a string as is, a tuple of one-character symbols joined, of tokens spaced."""
    if isinstance(pattern, str):
        return pattern
    from ratkit.automata.alphabet import display_symbols

    return display_symbols([str(t) for t in pattern], sep=" ")  # type: ignore[attr-defined]
