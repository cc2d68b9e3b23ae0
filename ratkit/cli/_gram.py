"""``ratkit gram``: the Gram matrix of a kernel spec on a sequence file, written block by block
to a ``.npy`` file (memory-mapped, resumable), on local processes or a Dask cluster.

K_ij = k(x_i, x_j) over the file's sequences (labels, if any, are ignored); see
:mod:`ratkit.automata.kernels.blocked` for the blocks and :mod:`ratkit.automata.kernels.gram_file`
for the manifest and ``--resume``.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any, cast

from ratkit.cli._argtypes import spec_or_path
from ratkit.cli._common import DEFAULT_SPEC, SEQUENCE_FORMATS, add_format, add_output, add_plot, resolve_format
from ratkit.cli._compute import add_compute_arguments, compute_context

__all__ = ["register_commands"]


def _block_bytes(text: str) -> int:
    """An argparse type: a number of bytes ≥ 1 (plain digits, or with a k/M/G suffix: 64M)."""
    units = {"k": 2**10, "m": 2**20, "g": 2**30}
    raw = text.strip()
    scale = units.get(raw[-1:].lower(), 1)
    digits = raw[:-1] if scale > 1 else raw
    if not digits.isdigit() or int(digits) * scale < 1:
        raise argparse.ArgumentTypeError(f"expected a number of bytes ≥ 1 (e.g. 1000000 or 64M), got {text!r}")
    return int(digits) * scale


def register_commands(subparsers: argparse._SubParsersAction) -> None:
    gram = subparsers.add_parser(
        "gram",
        help="Write the Gram matrix of a kernel on a sequence file to a .npy file, block by block.",
        description="Compute K_ij = k(x_i, x_j) over the sequences of a file (labels are ignored) in row "
        "blocks of at most --block-bytes bytes, on local processes (--n-jobs) or a Dask cluster "
        "(--scheduler), writing each block into a memory-mapped .npy file as it arrives. An "
        "interrupted run continues with --resume; the output only appears once every block is in.",
    )
    gram.add_argument(
        "--kernel",
        metavar="SPEC",
        type=spec_or_path,
        default=None,
        help=f"kernel spec: a JSON object or a .json/.toml file (default: {json.dumps(DEFAULT_SPEC)}; "
        "see 'ratkit kernels list')",
    )
    gram.add_argument("--data", metavar="PATH", required=True, help="the sequences (see --format)")
    add_format(gram, SEQUENCE_FORMATS)
    gram.add_argument(
        "--target",
        metavar="LABEL",
        help="Reuters-21578 only: the topic whose ModApte training half is read (default: none)",
    )
    add_output(gram, metavar="OUT.npy", required=True, check=False, help="the Gram matrix file to write (.npy)")
    gram.add_argument(
        "--block-bytes",
        metavar="N",
        type=_block_bytes,
        default=None,
        help="largest block in bytes, at least one row (8 × number of sequences); suffixes k, M, G (default 64M)",
    )
    again = gram.add_mutually_exclusive_group()
    again.add_argument(
        "--resume",
        action="store_true",
        help="continue an interrupted run of the same request (or reuse a finished one)",
    )
    again.add_argument("--overwrite", action="store_true", help="recompute and replace an existing output file")
    add_compute_arguments(gram, what="the Gram blocks")
    add_plot(gram, what="the Gram matrix as a heatmap, rows and columns sorted by class when the data are labelled")
    gram.add_argument("--quiet", action="store_true", help="no progress bar")
    gram.set_defaults(func=_gram)


def _gram(args: argparse.Namespace) -> int:
    """The command: the output path and the kernel are checked before anything else, the
    scheduler reached before the data are read; then the blocks run."""
    from ratkit.automata.kernels import from_spec
    from ratkit.automata.kernels.blocked import write_gram
    from ratkit.automata.kernels.gram_file import check_gram_output, partial_path
    from ratkit.datasets import DataFormat, load_sequences
    from ratkit.exceptions import OutputPathError, ParameterError

    if not args.output.endswith(".npy"):
        raise ParameterError(f"-o/--output must be a path ending in .npy (a NumPy array file); got {args.output!r}.")
    target = check_gram_output(args.output, resume=True, overwrite=False)  # a writable path in an existing folder
    if not (args.resume or args.overwrite) and (target.exists() or partial_path(target).exists()):
        raise OutputPathError(
            f"The Gram matrix file {args.output!r} (or its partial file {partial_path(target).name!r}) already "
            "exists; pass --resume to continue or reuse it, or --overwrite to replace it. It is never overwritten "
            "silently."
        )
    kernel = from_spec(args.kernel if args.kernel is not None else DEFAULT_SPEC)
    with compute_context(args):
        fmt = resolve_format(args.data, args.format, SEQUENCE_FORMATS)
        data = load_sequences(args.data, cast("DataFormat", fmt), split="train", target=args.target)
        X = list(data.sequences)
        print(f"data: {data.source}: {len(X)} sequences")
        print(f"kernel: {json.dumps(kernel.to_spec())}", flush=True)
        start = time.perf_counter()
        # written, not opened: a map of the whole file may not fit in this process's address space
        written = write_gram(
            kernel,
            X,
            out=target,
            block_bytes=args.block_bytes,
            resume=args.resume,
            overwrite=args.overwrite,
            show_progress=not args.quiet,
        )
        seconds = time.perf_counter() - start
    print(
        f"Gram matrix {len(X)} × {len(X)} written to {target} in "
        f"{written.n_blocks} blocks of up to {written.rows_per_block} rows, {seconds:.2f} s"
    )
    if args.plot:
        _plot_gram(written.open(), data.labels, args.plot, title=json.dumps(kernel.to_spec()))
    return 0


def _plot_gram(matrix: Any, labels: list[str], path: str, *, title: str) -> None:
    """The heatmap of ``matrix``, sorted by class when there are ``labels``; says what it drew."""
    from collections import Counter

    import numpy as np

    from ratkit import plots

    drawn = plots.plot_gram(np.asarray(matrix), path, labels=labels or None, title=title)
    if labels:
        counts = ", ".join(f"{c} {n}" for c, n in sorted(Counter(labels).items()))
        print(f"Gram heatmap, rows and columns sorted by class ({counts}), written to {path}")
    else:
        print(f"Gram heatmap (unlabelled data, file order) written to {path}")
    print(f"  {drawn['scale']}")
