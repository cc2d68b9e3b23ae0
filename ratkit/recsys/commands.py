"""``ratkit recsys ...`` subcommands: describe a data set, evaluate a recommender on it."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ratkit.recsys.datasets import Interactions, load_csv, load_lastfm, load_movielens

__all__ = ["register_commands", "load_data", "parse_params"]

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


def parse_params(pairs: list[str]) -> dict[str, Any]:
    """``["loss=hinge", "n_factors=16"]`` → ``{"loss": "hinge", "n_factors": 16}`` (JSON values)."""
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--param expects KEY=VALUE; got {pair!r}.")
        try:
            params[key] = json.loads(raw)
        except json.JSONDecodeError:
            params[key] = raw
    return params


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
        help='model parameter, JSON value (repeatable), e.g. --param loss="hinge"',
    )
    ev.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="smallest rating counted positive (default 4 for MovieLens, every interaction otherwise)",
    )
    ev.add_argument("--min-positives", type=int, default=10, help="drop users with fewer positives (default 10)")
    ev.add_argument("--n-test", type=int, default=5, help="positives held out per user (default 5)")
    ev.add_argument("-k", type=int, nargs="+", default=[1, 3, 5], help="cutoffs for the metrics@k (default 1 3 5)")
    ev.add_argument("--seed", type=int, default=0, help="seed of the split and the model")
    ev.set_defaults(func=_evaluate)


def _info(args: argparse.Namespace) -> int:
    print(load_data(args.data, args.format).describe())
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from ratkit.plugins import get
    from ratkit.recsys.evaluation import evaluate, prepare_leave_k_out

    data = load_data(args.data, args.format)
    threshold = args.threshold
    if threshold is None:
        threshold = _DEFAULT_THRESHOLD.get(args.format)
    train, test, protocol = prepare_leave_k_out(
        data, threshold=threshold, min_positives=args.min_positives, n_test=args.n_test, random_state=args.seed
    )
    params = parse_params(args.param)
    model_cls = get("recommender", args.model)
    if "random_state" in model_cls().get_params() and "random_state" not in params:
        params["random_state"] = args.seed
    model = model_cls(**params).fit(train)
    print(evaluate(model, train, test, replace(protocol, ks=tuple(args.k))).to_text())
    return 0
