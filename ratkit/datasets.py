"""Labelled sequence data sets: the bundled UCI splice-junction set and file readers.

Every loader takes a path and returns a :class:`SequenceDataset`; a missing or
malformed file raises an error that names the file and the expected format.
"""

from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from ratkit.exceptions import DataFormatError, MissingDataError

__all__ = ["SequenceDataset", "ReutersDocument", "load_splice", "load_reuters", "reuters_modapte", "BUNDLED_SPLICE"]

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


@dataclass
class ReutersDocument:
    """One Reuters-21578 story: its NEWID, ModApte split, topics and lower-cased body."""

    newid: int
    split: str  # "train", "test" or "unused"
    topics: list[str]
    body: str


_REUTERS_RE = re.compile(r"<REUTERS(?P<attrs>[^>]*)>(?P<content>.*?)</REUTERS>", re.S)
_ATTR_RE = re.compile(r'(\w+)="([^"]*)"')
_TOPICS_RE = re.compile(r"<TOPICS>(.*?)</TOPICS>", re.S)
_D_RE = re.compile(r"<D>(.*?)</D>", re.S)
_BODY_RE = re.compile(r"<BODY>(.*?)</BODY>", re.S)


def load_reuters(path: str | os.PathLike) -> list[ReutersDocument]:
    """Every story of Reuters-21578 (the 22 ``reut2-NNN.sgm`` files in ``path``).

    The ModApte split: TOPICS="YES" with LEWISSPLIT="TRAIN" is ``"train"``, with
    LEWISSPLIT="TEST" is ``"test"``; every other story is ``"unused"``. Bodies are
    HTML-unescaped and lower-cased; stories without a BODY have ``body == ""``.
    """
    folder = Path(path)
    files = sorted(folder.glob("reut2-*.sgm")) if folder.is_dir() else []
    if not files:
        raise MissingDataError(
            f"No Reuters-21578 SGML files in {str(folder)!r}; expected the 22 files "
            "'reut2-000.sgm' ... 'reut2-021.sgm' of Distribution 1.0."
        )
    docs = []
    for file in files:
        text = file.read_bytes().decode("latin-1")
        for m in _REUTERS_RE.finditer(text):
            attrs = dict(_ATTR_RE.findall(m.group("attrs")))
            if "NEWID" not in attrs or "LEWISSPLIT" not in attrs:
                raise DataFormatError(f"{file}: a <REUTERS> tag without NEWID/LEWISSPLIT attributes.")
            content = m.group("content")
            t = _TOPICS_RE.search(content)
            topics = _D_RE.findall(t.group(1)) if t else []
            b = _BODY_RE.search(content)
            body = html.unescape(b.group(1)).lower() if b else ""
            modapte = attrs.get("TOPICS") == "YES" and attrs["LEWISSPLIT"] in ("TRAIN", "TEST")
            split = attrs["LEWISSPLIT"].lower() if modapte else "unused"
            docs.append(ReutersDocument(int(attrs["NEWID"]), split, topics, body))
    if not docs:
        raise DataFormatError(f"{folder}: no <REUTERS> stories found in the SGML files.")
    return docs


def reuters_modapte(path: str | os.PathLike, split: str) -> list[ReutersDocument]:
    """ModApte ``"train"`` or ``"test"`` stories that have at least one topic and a body."""
    if split not in ("train", "test"):
        raise ValueError(f"The 'split' parameter must be 'train' or 'test'. Got {split!r} instead.")
    return [d for d in load_reuters(path) if d.split == split and d.topics and d.body.strip()]
