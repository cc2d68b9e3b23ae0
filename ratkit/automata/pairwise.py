"""Pairwise kernels K((a, b), (c, d)) on pairs of inputs, built from any base kernel k.

A pairwise SVM learns f(a, b) = Σ α_ij y_ij K((x_i, x_j), (a, b)) + γ from triples
(x_i, x_j, y_ij), y_ij = +1 when x_i and x_j interact (or share a class), −1 otherwise
(survey §IV-B2, eq. (34)). The pairwise kernel K on (X × X) × (X × X) is built from a
base kernel k on X (an n-gram kernel, any ratkit kernel), with δ(x, z) = [x = z]:

======================  =====================================================  ==================
kind                    K((a, b), (c, d))                                      also known as
======================  =====================================================  ==================
``"D"``                 k(a, c) + k(b, d)                                      direct sum
``"T"``                 k(a, c) · k(b, d)                                      tensor (Kronecker)
``"DL"``                ½ (k(a, c) + k(a, d) + k(b, c) + k(b, d))              direct sum learning
``"TL"``                ½ (k(a, c) k(b, d) + k(a, d) k(b, c))                  tensor learning; TPPK = 2·K_TL
``"ML"``                ¼ (k(a, c) − k(a, d) − k(b, c) + k(b, d))²             metric learning; MLPK = 4·K_ML
``"TM"``                K_TL + K_ML                                            tensor metric learning
``"cartesian"``         k(a, c) δ(b, d) + δ(a, c) k(b, d)                      Cartesian
======================  =====================================================  ==================

The *balanced* kinds DL, TL, ML and TM satisfy K((a, b), (c, d)) = K((a, b), (d, c)) =
K((b, a), (c, d)), so that f(a, b) = f(b, a). Every kind is PDS when k is: D and T by the
closure of PDS kernels under sums and products (Theorem 1); DL = ½⟨φ(a) + φ(b), φ(c) +
φ(d)⟩; TL and ML are inner products of the symmetrised and antisymmetrised tensors
φ(a) ⊗ φ(b); TM is their sum; the Cartesian kernel is a sum of products of k with δ, itself
PDS (its feature map is the indicator of the element).

**Inputs.** A *pair* is a ``tuple`` of length 2 whose items are inputs of the base kernel
(strings, token tuples, lattices, graphs); ``("ab", "cd")`` is the pair of the strings "ab"
and "cd", and a pair of token sequences is written ``(("a", "b"), ("c", "d"))``. A
*collection of pairs* is a ``list`` (or any iterable other than a tuple, or an (n, 2) numpy
array) of pairs. A tuple is always one pair, never a collection. δ compares elements as
the kernels see them, by :func:`~ratkit.automata.kernels.identity.input_key`: a sequence
by its tokens (``"ab"``, ``("a", "b")``, ``["a", "b"]`` and ``np.array(["a", "b"])`` are
one element), an acyclic lattice by its weighted language (one string of weight 1̄ is
that string), a :class:`~ratkit.automata.graphs.Graph` by its content. Where equality
cannot be decided — a cyclic lattice, an unhashable object — the Cartesian kernel raises
:class:`~ratkit.exceptions.UnsupportedOperationError` naming the element; the other kinds
have no δ and accept it.

**Computation.** A Gram matrix [K(p_i, q_j)] is computed from one base Gram matrix over the
*distinct* elements of the pairs — u × u for gram(P), u_P × u_Q for gram(P, Q) — and then
combined by indexing in O(l · l′) numpy operations: no base-kernel call per pair.

References
----------
A. Ghose, *Rational kernels: a survey*, §IV-B2 (pairwise kernels and SVMs), §IV-B3.
C. Brunner, A. Fischer, K. Luig, T. Thies, "Pairwise support vector machines and their
application to large scale problems", JMLR 13, 2012 (K_D, K_T, K_DL, K_TL, K_ML, K_TM).
A. Ben-Hur, W. S. Noble, "Kernel methods for predicting protein–protein interactions",
Bioinformatics 21, 2005 (TPPK). J.-P. Vert, J. Qiu, W. S. Noble, "A new pairwise kernel
for biological network inference with support vector machines", BMC Bioinformatics 8, 2007
(MLPK). H. Kashima, S. Oyama, Y. Yamanishi, K. Tsuda, "On pairwise kernels: an efficient
alternative and generalization analysis", PAKDD 2009 (the Cartesian kernel).
A. Roche-Lima, M. Domaratzki, B. Fristensky, "Metabolic network prediction through
pairwise rational kernels", BMC Bioinformatics 15, 2014.
"""

from __future__ import annotations

import reprlib
import warnings
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from ratkit._validation import check_choice
from ratkit.automata.kernels.base import Kernel
from ratkit.automata.kernels.combination import KernelWrapper, finite_combination
from ratkit.automata.kernels.identity import input_key
from ratkit.automata.kernels.inputs import check_gram_bytes
from ratkit.exceptions import ParameterTypeError, UnsupportedOperationError
from ratkit.plugins import register

__all__ = ["PairwiseKernel", "PairKind", "PAIR_KINDS", "BALANCED", "pairwise", "as_pairs"]

PairKind = Literal["D", "T", "DL", "TL", "ML", "TM", "cartesian"]
#: The kinds of pairwise kernel, as :func:`pairwise` names them (``KINDS`` in 0.1.0: that
#: name also meant the plugin kinds and the model kinds, and is deprecated here).
PAIR_KINDS: tuple[str, ...] = ("D", "T", "DL", "TL", "ML", "TM", "cartesian")
#: The balanced kinds: K((a, b), (c, d)) = K((a, b), (d, c)) = K((b, a), (c, d)).
BALANCED: tuple[str, ...] = ("DL", "TL", "ML", "TM")

_short = reprlib.Repr()
_short.maxstring = 40
_short.maxother = 40


def _is_pair(p: Any) -> bool:
    return isinstance(p, tuple) and len(p) == 2


def _pair_error(p: Any, what: str) -> ParameterTypeError:
    size = f" of length {len(p)}" if isinstance(p, (tuple, list)) else ""
    return ParameterTypeError(
        f"{what} must be a pair: a 2-tuple (a, b) of inputs of the base kernel. Got the "
        f"{type(p).__name__}{size} {_short.repr(p)} instead."
    )


def as_pairs(X: Any, what: str = "X") -> list[tuple[Any, Any]]:
    """The pairs of a collection of pairs (a list of 2-tuples, or an (n, 2) array), as a list.

    A tuple is one pair, never a collection (``("ab", "cd")`` is the pair of "ab" and "cd");
    anything that is not a 2-tuple is refused by a :class:`~ratkit.exceptions.ParameterTypeError`
    (a TypeError and a ValueError) naming its index.
    """
    if isinstance(X, (tuple, str, bytes)):
        raise ParameterTypeError(
            f"{what} must be a collection of pairs (a list of 2-tuples); got a {type(X).__name__}, "
            "which is one pair at most. Use k(p, q) for two pairs, or wrap them in a list: k([p], [q])."
        )
    if isinstance(X, np.ndarray) and X.ndim == 2:
        if X.shape[1] != 2:
            raise ParameterTypeError(f"{what} must be an (n, 2) array of pairs; got the shape {X.shape}.")
        return [tuple(row) for row in X.tolist()]
    try:
        items = list(X)
    except TypeError:
        raise ParameterTypeError(
            f"{what} must be a collection of pairs (a list of 2-tuples); got {type(X).__name__}."
        ) from None
    out = []
    for i, p in enumerate(items):
        if isinstance(p, np.ndarray) and p.shape == (2,):
            p = tuple(p.tolist())
        if not _is_pair(p):
            raise _pair_error(p, f"{what}[{i}]")
        for side, x in enumerate(p):
            if x is None or isinstance(x, (bytes, bytearray, memoryview)):
                hint = " (bytes: decode them first, x.decode('utf-8'))" if x is not None else ""
                raise ParameterTypeError(
                    f"{what}[{i}][{side}] is {_short.repr(x)}{hint}; a pair holds two inputs of the base kernel "
                    "(sequences, lattices or graphs)."
                )
        out.append(p)
    return out


class _Elements:
    """The distinct elements of collections of pairs: ``codes(P)`` numbers the elements of
    each pair (an (n, 2) int array, equal codes for equal elements), ``items(codes)`` the
    elements of some codes.

    Elements are equal when their :func:`~ratkit.automata.kernels.identity.input_key` is:
    the kernels' own notion of one input ("ab" is ("a", "b")). With ``exact`` (δ reads the
    codes) an element whose equality cannot be decided is an error naming it; without
    (the codes only save base-kernel work) it is kept apart from every other element.
    """

    def __init__(self, exact: bool = False) -> None:
        self._exact = exact
        self._index: dict[Any, int] = {}
        self._items: list[Any] = []

    def _key(self, x: Any, what: str) -> Any:
        try:
            return input_key(x, what)
        except UnsupportedOperationError as exc:
            if self._exact:
                raise UnsupportedOperationError(f"The cartesian pairwise kernel's δ(x, z) = [x = z]: {exc}") from None
            return ("identity", id(x))  # x stays alive in self._items: its id is not reused

    def codes(self, pairs: list[tuple[Any, Any]], what: str = "X") -> np.ndarray:
        out = np.empty((len(pairs), 2), dtype=np.int64)
        for i, pair in enumerate(pairs):
            for s, x in enumerate(pair):
                key = self._key(x, f"{what}[{i}][{s}]")
                code = self._index.get(key)
                if code is None:
                    code = self._index[key] = len(self._items)
                    self._items.append(x)
                out[i, s] = code
        return out

    def items(self, codes: np.ndarray) -> list[Any]:
        return [self._items[c] for c in codes]


def _local(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct codes, sorted; each code's position among them)."""
    distinct = np.unique(codes)
    return distinct, np.searchsorted(distinct, codes)


def _combine(kind: str, k: Callable[[int, int], np.ndarray], same: Callable[[int], np.ndarray]) -> np.ndarray:
    """K from ``k(s, t)``, the base kernel between the s-th elements of the left pairs and
    the t-th elements of the right ones (s, t ∈ {0, 1}: a, b on the left; c, d on the right),
    and ``same(s)``, δ between the s-th elements. Sums are grouped so that a Gram matrix of
    a collection with itself is exactly symmetric."""
    if kind == "D":
        return k(0, 0) + k(1, 1)
    if kind == "T":
        return k(0, 0) * k(1, 1)
    if kind == "cartesian":
        return k(0, 0) * same(1) + same(0) * k(1, 1)
    ac, bd, ad, bc = k(0, 0), k(1, 1), k(0, 1), k(1, 0)
    if kind == "DL":
        return ((ac + bd) + (ad + bc)) / 2
    tl = (ac * bd + ad * bc) / 2
    if kind == "TL":
        return tl
    ml = ((ac + bd) - (ad + bc)) ** 2 / 4
    return ml if kind == "ML" else tl + ml


@register("kernel", "pairwise")
class PairwiseKernel(KernelWrapper):
    """A pairwise kernel K((a, b), (c, d)) of the given ``kind`` from the base ``kernel`` k.

    See :mod:`ratkit.automata.pairwise` for the seven kinds, their formulas and the names
    they have in the literature (TPPK = 2·K_TL, MLPK = 4·K_ML). PDS when k is.

    Parameters
    ----------
    kernel
        The base kernel k on the elements of the pairs (any ratkit kernel).
    kind
        ``"D"``, ``"T"``, ``"DL"``, ``"TL"``, ``"ML"``, ``"TM"`` or ``"cartesian"``.

    Examples
    --------
    >>> from ratkit.automata.kernels import ngram
    >>> k = PairwiseKernel(ngram(1), "TL")
    >>> k(("ab", "b"), ("b", "ab"))  # ½ (k(ab, b) k(b, ab) + k(ab, ab) k(b, b)) = ½ (1 + 2)
    1.5
    """

    _spec_required = ("kernel", "kind")

    def __init__(self, kernel: Kernel, kind: PairKind) -> None:
        self.kernel = kernel
        self.kind = kind

    def _base(self) -> Kernel:
        if not isinstance(self.kernel, Kernel):
            raise ParameterTypeError(
                "The 'kernel' parameter of pairwise must be a ratkit kernel (the base kernel on the "
                f"elements of the pairs). Got {_short.repr(self.kernel)} instead."
            )
        return self.kernel

    def _kind(self) -> str:
        return check_choice(self.kind, "kind", "pairwise", PAIR_KINDS)

    def _validate_params(self) -> None:
        self._kind()
        super()._validate_params()

    @property
    def balanced(self) -> bool:
        """Whether K((a, b), (c, d)) = K((a, b), (d, c)) = K((b, a), (c, d))."""
        return self._kind() in BALANCED

    def __call__(self, X: Any, Y: Any = None) -> Any:
        """k(p, q) for two pairs (2-tuples), k(P, Q) = the Gram matrix for two collections."""
        if isinstance(X, tuple):
            if not isinstance(Y, tuple):
                raise ParameterTypeError(
                    "k(p, q) needs two pairs (2-tuples); for Gram matrices pass lists of pairs: k(P, Q). "
                    f"Got {_short.repr(Y)} as q."
                )
            return self.value(X, Y)
        return self.gram(X, Y)

    def value(self, x: Any, y: Any) -> float:
        """K(p, q) for two pairs p = (a, b), q = (c, d)."""
        for p, name in ((x, "p"), (y, "q")):
            if not _is_pair(p):
                raise _pair_error(p, f"The pair {name}")
        return float(self.gram([x], [y])[0, 0])

    @property
    def is_pds(self) -> bool | None:  # type: ignore[override]
        """True when the base kernel is PDS (every kind is then PDS, see the module
        docstring), else None: a non-PDS base can still give a PDS pairwise kernel (TL on
        pairs (a, a) is k(a, c)²), so nothing is claimed."""
        return True if self._base().is_pds is True else None

    def learn(self, X: Any) -> None:
        """The base kernel learns from the elements of the pairs (see :meth:`Kernel.learn`)."""
        pairs = as_pairs(X, "X")
        elements = _Elements()
        self._base().learn(elements.items(np.unique(elements.codes(pairs))) if pairs else [])

    def _gram(self, X: Any, Y: Any = None, **options: Any) -> np.ndarray:
        """[K(p_i, q_j)] from one base Gram matrix over the distinct elements of the pairs
        (``options`` go to the base kernel's :meth:`~ratkit.automata.kernels.Kernel.gram_with`)."""
        kind = self._kind()
        base = self._base()
        P = as_pairs(X, "X")
        Q = P if Y is None else as_pairs(Y, "Y")
        check_gram_bytes(len(P), len(Q), self)
        if not P or not Q:
            return np.zeros((len(P), len(Q)))
        elements = _Elements(exact=kind == "cartesian")
        cp = elements.codes(P, "X")
        cq = cp if Y is None else elements.codes(Q, "Y")
        up, lp = _local(cp)
        if Y is None:
            uq, lq = up, lp
            G = base.gram_with(elements.items(up), **options)
        else:
            uq, lq = _local(cq)
            G = base.gram_with(elements.items(up), elements.items(uq), **options)
        G = np.asarray(G, dtype=np.float64)

        def k(s: int, t: int) -> np.ndarray:
            return G[np.ix_(lp[:, s], lq[:, t])]

        def same(s: int) -> np.ndarray:
            return (cp[:, s][:, None] == cq[:, s][None, :]).astype(np.float64)

        return finite_combination(lambda: _combine(kind, k, same), self)

    def diag(self, X: Any) -> np.ndarray:
        """[K(p_i, p_i)], from the base Gram matrix over the distinct elements of the pairs."""
        kind = self._kind()
        base = self._base()
        P = as_pairs(X, "X")
        if not P:
            return np.zeros(0)
        elements = _Elements()
        up, lp = _local(elements.codes(P))
        G = np.asarray(base.gram_with(elements.items(up)), dtype=np.float64)

        def k(s: int, t: int) -> np.ndarray:
            return G[lp[:, s], lp[:, t]]

        def same(s: int) -> np.ndarray:
            return np.ones(len(P))

        return finite_combination(lambda: _combine(kind, k, same), self)


def pairwise(kernel: Kernel, kind: PairKind) -> PairwiseKernel:
    """The pairwise kernel of ``kind`` ("D", "T", "DL", "TL", "ML", "TM", "cartesian") on
    2-tuples, built from the base ``kernel``; e.g. K_TL((a, b), (c, d)) =
    ½ (k(a, c) k(b, d) + k(a, d) k(b, c)). See :mod:`ratkit.automata.pairwise`."""
    k = PairwiseKernel(kernel, kind)
    k._validate_params()
    return k


def __getattr__(name: str) -> Any:
    """``KINDS``, the former name of :data:`PAIR_KINDS`, with a DeprecationWarning."""
    if name == "KINDS":
        warnings.warn(
            "ratkit.automata.pairwise.KINDS is deprecated and will be removed in the next release; use PAIR_KINDS "
            "(the kinds of pairwise kernel: KINDS also names the plugin and model kinds elsewhere).",
            DeprecationWarning,
            stacklevel=2,
        )
        return PAIR_KINDS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
