"""Plugin registry for kernels, learners and recommenders (see :mod:`ratkit.plugins.registry`)."""

from ratkit.plugins.registry import (
    ENTRY_POINT_GROUPS,
    KINDS,
    PluginInfo,
    PluginKind,
    PluginLoadWarning,
    available,
    describe,
    describe_all,
    get,
    refresh,
    register,
)

__all__ = [
    "ENTRY_POINT_GROUPS",
    "KINDS",
    "PluginInfo",
    "PluginKind",
    "PluginLoadWarning",
    "available",
    "describe",
    "describe_all",
    "get",
    "refresh",
    "register",
]
