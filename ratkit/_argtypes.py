"""argparse value types shared by the ``ratkit`` commands: bad numbers fail as usage errors."""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["positive", "fraction"]


def positive(kind: type) -> Callable[[str], float]:
    """An argparse type: ``kind(text)`` (int or float), finite and > 0."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not 0 < value < float("inf"):
            article = "an int" if kind is int else "a float"
            raise argparse.ArgumentTypeError(f"expected {article} > 0, got {text!r}")
        return value

    return parse


def fraction(text: str) -> float:
    """An argparse type: a float in [0, 1)."""
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"expected a fraction in [0, 1), got {text!r}")
    return value
