"""The main job as library functions: split, train a learner from a kernel spec, evaluate.

``ratkit train``, ``ratkit predict`` and ``ratkit demo`` are thin wrappers around these.
The learner is any registered ``learner`` plugin that takes a ``kernel`` parameter and
predicts labels (a :class:`Predictor`; default ``rational-svc``).

This module sits above :mod:`ratkit.learners` and :mod:`ratkit.recsys` and below the CLI and
the demo: it only uses their public names and the plugin registry.
"""

from __future__ import annotations

import inspect
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import train_test_split

from ratkit.datasets import SequenceDataset
from ratkit.exceptions import ParameterError, ParameterTypeError, TrainingDataError

__all__ = [
    "DEFAULT_SPEC",
    "DEFAULT_LEARNER",
    "Predictor",
    "learner_class",
    "TrainReport",
    "positional_tokens",
    "prepare",
    "split_dataset",
    "scores",
    "train_and_evaluate",
]

log = logging.getLogger(__name__)

#: The kernel of ``ratkit train`` when none is given: cosine-normalised 3-gram counts.
DEFAULT_SPEC: dict[str, Any] = {"family": "cosine", "kernel": {"family": "ngram", "n": 3}}
#: The learner of ``ratkit train`` when none is given.
DEFAULT_LEARNER = "rational-svc"


@runtime_checkable
class Predictor(Protocol):
    """What a learner plugin must do to be trained and scored here: predict labels.

    The capability is the method itself, declared by the class (``issubclass(cls, Predictor)``):
    a learner plugin that only learns something else (a kernel: ``kernel-learner``) and a
    recommender (which ranks items) are not predictors.
    """

    def predict(self, X: Any) -> Any:
        """The label of every input of X."""
        ...


def learner_class(name: str) -> type:
    """The ``learner`` plugin ``name``, if it is a class that takes a ``kernel`` and is a
    :class:`Predictor`; UnknownPluginError (listing the learners) or ParameterTypeError otherwise."""
    from ratkit.plugins import get

    cls = get("learner", name)
    if not isinstance(cls, type):
        raise ParameterTypeError(f"The learner plugin {name!r} is {cls!r}, not an estimator class.")
    if "kernel" not in inspect.signature(cls).parameters:
        raise ParameterTypeError(
            f"The learner {name!r} ({cls.__name__}) takes no 'kernel' parameter, so it cannot be trained on "
            "sequences with a kernel spec; train it from Python on its own inputs."
        )
    if not issubclass(cls, Predictor):
        raise ParameterTypeError(
            f"The learner {name!r} ({cls.__name__}) does not predict labels (it has no 'predict'), so it "
            "cannot be trained and scored as a classifier here."
        )
    return cls


def positional_tokens(sequences: list[str]) -> list[tuple[str, ...]]:
    """Tag every symbol with its position: ``"GTA"`` → ``("G0", "T1", "A2")``.

    An n-gram kernel on the tagged tokens counts the n-grams two aligned sequences share
    *at the same position* — the weighted-degree kernel of order n (Rätsch and
    Sonnenburg 2004), the usual kernel for fixed windows such as splice sites.
    """
    return [tuple(f"{s}{i}" for i, s in enumerate(x)) for x in sequences]


def prepare(sequences: list[str], positional: bool) -> list[Any]:
    """The inputs the model sees: the sequences, or their positional tokens."""
    return positional_tokens(sequences) if positional else list(sequences)


def split_dataset(data: SequenceDataset, test_size: float, seed: int) -> tuple[SequenceDataset, SequenceDataset]:
    """A stratified random split into (train, held-out) of ``test_size`` ∈ (0, 1)."""
    if not 0.0 < test_size < 1.0:
        raise ParameterError(f"The test size must be a fraction in (0, 1). Got {test_size!r} instead.")
    idx = np.arange(len(data))
    try:
        tr, te = train_test_split(idx, test_size=test_size, stratify=data.labels, random_state=seed)
    except ValueError as exc:
        raise TrainingDataError(f"{data.source}: cannot split {len(data)} examples for testing: {exc}") from None

    def take(rows: np.ndarray) -> SequenceDataset:
        return SequenceDataset(
            [data.sequences[i] for i in rows],
            [data.labels[i] for i in rows],
            [data.names[i] for i in rows] if data.names else [],
            data.source,
        )

    return take(np.sort(tr)), take(np.sort(te))


def scores(model: Any, y_true: list[str], y_pred: list[str], positive: str | None = None) -> tuple[float, float, str]:
    """(accuracy, F1, what the F1 is): F1 of the positive class for two classes (``positive``,
    else ``classes_[1]``), macro-averaged F1 otherwise."""
    classes = [str(c) for c in model.classes_]
    unknown = sorted({str(label) for label in y_true} - set(classes))
    if unknown:
        shown = ", ".join(map(repr, unknown[:5])) + (", …" if len(unknown) > 5 else "")
        raise TrainingDataError(
            f"The labelled data hold {len(unknown)} label(s) the model never saw in training: {shown}; it "
            f"knows {', '.join(map(repr, classes))}. Accuracy and F1 need labels of the model's classes "
            "(or give unlabelled data to predict only)."
        )
    acc = float(accuracy_score(y_true, y_pred))
    if positive is not None and str(positive) not in classes:
        raise ParameterError(
            f"The positive class {positive!r} is not a class of the model ({', '.join(map(repr, classes))}); name one "
            "of them (the F1 would otherwise be another class's)."
        )
    if len(classes) == 2:
        pos = str(positive) if positive is not None else classes[1]
        return (
            acc,
            float(f1_score(y_true, y_pred, pos_label=pos, average="binary", zero_division=0.0)),
            f"F1 of {pos!r}",
        )
    return acc, float(f1_score(y_true, y_pred, average="macro", zero_division=0.0)), "macro F1"


@dataclass
class TrainReport:
    """What :func:`train_and_evaluate` measured (``n_iter`` and ``converged`` as the learner
    reports them in ``n_iter_`` and ``converged_``; None when it does not)."""

    model: Any
    n_train: int
    n_test: int
    seconds: float
    n_iter: int | None
    converged: bool | None
    accuracy: float | None = None
    f1: float | None = None
    f1_kind: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def train_and_evaluate(
    train: SequenceDataset,
    test: SequenceDataset | None,
    kernel: Any = None,
    *,
    learner: str = DEFAULT_LEARNER,
    positional: bool = False,
    positive: str | None = None,
    **params: Any,
) -> TrainReport:
    """Fit ``learner(kernel=kernel, **params)`` on ``train``; score it on ``test`` when given.

    ``learner`` is a registered learner plugin (see :func:`learner_class`), ``kernel``
    anything it takes (a spec by default: :data:`DEFAULT_SPEC`); the reported time is the
    whole fit, feature extraction included.
    """
    model = learner_class(learner)(kernel=DEFAULT_SPEC if kernel is None else kernel, **params)
    start = time.perf_counter()
    model.fit(prepare(train.sequences, positional), train.labels)
    seconds = time.perf_counter() - start
    report = TrainReport(
        model,
        len(train),
        0 if test is None else len(test),
        seconds,
        getattr(model, "n_iter_", None),
        getattr(model, "converged_", None),
    )
    if test is not None and len(test):
        pred = [str(p) for p in model.predict(prepare(test.sequences, positional))]
        report.accuracy, report.f1, report.f1_kind = scores(model, test.labels, pred, positive)
    return report
