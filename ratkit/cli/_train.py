"""``ratkit train`` and ``ratkit predict``: the main job on labelled sequence files."""

from __future__ import annotations

import argparse
import json
import sys

from ratkit.cli._argtypes import fraction, n_jobs, non_negative_int, output_file, positive

__all__ = ["register_commands"]

_FORMAT_HELP = (
    "data format: 'tsv' (one 'label<TAB>sequence' per line), 'splice' (UCI splice.data), "
    "'reuters' (the Reuters-21578 folder, ModApte split), 'lines' (unlabelled, predict only), "
    "or 'auto' (default: by file name)"
)


def register_commands(subparsers: argparse._SubParsersAction) -> None:
    from ratkit.learners._workflow import DEFAULT_SPEC

    train = subparsers.add_parser(
        "train",
        help="Train RationalSVC on labelled sequences and report held-out accuracy/F1.",
        description="Train an SVM with a rational kernel by dual coordinate descent (Algorithm 4 "
        "of "
        "the survey) on a labelled sequence file; print the training time, iterations and held-out "
        "accuracy/F1; write the model.",
    )
    train.add_argument(
        "--kernel",
        metavar="SPEC",
        default=None,
        help=f"kernel spec: a JSON object or a .json/.toml file (default: {json.dumps(DEFAULT_SPEC)})",
    )
    train.add_argument("--data", metavar="PATH", required=True, help="training data (see --format)")
    train.add_argument("--format", default="auto", choices=["auto", "tsv", "splice", "reuters"], help=_FORMAT_HELP)
    train.add_argument(
        "--target",
        metavar="LABEL",
        help="train LABEL against the rest (required for Reuters: a topic such as acq)",
    )
    train.add_argument(
        "--test-data",
        metavar="PATH",
        help="held-out data (default: a stratified --test-size split; Reuters: the ModApte test half)",
    )
    train.add_argument("--test-size", type=fraction, default=0.25, help="held-out fraction when no --test-data (0.25)")
    train.add_argument(
        "-o", "--output", metavar="MODEL", type=output_file, help="write the model to this file (a zip archive)"
    )
    train.add_argument("-C", type=positive(float), default=1.0, help="SVM penalty C (default 1.0)")
    train.add_argument(
        "--representation",
        default="trie",
        choices=["trie", "automaton", "naive"],
        help="how W′ is held during training (default trie)",
    )
    train.add_argument("--fit-intercept", action="store_true", help="learn a bias (the empty pattern ε)")
    train.add_argument(
        "--positional",
        action="store_true",
        help="tag each symbol with its position (aligned sequences: n-grams match at equal "
        "positions, the weighted-degree kernel)",
    )
    train.add_argument("--tol", type=positive(float), default=1e-3, help="stopping tolerance (default 1e-3)")
    train.add_argument("--max-iter", type=positive(int), default=1000, help="largest number of passes (default 1000)")
    train.add_argument("--seed", type=non_negative_int, default=0, help="seed of the split and of the coordinate order")
    train.add_argument(
        "--n-jobs", type=n_jobs, default=None, help="processes for feature extraction (-1: one per core)"
    )
    train.add_argument("--quiet", action="store_true", help="no progress bars")
    train.set_defaults(func=_train)

    predict = subparsers.add_parser(
        "predict",
        help="Apply a model written by 'ratkit train' to sequences.",
        description="Predict labels of sequences with a saved model; writes 'label<TAB>sequence' "
        "lines "
        "and, when the data carry labels, reports accuracy/F1.",
    )
    predict.add_argument("--model", metavar="MODEL", required=True, help="a model file written by 'ratkit train -o'")
    predict.add_argument("--data", metavar="PATH", required=True, help="sequences (see --format)")
    predict.add_argument(
        "--format",
        default="auto",
        choices=["auto", "tsv", "splice", "reuters", "lines"],
        help=_FORMAT_HELP,
    )
    predict.add_argument("--target", metavar="LABEL", help="Reuters topic (defaults to the model's)")
    predict.add_argument(
        "-o", "--output", metavar="PATH", type=output_file, help="write predictions here (default: standard output)"
    )
    predict.set_defaults(func=_predict)


def _train(args: argparse.Namespace) -> int:
    from ratkit._persistence import save_model
    from ratkit.automata.kernels import from_spec
    from ratkit.datasets import load_sequences
    from ratkit.learners._workflow import DEFAULT_SPEC, split_dataset, train_and_evaluate

    kernel = from_spec(args.kernel if args.kernel is not None else DEFAULT_SPEC)
    data = load_sequences(args.data, args.format, split="train", target=args.target)
    if args.test_data is not None:
        train, test = (
            data,
            load_sequences(args.test_data, args.format, split="test", target=args.target),
        )
    elif data.source.endswith("(ModApte train)"):
        train, test = data, load_sequences(args.data, args.format, split="test", target=args.target)
    elif args.test_size > 0:
        train, test = split_dataset(data, args.test_size, args.seed)
    else:
        train, test = data, None
    print(
        f"data: {data.source}: {len(train)} training, {0 if test is None else len(test)} held-out "
        "sequences; "
        f"classes {', '.join(sorted(set(train.labels)))}"
    )
    print(f"kernel: {json.dumps(kernel.to_spec())}{' on positional tokens' if args.positional else ''}")
    report = train_and_evaluate(
        train,
        test,
        kernel,
        positional=args.positional,
        positive=args.target,
        C=args.C,
        representation=args.representation,
        fit_intercept=args.fit_intercept,
        tol=args.tol,
        max_iter=args.max_iter,
        random_state=args.seed,
        n_jobs=args.n_jobs,
        show_progress=not args.quiet,
    )
    m = report.model
    print(
        f"trained RationalSVC (W′ as {m.representation_}) in {report.seconds:.2f} s: "
        f"{report.n_iter} passes, "
        f"{'converged' if report.converged else 'NOT converged (raise --max-iter)'}"
    )
    if report.accuracy is not None:
        print(f"held-out accuracy {report.accuracy:.4f}, {report.f1_kind} {report.f1:.4f}")
    if args.output:
        save_model(m, args.output, metadata={"positional": bool(args.positional), "target": args.target})
        print(f"model written to {args.output}")
    return 0


def _predict(args: argparse.Namespace) -> int:
    from ratkit._persistence import load_model, read_metadata
    from ratkit.datasets import load_sequences, write_tsv
    from ratkit.learners._workflow import prepare, scores

    model = load_model(args.model)
    if getattr(model, "kernel_", "linear") == "linear":
        from ratkit.exceptions import ModelFormatError

        raise ModelFormatError(
            f"{args.model} holds a {type(model).__name__} on numeric feature vectors; 'ratkit predict' applies "
            "sequence models (RationalSVC with a rational kernel, as written by 'ratkit train -o'). Load it "
            "with ratkit.learners.load_model and call predict on a matrix instead."
        )
    meta = read_metadata(args.model)
    target = args.target if args.target is not None else meta.get("target")
    data = load_sequences(args.data, args.format, split="test", target=target)
    pred = [str(p) for p in model.predict(prepare(data.sequences, bool(meta.get("positional"))))]
    if args.output:
        write_tsv(args.output, data.sequences, pred)
    else:
        sys.stdout.writelines(f"{p}\t{s}\n" for p, s in zip(pred, data.sequences))
    if data.labels:
        acc, f1, kind = scores(model, data.labels, pred, target)
        print(
            f"{len(pred)} sequences: accuracy {acc:.4f}, {kind} {f1:.4f}",
            file=sys.stderr if not args.output else sys.stdout,
        )
    elif args.output:
        print(f"{len(pred)} predictions written to {args.output}")
    return 0
