"""Rational kernels K(x, y) = Ψ(⟦T⟧(x, y)) on sequences and weighted automata.

Families (each a factory returning a kernel whose transducer is a real WFST):
:func:`ngram`, :func:`gappy`, :func:`mismatch`, :func:`subsequence`,
:func:`edit_distance`, :func:`count_based`, :func:`from_transducer`; the algebra
:func:`cosine`, :func:`exp_kernel`, :func:`polynomial`, :func:`nds_to_pds` (and ``+``,
``*``); declarative specs :func:`from_spec` / :func:`to_spec`; diagnostics in
:mod:`ratkit.automata.kernels.diagnostics`.

The contract of a family — what a new one, built in or a third party's, writes — is
:class:`Kernel` (a family with a finite feature map: :class:`RationalKernel`, which needs
only its transducer T); ``ratkit.testing.KernelContract`` tests it.
"""

from ratkit.automata import pairwise as _pairwise  # noqa: F401  (registers the "pairwise" kernel family)
from ratkit.automata.kernels import (
    _codecs,  # noqa: F401  (registers the kernel and vocabulary codecs)
    diagnostics,
)
from ratkit.automata.kernels._paths import TooManyPaths
from ratkit.automata.kernels.algebra import (
    CenteredNDSKernel,
    CosineKernel,
    ExpKernel,
    PolynomialKernel,
    ProductKernel,
    ScaledKernel,
    SumKernel,
    cosine,
    exp_kernel,
    nds_to_pds,
    polynomial,
)
from ratkit.automata.kernels.base import Kernel
from ratkit.automata.kernels.count_based import CountBasedKernel, count_based
from ratkit.automata.kernels.edit_distance import EditDistanceKernel, edit_distance
from ratkit.automata.kernels.features import (
    BlockVocabulary,
    FeatureMap,
    PairVocabulary,
    Vocabulary,
    VocabularyError,
    vocabulary_from_state,
)
from ratkit.automata.kernels.gappy import GappyKernel, gappy
from ratkit.automata.kernels.identity import input_key
from ratkit.automata.kernels.linear import LinearKernel
from ratkit.automata.kernels.mismatch import MismatchKernel, mismatch
from ratkit.automata.kernels.ngram import NgramKernel, ngram
from ratkit.automata.kernels.random_walk import RandomWalkKernel, random_walk
from ratkit.automata.kernels.rational import RationalKernel
from ratkit.automata.kernels.spec import SpecError, SpecTypeError, from_spec, load_spec, to_spec
from ratkit.automata.kernels.subsequence import SubsequenceKernel, subsequence
from ratkit.automata.kernels.user import TransducerKernel, from_transducer

__all__ = [
    "diagnostics",
    "Kernel",
    "RationalKernel",
    "Vocabulary",
    "VocabularyError",
    "FeatureMap",
    "BlockVocabulary",
    "PairVocabulary",
    "vocabulary_from_state",
    "TooManyPaths",
    "ngram",
    "gappy",
    "mismatch",
    "subsequence",
    "edit_distance",
    "count_based",
    "from_transducer",
    "random_walk",
    "RandomWalkKernel",
    "from_spec",
    "to_spec",
    "load_spec",
    "input_key",
    "SpecError",
    "SpecTypeError",
    "cosine",
    "exp_kernel",
    "polynomial",
    "nds_to_pds",
    "LinearKernel",
    "NgramKernel",
    "GappyKernel",
    "MismatchKernel",
    "SubsequenceKernel",
    "EditDistanceKernel",
    "CountBasedKernel",
    "TransducerKernel",
    "SumKernel",
    "ProductKernel",
    "ScaledKernel",
    "PolynomialKernel",
    "CosineKernel",
    "ExpKernel",
    "CenteredNDSKernel",
]
