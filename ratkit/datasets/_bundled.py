"""The data files shipped inside the ratkit wheel (``ratkit/data/``, listed in pyproject's package data)."""

from __future__ import annotations

from importlib import resources

__all__ = ["BUNDLED_DATA", "BUNDLED_SPLICE"]

#: The folder of the bundled data files, ``ratkit/data`` (a :class:`importlib.resources.abc.Traversable`).
BUNDLED_DATA = resources.files("ratkit") / "data"

#: The bundled copy of UCI's ``splice.data`` (CC BY 4.0, see ratkit/data/splice/ATTRIBUTION.md).
BUNDLED_SPLICE = BUNDLED_DATA / "splice" / "splice.data"
