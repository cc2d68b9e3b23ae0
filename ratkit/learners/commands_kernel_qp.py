"""``ratkit learn-kernel``: learn the pattern weights of a count-based kernel (survey §VI, QP (63)).

Reads labelled sequences (one ``label<TAB>sequence`` per line), fits a
:class:`~ratkit.learners.kernel_qp.KernelLearner` and writes the learned kernel as a spec
(``{"family": "count_based", "patterns": [...], "weights": [...]}``), which ``from_spec``
and every command taking ``--spec`` read back.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ratkit.automata.kernels import to_spec
from ratkit.exceptions import DataFormatError, MissingDataError
from ratkit.learners.kernel_qp import KernelLearner
from ratkit.learners.kernel_qp_solve import QP_SOLVERS

__all__ = ["register_commands", "read_labelled"]

_SIGNS = {"+1": 1, "1": 1, "-1": -1}


def _positive(kind: type) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not value > 0 or value == float("inf"):
            raise argparse.ArgumentTypeError(
                f"expected a{'n int' if kind is int else ' float'} > 0, got {text!r}"
            )
        return value

    return parse


def register_commands(subparsers: argparse._SubParsersAction) -> None:
    cmd = subparsers.add_parser(
        "learn-kernel",
        help="Learn the weights of a count-based kernel by the QP of survey §VI (eq. (63)).",
        description="Learn μ of K(x, y) = Σ_k μ_k |x|_k |y|_k by the trace-constrained QP (63) "
        "with cvxpy; print the learned kernel's spec (JSON).",
    )
    cmd.add_argument(
        "--data", required=True, help="labelled sequences: one 'label<TAB>sequence' per line"
    )
    cmd.add_argument(
        "--spec",
        help="a count_based kernel spec (JSON string or .json/.toml file) giving the "
        "patterns; default: the --top most frequent --ngram-grams of the data",
    )
    cmd.add_argument(
        "--ngram", type=_positive(int), default=2, help="pattern length without --spec (default 2)"
    )
    cmd.add_argument(
        "--top",
        type=_positive(int),
        default=1000,
        help="number of patterns without --spec (default 1000)",
    )
    cmd.add_argument(
        "--tokens",
        action="store_true",
        help="split sequences on whitespace into tokens (default: one symbol per character)",
    )
    cmd.add_argument(
        "--positive",
        help="the label of class +1 (every other label is −1); default: labels must be +1/1/-1",
    )
    cmd.add_argument(
        "--C", type=_positive(float), default=1.0, help="SVM box 0 ≤ α ≤ C (default 1)"
    )
    cmd.add_argument(
        "--trace",
        type=_positive(float),
        default=None,
        help="trace Λ of the learned kernel matrix (default: that of the uniform kernel)",
    )
    cmd.add_argument(
        "--solver",
        default="CLARABEL",
        type=str.upper,
        choices=QP_SOLVERS,
        help="cvxpy solver (default CLARABEL)",
    )
    cmd.add_argument("--out", help="write the learned spec here instead of standard output")
    cmd.set_defaults(func=_learn_kernel)


def read_labelled(
    path: str | Path, tokens: bool = False
) -> tuple[list[str | tuple[str, ...]], list[str]]:
    """(sequences, labels) of a file of ``label<TAB>sequence`` lines; blank lines are skipped.

    With ``tokens`` a sequence is split on whitespace into a tuple of tokens.
    """
    file = Path(path)
    if not file.is_file():
        raise MissingDataError(
            f"Labelled-sequence file {str(file)!r} not found; expected one "
            "'label<TAB>sequence' per line."
        )
    sequences: list[str | tuple[str, ...]] = []
    labels: list[str] = []
    for lineno, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        label, tab, seq = line.partition("\t")
        if not tab or not label.strip() or not seq.strip():
            raise DataFormatError(
                f"{file}, line {lineno}: expected 'label<TAB>sequence', got {line[:80]!r}."
            )
        labels.append(label.strip())
        sequences.append(tuple(seq.split()) if tokens else seq.strip())
    if not sequences:
        raise DataFormatError(f"{file}: no sequences found; expected lines 'label<TAB>sequence'.")
    return sequences, labels


def _signs(labels: list[str], positive: str | None, file: str) -> np.ndarray:
    if positive is not None:
        return np.where(np.array(labels) == positive, 1, -1)
    bad = next((lab for lab in labels if lab not in _SIGNS), None)
    if bad is not None:
        raise DataFormatError(
            f"{file}: label {bad!r} is not +1/1/-1. Give --positive LABEL to make LABEL class +1 "
            "and every other label class −1."
        )
    return np.array([_SIGNS[lab] for lab in labels])


def _learn_kernel(args: argparse.Namespace) -> int:
    sequences, labels = read_labelled(args.data, tokens=args.tokens)
    y = _signs(labels, args.positive, args.data)
    learner = KernelLearner(
        args.spec,
        C=args.C,
        trace=args.trace,
        solver=args.solver,
        ngram_length=args.ngram,
        n_patterns=args.top,
    ).fit(sequences, y)
    spec = json.dumps(to_spec(learner.kernel_), ensure_ascii=False)
    if args.out:
        Path(args.out).write_text(spec + "\n", encoding="utf-8")
    else:
        print(spec)
    active = int(np.count_nonzero(learner.weights_ > 1e-9 * learner.weights_.max()))
    print(
        f"learn-kernel: {len(sequences)} sequences, {len(learner.patterns_)} patterns, "
        f"{active} with μ > 0; {learner.solver_} status {learner.status_} in "
        f"{learner.solve_time_:.2f} s; value of (63) {learner.objective_:.6g}, "
        f"trace {learner.trace_:.6g}",
        file=sys.stderr,
    )
    return 0
