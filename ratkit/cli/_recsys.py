"""``ratkit recsys ...`` subcommands: describe a data set, evaluate recommenders on it,
recommend from a saved one.

``evaluate --model NAME [NAME ...]`` takes any registered ``"recommender"`` plugins, built-in
or third-party, with their constructor parameters from ``--param KEY=VALUE``; nothing here
names a model. A model with a ``show_progress`` parameter shows its fit's progress bar
(iterations, objective) on standard error unless ``--quiet`` (``fit(train,
show_progress=True)``: the saved and reported parameters stay the model's). The protocol is
:func:`ratkit.recsys.evaluation.prepare_leave_k_out` with the defaults below, and the
numbers are :func:`ratkit.recsys.evaluation.evaluate`'s, printed as one table by
:func:`ratkit.recsys.evaluation.format_reports`: the user guide's Python example calls the same
functions with the same defaults. The model is fitted on the training part as an
``Interactions``, so a model written by ``-o`` keeps the raw ids and training rows that
``recommend --model FILE`` reads.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from ratkit.cli._argtypes import finite_float, key_value, non_negative_int, parse_params, positive
from ratkit.cli._common import add_output, add_plot, add_seed
from ratkit.cli._compute import add_compute_arguments, compute_context

if TYPE_CHECKING:
    import numpy as np

    from ratkit.datasets import Interactions
    from ratkit.recsys.base import Recommender

__all__ = ["register_commands", "load_data", "recommender_class", "FORMATS", "DEFAULT_MODEL"]

FORMATS = ("movielens100k", "movielens1m", "lastfm", "csv")
_DEFAULT_THRESHOLD = {"movielens100k": 4.0, "movielens1m": 4.0}
DEFAULT_MODEL = "mfauc"


def load_data(path: str, fmt: str) -> Interactions:
    """Load ``path`` in one of :data:`FORMATS`."""
    from ratkit.datasets import load_interactions_csv, load_lastfm, load_movielens

    if fmt == "movielens100k":
        return load_movielens(path, variant="100k")
    if fmt == "movielens1m":
        return load_movielens(path, variant="1m")
    if fmt == "lastfm":
        return load_lastfm(path)
    return load_interactions_csv(path)


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
    recsys = subparsers.add_parser("recsys", help="Recommenders: data sets, evaluation, recommendations.")
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

    rec = sub.add_parser(
        "recommend",
        help="Print the top-N items of users from a saved recommender, by their raw ids.",
        description="Reads a model file (ratkit recsys evaluate ... -o FILE, or Recommender.save) and prints, for "
        "each user, one tab-separated line: the raw user id, then the N recommended raw item ids, best first "
        "(with --scores: each item id followed by its score). Items the user had in training are left out when "
        "the file keeps the training rows (models fitted on an Interactions: the command line's, or Python's "
        "fit(load_csv(...))). A file without id maps (older files, models fitted on a bare matrix) numbers "
        "users and items by their 0-based rows and columns, and says so on standard error.",
    )
    rec.add_argument("--model", required=True, metavar="FILE", help="the model file")
    users = rec.add_mutually_exclusive_group(required=True)
    users.add_argument(
        "--users",
        nargs="+",
        metavar="ID",
        help="raw user ids as in the data file (several allowed), or 'all' for every user of the model "
        "(no default: give --users or --users-file)",
    )
    users.add_argument(
        "--users-file", metavar="FILE", help="a file of raw user ids, one per line (default: none, --users gives them)"
    )
    rec.add_argument("-N", dest="N", type=positive(int), default=10, help="items per user (default: 10)")
    rec.add_argument("--scores", action="store_true", help="print each item's score after its id (default: ids only)")
    rec.add_argument("--batch-size", metavar="N", type=positive(int), default=512, help="users scored per block")
    rec.set_defaults(func=_recommend)


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
        params = _current_spellings(parse_params(args.param, model_cls), model_cls)
        valid = model_cls._get_param_names()
        if "random_state" in valid and "random_state" not in params:
            params["random_state"] = args.seed
        # shown during the fit only: not a parameter of the reported or saved model
        progress = not args.quiet and "show_progress" in valid and "show_progress" not in params
        _one_class_feedback(args, name, valid, params)
        model = model_cls(**params)
        model._validate_params()  # bad parameters fail before the data are read
        models.append((name, model, progress))
    with compute_context(args):
        return _evaluate_on(args, models)


def _one_class_feedback(args: argparse.Namespace, name: str, valid: list[str], params: dict[str, Any]) -> None:
    """One-class data (no --threshold and none by default for the format: every interaction is
    a positive, none is a rating to model) make a model whose ``feedback`` is a parameter learn
    with ``feedback="implicit"`` unless --param gives it; printed on standard error."""
    threshold = args.threshold if args.threshold is not None else _DEFAULT_THRESHOLD.get(args.format)
    if threshold is not None or "feedback" not in valid or "feedback" in params:
        return
    params["feedback"] = "implicit"
    print(
        f"{name}: one-class data (every interaction is a positive, no rating threshold), so it learns with "
        f'feedback="implicit" (every user-item pair fitted, the unobserved ones as weighted negatives); '
        f"--param feedback='\"explicit\"' models the stored values as ratings instead",
        file=sys.stderr,
        flush=True,
    )


def _current_spellings(params: dict[str, Any], model_cls: type[Recommender]) -> dict[str, Any]:
    """``params`` with a renamed parameter's former spelling (the model's ``_renamed``) replaced
    by its current one, and a DeprecationWarning shown for each (the saved and reported model
    then carries the current name); both spellings at once are refused."""
    import warnings

    from ratkit.exceptions import ParameterError

    out: dict[str, Any] = {}
    for key, value in params.items():
        current = model_cls._renamed.get(key)
        if current is not None:
            if current in params:
                raise ParameterError(
                    f"--param {key} and --param {current} both given; {key} is the deprecated spelling of {current}. "
                    f"Give only {current}."
                )
            with warnings.catch_warnings():
                warnings.simplefilter("always", DeprecationWarning)  # shown on the command line too
                warnings.warn(
                    f"--param {key} is deprecated for {model_cls.__name__} and will be removed in the next release; "
                    f"use --param {current}={json.dumps(value)}.",
                    DeprecationWarning,
                    stacklevel=2,
                )
            key = current
        out[key] = value
    return out


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
            feedback=model.feedback,
            as_interactions=True,
        )
        if not args.quiet:
            print(
                f"fitting {name} on {train.shape[0]} users × {train.shape[1]} items ({train.matrix.nnz} entries) …",
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


def _recommend(args: argparse.Namespace) -> int:
    """The command: ``model.recommend`` for the users asked for, printed by raw ids (TSV)."""
    import numpy as np

    from ratkit.exceptions import DataFormatError, MissingDataError
    from ratkit.persistence import load_model, plugin_of
    from ratkit.recsys.base import Recommender

    wanted = _requested_users(args)  # a missing --users-file fails before the model is read
    if not os.path.exists(args.model):
        raise MissingDataError(
            f"--model {args.model!r} does not exist; give a file written by 'ratkit recsys "
            "evaluate ... -o FILE' or Recommender.save."
        )
    model = load_model(args.model)
    if not isinstance(model, Recommender):
        raise DataFormatError(
            f"--model {args.model!r} holds a {plugin_of(model)[1]!r} model, not a recommender; give a file written "
            "by 'ratkit recsys evaluate ... -o FILE' or Recommender.save."
        )
    model._check_fitted()
    user_ids, item_ids = _raw_ids(model)
    if user_ids is None or item_ids is None:
        print(
            f"ratkit recsys recommend: note: {args.model} keeps no raw ids (a model file written before ratkit kept "
            "them, or a model fitted on a bare matrix): users and items are their 0-based row and column numbers",
            file=sys.stderr,
        )
    liked = vars(model).get("user_items_")
    if liked is None:
        print(
            f"ratkit recsys recommend: note: {args.model} keeps no training rows, so the items each user already "
            "had are not left out (refit it on an Interactions, e.g. with ratkit recsys evaluate -o, to keep them)",
            file=sys.stderr,
        )
    users = np.arange(model.n_users_) if wanted is None else _user_rows(model, wanted, source=args.model)
    labels = np.arange(model.n_users_) if user_ids is None else user_ids
    items = np.arange(model.n_items_) if item_ids is None else item_ids
    out = sys.stdout
    for start in range(0, len(users), args.batch_size):
        block = users[start : start + args.batch_size]
        rows = None if liked is None else liked[block]
        ids, scores = model.recommend(block, rows, N=args.N, filter_already_liked_items=rows is not None)
        for user, row_ids, row_scores in zip(block, ids, scores):
            keep = row_ids >= 0
            fields = [str(labels[user])]
            for item, score in zip(row_ids[keep], row_scores[keep]):
                fields.append(str(items[item]))
                if args.scores:
                    fields.append(f"{score:.6g}")
            out.write("\t".join(fields) + "\n")
    out.flush()
    return 0


def _raw_ids(model: Recommender) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The model's raw user and item ids (``user_ids_``, ``item_ids_``, kept when it was fitted
    on an Interactions), None for each it does not keep."""
    state = vars(model)
    return state.get("user_ids_"), state.get("item_ids_")


def _user_rows(model: Recommender, wanted: list[str], *, source: str) -> np.ndarray:
    """The model rows of the raw user ids ``wanted`` (strings, as typed), in their order.

    A model without id maps takes 0-based row numbers. Raises IdOutOfRangeError naming every
    id the model does not have.
    """
    import numpy as np

    from ratkit.exceptions import IdOutOfRangeError

    user_ids, _ = _raw_ids(model)
    if user_ids is None:
        index = {str(u): u for u in range(model.n_users_)}
        kind = "user row numbers 0 to " + str(model.n_users_ - 1) + " (the file keeps no raw ids)"
    else:
        index = {str(u.item() if isinstance(u, np.generic) else u): row for row, u in enumerate(user_ids)}
        kind = f"{model.n_users_} raw user ids of the training data, e.g. {', '.join(list(index)[:3])}"
    unknown = [u for u in wanted if u not in index]
    if unknown:
        shown = ", ".join(repr(u) for u in unknown[:10]) + (
            f" and {len(unknown) - 10} more" if len(unknown) > 10 else ""
        )
        raise IdOutOfRangeError(
            f"{len(unknown)} user id(s) not in the model {source}: {shown}. It knows the {kind}; "
            "a user absent from training (or dropped by evaluate's --min-positives) cannot be recommended for."
        )
    return np.array([index[u] for u in wanted], dtype=np.int64)


def _requested_users(args: argparse.Namespace) -> list[str] | None:
    """The raw user ids asked for, as strings; None for ``--users all``."""
    from ratkit.exceptions import DataFormatError, MissingDataError

    if args.users is not None:
        if args.users == ["all"]:
            return None
        return [u.strip() for u in args.users]
    path = args.users_file
    try:
        with open(path, encoding="utf-8") as handle:
            wanted = [line.strip() for line in handle if line.strip()]
    except FileNotFoundError:
        raise MissingDataError(
            f"--users-file {path!r} does not exist; give a file of raw user ids, one per line."
        ) from None
    if not wanted:
        raise DataFormatError(f"--users-file {path!r} holds no user id; give one raw user id per line.")
    return wanted


def _curves(metrics: dict[str, float]) -> dict[str, dict[int, float]]:
    """``{"precision@1": v, …, "auc": a}`` → ``{"precision": {1: v, …}, …}`` (the @k metrics only)."""
    out: dict[str, dict[int, float]] = {}
    for key, value in metrics.items():
        name, sep, k = key.partition("@")
        if sep:
            out.setdefault(name, {})[int(k)] = value
    return out
