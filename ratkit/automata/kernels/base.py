"""The contract of a kernel: :class:`Kernel`, the base class of every kernel family.

A kernel is a plain callable: ``k(x, y)`` on two inputs returns a float, ``k(X, Y)`` on two
collections returns the Gram matrix, so kernels drop into ``sklearn.svm.SVC(kernel=k)``,
pipelines and ``GridSearchCV``. :meth:`Kernel.gram` is the one concrete method that validates
and dispatches — in memory, or in row blocks into a ``.npy`` file
(:mod:`ratkit.automata.kernels.blocked`) — and calls the family's :meth:`Kernel._gram`, as
an estimator's ``fit`` calls ``_fit``. What inputs a kernel reads is in
:mod:`ratkit.automata.kernels.inputs`; rational kernels, defined by a weighted transducer,
in :mod:`ratkit.automata.kernels.rational`.
"""

from __future__ import annotations

import inspect
import os
import re
import warnings
from numbers import Real
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from ratkit.automata.kernels import inputs
from ratkit.automata.kernels._paths import TooManyPaths
from ratkit.automata.kernels.blocked import blocked_gram
from ratkit.automata.kernels.features import Vocabulary
from ratkit.automata.kernels.inputs import _bytes_error, _describe
from ratkit.exceptions import ParameterTypeError

if TYPE_CHECKING:
    import pynini

__all__ = ["Kernel"]


class Kernel(BaseEstimator):
    """Base class of ratkit kernels, and the contract of a kernel family.

    A kernel is callable (``k(x, y)``, ``k(X, Y)``), fills Gram matrices and is a
    scikit-learn estimator (``get_params``, ``set_params``, ``clone``); ``k1 + k2``,
    ``k1 * k2`` and ``c * k`` build the kernel algebra of
    :mod:`ratkit.automata.kernels.algebra`.

    **A kernel family** is a subclass whose parameters are its ``__init__`` arguments,
    each stored under its own name (scikit-learn's convention), and that computes its Gram
    matrices in :meth:`_gram` (the one required hook; :meth:`gram` is not overridden). It
    states its spec name once, by its registration —
    ``@ratkit.plugins.register("kernel", NAME)``, or an entry point of the group
    ``ratkit.kernels`` — and :func:`~ratkit.automata.kernels.from_spec` /
    :func:`~ratkit.automata.kernels.to_spec` then build it from and write it to
    ``{"family": NAME, **parameters}``. A family with a finite feature map subclasses
    :class:`~ratkit.automata.kernels.RationalKernel` instead and only has to give its
    counting transducer T.
    Everything else is an optional hook, declared here with its default:

    - :attr:`_gram_takes_n_jobs`: False, :meth:`_gram` does not take ``n_jobs`` (then
      ``gram(X, n_jobs=k)`` computes row blocks on k processes);
    - :meth:`gram_with` ``(X, Y, **options)``: ``gram(X, Y)``, the options ignored;
    - :meth:`value`, :meth:`diag`: from :meth:`gram`;
    - :meth:`split_scale`: (0.0, self), no common scale of the weights to take out;
    - :attr:`is_pds`: None (unknown);
    - :attr:`is_nds`: None (unknown), whether K is negative definite symmetric (Definition 6),
      which decides whether :func:`~ratkit.automata.kernels.exp_kernel` of it is PDS;
    - :meth:`_validate_params`: nothing to check;
    - :meth:`learned_params`: ``{}``;
    - :meth:`content_params`: ``{}``, every parameter its own content (a file path is not);
    - :meth:`fit_features`, :meth:`transform_features` (the explicit feature map):
      :class:`TooManyPaths`, no finite feature map;
    - :meth:`check_vocabulary`: no check;
    - :meth:`feature_automata`: None, no feature automata Φ′_i;
    - :meth:`gram_features`: the feature map of :meth:`fit_features` when there is one,
      for Gram matrices computed block by block;
    - the spec form, :attr:`_spec_required`, :attr:`_spec_file_keys`, :meth:`_spec_keys`,
      :meth:`_spec_params` and :meth:`_from_spec_params`: the ``__init__`` parameters as
      they are, none naming a file.

    :meth:`gram` is the one public entry of every family, a plugin's too: it takes
    ``gram(X, Y=None, *, n_jobs=None, out=None, block_bytes=None, resume=False,
    overwrite=False, **options)`` and calls the family's :meth:`_gram` with ``options``, or
    with ``out="gram.npy"`` computes the matrix in row blocks of at most ``block_bytes``
    bytes, each written into a memory-mapped file as it arrives (resumable with
    ``resume=True``; an existing file is replaced only with ``overwrite=True``), on local
    processes or, under ``joblib.parallel_config(backend="dask")``, on the Dask cluster
    (:mod:`ratkit.automata.kernels.blocked`).
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Warn a family that overrides :meth:`gram` (the former contract): it keeps
        working in memory, without ``out=`` and the other keywords; :meth:`_gram` is the hook."""
        super().__init_subclass__(**kwargs)
        if "gram" in cls.__dict__:
            warnings.warn(
                f"{cls.__qualname__} overrides Kernel.gram; define _gram(self, X, Y=None, **options) instead. "
                "Kernel.gram validates and dispatches (out=, block_bytes=, resume=, overwrite=, n_jobs=) and "
                "calls _gram; an overriding gram loses those keywords. Overriding gram is deprecated and will "
                "stop working in the next release.",
                DeprecationWarning,
                stacklevel=2,
            )

    #: True when the kernel is PDS by construction, False when known not to be, None unknown.
    is_pds: bool | None = None
    #: True when the kernel is negative definite symmetric by construction, False when known
    #: not to be, None unknown: exp(−t·K) is PDS for every t > 0 iff K is NDS (Theorem 3).
    is_nds: bool | None = None
    #: True when :meth:`_gram` takes ``n_jobs`` (the family spreads its own work over
    #: processes); False: ``gram(X, n_jobs=k)`` computes row blocks of the matrix on k processes.
    _gram_takes_n_jobs: ClassVar[bool] = False
    #: The parameters a spec must state (those whose default is no choice a spec should make
    #: silently); parameters without a default are required anyway.
    _spec_required: ClassVar[tuple[str, ...]] = ()
    #: The spec keys whose value names a file the kernel reads (a transducer's ``path``):
    #: :func:`~ratkit.automata.kernels.from_spec` with ``files=False`` (a spec read from a
    #: model file, which never reaches outside itself) refuses a spec holding one of them.
    _spec_file_keys: ClassVar[tuple[str, ...]] = ()

    def __repr__(self, N_CHAR_MAX: int = 700) -> str:
        """``Family(p=v, …)`` on one line: every positional-or-keyword parameter, and the
        keyword-only ones that differ from their default."""
        shown = [
            f"{name}={_one_line(repr(value))}"
            for name, value, keyword_only, default in self._param_items()
            if not (keyword_only and default)
        ]
        text = f"{type(self).__name__}({', '.join(shown)})"
        if len(text) > N_CHAR_MAX:
            half = max(N_CHAR_MAX // 2 - 2, 1)
            text = f"{text[:half]}...{text[-half:]}"
        return text

    def _param_items(self) -> list[tuple[str, Any, bool, bool]]:
        """(name, value, keyword-only, equal to its default) of every ``__init__`` parameter."""
        params = self.get_params(deep=False)
        out = []
        for name, p in _init_parameters(type(self)).items():
            if name in params:
                value = params[name]
                out.append((name, value, p.kind is inspect.Parameter.KEYWORD_ONLY, _is_default(value, p.default)))
        return out

    def __call__(self, X: Any, Y: Any = None) -> Any:
        if isinstance(X, (bytes, bytearray, memoryview)):
            raise _bytes_error("x", X)
        if inputs.is_single(X):
            if isinstance(Y, (bytes, bytearray, memoryview)):
                raise _bytes_error("y", Y)
            if Y is None or not inputs.is_single(Y):
                raise ParameterTypeError(
                    f"k(x, y) needs two sequences (or lattices, or graphs); x is a {type(X).__name__} but y is "
                    f"{_describe(Y)}. For Gram matrices pass collections: k(X, Y)."
                )
            return self.value(X, Y)
        return self.gram(X, Y)

    # -- values ------------------------------------------------------------------------
    def gram(
        self,
        X: Any,
        Y: Any = None,
        *,
        n_jobs: int | None = None,
        out: str | os.PathLike[str] | None = None,
        block_bytes: int | None = None,
        resume: bool = False,
        overwrite: bool = False,
        **options: Any,
    ) -> np.ndarray:
        """The matrix [K(x_i, y_j)] of two collections (Y = None: X against itself, symmetric).

        Parameters
        ----------
        X, Y
            Collections of inputs (see :mod:`ratkit.automata.kernels.inputs`).
        n_jobs
            Processes to use: given to :meth:`_gram` when the family takes it
            (:attr:`_gram_takes_n_jobs`), else the rows are computed in blocks on them.
        out
            A path ending in ``.npy``: the matrix is written there block by block and
            returned as a read-only memory map (:func:`~ratkit.automata.kernels.blocked.blocked_gram`).
        block_bytes
            The most bytes of one row block (default 64 MiB); given without ``out``, the
            blocks are computed in memory.
        resume, overwrite
            Continue an interrupted ``out`` file (or reuse a finished one), or replace an
            existing one; never both.
        **options
            The family's own options (``strategy``, ``show_progress``, …), passed to
            :meth:`_gram`; in blocks, to every block's (``show_progress`` then draws the
            bar of the blocks).
        """
        if out is None and block_bytes is None and not resume and not overwrite:
            if n_jobs is None:
                return self._gram(X, Y, **options)
            if self._gram_takes_n_jobs:
                options["n_jobs"] = n_jobs
                return self._gram(X, Y, **options)
        return blocked_gram(
            self, X, Y, n_jobs=n_jobs, out=out, block_bytes=block_bytes, resume=resume, overwrite=overwrite, **options
        )

    def _gram(self, X: Any, Y: Any = None) -> np.ndarray:
        """The family's Gram matrix [K(x_i, y_j)] in memory (Y = None: X against itself), called
        by :meth:`gram`. A family may take keyword options after ``Y`` (``strategy=…``);
        ``n_jobs`` only when :attr:`_gram_takes_n_jobs` says so. The one required hook."""
        raise NotImplementedError(f"{type(self).__name__} must define _gram(self, X, Y=None).")

    def gram_with(self, X: Any, Y: Any = None, **options: Any) -> np.ndarray:
        """:meth:`gram` with keyword ``options`` where this family takes them (ratkit's
        families take ``strategy``, ``n_jobs`` and ``show_progress``; combinators pass them to
        their parts). The default ignores them: ``gram(X, Y)``."""
        return self.gram(X, Y)

    def value(self, x: Any, y: Any) -> float:
        """K(x, y) for two sequences."""
        return float(self.gram([x], [y])[0, 0])

    def diag(self, X: Any) -> np.ndarray:
        """[K(x, x) for x in X]."""
        return np.array([self.value(x, x) for x in inputs.as_collection(X)], dtype=np.float64)

    def split_scale(self) -> tuple[float, Kernel]:
        """(s, K′) with K = e^s · K′: the kernel's common scale taken out of its weights, as a
        logarithm, and the kernel of the weights divided by it (brought toward 1).

        A cosine normalisation is invariant to that scale and computes with K′; a scaled,
        summed or multiplied kernel computes K′'s values and applies e^s last, so that weights
        whose squares or products leave float64's range (1e200, 1e-170) give every value that
        is itself a float. The default: (0.0, self), no scale to take out.
        """
        return 0.0, self

    # -- parameters --------------------------------------------------------------------
    def _validate_params(self) -> None:
        """Raise a ValueError or TypeError (a :class:`~ratkit.exceptions.RatkitError`) naming
        the parameter when one is invalid. Called by the factories and by ``from_spec``, and
        by the family itself before it computes; the default has nothing to check."""

    def _validate_options(self) -> None:
        """Raise a :class:`~ratkit.exceptions.ParameterError` naming the option when one of the
        computation options a family stores (``strategy``, ``n_jobs``, ``show_progress``) is
        invalid, so that a factory or a spec refuses it before any Gram matrix is asked for.
        Called by the factories and by ``from_spec``; the default has nothing to check."""

    def learn(self, X: Any) -> None:
        """Fix, from the inputs ``X`` of a whole Gram matrix, what this kernel infers from the
        data it sees (the mismatch kernel's alphabet Σ), before the matrix is computed in
        blocks: every block then uses the same, as one in-memory call would. The default:
        nothing to learn. Combinations pass it to their parts."""

    def _value_state(self) -> tuple[str, dict[str, Any]]:
        """What determines this kernel's values, for a fingerprint: its class, its parameters
        other than the execution options (kernel-valued ones by their own state), what it
        learned (:meth:`learned_params`) and the content its parameters name
        (:meth:`content_params`), without its caches."""
        params = {k: v for k, v in self.get_params(deep=False).items() if k not in _EXECUTION_PARAMS}
        params.update(self.learned_params())
        params.update(self.content_params())
        kind = type(self)
        return f"{kind.__module__}.{kind.__qualname__}", {k: _state_of(v) for k, v in sorted(params.items())}

    def learned_params(self) -> dict[str, Any]:
        """The parameters this kernel fixed from the data it has seen, by parameter name.

        A family that learns from data (the mismatch kernel infers Σ when no alphabet is
        given) returns what it learned as the values its parameters would need to
        reproduce it, so that :meth:`to_spec` — and a model file — rebuild the kernel it
        was trained with. The default: nothing learned, ``{}``.
        """
        return {}

    def content_params(self) -> dict[str, Any]:
        """The parameters whose value only names what determines the kernel (a file path),
        by parameter name, each given as that content (the loaded transducer).

        A Gram written to a file fingerprints the kernel by its parameters, so that a resumed
        run refuses another kernel; a parameter that names a file would let a file edited
        between the runs pass. The default: every parameter is its own content, ``{}``.
        """
        return {}

    # -- explicit feature map ------------------------------------------------------------
    def fit_features(
        self, X: Any, *, n_jobs: int | None = None, show_progress: bool | None = None, work_bytes: int | None = None
    ) -> tuple[Vocabulary, sp.csr_matrix]:
        """(vocabulary, F): the columns X's features occupy, and X's (n, p) CSR feature matrix,
        with ⟨F_i, F_j⟩ = K(x_i, x_j) — in particular ‖F_i‖² = K(x_i, x_i). ``work_bytes``
        bounds the working memory of the extraction beyond F and its vocabulary (ranges of
        sequences, :func:`~ratkit.automata.kernels.features.chunked_vocabulary_matrix`);
        None: one pass over all of X.

        Raises :class:`TooManyPaths` when the kernel has no finite feature map, or one too
        large to enumerate (then a learner uses kernel rows); that is the default.
        """
        raise TooManyPaths(f"{self!r} has no finite feature map")

    def transform_features(
        self, vocabulary: Vocabulary, X: Any, *, n_jobs: int | None = None, show_progress: bool | None = None
    ) -> sp.csr_matrix:
        """X's feature matrix on the columns of a ``vocabulary`` from :meth:`fit_features`:
        features outside it are dropped, which leaves every inner product with a fitted row
        unchanged. Raises :class:`VocabularyError` for a vocabulary of another kernel."""
        raise TooManyPaths(f"{self!r} has no finite feature map")

    def gram_features(
        self,
        X: Any,
        Y: Any = None,
        *,
        n_jobs: int | None = None,
        show_progress: bool | None = None,
        work_bytes: int | None = None,
    ) -> tuple[sp.csr_matrix, sp.csr_matrix] | None:
        """(F, G), feature rows of X and of Y (Y None: G is F) with K(x_i, y_j) = ⟨F_i, G_j⟩, for
        a Gram matrix computed block by block from one feature extraction; None when the
        kernel has no finite feature map (the blocks then call :meth:`gram_with`).

        The default: :meth:`fit_features` on X and Y together (as :meth:`gram` reads them),
        split into their rows; None on :class:`TooManyPaths`. A family whose own Gram
        algorithm is cheaper than its features (a dynamic programme) returns None.
        ``work_bytes`` goes to :meth:`fit_features` (when given: a family that overrides it
        without that keyword keeps working).
        """
        X = inputs.as_collection(X, "X")
        both = X if Y is None else X + inputs.as_collection(Y, "Y")
        budget = {} if work_bytes is None else {"work_bytes": work_bytes}
        try:  # X and Y together, as gram does: an inferred alphabet covers the symbols of both
            _, F = self.fit_features(both, n_jobs=n_jobs, show_progress=show_progress, **budget)
        except TooManyPaths:
            return None
        F = sp.csr_matrix(F)
        return (F, F) if Y is None else (F[: len(X)], F[len(X) :])

    def check_vocabulary(self, vocabulary: Vocabulary, columns: np.ndarray) -> None:
        """Raise :class:`VocabularyError` (a ValueError) when the features of these columns of
        ``vocabulary`` cannot be produced by this kernel (a model file whose kernel was
        edited, say). The default checks nothing."""

    def feature_automata(self, X: Any) -> tuple[list[pynini.Fst], bool] | None:
        """(Φ′_i = Π2(X_i ∘ T) as olabel-sorted log64 acceptors, cosine) with K(x_i, x_j) =
        D(Φ′_i ⋄ Φ′_j) — divided by the norms of both when ``cosine`` — for the naive
        representation of W′; None (the default) when the kernel has no such automata."""
        return None

    # -- spec form -------------------------------------------------------------------------
    @classmethod
    def _spec_keys(cls) -> tuple[str, ...] | None:
        """The keys a spec of this family accepts besides ``family``: its ``__init__``
        parameters, or None (any key) when ``__init__`` takes ``**kwargs``."""
        params = _init_parameters(cls, keep_var_keyword=True)
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            return None
        return tuple(params)

    @classmethod
    def _spec_required_keys(cls) -> tuple[str, ...]:
        """The keys a spec must state: :attr:`_spec_required` and the parameters without default."""
        params = _init_parameters(cls)
        missing = [n for n, p in params.items() if p.default is inspect.Parameter.empty]
        return tuple(dict.fromkeys([*cls._spec_required, *missing]))

    def _spec_params(self, *, inline: bool = False) -> dict[str, Any]:
        """The parameters as a spec writes them: ``get_params(deep=False)`` less the keyword-only
        ones left at their default and the unset (None by default) ones, plus
        :meth:`learned_params`. Kernel values are written as specs by the caller. Families
        whose parameters need another JSON form override this (with :meth:`_from_spec_params`);
        ``inline`` asks for a form that depends on no file."""
        out = {
            name: value
            for name, value, keyword_only, default in self._param_items()
            if not (default and (keyword_only or value is None))
        }
        out.update(self.learned_params())
        return out

    @classmethod
    def _from_spec_params(cls, params: dict[str, Any]) -> Kernel:
        """The kernel of a spec's parameters (its kernel values already built); default
        ``cls(**params)``. The inverse of :meth:`_spec_params`."""
        return cls(**params)

    def to_spec(self, *, inline: bool = False) -> dict[str, Any]:
        """The declarative spec of this kernel (see :func:`ratkit.automata.kernels.from_spec`);
        ``inline=True`` writes transducers read from files as AT&T text."""
        from ratkit.automata.kernels.spec import to_spec

        return to_spec(self, inline=inline)

    # -- kernel algebra --------------------------------------------------------------
    def __add__(self, other: Any) -> Kernel:
        from ratkit.automata.kernels.algebra import SumKernel

        if not isinstance(other, Kernel):
            raise _operand_error("+", other)
        return SumKernel([self, other])

    __radd__ = __add__

    def __mul__(self, other: Any) -> Kernel:
        from ratkit.automata.kernels.algebra import ProductKernel, ScaledKernel

        if isinstance(other, Kernel):
            return ProductKernel([self, other])
        if isinstance(other, Real) and not isinstance(other, bool):
            scaled = ScaledKernel(self, float(other))
            scaled._validate_params()  # c > 0 and finite: c·K is PDS iff K is
            return scaled
        raise _operand_error("*", other)

    __rmul__ = __mul__


def _operand_error(op: str, other: Any) -> ParameterTypeError:
    """The error of ``k op other`` for an operand the kernel algebra does not take."""
    takes = "another ratkit kernel" if op == "+" else "another ratkit kernel or a positive number"
    return ParameterTypeError(f"A kernel {op} {_describe(other)}: the kernel algebra's {op!r} takes {takes}.")


def _init_parameters(cls: type, keep_var_keyword: bool = False) -> dict[str, inspect.Parameter]:
    """The named parameters of ``cls.__init__`` (no self, no ``*args``; ``**kwargs`` only when asked)."""
    init = getattr(cls, "__init__")  # noqa: B009 - the class's own or inherited __init__
    if init is object.__init__:
        return {}
    skip = {inspect.Parameter.VAR_POSITIONAL} | (set() if keep_var_keyword else {inspect.Parameter.VAR_KEYWORD})
    params = list(inspect.signature(init).parameters.values())[1:]
    return {p.name: p for p in params if p.kind not in skip}


def _is_default(value: Any, default: Any) -> bool:
    """Whether a parameter holds its default (an array or other value that cannot say is not)."""
    if value is default:
        return True
    if default is inspect.Parameter.empty or type(value) is not type(default):
        return False
    try:
        return bool(value == default)
    except (TypeError, ValueError):
        return False


def _one_line(text: str) -> str:
    return re.sub(r"\n\s*", " ", text)


#: Parameters that say how a Gram is computed, not what it holds (a resumed run may change them).
_EXECUTION_PARAMS = ("n_jobs", "show_progress")


def _state_of(value: Any) -> Any:
    """:meth:`Kernel._value_state` of a kernel, inside lists and tuples too; other values as they are."""
    if isinstance(value, Kernel):
        return value._value_state()
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [_state_of(v) for v in value]
    return value


def __getattr__(name: str) -> Any:
    """The names this module held before the split (inputs, RationalKernel), with a DeprecationWarning."""
    if name in _MOVED:
        import importlib

        where = _MOVED[name]
        warnings.warn(
            f"ratkit.automata.kernels.base.{name} moved to {where}.{name}; import it from there "
            "(the old path will be removed in the next release).",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(where), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Public names moved out of this module, by the module that now holds them.
_MOVED = {
    "RationalKernel": "ratkit.automata.kernels.rational",
    "Strategy": "ratkit.automata.kernels.rational",
    "is_single": "ratkit.automata.kernels.inputs",
    "as_collection": "ratkit.automata.kernels.inputs",
    "as_sequences": "ratkit.automata.kernels.inputs",
    "check_sequence": "ratkit.automata.kernels.inputs",
    "check_gram_bytes": "ratkit.automata.kernels.inputs",
}
