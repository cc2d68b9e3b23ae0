"""``ratkit train`` and ``ratkit predict``: the main job on labelled sequence files.

``train --learner NAME`` takes any registered ``learner`` plugin that takes a ``kernel``
and predicts (default ``rational-svc``), built-in or third-party, with its own parameters
from ``--param KEY=VALUE``; ``predict`` reads any model file with :func:`ratkit.load_model`.
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
from typing import TYPE_CHECKING, Any, cast

from ratkit.cli._argtypes import fraction, key_value, positive, spec_or_path
from ratkit.cli._common import (
    DEFAULT_LEARNER,
    DEFAULT_SPEC,
    SEQUENCE_FORMATS,
    add_format,
    add_output,
    add_penalty,
    add_plot,
    add_seed,
    resolve_format,
)
from ratkit.cli._compute import add_compute_arguments, compute_context

if TYPE_CHECKING:
    from ratkit.datasets import DataFormat

__all__ = ["register_commands", "TRAIN_FORMATS", "PREDICT_FORMATS"]

#: ``--format`` of the commands that need labels, and of those that do not.
TRAIN_FORMATS = ("auto", "tsv", "splice", "reuters")
PREDICT_FORMATS = SEQUENCE_FORMATS


#: The options of ``train`` that set the learner parameter of the same name. Each is passed
#: to the learner when given; when left out, the learner's own default holds. (``--n-jobs``
#: is not one of them: it sets where every parallel step runs, see :func:`_train`.)
#: The parameter kinds that are no named parameter of a learner (``*args``, ``**kwargs``).
_VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
_LEARNER_OPTIONS = ("C", "representation", "fit_intercept", "tol", "max_iter")


def register_commands(subparsers: argparse._SubParsersAction) -> None:
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
        help="a registered learner plugin taking a kernel (see 'ratkit plugins list')",
    )
    train.add_argument(
        "--kernel",
        metavar="SPEC",
        type=spec_or_path,
        default=None,
        help=f"kernel spec: a JSON object or a .json/.toml file (default: {json.dumps(DEFAULT_SPEC)}; "
        "see 'ratkit kernels list')",
    )
    train.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        type=key_value,
        help="a parameter of the learner, JSON value (repeatable), e.g. --param cache_size=500 (default: none)",
    )
    train.add_argument("--data", metavar="PATH", required=True, help="training data (see --format)")
    add_format(train, TRAIN_FORMATS)
    train.add_argument(
        "--target",
        metavar="LABEL",
        help="train LABEL against the rest (required for Reuters: a topic such as acq; default: every class)",
    )
    train.add_argument(
        "--test-data",
        metavar="PATH",
        help="held-out data (default: a stratified --test-size split; Reuters: the ModApte test half)",
    )
    train.add_argument("--test-size", type=fraction, default=0.25, help="held-out fraction when no --test-data")
    add_output(train, metavar="MODEL", help="write the model to this file, a zip archive (default: not written)")
    add_penalty(train, default=None, help="SVM penalty C (default: the learner's, 1.0 for RationalSVC)")
    train.add_argument(
        "--representation",
        metavar="NAME",
        default=None,
        help="how W′ is held during training: a registered W′ representation (default: the learner's, trie for "
        "RationalSVC; an unknown name is refused with the list of registered ones)",
    )
    train.add_argument("--fit-intercept", action="store_true", default=None, help="learn a bias (the empty pattern ε)")
    train.add_argument(
        "--positional",
        action="store_true",
        help="tag each symbol with its position (aligned sequences: n-grams match at equal "
        "positions, the weighted-degree kernel)",
    )
    train.add_argument(
        "--tol",
        type=positive(float),
        default=None,
        help="stopping tolerance (default: the learner's, 1e-3 for RationalSVC)",
    )
    train.add_argument(
        "--max-iter",
        type=positive(int),
        default=None,
        help="largest number of passes (default: the learner's, 1000 for RationalSVC)",
    )
    add_seed(train, what="the split and of the coordinate order")
    add_compute_arguments(train, what="feature extraction and the other parallel steps")
    add_plot(train, what="the DCD convergence (dual objective and projected-gradient gap per pass)")
    train.add_argument("--quiet", action="store_true", help="no progress bars")
    train.set_defaults(func=_train)

    predict = subparsers.add_parser(
        "predict",
        help="Apply a model written by 'ratkit train' to sequences.",
        description="Predict labels of sequences with a saved model; writes 'label<TAB>sequence' "
        "lines and, when the data carry labels, reports accuracy/F1.",
    )
    predict.add_argument("--model", metavar="MODEL", required=True, help="a model file written by 'ratkit train -o'")
    predict.add_argument("--data", metavar="PATH", required=True, help="sequences (see --format)")
    add_format(predict, PREDICT_FORMATS)
    predict.add_argument("--target", metavar="LABEL", help="Reuters topic (default: the model's)")
    add_output(predict, metavar="PATH", help="write predictions here (default: standard output)")
    predict.add_argument(
        "--scores",
        action="store_true",
        help="write the model's decision values beside the labels: a header line 'label<TAB>score:C…<TAB>sequence', "
        "then one line per sequence; two classes give one column, score:B for the second class B (positive "
        "means B), more classes one column per class in the model's order (default: labels only)",
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
    valid = {p.name for p in inspect.signature(learner).parameters.values() if p.kind not in _VARIADIC}
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
    from ratkit.workflow import DEFAULT_SPEC

    learner = _learner_class(args.learner)
    params = _learner_params(args, learner)
    if args.representation is not None:
        _check_representation(args.representation)
    kernel = from_spec(args.kernel if args.kernel is not None else DEFAULT_SPEC)
    with compute_context(args):
        return _train_on(args, kernel, params)


def _learner_class(name: str) -> type:
    """The learner plugin ``name`` if ``train`` can use it (it takes a kernel and predicts);
    for a name no plugin has, an UnknownPluginError listing only the learners ``train``
    accepts — not every learner plugin, some of which it would then refuse."""
    from ratkit.exceptions import RatkitError, UnknownPluginError
    from ratkit.plugins import available
    from ratkit.workflow import learner_class

    try:
        return learner_class(name)
    except UnknownPluginError:
        pass
    accepted = []
    for other in available("learner"):
        try:
            learner_class(other)
        except RatkitError:  # takes no kernel, does not predict, or a plugin that fails to load
            continue
        accepted.append(other)
    raise UnknownPluginError(
        f"No learner plugin named {name!r}. 'ratkit train' takes a learner plugin that takes a kernel and "
        f"predicts labels: {', '.join(accepted) or '(none)'} ('ratkit plugins list' shows every plugin)."
    )


def _check_representation(name: str) -> None:
    """A ParameterError unless ``name`` is a registered W′ representation (checked before any work)."""
    from ratkit.exceptions import ParameterError
    from ratkit.learners.wprime import representation_names

    names = representation_names()
    if name not in names:
        raise ParameterError(
            f"--representation {name!r}: expected a registered W′ representation, one of {', '.join(map(repr, names))}."
        )


def _train_on(args: argparse.Namespace, kernel: Any, params: dict[str, Any]) -> int:
    from ratkit.datasets import load_sequences
    from ratkit.workflow import split_dataset, train_and_evaluate

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
        from ratkit.persistence import save_model  # any learner that declares its fitted attributes

        save_model(m, args.output, metadata={"positional": bool(args.positional), "target": args.target})
        print(f"model written to {args.output}")
    if args.plot:
        _plot_convergence(m, args.plot)
    return 0


def _plot_convergence(model: Any, path: str) -> None:
    """Print the last pass of ``model.convergence_`` (a fitted DCD learner's) and plot every pass."""
    from ratkit import plots
    from ratkit.exceptions import ParameterError

    if "convergence_" not in vars(model):
        raise ParameterError(
            f"--plot draws the DCD convergence, but the {type(model).__name__} learner reports none (no "
            "convergence_ after fit); use a DCD learner such as rational-svc, or leave out --plot."
        )
    conv = model.convergence_
    print(
        f"DCD convergence: {len(conv['pg_gap'])} passes, last dual objective {conv['dual_objective'][-1]:.6g}, "
        f"last projected-gradient gap {conv['pg_gap'][-1]:.6g} (tol {conv['tol']:g})"
    )
    plots.plot_dcd_convergence(conv, path)
    print(f"convergence plot written to {path}")


def _reads_vectors(kernel: Any) -> bool:
    """Whether a learner's ``kernel`` parameter is a LinearKernel, or names its family: the model
    then reads numeric feature vectors, not sequences."""
    from ratkit.automata.kernels import LinearKernel
    from ratkit.plugins import available, get

    if isinstance(kernel, str) and kernel in available("kernel"):
        family = get("kernel", kernel)
        return isinstance(family, type) and issubclass(family, LinearKernel)
    return isinstance(kernel, LinearKernel)


def _predict(args: argparse.Namespace) -> int:
    from ratkit import load_model
    from ratkit._files import atomic_write
    from ratkit.datasets import load_sequences, write_tsv
    from ratkit.exceptions import DataFormatError, ModelFormatError
    from ratkit.persistence import read_metadata
    from ratkit.workflow import Predictor, prepare, scores

    model = load_model(args.model)
    params = model.get_params(deep=False)
    if not isinstance(model, Predictor):  # first: a recommender does not predict, and has no kernel either
        what: str | None = "that does not predict labels"
    elif "kernel" not in params or _reads_vectors(params["kernel"]):  # a learner without one reads vectors
        what = "on numeric feature vectors"
    else:
        what = None
    if what is not None:
        raise ModelFormatError(
            f"{args.model} holds a {type(model).__name__} {what}; 'ratkit predict' applies sequence models (a "
            "learner with a kernel, as written by 'ratkit train -o'). Load it with ratkit.load_model and use "
            "it from Python instead."
        )
    if args.scores and not callable(getattr(model, "decision_function", None)):
        raise ModelFormatError(
            f"--scores: {args.model} holds a {type(model).__name__}, which has no decision_function, so there "
            "are no scores to write. Leave out --scores."
        )
    meta = read_metadata(args.model)
    target = args.target if args.target is not None else meta.get("target")
    fmt = cast("DataFormat", resolve_format(args.data, args.format, PREDICT_FORMATS))  # one of PREDICT_FORMATS
    data = load_sequences(args.data, fmt, split="test", target=target)
    # a text with line breaks or TABs (a Reuters story) cannot be a column of label<TAB>sequence
    # lines: its document id stands for it (its NEWID), as the note below says
    multiline = any("\n" in s or "\r" in s or "\t" in s for s in data.sequences)
    if multiline and not data.names:
        raise DataFormatError(
            f"{args.data}: some sequences hold line breaks or TABs and have no names, so the predictions cannot be "
            "written as label<TAB>sequence lines. Give the data one sequence per line."
        )
    shown = list(data.names) if multiline else data.sequences
    X = prepare(data.sequences, bool(meta.get("positional")))
    pred = [str(p) for p in model.predict(X)]
    # the scores first: labels the model never saw are refused before any output is written
    summary = scores(model, data.labels, pred, target) if data.labels else None
    if args.scores:
        lines = _scored_lines(model, X, pred, shown)
        if args.output:
            with atomic_write(args.output, what="predictions file") as fh:
                fh.writelines(lines)
        else:
            sys.stdout.writelines(lines)
    elif args.output:
        write_tsv(args.output, shown, pred)
    else:
        sys.stdout.writelines(f"{p}\t{s}\n" for p, s in zip(pred, shown))
    if shown is not data.sequences:
        print(
            f"the texts span several lines: each line holds label<TAB>document id ({len(shown)} documents)",
            file=sys.stderr,
        )
    if summary is not None:
        acc, f1, kind = summary
        print(
            f"{len(pred)} sequences: accuracy {acc:.4f}, {kind} {f1:.4f}",
            file=sys.stderr if not args.output else sys.stdout,
        )
    if args.output:
        print(f"{len(pred)} predictions written to {args.output}")
    return 0


def _scored_lines(model: Any, X: list[Any], pred: list[str], shown: list[str]) -> list[str]:
    """The lines of ``predict --scores``: a header ``label<TAB>score:C…<TAB>sequence``, then
    ``label<TAB>value…<TAB>sequence`` per sequence, the values of ``model.decision_function``
    (shortest round-trip floats). Two classes give one column named after the second class
    (positive means it, as in scikit-learn); more give one column per class, in the order of
    ``classes_``."""
    import numpy as np

    values = np.asarray(model.decision_function(X), dtype=np.float64)
    values = values.reshape(len(pred), -1)
    classes = [str(c) for c in model.classes_]
    names = classes[1:] if values.shape[1] == 1 and len(classes) == 2 else classes
    if len(names) != values.shape[1]:
        from ratkit.exceptions import ModelFormatError

        raise ModelFormatError(
            f"--scores: the {type(model).__name__} model gives {values.shape[1]} decision values per sequence "
            f"for its {len(classes)} classes; expected one for two classes or one per class."
        )
    header = "\t".join(["label", *(f"score:{c}" for c in names), "sequence"]) + "\n"
    return [header] + [
        "\t".join([p, *(repr(float(v)) for v in row), s]) + "\n" for p, row, s in zip(pred, values, shown)
    ]
