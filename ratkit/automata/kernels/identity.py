"""When two kernel inputs are the same input: :func:`input_key`, the one definition.

Every kernel reads a sequence through :func:`~ratkit.automata.alphabet.as_symbols`: the
``str`` ``"ab"``, the tuple ``("a", "b")``, the list ``["a", "b"]`` and the 1-d array
``np.array(["a", "b"])`` are one sequence, the symbols a, b, and every kernel gives them the
same values. Whatever compares or deduplicates inputs (δ(x, z) = [x = z] of the Cartesian
pairwise kernel, the distinct elements of a collection of pairs) compares their keys, so it
agrees with the kernels:

- a sequence is its tuple of tokens (a ``str`` is the tuple of its characters);
- an acyclic lattice is the weighted language it denotes, {(string, weight)}, weights
  compared to 12 significant digits; a lattice that accepts one string with weight 1̄ is
  that string — a kernel sees it as the sequence;
- a :class:`~ratkit.automata.graphs.Graph` is its content (adjacency, node and edge labels,
  in the order given: isomorphic graphs numbered differently are different inputs);
- a numeric array is its dtype, shape and values; anything else hashable is itself.

A cyclic lattice (an infinite language), an acyclic one with more than
:data:`~ratkit.limits.MAX_KEY_PATHS` path prefixes, or an unhashable object has no key:
:func:`input_key` raises :class:`~ratkit.exceptions.UnsupportedOperationError` naming the
input, rather than guess.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from ratkit.automata.alphabet import _single_characters
from ratkit.automata.fst_arrays import fst_to_arrays
from ratkit.automata.graphs import Graph
from ratkit.automata.kernels._paths import TooManyPaths, enumerate_paths
from ratkit.automata.kernels.inputs import as_lattice, is_lattice
from ratkit.exceptions import UnsupportedOperationError
from ratkit.limits import MAX_KEY_PATHS

__all__ = ["input_key"]

#: Significant digits to which the weights of a lattice's strings are compared.
WEIGHT_DIGITS = 12


def input_key(x: Any, what: str = "the input") -> Hashable:
    """The identity of one kernel input: ``input_key(x) == input_key(z)`` when x and z are
    the same input for every kernel (see :mod:`ratkit.automata.kernels.identity`).

    A sequence of one-character tokens is keyed as the ``str`` of those characters, so that
    ``input_key("ab") == input_key(("a", "b")) == input_key(["a", "b"])``; a sequence with a
    longer token (``("ab",)``, one symbol) keys as its token tuple. Raises
    :class:`~ratkit.exceptions.UnsupportedOperationError` naming ``what`` when equality of
    ``x`` cannot be decided (a cyclic or too large lattice, an unhashable object).

    Examples
    --------
    >>> input_key("ab") == input_key(("a", "b")) == input_key(["a", "b"])
    True
    >>> input_key("ab") == input_key(("ab",))
    False
    """
    if isinstance(x, str):
        return ("sequence", str(x))
    if isinstance(x, (tuple, list)) and all(isinstance(t, str) for t in x):
        return _sequence(x)
    if isinstance(x, np.ndarray):
        if x.ndim == 0:
            return input_key(x.item(), what)
        if x.ndim == 1 and (x.dtype.kind == "U" or x.size == 0 or _all_str(x)):
            return _sequence(x.tolist())
        return ("array", x.dtype.str, x.shape, np.ascontiguousarray(x).tobytes())
    if is_lattice(x):
        return _language(x, what)
    if isinstance(x, Graph):
        return ("graph", x)
    if isinstance(x, list):
        x = tuple(x)
    try:
        hash(x)
    except TypeError:
        raise UnsupportedOperationError(
            f"Cannot tell whether {what} ({type(x).__name__}) equals another input: it is not hashable. "
            "Give sequences (str or tuples of str tokens), lattices, graphs or hashable values."
        ) from None
    return ("value", type(x).__qualname__, x)


def _all_str(x: np.ndarray) -> bool:
    return x.dtype.kind == "O" and all(isinstance(t, str) for t in x.tolist())


def _sequence(tokens: Any) -> Hashable:
    """The key of a token sequence: the str of its characters when every token is one
    character (as a str's key), else the tuple of its tokens."""
    tokens = tuple(str(t) for t in tokens)
    if _single_characters(tokens):
        return ("sequence", "".join(tokens))
    return ("sequence", tokens)


def _language(x: Any, what: str) -> Hashable:
    """The weighted language of an acyclic lattice: its strings and weights (paths to one
    string summed in its semiring, zero-weight strings dropped), or the key of the
    sequence when it is one string of weight 1̄."""
    lattice = as_lattice(x)
    if not lattice.is_acyclic:
        raise UnsupportedOperationError(
            f"Cannot tell whether {what} equals another input: it is a cyclic lattice, whose weighted language is "
            "infinite. Give an acyclic lattice, or use a kind of pairwise kernel without δ (not 'cartesian')."
        )
    fst = lattice.fst  # a copy
    fst.project("output")  # a kernel reads the output tape of an input (X ∘ T)
    fst.rmepsilon(delta=0.0)
    n_labels = len(lattice.alphabet)
    try:
        codes, native = enumerate_paths(fst_to_arrays(fst), n_labels, MAX_KEY_PATHS)
    except TooManyPaths:
        raise UnsupportedOperationError(
            f"Cannot tell whether {what} equals another input: the lattice has more than {MAX_KEY_PATHS:,} path "
            "prefixes to compare. Use a kind of pairwise kernel without δ (not 'cartesian'), or smaller lattices."
        ) from None
    keep = np.isfinite(native)  # a path of weight 0̄ adds no string
    codes, native = codes[keep], native[keep]
    order = np.argsort(codes, kind="stable")
    codes, native = codes[order], native[order]
    distinct, starts = np.unique(codes, return_index=True)
    if lattice.semiring.idempotent:  # ⊕ = min on the native costs (tropical, boolean)
        weights = np.minimum.reduceat(native, starts) if native.size else native
    else:  # ⊕ = + on probabilities, −log(e^{−a} + e^{−b}) on their native −log values
        weights = -np.logaddexp.reduceat(-native, starts) if native.size else native
    symbols = lattice.alphabet.symbols
    base = n_labels + 1
    language = []
    for code, w in zip(distinct.tolist(), weights.tolist(), strict=True):
        labels = []
        while code:
            code, digit = divmod(code, base)
            labels.append(digit)
        tokens = tuple(symbols[label - 1] for label in reversed(labels))
        language.append((_sequence(tokens), _rounded(w)))
    if len(language) == 1 and language[0][1] == 0.0:  # native 0 is 1̄ in every semiring
        return language[0][0]
    return ("lattice", lattice.semiring.name, frozenset(language))


def _rounded(native: float) -> float:
    """A native weight to :data:`WEIGHT_DIGITS` significant digits (|w| < 10⁻¹² as 0)."""
    if abs(native) < 10.0**-WEIGHT_DIGITS:
        return 0.0
    return float(f"{native:.{WEIGHT_DIGITS}g}")
