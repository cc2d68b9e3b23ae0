"""``ratkit recsys ...`` subcommands: describe a data set, evaluate recommenders on it.

``evaluate --model NAME [NAME ...]`` takes any registered ``"recommender"`` plugins, built-in
or third-party, with their constructor parameters from ``--param KEY=VALUE``; nothing here
names a model. A model with a ``show_progress`` parameter shows its fit's progress bar
(iterations, objective) on standard error unless ``--quiet`` (``fit(train,
show_progress=True)``: the saved and reported parameters stay the model's). The protocol is
:func:`ratkit.recsys.evaluation.prepare_leave_k_out` with the defaults below, and the
numbers are :func:`ratkit.recsys.evaluation.evaluate`'s, printed as one table by
:func:`ratkit.recsys.evaluation.format_reports`: the README's Python example calls the same
functions with the same defaults.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ratkit.cli._argtypes import finite_float, key_value, non_negative_int, parse_params, positive
from ratkit.cli._common import add_output, add_plot, add_seed
from ratkit.cli._compute import add_compute_arguments, compute_context

if TYPE_CHECKING:
    from ratkit.recsys.base import Recommender
    from ratkit.recsys.datasets import Interactions

__all__ = ["register_commands", "load_data", "recommender_class", "FORMATS", "DEFAULT_MODEL"]

FORMATS = ("movielens100k", "movielens1m", "lastfm", "csv")
_DEFAULT_THRESHOLD = {"movielens100k": 4.0, "movielens1m": 4.0}
DEFAULT_MODEL = "mfauc"


def load_data(path: str, fmt: str) -> Interactions:
    """Load ``path`` in one of :data:`FORMATS`."""
    from ratkit.recsys.datasets import load_csv, load_lastfm, load_movielens

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
    from ratkit.exceptions import ParameterTypeError
    from ratkit.plugins import get
    from ratkit.recsys.base import Recommender

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
        "--format",
        choices=FORMATS,
        default="movielens100k",
        help="file format: 'movielens100k' (u.data or its folder), 'movielens1m' (ratings.dat), 'lastfm' (HetRec "
        "2011 user_artists.dat), 'csv' (user,item,rating triples)",
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
        help="Fit recommenders on a leave-k-out split and print their metrics as one table under the protocol.",
        description="The protocol of ratkit.recsys.evaluation.prepare_leave_k_out: positives are ratings ≥ "
        "--threshold, users with fewer than --min-positives positives are dropped, each kept user holds out "
        "--n-test random positives (seeded by --seed, which also seeds each model's random_state); every "
        "model is fitted on the rest and scored by ratkit.recsys.evaluation.evaluate.",
    )
    _add_data_arguments(ev)
    ev.add_argument(
        "--model",
        nargs="+",
        action="extend",
        default=None,
        metavar="NAME",
        help=f"registered recommender plugin names, one or several (repeatable; see 'ratkit plugins list'; "
        f"default: {DEFAULT_MODEL})",
    )
    ev.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        type=key_value,
        help='a model parameter, JSON value (repeatable; set on every --model), e.g. --param loss="hinge" '
        "(default: none, each model's own defaults)",
    )
    ev.add_argument(
        "--threshold",
        type=finite_float,
        default=None,
        help="smallest rating counted positive (default 4 for MovieLens, every interaction otherwise)",
    )
    ev.add_argument("--min-positives", type=non_negative_int, default=10, help="drop users with fewer positives")
    ev.add_argument("--n-test", type=positive(int), default=5, help="positives held out per user")
    ev.add_argument("-k", type=positive(int), nargs="+", default=[1, 3, 5], help="cutoffs for the metrics@k")
    add_seed(ev, what="the split and of each model's random_state")
    add_output(
        ev,
        metavar="MODEL",
        help="write the model fitted on the training part to this file, read it with ratkit.load_model "
        "(one --model only; default: not written)",
    )
    ev.add_argument("--batch-size", metavar="N", type=positive(int), default=512, help="users scored per block")
    add_compute_arguments(ev, what="the fit's parallel loops and the evaluation blocks")
    add_plot(ev, what="the metrics@k curves, one subplot per metric and one line per model")
    ev.add_argument(
        "--quiet",
        action="store_true",
        help="no progress on standard error: no 'fitting …' line and no progress bar (by default a model with "
        "a show_progress parameter shows its iterations and objective while it fits)",
    )
    ev.set_defaults(func=_evaluate)


def _info(args: argparse.Namespace) -> int:
    print(load_data(args.data, args.format).describe())
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    """The command: the models are checked first; loading, fitting and evaluation run where
    ``--scheduler`` / ``--n-jobs`` say."""
    from ratkit.exceptions import ParameterError

    names = args.model or [DEFAULT_MODEL]
    if len(set(names)) < len(names):
        raise ParameterError(f"--model {' '.join(names)}: a model is given twice; give each once.")
    if args.output is not None and len(names) > 1:
        raise ParameterError(f"-o/--output writes one model, but --model gives {len(names)}; give one --model.")
    models = []
    for name in names:
        model_cls = recommender_class(name)
        params = parse_params(args.param, model_cls)
        valid = model_cls._get_param_names()
        if "random_state" in valid and "random_state" not in params:
            params["random_state"] = args.seed
        # shown during the fit only: not a parameter of the reported or saved model
        progress = not args.quiet and "show_progress" in valid and "show_progress" not in params
        model = model_cls(**params)
        model._validate_params()  # bad parameters fail before the data are read
        models.append((name, model, progress))
    with compute_context(args):
        return _evaluate_on(args, models)


def _evaluate_on(args: argparse.Namespace, models: list[tuple[str, Recommender, bool]]) -> int:
    from dataclasses import replace

    from ratkit.recsys.evaluation import evaluate, format_reports, prepare_leave_k_out

    data = load_data(args.data, args.format)
    threshold = args.threshold
    if threshold is None:
        threshold = _DEFAULT_THRESHOLD.get(args.format)
    curves: dict[str, dict[str, dict[int, float]]] = {}
    reports = []
    for name, model, progress in models:
        train, test, protocol = prepare_leave_k_out(
            data,
            threshold=threshold,
            min_positives=args.min_positives,
            n_test=args.n_test,
            random_state=args.seed,
            feedback=type(model).feedback,
        )
        if not args.quiet:
            print(
                f"fitting {name} on {train.shape[0]} users × {train.shape[1]} items ({train.nnz} entries) …",
                file=sys.stderr,
                flush=True,
            )
        # progress shown for this fit only: the reported and saved parameters stay the model's
        model.fit(train, show_progress=True if progress else None)
        report = evaluate(model, train, test, replace(protocol, ks=tuple(args.k)), batch_size=args.batch_size)
        reports.append(report)
        curves[name] = _curves(report.metrics)
    print(format_reports(reports), flush=True)
    if args.output is not None:
        written = models[0][1].save(args.output)
        print(f"wrote the fitted model to {written if written is not None else args.output}")
    if args.plot:
        from ratkit import plots

        plots.plot_metrics_at_k(curves, args.plot)
        print(f"metrics@k plot ({', '.join(curves)}) written to {args.plot}")
    return 0


def _curves(metrics: dict[str, float]) -> dict[str, dict[int, float]]:
    """``{"precision@1": v, …, "auc": a}`` → ``{"precision": {1: v, …}, …}`` (the @k metrics only)."""
    out: dict[str, dict[int, float]] = {}
    for key, value in metrics.items():
        name, sep, k = key.partition("@")
        if sep:
            out.setdefault(name, {})[int(k)] = value
    return out
