"""The SVM estimators: :class:`LinearDCDSVC` (Algorithm 3) and :class:`RationalSVC` (Algorithm 4)."""

from ratkit.learners.svm._linear import LinearDCDSVC
from ratkit.learners.svm._rational import RationalSVC

__all__ = ["LinearDCDSVC", "RationalSVC"]
