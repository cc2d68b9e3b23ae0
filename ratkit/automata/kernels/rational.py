"""Rational kernels K(x, y) = Ψ(⟦S⟧(x, y)) and the strategies that compute their Gram matrices.

Rational kernels of the form S = T ∘ T⁻¹ (Proposition 1: PDS) are computed without ever
building S per pair: each input's feature automaton Φ_x = Π2(X ∘ T) is built once (l
compositions instead of l²) and the Gram matrix is filled from the Φ_x — by a sparse product
when Φ_x is finite (its strings and weights are the explicit feature vector), by pairwise
intersection otherwise (survey §II-B, §V-B). The OpenFst work per sequence and per pair is in
:mod:`ratkit.automata.kernels._rational_work` (module-level functions: picklable for workers).

References
----------
A. Ghose, *Rational kernels: a survey*, Definition 4, eq. (3)–(4), Proposition 1, §II-B.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from typing import Any, Literal, cast

import numpy as np
import pynini
import scipy.sparse as sp

from ratkit._parallel import Shared, map_chunks, pair_matrix
from ratkit.automata.alphabet import Alphabet, as_symbols, display_symbols, distinct_characters
from ratkit.automata.kernels._float_range import feature_products, feature_sq_norms, rescaled
from ratkit.automata.kernels._paths import TooManyPaths
from ratkit.automata.kernels._rational_work import (
    check_composition_size,
    check_feature_automata,
    input_fst,
    pair_total,
    params_key,
    phi_features_chunk,
    phi_fst,
    sorted_fst,
    specialized_in_blocks,
)
from ratkit.automata.kernels.base import Kernel
from ratkit.automata.kernels.features import (
    FeatureMap,
    Vocabulary,
    VocabularyError,
    chunked_vocabulary_matrix,
    vocabulary_matrix,
)
from ratkit.automata.kernels.inputs import as_lattice, as_sequences, check_gram_bytes, input_size, is_lattice
from ratkit.automata.operations import compose, invert
from ratkit.automata.semirings import PROBABILITY, Semiring, get_semiring
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import (
    ParameterError,
    ParameterTypeError,
    UnknownSymbolError,
    UnsupportedKernelError,
    WeightOverflowError,
)
from ratkit.limits import MAX_PHI_ARCS

__all__ = ["RationalKernel", "Strategy", "EXTRACTION_SECONDS_PER_BYTE", "EXTRACTION_MIN_GAIN_SECONDS"]

log = logging.getLogger(__name__)

Strategy = Literal["auto", "specialized", "features", "intersection", "composition"]
_STRATEGIES = ("auto", "specialized", "features", "intersection", "composition")
#: A family's vectorised feature extractor runs in blocks on the workers only when that is
#: estimated to save time: the first block is extracted in this process and timed, and the
#: rest go to the workers when (serial seconds of the rest)·(1 − 1/jobs) exceeds the cost of
#: bringing their COO triplets back, this many seconds a byte, plus
#: :data:`EXTRACTION_MIN_GAIN_SECONDS`. The n-gram extractor writes 24 bytes a window fast
#: enough that it stays in this process on a small machine; the feature automata, far slower
#: a character, always run in blocks
#: (measured: see bench/RESULTS.md, section 'Figures moved out of the code (issue 36)').
EXTRACTION_SECONDS_PER_BYTE = 5e-9
#: What extraction in blocks must save at least (sending blocks to workers costs about that).
EXTRACTION_MIN_GAIN_SECONDS = 0.05


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
    _gram_takes_n_jobs = True
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
        check_feature_automata(self, sequences, held, reason, MAX_PHI_ARCS)

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
                if is_lattice(x):
                    seen.update(dict.fromkeys(as_lattice(x).alphabet.symbols))
                else:
                    seen.update(dict.fromkeys(as_symbols(x)))
        if fixed is None:
            return Alphabet(sorted(seen))
        alphabet = Alphabet(fixed)
        missing = [s for s in seen if s not in alphabet]
        if missing:
            raise UnknownSymbolError(
                f"Symbol {missing[0]!r} is not in the alphabet of this {type(self).__name__} "
                f"({display_symbols(list(fixed))}); its "
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
        return params_key(self.get_params())

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
        fst = phi_fst(x, t, sorted_fst(t))
        return Transducer(fst, t.semiring, alphabet, check=False)

    # -- features -----------------------------------------------------------------
    def _raw_features(
        self, sequences: list[Any], symbols: tuple[str, ...], strategy: str, n_jobs: int | None, show_progress: bool
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """COO triplets (row, code, value) of the explicit feature map over ``symbols``."""
        index = {s: i + 1 for i, s in enumerate(symbols)}
        if strategy in ("auto", "specialized") and not any(map(is_lattice, sequences)):
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
        if t is None or not t.semiring.real_plus:
            raise TooManyPaths("no finite feature map for this kernel")
        self._check_feature_automata(sequences, held=False)
        if strategy == "auto":
            compiled = self._compiled_features(t, sequences, len(symbols), n_jobs, show_progress)
            if compiled is not None:
                return compiled
        work = functools.partial(phi_features_chunk, n_labels=len(symbols))
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
        return specialized_in_blocks(
            self, sequences, symbols, n_jobs, show_progress, EXTRACTION_SECONDS_PER_BYTE, EXTRACTION_MIN_GAIN_SECONDS
        )

    def fit_features(
        self,
        X: Any,
        *,
        strategy: Strategy | None = None,
        n_jobs: int | None = None,
        show_progress: bool | None = None,
        work_bytes: int | None = None,
    ) -> tuple[FeatureMap, sp.csr_matrix]:
        """The vocabulary of patterns of X and X's (n, p) feature matrix Φ (⟨Φ_x, Φ_y⟩ = K(x, y)),
        built with about ``work_bytes`` of working memory beyond Φ (in ranges of sequences,
        :func:`~ratkit.automata.kernels.features.chunked_vocabulary_matrix`; None: one pass).

        Raises :class:`TooManyPaths` when the feature map is infinite or too large to
        enumerate (use Gram matrices then).
        """
        X = as_sequences(X)
        strategy, n_jobs, show_progress = self._options(strategy, n_jobs, show_progress)
        symbols = tuple(self.alphabet_for(X))
        if work_bytes is not None and X:  # within a memory budget (a blocked Gram): in ranges of sequences
            uniq, F = chunked_vocabulary_matrix(
                lambda a, b: self._raw_features(X[a:b], symbols, strategy, n_jobs, False),
                [input_size(x) for x in X],
                max(int(work_bytes), 1),
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
            shown = display_symbols(bad, sep=" ")
            raise VocabularyError(f"{self!r} cannot produce the pattern {shown!r} of the vocabulary.")

    def feature_automata(self, X: Any) -> tuple[list[pynini.Fst], bool] | None:
        """(Φ′_i = Π2(X_i ∘ T), False) as olabel-sorted acceptors; None without a factor T over
        the probability semiring."""
        X = as_sequences(X)
        alphabet = self.alphabet_for(X)
        t = self.factor(alphabet)
        if t is None or not (t.semiring.real_plus and not t.semiring.log_weights):  # PROBABILITY
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

    def _options(self, strategy: Any, n_jobs: Any, show_progress: Any) -> tuple[Strategy, int | None, bool]:
        strategy = self.strategy if strategy is None else strategy
        if not isinstance(strategy, str) or strategy not in _STRATEGIES:
            raise (ParameterError if isinstance(strategy, str) else ParameterTypeError)(
                f"The 'strategy' parameter of {type(self).__name__} must be one of "
                f"{', '.join(map(repr, _STRATEGIES))}. Got {strategy!r} instead."
            )
        n_jobs = self.n_jobs if n_jobs is None else n_jobs
        show_progress = bool(self.show_progress if show_progress is None else show_progress)
        return cast(Strategy, strategy), n_jobs, show_progress

    # -- Gram matrices -----------------------------------------------------------
    def _gram(
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
        if strategy in ("auto", "specialized") and not any(map(is_lattice, both)):
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
            if isinstance(unit, RationalKernel):
                values = unit.diag(X, strategy=strategy, n_jobs=n_jobs)
            else:
                values = unit.diag(X)
            return rescaled(values, scale, self)
        alphabet = self.alphabet_for(X)
        if strategy in ("auto", "specialized") and not any(map(is_lattice, X)):
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
        factor = self.factor(alphabet)
        if how == "intersection":
            if factor is None:
                raise UnsupportedKernelError(f"{type(self).__name__} is not of the form T ∘ T⁻¹: no intersection.")
            self._check_feature_automata(X if symmetric else X + Ys, held=True)
            t = factor
            tf = sorted_fst(t)
            left = [phi_fst(x, t, tf) for x in X]
            right = left if symmetric else [phi_fst(y, t, tf) for y in Ys]
        else:
            s = self.transducer(alphabet)
            check_composition_size(self, X, Ys, s.num_states)
            sf = sorted_fst(s)
            left = [pynini.arcsort(pynini.compose(input_fst(x, s), sf), sort_type="olabel") for x in X]
            right = [input_fst(y, s) for y in Ys]
        semiring = (factor if factor is not None and how == "intersection" else self.transducer(alphabet)).semiring
        # Only T ∘ T⁻¹ is symmetric by construction; a general S (e.g. an edit distance with
        # different insertion and deletion weights) is evaluated on every pair.
        symmetric = symmetric and how == "intersection"
        total = functools.partial(pair_total, semiring=semiring, intersect=how == "intersection")
        native = pair_matrix(
            total, left, right, symmetric=symmetric, n_jobs=n_jobs, show_progress=show_progress, desc=f"Gram by {how}"
        )
        try:
            return self._psi(native)
        except WeightOverflowError as exc:  # the semiring's message does not name the kernel
            raise WeightOverflowError(f"{self!r} by {how}: {exc}") from None
