"""The main job on the bundled data (``ratkit demo`` / ``make demo``).

Trains :class:`~ratkit.learners.RationalSVC` — an SVM on a rational kernel, by dual
coordinate descent with W′ as a weighted trie (Algorithm 4 of the survey) — on the UCI
splice-junction sequences shipped with ratkit, reports the training time, the passes
and the held-out accuracy/F1, then saves the model, reads it back and checks that the
reloaded model predicts the same labels. The model is saved to ``output`` when given (and
kept there), else to a temporary folder that is deleted after the check.

The default kernel is the cosine-normalised 3-gram kernel on positional tokens (each
nucleotide tagged with its position), i.e. 3-mers matching at the same position of
the 60-nt window: the weighted-degree kernel used for splice sites (Rätsch and
Sonnenburg 2004). The three classes (EI, IE, N) are learned one-vs-rest.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ratkit._files import check_output_path
from ratkit.datasets import load_splice
from ratkit.persistence import load_model, save_model
from ratkit.workflow import DEFAULT_SPEC, prepare, split_dataset, train_and_evaluate

__all__ = ["DEMO_SPEC", "run_demo"]

#: The demo's kernel: ``ratkit train``'s default, cosine-normalised 3-gram counts (on positional tokens).
DEMO_SPEC: dict[str, Any] = DEFAULT_SPEC


@contextlib.contextmanager
def _model_file(output: str | os.PathLike | None) -> Iterator[Path]:
    """``output`` (kept), or a file in a temporary folder deleted on exit."""
    if output is not None:
        yield Path(output)
        return
    with tempfile.TemporaryDirectory() as tmp:
        yield Path(tmp) / "splice-model.zip"


def run_demo(
    *,
    test_size: float = 0.25,
    seed: int = 0,
    limit: int | None = None,
    show_progress: bool = False,
    output: str | os.PathLike | None = None,
    print_fn: Callable[[str], Any] = print,
) -> dict[str, Any]:
    """Train, evaluate, save and reload on the bundled splice data; returns the measurements.

    ``limit`` keeps only the first ``limit`` sequences of each class (for quick runs).
    ``output`` is the model file to write and keep (a zip, read by :func:`ratkit.load_model`);
    without it the model goes to a temporary folder, deleted once the reload is checked. The
    result's ``"model_path"`` is the kept file, or None.

    Raises
    ------
    OutputPathError
        ``output`` cannot be written (a folder, or in a missing folder); checked before training.
    """
    if output is not None:
        check_output_path(output, "model file")  # fail before the training, not after
    data = load_splice()
    if limit is not None:
        keep = [
            i for c in sorted(set(data.labels)) for i in [j for j, lab in enumerate(data.labels) if lab == c][:limit]
        ]
        data.sequences = [data.sequences[i] for i in keep]
        data.labels = [data.labels[i] for i in keep]
        data.names = [data.names[i] for i in keep]
    train, test = split_dataset(data, test_size, seed)
    print_fn(
        f"data: UCI splice junctions ({Path(data.source).name}, bundled, CC BY 4.0): "
        f"{len(train)} training and {len(test)} held-out sequences of 60 nt, classes "
        f"{', '.join(sorted(set(data.labels)))}"
    )
    print_fn(f"kernel: {json.dumps(DEMO_SPEC)} on positional tokens (3-mers at equal positions)")
    report = train_and_evaluate(
        train,
        test,
        DEMO_SPEC,
        positional=True,
        C=1.0,
        fit_intercept=True,
        random_state=seed,
        show_progress=show_progress,
    )
    m = report.model
    print_fn(
        f"RationalSVC, W′ as a {m.representation_} of {m.wprime_size_.get('trie_states', 0)} "
        "states, "
        f"one-vs-rest over {len(m.classes_)} classes"
    )
    print_fn(
        f"training time {report.seconds:.2f} s (feature extraction included), "
        f"{report.n_iter} passes, {'converged' if report.converged else 'not converged'}"
    )
    print_fn(f"held-out accuracy {report.accuracy:.4f}, {report.f1_kind} {report.f1:.4f}")
    with _model_file(output) as path:
        written = save_model(m, path, metadata={"positional": True})
        size = written.stat().st_size
        again = load_model(written)
    X = prepare(test.sequences, True)
    same = bool(np.array_equal(again.predict(X), m.predict(X)))
    where = f"to {written}" if output is not None else "to a temporary folder"
    print_fn(
        f"saved the model {where} ({size / 1024:.0f} KiB zip of JSON + arrays), reloaded it: "
        f"{'identical' if same else 'DIFFERENT'} predictions on the held-out set"
    )
    return {
        "accuracy": report.accuracy,
        "f1": report.f1,
        "seconds": report.seconds,
        "n_iter": report.n_iter,
        "reload_identical": same,
        "model_path": written if output is not None else None,
    }
