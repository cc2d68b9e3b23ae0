"""Labelled sequence data sets: the bundled UCI splice-junction set and file readers.

Every loader takes a path and returns a :class:`SequenceDataset`; a missing or
malformed file raises an error that names the file and the expected format.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from ratkit.exceptions import DataFormatError, MissingDataError

__all__ = ["SequenceDataset", "load_splice", "BUNDLED_SPLICE"]

#: The bundled copy of UCI's ``splice.data`` (CC BY 4.0, see ratkit/data/splice/ATTRIBUTION.md).
BUNDLED_SPLICE = resources.files("ratkit") / "data" / "splice" / "splice.data"


@dataclass
class SequenceDataset:
    """Sequences with one label each, plus optional instance names and a split marker."""

    sequences: list[str]
    labels: list[str]
    names: list[str] = field(default_factory=list)
    source: str = ""

    def __len__(self) -> int:
        return len(self.sequences)


def load_splice(path: str | os.PathLike | None = None) -> SequenceDataset:
    """Read UCI ``splice.data``: lines ``CLASS, NAME, SEQUENCE`` with classes EI, IE, N.

    ``path`` is the file or the folder holding it; the bundled copy by default.
    """
    if path is None:
        file = Path(str(BUNDLED_SPLICE))
    else:
        file = Path(path)
        if file.is_dir():
            file = file / "splice.data"
    if not file.is_file():
        raise MissingDataError(
            f"UCI splice-junction file {str(file)!r} not found; expected 'splice.data' with "
            "lines 'CLASS, NAME, SEQUENCE' (UCI data set 69)."
        )
    seqs, labels, names = [], [], []
    for lineno, line in enumerate(file.read_text(encoding="ascii", errors="strict").splitlines(), 1):
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 3 or not parts[2]:
            raise DataFormatError(
                f"{file}, line {lineno}: expected 'CLASS, NAME, SEQUENCE' (3 comma-separated "
                f"fields), got {line[:80]!r}."
            )
        labels.append(parts[0])
        names.append(parts[1])
        seqs.append(parts[2].upper())
    if not seqs:
        raise DataFormatError(f"{file}: no sequences found; expected lines 'CLASS, NAME, SEQUENCE'.")
    return SequenceDataset(seqs, labels, names, source=str(file))
