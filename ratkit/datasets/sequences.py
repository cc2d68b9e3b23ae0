"""Sequence data sets: the bundled UCI splice-junction set, Reuters-21578 and file readers.

Every loader takes a path and returns a :class:`SequenceDataset`; a missing or
malformed file raises an error that names the file and the expected format.

The simple format (:func:`load_tsv`, :func:`write_tsv`) is UTF-8 text with one example
per line, ``label<TAB>sequence``: the label is everything before the first TAB, the
sequence everything after it, each character one symbol (spaces included). Lines end
at a newline (LF, CRLF or CR) only: other characters that :meth:`str.splitlines` breaks
at (form feed, ``\\x1c``, U+2028 ...) are symbols. Blank lines and lines starting with
``#`` are skipped. The format has no header line; a first example line that names the
columns instead (a label among label, class, category, target and a sequence among
sequence, seq, text, string, sentence, in any case, e.g. ``label<TAB>sequence`` as
pandas writes it) is taken for one, skipped and logged. For example::

    # label<TAB>sequence
    EI\tCCAGCTGCATCACAGGAGGCCAGCGAGCAGG
    N\tGGTTCAGGCCTTGCAGGTTCCAGC

:func:`write_tsv` refuses data that would not read back as written.

:func:`load_sequences` reads any of the supported formats: this one, the UCI
splice-junction file and the Reuters-21578 SGML collection (ModApte split).
"""

from __future__ import annotations

import html
import logging
import os
import re
from collections import Counter
from collections.abc import Sized
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ratkit._files import atomic_write
from ratkit.datasets._bundled import BUNDLED_SPLICE
from ratkit.exceptions import (
    DataFormatError,
    MissingDataError,
    NotAFolderError,
    ParameterError,
    ParameterTypeError,
    PathIsFolderError,
)

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
]

log = logging.getLogger(__name__)

#: The repr of a data set names at most this many classes; of a document, this many characters of text.
_REPR_CLASSES = 8
_REPR_TEXT = 60

#: Names a header line gives the label and the sequence column (compared case-insensitively).
_LABEL_NAMES = frozenset({"label", "labels", "class", "category", "target"})
_SEQUENCE_NAMES = frozenset({"sequence", "sequences", "seq", "text", "string", "sentence"})


def _names_columns(label: str, sequence: str) -> bool:
    """Whether a (label, sequence) pair is a header line's column names rather than an example."""
    return label.strip().casefold() in _LABEL_NAMES and sequence.strip().casefold() in _SEQUENCE_NAMES


def _as_path(path: object, what: str) -> Path:
    """``path`` as a Path; ParameterTypeError naming ``what`` when it is not a str or os.PathLike."""
    if not isinstance(path, (str, os.PathLike)) or isinstance(os.fspath(path), bytes):
        raise ParameterTypeError(f"The {what} path must be a str or os.PathLike; got {type(path).__name__}.")
    return Path(path)


def _input_file(file: Path, missing: str) -> Path:
    """``file`` when it names a file: PathIsFolderError for a folder, MissingDataError (message
    ``missing``) for nothing there."""
    if file.is_dir():
        raise PathIsFolderError(f"{str(file)!r} is a folder, not a file; {missing.split('; ', 1)[-1]}")
    if not file.is_file():
        raise MissingDataError(missing)
    return file


def _read_lines(file: Path, encoding: Literal["utf-8", "ascii"], expected: str) -> list[str]:
    """The lines of a text file, split at newlines only (LF, CRLF, CR), undecodable text refused.

    A UTF-8 byte-order mark (as Excel writes) is dropped, not glued to the first label.
    """
    try:
        text = file.read_text(encoding="utf-8-sig" if encoding == "utf-8" else encoding)
    except UnicodeDecodeError as exc:
        raise DataFormatError(f"{file}: not {encoding.upper()} text ({exc}); expected {expected}.") from None
    except PermissionError as exc:
        raise DataFormatError(f"{file}: cannot be read ({exc.strerror}); expected {expected}.") from exc
    return text.split("\n")


@dataclass
class SequenceDataset:
    """Sequences with one label each, plus optional instance names and a split marker.

    Printed, a data set is one line that counts its contents instead of listing them:

    >>> SequenceDataset(["ACGT", "ACG", "GT"], ["EI", "N", "N"], source="toy")
    SequenceDataset(n_samples=3, lengths=2..4, classes={'EI': 1, 'N': 2}, source='toy')
    """

    sequences: list[str]
    labels: list[str]
    names: list[str] = field(default_factory=list)
    source: str = ""

    def __len__(self) -> int:
        return len(self.sequences)

    def __repr__(self) -> str:
        """One line: the size, the sequence lengths, the classes with their counts and the source."""
        parts = [f"n_samples={len(self.sequences)}"]
        if self.sequences:
            lengths = [len(s) for s in self.sequences]
            low, high = min(lengths), max(lengths)
            parts.append(f"length={low}" if low == high else f"lengths={low}..{high}")
        if self.labels:
            counts = Counter(self.labels)
            shown = ", ".join(f"{lab!r}: {counts[lab]}" for lab in sorted(counts)[:_REPR_CLASSES])
            more = f", ... ({len(counts)} classes)" if len(counts) > _REPR_CLASSES else ""
            parts.append(f"classes={{{shown}{more}}}")
        else:
            parts.append("unlabelled")
        if self.source:
            parts.append(f"source={self.source!r}")
        return f"{type(self).__name__}({', '.join(parts)})"


def load_splice(path: str | os.PathLike | None = None) -> SequenceDataset:
    """Read UCI ``splice.data``: lines ``CLASS, NAME, SEQUENCE`` with classes EI, IE, N.

    ``path`` is the file or the folder holding it; the bundled copy by default. The UCI
    file has no header line: a first line naming the columns (``class, name, sequence``)
    is refused rather than read as an example of class "class".
    """
    if path is None:
        file = Path(str(BUNDLED_SPLICE))
    else:
        file = _as_path(path, "UCI splice-junction")
        if file.is_dir():
            file = file / "splice.data"
    _input_file(
        file,
        f"UCI splice-junction file {str(file)!r} not found; expected 'splice.data' with "
        "lines 'CLASS, NAME, SEQUENCE' (UCI data set 69).",
    )
    seqs: list[str] = []
    labels: list[str] = []
    names: list[str] = []
    for lineno, line in enumerate(_read_lines(file, "ascii", "lines 'CLASS, NAME, SEQUENCE'"), 1):
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 3 or not parts[2]:
            raise DataFormatError(
                f"{file}, line {lineno}: expected 'CLASS, NAME, SEQUENCE' (3 comma-separated "
                f"fields), got {line[:80]!r}."
            )
        if not seqs and _names_columns(parts[0], parts[2]):
            raise DataFormatError(
                f"{file}, line {lineno}: {line[:80]!r} looks like a column header, but UCI splice.data has no "
                "header line. Delete that line."
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

    def __repr__(self) -> str:
        """One line: the id, split and topics, and the start of the body with its length."""
        body = self.body if len(self.body) <= _REPR_TEXT else self.body[: _REPR_TEXT - 3] + "..."
        return (
            f"{type(self).__name__}(newid={self.newid}, split={self.split!r}, topics={self.topics!r}, "
            f"body={body!r} ({len(self.body)} characters))"
        )


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
    folder = _as_path(path, "Reuters-21578")
    if folder.is_file():
        raise NotAFolderError(
            f"{str(folder)!r} is a file; Reuters-21578 is read from the folder holding the 22 files "
            "'reut2-000.sgm' ... 'reut2-021.sgm' of Distribution 1.0."
        )
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
        raise ParameterError(f"The 'split' parameter must be 'train' or 'test'. Got {split!r} instead.")
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
    """Read the simple ``label<TAB>sequence`` format (see the module docstring).

    A first example line that names the columns (``label<TAB>sequence``) is skipped as a
    header and logged at INFO level; every other line is an example or a comment.
    """
    file = _input_file(
        _as_path(path, "labelled sequence file"),
        f"Labelled sequence file {str(path)!r} not found; expected a UTF-8 text file with one "
        "'label<TAB>sequence' per line.",
    )
    seqs, labels = [], []
    header_checked = False
    for lineno, line in enumerate(_read_lines(file, "utf-8", "'label<TAB>sequence' lines"), 1):
        if not line.strip() or line.startswith("#"):
            continue
        label, tab, seq = line.partition("\t")
        if not tab:
            raise DataFormatError(f"{file}, line {lineno}: no TAB; expected 'label<TAB>sequence', got {line[:80]!r}.")
        if not header_checked:
            header_checked = True
            if _names_columns(label, seq):
                log.info("%s, line %d: %r names the columns; skipped as a header", file, lineno, line)
                continue
        if not label.strip() or not seq:
            what = "label" if not label.strip() else "sequence"
            raise DataFormatError(f"{file}, line {lineno}: empty {what}; expected 'label<TAB>sequence'.")
        labels.append(label.strip())
        seqs.append(seq)
    if not seqs:
        raise DataFormatError(f"{file}: no examples found; expected lines 'label<TAB>sequence'.")
    return SequenceDataset(seqs, labels, [], source=str(file))


def _tsv_problem(label: str, sequence: str, first: bool) -> str:
    """Why ``label<TAB>sequence`` would not read back as this example, or ``""``."""
    if "\t" in label or "\n" in label or "\r" in label:
        return f"the label holds a TAB or line break ({label!r})"
    if not label.strip():
        return "the label is empty"
    if label != label.strip():
        return f"the label {label!r} has leading or trailing white space, which load_tsv strips"
    if label.startswith("#"):
        return f"the label {label!r} starts with '#', which load_tsv reads as a comment line"
    if first and label.startswith("\ufeff"):
        return f"the label {label!r} starts with U+FEFF, which load_tsv drops at the start of a file (a BOM)"
    if "\n" in sequence or "\r" in sequence:
        return f"the sequence {sequence[:40]!r} holds a line break"
    if not sequence:
        return "the sequence is empty"
    if first and _names_columns(label, sequence):
        return f"({label!r}, {sequence!r}) would be read back as a column header line"
    return ""


def write_tsv(path: str | os.PathLike, sequences: list[str], labels: list[str]) -> None:
    """Write ``label<TAB>sequence`` lines (the format :func:`load_tsv` reads).

    Everything is checked before the file is opened, and the file is written to a
    temporary file beside ``path`` that replaces it only once complete, so a refused
    example or a failed write leaves an existing ``path`` as it was.

    Raises
    ------
    DataFormatError
        When ``sequences`` and ``labels`` differ in length, or an example would not read
        back as written: an empty, white-space-padded or ``#``-prefixed label, a label with
        a TAB or line break, an empty sequence or one with a line break, or a first example
        that reads as a header line or whose label starts with U+FEFF (a byte-order mark).
    """
    for name, column in (("sequences", sequences), ("labels", labels)):
        if isinstance(column, (str, bytes)) or not isinstance(column, Sized):
            raise ParameterTypeError(f"write_tsv: {name} must be a list; got {type(column).__name__}.")
    odd = next((i for i, seq in enumerate(sequences) if not isinstance(seq, str)), None)
    if odd is not None:
        raise ParameterTypeError(
            f"write_tsv: sequence {odd} is {sequences[odd]!r:.80}, not a str; each sequence is a str of symbols."
        )
    labels = [str(lab) for lab in labels]
    if len(sequences) != len(labels):
        raise DataFormatError(
            f"write_tsv got {len(sequences)} sequences but {len(labels)} labels; give one label per sequence."
        )
    for i, (lab, seq) in enumerate(zip(labels, sequences)):
        problem = _tsv_problem(lab, seq, first=i == 0)
        if problem:
            raise DataFormatError(
                f"write_tsv: example {i}: {problem}, so its 'label<TAB>sequence' line would not read back as "
                "written. Change that example, or write another format."
            )
    with atomic_write(path, "w", what="labelled sequence file") as fh:
        fh.writelines(f"{lab}\t{seq}\n" for lab, seq in zip(labels, sequences))


def load_lines(path: str | os.PathLike) -> SequenceDataset:
    """One unlabelled sequence per line (blank lines skipped); ``labels`` is empty.

    The format has no header and no comments: every non-blank line is a sequence, since
    one of arbitrary text may well read "sequence" or start with "#". Lines end at a
    newline only, as in :func:`load_tsv`.
    """
    file = _input_file(
        _as_path(path, "sequence file"), f"Sequence file {str(path)!r} not found; expected one sequence per line."
    )
    seqs = [line for line in _read_lines(file, "utf-8", "one sequence per line") if line.strip()]
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
        raise ParameterError(
            f"The 'format' parameter must be one of {', '.join(map(repr, _FORMATS))}. Got {format!r} instead."
        )
    p = _as_path(path, "data")
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
