"""The estimator in a model file: which registered plugin it is, its parameters and its fitted
attributes, written and read back through the codecs (an estimator held by another, e.g. a base
model, is written the same way, under the codec tag ``estimator``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator

from ratkit import plugins
from ratkit.exceptions import ModelFormatError, NotFittedError, ParameterTypeError, UnknownPluginError
from ratkit.fitted import check_fitted
from ratkit.persistence._codecs import BASE_VERSION, DecodeContext, EncodeContext, UnknownCodecError, register_codec

if TYPE_CHECKING:
    from ratkit.plugins import PluginKind

__all__ = [
    "MODEL_KINDS",
    "PersistenceMixin",
    "plugin_of",
    "fitted_attributes",
    "declared",
    "plugin_class",
    "estimator_state",
    "rebuild_estimator",
]

#: The plugin kinds a model file can hold.
MODEL_KINDS: tuple[str, ...] = ("learner", "recommender")
_GENERATORS = (np.random.RandomState, np.random.Generator)


class PersistenceMixin:
    """``save(path)`` for an estimator, and the two hooks of its model file.

    Any scikit-learn-style estimator registered as a ``learner`` plugin can be written by
    :func:`save_model` and read by :func:`load_model`; this mixin gives it the ``save``
    method and declares what the file format asks of a class.
    """

    #: Fitted attributes a complete model must have: saving an estimator without one says it
    #: is not fitted, loading a file without one says it is incomplete. Every other public
    #: ``name_`` attribute present after ``fit`` is saved too.
    _fitted_attributes: ClassVar[tuple[str, ...]] = ()

    def save(self, path: str | os.PathLike[str], metadata: Mapping[str, Any] | None = None) -> Path:
        """Write the fitted model to ``path`` (a zip of JSON and ``.npy`` arrays, no pickle);
        ``ratkit.load_model(path)`` reads it back. Returns the path written."""
        from ratkit.persistence._model_file import save_model

        return save_model(self, path, metadata)

    def _check_restored(self) -> None:
        """Raise ModelFormatError when the state read from a file is inconsistent (arrays of
        the wrong shapes, a kernel that does not fit the vocabulary); :func:`load_model`
        prefixes the file's name. The default checks nothing."""


def plugin_of(model: Any) -> tuple[str, str]:
    """(kind, name) under which the model's class is registered as a learner or recommender plugin."""
    cls = type(model)
    kind: PluginKind
    for kind in ("learner", "recommender"):
        for name in plugins.available(kind):
            if plugins.get(kind, name) is cls:
                return kind, name
    raise ParameterTypeError(
        f"Cannot save {cls.__name__}: it is not a registered learner or recommender plugin, so a model "
        "file could not name the class to rebuild. Register it with @ratkit.plugins.register('learner', "
        "NAME) or an entry point in the group ratkit.learners (ratkit.recsys for a recommender)."
    )


def fitted_attributes(model: Any) -> list[str]:
    """The fitted attributes a model file holds: the public ``name_`` attributes ``fit`` set.

    Raises NotFittedError when one of the class's declared ``_fitted_attributes`` is missing.
    """
    names = sorted(k for k in vars(model) if k.endswith("_") and not k.startswith("_"))
    missing = [k for k in declared(type(model)) if k not in names]
    if missing or not names:
        raise NotFittedError(
            f"This {type(model).__name__} instance is not fitted yet (it lacks "
            f"{', '.join(missing) or 'any fitted attribute'}). Call 'fit' before saving it."
        )
    return names


def declared(cls: type) -> tuple[str, ...]:
    """The class's ``_fitted_attributes`` (a declaration, not a method: read as data)."""
    names = getattr(cls, "_fitted_attributes", ())
    return tuple(names) if isinstance(names, (tuple, list)) else ()


def plugin_class(state: Mapping[str, Any], where: str | Path) -> type:
    """The class of the plugin a manifest (or an encoded estimator) names; ModelFormatError
    naming ``where`` for another kind of plugin or one not installed."""
    kind, name = state.get("kind"), state.get("plugin")
    if kind not in MODEL_KINDS or not isinstance(name, str):
        raise ModelFormatError(
            f"{where}: the manifest names the plugin {name!r} of kind {kind!r}; a model file holds a "
            f"{' or '.join(MODEL_KINDS)} plugin."
        )
    try:
        cls: type = plugins.get(kind, name)
    except UnknownPluginError as exc:
        raise ModelFormatError(
            f"{where} holds a model of the {kind} plugin {name!r}, which is not installed here ({exc}) "
            "Install the distribution that provides it."
        ) from None
    return cls


def _public_fitted(model: Any) -> list[str]:
    return [k for k in vars(model) if k.endswith("_") and not k.startswith("_")]


def estimator_state(model: Any, ctx: EncodeContext, fitted: bool | None) -> dict[str, Any]:
    """{kind, plugin, class, params, attributes} of a registered learner or recommender; its
    fitted attributes when ``fitted`` (required), or whatever it has when None (an estimator
    held by another: an unfitted parameter, or a fitted part)."""
    cls = type(model)
    kind, name = plugin_of(model)
    params = {}
    for key, value in model.get_params(deep=False).items():
        if isinstance(value, _GENERATORS):
            value = None  # a generator object is not data; the fit it made is saved anyway
        params[key] = ctx.value(f"params.{key}", value)
    if fitted or (fitted is None and _public_fitted(model)):
        attributes = fitted_attributes(model)
    else:
        attributes = []
    return {
        "kind": kind,
        "plugin": name,
        "class": f"{cls.__module__}.{cls.__qualname__}",
        "params": params,
        "attributes": {key: ctx.value(key, getattr(model, key)) for key in attributes},
    }


def rebuild_estimator(state: Any, ctx: DecodeContext) -> Any:
    """The estimator :func:`estimator_state` described (ModelFormatError naming where it is)."""
    where = f"{ctx.where}." if ctx.where else ""
    if not isinstance(state, Mapping) or not all(isinstance(state.get(k), dict) for k in ("params", "attributes")):
        raise ModelFormatError(f"{where or 'the model'} is not an encoded estimator")
    cls = plugin_class(state, ctx.where or "the model")
    what = "parameters"
    try:
        params = {key: ctx.value(f"params.{key}", enc) for key, enc in state["params"].items()}
        model = cls(**params)
        for key, enc in state["attributes"].items():
            what = f"fitted attribute {where}{key!r}"
            if not (isinstance(key, str) and key.endswith("_") and not key.startswith("_")):
                raise ModelFormatError(f"{key!r} is not the name of a fitted attribute")
            setattr(model, key, ctx.value(key, enc))
    except UnknownCodecError:
        raise
    except (TypeError, ValueError, LookupError, AttributeError) as exc:  # SpecError is a ValueError
        raise ModelFormatError(f"the saved {what} cannot be restored for {cls.__name__}: {exc}") from None
    if state["attributes"]:
        missing = [k for k in declared(cls) if k not in state["attributes"]]
        if missing:
            raise ModelFormatError(f"{where or 'the model '}lacks {', '.join(missing)}: the file is incomplete")
        check_fitted(model)  # every attribute against the class's _fitted_schema (ModelFormatError)
        if isinstance(model, PersistenceMixin):
            model._check_restored()
    return model


register_codec(
    BaseEstimator,
    "estimator",
    lambda model, ctx: estimator_state(model, ctx, fitted=None),
    rebuild_estimator,
    since=BASE_VERSION,
)
