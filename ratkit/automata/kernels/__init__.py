"""Rational kernels: K(x, y) = Ψ(⟦T⟧(x, y)) on sequences and weighted automata."""

from ratkit.automata.kernels._features import FeatureMap
from ratkit.automata.kernels._paths import TooManyPaths
from ratkit.automata.kernels.base import Kernel, RationalKernel
from ratkit.automata.kernels.ngram import NgramKernel, ngram

__all__ = ["FeatureMap", "TooManyPaths", "Kernel", "RationalKernel", "NgramKernel", "ngram"]
