"""Renamed recommender parameters: the old spelling is kept one release, scikit-learn style.

A model lists its renamed parameters in ``_renamed`` (former spelling → current one,
declared on :class:`~ratkit.recsys.base.Recommender`). The former spelling stays in
``__init__`` with the default None, so ``get_params``, ``set_params``,
:func:`sklearn.base.clone` and model files that use it keep working. :func:`resolve` gives
the value to use — the former spelling's when it was given, else the current one's — and
:func:`warn_renamed`, called by ``_validate_params`` (hence by ``fit``), warns for every
former spelling in use.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any

from ratkit._convergence import _outside_ratkit
from ratkit.exceptions import ParameterError

__all__ = ["resolve", "given_as", "renamed_in_use", "warn_renamed"]


def resolve(model: Any, new: str, old: str) -> Any:
    """The value of parameter ``new`` of ``model``: its deprecated spelling ``old`` when set
    (not None), else ``new``'s own value."""
    value = getattr(model, old)
    return getattr(model, new) if value is None else value


def given_as(model: Any, new: str, old: str) -> str:
    """The name under which ``model`` was given parameter ``new``: ``old`` when its deprecated
    spelling is set, else ``new`` (what an error about the value should name)."""
    return new if getattr(model, old) is None else old


def renamed_in_use(model: Any) -> dict[str, str]:
    """``{old: new}`` for the deprecated spellings in ``model._renamed`` that ``model`` has set;
    ParameterError when the current spelling is set too, away from its default (which of
    the two to use would be a guess)."""
    defaults = inspect.signature(type(model).__init__).parameters
    owner = type(model).__name__
    used = {}
    for old, new in model._renamed.items():
        if getattr(model, old) is None:
            continue
        if getattr(model, new) != defaults[new].default:
            raise ParameterError(
                f"{owner} got both {old}={getattr(model, old)!r} and {new}={getattr(model, new)!r}; '{old}' is the "
                f"deprecated spelling of '{new}'. Pass only {new}."
            )
        used[old] = new
    return used


def warn_renamed(model: Any) -> None:
    """A DeprecationWarning for every deprecated spelling ``model`` uses (see :func:`renamed_in_use`)."""
    owner = type(model).__name__
    for old, new in renamed_in_use(model).items():
        warnings.warn(
            f"The '{old}' parameter of {owner} is deprecated and will be removed in the next release; use "
            f"'{new}', which means the same ({owner}({new}={getattr(model, old)!r})).",
            DeprecationWarning,
            stacklevel=_outside_ratkit(),
        )
