"""Resource limits: the sizes past which ratkit refuses an operation before it starts.

Operations whose size can blow up (a Gram matrix, the Kronecker product of two graphs, a
dynamic-programming table, ε-removal or determinisation of an automaton) estimate what they
would allocate first and raise :class:`~ratkit.exceptions.ResourceLimitError`, naming the
estimate and the limit, instead of being killed by the operating system halfway; work that
can be split (``recommend`` for many users, ``score``, ``ranking_metrics``) is done in blocks
sized by :func:`rows_within` instead.

Two limits, process-wide:

* ``max_bytes``: the most memory one operation may plan to allocate. Default: half the
  memory this process can still get, :func:`available_memory` — the smallest of the
  machine's physical memory, what the address-space and data limits (``RLIMIT_AS``,
  ``RLIMIT_DATA``, ``ulimit -v``/``-d``) leave beyond what the process already maps, and
  what the memory limit of its cgroup (a container's, ``memory.max`` or
  ``memory.limit_in_bytes``) leaves beyond what the group already uses; re-measured after a
  second, or at once when the process changes its RLIMIT_AS or RLIMIT_DATA. The environment
  variable ``RATKIT_MAX_BYTES`` overrides it: a whole number of bytes, ``4e9`` or with a
  binary unit, ``512M``, ``4G`` (see "Limits and environment variables" in the guide).
* ``max_states``: the most states (or arcs) an automaton operation may produce. Default
  10⁷; ``RATKIT_MAX_STATES`` overrides it.

The environment variables are read when a limit is read (a bad value raises
:class:`~ratkit.exceptions.ParameterError` naming the variable then, not at import). Raise or
lower the limits for a block of code with :func:`limits`, or for the rest of the process
with :func:`set_limits` (both win over the environment)::

    import ratkit.limits
    with ratkit.limits.limits(max_bytes=16 * 2**30):
        K = kernel.gram(X)          # up to 16 GiB
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ratkit._environment import BYTES_ACCEPTED, COUNT_ACCEPTED, environment_value, parse_bytes, parse_count
from ratkit.exceptions import ParameterError, ParameterTypeError, ResourceLimitError

__all__ = [
    "max_bytes",
    "max_states",
    "limits",
    "set_limits",
    "check_bytes",
    "check_states",
    "format_bytes",
    "available_memory",
    "rows_within",
    "MAX_PATHS",
    "MAX_PHI_ARCS",
    "MAX_COMPOSED_STATES",
    "MAX_FACTOR_ARCS",
    "MAX_FEATURE_ENTRIES",
    "MAX_KEY_PATHS",
    "MAX_SPEC_DEPTH",
    "MAX_CLOSURE_ENTRIES",
    "MAX_HYPOTHESES",
    "MAX_DENSE_CELLS",
    "MAX_BACKWARD_CELLS",
    "MAX_EXPANSION",
]

_FALLBACK_PHYSICAL = 8 * 2**30
_DEFAULT_STATES = 10**7
#: Seconds a measured default of max_bytes is reused (a check can run once per kernel value).
_MEASURE_EVERY = 1.0
_lock = threading.Lock()
#: The limits set by set_limits / limits(); None: the environment variable, else the default.
_limits: dict[str, int | None] = {"max_bytes": None, "max_states": None}
_measured: list[Any] = [float("-inf"), 0, ()]  # [when, default max_bytes, the rlimits then]


def _physical() -> int:
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return _FALLBACK_PHYSICAL


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii", errors="replace")
    except (OSError, ValueError):
        return None


def _fields(text: str | None, sep: str | None = None) -> dict[str, int]:
    """``key value`` (or ``key: value kB``) lines as a dict of ints (kB → bytes)."""
    out: dict[str, int] = {}
    for line in (text or "").splitlines():
        key, _, rest = line.partition(sep) if sep else line.partition(" ")
        parts = rest.split()
        if parts and parts[0].isdigit():
            out[key.strip()] = int(parts[0]) * (1024 if parts[1:] == ["kB"] else 1)
    return out


def _rlimit_headroom() -> list[int]:
    """What ``RLIMIT_AS`` and ``RLIMIT_DATA`` (soft limits) leave beyond the process's
    current address space (VmSize) and data segment (VmData)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return []
    status = _fields(_read(Path("/proc/self/status")), ":")
    out = []
    for limit, used in ((resource.RLIMIT_AS, "VmSize"), (getattr(resource, "RLIMIT_DATA", None), "VmData")):
        if limit is None:  # pragma: no cover
            continue
        soft = resource.getrlimit(limit)[0]
        if soft != resource.RLIM_INFINITY and soft >= 0:
            out.append(soft - status.get(used, 0))
    return out


def _cgroup_headroom(cgroup_root: Path, membership: str | None) -> list[int]:
    """What the memory limits of the process's cgroup and of its ancestors leave beyond their
    usage: cgroup v2 ``memory.max`` − (``memory.current`` − ``inactive_file``), v1
    ``memory.limit_in_bytes`` − (``memory.usage_in_bytes`` − ``total_inactive_file``) (the
    reclaimable page cache does not count, as in ``docker stats``)."""
    out = []
    for line in (membership or "").splitlines():
        hierarchy, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if hierarchy == "0" and controllers == "":
            base, names = cgroup_root, ("memory.max", "memory.current", "inactive_file")
        elif "memory" in controllers.split(","):
            base, names = (
                cgroup_root / "memory",
                ("memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"),
            )
        else:
            continue
        parts = [p for p in path.strip().split("/") if p and p not in (".", "..")]
        for depth in range(len(parts), -1, -1):  # the group and its ancestors; in a container the
            folder = base.joinpath(*parts[:depth])  # host's path may be absent, its root is there
            limit = (_read(folder / names[0]) or "").strip()
            if not limit.isdigit():  # "max", or no such file
                continue
            usage = (_read(folder / names[1]) or "").strip()
            used = int(usage) if usage.isdigit() else 0
            used -= _fields(_read(folder / "memory.stat")).get(names[2], 0)
            out.append(int(limit) - max(used, 0))
    return out


def available_memory(*, cgroup_root: str | os.PathLike[str] = "/sys/fs/cgroup") -> int:
    """Bytes this process can still allocate: the smallest of the machine's physical memory,
    what ``RLIMIT_AS``/``RLIMIT_DATA`` leave beyond the process's current address space and
    data, and what the memory limits of its cgroup and the cgroup's ancestors leave beyond
    their use (cgroup v2 ``memory.max`` and v1 ``memory.limit_in_bytes`` under
    ``cgroup_root``, at the path ``/proc/self/cgroup`` names; ``max`` is no limit).

    The default of :func:`max_bytes` is half of it. ``cgroup_root`` is where the cgroup file
    systems are mounted (a folder laid out the same way, in tests)."""
    membership = _read(Path("/proc/self/cgroup"))
    candidates = [_physical(), *_rlimit_headroom(), *_cgroup_headroom(Path(cgroup_root), membership)]
    return max(0, min(candidates))


def _default_bytes() -> int:
    """Half of :func:`available_memory`, re-measured when a second has passed or the process's
    RLIMIT_AS/RLIMIT_DATA changed (a measure costs about 0.4 ms; a check can run per kernel value)."""
    now = time.monotonic()
    key = _rlimits()
    if now - _measured[0] >= _MEASURE_EVERY or key != _measured[2]:
        _measured[:] = [now, max(1, available_memory() // 2), key]
    return int(_measured[1])


def _rlimits() -> tuple[int, ...]:
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return ()
    return resource.getrlimit(resource.RLIMIT_AS) + resource.getrlimit(resource.RLIMIT_DATA)


def max_bytes() -> int:
    """The most bytes one operation may plan to allocate: the value set by :func:`set_limits`
    or :func:`limits`, else ``RATKIT_MAX_BYTES``, else half of :func:`available_memory`.

    Raises :class:`~ratkit.exceptions.ParameterError` naming ``RATKIT_MAX_BYTES`` when that
    variable holds something other than a whole positive number of bytes."""
    value = _limits["max_bytes"]
    if value is not None:
        return value
    given = environment_value("RATKIT_MAX_BYTES", parse_bytes, BYTES_ACCEPTED)
    return given if given is not None else _default_bytes()


def max_states() -> int:
    """The most states (or arcs) one automaton operation may produce: the value set by
    :func:`set_limits` or :func:`limits`, else ``RATKIT_MAX_STATES``, else 10⁷."""
    value = _limits["max_states"]
    if value is not None:
        return value
    given = environment_value("RATKIT_MAX_STATES", parse_count, COUNT_ACCEPTED)
    return given if given is not None else _DEFAULT_STATES


def _checked(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise ParameterTypeError(f"The {name!r} limit must be a positive integer. Got {value!r} instead.")
    if value < 1 or value == float("inf"):
        raise ParameterError(f"The {name!r} limit must be a positive integer. Got {value!r} instead.")
    return int(value)


def set_limits(*, max_bytes: int | None = None, max_states: int | None = None) -> None:
    """Set the limits for the rest of the process (``None`` leaves one unchanged)."""
    updates = {k: _checked(k, v) for k, v in (("max_bytes", max_bytes), ("max_states", max_states)) if v is not None}
    with _lock:
        _limits.update(updates)


@contextlib.contextmanager
def limits(*, max_bytes: int | None = None, max_states: int | None = None) -> Iterator[None]:
    """The limits changed inside a ``with`` block, restored after it."""
    with _lock:
        saved = dict(_limits)
    set_limits(max_bytes=max_bytes, max_states=max_states)
    try:
        yield
    finally:
        with _lock:
            _limits.update(saved)


def format_bytes(n: float) -> str:
    """``n`` bytes in the largest binary unit that keeps it ≥ 1 (``"8.6 GiB"``)."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024.0
    raise AssertionError("unreachable")  # pragma: no cover


def check_bytes(n_bytes: float, what: str | Callable[[], str], hint: str = "") -> None:
    """Refuse ``what`` when its estimated allocation ``n_bytes`` exceeds :func:`max_bytes`.

    Raises :class:`~ratkit.exceptions.ResourceLimitError` naming the estimate, the limit,
    how to raise it and ``hint`` (what the user can do instead). ``what`` may be a function
    giving the text, called only to refuse (for checks on a hot path whose text is costly)."""
    limit = max_bytes()
    if n_bytes > limit:
        text = what() if callable(what) else what
        _refuse(f"would allocate about {format_bytes(n_bytes)}", format_bytes(limit), "max_bytes", text, hint)


def rows_within(bytes_per_row: float, what: str | Callable[[], str], hint: str = "", *, most: int | None = None) -> int:
    """How many rows of ``bytes_per_row`` bytes each one block of work may hold within
    :func:`max_bytes`: ``max_bytes() // bytes_per_row``, at least 1 and at most ``most``.

    For work done in blocks of rows (users, strings) rather than refused: only a single row
    larger than the limit is refused, by :func:`check_bytes` with ``what`` (the work on one
    row) and ``hint``."""
    check_bytes(bytes_per_row, what, hint)
    rows = max(1, int(max_bytes() // max(float(bytes_per_row), 1.0)))
    return rows if most is None else max(1, min(rows, int(most)))


def check_states(n_states: float, what: str, hint: str = "") -> None:
    """Refuse ``what`` when it would produce more than :func:`max_states` states or arcs."""
    limit = max_states()
    if n_states > limit:
        _refuse(f"would produce about {n_states:.3g} states or arcs", f"{limit:,}", "max_states", what, hint)


def _refuse(estimate: str, limit: str, name: str, what: str, hint: str) -> None:
    advice = f" {hint}" if hint else ""
    raise ResourceLimitError(
        f"{what} {estimate}, more than the limit of {limit} (ratkit.limits.{name}).{advice} To allow it, raise "
        f"the limit: ratkit.limits.set_limits({name}=...) or the RATKIT_{name.upper()} environment variable."
    )


# ---------------------------------------------------------------------------------------------
# Fixed bounds of single algorithms. Unlike max_bytes and max_states they are not settings:
# each caps a structure whose cost per element was measured, so that an input too large for the
# algorithm is refused with a ResourceLimitError naming the bound instead of exhausting memory.
# They live here, in one place, and the modules that enforce them import them.

# Rational kernels (ratkit.automata.kernels).
#: Bound on the path prefixes enumerated per feature automaton before falling back to pairwise
#: intersection (e.g. the subsequence kernel has ``2**len(x)`` features).
MAX_PATHS = 2_000_000
#: The most arcs the ε-removed feature automata Φ_x of one Gram matrix may hold, by the family's
#: estimate: ε-removal and reading Φ_x into arrays cost about 120 bytes an arc
#: (measured: see bench/RESULTS.md, section 'Figures moved out of the code (issue 36)').
MAX_PHI_ARCS = 5_000_000
#: The most states X ∘ S ∘ Y may have for one pair on the ``"composition"`` path, estimated as
#: ``(len(x) + 1) * n_states(S) * (len(y) + 1)``.
MAX_COMPOSED_STATES = 5_000_000
#: The most arcs a family's transducer T may have (checked before it is built): its arcs pass
#: through Python tuples at about 550 bytes an arc, so T stays under ≈ 2.8 GB
#: (measured: see bench/RESULTS.md, section 'Figures moved out of the code (issue 36)').
MAX_FACTOR_ARCS = 5_000_000
#: The most (row, feature) entries of one mismatch feature matrix: about 31 bytes a triplet,
#: so ≈ 3 GB here (measured: see bench/RESULTS.md, section 'Figures moved out of the code (issue 36)').
MAX_FEATURE_ENTRIES = 100_000_000
#: The most path prefixes enumerated to find the weighted language of one lattice.
MAX_KEY_PATHS = 100_000
#: The deepest nesting of kernel specs ``from_spec`` builds; a deeper spec is refused with a
#: SpecError instead of exhausting Python's recursion limit. Real combinations nest a few levels.
MAX_SPEC_DEPTH = 64

# The compiled transducer evaluator (ratkit.automata.kernels).
#: The most closure entries (ε-input paths summed by end state and output) an export holds.
MAX_CLOSURE_ENTRIES = 1_000_000
#: The most hypotheses (state, output prefix) held at one position of one sequence.
MAX_HYPOTHESES = 1_000_000
#: The most (state, input label) cells of the dense table of arcs (beyond: binary search).
MAX_DENSE_CELLS = 1 << 22
#: The most (position, reachable state) cells of the backward table β of one sequence.
MAX_BACKWARD_CELLS = 50_000_000

# Model files (ratkit.persistence).
#: The most a model file may expand when read (``load_model``'s default ``max_expansion``): its
#: members' declared uncompressed sizes may sum to at most this multiple of the file's size, plus
#: a floor of 256 MiB. A file declaring more is a corrupted file or a zip bomb, refused before
#: anything is decompressed.
MAX_EXPANSION = 200
