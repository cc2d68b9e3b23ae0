"""Errors of :mod:`ratkit.automata.pt`, in ratkit's one hierarchy.

Each derives from :class:`~ratkit.exceptions.RatkitError` and from the matching builtin,
so ``except ValueError`` keeps working. The other bad inputs of this package raise the
errors of the automata algebra: :class:`~ratkit.exceptions.AlphabetMismatchError`,
:class:`~ratkit.exceptions.UnknownSymbolError`, :class:`~ratkit.exceptions.OperationError`.
"""

from __future__ import annotations

from ratkit.exceptions import OperationError, RatkitError

__all__ = [
    "EmptyAlphabetError",
    "DecisionListError",
    "BoundExceededError",
    "NotPiecewiseTestableError",
]


class EmptyAlphabetError(RatkitError, ValueError):
    """The alphabet Σ has no symbol."""


class DecisionListError(OperationError):
    """The chopping procedure of Theorem 6 cannot return a decision list for this language.

    Catch this class to handle both of its causes; no list is ever returned in either case.
    """


class BoundExceededError(DecisionListError):
    """The decision list needs decisive strings longer than ``max_len``.

    ``needed`` is the smallest bound that suffices.
    """

    def __init__(self, message: str, needed: int | None = None) -> None:
        super().__init__(message)
        self.needed = needed

    def __reduce__(self):
        return (type(self), (str(self), self.needed))


class NotPiecewiseTestableError(DecisionListError):
    """The language is not piecewise testable: at some step V_i ≠ ∅ has no decisive string.

    ``step`` is that i.
    """

    def __init__(self, message: str, step: int | None = None) -> None:
        super().__init__(message)
        self.step = step

    def __reduce__(self):
        return (type(self), (str(self), self.step))
