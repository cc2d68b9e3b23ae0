"""ratkit.limits.max_bytes follows the process's own limits (issue 35, class 5).

``max_bytes()`` was half the machine's memory whatever ``RLIMIT_AS`` or a container's cgroup
allowed, so ``recommend`` for every user of a PureSVD model under a 3 GB cap planned 4.8 GB
and died with MemoryError (the blocks that avoid it: tests/recsys/test_blocks.py)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ratkit
import ratkit.limits as limits

ROOT = str(Path(ratkit.__file__).resolve().parent.parent)
GiB = 2**30


def _physical() -> int:
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def _no_rlimits() -> bool:
    return all(resource.getrlimit(r)[0] == resource.RLIM_INFINITY for r in (resource.RLIMIT_AS, resource.RLIMIT_DATA))


def _child(code: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RATKIT_")}
    env["PYTHONPATH"] = os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True, timeout=timeout
    )


def _membership() -> list[tuple[str, str, str]]:
    """(hierarchy, controllers, path) of each line of /proc/self/cgroup (the kernel's view)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        pytest.skip("no /proc/self/cgroup (not Linux)")
    return [tuple(line.split(":", 2)) for line in lines]  # type: ignore[misc]


# -- the limit -----------------------------------------------------------------------------------
@pytest.mark.parametrize("which", ["RLIMIT_AS", "RLIMIT_DATA"])
def test_max_bytes_stays_within_an_address_space_limit(which):
    """Under a cap 1 GiB above what the process maps, max_bytes is at most half that headroom
    (it was half the machine's memory), and an array of max_bytes() can really be allocated."""
    done = _child(
        f"""
        import resource
        import numpy as np
        import ratkit.limits as limits
        field = {"VmSize" if which == "RLIMIT_AS" else "VmData"!r}
        status = open("/proc/self/status").read()
        used = int(status.split(field + ":")[1].split()[0]) * 1024
        cap = used + 2**30
        resource.setrlimit(resource.{which}, (cap, resource.RLIM_INFINITY))
        budget = limits.max_bytes()
        block = np.ones(budget // 8)  # touched: it is really there
        print(cap, used, budget, int(block.sum()))
        """
    )
    assert done.returncode == 0, done.stderr
    cap, used, budget, total = (int(x) for x in done.stdout.split())
    assert budget <= cap - used and budget <= 2**30 // 2 + 1
    assert budget >= 2**30 // 4  # the headroom minus what numpy itself maps, halved: not nothing
    assert total == budget // 8


def test_available_memory_reads_a_cgroup_v2_limit_beyond_its_use(tmp_path):
    """A fake cgroup v2 tree: memory.max − (memory.current − inactive_file)."""
    v2 = [path for hierarchy, controllers, path in _membership() if hierarchy == "0" and controllers == ""]
    if not v2 or not _no_rlimits():
        pytest.skip("needs a cgroup v2 line in /proc/self/cgroup and no RLIMIT_AS/RLIMIT_DATA")
    leaf = tmp_path.joinpath(*[p for p in v2[0].split("/") if p])
    leaf.mkdir(parents=True, exist_ok=True)
    (leaf / "memory.max").write_text("1073741824\n")
    (leaf / "memory.current").write_text("104857600\n")
    (leaf / "memory.stat").write_text("anon 52428800\nfile 52428800\ninactive_file 41943040\nactive_file 10485760\n")
    expected = 1073741824 - (104857600 - 41943040)
    assert limits.available_memory(cgroup_root=tmp_path) == min(expected, _physical())
    (leaf / "memory.max").write_text("max\n")  # no limit
    assert limits.available_memory(cgroup_root=tmp_path) == _physical()


def test_available_memory_takes_the_lowest_limit_of_the_group_and_its_ancestors(tmp_path):
    """cgroup v1: the group's own memory.limit_in_bytes, and the root's (in a container the
    host's path of the group is absent: only the mount's root is there)."""
    v1 = [path for _, controllers, path in _membership() if "memory" in controllers.split(",")]
    if not v1 or not _no_rlimits():
        pytest.skip("needs a cgroup v1 memory line in /proc/self/cgroup and no RLIMIT_AS/RLIMIT_DATA")
    root = tmp_path / "memory"
    root.mkdir()
    (root / "memory.limit_in_bytes").write_text(f"{3 * GiB}\n")
    (root / "memory.usage_in_bytes").write_text(f"{GiB}\n")
    (root / "memory.stat").write_text(f"cache {GiB}\ntotal_inactive_file {GiB // 2}\n")
    assert limits.available_memory(cgroup_root=tmp_path) == min(3 * GiB - GiB // 2, _physical())
    parts = [p for p in v1[0].split("/") if p]
    if parts:
        leaf = root.joinpath(*parts)
        leaf.mkdir(parents=True)
        (leaf / "memory.limit_in_bytes").write_text(f"{GiB}\n")
        (leaf / "memory.usage_in_bytes").write_text("0\n")
        assert limits.available_memory(cgroup_root=tmp_path) == min(GiB, _physical())
        (leaf / "memory.limit_in_bytes").write_text("9223372036854771712\n")  # v1's "no limit"
        assert limits.available_memory(cgroup_root=tmp_path) == min(3 * GiB - GiB // 2, _physical())


def test_without_any_limit_the_default_is_half_the_machine(tmp_path):
    if not _no_rlimits():
        pytest.skip("an RLIMIT_AS or RLIMIT_DATA is set")
    assert limits.available_memory(cgroup_root=tmp_path) == _physical()  # an empty tree: no cgroup limit
