"""The contract of a W′ representation, and the registry the learners pick one from.

Algorithm 4 needs three things of W′ = Σ_i α_i y_i Φ′_i: the diagonal Q_ii = K(x_i, x_i)
(+ s² with an intercept), a pass of coordinate steps that reads the gradient
y_i D(Φ′_i ⋄ W′) − 1 (eq. (54)) and applies W′ += Δ Φ′_i (eq. (53)), and, at the end, the
fitted model W′ stands for. A :class:`WPrime` gives exactly that, for any number of binary
problems on one training set; the solver features — the intercept by augmentation,
shrinking and the stopping rule (:func:`ratkit.learners.dcd.solve`), one-vs-rest,
progress — live once in the learner that drives it
(:meth:`ratkit.learners.svm._base.DualSVCBase._train`).

A new representation is one module with one class decorated by
:func:`register_representation` — a ``representation`` plugin of :mod:`ratkit.plugins`, so a
third-party distribution may name the class in its entry-point group ``ratkit.representations``
instead, and ``ratkit plugins list`` shows it —; ``RationalSVC(representation=name)`` then uses it, and
falls back to the registered ``fallback`` when :meth:`WPrime.build` says the kernel lacks
what it needs (no finite feature map, no factor T).

References
----------
A. Ghose, *Rational kernels: a survey*, §V-B eq. (45)–(54), Algorithm 4, Table II.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

import numpy as np
import scipy.sparse as sp

from ratkit._validation import check_choice
from ratkit.exceptions import ParameterError, ParameterTypeError
from ratkit.learners.wprime import kernel_view as view
from ratkit.plugins import available, get, register

__all__ = [
    "Epoch",
    "TrainingSet",
    "WPrime",
    "PrimalInputs",
    "register_representation",
    "EpochResult",
    "get_representation",
    "representation_names",
    "primal_inputs",
    "dual_solution",
]

#: What one pass returns: (max ∇^P, min ∇^P, new size, Δf), Δf the change of the dual
#: objective f(α) = ½αᵀQα − eᵀα over the pass; a pass that does not track f may return the
#: first three only (its passes are then recorded with f = NaN).
EpochResult = tuple[float, float, int, float] | tuple[float, float, int]
#: One pass of coordinate descent: ``epoch(active, size, max_old, min_old) -> EpochResult``
#: (see :func:`ratkit.learners.dcd.solve`).
Epoch = Callable[[np.ndarray, int, float, float], EpochResult]


@dataclass(frozen=True)
class TrainingSet:
    """What a representation is built from.

    Attributes
    ----------
    kernel
        The resolved kernel: a ratkit kernel (a :class:`~ratkit.automata.kernels.LinearKernel`
        for a numeric matrix whose rows are the Φ′_i), or a callable K(X, Y).
    X
        The training inputs: a list of sequences, or a matrix for a kernel that reads vectors.
    bias
        s, the value of the empty pattern ε in every Φ′_i (an intercept learnt by
        augmentation, K ← K + s²); 0 without an intercept.
    n_jobs, show_progress
        For feature extraction and kernel matrices.
    cache_size
        Megabytes for cached kernel rows or inner products.
    """

    kernel: Any
    X: Any
    bias: float = 0.0
    n_jobs: int | None = None
    show_progress: bool = False
    cache_size: float = 200.0

    @property
    def reads_vectors(self) -> bool:
        """Whether X is a numeric matrix whose rows are their own features
        (:func:`~ratkit.learners.wprime.kernel_view.reads_vectors`)."""
        return view.reads_vectors(self.kernel)

    @property
    def linear(self) -> bool:
        """Deprecated: :attr:`reads_vectors` (the kernel was the string ``"linear"``; it is a
        :class:`~ratkit.automata.kernels.LinearKernel` now)."""
        warnings.warn(
            "TrainingSet.linear is deprecated and will be removed in the next release; use "
            "TrainingSet.reads_vectors (true for a LinearKernel).",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.reads_vectors

    @property
    def shift(self) -> float:
        """s², what the intercept adds to every kernel value."""
        return self.bias**2

    @property
    def n_samples(self) -> int:
        return view.n_rows(self.X)


class WPrime(Protocol):
    """W′ = Σ_i α_i y_i Φ′_i held one way (a row of Table II), for every binary problem of a fit.

    ``build`` makes it from the training set, or returns None when the kernel lacks what
    this representation needs (then the learner tries ``fallback``). ``diagonal`` is
    Q_ii = K(x_i, x_i) + s². For binary problem c with labels y ∈ {−1, +1}ⁿ, ``epoch``
    returns the pass the solver runs, updating ``alpha`` (the row of α for c) in place;
    ``finish(c)`` is called once problem c is solved (bring W′ up to date, free what only
    the run needed). ``solution(alphas, Y)`` returns the fitted attributes W′ stands for
    (``coef_`` and ``feature_map_`` for an explicit W′; ``support_``, ``support_vectors_``
    and ``dual_coef_`` for a kernel expansion) and ``wprime_size_``.
    """

    name: ClassVar[str]
    #: The representation to try when ``build`` returns None (None: this one always builds).
    fallback: ClassVar[str | None]
    #: What ``build`` spends its time on, the key of ``fit_time_`` beside ``"solver"``.
    stage: ClassVar[str]
    diagonal: np.ndarray

    @classmethod
    def build(cls, data: TrainingSet) -> WPrime | None: ...

    def epoch(self, c: int, y: np.ndarray, qinv: np.ndarray, C: float, alpha: np.ndarray) -> Epoch: ...

    def finish(self, c: int) -> None: ...

    def solution(self, alphas: np.ndarray, Y: np.ndarray) -> dict[str, Any]: ...


# The registered names in registration order (the built-ins in the order of Table II, then
# "rows"): the order in which messages and ``ratkit train --help`` list them.
_ORDER: list[str] = []

W = TypeVar("W", bound=type)

_MISSING: Any = object()  # what getattr gives for an attribute a class does not state


def register_representation(name: str, *, fallback: str | None = "rows", stage: str = "features") -> Callable[[W], W]:
    """Class decorator: register a :class:`WPrime` implementation as the ``representation``
    plugin ``name`` (:func:`ratkit.plugins.register`), with its ``fallback`` and ``stage``.

    A third-party distribution may instead name the class in its entry-point group
    ``ratkit.representations`` (or call ``ratkit.plugins.register("representation", name)``);
    the class then states ``fallback`` and ``stage`` itself.
    """

    def decorator(cls: W) -> W:
        register("representation", name)(cls)
        declared: Any = cls  # the class gains the attributes of the WPrime protocol here
        declared.name, declared.fallback, declared.stage = name, fallback, stage
        if name not in _ORDER:
            _ORDER.append(name)
        return cls

    return decorator


def representation_names() -> tuple[str, ...]:
    """The registered representations: those registered here in registration order, then
    any other ``representation`` plugin (an entry point) by name."""
    names = available("representation")
    return tuple([n for n in _ORDER if n in names] + [n for n in names if n not in _ORDER])


def _shown(value: Any) -> str:
    return "nothing" if value is _MISSING else repr(value)


def get_representation(name: Any, owner: str = "RationalSVC") -> type[WPrime]:
    """The representation registered as ``name``, or a ParameterError listing the names.

    A class registered without :func:`register_representation` (an entry point of the group
    ``ratkit.representations``) states ``fallback`` (a representation name or None) and
    ``stage`` (a str) as class attributes; one that does not is refused with a
    ParameterTypeError saying so.
    """
    check_choice(name, "representation", owner, representation_names())
    cls: type[WPrime] = get("representation", name)
    fallback, stage = getattr(cls, "fallback", _MISSING), getattr(cls, "stage", _MISSING)
    if not isinstance(stage, str) or not (fallback is None or isinstance(fallback, str)):
        raise ParameterTypeError(
            f"The W′ representation {name!r} ({cls!r}) must state 'fallback' (a representation name or None) "
            f"and 'stage' (a str) as class attributes; got {_shown(fallback)} and {_shown(stage)}. Register it "
            "with ratkit.learners.wprime.register_representation, which sets them."
        )
    if fallback is not None and fallback not in representation_names():  # pragma: no cover - a registration defect
        raise ParameterError(f"The W′ representation {name!r} falls back to {fallback!r}, which is not registered.")
    return cls


@dataclass(frozen=True)
class PrimalInputs:
    """The explicit features of a training set, as the trie and the automaton read them.

    ``F`` is the (n, p) matrix of Φ′ on ``vocabulary`` (None when the inputs are their own
    features: feature j is then the one-symbol pattern j + 1); ``patterns`` holds the code of every column of the
    augmented rows [s, Φ′_i] — ε (code 0) first when there is an intercept — in ``base``.
    """

    vocabulary: Any
    F: sp.csr_matrix
    patterns: np.ndarray
    base: int


def primal_inputs(data: TrainingSet) -> PrimalInputs | None:
    """The explicit feature map of the training set, or None when the kernel has no finite one."""
    feats = view.explicit_features(data.kernel, data.X, data.n_jobs, data.show_progress)
    if feats is None:
        return None
    vocabulary, F = feats
    if vocabulary is None:  # the columns of X: one-symbol patterns 1..p
        codes, base = np.arange(1, F.shape[1] + 1, dtype=np.int64), F.shape[1] + 1
    else:
        codes, base = vocabulary.pattern_codes()
        codes = np.asarray(codes, dtype=np.int64)
    if data.bias > 0 and codes.size and codes[0] == 0:
        raise ParameterError(
            "fit_intercept=True adds the empty pattern ε to every Φ′_i, but this kernel's "
            "features already contain ε; use fit_intercept=False."
        )
    patterns = np.concatenate([[0], codes]) if data.bias > 0 else codes
    return PrimalInputs(vocabulary, F, patterns, int(base))


def dual_solution(data: TrainingSet, alphas: np.ndarray, Y: np.ndarray) -> dict[str, Any]:
    """The kernel expansion f(x) = Σ_j β_j K(x_j, x) (+ b) of a dual solution: the training
    inputs with α_j > 0 in some problem and their β_j = α_j y_j."""
    support = np.flatnonzero((alphas > 0).any(axis=0))
    X = data.X
    return {
        "support_": support,
        "support_vectors_": view.take(X, support),
        "dual_coef_": (alphas * Y)[:, support],
    }
