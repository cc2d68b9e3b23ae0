"""``ratkit recsys ...`` subcommands: describe a data set, evaluate a recommender on it.

``evaluate --model NAME`` takes any registered ``"recommender"`` plugin, built-in or
third-party, with its constructor parameters from ``--param KEY=VALUE``; nothing here
names a model.
"""

from __future__ import annotations

import argparse

from ratkit.cli._argtypes import finite_float, key_value, non_negative_int, output_file, parse_params, positive
from ratkit.cli._compute import add_compute_arguments, compute_context
from ratkit.exceptions import ParameterTypeError
from ratkit.recsys.base import Recommender
from ratkit.recsys.datasets import Interactions, load_csv, load_lastfm, load_movielens

__all__ = ["register_commands", "load_data", "recommender_class"]

FORMATS = ("movielens100k", "movielens1m", "lastfm", "csv")
_DEFAULT_THRESHOLD = {"movielens100k": 4.0, "movielens1m": 4.0}


def load_data(path: str, fmt: str) -> Interactions:
    """Load ``path`` in one of :data:`FORMATS`."""
    if fmt == "movielens100k":
        return load_movielens(path, variant="100k")
    if fmt == "movielens1m":
        return load_movielens(path, variant="1m")
    if fmt == "lastfm":
        return load_lastfm(path)
    return load_csv(path)


def recommender_class(name: str) -> type[Recommender]:
    """The recommender class registered as plugin ``name``.

    Raises
    ------
    UnknownPluginError
        No such plugin; the message lists the available ones.
    ParameterTypeError
        The plugin is not a :class:`~ratkit.recsys.Recommender` subclass.
    """
    from ratkit.plugins import get

    model_cls = get("recommender", name)
    if not (isinstance(model_cls, type) and issubclass(model_cls, Recommender)):
        raise ParameterTypeError(
            f"The recommender plugin {name!r} is {model_cls!r}, not a subclass of ratkit.recsys.Recommender; "
            f"'ratkit recsys evaluate --model' needs a recommender class."
        )
    return model_cls


def _add_data_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data", required=True, help="data file or folder (e.g. ../shared/data/movielens-100k/ml-100k)"
    )
    parser.add_argument(
        "--format", choices=FORMATS, default="movielens100k", help="file format (default: movielens100k)"
    )


def register_commands(subparsers: argparse._SubParsersAction) -> None:
    recsys = subparsers.add_parser("recsys", help="Recommenders: data sets and evaluation.")
    sub = recsys.add_subparsers(dest="recsys_command", metavar="SUBCOMMAND")
    sub.required = True

    info = sub.add_parser("info", help="Load a data set and print its size.")
    _add_data_arguments(info)
    info.set_defaults(func=_info)

    ev = sub.add_parser(
        "evaluate",
        help="Fit a recommender on a leave-k-out split and print every metric with its protocol.",
    )
    _add_data_arguments(ev)
    ev.add_argument("--model", default="mfauc", help="registered recommender plugin name (see 'ratkit plugins list')")
    ev.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        type=key_value,
        help='model parameter, JSON value (repeatable), e.g. --param loss="hinge"',
    )
    ev.add_argument(
        "--threshold",
        type=finite_float,
        default=None,
        help="smallest rating counted positive (default 4 for MovieLens, every interaction otherwise)",
    )
    ev.add_argument(
        "--min-positives", type=non_negative_int, default=10, help="drop users with fewer positives (default 10)"
    )
    ev.add_argument("--n-test", type=positive(int), default=5, help="positives held out per user (default 5)")
    ev.add_argument(
        "-k", type=positive(int), nargs="+", default=[1, 3, 5], help="cutoffs for the metrics@k (default 1 3 5)"
    )
    ev.add_argument("--seed", type=non_negative_int, default=0, help="seed of the split and the model")
    ev.add_argument(
        "-o",
        "--output",
        metavar="MODEL",
        type=output_file,
        default=None,
        help="write the model fitted on the training part to this file (read it with ratkit.load_model)",
    )
    ev.add_argument(
        "--batch-size",
        metavar="N",
        type=positive(int),
        default=512,
        help="users scored per evaluation block (default 512)",
    )
    add_compute_arguments(ev, what="the fit's parallel loops and the evaluation blocks")
    ev.set_defaults(func=_evaluate)


def _info(args: argparse.Namespace) -> int:
    print(load_data(args.data, args.format).describe())
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    """The command: the model is checked first; loading, fitting and evaluation run where
    ``--scheduler`` / ``--n-jobs`` say."""
    model_cls = recommender_class(args.model)
    params = parse_params(args.param, model_cls)
    if "random_state" in model_cls._get_param_names() and "random_state" not in params:
        params["random_state"] = args.seed
    model = model_cls(**params)
    model._validate_params()  # bad parameters fail before the data are read
    with compute_context(args):
        return _evaluate_on(args, model)


def _evaluate_on(args: argparse.Namespace, model: Recommender) -> int:
    from dataclasses import replace

    from ratkit.recsys.evaluation import evaluate, prepare_leave_k_out

    data = load_data(args.data, args.format)
    threshold = args.threshold
    if threshold is None:
        threshold = _DEFAULT_THRESHOLD.get(args.format)
    train, test, protocol = prepare_leave_k_out(
        data,
        threshold=threshold,
        min_positives=args.min_positives,
        n_test=args.n_test,
        random_state=args.seed,
        feedback=type(model).feedback,
    )
    model.fit(train)
    report = evaluate(model, train, test, replace(protocol, ks=tuple(args.k)), batch_size=args.batch_size)
    print(report.to_text())
    if args.output is not None:
        written = model.save(args.output)
        print(f"wrote the fitted model to {written if written is not None else args.output}")
    return 0
