"""Kernels on sequences and weighted automata; rational kernels K(x, y) = Ψ(⟦S⟧(x, y)).

A kernel is a plain callable: ``k(x, y)`` on two sequences returns a float, ``k(X, Y)``
on two collections returns the Gram matrix, so kernels drop into
``sklearn.svm.SVC(kernel=k)``, pipelines and ``GridSearchCV``. A *single* sequence is a
``str``, a ``tuple`` of string tokens, or a weighted acceptor (a ratkit
:class:`~ratkit.automata.Transducer` or a ``pynini.Fst``: a lattice). Anything else
iterable (a list, a numpy array) is a *collection* of such sequences; inside a
collection a list of tokens is also accepted as one sequence. An (n, 1) array of
strings — the column scikit-learn hands a string feature — is the n strings it holds
(not n one-token sequences); the rows of an (n, m) string array with m > 1 are token
sequences. Inputs are checked once, at the boundary (:func:`as_sequences`): None, bytes,
numbers and tokens that are not non-empty strings raise a
:class:`~ratkit.exceptions.ParameterTypeError` naming the input (``X[3]``); an in-memory
Gram matrix larger than :func:`ratkit.limits.max_bytes` is refused before it is computed
(``gram(X, out="gram.npy")`` writes it to disk in blocks instead).

Rational kernels of the form S = T ∘ T⁻¹ (Proposition 1: PDS) are computed without
ever building S per pair: each input's feature automaton Φ_x = Π2(X ∘ T) is built once
(l compositions instead of l²) and the Gram matrix is filled from the Φ_x — by a sparse
product when Φ_x is finite (its strings and weights are the explicit feature vector),
by pairwise intersection otherwise (survey §II-B, §V-B).

References
----------
A. Ghose, *Rational kernels: a survey*, Definition 4, eq. (3)–(4), Proposition 1, §II-B.
"""

from __future__ import annotations

import functools
import inspect
import logging
import re
import time
from collections.abc import Mapping, Sequence
from numbers import Real
from typing import Any, ClassVar, Literal

import joblib
import numpy as np
import pynini
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from ratkit._parallel import UNPICKLABLE, Shared, effective_jobs, map_chunks, pair_matrix, parallel_map
from ratkit.automata.alphabet import Alphabet, as_symbols, distinct_characters
from ratkit.automata.construct import _chain, from_pynini
from ratkit.automata.distance import total_native
from ratkit.automata.fst_arrays import fst_to_arrays
from ratkit.automata.graphs import Graph
from ratkit.automata.kernels._features import (
    FeatureMap,
    Vocabulary,
    VocabularyError,
    chunked_vocabulary_matrix,
    feature_memory_bound,
    vocabulary_matrix,
)
from ratkit.automata.kernels._float_range import feature_products, feature_sq_norms, rescaled
from ratkit.automata.kernels._paths import TooManyPaths, enumerate_paths
from ratkit.automata.operations import compose, invert
from ratkit.automata.semirings import PROBABILITY, Semiring, get_semiring
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import (
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
    SemiringMismatchError,
    UnknownSymbolError,
    UnsupportedKernelError,
    WeightOverflowError,
)
from ratkit.limits import check_bytes

__all__ = [
    "Kernel",
    "RationalKernel",
    "Strategy",
    "is_single",
    "as_collection",
    "as_sequences",
    "check_sequence",
    "check_gram_bytes",
]

log = logging.getLogger(__name__)

Strategy = Literal["auto", "specialized", "features", "intersection", "composition"]
_STRATEGIES = ("auto", "specialized", "features", "intersection", "composition")
# Bound on the path prefixes enumerated per feature automaton before falling back to
# pairwise intersection (e.g. the subsequence kernel has 2^|x| features).
MAX_PATHS = 2_000_000
#: The most arcs the ε-removed feature automata Φ_x of one Gram matrix may hold, by the
#: family's estimate (:meth:`RationalKernel._feature_automaton_arcs`): ε-removal and reading
#: Φ_x into arrays cost about 120 bytes an arc (measured: 0.6 GB for 5·10⁶ arcs).
MAX_PHI_ARCS = 5_000_000
#: The most states X ∘ S ∘ Y may have for one pair on the ``"composition"`` path, estimated
#: as (|x| + 1)·|Q_S|·(|y| + 1).
MAX_COMPOSED_STATES = 5_000_000
#: The most arcs a family's transducer T may have (checked by :func:`check_factor_arcs`
#: before it is built): its arcs pass through Python tuples at about 550 bytes an arc
#: (measured: 0.8 GB and 3.9 s for 1.44·10⁶ arcs), so T stays under ≈ 2.8 GB.
MAX_FACTOR_ARCS = 5_000_000
#: A family's vectorised feature extractor runs in blocks on the workers only when that is
#: estimated to save time: the first block is extracted in this process and timed, and the
#: rest go to the workers when (serial seconds of the rest)·(1 − 1/jobs) exceeds the cost of
#: bringing their COO triplets back, this many seconds a byte (measured on 2 cores: 137 MB
#: of 5-gram triplets took 0.8 s through loky's pipes, 0.3–0.5 s from a Dask LocalCluster),
#: plus :data:`EXTRACTION_MIN_GAIN_SECONDS`. The n-gram extractor writes 24 bytes a window
#: in ≈ 20 ns a character, so it stays in this process on a machine like that; the feature
#: automata, 10³ times slower a character, always run in blocks.
EXTRACTION_SECONDS_PER_BYTE = 5e-9
#: What extraction in blocks must save at least (sending blocks to workers costs about that).
EXTRACTION_MIN_GAIN_SECONDS = 0.05


def is_single(x: Any) -> bool:
    """True for one input (str, tuple of str, weighted acceptor, :class:`~ratkit.automata.graphs.Graph`),
    False for a collection (a list or tuple of graphs is a collection)."""
    if isinstance(x, (str, Transducer, pynini.Fst, Graph)):
        return True
    return isinstance(x, tuple) and all(isinstance(t, str) for t in x)


def _describe(x: Any) -> str:
    """``x`` for a message: its type and a short repr."""
    text = repr(x)
    return f"{type(x).__name__} {text[:40] + '...' if len(text) > 40 else text}"


def _bytes_error(what: str, x: Any) -> ParameterTypeError:
    return ParameterTypeError(
        f"{what} is bytes ({_describe(x)}); kernels read text, not bytes: decode it first "
        "(x.decode('utf-8')), or give a tuple of str tokens."
    )


def as_collection(X: Any, what: str = "X") -> list[Any]:
    """A list of inputs; a single input (a sequence, a lattice, a graph) is refused (wrap it in a list).

    Refused with a :class:`~ratkit.exceptions.ParameterTypeError` naming the argument: None,
    bytes (decode them), anything not iterable, and items that are None or bytes. An (n, 1)
    array of strings — the column scikit-learn hands a string feature — is read as the n
    strings it holds, each one sequence (not as n sequences of one token each); an (n, m)
    array with m > 1 is read row by row, each row a sequence of m tokens. A 2-d table with
    ``to_numpy`` (a pandas DataFrame) is read as that array, not as its column names.
    """
    if isinstance(X, (bytes, bytearray, memoryview)):
        raise _bytes_error(what, X)
    if is_single(X):
        raise ParameterTypeError(
            f"{what} must be a collection of sequences, lattices or graphs (a list or array); got a single "
            f"{type(X).__name__}. Use k(x, y) for two inputs or wrap them in lists."
        )
    if X is None or isinstance(X, (Mapping, set, frozenset)):
        raise ParameterTypeError(
            f"{what} must be a collection of sequences, lattices or graphs (a list or array); got {_describe(X)}."
        )
    if not isinstance(X, np.ndarray) and getattr(X, "ndim", None) == 2 and callable(getattr(X, "to_numpy", None)):
        X = X.to_numpy()  # a table (a pandas DataFrame): iterating over it would give its column names
    if isinstance(X, np.ndarray) and X.ndim == 2 and X.shape[1] == 1 and X.dtype.kind in "UO":
        column = X[:, 0].tolist()
        if all(isinstance(x, str) for x in column):
            return column
    try:
        out = list(X)
    except TypeError:
        raise ParameterTypeError(
            f"{what} must be a collection of sequences, lattices or graphs (a list or array); got {_describe(X)}."
        ) from None
    out = [x.item() if isinstance(x, np.ndarray) and x.ndim == 0 else x for x in out]
    for i, x in enumerate(out):
        if isinstance(x, (bytes, bytearray, memoryview)):
            raise _bytes_error(f"{what}[{i}]", x)
        if x is None:
            raise ParameterTypeError(
                f"{what}[{i}] is None; each input must be a sequence (a str or a tuple of str tokens), "
                "a weighted acceptor or a graph."
            )
    return out


def _is_token_sequence(x: Any) -> bool:
    return isinstance(x, (tuple, list)) or (isinstance(x, np.ndarray) and x.ndim == 1)


_STR_TYPES = {str, np.str_}


def check_sequence(x: Any, what: str) -> None:
    """Refuse ``x`` unless it is one input of a sequence kernel: a ``str``, a weighted
    acceptor, or a tuple, list or 1-d array of non-empty ``str`` tokens. Raises a
    :class:`~ratkit.exceptions.ParameterTypeError` (a TypeError) naming ``what``, the value
    and what is expected (bytes get the hint to decode them); an empty token raises a
    :class:`~ratkit.exceptions.ParameterError`."""
    if isinstance(x, str) or _is_lattice(x):
        return
    if isinstance(x, (bytes, bytearray, memoryview)):
        raise _bytes_error(what, x)
    if _is_token_sequence(x):
        if set(map(type, x)) <= _STR_TYPES and "" not in x:  # the common case, at C speed
            return
        for j, tok in enumerate(x):
            if isinstance(tok, str) and not tok:
                raise ParameterError(f"Token {j} of {what} is ''; tokens must be non-empty strings (ε is no token).")
            if not isinstance(tok, str):
                raise ParameterTypeError(
                    f"Token {j} of {what} is {_describe(tok)}; a sequence is a str or a sequence of non-empty "
                    "str tokens (numbers are not symbols: write them as strings)."
                )
        return
    raise ParameterTypeError(
        f"{what} is {_describe(x)}; a sequence kernel takes a str, a tuple of str tokens or a weighted acceptor."
    )


def as_sequences(X: Any, what: str = "X") -> list[Any]:
    """:func:`as_collection` of the inputs of a sequence kernel, each checked by
    :func:`check_sequence` (a numeric 2-d array is refused as a whole)."""
    if isinstance(X, np.ndarray) and X.ndim >= 2 and X.dtype.kind not in "UO":
        raise ParameterTypeError(
            f"{what} is a {X.ndim}-d array of {X.dtype} (shape {X.shape}); a sequence kernel reads strings: "
            "a list of str, or of tuples of str tokens."
        )
    out = as_collection(X, what)
    for i, x in enumerate(out):
        check_sequence(x, f"{what}[{i}]")
    return out


def check_gram_bytes(n_rows: int, n_cols: int, kernel: Any) -> None:
    """Refuse an in-memory Gram matrix of ``n_rows`` × ``n_cols`` float64 (8·n·m bytes)
    larger than :func:`ratkit.limits.max_bytes` before anything is computed
    (:class:`~ratkit.exceptions.ResourceLimitError`; ``out=`` writes it to disk instead)."""
    check_bytes(
        8.0 * n_rows * n_cols,
        lambda: f"The {n_rows:,} × {n_cols:,} Gram matrix of {kernel!r} in memory",  # the repr costs 30 µs
        "gram(X, out='gram.npy') writes it to disk in row blocks instead (block_bytes= bounds each block).",
    )


def _with_blocked_output(gram: Any) -> Any:
    """``gram`` with the keywords every kernel's Gram takes (see :class:`Kernel`): ``n_jobs``,
    ``out``, ``block_bytes``, ``resume``, ``overwrite``. Without ``out`` or ``block_bytes`` the
    family's own ``gram`` runs (given ``n_jobs`` when it takes it); otherwise, or when the
    family does not take ``n_jobs``, :func:`~ratkit.automata.kernels._blocked.blocked_gram`."""
    parameters = inspect.signature(gram).parameters
    takes_n_jobs = "n_jobs" in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())

    @functools.wraps(gram)
    def with_blocks(
        self: Any,
        X: Any,
        Y: Any = None,
        *,
        n_jobs: int | None = None,
        out: Any = None,
        block_bytes: int | None = None,
        resume: bool = False,
        overwrite: bool = False,
        **options: Any,
    ) -> np.ndarray:
        blocked = out is not None or block_bytes is not None or resume or overwrite
        if not blocked and (n_jobs is None or takes_n_jobs):
            return gram(self, X, Y, **options) if n_jobs is None else gram(self, X, Y, n_jobs=n_jobs, **options)
        from ratkit.automata.kernels._blocked import blocked_gram

        return blocked_gram(
            self, X, Y, n_jobs=n_jobs, out=out, block_bytes=block_bytes, resume=resume, overwrite=overwrite, **options
        )

    with_blocks.__ratkit_blocked__ = True  # type: ignore[attr-defined]
    with_blocks.__signature__ = _blocked_signature(inspect.signature(gram))  # type: ignore[attr-defined]
    return with_blocks


#: The keywords :func:`_with_blocked_output` adds to every family's ``gram``, with their defaults.
_BLOCKED_KEYWORDS = {"n_jobs": None, "out": None, "block_bytes": None, "resume": False, "overwrite": False}


def _blocked_signature(family: inspect.Signature) -> inspect.Signature:
    """The family's ``gram`` signature with the keywords every kernel's Gram takes added (what
    ``help(kernel.gram)`` and ``inspect.signature`` show: functools.wraps alone showed the
    family's own, without ``out=`` and the others)."""
    params = list(family.parameters.values())
    tail = [p for p in params if p.kind is inspect.Parameter.VAR_KEYWORD]
    head = [p for p in params if p.kind is not inspect.Parameter.VAR_KEYWORD]
    names = {p.name for p in head}
    added = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default)
        for name, default in _BLOCKED_KEYWORDS.items()
        if name not in names
    ]
    return family.replace(parameters=head + added + tail)


def _is_lattice(x: Any) -> bool:
    return isinstance(x, (Transducer, pynini.Fst))


def _size(x: Any) -> int:
    """What a sequence's features cost, roughly: its length, or a lattice's number of arcs."""
    if _is_lattice(x):
        fst = x.fst if isinstance(x, Transducer) else x
        return sum(fst.num_arcs(state) for state in fst.states())
    return len(x)


class _Same:
    """A value compared by identity, held: as part of a cache key it keeps the value alive,
    so that its address cannot pass to another object while the key is cached."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)


class Kernel(BaseEstimator):
    """Base class of ratkit kernels, and the contract of a kernel family.

    A kernel is callable (``k(x, y)``, ``k(X, Y)``), fills Gram matrices and is a
    scikit-learn estimator (``get_params``, ``set_params``, ``clone``); ``k1 + k2``,
    ``k1 * k2`` and ``c * k`` build the kernel algebra of
    :mod:`ratkit.automata.kernels.algebra`.

    **A kernel family** is a subclass whose parameters are its ``__init__`` arguments,
    each stored under its own name (scikit-learn's convention), and that computes
    :meth:`gram`. It states its spec name once, by its registration —
    ``@ratkit.plugins.register("kernel", NAME)``, or an entry point of the group
    ``ratkit.kernels`` — and :func:`~ratkit.automata.kernels.from_spec` /
    :func:`~ratkit.automata.kernels.to_spec` then build it from and write it to
    ``{"family": NAME, **parameters}``. A family with a finite feature map subclasses
    :class:`RationalKernel` instead and only has to give its counting transducer T.
    Everything else is an optional hook, declared here with its default:

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

    **Every** ``gram`` — a family's own, a plugin's — also takes the keywords
    ``gram(X, Y=None, *, n_jobs=None, out=None, block_bytes=None, resume=False,
    overwrite=False)``, added when the class is defined: with ``out="gram.npy"`` the matrix
    is computed in row blocks of at most ``block_bytes`` bytes, each written into a
    memory-mapped file as it arrives (resumable with ``resume=True``; an existing file is
    replaced only with ``overwrite=True``), on local processes or, under
    ``joblib.parallel_config(backend="dask")``, on the Dask cluster
    (:mod:`ratkit.automata.kernels._blocked`). A family whose ``gram`` does not take
    ``n_jobs`` is given it the same way, in memory.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        gram = cls.__dict__.get("gram")
        if gram is not None and not getattr(gram, "__ratkit_blocked__", False):
            cls.gram = _with_blocked_output(gram)

    #: True when the kernel is PDS by construction, False when known not to be, None unknown.
    is_pds: bool | None = None
    #: True when the kernel is negative definite symmetric by construction, False when known
    #: not to be, None unknown: exp(−t·K) is PDS for every t > 0 iff K is NDS (Theorem 3).
    is_nds: bool | None = None
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
        if is_single(X):
            if isinstance(Y, (bytes, bytearray, memoryview)):
                raise _bytes_error("y", Y)
            if Y is None or not is_single(Y):
                raise ParameterTypeError(
                    f"k(x, y) needs two sequences (or lattices, or graphs); x is a {type(X).__name__} but y is "
                    f"{_describe(Y)}. For Gram matrices pass collections: k(X, Y)."
                )
            return self.value(X, Y)
        return self.gram(X, Y)

    # -- values ------------------------------------------------------------------------
    def gram(self, X: Any, Y: Any = None) -> np.ndarray:  # pragma: no cover - abstract
        """The matrix [K(x_i, y_j)] of two collections (Y = None: X against itself)."""
        raise NotImplementedError(f"{type(self).__name__} must define gram(X, Y=None).")

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
        return np.array([self.value(x, x) for x in as_collection(X)], dtype=np.float64)

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
        self, X: Any, *, n_jobs: int | None = None, show_progress: bool | None = None
    ) -> tuple[Vocabulary, sp.csr_matrix]:
        """(vocabulary, F): the columns X's features occupy, and X's (n, p) CSR feature matrix,
        with ⟨F_i, F_j⟩ = K(x_i, x_j) — in particular ‖F_i‖² = K(x_i, x_i).

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
        self, X: Any, Y: Any = None, *, n_jobs: int | None = None, show_progress: bool | None = None
    ) -> tuple[sp.csr_matrix, sp.csr_matrix] | None:
        """(F, G), feature rows of X and of Y (Y None: G is F) with K(x_i, y_j) = ⟨F_i, G_j⟩, for
        a Gram matrix computed block by block from one feature extraction; None when the
        kernel has no finite feature map (the blocks then call :meth:`gram_with`).

        The default: :meth:`fit_features` on X and Y together (as :meth:`gram` reads them),
        split into their rows; None on :class:`TooManyPaths`. A family whose own Gram
        algorithm is cheaper than its features (a dynamic programme) returns None.
        """
        X = as_collection(X, "X")
        both = X if Y is None else X + as_collection(Y, "Y")
        try:  # X and Y together, as gram does: an inferred alphabet covers the symbols of both
            _, F = self.fit_features(both, n_jobs=n_jobs, show_progress=show_progress)
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
    init = cls.__init__
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


class RationalKernel(Kernel):
    """K(x, y) = Ψ(⟦S⟧(x, y)) for a weighted transducer S (survey Definition 4).

    A family defines S by :meth:`_build_factor` (then S = T ∘ T⁻¹, PDS by Proposition 1,
    and T alone gives Gram matrices, the explicit feature map, the feature automata and a
    RationalSVC on the trie) or by :meth:`_build_transducer`. Optional hooks, each with a
    default: :attr:`semiring` (probability), :meth:`_alphabet_symbols` (a fixed alphabet;
    None), :meth:`_specialized_features` and :meth:`_specialized_gram` /
    :meth:`_specialized_diag` (the family's own algorithms, which return exactly what the
    transducer defines; None), :meth:`_feature_automaton_arcs` (a size estimate checked
    before OpenFst builds Φ_x; None), :meth:`_compiled_features` (Φ_x without OpenFst for
    strategy "auto"; None), :meth:`_psi` (Ψ of the semiring).

    The ``strategy`` parameter chooses how Gram matrices are computed:

    ``"auto"``
        the fastest exact path available;
    ``"specialized"``
        the family's own feature extractor (numpy), then one sparse product;
    ``"features"``
        Φ_x = Π2(X ∘ T) by OpenFst, its strings and weights enumerated into sparse rows;
    ``"intersection"``
        Φ_x by OpenFst, then Ψ(⊕ of Φ_x ∩ Φ_y) for every pair;
    ``"composition"``
        X ∘ S ∘ Y and its shortest distance for every pair (what a pynini user writes).
    """

    #: The semiring of T (or S): a class attribute or a parameter of the family.
    semiring: Semiring | str = PROBABILITY
    is_pds = True
    #: Defaults of the options of ratkit's families, for a family that does not take them.
    strategy: Strategy = "auto"
    n_jobs: int | None = None
    show_progress: bool = False

    # -- to be provided by subclasses ---------------------------------------------
    def _alphabet_symbols(self) -> tuple[str, ...] | None:
        """The kernel's fixed alphabet, or None when the value does not depend on Σ."""
        return None

    def _build_factor(self, alphabet: Alphabet) -> Transducer | None:
        """T with S = T ∘ T⁻¹, over ``alphabet``; None when S is not given that way."""
        return None

    def _build_transducer(self, alphabet: Alphabet) -> Transducer:
        """S itself (default: T ∘ T⁻¹)."""
        t = self._build_factor(alphabet)
        return compose(t, invert(t))

    def _psi(self, native: np.ndarray) -> np.ndarray:
        """Ψ applied to native (OpenFst) totals, vectorised."""
        sr = get_semiring(self.semiring)
        return np.array([sr.psi(sr.from_native(v)) for v in np.ravel(native)]).reshape(np.shape(native))

    def _feature_automaton_arcs(self, length: int, n_symbols: int) -> int | None:
        """The arcs of the ε-removed Φ_x = Π2(X ∘ T) of a sequence of ``length`` symbols,
        ``n_symbols`` of them distinct (an upper estimate), or None when the family gives
        none (then no size check is made).

        The automata paths check it against :data:`MAX_PHI_ARCS` before asking OpenFst for
        Φ_x, whose ε-removal can otherwise exhaust the memory and abort the interpreter.
        """
        return None

    def _check_feature_automata(self, sequences: Sequence[Any], held: bool, reason: str = "") -> None:
        """Raise ResourceLimitError when Φ_x of ``sequences`` would exceed :data:`MAX_PHI_ARCS`
        arcs: the largest one (built one at a time), or all of them (``held``: kept at once).
        ``reason`` says why the automata are needed (e.g. a family's own algorithm declined)."""
        plain = [x if isinstance(x, str) else as_symbols(x) for x in sequences if not _is_lattice(x)]
        if not plain:
            return
        sizes = [self._feature_automaton_arcs(len(x), len(set(x))) for x in plain]
        if any(a is None for a in sizes):
            return
        largest = int(np.argmax(sizes))
        arcs = int(sum(sizes)) if held else int(sizes[largest])
        if arcs > MAX_PHI_ARCS:
            what = (
                f"the feature automata Φ_x of these {len(plain)} sequences"
                if held
                else (f"the feature automaton Φ_x of the sequence of {len(plain[largest]):,} symbols")
            )
            why = f"{reason}, so " if reason else ""
            raise ResourceLimitError(
                f"{self!r}: {why}its features would come from {what}, which has {arcs:,} arcs after "
                f"ε-removal, beyond the limit of {MAX_PHI_ARCS:,} arcs (about {arcs * 120 / 2**30:.1f} GiB). "
                "Use shorter sequences (split long ones), fewer distinct symbols, or smaller patterns."
            )

    def _specialized_features(
        self, sequences: list[str | tuple[str, ...]], symbols: dict[str, int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """COO triplets (row, code, value) of ⟦T⟧(x, z), or None when the family has none.

        ``sequences`` are strings or token tuples; ``symbols`` numbers the alphabet 1..L
        and pattern codes are in base L + 1 (see :mod:`._features`).
        """
        return None

    def _specialized_gram(self, X: list, Ys: list, alphabet: Alphabet) -> np.ndarray | None:
        """The family's own algorithm for [⊕_z …] before Ψ of :meth:`_psi_features` (e.g. a DP
        over pairs), for plain sequences; None (the default) when it has none. ``Ys is X``
        asks for the symmetric matrix of X."""
        return None

    def _specialized_diag(self, X: list, alphabet: Alphabet) -> np.ndarray | None:
        """[K(x, x)] by the family's own algorithm, before Ψ; the default reads the diagonal
        off :meth:`_specialized_gram` one sequence at a time (None when there is none)."""
        out = np.empty(len(X))
        for i, x in enumerate(X):
            G = self._specialized_gram([x], [x], alphabet)
            if G is None:
                return None
            out[i] = G[0, 0]
        return out

    # -- alphabets and transducers --------------------------------------------------
    def alphabet_for(self, sequences: Sequence[Any]) -> Alphabet:
        """The alphabet the transducers are built over for these inputs.

        Families whose value does not depend on Σ use the symbols of the inputs (sorted);
        a kernel with a fixed alphabet checks that every symbol belongs to it.
        """
        fixed = self._alphabet_symbols()
        seen: dict[str, None]
        if all(isinstance(x, str) for x in sequences):
            seen = dict.fromkeys(distinct_characters("".join(sequences)))
        else:
            seen = {}
            for x in sequences:
                if _is_lattice(x):
                    seen.update(dict.fromkeys(_lattice(x).alphabet.symbols))
                else:
                    seen.update(dict.fromkeys(as_symbols(x)))
        if fixed is None:
            return Alphabet(sorted(seen))
        alphabet = Alphabet(fixed)
        missing = [s for s in seen if s not in alphabet]
        if missing:
            raise UnknownSymbolError(
                f"Symbol {missing[0]!r} is not in the alphabet of this {type(self).__name__} "
                f"({''.join(fixed) if all(len(s) == 1 for s in fixed) else list(fixed)}); its "
                "value depends on the alphabet, so declare one that contains every symbol "
                "of your data (the 'alphabet' parameter)."
            )
        return alphabet

    def factor(self, alphabet: Alphabet | str | Sequence[str] | None = None) -> Transducer | None:
        """The transducer T of S = T ∘ T⁻¹ over ``alphabet`` (None if S is not of that form)."""
        return self._cached_factor(self._as_alphabet(alphabet))

    def transducer(self, alphabet: Alphabet | str | Sequence[str] | None = None) -> Transducer:
        """The weighted transducer S of K(x, y) = Ψ(⟦S⟧(x, y)) over ``alphabet``."""
        return self._cached_transducer(self._as_alphabet(alphabet))

    def _as_alphabet(self, alphabet: Any) -> Alphabet:
        if alphabet is None:
            fixed = self._alphabet_symbols()
            if fixed is None:
                raise ParameterError(
                    f"{type(self).__name__} builds its transducer over the symbols of the data; "
                    "pass the alphabet, e.g. k.transducer('acgt')."
                )
            return Alphabet(fixed)
        return alphabet if isinstance(alphabet, Alphabet) else Alphabet(alphabet)

    def _params_key(self) -> Any:
        """A digest of the parameters' contents (repr() truncates long arrays and names
        transducers by their size only, so equal reprs may hide different kernels). A value
        that does not pickle (a lambda as psi) stands for itself, by identity."""
        params = self.get_params()
        try:
            return joblib.hash(params)
        except UNPICKLABLE:
            pass
        digests, objects = {}, []
        for name, value in sorted(params.items()):
            try:
                digests[name] = joblib.hash(value)
            except UNPICKLABLE:
                objects.append((name, _Same(value)))
        return joblib.hash(digests), tuple(objects)

    def set_params(self, **params: Any) -> Any:
        self.__dict__.pop("_factor_cache", None)
        self.__dict__.pop("_transducer_cache", None)
        return super().set_params(**params)

    def _cached_factor(self, alphabet: Alphabet) -> Transducer | None:
        cache = self.__dict__.setdefault("_factor_cache", {})
        key = (alphabet.symbols, self._params_key())
        if key not in cache:
            cache[key] = self._build_factor(alphabet)
        return cache[key]

    def _cached_transducer(self, alphabet: Alphabet) -> Transducer:
        cache = self.__dict__.setdefault("_transducer_cache", {})
        key = (alphabet.symbols, self._params_key())
        if key not in cache:
            cache[key] = self._build_transducer(alphabet)
        return cache[key]

    def feature_support(self, patterns: Sequence[Sequence[str]]) -> np.ndarray:
        """For each pattern z, whether it is in the support of the feature map: ⟦T⟧(x, z) ≠ 0̄
        for some x, i.e. z is accepted by Π2(T).

        A fitted vocabulary holds only such patterns; a model file whose vocabulary holds
        others was not written by this kernel (see :mod:`ratkit._persistence`).
        Raises :class:`~ratkit.exceptions.UnsupportedKernelError` (a TypeError) for a kernel
        that is not of the form T ∘ T⁻¹.
        """
        from ratkit.automata.construct import acceptor

        pats = [as_symbols(p, "pattern") for p in patterns]
        alphabet = self.alphabet_for(pats)
        t = self.factor(alphabet)
        if t is None:
            raise UnsupportedKernelError(f"{type(self).__name__} is not of the form T ∘ T⁻¹: it has no feature map.")
        out = np.zeros(len(pats), dtype=bool)
        for j, z in enumerate(pats):
            matched = compose(t, acceptor(z, t.semiring, alphabet=alphabet))  # trimmed: empty iff z ∉ Π2(T)
            out[j] = bool(np.isfinite(matched.arrays().final).any())
        return out

    # -- feature automata -------------------------------------------------------------
    def feature_automaton(self, x: Any, alphabet: Alphabet | None = None) -> Transducer:
        """Φ_x = Π2(X ∘ T): the acceptor of the patterns z with weights ⟦T⟧(x, z); ε-free
        unless x is a cyclic lattice."""
        alphabet = alphabet or self.alphabet_for([x])
        t = self.factor(alphabet)
        if t is None:
            raise UnsupportedKernelError(
                f"{type(self).__name__} is not of the form T ∘ T⁻¹: it has no feature automaton."
            )
        self._check_feature_automata([x], held=False)
        fst = _phi_fst(x, t, _sorted(t))
        return Transducer(fst, t.semiring, alphabet, check=False)

    # -- features -----------------------------------------------------------------
    def _raw_features(
        self, sequences: list[Any], symbols: tuple[str, ...], strategy: str, n_jobs: int | None, show_progress: bool
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """COO triplets (row, code, value) of the explicit feature map over ``symbols``."""
        index = {s: i + 1 for i, s in enumerate(symbols)}
        if strategy in ("auto", "specialized") and not any(map(_is_lattice, sequences)):
            seqs = [x if isinstance(x, str) else as_symbols(x) for x in sequences]
            out = self._specialized_in_blocks(seqs, index, n_jobs, show_progress)
            if out is not None:
                return out
            if strategy == "specialized":
                raise ParameterError(
                    f"{type(self).__name__} has no specialised feature extractor for these inputs; use "
                    "strategy='auto' to let it fall back to the feature automata."
                )
        alphabet = self.alphabet_for(sequences)
        alphabet = Alphabet(tuple(symbols) + tuple(s for s in alphabet if s not in index))
        t = self.factor(alphabet)
        if t is None or t.semiring.name not in ("probability", "log"):
            raise TooManyPaths("no finite feature map for this kernel")
        self._check_feature_automata(sequences, held=False)
        if strategy == "auto":
            compiled = self._compiled_features(t, sequences, len(symbols), n_jobs, show_progress)
            if compiled is not None:
                return compiled
        work = functools.partial(_phi_features_chunk, n_labels=len(symbols))
        parts = map_chunks(
            work,
            list(enumerate(sequences)),
            shared=(Shared(t),),
            n_jobs=n_jobs,
            show_progress=show_progress,
            desc="feature automata",
        )
        rows = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int64)
        codes = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, np.int64)
        vals = np.concatenate([p[2] for p in parts]) if parts else np.zeros(0)
        return rows, codes, vals

    def _compiled_features(
        self, t: Transducer, sequences: list[Any], n_labels: int, n_jobs: int | None, show_progress: bool
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """COO triplets (row, code, value) of Φ_x = Π2(X ∘ T) for strategy ``"auto"``, computed
        without OpenFst (patterns with labels above ``n_labels`` dropped, as the feature path
        drops them); None (the default) leaves them to the OpenFst feature path."""
        return None

    def learn(self, X: Any) -> None:
        """Read the alphabet of X as :meth:`gram` does (a family that infers Σ fixes it here)."""
        self.alphabet_for(as_sequences(X))

    def _specialized_in_blocks(
        self, sequences: list[str | tuple[str, ...]], symbols: dict[str, int], n_jobs: int | None, show_progress: bool
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """:meth:`_specialized_features` of blocks of sequences as parallel tasks, rows
        renumbered into the whole collection: the first block in this process, and the others
        on the workers when that pays (:data:`EXTRACTION_SECONDS_PER_BYTE`), else here too."""
        jobs = effective_jobs(n_jobs)
        if jobs == 1 or len(sequences) < 2:
            return self._specialized_features(sequences, symbols)
        size = -(-len(sequences) // (4 * jobs))
        started = time.perf_counter()
        first = _specialized_block(self, symbols, 0, sequences[:size])
        if first is None or size >= len(sequences):
            return first
        seconds = time.perf_counter() - started
        done, rest = sum(map(len, sequences[:size])), sum(map(len, sequences[size:]))
        scale = rest / done if done else (len(sequences) - size) / size
        back = scale * sum(np.asarray(field).nbytes for field in first) * EXTRACTION_SECONDS_PER_BYTE
        if scale * seconds * (1 - 1 / jobs) <= back + EXTRACTION_MIN_GAIN_SECONDS:
            # all of it in one call, as with one job (no concatenation, whose copies would
            # raise the peak memory); the first block is done twice, at most 1/(4·jobs) more
            log.debug("feature extraction stays in this process: blocks would cost more than they save")
            del first
            return self._specialized_features(sequences, symbols)
        starts = range(size, len(sequences), size)
        parts = [first]
        parts += parallel_map(
            _specialized_block,
            [(start, sequences[start : start + size]) for start in starts],
            shared=(Shared(self), Shared(symbols)),
            n_jobs=n_jobs,
            show_progress=show_progress,
            desc="features",
            unit="seq",
            sizes=[len(sequences[start : start + size]) for start in starts],
        )
        if any(part is None for part in parts):
            return None
        return tuple(np.concatenate([part[field] for part in parts]) for field in range(3))  # type: ignore[return-value]

    def fit_features(
        self, X: Any, *, strategy: Strategy | None = None, n_jobs: int | None = None, show_progress: bool | None = None
    ) -> tuple[FeatureMap, sp.csr_matrix]:
        """The vocabulary of patterns of X and X's (n, p) feature matrix Φ (⟨Φ_x, Φ_y⟩ = K(x, y)).

        Raises :class:`TooManyPaths` when the feature map is infinite or too large to
        enumerate (use Gram matrices then).
        """
        X = as_sequences(X)
        strategy, n_jobs, show_progress = self._options(strategy, n_jobs, show_progress)
        symbols = tuple(self.alphabet_for(X))
        bound = feature_memory_bound()
        if bound is not None and X:  # within a memory budget (a blocked Gram): in ranges of sequences
            uniq, F = chunked_vocabulary_matrix(
                lambda a, b: self._raw_features(X[a:b], symbols, strategy, n_jobs, False),
                [_size(x) for x in X],
                bound,
                show_progress=show_progress,
            )
            return FeatureMap(symbols, uniq), F
        rows, codes, vals = self._raw_features(X, symbols, strategy, n_jobs, show_progress)
        uniq, F = vocabulary_matrix(rows, codes, vals, len(X), overwrite_codes=True)
        return FeatureMap(symbols, uniq), F

    def transform_features(
        self,
        vocabulary: Vocabulary,
        X: Any,
        *,
        strategy: Strategy | None = None,
        n_jobs: int | None = None,
        show_progress: bool | None = None,
    ) -> sp.csr_matrix:
        """X's feature matrix on the columns of ``vocabulary`` (a :class:`FeatureMap`);
        patterns outside it are dropped."""
        fmap = self._pattern_vocabulary(vocabulary)
        X = as_sequences(X)
        strategy, n_jobs, show_progress = self._options(strategy, n_jobs, show_progress)
        if self._alphabet_symbols() is not None:
            self.alphabet_for(X)  # a fixed alphabet refuses unknown symbols
        rows, codes, vals = self._raw_features(X, fmap.symbols, strategy, n_jobs, show_progress)
        return fmap.matrix(rows, codes, vals, len(X))

    def _pattern_vocabulary(self, vocabulary: Any) -> FeatureMap:
        if not isinstance(vocabulary, FeatureMap):
            raise VocabularyError(
                f"{self!r} reads a vocabulary of patterns (a FeatureMap); got a {type(vocabulary).__name__}, "
                "the vocabulary of another kernel."
            )
        return vocabulary

    def check_vocabulary(self, vocabulary: Vocabulary, columns: np.ndarray) -> None:
        """Raise :class:`VocabularyError` unless every pattern of these columns is in the
        support of the feature map (accepted by Π2(T), :meth:`feature_support`)."""
        fmap = self._pattern_vocabulary(vocabulary)
        patterns = FeatureMap(fmap.symbols, fmap.codes[np.asarray(columns, dtype=np.int64)]).patterns()
        try:
            ok = self.feature_support(patterns)
        except (UnknownSymbolError, TypeError, ValueError) as exc:
            raise VocabularyError(f"{self!r} cannot read this vocabulary: {exc}") from None
        if not ok.all():
            bad = patterns[int(np.flatnonzero(~ok)[0])]
            shown = "".join(bad) if all(len(s) == 1 for s in bad) else " ".join(bad)
            raise VocabularyError(f"{self!r} cannot produce the pattern {shown!r} of the vocabulary.")

    def feature_automata(self, X: Any) -> tuple[list[pynini.Fst], bool] | None:
        """(Φ′_i = Π2(X_i ∘ T), False) as olabel-sorted acceptors; None without a factor T over
        the probability semiring."""
        X = as_sequences(X)
        alphabet = self.alphabet_for(X)
        t = self.factor(alphabet)
        if t is None or t.semiring.name != "probability":
            return None
        phis = [pynini.arcsort(self.feature_automaton(x, alphabet)._fst.copy(), sort_type="olabel") for x in X]
        return phis, False

    def _validate_options(self) -> None:
        """``strategy`` one of :data:`Strategy`, ``n_jobs`` None or a non-zero int, ``show_progress`` a bool."""
        self._options(None, None, None)
        n_jobs = self.n_jobs
        if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer))):
            raise ParameterTypeError(
                f"The 'n_jobs' parameter of {type(self).__name__} must be an int (a number of processes, -1 for "
                f"one per core) or None. Got {n_jobs!r:.40} of type {type(n_jobs).__name__} instead."
            )
        if n_jobs == 0:
            raise ParameterError(
                f"The 'n_jobs' parameter of {type(self).__name__} must be a number of processes: an int ≥ 1, "
                "-1 for one per core, -2 for all but one, ..., or None for 1. Got 0 instead."
            )
        if self.show_progress is not None and not isinstance(self.show_progress, (bool, np.bool_)):
            raise ParameterTypeError(
                f"The 'show_progress' parameter of {type(self).__name__} must be a bool. "
                f"Got {self.show_progress!r:.40} instead."
            )

    def _options(self, strategy: Any, n_jobs: Any, show_progress: Any) -> tuple[str, int | None, bool]:
        strategy = self.strategy if strategy is None else strategy
        if not isinstance(strategy, str) or strategy not in _STRATEGIES:
            raise (ParameterError if isinstance(strategy, str) else ParameterTypeError)(
                f"The 'strategy' parameter of {type(self).__name__} must be one of "
                f"{', '.join(map(repr, _STRATEGIES))}. Got {strategy!r} instead."
            )
        n_jobs = self.n_jobs if n_jobs is None else n_jobs
        show_progress = bool(self.show_progress if show_progress is None else show_progress)
        return strategy, n_jobs, show_progress

    # -- Gram matrices -----------------------------------------------------------
    def gram(
        self,
        X: Any,
        Y: Any = None,
        *,
        strategy: Strategy | None = None,
        n_jobs: int | None = None,
        show_progress: bool | None = None,
    ) -> np.ndarray:
        """The matrix [K(x_i, y_j)] (Y = None: X against itself, symmetric)."""
        X = as_sequences(X, "X")
        Ys = X if Y is None else as_sequences(Y, "Y")
        strategy, n_jobs, show_progress = self._options(strategy, n_jobs, show_progress)
        check_gram_bytes(len(X), len(Ys), self)
        if not X or not Ys:
            return np.zeros((len(X), len(Ys)))
        scale, unit = self.split_scale()
        if scale != 0.0:  # K = e^s K′: K′'s values, e^s applied last (see split_scale)
            values = unit.gram(
                X, None if Y is None else Ys, strategy=strategy, n_jobs=n_jobs, show_progress=show_progress
            )
            return rescaled(values, scale, self)
        both = X if Y is None else X + Ys
        alphabet = self.alphabet_for(both)
        if strategy in ("auto", "specialized") and not any(map(_is_lattice, both)):
            special = self._specialized_gram(X, Ys, alphabet)
            if special is not None:
                return self._psi_features(special)
        # T is built only when needed: a family's own extractor answers without it, and T can
        # be large (|Σ|² arcs and more) where the extractor is not
        if strategy in ("auto", "specialized") or (strategy == "features" and self.factor(alphabet) is not None):
            try:
                rows, codes, vals = self._raw_features(both, tuple(alphabet), strategy, n_jobs, show_progress)
            except TooManyPaths as exc:
                if strategy != "auto":
                    raise
                log.info("falling back to pairwise intersection: %s", exc)
            else:
                _, F = vocabulary_matrix(rows, codes, vals, len(both), overwrite_codes=True)
                if Y is None:
                    return self._psi_features(feature_products(self, F))
                return self._psi_features(feature_products(self, F[: len(X)], F[len(X) :]))
        if strategy in ("auto", "intersection") and self.factor(alphabet) is not None:
            return self._gram_pairwise(X, Ys, Y is None, alphabet, "intersection", n_jobs, show_progress)
        return self._gram_pairwise(X, Ys, Y is None, alphabet, "composition", n_jobs, show_progress)

    def gram_with(self, X: Any, Y: Any = None, **options: Any) -> np.ndarray:
        """:meth:`gram` with the options ``strategy``, ``n_jobs``, ``show_progress``."""
        return self.gram(X, Y, **options)

    def diag(self, X: Any, *, strategy: Strategy | None = None, n_jobs: int | None = None) -> np.ndarray:
        """[K(x, x) for x in X]: the family's own algorithm, else squared norms of the feature
        rows when they are enumerable, else one Gram matrix per sequence."""
        X = as_sequences(X)
        strategy, n_jobs, _ = self._options(strategy, n_jobs, False)
        if not X:
            return np.zeros(0)
        scale, unit = self.split_scale()
        if scale != 0.0:
            return rescaled(unit.diag(X, strategy=strategy, n_jobs=n_jobs), scale, self)
        alphabet = self.alphabet_for(X)
        if strategy in ("auto", "specialized") and not any(map(_is_lattice, X)):
            special = self._specialized_diag(X, alphabet)
            if special is not None:
                return self._psi_features(special)
        if strategy in ("auto", "specialized") or (strategy == "features" and self.factor(alphabet) is not None):
            try:
                rows, codes, vals = self._raw_features(X, tuple(alphabet), strategy, n_jobs, False)
            except TooManyPaths:
                pass
            else:
                _, F = vocabulary_matrix(rows, codes, vals, len(X), overwrite_codes=True)
                return self._psi_features(feature_sq_norms(F, self))
        return np.array([self.gram([x], [x], strategy=strategy, n_jobs=1)[0, 0] for x in X])

    def _psi_features(self, G: np.ndarray) -> np.ndarray:
        """Ψ of ⊕_z Φ_x(z) ⊗ Φ_y(z) computed as real sums of products (probability/log)."""
        return np.asarray(G, dtype=np.float64)

    def _gram_pairwise(
        self, X: list, Ys: list, symmetric: bool, alphabet: Alphabet, how: str, n_jobs: int | None, show_progress: bool
    ) -> np.ndarray:
        if how == "intersection":
            self._check_feature_automata(X if symmetric else X + Ys, held=True)
            t = self.factor(alphabet)
            tf = _sorted(t)
            left = [_phi_fst(x, t, tf) for x in X]
            right = left if symmetric else [_phi_fst(y, t, tf) for y in Ys]
        else:
            s = self.transducer(alphabet)
            _check_composition_size(self, X, Ys, s.num_states)
            sf = _sorted(s)
            left = [pynini.arcsort(pynini.compose(_input_fst(x, s), sf), sort_type="olabel") for x in X]
            right = [_input_fst(y, s) for y in Ys]
        semiring = (self.factor(alphabet) if how == "intersection" else self.transducer(alphabet)).semiring
        # Only T ∘ T⁻¹ is symmetric by construction; a general S (e.g. an edit distance with
        # different insertion and deletion weights) is evaluated on every pair.
        symmetric = symmetric and how == "intersection"
        total = functools.partial(_pair_total, semiring=semiring, intersect=how == "intersection")
        native = pair_matrix(
            total, left, right, symmetric=symmetric, n_jobs=n_jobs, show_progress=show_progress, desc=f"Gram by {how}"
        )
        try:
            return self._psi(native)
        except WeightOverflowError as exc:  # the semiring's message does not name the kernel
            raise WeightOverflowError(f"{self!r} by {how}: {exc}") from None


def _specialized_block(
    kernel: RationalKernel, symbols: dict[str, int], start: int, sequences: list[Any]
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """One task of :meth:`RationalKernel._specialized_in_blocks`: rows offset by ``start``."""
    out = kernel._specialized_features(sequences, symbols)
    if out is None:
        return None
    rows, codes, vals = out
    return np.asarray(rows, dtype=np.int64) + start, codes, vals


def check_factor_arcs(n_arcs: int, what: str, hint: str) -> None:
    """Raise ResourceLimitError when a family's transducer (``what``) would have more than
    :data:`MAX_FACTOR_ARCS` arcs; ``hint`` says what to do instead."""
    if n_arcs > MAX_FACTOR_ARCS:
        raise ResourceLimitError(
            f"{what} would have {n_arcs:,} arcs, beyond the limit of {MAX_FACTOR_ARCS:,} arcs "
            f"(about {n_arcs * 550 / 2**30:.1f} GiB to build). {hint}"
        )


def _check_composition_size(kernel: Kernel, X: list, Ys: list, n_states: int) -> None:
    """Raise ResourceLimitError when X ∘ S ∘ Y of the longest pair would exceed
    :data:`MAX_COMPOSED_STATES` states, estimated as (|x| + 1)·|Q_S|·(|y| + 1)."""
    lx = max((len(x) for x in X if not _is_lattice(x)), default=0)
    ly = max((len(y) for y in Ys if not _is_lattice(y)), default=0)
    states = (lx + 1) * n_states * (ly + 1)
    if states > MAX_COMPOSED_STATES:
        raise ResourceLimitError(
            f"{kernel!r} by composition would build X ∘ S ∘ Y of about {states:,} states for sequences of "
            f"{lx:,} and {ly:,} symbols (S has {n_states:,}), beyond the limit of {MAX_COMPOSED_STATES:,}. "
            "Use strategy='auto' (the family's own algorithm) or shorter sequences."
        )


# -- per-sequence work (module level: picklable for worker processes) -----------------


def _lattice(x: Any) -> Transducer:
    return x if isinstance(x, Transducer) else from_pynini(x, "probability")


def _input_fst(x: Any, t: Transducer) -> pynini.Fst:
    """The acceptor of x (a sequence or a lattice) in t's semiring, labelled in t's alphabet."""
    ab, sr = t.alphabet, t.semiring
    if _is_lattice(x):
        lat = _lattice(x)
        if lat.semiring is not sr:
            raise SemiringMismatchError(
                f"A {lat.semiring.name} lattice cannot be used with a {sr.name} kernel transducer; give the lattice "
                f"in the {sr.name} semiring."
            )
        pairs = lat.alphabet.relabelling(ab.merge(lat.alphabet))
        f = lat._fst if not pairs else pynini.relabel_pairs(lat._fst, ipairs=pairs, opairs=pairs)
        return pynini.arcsort(f.copy(), sort_type="olabel")
    labels = ab.labels(x if isinstance(x, str) else as_symbols(x))
    return _chain(labels, labels, sr, ab, sr.one)._fst


def _sorted(t: Transducer) -> pynini.Fst:
    """A copy of t's FST sorted on input labels, ready to be composed on the right."""
    return pynini.arcsort(t._fst.copy(), sort_type="ilabel")


def _cyclic_lattice(x: Any) -> bool:
    return _is_lattice(x) and not _lattice(x).is_acyclic


def _phi_fst(x: Any, t: Transducer, tf: pynini.Fst, sort: bool = True) -> pynini.Fst:
    """Φ_x = Π2(X ∘ T), ε-removed (and arcsorted for intersection when ``sort``);
    ``tf`` is T's FST from :func:`_sorted`.

    ε-removal sums the weights of ε-paths with OpenFst's shortest distance, exactly only
    with ``delta=0`` (a positive delta drops every term below it relative to the sum). Its
    ε-subgraph is acyclic unless x is a cyclic lattice (T is regulated, and every ε-arc of
    Φ_x reads a symbol of x); a cyclic one keeps its ε-arcs, which intersection and
    :func:`~ratkit.automata.distance.total_native` sum exactly (a linear solve) — with
    ``delta=0`` OpenFst would iterate until the geometric sums stopped changing.
    """
    f = pynini.compose(_input_fst(x, t), tf)
    f.project("output")  # in place: f is our own fresh result
    if not _cyclic_lattice(x):
        f.rmepsilon(delta=0.0)
    return f.arcsort(sort_type="ilabel") if sort else f


def _phi_features_chunk(t: Transducer, chunk: Sequence[tuple[int, Any]], n_labels: int):
    """COO triplets of the enumerated feature automata of a chunk of (row, sequence)."""
    tf = _sorted(t)
    rows, codes, vals = [], [], []
    for i, x in chunk:
        if _cyclic_lattice(x):
            raise TooManyPaths("a cyclic lattice has infinitely many feature strings")
        a = fst_to_arrays(_phi_fst(x, t, tf, sort=False))
        if n_labels < len(t.alphabet):  # patterns with symbols outside the vocabulary can't match
            keep = a.olabel <= n_labels
            a.src, a.ilabel, a.olabel, a.weight, a.dst = (v[keep] for v in (a.src, a.ilabel, a.olabel, a.weight, a.dst))
        c, w = enumerate_paths(a, n_labels, MAX_PATHS)
        with np.errstate(over="ignore"):
            values = np.exp(-w)
        if not np.isfinite(values).all():
            raise WeightOverflowError(
                f"Input {i}: a feature weight ⟦T⟧(x, z) = e^{-float(w.min()):.4g} exceeds float64's range "
                "(about e^709); scale T's weights down."
            )
        rows.append(np.full(c.shape[0], i, dtype=np.int64))
        codes.append(c)
        vals.append(values)
    return np.concatenate(rows), np.concatenate(codes), np.concatenate(vals)


def _pair_total(left: pynini.Fst, right: pynini.Fst, semiring: Semiring, intersect: bool) -> float:
    """The native total of left ∩ right (or left ∘ right)."""
    f = pynini.intersect(left, right) if intersect else pynini.compose(left, right)
    return total_native(Transducer(f, semiring, Alphabet(()), check=False))
