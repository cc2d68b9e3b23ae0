"""Plugin registry for kernels, learners and recommenders (see :mod:`ratkit.plugins.registry`)."""

from ratkit.plugins.registry import (
    ENTRY_POINT_GROUPS,
    KINDS,
    PluginKind,
    PluginLoadWarning,
    available,
    get,
    refresh,
    register,
)

__all__ = [
    "ENTRY_POINT_GROUPS",
    "KINDS",
    "PluginKind",
    "PluginLoadWarning",
    "available",
    "get",
    "refresh",
    "register",
]
