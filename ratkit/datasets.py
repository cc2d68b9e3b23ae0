"""Labelled sequence data sets: the bundled UCI splice-junction set and file readers.

Every loader takes a path and returns a :class:`SequenceDataset`; a missing or
malformed file raises an error that names the file and the expected format.

The simple format (:func:`load_tsv`, :func:`write_tsv`) is UTF-8 text with one example
per line, ``label<TAB>sequence``: the label is everything before the first TAB, the
sequence everything after it, each character one symbol (spaces included). Blank
lines and lines starting with ``#`` are skipped. For example::

    # label<TAB>sequence
    EI\tCCAGCTGCATCACAGGAGGCCAGCGAGCAGG
    N\tGGTTCAGGCCTTGCAGGTTCCAGC

:func:`load_sequences` reads any of the supported formats: this one, the UCI
splice-junction file and the Reuters-21578 SGML collection (ModApte split).
"""

from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Literal

from ratkit.exceptions import DataFormatError, MissingDataError

__all__ = [
    "SequenceDataset",
    "ReutersDocument",
    "load_splice",
    "load_reuters",
    "reuters_modapte",
    "reuters_dataset",
    "load_tsv",
    "write_tsv",
    "load_lines",
    "load_sequences",
    "DataFormat",
    "BUNDLED_SPLICE",
]

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


def reuters_dataset(path: str | os.PathLike, split: str, target: str) -> SequenceDataset:
    """ModApte ``split`` of Reuters-21578 as a binary task: label ``target`` or ``"not-" + target``.

    The sequences are the lower-cased story bodies; ``names`` are the NEWIDs.
    """
    docs = reuters_modapte(path, split)
    known = sorted({t for d in docs for t in d.topics})
    if target not in known:
        raise DataFormatError(
            f"Reuters-21578 has no ModApte {split} story of topic {target!r}; pick one of "
            f"{', '.join(known[:12])}, ... (e.g. acq, earn, crude)."
        )
    labels = [target if target in d.topics else f"not-{target}" for d in docs]
    return SequenceDataset(
        [d.body for d in docs],
        labels,
        [str(d.newid) for d in docs],
        source=f"{path} (ModApte {split})",
    )


def load_tsv(path: str | os.PathLike) -> SequenceDataset:
    """Read the simple ``label<TAB>sequence`` format (see the module docstring)."""
    file = Path(path)
    if not file.is_file():
        raise MissingDataError(
            f"Labelled sequence file {str(file)!r} not found; expected a UTF-8 text file with one "
            "'label<TAB>sequence' per line."
        )
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DataFormatError(f"{file}: not UTF-8 text ({exc}); expected 'label<TAB>sequence' lines.") from None
    seqs, labels = [], []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        label, tab, seq = line.partition("\t")
        if not tab:
            raise DataFormatError(f"{file}, line {lineno}: no TAB; expected 'label<TAB>sequence', got {line[:80]!r}.")
        if not label.strip() or not seq:
            what = "label" if not label.strip() else "sequence"
            raise DataFormatError(f"{file}, line {lineno}: empty {what}; expected 'label<TAB>sequence'.")
        labels.append(label.strip())
        seqs.append(seq)
    if not seqs:
        raise DataFormatError(f"{file}: no examples found; expected lines 'label<TAB>sequence'.")
    return SequenceDataset(seqs, labels, [], source=str(file))


def write_tsv(path: str | os.PathLike, sequences: list[str], labels: list[str]) -> None:
    """Write ``label<TAB>sequence`` lines (the format :func:`load_tsv` reads)."""
    bad = [s for s in sequences if "\n" in s or "\r" in s]
    if bad:
        raise DataFormatError(f"A sequence holds a line break and cannot be written one per line: {bad[0][:40]!r}.")
    bad_labels = [lab for lab in labels if "\t" in str(lab) or "\n" in str(lab)]
    if bad_labels:
        raise DataFormatError(f"A label holds a TAB or line break: {bad_labels[0]!r}.")
    Path(path).write_text("".join(f"{lab}\t{seq}\n" for lab, seq in zip(labels, sequences)), encoding="utf-8")


def load_lines(path: str | os.PathLike) -> SequenceDataset:
    """One unlabelled sequence per line (blank lines skipped); ``labels`` is empty."""
    file = Path(path)
    if not file.is_file():
        raise MissingDataError(f"Sequence file {str(file)!r} not found; expected one sequence per line.")
    seqs = [line for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not seqs:
        raise DataFormatError(f"{file}: no sequences found; expected one sequence per line.")
    return SequenceDataset(seqs, [], [], source=str(file))


DataFormat = Literal["auto", "tsv", "splice", "reuters", "lines"]
_FORMATS = ("auto", "tsv", "splice", "reuters", "lines")


def load_sequences(
    path: str | os.PathLike,
    format: DataFormat = "auto",
    *,
    split: str = "train",
    target: str | None = None,
) -> SequenceDataset:
    """Read labelled sequences in any supported format.

    ``"auto"`` picks ``"reuters"`` for a folder of ``reut2-*.sgm`` files, ``"splice"``
    for a file named ``splice.data`` and ``"tsv"`` otherwise. Reuters-21578 is
    multi-label: ``target`` names the topic of a binary task and ``split`` the ModApte
    half ("train" or "test"). With ``target`` given, other formats become binary too:
    every label other than ``target`` is renamed ``"not-" + target``.
    """
    if format not in _FORMATS:
        raise ValueError(
            f"The 'format' parameter must be one of {', '.join(map(repr, _FORMATS))}. Got {format!r} instead."
        )
    p = Path(path)
    if format == "auto":
        if p.is_dir() and any(p.glob("reut2-*.sgm")):
            format = "reuters"
        elif p.name == "splice.data" or (p.is_dir() and (p / "splice.data").is_file()):
            format = "splice"
        elif p.is_dir():
            raise DataFormatError(
                f"{p} is a folder without Reuters-21578 'reut2-*.sgm' files or 'splice.data'; "
                "give a "
                "'label<TAB>sequence' file, a splice.data file, or the Reuters-21578 folder."
            )
        else:
            format = "tsv"
    if format == "reuters":
        if target is None:
            raise DataFormatError(
                "Reuters-21578 is multi-label: name the topic of the binary task (e.g. "
                "target='acq', "
                "or --target acq on the command line)."
            )
        return reuters_dataset(p, split, target)
    data = {"splice": load_splice, "tsv": load_tsv, "lines": load_lines}[format](p)
    if target is not None and data.labels:
        if target not in data.labels:
            raise DataFormatError(
                f"{data.source}: no example has label {target!r}; labels present: "
                f"{', '.join(sorted(set(data.labels))[:12])}."
            )
        data.labels = [lab if lab == target else f"not-{target}" for lab in data.labels]
    return data
