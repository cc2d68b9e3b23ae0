"""One error hierarchy for the whole of ratkit.

Every error raised on purpose by ratkit derives from :class:`RatkitError`. Each
subclass also inherits the matching built-in exception (``ValueError``,
``LookupError``, ...) so that ``except ValueError`` keeps working for callers who
do not know ratkit's types.
"""

from __future__ import annotations

from sklearn.exceptions import NotFittedError as SklearnNotFittedError

__all__ = [
    "RatkitError",
    "ParameterError",
    "ParameterTypeError",
    "SemiringError",
    "SemiringMismatchError",
    "AlphabetMismatchError",
    "UnknownSymbolError",
    "NotRegulatedError",
    "DivergentSumError",
    "FstFormatError",
    "OperationError",
    "PluginError",
    "UnknownPluginError",
    "DuplicatePluginError",
    "DataFormatError",
    "MissingDataError",
    "NotFittedError",
    "SolverError",
    "IdOutOfRangeError",
    "TrainingDataError",
    "NotPDSKernelError",
    "ModelFormatError",
    "UnsupportedKernelError",
    "OutputPathError",
    "WeightOverflowError",
    "ResourceLimitError",
    "VocabularyError",
    "MissingDependencyError",
    "DistributedError",
    "UnsupportedOperationError",
    "SpecError",
    "SpecTypeError",
    "PathIsFolderError",
    "NotAFolderError",
    "RatkitWarning",
    "ParameterWarning",
]


class RatkitError(Exception):
    """Root of every error ratkit raises on purpose."""


class ParameterError(RatkitError, ValueError):
    """A parameter has a value outside what it accepts (a range, a set of choices)."""


class ParameterTypeError(ParameterError, TypeError):
    """A parameter has a value of the wrong type (also a ``ValueError``, as scikit-learn's
    ``InvalidParameterError`` is both)."""


class SemiringError(RatkitError, ValueError):
    """A value is not an element of the semiring's natural domain (e.g. a negative probability)."""


class SemiringMismatchError(RatkitError, TypeError):
    """Operands of one operation live in different semirings."""


class AlphabetMismatchError(RatkitError, ValueError):
    """Operands use alphabets that cannot be reconciled (a declared alphabet lacks symbols)."""


class UnknownSymbolError(RatkitError, LookupError):
    """A symbol is not in the alphabet of the transducer or alphabet it is used with."""


class NotRegulatedError(RatkitError, ValueError):
    """A transducer has a cycle labelled ε on both tapes, so its weights are not well defined."""


class DivergentSumError(RatkitError, ArithmeticError):
    """A sum over infinitely many paths does not converge (e.g. a cycle of probability ≥ 1)."""


class FstFormatError(RatkitError, ValueError):
    """A transducer file (AT&T text or OpenFst binary) is malformed."""


class OperationError(RatkitError, ValueError):
    """An automata operation cannot be applied to its operand (e.g. determinising a non-functional transducer)."""


class PluginError(RatkitError):
    """Base class of plugin registry errors."""


class UnknownPluginError(PluginError, LookupError):
    """No plugin of that kind is registered under that name."""


class DuplicatePluginError(PluginError, ValueError):
    """A plugin name is already taken for that kind."""


class DataFormatError(RatkitError, ValueError):
    """A data file exists but does not have the expected format."""


class MissingDataError(RatkitError, FileNotFoundError):
    """A data file or directory that a loader needs is missing."""


class PathIsFolderError(RatkitError, IsADirectoryError):
    """A path that should name a file names a folder."""


class NotAFolderError(RatkitError, NotADirectoryError):
    """A path that should name a folder names a file (or goes through one)."""


class NotFittedError(RatkitError, SklearnNotFittedError):
    """An estimator or model is used before ``fit``; also scikit-learn's ``NotFittedError``
    (itself a ``ValueError`` and an ``AttributeError``), so either ``except`` clause works."""


class SolverError(RatkitError, RuntimeError):
    """A numerical solver failed or returned a status that is not optimal."""


class IdOutOfRangeError(RatkitError, IndexError):
    """A user or item index lies outside the range a model or matrix was built with."""


class TrainingDataError(RatkitError, ValueError):
    """Training data a learner cannot use: empty, a single class, or X and y of different lengths."""


class NotPDSKernelError(RatkitError, ValueError):
    """A learner that needs a positive definite symmetric kernel was given one known not to be PDS."""


class ModelFormatError(DataFormatError):
    """A saved model file is corrupted, truncated, or not a ratkit model at all."""


class UnsupportedKernelError(RatkitError, TypeError):
    """A learner was given a kernel of a family it cannot use (kernel learning needs a count-based kernel)."""


class OutputPathError(RatkitError, OSError):
    """An output path cannot be written: it is a folder, or its folder is missing or read-only."""


class WeightOverflowError(RatkitError, OverflowError):
    """A weight computed from representable ones (a ⊗-product along a path, a sum) leaves its encoding's range.

    Tropical costs are float32 (``|x|`` ≤ 3.4028235e38), log weights and probabilities float64.
    """


class ResourceLimitError(RatkitError, MemoryError):
    """A computation whose estimated size exceeds a documented limit, refused before it starts
    (so that it cannot exhaust the memory and abort the interpreter)."""


class VocabularyError(RatkitError, ValueError):
    """A vocabulary does not belong to a kernel: another kind of vocabulary, columns whose
    patterns the kernel cannot produce (see :meth:`~ratkit.automata.kernels.Kernel.check_vocabulary`),
    or a malformed vocabulary state."""


class MissingDependencyError(RatkitError, ImportError):
    """An optional dependency a feature needs is not installed; the message names the extra."""


class DistributedError(RatkitError, RuntimeError):
    """Parallel or distributed work failed outside the computation itself: a scheduler that
    cannot be reached, or a worker lost for good."""


class UnsupportedOperationError(RatkitError, NotImplementedError):
    """A model cannot do an optional operation of its contract (``similar_items`` without item
    factors, ``recalculate_user`` without a fold-in); the message names the model and what to use."""


class SpecError(RatkitError, ValueError):
    """A kernel spec is malformed: unknown family or key, missing key, bad value. The message
    names the path of the bad part (``spec.kernels[1].n``)."""


class SpecTypeError(SpecError, TypeError):
    """A part of a kernel spec has the wrong type (a list where a number belongs, a spec that
    is not a mapping)."""


class RatkitWarning(UserWarning):
    """Root of every warning ratkit emits with a category of its own."""


class ParameterWarning(RatkitWarning):
    """An argument is accepted but costs something the caller may not expect (a sparse matrix
    in another format than CSR is copied to CSR); the message says what to pass instead.
    implicit's ``implicit.utils.ParameterWarning`` plays the same role."""
