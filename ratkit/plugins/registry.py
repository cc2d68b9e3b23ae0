"""The plugin registry: built-in and third-party kernels, learners and recommenders.

Built-in plugins register themselves with :func:`register` when their module is
imported. Third-party distributions add theirs through the entry-point groups
``ratkit.kernels``, ``ratkit.learners`` and ``ratkit.recsys``; the entry point's name
is the plugin name and its target the plugin object. Discovery goes through
:mod:`importlib.metadata`, runs once and is cached; :func:`refresh` forgets the cache.
"""

from __future__ import annotations

import importlib
import logging
import sys
import warnings
from collections.abc import Callable, Iterable
from importlib import metadata
from typing import Any, Literal, TypeVar, get_args

from ratkit.exceptions import DuplicatePluginError, UnknownPluginError

__all__ = [
    "KINDS",
    "ENTRY_POINT_GROUPS",
    "PluginKind",
    "PluginLoadWarning",
    "register",
    "available",
    "get",
    "refresh",
]

log = logging.getLogger(__name__)

PluginKind = Literal["kernel", "learner", "recommender"]
KINDS: tuple[str, ...] = get_args(PluginKind)
ENTRY_POINT_GROUPS: dict[str, str] = {
    "kernel": "ratkit.kernels",
    "learner": "ratkit.learners",
    "recommender": "ratkit.recsys",
}
# Modules whose import registers the built-in plugins.
_BUILTIN_MODULES: tuple[str, ...] = ("ratkit.automata.kernels", "ratkit.learners", "ratkit.recsys")

T = TypeVar("T")

_registry: dict[str, dict[str, Any]] = {kind: {} for kind in KINDS}
_discovered: dict[str, dict[str, Any]] | None = None
# former name → current name, per kind (see register's ``aliases``)
_aliases: dict[str, dict[str, str]] = {kind: {} for kind in KINDS}


class PluginLoadWarning(UserWarning):
    """A third-party plugin could not be loaded and was skipped."""


def _check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise UnknownPluginError(f"Unknown plugin kind {kind!r}; expected one of {', '.join(map(repr, KINDS))}.")
    return kind


def register(kind: PluginKind, name: str, *, aliases: Iterable[str] = ()) -> Callable[[T], T]:
    """Class or function decorator that registers ``obj`` as plugin ``name`` of ``kind``.

    ``aliases`` are former names that still find the plugin through :func:`get` (with a
    :class:`DeprecationWarning` naming the current one) but are not listed by :func:`available`.

    Registering the same object twice under the same name is a no-op, and so is a module
    reload re-registering its own definition (the new object replaces the old one; see
    :func:`_redefinition`). Registering any other object under a taken name raises
    :class:`~ratkit.exceptions.DuplicatePluginError` — including a second class made by
    the same factory function, which shares the first one's module and qualified name.
    """
    _check_kind(kind)
    if not isinstance(name, str) or not name:
        raise ValueError(f"A plugin name must be a non-empty string. Got {name!r} instead.")

    def decorator(obj: T) -> T:
        taken = _registry[kind].get(name)
        if taken is not None and (taken is obj or _redefinition(taken, obj)):
            _registry[kind][name] = obj
            return obj
        if taken is not None:
            raise DuplicatePluginError(
                f"The {kind} plugin name {name!r} is already taken by {_describe(taken)}; "
                f"choose another name for {_describe(obj)}."
            )
        _registry[kind][name] = obj
        for alias in aliases:
            _aliases[kind][alias] = name
        return obj

    return decorator


def _redefinition(old: Any, new: Any) -> bool:
    """True when ``new`` is ``old`` defined again by re-running its module (a reload).

    Both must carry the same module and qualified name, that name must be a module-level
    path (no ``<locals>``: objects made inside a function are distinct each call), and the
    module must still bind that path to ``old`` — which is the case while a reload re-runs
    the module's code, before the new definition is assigned. Anything else under a taken
    name (an object of another module, a second product of one factory) is a conflict.
    """
    module, qualname = getattr(old, "__module__", None), getattr(old, "__qualname__", None)
    if not (isinstance(module, str) and isinstance(qualname, str)) or "<locals>" in qualname:
        return False
    if (getattr(new, "__module__", None), getattr(new, "__qualname__", None)) != (module, qualname):
        return False
    bound: Any = sys.modules.get(module)
    for part in qualname.split("."):
        bound = getattr(bound, part, None)
    return bound is old


def _describe(obj: Any) -> str:
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    return f"{module}.{qualname}" if module and qualname else repr(obj)


def _load_builtins() -> None:
    for module in _BUILTIN_MODULES:
        importlib.import_module(module)


def _entry_points(group: str) -> Iterable[metadata.EntryPoint]:
    return metadata.entry_points(group=group)


def _discover() -> dict[str, dict[str, Any]]:
    """Load every third-party entry point once; broken ones are skipped with a warning."""
    global _discovered
    if _discovered is not None:
        return _discovered
    found: dict[str, dict[str, Any]] = {kind: {} for kind in KINDS}
    for kind, group in ENTRY_POINT_GROUPS.items():
        for ep in _entry_points(group):
            dist = getattr(getattr(ep, "dist", None), "name", None) or "an unknown distribution"
            if ep.name in _registry[kind] or ep.name in found[kind]:
                warnings.warn(
                    f"Skipping {kind} plugin entry point {ep.name!r} -> {ep.value!r} from "
                    f"{dist}: the name {ep.name!r} is already taken. Rename the entry point "
                    f"in {dist}'s packaging metadata.",
                    PluginLoadWarning,
                    stacklevel=3,
                )
                continue
            try:
                found[kind][ep.name] = ep.load()
            except Exception as exc:  # a broken third-party plugin must not break ratkit
                log.debug("Loading entry point %s = %s failed", ep.name, ep.value, exc_info=True)
                warnings.warn(
                    f"Skipping {kind} plugin entry point {ep.name!r} -> {ep.value!r} from "
                    f"{dist}: loading it raised {type(exc).__name__}: {exc}. Fix or uninstall "
                    f"{dist}.",
                    PluginLoadWarning,
                    stacklevel=3,
                )
    _discovered = found
    return found


def refresh() -> None:
    """Forget the cached entry-point discovery; the next lookup scans again."""
    global _discovered
    _discovered = None


def _all(kind: str) -> dict[str, Any]:
    _check_kind(kind)
    _load_builtins()
    return {**_discover()[kind], **_registry[kind]}


def available(kind: PluginKind) -> list[str]:
    """Sorted names of every plugin of ``kind``, built-in and third-party."""
    return sorted(_all(kind))


def get(kind: PluginKind, name: str) -> Any:
    """The plugin object registered as ``name`` for ``kind``.

    Raises
    ------
    UnknownPluginError
        No such plugin; the message lists the available names.
    """
    plugins = _all(kind)
    if name not in plugins and name in _aliases[kind]:
        current = _aliases[kind][name]
        warnings.warn(
            f"The {kind} plugin name {name!r} is deprecated; use {current!r}.", DeprecationWarning, stacklevel=2
        )
        name = current
    try:
        return plugins[name]
    except KeyError:
        names = ", ".join(sorted(plugins)) or "(none)"
        raise UnknownPluginError(f"No {kind} plugin named {name!r}. Available {kind} plugins: {names}.") from None
