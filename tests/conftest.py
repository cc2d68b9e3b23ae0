"""Fixtures shared by the whole test suite.

The benchmark data sets live outside the repository, in ``../shared/data`` relative to
its root (see that folder's README). Tests find them with :func:`shared_data_path` (or
the ``shared_data`` fixture, which is that function), never with an absolute path, and
are skipped, with the path they looked at in the reason, where the data is absent.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
SHARED_DATA = REPOSITORY.parent / "shared" / "data"


def shared_data_path(name: str) -> Path:
    """``../shared/data/<name>`` beside the repository; skips the calling test if it is missing."""
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"the data set {name!r} is not at {path} (../shared/data/{name} beside the repository)")
    return path


@pytest.fixture(scope="session")
def shared_data() -> Callable[[str], Path]:
    """:func:`shared_data_path`, as a fixture usable from fixtures of any scope:
    ``reuters = shared_data("reuters21578")``."""
    return shared_data_path
