"""The inputs of kernels, coerced once at the boundary.

A *single* input of a sequence kernel is a ``str``, a ``tuple`` of string tokens, or a
weighted acceptor (a ratkit :class:`~ratkit.automata.Transducer` or a ``pynini.Fst``: a
lattice); a graph kernel's is a :class:`~ratkit.automata.graphs.Graph`. Anything else
iterable (a list, a numpy array) is a *collection* of such inputs; inside a collection a
list of tokens is also accepted as one sequence. An (n, 1) array of strings — the column
scikit-learn hands a string feature — is the n strings it holds (not n one-token
sequences); the rows of an (n, m) string array with m > 1 are token sequences. Inputs are
checked once, at the boundary (:func:`as_sequences`): None, bytes, numbers and tokens that
are not non-empty strings raise a :class:`~ratkit.exceptions.ParameterTypeError` naming the
input (``X[3]``); an in-memory Gram matrix larger than :func:`ratkit.limits.max_bytes` is
refused before it is computed (:func:`check_gram_bytes`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pynini

from ratkit.automata.construct import from_pynini
from ratkit.automata.graphs import Graph
from ratkit.automata.transducer import Transducer
from ratkit.exceptions import ParameterError, ParameterTypeError
from ratkit.limits import check_bytes

__all__ = [
    "is_single",
    "is_lattice",
    "as_lattice",
    "input_size",
    "as_collection",
    "as_sequences",
    "check_sequence",
    "check_gram_bytes",
]


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
    if isinstance(x, str) or is_lattice(x):
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


def is_lattice(x: Any) -> bool:
    """True for a weighted acceptor: a ratkit :class:`~ratkit.automata.Transducer` or a ``pynini.Fst``."""
    return isinstance(x, (Transducer, pynini.Fst))


def as_lattice(x: Any) -> Transducer:
    """A lattice as a ratkit transducer (a ``pynini.Fst`` read in the probability semiring)."""
    return x if isinstance(x, Transducer) else from_pynini(x, "probability")


def input_size(x: Any) -> int:
    """What a sequence's features cost, roughly: its length, or a lattice's number of arcs."""
    if is_lattice(x):
        fst = x.fst if isinstance(x, Transducer) else x
        return sum(fst.num_arcs(state) for state in fst.states())
    return len(x)
