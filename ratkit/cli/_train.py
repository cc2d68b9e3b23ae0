"""``ratkit train`` and ``ratkit predict``: the main job on labelled sequence files.

``train --learner NAME`` takes any registered ``learner`` plugin that takes a ``kernel``
and predicts (default ``rational-svc``), built-in or third-party, with its own parameters
from ``--param KEY=VALUE``; ``predict`` reads any model file with :func:`ratkit.load_model`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ratkit.cli._argtypes import fraction, key_value, non_negative_int, output_file, positive
from ratkit.cli._compute import add_compute_arguments, compute_context

__all__ = ["register_commands"]

_FORMAT_HELP = (
    "data format: 'tsv' (one 'label<TAB>sequence' per line), 'splice' (UCI splice.data), "
    "'reuters' (the Reuters-21578 folder, ModApte split), 'lines' (one unlabelled sequence per line: predict and "
    "gram only), "
    "or 'auto' (default: by file name)"
)


#: The options of ``train`` that set the learner parameter of the same name. Each is passed
#: to the learner when given; when left out, the learner's own default holds. (``--n-jobs``
#: is not one of them: it sets where every parallel step runs, see :func:`_train`.)
_LEARNER_OPTIONS = ("C", "representation", "fit_intercept", "tol", "max_iter")


def register_commands(subparsers: argparse._SubParsersAction) -> None:
    from ratkit.learners._workflow import DEFAULT_LEARNER, DEFAULT_SPEC
    from ratkit.learners.wprime import representation_names

    train = subparsers.add_parser(
        "train",
        help="Train a learner (default RationalSVC) on labelled sequences and report held-out accuracy/F1.",
        description="Train a learner on a labelled sequence file — by default an SVM with a rational "
        "kernel by dual coordinate descent (Algorithm 4 of the survey), or any registered learner "
        "plugin that takes a kernel — print the training time, iterations and held-out accuracy/F1; "
        "write the model.",
    )
    train.add_argument(
        "--learner",
        metavar="NAME",
        default=DEFAULT_LEARNER,
        help=f"a registered learner plugin taking a kernel (default {DEFAULT_LEARNER}; see 'ratkit plugins list')",
    )
    train.add_argument(
        "--kernel",
        metavar="SPEC",
        default=None,
        help=f"kernel spec: a JSON object or a .json/.toml file (default: {json.dumps(DEFAULT_SPEC)})",
    )
    train.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        type=key_value,
        help="a parameter of the learner, JSON value (repeatable), e.g. --param cache_size=500",
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
    train.add_argument("-C", type=positive(float), default=None, help="SVM penalty C (RationalSVC's default 1.0)")
    train.add_argument(
        "--representation",
        default=None,
        choices=representation_names(),
        help="how W′ is held during training (RationalSVC's default trie)",
    )
    train.add_argument("--fit-intercept", action="store_true", default=None, help="learn a bias (the empty pattern ε)")
    train.add_argument(
        "--positional",
        action="store_true",
        help="tag each symbol with its position (aligned sequences: n-grams match at equal "
        "positions, the weighted-degree kernel)",
    )
    train.add_argument("--tol", type=positive(float), default=None, help="stopping tolerance (RationalSVC's 1e-3)")
    train.add_argument(
        "--max-iter", type=positive(int), default=None, help="largest number of passes (RationalSVC's 1000)"
    )
    train.add_argument("--seed", type=non_negative_int, default=0, help="seed of the split and of the coordinate order")
    add_compute_arguments(train, what="feature extraction and the other parallel steps")
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


def _learner_params(args: argparse.Namespace, learner: type) -> dict[str, Any]:
    """The learner's parameters from ``--param`` and the options given, checked against its
    constructor; ``--seed``, ``--quiet`` and ``--n-jobs`` set ``random_state``, ``show_progress`` and
    ``n_jobs`` when it has them."""
    from ratkit.cli._argtypes import parse_params
    from ratkit.exceptions import ParameterError

    params = parse_params(args.param, learner)
    if "kernel" in params:
        raise ParameterError("--param kernel: give the kernel with --kernel SPEC.")
    valid = set(learner._get_param_names())
    for name in _LEARNER_OPTIONS:
        value = getattr(args, name)
        if value is None:
            continue
        flag = "-C" if name == "C" else f"--{name.replace('_', '-')}"
        if name not in valid:
            raise ParameterError(
                f"{flag}: the learner {args.learner!r} ({learner.__name__}) has no parameter {name!r}."
            )
        if name in params:
            raise ParameterError(f"{flag} and --param {name} both set {name!r}; give it once.")
        params[name] = value
    if args.n_jobs is not None and "n_jobs" in params:
        raise ParameterError("--n-jobs and --param n_jobs both set 'n_jobs'; give it once.")
    for name, value in (("random_state", args.seed), ("show_progress", not args.quiet), ("n_jobs", args.n_jobs)):
        if name in valid and value is not None:
            params.setdefault(name, value)
    return params


def _train(args: argparse.Namespace) -> int:
    """The command: everything after the checks runs where ``--scheduler`` / ``--n-jobs`` say
    (on a Dask cluster, or on local processes), every joblib loop included."""
    from ratkit.automata.kernels import from_spec
    from ratkit.learners._workflow import DEFAULT_SPEC, learner_class

    learner = learner_class(args.learner)
    params = _learner_params(args, learner)
    kernel = from_spec(args.kernel if args.kernel is not None else DEFAULT_SPEC)
    with compute_context(args):
        return _train_on(args, kernel, params)


def _train_on(args: argparse.Namespace, kernel: Any, params: dict[str, Any]) -> int:
    from ratkit.datasets import load_sequences
    from ratkit.learners._workflow import split_dataset, train_and_evaluate

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
        train, test, kernel, learner=args.learner, positional=args.positional, positive=args.target, **params
    )
    m = report.model
    how = getattr(m, "representation_", None)
    passes = [] if report.n_iter is None else [f"{report.n_iter} passes"]
    if report.converged is not None:
        passes.append("converged" if report.converged else "NOT converged (raise --max-iter)")
    print(
        f"trained {type(m).__name__}{f' (W′ as {how})' if how else ''} in {report.seconds:.2f} s"
        f"{': ' + ', '.join(passes) if passes else ''}"
    )
    if report.accuracy is not None:
        print(f"held-out accuracy {report.accuracy:.4f}, {report.f1_kind} {report.f1:.4f}")
    if args.output:
        from ratkit._persistence import save_model  # any learner that declares its fitted attributes

        save_model(m, args.output, metadata={"positional": bool(args.positional), "target": args.target})
        print(f"model written to {args.output}")
    return 0


def _predict(args: argparse.Namespace) -> int:
    from ratkit import load_model
    from ratkit._persistence import read_metadata
    from ratkit.datasets import load_sequences, write_tsv
    from ratkit.exceptions import ModelFormatError
    from ratkit.learners._workflow import prepare, scores

    model = load_model(args.model)
    kernel = model.get_params(deep=False).get("kernel", "linear")
    numeric = isinstance(kernel, str) and kernel == "linear"
    if numeric or not callable(getattr(model, "predict", None)):
        what = "on numeric feature vectors" if numeric else "that does not predict labels"
        raise ModelFormatError(
            f"{args.model} holds a {type(model).__name__} {what}; 'ratkit predict' applies sequence models (a "
            "learner with a kernel, as written by 'ratkit train -o'). Load it with ratkit.load_model and use "
            "it from Python instead."
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
