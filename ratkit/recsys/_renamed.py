"""Renamed recommender parameters: the old spelling is kept one release, scikit-learn style.

A renamed parameter stays in ``__init__`` under its old name with the default None, so
``get_params``, ``set_params`` and :func:`sklearn.base.clone` keep working on code and
model files that use it. :func:`resolve` gives the value to use — the old spelling's
when it was given, else the new one's — and :func:`warn_renamed`, called by
``_validate_params`` (hence by ``fit``), warns once per fit for every old spelling in use.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Mapping
from typing import Any

from ratkit.exceptions import ParameterError

__all__ = ["resolve", "warn_renamed", "renamed_in_use"]


def resolve(model: Any, new: str, old: str) -> Any:
    """The value of parameter ``new`` of ``model``: its deprecated spelling ``old`` when set
    (not None), else ``new``'s own value."""
    value = getattr(model, old)
    return getattr(model, new) if value is None else value


def renamed_in_use(model: Any, renamed: Mapping[str, str]) -> dict[str, str]:
    """``{old: new}`` for the deprecated spellings (keys of ``renamed``, values the new
    names) that ``model`` has set; ParameterError when a new spelling is set too, away from
    its default (which of the two to use would be a guess)."""
    defaults = inspect.signature(type(model).__init__).parameters
    owner = type(model).__name__
    used = {}
    for old, new in renamed.items():
        if getattr(model, old) is None:
            continue
        if getattr(model, new) != defaults[new].default:
            raise ParameterError(
                f"{owner} got both {old}={getattr(model, old)!r} and {new}={getattr(model, new)!r}; '{old}' is the "
                f"deprecated spelling of '{new}'. Pass only {new}."
            )
        used[old] = new
    return used


def warn_renamed(model: Any, renamed: Mapping[str, str], stacklevel: int = 4) -> None:
    """A DeprecationWarning for every deprecated spelling ``model`` uses (see :func:`renamed_in_use`)."""
    owner = type(model).__name__
    for old, new in renamed_in_use(model, renamed).items():
        warnings.warn(
            f"The '{old}' parameter of {owner} is deprecated and will be removed in the next release; use "
            f"'{new}', which means the same ({owner}({new}={getattr(model, old)!r})).",
            DeprecationWarning,
            stacklevel=stacklevel,
        )
