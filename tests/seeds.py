"""Seeds for test data drawn per parametrisation, the same in every run.

``hash()`` of a str differs between Python processes (PYTHONHASHSEED), so a seed taken from
it draws other data in each run: a failure could not be reproduced, and one draw of the random
walk tests gave graphs on which the tested decay diverges.
"""

from __future__ import annotations

import zlib


def stable_seed(*key: object, modulo: int = 2**32) -> int:
    """A seed from ``key`` (its repr), the same in every process."""
    return zlib.crc32(repr(key).encode()) % modulo
