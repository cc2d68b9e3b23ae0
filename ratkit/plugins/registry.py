"""The plugin registry: built-in and third-party kernels, learners, recommenders and W′ representations.

Built-in plugins register themselves with :func:`register` when their module is
imported. Third-party distributions add theirs through the entry-point groups
``ratkit.kernels``, ``ratkit.learners``, ``ratkit.recommenders`` and ``ratkit.representations``
(one per kind, see :data:`ENTRY_POINT_GROUPS`; the representations of W′ a
:class:`~ratkit.learners.RationalSVC` trains on are described in :mod:`ratkit.learners.wprime`);
the entry point's name is the plugin name and its target the plugin object. Recommenders in the
former group ``ratkit.recsys`` are still read for one release, with a :class:`DeprecationWarning`
naming the distribution to update. Discovery goes through
:mod:`importlib.metadata`, runs once and is cached; :func:`refresh` forgets the cache.

:func:`describe` and :func:`describe_all` tell where each plugin comes from: a
:class:`PluginInfo` with its kind, name, providing distribution and one-line summary
(what ``ratkit plugins list`` prints).
"""

from __future__ import annotations

import importlib
import inspect
import logging
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Literal, TypeVar, get_args

from ratkit._convergence import _outside_ratkit
from ratkit.exceptions import DuplicatePluginError, ParameterError, ParameterTypeError, UnknownPluginError

__all__ = [
    "KINDS",
    "ENTRY_POINT_GROUPS",
    "PluginKind",
    "PluginLoadWarning",
    "PluginInfo",
    "register",
    "available",
    "get",
    "describe",
    "describe_all",
    "qualified_name",
    "refresh",
]

log = logging.getLogger(__name__)

PluginKind = Literal["kernel", "learner", "recommender", "representation"]
KINDS: tuple[str, ...] = get_args(PluginKind)
ENTRY_POINT_GROUPS: dict[str, str] = {
    "kernel": "ratkit.kernels",
    "learner": "ratkit.learners",
    "recommender": "ratkit.recommenders",
    "representation": "ratkit.representations",
}
#: Former entry-point groups, still read for one release (a DeprecationWarning names the
#: distribution): kind → group.
_FORMER_GROUPS: dict[str, str] = {"recommender": "ratkit.recsys"}
# Modules whose import registers the built-in plugins.
_BUILTIN_MODULES: tuple[str, ...] = ("ratkit.automata.kernels", "ratkit.learners", "ratkit.recsys")

T = TypeVar("T")

_registry: dict[str, dict[str, Any]] = {kind: {} for kind in KINDS}
# entry points loaded by _discover, per kind: name → PluginInfo (None until the first scan)
_discovered: dict[str, dict[str, PluginInfo]] | None = None
# top-level import name → distribution names, from importlib.metadata (None until first needed)
_package_distributions: Mapping[str, list[str]] | None = None
# former name → current name, per kind (see register's ``aliases``)
_aliases: dict[str, dict[str, str]] = {kind: {} for kind in KINDS}


class PluginLoadWarning(UserWarning):
    """A third-party plugin could not be loaded and was skipped."""


@dataclass(frozen=True)
class PluginInfo:
    """Where a plugin comes from: ``kind``, ``name``, the ``distribution`` providing it
    (``"ratkit"`` for the built-ins; ``None`` when no installed distribution does, e.g. a
    class registered from a script), the one-line ``summary`` of its docstring, and ``obj``."""

    kind: str
    name: str
    distribution: str | None
    summary: str
    obj: Any = field(repr=False, compare=False)


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

    The names of ratkit's built-in plugins are reserved: registering an object from outside
    ratkit loads the built-ins first, so that a name clash is reported to the plugin's author
    (never to ratkit's own registration, which would make ``import ratkit.learners`` fail).
    """
    _check_kind(kind)
    if not isinstance(name, str):
        raise ParameterTypeError(f"A plugin name must be a non-empty string. Got {name!r} ({type(name).__name__}).")
    if not name:
        raise ParameterError(f"A plugin name must be a non-empty string. Got {name!r} (empty).")

    def decorator(obj: T) -> T:
        if not callable(obj):
            raise ParameterTypeError(
                f"The {kind} plugin {name!r} must be a class or a callable that builds the {kind}. "
                f"Got {obj!r:.60} (a {type(obj).__name__}) instead."
            )
        builtin = _is_builtin(obj)
        if not builtin:
            _load_builtins()  # the built-in names are taken first, whatever the import order
        taken = _registry[kind].get(name)
        if taken is not None and (taken is obj or _redefinition(taken, obj)):
            _registry[kind][name] = obj
            return obj
        if taken is None and name in _aliases[kind]:
            current = _aliases[kind][name]
            raise DuplicatePluginError(
                f"The {kind} plugin name {name!r} is reserved: it is a former name of "
                f"{qualified_name(_registry[kind][current])} ({current!r}), which specs and model files written with "
                f"it still mean; choose another name for {qualified_name(obj)}."
            )
        installed = None if _discovered is None else _discovered[kind].get(name)
        if taken is None and installed is not None and installed.obj is not obj:
            raise DuplicatePluginError(
                f"The {kind} plugin name {name!r} is already taken by {qualified_name(installed.obj)}, installed by "
                f"{installed.distribution or 'an unknown distribution'}; choose another name for {qualified_name(obj)}."
            )
        if taken is not None and builtin and not _is_builtin(taken):
            # registered before the built-ins could load (e.g. while they were importing): the
            # built-in keeps its name, and the plugin's author is told to rename theirs
            warnings.warn(
                f"The {kind} plugin {qualified_name(taken)} was registered under {name!r}, the name of ratkit's "
                f"built-in {qualified_name(obj)}, which replaces it; register {qualified_name(taken)} under another "
                "name.",
                PluginLoadWarning,
                stacklevel=2,
            )
        elif taken is not None:
            ours = " (a ratkit built-in: its name is reserved)" if _is_builtin(taken) else ""
            raise DuplicatePluginError(
                f"The {kind} plugin name {name!r} is already taken by {qualified_name(taken)}{ours}; "
                f"choose another name for {qualified_name(obj)}."
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


def qualified_name(obj: Any) -> str:
    """``module.qualname`` of a plugin object (its ``repr`` when it has neither), as messages name it.

    >>> from ratkit.plugins import get
    >>> qualified_name(get("kernel", "ngram"))
    'ratkit.automata.kernels.ngram.NgramKernel'
    """
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    return f"{module}.{qualname}" if module and qualname else repr(obj)


def _is_builtin(obj: Any) -> bool:
    """Whether ``obj`` is defined by ratkit itself (one of its built-in plugins)."""
    module = getattr(obj, "__module__", None)
    return isinstance(module, str) and (module == "ratkit" or module.startswith("ratkit."))


def _load_builtins() -> None:
    for module in _BUILTIN_MODULES:
        importlib.import_module(module)


def _entry_points(group: str) -> Iterable[metadata.EntryPoint]:
    return metadata.entry_points(group=group)


def _discover() -> dict[str, dict[str, PluginInfo]]:
    """Load every third-party entry point once; broken ones are skipped with a warning."""
    global _discovered
    if _discovered is not None:
        return _discovered
    found: dict[str, dict[str, PluginInfo]] = {kind: {} for kind in KINDS}
    groups = [(kind, group, False) for kind, group in ENTRY_POINT_GROUPS.items()]
    groups += [(kind, group, True) for kind, group in _FORMER_GROUPS.items()]
    targets: dict[tuple[str, str], tuple[str | None, str]] = {}  # (kind, name) → (distribution, target) loaded
    for kind, group, former in groups:
        for ep in _entry_points(group):
            provider = getattr(getattr(ep, "dist", None), "name", None)
            dist = provider or "an unknown distribution"
            if former:
                if targets.get((kind, ep.name)) == (provider, ep.value):
                    continue  # also declared in the current group: a distribution serving older ratkit too
                warnings.warn(
                    f"The {kind} plugin entry point {ep.name!r} -> {ep.value!r} of {dist} is in the entry-point "
                    f"group {group!r}, which is deprecated and will not be read after the next release; move it "
                    f"to {ENTRY_POINT_GROUPS[kind]!r} in {dist}'s packaging metadata.",
                    DeprecationWarning,
                    stacklevel=_outside_ratkit(),  # the user's line, so Python's default filter shows it
                )
            holder = _holder(kind, ep.name, found[kind])
            if holder is not None:
                warnings.warn(
                    f"Skipping {kind} plugin entry point {ep.name!r} -> {ep.value!r} from "
                    f"{dist}: the name {ep.name!r} is already taken by {holder}. Rename the entry point "
                    f"in {dist}'s packaging metadata.",
                    PluginLoadWarning,
                    stacklevel=3,
                )
                continue
            try:
                obj = ep.load()
            except (Exception, SystemExit) as exc:  # a broken third-party plugin must not break ratkit
                log.debug("Loading entry point %s = %s failed", ep.name, ep.value, exc_info=True)
                warnings.warn(
                    f"Skipping {kind} plugin entry point {ep.name!r} -> {ep.value!r} from "
                    f"{dist}: loading it raised {type(exc).__name__}: {exc}. Fix or uninstall "
                    f"{dist}.",
                    PluginLoadWarning,
                    stacklevel=3,
                )
                continue
            found[kind][ep.name] = PluginInfo(kind, ep.name, provider, _summary(obj), obj)
            targets[kind, ep.name] = (provider, ep.value)
    _discovered = found
    return found


def _holder(kind: str, name: str, found: dict[str, PluginInfo]) -> str | None:
    """Who holds plugin name ``name`` of ``kind`` already (None: it is free): a registered
    plugin, a former name of one (reserved), or an entry point of another distribution
    ``found`` earlier in this scan."""
    if name in _registry[kind]:
        return qualified_name(_registry[kind][name])
    if name in _aliases[kind]:
        current = _aliases[kind][name]
        return f"{qualified_name(_registry[kind][current])}, whose former name it is ({current!r})"
    if name in found:
        return f"{qualified_name(found[name].obj)} from {found[name].distribution or 'an unknown distribution'}"
    return None


def refresh() -> None:
    """Forget the cached entry-point discovery; the next lookup scans again."""
    global _discovered, _package_distributions
    _discovered = None
    _package_distributions = None


def _all(kind: str) -> dict[str, Any]:
    _check_kind(kind)
    _load_builtins()
    return {**{name: info.obj for name, info in _discover()[kind].items()}, **_registry[kind]}


def _summary(obj: Any) -> str:
    """The first paragraph of ``obj``'s own docstring on one line ('' without a docstring).

    Only the object's own ``__doc__``: a subclass without a docstring does not borrow
    its base class's summary (which would describe another plugin).
    """
    doc = getattr(obj, "__doc__", None)  # a class's own: __doc__ is not inherited
    if not isinstance(doc, str):
        return ""
    paragraph = inspect.cleandoc(doc).strip().split("\n\n", 1)[0]
    return _plain_rst(" ".join(paragraph.split()))


#: A Sphinx cross-reference, :role:`target`, :role:`~a.b.target` or :role:`text <target>`.
_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`(~)?([^`<]+?)(?: <[^`>]+>)?`")


def _plain_rst(text: str) -> str:
    """reStructuredText markup read as Sphinx shows it, in plain text: ``code`` → code,
    :func:`a.b.f` → a.b.f, :func:`~a.b.f` → f, :mod:`text <target>` → text."""
    text = _ROLE.sub(lambda m: m.group(2).rsplit(".", 1)[-1] if m.group(1) else m.group(2), text)
    return text.replace("``", "")


def _distribution_of(obj: Any) -> str | None:
    """The installed distribution whose top-level package defines ``obj`` (None if none does)."""
    global _package_distributions
    module = getattr(obj, "__module__", None)
    if not isinstance(module, str):
        module = type(obj).__module__
    top = module.partition(".")[0]
    if top == "ratkit":
        return "ratkit"
    known = _package_distributions
    if known is None:
        known = _package_distributions = metadata.packages_distributions()
    names = known.get(top)
    return names[0] if names else None


def _info(kind: str, name: str, obj: Any) -> PluginInfo:
    discovered = _discover()[kind].get(name)
    if discovered is not None and discovered.obj is obj:  # from an entry point (its module may also register it)
        return discovered
    return PluginInfo(kind, name, _distribution_of(obj), _summary(obj), obj)


def describe(kind: PluginKind, name: str) -> PluginInfo:
    """Kind, name, providing distribution and summary of the plugin :func:`get` returns.

    Raises
    ------
    UnknownPluginError
        No such plugin; the message lists the available names.
    """
    return _info(kind, *_lookup(kind, name))


def describe_all(kind: PluginKind | None = None) -> list[PluginInfo]:
    """A :class:`PluginInfo` for every plugin of ``kind`` (all kinds if None), by kind then name."""
    kinds = KINDS if kind is None else (_check_kind(kind),)
    return [_info(k, name, obj) for k in kinds for name, obj in sorted(_all(k).items())]


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
    return _lookup(kind, name)[1]


def _lookup(kind: str, name: str) -> tuple[str, Any]:
    """(current name, object) of plugin ``name``; a former name warns (for the caller's caller)."""
    plugins = _all(kind)
    if name not in plugins and name in _aliases[kind]:
        current = _aliases[kind][name]
        warnings.warn(
            f"The {kind} plugin name {name!r} is deprecated; use {current!r}.", DeprecationWarning, stacklevel=3
        )
        name = current
    try:
        return name, plugins[name]
    except KeyError:
        names = ", ".join(sorted(plugins)) or "(none)"
        raise UnknownPluginError(f"No {kind} plugin named {name!r}. Available {kind} plugins: {names}.") from None
