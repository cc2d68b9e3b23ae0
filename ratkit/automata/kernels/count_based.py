"""Count-based rational kernels: K(x, y) = Σ_k w_k² |x|_k |y|_k.

|x|_k is the number of (overlapping) occurrences of pattern k in x. This is the family
whose weights kernel learning chooses (survey §VI, eq. (55)).

References
----------
A. Ghose, *Rational kernels: a survey*, §VI-1, eq. (55).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from numbers import Real
from typing import Any

import numpy as np

from ratkit.automata.alphabet import Alphabet, as_symbols, display_symbols
from ratkit.automata.construct import from_arcs
from ratkit.automata.kernels._windows import encode, window_codes
from ratkit.automata.kernels.rational import RationalKernel, Strategy
from ratkit.automata.semirings import PROBABILITY
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import ParameterError, ParameterTypeError
from ratkit.plugins import register

__all__ = ["CountBasedKernel", "count_based", "pattern_counter"]


def pattern_counter(
    patterns: Sequence[tuple[str, ...]], weights: Sequence[float] | np.ndarray, alphabet: Alphabet
) -> Transducer:
    """T(x, p_k) = w_k · |x|_k: skip a prefix (σ:ε), copy p_k with weight w_k, skip the rest.

    Patterns holding a symbol outside ``alphabet`` occur in no string over it; they get no path.
    """
    arcs: list[tuple[Hashable, str, str, float, Hashable]] = [(("pre",), s, "", 1.0, ("pre",)) for s in alphabet]
    arcs += [(("post",), s, "", 1.0, ("post",)) for s in alphabet]
    for k, (p, w) in enumerate(zip(patterns, weights)):
        if not all(sym in alphabet for sym in p):
            continue
        states = [("pre",)] + [(k, i) for i in range(1, len(p))] + [("post",)]
        for i, sym in enumerate(p):
            arcs.append((states[i], sym, sym, float(w) if i == 0 else 1.0, states[i + 1]))
    return from_arcs(arcs, ("pre",), {("post",): 1.0}, PROBABILITY, alphabet)


@register("kernel", "count-based", aliases=("count_based",))
class CountBasedKernel(RationalKernel):
    """K(x, y) = Σ_k w_k² ``|x|_k`` ``|y|_k`` = Ψ(⟦T ∘ T⁻¹⟧(x, y)), T of :func:`pattern_counter`.

    Parameters
    ----------
    patterns
        A list of distinct non-empty patterns: strings (one symbol per character) or tuples
        of tokens. A bare string is refused rather than read as the list of its
        characters: write ``["ab"]`` for the one pattern "ab", ``list("ab")`` for the two
        patterns "a" and "b".
    weights
        w_k ≥ 0, one per pattern (default all 1).
    """

    semiring = PROBABILITY
    _spec_required = ("patterns",)

    def __init__(
        self,
        patterns: Sequence[Any] = (),
        weights: Sequence[float] | None = None,
        *,
        strategy: Strategy = "auto",
        n_jobs: int | None = None,
        show_progress: bool = False,
    ) -> None:
        self.patterns = patterns
        self.weights = weights
        self.strategy = strategy
        self.n_jobs = n_jobs
        self.show_progress = show_progress

    def pattern_tuples(self) -> list[tuple[str, ...]]:
        """The patterns as tuples of symbols, validated."""
        pats = []
        for i, p in enumerate(_pattern_list(self.patterns)):
            if not isinstance(p, (str, tuple, list)):
                raise ParameterTypeError(
                    f"Pattern {i} of count_based is {p!r:.40} ({type(p).__name__}); a pattern is a str or a "
                    "tuple of str tokens."
                )
            try:
                pats.append(as_symbols(p, f"pattern {i} of count_based"))
            except TypeError as exc:
                raise ParameterTypeError(f"The 'patterns' parameter of count_based: {exc}") from exc
        if not pats:
            raise ParameterError("The 'patterns' parameter of count_based must hold at least one pattern.")
        for i, p in enumerate(pats):
            if not p:
                raise ParameterError(f"Pattern {i} of count_based is empty; patterns must be non-empty.")
        seen: dict[tuple[str, ...], int] = {}
        for i, p in enumerate(pats):
            if p in seen:
                raise ParameterError(
                    f"Patterns {seen[p]} and {i} of count_based are both {p!r}; patterns must be distinct."
                )
            seen[p] = i
        return pats

    def weight_array(self) -> np.ndarray:
        """The weights w_k (default 1), validated."""
        n = len(self.pattern_tuples())
        if self.weights is None:
            return np.ones(n)
        if isinstance(self.weights, (str, bytes, Mapping)) or np.ndim(self.weights) != 1:
            raise ParameterTypeError(
                f"The 'weights' parameter of count_based must be a list of {n} floats, one per pattern. "
                f"Got {self.weights!r:.60} instead."
            )
        bad = [v for v in self.weights if isinstance(v, bool) or not isinstance(v, (Real, np.number))]
        if bad:
            raise ParameterTypeError(
                f"The 'weights' parameter of count_based must hold finite non-negative floats. Got {bad[0]!r:.40} "
                f"({type(bad[0]).__name__}) instead."
            )
        w = np.asarray(self.weights, dtype=np.float64)
        if w.shape != (n,):
            raise ParameterError(
                f"The 'weights' parameter of count_based must hold one weight per pattern ({n}). "
                f"Got {w.shape[0] if w.ndim else w!r} instead."
            )
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            bad = w[~(np.isfinite(w) & (w >= 0))][0]
            raise ParameterError(
                f"The 'weights' parameter of count_based must hold finite non-negative floats. Got {bad!r} instead."
            )
        return w

    def _validate_params(self) -> None:
        self.weight_array()

    def split_scale(self) -> tuple[float, CountBasedKernel]:
        """(2k ln 2, the kernel of the weights w / 2^k) (K is quadratic in the weights): 2^k
        brings the non-zero weights toward 1 without taking any of them across it — the
        largest to (½, 1] when all are below 1, the smallest to [1, 2) when all are above, k = 0
        when they straddle 1 — so that no value of the new kernel leaves float64's range
        where K's value does not, and no weight is lost (an exact division by 2^k)."""
        w = self.weight_array()
        positive = w[w > 0]
        if not positive.size:
            return 0.0, self
        lo, hi = float(positive.min()), float(positive.max())
        k = math.ceil(math.log2(hi)) if hi < 1.0 else math.floor(math.log2(lo)) if lo > 1.0 else 0
        if k == 0:
            return 0.0, self
        # kept, so that the unit kernel's transducers are built once (keyed by the parameters)
        key = self._params_key()
        cached = self.__dict__.get("_split_cache")
        if cached is None or cached[0] != key:
            params = {**self.get_params(deep=False), "weights": [float(v) for v in np.ldexp(w, -k)]}
            cached = self.__dict__["_split_cache"] = (key, (2 * k) * math.log(2.0), type(self)(**params))
        return cached[1], cached[2]

    def _spec_params(self, *, inline: bool = False) -> dict[str, Any]:
        """The patterns as strings (tuples of tokens as lists) and the weights as floats."""
        out = super()._spec_params(inline=inline)
        out["patterns"] = [display_symbols(list(p)) for p in self.pattern_tuples()]
        if self.weights is not None:
            out["weights"] = [float(w) for w in self.weight_array()]
        return out

    def _build_factor(self, alphabet: Alphabet) -> Transducer:
        return pattern_counter(self.pattern_tuples(), self.weight_array(), alphabet)

    def _specialized_features(
        self, sequences: list[Any], symbols: dict[str, int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        pats, w = self.pattern_tuples(), self.weight_array()
        base = len(symbols) + 1
        labels, offsets = encode(sequences, symbols)
        rows, codes, vals = [], [], []
        for length in sorted({len(p) for p in pats}):
            sel = [k for k, p in enumerate(pats) if len(p) == length and all(s in symbols for s in p)]
            if not sel:
                continue
            pcodes = np.zeros(len(sel), dtype=np.int64)
            for i in range(length):
                pcodes = pcodes * base + np.array([symbols[pats[k][i]] for k in sel])
            order = np.argsort(pcodes)
            pcodes, pw = pcodes[order], w[np.array(sel)][order]
            r, c = window_codes(labels, offsets, length, base)
            pos = np.minimum(np.searchsorted(pcodes, c), pcodes.size - 1)
            hit = pcodes[pos] == c
            rows.append(r[hit])
            codes.append(c[hit])
            vals.append(pw[pos[hit]])
        if not rows:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        return np.concatenate(rows), np.concatenate(codes), np.concatenate(vals)


def _pattern_list(patterns: Any) -> list[Any]:
    """The patterns as a list; a bare str (or bytes) is refused as ambiguous (one pattern, or
    one pattern per character?)."""
    if isinstance(patterns, (str, bytes, bytearray)):
        raise ParameterTypeError(
            f"The 'patterns' parameter of count_based must be a list of patterns; got the str "
            f"{patterns!r}. Write [{patterns!r}] for that one pattern, or list({patterns!r}) for one "
            "pattern per symbol."
        )
    try:
        return list(patterns)
    except TypeError:
        raise ParameterTypeError(
            f"The 'patterns' parameter of count_based must be a list of patterns; got {type(patterns).__name__}."
        ) from None


def count_based(patterns: Sequence[Any], weights: Sequence[float] | None = None, **options: Any) -> CountBasedKernel:
    """K(x, y) = Σ_k w_k² ``|x|_k`` ``|y|_k`` over the given patterns (see :class:`CountBasedKernel`);
    ``patterns`` is a list (a bare string is refused)."""
    if weights is not None and not isinstance(weights, (str, bytes, Mapping)) and np.ndim(weights) == 1:
        weights = list(weights)  # a copy; anything else is refused by _validate_params
    k = CountBasedKernel(_pattern_list(patterns), weights, **options)
    k._validate_params()
    k._validate_options()
    return k
