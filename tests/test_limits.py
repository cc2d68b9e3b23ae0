"""ratkit.limits: the process-wide size limits and the refusal they raise."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import ratkit.limits as limits
from ratkit.exceptions import ParameterError, ParameterTypeError, ResourceLimitError


def test_check_bytes_refuses_past_the_limit_naming_estimate_limit_and_remedy():
    with limits.limits(max_bytes=2**20):
        limits.check_bytes(2**20, "a Gram matrix")  # at the limit: allowed
        with pytest.raises(ResourceLimitError, match=r"a 3 × 3 Gram matrix would allocate about 2\.0 MiB") as info:
            limits.check_bytes(2 * 2**20, "a 3 × 3 Gram matrix", hint="Use out='gram.npy'.")
    message = str(info.value)
    assert "limit of 1.0 MiB" in message and "Use out='gram.npy'." in message and "RATKIT_MAX_BYTES" in message
    assert isinstance(info.value, MemoryError)


def test_limits_restores_the_previous_values_even_after_an_error():
    before = (limits.max_bytes(), limits.max_states())
    with pytest.raises(RuntimeError):
        with limits.limits(max_bytes=123, max_states=45):
            assert (limits.max_bytes(), limits.max_states()) == (123, 45)
            raise RuntimeError("inside")
    assert (limits.max_bytes(), limits.max_states()) == before


def test_check_states():
    with limits.limits(max_states=10):
        limits.check_states(10, "determinize")
        with pytest.raises(ResourceLimitError, match=r"determinize would produce about 11 states .* limit of 10"):
            limits.check_states(11, "determinize")


@pytest.mark.parametrize("bad", [0, -5, float("inf")])
def test_bad_limit_values_are_refused(bad):
    with pytest.raises(ParameterError, match="'max_bytes' limit must be a positive integer"):
        limits.set_limits(max_bytes=bad)


@pytest.mark.parametrize("bad", ["1GB", None.__class__, True, float("nan")])
def test_limit_values_of_the_wrong_type_are_refused(bad):
    with pytest.raises(ParameterTypeError, match="'max_states' limit must be a positive integer"):
        limits.set_limits(max_states=bad)


def test_the_environment_sets_the_limits():
    code = "import ratkit.limits as l; print(l.max_bytes(), l.max_states())"
    env = dict(os.environ, RATKIT_MAX_BYTES="1e6", RATKIT_MAX_STATES="77")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["1000000", "77"]
    env["RATKIT_MAX_BYTES"] = "lots"
    failed = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert failed.returncode != 0 and "RATKIT_MAX_BYTES is 'lots'; it must be a whole positive number" in failed.stderr


def test_the_default_byte_limit_is_half_the_physical_memory():
    physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    if "RATKIT_MAX_BYTES" in os.environ:
        pytest.skip("RATKIT_MAX_BYTES is set in this environment")
    if limits.available_memory() < physical:
        pytest.skip("an RLIMIT_AS/RLIMIT_DATA or a cgroup memory limit lowers it here (tests/test_limits_process.py)")
    assert limits.max_bytes() == physical // 2


def test_format_bytes():
    assert [limits.format_bytes(n) for n in (512, 2048, 3 * 2**30)] == ["512 B", "2.0 KiB", "3.0 GiB"]
