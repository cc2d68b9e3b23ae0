"""The catalogue of kernel families: which are registered, and what each one takes.

:func:`describe_family` reads a registered family's parameters, annotations, defaults and
docstring into a :class:`FamilyInfo` (what ``ratkit kernels list`` and ``show`` print);
``_lookup`` finds the family a spec names, reading ``_`` as ``-``.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from ratkit.automata.kernels._spec_kinds import _hints, _takes_kernels
from ratkit.automata.kernels.base import _init_parameters
from ratkit.exceptions import SpecError, SpecTypeError, UnknownPluginError


def _families() -> list[str]:
    from ratkit.plugins import available

    return available("kernel")


def _lookup(family: Any, where: str) -> tuple[str, Any]:
    """(registered name, registered object) of a spec's family; ``_`` reads as ``-``."""
    from ratkit.plugins import available, get

    if isinstance(family, str):
        # the registered name itself first (a family may be registered with a '_'), then the
        # '-' spelling of a former '_' name, then former names (aliases, which warn)
        registered = set(available("kernel"))
        hyphenated = family.replace("_", "-")
        name = family if family in registered else hyphenated if hyphenated in registered else family
        try:
            return name, get("kernel", name)
        except UnknownPluginError:
            pass
    if not isinstance(family, str):
        raise SpecTypeError(
            f"The kernel family at {where}.family must be a str, the name of a family; got {type(family).__name__} "
            f"{family!r:.60}. Accepted families: {', '.join(_families())}."
        )
    raise SpecError(f"Unknown kernel family {family!r} at {where}.family; accepted families: {', '.join(_families())}.")


@dataclass(frozen=True)
class FamilyParameter:
    """One ``__init__`` parameter of a kernel family: its name, its annotation as written,
    its default (``inspect.Parameter.empty`` when a spec must give it), keyword-only or not,
    and whether it takes kernels (``kernel`` or ``kernels``: the family is a combinator)."""

    name: str
    annotation: str
    default: Any
    keyword_only: bool
    takes_kernels: bool

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty


@dataclass(frozen=True)
class FamilyInfo:
    """A registered kernel family (what ``ratkit kernels list`` and ``show`` print): its spec
    name, the registered object, where it comes from, the first paragraph of its docstring
    (``summary``, which states K(x, y)), the whole docstring and its parameters."""

    name: str
    obj: Any
    distribution: str | None
    summary: str
    doc: str
    parameters: tuple[FamilyParameter, ...]

    @property
    def is_combinator(self) -> bool:
        """True when the family builds a kernel from other kernels (a parameter takes kernels)."""
        return any(p.takes_kernels for p in self.parameters)


def _annotation_text(annotation: Any) -> str:
    if annotation is inspect.Parameter.empty:
        return ""
    return annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)


def describe_family(name: str) -> FamilyInfo:
    """The :class:`FamilyInfo` of the kernel family registered as ``name`` (``_`` reads as ``-``).

    Raises SpecError naming the accepted families when there is no such family.
    """
    from ratkit.plugins import describe

    registered, obj = _lookup(name, "spec")
    info = describe("kernel", registered)
    if isinstance(obj, type):
        params = list(_init_parameters(obj).values())
    else:
        params = [
            p
            for p in inspect.signature(obj).parameters.values()
            if p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        ]
    hints = _hints(obj)
    parameters = tuple(
        FamilyParameter(
            name=p.name,
            annotation=_annotation_text(p.annotation),
            default=p.default,
            keyword_only=p.kind is inspect.Parameter.KEYWORD_ONLY,
            takes_kernels=_takes_kernels(hints.get(p.name), _annotation_text(p.annotation)),
        )
        for p in params
    )
    doc = inspect.cleandoc(obj.__doc__) if isinstance(getattr(obj, "__doc__", None), str) else ""
    return FamilyInfo(registered, obj, info.distribution, info.summary, doc, parameters)


def describe_families() -> list[FamilyInfo]:
    """A :class:`FamilyInfo` for every registered kernel family and combinator, built-in and
    plugin, by name."""
    return [describe_family(name) for name in _families()]
